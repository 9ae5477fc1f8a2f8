"""Narration: the speech of every beat of a scene, ready before the scene renders.

Each beat's `say.*` line is split into sentences, and each sentence is spoken on its
own, so subtitles know where every sentence starts and ends. A teacher's recording
at `voice/<lang>/<slug>/<beat>.{wav,flac,mp3,m4a,ogg}` replaces the engine for that
beat. Every piece of speech is trimmed of its silences, brought to the target
loudness and cached as a 48 kHz WAV under `<output>/.speech/`, named by a hash of
what made it (text, engine, voice file, speed; or the recording's bytes). A scene
then knows how long each beat speaks before a frame is drawn.
"""

from __future__ import annotations

import hashlib
import json
import math
import multiprocessing
import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from lesson import say
from lesson.catalogue import path_for
from lesson.text_layout import sentences
from lesson.timing import BREATH
from pe_math import Params
from rendering.core import keys
from rendering.core.files import atomic_write_text, loads
from rendering.core.lifetime import follow_parent
from rendering.speech import audio, listen, voices
from rendering.speech.synthesis import (
    MAX_TAKE,
    Piece,
    digest_of,
    making_new_speech,
    recording_digest,
    sentence_speech,
    shaped_recording,
    spoken,
    synthesised,
    unsaid,
    whole_take,
)

CACHE = ".speech"
RECORDING_TYPES = (".wav", ".flac", ".mp3", ".m4a", ".ogg")
CLIPPED_SHARE = 0.001  # more samples than this at full scale: the recording clipped
TOO_LONG = 3.0  # a recording this many times the engine's length is probably the wrong take
# Sentences to speak before a pool of workers pays: each worker loads the engine (Kokoro:
# its front end and model, a few seconds), so a reworded line or two is spoken here.
POOL_FROM = int(os.environ.get("PE_SPEECH_POOL_FROM") or 8)


class NarrationError(RuntimeError):
    """Speech that cannot be made; the message names the file or the package."""


@dataclass(frozen=True)
class BeatSpeech:
    key: str
    source: str  # the engine that spoke it, or "recorded"
    pieces: tuple[Piece, ...]
    recording: str | None = None
    warnings: tuple[str, ...] = ()
    # [start, end] of each sentence inside a recording, heard by the speech recogniser
    sentences: tuple[tuple[float, float], ...] = ()

    @property
    def seconds(self) -> float:
        return max((p.offset + p.seconds for p in self.pieces), default=0.0)

    @property
    def pending(self) -> bool:
        return any(not p.file for p in self.pieces)


@dataclass(frozen=True)
class Narration:
    slug: str
    lang: str
    beats: tuple[BeatSpeech, ...]
    cards: str = field(default="[]")  # JSON list of the voices' cards (frozen: no dicts)

    def beat(self, key: str) -> BeatSpeech | None:
        return next((b for b in self.beats if b.key == key), None)

    def seconds(self) -> dict[str, float]:
        """How long each beat speaks: what the scene waits out."""
        return {b.key: b.seconds for b in self.beats}

    @property
    def pending(self) -> bool:
        return any(b.pending for b in self.beats)

    def digest(self) -> str:
        if self.pending:
            return "pending"
        blob = json.dumps(
            [
                [b.key, b.source, [[p.digest, round(p.offset, 4)] for p in b.pieces]]
                for b in self.beats
            ]
        )
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def _labels(self) -> list[str]:
        return [
            card["engine"] if card["engine"] == "recorded" else f"{card['engine']} {card['voice']}"
            for card in json.loads(self.cards)
        ]

    @property
    def voice(self) -> str:
        """Who speaks, for people: e.g. "piper en_US-joe-medium" or "espeak-ng cmn + recorded"."""
        return " + ".join(self._labels()) or "silent"

    @property
    def engine_voice(self) -> str:
        """The synthetic voice that speaks the beats nobody recorded ("" when all are)."""
        return next((label for label in self._labels() if label != "recorded"), "")

    @property
    def recorded(self) -> list[str]:
        return [b.key for b in self.beats if b.source == "recorded"]

    @property
    def fell_back(self) -> list[str]:
        return [b.key for b in self.beats if b.source != "recorded"]

    def spans(self, beats: list[tuple[str, float]]) -> dict[str, list[list[float]]]:
        """Clip-time [start, end] of every spoken piece, for beats that start at `beats`."""
        out: dict[str, list[list[float]]] = {}
        for key, start in beats:
            speech = self.beat(key)
            if speech is None:
                continue
            spans = speech.sentences or [(p.offset, p.offset + p.seconds) for p in speech.pieces]
            out[key] = [[round(start + a, 3), round(start + b, 3)] for a, b in spans]
        return out

    def sentence_times(self) -> dict[str, list[tuple[float, float]]]:
        """Beat -> [start, end] of each of its sentences from the beat's start: a voice
        speaks one piece per sentence; a recording's are where the recogniser heard them
        (none when it could not tell)."""
        out = {}
        for speech in self.beats:
            if speech.sentences:
                out[speech.key] = [tuple(span) for span in speech.sentences]
            elif speech.source != "recorded":
                out[speech.key] = [(p.offset, p.offset + p.seconds) for p in speech.pieces]
        return out

    def track(self, beats: list[tuple[str, float]], seconds: float) -> np.ndarray:
        """The clip's sound: every beat's speech from its start, `seconds` long."""
        out = np.zeros(round(seconds * audio.RATE), dtype=np.float32)
        for key, start in beats:
            speech = self.beat(key)
            if speech:
                _mix(out, speech.pieces, start)
        return out


def _mix(out: np.ndarray, pieces: tuple[Piece, ...], start: float) -> None:
    """Add every piece's samples into `out`, from `start` seconds plus its offset."""
    for piece in pieces:
        samples = audio.read_wav(Path(piece.file))
        at = round((start + piece.offset) * audio.RATE)
        end = min(len(out), at + len(samples))
        if end > at:
            out[at:end] += samples[: end - at]


def line_samples(pieces: tuple[Piece, ...]) -> np.ndarray:
    """One line's speech as the lesson plays it: its sentences, SENTENCE_GAP apart."""
    seconds = max((p.offset + p.seconds for p in pieces), default=0.0)
    out = np.zeros(round(seconds * audio.RATE) + 1, dtype=np.float32)
    _mix(out, pieces, 0.0)
    return out


def recording_for(voice_dir: Path, lang: str, slug: str, key: str) -> Path | None:
    """The teacher's recording of one beat, if there is one."""
    folder = voice_dir / lang / slug
    for suffix in RECORDING_TYPES:
        path = folder / f"{key}{suffix}"
        if path.is_file():
            return path
    return None


def recording_name(voice_dir: Path, lang: str, slug: str, key: str) -> str:
    """Where a teacher saves the recording of one beat."""
    return str(voice_dir / lang / slug / f"{key}.wav")


def beat_lines(slug: str, lang: str, params: Params | None = None) -> dict[str, str]:
    """Beat key → narration line at `params` (slots filled), in the catalogue's order."""
    return say.lines(slug, lang, params)


def recorded(
    path: Path, text: str, cache_dir: Path, lang: str = "en"
) -> tuple[Piece, list[str], tuple[tuple[float, float], ...]]:
    """A teacher's recording as one piece, with warnings about how it sounds, and where
    each of its sentences is heard (empty when the recogniser cannot tell)."""
    try:
        audio.refuse_long(path, MAX_TAKE)  # before a byte of a ten-hour take is read
        digest = recording_digest(path)
    except audio.AudioError as exc:
        raise NarrationError(str(exc)) from None
    except OSError as exc:
        raise NarrationError(
            f"{path} cannot be read ({exc.strerror}); check its permissions"
        ) from None
    target = cache_dir / f"{digest}.wav"
    # how it sounds and where its sentences are, kept for cached runs (of this line)
    notes_file = cache_dir / f"{digest_of('notes', _listening(), digest, lang, text)}.json"
    notes = _read_notes(notes_file)
    if whole_take(target) is None or notes is None:
        making_new_speech()
        try:
            raw, shaped = shaped_recording(path, target)
        except audio.AudioError as exc:
            raise NarrationError(str(exc)) from None
        notes = {
            "problems": recording_problems(raw),
            "sentences": _heard_sentences(shaped, text, lang),
        }
        atomic_write_text(notes_file, json.dumps(notes))
    warnings = [f"{path}: {problem}" for problem in notes["problems"]]
    spans = tuple(tuple(span) for span in notes["sentences"] or ())
    return Piece(text, str(target), 0.0, audio.wav_seconds(target), digest), warnings, spans


def _listening() -> str:
    """The digest of the recogniser's code: where it hears sentences is kept in notes."""
    return keys.hash_of(keys.sources("rendering.speech.listen"))


def _read_notes(path: Path) -> dict | None:
    """A take's kept notes, or None when the file is missing or not what was kept (then
    the take is heard again): {"problems": [str], "sentences": None or [[start, end]]}."""
    try:
        notes = loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(notes, dict):
        return None
    problems, spans = notes.get("problems"), notes.get("sentences", 0)
    if not isinstance(problems, list) or not all(isinstance(p, str) for p in problems):
        return None
    if spans is not None and not (isinstance(spans, list) and all(map(_is_span, spans))):
        return None
    return notes


def _is_span(span: object) -> bool:
    return (
        isinstance(span, list)
        and len(span) == 2
        and all(isinstance(t, int | float) and not isinstance(t, bool) for t in span)
        and all(math.isfinite(t) for t in span)
        and span[0] <= span[1]
    )


def _heard_sentences(samples: np.ndarray, text: str, lang: str) -> list[list[float]] | None:
    """Where each sentence of a multi-sentence take is heard, or None."""
    said = sentences(text, lang)
    if len(said) < 2 or audio.speech_span(samples) is None:
        return None
    try:
        heard = listen.transcribe(samples, audio.RATE, lang)
    except (listen.VoiceError, ImportError, RuntimeError):
        return None  # no recogniser here: the cues are spread over the take
    reference = [spoken(s, lang) for s in said]
    return listen.sentence_spans(reference, heard, lang, len(samples) / audio.RATE)


def recording_problems(raw: audio.Take) -> list[str]:
    """What is wrong with how a recording sounds (silent, clipped), in words."""
    if audio.speech_span(raw.samples) is None:
        return ["silent, nothing to hear; record it again"]
    if raw.clipped > CLIPPED_SHARE:
        return [f"clipped ({raw.clipped:.1%} of samples at full scale); record it a little quieter"]
    return []


def narrate(
    slug: str,
    lang: str,
    choice: str,
    specs: dict[str, voices.VoiceSpec],
    voice_dir: Path,
    cache_dir: Path,
    synthesize: bool = True,
    params: Params | None = None,
) -> Narration | None:
    """The speech of every beat of `slug` in `lang`, or None for a silent render.

    `choice` is the `--voice` option: auto and recorded use a teacher's recording where
    one exists and the language's engine elsewhere; piper and espeak always synthesise.
    With `synthesize=False` nothing new is made: missing speech is left pending.
    """
    if choice == "none":
        return None
    lines = beat_lines(slug, lang, params)
    if not lines:
        return None
    use_recordings = choice in ("auto", "recorded")
    cards: dict[str, dict] = {}
    beats = []
    engine = None
    for key, text in lines.items():
        recording = recording_for(voice_dir, lang, slug, key) if use_recordings else None
        if recording is not None:
            piece, warnings, spans = recorded(recording, text, cache_dir, lang)
            beats.append(
                BeatSpeech(key, "recorded", (piece,), str(recording), tuple(warnings), spans)
            )
            cards["recorded"] = voices.RECORDED_CARD
            continue
        if engine is None:
            try:
                engine = voices.engine(voices.spec_for(choice, lang, specs))
            except voices.VoiceError as exc:
                raise NarrationError(str(exc)) from None
        try:
            pieces = synthesised(engine, text, lang, cache_dir, synthesize)
        except voices.VoiceError as exc:  # a voice file that loads only when it first speaks
            raise NarrationError(str(exc)) from None
        missing = unsaid(engine, text, lang)
        warnings = (f"{path_for(lang, slug)} [say] {key}: {missing}",) if missing else ()
        beats.append(BeatSpeech(key, engine.spec.engine, pieces, warnings=warnings))
        cards[engine.spec.engine] = engine.card()
    return Narration(slug, lang, tuple(beats), json.dumps(list(cards.values()), sort_keys=True))


def narrate_scenes(
    slugs: list[str],
    lang: str,
    choice: str,
    specs: dict[str, voices.VoiceSpec],
    voice_dir: Path,
    cache_dir: Path,
    synthesize: bool = True,
    params: Params | None = None,
    advance: Callable[[], None] = lambda: None,
) -> dict[str, Narration | None]:
    """`narrate` for each of `slugs`; the speech not cached yet is made first, on every
    core. `advance` is called as each scene's narration is ready."""
    if synthesize and choice != "none":
        pending = [
            narrate(s, lang, choice, specs, voice_dir, cache_dir, False, params) for s in slugs
        ]
        synthesise_pending([n for n in pending if n], choice, specs, cache_dir)
    out = {}
    for slug in slugs:
        out[slug] = narrate(slug, lang, choice, specs, voice_dir, cache_dir, synthesize, params)
        advance()
    return out


def synthesise_pending(
    narrations: list[Narration], choice: str, specs: dict[str, voices.VoiceSpec], cache_dir: Path
) -> None:
    """Make the speech `narrations` still lack (narrated with synthesize=False), a sentence
    a task, on every core: one engine runs on one core (Kokoro's thread count is fixed)."""
    tasks = {}
    for narration in narrations:
        spec = voices.spec_for(choice, narration.lang, specs)
        for beat in narration.beats:
            for piece in beat.pieces:
                if beat.source != "recorded" and not piece.file:
                    path = str(cache_dir / f"{piece.digest}.wav")
                    tasks[piece.digest] = (spec, piece.text, narration.lang, path)
    workers = min(len(tasks), os.cpu_count() or 1)
    if workers < 2 or len(tasks) < POOL_FROM:
        return  # the narration makes it as it goes, with the one engine it loads
    making_new_speech()
    context = multiprocessing.get_context("spawn")  # the parent may run native threads
    pool = ProcessPoolExecutor(
        workers, mp_context=context, initializer=follow_parent, initargs=(os.getpid(),)
    )
    try:
        list(pool.map(_make_piece, tasks.values()))
    except voices.VoiceError as exc:
        raise NarrationError(str(exc)) from None
    finally:
        _end(pool)


def _end(pool: ProcessPoolExecutor) -> None:
    """End `pool` now: a stop (Ctrl-C, SIGTERM, a hang-up) must not wait for the speech
    still queued, and no worker may outlive the command."""
    processes = list((pool._processes or {}).values())  # no public handle before 3.14
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    deadline = time.monotonic() + 5
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))


def _make_piece(task: tuple[voices.VoiceSpec, str, str, str]) -> None:
    spec, sentence, lang, path = task  # made as `synthesised` makes it, parts and lexicon too
    audio.write_wav(Path(path), sentence_speech(voices.engine(spec), sentence, lang))


@dataclass(frozen=True)
class ScriptRow:
    """One line of a teacher's recording script."""

    scene: str
    beat: str
    text: str
    file: str
    tts_seconds: float
    animation_seconds: float | None
    status: str


def script_rows(
    slug: str,
    lang: str,
    engine_narration: Narration,
    voice_dir: Path,
    cache_dir: Path,
    animation: dict[str, float],
    params: Params | None = None,
) -> list[ScriptRow]:
    """Every beat of `slug`: what to read, where to save it, and how it fits the animation."""
    rows = []
    lines = beat_lines(slug, lang, params)
    for speech in engine_narration.beats:
        key = speech.key
        text = lines[key]
        anim = animation.get(key)
        path = recording_for(voice_dir, lang, slug, key)
        if path is None:
            status = "missing" + _fit(speech.seconds, anim, "the voice")
        else:
            piece, warnings, _ = recorded(path, text, cache_dir, lang)
            notes = [w.partition(": ")[2] for w in warnings]
            if speech.seconds and piece.seconds > TOO_LONG * speech.seconds:
                notes.append(
                    f"far too long ({piece.seconds:.1f} s for about {speech.seconds:.1f} s "
                    "of text); check it is the right take"
                )
            status = "recorded" + _fit(piece.seconds, anim, "it") + "".join(f"; {n}" for n in notes)
        file = str(path) if path else recording_name(voice_dir, lang, slug, key)
        rows.append(ScriptRow(slug, key, text, file, round(speech.seconds, 2), anim, status))
    return rows


def _fit(speech: float, animation: float | None, who: str) -> str:
    """ ", runs 1.2 s past the animation" when the speech needs more time than the beat has."""
    if animation is None or not math.isfinite(animation):
        return ""
    over = speech + BREATH - animation
    return f"; {who} runs {over:.1f} s past the animation" if over > 0.05 else ""
