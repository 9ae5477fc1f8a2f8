"""Checkpoint questions: every answer key against pe_math's own functions, recomputed
here by hand, at the lesson's defaults and at changed knobs."""

from __future__ import annotations

import math

import numpy as np
import pytest

import pe_math as pm
from lesson import questions as qmod
from lesson.catalogue import CatalogueError
from pe_math import Params

KNOBS = [
    {},
    {"d_model": 64},
    {"d_model": 16, "base": 500.0, "variant": "t2t"},
    {"n_bits": 10, "rope_m": 9, "rope_n": 4, "max_len": 5},
]


def by_id(slug: str, params: Params, lang: str = "en") -> dict[str, qmod.Question]:
    return {q.id: q for q in qmod.questions(slug, lang, params)}


def pe(p: int, d: int, base: float, variant: str) -> np.ndarray:
    half = d // 2
    steps = (
        [2 * i / d for i in range(half)]
        if variant == "paper"
        else [i / (half - 1) for i in range(half)]
    )
    out = []
    for s in steps:
        out += [math.sin(p / base**s), math.cos(p / base**s)]
    return np.array(out)


@pytest.mark.parametrize("knobs", KNOBS, ids=lambda k: ",".join(k) or "defaults")
def test_every_answer_is_what_the_math_gives_at_the_knobs(knobs):
    p = Params().replace(**knobs)
    assert by_id("binary-bits", p)["codes"].answer == 2**p.n_bits

    slowest = by_id("clock-hands", p)["slowest"]
    last = (p.d_model - 2) / p.d_model if p.variant == "paper" else 1.0
    assert slowest.answer == pytest.approx(2 * math.pi * p.base**last)
    assert slowest.right(slowest.answer * 1.009) and not slowest.right(slowest.answer * 1.02)

    closer = by_id("similarity", p)["closer"]
    far = min(6, p.max_len - 1)
    codes = [pe(x, p.d_model, p.base, p.variant) for x in (0, 1, far)]
    cos = [float(codes[0] @ c / np.linalg.norm(codes[0]) / np.linalg.norm(c)) for c in codes[1:]]
    assert closer.answer == (0 if cos[0] > cos[1] else 1)
    assert closer.choices[0] == "PE(1)" and closer.choices[1] == f"PE({far})"
    assert f"{cos[0]:.3g}" in closer.reason and f"{cos[1]:.3g}" in closer.reason

    shift = by_id("rope-rotation", p)["shift"]
    q, k = np.random.default_rng(3).normal(size=(2, p.d_model))
    at = pm.rope_score(q, k, p.rope_m, p.rope_n, p.base)
    assert pm.rope_score(q, k, 0, shift.answer, p.base) == pytest.approx(at)
    assert shift.right(p.rope_n - p.rope_m) and not shift.right(p.rope_n - p.rope_m + 1)


@pytest.mark.parametrize(
    "knobs",
    [{}, {"train_len": 3000, "target_len": 10000, "rope_base": 20000.0, "rope_head_dim": 64}],
    ids=["defaults", "uneven factor"],
)
def test_interpolation_reads_the_target_as_the_training_length(knobs):
    p = Params().replace(**knobs)
    for lang in ("en", "zh"):
        q = by_id("long-context", p, lang)["interpolated"]
        assert q.answer == p.train_len and q.answer_text == f"{p.train_len:,}"
        assert str(p.target_len) in q.prompt and f"{p.train_len:,}" in q.reason
        assert q.right(p.train_len) and not q.right(p.train_len + 1)
    # by hand: every pair at the target under PI turns as it did at the training length
    d = p.rope_head_dim
    factor = p.target_len / p.train_len
    theta = np.array([p.rope_base ** (-2 * i / d) for i in range(d // 2)])
    scaled, _ = pm.rope_frequencies(d, p.rope_base, {"rope_type": "linear", "factor": factor})
    np.testing.assert_allclose(scaled * p.target_len, theta * q.answer)


def test_a_knob_changes_the_answer_and_the_words_in_both_languages():
    wide = Params().replace(d_model=64)
    for lang in ("en", "zh"):
        before, after = (
            by_id("similarity", Params(), lang)["closer"],
            by_id("similarity", wide, lang)["closer"],
        )
        assert (before.answer, after.answer) == (1, 0)  # PE(6) closer at 8 dims, PE(1) at 64
        assert before.reason != after.reason
        codes = by_id("binary-bits", Params().replace(n_bits=10), lang)["codes"]
        assert "10" in codes.prompt and codes.answer == 1024


def test_broken_question_words_are_one_line_naming_the_file(monkeypatch):
    real = qmod.catalogue

    def without_reason(lang, slug):
        data = real(lang, slug)
        return {**data, "ask": {"codes": {"prompt": "How many?"}}}

    monkeypatch.setattr(qmod, "catalogue", without_reason)
    with pytest.raises(
        CatalogueError, match=r"binary_bits/en.toml: ask.codes needs a prompt and a reason"
    ):
        qmod.questions("binary-bits", "en")

    def bad_slot(lang, slug):
        return {**real(lang, slug), "ask": {"codes": {"prompt": "{q.nope}", "reason": "r"}}}

    monkeypatch.setattr(qmod, "catalogue", bad_slot)
    with pytest.raises(CatalogueError, match=r"ask.codes has a slot it cannot fill .*\{q.<name>\}"):
        qmod.questions("binary-bits", "en")
