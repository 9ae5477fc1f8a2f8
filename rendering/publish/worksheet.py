"""A printable worksheet of the checkpoint questions, with its answer key on a page of its own.

The questions and answers are those the package player and present.html ask: worded in
the catalogues, answered by pe_math at the knobs each clip was rendered with. The PDF
is drawn with Cairo (A4, the Noto fonts the lesson uses), so it needs nothing more.
"""

from __future__ import annotations

from pathlib import Path

from lesson.catalogue import lookup
from lesson.text_layout import break_units, join_words
from rendering.core.files import replacing
from rendering.core.manifest import Manifest
from rendering.publish import presenter

A4 = (595.0, 842.0)  # points
MARGIN = 56.0
FONT = "Noto Sans CJK SC"
SIZES = {"title": 18.0, "chapter": 13.0, "text": 11.0}
UI = {
    "en": {"key": "Answer key", "name": "Name: ______________________", "answer": "Answer: "},
    "zh": {"key": "答案", "name": "姓名：______________________", "answer": "答案："},
}


class WorksheetError(RuntimeError):
    """No worksheet can be made; the message names the problem and the fix."""


def build(folder: Path, target: Path, slugs: list[str] | None = None) -> Path:
    """Write the worksheet of FOLDER's chapters (all, or `slugs`) to target (atomically)."""
    import cairo

    if not (folder / "manifest.json").is_file():
        raise WorksheetError(f"{folder} has no manifest.json; render the lesson into it first")
    manifest = Manifest.load(folder)
    try:
        lang = presenter.manifest_lang(folder, manifest)
    except presenter.PresenterError as exc:
        raise WorksheetError(str(exc)) from None
    entries = manifest.entries()
    order = sorted(entries, key=lambda s: (min(e.order for e in entries[s].values()), s))
    asked = presenter.chapter_questions(manifest)
    chosen = [s for s in (slugs or order) if s in asked]
    if not chosen:
        raise WorksheetError(
            f"no rendered chapter in {folder} asks a question; render one that does "
            "(binary-bits, clock-hands, similarity, rope-rotation)"
        )
    ui = UI.get(lang, UI["en"])
    titles = {s: next(iter(entries[s].values())).titles.get(lang, s) for s in chosen}
    with replacing(target, suffix=".pdf") as tmp:
        surface = cairo.PDFSurface(str(tmp), *A4)
        surface.set_metadata(cairo.PDFMetadata.TITLE, lookup(lang, "lesson-intro", "title"))
        page = _Page(cairo.Context(surface), lang)
        page.line(lookup(lang, "lesson-intro", "title"), "title")
        page.line(ui["name"], "text", gap=14)
        number = 0
        for slug in chosen:
            page.line(titles[slug], "chapter", gap=10)
            for q in asked[slug]:
                number += 1
                page.paragraph(f"{number}. {q['prompt']}")
                for i, choice in enumerate(q["choices"]):
                    page.paragraph(f"({chr(97 + i)}) {choice}", indent=18)
                if not q["choices"]:
                    page.line("______________________", "text", indent=18)
                page.skip(8)
        page.new_page()
        page.line(ui["key"], "title")
        number = 0
        for slug in chosen:
            page.line(titles[slug], "chapter", gap=10)
            for q in asked[slug]:
                number += 1
                key = q["answer"]
                if q["choices"]:
                    key = f"({chr(97 + int(q['key']))}) {key}"
                page.paragraph(f"{number}. {ui['answer']}{key}")
                page.paragraph(q["reason"], indent=18)
                page.skip(6)
        surface.finish()
    return target


class _Page:
    """Lines set top to bottom on A4 pages, wrapped at the margin."""

    def __init__(self, ctx, lang: str) -> None:
        self.ctx, self.lang = ctx, lang
        ctx.select_font_face(FONT)
        self.y = MARGIN

    def skip(self, points: float) -> None:
        self.y += points

    def new_page(self) -> None:
        self.ctx.show_page()
        self.y = MARGIN

    def line(self, text: str, style: str, gap: float = 0.0, indent: float = 0.0) -> None:
        size = SIZES[style]
        self.y += gap
        if self.y + size * 1.5 > A4[1] - MARGIN:
            self.new_page()
        self.ctx.set_font_size(size)
        self.y += size * 1.25
        self.ctx.move_to(MARGIN + indent, self.y)
        self.ctx.show_text(text)
        self.y += size * 0.35

    def paragraph(self, text: str, indent: float = 0.0) -> None:
        self.ctx.set_font_size(SIZES["text"])
        width = A4[0] - 2 * MARGIN - indent
        row = ""
        for unit in break_units(text, self.lang):
            joined = join_words(row, unit, self.lang) if row else unit
            if row and self.ctx.text_extents(joined).x_advance > width:
                self.line(row, "text", indent=indent)
                row = unit.lstrip()
            else:
                row = joined
        if row:
            self.line(row, "text", indent=indent)
