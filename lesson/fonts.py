"""The lesson's one typeface, and whether it can draw a piece of text."""

from __future__ import annotations

import functools
import subprocess

# Noto Sans CJK carries Latin and Han glyphs, so both languages share one face.
FONT = "Noto Sans CJK SC"


@functools.cache
def _charset(font: str) -> frozenset[int] | None:
    """The code points `font` covers, as fontconfig reports them (None: cannot ask)."""
    try:
        out = subprocess.run(
            ["fc-match", "--format=%{charset}", font], capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    points: set[int] = set()
    for part in out.split():
        first, _, last = part.partition("-")
        points.update(range(int(first, 16), int(last or first, 16) + 1))
    return frozenset(points)


@functools.cache
def installed(font: str) -> bool:
    """Whether fontconfig has a face of this family (it would otherwise stand in another);
    True when it cannot be asked."""
    try:
        families = subprocess.run(
            ["fc-list", "--format=%{family}\\n"], capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return True
    wanted = font.strip().casefold()
    return any(
        wanted == name.strip().casefold()
        for line in families.splitlines()
        for name in line.split(",")
    )


def missing_glyphs(text: str, font: str = FONT) -> list[str]:
    """Characters of `text` the font has no glyph for (they would render as boxes)."""
    covered = _charset(font)
    if covered is None:
        return []
    return sorted({c for c in text if not c.isspace() and ord(c) not in covered})
