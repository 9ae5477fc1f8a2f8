"""The lesson as text (WCAG 1.2.8, media alternative): `transcript.md` and
`transcript.html` beside the gallery, one heading per chapter and one paragraph per beat
with the time it starts in the video, and after it the numbers written on screen during
the beat that its narration does not say (as the render recorded them).

Written from the same timelines the presenter plays: the joined lesson when the folder
has one, else every clip in lesson order.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from lesson.speaker import WRITTEN_NUMBER
from rendering.core import formats
from rendering.core.files import atomic_write_text
from rendering.core.manifest import Manifest
from rendering.publish.presenter import LESSON, Timeline, manifest_lang, timelines
from rendering.publish.web import clock, head, page_colors, plain_text

MARKDOWN = "transcript.md"
HTML = "transcript.html"

UI = {
    "en": {
        "title": "Transcript",
        "video": "video",
        "none": "No clip has been rendered here.",
        "shown": "Also on screen:",
    },
    "zh": {
        "title": "文字稿",
        "video": "视频",
        "none": "这里还没有渲染好的视频。",
        "shown": "画面上另有：",
    },
}
Said = tuple[float, str, list[str]]  # a beat's start, its narration, the numbers it does not say

CSS = """
body { margin: 0 auto; padding: 2rem; max-width: 46rem; background: var(--bg);
  color: var(--fg); font: 17px/1.65 "Noto Sans CJK SC", "Noto Sans", system-ui, sans-serif; }
h1 { font-size: 1.6rem; margin: 0 0 1.5rem; }
h2 { color: var(--accent); font-size: 1.25rem; margin: 2rem 0 .75rem; }
p { margin: 0 0 .9rem; }
.time { color: var(--muted); font-variant-numeric: tabular-nums; margin-right: .5rem; }
.shown { color: var(--muted); margin-top: -.6rem; }
"""


def _value(number: str) -> float:
    return round(float(number.replace("−", "-").replace(",", "").rstrip("%")), 9)


def unsaid(numbers: object, line: str) -> list[str]:
    """The numbers shown (as recorded) that `line` does not say; compared by value, so a
    shown 0.370 is said by 0.37. Nothing from a record that is not a list of numbers."""
    if not isinstance(numbers, list):
        return []
    try:
        said = {_value(n) for n in WRITTEN_NUMBER.findall(line)}
        written = [n for n in numbers if isinstance(n, str) and WRITTEN_NUMBER.fullmatch(n)]
        return [n for n in written if _value(n) not in said]
    except ValueError:
        return []


def shown_at_end(screens: dict[str, object], slug: str, beat: str) -> object:
    """The numbers the render recorded on screen as `beat` of `slug` ended (or None)."""
    screen = screens.get(slug)
    ended = screen.get(beat) if isinstance(screen, dict) else None
    return ended.get("numbers") if isinstance(ended, dict) else None


def sections(chosen: list[Timeline], screens: dict[str, object]) -> list[tuple[str, list[Said]]]:
    """(chapter title, [(start in its video, narration, numbers shown not said)]) of each
    timeline's chapters; `screens` is each clip's recorded screen (slug -> beat -> ...)."""
    out = []
    for tl in chosen:
        for index, chapter in enumerate(tl.chapters):
            said = [
                (b.start, b.say, unsaid(shown_at_end(screens, b.slug, b.key), b.say))
                for b in tl.beats
                if b.chapter == index and b.say
            ]
            out.append((chapter["title"], said))
    return out


def markdown(title: str, parts: list[tuple[str, list[Said]]], ui: dict) -> str:
    lines = [f"# {title}", ""]
    for chapter, said in parts:
        lines += [f"## {chapter}", ""]
        for start, text, numbers in said:
            lines += [f"[{clock(start)}] {text}", ""]
            if numbers:
                lines += [f"*{ui['shown']} {', '.join(numbers)}*", ""]
    if not parts:
        lines += [ui["none"], ""]
    return "\n".join(lines)


def html(lang: str, title: str, parts: list[tuple[str, list[Said]]], ui: dict, colors: dict) -> str:
    body = [f"<h1>{escape(plain_text(title))}</h1>"]
    for chapter, said in parts:
        body.append(f"<section><h2>{escape(plain_text(chapter))}</h2>")
        for start, text, numbers in said:
            body.append(
                f'<p><span class="time">{clock(start)}</span>{escape(plain_text(text))}</p>'
            )
            if numbers:
                body.append(
                    f'<p class="shown">{escape(ui["shown"])} {escape(", ".join(numbers))}</p>'
                )
        body.append("</section>")
    if not parts:
        body.append(f"<p>{escape(ui['none'])}</p>")
    return "\n".join(
        [
            head(lang, title, **colors),
            f"<style>{CSS}</style></head><body><main>",
            *body,
            "</main></body></html>",
            "",
        ]
    )


def screens_of(manifest: Manifest) -> dict[str, object]:
    """slug -> what its clip's render recorded on screen, beat by beat."""
    return {
        slug: variants[formats.MAIN].screen
        for slug, variants in manifest.entries().items()
        if formats.MAIN in variants
    }


def pages(lang: str, chosen: list[Timeline], manifest: Manifest) -> tuple[str, str]:
    """The transcript of these timelines as (Markdown, HTML)."""
    from lesson.catalogue import lookup

    ui = UI[lang]
    title = f"{lookup(lang, 'lesson-intro', 'title')} · {ui['title']}"
    parts = sections(chosen, screens_of(manifest))
    return markdown(title, parts, ui), html(lang, title, parts, ui, page_colors(manifest))


def write(folder: Path, manifest: Manifest | None = None) -> tuple[Path, Path]:
    """(Re)write FOLDER/transcript.md and FOLDER/transcript.html: the joined lesson if
    the folder has one, else every clip in lesson order."""
    manifest = manifest or Manifest.load(folder)
    found = timelines(folder, manifest)
    chosen = [t for t in found if t.id == LESSON][:1] or found
    md, page = pages(manifest_lang(folder, manifest), chosen, manifest)
    atomic_write_text(folder / MARKDOWN, md)
    atomic_write_text(folder / HTML, page)
    return folder / MARKDOWN, folder / HTML
