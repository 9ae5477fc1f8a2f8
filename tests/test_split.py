"""Long scenes drawn in spans of animations by several workers, then joined.

A span that starts late skips every play before it (they end without drawing), so a
scene whose state or clock depends on those plays would draw it differently. Every
mission scene is drawn whole, then from a late span alone, at a tiny frame size with
speech lengths that are not whole frames: the span must be the whole render's last
frames exactly. Joining by packet copy is checked on one scene and through the driver.
"""

from __future__ import annotations

import json
from pathlib import Path

import av
import numpy as np
import pytest
from click.testing import CliRunner

import scenes
from pe_math import Params
from render import cli
from rendering.core.jobs import Job
from rendering.draw import join
from rendering.draw.scene import draw
from rendering.run import split
from scenes.base import LessonScene
from scenes.catalogue import catalogue

TINY_FRAME = {"pixel_width": 256, "pixel_height": 144, "frame_rate": 10}
MISSION = [info.slug for info in scenes.ordered() if info.module.startswith("scenes.")]
FOLDER = Path("en") / "480p15"
JOINED = "clock-hands"  # its hands are redrawn every frame from the scene clock


def decoded(*paths: Path) -> list[np.ndarray]:
    out = []
    for path in paths:
        with av.open(str(path)) as container:
            out += [frame.to_ndarray(format="rgb24") for frame in container.decode(video=0)]
    return out


# ----------------------------------------------------------------- choosing spans
def test_spans_make_the_dearest_part_as_cheap_as_possible():
    # every build up to a part's end is paid by that part; draws only by the part that draws
    animations = [[1.0, 2.0]] * 10
    assert split.spans(animations, 2) == [(0, 5), (6, 9)]
    assert split.part_cost(animations, 0, 5) == split.part_cost(animations, 6, 9) == 18.0
    # one expensive draw at each end: the cut falls in the cheap middle
    assert split.spans([[0, 10], [0, 1], [0, 1], [0, 10]], 2) == [(0, 1), (2, 3)]
    # the spans cover every animation once, in order, however many parts are asked for
    rng = np.random.default_rng(7)
    costs = rng.uniform(0, 3, size=(40, 2)).tolist()
    for parts in (1, 3, 7, 40, 60):
        got = split.spans(costs, parts)
        assert got[0][0] == 0 and got[-1][1] == 39
        assert all(b[0] == a[1] + 1 for a, b in zip(got, got[1:], strict=False))
        assert len(got) == min(parts, 40)


def test_a_job_is_split_only_when_it_would_hold_up_the_run_and_is_worth_it():
    long = [[0.5, 2.0]] * 20  # 50 s of work
    assert split.part_count(long, share=3.0, slots=2) == 2  # never more parts than slots
    assert split.part_count(long, share=3.0, slots=4) == 3
    assert split.part_count(long, share=0.8, slots=4) == 1  # smaller than a slot's share
    assert split.part_count(None, share=3.0, slots=4) == 1  # no timings from a last run
    assert split.part_count(long, share=3.0, slots=1) == 1
    short = [[0.1, 0.5]] * 10  # 6 s: one part of 5 s at least
    assert split.part_count(short, share=4.0, slots=4) == 1


def test_merged_timings_take_each_animation_from_the_part_that_drew_it():
    first = [[1.0, 2.0], [1.0, 3.0], [0.5, 0.0]]
    second = [[1.0, 0.0], [1.2, 0.0], [0.5, 4.0]]
    merged = join.merged_timings([((2, 2), second), ((0, 1), first)])
    assert merged == [[1.0, 2.0], [1.0, 3.0], [0.5, 4.0]]


# ----------------------------------------------------------------- frame for frame
@pytest.mark.render
@pytest.mark.parametrize("slug", MISSION)
def test_a_late_span_drawn_alone_is_the_end_of_the_whole_render(slug, tmp_path):
    job = Job(slug, Params.load())
    # speech that is no whole number of frames: the waits after skipped plays must match.
    # Speech stretches the animations to fill it (motion.pace_for), which costs a build
    # before the draw: one scene is drawn so, the others as written
    speech = {key: 1.37 + 0.71 * i for i, key in enumerate(catalogue("en", slug)["say"])}
    pace = None if slug == JOINED else {}  # {}: drawn as written
    ends: list[float] = []  # the scene clock after each animation of the whole render
    LessonScene.play_hooks.append(lambda scene: ends.append(float(scene.renderer.time)))
    try:
        whole = draw(job, tmp_path / "whole", frame=TINY_FRAME, speech=speech, pace=pace)
    finally:
        LessonScene.play_hooks.pop()
    first, last = split.spans(whole.animations, 4)[-1]  # the last quarter of the drawing
    assert 0 < first <= last == len(ends) - 1
    tail = draw(
        job, tmp_path / "tail", span=(first, last), frame=TINY_FRAME, speech=speech, pace=pace
    )

    assert tail.beats == whole.beats  # every beat seen, at the same time, drawn or skipped
    expected, got = decoded(whole.file), decoded(tail.file)
    assert expected[0].shape == (TINY_FRAME["pixel_height"], TINY_FRAME["pixel_width"], 3)
    skipped = round(ends[first - 1] * TINY_FRAME["frame_rate"])  # frames the span must not draw
    assert len(got) == len(expected) - skipped
    differing = [
        i for i, (a, b) in enumerate(zip(expected[skipped:], got, strict=True)) if (a != b).any()
    ]
    assert not differing, f"{len(differing)} frames differ, from frame {skipped + differing[0]}"

    if slug == JOINED:  # and the head drawn apart, joined to the tail: the whole render again
        head = draw(
            job, tmp_path / "head", span=(0, first - 1), frame=TINY_FRAME, speech=speech, pace=pace
        )
        join.join([head.file, tail.file], tmp_path / "joined.mp4")
        assert len(decoded(head.file)) == skipped
        joined = decoded(tmp_path / "joined.mp4")
        assert len(joined) == len(expected)
        assert all((a == b).all() for a, b in zip(expected, joined, strict=True))


# ----------------------------------------------------------------- through the driver
def render(out: Path, *args: str):
    return CliRunner().invoke(
        cli, ["render", "tiny", "--voice", "espeak", "--output", str(out), *args]
    )


def clip_entry(out: Path) -> dict:
    return json.loads((out / FOLDER / "manifest.json").read_text())["clips"]["tiny"]["mp4"]


@pytest.mark.render
def test_the_driver_splits_from_the_last_timings_and_publishes_the_same_clip(
    plugin_scenes, tmp_path, monkeypatch
):
    monkeypatch.setattr(split, "MIN_PART_SECONDS", 0.0)  # the test scene is a few seconds
    first = render(tmp_path, "--jobs", "2")
    assert first.exit_code == 0, first.output
    whole = clip_entry(tmp_path)
    assert whole["parts"] == 1  # no timings yet: nothing to size the spans from
    plays = whole["animations"]
    assert len(plays) >= 3 and all(build >= 0 and draw > 0 for build, draw in plays)
    frames = decoded(tmp_path / FOLDER / "90-tiny.mp4")

    again = render(tmp_path, "--jobs", "2", "--force")
    assert again.exit_code == 0, again.output
    joined = clip_entry(tmp_path)
    assert joined["parts"] == 2
    assert len(joined["animations"]) == len(plays)
    assert joined["beats"] == whole["beats"] and joined["frames"] == whole["frames"]
    assert joined["speech"] == whole["speech"]
    assert joined["sound"]["seconds"] == pytest.approx(whole["sound"]["seconds"], abs=0.03)
    got = decoded(tmp_path / FOLDER / "90-tiny.mp4")
    assert all((a == b).all() for a, b in zip(frames, got, strict=True))
    assert not (tmp_path / ".work").exists()

    kept = render(tmp_path, "--jobs", "2", "--force", "--no-split")
    assert kept.exit_code == 0, kept.output
    assert clip_entry(tmp_path)["parts"] == 1
    solo = render(tmp_path, "--jobs", "1", "--force")  # one worker: nothing to gain
    assert solo.exit_code == 0, solo.output
    assert clip_entry(tmp_path)["parts"] == 1
