"""Scene 6, relative-shift: the numbers it shows, its layout in both languages, every claim
its captions make, and a real render."""

import numpy as np
import pytest
from hypothesis import given, settings

import pe_math as pm
from lesson.say import line as caption
from lesson.text_layout import listing
from pe_math import Params
from scenes.chapters.relative_shift.scene import (
    DIGITS,
    MATRIX_DIGITS,
    MAX_CLOCKS,
    RelativeShift,
    degrees_text,
    sci_tex,
)
from scenes.kit.components import compact
from scenes.kit.theme import fmt
from tests.scene_tools import (
    alternating_langs,
    build_in,
    build_scene,
    catalogue_ui,
    omegas,
    squash,
)
from tests.test_knob_sweep import EXAMPLES, examples_at, knob_sets

BEATS = ["clocks", "turn", "matrix", "check", "dot", "rotation", "takeaway", "bridge"]
CASES = {
    "defaults": Params(),
    "d_model=16": Params(d_model=16),
    "base=100": Params(base=100.0),
    "shift_k=12": Params(shift_k=12),
    "concat,t2t,k<0": Params(
        d_model=16,
        layout="concat",
        variant="t2t",
        shift_p=40,
        shift_k=-7,
        shift_dot_positions=(7, 50, 999),
    ),
    "far": Params(shift_p=10_000, shift_k=4096, shift_dot_positions=(0, 1, 10, 100, 1000, 10_000)),
    "one clock": Params(d_model=2),
}

ui = catalogue_ui(RelativeShift.slug)


# ----------------------------------------------------------------- by hand
def omegas_of(params: Params) -> np.ndarray:
    return omegas(params.d_model, params.base, params.variant)


def pairs(params: Params) -> list[tuple[int, int]]:
    """The (sin, cos) dims of each clock: (2i, 2i+1) interleaved, (i, i+d/2) concat."""
    h = params.d_model // 2
    if params.layout == "concat":
        return [(i, i + h) for i in range(h)]
    return [(2 * i, 2 * i + 1) for i in range(h)]


def pe(params: Params, q: float) -> np.ndarray:
    v = np.empty(params.d_model)
    for (a, b), w in zip(pairs(params), omegas_of(params), strict=True):
        v[a], v[b] = np.sin(q * w), np.cos(q * w)
    return v


def turn_clockwise(phi: float) -> np.ndarray:
    """A hand at θ has tip (x, y) = (sin θ, cos θ); turned clockwise by φ it points at θ + φ,
    and angle addition gives (sin θ cos φ + cos θ sin φ, cos θ cos φ − sin θ sin φ)."""
    return np.array([[np.cos(phi), np.sin(phi)], [-np.sin(phi), np.cos(phi)]])


def shift_matrix(params: Params, k: float) -> np.ndarray:
    M = np.zeros((params.d_model, params.d_model))
    for (a, b), w in zip(pairs(params), omegas_of(params), strict=True):
        M[np.ix_([a, b], [a, b])] = turn_clockwise(k * w)
    return M


def shown(params: Params) -> list[int]:
    h = params.d_model // 2
    want = min(MAX_CLOCKS, h)
    return sorted({int(round(x)) for x in np.linspace(0, h - 1, want)}) if want > 1 else [0]


# ----------------------------------------------------------------- numbers
@pytest.mark.parametrize("case", list(CASES))
def test_numbers_match_an_independent_computation(case):
    params = CASES[case]
    nums = RelativeShift.numbers(params)
    p, k = params.shift_p, params.shift_k
    w = omegas_of(params)
    clocks = shown(params)
    dims = [pairs(params)[i] for i in clocks]
    rows = [d for pair in dims for d in pair]
    M = shift_matrix(params, k)

    assert (nums.p, nums.k, nums.d_model, nums.n_clocks) == (p, k, params.d_model, len(w))
    assert nums.shown == clocks and nums.dims == [list(d) for d in dims] and nums.rows == rows
    assert nums.layout == params.layout
    np.testing.assert_allclose(nums.omega, w[clocks], rtol=1e-12)
    np.testing.assert_allclose(nums.angles_p, p * w[clocks], rtol=1e-12)
    np.testing.assert_allclose(nums.angles_pk, (p + k) * w[clocks], rtol=1e-12)
    np.testing.assert_allclose(nums.turn, k * w[clocks], rtol=1e-12)
    np.testing.assert_allclose(nums.turn_deg, np.degrees(k * w[clocks]), rtol=1e-12)
    np.testing.assert_allclose(nums.pe_p, pe(params, p)[rows], atol=1e-12)
    np.testing.assert_allclose(nums.pe_pk, pe(params, p + k)[rows], atol=1e-12)
    np.testing.assert_allclose(nums.moved, (M @ pe(params, p))[rows], atol=1e-12)
    np.testing.assert_allclose(nums.matrix, M[np.ix_(rows, rows)], atol=1e-12)
    assert nums.max_error == pytest.approx(
        np.abs(pe(params, p + k) - M @ pe(params, p)).max(), abs=1e-13
    )
    assert nums.dot_positions == list(params.shift_dot_positions)
    np.testing.assert_allclose(
        nums.dots, [pe(params, q) @ pe(params, q + k) for q in params.shift_dot_positions]
    )
    assert nums.dot_sum == pytest.approx(np.cos(k * w).sum(), abs=1e-12)


def test_defaults_tell_the_shift_story():
    nums = RelativeShift.numbers(Params())
    assert (nums.p, nums.k) == (3, 5) and nums.shown == [0, 1, 2, 3]
    assert nums.dims == [[0, 1], [2, 3], [4, 5], [6, 7]]
    # the fast hand turns five radians, the slowest a two-hundredth of a degree's worth
    assert nums.turn_deg[0] == pytest.approx(286.479, abs=1e-3)
    assert nums.turn_deg[3] == pytest.approx(0.286, abs=1e-3)
    # PE(3 + 5) = PE(8), and the check leaves only rounding error
    np.testing.assert_allclose(nums.pe_pk[:2], [np.sin(8), np.cos(8)])
    assert nums.max_error < 1e-15
    assert nums.dot_sum == pytest.approx(3.15998, abs=1e-5)


def test_numbers_follow_the_params():
    base = RelativeShift.numbers(Params())
    for changed in (
        Params(d_model=16),
        Params(base=100.0),
        Params(shift_k=12),
        Params(shift_p=7),
        Params(layout="concat"),
        Params(variant="t2t"),
        Params(shift_dot_positions=(1, 2)),
    ):
        assert RelativeShift.numbers(changed) != base
    # concat keeps clock i's pair in dims i and i + d/2
    assert RelativeShift.numbers(Params(layout="concat")).dims[1] == [1, 5]
    assert RelativeShift.numbers(Params(d_model=16)).shown == [0, 2, 5, 7]


# ------------------------------------------------------------ on the screen


@pytest.mark.parametrize(("case", "lang"), alternating_langs(CASES))
def test_builds_clean_and_shows_its_numbers(case, lang):
    params = CASES[case]
    scene, report = build_scene(RelativeShift, params, lang)
    report.assert_clean()
    report.assert_readable()
    assert [b for b, _ in scene.beats] == BEATS
    nums = RelativeShift.numbers(params)
    seen = report.words_at_start
    # the end of "clocks": the layout and the worked p, k; every clock and its ω; PE(p)
    after_clocks = seen["turn"]
    assert ui(lang, f"layout_{params.layout}") in after_clocks
    assert ui(lang, "worked", p=params.shift_p, k=params.shift_k) in after_clocks
    shown_key = "shown" if nums.n_clocks > 1 else "shown_one"
    shown_note = ui(lang, shown_key, which=listing(nums.shown, lang), n=nums.n_clocks)
    assert squash(shown_note) in squash(after_clocks)
    for i, w in zip(nums.shown, nums.omega, strict=True):
        assert ui(lang, "clock", i=i) in after_clocks
        assert ui(lang, "omega", w=compact(w)) in after_clocks
    for value in nums.pe_p:
        assert fmt(value, DIGITS) in after_clocks
    assert report.values_at_start["turn"] == [params.shift_p]
    # the end of "turn": how far each hand turned, and PE(p+k) beside PE(p)
    after_turn = seen["matrix"]
    for deg in nums.turn_deg:
        assert ui(lang, "turned", deg=degrees_text(deg)) in after_turn
    for value in nums.pe_pk:
        assert fmt(value, DIGITS) in after_turn
    assert report.values_at_start["matrix"] == [params.shift_p + params.shift_k]
    # the end of "matrix": M_k's entries at the shown dims, zeros off the blocks
    after_matrix = seen["check"]
    m = np.asarray(nums.matrix)
    for r in range(len(nums.rows)):
        for c in range(len(nums.rows)):
            if r // 2 == c // 2:
                assert fmt(m[r, c], MATRIX_DIGITS) in after_matrix
    title_key = "matrix_title" if nums.n_clocks > 1 else "matrix_title_one"
    assert squash(ui(lang, title_key, k=params.shift_k)) in squash(after_matrix)
    # the end of "check": M_k·PE(p) and the max error, in TeX
    after_check = seen["dot"]
    for value in nums.moved:
        assert fmt(value, DIGITS) in after_check
    assert sci_tex(nums.max_error) in after_check
    # the end of "dot": the dot product at every listed p, and Σ cos(kω_i)
    after_dot = " | ".join(seen["rotation"])
    for q, value in zip(nums.dot_positions, nums.dots, strict=True):
        assert f"{q}" in report.words_at_start["rotation"]
        assert fmt(value, DIGITS) in report.words_at_start["rotation"]
    assert f"= {fmt(nums.dot_sum, DIGITS).replace('−', '-')}" in after_dot
    # the bridge ends with the hands turned once more by k
    assert report.values_at_start["takeaway"] == [params.shift_p + 2 * params.shift_k]


def test_knobs_change_what_the_scene_reports():
    """d_model, base and shift_k each change the words and numbers on screen."""

    def on_screen(params):
        _, report = build_scene(RelativeShift, params, "en")
        return report.words_at_start, report.values_at_start

    words, values = on_screen(Params())
    for params in (Params(d_model=16), Params(base=100.0), Params(shift_k=12)):
        other_words, _ = on_screen(params)
        for beat in ("matrix", "check", "dot", "rotation"):
            assert other_words[beat] != words[beat], (params, beat)
    # a wider model shows 4 of its 8 clocks and says so; the table says 8 of 16 dims
    wide_words, _ = on_screen(Params(d_model=16))
    assert squash("clocks 0, 2, 5, 7 of 8") in squash(wide_words["turn"])
    assert "8 of 16 dims" in wide_words["turn"]
    # a new k moves the counter elsewhere and names itself in the header
    k_words, k_values = on_screen(Params(shift_k=12))
    assert "here p = 3 and k = 12" in k_words["turn"]
    assert k_values["matrix"] == [15] and values["matrix"] == [8]


@pytest.mark.parametrize(
    "aspect,case,lang",
    [("9:16", "concat,t2t,k<0", "zh"), ("1:1", "concat,t2t,k<0", "en"), ("1:1", "far", "zh")],
)
def test_other_frames_compose_at_changed_knobs(aspect, case, lang):
    params = CASES[case]
    _, report = build_in(RelativeShift, aspect, lang, params)
    report.assert_clean()
    report.assert_readable()
    report.assert_fills_the_stage()
    assert ui(lang, f"layout_{params.layout}") in report.words_at_start["turn"]
    assert ui(lang, "worked", p=params.shift_p, k=params.shift_k) in report.words_at_start["turn"]


# ------------------------------------------------- the captions' claims
@pytest.mark.parametrize("case", list(CASES))
def test_each_clock_tip_is_a_pe_pair_and_turning_it_by_k_omega_lands_on_pe_p_plus_k(case):
    # say.clocks and say.turn
    params = CASES[case]
    p, k = params.shift_p, params.shift_k
    for (a, b), w in zip(pairs(params), omegas_of(params), strict=True):
        tip = np.array([np.sin(p * w), np.cos(p * w)])  # hand at p·ω, clockwise from 12
        np.testing.assert_allclose(tip, pe(params, p)[[a, b]])
        np.testing.assert_allclose(turn_clockwise(k * w) @ tip, pe(params, p + k)[[a, b]])


@pytest.mark.parametrize("case", list(CASES))
def test_the_shift_matrix_is_one_rotation_per_clock_and_knows_nothing_of_p(case):
    # say.matrix: 2×2 rotations on the diagonal, zeros elsewhere, built from k alone
    params = CASES[case]
    M = pm.shift_matrix(params.shift_k, params.d_model, params.base, params.variant, params.layout)
    block_of = np.empty(params.d_model, dtype=int)
    for i, (a, b) in enumerate(pairs(params)):
        block_of[[a, b]] = i
        block = M[np.ix_([a, b], [a, b])]
        np.testing.assert_allclose(block.T @ block, np.eye(2), atol=1e-12)
        assert np.linalg.det(block) == pytest.approx(1.0)
    off_block = block_of[:, None] != block_of[None, :]
    assert np.all(M[off_block] == 0)
    elsewhere = RelativeShift.numbers(params.replace(shift_p=(params.shift_p + 123) % 10_000))
    assert elsewhere.matrix == RelativeShift.numbers(params).matrix


@pytest.mark.parametrize("case", list(CASES))
def test_the_check_leaves_only_rounding_that_changes_no_digit(case):
    # say.check and ui.rounding: "every digit above agrees"
    nums = RelativeShift.numbers(CASES[case])
    assert nums.max_error < 1e-12
    assert [fmt(v, DIGITS) for v in nums.moved] == [fmt(v, DIGITS) for v in nums.pe_pk]
    # the shown value is the computed one, rounded to two significant digits
    mantissa, exp = sci_tex(nums.max_error).replace("}", "").split(r"\times10^{")
    assert float(mantissa) * 10 ** int(exp) == pytest.approx(nums.max_error, rel=0.06)


def test_rounding_stays_far_below_the_shown_digits_at_the_limits():
    for d, p, k in ((512, 10_000, 4096), (8, 10_000, -4096), (2, 0, 4096)):
        check = pm.shift_check(p, k, d, 1e9 if d > 8 else 10000.0)
        assert check["max_error"] < 1e-9
        assert [fmt(v, DIGITS) for v in check["moved"]] == [fmt(v, DIGITS) for v in check["pe_pk"]]


@pytest.mark.parametrize("case", list(CASES))
def test_the_dot_product_is_the_same_at_every_p_and_set_by_k(case):
    # say.dot and ui.dot_same
    params = CASES[case]
    nums = RelativeShift.numbers(params)
    k = params.shift_k
    assert len({fmt(v, DIGITS) for v in nums.dots}) == 1
    np.testing.assert_allclose(nums.dots, np.cos(k * omegas_of(params)).sum(), atol=1e-9)
    many = pm.shifted_dots(
        np.arange(max(0, -k), 3000, 37),
        k,
        params.d_model,
        params.base,
        params.layout,
        params.variant,
    )
    np.testing.assert_allclose(many, nums.dot_sum, atol=1e-9)
    # another distance gives another number
    assert pm.shift_dot(k + 1, params.d_model, params.base, params.variant) != pytest.approx(
        nums.dot_sum
    )


def test_a_shift_is_a_rotation_and_rope_scores_see_only_the_gap():
    # say.bridge and ui.bridge_next: rotations keep lengths; turning q by m and k by n
    # gives a score that depends on n − m alone
    params = Params()
    M = pm.shift_matrix(params.shift_k, params.d_model, params.base)
    np.testing.assert_allclose(M.T @ M, np.eye(params.d_model), atol=1e-12)
    rng = np.random.default_rng(0)
    q, key = rng.normal(size=params.d_model), rng.normal(size=params.d_model)
    scores = [pm.rope_score(q, key, m, m + 4, params.base) for m in (0, 3, 10, 100)]
    np.testing.assert_allclose(scores, scores[0])
    assert pm.rope_score(q, key, 0, 5, params.base) != pytest.approx(scores[0])


# ----------------------------------------- the lines at any knobs, by predicate
ONE_CLOCK = {
    "en": {
        "clocks": "its one sin–cos pair is the tip of a single hand",
        "turn": "The hand turns by k times ω",
        "matrix": "that rotation is the whole shift matrix",
        "dot": "the cosine of k times ω",
    },
    "zh": {
        "clocks": "只有一对 sin 和 cos",
        "turn": "指针转过 k 倍的 ω",
        "matrix": "这个旋转就是整个平移矩阵",
        "dot": "它就是 k 乘 ω 的余弦",
    },
}
MANY_CLOCKS = {
    "en": {
        "clocks": "each sin–cos pair is the tip of one hand",
        "turn": "Each hand turns by k times its own ω",
        "matrix": "zeros elsewhere",
        "dot": "a sum of cosines of k times ω",
    },
    "zh": {
        "clocks": "每对 sin 和 cos 是一根指针的针尖",
        "turn": "每根指针各转过 k 倍的 ω",
        "matrix": "其余全填零",
        "dot": "k 乘 ω 的余弦之和",
    },
}


@settings(max_examples=25, deadline=None)
@given(params=knob_sets())
@examples_at([*EXAMPLES, {"d_model": 2, "layout": "concat"}, {"d_model": 4, "variant": "t2t"}])
def test_the_clock_lines_say_one_clock_or_many_as_the_width_has(params):
    # say.clocks, turn, matrix, dot: a width of 2 has one clock, one rotation, one cosine,
    # and no zeros beside it; every wider model has more, with zeros between their blocks
    clocks = params.d_model // 2
    M = shift_matrix(params, params.shift_k)
    off_block = np.ones_like(M, dtype=bool)
    for a, b in pairs(params):
        off_block[np.ix_([a, b], [a, b])] = False
    assert bool(off_block.any()) is (clocks > 1)
    assert np.all(M[off_block] == 0)
    w = omegas_of(params)
    assert (len(w) == 1) is (clocks == 1)
    words = ONE_CLOCK if clocks == 1 else MANY_CLOCKS
    other = MANY_CLOCKS if clocks == 1 else ONE_CLOCK
    for lang in ("en", "zh"):
        for beat, phrase in words[lang].items():
            said = caption(lang, RelativeShift.slug, beat, params)
            assert phrase in said, (beat, said)
            assert other[lang][beat] not in said, (beat, said)


def score(params: Params, k: np.ndarray) -> np.ndarray:
    """PE(p)·PE(p+k) = Σ_i cos(k·ω_i), written out."""
    return np.cos(np.outer(k, omegas_of(params))).sum(axis=1)


@settings(max_examples=25, deadline=None)
@given(params=knob_sets())
@examples_at(EXAMPLES)
def test_the_dot_product_is_the_same_at_every_p_shown_and_blind_to_the_sign_at_any_knobs(params):
    # say.dot: the same at every p shown, set by the gap alone, so k and minus k score the
    # same (that it is no ruler of distance is similarity's to say)
    k = params.shift_k
    dots = [pe(params, p) @ pe(params, p + k) for p in params.shift_dot_positions]
    assert len({fmt(v, DIGITS) for v in dots}) == 1
    np.testing.assert_allclose(dots, score(params, np.array([k]))[0], atol=1e-9)
    gaps = np.arange(1, 4097)
    np.testing.assert_allclose(score(params, -gaps), score(params, gaps), atol=1e-9)
    en, zh = (caption(lang, RelativeShift.slug, "dot", params) for lang in ("en", "zh"))
    assert "the same at every p shown" in en and "k and minus k score the same" in en
    assert "每个 p 上都一样" in zh and "k 和负 k 的分数也一样" in zh


def test_the_takeaway_leaves_codes_seen_in_training_to_the_last_two_chapters():
    # long-context covers RoPE only and the recap gives the sinusoid's verdict: the takeaway
    # points at both, and the rotation line leaves how RoPE turns q and k to rope-rotation
    en, zh = (caption(lang, RelativeShift.slug, "takeaway") for lang in ("en", "zh"))
    assert "slowest" not in en and "最慢" not in zh
    assert "last two chapters" in en and "最后两节" in zh
    assert "chapter on longer texts" not in en and "讲长文本的那一节" not in zh
    assert "original paper only hypothesised" in en and "原论文只是推测：" in zh
    for lang in ("en", "zh"):
        rotation = caption(lang, RelativeShift.slug, "rotation")
        assert not any(w in rotation for w in ("query", "pair by pair", "查询", "一对一对"))
