"""Three flashes (WCAG 2.3.1), simplified, measured on a clip's decoded frames.

On every frame, the mean luminance of each ninth of the frame (near the guideline's
10-degree field) may change in opposing directions (by 10 % or more, the darker side
under 0.80) at most six times in any one second.

Decoding is the cost: a 2-minute clip at 720p30 takes seconds. A clip made of kept beats
(rendering.draw.segments) is measured beat by beat instead, each beat's series of area
luminances kept beside its frames, so an edit that drew one beat again decodes that beat
alone. The beats' frames are the clip's (it is their packets, joined), so the series
joined is the clip's own.
"""

from __future__ import annotations

import contextlib
import zipfile
from pathlib import Path

import av
import numpy as np

from lesson.palette import luminance
from rendering.core.files import atomic_write, quick_digest
from rendering.core.manifest import BEAT_STORE

FLASH_CHANGE = 0.10  # relative luminance, of the lighter side's maximum 1.0
FLASH_DARK = 0.80  # a change counts only when its darker side is below this
MOST_CHANGES = 6  # in any one second: three flashes, each a pair of opposing changes
GRID = 3  # areas per side: each a ninth of the frame, near the guideline's field
# frames are averaged down to this many pixels first (areas of pixels, then luminance):
# a flash over a ninth of the frame moves that area's mean all the same
SAMPLE = (96, 54)
# measured flashes are kept for a clip while its file and this rule are unchanged
FLASH_RULE = f"{FLASH_CHANGE:g}/{FLASH_DARK:g}/{MOST_CHANGES}/{GRID}/{SAMPLE[0]}x{SAMPLE[1]}"
AREAS = ".areas.npz"  # beside a kept beat's frames: their area luminances


def area_luminance(rgb: np.ndarray, grid: int = GRID) -> np.ndarray:
    """The mean relative luminance of each of grid × grid areas of an RGB frame."""
    lum = luminance(rgb.astype(np.float64) / 255.0)
    h, w = lum.shape
    rows = [part[0] for part in np.array_split(np.arange(h), grid)]
    cols = [part[0] for part in np.array_split(np.arange(w), grid)]
    sums = np.add.reduceat(np.add.reduceat(lum, rows, axis=0), cols, axis=1)
    return (sums / np.outer(np.diff([*rows, h]), np.diff([*cols, w]))).ravel()


def decoded_areas(video: Path) -> np.ndarray:
    """Every frame's area luminances, (frames, GRID²)."""
    small = {"width": SAMPLE[0], "height": SAMPLE[1], "interpolation": "AREA"}
    with av.open(str(video)) as container:
        stream = container.streams.video[0]
        areas = [
            area_luminance(f.to_ndarray(format="rgb24", **small)) for f in container.decode(stream)
        ]
    return np.array(areas).reshape(-1, GRID * GRID)


def beat_areas(segment: Path, frames: int) -> np.ndarray:
    """A kept beat's area luminances: read from beside its frames when they were measured
    on this very file by this rule, else measured now and kept there."""
    made = f"{quick_digest(segment)} {FLASH_RULE}"
    beside = segment.with_name(segment.stem + AREAS)
    try:
        with np.load(beside, allow_pickle=False) as kept:
            areas, said = kept["areas"], str(kept["made"])
        if (
            said == made
            and areas.dtype == np.float64
            and areas.shape == (frames, GRID * GRID)
            and np.isfinite(areas).all()
        ):
            return areas
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        pass  # missing or damaged: measured again
    areas = decoded_areas(segment)
    with contextlib.suppress(OSError):  # not kept: measured again next time
        atomic_write(beside, lambda fh: np.savez(fh, areas=areas, made=np.array(made)), False)
    return areas


def kept_parts(folder: Path, entry) -> list[tuple[Path, int]] | None:
    """The kept beats a clip is made of, in order, with their frames: None unless every
    beat of the clip's record is kept, in files that are there."""
    records = entry.segments.get("beats") if isinstance(entry.segments, dict) else None
    if not records or not isinstance(records, list):
        return None
    store = folder / BEAT_STORE / Path(entry.file).stem
    parts = []
    for record in records:
        if not isinstance(record, dict):
            return None
        frames, key = record.get("frames"), record.get("key")
        if not isinstance(frames, int) or not isinstance(key, str) or not key.isalnum():
            return None
        if frames:
            parts.append((store / f"{key}.mp4", frames))
    return parts if parts and all(path.is_file() for path, _ in parts) else None


def changes(series: np.ndarray) -> list[int]:
    """The frames at which `series` (one area's luminance) completes a change of at least
    FLASH_CHANGE whose darker side is under FLASH_DARK, each opposite to the one before."""
    out: list[int] = []
    low = high = float(series[0]) if len(series) else 0.0
    last = 0  # +1 after a rise, -1 after a fall
    for i, value in enumerate(map(float, series)):
        low, high = min(low, value), max(high, value)
        if last != 1 and value - low >= FLASH_CHANGE and low < FLASH_DARK:
            out.append(i)
            last, low, high = 1, value, value
        elif last != -1 and high - value >= FLASH_CHANGE and value < FLASH_DARK:
            out.append(i)
            last, low, high = -1, value, value
    return out


def most_changes(frames: list[int], fps: float) -> tuple[int, float]:
    """The most changes in any one second, and when that second starts."""
    best, at = 0, 0.0
    for i, first in enumerate(frames):
        inside = sum(1 for f in frames[i:] if f - first < fps)
        if inside > best:
            best, at = inside, first / fps
    return best, at


def flash_problems(
    video: Path, parts: list[tuple[Path, int]] | None = None
) -> list[tuple[float, str]]:
    """(second, what is wrong) where some area changes more than MOST_CHANGES times.
    With `parts` (kept_parts), the clip is measured beat by beat, when their frames add
    up to the clip's."""
    with av.open(str(video)) as container:
        stream = container.streams.video[0]
        fps = float(stream.base_rate or stream.average_rate or 30)
        frames = stream.frames
    areas = None
    if parts and frames and sum(n for _, n in parts) == frames:
        try:
            measured = [beat_areas(path, n) for path, n in parts]
        except (OSError, av.FFmpegError):  # a kept beat gone or damaged: the clip decides
            measured = []
        if measured and all(len(a) == n for a, (_, n) in zip(measured, parts, strict=True)):
            areas = np.concatenate(measured)
    if areas is None:
        areas = decoded_areas(video)
    if not len(areas):
        return []
    worst, at = max(most_changes(changes(areas[:, a]), fps) for a in range(areas.shape[1]))
    if worst <= MOST_CHANGES:
        return []
    return [(at, f"{worst} changes of brightness in one second (more than 3 flashes)")]
