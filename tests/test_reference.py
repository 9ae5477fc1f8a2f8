"""docs/reference.md is what scripts/reference.py writes from the code, so it cannot drift."""

from __future__ import annotations

import importlib.util
from dataclasses import fields
from pathlib import Path

from pe_math import Params
from render import cli

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "reference.py"


def load_script():
    spec = importlib.util.spec_from_file_location("reference_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_reference_is_the_generated_one():
    reference = load_script()
    committed = reference.TARGET.read_text(encoding="utf-8")
    assert committed == reference.generate(), "run scripts/reference.py (make docs)"


def test_the_reference_names_every_command_option_and_lesson_key():
    text = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")
    for name, command in cli.commands.items():
        assert f"\n### {name}\n" in text
        for param in command.params:
            for opt in getattr(param, "opts", []):
                if opt.startswith("--"):
                    assert opt in text, (name, opt)
    for f in fields(Params):
        assert f"| `{f.name}` |" in text, f.name
