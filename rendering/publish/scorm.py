"""A course platform's package of the lesson: a SCORM 1.2 or 2004 zip.

The zip holds `imsmanifest.xml`, the player page (`player.html`, everything inline)
and the lesson's media: lesson.mp4, its subtitles in both languages and its poster.
In an LMS the player finds the runtime API the standard way (`API` for 1.2,
`API_1484_11` for 2004, in its parent frames or its opener), keeps the play position
and the chapters seen, resumes there on the next launch, and reports the lesson
completed once every chapter has been seen. A chapter with checkpoint questions
(lesson/questions.py) stops at its end to ask them; each answer is reported as an
interaction and the share answered right as the score. Without an LMS it still
plays, asks, and says that progress is not being recorded.
"""

from __future__ import annotations

import errno
import os
import re
import reprlib
import shutil
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from lesson.catalogue import lookup
from rendering.core import formats
from rendering.core.door import command
from rendering.core.files import replacing
from rendering.core.manifest import Manifest, Recorded
from rendering.publish import accessibility, presenter, transcript, web

FORMATS = ("scorm12", "scorm2004")
PLAYER = "player.html"
TEMPLATE = "scorm_player.html"  # in templates/; {{head}} and /*DATA*/ are filled in
SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
UI = {
    "en": {
        "chapters": "Chapters",
        "captions": "Subtitles",
        "off": "off",
        "unrecorded": "Progress is not being recorded here (no course platform found).",
        "question": "Question",
        "submit": "Answer",
        "right": "Right.",
        "wrong": "Not quite.",
        "answer": "The answer: ",
        "go_on": "Go on",
        "keys": "Space play/pause · →/← next/previous chapter · Home/End · 0–9 chapter · "
        "C subtitles · F fullscreen",
        "transcript": "Transcript (opens a new tab)",
    },
    "zh": {
        "chapters": "章节",
        "captions": "字幕",
        "off": "关",
        "unrecorded": "这里不会记录学习进度（没有找到课程平台）。",
        "question": "提问",
        "submit": "回答",
        "right": "答对了。",
        "wrong": "不太对。",
        "answer": "答案：",
        "go_on": "继续",
        "keys": "空格 播放/暂停 · →/← 下一章/上一章 · Home/End · 0–9 章节 · C 字幕 · F 全屏",
        "transcript": "文字稿（在新标签页打开）",
    },
}
LABELS = {"zh": "中文", "en": "English"}


class PackageError(RuntimeError):
    """A package cannot be made; the message names the problem and the fix."""


@dataclass(frozen=True)
class Contents:
    """What one package plays: the lesson, or a single clip as a one-chapter lesson."""

    name: str  # in the zip's name: "" for the lesson, else the clip's stem
    title: str
    video: str
    poster: str | None
    captions: dict[str, str]  # lang -> vtt file
    chapters: list[dict]
    duration: float
    recorded: Recorded | None = None  # the manifest's record of the video
    again: str = ""  # the command that makes the video again


def package_name(folder: Path, fmt: str, contents: Contents) -> str:
    """e.g. pe-explainer-en-720p30.scorm12.zip, or ...-720p30-clock-hands.scorm12.zip
    for one clip: the language, folder and clip it was made from."""
    clip = f"-{contents.name}" if contents.name else ""
    return f"pe-explainer-{folder.parent.name}-{folder.name}{clip}.{fmt}.zip"


def lesson_contents(folder: Path, manifest: Manifest, lang: str) -> Contents:
    record = manifest.lesson
    if not record or not (folder / record.file).is_file():
        raise PackageError(
            f"no lesson.mp4 in {folder}; join it with `{command()} render --all --lesson`"
        )
    chapters = [
        {"slug": c.slug, "title": web.plain_text(c.title), "start": c.start, "end": c.end}
        for c in record.chapters
    ]
    return Contents(
        "",
        web.plain_text(lookup(lang, "lesson-intro", "title")),
        record.file,
        record.poster,
        dict(record.captions.get("vtt", {})),
        chapters,
        record.duration,
        record,
        f"{command()} render --all --lesson",
    )


def clip_contents(folder: Path, manifest: Manifest, lang: str, slug: str) -> Contents:
    entry = manifest.entry(slug, formats.MAIN)
    if entry is None or not (folder / entry.file).is_file():
        raise PackageError(
            f"no mp4 clip of {slug!r} in {folder}; render it first ({command()} render {slug})"
        )
    title = web.plain_text(entry.titles.get(lang) or entry.title or slug)
    chapter = {"slug": slug, "title": title, "start": 0.0, "end": entry.duration}
    return Contents(
        Path(entry.file).stem,
        title,
        entry.file,
        entry.poster,
        dict(entry.captions.get("vtt", {})),
        [chapter],
        entry.duration,
        entry,
        f"{command()} render {slug}",
    )


def build(folder: Path, fmt: str, out_dir: Path, slug: str | None = None) -> Path:
    """Write the package of FOLDER's lesson (or of its clip `slug`) into out_dir,
    atomically; returns its path."""
    if fmt not in FORMATS:
        raise PackageError(f"unknown package format {fmt!r}; use one of {', '.join(FORMATS)}")
    if not (folder / "manifest.json").is_file():
        raise PackageError(f"{folder} has no manifest.json; render the lesson into it first")
    manifest = Manifest.load(folder)
    try:
        lang = presenter.manifest_lang(folder, manifest)
    except presenter.PresenterError as exc:
        raise PackageError(str(exc)) from None
    contents = (
        clip_contents(folder, manifest, lang, slug)
        if slug
        else lesson_contents(folder, manifest, lang)
    )
    media = [contents.video, *contents.captions.values()]
    if contents.poster:
        media.append(contents.poster)
    for name in media:
        check_media(folder, name)  # before reading any of them (the player holds the cues)
    if contents.recorded is not None and not contents.recorded.intact(folder):
        raise PackageError(
            f"{folder / contents.video} is not the video its manifest recorded (cut short or "
            f"changed since); render it again ({contents.again})"
        )
    shown = {c["slug"] for c in contents.chapters}
    asked = {k: v for k, v in presenter.chapter_questions(manifest).items() if k in shown}
    player = player_html(folder, contents, lang, fmt, asked, web.page_colors(manifest))
    _, text = transcript.pages(
        lang, [presenter.timeline(folder, slug or presenter.LESSON, manifest)], manifest
    )
    try:
        report = accessibility.check(folder, [c["slug"] for c in contents.chapters])
    except accessibility.NothingToCheck as exc:
        raise PackageError(str(exc)) from None
    checked = accessibility.texts(report)
    files = [PLAYER, transcript.HTML, *checked, *media]
    target = out_dir / package_name(folder, fmt, contents)
    check_target(target)
    with replacing(target, suffix=".zip") as tmp:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("imsmanifest.xml", manifest_xml(fmt, contents.title, files))
            z.writestr(PLAYER, player)
            z.writestr(transcript.HTML, text)
            for name, page in checked.items():
                z.writestr(name, page)
            for name in media:
                add_media(z, folder, name)
    return target


def check_target(target: Path) -> None:
    """A file can be written at TARGET: its folder is not a file, and it is not a folder."""
    if target.parent.exists() and not target.parent.is_dir():
        raise PackageError(
            f"{target.parent} is a file, not a folder; move it away to make packages"
        )
    if target.is_dir():
        raise PackageError(f"{target} is a folder; move it away to write the package there")


def check_media(folder: Path, name: object) -> Path:
    """FOLDER/name, if it may go into a package: a plain file name of a regular file of
    the lesson's own. A link is refused, lest its target's bytes go in; with no "/" in
    the name, nothing else can lead outside FOLDER."""
    path = folder / name if isinstance(name, str) and SAFE_NAME.match(name) else None
    if path is not None and path.is_symlink():
        raise _link(path)
    if path is not None and not path.exists():
        raise PackageError(f"{path} is missing; render the lesson again to write it")
    if path is None or not path.is_file():
        raise PackageError(
            f"{reprlib.repr(name)} cannot go into a package: it must be a plain file name "
            f"(letters, digits, . _ -) of a file beside the lesson in {folder}"
        )
    return path


def _link(path: Path) -> PackageError:
    return PackageError(
        f"{path} is a link; a package takes only the lesson's own files: "
        "put the file itself in its place, or render the lesson again"
    )


def add_media(z: zipfile.ZipFile, folder: Path, name: str) -> None:
    """Store FOLDER/name as it is (a video is compressed already), read through a
    descriptor that does not follow a link: a file swapped for one after the check
    is refused, not followed."""
    path = check_media(folder, name)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _link(path) from None
        raise
    with open(fd, "rb") as src:
        st = os.fstat(fd)
        info = zipfile.ZipInfo(name, time.localtime(st.st_mtime)[:6])
        info.external_attr = (st.st_mode & 0xFFFF) << 16
        info.file_size = st.st_size
        with z.open(info, "w") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)


def player_html(
    folder: Path, contents: Contents, lang: str, fmt: str, asked: dict, colors: dict
) -> str:
    """The package's page: the video, its chapters and questions, in the clips' colours."""
    data = {
        "version": "1.2" if fmt == "scorm12" else "2004",
        "lang": lang,
        "ui": UI.get(lang, UI["en"]),
        "video": contents.video,
        "poster": contents.poster,
        "captions": [
            {
                "lang": code,
                "label": LABELS.get(code, code),
                "src": src,
                "cues": presenter.read_vtt(folder / src),
            }
            for code, src in sorted(contents.captions.items())
        ],
        "chapters": contents.chapters,
        "duration": contents.duration,
        "questions": asked,  # slug -> its checkpoint questions, asked as its chapter ends
    }
    return (
        web.template(TEMPLATE)
        .replace("{{head}}", web.head(lang, contents.title, **colors))
        .replace("/*DATA*/null", web.json_for_script(data))
    )


# ----------------------------------------------------------------- imsmanifest.xml
_SCHEMAS = {
    "scorm12": (
        'xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2" '
        'xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"',
        "<schema>ADL SCORM</schema><schemaversion>1.2</schemaversion>",
        'adlcp:scormtype="sco"',
    ),
    "scorm2004": (
        'xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" '
        'xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"',
        "<schema>ADL SCORM</schema><schemaversion>2004 4th Edition</schemaversion>",
        'adlcp:scormType="sco"',
    ),
}


def manifest_xml(fmt: str, title: str, files: list[str]) -> str:
    namespaces, metadata, sco = _SCHEMAS[fmt]
    title = escape(web.plain_text(title))
    listed = "".join(f"<file href={quoteattr(name)}/>" for name in files)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<manifest identifier="pe-explainer-lesson" version="1" {namespaces}>'
        f"<metadata>{metadata}</metadata>"
        '<organizations default="pe-explainer">'
        f'<organization identifier="pe-explainer"><title>{title}</title>'
        f'<item identifier="lesson" identifierref="player"><title>{title}</title></item>'
        "</organization></organizations>"
        f'<resources><resource identifier="player" type="webcontent" {sco} href="{PLAYER}">'
        f"{listed}</resource></resources></manifest>\n"
    )
