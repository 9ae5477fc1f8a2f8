"""Cheaper copies of mobjects and of text, which Manim copies at every play, drawn or skipped.

Four costs dominate a scene's build, and none changes a frame:
- Manim copies a mobject by handing each attribute to copy.deepcopy, whose generic path
  (dispatch, memo, reduce and rebuild) costs far more than the copy itself for the
  arrays, lists, colours and plain values a mobject holds. Those are copied directly
  here, through the same memo (what is shared stays shared); anything else still goes
  through copy.deepcopy.
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
- Each process runs LaTeX and dvisvgm again for every formula (a quarter of a second
  each; a chapter's worker spent 5 s so). The drawing TeX makes of a formula is kept in
  the same folder, under its TeX source, the template's compiler and TeX's programs.
"""

from __future__ import annotations

import copy
import functools
import os
import shutil
import subprocess
import tempfile
from enum import Enum
from pathlib import Path
from typing import Any

import numpy as np
from manim import ManimColor, Mobject, Text, config, tempconfig
from manim.mobject.svg.svg_mobject import VMobjectFromSVGPath
from manim.mobject.text import tex_mobject
from manim.utils import tex_file_writing

from lesson import text_store

# values copy.deepcopy hands back as they are (or equal, immutable copies of)
_AS_IS = {int, float, bool, str, type(None), np.float64, np.int64, np.bool_}
_COLOUR = "_ManimColor__value"


def _array(value: np.ndarray, memo: dict[int, Any]) -> np.ndarray:
    if value.dtype.hasobject:
        return copy.deepcopy(value, memo)
    got = memo[id(value)] = value.copy(order="K")
    return got


def _list(value: list, memo: dict[int, Any]) -> list:
    got = memo[id(value)] = []
    got.extend([_copied(item, memo) for item in value])
    return got


def _dict(value: dict, memo: dict[int, Any]) -> dict:
    got = memo[id(value)] = {}
    for key, item in value.items():
        got[_copied(key, memo)] = _copied(item, memo)
    return got


def _tuple(value: tuple, memo: dict[int, Any]) -> tuple:
    items = [_copied(item, memo) for item in value]
    if all(a is b for a, b in zip(items, value, strict=True)):
        return value
    got = memo[id(value)] = tuple(items)
    return got


def _colour(value: ManimColor, memo: dict[int, Any]) -> ManimColor:
    if value.__dict__.keys() != {_COLOUR}:
        return copy.deepcopy(value, memo)
    got = memo[id(value)] = ManimColor.__new__(ManimColor)
    got.__dict__[_COLOUR] = _copied(value.__dict__[_COLOUR], memo)
    return got


def _mobject(value: Mobject, memo: dict[int, Any]) -> Mobject:
    return value.__deepcopy__(memo)


_BY_TYPE: dict[type, Any] = {
    np.ndarray: _array,
    list: _list,
    dict: _dict,
    tuple: _tuple,
    ManimColor: _colour,
}


def _how(kind: type) -> Any:
    """How to copy a value of `kind`: None for as it is, else a function of it and the memo."""
    if kind in _BY_TYPE:
        return _BY_TYPE[kind]
    if issubclass(kind, Enum):  # Enum.__deepcopy__ returns the member itself
        how = None
    elif issubclass(kind, Mobject):
        how = _mobject
    else:
        how = copy.deepcopy
    _BY_TYPE[kind] = how
    return how


def _copied(value: Any, memo: dict[int, Any]) -> Any:
    """copy.deepcopy(value, memo), without its generic path for what mobjects hold most."""
    kind = type(value)
    if kind in _AS_IS:
        return value
    got = memo.get(id(value))
    if got is not None:
        return got
    how = _how(kind)
    return value if how is None else how(value, memo)


def _copy(self: Mobject, memo: dict[int, Any]) -> Mobject:
    """Mobject.__deepcopy__, each attribute copied by _copied (no mobject class sets
    attributes through __setattr__ or descriptors, so the copy's dict is filled directly)."""
    cls = self.__class__
    result = cls.__new__(cls)
    memo[id(self)] = result
    attributes = self.__dict__.copy()
    for name, value in attributes.items():
        if type(value) not in _AS_IS:  # _copied's own first test, inlined: most values are plain
            attributes[name] = _copied(value, memo)
    attributes["original_id"] = str(id(self))
    result.__dict__.update(attributes)
    return result


MANIM_COPY = Mobject.__deepcopy__
Mobject.__deepcopy__ = _copy


def _copy_sharing_its_path(self: VMobjectFromSVGPath, memo: dict[int, Any]) -> Mobject:
    path = self.__dict__.get("path_obj")
    if path is not None:
        memo[id(path)] = path  # deepcopy returns what the memo holds: the same path
    return Mobject.__deepcopy__(self, memo)


VMobjectFromSVGPath.__deepcopy__ = _copy_sharing_its_path


@functools.lru_cache(maxsize=4096)
def _made(content: str, settings: tuple[tuple[str, Any], ...], canvas: tuple[int, int]) -> Text:
    key, font = (content, settings, canvas), dict(settings).get("font")
    stored = text_store.load(key, font, Text)
    if stored is not None:
        return stored
    text = _set(content, dict(settings))
    if text_store.enabled():
        kept = text.copy()
        for glyph in kept.family_members_with_points():
            glyph.path_obj = None  # read once, when the points were made
        text_store.save(key, font, kept)
    return text


WIDE = 32_768  # pixels: a surface no line of the lesson reaches the edge of


def _set(content: str, settings: dict[str, Any]) -> Text:
    """Text(content, **settings). Pango draws a line into a surface as wide as the frame's
    pixels and leaves out the glyphs past its edge, which Text then reports as fewer glyphs
    than characters; such a line is set again on a surface wide enough, in a folder of its
    own (the cut drawing stays under the same name in the usual one)."""
    try:
        return Text(content, **settings)
    except ValueError:
        wide = Path(config.get_dir("text_dir")) / "wide"
        with tempconfig({"pixel_width": WIDE, "text_dir": str(wide)}):
            return Text(content, **settings)


def text_like(content: str, **settings: Any) -> Text:
    """Text(content, **settings), copied from one made before with the same arguments."""
    try:
        key = tuple(sorted(settings.items()))
        hash(key)
    except TypeError:  # e.g. a t2c dict: made afresh
        return _set(content, settings)
    return _made(content, key, (config.pixel_width, config.pixel_height)).copy()


MANIM_TEX = tex_file_writing.tex_to_svg_file


def _tex_to_svg_file(expression: str, environment: str | None = None, tex_template=None) -> Path:
    """Manim's tex_to_svg_file, the drawing taken from the text store when TeX made it
    before (in any process), and kept there when TeX makes it now."""
    template = tex_template if tex_template is not None else config["tex_template"]
    if not text_store.enabled():
        return MANIM_TEX(expression, environment, template)
    tex_file = tex_file_writing.generate_tex_file(expression, environment, template)
    svg = tex_file.with_suffix(".svg")
    if svg.exists():
        return svg
    compiler = template.tex_compiler
    compilers = (compiler,) if isinstance(compiler, str) else tuple(compiler)
    made_by = (compilers, template.output_format, _tex_programs(compilers))
    key = f"tex {made_by} {tex_file.read_text(encoding='utf-8')}"
    kept = text_store.load_bytes(key)
    if kept is not None and _whole_svg(kept):
        try:
            fd, part = tempfile.mkstemp(prefix=f".{svg.name}.", suffix=".part", dir=svg.parent)
            with os.fdopen(fd, "wb") as file:
                file.write(kept)
            os.replace(part, svg)
            return svg
        except OSError:
            pass  # TeX makes it, as without a store
    made = MANIM_TEX(expression, environment, template)
    text_store.save_bytes(key, made.read_bytes())
    return made


def _whole_svg(data: bytes) -> bool:
    return data.lstrip().startswith((b"<?xml", b"<svg")) and data.rstrip().endswith(b"</svg>")


@functools.cache
def _tex_programs(compilers: tuple[str, ...]) -> tuple[str, ...]:
    """Each program that makes a formula's drawing, and LaTeX's format (remade when TeX's
    packages change), as its file, size and time."""
    files = [shutil.which(name) or name for name in (*compilers, "dvisvgm")]
    try:
        found = subprocess.run(
            ["kpsewhich", "-engine=pdftex", "latex.fmt"], capture_output=True, text=True
        ).stdout.strip()
        files.append(found or "latex.fmt")
    except OSError:
        files.append("latex.fmt")
    out = []
    for file in files:
        try:
            stat = os.stat(file)
            out.append(f"{file}:{stat.st_size}:{stat.st_mtime_ns}")
        except OSError:
            out.append(f"{file}: not found")
    return tuple(out)


tex_mobject.tex_to_svg_file = _tex_to_svg_file
