"""The lesson's table of contents as the README shows it: each chapter's number, slug and
what it shows, from its own folder (`shows` in its chapter.toml), in the lesson's order."""

from __future__ import annotations

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
