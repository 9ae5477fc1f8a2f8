"""docs/reference.md is what scripts/reference.py writes from the code, so it cannot drift."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import fields
from pathlib import Path

from pe_math import Params
from render import cli

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "reference.py"


def test_the_committed_reference_is_the_generated_one():
    # in a process of its own: click keeps each command's help option once it is asked for,
    # so a command another test invoked alone would lose its -h here
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, f"run scripts/reference.py (make docs): {done.stdout}{done.stderr}"


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
