"""The accessibility report: captions read at a pace, no flashing, colours that contrast.

Each checker is held to a planted failure (a cue too fast, a 5 Hz flicker in one corner,
a colour too dim) and to a case just inside its limit; `check --a11y` is run on a
rendered folder.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import av
import numpy as np
import pytest
from click.testing import CliRunner

from lesson.palette import PALETTE, contrast_ratio
from render import cli
from rendering.core.manifest import PAGES
from rendering.publish import accessibility as a11y
from rendering.publish import flashes
from rendering.speech import captions
from tests.test_lesson import render_clips
from tests.test_presenter import tiny_scenes_for_module


# ----------------------------------------------------------------- captions
def test_a_cue_too_fast_too_long_or_too_brief_is_named_and_one_at_the_limit_passes():
    fine = a11y.Cue(1.0, 3.0, "x" * 34)  # 17 characters a second
    fast = a11y.Cue(4.0, 5.0, "y" * 18)
    tall = a11y.Cue(6.0, 9.0, "one\ntwo\nthree")
    brief = a11y.Cue(10.0, 10.5, "ok")
    found = a11y.caption_problems([fine, fast, tall, brief], "en")
    assert found == [
        (4.0, "18.0 characters a second (at most 17)"),
        (6.0, "3 lines (at most 2)"),
        (10.0, "on screen 0.50 s (at least 0.83 s)"),  # captions.SHORTEST
    ]
    # Chinese is read at 9 characters a second; its line breaks are no characters
    assert a11y.caption_problems([a11y.Cue(0.0, 2.0, "位置编码\n让模型知道顺序")], "zh") == []
    too_fast = a11y.caption_problems([a11y.Cue(0.0, 1.0, "位置编码让模型知道顺序")], "zh")
    assert too_fast == [(0.0, "11.0 characters a second (at most 9)")]


def test_the_captions_the_project_writes_read_back_cue_for_cue(tmp_path):
    cues = [
        captions.Cue(0.0, 1.5, "a < b --> c"),
        captions.Cue(1.5, 3.25, "two\nlines"),
    ]
    (tmp_path / "clip.en.vtt").write_text(captions.to_vtt(cues), encoding="utf-8")
    back = a11y.cues_of(tmp_path / "clip.en.vtt")
    assert [(c.start, c.end, c.text) for c in back] == [
        (0.0, 1.5, "a < b --> c"),
        (1.5, 3.25, "two\nlines"),
    ]


# ----------------------------------------------------------------- flashes
def flicker(path: Path, frames: int, corner_only: bool, every: int = 1, fps: int = 10) -> Path:
    """Black, with white over the top-left ninth (or everything) every `every` frames."""
    with av.open(str(path), "w") as out:
        stream = out.add_stream("libx264", rate=fps)
        stream.width, stream.height, stream.pix_fmt = 96, 54, "yuv420p"
        for i in range(frames):
            image = np.zeros((54, 96, 3), np.uint8)
            if (i // every) % 2:
                if corner_only:
                    image[:18, :32] = 255
                else:
                    image[:] = 255
            for packet in stream.encode(av.VideoFrame.from_ndarray(image, format="rgb24")):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
    return path


def test_a_flicker_of_5_hz_is_found_even_in_one_corner_and_3_flashes_a_second_pass(tmp_path):
    corner = flashes.flash_problems(flicker(tmp_path / "corner.mp4", 30, corner_only=True))
    assert corner == [(0.1, "10 changes of brightness in one second (more than 3 flashes)")]
    assert flashes.flash_problems(flicker(tmp_path / "all.mp4", 30, corner_only=False))
    # at 30 fps, a change every 5 frames is 6 a second (3 flashes): the limit, allowed
    assert flashes.flash_problems(flicker(tmp_path / "three.mp4", 60, False, every=5, fps=30)) == []
    # a change every 4 frames is 7 or 8 in a second: too many
    ((_, four),) = flashes.flash_problems(
        flicker(tmp_path / "four.mp4", 60, False, every=4, fps=30)
    )
    assert four.startswith(("7 changes", "8 changes"))


def test_changes_count_only_opposing_steps_with_a_dark_side():
    assert flashes.changes(np.array([0.0, 0.5, 0.0, 0.5, 0.0])) == [1, 2, 3, 4]
    assert flashes.changes(np.array([0.0, 0.2, 0.4, 0.6])) == [1]  # one slow rise
    assert flashes.changes(np.array([0.85, 0.99, 0.85, 0.99])) == []  # bright on bright
    assert flashes.most_changes([0, 2, 4, 6, 8, 10, 30], 10) == (5, 0.0)


# ----------------------------------------------------------------- contrast
def test_contrast_follows_wcag_and_a_dim_colour_is_named():
    assert contrast_ratio("#ffffff", "#000000") == pytest.approx(21.0)
    assert contrast_ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    assert a11y.palette_problems() == []  # every text colour of the lesson
    dim = {**PALETTE, "muted": "#3a3f4a"}
    ((name, problem),) = a11y.palette_problems(dim)
    assert name == "muted" and problem.startswith("#3a3f4a on #0f1117 is 1.")


# ----------------------------------------------------------------- the command
@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    with tiny_scenes_for_module(tmp_path_factory):
        root = tmp_path_factory.mktemp("media")
        yield root, render_clips(root, ["tiny-a"], lang="en")


def test_check_writes_the_report_beside_the_manifest_and_fails_on_missing_captions(
    rendered, tmp_path
):
    root, folder = rendered
    args = ["check", "--a11y", "--output", str(root), "-q", "l", "--lang", "en"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "checking tiny-a" in result.output and "(no problem found)" in result.output
    report = json.loads((folder / a11y.JSON_NAME).read_text(encoding="utf-8"))
    assert report["passed"] and report["findings"] == [] and report["not_judged"]
    assert [(c["criterion"].split()[0], c["result"]) for c in report["checked"]] == [
        ("1.2.2", "passed"),
        ("1.4.3", "passed"),
        ("1.4.11", "passed"),
        ("2.3.1", "passed"),
    ]
    assert "<h1>Accessibility report</h1>" in (folder / a11y.HTML_NAME).read_text("utf-8")
    assert {a11y.JSON_NAME, a11y.HTML_NAME} <= PAGES  # `clean` removes them with the pages
    # a narrated clip without its Chinese captions
    copy = tmp_path / "media"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".work"))
    moved = copy / folder.relative_to(root)
    manifest = json.loads((moved / "manifest.json").read_text(encoding="utf-8"))
    entry = next(iter(manifest["clips"]["tiny-a"].values()))
    entry["voice"] = "kokoro af_bella"
    (moved / entry["captions"]["vtt"]["zh"]).unlink()
    (moved / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    result = CliRunner().invoke(cli, [*args[:3], str(copy), *args[4:]])
    assert result.exit_code == 1
    assert "1.2.2 Captions: tiny-a zh: no captions" in result.output
    checked = json.loads((moved / a11y.JSON_NAME).read_text(encoding="utf-8"))["checked"]
    # the missing track, and the English cues timed for a silent clip, now read as speech
    assert [c["result"] for c in checked] == ["2 problems", "passed", "passed", "passed"], (
        result.output
    )
    none = CliRunner().invoke(cli, ["check", "--output", str(root)])
    assert none.exit_code != 0 and "say what to check: --a11y" in none.output
    absent = CliRunner().invoke(cli, [*args, "tiny-b"])
    assert absent.exit_code != 0
    assert "error: tiny-b has no mp4 clip in" in absent.output, absent.output
    # a clip that cannot be decoded is a finding, not a crash
    (moved / entry["file"]).write_bytes(b"not a video")
    broken = CliRunner().invoke(cli, [*args[:3], str(copy), *args[4:]])
    assert broken.exit_code == 1 and "tiny-a.mp4 cannot be decoded" in broken.output


def test_flashes_are_measured_again_only_for_a_clip_whose_file_changed(
    rendered, tmp_path, monkeypatch
):
    root, folder = rendered
    copy = tmp_path / "media"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".work"))
    moved = copy / folder.relative_to(root)
    first = a11y.check(moved)
    a11y.write(moved, first)
    assert list(first.measured) == ["tiny-a"]

    def planted(video, parts=None):
        return [(1.5, "planted flicker")]

    monkeypatch.setattr(a11y, "flash_problems", planted)
    assert a11y.check(moved).findings == []  # the same file: its flashes are not measured
    (moved / a11y.JSON_NAME).write_text('{"measured": {"tiny-a": 3}}', encoding="utf-8")
    assert [f.problem for f in a11y.check(moved).findings] == ["planted flicker"]
    a11y.write(moved, first)
    manifest = json.loads((moved / "manifest.json").read_text(encoding="utf-8"))
    clip = moved / next(iter(manifest["clips"]["tiny-a"].values()))["file"]
    with open(clip, "ab") as fh:
        fh.write(b"\0")  # a changed file
    assert [f.problem for f in a11y.check(moved).findings] == ["planted flicker"]


def test_a_beat_ends_with_its_texts_contrast_and_numbers_recorded_and_reported(
    rendered, tmp_path, monkeypatch
):
    from manim import FadeIn, Line

    from rendering.publish import transcript
    from scenes.kit import on_screen, theme
    from scenes.kit.components import text
    from tests.test_lesson import TinyB

    def with_a_label(scene):
        scene.beat("draw")
        label = text("a label of 0.37", size=theme.LABEL_SIZE, color=theme.MUTED)
        scene.play(FadeIn(label, Line(stroke_color=theme.MUTED, stroke_width=3).next_to(label)))

    monkeypatch.setattr(TinyB, "construct", with_a_label)
    folder = render_clips(tmp_path, ["tiny-b"], lang="en")
    entry = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))["clips"]["tiny-b"]
    # measured: nothing under its contrast, and a number the line does not say
    assert entry["mp4"]["screen"] == {"draw": {"low": [], "lines": [], "numbers": ["0.37"]}}
    report = a11y.check(folder)
    assert report.passed
    assert [(f.clip, f.where, f.problem) for f in report.unsaid] == [
        ("tiny-b", "end of beat draw", "0.37")
    ]
    transcript.write(folder)
    assert "*Also on screen: 0.37*" in (folder / transcript.MARKDOWN).read_text("utf-8")
    # the same clip drawn with a bar no text can reach: its text is named
    monkeypatch.setattr(on_screen, "TEXT_CONTRAST", 30.0)
    monkeypatch.setattr(on_screen, "LARGE_TEXT_CONTRAST", 30.0)  # lines' too
    again = render_clips(tmp_path / "again", ["tiny-b"], lang="en")
    found = [f for f in a11y.check(again).findings if f.criterion == "1.4.3 Contrast"]
    assert [(f.clip, f.where, f.problem.split(" at ")[0]) for f in found] == [
        ("tiny-b", "end of beat draw", "'a label of 0.37'")
    ]
    assert found[0].problem.endswith("(needs 30:1)")
    lines = [f for f in a11y.check(again).findings if f.criterion.startswith("1.4.11")]
    assert [(f.where, f.problem.split(" at ")[0]) for f in lines] == [
        ("end of beat draw", "'Line #8b93a1'")
    ]
    # a record that cannot be read asks for a render
    manifest = json.loads((again / "manifest.json").read_text(encoding="utf-8"))
    manifest["clips"]["tiny-b"]["mp4"]["screen"] = {"draw": {"low": [["x", "dim"]]}}
    (again / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    (problem,) = [f.problem for f in a11y.check(again).findings if f.criterion.startswith("1.4.3")]
    assert problem.startswith("not measured when it was drawn")
