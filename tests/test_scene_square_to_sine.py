"""Scene 4, square-to-sine: the numbers it shows, its layout in both languages, and a real render."""

import numpy as np
import pytest
from hypothesis import example, given, settings

import pe_math as pm
from lesson.catalogue import lookup
from pe_math import Params
from scenes.chapters.square_to_sine.scene import SquareToSine
from tests.scene_tools import alternating_langs, build_and_read, squash
from tests.test_knob_sweep import knob_sets

BEATS = [
    "square",
    "fourier",
    "fundamental",
    "family",
    "tidy",
    "start",
    "ladder",
    "cosine",
    "heatmap",
    "formula",
    "takeaway",
    "bridge",
]
CASES = {
    "defaults": Params(),
    "base=100,d_model=16": Params(base=100.0, d_model=16),
    "d_model=4": Params(d_model=4),
}


def flip_lines(words: list[str]) -> tuple[str, str]:
    """The slide's two formula lines: the fundamental becoming sin(ω_i p), and ω_i itself."""
    (flip,) = [w for w in words if r"\longrightarrow" in w]
    (omega,) = [w for w in words if w.startswith(r"\omega_i =")]
    return flip, omega


@pytest.mark.parametrize(("case", "lang"), alternating_langs(CASES))
def test_builds_clean_and_shows_its_numbers(case, lang):
    params = CASES[case]
    scene, report, seen, values = build_and_read(SquareToSine, params, lang)
    report.assert_clean()
    assert [b for b, _ in scene.beats] == BEATS
    d, base = params.d_model, f"{params.base:g}"
    # the formula carries this lesson's base and width
    formula = [w for w in seen["takeaway"] if "PE(p" in w]
    assert len(formula) == 2 and all(f"{base}^{{2i/{d}}}" in w for w in formula)
    # the slide ends on PE's own frequencies
    pairs = min(params.n_bits, d // 2)
    np.testing.assert_allclose(
        sorted(values["heatmap"]), sorted(pm.frequencies(d, params.base)[:pairs])
    )
    # the heat map is titled with its real shape
    assert any(str(params.max_len) in w and str(d) in w for w in seen["formula"])
    # the slide says on screen how the fundamental becomes a plain sine: sign, 4/π, then ω_i
    flip, omega = flip_lines(seen["heatmap"])
    assert flip.startswith(r"-\frac{4}{\pi}\,\sin(\pi p/2^{i})")
    assert flip.endswith(r"\sin(\omega_i\,p)")
    assert omega == rf"\omega_i = {base}^{{-2i/{d}}}"
    # the formula beat defines i over this width's pairs and names d, then says why cos
    screen = squash(seen["takeaway"])
    last = d // 2 - 1
    assert f"i=0…{last}" in screen and f"d=d_model={d}" in screen
    for key in ("partner", "partner_once"):
        assert "".join(lookup(lang, "square-to-sine", f"ui.{key}").split()) in screen


def test_numbers_are_pe_maths_fourier_sums_ladders_and_table():
    nums = SquareToSine.numbers(Params())
    assert (nums.bit, nums.window, nums.period) == (3, 16, 16.0)
    grid = SquareToSine.grid(Params())
    for terms, peak in zip([1, 3, 5, 15], nums.peaks, strict=True):
        assert peak == pytest.approx(pm.fourier_partial_sum(grid, 3, terms).max())
    # one term peaks at 4/π; more terms overshoot the square wave's 1 (Gibbs) by about 18 %
    assert nums.peaks[0] == pytest.approx(4 / np.pi, abs=1e-4)
    assert 1.15 < nums.peaks[-1] < 1.2
    assert nums.family_periods == [2.0, 4.0, 8.0, 16.0]
    np.testing.assert_allclose(nums.omega_binary, pm.binary_frequencies(4))
    np.testing.assert_allclose(nums.omega_pe, [1, 0.1, 0.01, 0.001])
    np.testing.assert_allclose(nums.table, pm.sinusoidal(np.arange(64), 8, 10000.0))
    assert nums.table_range[0] >= -1 and nums.table_range[1] <= 1


@pytest.mark.parametrize("case", list(CASES))
def test_narrated_claims_overshoot_halving_and_a_fixed_factor(case):
    """say.fourier: every partial sum overshoots the square wave's 1; say.slide: the bits'
    speeds halve from one to the next, PE's shrink by one fixed factor set by base and width,
    and each sine's cosine partner turns at the same speed."""
    params = CASES[case]
    nums = SquareToSine.numbers(params)
    assert all(peak > 1 for peak in nums.peaks)
    binary, pe = np.asarray(nums.omega_binary), np.asarray(nums.omega_pe)
    np.testing.assert_allclose(binary[1:] / binary[:-1], 0.5)
    np.testing.assert_allclose(pe[1:] / pe[:-1], params.base ** (-2 / params.d_model))
    xs = np.linspace(0, 16, 200)
    sin, cos = pm.pair_waves(xs, pe)
    # the cosine is the same-speed wave, a quarter turn ahead of its sine
    np.testing.assert_allclose(sin, np.sin(np.outer(xs, pe)))
    np.testing.assert_allclose(cos, np.sin(np.outer(xs, pe) + np.pi / 2), atol=1e-12)


@pytest.mark.parametrize("case", list(CASES))
def test_the_fundamental_is_minus_four_over_pi_sin_and_the_slide_starts_at_plus_sin(case):
    """The slide's first line: pe_math's one-term sum is −(4/π)·sin(πp/2^k); the slide's sines
    start at +sin(πp/2^i), height 1, with each bit's own period (say.slide: flip the sign,
    drop 4/π, same period)."""
    params = CASES[case]
    nums = SquareToSine.numbers(params)
    assert nums.fundamental_scale == pytest.approx(-4 / np.pi)
    assert abs(nums.fundamental_scale) == pytest.approx(nums.peaks[0], abs=1e-4)
    xs = np.linspace(0, nums.window, 513)
    for k in range(nums.shown_bits):
        np.testing.assert_allclose(
            pm.fourier_partial_sum(xs, k, 1),
            nums.fundamental_scale * np.sin(np.pi * xs / 2**k),
            atol=1e-12,
        )
    sin, _ = pm.pair_waves(xs, nums.omega_binary)
    np.testing.assert_allclose(sin, np.sin(np.pi * np.outer(xs, 2.0 ** -np.arange(nums.pairs))))
    assert sin.max() == pytest.approx(1.0, abs=1e-4) and sin.min() == pytest.approx(-1, abs=1e-4)
    np.testing.assert_allclose(
        2 * np.pi / np.asarray(nums.omega_binary), nums.family_periods[: nums.pairs]
    )


@pytest.mark.parametrize(
    "params",
    [*CASES.values(), Params(layout="concat", variant="t2t", max_len=32)],
    ids=[*CASES, "concat,t2t"],
)
def test_narrated_claims_why_each_sin_has_a_cos_partner(params):
    """ui.define / ui.partner / ui.partner_once / say.formula: i runs over the d/2 pairs; each
    (sin, cos) pair of the table is a point on the unit circle (so never both 0) that k positions
    later has turned by k·ω_i; sin alone repeats within a lap, the pair never does."""
    nums = SquareToSine.numbers(params)
    table, omega = (
        np.asarray(nums.table),
        pm.frequencies(params.d_model, params.base, params.variant),
    )
    assert nums.pair_last == params.d_model // 2 - 1 == len(omega) - 1
    a, b = pm.pair_dims(params.d_model, params.layout).T
    sin, cos = table[:, a], table[:, b]
    np.testing.assert_allclose(sin**2 + cos**2, 1.0)
    # the point's angle, read clockwise from (0, 1), is ω_i·p: k positions on it has turned k·ω_i
    angle = np.arctan2(sin, cos)
    for k in (1, 3, 7):
        turned = np.angle(np.exp(1j * (angle[k:] - angle[:-k])))
        expected = np.broadcast_to(np.angle(np.exp(1j * k * omega)), turned.shape)
        np.testing.assert_allclose(turned, expected, atol=1e-9)
    for w in omega:
        lap = np.linspace(0, 2 * np.pi / w, 2000, endpoint=False)
        s, c = pm.pair_waves(lap, [w])
        # sin alone: p and π/ω − p (both in the lap) give the same value...
        mirror = np.pi / w - lap[1:500]
        np.testing.assert_allclose(pm.pair_waves(mirror, [w])[0], s[1:500], atol=1e-9)
        # ...but the pair tells them apart: every position in the lap has its own point
        turn = np.mod(np.arctan2(s, c)[:, 0], 2 * np.pi)
        assert np.all(np.diff(turn) > 0)


def test_the_new_lines_follow_width_and_base():
    """d_model=16, base=100 changes the slide's ω_i line and the formula beat's i and d."""
    _, _, default, _ = build_and_read(SquareToSine, Params(), "en")
    _, _, changed, _ = build_and_read(SquareToSine, Params(base=100.0, d_model=16), "en")
    assert flip_lines(default["heatmap"])[1] == r"\omega_i = 10000^{-2i/8}"
    assert flip_lines(changed["heatmap"])[1] == r"\omega_i = 100^{-2i/16}"
    assert "i=0…3" in squash(default["takeaway"]) and "d=d_model=8" in squash(default["takeaway"])
    assert "i=0…7" in squash(changed["takeaway"])
    assert "d=d_model=16" in squash(changed["takeaway"])
    # the t2t variant's exponent reaches the slide too
    _, _, t2t, _ = build_and_read(SquareToSine, Params(variant="t2t"), "zh")
    assert flip_lines(t2t["heatmap"])[1] == r"\omega_i = 10000^{-i/3}"


def test_numbers_follow_base_width_and_bits():
    default = SquareToSine.numbers(Params())
    changed = SquareToSine.numbers(Params(base=100.0, d_model=16))
    assert changed != default
    np.testing.assert_allclose(changed.omega_pe, pm.frequencies(16, 100.0)[:4])
    np.testing.assert_allclose(changed.table, pm.sinusoidal(np.arange(64), 16, 100.0))
    narrow = SquareToSine.numbers(Params(d_model=4))
    assert narrow.pairs == 2
    np.testing.assert_allclose(narrow.omega_pe, pm.frequencies(4, 10000.0))
    concat = SquareToSine.numbers(Params(layout="concat", variant="t2t", max_len=32))
    np.testing.assert_allclose(
        concat.table, pm.sinusoidal(np.arange(32), 8, 10000.0, "concat", "t2t")
    )
    two_bits = SquareToSine.numbers(Params(n_bits=2))
    assert (two_bits.bit, two_bits.period, two_bits.window) == (1, 4.0, 8)
    assert two_bits.family_periods == [2.0, 4.0]


@pytest.mark.parametrize("params", [Params(), Params(d_model=512), Params(base=100.0, d_model=16)])
def test_the_ladder_says_what_really_changes_and_both_reasons_in_both_languages(params):
    """say.ladder: halving is a fixed factor (2); PE's factor is base^(2/d), so the rungs
    run from 1 towards 1/base at any width; a wide model's last pairs would freeze under
    halving. What a larger base buys (longer texts) is pe-heatmap's to say, not this line's."""
    from lesson.say import line

    nums = SquareToSine.numbers(params)
    omega = pm.frequencies(params.d_model, params.base)
    factor = params.base ** (2 / params.d_model)
    np.testing.assert_allclose(omega[:-1] / omega[1:], factor)
    assert nums.ladder_factor == pytest.approx(factor)
    assert omega[0] == 1 and 1 / params.base < omega[-1] < 1 / params.base * factor * 1.0001
    assert np.pi * 2.0**-255 < 1e-70  # halving over the paper's 256 pairs: frozen
    en, zh = (line(lang, "square-to-sine", "ladder", params) for lang in ("en", "zh"))
    assert "Halving is a fixed factor, but" in en and f"{factor:.3g} from one pair" in en
    assert "too" not in en.split("@ladder")[0]  # no other factor has been named yet
    assert "towards one over the base" in en and "frozen" in en and "longer texts" not in en
    assert "减半是固定倍数" in zh and "也是" not in zh and f"慢 {factor:.3g} 倍" in zh
    assert "底数分之一" in zh and "几乎不动" in zh and "更长的文本" not in zh


@settings(max_examples=40, deadline=None)
@given(params=knob_sets())
@example(params=Params(variant="t2t"))  # the slowest rung is exactly one over the base
@example(params=Params(variant="t2t", d_model=4))
@example(params=Params(d_model=4, base=2.0))
def test_the_rungs_fall_towards_one_over_the_base_and_never_lower(params):
    """The ladder line says the rungs fall from one towards 1/base, never lower, in both
    languages alike: true for the paper's exponent (the slowest rung stays above 1/base) and
    for t2t's (it lands on 1/base exactly), so neither language may say it stops there."""
    from lesson.say import line

    omega = pm.frequencies(params.d_model, params.base, params.variant)
    en, zh = (line(lang, "square-to-sine", "ladder", params) for lang in ("en", "zh"))
    if len(omega) == 1:
        assert "one over the base" not in en and "底数分之一" not in zh
        return
    assert omega[0] == 1 and np.all(np.diff(omega) < 0)
    assert omega[-1] >= (1 / params.base) * (1 - 1e-12)
    exact = bool(np.isclose(omega[-1], 1 / params.base, rtol=1e-9, atol=0))
    assert exact == (params.variant == "t2t")
    assert "towards one over the base, never lower" in en
    assert "往底数分之一降，不会更低" in zh and "为止" not in zh


def test_with_one_pair_the_ladder_line_claims_nothing_of_the_base():
    """d_model = 2: one pair at ω = 1 whatever the base, so "the base sets the slowest lap"
    would be false."""
    from lesson.say import line

    for base in (100.0, 10000.0):
        assert pm.periods(2, base)[-1] == pytest.approx(2 * np.pi)
    params = Params(d_model=2)
    assert SquareToSine.numbers(params).lines["ladder"] == "one"
    en, zh = (line(lang, "square-to-sine", "ladder", params) for lang in ("en", "zh"))
    assert "only one pair" in en and "whatever the base" in en and "base sets" not in en
    assert "只有一对" in zh and "不论底数多少" in zh and "6.3" in zh


# ------------------------------------------------ the lines that follow the knobs, by hand
def said(beat: str, params: Params) -> tuple[str, str]:
    from lesson.say import line

    return line("en", "square-to-sine", beat, params), line("zh", "square-to-sine", beat, params)


@settings(max_examples=25, deadline=None)
@given(params=knob_sets())
@example(params=Params(base=2.0))  # the slowest pair still turns 0.59 rad a position
@example(params=Params(d_model=2))  # one pair
@example(params=Params(max_len=1))  # one column
@example(params=Params(max_len=2))
@example(params=Params(max_len=4096))
@example(params=Params(d_model=512))
@example(params=Params(variant="t2t", d_model=4))
@example(params=Params(base=1.01, d_model=4096, layout="concat"))
def test_the_heatmap_says_how_the_pairs_change_as_the_table_shows(params):
    # say.heatmap: each pair changes more slowly per position than the one before it;
    # one pair turns one radian a position; one position is one column of sin 0, cos 1.
    # How little the slow pairs move is pe-heatmap's (the price of a large base): not here.
    n, d = params.max_len, params.d_model
    table = pm.sinusoidal(np.arange(n), d, params.base, params.layout, params.variant)
    pairs = pm.pair_dims(d, params.layout)
    en, zh = said("heatmap", params)
    assert "stripe quickly" not in en and "明暗交替飞快" not in zh
    if n == 1:
        np.testing.assert_allclose(table[0, pairs[:, 0]], 0.0)
        np.testing.assert_allclose(table[0, pairs[:, 1]], 1.0)
        assert "single column" in en and "只有一列" in zh
        return
    # how far each pair's (sin, cos) point moves in one step (rows: steps, columns: pairs)
    step = np.hypot(*(np.diff(table[:, pairs[:, j]], axis=0) for j in (0, 1)))
    np.testing.assert_allclose(step, np.broadcast_to(step[:1], step.shape), atol=1e-9)
    if d == 2:
        assert np.arccos(table[1, 1]) == pytest.approx(1.0)  # one radian a position
        assert "single pair" in en and "只有一对" in zh
        return
    assert np.all(np.diff(step[0]) < 0)  # each pair moves less than the one before it
    assert "each pair of dimensions changes more slowly" in en
    assert "每一对维都比前一对变化得慢" in zh
    assert "barely" not in en and "几乎不变" not in zh


@pytest.mark.parametrize("n_bits", [1, 2, 4])
def test_the_family_is_one_wave_for_one_bit(n_bits):
    # say.family: a family of waves, each period twice the last; one bit has one wave
    params = Params(n_bits=n_bits)
    periods = SquareToSine.numbers(params).family_periods
    np.testing.assert_allclose(periods, 2.0 ** np.arange(1, min(n_bits, 4) + 1))
    en, zh = said("family", params)
    if n_bits == 1:
        assert "one smooth wave, period two" in en and "只有一条平滑的波" in zh
        assert "twice the last" not in en and "逐个翻倍" not in zh
    else:
        assert "each period twice the last" in en and "波长逐个翻倍" in zh


@pytest.mark.parametrize(
    "params", [Params(base=1.01), Params(base=1.01, d_model=4096), Params(d_model=4096)]
)
def test_a_ladder_factor_that_reads_as_one_is_said_as_barely_above_one(params):
    # say.ladder: base^(2/d) just above 1 is not "here 1 from one pair to the next"
    factor = params.base ** (2 / params.d_model)
    assert 1 < factor < 1.005 and f"{factor:.3g}" == "1"
    en, zh = said("ladder", params)
    assert "barely above one" in en and " 1 from one pair" not in en
    assert "一丁点" in zh and "慢 1 倍" not in zh
    assert "frozen" in en and "几乎不动" in zh


def test_the_build_says_nothing_the_tests_after_it_say():
    """The tidy step builds (sign and 4/π gone) and leaves "bounded" to pe-heatmap's range,
    which says it once, at any position and base; the ladder gives the base's first reason
    (halving freezes a wide model's last pairs) and leaves what a larger base buys and costs
    to pe-heatmap's base and movement."""
    from lesson.say import line

    for params in (Params(), Params(d_model=2), Params(base=1.01, d_model=4096)):
        en, zh = said("tidy", params)
        assert "four over pi" in en and "π 分之四" in zh and "4/π" not in zh
        assert "minus one" not in en and "负一" not in zh
        for beat in ("ladder", "heatmap", "takeaway"):
            en, zh = said(beat, params)
            assert "longer text" not in en and "更长的文本" not in zh, beat
            assert "minus one and one" not in en and "负一和正一之间" not in zh, beat
        range_en = line("en", "pe-heatmap", "range", params)
        range_zh = line("zh", "pe-heatmap", "range", params)
        assert "between minus one and one" in range_en and "负一到一之间" in range_zh
