"""Scene 7, rope-rotation: the numbers it shows, its layout in both languages, and a real render."""

import re

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

import pe_math as pm
from lesson import registry
from lesson.catalogue import lookup
from lesson.say import line as caption
from lesson.say import lines
from pe_math import ParamError, Params
from scenes.chapters.rope_rotation.scene import RopeRotation
from scenes.kit.components import compact
from scenes.kit.theme import fmt
from tests.scene_tools import alternating_langs, build_and_read
from tests.test_knob_sweep import EXAMPLES, examples_at, knob_sets

BEATS = [
    "mixed",
    "plane",
    "shift",
    "gap",
    "norms",
    "formula",
    "sign",
    "dials",
    "won",
    "takeaway",
    "bridge",
]
CASES = {
    "defaults": Params(),
    "base=100": Params(base=100.0),
    "d_model=16": Params(d_model=16, rope_pair=3),
    "d_model=4": Params(d_model=4),
    "d_model=64": Params(d_model=64, rope_pair=31),
    "other q/k": Params(rope_q=(-0.2, 2.5), rope_k=(0.3, 0.25), rope_m=40, rope_n=7, rope_shift=12),
    "half": Params(rope_pairing="half", d_model=16, rope_pair=2),
}


def plane(params: Params, m: float, n: float) -> dict:
    theta = pm.frequencies(params.d_model, params.base)[params.rope_pair]
    return pm.rope_plane(params.rope_q, params.rope_k, m, n, theta)


def unsigned_deg(q_rot, k_rot) -> float:
    """The angle between two 2-d vectors in degrees, in [0, 180], from their cosine."""
    cos = np.dot(q_rot, k_rot) / (np.linalg.norm(q_rot) * np.linalg.norm(k_rot))
    return float(np.degrees(np.arccos(np.clip(cos, -1.0, 1.0))))


def extra_steps(params: Params) -> int:
    theta = pm.frequencies(params.d_model, params.base)[params.rope_pair]
    return max(1, int(round(np.pi / 2 / theta)))


@pytest.mark.parametrize(("case", "lang"), alternating_langs(CASES))
def test_builds_clean_and_shows_its_numbers(case, lang):
    params = CASES[case]
    scene, report, seen, numbers = build_and_read(RopeRotation, params, lang)
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
            (unsigned_deg(state["q_rot"], state["k_rot"]), 0.05),
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
    assert any(f"= {regapped['relative_dot']:.3f} =" in w for w in seen["sign"])
    # "the dot product changes with it" when only k moves on
    assert abs(regapped["dot"] - shifted["dot"]) > 1e-3
    # the plane's axes are named with the pair's real dims: first dim right, second dim up
    axis = lookup(lang, "rope-rotation", "ui.axis")
    x_name, y_name = scene.axis_names
    assert x_name.original_text == axis.format(dim=int(dims[0]))
    assert y_name.original_text == axis.format(dim=int(dims[1]))
    for beat in ("shift", "gap", "norms", "formula", "dials"):
        assert x_name.original_text in seen[beat] and y_name.original_text in seen[beat]
    o = scene.origin_mob.get_center()
    assert x_name.get_left()[0] > o[0] and abs(x_name.get_center()[1] - o[1]) < x_name.height
    assert y_name.get_bottom()[1] > o[1] and abs(y_name.get_center()[0] - o[0]) < y_name.width
    # the angle readout is the unsigned angle between q and k, never the signed one
    label = lookup(lang, "rope-rotation", "ui.angle")
    assert label in seen["shift"]
    assert not any(w in ("angle from q to k:", "q 到 k 的夹角：") for w in seen["shift"])
    # the note under the dials: the sinusoid's hands turned the other way
    note = " ".join(" ".join(seen["won"]).split())  # rows joined, spacing normalised
    assert ("clockwise, the opposite way" if lang == "en" else "顺时针") in note
    assert "n − m" in note
    nums = RopeRotation.numbers(params)
    # the four terms of an added code's score, each with its value, before and after the shift
    mixed = nums.mixed
    for key in pm.TERMS:
        assert fmt(mixed["after" if mixed["moves"] else "before"][key], 3) in seen["plane"]
        assert lookup(lang, "rope-rotation", f"ui.term_{key}") in seen["plane"]
    # the signed scores: RoPE's two, the sinusoid's one, and the note on the letters
    sign = nums.sign
    signed = " ".join(seen["dials"])
    for value in (sign["plus"], sign["minus"]):
        assert fmt(value, 3).replace("−", "-") in signed
    assert fmt(sign["sinusoid"][0], 3) in signed
    assert lookup(lang, "rope-rotation", "ui.letters") in " ".join(" ".join(seen["dials"]).split())
    # why RoPE won: three reasons, the last naming the long-context chapter
    reasons = " ".join(seen["takeaway"])
    assert f"{registry.REGISTRY['long-context'].order:02d}" in reasons


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
    }
    # the sign beat swaps the regapped positions (or k moved `extra` on, where their gap is
    # 0); the dial beat then shifts both once more
    mr, nr = states["regapped"]
    gap = nr - mr if nr != mr else extra
    states["turned"] = (mr + gap + s, mr + s)
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
        # the shown angle: unsigned, the same as the arc's sweep, from the rotated vectors
        assert 0.0 <= got["between_deg"] <= 180.0
        assert got["between_deg"] == pytest.approx(abs(got["angle_deg"]))
        assert got["between_deg"] == pytest.approx(
            unsigned_deg(want["q_rot"], want["k_rot"]), abs=1e-6
        )
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


def test_defaults_angle_opens_with_the_gap():
    """At the defaults the readout goes 109.5° (n − m = 3) → 135.9° (n − m = 5): it grows."""
    params = Params()
    nums = RopeRotation.numbers(params)
    shifted, regapped = nums.shifted, nums.regapped
    assert shifted["n"] - shifted["m"] == 3 and regapped["n"] - regapped["m"] == 5
    assert regapped["between_deg"] > shifted["between_deg"] + 20
    assert round(shifted["between_deg"], 1) == 109.5 and round(regapped["between_deg"], 1) == 135.9
    # the signed angle wraps (109.5° → −135.9°): that is why the screen shows the unsigned one
    assert shifted["angle_deg"] > 0 > regapped["angle_deg"]
    _, report, _, values = build_and_read(RopeRotation, params, "en")
    assert any(abs(v - 109.5) < 0.05 for v in values["gap"])
    assert any(abs(v - 135.9) < 0.05 for v in values["norms"])
    assert not any(v < -100 for beat in ("gap", "norms") for v in values[beat])


@pytest.mark.parametrize("pairing", ["interleaved", "half"])
@pytest.mark.parametrize("d_model,pair", [(8, 0), (8, 2), (16, 5)])
def test_rope_turns_counter_clockwise_and_the_clocks_clockwise(pairing, d_model, pair):
    """Same axes (pair's first dim right, second up); RoPE turns one way, the sinusoid the other."""
    params = Params(d_model=d_model, rope_pair=pair, rope_pairing=pairing)
    nums = RopeRotation.numbers(params)
    a, b = nums.dims
    assert (a, b) == (
        (2 * pair, 2 * pair + 1) if pairing == "interleaved" else (pair, pair + d_model // 2)
    )
    # RoPE: dim a's unit vector at position 1 moves towards +dim b (counter-clockwise)
    e = np.zeros(d_model)
    e[a] = 1.0
    turned = pm.rope(e, [1], params.base, pairing)[0]
    assert turned[a] == pytest.approx(np.cos(nums.theta))
    assert turned[b] == pytest.approx(np.sin(nums.theta))
    # the plane draws exactly that: (dim a, dim b) = (x, y), turning counter-clockwise
    plane = pm.rope_plane([1.0, 0.0], [1.0, 0.0], 1, 0, nums.theta)
    np.testing.assert_allclose(plane["q_rot"], turned[[a, b]], atol=1e-12)
    x0, x1 = np.array([1.0, 0.0]), plane["q_rot"]
    assert x0[0] * x1[1] - x0[1] * x1[0] > 0  # counter-clockwise
    # the clock hands: tip (x, y) = (sin, cos) = PE dims of the same pair; position turns clockwise
    layout = "interleaved" if pairing == "interleaved" else "concat"
    ca, cb = pm.pair_dims(d_model, layout)[pair]
    assert (ca, cb) == (a, b)
    pe = pm.sinusoidal([0, 1], d_model, params.base, layout)
    t0 = np.array([pe[0, ca], pe[0, cb]])
    t1 = np.array([pe[1, ca], pe[1, cb]])
    np.testing.assert_allclose(t1, pm.clock_hand_tips(1, d_model, params.base)[pair])
    assert t0[0] * t1[1] - t0[1] * t1[0] < 0  # clockwise


def test_the_score_only_sees_the_gap_either_way():
    """Turning clockwise instead would keep the relative property: direction does not matter."""
    params = Params()
    theta = RopeRotation.numbers(params).theta
    q, k = np.array(params.rope_q), np.array(params.rope_k)

    def clockwise_score(m: int, n: int) -> float:
        return float((pm.rotation_2d(-m * theta) @ q) @ (pm.rotation_2d(-n * theta) @ k))

    for gap in (-4, 0, 3, 5):
        scores = [clockwise_score(m, m + gap) for m in (0, 2, 7, 31)]
        np.testing.assert_allclose(scores, scores[0], atol=1e-12)
    assert abs(clockwise_score(2, 5) - clockwise_score(2, 7)) > 0.1


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_narration_names_the_direction(lang):
    say = {b: caption(lang, "rope-rotation", b) for b in ("plane", "gap", "dials")}
    if lang == "en":
        assert "counter-clockwise" in say["plane"] and "same axes as the clocks" in say["plane"]
        assert "counter-clockwise" in say["dials"]
        assert "opposite to the clock hands" in say["dials"]
        assert "like the clocks" not in say["dials"]
        assert "sees only the gap" not in say["dials"]  # said once, in the formula beat
        assert "opens" not in say["gap"]  # at other knobs the angle can close
    else:
        assert "逆时针" in say["plane"] and "坐标轴和前面的时钟相同" in say["plane"]
        assert (
            "逆时针" in say["dials"]
            and "顺时针" in say["dials"]
            and "只看位置差" not in say["dials"]
        )
        assert "和前面的时钟一样" not in say["dials"]
        assert "张开" not in say["gap"]


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


# knobs where the new lines change: k before q (ask.shift's m = 5, n = 2), no shift (the
# score of an added code cannot move), k parallel to q (the swap keeps RoPE's score), a
# regapped gap of 0 (k moves on before the swap), a wide model and another base
SWEEP = {
    "defaults": Params(),
    "k before q": Params(rope_m=5, rope_n=2),
    "no shift": Params(rope_shift=0),
    "k parallel to q": Params(rope_k=(2.0, 0.8)),
    "gap 0 after regap": Params(rope_m=7, rope_n=5),
    "wide, base 500": Params(d_model=64, base=500.0, rope_pair=5, proj_seed=3),
}


def shown(x: float) -> str:
    return fmt(x, 3)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("case", list(SWEEP))
def test_the_new_lines_hold_at_every_knob(case, lang):
    p = SWEEP[case]
    nums = RopeRotation.numbers(p)
    say = {b: caption(lang, "rope-rotation", b, p) for b in ("mixed", "sign", "won", "formula")}
    # mixed: test_what_the_voice_says_of_rotation_holds_at_any_knobs
    # sign: swapping q's and k's positions flips n − m and RoPE's score with it (or, where
    # the line says so, keeps it); the sinusoid's dot product is the same for both signs
    theta = pm.frequencies(p.d_model, p.base)[p.rope_pair]
    m, n = nums.regapped["m"], nums.regapped["n"]
    gap = n - m if n != m else nums.extra
    plus = plane(p, m, m + gap)["dot"]
    minus = plane(p, m + gap, m)["dot"]
    assert plus == pytest.approx(float(np.dot(p.rope_q, pm.rotation_2d(gap * theta) @ p.rope_k)))
    assert minus == pytest.approx(float(np.dot(p.rope_q, pm.rotation_2d(-gap * theta) @ p.rope_k)))
    differ = shown(plus) != shown(minus)
    assert nums.lines["sign"] == ("differ" if differ else "alike")
    assert shown(plus) in say["sign"] and fmt(-gap, 0) in say["sign"]
    # the offset flips from what it was to its negative: both are said
    flips = (
        f"flips from {fmt(gap, 0)} to {fmt(-gap, 0)}"
        if lang == "en"
        else (f"位置差从 {fmt(gap, 0)} 变成 {fmt(-gap, 0)}")
    )
    assert flips in say["sign"]
    assert not differ or shown(minus) in say["sign"]
    # the sinusoid's dot product is the same for both signs: said in relative-shift, so
    # here the line only names it
    sinusoid = pm.shift_dot(gap, p.d_model, p.base, p.variant)
    assert sinusoid == pytest.approx(pm.shift_dot(-gap, p.d_model, p.base, p.variant))
    # which dot product: two bare codes, not the projected ones a Transformer compares
    assert ("bare sinusoid's dot product" if lang == "en" else "两个裸的正弦编码直接点积") in say[
        "sign"
    ]
    assert nums.sign["swapped"][0] >= 0 and nums.sign["swapped"][1] >= 0
    # the letters: k is the key here, the offset is n − m
    assert ("k is the key" if lang == "en" else "k 指键向量") in say["sign"]
    # won: the long-context chapter by name (its number is only on screen), and rescaling
    # is not the whole fix
    assert ("chapter on longer texts" if lang == "en" else "讲长文本的那一节") in say["won"]
    assert ("a little more training" if lang == "en" else "再稍加训练") in say["won"]
    # formula: turning q by m and k by n scores as turning only the key by n − m, in zh too
    # (named as the key: k still meant the offset until the sign beat says otherwise)
    assert ("turning only the key, by n minus m" if lang == "en" else "只把键转过 n 减 m") in say[
        "formula"
    ]
    assert "分数和" not in say["formula"]


@pytest.mark.parametrize("case", list(SWEEP))
def test_chinese_sentences_stay_short_at_every_knob(case):
    for key, line in caption_lines(SWEEP[case]).items():
        for sentence in filter(str.strip, re.split(r"(?<=[。？！])", line)):
            assert len(re.sub(r"\s", "", sentence)) <= 50, (key, sentence)


def caption_lines(params: Params) -> dict[str, str]:
    from lesson import say

    return say.lines("rope-rotation", "zh", params)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("m", "n"), [(5, 2), (2, 5), (4, 4), (0, 40)])
def test_the_shift_question_asks_for_a_signed_offset(lang, m, n):
    from lesson.questions import questions

    p = Params(rope_m=m, rope_n=n)
    (q,) = questions("rope-rotation", lang, p)
    assert q.answer == n - m and q.right(n - m) and not q.right(m - n or 1)
    # q unturned, k turned by the answer: the score at (m, n), for a full-width q and k too
    qv, kv = np.random.default_rng(1).normal(size=(2, p.d_model))
    assert pm.rope_score(qv, kv, 0, q.answer, p.base) == pytest.approx(
        pm.rope_score(qv, kv, m, n, p.base)
    )
    # no negative position is asked for, and the reason names the sign
    assert "position 0 and k at which position" not in q.prompt
    assert ("signed offset" if lang == "en" else "带符号") in q.reason
    assert f"{n} − {m} = {n - m}" in q.reason


def _said_numbers(text: str) -> list[float]:
    return [float(x.replace("−", "-")) for x in re.findall(r"[−-]?\d+\.\d+", text)]


@st.composite
def shifted_knobs(draw) -> Params:
    """A whole knob set with the shift of both tokens drawn too, back, none or on."""
    params = draw(knob_sets())
    shift = draw(st.one_of(st.sampled_from([-2, -1, 0, 1]), st.integers(-100, 100_000)))
    try:
        return params.replace(rope_shift=shift)
    except ParamError:
        assume(False)


MOVED = {  # on (later in the text) and back (earlier), however far
    "en": {"on": re.compile(r" positions? on:"), "back": re.compile(r" positions? back:")},
    "zh": {
        "on": re.compile(r"都往后挪 [\d,]+ 个位置"),
        "back": re.compile(r"都往前挪 [\d,]+ 个位置"),
    },
}


@settings(max_examples=25, deadline=None)
@given(params=shifted_knobs())
@example(params=Params())
@example(params=Params(d_model=2))
@example(params=Params(rope_pairing="half"))
@example(params=Params(rope_pairing="half", layout="concat"))
@example(params=Params(rope_shift=0))
@example(params=Params(rope_shift=1))
@example(params=Params(rope_shift=-2))
@example(params=Params(rope_m=5, rope_n=2))
@example(params=Params(rope_m=5, rope_n=2, rope_shift=-2))
@example(params=Params(d_model=64, base=500.0, rope_pair=5, proj_seed=3))
@examples_at(EXAMPLES)
def test_what_the_voice_says_of_rotation_holds_at_any_knobs(params):
    d, s = params.d_model, params.rope_shift
    m, n = params.rope_m, params.rope_n
    X = [params.d_model, params.base, params.proj_seed, params.proj_scale]

    def terms(a: int, b: int) -> dict[str, float]:
        return pm.additive_example(X[0], X[1], a, b, X[2], X[3], params.layout, params.variant)

    # no term holding a position depends on the offset alone: some shift changes each one
    moved = [terms(m + k, n + k) for k in range(4)]
    for key in ("word_position", "position_word", "position_position"):
        assert len({round(t[key], 9) for t in moved}) > 1, key
    before, after = terms(m, n), terms(m + s, n + s)
    digits_move = all(
        fmt(before[key], 3) != fmt(after[key], 3) for key in ("position_position", "total")
    )
    clock_pairs = (
        [(2 * i, 2 * i + 1) for i in range(d // 2)]
        if params.layout == "interleaved"
        else [(i, i + d // 2) for i in range(d // 2)]
    )
    rope_pairs = (
        [(2 * i, 2 * i + 1) for i in range(d // 2)]
        if params.rope_pairing == "interleaved"
        else [(i, i + d // 2) for i in range(d // 2)]
    )
    # shift: both arrows turn by s·θ; the shown angle and dot product stay, whatever s is
    theta = pm.frequencies(d, params.base)[params.rope_pair]
    turn = np.degrees(s * theta) % 360.0
    visible = bool(min(turn, 360.0 - turn) >= 1.0)
    start, shifted = plane(params, m, n), plane(params, m + s, n + s)
    assert shown(start["dot"]) == shown(shifted["dot"])
    assert fmt(unsigned_deg(start["q_rot"], start["k_rot"]), 1) == fmt(
        unsigned_deg(shifted["q_rot"], shifted["k_rot"]), 1
    )
    # gap: moving only the key on changes the angle and the dot product
    regapped = plane(params, m + s, n + s + extra_steps(params))
    assert shown(regapped["dot"]) != shown(shifted["dot"])
    assert fmt(unsigned_deg(regapped["q_rot"], regapped["k_rot"]), 1) != fmt(
        unsigned_deg(shifted["q_rot"], shifted["k_rot"]), 1
    )
    for lang in ("en", "zh"):
        mixed = caption(lang, "rope-rotation", "mixed", params)
        said = _said_numbers(mixed)
        if said:  # the demonstration: position against position moves, and the score
            pp = (before["position_position"], after["position_position"])
            assert said == pytest.approx(list(pp), abs=0.0006), mixed
            assert digits_move and s != 0
            words = MOVED[lang]
            assert bool(words["on"].search(mixed)) is (s > 0), mixed
            assert bool(words["back"].search(mixed)) is (s < 0), mixed
            assert f" {abs(s):,} " in mixed or f" {abs(s)} " in mixed, mixed  # never "−2 on"
            assert not re.search(r"[−-]\d[\d,]* (positions? )?(on|back)|挪 [−-]", mixed), mixed
            if lang == "en":
                assert ("1 position " in mixed) is (abs(s) == 1), mixed
        else:
            assert not digits_move or s == 0
        plane_line = caption(lang, "rope-rotation", "plane", params)
        on_clock_axes = (
            "same axes as the clocks" if lang == "en" else "和前面的时钟相同"
        ) in plane_line
        assert on_clock_axes == (clock_pairs == rope_pairs), plane_line
        shift_line = caption(lang, "rope-rotation", "shift", params)
        turns = ("both arrows turn" if lang == "en" else "箭头都转了") in shift_line
        assert turns is visible, shift_line
        dials = caption(lang, "rope-rotation", "dials", params)
        one = ("The one pair" if lang == "en" else "只有一对") in dials
        assert one == (d == 2), dials


MECHANISM = {
    "en": re.compile(r"\bturns (q and k|the query and the key)|instead of adding"),
    "zh": re.compile(r"旋转(查询和键| ?q 和 k)|不再加上位置向量"),
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_how_rope_turns_q_and_k_is_said_once_in_this_chapter(lang):
    # relative-shift hands over to it and variants points back to it; only the plane beat
    # says how (and the takeaway, why v is not turned)
    found = {
        (slug, beat)
        for slug in ("relative-shift", "rope-rotation", "variants")
        for beat, text in lines(slug, lang).items()
        if MECHANISM[lang].search(text)
    }
    assert found <= {("rope-rotation", "plane"), ("rope-rotation", "takeaway")}, found
    assert ("rope-rotation", "plane") in found
    # and codes seen in training are the long-context chapter's story, not this takeaway's
    takeaway = caption(lang, "rope-rotation", "takeaway")
    assert ("slowest" if lang == "en" else "最慢") not in takeaway
