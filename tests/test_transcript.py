"""transcript.md and transcript.html: the lesson as text, a heading per chapter and a
paragraph per beat with its start time, written with the gallery and linked from it."""

from __future__ import annotations

import html
import re

import pytest

from lesson.catalogue import lookup
from lesson.say import line as caption
from rendering.core.manifest import Manifest
from rendering.publish import gallery, lesson, transcript
from rendering.publish.web import clock
from tests.test_lesson import render_clips
from tests.test_presenter import SLUGS, expected_beats, tiny_scenes_for_module

pytestmark = pytest.mark.render


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """Two folders of the tiny clips: one joined into a lesson, one with clips alone."""
    with tiny_scenes_for_module(tmp_path_factory):
        joined = render_clips(tmp_path_factory.mktemp("joined"), SLUGS, lang="en")
        lesson.build(joined, SLUGS)
        gallery.write(joined)
        clips = render_clips(tmp_path_factory.mktemp("clips"), SLUGS, lang="zh")
        gallery.write(clips)
        yield joined, clips


def test_the_transcript_has_each_chapter_and_each_spoken_line_at_its_time(folders):
    joined, _ = folders
    manifest = Manifest.load(joined)
    titles = [c.title for c in manifest.lesson.chapters]
    beats = expected_beats(joined)
    md = (joined / transcript.MARKDOWN).read_text(encoding="utf-8")
    assert md.startswith(f"# {lookup('en', 'lesson-intro', 'title')} · Transcript\n")
    assert re.findall(r"^## (.*)$", md, re.M) == titles
    said = [(clock(t), caption("en", slug, key)) for slug, key, t in beats]
    assert len(said) == 3 and all(text for _, text in said)
    assert re.findall(r"^\[(\d+:\d\d)\] (.*)$", md, re.M) == said
    page = (joined / transcript.HTML).read_text(encoding="utf-8")
    assert '<html lang="en">' in page and "<main>" in page
    assert re.findall(r"<h2>(.*?)</h2>", page) == [html.escape(t) for t in titles]
    shown = re.findall(r'<p><span class="time">(.*?)</span>(.*?)</p>', page)
    assert shown == [(t, html.escape(text)) for t, text in said]
    index = (joined / gallery.NAME).read_text(encoding="utf-8")
    assert f'href="{transcript.HTML}"' in index


def test_without_a_lesson_the_transcript_follows_the_clips_in_order(folders):
    _, clips = folders
    md = (clips / transcript.MARKDOWN).read_text(encoding="utf-8")
    assert md.startswith(f"# {lookup('zh', 'lesson-intro', 'title')} · 文字稿\n")
    entries = Manifest.load(clips).entries()
    titles = [entries[slug]["mp4"].titles["zh"] for slug in SLUGS]
    assert re.findall(r"^## (.*)$", md, re.M) == titles
    for slug in SLUGS:
        for key, _ in entries[slug]["mp4"].beats:
            assert caption("zh", slug, key) in md
    assert '<html lang="zh">' in (clips / transcript.HTML).read_text(encoding="utf-8")


def test_numbers_shown_are_said_by_value_and_a_bad_record_gives_none():
    from rendering.publish.transcript import unsaid

    line = "weights 0.37 and -0.18 over 1024 positions"
    assert unsaid(["0.370", "−0.18", "16", "1,024", "50%"], line) == ["16", "50%"]
    assert unsaid({"0.1": 1}, line) == [] and unsaid(["x", "1.2.3"], line) == []
    assert unsaid([12, 0.5, None, "7"], line) == ["7"]  # a hand-edited record
