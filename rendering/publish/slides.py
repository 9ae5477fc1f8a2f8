"""`render.py slides`: one still per beat end, for a slide deck, with speaker notes beside.

Each beat becomes the frame just before the next beat begins (the last beat: the
video's last frame), decoded with PyAV and kept lossless: PNG files, or a PDF made of
those PNGs by img2pdf, which embeds them without re-encoding. The beat's narration
line goes into a sidecar, `<name>.notes.md` (to paste into the presenter notes of
PowerPoint or Keynote) and `<name>.notes.json`. Everything is written beside the
final files first and moved into place when complete.
"""

from __future__ import annotations

import io
import json
import logging
import os
import reprlib
import secrets
import shutil
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import av
from PIL import Image

from rendering.core import formats
from rendering.core.files import atomic_write, atomic_write_text
from rendering.publish.presenter import (
    LESSON,
    PresenterError,
    Timeline,
    manifest_lang,
    timeline,
)

FORMATS = ("pdf", formats.STILL, "pptx")
FOLDER = "slides"  # inside the output folder: <output>/<lang>/<quality>/slides/


class SlidesError(RuntimeError):
    """The slides cannot be made; the message names the problem and the fix."""


@dataclass(frozen=True)
class Slide:
    number: int
    slug: str
    beat: str
    chapter: str
    n: int
    of: int
    time: float  # seconds: the still's frame time in the video
    notes: str
    file: str | None = None  # the PNG's name, for --format png


def still_times(tl: Timeline) -> list[float]:
    """For each beat, a time inside the last frame before the next beat (or the end)."""
    half = 0.5 / tl.fps
    return [max(0.0, end - half) for end in tl.ends()]


def frames_at(video: Path, times: list[float]) -> list[tuple[float, Image.Image]]:
    """(frame time, picture) of the last frame starting at or before each time."""
    order = sorted(range(len(times)), key=lambda i: times[i])
    found: list[tuple[float, Image.Image] | None] = [None] * len(times)
    try:
        with av.open(str(video)) as container:
            stream = container.streams.video[0]
            last = None
            k = 0
            for frame in container.decode(stream):
                t = float(frame.pts * frame.time_base)
                while k < len(order) and t > times[order[k]] + 1e-9 and last is not None:
                    found[order[k]] = last
                    k += 1
                if k == len(order):
                    break
                last = (t, frame.to_image())
            while k < len(order) and last is not None:
                found[order[k]] = last
                k += 1
    except (av.error.FFmpegError, IndexError) as exc:
        raise SlidesError(f"{video.name} cannot be decoded ({exc}); render it again") from None
    if any(f is None for f in found):
        raise SlidesError(f"{video.name} has no frames; render it again")
    return found  # type: ignore[return-value]


def deck_name(tl: Timeline) -> str:
    return LESSON if tl.id == LESSON else Path(tl.file).stem


def slides_for(tl: Timeline, folder: Path) -> tuple[list[Slide], list[Image.Image]]:
    shots = frames_at(folder / tl.file, still_times(tl))
    slides = []
    for i, (beat, (t, _)) in enumerate(zip(tl.beats, shots, strict=True), 1):
        chapter = tl.chapters[beat.chapter]["title"] if tl.chapters else tl.title
        slides.append(
            Slide(i, beat.slug, beat.key, chapter, beat.n, beat.of, round(t, 6), beat.say)
        )
    return slides, [img.convert("RGB") for _, img in shots]


def _png(img: Image.Image) -> bytes:
    buffer = io.BytesIO()
    img.save(buffer, format="PNG")
    return buffer.getvalue()


def notes_markdown(tl: Timeline, slides: list[Slide]) -> str:
    lines = [f"# {tl.title}: speaker notes", ""]
    for s in slides:
        shown = f" · {s.file}" if s.file else ""
        lines += [
            f"## {s.number}. {s.chapter} · {s.n}/{s.of} · {s.beat} ({s.time:.2f} s{shown})",
            "",
            s.notes or "(no narration)",
            "",
        ]
    return "\n".join(lines)


def export(folder: Path, ident: str, fmt: str, per: str = "beat") -> tuple[Path, Path, list[Slide]]:
    """Write the deck of `ident` ("lesson" or a slug) in FOLDER/slides/.

    Returns (the PDF, the PowerPoint file or the folder of PNGs, the notes file, the
    slides). A PowerPoint deck has a slide per beat, or with `per="chapter"` one per
    chapter with its clip embedded.
    """
    if fmt not in FORMATS:
        raise SlidesError(f"unknown slide format {fmt!r}; use one of {', '.join(FORMATS)}")
    try:
        tl = timeline(folder, ident)
    except PresenterError as exc:
        raise SlidesError(str(exc)) from None
    video = folder / tl.file
    if Path(tl.file).name != tl.file or video.is_symlink() or not video.is_file():
        raise SlidesError(
            f"the manifest names {reprlib.repr(tl.file)} as the video, not a file beside it "
            f"in {folder}; render it again"
        )
    out = folder / FOLDER
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise SlidesError(f"{out} is a link or a file; move it away to write the slides there")
    slides, images = slides_for(tl, folder)
    name = deck_name(tl)
    out.mkdir(parents=True, exist_ok=True)
    if fmt == "pdf":
        target = out / f"{name}.pdf"
        _write_pdf(target, images, tl.title)
    elif fmt == "pptx":
        target = out / (f"{name}.pptx" if per == "beat" else f"{name}.chapters.pptx")
        _write_pptx(target, folder, tl, slides, images, per)
    else:
        target = out / name
        slides = [replace(s, file=f"{s.number:02d}-{s.slug}-{s.beat}.png") for s in slides]
        _write_pngs(target, [(s.file, img) for s, img in zip(slides, images, strict=True)])
    notes = out / f"{name}.notes.md"
    atomic_write_text(notes, notes_markdown(tl, slides))
    record = {
        "title": tl.title,
        "video": tl.file,
        "format": fmt,
        "file": target.name,
        "slides": [asdict(s) for s in slides],
    }
    atomic_write_text(
        out / f"{name}.notes.json", json.dumps(record, indent=2, ensure_ascii=False) + "\n"
    )
    return target, notes, slides


def _write_pdf(target: Path, images: list[Image.Image], title: str) -> None:
    # img2pdf imports pikepdf, whose import logs "logger bridge initialized" at INFO level
    # through the handler Manim gives the root logger: a line before the command's own
    logging.getLogger("pikepdf").setLevel(logging.WARNING)
    import img2pdf

    atomic_write(
        target,
        lambda fh: img2pdf.convert([_png(img) for img in images], outputstream=fh, title=title),
    )


def _write_pptx(
    target: Path, folder: Path, tl: Timeline, slides: list[Slide], images, per: str
) -> None:
    from lesson.catalogue import lookup
    from rendering.core.manifest import Manifest
    from rendering.publish.pptx_deck import PER, Deck, slide_size
    from rendering.publish.web import clips_brand, clips_palette

    if per not in PER:
        raise SlidesError(f"unknown --per {per!r}; use one of {', '.join(PER)}")
    manifest = Manifest.load(folder)
    lang = manifest_lang(folder, manifest)
    brand = clips_brand(manifest)
    course = brand.get("title") or lookup(lang, "lesson-intro", "title")
    if tl.id == LESSON:
        title = course
        subtitle = brand.get("subtitle") or lookup(lang, "lesson-intro", "ui.subtitle")
    else:
        title, subtitle = tl.title, course
    size = slide_size(tl.width, tl.height)
    deck = Deck(size, title, subtitle, clips_palette(manifest), brand, folder)
    if per == "beat":
        for s, img in zip(slides, images, strict=True):
            deck.still(img, s.notes)
    else:
        for chapter in tl.chapters:
            clip = timeline(folder, chapter["slug"]) if tl.id == LESSON else tl
            video = folder / clip.file
            if Path(clip.file).name != clip.file or not video.is_file():
                raise SlidesError(f"{chapter['slug']} has no clip in {folder}; render it again")
            ((_, poster),) = frames_at(video, still_times(clip)[:1])
            said = [b.say for b in clip.beats if b.say]
            deck.clip(video, poster.convert("RGB"), "\n\n".join(said))
    deck.save(target)


def _write_pngs(target: Path, files: list[tuple[str, Image.Image]]) -> None:
    """Fill a new folder, then swap it for the old one."""
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(6)}")
    tmp.mkdir()  # the mode a plain mkdir gives, where mkdtemp would give 0700
    old = None
    try:
        for name, img in files:
            (tmp / name).write_bytes(_png(img))
        if target.exists() or target.is_symlink():
            old = target.with_name(f".{target.name}.old")
            _remove(old)
            os.replace(target, old)
        os.replace(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if old is not None and not target.exists():
            os.replace(old, target)
        raise
    if old is not None:
        _remove(old)


def _remove(path: Path) -> None:
    """Delete a left-over folder; a link is removed itself, never what it points to
    (nothing outside the output folder is touched)."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
