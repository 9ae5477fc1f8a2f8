"""What the published pages (gallery, presenter, explorer) share.

The head of every page, with the CSS custom properties of the palette; JSON that is safe
inside <script>; the templates; the videos a page can play and their MIME types; the
page names they link each other by. This module imports no other page module, so each
page can use it without importing another page.
"""

from __future__ import annotations

import json
import re
from html import escape
from importlib import resources

from lesson.palette import COLOUR, PALETTE, luminance, recorded, rgb_of
from rendering.core import formats
from rendering.core.manifest import ClipEntry

GALLERY = "index.html"
PRESENT = "present.html"
EXPLORE = "explore.html"
# what XML 1.0 forbids in a document (C0 controls but tab and newlines, lone surrogates,
# U+FFFE and U+FFFF); HTML forbids them too
_NOT_IN_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")

# The CSS custom properties every page declares. The page colours are the lesson's, so a
# page matches the videos on it; "card", "blue" and "q" are drawn by the pages alone.
COLORS = {
    "bg": PALETTE["background"],
    "card": "#181b23",
    "fg": PALETTE["foreground"],
    "muted": PALETTE["muted"],
    "accent": PALETTE["accent"],
    "line": PALETTE["neutral"],
    "blue": "#58a6ff",
    "hot": "#ff8c42",
    "q": "#f778ba",
}


# what the pages draw alone, on a light background
LIGHT_PAGE = {"card": "#f1efe9", "blue": "#0b6c96", "hot": "#a34c08", "q": "#b0306f"}


def root_css(**colors: str) -> str:
    """The :root rule with every custom property; `colors` replaces some (bg="#000")."""
    unknown = colors.keys() - COLORS.keys()
    if unknown:
        raise ValueError(f"no page colour named {', '.join(sorted(unknown))}")
    chosen = COLORS | colors
    scheme = "light" if _light(chosen["bg"]) else "dark"
    props = " ".join(f"--{name}: {value};" for name, value in chosen.items())
    return f":root {{ color-scheme: {scheme}; {props} }}"


def clips_palette(manifest) -> dict[str, str]:
    """The palette a folder's clips were all drawn in; the default when they differ."""
    kinds = {
        tuple(sorted(recorded(entry.palette).items()))
        for variants in manifest.entries().values()
        for entry in variants.values()
    }
    return dict(kinds.pop()) if len(kinds) == 1 else dict(PALETTE)


def clips_brand(manifest) -> dict[str, str]:
    """The brand a folder's title card was drawn with (its clips' when it has none)."""
    entries = [entry for variants in manifest.entries().values() for entry in variants.values()]
    cards = [e for e in entries if e.slug == "lesson-intro"] or entries
    return {k: v for k, v in cards[0].look.items() if k != "font"} if cards else {}


def page_colors(manifest) -> dict[str, str]:
    """The page colours for a folder whose clips share one palette other than the
    default (for head's `colors`); none when they do not."""
    palette = clips_palette(manifest)
    if palette == PALETTE:
        return {}
    roles = {"bg": "background", "fg": "foreground", "muted": "muted", "accent": "accent"}
    colors = {name: palette[role] for name, role in roles.items()} | {"line": palette["neutral"]}
    return colors | (LIGHT_PAGE if _light(palette["background"]) else {})


def _light(colour: str) -> bool:
    """Whether a "#rrggbb" background is light (any other CSS colour counts as dark)."""
    return bool(COLOUR.fullmatch(colour)) and float(luminance(rgb_of(colour))) > 0.5


def plain_text(text: str) -> str:
    """TEXT without the characters an XML or HTML document cannot hold (a control
    character typed into a catalogue title, say), which make a document a parser rejects."""
    return _NOT_IN_XML.sub("", text)


def head(lang: str, title: str, **colors: str) -> str:
    """A page's start, up to and with the <style> of the palette; the page's own <style>
    and </head> follow it."""
    return "\n".join(
        [
            "<!doctype html>",
            f'<html lang="{escape(lang, quote=True)}"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<link rel="icon" href="data:,">',  # no favicon request, no 404 in the console
            f"<title>{escape(plain_text(title))}</title>",
            f"<style>\n{root_css(**colors)}\n* {{ box-sizing: border-box; }}\n</style>",
        ]
    )


def template(name: str) -> str:
    """A page's template from templates/; its head goes in at {{head}}."""
    return resources.files(__package__).joinpath("templates", name).read_text(encoding="utf-8")


def json_for_script(data) -> str:
    """JSON that is safe inside <script>: no "</script>", no "<!--", no HTML entities."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def clock(seconds: float) -> str:
    """m:ss, rounded to the second."""
    s = int(round(seconds))
    return f"{s // 60}:{s % 60:02d}"


def video_sources(variants: dict[str, ClipEntry]) -> list[tuple[str, str]]:
    """(file, MIME type) of the playable, uncaptioned videos of one clip; mp4 first."""
    out = []
    playable = {f.name: f for f in formats.every() if f.playable}
    for name, fmt in playable.items():
        entry = variants.get(name) or variants.get(f"{name}.alpha")
        if entry is not None:
            out.append((entry.file, fmt.mime))
    if not out:  # only burned-in variants were rendered
        for variant, entry in sorted(variants.items()):
            fmt = playable.get(variant.partition(".")[0])
            if fmt is not None:
                out.append((entry.file, fmt.mime))
                break
    return out


def lesson_sources(file: str) -> list[tuple[str, str]]:
    """(file, MIME type) of the joined lesson."""
    fmt = formats.by_extension(file.rpartition(".")[2])
    return [(file, (fmt if fmt and fmt.playable else formats.get(formats.MAIN)).mime)]


def human_bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB"):
        if size < 1024 or unit == "MB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} MB"
