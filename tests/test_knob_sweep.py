"""Every line of the lesson at whole knob sets drawn from the allowed ranges.

Hypothesis draws the knobs (single knobs at their edges, and random combinations), every
chapter builds its lines in both languages, and each line must read as the lesson says
numbers: no slot left open, no scientific notation, no value rounded to a false zero, a
count that agrees with its noun. The claims whose truth moves with the knobs are held to
numbers computed here, apart from the scenes, in `tests/test_claims.py` and below.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from lesson import registry
from lesson.say import lines
from pe_math import ParamError, Params

SLUGS = [info.slug for info in registry.lesson_chapters()]
EVEN = st.integers(1, 256).map(lambda half: 2 * half)
KNOBS = {
    "d_model": st.one_of(st.sampled_from([2, 4, 512]), EVEN),
    "base": st.one_of(st.sampled_from([1.5, 2.0, 1e6, 1e9]), st.floats(1.01, 1e7)),
    "max_len": st.one_of(st.sampled_from([1, 2, 3, 4096]), st.integers(1, 1024)),
    "layout": st.sampled_from(["interleaved", "concat"]),
    "variant": st.sampled_from(["paper", "t2t"]),
    "n_bits": st.integers(1, 16),
    "int_position": st.one_of(st.sampled_from([0, 1, 1_000_000]), st.integers(0, 10_000)),
    "clocks_shown": st.integers(1, 64),
    "rope_pairing": st.sampled_from(["interleaved", "half"]),
    "similarity_d_model": st.one_of(st.sampled_from([2, 4]), EVEN),
    "heat_d_model": st.one_of(st.sampled_from([2, 4]), EVEN),
    "learned_max_len": st.integers(1, 64),
    "alibi_heads": st.integers(1, 64),
    "t5_bidirectional": st.booleans(),
    "train_len": st.sampled_from([16, 1024, 4096, 8192, 32768]),
    "rope_head_dim": st.sampled_from([8, 64, 128, 512]),
    "rope_shift": st.one_of(st.sampled_from([-2, -1, 0, 1]), st.integers(-2, 100_000)),
}


@st.composite
def knob_sets(draw) -> Params:
    """A whole knob set: some knobs drawn, the rest at the lesson's defaults."""
    chosen = draw(st.lists(st.sampled_from(sorted(KNOBS)), unique=True, max_size=len(KNOBS)))
    values = {name: draw(KNOBS[name]) for name in chosen}
    d_heat = values.get("heat_d_model", Params().heat_d_model)
    values["heat_dims"] = tuple(
        draw(st.lists(st.integers(0, d_heat - 1), min_size=1, max_size=3, unique=True))
    )
    train = values.get("train_len", Params().train_len)
    values["target_len"] = train * draw(st.sampled_from([2, 8, 16]))
    try:
        return Params(**values)
    except ParamError:
        assume(False)


EXAMPLES = [
    {"base": 2.0},
    {"d_model": 2},
    {"heat_dims": (0,)},
    {"heat_dims": (1, 3)},
    {"heat_d_model": 2, "heat_dims": (0, 1)},
    {"n_bits": 1},
    {"max_len": 1},
    {"max_len": 2},
    {"int_position": 0},
    {"rope_pairing": "half"},
    {"variant": "t2t"},
    {"base": 1e6},
    {"variant": "t2t", "d_model": 4},
    {"train_len": 2048, "target_len": 100_000_000},
    {"train_len": 16, "target_len": 32},
    {"d_model": 512},
    {"heat_d_model": 512, "heat_dims": (0, 10, 40)},
    {"train_len": 8192, "target_len": 65536},
]

SCIENTIFIC = re.compile(r"\d[eE][+-]?\d")
FALSE_ZERO = re.compile(r"(?<![\d.])-?0\.0+(?![\d])")
ONE_PLURAL = re.compile(
    r"(?<![\d.,])1 (positions|pairs|dims|dimensions|degrees|hands|bits|clocks|codes|heads|"
    r"rows|tokens|laps|steps|radians|schemes|times|buckets|turns)\b"
)


def said_lines(params: Params) -> dict[tuple[str, str, str], str]:
    return {
        (lang, slug, beat): text
        for lang in ("en", "zh")
        for slug in SLUGS
        for beat, text in lines(slug, lang, params).items()
    }


def problems(text: str, lang: str) -> list[str]:
    found = []
    if "{" in text or "}" in text:
        found.append("an open slot")
    if SCIENTIFIC.search(text):
        found.append("scientific notation")
    if m := FALSE_ZERO.search(text):
        found.append(f"a value rounded to {m.group(0)}")
    if re.search(r"\b(nan|inf)\b", text):
        found.append("a non-finite value")
    if lang == "en" and (m := ONE_PLURAL.search(text)):
        found.append(f"'{m.group(0)}'")
    return found


def examples_at(sets):
    """A decorator: the test is tried first at each knob set of `sets` (Params, or dicts of
    changes to the defaults), in order, then at drawn ones."""

    def add(test):
        for changes in reversed(sets):
            params = changes if isinstance(changes, Params) else Params(**changes)
            test = example(params=params)(test)
        return test

    return add


with_examples = examples_at(EXAMPLES)


@st.composite
def any_knobs(draw) -> Params:
    """A whole knob set with RoPE's base drawn too (knob_sets keeps it at its default)."""
    params = draw(knob_sets())
    base = draw(st.one_of(st.sampled_from([1e4, 1e6, 1e9]), st.floats(100.0, 1e9)))
    try:
        return params.replace(rope_base=base)
    except ParamError:
        assume(False)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(params=knob_sets())
@with_examples
def test_every_line_says_its_numbers_plainly_at_any_knobs(params):
    bad = {
        key: found for key, text in said_lines(params).items() if (found := problems(text, key[0]))
    }
    assert bad == {}


def test_the_plain_number_check_finds_what_it_looks_for():
    assert problems("this lesson uses 1e+06", "en") == ["scientific notation"]
    assert problems("it climbs back by 0.00 here", "en") == ["a value rounded to 0.00"]
    assert problems("it turns 1 degrees", "en") == ["'1 degrees'"]
    assert problems("{n.width} dims", "en") == ["an open slot"]
    assert problems("it turns 1 degree, 0.5 of a lap, in 11 positions", "en") == []
