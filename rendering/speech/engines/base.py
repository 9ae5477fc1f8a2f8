"""What every voice engine is: a spec in, one sentence of text to samples, a card."""

from __future__ import annotations

import importlib.metadata
from abc import ABC, abstractmethod
from functools import cached_property

import numpy as np

from rendering.core import keys
from rendering.speech.base import VoiceError, VoiceSpec


class Engine(ABC):
    """A ready engine. A constructor that cannot make one raises a one-line VoiceError."""

    spec: VoiceSpec
    name: str  # the voice, as people call it
    version: str  # of the program or package that speaks
    made_by: str  # program, model file digest, voice and speed: what shapes the samples

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
