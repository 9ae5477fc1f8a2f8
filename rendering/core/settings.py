"""Job settings: quality presets, aspects, formats and what Manim's config needs for them."""

from __future__ import annotations

from dataclasses import dataclass

from rendering.core import formats

# Manim's presets: letter -> (config name, pixel height, fps); "t" is a thumbnail-sized
# draft, for checks that compare two renders of the same frame (the edit fuzzer)
QUALITIES = {
    "t": ("tiny_quality", 144, 10),
    "l": ("low_quality", 480, 15),
    "m": ("medium_quality", 720, 30),
    "h": ("high_quality", 1080, 60),
    "k": ("fourk_quality", 2160, 60),
}
ASPECTS = {"16:9": (16, 9), "9:16": (9, 16), "1:1": (1, 1)}
SHORT_SIDE = 8.0  # scene units across the frame's short side, in every aspect (Manim's height)

# libx264 presets chosen per quality (see bench/bench_render.py for the measurements)
X264_PRESETS = {"t": "veryfast", "l": "veryfast", "m": "faster", "h": "medium", "k": "medium"}


class SettingsError(ValueError):
    """A combination of render options that cannot work."""


@dataclass(frozen=True)
class Geometry:
    width: int
    height: int
    fps: int
    frame_width: float
    frame_height: float

    def manim_frame(self) -> dict[str, float]:
        """The part of Manim's config that sets the frame: pixels and scene units."""
        return {
            "pixel_width": self.width,
            "pixel_height": self.height,
            "frame_width": self.frame_width,
            "frame_height": self.frame_height,
        }


SHAPES = {"16:9": "wide", "9:16": "tall", "1:1": "square"}


def geometry(quality: str, aspect: str = "16:9", composed: bool = True) -> Geometry:
    """Pixel size, fps and scene-unit frame for a quality letter and an aspect.

    A scene `composed` for the aspect's shape gets a frame whose short side is
    SHORT_SIDE units, so a label is as many pixels tall in a 9:16 phone frame as in
    16:9. A scene laid out for 16:9 only keeps the 16:9 frame width instead and sits
    whole, smaller, inside the taller frame.
    """
    _, height, fps = QUALITIES[quality]
    aw, ah = ASPECTS[aspect]
    long_side = height * 16 // 9
    width, height = (
        (long_side, height) if aw > ah else (height, long_side) if aw < ah else (height, height)
    )
    width += width % 2  # encoders want even sizes (libx264 refuses odd ones)
    height += height % 2
    wide_width = SHORT_SIDE * 16 / 9
    unit = min(width, height) / SHORT_SIDE if composed else width / wide_width
    return Geometry(width, height, fps, width / unit, height / unit)


def folder_name(quality: str, aspect: str) -> str:
    """`480p15` for 16:9; `480p15-9x16` for other aspects."""
    _, height, fps = QUALITIES[quality]
    name = f"{height}p{fps}"
    return name if aspect == "16:9" else f"{name}-{aspect.replace(':', 'x')}"


def check_format(fmt: str, transparent: bool) -> None:
    if fmt not in formats.names():
        known = ", ".join(formats.names())
        raise SettingsError(f"format {fmt!r} is not supported; use one of {known}")
    if transparent and not formats.get(fmt).alpha:
        alpha = " or ".join(f.name for f in formats.every() if f.alpha and f.moving)
        raise SettingsError(
            f"--transparent cannot be used with {fmt} (it has no alpha); use --format {alpha}"
        )
