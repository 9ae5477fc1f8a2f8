"""Scene 2, integer-scale: its numbers are pe_math's, its layout holds, it renders."""

import json
from dataclasses import asdict

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

import pe_math as pm
from lesson.say import line as caption
from pe_math import Params
from scenes.chapters.integer_scale.scene import (
    COS_DIGITS,
    SAMPLES,
    IntegerScale,
    tick_text,
    truncate,
    truncated,
)
from scenes.kit import theme
from tests.scene_tools import build_scene
from tests.test_knob_sweep import knob_sets

BEATS = ["show_words", "add_position", "sliver", "table", "concat", "takeaway", "bridge"]

# five dims with large values, and a short run
WIDE = Params(
    word_a=[12.5, -30.0, 4.0, 0.25, 99.0],
    word_b=[-7.0, 18.0, 22.75, -1.0, 3.0],
    int_position=40,
    int_max_position=50,
)
# a long run: positions are sampled, not all 5001 drawn
LONG = Params(int_max_position=5000, int_position=4321)


@pytest.mark.parametrize("params", [Params(), WIDE, LONG], ids=["defaults", "wide", "long"])
def test_numbers_are_pe_maths(params):
    got = IntegerScale.numbers(params)
    json.dumps(asdict(got))  # JSON-ready: no numpy types
    positions = np.asarray(got.positions)
    assert positions[0] == 0 and positions[-1] == params.int_max_position
    assert np.all(np.diff(positions) > 0) and len(positions) <= SAMPLES + 2
    assert params.int_position in got.positions
    want = pm.integer_mix(params.word_a, params.word_b, positions)
    for key in ("cosine", "ratio", "a", "b"):
        np.testing.assert_allclose(getattr(got, key), want[key], rtol=0, atol=0, err_msg=key)
    np.testing.assert_array_equal(
        got.position_vectors, pm.integer_encoding(positions, len(params.word_a))
    )
    table = got.table
    at = pm.integer_mix(params.word_a, params.word_b, [params.int_position])
    assert table["position"] == params.int_position
    np.testing.assert_array_equal(table["a"], at["a"][0])
    np.testing.assert_array_equal(table["b"], at["b"][0])
    np.testing.assert_array_equal(
        table["position_vector"], [params.int_position] * len(params.word_a)
    )
    assert table["cosine"] == at["cosine"][0] and table["ratio"] == at["ratio"][0]


def test_defaults_are_the_seed_table_and_drown_towards_one():
    got = IntegerScale.numbers(Params())
    assert got.positions == list(range(501))
    np.testing.assert_allclose(got.table["a"], [300.2, 299.9, 300.5])
    np.testing.assert_allclose(got.table["b"], [300.4, 300.3, 299.8])
    cos = np.asarray(got.cosine)
    assert cos[0] < 0 < 0.9999 < cos[-1] < 1  # opposite-ish words end up nearly parallel
    assert got.ratio[0] == 0 and got.ratio[-1] > 1000


def test_numbers_follow_the_params():
    default, wide = IntegerScale.numbers(Params()), IntegerScale.numbers(WIDE)
    assert np.shape(wide.a) == (51, 5) and np.shape(default.a) == (501, 3)
    assert wide.table["a"] != default.table["a"]
    assert wide.cosine[-1] != default.cosine[-1]


def test_cosine_is_cut_not_rounded():
    assert truncated(0.999999996, 8) == "0.99999999"  # rounding would claim 1.00000000
    assert truncate(-0.169515876, 8) == -0.16951587
    assert truncated(-0.169515876, 8) == "−0.16951587"


@pytest.mark.parametrize(
    "params,lang",
    [(Params(), "en"), (Params(), "zh"), (WIDE, "en"), (WIDE, "zh"), (LONG, "en")],
    ids=["defaults-en", "defaults-zh", "wide-en", "wide-zh", "long-en"],
)
def test_builds_clean_and_shows_pe_maths_values(params, lang):
    scene, report = build_scene(IntegerScale, params, lang)
    seen = {
        beat: (report.words_at_start[beat], report.values_at_start[beat])
        for beat in report.words_at_start
    }
    report.assert_clean()
    assert [b for b, _ in scene.beats] == BEATS
    n = IntegerScale.numbers(params)
    # at p = 0 the readouts show the bare words; once p has run to the end, the last sample
    _, start = seen["add_position"]
    assert start == [0, truncate(n.cosine[0], COS_DIGITS), n.ratio[0]]
    texts, end = seen["sliver"]
    assert end == [params.int_max_position, truncate(n.cosine[-1], COS_DIGITS), n.ratio[-1]]
    # the axis ticks are pe_math's nice ticks for the range of the last sample, grown with p
    ticks = [t for t in texts if t.replace("−", "").replace(".", "", 1).isdigit()]
    lo, hi = scene._range(len(n.positions) - 1)
    assert sorted(ticks) == sorted(tick_text(v) for v in pm.nice_ticks(lo, hi, 5))
    assert hi > params.int_max_position
    # the table writes out the combined vectors at p = int_position
    texts, _ = seen["concat"]
    digits = theme.digits_for(params.word_a + params.word_b)
    for vec in (n.table["a"], n.table["b"]):
        assert "[" + ", ".join(theme.fmt(v, digits) for v in vec) + "]" in texts
    assert truncated(n.table["cosine"], COS_DIGITS) in texts


def test_the_takeaway_says_no_fixed_matrix_adds_k_and_why():
    """say.takeaway: adding k is affine; a matrix keeps position 0's all-zero code at zero,
    so no fixed matrix takes the code of p to the code of p + k."""
    from lesson.say import line

    en, zh = (line(lang, "integer-scale", "takeaway") for lang in ("en", "zh"))
    assert "no fixed matrix adds k" in en.lower() and "all zeros" in en and "linear map" not in en
    assert "没有固定的矩阵能加上 k" in zh and "线性映射" not in zh
    codes = pm.integer_encoding(np.arange(6), 4)
    assert not codes[0].any() and codes[1].any()  # M·0 = 0, never the code of k
    M, *_ = np.linalg.lstsq(codes[:-1], codes[1:], rcond=None)
    assert np.abs(codes[:-1] @ M - codes[1:]).max() > 0.1


def test_the_concat_beat_does_not_name_pe_before_it_is_introduced():
    """ui.concat_scale: the sinusoid comes chapters later, so no ‖PE(p)‖ here."""
    from lesson.catalogue import lookup

    for lang in ("en", "zh"):
        words = lookup(lang, "integer-scale", "ui.concat_scale")
        assert "PE(" not in words and "{r}" in words


@settings(max_examples=25, deadline=None)
@given(
    params=knob_sets(),
    top=st.integers(1, 1_000_000),
    at=st.integers(0, 1_000_000),
    word_b=st.lists(st.floats(-2, 2), min_size=3, max_size=3),
)
@example(params=Params(), top=500, at=300, word_b=[0.4, 0.3, -0.2])
@example(params=Params(), top=1, at=0, word_b=[0.4, 0.3, -0.2])
@example(params=Params(), top=500, at=300, word_b=[0.4, -0.2, 1.0])
def test_what_the_voice_says_of_integer_positions_holds_at_any_knobs(params, top, at, word_b):
    assume(any(word_b))
    params = params.replace(int_max_position=top, int_position=min(at, top), word_b=tuple(word_b))
    a, b = np.array(params.word_a), np.array(word_b)

    def cosine(p: int) -> float:
        return float((a + p) @ (b + p) / (np.linalg.norm(a + p) * np.linalg.norm(b + p)))

    def buried(p: int) -> bool:  # the position's length over the word's, as BURIED says
        return np.sqrt(len(a)) * p / np.linalg.norm(a) >= 10

    for lang in ("en", "zh"):
        said = {beat: caption(lang, "integer-scale", beat, params) for beat in BEATS}
        differ = ("clearly different" if lang == "en" else "明显不同") in said["show_words"]
        assert differ == (cosine(0) < 0.9), said["show_words"]
        tower = ("tower of position" if lang == "en" else "高塔") in said["sliver"]
        assert tower == (buried(top) and cosine(top) >= 0.99), said["sliver"]
        if not tower:
            assert f"{cosine(top):.2f}" in said["sliver"] and f"{top:,}" in said["sliver"]
        small = ("small change to a large number" if lang == "en" else "微小变化") in said["table"]
        assert small == buried(params.int_position), said["table"]
