"""Scene 9, pe-heatmap: the numbers it shows, its layout in both languages, every claim
its captions make, and a real render."""

import math

import numpy as np
import pytest

import pe_math as pm
from lesson import registry
from lesson.facts import GPT2_POSITIONS
from pe_math import Params
from scenes.chapters.pe_heatmap.scene import (
    DIGITS,
    MAX_POSITIONS,
    PeHeatmap,
    contrast_base,
    tex_power,
)
from scenes.kit.components import compact
from scenes.kit.theme import fmt
from tests.scene_tools import (
    build_in,
    build_scene,
    catalogue_ui,
    omegas,
    squash,
)

BEATS = ["matrix", "range", "curves", "movement", "base", "takeaway", "bridge"]
DEFAULTS = Params()
CHANGED = Params(heat_d_model=128, heat_dims=(0, 2, 100), layout="concat", base=100.0)
CASES = {
    "defaults": DEFAULTS,
    "base=100": Params(base=100.0),
    "d=128,dims=0,2,100": Params(heat_d_model=128, heat_dims=(0, 2, 100)),
    "concat": Params(layout="concat"),
    "d=16": Params(heat_d_model=16, heat_dims=(1, 7, 15)),
    "t2t,max_len=300": Params(variant="t2t", max_len=300, heat_dims=(3, 0)),
    "changed": CHANGED,
}

ui = catalogue_ui(PeHeatmap.slug)


# ----------------------------------------------------------------- by hand
def column(j: int, d: int, layout: str) -> tuple[int, str]:
    """What dim j holds: (pair, "sin" or "cos"). Interleaved: pair i in dims 2i, 2i+1;
    concat: sines of every pair first, then their cosines (pair i in dims i, i + d/2)."""
    if layout == "concat":
        return j % (d // 2), "sin" if j < d // 2 else "cos"
    return j // 2, "sin" if j % 2 == 0 else "cos"


def pe(params: Params, positions) -> np.ndarray:
    d = params.heat_d_model
    w = omegas(d, params.base, params.variant)
    p = np.asarray(positions, dtype=float)
    out = np.empty((len(p), d))
    for j in range(d):
        pair, fn = column(j, d, params.layout)
        out[:, j] = (np.sin if fn == "sin" else np.cos)(p * w[pair])
    return out


# ----------------------------------------------------------------- numbers
@pytest.mark.parametrize("case", list(CASES))
def test_numbers_match_an_independent_computation(case):
    params = CASES[case]
    nums = PeHeatmap.numbers(params)
    d, base, variant = params.heat_d_model, params.base, params.variant
    n = min(params.max_len, MAX_POSITIONS)
    w = omegas(d, base, variant)
    table = pe(params, np.arange(n))
    dims = list(dict.fromkeys(params.heat_dims))

    assert (nums.shown_len, nums.max_len, nums.d_model, nums.stride) == (n, params.max_len, d, 1)
    assert nums.rows == list(range(d)) and nums.dims == dims
    np.testing.assert_allclose(nums.table, table, atol=1e-12)
    assert nums.value_min == pytest.approx(table.min(), abs=1e-12)
    assert nums.value_max == pytest.approx(table.max(), abs=1e-12)
    assert nums.int_last == n - 1
    assert [column(j, d, params.layout) for j in dims] == list(
        zip(nums.dim_pair, nums.dim_fn, strict=True)
    )
    pairs = [column(j, d, params.layout)[0] for j in dims]
    np.testing.assert_allclose(nums.dim_period, 2 * np.pi / w[pairs], rtol=1e-12)
    np.testing.assert_allclose(nums.dim_laps, (n - 1) * w[pairs] / (2 * np.pi), rtol=1e-12)
    np.testing.assert_allclose(nums.dim_lo, table[:, dims].min(axis=0), atol=1e-12)
    np.testing.assert_allclose(nums.dim_hi, table[:, dims].max(axis=0), atol=1e-12)
    np.testing.assert_allclose(nums.curves, pe(params, nums.curve_x)[:, dims].T, atol=1e-9)
    assert nums.curve_x[0] == 0 and nums.curve_x[-1] == n - 1
    steps = np.abs(pe(params, [1])[0] - pe(params, [0])[0])
    np.testing.assert_allclose(nums.steps, steps, atol=1e-15)
    np.testing.assert_allclose(nums.dim_steps, steps[dims], atol=1e-15)
    # the slowest pair and its lap, at this base and at the contrast
    assert nums.slowest_pair == d // 2 - 1
    slow = [j for j in range(d) if column(j, d, params.layout)[0] == d // 2 - 1]
    assert nums.slowest_dims == slow
    other = 100.0 if base > 100 else 10000.0
    assert nums.bases == [base, other] and nums.context == 1024
    for k, b in enumerate((base, other)):
        slowest = omegas(d, b, variant)[-1]
        lap = 2 * np.pi / slowest
        assert nums.slowest_lap[k] == pytest.approx(lap, rel=1e-12)
        assert nums.context_laps[k] == pytest.approx(1023 * slowest / (2 * np.pi), rel=1e-12)
        gap = round(lap) if round(lap) < 1024 else 0
        assert nums.repeat_gap[k] == gap
        miss = math.degrees(abs(gap * slowest - 2 * np.pi)) if gap else 0.0
        assert nums.repeat_deg[k] == pytest.approx(miss, abs=1e-9)


def test_defaults_tell_the_heatmap_story():
    nums = PeHeatmap.numbers(DEFAULTS)
    assert (nums.shown_len, nums.d_model, nums.dims) == (64, 64, [0, 10, 40])
    assert (fmt(nums.value_min, DIGITS), fmt(nums.value_max, DIGITS)) == ("−1.00", "1.00")
    assert nums.dim_fn == ["sin", "sin", "sin"] and nums.dim_pair == [0, 5, 20]
    assert [compact(v) for v in nums.dim_laps] == ["10", "2.38", "0.0317"]
    assert nums.dim_hi[2] == pytest.approx(np.sin(63 * 10000 ** (-40 / 64)))  # ≈ 0.198
    assert [compact(v) for v in nums.dim_steps] == ["0.841", "0.235", "0.00316"]
    assert nums.steps[30] == pytest.approx(0.0133, abs=1e-4)
    assert nums.slowest_dims == [62, 63]
    assert [compact(v) for v in nums.slowest_lap] == ["47,117", "544"]
    assert nums.repeat_gap == [0, 544]


def test_concat_dims_are_the_columns_of_the_concat_table():
    # under concat, dim j < d/2 is sin of pair j and dim j ≥ d/2 cos of pair j − d/2:
    # dim 40 is then a fairly fast cosine, not a slow sine
    nums = PeHeatmap.numbers(Params(layout="concat"))
    assert nums.dim_fn == ["sin", "sin", "cos"] and nums.dim_pair == [0, 10, 8]
    assert nums.slowest_dims == [31, 63]
    assert nums.dim_laps[2] == pytest.approx(63 * 0.1 / (2 * np.pi))
    assert nums.dim_hi[2] - nums.dim_lo[2] > 1.9  # it swings through nearly all of [−1, 1]


def test_numbers_follow_the_params():
    base = PeHeatmap.numbers(DEFAULTS)
    for changed in (
        Params(max_len=32),
        Params(heat_d_model=48),
        Params(heat_dims=(1, 2)),
        Params(base=500.0),
        Params(layout="concat"),
        Params(variant="t2t"),
    ):
        assert PeHeatmap.numbers(changed) != base
    # a model wider than the map draws every s-th dim, the chosen and the slowest among them
    wide = PeHeatmap.numbers(Params(heat_d_model=600, heat_dims=(1, 2, 3, 599)))
    assert wide.stride == 3 and {1, 2, 3, 598, 599} <= set(wide.rows)
    assert len(np.asarray(wide.table)[0]) == len(wide.rows)
    long = PeHeatmap.numbers(Params(max_len=1000))
    assert long.shown_len == MAX_POSITIONS and long.max_len == 1000


def test_the_contrast_base_is_computed_not_assumed():
    assert contrast_base(10000.0) == 100.0 and contrast_base(100.0) == 10000.0
    small = PeHeatmap.numbers(Params(base=100.0))
    # this lesson's base is the small one: its slowest hand laps inside GPT-2's context
    assert small.repeat_gap[0] == 544 and small.repeat_gap[1] == 0


# ------------------------------------------------------------ on the screen
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("case", ["defaults", "changed"])
def test_builds_clean_and_shows_its_numbers(case, lang):
    params = CASES[case]
    scene, report = build_scene(PeHeatmap, params, lang)
    report.assert_clean()
    report.assert_readable()
    assert [b for b, _ in scene.beats] == BEATS
    nums = PeHeatmap.numbers(params)
    seen = report.words_at_start
    # the end of "matrix": the title, the axes, the formula with this base and width
    after = squash(seen["range"])
    assert squash(ui(lang, "heat_title", positions=nums.shown_len, dims=nums.d_model)) in after
    assert {"0", str(nums.shown_len - 1), str(nums.d_model - 1)} <= set(seen["range"])
    assert squash(ui(lang, f"layout_{params.layout}", last=nums.d_model // 2 - 1)) in after
    tex = " ".join(seen["range"])
    assert compact(params.base).replace(",", "{,}") + f"^{{2i/{nums.d_model}}}" in tex
    # the end of "range": the real min and max, and the integer scheme's last value
    after = seen["curves"]
    assert fmt(nums.value_min, DIGITS) in after and fmt(nums.value_max, DIGITS) in after
    assert squash(
        ui(
            lang,
            "integer",
            value=compact(nums.int_last),
            last=nums.shown_len - 1,
            order=registry.get("integer-scale").order,
        )
    ) in squash(after)
    # the end of "curves": each chosen dim named with its pair, its laps or its range
    after = squash(seen["movement"])
    for k, j in enumerate(nums.dims):
        values = dict(dim=j, fn=nums.dim_fn[k], pair=nums.dim_pair[k], n=nums.shown_len)
        values.update(laps=compact(nums.dim_laps[k]))
        values.update(lo=fmt(nums.dim_lo[k], DIGITS), hi=fmt(nums.dim_hi[k], DIGITS))
        key = "curve_fast" if nums.dim_laps[k] >= 1 else "curve_slow"
        assert squash(ui(lang, key, **values)) in after
    # the end of "movement": the first step of every chosen dim, on a labelled log scale
    after = seen["base"]
    for value in nums.dim_steps:
        assert compact(value) in after
    assert squash(ui(lang, "step_title")) in squash(after)
    assert tex_power(0) in after and tex_power(nums.step_decades[1]) in after
    # the end of "base": both bases, their slowest laps and what they mean for 1,024 positions
    after = squash(seen["takeaway"])
    assert squash(ui(lang, "this_base", b=compact(nums.bases[0]))) in after
    assert squash(ui(lang, "other_base", b=compact(nums.bases[1]))) in after
    for k in range(2):
        assert squash(ui(lang, "slowest_lap", lap=compact(nums.slowest_lap[k]))) in after
    assert report.values_at_start["takeaway"] == [GPT2_POSITIONS - 1]


def test_knobs_change_what_the_scene_reports():
    _, before = build_scene(PeHeatmap, DEFAULTS, "en")
    _, after = build_scene(PeHeatmap, CHANGED, "en")
    for beat in ("range", "movement", "base", "takeaway"):
        assert after.words_at_start[beat] != before.words_at_start[beat], beat
    words = squash(after.words_at_start["takeaway"])
    # base 100 is this lesson's now: its slowest hand laps inside GPT-2's context, and the
    # paper's 10,000 is the contrast
    assert squash("this lesson: base 100") in words
    assert squash("for contrast: base 10,000") in words
    assert squash("positions 585 apart") in words
    assert squash("PE matrix: 64 positions × 128 dims") in squash(after.words_at_start["range"])
    assert squash("dim 100: cos of pair 36") in squash(after.words_at_start["movement"])


@pytest.mark.parametrize("aspect,lang", [("9:16", "en"), ("1:1", "zh")])
def test_other_frames_compose(aspect, lang):
    _, report = build_in(PeHeatmap, aspect, lang, DEFAULTS)
    report.assert_clean()
    report.assert_readable()
    report.assert_fills_the_stage()
    assert fmt(PeHeatmap.numbers(DEFAULTS).value_min, DIGITS) in report.words_at_start["curves"]


# ------------------------------------------------- the captions' claims
@pytest.mark.parametrize("case", list(CASES))
def test_every_value_lies_in_minus_one_to_one(case):
    # ui.bounded and the takeaway: sin and cos never leave [−1, 1]
    params = CASES[case]
    table = pe(params, np.arange(0, 5000, 7))
    assert np.all(np.abs(table) <= 1.0)
    nums = PeHeatmap.numbers(params)
    assert -1.0 <= nums.value_min and nums.value_max <= 1.0


def test_the_extremes_are_about_minus_one_and_exactly_one():
    # say.range: "the smallest entry is about minus one, the largest exactly one"
    nums = PeHeatmap.numbers(DEFAULTS)
    assert nums.value_max == 1.0  # cos(0) at position 0
    assert -1.0 < nums.value_min < -0.9999
    # unlike chapter 2's integers, which are already 63 at position 63 and keep growing
    assert nums.int_last == 63


def test_the_fastest_chosen_dim_laps_many_times_and_the_slowest_not_a_tenth():
    # say.curves at the defaults, and the curve labels' "N laps"
    nums = PeHeatmap.numbers(DEFAULTS)
    xs = np.linspace(0, 63, 63 * 200 + 1)
    wave = pe(DEFAULTS, xs)[:, 0]  # dim 0: sin(p)
    ups = np.count_nonzero((wave[:-1] < 0) & (wave[1:] >= 0))  # one per finished lap
    assert ups == math.floor(nums.dim_laps[0]) == 10
    assert nums.dim_laps[2] < 0.1
    slow = pe(DEFAULTS, np.arange(64))[:, 40]
    assert slow.min() == 0.0 and slow.max() == pytest.approx(0.198, abs=1e-3)
    assert np.all(np.diff(slow) > 0)  # it only climbs: a sliver of one lap


def test_first_steps_run_from_nearly_a_unit_to_a_thousandth_or_less():
    # say.movement: fast pairs jump by nearly a whole unit, the slowest by a thousandth or
    # less, across enough powers of ten to need a log scale
    steps = np.abs(pe(DEFAULTS, [1])[0] - pe(DEFAULTS, [0])[0])
    assert steps.max() == pytest.approx(np.sin(1.0)) and steps.max() > 0.8
    assert steps[[62, 63]].max() < 1e-3
    assert math.log10(steps.max() / steps.min()) > 3
    np.testing.assert_allclose(steps[[0, 10, 30, 40]], [0.841, 0.235, 0.0133, 0.00316], rtol=3e-3)
    # every bar above the axis's floor: the lowest decade is under the smallest step
    nums = PeHeatmap.numbers(DEFAULTS)
    assert 10.0 ** nums.step_decades[-1] <= steps.min() and nums.step_decades[0] == 0


def test_a_large_base_keeps_the_slowest_hand_from_lapping_a_gpt2_context():
    # say.base: at 10,000 the slowest lap is tens of thousands of positions, far beyond
    # GPT-2's 1,024; at 100 it is a few hundred, and positions that far apart nearly share it
    d = DEFAULTS.heat_d_model
    lap = 2 * np.pi * 10000 ** ((d - 2) / d)
    assert 10_000 <= lap < 100_000 and lap > 10 * GPT2_POSITIONS
    assert (GPT2_POSITIONS - 1) / lap < 1  # ui.lap_long: it never comes round
    small = 2 * np.pi * 100 ** ((d - 2) / d)
    assert 100 <= small < 1000 and round(small) == 544
    slowest = 100 ** (-(d - 2) / d)
    miss = abs(544 * slowest - 2 * np.pi)
    assert math.degrees(miss) < 0.1  # ui.lap_short: within a tenth of a degree
    nums = PeHeatmap.numbers(DEFAULTS)
    assert compact(nums.repeat_deg[1]) == compact(math.degrees(miss))


def test_why_ten_thousand_is_the_paper_s_choice_and_the_base_moves_only_the_slow_end():
    # say.base at the defaults: the paper's choice, the fastest hand the same at any base,
    # the slowest lap growing towards 2π·base with the width, and what a small base costs
    from lesson.say import line

    en, zh = (line(lang, "pe-heatmap", "base", DEFAULTS) for lang in ("en", "zh"))
    assert "Why ten thousand? The original paper chose it." in en
    assert "为什么是一万？这是原论文的选择。" in zh
    for base in (1.5, 100.0, 10000.0, 500000.0):
        assert pm.frequencies(DEFAULTS.heat_d_model, base)[0] == 1.0  # one radian a step
    laps = [pm.periods(d, 10000.0)[-1] for d in (8, 64, 512, 4096)]
    assert np.all(np.diff(laps) > 0) and laps[-1] < 2 * np.pi * 10000 < laps[-1] * 1.01
    assert "47,117" in en and "47117" in zh
    # base 100's lap of 544 is a near repeat on that hand only, not of the whole code
    assert "on that hand positions 544 apart" in en and "相隔 544 的两个位置在这根指针上" in zh
    table = pm.sinusoidal([0, 1, 544], DEFAULTS.heat_d_model, 100.0)
    assert pm.cosine(table[0], table[2]) == pytest.approx(-0.17, abs=0.01)
    assert np.linalg.norm(table[2] - table[0]) > 4 * np.linalg.norm(table[1] - table[0])


def test_a_lap_of_nine_positions_is_not_called_a_large_base():
    # base = 1.5: the slowest hand comes round every 9 positions
    from lesson.say import line

    params = Params(base=1.5)
    nums = PeHeatmap.numbers(params)
    assert round(nums.slowest_lap[0]) == 9 and nums.lines["base"] == "other_short_long"
    en, zh = (line(lang, "pe-heatmap", "base", params) for lang in ("en", "zh"))
    assert "large base" not in en and "Why" not in en and "this lesson uses 1.5" in en
    assert "这么大" not in zh and "为什么" not in zh and "本课用 1.5" in zh
    assert "on that hand positions 9 apart nearly share" in en


def test_with_one_pair_the_base_changes_nothing_and_the_words_say_so():
    from lesson.say import line

    params = Params(heat_d_model=2, heat_dims=(0, 1))
    nums = PeHeatmap.numbers(params)
    assert nums.lines["base"] == "one"
    assert nums.slowest_lap[0] == pytest.approx(2 * np.pi) == pytest.approx(nums.slowest_lap[1])
    en, zh = (line(lang, "pe-heatmap", "base", params) for lang in ("en", "zh"))
    assert "only one hand" in en and "whatever the base" in en and "6.3" in en
    assert "只有一根指针" in zh and "不论底数多少" in zh and "6.3" in zh


def test_the_heat_map_chapter_reads_the_table_anew_rather_than_rebuilding_it():
    # chapter 4 stacks the table; this one says it is that table, and what it adds
    from lesson.say import line

    en, zh = (line(lang, "pe-heatmap", "matrix", DEFAULTS) for lang in ("en", "zh"))
    assert "the formula built" in en and "three ways" in en
    assert "公式算出的那张表" in zh and "三个角度" in zh
    assert line("en", "square-to-sine", "heatmap") not in en
