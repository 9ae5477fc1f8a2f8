"""index.html per output folder, from its manifest.json: preview every clip, copy its embed code.

The page is self-contained (inline CSS and JS, no network) and uses relative links, so
the folder can be copied to a course server as it is. Every value from the manifest is
HTML-escaped. Each clip gets a <video> with the poster, its mp4/webm sources and one
subtitle <track> per language; the whole lesson, when joined, comes first with its
chapters. Each video links to present.html (rendering/publish/presenter.py), written beside the
gallery, which plays it one beat per key press. The page links explore.html, the live
explorer of the encoding (rendering/publish/explorer.py), when the folder has one. After a run,
`publish` writes the explorer from the run's knobs, rewrites the galleries of the folders
the run touched and reports the explorer's and the GIFs' sizes.
"""

from __future__ import annotations

import json
import sys
from html import escape
from pathlib import Path

from rich.console import Console
from rich.table import Table

from lesson.catalogue import LANGS
from rendering.core import formats
from rendering.core.door import command
from rendering.core.files import atomic_write_text
from rendering.core.jobs import by_folder
from rendering.core.manifest import ClipEntry, LessonRecord, Manifest
from rendering.publish import accessibility, explorer, presenter, transcript
from rendering.publish.web import (
    GALLERY,
    clock,
    head,
    human_bytes,
    lesson_sources,
    page_colors,
    video_sources,
)

NAME = GALLERY
PRESENT = presenter.NAME
EXPLORE = explorer.NAME
LANG_LABELS = {"zh": "中文", "en": "English"}
UI = {
    "en": {
        "lesson": "The whole lesson",
        "chapters": "Chapters",
        "clips": "Clips",
        "duration": "duration",
        "voice": "voice",
        "silent": "silent",
        "params": "parameters",
        "none": "none",
        "files": "files",
        "embed": "embed",
        "copy": "Copy",
        "copied": "Copied",
        "empty": f"Nothing rendered here yet: run `{command()} render --all`.",
        "present": "Present",
        "present_hint": "full window, one beat per key press; ?notes for a second screen",
        "explore": "Explore the encoding",
        "explore_hint": "drag the position, d_model and base; every number comes from pe_math",
        "transcript": "Transcript",
        "transcript_hint": "every spoken line, by chapter, with its time",
        "a11y": "Accessibility report",
        "a11y_hint": "what a machine checked against WCAG 2.1 AA, and what a person must",
    },
    "zh": {
        "lesson": "完整课程",
        "chapters": "章节",
        "clips": "片段",
        "duration": "时长",
        "voice": "配音",
        "silent": "无声",
        "params": "参数",
        "none": "无",
        "files": "文件",
        "embed": "嵌入代码",
        "copy": "复制",
        "copied": "已复制",
        "empty": f"这里还没有渲染结果：运行 `{command()} render --all`。",
        "present": "演示",
        "present_hint": "全窗口，每按一次键播放一段；加 ?notes 为第二块屏幕显示备注",
        "explore": "探索位置编码",
        "explore_hint": "拖动位置、d_model 和底数；每个数字都来自 pe_math",
        "transcript": "文字稿",
        "transcript_hint": "按章节列出每一句旁白和它的时间",
        "a11y": "无障碍报告",
        "a11y_hint": "机器按 WCAG 2.1 AA 查过的项目，以及仍需人来判断的",
    },
}

CSS = """
body { margin: 0; padding: 2rem; background: var(--bg); color: var(--fg);
  font: 16px/1.5 "Noto Sans CJK SC", "Noto Sans", system-ui, sans-serif; }
h1 { margin: 0 0 .25rem; font-size: 1.6rem; }
h2 { margin: 2rem 0 1rem; color: var(--accent); font-size: 1.25rem; }
h3 { margin: .5rem 0; font-size: 1.1rem; }
.meta, .muted { color: var(--muted); font-size: .9rem; }
.grid { display: grid; gap: 1.5rem; grid-template-columns: repeat(auto-fill, minmax(420px, 1fr)); }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 1rem; }
video, img.gif { width: 100%; height: auto; background: #000; border-radius: 6px; }
.lesson video { max-width: 960px; }
table { border-collapse: collapse; font-size: .85rem; }
td, th { padding: .1rem .6rem .1rem 0; text-align: left; vertical-align: top; }
th { color: var(--muted); font-weight: normal; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .8rem; }
pre { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: .6rem;
  overflow-x: auto; white-space: pre; margin: .4rem 0; }
button { background: var(--line); color: var(--fg); border: 0; border-radius: 4px;
  padding: .2rem .7rem; cursor: pointer; }
button:hover { background: var(--accent); color: var(--bg); }
ol.chapters { padding-left: 1.4rem; }
ol.chapters a { color: var(--fg); }
ol.chapters a:hover { color: var(--accent); }
a { color: var(--accent); }
"""

JS = """
document.querySelectorAll("button.copy").forEach(function (b) {
  b.addEventListener("click", function () {
    var code = document.getElementById(b.dataset.target).textContent;
    var done = function () { var t = b.textContent; b.textContent = b.dataset.done;
      setTimeout(function () { b.textContent = t; }, 1200); };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(code).then(done, function () {});
    } else {
      var r = document.createRange(); r.selectNodeContents(document.getElementById(b.dataset.target));
      var s = window.getSelection(); s.removeAllRanges(); s.addRange(r);
      try { document.execCommand("copy"); done(); } catch (e) {}
    }
  });
});
document.querySelectorAll("a[data-seek]").forEach(function (a) {
  a.addEventListener("click", function (ev) {
    ev.preventDefault();
    var v = document.getElementById(a.dataset.video);
    v.currentTime = parseFloat(a.dataset.seek); v.play().catch(function () {});
  });
});
"""


def _attr(value) -> str:
    return escape(str(value), quote=True)


def video_tag(
    sources: list[tuple[str, str]],
    poster: str | None,
    tracks: dict[str, str],
    lang: str,
    width: int,
    height: int,
    chapters: str | None = None,
    element_id: str | None = None,
) -> str:
    """A <video> element with sources and subtitle tracks; also the copy-paste snippet."""
    attrs = [f'controls preload="metadata" width="{int(width)}" height="{int(height)}"']
    if element_id:
        attrs.append(f'id="{_attr(element_id)}"')
    if poster:
        attrs.append(f'poster="{_attr(poster)}"')
    lines = [f"<video {' '.join(attrs)}>"]
    lines += [f'  <source src="{_attr(src)}" type="{_attr(mime)}">' for src, mime in sources]
    for track_lang in LANGS:
        if track_lang in tracks:
            default = " default" if track_lang == lang else ""
            lines.append(
                f'  <track kind="subtitles" srclang="{_attr(track_lang)}" '
                f'label="{_attr(LANG_LABELS.get(track_lang, track_lang))}" '
                f'src="{_attr(tracks[track_lang])}"{default}>'
            )
    if chapters:
        lines.append(f'  <track kind="chapters" srclang="{_attr(lang)}" src="{_attr(chapters)}">')
    lines.append("</video>")
    return "\n".join(lines)


def _params_table(params: dict, ui: dict) -> str:
    if not params:
        return f'<p class="muted">{escape(ui["params"])}: {escape(ui["none"])}</p>'
    rows = "".join(
        f"<tr><th>{escape(str(k))}</th><td><code>{escape(json.dumps(v, ensure_ascii=False))}"
        "</code></td></tr>"
        for k, v in sorted(params.items())
    )
    return f'<table class="params"><caption class="muted">{escape(ui["params"])}</caption>{rows}</table>'


def _files_list(variants: dict[str, ClipEntry], ui: dict) -> str:
    items = []
    for variant, e in sorted(variants.items()):
        items.append(
            f'<a href="{_attr(e.file)}">{escape(e.file)}</a> '
            f'<span class="muted">{escape(variant)}, {escape(human_bytes(e.bytes))}, '
            f"{int(e.width)}×{int(e.height)}</span>"
        )
    return (
        f'<p class="muted">{escape(ui["files"])}:</p><ul><li>'
        + "</li><li>".join(items)
        + "</li></ul>"
    )


def _snippet(code: str, ident: str, ui: dict) -> str:
    return (
        f'<p class="muted">{escape(ui["embed"])} '
        f'<button class="copy" data-target="{_attr(ident)}" data-done="{_attr(ui["copied"])}">'
        f"{escape(ui['copy'])}</button></p>"
        f'<pre id="{_attr(ident)}" tabindex="0">{escape(code)}</pre>'
    )


def shown_first() -> list[str]:
    """The variants a clip's card shows, best first: the plain videos, the captioned ones,
    then the images."""
    playable = [f.name for f in formats.every() if f.playable]
    images = [f.name for f in formats.every() if not f.playable]
    return playable + [f"{name}.captioned" for name in playable] + images


def moving_images() -> list[formats.Format]:
    return [f for f in formats.every() if f.moving and not f.playable]


def _clip_card(slug: str, variants: dict[str, ClipEntry], lang: str, ui: dict) -> str:
    main = next(iter(sorted(variants.values(), key=lambda e: e.file)))
    for variant in shown_first():
        if variant in variants:
            main = variants[variant]
            break
    title = main.titles.get(lang) or main.title or slug
    head = (
        f"<h3>{int(main.order):02d} · {escape(title)}</h3>"
        f'<p class="meta">{escape(slug)} · {escape(ui["duration"])} '
        f"{escape(clock(main.duration))} ({main.duration:.2f} s)</p>"
        f"{_voice_line(main, ui)}"
    )
    sources = video_sources(variants)
    body = ""
    if sources:
        with_video = next(e for e in variants.values() if e.file == sources[0][0])
        tracks = with_video.captions.get("vtt", {})
        args = (sources, with_video.poster, tracks, lang, with_video.width, with_video.height)
        tag = video_tag(*args, element_id=f"clip-{slug}")
        body += tag.replace("<video ", f'<video data-slug="{_attr(slug)}" ', 1)
        body += _present_link(slug, ui)
        body += _snippet(video_tag(*args), f"embed-{slug}", ui)
    elif gif := next((variants[f.name] for f in moving_images() if f.name in variants), None):
        body += f'<img class="gif" src="{_attr(gif.file)}" alt="{_attr(title)}">'
        body += _snippet(
            f'<img src="{_attr(gif.file)}" alt="{_attr(title)}" '
            f'width="{int(gif.width)}" height="{int(gif.height)}">',
            f"embed-{slug}",
            ui,
        )
    else:
        body += f'<img class="gif" src="{_attr(main.file)}" alt="{_attr(title)}">'
    body += _params_table(main.params, ui) + _files_list(variants, ui)
    return f'<article class="card" id="{_attr(slug)}">{head}{body}</article>'


def _present_link(ident: str, ui: dict) -> str:
    """A link to the presenter page (present.html) showing this video."""
    return (
        f'<p class="meta"><a class="present" href="{_attr(PRESENT)}#{_attr(ident)}">'
        f"{escape(ui['present'])} ▸</a> {escape(ui['present_hint'])}</p>"
    )


def _voice_line(entry: ClipEntry, ui: dict) -> str:
    """Who spoke the clip, with the licence note of each voice."""
    voice = entry.voice or "silent"
    if voice == "silent":
        return f'<p class="meta voice">{escape(ui["voice"])}: {escape(ui["silent"])}</p>'
    notes = "; ".join(c.licence for c in entry.voice_cards if c.licence)
    return (
        f'<p class="meta voice" title="{_attr(notes)}">{escape(ui["voice"])}: {escape(voice)}</p>'
    )


def _lesson_section(record: LessonRecord, lang: str, ui: dict) -> str:
    args = (
        lesson_sources(record.file),
        record.poster,
        record.captions.get("vtt", {}),
        lang,
        record.width,
        record.height,
    )
    tag = video_tag(*args, chapters=record.chapters_vtt, element_id="lesson")
    snippet = video_tag(*args, chapters=record.chapters_vtt)
    chapters = "".join(
        f'<li><a href="#lesson" data-video="lesson" data-seek="{c.start:.3f}">'
        f"{escape(c.title)}</a> "
        f'<span class="muted">{escape(clock(c.start))}</span></li>'
        for c in record.chapters
    )
    return (
        f'<section class="lesson card"><h2>{escape(ui["lesson"])}</h2>'
        f'<p class="meta">{escape(record.file)} · {escape(ui["duration"])} '
        f"{escape(clock(record.duration))} · "
        f"{escape(human_bytes(record.bytes))}</p>{tag}"
        f"{_present_link('lesson', ui)}"
        f'<h3>{escape(ui["chapters"])}</h3><ol class="chapters">{chapters}</ol>'
        f"{_snippet(snippet, 'embed-lesson', ui)}</section>"
    )


def render_html(manifest: Manifest) -> str:
    data = manifest.data
    lang = data.get("lang", "en")
    ui = UI.get(lang, UI["en"])
    folder = manifest.folder
    clips = {
        slug: {v: e for v, e in variants.items() if (folder / e.file).exists()}
        for slug, variants in manifest.entries().items()
    }
    clips = {s: v for s, v in clips.items() if v}
    order = sorted(clips, key=lambda s: (min(e.order for e in clips[s].values()), s))
    parts = [
        head(lang, f"pe-explainer · {lang} · {folder.name}", **page_colors(manifest)),
        f"<style>{CSS}</style></head><body>",
        f"<h1>pe-explainer · {escape(folder.name)}</h1>",
        f'<p class="meta">{escape(LANG_LABELS.get(lang, lang))} · {escape(str(data.get("quality", "")))}'
        f" · {escape(str(data.get('aspect', '')))}</p>",
    ]
    if (folder / EXPLORE).is_file():
        parts.append(
            f'<p class="meta"><a class="explore" href="{_attr(EXPLORE)}">'
            f"{escape(ui['explore'])} ▸</a> {escape(ui['explore_hint'])}</p>"
        )
    for page, name in ((transcript.HTML, "transcript"), (accessibility.HTML_NAME, "a11y")):
        if (folder / page).is_file():
            parts.append(
                f'<p class="meta"><a href="{_attr(page)}">{escape(ui[name])}'
                f"</a> {escape(ui[name + '_hint'])}</p>"
            )
    record = manifest.lesson
    if record and (folder / record.file).exists():
        parts.append(_lesson_section(record, lang, ui))
    parts.append(f"<h2>{escape(ui['clips'])}</h2>")
    if order:
        parts.append('<div class="grid">')
        parts += [_clip_card(slug, clips[slug], lang, ui) for slug in order]
        parts.append("</div>")
    else:
        parts.append(f'<p class="muted">{escape(ui["empty"])}</p>')
    parts.append(f"<script>{JS}</script></body></html>")
    return "\n".join(parts) + "\n"


def write(folder: Path) -> Path:
    """(Re)write FOLDER/index.html and, beside it, present.html and the transcript from
    FOLDER/manifest.json."""
    path = folder / NAME
    manifest = Manifest.load(folder)
    transcript.write(folder, manifest)
    atomic_write_text(path, render_html(manifest))
    presenter.write(folder)
    return path


def publish(jobs: list, root: Path, console: Console) -> None:
    """After a run: write each output folder's explorer and gallery; report their sizes."""
    for folder, folder_jobs in by_folder(jobs, root).items():
        manifest = Manifest.load(folder)  # the pages below write beside it, not into it
        if folder.exists():
            try:
                colors = page_colors(manifest)
                written = explorer.write(folder, folder_jobs[0].params, folder_jobs[0].lang, colors)
            except explorer.ExplorerError as exc:
                print(f"error: explorer: {exc}", file=sys.stderr)
            else:
                console.print(f"explorer: {explorer.report(written)}")
                for note in written.notes:
                    console.print(f"explorer: note: {note}")
            said = accessibility.refresh(folder)
            console.print(f"gallery: {write(folder)}")
            if said:
                console.print(f"a11y: {said}")
        gif_entries = [
            e
            for job in folder_jobs
            if (e := manifest.entry(job.slug, job.variant)) and formats.get(e.format).for_slides
        ]
        rows = size_report(gif_entries)
        if rows:
            table = Table(title=f"GIF sizes ({folder.name})")
            for col in ("file", "size", "pixels@fps", "duration"):
                table.add_column(col)
            for row in rows:
                table.add_row(*row)
            total = sum(e.bytes for e in gif_entries)
            table.caption = f"total {human_bytes(total)}"
            console.print(table)


def size_report(entries: list) -> list[tuple[str, str, str, str]]:
    """Rows (file, size, pixels@fps, duration) for the GIFs of a run, for the summary."""
    rows = []
    for e in entries:
        if not formats.get(e.format).for_slides:
            continue
        rows.append(
            (
                e.file,
                human_bytes(e.bytes),
                f"{e.width}x{e.height}@{e.fps}",
                f"{e.duration:.1f}s",
            )
        )
    return rows
