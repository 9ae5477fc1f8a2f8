"""PowerPoint decks (python-pptx): a title slide, then one slide per beat with its still, or
one per chapter with its clip embedded; the narration goes into the speaker notes. The
title slide carries the brand's words, name and logo when the clips were drawn with one.

The slide has the video's shape (16:9, 9:16 or 1:1) and the picture fills it. Each
still carries its narration as alternative text, so a screen reader in PowerPoint
reads what the voice says.
"""

from __future__ import annotations

import io
import mimetypes
from pathlib import Path

from PIL import Image

from lesson.brand import digest_of
from lesson.palette import PALETTE
from rendering.core.files import atomic_write

LONG_SIDE_EMU = 12_192_000  # 13.333 in: PowerPoint's own 16:9 width
PER = ("beat", "chapter")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def slide_size(width: int, height: int) -> tuple[int, int]:
    """The slide in EMU, the video's shape with its long side at PowerPoint's width."""
    if width >= height:
        return LONG_SIDE_EMU, round(LONG_SIDE_EMU * height / width)
    return round(LONG_SIDE_EMU * width / height), LONG_SIDE_EMU


def _png(img: Image.Image) -> io.BytesIO:
    buffer = io.BytesIO()
    img.save(buffer, format="PNG")
    buffer.seek(0)
    return buffer


def _blank(prs):
    return prs.slides.add_slide(prs.slide_layouts[6])  # the default template's blank layout


def _notes(slide, text: str) -> None:
    slide.notes_slide.notes_text_frame.text = text


def _colour(palette: dict[str, str], name: str):
    from pptx.dml.color import RGBColor

    return RGBColor.from_string(palette[name].lstrip("#"))


def _title(
    prs,
    title: str,
    subtitle: str,
    palette: dict[str, str],
    brand: dict[str, str],
    folder: Path | None,
) -> None:
    """The title layout's two boxes in the lesson's colours, laid out for the slide's
    shape: across its middle five sixths, the title above the centre, the subtitle below
    (with the brand's name under it); the brand's logo in the top right corner."""
    slide = prs.slides.add_slide(prs.slide_layouts[0])
    slide.background.fill.solid()
    slide.background.fill.fore_color.rgb = _colour(palette, "background")
    w, h = prs.slide_width, prs.slide_height
    for box, text, top, height, colour in (
        (slide.shapes.title, title, 0.28, 0.22, "foreground"),
        (slide.placeholders[1], subtitle, 0.52, 0.16, "muted"),
    ):
        box.left, box.width = w // 12, w * 10 // 12
        box.top, box.height = round(h * top), round(h * height)
        box.text = text
        for paragraph in box.text_frame.paragraphs:
            for run in paragraph.runs:
                run.font.color.rgb = _colour(palette, colour)
    if brand.get("name"):
        line = slide.placeholders[1].text_frame.add_paragraph()
        line.text = brand["name"]
        line.runs[0].font.color.rgb = _colour(palette, "accent")
    logo = _logo_png(brand, folder) if folder is not None else None
    if logo is not None:  # fitted to a box in the top right corner, a margin inside it
        margin = h // 24
        picture = slide.shapes.add_picture(logo, 0, margin)
        scale = min(w // 4 / picture.width, h // 10 / picture.height)
        picture.width, picture.height = round(picture.width * scale), round(picture.height * scale)
        picture.left = w - margin - picture.width
        picture._element.nvPicPr.cNvPr.set("descr", brand.get("name", "logo"))
    _notes(slide, subtitle)


def _logo_png(brand: dict[str, str], folder: Path) -> io.BytesIO | None:
    """The brand's logo (its path recorded from `folder`) when it is a PNG still as the
    clips drew it; else None (PowerPoint takes no SVG)."""
    try:
        data = (folder / brand["logo"]).read_bytes() if brand.get("logo") else b""
    except OSError:
        return None
    if not data.startswith(PNG_SIGNATURE) or digest_of(data) != brand.get("logo_digest"):
        return None
    return io.BytesIO(data)


class Deck:
    """A presentation being filled; `save` writes it whole or not at all."""

    def __init__(
        self,
        size: tuple[int, int],
        title: str,
        subtitle: str,
        palette: dict[str, str] = PALETTE,
        brand: dict[str, str] | None = None,
        folder: Path | None = None,
    ) -> None:
        from pptx import Presentation

        self.prs = Presentation()
        self.prs.slide_width, self.prs.slide_height = size
        self.prs.core_properties.title = title
        _title(self.prs, title, subtitle, palette, brand or {}, folder)

    def still(self, img: Image.Image, notes: str) -> None:
        slide = _blank(self.prs)
        picture = slide.shapes.add_picture(
            _png(img), 0, 0, self.prs.slide_width, self.prs.slide_height
        )
        picture._element.nvPicPr.cNvPr.set("descr", notes)  # the still's alternative text
        _notes(slide, notes)

    def clip(self, video: Path, poster: Image.Image, notes: str) -> None:
        slide = _blank(self.prs)
        slide.shapes.add_movie(
            str(video),
            0,
            0,
            self.prs.slide_width,
            self.prs.slide_height,
            poster_frame_image=_png(poster),
            mime_type=mimetypes.guess_type(video.name)[0] or "video/mp4",
        )
        _notes(slide, notes)

    def save(self, target: Path) -> None:
        atomic_write(target, self.prs.save)
