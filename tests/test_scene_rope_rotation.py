"""Scene 6, rope-rotation: the numbers it shows, its layout in both languages, and a real render."""

import numpy as np
import pytest

import pe_math as pm
from pe_math import Params
from scenes.components import compact
from scenes.rope_rotation import RopeRotation
from scenes.theme import fmt
from tests.scene_tools import assert_lesson_clip, build_scene, render_scene

BEATS = ["plane", "shift", "gap", "norms", "formula", "dials", "takeaway"]
CASES = {
    "defaults": Params(),
    "base=100": Params(base=100.0),
    "d_model=16": Params(d_model=16, rope_pair=3),
    "d_model=4": Params(d_model=4),
    "d_model=64": Params(d_model=64, rope_pair=31),
    "other q/k": Params(rope_q=(-0.2, 2.5), rope_k=(0.3, 0.25), rope_m=40, rope_n=7, rope_shift=12),
    "half": Params(rope_pairing="half", d_model=16, rope_pair=2),
}


def build_and_read(params: Params, lang: str):
    """Build the scene, checking layout; the report keeps the words and live numbers at each beat."""
    scene, report = build_scene(RopeRotation, params, lang)
    return scene, report, report.words_at_start, report.values_at_start


def plane(params: Params, m: float, n: float) -> dict:
    theta = pm.frequencies(params.d_model, params.base)[params.rope_pair]
    return pm.rope_plane(params.rope_q, params.rope_k, m, n, theta)


def extra_steps(params: Params) -> int:
    theta = pm.frequencies(params.d_model, params.base)[params.rope_pair]
    return max(1, int(round(np.pi / 2 / theta)))


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("case", list(CASES))
def test_builds_clean_and_shows_its_numbers(case, lang):
    params = CASES[case]
    scene, report, seen, numbers = build_and_read(params, lang)
    report.assert_clean()
    assert [b for b, _ in scene.beats] == BEATS
    m, n, s = params.rope_m, params.rope_n, params.rope_shift
    start, shifted = plane(params, m, n), plane(params, m + s, n + s)
    regapped = plane(params, m + s, n + s + extra_steps(params))
    # live readouts at the end of each motion: positions, dot product, angle and lengths
    for beat, state, (mm, nn) in (
        ("shift", start, (m, n)),
        ("gap", shifted, (m + s, n + s)),
        ("norms", regapped, (m + s, n + s + extra_steps(params))),
    ):
        shown = numbers[beat]
        for value in (mm, nn, nn - mm):
            assert value in shown, (beat, value, shown)
        # a readout redraws only when its shown digits change: match to half a shown digit
        for value, tol in (
            (state["dot"], 5e-4),
            (np.degrees(state["angle"]), 0.05),
            (state["q_norm"], 5e-4),
            (state["k_norm"], 5e-4),
        ):
            assert any(abs(v - value) <= tol + 1e-9 for v in shown), (beat, value, shown)
    # the lengths before turning are written beside the live ones
    for length in (start["q_norm"], start["k_norm"]):
        assert any(fmt(length, 3) in w for w in seen["norms"])
    # the pairing and the plane's dims and θ are named on screen
    header = " | ".join(seen["shift"])
    dims = pm.pair_dims(params.d_model, params.rope_pairing)[params.rope_pair]
    assert ("GPT-NeoX" if params.rope_pairing == "half" else "GPT-J") in header
    assert f"{dims[0]}, {dims[1]}" in header or f"{dims[0]}、{dims[1]}" in header
    assert compact(pm.frequencies(params.d_model, params.base)[params.rope_pair]) in header
    # the worked formula carries the regapped score
    assert any(f"= {regapped['relative_dot']:.3f} =" in w for w in seen["dials"])


@pytest.mark.parametrize("case", list(CASES))
def test_numbers_are_pe_maths(case):
    params = CASES[case]
    nums = RopeRotation.numbers(params)
    d, base = params.d_model, params.base
    theta = pm.frequencies(d, base)[params.rope_pair]
    assert nums.theta == pytest.approx(theta)
    m, n, s, extra = params.rope_m, params.rope_n, params.rope_shift, extra_steps(params)
    assert nums.extra == extra
    states = {
        "raw": (0, 0),
        "start": (m, n),
        "shifted": (m + s, n + s),
        "regapped": (m + s, n + s + extra),
        "turned": (m + 2 * s, n + 2 * s + extra),
    }
    dims = pm.pair_dims(d, params.rope_pairing)[params.rope_pair]
    assert nums.dims == dims.tolist()
    for name, (mm, nn) in states.items():
        got, want = getattr(nums, name), plane(params, mm, nn)
        assert (got["m"], got["n"]) == (mm, nn)
        np.testing.assert_allclose(got["q_rot"], want["q_rot"])
        np.testing.assert_allclose(got["k_rot"], want["k_rot"])
        for key in ("dot", "q_norm", "k_norm", "relative_dot"):
            assert got[key] == pytest.approx(want[key]), (name, key)
        assert got["angle_deg"] == pytest.approx(np.degrees(want["angle"]))
        # the full d-dim rope with the chosen pairing gives the plane's score
        q, k = np.zeros(d), np.zeros(d)
        q[dims], k[dims] = params.rope_q, params.rope_k
        assert got["full_score"] == pytest.approx(
            pm.rope_score(q, k, mm, nn, base, params.rope_pairing)
        )
        assert got["full_score"] == pytest.approx(want["dot"])
        np.testing.assert_allclose(got["dial_angles"], mm * pm.frequencies(d, base)[nums.dials])
    np.testing.assert_allclose(nums.dial_theta, pm.frequencies(d, base)[nums.dials])
    assert params.rope_pair in nums.dials and 0 in nums.dials
    assert nums.dials[-1] == d // 2 - 1


def test_defaults_tell_the_rope_story():
    nums = RopeRotation.numbers(Params())
    assert nums.theta == 1.0  # d_model = 8, pair 0: one radian per position
    start, shifted, regapped = nums.start, nums.shifted, nums.regapped
    # a common shift turns both vectors but keeps the dot product and the angle
    assert not np.allclose(start["q_rot"], shifted["q_rot"])
    assert shifted["dot"] == pytest.approx(start["dot"])
    assert shifted["angle_deg"] == pytest.approx(start["angle_deg"])
    # a new gap changes the score; lengths never change
    assert abs(regapped["dot"] - start["dot"]) > 0.1
    for state in (start, shifted, regapped):
        assert state["q_norm"] == pytest.approx(np.hypot(1.0, 0.4))
        assert state["k_norm"] == pytest.approx(np.hypot(0.7, -0.6))
        assert state["dot"] == pytest.approx(state["relative_dot"])
    assert nums.dims == [0, 1] and RopeRotation.numbers(Params(rope_pairing="half")).dims == [
        0,
        4,
    ]


def test_numbers_follow_the_params():
    base = RopeRotation.numbers(Params())
    for changed in (
        Params(base=100.0, rope_pair=1),
        Params(d_model=16, rope_pair=2),
        Params(rope_q=(0.5, 0.5)),
        Params(rope_pairing="half"),
        Params(rope_shift=5),
    ):
        assert RopeRotation.numbers(changed) != base


@pytest.mark.render
def test_real_render(tmp_path):
    clip = render_scene(RopeRotation, tmp_path)
    assert_lesson_clip(clip, BEATS)
