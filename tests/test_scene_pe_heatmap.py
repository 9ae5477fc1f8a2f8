"""Scene 9, pe-heatmap: the numbers it shows, its layout in both languages, every claim
its captions make, and a real render."""

import math
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import pe_math as pm
from lesson import registry
from lesson.catalogue import catalogue
from lesson.say import line
from lesson.speaker import speaker
from pe_math import Params
from scenes.chapters.pe_heatmap.scene import (
    DIGITS,
    MAX_POSITIONS,
    TEXT_POSITIONS,
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
from tests.test_knob_sweep import EXAMPLES, examples_at, knob_sets

BEATS = ["matrix", "range", "movement", "base", "takeaway", "bridge"]
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
    # its first step is a cosine's, 1 − cos 0.1, not a slow sine's
    assert nums.dim_steps[2] == pytest.approx(1 - np.cos(0.1))


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
    after = seen["movement"]
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
    assert squash(ui(lang, "context", n=compact(TEXT_POSITIONS))) in after  # the yardstick
    assert report.values_at_start["takeaway"] == [TEXT_POSITIONS - 1]


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
    # the chosen dim 100 is tagged beside its row with its first step: under concat at
    # width 128 it is the cosine of pair 36, 1 − cos ω_36
    step = 1 - np.cos(100 ** (-72 / 128))
    assert "100" in after.words_at_start["base"] and compact(step) in after.words_at_start["base"]


@pytest.mark.parametrize("aspect,lang", [("9:16", "en"), ("1:1", "zh")])
def test_other_frames_compose(aspect, lang):
    _, report = build_in(PeHeatmap, aspect, lang, DEFAULTS)
    report.assert_clean()
    report.assert_readable()
    report.assert_fills_the_stage()
    assert fmt(PeHeatmap.numbers(DEFAULTS).value_min, DIGITS) in report.words_at_start["movement"]


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
    # the table's corners: the largest exactly one, the smallest just above minus one
    # (-0.99999999, which would round to "-1": say.range names no smallest value)
    nums = PeHeatmap.numbers(DEFAULTS)
    assert nums.value_max == 1.0  # cos(0) at position 0
    assert -1.0 < nums.value_min < -0.9999
    # unlike chapter 2's integers, which are already 63 at position 63 and keep growing
    assert nums.int_last == 63


def test_first_steps_run_from_nearly_a_unit_to_far_below_a_hundredth():
    # say.movement at the defaults: 0.84 for the fastest dim down to about 1e-8 for the
    # slowest ("almost nothing"), across enough powers of ten to need a log scale
    steps = np.abs(pe(DEFAULTS, [1])[0] - pe(DEFAULTS, [0])[0])
    assert steps.max() == pytest.approx(np.sin(1.0)) and steps.max() > 0.8
    assert steps[[62, 63]].max() < 1e-3
    assert math.log10(steps.max() / steps.min()) > 3
    np.testing.assert_allclose(steps[[0, 10, 30, 40]], [0.841, 0.235, 0.0133, 0.00316], rtol=3e-3)
    # every bar above the axis's floor: the lowest decade is under the smallest step
    nums = PeHeatmap.numbers(DEFAULTS)
    assert 10.0 ** nums.step_decades[-1] <= steps.min() and nums.step_decades[0] == 0
    en, zh = said("movement", DEFAULTS)
    assert steps.min() < 1e-7
    assert "the fastest dim moves 0.84, the slowest almost nothing" in en
    assert "最快的一维变 0.84，最慢的一维几乎不动" in zh


def test_a_large_base_keeps_the_slowest_hand_from_lapping_a_long_text():
    # the base panel: at 10,000 the slowest lap is tens of thousands of positions, far
    # beyond a text of 1,024; at 100 it is a few hundred, and positions that far apart
    # nearly share that hand's reading
    d = DEFAULTS.heat_d_model
    lap = 2 * np.pi * 10000 ** ((d - 2) / d)
    assert 10_000 <= lap < 100_000 and lap > 10 * TEXT_POSITIONS
    assert (TEXT_POSITIONS - 1) / lap < 1  # ui.lap_long: it never comes round
    small = 2 * np.pi * 100 ** ((d - 2) / d)
    assert 100 <= small < 1000 and round(small) == 544
    slowest = 100 ** (-(d - 2) / d)
    miss = abs(544 * slowest - 2 * np.pi)
    assert math.degrees(miss) < 0.1  # ui.lap_short: within a tenth of a degree
    nums = PeHeatmap.numbers(DEFAULTS)
    assert compact(nums.repeat_deg[1]) == compact(math.degrees(miss))


def test_why_ten_thousand_is_answered_by_the_slowest_lap_at_two_bases():
    en, zh = said("base", DEFAULTS)
    # the paper gives no reason for its base: the line says so, then shows the trade-off
    assert en.startswith("The original paper chose ten thousand without saying why.")
    assert "Here is the trade-off. At base 10,000" in en
    assert zh.startswith("原论文选了一万，却没说为什么。来看其中的取舍。底数 10000")
    assert "Why did" not in en and "为什么选" not in zh
    assert "47,117 positions a lap" in en and "turns 0.0217 laps" in en
    assert "at base 100 it would turn 1.88 laps" in en
    assert "47117 个位置" in zh and "转 0.0217 圈" in zh and "则转 1.88 圈" in zh
    # base 100's 1.88 laps make a near repeat on that hand only, not of the whole code
    table = pm.sinusoidal([0, 1, 544], DEFAULTS.heat_d_model, 100.0)
    assert pm.cosine(table[0], table[2]) == pytest.approx(-0.17, abs=0.01)
    assert np.linalg.norm(table[2] - table[0]) > 4 * np.linalg.norm(table[1] - table[0])


def test_a_lap_of_nine_positions_is_not_called_a_large_base():
    # base = 1.5: the slowest hand comes round every 9.31 positions, 110 times in the text
    params = Params(base=1.5)
    nums = PeHeatmap.numbers(params)
    assert round(nums.slowest_lap[0]) == 9 and nums.lines["base"] == "many"
    en, zh = said("base", params)
    assert "large base" not in en and "At base 1.5 and" in en
    assert "这么大" not in zh and "底数 1.5、" in zh
    assert "takes 9.31 positions a lap" in en and "it turns 110 laps" in en


def test_with_one_pair_the_base_changes_nothing_and_the_words_say_so():
    params = Params(heat_d_model=2, heat_dims=(0, 1))
    nums = PeHeatmap.numbers(params)
    assert nums.lines["base"] == "one"
    assert nums.slowest_lap[0] == pytest.approx(2 * np.pi) == pytest.approx(nums.slowest_lap[1])
    en, zh = said("base", params)
    assert "only one hand" in en and "whatever the base" in en and "6.3" in en
    assert "只有一根指针" in zh and "不论底数多少" in zh and "6.3" in zh


def test_the_heat_map_chapter_does_not_retell_the_ladder_or_the_table():
    # square-to-sine stacks the table and builds the ladder (one radian for the fastest pair,
    # each pair slower than the last); this chapter only tests the table: its range, and what
    # the base buys and costs
    en, zh = said("matrix", DEFAULTS)
    assert "whole table" in en and "整张表" in zh
    assert "each row" not in en and "每行" not in zh
    assert line("en", "square-to-sine", "heatmap") not in en
    for lang in ("en", "zh"):
        for text in all_alternatives(lang):
            assert "radian" not in text and "弧度" not in text, text
            assert "laps across the table" not in text and "这段位置里" not in text, text


# ------------------------------------------- the narration at any knob set (oracles)
# Each test below recomputes its fact by hand (pe() and omegas(), not the scene's numbers)
# at knob sets drawn across the allowed ranges, and at the edges listed here.
EDGES = [
    *EXAMPLES,
    {"base": 1.5},
    {"base": 1e9},
    {"variant": "t2t", "base": 1e9},
    {"layout": "concat"},
    {"layout": "concat", "heat_dims": (0, 32)},  # one pair's sine and cosine under concat
    {"heat_dims": (63, 62)},  # the slowest pair, both dims, under a tenth of a lap
    {"heat_d_model": 2, "heat_dims": (1,)},
    {"heat_d_model": 8, "heat_dims": (0, 7)},  # narrower than the lesson's d_model
    {"heat_d_model": 4096, "base": 1e9, "heat_dims": (4095, 0)},  # steps below a float's
    {"max_len": 1, "heat_dims": (0,)},
    {"max_len": 4096, "heat_dims": (0, 1, 2, 3)},  # four dims, two pairs
]


def oracle(test):
    """Run `test(params)` at 25 drawn knob sets and at every edge above."""
    test = examples_at(EDGES)(given(params=knob_sets())(test))
    return settings(
        max_examples=25, deadline=None, suppress_health_check=[HealthCheck.filter_too_much]
    )(test)


def said(beat: str, params: Params) -> tuple[str, str]:
    return line("en", PeHeatmap.slug, beat, params), line("zh", PeHeatmap.slug, beat, params)


def spoken(lang: str, value: float, spec: str) -> str:
    """A number as the speaker says it (the fact is computed here; only its wording is not)."""
    return speaker(lang).format_field(value, spec)


SCALE = {"": 1.0, " million": 1e6, " billion": 1e9, "万": 1e4, "亿": 1e8}


def values(text: str) -> list[float]:
    """The numbers a line says, in order, a scale word multiplying ("1 billion", "10亿")."""
    found = re.findall(r"(\d[\d,]*(?:\.\d+)?)( million| billion|万|亿)?", text)
    return [float(x.replace(",", "")) * SCALE[word] for x, word in found]


@oracle
def test_the_matrix_line_says_its_width_and_never_that_it_grew(params):
    d, stride = params.heat_d_model, math.ceil(params.heat_d_model / 256)
    en, zh = said("matrix", params)
    assert f"width of {d}," in en and f"宽度是 {d} 维" in zh
    assert "model is 512 wide" in en and "模型是 512 维" in zh
    # zh once said the table was "widened" to d dims, false at d <= d_model (2 or 8)
    assert "放宽" not in zh or d > params.d_model
    # past 256 dims only every stride-th dim gets a row: each row is a dim, not each dim a row
    assert stride == 1 or "a row per dim" not in en
    assert stride == 1 or "每一维一行" not in zh


@oracle
def test_the_range_answers_need_two_once_at_any_position_and_base(params):
    # say.range: every entry, a sine or a cosine, stays in [−1, 1] wherever the position
    # and the base (checked far past the table and at both ends of the base's range), and
    # the largest is exactly one (cos 0 at position 0); no smallest value is named, for
    # -0.99999999 would be said "-1", and a short table's least is far from it
    n = min(params.max_len, MAX_POSITIONS)
    table = pe(params, np.arange(n))
    en, zh = said("range", params)
    assert -1.0 <= table.min() and table.max() == 1.0
    assert "the largest is exactly one" in en and "最大的恰好是一" in zh
    assert not re.search(r"\d", en + zh) and "smallest" not in en and "最小" not in zh
    for base in (params.base, 1.01, 1e9):
        far = pe(params.replace(base=base), np.arange(0, 100_000, 97))
        assert np.abs(far).max() <= 1.0
    assert "at any position and any base it stays between minus one and one" in en
    assert "不管位置多远、底数多大，都落在负一到一之间" in zh


@oracle
def test_movement_gives_the_biggest_and_the_smallest_first_step(params):
    d, layout = params.heat_d_model, params.layout
    w = omegas(d, params.base, params.variant)
    steps = np.abs(pe(params, [1])[0] - pe(params, [0])[0])
    biggest = np.sin(w[0])  # the fastest pair's sine
    smallest = 2 * np.sin(w[-1] / 2) ** 2  # the slowest pair's cosine: 1 − cos ω, uncancelled
    assert steps.max() == pytest.approx(biggest, abs=1e-12)
    assert steps.min() == pytest.approx(smallest, abs=1e-12)
    assert column(int(steps.argmax()), d, layout)[0] == 0
    if smallest > 1e-9:  # (below that, rounding in 1 − cos ω ties the slow dims)
        assert column(int(steps.argmin()), d, layout)[0] == d // 2 - 1
    en, zh = said("movement", params)
    assert "thousandth" not in en and "whole unit" not in en and "千分之一" not in zh
    tiny = d > 2 and smallest < 1e-3  # a thousandth of a step: "almost nothing"
    for lang, text in (("en", en), ("zh", zh)):
        assert spoken(lang, biggest, ".2f") in text
        nothing = ("the slowest almost nothing" if lang == "en" else "最慢的一维几乎不动") in text
        assert nothing == tiny, text
        assert (spoken(lang, smallest, ".2f") in text) != tiny, text
        one = "single pair" if lang == "en" else "只有一对"
        assert (one in text) == (d == 2), text
        assert (("fastest dim" if lang == "en" else "最快的一维") in text) == (d > 2), text


@oracle
def test_the_base_line_measures_the_slowest_lap_against_a_text(params):
    d, base, variant = params.heat_d_model, params.base, params.variant
    other = 100.0 if base > 100 else 10000.0
    en, zh = said("base", params)
    for text in (en, zh):
        assert "GPT-2" not in text  # GPT-2 learns its positions: no yardstick for sinusoids
        assert "2π" not in text  # no "towards 2π times the base": t2t's lap is exactly that
        assert "radian" not in text and "弧度" not in text  # square-to-sine said it already
        assert "large base" not in text and "这么大" not in text
    for lang in ("en", "zh"):  # short: one line for many pairs, one for a single pair
        assert len(catalogue(lang, PeHeatmap.slug)["say"]["base"]) <= 2
    if d == 2:
        lap = 2 * np.pi / omegas(2, base, variant)[-1]
        assert lap == pytest.approx(2 * np.pi)
        assert "whatever the base" in en and "不论底数多少" in zh
        assert "6.3" in en and "6.3" in zh
        return
    lap, lap_other = (2 * np.pi / omegas(d, b, variant)[-1] for b in (base, other))
    want = [base, d, lap, TEXT_POSITIONS, (TEXT_POSITIONS - 1) / lap]  # the width named too
    want += [other, (TEXT_POSITIONS - 1) / lap_other]
    for text in (en, zh):
        assert values(text) == pytest.approx(want, rel=0.005), text
    assert "original paper" in en and "原论文" in zh
    # "a larger base makes that hand come round later, and the slow hands move less"
    wider = omegas(d, base * 2, variant)
    assert 2 * np.pi / wider[-1] > lap
    assert np.all(wider[1:] < omegas(d, base, variant)[1:])


@oracle
def test_the_takeaway_claims_only_what_holds_at_any_base_and_width(params):
    d = params.heat_d_model
    w = omegas(d, params.base, params.variant)
    assert np.all(np.diff(w) < 0)  # every pair at its own speed
    assert np.abs(pe(params, np.arange(0, 5000, 7))).max() <= 1.0
    en, zh = said("takeaway", params)
    assert en.startswith("Need two, bounded: met") and zh.startswith("第二条，有界：满足")
    lap = 2 * np.pi / w[-1]
    # "slow ones place you in a long text" needs a slowest lap longer than the text
    if lap < TEXT_POSITIONS:
        assert "long text" not in en and "长文" not in zh
    if d == 2:  # one pair: no fast ones and slow ones
        assert "fast ones" not in en and "快的" not in zh


def test_the_chapter_s_zh_has_no_doubled_particles():
    for text in all_alternatives("zh"):
        assert not re.search(r"([了的是在把就也都])\1", text), text
    for text in all_alternatives("en"):
        assert not re.search(r"\b(\w+) \1\b", text, re.IGNORECASE), text


def all_alternatives(lang: str) -> list[str]:
    lines = catalogue(lang, PeHeatmap.slug)["say"].values()
    return [t for node in lines for t in (node.values() if isinstance(node, dict) else [node])]


def test_the_chapter_picks_up_need_two_and_hands_over_need_four_as_a_map_between_codes():
    # similarity's bridge asks whether the values stay in one range: the table answers it;
    # the bridge names need four, a map from the code of p to the code of p + k
    assert line("en", "similarity", "bridge", DEFAULTS).endswith("however long the text?")
    en, zh = said("matrix", DEFAULTS)
    assert en.startswith("To check, here is the whole table") and zh.startswith("来验证一下：")
    en, zh = said("bridge", DEFAULTS)
    assert en == "Next, need four: one fixed linear map from the code of p to the code of p plus k."
    assert zh.startswith("接着看第四条：") and "把 p 的编码变成 p 加 k 的编码" in zh
