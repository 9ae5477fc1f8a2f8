"""Still runs measured on a clip's rendered frames, not on its build.

A frame is still when no pixel of it differs by more than STILL_LEVELS grey levels from
the frame STILL_WINDOW seconds later; a still run is a stretch of such frames, and it
lasts from its first frame until the last frame compared with it leaves the screen. So a
picture held for 3 s is one run of 3 s, and a fade too slow to see counts as still.
Unlike rendering.draw.motion, this also sees a wait whose updaters change nothing
visible, and an animation too slow to see.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import av
import numpy as np

from rendering.core.jobs import Job

STILL_LEVELS = 8  # grey levels (of 255) a pixel may change by in a still frame
STILL_WINDOW = 0.2  # seconds over which a still frame changes by no more than that
QUICK_FPS = 5  # one frame per window: a third of the drawing at 15 fps, runs read shorter
QUICK_SHORTER = 1.0  # seconds a run may read shorter at QUICK_FPS than at 15 fps


@dataclass(frozen=True)
class PixelRun:
    start: float
    end: float
    beats: tuple[str, ...] = ()  # the beats the run falls in, in order

    @property
    def seconds(self) -> float:
        return self.end - self.start


@dataclass(frozen=True)
class PixelStills:
    """How a rendered clip holds still, frame by frame."""

    seconds: float  # the clip's length
    runs: list[PixelRun]  # longest first

    @property
    def still_seconds(self) -> float:
        return sum(r.seconds for r in self.runs)

    @property
    def still_share(self) -> float:
        return self.still_seconds / self.seconds if self.seconds else 0.0

    @property
    def longest(self) -> PixelRun | None:
        return self.runs[0] if self.runs else None


def still_spans(
    frames: Iterable[np.ndarray], fps: float
) -> tuple[list[tuple[float, float]], float]:
    """The still runs, as (start, end) seconds in order, of grey frames shown `fps` times a
    second, and the frames' length in seconds. Frames are read one by one, never all kept."""
    lag = max(1, round(STILL_WINDOW * fps))
    window: deque[np.ndarray] = deque(maxlen=lag + 1)
    spans: list[tuple[float, float]] = []
    first = None  # the first still frame of the run under way
    count = 0
    for count, frame in enumerate(frames, start=1):
        window.append(frame.astype(np.int16))
        if len(window) <= lag:
            continue
        i = count - 1 - lag  # the frame compared with this one
        still = int(np.abs(window[-1] - window[0]).max()) <= STILL_LEVELS
        if still and first is None:
            first = i
        elif not still and first is not None:
            spans.append((first / fps, (i + lag) / fps))  # as frame i-1+lag leaves
            first = None
    if first is not None:
        spans.append((first / fps, count / fps))
    return spans, count / fps


def in_beats(span: tuple[float, float], beats: list[tuple[str, float]]) -> tuple[str, ...]:
    """The beats (key, start) that the span [start, end) overlaps."""
    start, end = span
    starts = [t for _, t in beats[1:]] + [float("inf")]
    return tuple(
        key for (key, t0), t1 in zip(beats, starts, strict=True) if t0 < end and start < t1
    )


def measure_video(video: Path, beats: list[tuple[str, float]] | None = None) -> PixelStills:
    """The still runs of a rendered video, each named by the beats it falls in."""
    with av.open(str(video)) as container:
        stream = container.streams.video[0]
        fps = float(stream.average_rate or stream.guessed_rate)
        grey = (frame.to_ndarray(format="gray") for frame in container.decode(stream))
        spans, seconds = still_spans(grey, fps)
    runs = [PixelRun(a, b, in_beats((a, b), beats or [])) for a, b in spans]
    runs.sort(key=lambda r: -r.seconds)
    return PixelStills(seconds, runs)


def measure(
    job: Job,
    work_dir: Path,
    speech: dict[str, float] | None = None,
    sentences: dict[str, list[tuple[float, float]]] | None = None,
    fps: int | None = None,
) -> PixelStills:
    """Draw `job`'s frames (silent, at its pixel size and frame rate, or at `fps`), timed
    and paced as a render with this speech would be (the job's narration when `speech` is
    None), and measure them. At fewer frames a second a run's ends fall on a coarser grid
    and the scene's timing shifts by frames: runs read up to about a second shorter."""
    from rendering.draw.scene import draw

    frame = {"frame_rate": fps} if fps else None
    drawn = draw(job, work_dir, frame=frame, speech=speech, sentences=sentences)
    return measure_video(drawn.file, drawn.beats)
