"""Voice engines: one sentence of text in, speech samples out, all offline.

Each engine is a module of rendering.speech.engines: a subclass of `Engine`
(engines/base.py) that names itself and declares its voices, terms and default voice.
Every module of that package is imported here, so an engine registers itself.

Teachers' recordings and silence are not engines: `rendering.speech.narration` decides,
beat by beat, whether a recording or an engine speaks.

The `[voice.<lang>]` tables of lesson.toml pick the engine, voice and speed of
each language; `DEFAULTS` holds what is used when a table is absent. Its
`[lexicon.<lang>]` tables say how to read a word (its phonemes, or a spelling), for the
engines that take phonemes.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import replace
from functools import cache
from pathlib import Path

from pe_math.params import ParamError, lesson_file, read_toml, shown
from rendering.core.door import command
from rendering.speech import engines as engine_package
from rendering.speech import lexicon
from rendering.speech.base import VoiceError, VoiceSpec
from rendering.speech.engines.base import REGISTRY, Engine, ranked

__all__ = ["engine", "VoiceError", "VoiceSpec"]


def _import_engines() -> None:
    """Import every module of the engines package: each engine class registers itself."""
    for module in pkgutil.iter_modules(engine_package.__path__):
        importlib.import_module(f"{engine_package.__name__}.{module.name}")


_import_engines()
# the --voice choices that are no engine
AUTO = "auto"  # the language's own voice, a teacher's recording where there is one
RECORDED = "recorded"  # the same, and each beat the engine speaks instead is named
NONE = "none"  # silent


def engine_names() -> tuple[str, ...]:
    return tuple(e.engine_name for e in ranked())


def choices() -> tuple[str, ...]:
    """The --voice choices: auto, every engine, recorded and none."""
    return (AUTO, *engine_names(), RECORDED, NONE)


def _lesson_defaults() -> dict[str, VoiceSpec]:
    return {lang: spec for e in ranked() if e.speaks_the_lesson for lang, spec in e.voices.items()}


DEFAULTS = _lesson_defaults()


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
        if engine not in REGISTRY:
            raise VoiceError(
                f"[voice.{lang}] engine={engine!r}: must be one of {', '.join(engine_names())}"
            )
        kind = REGISTRY[engine]
        voice = raw.get("voice", specs[lang].voice if engine == specs[lang].engine else None)
        voice = voice or kind.default_voice(lang)
        fallback = kind.unset_speed(lang)
        speed = raw.get("speed", specs[lang].speed if engine == specs[lang].engine else fallback)
        # true is an int to Python, and a whole number of 400 digits no float: compare as is
        if isinstance(speed, bool) or not isinstance(speed, int | float) or not 0.5 <= speed <= 2:
            raise VoiceError(f"[voice.{lang}] speed={shown(speed)}: must be a number from 0.5 to 2")
        problem = kind.voice_problem(lang, str(voice))
        if problem:
            raise VoiceError(f"[voice.{lang}] voice={voice!r}: {problem}")
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
        if len(words) > lexicon.MAX_ENTRIES:
            raise VoiceError(
                f"[lexicon.{lang}] has {len(words)} entries; at most {lexicon.MAX_ENTRIES}, "
                "for the names the voice says wrongly"
            )
        for word, said in words.items():
            wrong = lexicon.problem(lang, word, said)
            if wrong:
                raise VoiceError(f"[lexicon.{lang}] {word} = {str(said)[:40]!r}: {wrong}")
        out[lang] = tuple(sorted((word, said.strip()) for word, said in words.items()))
    return out


def spec_for(choice: str, lang: str, specs: dict[str, VoiceSpec]) -> VoiceSpec:
    """The engine that speaks for `choice` (auto/recorded fall back to the language's own)."""
    own = specs[lang]
    if choice in (AUTO, RECORDED) or choice == own.engine:
        return own
    if choice in REGISTRY:
        return REGISTRY[choice].chosen(lang, own)
    raise VoiceError(f"--voice {choice}: use one of {', '.join(choices())}")


@cache
def engine(spec: VoiceSpec) -> Engine:
    """A ready engine for `spec`, or a VoiceError saying what to install."""
    return REGISTRY[spec.engine](spec)


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
        f"that may be sold ({command()} voices lists them)"
    )
