"""The one list of needs (pe_math.REQUIREMENTS): each check computed by hand at the
defaults and at other knobs, and every chapter that speaks of the needs reading the list
rather than writing its own."""

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import pe_math as pm
from lesson import say
from lesson.catalogue import COMMON, LANGS, catalogue, lookup, shipped
from pe_math import Params
from pe_math.requirements import smooth, training_length, unique, unturned_pairs
from tests.scene_tools import bits, omegas

DEFAULT_MISSES = {
    "integer": {"bounded", "shift_map", "seen_length"},
    "binary": {"smooth", "shift_map", "any_length", "seen_length"},
    "sinusoid": {"seen_length"},
    "learned": {"smooth", "shift_map", "any_length", "seen_length", "no_training"},
    "rope": {"seen_length"},
}


def missed(params: Params) -> dict[str, set[str]]:
    return {s: {r for r, ok in v.checks.items() if not ok} for s, v in pm.verdicts(params).items()}


def test_the_list_is_one_list_and_every_verdict_follows_its_order():
    assert pm.REQUIREMENTS == (
        "unique",
        "bounded",
        "smooth",
        "shift_map",
        "any_length",
        "seen_length",
        "no_training",
    )
    for v in pm.verdicts(Params()).values():
        assert tuple(v.checks) == pm.REQUIREMENTS


def test_every_check_at_the_defaults():
    assert missed(Params()) == DEFAULT_MISSES


# ------------------------------------------------------------------ smooth
def test_smooth_means_every_step_the_same_length():
    n = 64
    sin_steps = np.linalg.norm(np.diff(pm.sinusoidal(np.arange(n), 8), axis=0), axis=1)
    assert np.ptp(sin_steps) < 1e-12 and smooth(pm.sinusoidal(np.arange(n), 8))
    assert smooth(pm.integer_encoding(np.arange(n), 8))  # √d every step
    codes = np.array([bits(p, 4) for p in range(16)])
    assert not smooth(codes)  # 7 → 8 flips every bit: a step of 2, the first is 1


@pytest.mark.parametrize("n_bits", [1, 2, 4, 9])
def test_binary_is_smooth_only_with_a_single_bit(n_bits):
    # one bit has one step, so nothing to jump; from two bits on, the all-bits flip jumps
    assert pm.verdict("binary", Params(n_bits=n_bits)).checks["smooth"] == (n_bits == 1)


@pytest.mark.parametrize("rows", [1, 2, 3, 16, 40])
def test_a_random_learned_table_is_smooth_only_with_a_single_step(rows):
    table = pm.learned_table(rows, 8)
    steps = np.linalg.norm(np.diff(table, axis=0), axis=1)
    by_hand = len(steps) <= 1 or np.ptp(steps) <= 1e-6 * steps.max()
    assert by_hand == (rows <= 2)
    assert pm.verdict("learned", Params(learned_max_len=rows)).checks["smooth"] == by_hand


# ---------------------------------------------- any length against seen in training
def slowest_turns(params: Params) -> bool:
    """By hand: the slowest pair finishes a turn within the training length, T·ω ≥ 2π."""
    w = omegas(params.d_model, params.base, params.variant)
    return params.train_len * w.min() >= 2 * np.pi


@pytest.mark.parametrize(
    "params",
    [
        Params(),
        Params(d_model=2),
        Params(d_model=16),
        Params(d_model=64),
        Params(base=100.0),
        Params(base=500000.0),
        Params(train_len=6000),  # 6000 × 0.001 rad: just short of a turn
        Params(train_len=6300),  # 6300 × 0.001 rad: just past it
        Params(variant="t2t", base=100.0, d_model=64),
        Params(rope_head_dim=8),
        Params(rope_head_dim=512, rope_base=1e9),
    ],
    ids=lambda p: p.digest()[:6],
)
def test_a_formula_reaches_any_length_but_is_seen_only_when_every_pair_turned(params):
    # the sinusoid of d_model and base; RoPE the long-context chapter's head, of
    # rope_head_dim and rope_base: one scheme, one set of knobs
    for scheme in ("sinusoid", "rope"):
        checks = pm.verdict(scheme, params).checks
        assert checks["any_length"]  # a formula always writes the next code
        if scheme == "sinusoid":
            w = omegas(params.d_model, params.base, params.variant)
        else:
            w = omegas(params.rope_head_dim, params.rope_base)
        by_hand = params.train_len * w.min() >= 2 * np.pi
        assert checks["seen_length"] == by_hand
        assert unturned_pairs(scheme, params) == int((params.train_len * w < 2 * np.pi).sum())
    assert slowest_turns(Params(train_len=6300)) and not slowest_turns(Params(train_len=6000))


@pytest.mark.parametrize("params", [Params(), Params(d_model=2, train_len=16), Params(n_bits=1)])
def test_tables_and_integers_are_never_seen_past_the_training_length(params):
    # a learned table has no row there, binary's codes start over, integers grow past
    # every value met in training
    assert training_length("learned", params) == params.learned_max_len
    assert training_length("binary", params) == 2**params.n_bits
    t = params.train_len
    assert pm.integer_encoding([t], 4).max() > pm.integer_encoding(np.arange(t), 4).max()
    np.testing.assert_array_equal(bits(2**params.n_bits, params.n_bits), bits(0, params.n_bits))
    for scheme in ("integer", "binary", "learned"):
        assert not pm.verdict(scheme, params).checks["seen_length"]


def test_a_few_learned_rows_tick_the_fixed_map_only_because_they_are_few():
    # L rows in d dims: least squares fits a map exactly while the rows are few enough
    for d, rows in ((8, 16), (16, 16), (64, 40), (8, 4)):
        fits = pm.verdict("learned", Params(d_model=d, learned_max_len=rows)).checks["shift_map"]
        assert fits == (rows - 1 <= d), (d, rows)


# -------------------------------------------------- every chapter reads the list
def test_chapter_one_says_each_need_of_the_list_as_its_row_appears():
    for lang in LANGS:
        marks = say.cues(lang, "attention-shuffle", "requirements", lambda: None)
        assert sorted(marks, key=marks.get) == list(pm.REQUIREMENTS), lang
        for need in pm.REQUIREMENTS:  # the rows read the shared names
            assert lookup(lang, COMMON, f"ui.{need}")
            assert lookup(lang, COMMON, f"ui.short_{need}")


def test_the_recap_gives_every_need_of_the_list_its_own_beat():
    for lang in LANGS:
        beats = list(catalogue(lang, "recap")["say"])
        assert beats[: len(pm.REQUIREMENTS)] == list(pm.REQUIREMENTS), lang


# a chapter writing its own list: the shared names copied, or the needs counted in words
COUNTED = re.compile(
    r"\b(five|six|seven|eight)\s+(wishes|needs|boxes)\b|\ball (five|six|seven)\b|[五六七八]条全"
    r"|本课提[五六七八]条",
    re.IGNORECASE,
)


def test_no_chapter_writes_its_own_list_of_needs():
    for lang in LANGS:
        # the long names; a short one ("nothing to train") is an everyday phrase
        names = [
            lookup(lang, COMMON, f"ui.{need}")
            for need in pm.REQUIREMENTS
            if lookup(lang, COMMON, f"ui.{need}") != lookup(lang, COMMON, f"ui.short_{need}")
        ]
        for slug, path in sorted(shipped(lang).items()):
            if slug == COMMON:
                continue
            text = path.read_text(encoding="utf-8")
            copied = [name for name in names if name in text]
            assert len(copied) <= 1, (path.name, copied)  # one need may be named, not a list
            assert not COUNTED.search(text), (path.name, COUNTED.search(text).group(0))


def test_the_needs_counted_in_words_would_be_caught():
    assert COUNTED.search("Five wishes: a different code")
    assert COUNTED.search("it meets all five at these knobs")
    assert COUNTED.search("正弦编码五条全满足")
    assert not COUNTED.search("Five ways side by side")


@given(
    codes=arrays(
        np.float64,
        st.tuples(st.integers(0, 30), st.integers(1, 4)),
        elements=st.sampled_from([0.0, -0.0, 1.0, 2.5, -1.0, 1.0 + 1e-12]),
    )
)
def test_unique_finds_a_repeated_row_as_numpy_does(codes):
    rows = np.round(codes / max(1.0, float(np.abs(codes).max(initial=0.0))), 9) + 0.0
    assert unique(codes) == (len(np.unique(rows, axis=0)) == len(codes))
