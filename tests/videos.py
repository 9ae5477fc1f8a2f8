"""Tiny H.264 videos made in a test, to join, voice or check without drawing a scene."""

from __future__ import annotations

from pathlib import Path

import av
import numpy as np


def synthetic(
    path: Path,
    frames: int,
    size: tuple[int, int] = (64, 32),
    shade: int = 0,
    step: int = 9,
    options: dict[str, str] | None = None,
    noisy: bool = False,
) -> Path:
    """`frames` flat frames at 10 fps, the first at grey `shade`, each `step` lighter;
    `noisy` ones are random pixels instead (a large file, as a real clip's picture is)."""
    width, height = size
    rng = np.random.default_rng(0)
    with av.open(str(path), "w") as container:
        stream = container.add_stream("libx264", rate=10, options=options or {})
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        for i in range(frames):
            image = np.full((height, width, 3), (shade + step * i) % 256, np.uint8)
            if noisy:
                image = rng.integers(0, 256, (height, width, 3), np.uint8)
            for packet in stream.encode(av.VideoFrame.from_ndarray(image, format="rgb24")):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return path
