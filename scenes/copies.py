"""Cheaper copies of text, which Manim copies at every play, drawn or skipped.

Three costs dominate a scene's build, and none changes a frame:
- Every glyph keeps the svgelements path it was drawn from, and each copy deep-copies
  that path (hundreds of thousands of Point objects in a long scene) although the path
  is read only once, when the glyph's points are made. Copies share it instead.
- Each Text parses its SVG again, even for words already set; a Text already made with
  the same arguments, on a canvas of the same pixel size, is copied instead. (Pango sets
  the words on a canvas the frame's size, so a line too long for a small frame loses
  glyphs there and must not be reused in a larger one.)
- Other processes set the same words again: every render's workers, and the next render.
  With PE_TEXT_CACHE naming a folder, a Text set once is kept there (its glyphs' points,
  without their paths) and loaded by every process after, some thirty times faster than
  setting it. Its key holds the words, the arguments, the canvas, the font's file and
  the versions of what sets and stores it.
"""

from __future__ import annotations

import functools
from typing import Any

from manim import Mobject, Text, config
from manim.mobject.svg.svg_mobject import VMobjectFromSVGPath

from scenes import text_store


def _copy_sharing_its_path(self: VMobjectFromSVGPath, memo: dict[int, Any]) -> Mobject:
    path = self.__dict__.get("path_obj")
    if path is not None:
        memo[id(path)] = path  # deepcopy returns what the memo holds: the same path
    return Mobject.__deepcopy__(self, memo)


VMobjectFromSVGPath.__deepcopy__ = _copy_sharing_its_path


@functools.lru_cache(maxsize=4096)
def _made(content: str, settings: tuple[tuple[str, Any], ...], canvas: tuple[int, int]) -> Text:
    key, font = (content, settings, canvas), dict(settings).get("font")
    stored = text_store.load(key, font)
    if stored is not None:
        return stored
    text = Text(content, **dict(settings))
    if text_store.enabled():
        kept = text.copy()
        for glyph in kept.family_members_with_points():
            glyph.path_obj = None  # read once, when the points were made
        text_store.save(key, font, kept)
    return text


def text_like(content: str, **settings: Any) -> Text:
    """Text(content, **settings), copied from one made before with the same arguments."""
    try:
        key = tuple(sorted(settings.items()))
        hash(key)
    except TypeError:  # e.g. a t2c dict: made afresh
        return Text(content, **settings)
    return _made(content, key, (config.pixel_width, config.pixel_height)).copy()
