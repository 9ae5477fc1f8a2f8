"""Speech made from words or from a recording, shaped alike and cached by what made it.

Every piece is trimmed of its silences, brought to the target loudness and cached as
a 48 kHz WAV, named by a hash of what made it (text, engine, voice file, speed; or the
recording's bytes) and of this module's code and all it imports.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lesson.text_layout import clauses, sentences
from rendering.core import keys
from rendering.speech import audio
from rendering.speech.base import stream_digest

SENTENCE_GAP = 0.3  # seconds of silence between two sentences of one beat
# Characters an engine is given at once: the lesson's longest sentence has 210. A longer
# one is said in parts, PART_GAP apart, so no engine is asked for minutes in one pass.
MAX_PART = 250
PART_GAP = 0.15
MAX_TAKE = 300.0  # seconds: far longer than any beat, short enough to decode in memory
# What the English engines should say for symbols the captions show (the captions keep
# the symbols). Chinese lines go through rendering.speech.zh_frontend, which reads them all.
SPOKEN = {
    "en": (
        ("2π/ω", "two pi over omega"),
        ("2^k", "two to the k"),
        ("2^i", "two to the i"),
        ("sin–cos", "sine and cosine"),
        ("θ", "theta"),
        ("ω", "omega"),
        ("π", "pi"),
        ("–", " to "),
        ("−", " minus "),  # the front end reads "−0.7" as "minus zero. seven hundred"
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


def spoken(text: str, lang: str, keep: frozenset[str] = frozenset()) -> str:
    """The text an engine reads: symbols written out as words, except the words in `keep`
    (those the engine's lexicon says how to read)."""
    if lang == "en":
        text = _APPLIED.sub(
            lambda m: f"{' '.join(m[1]) if m[1].isupper() else m[1]} of {m[2]}", text
        )
    for symbol, words in SPOKEN.get(lang, ()):
        if symbol not in keep:
            text = text.replace(symbol, words)
    return " ".join(text.split())


def digest_of(*parts: str) -> str:
    """The name of a cached piece of speech: what made it, and the code that shaped it."""
    return hashlib.sha256(json.dumps([SHAPING, *parts]).encode()).hexdigest()[:24]


_before_new: list[Callable[[], None]] = []
# what may make a sentence's shaped samples instead of this process: (engine, sentence,
# lang, SHAPING) -> samples or None. Registered from outside, so that how another process
# is asked stays out of the code that names cached speech.
_made_elsewhere: list[Callable[..., np.ndarray | None]] = []


def made_elsewhere(maker: Callable[..., np.ndarray | None]) -> None:
    """Ask `maker` first for each sentence this process would speak."""
    if maker not in _made_elsewhere:
        _made_elsewhere.append(maker)


def before_new_speech(callback: Callable[[], None]) -> None:
    """Run `callback` once, when this process starts making speech it had not cached."""
    _before_new.append(callback)


def making_new_speech() -> None:
    while _before_new:
        _before_new.pop()()


def cached(cache_dir: Path, digest: str, make, synthesize: bool) -> tuple[str, float]:
    """The cached WAV for `digest` (made by `make()` when missing or damaged) and its length."""
    path = cache_dir / f"{digest}.wav"
    seconds = whole_take(path)
    if seconds is None:
        if not synthesize:
            return "", 0.0
        making_new_speech()
        audio.write_wav(path, make())
        seconds = audio.wav_seconds(path)
    return str(path), seconds


def whole_take(path: Path) -> float | None:
    """The length of the cached take at `path`, or None when it must be made: a damaged
    one is removed, with a note, so that nothing reads it again."""
    seconds = audio.take_seconds(path)
    if seconds is None and os.path.lexists(path):
        print(f"note: {path} was damaged; it is made again", file=sys.stderr)
        path.unlink()
    return seconds


def shape(samples: np.ndarray) -> np.ndarray:
    return audio.normalise(audio.trim(samples))


def parts(words: str, lang: str, limit: int = MAX_PART) -> list[str]:
    """`words` in pieces of at most `limit` characters, cut at its pauses; a clause
    longer than that is cut at a space, else between a word or number and what follows,
    else anywhere."""
    if len(words) <= limit:
        return [words] if words else []
    pieces: list[str] = []
    for clause in clauses(words, lang):
        while len(clause) > limit:
            at = _break_at(clause, limit)
            pieces.append(clause[:at].strip())
            clause = clause[at:].strip()
        pieces.append(clause)
    sep = "" if lang == "zh" else " "
    out: list[str] = []
    for piece in filter(None, pieces):
        if out and len(out[-1]) + len(sep) + len(piece) <= limit:
            out[-1] += sep + piece
        else:
            out.append(piece)
    return out


def _break_at(text: str, limit: int) -> int:
    """Where to cut `text` (longer than `limit`) at or before `limit`."""
    window = range(limit, limit // 2, -1)
    spaced = next((i for i in window if text[i].isspace()), None)
    if spaced is not None:
        return spaced
    return next((i for i in window if not (_in_word(text[i - 1]) and _in_word(text[i]))), limit)


def _in_word(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def said_in_parts(engine, words: str, lang: str) -> np.ndarray:
    """`words` spoken by `engine` a part at a time, at audio.RATE."""
    gap = np.zeros(round(PART_GAP * audio.RATE), np.float32)
    out: list[np.ndarray] = []
    for part in parts(words, lang):
        if out:
            out.append(gap)
        out.append(audio.from_rate(*engine.speak(part)))
    return np.concatenate(out) if out else np.zeros(0, np.float32)


def visible(text: str) -> str:
    """`text` without the characters nobody sees or hears: zero-width spaces and joiners,
    direction marks and other format and control characters (tabs and line ends stay)."""
    return "".join(ch for ch in text if ch in "\t\n\r" or unicodedata.category(ch)[0] != "C")


def foreign(text: str) -> list[str]:
    """What an English voice cannot read in `text`: letters of scripts other than Latin and
    Greek, and pictographs (it would name them, "Chinese letter", or drop them)."""
    return [
        ch
        for ch in text
        if unicodedata.category(ch) == "So"
        or (ch.isalpha() and not unicodedata.name(ch, "").startswith(("LATIN", "GREEK")))
    ]


def unsaid(engine, text: str, lang: str) -> str:
    """What `engine` leaves out of `text`, in words ("" when it says every character)."""
    words = spoken(text, lang, engine.lexicon_words)
    lost = list(dict.fromkeys(engine.unspoken(words) + (foreign(words) if lang == "en" else [])))
    if not lost:
        return ""
    shown = ", ".join(c if c.isprintable() else f"U+{ord(c):04X}" for c in lost[:10])
    more = f" and {len(lost) - 10} more" if len(lost) > 10 else ""
    return (
        f"the {engine.spec.engine} voice will not say {shown}{more}; "
        "write them out in words or remove them"
    )


def sentence_speech(engine, sentence: str, lang: str) -> np.ndarray:
    """One sentence as `engine` says it in a narration, shaped: what its cached WAV holds."""
    return shape(said_in_parts(engine, spoken(sentence, lang, engine.lexicon_words), lang))


def synthesised(
    engine, text: str, lang: str, cache_dir: Path, synthesize: bool = True
) -> tuple[Piece, ...]:
    """One beat's line spoken by `engine`, a piece per sentence, SENTENCE_GAP apart."""
    pieces, offset = [], 0.0
    for sentence in sentences(text, lang):
        words = spoken(sentence, lang, engine.lexicon_words)
        digest = digest_of(engine.identity, words)

        def make(sentence=sentence):
            for elsewhere in _made_elsewhere:  # e.g. by watch's loaded voice (speech.warm)
                made = elsewhere(engine, sentence, lang, SHAPING)
                if made is not None:
                    return made
            return sentence_speech(engine, sentence, lang)

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
