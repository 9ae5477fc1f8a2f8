"""Voice engines register themselves: no other module names one, and an engine added
from outside the package speaks through `say` and a render."""

from __future__ import annotations

import ast
import wave
from pathlib import Path

import pytest
from click.testing import CliRunner

from render import cli
from rendering.core import keys
from rendering.core.manifest import Manifest
from rendering.speech import narration, voices
from rendering.speech.engines.base import REGISTRY
from tests import test_lesson
from tests.test_lesson import render_clips

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = keys.PROJECT_PACKAGES
# Piper's voice files name the phonemiser they were trained with under this key
FILE_FORMAT_WORDS = {("rendering/speech/engines/piper.py", "espeak")}

tiny_scenes = test_lesson.tiny_scenes  # the fixture: tiny scenes at 256x144, 10 fps


def strings(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string constant of `source` but its docstrings."""
    tree = ast.parse(source)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def test_the_finder_sees_a_string_and_passes_a_docstring():
    assert strings('"""kokoro"""\nx = "kokoro"\n') == [(2, "kokoro")]


def test_no_engine_is_named_outside_its_own_module():
    own = {
        name: Path(__import__(kind.__module__, fromlist=["_"]).__file__).resolve()
        for name, kind in REGISTRY.items()
    }
    files = [p for package in PACKAGES for p in (ROOT / package).rglob("*.py")]
    wrong = []
    for path in sorted(files) + [ROOT / "render.py"]:
        where = path.relative_to(ROOT).as_posix()
        for line, text in strings(path.read_text(encoding="utf-8")):
            if text in own and own[text] != path and (where, text) not in FILE_FORMAT_WORDS:
                wrong.append(f"{where}:{line}: {text!r}")
    assert len(own) >= 4 and wrong == []


@pytest.fixture
def toy():
    from tests import toy_engine

    REGISTRY[toy_engine.Toy.engine_name] = toy_engine.Toy
    yield toy_engine.Toy
    toy_engine.unregister()
    voices.engine.cache_clear()


def test_a_toy_engine_is_one_class_and_speaks_through_say(toy, tmp_path):
    assert "toy" in voices.choices() and "toy" in voices.engine_names()
    out = tmp_path / "line.wav"
    args = ["say", "One toy line.", "--voice", "toy", "--out", str(out), "--output", str(tmp_path)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "speech by toy beep" in result.output
    with wave.open(str(out)) as w:
        assert w.getnframes() > 0.3 * w.getframerate()  # "One toy line." at 0.05 s a letter


def test_a_toy_engine_is_offered_and_refused_like_the_others(toy, tmp_path):
    result = CliRunner().invoke(cli, ["say", "x", "--voice", "nope", "--out", "a.wav"])
    assert result.exit_code == 2 and "'toy'" in result.output
    lesson = tmp_path / "lesson.toml"
    lesson.write_text('[voice.en]\nengine = "toy"\n', encoding="utf-8")
    assert voices.load_specs(lesson)["en"] == voices.VoiceSpec("toy", "beep")


@pytest.mark.render
def test_a_toy_engine_narrates_a_render(toy, tiny_scenes, tmp_path):
    specs = voices.load_specs()
    spoken = narration.narrate("tiny-a", "en", "toy", specs, tmp_path / "rec", tmp_path / "sp")
    assert {beat.source for beat in spoken.beats} == {"toy"}
    folder = render_clips(tmp_path, ["tiny-a"], narration=spoken)
    entry = Manifest.load(folder).entry("tiny-a", "mp4")
    assert [card.engine for card in entry.voice_cards] == ["toy"] and entry.sound is not None
