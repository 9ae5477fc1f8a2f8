"""Preview stills: the last frame and a contact sheet of the frame at the end of each beat."""

from __future__ import annotations

import math
from pathlib import Path

import av
from PIL import Image, ImageDraw

THUMB_WIDTH = 320
COLUMNS = 4


def moments(beats: list[tuple[str, float]], duration: float) -> list[tuple[str, float]]:
    """The end of each beat (just before the next starts), and the very end."""
    ends = [(key, beats[i + 1][1] - 0.05) for i, (key, _) in enumerate(beats[:-1])]
    if beats:
        ends.append((beats[-1][0], duration - 0.05))
    return [(k, max(0.0, t)) for k, t in ends] or [("end", max(0.0, duration - 0.05))]


def frames_at(video: Path, times: list[float]) -> list[Image.Image]:
    """The last decoded frame at or before each time."""
    wanted = sorted(range(len(times)), key=lambda i: times[i])
    found: list[Image.Image | None] = [None] * len(times)
    with av.open(str(video)) as container:
        stream = container.streams.video[0]
        last = None
        it = iter(wanted)
        current = next(it, None)
        for frame in container.decode(stream):
            t = float(frame.pts * frame.time_base)
            while current is not None and t > times[current] and last is not None:
                found[current] = last
                current = next(it, None)
            last = frame.to_image()
        while current is not None:
            found[current] = last
            current = next(it, None)
    return [f for f in found if f is not None]


def contact_sheet(video: Path, beats: list[tuple[str, float]], duration: float, out: Path) -> Path:
    picks = moments(beats, duration)
    images = frames_at(video, [t for _, t in picks])
    thumbs = [
        img.resize((THUMB_WIDTH, round(img.height * THUMB_WIDTH / img.width))) for img in images
    ]
    w, h = THUMB_WIDTH, thumbs[0].height
    rows = math.ceil(len(thumbs) / COLUMNS)
    sheet = Image.new("RGB", (COLUMNS * w, rows * (h + 18)), (15, 17, 23))
    draw = ImageDraw.Draw(sheet)
    for i, (thumb, (key, t)) in enumerate(zip(thumbs, picks, strict=False)):
        x, y = (i % COLUMNS) * w, (i // COLUMNS) * (h + 18)
        sheet.paste(thumb, (x, y))
        draw.text((x + 4, y + h + 3), f"{key} @ {t:.1f}s", fill=(200, 200, 200))
    sheet.save(out)
    return out


def last_frame(video: Path, out: Path) -> Path:
    frames_at(video, [math.inf])[0].save(out)
    return out
