"""lesson.mp4: every clip of a folder joined in lesson order, one chapter per scene.

The clips of one folder share codec, size and rate, so their packets are copied
into one file with shifted timestamps (no re-encoding). If they do not (clips left
over from an older render with other encoder settings), the frames are decoded and
encoded once more. Chapters are written with PyAV's `set_chapters` (an mp4 gets a
QuickTime chapter track and a Nero `chpl` atom; a webm gets Matroska chapters) and
read back before the file counts. Lesson-level subtitles in both languages, a
WebVTT chapters track and a chapter list for a video description (chapters.txt) are
written beside it, and the manifest records it all.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import av
import numpy as np

from lesson.catalogue import LANGS
from rendering.core import formats
from rendering.core.files import atomic_write_text, replacing
from rendering.core.jobs import by_folder
from rendering.core.manifest import (
    ChapterMark,
    ClipEntry,
    LessonRecord,
    Manifest,
    video_facts,
)
from rendering.core.validate import InvalidOutput, check_video, signature
from rendering.publish.web import clock
from rendering.speech import audio, captions

STEM = "lesson"
CHAPTERS_VTT = "chapters.vtt"
CHAPTER_LIST = "chapters.txt"  # for a video platform's description
_MS = Fraction(1, 1000)


class LessonError(RuntimeError):
    """The lesson cannot be joined; the message says why and what to do."""


Chapter = ChapterMark  # a clip's place in the lesson: the manifest's record of it


def marks(chapters) -> list[tuple[float, float, str]]:
    """(start, end, title) of each chapter, as the chapter files and the container take them."""
    return [(c.start, c.end, c.title) for c in chapters]


def filename(variant: str) -> str:
    """`lesson.mp4` for the plain variant, `lesson.captioned.mp4` for burned-in captions."""
    fmt, _, middle = variant.partition(".")
    return f"{STEM}.{middle}.{fmt}" if middle else f"{STEM}.{fmt}"


def lesson_key(variant: str, entries: list[ClipEntry]) -> str:
    blob = json.dumps([variant, [(e.slug, e.key, e.bytes) for e in entries]])
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def build(
    folder: Path, slugs: list[str], variant: str = formats.MAIN, force: bool = False
) -> LessonRecord:
    """Join the clips `slugs` (in lesson order) of `folder`; returns the manifest's lesson record.

    Skips the work when the recorded lesson was joined from exactly these clips.
    """
    fmt = _joinable_format(variant)
    manifest = Manifest.load(folder)
    entries = _intact_clips(manifest, folder, slugs, variant)
    entries.sort(key=lambda e: (e.order, e.slug))
    key = lesson_key(variant, entries)
    name = filename(variant)
    old = manifest.lesson
    if not force and old and old.key == key and old.intact(folder):
        if not (folder / CHAPTER_LIST).exists():  # a folder joined before the list was written
            write_chapter_list(folder, marks(old.chapters))
        return old

    lang = manifest.data.get("lang", "en")
    chapters: list[Chapter] = []
    t = Fraction(0)
    for e in entries:
        length = Fraction(e.frames, 1) / Fraction(e.fps)
        chapters.append(Chapter(e.slug, e.titles[lang], float(t), float(t + length)))
        t += length

    target = folder / name
    with replacing(target, suffix=f".{fmt}") as tmp:  # PyAV picks the container by name
        files = [folder / e.file for e in entries]
        starts = [Fraction(c.start).limit_denominator(10**6) for c in chapters]
        track = lesson_track(folder, entries)
        method = join(files, starts, tmp, marks(chapters), track)
        first = entries[0]
        checked = check_video(tmp, first.width, first.height, first.fps)
        expected = sum(e.frames for e in entries)
        if checked.frames != expected:
            raise InvalidOutput(f"{name} has {checked.frames} frames, expected {expected}")
        if track is not None:
            audio.check_sound(tmp, checked.duration, first.fps)
        found = read_chapters(tmp)
        if [title for _, _, title in found] != [c.title for c in chapters]:
            raise InvalidOutput(f"{name}: chapters read back as {found}")

    subtitles = write_subtitles(folder, entries, chapters, lang)
    atomic_write_text(folder / CHAPTERS_VTT, captions.chapters_vtt(marks(chapters)))
    write_chapter_list(folder, marks(chapters))
    record = LessonRecord(
        **video_facts(target, checked, first.fps, first.poster),
        variant=variant,
        key=key,
        joined=method,
        chapters=tuple(replace(c, start=round(c.start, 3), end=round(c.end, 3)) for c in chapters),
        chapters_vtt=CHAPTERS_VTT,
        voice=tuple(sorted({e.voice for e in entries})),
        captions=subtitles,
    )
    with Manifest.update(folder) as manifest:
        manifest.lesson = record
    return record


def _joinable_format(variant: str) -> str:
    """The variant's container format; LessonError unless clips of it can be joined."""
    fmt = variant.partition(".")[0]
    joinable = [f.name for f in formats.every() if f.joinable]
    if fmt not in joinable or ".alpha" in variant:
        raise LessonError(
            f"a lesson joins opaque {' or '.join(joinable)} clips, not {variant}; "
            f"render with --format {joinable[0]} (or {', '.join(joinable[1:])}) "
            "and without --transparent"
        )
    return fmt


def _intact_clips(
    manifest: Manifest, folder: Path, slugs: list[str], variant: str
) -> list[ClipEntry]:
    """The manifest's entries of the clips `slugs`; LessonError if one is missing or broken,
    or none was asked for."""
    entries = []
    missing = []
    for slug in slugs:
        entry = manifest.entry(slug, variant)
        if entry is None or not entry.intact(folder):
            missing.append(slug)
        else:
            entries.append(entry)
    if missing:
        raise LessonError(
            f"cannot join the lesson: no whole {variant} clip for {', '.join(missing)}; "
            "render them first (render --all)"
        )
    if not entries:
        raise LessonError("cannot join the lesson: no clips were chosen")
    return entries


def join_folders(jobs: list, root: Path, console, force: bool = False) -> list[str]:
    """Join the lesson in every output folder the jobs wrote; one-line problems back."""
    errors = []
    for folder, folder_jobs in by_folder(jobs, root).items():
        variant = folder_jobs[0].variant
        slugs = [j.slug for j in folder_jobs if j.variant == variant]
        try:
            record = build(folder, slugs, variant, force=force)
        except (LessonError, OSError, ValueError) as exc:
            errors.append(f"lesson: {exc}")
            continue
        console.print(
            f"lesson: {folder / record.file} ({clock(record.duration)}, "
            f"{len(record.chapters)} chapters, {record.joined})"
        )
    return errors


def write_chapter_list(folder: Path, marks: list[tuple[float, float, str]]) -> None:
    atomic_write_text(folder / CHAPTER_LIST, captions.chapter_list(marks))


def lesson_track(folder: Path, entries: list[ClipEntry]) -> np.ndarray | None:
    """The lesson's sound: each clip's sound, cut or padded to its picture, end to end.

    Joining decoded samples rather than coded packets keeps every clip's sound exactly
    as long as its frames, so nothing drifts however many clips there are. None when
    no clip has sound.
    """
    if not any(e.sound for e in entries):
        return None
    parts = []
    for e in entries:
        length = round(Fraction(e.frames) / Fraction(e.fps) * audio.RATE)
        samples = audio.decode(folder / e.file) if e.sound else np.zeros(0, np.float32)
        part = np.zeros(length, np.float32)
        part[: min(length, len(samples))] = samples[:length]
        parts.append(part)
    return np.concatenate(parts)


def write_subtitles(
    folder: Path, entries: list[ClipEntry], chapters: list[Chapter], voice_lang: str
) -> dict:
    """lesson.<lang>.vtt/.srt: every clip's cues, shifted to where the clip starts.

    The clips speak `voice_lang`: its cues follow their recorded sentence times.
    """
    by_lang: dict[str, list[captions.Cue]] = {}
    for lang in LANGS:
        cues: list[captions.Cue] = []
        for e, chapter in zip(entries, chapters, strict=True):
            spoken = e.speech if lang == voice_lang else None
            clip = captions.cues_for(
                [(k, float(t)) for k, t in e.beats], e.duration, e.slug, lang, spoken, e.knobs()
            )
            cues.extend(c.shifted(chapter.start) for c in clip)
        by_lang[lang] = cues
    return captions.write_cues(folder, STEM, by_lang)


# ------------------------------------------------------------------ joining
def join(
    files: list[Path],
    starts: list[Fraction],
    out: Path,
    chapters: list[tuple[float, float, str]],
    track: np.ndarray | None = None,
) -> str:
    """Write `files` one after another into `out`, with `track` as its sound if given.

    Returns "remux" or "reencode" (how the pictures were joined).
    """
    same = len({signature(f) for f in files}) == 1
    fmt = formats.by_extension(out.suffix)
    with av.open(str(out), "w", options=fmt.mux_options) as container:
        with av.open(str(files[0])) as first:
            template = first.streams.video[0]
            rate = template.average_rate
            if same:
                stream = container.add_stream_from_template(template)
            else:
                stream = container.add_stream(fmt.video_codec, rate=rate, options={"crf": "23"})
                stream.width = template.codec_context.width
                stream.height = template.codec_context.height
                stream.pix_fmt = "yuv420p"
        container.set_chapters(
            [
                {
                    "id": i + 1,
                    "start": round(a * 1000),
                    "end": round(b * 1000),
                    "time_base": _MS,
                    "metadata": {"title": title},
                }
                for i, (a, b, title) in enumerate(chapters)
            ]
        )
        sound = None
        if track is not None:
            sound = audio.sound_stream(container, fmt)
        if same:
            _remux(files, starts, container, stream)
        else:
            _reencode(files, container, stream, rate)
        if sound is not None:
            audio.encode_samples(container, sound, track)
        return "remux" if same else "reencode"


def _remux(files, starts, container, stream) -> None:
    for path, start in zip(files, starts, strict=True):
        with av.open(str(path)) as clip:
            source = clip.streams.video[0]
            offset = round(start / source.time_base)
            for packet in clip.demux(source):
                if packet.dts is None:  # the flushing packet demux() ends with
                    continue
                packet.pts += offset
                packet.dts += offset
                packet.stream = stream
                container.mux(packet)


def _reencode(files, container, stream, rate) -> None:
    n = 0
    step = 1 / Fraction(rate)
    for path in files:
        with av.open(str(path)) as clip:
            for frame in clip.decode(video=0):
                frame = frame.reformat(stream.width, stream.height, "yuv420p")
                frame.pts, frame.time_base = n, step
                n += 1
                for packet in stream.encode(frame):
                    container.mux(packet)
    for packet in stream.encode():
        container.mux(packet)


def read_chapters(path: Path) -> list[tuple[float, float, str]]:
    """The chapters stored in a media file: (start, end, title) in seconds."""
    with av.open(str(path)) as c:
        return [
            (
                float(ch["start"] * ch["time_base"]),
                float(ch["end"] * ch["time_base"]),
                ch["metadata"].get("title", ""),
            )
            for ch in c.chapters()
        ]
