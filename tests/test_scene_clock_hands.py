"""Scene 5, clock-hands: the numbers it shows, its layout in both languages, and a real render."""

import numpy as np
import pytest

import pe_math as pm
from lesson.text_layout import listing
from pe_math import Params
from scenes.chapters.clock_hands.scene import MAX_CLOCKS, ClockHands
from scenes.kit.components import compact
from scenes.kit.theme import fmt
from tests.scene_tools import alternating_langs, build_and_read, catalogue_ui

BEATS = ["clocks", "tick", "repeat", "fingerprint", "periods", "takeaway", "bridge"]
CASES = {
    "defaults": Params(),
    "base=100": Params(base=100.0),
    "d_model=16": Params(d_model=16),
    "d_model=4": Params(d_model=4),
    "d_model=64": Params(d_model=64),
    "wide,concat,t2t": Params(
        d_model=64,
        base=100000.0,
        clocks_shown=12,
        layout="concat",
        variant="t2t",
        ambiguity_positions=(3, 40),
        clock_max_position=40,
    ),
}

ui = catalogue_ui(ClockHands.slug)


def expected(params: Params) -> dict:
    """What the scene must show, straight from pe_math."""
    d, base, layout, variant = params.d_model, params.base, params.layout, params.variant
    n = d // 2
    k = min(params.clocks_shown, MAX_CLOCKS, n)
    shown = sorted({int(round(x)) for x in np.linspace(0, n - 1, k)}) if k > 1 else [0]
    dims = pm.pair_dims(d, layout)[shown]
    a, b = params.ambiguity_positions
    positions = np.arange(params.clock_max_position + 1)
    pe = pm.sinusoidal(positions, d, base, layout, variant)
    return {
        "shown": shown,
        "dims": dims,
        "omega": pm.frequencies(d, base, variant)[shown],
        "period": pm.periods(d, base, variant)[shown],
        "pe": pe[:, dims.ravel()],
        "angles": np.outer(positions, pm.frequencies(d, base, variant))[:, shown],
        "gap_deg": np.degrees(pm.clock_angle_gaps(a, b, d, base, variant))[shown],
        "pe_distance": np.linalg.norm(
            pm.sinusoidal([a], d, base, layout, variant)
            - pm.sinusoidal([b], d, base, layout, variant)
        ),
        "fast_distance": np.linalg.norm(
            pm.clock_hand_tips(a, d, base, variant)[0] - pm.clock_hand_tips(b, d, base, variant)[0]
        ),
        "step_distance": np.linalg.norm(
            pm.sinusoidal([1], d, base, layout, variant)
            - pm.sinusoidal([0], d, base, layout, variant)
        ),
    }


@pytest.mark.parametrize(("case", "lang"), alternating_langs(CASES))
def test_builds_clean_and_shows_its_numbers(case, lang):
    params = CASES[case]
    scene, report, seen, _ = build_and_read(ClockHands, params, lang)
    report.assert_clean()
    assert [b for b, _ in scene.beats] == BEATS
    want = expected(params)

    # every shown clock is labelled with its index, its dims and its speed
    for i, (da, db), w in zip(want["shown"], want["dims"], want["omega"], strict=True):
        assert ui(lang, "clock", i=i) in seen["tick"]
        assert ui(lang, "dims", a=da, b=db) in seen["tick"]
        assert f"ω = {compact(w)}" in seen["tick"]
    # the list of shown clocks is joined the language's way ("0, 1, 2" / "0、1、2")
    which = listing(want["shown"], lang)
    assert which in " ".join(seen["tick"])
    assert ("、" in which) == (lang == "zh" and len(want["shown"]) > 1)
    # the ambiguity beat ends with the angle gaps and the fingerprint distance on stage
    on_gaps = " | ".join(seen["periods"])
    for g in want["gap_deg"]:
        assert f"{fmt(g, 1)}°" in on_gaps
    assert f"= {fmt(want['pe_distance'])}" in on_gaps
    assert f"{fmt(want['fast_distance'])}" in on_gaps
    # the yardstick beside it: the distance between neighbouring positions
    assert f"{fmt(want['step_distance'])}" in on_gaps
    # the periods table lists 2π/ω of every shown clock
    on_table = seen["takeaway"]
    for period in want["period"]:
        assert compact(period) in on_table


@pytest.mark.parametrize("case", list(CASES))
def test_numbers_are_pe_maths(case):
    params = CASES[case]
    nums, want = ClockHands.numbers(params), expected(params)
    assert nums.shown == want["shown"]
    assert len(nums.shown) <= min(params.clocks_shown, MAX_CLOCKS)
    assert nums.shown[0] == 0 and nums.shown[-1] == params.d_model // 2 - 1 or len(nums.shown) == 1
    np.testing.assert_array_equal(nums.dims, want["dims"])
    for key in ("omega", "period", "pe", "angles", "gap_deg"):
        np.testing.assert_allclose(getattr(nums, key), want[key], atol=1e-12, err_msg=key)
    assert nums.pe_distance == pytest.approx(want["pe_distance"])
    assert nums.fast_distance == pytest.approx(want["fast_distance"])
    assert nums.step_distance == pytest.approx(want["step_distance"])
    assert nums.fast_period == pytest.approx(
        2 * np.pi / pm.frequencies(params.d_model, params.base, params.variant)[0]
    )


def test_defaults_tell_the_near_repeat_story():
    nums = ClockHands.numbers(Params())
    assert nums.shown == [0, 1, 2, 3] and nums.dims == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert (nums.a, nums.b) == (0, 6)
    assert nums.fast_period == pytest.approx(6.2832, abs=1e-4)
    # the fast hand is almost home (−16°), yet the whole fingerprint moved much further
    assert nums.gap_deg[0] == pytest.approx(np.degrees(6 - 2 * np.pi))
    assert nums.fast_distance == pytest.approx(2 * np.sin((2 * np.pi - 6) / 2))
    assert nums.pe_distance == pytest.approx(0.6577, abs=1e-4)
    assert nums.pe_distance > 2 * nums.fast_distance
    # the readout row at p = 1 is the published PE(1) for d = 8
    np.testing.assert_allclose(nums.pe[1][:2], [0.84147098, 0.54030231])


@pytest.mark.parametrize("case", list(CASES))
def test_tick_claims_every_hand_turns_by_its_own_omega_each_slower_falling_behind(case):
    """say.tick: each step turns every hand by its ω; the fastest whips round (a whole radian
    a step); each slower hand falls further behind. True whatever the knobs."""
    params = CASES[case]
    nums = ClockHands.numbers(params)
    angles = np.asarray(nums.angles)
    np.testing.assert_allclose(np.diff(angles, axis=0), np.tile(nums.omega, (len(angles) - 1, 1)))
    assert pm.frequencies(params.d_model, params.base, params.variant)[0] == 1.0
    assert nums.shown[0] == 0
    assert all(np.diff(nums.omega) < 0)
    assert all(np.diff(angles[-1]) < 0)  # at the end of the count, each lags the one before


def test_tick_at_the_defaults_only_the_slowest_hands_barely_creep():
    """The scene as rendered: over 24 positions the fast hand laps almost four times, clock 1
    turns about 137°, and only clocks 2 and 3 creep (under 15°), so the narration must not
    call every slow hand still."""
    nums = ClockHands.numbers(Params())
    swept = np.degrees(nums.angles[-1])
    assert nums.positions[-1] == 24
    assert swept[0] > 3 * 360
    assert swept[1] == pytest.approx(137.5, abs=0.1)
    assert all(swept[2:] < 15)


@pytest.mark.parametrize("case", list(CASES))
def test_fingerprint_claims_hold_and_the_yardstick_is_the_same_for_every_step(case):
    """say.fingerprint: the slower hands moved between a and b; over all the dims the distance
    is not zero; ui.step: neighbouring positions are *always* step_distance apart."""
    params = CASES[case]
    nums = ClockHands.numbers(params)
    assert all(abs(g) > 0 for g in nums.gap_deg[1:])
    assert nums.pe_distance > 1e-6
    d, base, layout, variant = params.d_model, params.base, params.layout, params.variant
    table = pm.sinusoidal(np.arange(0, 500), d, base, layout, variant)
    np.testing.assert_allclose(pm.adjacent_distances(table), nums.step_distance, rtol=1e-9)


def test_fingerprint_at_the_defaults_is_real_but_smaller_than_one_step():
    """Why the narration does not oversell: at d = 8, PE(0) and PE(6) are 0.66 apart, less
    than the 0.96 between neighbours, though far more than the fast hand's 0.28 alone."""
    nums = ClockHands.numbers(Params())
    assert nums.step_distance == pytest.approx(0.9641, abs=1e-4)
    assert 0 < nums.pe_distance < nums.step_distance
    assert abs(nums.gap_deg[0]) < 20  # the fast hand alone nearly matches


def test_numbers_follow_the_params():
    base = ClockHands.numbers(Params())
    for changed in (
        Params(base=100.0),
        Params(d_model=16),
        Params(ambiguity_positions=(2, 9)),
        Params(layout="concat"),
    ):
        other = ClockHands.numbers(changed)
        assert other != base
    # concat keeps the (sin, cos) pair of clock i in dims i and i + d/2
    assert ClockHands.numbers(Params(layout="concat")).dims[1] == [1, 5]
    # a wide model shows an evenly spread subset, fastest and slowest included
    wide = ClockHands.numbers(Params(d_model=64))
    assert wide.shown == [0, 10, 21, 31] and wide.n_clocks == 32


@pytest.mark.parametrize("pair", [(0, 6), (0, 3), (2, 15)])
def test_the_fingerprint_gap_is_measured_in_neighbour_steps(pair):
    """say.fingerprint: at (0, 3) the gap is 2.02, twice a neighbour step of 0.96, so the
    words may not say "that gap need not be large"; at (0, 6) it is smaller than a step."""
    from lesson.say import line

    params = Params(ambiguity_positions=pair)
    a, b = pair
    table = pm.sinusoidal([a, b, 0, 1], params.d_model, params.base)
    gap = float(np.linalg.norm(table[1] - table[0]))
    step = float(np.linalg.norm(table[3] - table[2]))
    en, zh = (line(lang, "clock-hands", "fingerprint", params) for lang in ("en", "zh"))
    for text in (en, zh):
        assert f"{gap:.2f}" in text and f"{step:.2f}" in text
        assert "need not be large" not in text and "未必很大" not in text
    if gap < step:
        assert "is smaller" in en and "还更小" in zh
    else:
        assert f"{gap / step:.1f} times as large" in en and f"{gap / step:.1f} 倍" in zh
    if pair == (0, 3):
        assert (f"{gap:.2f}", f"{step:.2f}", f"{gap / step:.1f}") == ("2.02", "0.96", "2.1")
