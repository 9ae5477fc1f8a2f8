"""The lesson's table of contents as the README shows it: each chapter's number, slug and
what it shows, from its own folder (`shows` in its chapter.toml), in the lesson's order;
and the stills of docs/stills/ each chapter asks for."""

from __future__ import annotations

import ast
import hashlib
import json
import tomllib
from dataclasses import dataclass
from pathlib import Path

from lesson import registry

BEGIN = "<!-- the chapters, from each chapter.toml: `python scripts/contents.py` writes them -->"
END = "<!-- end of the chapters -->"


def table(room: Path = registry.CHAPTERS) -> str:
    """The Markdown table of the chapters found in `room`."""
    rows = [f"| {i.order} | `{i.slug}` | {i.shows} |" for i in registry.discover(room)]
    return "\n".join(["| # | scene | what it shows |", "|---|---|---|", *rows])


def with_table(readme: str, room: Path = registry.CHAPTERS) -> str:
    """`readme` with the table between its markers made anew (unchanged without them)."""
    start, end = readme.find(BEGIN), readme.find(END)
    if start < 0 or end < start:
        return readme
    return f"{readme[: start + len(BEGIN)]}\n{table(room)}\n{readme[end:]}"


# ------------------------------------------------------------------ stills
STILLS_BEGIN = "<!-- the stills, from each chapter.toml: `python scripts/stills.py` makes them -->"
STILLS_END = "<!-- end of the stills -->"
SHAPE_NAMES = {"9:16": "9x16", "1:1": "1x1"}


@dataclass(frozen=True)
class Still:
    """One picture of a chapter in docs/stills: its frame at the end of `beat` (None: the
    last beat before the takeaway), in English at 16:9, in Chinese in the other shapes."""

    slug: str
    aspect: str
    beat: str | None

    @property
    def lang(self) -> str:
        return "en" if self.aspect == "16:9" else "zh"

    @property
    def file(self) -> str:
        shape = SHAPE_NAMES.get(self.aspect)
        return f"{self.slug}.{shape}.png" if shape else f"{self.slug}.png"

    @property
    def caption(self) -> str:
        return self.slug if self.aspect == "16:9" else f"{self.slug}, {self.aspect}, Chinese"


def stills(room: Path = registry.CHAPTERS) -> list[Still]:
    """Every chapter's still at 16:9 and those its chapter.toml asks for in other shapes
    (`[still] beat = "...", shapes = ["9:16", "1:1"]`), in the lesson's order."""
    return [
        Still(info.slug, aspect, beat)
        for info in registry.discover(room)
        for beat, shapes in [_still_asked(info.slug, room)]
        for aspect in ("16:9", *shapes)
    ]


def _still_asked(slug: str, room: Path) -> tuple[str | None, tuple[str, ...]]:
    """A chapter's `[still]`: its beat (None: the default) and its other shapes."""
    folder = _folder(slug, room)
    asked = tomllib.loads((folder / "chapter.toml").read_text("utf-8")).get("still", {})
    beat, shapes = asked.get("beat"), asked.get("shapes", [])
    said = tomllib.loads((folder / "en.toml").read_text("utf-8")).get("say", {})
    if not (
        isinstance(asked, dict)
        and (beat is None or beat in said)
        and isinstance(shapes, list)
        and set(shapes) <= set(SHAPE_NAMES)
    ):
        raise registry.ChapterError(
            f"{folder / 'chapter.toml'}: [still] may say beat = one of its beats "
            f"({', '.join(said)}) and shapes = a list of {', '.join(map(repr, SHAPE_NAMES))}"
        )
    return beat, tuple(shapes)


def fingerprint(still: Still, room: Path = registry.CHAPTERS) -> str:
    """What a still shows, as far as its chapter's own folder says: its scene's code, its
    on-screen words in the still's language and the beat it stops at. A still whose
    fingerprint differs from the one recorded beside it is stale."""
    folder = _folder(still.slug, room)
    words = tomllib.loads((folder / f"{still.lang}.toml").read_text("utf-8")).get("ui", {})
    code = ast.dump(ast.parse((folder / "scene.py").read_text("utf-8")))  # not its comments
    digest = hashlib.sha256(code.encode())
    digest.update(json.dumps([words, still.beat], sort_keys=True).encode())
    return digest.hexdigest()[:16]


def _folder(slug: str, room: Path) -> Path:
    return room / slug.replace("-", "_")


def gallery(shown: list[Still]) -> str:
    """The README's two-column table of `shown` stills."""
    cells = [f"![{s.caption}](docs/stills/{s.file})" for s in shown]
    cells += [""] * (len(cells) % 2)
    rows = [f"| {a} | {b} |" for a, b in zip(cells[::2], cells[1::2], strict=True)]
    return "\n".join(["| | |", "|---|---|", *rows])


def with_gallery(readme: str, shown: list[Still]) -> str:
    """`readme` with the stills between their markers made anew (unchanged without them)."""
    start, end = readme.find(STILLS_BEGIN), readme.find(STILLS_END)
    if start < 0 or end < start:
        return readme
    return f"{readme[: start + len(STILLS_BEGIN)]}\n{gallery(shown)}\n{readme[end:]}"
