"""`render.py listen`: what a speech recogniser hears in rendered clips and recordings,
beat by beat, against the line each beat should say."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pe_math import Params
from rendering.core import settings
from rendering.core.manifest import Manifest
from rendering.speech import audio, listen, narration

PAD = 0.15  # seconds kept around a beat's speech when it is cut from a clip
UNIT = {"zh": "syllables", "en": "words"}


@dataclass(frozen=True)
class Hearing:
    scene: str
    beat: str
    source: str  # the clip or the recording listened to
    error: float
    heard: str
    line: str

    @property
    def recording(self) -> bool:
        return not self.source.endswith((".mp4", ".webm"))

    @property
    def flagged(self) -> bool:
        return self.error > listen.WRONG_TAKE

    def problem(self, lang: str) -> str:
        share = f"{min(self.error, 1.0):.0%} of {UNIT[lang]} differ"
        if self.recording:
            return f"{self.source} does not say its line: {share}; wrong take?"
        return f"{self.source} at beat {self.beat} is hard to understand: {share}"


def clip_folder(output: Path, lang: str, quality: str, aspect: str) -> Path:
    return output / lang / settings.folder_name(quality, aspect)


def clip_knobs(slug: str, folder: Path) -> Params:
    """The knobs the clip of `slug` in `folder` was rendered at, else the lesson's."""
    entry = Manifest.load(folder).entry(slug, "mp4")
    return entry.knobs() if entry is not None else Params.load()


def clip_hearings(slug: str, lang: str, folder: Path, threads: int = 1) -> Iterator[Hearing]:
    """Each spoken beat of the rendered clip of `slug`, cut out and transcribed."""
    entry = Manifest.load(folder).entry(slug, "mp4")
    if entry is None or not entry.speech:
        return
    clip = folder / entry.file
    samples = audio.decode(clip)
    lines = narration.beat_lines(slug, lang, entry.knobs())
    for beat in lines:  # in the order the beats are spoken
        spans = entry.speech.get(beat)
        if not spans:
            continue
        a = max(0, round((spans[0][0] - PAD) * audio.RATE))
        b = round((spans[-1][1] + PAD) * audio.RATE)
        heard = listen.transcribe(samples[a:b], audio.RATE, lang, threads)
        yield _hearing(slug, beat, str(clip), heard.text, lines[beat], lang)


def recording_hearings(
    slug: str, lang: str, voice_dir: Path, threads: int = 1, params: Params | None = None
) -> Iterator[Hearing]:
    """Each of the teacher's recordings of `slug`, transcribed against its lines at `params`."""
    for beat, line in narration.beat_lines(slug, lang, params).items():
        path = narration.recording_for(voice_dir, lang, slug, beat)
        if path is None:
            continue
        try:
            samples = audio.decode(path, narration.MAX_TAKE)
        except audio.AudioError as exc:
            raise narration.NarrationError(str(exc)) from None
        heard = listen.transcribe(samples, audio.RATE, lang, threads)
        yield _hearing(slug, beat, str(path), heard.text, line, lang)


def _hearing(slug: str, beat: str, source: str, heard: str, line: str, lang: str) -> Hearing:
    reference = narration.spoken(line, lang)
    return Hearing(slug, beat, source, listen.error_rate(reference, heard, lang), heard, line)
