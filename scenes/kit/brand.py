"""The brand and font a clip is drawn with (lesson.brand's Look): the cards' words, and
the logo, laid over every frame in the corner the scenes keep clear (theme.LOGO_CORNER).

The logo is not a mobject: a scene that clears its stage cannot take it away, and the
checks of what a scene shows never count it. The renderer lays its pixels over each
frame as it leaves the camera.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np

from lesson.fonts import FONT
from scenes.kit import theme

LOOK: dict[str, str] = {}  # the look being drawn in (empty: the lesson's own)


@contextlib.contextmanager
def worn(look: Mapping[str, str]) -> Iterator[None]:
    """Draw with `look` for a while: its font for every text, its words on the cards."""
    before, font = dict(LOOK), theme.FONT
    LOOK.clear()
    LOOK.update(look)
    theme.FONT = look.get("font", FONT)
    try:
        yield
    finally:
        LOOK.clear()
        LOOK.update(before)
        theme.FONT = font


def words(field: str, own: str) -> str:
    """The brand's words for a card's `field`, else the lesson's `own`."""
    return LOOK.get(field) or own


def corner_box(frame_width: float, frame_height: float) -> tuple[float, float, float, float]:
    """The corner kept clear for a logo as (x0, y0, x1, y1) in scene units."""
    width, height = theme.LOGO_CORNER
    return frame_width / 2 - width, frame_height / 2 - height, frame_width / 2, frame_height / 2


def logo_overlay(pixel_width: int, pixel_height: int, frame_height: float):
    """The logo to lay over each frame, as (RGBA pixels, top row, left column), or None
    when the look has no logo. It fits the corner inside LOGO_INSET, against its top
    right."""
    if "logo" not in LOOK:
        return None
    per_unit = pixel_height / frame_height
    width, height = ((side - 2 * theme.LOGO_INSET) for side in theme.LOGO_CORNER)
    pixels = logo_pixels(LOOK["logo"], LOOK["logo_digest"], width, height, per_unit)
    inset = round(theme.LOGO_INSET * per_unit)
    return pixels, inset, pixel_width - inset - pixels.shape[1]


class LogoError(RuntimeError):
    """The logo's file is not the one the clip's key was made from."""


@functools.cache
def logo_pixels(path: str, digest: str, width: float, height: float, per_unit: float) -> np.ndarray:
    """The logo as RGBA pixels (straight alpha), as large as fits `width` × `height`
    scene units at `per_unit` pixels a unit; its bytes must hash to `digest`."""
    data = Path(path).read_bytes()
    if hashlib.sha256(data).hexdigest()[: len(digest)] != digest:
        raise LogoError(f"the logo {path} changed after the render began; render again")
    if path.lower().endswith(".svg"):
        return _svg_pixels(path, width, height, per_unit)
    from PIL import Image

    with Image.open(io.BytesIO(data)) as img:
        img = img.convert("RGBA")
        scale = min(width * per_unit / img.width, height * per_unit / img.height)
        size = (max(1, round(img.width * scale)), max(1, round(img.height * scale)))
        return np.asarray(img.resize(size, Image.LANCZOS))


def _svg_pixels(path: str, width: float, height: float, per_unit: float) -> np.ndarray:
    """An SVG drawn as the scenes draw (strokes as wide as theirs) on a clear canvas."""
    from manim import Camera, SVGMobject

    drawing = SVGMobject(path)
    drawing.scale(min(width / drawing.width, height / drawing.height))
    size = [max(1, round(side * per_unit)) for side in (drawing.width, drawing.height)]
    camera = Camera(
        pixel_width=size[0],
        pixel_height=size[1],
        frame_width=size[0] / per_unit,
        frame_height=size[1] / per_unit,
        background_opacity=0.0,
    )
    camera.capture_mobject(drawing.move_to(camera.frame_center))
    pixels = camera.pixel_array.astype(np.float32)
    alpha = pixels[..., 3:4]
    # Cairo's colours are premultiplied by their alpha: laid_over takes them straight
    pixels[..., :3] = np.where(alpha > 0, pixels[..., :3] * 255 / np.maximum(alpha, 1), 0)
    return np.clip(np.round(pixels), 0, 255).astype(np.uint8)


def laid_over(frame: np.ndarray, overlay) -> np.ndarray:
    """`frame` (RGB or RGBA pixels) with the logo laid over it ("over" in alpha)."""
    pixels, top, left = overlay
    h, w = pixels.shape[:2]
    region = frame[top : top + h, left : left + w]
    alpha = pixels[..., 3:4].astype(np.float32) / 255
    channels = region.shape[2]
    colour = pixels[..., :3] * alpha + region[..., :3] * (1 - alpha)
    region[..., :3] = np.round(colour).astype(frame.dtype)
    if channels == 4:  # a transparent clip: the logo's own coverage counts too
        below = region[..., 3:4].astype(np.float32) / 255
        region[..., 3:4] = np.round(255 * (alpha + below * (1 - alpha))).astype(frame.dtype)
    return frame
