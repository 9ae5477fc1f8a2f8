"""Scene 5, clock-hands: the numbers it shows, its layout in both languages, and a real render."""

import numpy as np
import pytest

import pe_math as pm
from pe_math import Params
from scenes.catalogue import lookup
from scenes.clock_hands import MAX_CLOCKS, ClockHands
from scenes.components import compact
from scenes.theme import fmt
from tests.scene_tools import assert_lesson_clip, build_scene, render_scene

BEATS = ["clocks", "tick", "repeat", "fingerprint", "periods", "takeaway"]
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


def build_and_read(params: Params, lang: str):
    """Build the scene, checking layout; the report keeps the words at each beat."""
    scene, report = build_scene(ClockHands, params, lang)
    return scene, report, report.words_at_start


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
    }


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("case", list(CASES))
def test_builds_clean_and_shows_its_numbers(case, lang):
    params = CASES[case]
    scene, report, seen = build_and_read(params, lang)
    report.assert_clean()
    assert [b for b, _ in scene.beats] == BEATS
    want = expected(params)

    # every shown clock is labelled with its index, its dims and its speed
    def ui(key, **values):
        return lookup(lang, "clock-hands", f"ui.{key}").format(**values)

    for i, (da, db), w in zip(want["shown"], want["dims"], want["omega"], strict=True):
        assert ui("clock", i=i) in seen["tick"]
        assert ui("dims", a=da, b=db) in seen["tick"]
        assert f"ω = {compact(w)}" in seen["tick"]
    # the ambiguity beat ends with the angle gaps and the fingerprint distance on stage
    on_gaps = " | ".join(seen["periods"])
    for g in want["gap_deg"]:
        assert f"{fmt(g, 1)}°" in on_gaps
    assert f"= {fmt(want['pe_distance'])}" in on_gaps
    assert f"{fmt(want['fast_distance'])}" in on_gaps
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


@pytest.mark.render
def test_real_render(tmp_path):
    clip = render_scene(ClockHands, tmp_path)
    assert_lesson_clip(clip, BEATS)
