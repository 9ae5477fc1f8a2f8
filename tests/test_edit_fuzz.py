"""The edit fuzzer's own parts that need no render: the lesson file it writes, its tally."""

from __future__ import annotations

import tomllib

import pytest

from bench import edit_fuzz
from pe_math.params import DEFAULT_TOML

CONFIG = {"base =": "base = 500.0", "n_bits =": "n_bits = 6", "speed =": "speed = 1.2"}


def world(tmp_path) -> edit_fuzz.World:
    return edit_fuzz.World(tmp_path, config=dict(CONFIG))


def test_the_lesson_file_takes_the_worlds_knobs_and_speaks_english_with_espeak(tmp_path):
    written = tomllib.loads(world(tmp_path).lesson_text())
    default = tomllib.loads(DEFAULT_TOML.read_text(encoding="utf-8"))
    assert (written["base"], written["n_bits"]) == (500.0, 6)
    assert written["voice"]["en"] == {"engine": "espeak", "voice": "en-us", "speed": 1.2}
    # every other line is the default file's: Chinese keeps its own voice, speed included
    assert written["voice"]["zh"] == default["voice"]["zh"]
    for table in (written, default):
        del table["base"], table["n_bits"], table["voice"]["en"]
    assert written == default


@pytest.mark.parametrize(
    ("change", "astray"),
    [
        (lambda text: text.replace("\nn_bits =", "\n# n_bits ="), ["n_bits ="]),
        (lambda text: text.replace("\nbase =", "\nbase = 1.0\nbase ="), ["base ="]),
        (
            lambda text: text.replace("[voice.en]", "[voice.english]"),
            ["[voice.en] engine =", "[voice.en] voice =", "[voice.en] speed ="],
        ),
    ],
    ids=["a knob's line gone", "a knob's line twice", "the English voice's table renamed"],
)
def test_a_line_the_world_sets_must_be_found_once(tmp_path, monkeypatch, change, astray):
    lesson = tmp_path / "lesson.toml"
    lesson.write_text(change(DEFAULT_TOML.read_text(encoding="utf-8")), encoding="utf-8")
    monkeypatch.setattr(edit_fuzz, "DEFAULT_TOML", lesson)
    with pytest.raises(RuntimeError) as caught:
        world(tmp_path).lesson_text()
    assert str(caught.value) == f"lesson.toml no longer has one each of {astray}"


def test_the_tally_counts_each_scene_and_kind_checked_and_held():
    outcome = edit_fuzz.Outcome(checked=2, held=1, failures=["edit 2 ..."])
    for slug, held in [("tiny", True), ("fuzz-card", True), ("tiny", True), ("fuzz-card", False)]:
        outcome.count(outcome.by_scene, slug, held)
    for kind, held in [("speed", True), ("bridge", False)]:
        outcome.count(outcome.by_kind, kind, held)
    assert outcome.tally() == (
        "2 edits checked, 1 held, 1 differed; held/checked by scene: tiny 2/2, fuzz-card 1/2; "
        "by kind: bridge 0/1, speed 1/1"
    )
