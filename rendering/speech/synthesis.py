"""Speech made from words or from a recording, shaped alike and cached by what made it.

Every piece is trimmed of its silences, brought to the target loudness and cached as
a 48 kHz WAV, named by a hash of what made it (text, engine, voice file, speed; or the
recording's bytes) and of this module's code and all it imports.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rendering.core import keys
from rendering.speech import audio
from rendering.speech.base import stream_digest
from scenes.text_layout import sentences

SENTENCE_GAP = 0.3  # seconds of silence between two sentences of one beat
MAX_TAKE = 300.0  # seconds: far longer than any beat, short enough to decode in memory
# What the English engines should say for symbols the captions show (the captions keep
# the symbols). Chinese lines go through rendering.speech.zh_frontend, which reads them all.
SPOKEN = {
    "en": (
        ("2π/ω", "two pi over omega"),
        ("2^k", "two to the k"),
        ("sin–cos", "sine and cosine"),
        ("θ", "theta"),
        ("ω", "omega"),
        ("π", "pi"),
        ("–", " to "),
        ("+", " plus "),
        ("/", " over "),
        ("RoPE", "rope"),  # said as the word, as people say it
    ),
}
# The code that shapes cached speech, traced from here: a change to it makes new entries.
SHAPING = keys.hash_of(keys.sources(__name__))


@dataclass(frozen=True)
class Piece:
    """One stretch of speech inside a beat: a sentence, or a whole recording."""

    text: str
    file: str  # the cached WAV ("" while not yet synthesised)
    offset: float  # seconds after the beat starts
    seconds: float
    digest: str


# f(x) is read "f of x" in English
_APPLIED = re.compile(r"\b([A-Za-z]+)\(([^()]*)\)")


def spoken(text: str, lang: str) -> str:
    """The text an engine reads: symbols written out as words."""
    if lang == "en":
        text = _APPLIED.sub(
            lambda m: f"{' '.join(m[1]) if m[1].isupper() else m[1]} of {m[2]}", text
        )
    for symbol, words in SPOKEN.get(lang, ()):
        text = text.replace(symbol, words)
    return " ".join(text.split())


def digest_of(*parts: str) -> str:
    """The name of a cached piece of speech: what made it, and the code that shaped it."""
    return hashlib.sha256(json.dumps([SHAPING, *parts]).encode()).hexdigest()[:24]


def cached(cache_dir: Path, digest: str, make, synthesize: bool) -> tuple[str, float]:
    """The cached WAV for `digest` (made by `make()` when missing) and its length."""
    path = cache_dir / f"{digest}.wav"
    if not path.exists():
        if not synthesize:
            return "", 0.0
        audio.write_wav(path, make())
    return str(path), audio.wav_seconds(path)


def shape(samples: np.ndarray) -> np.ndarray:
    return audio.normalise(audio.trim(samples))


def synthesised(
    engine, text: str, lang: str, cache_dir: Path, synthesize: bool = True
) -> tuple[Piece, ...]:
    """One beat's line spoken by `engine`, a piece per sentence, SENTENCE_GAP apart."""
    pieces, offset = [], 0.0
    for sentence in sentences(text, lang):
        words = spoken(sentence, lang)
        digest = digest_of(engine.identity, words)

        def make(words=words):
            samples, rate = engine.speak(words)
            return shape(audio.from_rate(samples, rate))

        file, seconds = cached(cache_dir, digest, make, synthesize)
        if pieces and seconds:
            offset += SENTENCE_GAP
        pieces.append(Piece(sentence, file, round(offset, 4), seconds, digest))
        offset += seconds
    return tuple(pieces)


def recording_digest(path: Path) -> str:
    return digest_of("recording", stream_digest(path, 64))


def shaped_recording(path: Path, target: Path) -> tuple[audio.Take, np.ndarray]:
    """A teacher's take decoded, shaped and written to `target`: (as recorded, as shaped)."""
    raw = audio.decode_take(path, MAX_TAKE)
    shaped = shape(raw.samples)
    audio.write_wav(target, shaped)
    return raw, shaped
