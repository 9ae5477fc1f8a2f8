"""A made-up voice engine, registered by the tests that import it: a tone per sentence."""

from __future__ import annotations

import numpy as np

from rendering.speech.base import VoiceSpec
from rendering.speech.engines.base import REGISTRY, Engine

RATE = 16000


class Toy(Engine):
    engine_name = "toy"
    rank = 50
    terms = "toy terms"
    voices = {"en": VoiceSpec(engine_name, "beep"), "zh": VoiceSpec(engine_name, "beep")}

    def __init__(self, spec: VoiceSpec) -> None:
        self.spec = spec
        self.name = spec.voice
        self.version = "1"
        self.made_by = f"toy {spec.voice} speed {spec.speed:g}"

    def speak(self, text: str) -> tuple[np.ndarray, int]:
        seconds = 0.05 * len(text) / self.spec.speed
        t = np.arange(round(seconds * RATE)) / RATE
        return (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32), RATE

    def card(self) -> dict:
        return {
            "engine": self.engine_name,
            "voice": self.name,
            "licence": self.terms,
            "sold_course": "yes",
        }


def unregister() -> None:
    REGISTRY.pop(Toy.engine_name, None)
