"""index.html from manifest.json: parsed back, escaped, self-contained, with tracks and snippets."""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path

from rich.console import Console

from rendering.core.manifest import ClipEntry, Manifest
from rendering.publish import gallery


class Page(HTMLParser):
    """Collects elements with their attributes and the text inside <pre>."""

    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict, list[tuple[str, dict]]]] = []
        self.pres: list[str] = []
        self._stack: list[tuple[str, dict, list]] = []
        self._pre: list[str] | None = None
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("source", "track") and self._stack:
            self._stack[-1][2].append((tag, attrs))
            return
        if tag == "video":
            self._stack.append((tag, attrs, []))
            return
        self.elements.append((tag, attrs, []))
        if tag == "pre":
            self._pre = []

    def handle_endtag(self, tag):
        if tag == "video":
            self.elements.append(self._stack.pop())
        if tag == "pre" and self._pre is not None:
            self.pres.append("".join(self._pre))
            self._pre = None

    def handle_data(self, data):
        self.text.append(data)
        if self._pre is not None:
            self._pre.append(data)

    def videos(self):
        return [(a, kids) for tag, a, kids in self.elements if tag == "video"]


EVIL = '<script>alert("x")</script> & "quotes"'


def _entry(slug, order, fmt="mp4", **extra):
    stem = slug  # a clip is named by its slug; its place is `order`
    entry = {
        "slug": slug,
        "order": order,
        "title": f"{slug} title",
        "titles": {"zh": f"{slug} 标题", "en": f"{slug} title"},
        "format": fmt,
        "file": f"{stem}.{fmt}",
        "poster": f"{stem}.png",
        "duration": 12.5,
        "frames": 125,
        "width": 854,
        "height": 480,
        "fps": 10,
        "bytes": 2048,
        "params": {"base": 10000.0, "layout": "interleaved"},
        "beats": [["a", 0.0]],
        "captions": {
            "vtt": {"zh": f"{stem}.zh.vtt", "en": f"{stem}.en.vtt"},
            "srt": {"zh": f"{stem}.zh.srt", "en": f"{stem}.en.srt"},
        },
    }
    entry.update(extra)
    return ClipEntry.from_dict(entry)


def _folder(tmp_path: Path, lang="en", with_lesson=True) -> Path:
    folder = tmp_path / lang / "480p15"
    folder.mkdir(parents=True)
    m = Manifest(folder)
    m.data.update({"lang": lang, "quality": "l", "aspect": "16:9"})
    m.record("clock-hands", "mp4", _entry("clock-hands", 5))
    m.record("clock-hands", "webm", _entry("clock-hands", 5, "webm"))
    m.record("clock-hands", "gif", _entry("clock-hands", 5, "gif", width=640, height=360))
    m.record(
        "evil",
        "mp4",
        _entry("evil", 7, titles={"zh": EVIL, "en": EVIL}, params={"tokens": EVIL}),
    )
    m.record("gone", "mp4", _entry("gone", 8))  # recorded, but its file was deleted
    m.record("lesson-intro", "mp4", _entry("lesson-intro", 0, params={}))
    for slug in ("clock-hands", "evil", "lesson-intro"):
        for variant in m.clips[slug].values():
            (folder / variant["file"]).write_bytes(b"x")
    if with_lesson:
        (folder / "lesson.mp4").write_bytes(b"x")
        m.data["lesson"] = {
            "file": "lesson.mp4",
            "variant": "mp4",
            "key": "k",
            "joined": "remux",
            "frames": 1125,
            "fps": 15,
            "duration": 75.0,
            "width": 854,
            "height": 480,
            "bytes": 10_000,
            "poster": "lesson-intro.png",
            "chapters": [
                {"slug": "lesson-intro", "title": "Intro", "start": 0.0, "end": 7.0},
                {"slug": "evil", "title": EVIL, "start": 7.0, "end": 75.0},
            ],
            "chapters_vtt": "chapters.vtt",
            "captions": {
                "vtt": {"zh": "lesson.zh.vtt", "en": "lesson.en.vtt"},
                "srt": {"zh": "lesson.zh.srt", "en": "lesson.en.srt"},
            },
        }
    m.save()
    return folder


def _page(folder: Path) -> tuple[str, Page]:
    text = gallery.write(folder).read_text(encoding="utf-8")
    page = Page()
    page.feed(text)
    return text, page


def test_every_clip_gets_a_video_with_poster_sources_and_both_subtitle_tracks(tmp_path):
    text, page = _page(_folder(tmp_path))
    videos = {a.get("data-slug", a.get("id")): (a, kids) for a, kids in page.videos()}
    assert set(videos) == {"lesson", "lesson-intro", "clock-hands", "evil"}  # not "gone"
    attrs, kids = videos["clock-hands"]
    assert attrs["controls"] is None and attrs["preload"] == "metadata"
    assert attrs["poster"] == "clock-hands.png"
    assert [(k, a["src"], a["type"]) for k, a in kids if k == "source"] == [
        ("source", "clock-hands.mp4", "video/mp4"),
        ("source", "clock-hands.webm", "video/webm"),
    ]
    tracks = [a for k, a in kids if k == "track"]
    assert [(t["kind"], t["srclang"], t["src"]) for t in tracks] == [
        ("subtitles", "zh", "clock-hands.zh.vtt"),
        ("subtitles", "en", "clock-hands.en.vtt"),
    ]
    assert "default" in tracks[1] and "default" not in tracks[0]  # the page's language
    # title, duration and parameters are shown
    words = " ".join(page.text)
    assert "clock-hands title" in words and "0:12" in words and "12.50 s" in words
    assert '"interleaved"' in words and "base" in words
    # files of every variant are linked, the GIF included
    hrefs = {a.get("href") for tag, a, _ in page.elements if tag == "a"}
    assert {"clock-hands.mp4", "clock-hands.webm", "clock-hands.gif"} <= hrefs


def test_lesson_comes_first_with_chapters_track_and_seek_links(tmp_path):
    text, page = _page(_folder(tmp_path, lang="zh"))
    first_video, kids = page.videos()[0]
    assert first_video["id"] == "lesson"
    assert ("track", "chapters") in [(k, a.get("kind")) for k, a in kids]
    assert [a["srclang"] for k, a in kids if a.get("kind") == "subtitles"] == ["zh", "en"]
    seeks = [a["data-seek"] for tag, a, _ in page.elements if tag == "a" and "data-seek" in a]
    assert seeks == ["0.000", "7.000"]
    assert "完整课程" in text and 'lang="zh"' in text
    assert text.index('id="lesson"') < text.index('data-slug="lesson-intro"')


def test_no_lesson_section_without_a_lesson(tmp_path):
    _, page = _page(_folder(tmp_path, with_lesson=False))
    assert "lesson" not in {a.get("id") for a, _ in page.videos()}


def test_everything_is_escaped(tmp_path):
    text, page = _page(_folder(tmp_path))
    assert "<script>alert" not in text
    assert text.count("<script>") == 1  # only the page's own inline script
    words = "".join(page.text)
    assert EVIL in words  # shown literally, as text
    assert json.dumps(EVIL, ensure_ascii=False) in words  # the parameter value too


def test_embed_snippets_are_complete_video_tags_with_tracks(tmp_path):
    _, page = _page(_folder(tmp_path))
    snippets = {re.search(r'poster="([^"]+)"', p).group(1): p for p in page.pres}
    clip = snippets["clock-hands.png"]
    inner = Page()
    inner.feed(clip)
    (attrs, kids) = inner.videos()[0]
    assert "id" not in attrs and attrs["preload"] == "metadata"
    assert [a["srclang"] for k, a in kids if k == "track"] == ["zh", "en"]
    assert clip.startswith("<video ") and clip.rstrip().endswith("</video>")
    assert html.unescape(clip) == clip  # the <pre> text is the literal code to paste


def test_page_is_self_contained(tmp_path):
    text, page = _page(_folder(tmp_path))
    urls = [
        v
        for tag, a, kids in page.elements
        for k, v in [*a.items(), *(i for _, ka in kids for i in ka.items())]
        if k in ("src", "href", "poster") and tag != "link"
    ]
    urls += [v for a, kids in page.videos() for _, ka in kids for k, v in ka.items() if k == "src"]
    assert urls and not [u for u in urls if "//" in u or u.startswith("/") or ":" in u[:8]]
    assert "http" not in text.lower().replace("http.server", "")
    assert not [tag for tag, a, _ in page.elements if tag == "iframe"]
    assert [a["href"] for tag, a, _ in page.elements if tag == "link"] == ["data:,"]
    assert not [a for tag, a, _ in page.elements if tag == "script" and "src" in a]


def test_publish_rewrites_the_gallery_and_reports_gif_sizes(tmp_path):
    from pe_math import Params
    from rendering.core.jobs import Job

    folder = _folder(tmp_path, with_lesson=False)
    jobs = [Job("clock-hands", Params(), "en", "l", "gif")]
    console = Console(record=True, width=120)
    (folder / gallery.NAME).unlink(missing_ok=True)
    gallery.publish(jobs, tmp_path, console)
    assert (folder / gallery.NAME).exists()
    out = console.export_text()
    assert "GIF sizes" in out and "clock-hands.gif" in out and "640x360@10" in out


def test_a_lesson_that_cannot_be_joined_is_one_problem_line(tmp_path):
    from pe_math import Params
    from rendering.core.jobs import Job
    from rendering.publish.lesson import join_folders

    _folder(tmp_path, with_lesson=False)
    jobs = [Job("clock-hands", Params(), "en", "l", "gif")]
    problems = join_folders(jobs, tmp_path, Console(record=True))
    assert problems and "mp4 or webm" in problems[0]
