"""The lesson as text (WCAG 1.2.8, media alternative): `transcript.md` and
`transcript.html` beside the gallery, one heading per chapter and one paragraph per beat
with the time it starts in the video.

Written from the same timelines the presenter plays: the joined lesson when the folder
has one, else every clip in lesson order.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from rendering.core.files import atomic_write_text
from rendering.core.manifest import Manifest
from rendering.publish.presenter import LESSON, Timeline, manifest_lang, timelines
from rendering.publish.web import clock, head, plain_text

MARKDOWN = "transcript.md"
HTML = "transcript.html"

UI = {
    "en": {"title": "Transcript", "video": "video", "none": "No clip has been rendered here."},
    "zh": {"title": "文字稿", "video": "视频", "none": "这里还没有渲染好的视频。"},
}

CSS = """
body { margin: 0 auto; padding: 2rem; max-width: 46rem; background: var(--bg);
  color: var(--fg); font: 17px/1.65 "Noto Sans CJK SC", "Noto Sans", system-ui, sans-serif; }
h1 { font-size: 1.6rem; margin: 0 0 1.5rem; }
h2 { color: var(--accent); font-size: 1.25rem; margin: 2rem 0 .75rem; }
p { margin: 0 0 .9rem; }
.time { color: var(--muted); font-variant-numeric: tabular-nums; margin-right: .5rem; }
"""


def sections(chosen: list[Timeline]) -> list[tuple[str, list[tuple[float, str]]]]:
    """(chapter title, [(start in its video, narration)]) of each timeline's chapters."""
    out = []
    for tl in chosen:
        for index, chapter in enumerate(tl.chapters):
            said = [(b.start, b.say) for b in tl.beats if b.chapter == index and b.say]
            out.append((chapter["title"], said))
    return out


def markdown(title: str, parts: list[tuple[str, list[tuple[float, str]]]], none: str) -> str:
    lines = [f"# {title}", ""]
    for chapter, said in parts:
        lines += [f"## {chapter}", ""]
        for start, text in said:
            lines += [f"[{clock(start)}] {text}", ""]
    if not parts:
        lines += [none, ""]
    return "\n".join(lines)


def html(lang: str, title: str, parts: list[tuple[str, list[tuple[float, str]]]], none: str) -> str:
    body = [f"<h1>{escape(plain_text(title))}</h1>"]
    for chapter, said in parts:
        body.append(f"<section><h2>{escape(plain_text(chapter))}</h2>")
        body += [
            f'<p><span class="time">{clock(start)}</span>{escape(plain_text(text))}</p>'
            for start, text in said
        ]
        body.append("</section>")
    if not parts:
        body.append(f"<p>{escape(none)}</p>")
    return "\n".join(
        [
            head(lang, title),
            f"<style>{CSS}</style></head><body><main>",
            *body,
            "</main></body></html>",
            "",
        ]
    )


def pages(lang: str, chosen: list[Timeline]) -> tuple[str, str]:
    """The transcript of these timelines as (Markdown, HTML)."""
    from lesson.catalogue import lookup

    ui = UI[lang]
    title = f"{lookup(lang, 'lesson-intro', 'title')} · {ui['title']}"
    parts = sections(chosen)
    return markdown(title, parts, ui["none"]), html(lang, title, parts, ui["none"])


def write(folder: Path, manifest: Manifest | None = None) -> tuple[Path, Path]:
    """(Re)write FOLDER/transcript.md and FOLDER/transcript.html: the joined lesson if
    the folder has one, else every clip in lesson order."""
    manifest = manifest or Manifest.load(folder)
    found = timelines(folder, manifest)
    chosen = [t for t in found if t.id == LESSON][:1] or found
    md, page = pages(manifest_lang(folder, manifest), chosen)
    atomic_write_text(folder / MARKDOWN, md)
    atomic_write_text(folder / HTML, page)
    return folder / MARKDOWN, folder / HTML
