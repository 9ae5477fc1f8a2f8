"""The lesson's visual language: palette, fonts, sizes and number formatting."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np
from manim import ManimColor, interpolate_color

from lesson.fonts import FONT  # noqa: F401  (the face drawn in: scenes.kit.brand may change it)
from lesson.palette import PALETTE, contrast_ratio

# each role's one colour object (use() rewrites its value for another theme)
ROLES = {role: ManimColor(colour) for role, colour in PALETTE.items()}
BACKGROUND, FOREGROUND, MUTED, ACCENT = (
    ROLES[r] for r in ("background", "foreground", "muted", "accent")
)
WORD_A, WORD_B, WORD_C = ROLES["word_a"], ROLES["word_b"], ROLES["word_c"]
POSITIVE, NEGATIVE, NEUTRAL = ROLES["positive"], ROLES["negative"], ROLES["neutral"]
VIOLET, PINK = ROLES["violet"], ROLES["pink"]
TOKEN_COLORS = (WORD_A, WORD_C, WORD_B, VIOLET, PINK)
SERIES_COLORS = (WORD_A, WORD_B, WORD_C, ACCENT, VIOLET, PINK)


@contextlib.contextmanager
def drawn_in(palette: dict[str, str]) -> Iterator[None]:
    """Draw in `palette` for a while, then in the colours before it again."""
    before = {role: colour.to_hex() for role, colour in ROLES.items()}
    use(palette)
    try:
        yield
    finally:
        use(before)


def use(palette: dict[str, str]) -> None:
    """Draw in `palette` (lesson.palette.palette_of) from now on. Each colour above is
    one object, held as it is by default arguments and chapter tables alike: its value
    is rewritten in place, so every holder draws in the new palette."""
    for role, colour in ROLES.items():
        colour._internal_value = ManimColor(palette[role])._internal_value.copy()


# Sizes in Text font-size units; the smallest stays legible at 854×480.
TITLE_SIZE = 44
HEADING_SIZE = 32
BODY_SIZE = 26
LABEL_SIZE = 22
SMALL_SIZE = 18
CAPTION_SIZE = 24
CAPTION_BAND = 0.8  # kept free at the bottom of the stage for burned-in captions
CAPTION_Z = 100  # burned-in captions are drawn at this z-index, over the scene
# Readability: no text smaller than MIN_TEXT_PX of em at a 480-pixel short side, i.e.
# MIN_TEXT_PX / 480 of the frame's short side in every aspect and quality.
MIN_TEXT_PX = 14
MIN_STAGE_FILL = 0.55  # the stage's content should cover this share of its height
WIDE_FRAME_FILL = 0.75  # in 16:9, the median beat's content spans this share of the frame
MARGIN = 0.35  # free border inside the frame, in scene units
# The top right corner every scene keeps clear, in scene units (width, height): a brand's
# logo is drawn there, LOGO_INSET inside its edges
LOGO_CORNER = (1.0, 0.5)
LOGO_INSET = 0.1

# Pacing, in seconds.
SHORT = 0.6
NORMAL = 1.2
LONG = 2.0
READ = 1.5  # a pause to read what just appeared


def diverging(value: float, vmin: float = -1.0, vmax: float = 1.0) -> ManimColor:
    """Blue for low, dark for the middle, orange for high."""
    if not np.isfinite(value):
        return NEUTRAL
    mid = (vmin + vmax) / 2
    half = (vmax - vmin) / 2 or 1.0
    t = float(np.clip((value - mid) / half, -1, 1))
    return interpolate_color(NEUTRAL, POSITIVE if t >= 0 else NEGATIVE, abs(t))


def sequential(value: float, vmin: float = 0.0, vmax: float = 1.0) -> ManimColor:
    """Dark to accent yellow."""
    if not np.isfinite(value):
        return NEUTRAL
    t = float(np.clip((value - vmin) / ((vmax - vmin) or 1.0), 0, 1))
    return interpolate_color(NEUTRAL, ACCENT, t)


# Text on a coloured fill: white or black, whichever reads better. One of the two
# reaches 4.5:1 on any colour (the palette's own light and dark fall short on mid-tones).
INK_LIGHT = ManimColor("#ffffff")
INK_DARK = ManimColor("#000000")


def ink_on(fill: ManimColor) -> ManimColor:
    """The text colour that reads best on a coloured fill: white on dark, black on light."""
    rgb = fill.to_rgb()
    light, dark = contrast_ratio(INK_LIGHT.to_rgb(), rgb), contrast_ratio(INK_DARK.to_rgb(), rgb)
    return INK_LIGHT if light >= dark else INK_DARK


def fmt(x: float, digits: int = 2) -> str:
    """Fixed-point with a real minus sign and no negative zero."""
    s = f"{float(x):.{digits}f}"
    if float(s) == 0:
        s = s.lstrip("-")
    return s.replace("-", "−")


def digits_for(values, most: int = 3) -> int:
    """The fewest decimals (at least 1, at most `most`) that write every value exactly."""
    flat = np.asarray(values, dtype=float).ravel()
    for d in range(1, most):
        if np.allclose(np.round(flat, d), flat, rtol=0, atol=1e-9):
            return d
    return most


def frame_shape(width: float, height: float) -> str:
    """ "wide" (16:9), "tall" (9:16) or "square" (1:1), from the frame's proportions."""
    ratio = width / height
    return "wide" if ratio > 1.2 else "tall" if ratio < 0.83 else "square"
