"""An edit's render equals a clean render: random edits of every kind a teacher makes
(bench/edit_fuzz.py), each rendered on top of the last render and clean into a fresh
folder, on a small scene of the tests and on a scene plugin kept outside the project,
both drawn at the tiny frame (-q t): the two renders are compared with each other.
bench/fuzz_edits.py runs them in a copy of the project's code, whose pe_math is edited."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench import edit_fuzz

pytestmark = pytest.mark.render
ROOT = Path(__file__).resolve().parent.parent
SEED = 47
STEPS = 4  # renders checked, each after three edits: every kind of edit at least once


def test_every_edit_renders_as_a_clean_render_would():
    command = [sys.executable, "bench/fuzz_edits.py", "--seed", str(SEED), "--edits", str(STEPS)]
    done = subprocess.run([*command, "--per-step", "3"], cwd=ROOT, capture_output=True, text=True)
    print(done.stdout)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert f"{STEPS} edits checked, {STEPS} held, 0 differed" in done.stdout.splitlines()
    assert f"kinds of edit made: {', '.join(sorted(edit_fuzz.EDITS))}" in done.stdout.splitlines()
