"""present.html per output folder: teach live from the rendered video, one beat per key press.

The page plays lesson.mp4 (or one clip, `present.html#clock-hands`) full-window on a
dark page and stops at every beat boundary the manifest recorded. Everything it
needs is inlined: the beats and chapters, each beat's narration line (for the
presenter-notes view, `?notes`) and the subtitle cues of both languages (added as
text tracks by the page, since a page opened from file:// may not load .vtt files).
It makes no request outside its folder and uses no framework. When the folder has the
explorer (explore.html, rendering/publish/explorer.py) the page links it: key E opens it. The same
timelines serve `render.py slides` (rendering/publish/slides.py).
"""

from __future__ import annotations

import re
import reprlib
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path

from lesson import questions
from lesson.catalogue import LANGS, CatalogueError
from lesson.say import line as narration_line
from rendering.core import formats
from rendering.core.door import command
from rendering.core.files import atomic_write_text
from rendering.core.manifest import ClipEntry, Manifest
from rendering.publish import web

NAME = web.PRESENT
TEMPLATE = "present.html"  # in templates/; {{head}} and /*DATA*/ are filled in
LESSON = "lesson"
EXPLORE = web.EXPLORE  # the explorer beside it, linked when present
BACKDROP = "#000"  # around the letterboxed video, instead of the palette's background
UI = {
    "en": {
        "beat": "beat {n} of {of}",
        "now": "Now",
        "next": "Next",
        "end": "End of the video",
        "missing": "Nothing named “{id}” here. Present:",
        "empty": f"Nothing to present here yet: run `{command()} render --all --lesson`.",
        "help": "→/Space next beat · ← back · Home/End · 0–99 chapter · F fullscreen · "
        "C captions · B blank · Q question, answer · P audience window (notes)",
        "question": "Question",
        "answer": "Answer: ",
        "no_question": "No question for this chapter",
        "lesson": "The whole lesson",
        "explore": "E explorer",
        "explore_link": "Explore the encoding",
    },
    "zh": {
        "beat": "第 {n} 段，共 {of} 段",
        "now": "当前",
        "next": "下一段",
        "end": "视频结束",
        "missing": "这里没有“{id}”。可以演示：",
        "empty": f"这里还没有可演示的内容：运行 `{command()} render --all --lesson`。",
        "help": "→/空格 下一段 · ← 上一段 · Home/End · 0–99 章节 · F 全屏 · "
        "C 字幕 · B 黑屏 · Q 提问、答案 · P 观众窗口（备注视图）",
        "question": "提问",
        "answer": "答案：",
        "no_question": "本章没有提问",
        "lesson": "完整课程",
        "explore": "E 探索器",
        "explore_link": "探索位置编码",
    },
}


class PresenterError(RuntimeError):
    """A timeline cannot be built; the message names the problem and the fix."""


@dataclass
class Beat:
    key: str
    slug: str
    start: float  # seconds in the video
    chapter: int  # index into the timeline's chapters
    n: int  # 1-based within its chapter
    of: int  # beats in its chapter
    say: str  # the narration line, in the folder's language


@dataclass
class Timeline:
    """One presentable video: the lesson or a clip, with its beats in video time."""

    id: str
    title: str
    file: str
    sources: list[tuple[str, str]]
    poster: str | None
    width: int
    height: int
    fps: int
    duration: float
    chapters: list[dict]  # {slug, title, start, end}
    beats: list[Beat]
    cues: dict[str, list[tuple[float, float, str]]] = field(default_factory=dict)

    def ends(self) -> list[float]:
        """Where each beat ends: the next beat's start, the last one at the video's end."""
        starts = [b.start for b in self.beats]
        return [*starts[1:], self.duration]


# ------------------------------------------------------------------ timelines
def _say(lang: str, slug: str, key: str, start: float, end: float, cues, knobs) -> str:
    """A beat's narration line at the clip's knobs: the catalogue's, else the subtitle
    text shown during it."""
    try:
        return narration_line(lang, slug, key, knobs.get(slug))
    except CatalogueError:
        inside = [text for a, _, text in cues if start - 1e-3 <= a < end - 1e-3]
        sep = "" if lang == "zh" else " "
        return sep.join(t.replace("\n", sep) for t in inside)


def _fix_beats(raw, slug: str, offset: float, chapter: int, length: float) -> list[list]:
    beats = []
    for item in raw or []:
        try:
            key, t = str(item[0]), float(item[1])
        except (TypeError, ValueError, IndexError):
            continue
        if 0 <= t < length + 1e-6:
            beats.append([key, slug, round(offset + t, 6), chapter])
    beats.sort(key=lambda b: b[2])
    return beats or [["start", slug, round(offset, 6), chapter]]


def _number(beats: list[list], lang: str, cues, duration: float, knobs: dict) -> list[Beat]:
    out = []
    for i, (key, slug, start, chapter) in enumerate(beats):
        same = [b for b in beats if b[3] == chapter]
        end = beats[i + 1][2] if i + 1 < len(beats) else duration
        n = next(j for j, b in enumerate(same, 1) if b is beats[i])
        out.append(
            Beat(
                key,
                slug,
                start,
                chapter,
                n,
                len(same),
                _say(lang, slug, key, start, end, cues, knobs),
            )
        )
    return out


def read_vtt(path: Path) -> list[tuple[float, float, str]]:
    """(start, end, cue text) of a WebVTT file as rendering/speech/captions.py writes it."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    cues = []
    for block in re.split(r"\n\s*\n", text.replace("\r\n", "\n")):
        lines = block.strip("\n").split("\n")
        for i, line in enumerate(lines):
            m = re.match(r"\s*([\d:.]+)\s+-->\s+([\d:.]+)", line)
            if m:
                cues.append((_secs(m.group(1)), _secs(m.group(2)), "\n".join(lines[i + 1 :])))
                break
    return cues


def _secs(stamp: str) -> float:
    parts = [float(p) for p in stamp.split(":")]
    return round(sum(p * 60**i for i, p in enumerate(reversed(parts))), 3)


def _cues(folder: Path, files: dict[str, str]) -> dict[str, list]:
    return {lang: read_vtt(folder / files[lang]) for lang in LANGS if lang in files}


def _playable(folder: Path, variants: dict[str, ClipEntry]) -> tuple[ClipEntry, list] | None:
    """The entry whose video the page plays, and its (file, type) sources; mp4 first."""
    present = {v: e for v, e in variants.items() if (folder / e.file).exists()}
    sources = web.video_sources(present)
    if not sources:
        return None
    entry = next(e for e in present.values() if e.file == sources[0][0])
    return entry, sources


def clip_timeline(folder: Path, manifest: Manifest, slug: str) -> Timeline:
    lang = manifest.data.get("lang", "en")
    variants = manifest.entries().get(slug)
    if not variants:
        raise PresenterError(
            f"no clip {slug!r} in {folder}; render it first ({command()} render {slug})"
        )
    found = _playable(folder, variants)
    if found is None:
        raise PresenterError(
            f"{slug} has no mp4 or webm video in {folder}; render it with --format mp4"
        )
    entry, sources = found
    title = entry.titles.get(lang) or entry.title or slug
    cues = _cues(folder, entry.captions.get("vtt", {}))
    raw = _fix_beats(entry.beats, slug, 0.0, 0, entry.duration)
    return Timeline(
        slug,
        title,
        entry.file,
        sources,
        entry.poster,
        entry.width,
        entry.height,
        entry.fps,
        entry.duration,
        [{"slug": slug, "title": title, "start": 0.0, "end": entry.duration}],
        _number(raw, lang, cues.get(lang, []), entry.duration, {slug: entry.knobs()}),
        cues,
    )


def _knobs(manifest: Manifest) -> dict:
    """slug -> the knobs its mp4 was rendered at."""
    return {
        slug: e[formats.MAIN].knobs() for slug, e in manifest.entries().items() if formats.MAIN in e
    }


def lesson_timeline(folder: Path, manifest: Manifest) -> Timeline:
    """lesson.mp4 with every chapter's beats moved to where its clip starts.

    A chapter whose clip was re-rendered to another length since the lesson was
    joined keeps a single beat at its start (run `render --lesson` to join it again).
    """
    lang = manifest.data.get("lang", "en")
    record = manifest.lesson
    if not record or not (folder / record.file).exists():
        raise PresenterError(
            f"no lesson.mp4 in {folder}; join it with `{command()} render --all --lesson`"
        )
    variant = record.variant
    fps = record.fps
    beats: list[list] = []
    chapters = []
    for i, chapter in enumerate(record.chapters):
        start, end = chapter.start, chapter.end
        entry = manifest.entry(chapter.slug, variant)
        chapters.append(
            {
                "slug": chapter.slug,
                "title": chapter.title,
                "number": entry.order if entry is not None else i,  # as the intro card numbers it
                "start": start,
                "end": end,
            }
        )
        same = (
            entry is not None
            and abs(float(Fraction(entry.frames, entry.fps)) - (end - start)) < 2e-3
        )
        beats += _fix_beats(entry.beats if same else [], chapter.slug, start, i, end - start)
    cues = _cues(folder, record.captions.get("vtt", {}))
    duration = record.duration
    return Timeline(
        LESSON,
        UI.get(lang, UI["en"])["lesson"],
        record.file,
        web.lesson_sources(record.file),
        record.poster,
        record.width,
        record.height,
        fps,
        duration,
        chapters,
        _number(beats, lang, cues.get(lang, []), duration, _knobs(manifest)),
        cues,
    )


def manifest_lang(folder: Path, manifest: Manifest) -> str:
    """The language FOLDER's manifest says its lesson is in; an error naming the file and
    the value if it is not one of the lesson's."""
    lang = manifest.data.get("lang", "en")
    if lang not in LANGS:
        raise PresenterError(
            f"{folder / 'manifest.json'} says lang {reprlib.repr(lang)}, which is neither "
            f"{' nor '.join(LANGS)}; render into the folder again"
        )
    return lang


def timeline(folder: Path, ident: str = LESSON, manifest: Manifest | None = None) -> Timeline:
    """The lesson (`ident` "lesson") or one clip (its slug) of FOLDER."""
    if not (folder / "manifest.json").is_file():
        raise PresenterError(
            f"{folder} has no manifest.json; render into it first ({command()} render --all)"
        )
    manifest = manifest or Manifest.load(folder)
    manifest_lang(folder, manifest)
    if ident == LESSON:
        return lesson_timeline(folder, manifest)
    return clip_timeline(folder, manifest, ident)


def timelines(folder: Path, manifest: Manifest) -> list[Timeline]:
    """Everything presentable in FOLDER: the lesson first, then each clip in order."""
    out = []
    if manifest.lesson:
        try:
            out.append(lesson_timeline(folder, manifest))
        except (PresenterError, KeyError, TypeError, ValueError):
            pass
    entries = manifest.entries()
    order = sorted(entries, key=lambda s: (min(e.order for e in entries[s].values()), s))
    for slug in order:
        try:
            out.append(clip_timeline(folder, manifest, slug))
        except PresenterError:
            continue
    return out


# ------------------------------------------------------------------ the page
def page_data(folder: Path, manifest: Manifest) -> dict:
    lang = manifest.data.get("lang", "en")
    items = []
    for t in timelines(folder, manifest):
        d = asdict(t)
        d["beats"] = [
            {k: v for k, v in asdict(b).items() if k != "key"} | {"key": b.key} for b in t.beats
        ]
        items.append(d)
    explore = EXPLORE if (folder / EXPLORE).is_file() else None
    return {
        "lang": lang,
        "ui": UI.get(lang, UI["en"]),
        "items": items,
        "explore": explore,
        "questions": chapter_questions(manifest),
    }


def chapter_questions(manifest: Manifest) -> dict[str, list[dict]]:
    """slug -> its checkpoint questions in the folder's language, answered at the knobs
    its clip was rendered with."""
    lang = manifest.data.get("lang", "en")
    out = {}
    for slug, params in _knobs(manifest).items():
        asked = questions.questions(slug, lang, params)
        if asked:
            out[slug] = [
                {
                    "id": q.id,
                    "kind": q.kind,
                    "prompt": q.prompt,
                    "choices": list(q.choices),
                    "answer": q.answer_text,
                    "key": q.answer,  # the right choice's index, or the number
                    "tolerance": q.tolerance,
                    "reason": q.reason,
                }
                for q in asked
            ]
    return out


def render_html(folder: Path, manifest: Manifest) -> str:
    lang = manifest.data.get("lang", "en")
    title = f"pe-explainer · {folder.name} · present"
    return (
        web.template(TEMPLATE)
        .replace("{{head}}", web.head(lang, title, bg=BACKDROP))
        .replace("/*DATA*/null", web.json_for_script(page_data(folder, manifest)))
    )


def write(folder: Path) -> Path:
    """(Re)write FOLDER/present.html from FOLDER/manifest.json."""
    path = folder / NAME
    atomic_write_text(path, render_html(folder, Manifest.load(folder)))
    return path
