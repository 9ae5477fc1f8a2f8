"""The lesson's colours as hex strings, with no Manim import: scenes/theme.py makes them
Manim colours, and the published pages (rendering/publish/web.py) use them in their CSS."""

from __future__ import annotations

import numpy as np

PALETTE: dict[str, str] = {
    "background": "#0f1117",
    "foreground": "#e8e6e3",
    "muted": "#8b93a1",
    "accent": "#ffcc4d",  # the thing to look at now
    "word_a": "#58c4dd",  # first token / "cat" / q
    "word_b": "#fc6255",  # second token / "dog" / k
    "word_c": "#83c167",  # third token
    "positive": "#f39c5a",
    "negative": "#5a9cf3",
    "neutral": "#2a2f3a",
    "violet": "#c792ea",
    "pink": "#f7a8d8",
}

TEXT_CONTRAST = 4.5  # WCAG 1.4.3: text against what is behind it
LARGE_TEXT_CONTRAST = 3.0  # ... when the text is large


def luminance(rgb):
    """WCAG's relative luminance of sRGB values 0-1 (the last axis: red, green, blue);
    a numpy array in, a numpy array (or a number) out."""
    rgb = np.asarray(rgb, dtype=np.float64)
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    return linear @ np.array([0.2126, 0.7152, 0.0722])


def rgb_of(colour: str) -> tuple[float, float, float]:
    """A "#rrggbb" colour as red, green, blue 0-1."""
    return tuple(int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))


def contrast_ratio(a, b) -> float:
    """WCAG's contrast ratio of two colours, each "#rrggbb" or red, green, blue 0-1."""
    la, lb = (float(luminance(rgb_of(c) if isinstance(c, str) else c)) for c in (a, b))
    light, dark = max(la, lb), min(la, lb)
    return (light + 0.05) / (dark + 0.05)
