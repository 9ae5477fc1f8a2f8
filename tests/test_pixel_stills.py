"""Still runs measured on rendered frames: synthetic clips with known holds, then chapters."""

from __future__ import annotations

from pathlib import Path

import av
import numpy as np
import pytest

from pe_math import Params
from rendering.core.jobs import Job
from rendering.draw.motion import MOST_STILL
from rendering.run import pixel_stills
from rendering.run.pixel_stills import (
    STILL_LEVELS,
    in_beats,
    measure_video,
    still_spans,
)
from rendering.speech.estimate import estimated_speech

SIZE = (48, 64)  # height, width


def bar(x: int) -> np.ndarray:
    """A dark frame with a bright bar 4 pixels wide at column x."""
    frame = np.full(SIZE, 20, dtype=np.uint8)
    frame[:, x % SIZE[1] : x % SIZE[1] + 4] = 230
    return frame


HELD = np.full(SIZE, 128, dtype=np.uint8)  # a picture no frame of a sweep shows


def sweep(frames: int, at: int = 0) -> list[np.ndarray]:
    """A bar that moves 5 pixels every frame: nothing still."""
    return [bar(5 * (at + i)) for i in range(frames)]


def write_clip(path: Path, frames: list[np.ndarray], fps: int) -> Path:
    """Encode grey frames as an H.264 MP4, as a render would be encoded."""
    with av.open(str(path), mode="w") as out:
        stream = out.add_stream("libx264", rate=fps, options={"crf": "18"})
        stream.height, stream.width = SIZE
        stream.pix_fmt = "yuv420p"
        for frame in frames:
            picture = av.VideoFrame.from_ndarray(np.dstack([frame] * 3), format="rgb24")
            out.mux(stream.encode(picture))
        out.mux(stream.encode())
    return path


def spans(frames: list[np.ndarray], fps: int) -> list[tuple[float, float]]:
    return [(pytest.approx(a), pytest.approx(b)) for a, b in still_spans(frames, fps)[0]]


def test_a_picture_held_for_3_s_in_a_rendered_clip_is_one_run_of_3_s(tmp_path):
    moving, held = sweep(15), [HELD] * 45  # 1 s moving, then 3 s held at 15 fps
    clip = write_clip(tmp_path / "held.mp4", moving + held + sweep(15, at=100), 15)
    found = measure_video(clip, [("intro", 0.0), ("hold", 1.5), ("after", 4.5)])
    (run,) = found.runs
    assert run.start == pytest.approx(1.0) and run.seconds == pytest.approx(3.0)
    assert run.beats == ("intro", "hold")  # it begins before the second beat does
    assert found.seconds == pytest.approx(5.0)
    assert found.still_share == pytest.approx(3.0 / 5.0)
    assert found.longest == run


def test_a_picture_that_never_holds_has_no_run(tmp_path):
    found = measure_video(write_clip(tmp_path / "moving.mp4", sweep(45), 15))
    assert found.runs == [] and found.longest is None and found.still_share == 0.0


@pytest.mark.parametrize("fps", [5, 15, 30])
def test_a_hold_lasts_as_long_at_any_frame_rate(fps):
    frames = sweep(fps) + [HELD] * (3 * fps) + sweep(fps, at=100)
    assert spans(frames, fps) == [(1.0, 4.0)]
    assert spans([HELD] * (2 * fps), fps) == [(0.0, 2.0)]  # held to its end


def test_a_fade_under_8_grey_levels_per_0_2_s_is_still_though_it_changes_much_more():
    def fade(per_frame: float) -> list[np.ndarray]:  # 4 s at 15 fps: 3 frames per 0.2 s
        return [np.full(SIZE, round(10 + per_frame * i), dtype=np.uint8) for i in range(60)]

    slow = fade(STILL_LEVELS / 3)  # 8 levels a window, 157 levels in all
    assert spans(slow, 15) == [(0.0, 4.0)]
    assert spans(fade(3.0), 15) == []  # 9 levels a window: it moves


def test_one_pixel_that_changes_breaks_the_run():
    frames = [np.full(SIZE, 100, dtype=np.uint8) for _ in range(60)]
    for frame in frames[30:]:
        frame[5, 5] = 100 + STILL_LEVELS + 1
    assert spans(frames, 15) == [(0.0, 2.0), (2.0, 4.0)]
    for frame in frames[30:]:
        frame[5, 5] = 100 + STILL_LEVELS  # as much as a still frame may change
    assert spans(frames, 15) == [(0.0, 4.0)]


def test_a_run_names_the_beats_it_falls_in():
    beats = [("a", 1.0), ("b", 3.0), ("c", 5.0)]
    assert in_beats((0.0, 0.8), beats) == ()  # before the first beat: the title
    assert in_beats((1.5, 3.0), beats) == ("a",)
    assert in_beats((2.5, 5.5), beats) == ("a", "b", "c")
    assert in_beats((6.0, 9.0), beats) == ("c",)


# A chapter drawn at 5 fps costs tens of seconds, so the suite draws one; bench/still_runs.py
# draws every chapter in both languages. square-to-sine is the one the build's measure
# passed while its frames held still: its waves are redrawn every frame, so a hold counted
# as motion there, though nothing on screen changed.
DRAWN = [("square-to-sine", "en")]


@pytest.mark.render
@pytest.mark.parametrize(("slug", "lang"), DRAWN)
def test_a_chapters_rendered_frames_never_hold_still_over_6_s(slug, lang, tmp_path):
    """Drawn as a narrated render draws it, timed by a slow voice's speech and paced to it;
    at 5 fps a run reads up to QUICK_SHORTER shorter than at the render's 15 fps."""
    speech, sentences = estimated_speech(slug, lang, Params())
    job = Job(slug, Params(), lang)
    found = pixel_stills.measure(job, tmp_path, speech, sentences, fps=pixel_stills.QUICK_FPS)
    assert found.seconds > sum(speech.values())  # timed by its speech, not drawn silent
    longest = found.longest
    assert longest is None or longest.seconds <= MOST_STILL - pixel_stills.QUICK_SHORTER, longest
