"""What every voice engine is: a spec in, one sentence of text to samples, a card.

An engine registers itself by subclassing `Engine` with an `engine_name`; the voices
module imports every module of this package, so adding an engine is adding its module.
"""

from __future__ import annotations

import importlib.metadata
from abc import ABC, abstractmethod
from dataclasses import dataclass, replace
from functools import cached_property
from typing import ClassVar

import numpy as np

from rendering.core import keys
from rendering.speech.base import VoiceError, VoiceSpec


@dataclass(frozen=True)
class Measured:
    """The share of a voice's speech Whisper base heard wrong, and over what."""

    error: float
    over: str

    def shown(self) -> str:
        return f"{self.error:.1%} ({self.over})"


THREE_SCENES = "3 scenes"  # every line of square-to-sine, relative-shift, rope-rotation

REGISTRY: dict[str, type[Engine]] = {}  # engine name -> its class, filled by subclassing


class Engine(ABC):
    """A ready engine. A constructor that cannot make one raises a one-line VoiceError.

    What a subclass declares about itself, so nothing else lists engines by name:
    """

    engine_name: ClassVar[str]  # as --voice and lesson.toml's `engine =` name it
    rank: ClassVar[int] = 100  # its place among the --voice choices and the voices table
    terms: ClassVar[str] = ""  # the short name of its terms, for a table row
    # the voice it speaks each language in when chosen by --voice (the first: its own)
    voices: ClassVar[dict[str, VoiceSpec]] = {}
    speaks_the_lesson: ClassVar[bool] = False  # its voices are the lesson's by default
    heard: ClassVar[dict[str, Measured]] = {}  # voice -> how well a recogniser hears it
    keeps_lexicon: ClassVar[bool] = True  # --voice keeps the lesson's [lexicon] for it

    spec: VoiceSpec
    name: str  # the voice, as people call it
    version: str  # of the program or package that speaks
    made_by: str  # program, model file digest, voice and speed: what shapes the samples

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if "engine_name" in cls.__dict__:
            REGISTRY[cls.engine_name] = cls

    @classmethod
    def default_voice(cls, lang: str) -> str:
        """The voice lesson.toml gets when it names the engine but no voice."""
        return (cls.voices.get(lang) or next(iter(cls.voices.values()))).voice

    @classmethod
    def unset_speed(cls, lang: str) -> float:
        """The speed lesson.toml gets when it names the engine but no speed."""
        return 1.0

    @classmethod
    def voice_problem(cls, lang: str, voice: str) -> str | None:
        """Why lesson.toml's `voice` cannot speak `lang` with this engine (None: it can)."""
        return None

    @classmethod
    def chosen(cls, lang: str, own: VoiceSpec) -> VoiceSpec:
        """The voice `--voice <engine>` speaks `lang` in; `own` is the lesson's."""
        if lang not in cls.voices:
            others = [
                e.engine_name
                for e in ranked()
                if e is not cls and lang in e.voices and not e.speaks_the_lesson
            ]
            raise VoiceError(
                f"--voice {cls.engine_name} has no {lang} voice here; "
                f"use --voice {' or '.join(others)}{cls.no_voice_hint(lang)}"
            )
        return replace(cls.voices[lang], lexicon=own.lexicon if cls.keeps_lexicon else ())

    @classmethod
    def no_voice_hint(cls, lang: str) -> str:
        """What else to do when the engine has no voice for `lang`."""
        return ""

    @classmethod
    def candidates(cls, lang: str) -> list[VoiceSpec]:
        """Every voice of `lang` it offers a teacher choosing by ear."""
        return [cls.voices[lang]] if lang in cls.voices else []

    @classmethod
    def terms_of(cls, voice: str) -> str:
        return cls.terms

    @classmethod
    def file_stem(cls, voice: str) -> str:
        """A short name for the voice, for the name of a file it speaks into."""
        return voice

    @cached_property
    def identity(self) -> str:
        """What makes this engine's speech, for cache names: `made_by` and the engine's code."""
        code = keys.hash_of(keys.sources(type(self).__module__))
        said = f" lexicon {keys.hash_of(dict(self.spec.lexicon))}" if self.spec.lexicon else ""
        return f"{self.made_by}{said} code {code}"

    reads_lexicon = False  # True when speak() takes the lexicon's phonemes or spellings

    @cached_property
    def lexicon_words(self) -> frozenset[str]:
        """The words this engine reads as the lexicon says, so nothing rewrites them first."""
        return frozenset(w for w, _ in self.spec.lexicon) if self.reads_lexicon else frozenset()

    @abstractmethod
    def speak(self, text: str) -> tuple[np.ndarray, int]:
        """One sentence as float32 samples, and their rate."""

    def unspoken(self, text: str) -> list[str]:
        """The characters of `text` this engine leaves out (none: it reads them all)."""
        return []

    @abstractmethod
    def card(self) -> dict:
        """Who speaks, under which licence: for the manifest and the gallery."""


def versions(engine: str, *packages: str) -> tuple[str, ...]:
    """The installed versions of what `engine` runs on, or one line naming the missing one."""
    try:
        return tuple(importlib.metadata.version(p) for p in packages)
    except importlib.metadata.PackageNotFoundError as exc:
        raise VoiceError(
            f"the {engine} voice needs the {exc.name} package; run `make setup`"
        ) from None


def ranked() -> list[type[Engine]]:
    """The registered engines, in their listed order."""
    return sorted(REGISTRY.values(), key=lambda e: (e.rank, e.engine_name))
