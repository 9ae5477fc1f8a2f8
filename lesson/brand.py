"""A course builder's brand and typefaces, from a lesson file's [brand] and [theme.font]
tables, checked and reduced to what one language's clips draw: a `Look`.

[brand] may give a `name` (on the title and end cards, and a deck's title slide), a
`logo` (PNG or SVG, a path from the lesson file's folder; drawn in the top right corner
of every frame, which every scene keeps clear), and per language the cards' wording:
[brand.en] and [brand.zh] with `title`, `subtitle` and `closing`. [theme.font] names a
typeface per language (`en`, `zh`), which must be installed and draw that language's
words. Every problem is one line (BrandError).
"""

from __future__ import annotations

import hashlib
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from lesson.catalogue import LANGS
from lesson.fonts import FONT, installed, missing_glyphs

CARD_WORDS = ("title", "subtitle", "closing")  # what [brand.<lang>] may reword
LOGO_TYPES = (".png", ".svg")
MAX_LOGO_BYTES = 4_000_000
# the pairs that change only the title and end cards; the others (the logo, the font)
# change every frame
CARD_ONLY = frozenset({"name", *CARD_WORDS})

Look = tuple[tuple[str, str], ...]  # a job's brand and font as (field, value) pairs, sorted


class BrandError(ValueError):
    """A [brand] or [theme.font] table that cannot be used; the message says what to change."""


def look_of(brand: object, theme: object, lang: str, base: Path) -> Look:
    """What one language's clips draw of a lesson file's [brand] and [theme] tables (none
    when it sets neither); `base` is the lesson file's folder, where a logo is found."""
    look: dict[str, str] = {}
    if brand is not None:
        look.update(_brand(_table(brand, "[brand]"), lang, base))
    fonts = _table(theme, "[theme]").get("font") if theme is not None else None
    if fonts is not None:
        font = _table(fonts, "[theme.font]").get(lang)
        unknown = set(fonts) - set(LANGS)
        if unknown:
            raise BrandError(
                f"[theme.font] {sorted(unknown)[0]}: name a font per language: {', '.join(LANGS)}"
            )
        if font is not None:
            look["font"] = _font(font, lang)
    return tuple(sorted(look.items()))


def _table(value: object, where: str) -> dict:
    if not isinstance(value, dict):
        raise BrandError(f"{where} must be a table")
    return value


def _brand(table: dict, lang: str, base: Path) -> dict[str, str]:
    look: dict[str, str] = {}
    for key, value in table.items():
        if key in LANGS:
            words = _table(value, f"[brand.{key}]")
            for word, text in words.items():
                if word not in CARD_WORDS:
                    raise BrandError(
                        f"[brand.{key}] {word}: the cards' words are {', '.join(CARD_WORDS)}"
                    )
                checked = _words(text, f"[brand.{key}] {word}", key)
                if key == lang:
                    look[word] = checked
        elif key == "name":
            look["name"] = _words(value, "[brand] name", lang)
        elif key == "logo":
            look["logo"], look["logo_digest"] = _logo(value, base)
        else:
            raise BrandError(
                f"[brand] {key}: use name, logo, or a table of words per language ({', '.join(LANGS)})"
            )
    return look


def _words(value: object, where: str, lang: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise BrandError(f"{where} = {value!r}: write some words in quotes")
    if "\n" in value or len(value) > 120:
        raise BrandError(f"{where}: keep it to one line of at most 120 characters")
    missing = missing_glyphs(value)
    if missing:
        raise BrandError(f"{where}: the font {FONT} has no glyph for {' '.join(missing)}")
    return value.strip()


def _logo(value: object, base: Path) -> tuple[str, str]:
    """The logo's path (absolute) and the digest of its bytes, once it reads as its type."""
    if not isinstance(value, str) or not value:
        raise BrandError(f"[brand] logo = {value!r}: give the path of a PNG or SVG file in quotes")
    path = (base / value).resolve()
    where = f"[brand] logo {value}"
    if path.suffix.lower() not in LOGO_TYPES:
        raise BrandError(f"{where}: use a .png or .svg file")
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise BrandError(f"{where}: no such file (a path from the lesson file's folder)") from None
    except OSError as exc:
        raise BrandError(f"{where}: cannot be read ({exc.strerror})") from None
    if len(data) > MAX_LOGO_BYTES:
        raise BrandError(f"{where}: larger than {MAX_LOGO_BYTES:,} bytes; a logo needs far less")
    problem = _png_problem(data) if path.suffix.lower() == ".png" else _svg_problem(data)
    if problem:
        raise BrandError(f"{where}: {problem}")
    return str(path), hashlib.sha256(data).hexdigest()[:16]


def _png_problem(data: bytes) -> str:
    import io

    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as img:
            if img.format != "PNG":
                return f"is a {img.format} picture, not a PNG"
            img.load()
    except (UnidentifiedImageError, OSError, SyntaxError):
        return "is not a readable PNG picture"
    return ""


def _svg_problem(data: bytes) -> str:
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError:
        return "is not a readable SVG file"
    return "" if root.tag.rpartition("}")[2] == "svg" else "is XML, but not an SVG picture"


def _font(value: object, lang: str) -> str:
    where = f"[theme.font] {lang} = {value!r}"
    if not isinstance(value, str) or not value.strip():
        raise BrandError(f"{where}: name an installed font in quotes")
    if not installed(value):
        raise BrandError(f"{where}: no such font is installed (fc-list lists those that are)")
    return value


def font_problem(font: str, lang: str, text: str) -> str:
    """Why `font` cannot draw `text` of `lang`'s lesson ('' when it can)."""
    missing = missing_glyphs(text, font)
    if not missing:
        return ""
    shown = " ".join(missing[:8]) + (" …" if len(missing) > 8 else "")
    return f"[theme.font] {lang} = {font!r}: the font has no glyph for {shown}"


def card_only(field: str) -> bool:
    """Whether a look's field changes only the title and end cards."""
    return field in CARD_ONLY
