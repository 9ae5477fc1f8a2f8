"""Check a finished file before it counts: decode it end to end (or, for a join of parts
already decoded, count its packets) and compare with the job."""

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


def check_joined(
    path: Path,
    parts: list[tuple[Path, bool]],
    width: int,
    height: int,
    fps: float,
    poster: Path | None = None,
) -> Checked:
    """A clip joined from `parts` by copying their packets, checked without decoding again
    the frames decoded before: each part not yet decoded (False beside it) is decoded end
    to end, and the last one too, for the poster; the clip must hold every part's
    packets, at the size and rate asked."""
    if not parts:
        raise InvalidOutput(f"{path.name} has no frames")
    expected = 0
    for i, (part, decoded) in enumerate(parts):
        last = i == len(parts) - 1
        if decoded and not last:
            expected += _packets(part)[0]
        else:
            expected += check_video(part, width, height, fps, poster if last else None).frames
    frames, (w, h), rate = _packets(path)
    if frames != expected:
        raise InvalidOutput(f"{path.name} holds {frames} frames, its parts {expected}")
    if (w, h) != (width, height):
        raise InvalidOutput(f"{path.name} is {w}x{h}, expected {width}x{height}")
    if rate and abs(rate - fps) > 0.01 * fps:
        raise InvalidOutput(f"{path.name} plays at {rate:g} fps, expected {fps:g}")
    return Checked(frames / fps, frames, w, h, rate)


def _packets(path: Path) -> tuple[int, tuple[int, int], float]:
    """A video's frames counted from its packets, its size and its frame rate."""
    try:
        with av.open(str(path)) as container:
            stream = container.streams.video[0]
            frames = sum(1 for p in container.demux(stream) if p.dts is not None)
            size = stream.codec_context.width, stream.codec_context.height
            return frames, size, float(stream.average_rate or stream.guessed_rate or 0)
    except (av.FFmpegError, OSError, IndexError) as exc:
        raise InvalidOutput(f"{path.name} does not open as a video ({exc})") from None


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


def signature(path: Path) -> tuple:
    """What must match for two videos' packets to be joined by copying them: the codec,
    the frame and pixel format, the codec's set-up (its parameter sets), the frame rate and
    the time base. The nominal rate, not the average: a clip whose last frame is held a
    few ticks short averages a hair over 30 frames a second, yet joins as well."""
    with av.open(str(path)) as c:
        s = c.streams.video[0]
        cc = s.codec_context
        return (
            cc.name,
            cc.width,
            cc.height,
            cc.format.name if cc.format else None,
            bytes(cc.extradata or b""),
            s.base_rate,
            s.time_base,
        )
