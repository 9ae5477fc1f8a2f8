"""Check a finished file before it counts: decode it end to end and compare with the job."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import av
from PIL import Image


class InvalidOutput(RuntimeError):
    """A rendered file that does not decode or does not match what was asked."""


@dataclass(frozen=True)
class Checked:
    duration: float
    frames: int
    width: int
    height: int
    fps: float


def check_video(
    path: Path, width: int, height: int, fps: float | None, poster: Path | None = None
) -> Checked:
    """Decode every frame; size must match, fps must match when given, duration must be > 0.

    With `poster`, the last frame is saved there as PNG.
    """
    try:
        with av.open(str(path)) as container:
            stream = container.streams.video[0]
            stream.thread_type = "AUTO"  # frames decoded on every core, in order
            frames, last, end = 0, None, 0.0
            for frame in container.decode(stream):
                frames += 1
                last = frame
                if frame.pts is not None and frame.time_base is not None:
                    step = float(frame.duration * frame.time_base) if frame.duration else 0.0
                    end = max(end, float(frame.pts * frame.time_base) + step)
            w, h = stream.codec_context.width, stream.codec_context.height
            rate = float(stream.average_rate or stream.guessed_rate or 0)
    except (av.FFmpegError, OSError, IndexError) as exc:
        raise InvalidOutput(f"{path.name} does not decode ({exc})") from None
    if frames == 0 or last is None:
        raise InvalidOutput(f"{path.name} has no frames")
    if (w, h) != (width, height):
        raise InvalidOutput(f"{path.name} is {w}x{h}, expected {width}x{height}")
    if fps is not None and rate and abs(rate - fps) > 0.01 * fps:
        raise InvalidOutput(f"{path.name} plays at {rate:g} fps, expected {fps:g}")
    # at the frame rate asked for: a long join's average rate, worked out from rounded
    # timestamps, can be off by enough to misplace its end by more than a frame
    duration = frames / (fps or rate) if (fps or rate) else end
    if duration <= 0:
        raise InvalidOutput(f"{path.name} has zero duration")
    if poster is not None:
        last.to_image().save(poster)
    return Checked(duration, frames, w, h, rate)


def check_image(path: Path, width: int, height: int) -> Checked:
    try:
        with Image.open(path) as img:
            img.load()
            size = img.size
    except OSError as exc:
        raise InvalidOutput(f"{path.name} is not a readable image ({exc})") from None
    if size != (width, height):
        raise InvalidOutput(f"{path.name} is {size[0]}x{size[1]}, expected {width}x{height}")
    return Checked(0.0, 1, width, height, 0.0)
