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
from tests.test_knob_sweep import examples_at, knob_sets

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
    assert (
        "no fixed matrix adds k" in en.lower()
        and "the zero vector" in en
        and "linear map" not in en
    )
    assert "zeros" not in en  # the recogniser writes "zeros" as "0's"
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
    assume(np.hypot.reduce(word_b) ** 2 > 1e-12)  # a word the knobs accept: it has a direction
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


@settings(max_examples=25, deadline=None)
@given(params=knob_sets())
@examples_at([{"int_position": 0}, {"d_model": 2}, {"base": 1e6}, {"variant": "t2t"}])
def test_the_paper_scales_a_word_to_about_the_size_of_its_position_code(params):
    # say.concat: the original paper multiplies each embedding by the square root of its
    # width; its reference code draws word vectors with spread 1/√width, so they start near
    # length one and end about as long as its position code (which has √(width/2) at any p)
    n = IntegerScale.numbers(params)
    width = n.paper_width
    assert n.paper_scale == pytest.approx(np.sqrt(width))
    start = np.linalg.norm(np.random.default_rng(0).normal(0, width**-0.5, (2000, width)), axis=1)
    assert start.mean() == pytest.approx(1.0, abs=0.01) and start.std() < 0.05
    code = np.linalg.norm(pm.sinusoidal([params.int_position], width, params.base)[0])
    assert n.paper_pe_norm == pytest.approx(code) == pytest.approx(np.sqrt(width / 2))
    assert 0.5 < n.paper_scale * start.mean() / code < 2  # about the same size
    en, zh = (caption(lang, "integer-scale", "concat", params) for lang in ("en", "zh"))
    assert "multiplies each embedding by the square root of its width" in en
    assert "words that start near length one to about the size of their position code" in en
    assert "乘以维数的平方根" in zh and "起初长度约为 1 的词嵌入，放大到和位置编码差不多长" in zh
    assert f"{width} dimensions are nearly orthogonal" in en and f"{width} 维里" in zh


@settings(max_examples=10, deadline=None)
@given(params=knob_sets())
@examples_at([{"d_model": 2}, {"train_len": 16, "target_len": 32}, {"max_len": 1}])
def test_the_takeaway_marks_integer_positions_as_the_numbers_do(params):
    # say.takeaway: "unique, smooth, free and defined at any length, but unbounded, and
    # unseen past the training length": by hand, then as pe_math's verdict marks them
    d, T = params.d_model, params.train_len
    codes = np.arange(T + 2)[:, None] * np.ones(d)  # position p written into every dim
    steps = np.linalg.norm(np.diff(codes, axis=0), axis=1)
    assert len(np.unique(codes, axis=0)) == len(codes)  # unique
    assert np.allclose(steps, np.sqrt(d))  # every step the same length: smooth
    assert codes[T].min() > codes[:T].max()  # past the training length: never seen
    # unbounded: a ten times longer text reaches ten times the value, as pe_math writes it
    np.testing.assert_array_equal(pm.integer_encoding([10 * T], d)[0], np.full(d, 10 * T))
    assert 10 * T > codes[:T].max()
    checks = pm.verdict("integer", params).checks
    met = {need for need, ok in checks.items() if ok}
    assert met == {"unique", "smooth", "no_training", "any_length"}
    en, zh = (caption(lang, "integer-scale", "takeaway", params) for lang in ("en", "zh"))
    assert "unique, smooth, free and defined at any length, but unbounded" in en
    assert "unseen past the training length" in en
    assert "它唯一、平稳、无须训练，任意长度都有编码，但它无界" in zh and "超出训练长度" in zh
