"""Scene 4, square-to-sine: the numbers it shows, its layout in both languages, and a real render."""

import numpy as np
import pytest

import pe_math as pm
from pe_math import Params
from scenes.square_to_sine import SquareToSine
from tests.scene_tools import assert_lesson_clip, build_scene, render_scene

BEATS = ["square", "fourier", "fundamental", "family", "slide", "heatmap", "formula", "takeaway"]
CASES = {
    "defaults": Params(),
    "base=100,d_model=16": Params(base=100.0, d_model=16),
    "d_model=4": Params(d_model=4),
}


def build_and_read(params: Params, lang: str):
    """Build the scene, checking layout; the report keeps the words and live numbers at each beat."""
    scene, report = build_scene(SquareToSine, params, lang)
    return scene, report, report.words_at_start, report.values_at_start


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("case", list(CASES))
def test_builds_clean_and_shows_its_numbers(case, lang):
    params = CASES[case]
    scene, report, seen, values = build_and_read(params, lang)
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


@pytest.mark.render
def test_renders_a_clip_of_the_right_length_with_its_beats(tmp_path):
    clip = render_scene(SquareToSine, tmp_path)
    assert_lesson_clip(clip, BEATS)
