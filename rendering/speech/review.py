"""`render.py listen`: what a speech recogniser hears in rendered clips and recordings,
beat by beat, against the line each beat should say."""

from __future__ import annotations

import math
import reprlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pe_math import Params
from rendering.core import formats, settings
from rendering.core.door import command
from rendering.core.manifest import NAME, Manifest
from rendering.speech import audio, listen, narration
from rendering.speech.synthesis import shape

PAD = 0.15  # seconds kept around a beat's speech when it is cut from a clip
SPAN_SLACK = 0.1  # seconds a span may end past the clip's sound (rounding, codec frames)
UNIT = {"zh": "syllables", "en": "words"}
SILENT, NOISE, SPEECH = "silent", "no speech", "speech"
_shown = reprlib.Repr()
_shown.maxstring = _shown.maxother = _shown.maxlong = 40
_shown.maxlist = _shown.maxdict = 4


class ClipError(RuntimeError):
    """A rendered clip, or its manifest entry, that cannot be listened to; the message
    names the file or the field and how to make it again."""


@dataclass(frozen=True)
class Hearing:
    scene: str
    beat: str
    source: str  # the clip or the recording listened to
    error: float
    heard: str
    line: str
    sound: str = SPEECH  # SILENT, NOISE (no speech heard) or SPEECH
    toned_error: float | None = None  # zh: syllables heard wrong, a wrong tone included

    @property
    def recording(self) -> bool:
        clip = formats.by_extension(Path(self.source).suffix)
        return clip is None or clip.audio_codec is None

    @property
    def flagged(self) -> bool:
        return self.sound != SPEECH or self.error > listen.WRONG_TAKE

    def problem(self, lang: str) -> str:
        where = self.source if self.recording else f"{self.source} at beat {self.beat}"
        fix = "; record it again" if self.recording else ""
        if self.sound == SILENT:
            return f"{where} is silent{fix}"
        if self.sound == NOISE:
            return f"{where}: no speech heard{fix}"
        share = f"{min(self.error, 1.0):.0%} of {UNIT[lang]} differ"
        if self.recording:
            return f"{self.source} does not say its line: {share}; wrong take?"
        return f"{where} is hard to understand: {share}"


def clip_folder(output: Path, lang: str, quality: str, aspect: str) -> Path:
    return output / lang / settings.folder_name(quality, aspect)


def clip_knobs(slug: str, folder: Path) -> Params:
    """The knobs the clip of `slug` in `folder` was rendered at, else the lesson's."""
    entry = Manifest.load(folder).entry(slug, formats.MAIN)
    return entry.knobs() if entry is not None else Params.load()


def clip_hearings(
    slug: str, lang: str, folder: Path, threads: int = 1, render_options: str = ""
) -> Iterator[Hearing]:
    """Each spoken beat of the rendered clip of `slug`, cut out and transcribed.

    `render_options` are those of `render.py render` that make this folder's clips
    (e.g. " -q m --output media"), for the command a ClipError gives.
    """
    entry = Manifest.load(folder).entry(slug, formats.MAIN)
    if entry is None or entry.speech == {}:
        return
    again = f"render it again: {command()} render {slug} --lang {lang}{render_options} --force"
    field = f"{folder / NAME}: clips.{slug}.mp4"
    lines = narration.beat_lines(slug, lang, entry.knobs())
    spans = _speech_spans(entry.speech, list(lines), field, again)
    clip = _clip_file(folder, entry.file, field, again)
    samples = _clip_sound(clip, again)
    seconds = len(samples) / audio.RATE
    for beat, beat_spans in spans.items():
        if beat_spans[-1][1] > seconds + SPAN_SLACK:
            raise ClipError(
                f"{field}.speech.{beat} ends at {beat_spans[-1][1]:g} s, past the clip's "
                f"{seconds:.1f} s of sound; {again}"
            )
    for beat, beat_spans in spans.items():  # in the order the beats are spoken
        a = max(0, round((beat_spans[0][0] - PAD) * audio.RATE))
        b = round((beat_spans[-1][1] + PAD) * audio.RATE)
        yield hearing(slug, beat, str(clip), samples[a:b], lines[beat], lang, threads)


def _speech_spans(
    speech: object, beats: list[str], field: str, again: str
) -> dict[str, list[tuple[float, float]]]:
    """The [start, end] seconds of each beat's speech, in `beats`' order, checked."""
    if not isinstance(speech, dict):
        raise ClipError(f"{field}.speech is {_shown.repr(speech)}, not a table of beats; {again}")
    out = {}
    for beat in beats:
        spans = speech.get(beat)
        if spans is None or spans == []:
            continue
        pairs = spans if isinstance(spans, list) else [None]
        if not all(_span(pair) for pair in pairs):
            raise ClipError(
                f"{field}.speech.{beat} is {_shown.repr(spans)}, not a list of "
                f"[start, end] seconds; {again}"
            )
        out[beat] = [(float(a), float(b)) for a, b in pairs]
    return out


def _span(pair: object) -> bool:
    """Whether `pair` is [start, end]: two finite seconds, 0 <= start <= end."""
    if not isinstance(pair, list) or len(pair) != 2:
        return False
    if not all(isinstance(x, int | float) and not isinstance(x, bool) for x in pair):
        return False
    a, b = pair
    return math.isfinite(a) and math.isfinite(b) and 0 <= a <= b


def _clip_file(folder: Path, file: object, field: str, again: str) -> Path:
    """The clip an entry names, refused when it is not a file inside `folder`."""
    try:
        home = folder.resolve()
        path = (folder / file).resolve() if isinstance(file, str) and file else home
    except (OSError, RuntimeError, TypeError, ValueError):  # a link loop, a NUL byte
        home = path = folder
    if path == home or not path.is_relative_to(home):
        raise ClipError(f"{field}.file is {_shown.repr(file)}, not a file in {folder}; {again}")
    return folder / file


def _clip_sound(clip: Path, again: str) -> np.ndarray:
    """The clip's sound, whole, or a ClipError saying that it is missing or broken."""
    if not clip.exists():
        raise ClipError(f"{clip} is missing; {again}")
    if not clip.is_file():
        raise ClipError(f"{clip} is broken: it is not a file; {again}")
    if clip.stat().st_size == 0:
        raise ClipError(f"{clip} is broken: it is empty; {again}")
    try:
        return audio.decode(clip, whole=True)
    except audio.AudioError as exc:
        raise ClipError(f"{clip} is broken: it {exc.reason}; {again}") from None


def recording_hearings(
    slug: str, lang: str, voice_dir: Path, threads: int = 1, params: Params | None = None
) -> Iterator[Hearing]:
    """Each of the teacher's recordings of `slug`, trimmed as a render trims it, and
    transcribed against its lines at `params`."""
    for beat, line in narration.beat_lines(slug, lang, params).items():
        path = narration.recording_for(voice_dir, lang, slug, beat)
        if path is None:
            continue
        try:
            samples = audio.decode(path, narration.MAX_TAKE)
        except audio.AudioError as exc:
            raise narration.NarrationError(str(exc)) from None
        yield hearing(slug, beat, str(path), shape(samples), line, lang, threads)


def hearing(
    slug: str, beat: str, source: str, samples: np.ndarray, line: str, lang: str, threads: int
) -> Hearing:
    """What is heard in `samples` of one beat, against its line."""
    reference = narration.spoken(line, lang)
    zh = lang == "zh"  # tones count in a second score
    if audio.speech_span(samples) is None:
        missed = listen.error_rate(reference, "", lang)
        return Hearing(slug, beat, source, missed, "", line, SILENT, missed if zh else None)
    heard = listen.transcribe(samples, audio.RATE, lang, threads).text
    error = listen.error_rate(reference, heard, lang)
    sound = SPEECH
    if error > listen.WRONG_TAKE and (
        not listen.units(heard, lang) or not listen.hears_speech(samples, audio.RATE)
    ):
        sound = NOISE
    tones = listen.error_rate(reference, heard, lang, tones=True) if zh else None
    return Hearing(slug, beat, source, error, heard, line, sound, tones)
