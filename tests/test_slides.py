"""render.py slides: one lossless still per beat end, as a PDF or PNGs, with notes beside.

The tiny scenes are rendered once for the module (English, 256x144 at 10 fps) and
joined into a three-beat lesson. Every page is checked against the frame PyAV decodes
from the video at that beat's end: the last frame before the next beat begins.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import av
import numpy as np
import pikepdf
import pytest
from click.testing import CliRunner
from PIL import Image

from lesson import catalogue
from lesson.say import line as caption
from rendering.core.manifest import Manifest
from rendering.publish import lesson, slides
from tests.test_lesson import render_clips
from tests.test_presenter import SLUGS, expected_beats, tiny_scenes_for_module

pytestmark = pytest.mark.render
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def media(tmp_path_factory):
    """(output root, folder) with tiny-a, tiny-b and their lesson, rendered once."""
    with tiny_scenes_for_module(tmp_path_factory):
        root = tmp_path_factory.mktemp("media")
        folder = render_clips(root, SLUGS, lang="en")
        lesson.build(folder, SLUGS)
        yield root, folder


def decoded(video: Path) -> list[tuple[float, np.ndarray]]:
    with av.open(str(video)) as c:
        return [
            (float(f.pts * f.time_base), f.to_ndarray(format="rgb24")) for f in c.decode(video=0)
        ]


def frame_before(frames, t: float) -> np.ndarray:
    """The last frame that starts before `t` (a beat boundary) by at least half a frame."""
    fps = round(1 / (frames[1][0] - frames[0][0]))
    return [img for start, img in frames if start < t - 0.5 / fps][-1]


def pdf_pages(path: Path) -> list[np.ndarray]:
    with pikepdf.open(path) as pdf:
        out = []
        for page in pdf.pages:
            (image,) = page.get_images().values()
            out.append(np.asarray(pikepdf.PdfImage(image).as_pil_image().convert("RGB")))
        return out


def test_pdf_has_one_page_per_beat_each_the_frame_before_the_next_beat(media):
    _, folder = media
    target, notes, made = slides.export(folder, "lesson", "pdf")
    assert target == folder / "slides" / "lesson.pdf"
    record = Manifest.load(folder).lesson
    beats = expected_beats(folder)
    ends = [t for _, _, t in beats[1:]] + [record.duration]
    frames = decoded(folder / record.file)
    pages = pdf_pages(target)
    assert len(pages) == len(beats) == 3
    for page, end, slide in zip(pages, ends, made, strict=True):
        want = frame_before(frames, end)
        assert page.shape == want.shape == (record.height, record.width, 3)
        assert np.array_equal(page, want), slide  # lossless: bit for bit
        assert abs(slide.time - (end - 1 / record.fps)) < 1e-6
    assert not np.array_equal(pages[0], pages[2])  # different moments, different pictures
    # the images are stored losslessly (Flate), not as JPEG
    with pikepdf.open(target) as pdf:
        filters = {str(im.get("/Filter")) for p in pdf.pages for im in p.get_images().values()}
    assert filters == {"/FlateDecode"}
    # speaker notes: each beat's narration, in order
    text = notes.read_text(encoding="utf-8")
    says = [caption("en", slug, key) for slug, key, _ in beats]
    positions = [text.index(s) for s in says]
    assert positions == sorted(positions)
    data = json.loads((folder / "slides" / "lesson.notes.json").read_text(encoding="utf-8"))
    assert [s["notes"] for s in data["slides"]] == says
    assert [(s["slug"], s["beat"]) for s in data["slides"]] == [b[:2] for b in beats]


def test_png_stills_are_lossless_named_per_beat_and_replaced_whole(media):
    _, folder = media
    entry = Manifest.load(folder).entry("tiny-a", "mp4")
    target, notes, made = slides.export(folder, "tiny-a", "png")
    assert target == folder / "slides" / "tiny-a"
    names = sorted(p.name for p in target.iterdir())
    assert names == ["01-tiny-a-draw.png", "02-tiny-a-hold.png"]
    frames = decoded(folder / entry.file)
    ends = [entry.beats[1][1], entry.duration]
    for name, end in zip(names, ends, strict=True):
        assert np.array_equal(np.asarray(Image.open(target / name)), frame_before(frames, end))
    assert "Then it waits." in notes.read_text(encoding="utf-8")
    (target / "stale.png").write_bytes(b"x")  # an older export's leftover
    slides.export(folder, "tiny-a", "png")
    assert sorted(p.name for p in target.iterdir()) == names
    assert [p.name for p in target.parent.iterdir() if p.name.startswith(".")] == []


def pptx_slides(path: Path):
    from pptx import Presentation

    prs = Presentation(str(path))
    return prs, list(prs.slides)


def test_a_powerpoint_deck_has_a_title_then_a_lossless_still_per_beat_with_its_notes(media):
    from lesson.catalogue import lookup

    _, folder = media
    target, _, made = slides.export(folder, "lesson", "pptx")
    assert target == folder / "slides" / "lesson.pptx"
    record = Manifest.load(folder).lesson
    beats = expected_beats(folder)
    prs, (title, *stills) = pptx_slides(target)
    assert prs.slide_width * record.height == pytest.approx(prs.slide_height * record.width)
    assert title.shapes.title.text == lookup("en", "lesson-intro", "title")
    assert len(stills) == len(beats) == len(made) == 3
    frames = decoded(folder / record.file)
    ends = [t for _, _, t in beats[1:]] + [record.duration]
    for slide, end, (slug, key, _) in zip(stills, ends, beats, strict=True):
        (picture,) = slide.shapes
        assert (picture.left, picture.top) == (0, 0)
        assert (picture.width, picture.height) == (prs.slide_width, prs.slide_height)
        shown = np.asarray(Image.open(io.BytesIO(picture.image.blob)).convert("RGB"))
        assert np.array_equal(shown, frame_before(frames, end))  # PNG: bit for bit
        said = caption("en", slug, key)
        assert slide.notes_slide.notes_text_frame.text == said
        assert picture._element.nvPicPr.cNvPr.get("descr") == said  # its alternative text


def test_a_powerpoint_deck_per_chapter_embeds_each_clip_whole_with_its_lines(media):
    from pptx.opc.constants import RELATIONSHIP_TYPE as RT

    _, folder = media
    target, _, _ = slides.export(folder, "lesson", "pptx", per="chapter")
    assert target == folder / "slides" / "lesson.chapters.pptx"  # beside the per-beat deck
    _, (title, *chapters) = pptx_slides(target)
    beats = expected_beats(folder)
    manifest = Manifest.load(folder)
    assert len(chapters) == len(SLUGS)
    for slide, slug in zip(chapters, SLUGS, strict=True):
        media_parts = [r.target_part for r in slide.part.rels.values() if r.reltype == RT.MEDIA]
        (clip,) = media_parts
        assert clip.blob == (folder / manifest.entry(slug, "mp4").file).read_bytes()
        said = [caption("en", s, key) for s, key, _ in beats if s == slug]
        assert slide.notes_slide.notes_text_frame.text.split("\n\n") == said
    one, _, _ = slides.export(folder, "tiny-b", "pptx", per="chapter")
    _, (first, only) = pptx_slides(one)
    assert first.shapes.title.text == Manifest.load(folder).entry("tiny-b", "mp4").title
    with pytest.raises(slides.SlidesError, match="unknown --per 'page'"):
        slides.export(folder, "lesson", "pptx", per="page")


def test_bad_input_is_one_clear_error(media, tmp_path):
    _, folder = media
    with pytest.raises(slides.SlidesError, match="unknown slide format 'jpg'; use one of pdf"):
        slides.export(folder, "lesson", "jpg")
    with pytest.raises(slides.SlidesError, match="no clip 'nope'.*render it first"):
        slides.export(folder, "nope", "pdf")
    with pytest.raises(slides.SlidesError, match="no manifest.json"):
        slides.export(tmp_path, "lesson", "pdf")


def _cli(*args):
    from render import cli

    return CliRunner().invoke(cli, ["slides", *args])


def test_the_slides_command(media, tmp_path):
    root, folder = media
    result = _cli("--output", str(root), "--all", "--format", "png")  # folder language: en
    assert result.exit_code == 0, result.output
    assert (folder / "slides" / "tiny-b" / "01-tiny-b-draw.png").is_file()
    assert "tiny-a (2 beats)" in result.output
    result = _cli("--output", str(root))  # the lesson, as a PDF
    assert result.exit_code == 0, result.output
    assert (folder / "slides" / "lesson.pdf").is_file()

    for args, message in [
        (("tiny-c",), "no clip 'tiny-c'"),
        (("--all", "--lesson"), "give scene names, --all or --lesson"),
        (("--format", "jpg"), "Invalid value for '--format'"),
        (("--lang", "zh"), "has no manifest.json; render into it first"),
        (("--per", "chapter"), "--per chapter is for --format pptx"),
    ]:
        result = _cli("--output", str(root), *args)
        assert result.exit_code == 2, (args, result.output)
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]


def test_a_deck_folder_that_is_a_link_is_replaced_and_its_target_left_alone(media, tmp_path):
    _, folder = media
    target, _, _ = slides.export(folder, "tiny-a", "png")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "mine.txt").write_text("a teacher's file", encoding="utf-8")
    for child in target.iterdir():
        child.unlink()
    target.rmdir()
    target.symlink_to(elsewhere, target_is_directory=True)
    for _ in range(2):  # the second run once failed on the link the first had moved aside
        slides.export(folder, "tiny-a", "png")
        assert target.is_dir() and not target.is_symlink()
        assert sorted(p.name for p in target.iterdir()) == [
            "01-tiny-a-draw.png",
            "02-tiny-a-hold.png",
        ]
        assert [p.name for p in target.parent.iterdir() if p.name.startswith(".")] == []
    assert [p.name for p in elsewhere.iterdir()] == ["mine.txt"]


def test_a_slides_folder_that_is_a_link_or_a_video_outside_the_folder_is_refused(media, tmp_path):
    _, folder = media
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy, ignore=shutil.ignore_patterns("slides"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "tiny-a.pdf").write_text("a teacher's", encoding="utf-8")
    (copy / "slides").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(slides.SlidesError, match="slides is a link or a file; move it away"):
        slides.export(copy, "tiny-a", "pdf")
    assert [p.read_text() for p in elsewhere.iterdir()] == ["a teacher's"]
    (copy / "slides").unlink()
    data = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))
    data["lesson"]["file"] = "../" * 40 + "etc/hostname"  # a file outside, reached
    (copy / "manifest.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(slides.SlidesError, match="etc/hostname' as the video, not a file"):
        slides.export(copy, "lesson", "pdf")
    assert not (copy / "slides").exists()


# The command as render.py runs it, once Manim is loaded: a lesson's narration loads the
# scenes for their numbers, and Manim gives the root logger a handler that prints INFO.
WITH_MANIM = "import sys, manim; from rendering.cli import main; sys.argv[0] = 'render.py'; main()"


def test_a_pdf_deck_prints_the_commands_line_and_nothing_from_pikepdf(media, tmp_path):
    # a process of its own: pikepdf logs its start once a process, and this one has
    _, folder = media
    copy = tmp_path / "en" / "480p15"  # where the command looks by default
    shutil.copytree(folder, copy)
    tiny = catalogue.path_for("en", "tiny-a").parents[1]  # the tiny scenes' words
    run = subprocess.run(
        [sys.executable, "-c", WITH_MANIM, "slides", "--output", str(tmp_path)],
        cwd=ROOT,
        env={**os.environ, catalogue.OVERRIDE: str(tiny), "COLUMNS": "250"},
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    deck, notes = copy / "slides" / "lesson.pdf", copy / "slides" / "lesson.notes.md"
    assert run.stdout.splitlines() == [f"slides: {deck} (3 beats), notes: {notes}"]
    assert run.stderr == ""
    with pikepdf.open(deck) as pdf:
        assert len(pdf.pages) == 3


def test_the_title_slide_takes_the_clips_palette(tmp_path):
    from pptx import Presentation

    from lesson.palette import DARK, LIGHT
    from rendering.publish.pptx_deck import Deck

    for palette in (DARK, LIGHT):
        deck = Deck((9144000, 5143500), "A title", "a line", palette)
        deck.save(tmp_path / "deck.pptx")
        (title,) = Presentation(str(tmp_path / "deck.pptx")).slides
        assert str(title.background.fill.fore_color.rgb) == palette["background"][1:].upper()
        run = title.shapes.title.text_frame.paragraphs[0].runs[0]
        assert str(run.font.color.rgb) == palette["foreground"][1:].upper()
