"""The lesson's colours as hex strings, with no Manim import: scenes/theme.py makes them
Manim colours, and the published pages (rendering/publish/web.py) use them in their CSS.

Two themes ship: dark (the default) and light, for bright rooms and print; `[theme]` in
lesson.toml (or a --config file) names one and may set any of its colours by name.
"""

from __future__ import annotations

import re

import numpy as np

DARK: dict[str, str] = {
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
# the same roles on paper: each text colour darkened, its hue kept, until it reads at
# 4.5:1 even on a 12 % tint of itself (the panels a colour marks); neutral is a pale grey
# for grids and a heat map's middle
LIGHT: dict[str, str] = {
    "background": "#fbfaf7",
    "foreground": "#1f2328",
    "muted": "#5c6370",
    "accent": "#8c5a00",
    "word_a": "#0b6c96",
    "word_b": "#b63629",
    "word_c": "#2a732e",
    "positive": "#a34c08",
    "negative": "#1d5fc4",
    "neutral": "#e4e6eb",
    "violet": "#7b3fb5",
    "pink": "#b0306f",
}
THEMES = {"dark": DARK, "light": LIGHT}
PALETTE = DARK  # the default theme's
COLOUR = re.compile(r"#[0-9a-fA-F]{6}")


class ThemeError(ValueError):
    """A [theme] table that cannot be used; the message says what to change."""


def palette_of(table: object) -> dict[str, str]:
    """The palette a lesson file's [theme] table asks for: `name` ("dark" or "light"),
    then any of its colours set by name ("#rrggbb")."""
    if table is None:
        return dict(PALETTE)
    if not isinstance(table, dict):
        raise ThemeError('[theme] must be a table: name = "dark" or "light", and colours')
    name = table.get("name", "dark")
    if not isinstance(name, str) or name not in THEMES:
        raise ThemeError(f"[theme] name = {name!r}: use one of {', '.join(THEMES)}")
    palette = dict(THEMES[name])
    for key, value in table.items():
        if key in ("name", "font"):  # the font is lesson.brand's
            continue
        if key not in palette:
            raise ThemeError(f"[theme] {key}: no such colour; the colours are {', '.join(palette)}")
        if not isinstance(value, str) or not COLOUR.fullmatch(value):
            raise ThemeError(f'[theme] {key} = {value!r}: write a colour as "#rrggbb"')
        palette[key] = value.lower()
    return palette


def recorded(colours: object) -> dict[str, str]:
    """The palette a clip's record holds (ClipEntry.palette): the default's when it holds
    none or one that is not a palette."""
    try:
        return palette_of(colours) if colours else dict(PALETTE)
    except ThemeError:
        return dict(PALETTE)


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
