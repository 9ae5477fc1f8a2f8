"""`render --verify`: a clip drawn whole again beside the one in place, compared.

A teacher who doubts a clip that was made of kept beats, or reused as up to date, can
have it drawn whole into a scratch folder and compared frame by frame and sample by
sample with the one published. The scratch folder goes with the check.
"""

from __future__ import annotations

from itertools import zip_longest
from pathlib import Path

import av
import numpy as np

from rendering.speech import audio


def _frames(path: Path):
    with av.open(str(path)) as container:
        for frame in container.decode(video=0):
            yield frame.to_ndarray(format="rgb24")


def difference(published: Path, whole: Path, fps: int) -> str | None:
    """Where `published` differs from `whole` (a fresh whole render), in a few words;
    None when every frame and every sound sample is the same."""
    try:
        return _difference(published, whole, fps)
    except (av.error.FFmpegError, audio.AudioError) as exc:
        return f"it cannot be decoded ({type(exc).__name__}), unlike a whole render"


def _difference(published: Path, whole: Path, fps: int) -> str | None:
    count = 0
    for count, (ours, theirs) in enumerate(zip_longest(_frames(published), _frames(whole)), 1):
        if ours is None or theirs is None:
            return f"it has {'fewer' if ours is None else 'more'} frames than a whole render"
        if not np.array_equal(ours, theirs):
            return f"frame {count - 1} ({(count - 1) / fps:.2f} s) differs from a whole render"
    sound = [_sound(p) for p in (published, whole)]
    if sound[0] is None and sound[1] is None:
        return None
    if sound[0] is None or sound[1] is None or not np.array_equal(*sound):
        return "its sound differs from a whole render's"
    return None


def _sound(path: Path) -> np.ndarray | None:
    with av.open(str(path)) as container:
        if not container.streams.audio:
            return None
    return audio.decode(path)
