"""Tiny scenes for pipeline tests, loaded through PE_SCENE_PLUGINS=tests.plugin_scenes."""

from __future__ import annotations

import os
import time
from pathlib import Path

from manim import DOWN, FadeIn, Square, Write

import pe_math as pm
from lesson.catalogue import add_root
from lesson.registry import SceneInfo, register
from scenes.kit.base import LessonScene
from scenes.kit.theme import fmt

add_root(Path(__file__).resolve().parent / "captions")


class Tiny(LessonScene):
    """Two short beats showing ω_1 for the current base."""

    slug = "tiny"

    @classmethod
    def numbers(cls, params):
        return {"omega_1": float(pm.frequencies(params.d_model, params.base)[1])}

    def construct(self):
        n = self.numbers(self.params)
        self.beat("one")
        self.play(Write(self.words.label("omega", value=fmt(n["omega_1"], 4))), run_time=1)
        self.beat("two")
        self.play(FadeIn(Square().shift(DOWN)), run_time=1)
        self.wait(0.5)


class TinyStatic(LessonScene):
    """Reads only n_bits; a change of base must not re-render it."""

    slug = "tiny-static"

    @classmethod
    def numbers(cls, params):
        return {"n_bits": params.n_bits}

    def construct(self):
        self.beat("one")
        self.play(Write(self.words.label("bits", value=self.params.n_bits)), run_time=1)
        self.wait(0.5)


class Slow(LessonScene):
    """Takes its time when PE_TEST_SLOW is set, so a test can kill or interrupt it mid-render."""

    slug = "slow"

    @classmethod
    def numbers(cls, params):
        return {}

    def construct(self):
        self.beat("one")
        self.play(FadeIn(Square()), run_time=0.5)
        if os.environ.get("PE_TEST_SLOW"):
            Path(os.environ["PE_TEST_SLOW"]).touch()  # tell the test the worker is busy
            time.sleep(60)
        self.wait(0.5)


SCENES = (
    SceneInfo("tiny", __name__, "Tiny", 90, ("d_model", "base")),
    SceneInfo("tiny-static", __name__, "TinyStatic", 91, ("n_bits",)),
    SceneInfo("slow", __name__, "Slow", 92, ()),
)
for _info in SCENES:
    register(_info)
