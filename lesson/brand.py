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
import io
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from lesson.catalogue import LANGS
from lesson.fonts import FONT, installed, missing_glyphs

CARD_WORDS = ("title", "subtitle", "closing")  # what [brand.<lang>] may reword
# what each card draws of a look, besides what every frame draws (the logo, the font)
CARDS = {"lesson-intro": {"name", "title", "subtitle"}, "lesson-outro": {"name", "closing"}}
LOGO_TYPES = (".png", ".svg")
MAX_LOGO_BYTES = 4_000_000
MAX_LOGO_PIXELS = 25_000_000  # a PNG may claim more than it holds; far more than a logo needs
SVG_SHAPES = {"path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "text", "use"}
MAX_WORDS = 120  # characters of a brand's line

Look = tuple[tuple[str, str], ...]  # a job's brand and font as (field, value) pairs, sorted


class BrandError(ValueError):
    """A [brand] or [theme.font] table that cannot be used; the message says what to change."""


def look_of(brand: object, theme: object, lang: str, base: Path) -> Look:
    """What one language's clips draw of a lesson file's [brand] and [theme] tables (none
    when it sets neither); `base` is the lesson file's folder, where a logo is found."""
    faces = fonts_of(theme)
    look = {"font": faces[lang]} if faces[lang] != FONT else {}  # the default keeps keys
    if brand is not None:
        look.update(_brand(_table(brand, "[brand]"), lang, base, faces))
    return tuple(sorted(look.items()))


def fonts_of(theme: object) -> dict[str, str]:
    """The typeface of each language: [theme.font]'s, else the lesson's own."""
    faces = dict.fromkeys(LANGS, FONT)
    fonts = _table(theme, "[theme]").get("font") if theme is not None else None
    for lang, font in _table(fonts, "[theme.font]").items() if fonts is not None else ():
        if lang not in LANGS:
            raise BrandError(f"[theme.font] {lang!r}: name a font per language: {', '.join(LANGS)}")
        faces[lang] = _font(font, lang)
    return faces


def _table(value: object, where: str) -> dict:
    if not isinstance(value, dict):
        raise BrandError(f"{where} must be a table")
    return value


def _brand(table: dict, lang: str, base: Path, faces: dict[str, str]) -> dict[str, str]:
    look: dict[str, str] = {}
    for key, value in table.items():
        if key in LANGS:
            for word, text in _table(value, f"[brand.{key}]").items():
                if word not in CARD_WORDS:
                    raise BrandError(
                        f"[brand.{key}] {word!r}: the cards' words are {', '.join(CARD_WORDS)}"
                    )
                checked = _words(text, f"[brand.{key}] {word}", faces[key])
                if key == lang:
                    look[word] = checked
        elif key == "name":
            look["name"] = _words(value, "[brand] name", faces[lang])
        elif key == "logo":
            look["logo"], look["logo_digest"] = _logo(value, base)
        else:
            raise BrandError(
                f"[brand] {key!r}: use name, logo, or a table of words per language "
                f"({', '.join(LANGS)})"
            )
    return look


def _words(value: object, where: str, font: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise BrandError(f"{where} = {value!r}: write some words in quotes")
    if "\n" in value or len(value) > MAX_WORDS:
        raise BrandError(f"{where}: keep it to one line of at most {MAX_WORDS} characters")
    problem = glyph_problem(font, value)
    if problem:
        raise BrandError(f"{where}: {problem}")
    return value.strip()


def _logo(value: object, base: Path) -> tuple[str, str]:
    """The logo's path (absolute) and the digest of its bytes, once it reads as its type."""
    if not isinstance(value, str) or not value:
        raise BrandError(f"[brand] logo = {value!r}: give the path of a PNG or SVG file in quotes")
    where = f"[brand] logo = {value!r}"
    try:
        path = (base / value).resolve()
    except (OSError, ValueError):  # a NUL in the name, a loop of links
        raise BrandError(f"{where}: not a usable path") from None
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
    return str(path), digest_of(data)


def digest_of(logo: bytes) -> str:
    """What a clip's key holds of its logo: the digest of its bytes."""
    return hashlib.sha256(logo).hexdigest()[:16]


def _png_problem(data: bytes) -> str:
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as img:
            if img.format != "PNG":
                return f"is a {img.format} picture, not a PNG"
            if img.width * img.height > MAX_LOGO_PIXELS:
                return f"is {img.width}×{img.height} pixels; a logo needs far fewer"
            img.load()
    except (UnidentifiedImageError, OSError, SyntaxError, Image.DecompressionBombError):
        return "is not a readable PNG picture"
    return ""


def _svg_problem(data: bytes) -> str:
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError:
        return "is not a readable SVG file"
    if root.tag.rpartition("}")[2] != "svg":
        return "is XML, but not an SVG picture"
    if not any(e.tag.rpartition("}")[2] in SVG_SHAPES for e in root.iter()):
        return "draws nothing (no path, shape or text)"
    return ""


def _font(value: object, lang: str) -> str:
    where = f"[theme.font] {lang} = {value!r}"
    if not isinstance(value, str) or not value.strip():
        raise BrandError(f"{where}: name an installed font in quotes")
    if not installed(value):
        raise BrandError(f"{where}: no such font is installed (fc-list lists those that are)")
    return value.strip()


def glyph_problem(font: str, text: str) -> str:
    """Why `font` cannot draw `text` ('' when it can)."""
    missing = missing_glyphs(text, font)
    if not missing:
        return ""
    shown = " ".join(missing[:8]) + (" …" if len(missing) > 8 else "")
    return f"the font {font} has no glyph for {shown}"


def drawn_by(slug: str, look: Look) -> Look:
    """The part of a look a scene's frames show: the cards' words only on their card."""
    words = {field for fields in CARDS.values() for field in fields}
    return tuple((f, v) for f, v in look if f not in words or f in CARDS.get(slug, ()))
