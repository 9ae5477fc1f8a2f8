"""What the narration claims, checked at the lesson's defaults.

Each test holds one sentence of the lesson to its numbers, computed here by hand or by
pe_math, so a rewording that turns a careful claim back into a false one is caught by
the numbers it would contradict.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import pe_math as pm
from lesson import registry
from lesson.catalogue import catalogue
from lesson.say import line as caption
from pe_math import Params
from scenes.chapters.similarity.scene import MAX_BAR_POSITIONS
from tests.scene_tools import bits

P = Params()


def said(slug: str, beat: str) -> str:
    return caption("en", slug, beat)


def attend(rows: np.ndarray, params: Params, causal: bool) -> tuple[np.ndarray, np.ndarray]:
    """Attention weights and outputs by hand, each query blind to later keys if `causal`."""
    W_q, W_k, W_v = pm.projection_matrices(rows.shape[1], params.proj_seed, params.proj_scale)
    scores = (rows @ W_q) @ (rows @ W_k).T / np.sqrt(rows.shape[1])
    if causal:
        scores = np.where(np.tril(np.ones_like(scores)) > 0, scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    return weights, weights @ (rows @ W_v)


def swapped_order(params: Params) -> list[int]:
    order = list(range(len(params.X)))
    i, j = params.swap
    order[i], order[j] = order[j], order[i]
    return order


def test_a_causal_mask_alone_lets_attention_tell_the_swapped_sentences_apart():
    # attention-shuffle: "with no causal mask, [attention] cannot see order"
    assert "without a causal mask" in said("attention-shuffle", "inject_position")
    X = np.asarray(P.X, dtype=float)
    order = swapped_order(P)
    i, j = P.swap
    for causal, same in ((False, True), (True, False)):
        plain, swapped = attend(X, P, causal)[1], attend(X[order], P, causal)[1]
        # the token that moved from slot i to slot j: its output, before and after
        assert np.allclose(plain[i], swapped[j], atol=1e-12) is same


MASK_CASES = [
    P,
    Params(X=[[1, 2, 3], [-4, 5, 6]], tokens=["你", "好"], tokens_en=["hi", "there"], swap=[0, 1]),
    Params(X=[[0.5, 0.1], [0.3, -0.2], [0.5, 0.1]], swap=[0, 2], proj_seed=3),
    Params(X=[[0.5, 0.1]] * 3, swap=[0, 2]),
    Params(
        X=[[0.2, -0.1], [0.9, 0.3], [-0.3, 0.6], [1.5, -2.25]],
        tokens=["a", "b", "c", "d"],
        tokens_en=["a", "b", "c", "d"],
        swap=[1, 3],
        proj_scale=2.0,
    ),
]


@pytest.mark.parametrize("params", MASK_CASES, ids=lambda p: p.digest()[:6])
def test_under_a_causal_mask_a_token_counts_what_came_before_and_the_swap_shows(params):
    # attention-shuffle say.causal_mask: each token sees itself and the ones before it;
    # spread evenly, a weight is one over that count; the same swap changes the outputs
    X = np.asarray(params.X, dtype=float)
    n = len(X)
    weights, out = attend(X, params, causal=True)
    for i in range(n):
        assert np.all(weights[i, i + 1 :] == 0) and np.all(weights[i, : i + 1] > 0)
    even = np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]
    nums = registry.get("attention-shuffle").load().numbers(params)
    assert nums.keys_seen == list(range(1, n + 1))
    np.testing.assert_allclose(nums.even_weights, even[:, 0])
    order = swapped_order(params)
    moved = np.abs(attend(X[order], params, causal=True)[1] - out[order]).max()
    assert nums.masked_error == pytest.approx(moved, abs=1e-12)
    want = "leaks" if moved > 1e-9 else "all_alike"
    assert nums.lines["causal_mask"] == want
    leak = {"en": "changes the outputs", "zh": "改变输出"}
    for lang in ("en", "zh"):
        line = caption(lang, "attention-shuffle", "causal_mask", params)
        assert (leak[lang] in line) is (want == "leaks"), line


def test_the_shifted_dot_product_depends_on_the_gap_but_is_no_ruler():
    # relative-shift: "k and minus k score the same"; similarity: "no ruler of distance: a
    # far position can look more alike than a near one" (said there, not twice)
    assert "minus k score the same" in said("relative-shift", "dot")
    assert "wider gap" not in said("relative-shift", "dot")
    assert "far position can look more alike than a near one" in said("similarity", "takeaway")
    d, base = P.d_model, P.base
    gaps = np.arange(1, 9)
    scores = [pm.shift_dot(k, d, base) for k in gaps]
    assert max(scores[1:]) > scores[0]  # some gap wider than 1 scores higher than 1
    assert pm.shift_dot(6, d, base) > pm.shift_dot(1, d, base)
    for k in gaps:
        assert pm.shift_dot(-k, d, base) == pytest.approx(pm.shift_dot(k, d, base), abs=1e-12)
    # and the same whatever p: the values the scene shows at several p
    for k in (1, 5, 6):
        dots = [
            float(pm.sinusoidal([p], d, base)[0] @ pm.sinusoidal([p + k], d, base)[0])
            for p in P.shift_dot_positions
        ]
        assert np.ptp(dots) < 1e-9


def test_similarity_need_not_fall_with_distance_though_every_step_is_equal():
    # similarity: "similarity does not fall steadily with distance: a far position can
    # look more alike than a near one"
    assert "far position can look more alike" in said("similarity", "takeaway")
    for d in (P.d_model, P.similarity_d_model):
        table = pm.sinusoidal(np.arange(P.max_len), d, P.base)
        row = pm.cosine_similarity_matrix(table)[0]
        assert (np.diff(row) > 1e-6).any(), d  # somewhere it rises again with distance
        steps = pm.adjacent_distances(table)
        assert np.ptp(steps) < 1e-9  # every step p → p + 1 has the same length
    table = pm.sinusoidal(np.arange(P.max_len), P.d_model, P.base)
    row = pm.cosine_similarity_matrix(table)[0]
    assert row[6] > row[1]  # at d = 8: a gap of 6 looks more alike than a gap of 1


@pytest.mark.parametrize("n", range(2, 13))
def test_binary_code_distance_does_not_follow_position_distance(n):
    # binary-bits: "the cliff's step is the longest of all, yet the code just past the
    # cliff lies a single bit from position zero"
    codes = pm.binary_encoding(np.arange(2**n), n)
    assert np.array_equal(codes[5 % 2**n], bits(5 % 2**n, n))
    steps = pm.adjacent_distances(codes)
    cliff = 2 ** (n - 1)
    assert steps[cliff - 1] == pytest.approx(np.sqrt(n)) == pytest.approx(steps.max())
    assert np.linalg.norm(codes[cliff] - codes[0]) == pytest.approx(1.0)


def test_no_fixed_matrix_moves_a_binary_code_by_k_but_one_moves_the_sinusoid():
    # binary-bits: "no fixed matrix turns the code of p into the code of p plus k";
    # square-to-sine: "only with the pair can one fixed rotation" move every position
    assert "no fixed matrix" in said("binary-bits", "verdict")
    assert "only with the pair can one fixed rotation" in said("square-to-sine", "cosine")
    n, k = P.n_bits, 1
    positions = np.arange(2**n - k)

    def residual(now: np.ndarray, later: np.ndarray) -> float:
        M, *_ = np.linalg.lstsq(now, later, rcond=None)
        return float(np.abs(now @ M - later).max())

    codes = pm.binary_encoding(np.arange(2**n), n)
    assert residual(codes[positions], codes[positions + k]) > 0.1
    pe = pm.sinusoidal(np.arange(P.max_len + k), P.d_model, P.base)
    sines = pe[:, 0::2]  # interleaved: the sine of each pair
    at = np.arange(P.max_len)
    assert residual(sines[at], sines[at + k]) > 0.01
    assert residual(pe[at], pe[at + k]) < 1e-9  # with the cosines, one matrix does it


@settings(max_examples=30, deadline=None)
@given(
    buckets=st.integers(2, 512).map(lambda half: 2 * half),
    beyond=st.integers(1, 5000),
    both_ways=st.booleans(),
)
@example(buckets=32, beyond=128 - 8, both_ways=True)
@example(buckets=4, beyond=1, both_ways=False)
@example(buckets=1024, beyond=1, both_ways=True)
def test_t5_gives_near_steps_their_own_buckets_and_far_ones_the_last(buckets, beyond, both_ways):
    # variants: "one per step nearby, then wider ones, and every distance past a limit
    # shares the last"
    exact = buckets // (4 if both_ways else 2)
    limit = exact + beyond
    params = P.replace(t5_num_buckets=buckets, t5_max_distance=limit, t5_bidirectional=both_ways)
    for lang, words in (("en", "every distance past a limit shares the last"), ("zh", "最后一桶")):
        assert words in caption(lang, "variants", "t5", params)
    far = pm.t5_bucket(-np.arange(0, 4 * limit), both_ways, buckets, limit)
    assert (far[:exact] == np.arange(exact)).all()  # one bucket per step nearby
    widths = np.bincount(far)
    assert widths.max() > 1  # then wider ones
    assert (far[limit:] == far.max()).all()  # past the limit, all in the last


def test_an_integer_position_keeps_the_word_but_dwarfs_it():
    # integer-scale: "the word is still there, but only as a small change to a large number"
    assert "still there" in said("integer-scale", "table")
    mix = pm.integer_mix(P.word_a, P.word_b, [P.int_position])
    difference = mix["a"][0] - mix["b"][0]
    assert difference == pytest.approx(np.subtract(P.word_a, P.word_b), abs=1e-12)
    assert mix["ratio"][0] > 100  # the position's size against the word's


def test_the_heat_map_says_its_width_beside_the_paper_s():
    line = said("pe-heatmap", "matrix")
    assert f"width of {P.heat_d_model}" in line and "model is 512 wide" in line


# ------------------------------------------------- narration that follows the knobs
def _sweep(count: int = 40) -> list[Params]:
    """The defaults, the corners the lines turn on, and random knobs across their range."""
    rng = np.random.default_rng(24)
    cases = [
        P,
        Params(d_model=2),
        Params(n_bits=9),
        Params(max_len=1024),
        Params(base=100.0),
        Params(base=500000.0),
        Params(d_model=64, similarity_d_model=16),
        Params(d_model=512, similarity_d_model=2, max_len=16),
        Params(n_bits=1, max_len=1, int_position=7),
        # the knobs a line once read wrongly at: a narrower "wider" model, one width twice,
        # a 4-dim "wider" model, one bit, a lap of 9 positions, one heat-map pair, a big gap
        Params(d_model=128),
        Params(d_model=64),
        Params(similarity_d_model=4),
        Params(n_bits=1),
        Params(base=1.5),
        Params(heat_d_model=2, heat_dims=(0, 1)),
        Params(ambiguity_positions=(0, 3)),
    ]
    while len(cases) < count:
        heat = int(rng.choice([16, 64, 128, 512]))
        cases.append(
            Params(
                d_model=int(rng.choice([2, 4, 8, 16, 64, 128, 512])),
                base=float(rng.choice([100.0, 1000.0, 10000.0, 100000.0, 500000.0])),
                max_len=int(rng.choice([8, 16, 64, 256, 1024])),
                n_bits=int(rng.integers(2, 13)),
                similarity_d_model=int(rng.choice([2, 8, 16, 64, 128, 512])),
                heat_d_model=heat,
                heat_dims=tuple(sorted(rng.choice(heat, size=3, replace=False).tolist())),
            )
        )
    return cases


def more_clocks(d: int, row: np.ndarray, wide: int, row_wide: np.ndarray) -> str:
    """What two rows 0 show about more clocks, by hand: the same width, a cleaner decay
    (the wider row climbs back clearly less, at most 0.8 of the other and 0.05 lower, and
    climbs back at most half of how far it fell), no cleaner decay, or neither decays; one
    position, or rows that only fall (too few positions to tell)."""
    if len(row) == 1:
        return "one"
    if d == wide:
        return "same" if climb(row) > 1e-9 else "same_falls"
    (_, few), (_, many) = sorted([(d, row), (wide, row_wide)], key=lambda t: t[0])
    if max(climb(few), climb(many)) <= 1e-9:
        return "falls"
    if climb(many) >= climb(few):
        return "not_cleaner"
    if climb(many) <= 1e-9:  # the wider row only falls while the other climbs back
        return "cleaner"
    clearly = climb(many) <= 0.8 * climb(few) and climb(few) - climb(many) >= 0.05
    return "cleaner" if clearly and climb(many) <= 0.5 * (1 - many.min()) else "neither"


def climb(row: np.ndarray) -> float:
    """How far a curve climbs back above its lowest point so far (by hand)."""
    return float(np.max(row - np.minimum.accumulate(row)))


def numbers_in(line: str) -> list[float]:
    """The numbers a line says, in order; "less than 0.01" (不到 0.01) is a value between
    0 and 0.01, taken as its middle."""
    import re

    found = re.findall(r"(less than |不到 ?)?(-?\d+(?:\.\d+)?)", line)
    return [float(x) / 2 if below else float(x) for below, x in found]


@pytest.mark.parametrize("params", _sweep(), ids=lambda p: p.digest()[:6])
def test_every_knob_dependent_line_says_what_its_numbers_show(params):
    from lesson.say import line

    lines = {
        (lang, slug, beat): line(lang, slug, beat, params)
        for lang in ("en", "zh")
        for slug, beat in [
            ("similarity", "rows"),
            ("similarity", "wider"),
            ("similarity", "adjacent"),
            ("clock-hands", "periods"),
            ("pe-heatmap", "base"),
            ("pe-heatmap", "range"),
            ("square-to-sine", "ladder"),
            ("clock-hands", "fingerprint"),
            ("binary-bits", "distances"),
            ("recap", "bounded"),
            ("attention-shuffle", "show_tokens"),
        ]
    }
    assert not any("{" in text for text in lines.values())
    n, wide = params.max_len, params.similarity_d_model

    def row0(d: int) -> np.ndarray:
        table = pm.sinusoidal(np.arange(n), d, params.base)
        return table @ table[0] / (np.linalg.norm(table, axis=1) * np.linalg.norm(table[0]))

    narrow_climb, wide_climb = climb(row0(params.d_model)), climb(row0(wide))
    lowest_wide = float(row0(wide).min())
    bars = min(2**params.n_bits, MAX_BAR_POSITIONS)  # the steps the scene draws
    steps = pm.adjacent_distances(pm.binary_encoding(np.arange(bars), params.n_bits))
    omega = pm.frequencies(params.heat_d_model, params.base)
    drawn = registry.get("pe-heatmap").load().numbers(params).shown_len  # positions on screen
    lap = 2 * np.pi / omega.min()  # the slowest pair's lap, against a text of 1024 positions
    other_base = 100.0 if params.base > 100 else 10000.0
    lap_other = 2 * np.pi / pm.frequencies(params.heat_d_model, other_base).min()

    rows_verdict = more_clocks(params.d_model, row0(params.d_model), wide, row0(wide))
    heat_d = params.heat_d_model
    for lang in ("en", "zh"):
        en = lang == "en"
        rows = lines[lang, "similarity", "rows"]
        said_verdict = next(
            v
            for v, words in {
                "one": "single position" if en else "只有一个位置",
                "falls": "too few positions to tell" if en else "位置太少，看不出",
                "same_falls": "only falls over these" if en else "还没有回升",
                "same": "same width" if en else "宽度相同",
                "neither": "Neither row" if en else "两行都没有",
                "not_cleaner": "do not give a cleaner" if en else "并没有更平稳",
                "cleaner": "more clocks give a cleaner" if en else "时钟越多，下降越平稳",
            }.items()
            if words in rows
        )
        assert said_verdict == rows_verdict, rows
        assert "wider model" not in rows and "宽模型" not in rows
        said = numbers_in(rows)
        if rows_verdict == "same":
            assert said[:2] == pytest.approx([params.d_model, narrow_climb], abs=0.006)
        elif rows_verdict == "same_falls":
            assert said[:2] == [params.d_model, n]
        elif rows_verdict == "falls":
            assert said[:3] == [params.d_model, wide, n]
        elif rows_verdict != "one":
            assert said[:4] == pytest.approx(
                [params.d_model, narrow_climb, wide, wide_climb], abs=0.006
            )
        if rows_verdict in ("cleaner", "not_cleaner"):  # the verdict names the wider width
            wider_d = max(params.d_model, wide)
            assert (f"{wider_d}-dim" if en else f"{wider_d} 维这一行") in rows, rows
        wider = lines[lang, "similarity", "wider"]
        above = ("still far from zero" in wider) if en else ("离 0 仍很远" in wider)
        assert above == (lowest_wide > 0.1 and n > 1), wider
        assert "wider model" not in wider and "宽模型" not in wider
        assert numbers_in(wider)[0] == wide
        if n > 1:  # the width, the positions, then the lowest
            assert numbers_in(wider)[2] == pytest.approx(round(lowest_wide, 2), abs=0.006)
        else:  # one position: a single cell, the position against itself
            assert ("single position" in wider) if en else ("只有一个位置" in wider)
        adjacent = lines[lang, "similarity", "adjacent"]
        assert numbers_in(adjacent) == []  # binary's cliff ratio is binary-bits' to say
        if params.n_bits > 1:  # the drawn binary steps jump where several bits flip at once
            assert steps.max() > steps[0]
            assert ("several bits flip at once" if en else "几位同时翻转") in adjacent, adjacent
        else:  # one bit: a single step, so no "1 times its first"
            assert steps.size == 1
            assert ("single bit" in adjacent) if en else ("只有一位" in adjacent)
            assert "times" not in adjacent and "倍" not in adjacent
        base_line = lines[lang, "pe-heatmap", "base"]
        assert "large base" not in base_line and "这么大" not in base_line
        assert "GPT-2" not in base_line  # its table is learned: no yardstick for a sinusoid
        assert ("original paper" in base_line) if en else ("原论文" in base_line)
        if heat_d == 2:  # one pair turns at ω = 1: the base changes nothing
            assert lap == pytest.approx(2 * np.pi) == pytest.approx(lap_other)
            assert ("whatever the base" in base_line) if en else ("不论底数多少" in base_line)
            assert "6.3" in base_line
        else:
            # this base, its slowest lap, the text's length and the laps turned over it,
            # then the other base and its laps over the same text (a scale word multiplies)
            import re

            scale = {"": 1, " million": 1e6, " billion": 1e9, "万": 1e4, "亿": 1e8}
            number = r"(\d[\d,]*(?:\.\d+)?)( million| billion|万|亿)?"
            said = [
                float(x.replace(",", "")) * scale[word] for x, word in re.findall(number, base_line)
            ]
            want = [
                params.base,
                params.heat_d_model,
                lap,
                1024,
                1023 / lap,
                other_base,
                1023 / lap_other,
            ]
            assert said == pytest.approx(want, rel=0.006), base_line
            # "a larger base lengthens the slowest lap, so longer texts fit inside it, at the
            # price of slow dims that move less each step"
            assert 2 * np.pi / pm.frequencies(heat_d, params.base * 2).min() > lap
            slower = pm.frequencies(heat_d, params.base * 2)[1:] < omega[1:]
            assert slower.all()
            assert ("longer texts" if en else "容得下的文本越长") in base_line, base_line
        ladder = lines[lang, "square-to-sine", "ladder"]
        if params.d_model == 2:  # one pair: no ladder, and the base sets nothing
            assert ("only one pair" in ladder) if en else ("只有一对" in ladder)
            assert "base sets" not in ladder
        else:
            factor = params.base ** (2 / params.d_model)
            if f"{factor:.3g}" == "1":  # a factor that reads as 1 is said as barely above one
                assert ("barely above one" in ladder) if en else ("一丁点" in ladder), ladder
            else:
                assert f"{factor:.3g}" in ladder, ladder
            assert (
                ("Halving is a fixed factor, but" in ladder) if en else ("减半是固定倍数" in ladder)
            )
        # the base's first reason, in both languages: halving freezes a wide model's last
        # pairs; what a larger base buys (longer texts) is pe-heatmap's base line, not this one
        assert ("frozen" in ladder) if en else ("几乎不动" in ladder), ladder
        assert "longer text" not in ladder and "更长的文本" not in ladder, ladder
        fingerprint = lines[lang, "clock-hands", "fingerprint"]
        a, b = params.ambiguity_positions
        pe_ab = pm.sinusoidal([a, b], params.d_model, params.base)
        gap = float(np.linalg.norm(pe_ab[1] - pe_ab[0]))
        step = float(
            np.linalg.norm(
                pm.sinusoidal([1], params.d_model, params.base)[0]
                - pm.sinusoidal([0], params.d_model, params.base)[0]
            )
        )
        assert "need not be large" not in fingerprint and "未必很大" not in fingerprint
        smaller = ("is smaller" in fingerprint) if en else ("还更小" in fingerprint)
        assert smaller == (round(gap, 2) < round(step, 2)), fingerprint  # as said
        if not smaller:
            assert f"{gap / step:.1f}" in fingerprint, fingerprint
        assert f"{gap:.2f}" in fingerprint and f"{step:.2f}" in fingerprint
        table = pm.sinusoidal(np.arange(drawn), params.heat_d_model, params.base)
        # no smallest value is said (-0.99999999 would read "-1"): the bounds, and the
        # largest, exactly one (cos 0 at position 0)
        assert numbers_in(lines[lang, "pe-heatmap", "range"]) == []
        assert -1.0 <= table.min() and table.max() == 1.0
        distances = lines[lang, "binary-bits", "distances"]
        if params.n_bits > 1:  # the cliff flips every bit: √n_bits times the first step
            assert f"{np.sqrt(params.n_bits):.3g}" in distances and str(params.n_bits) in distances
        else:
            assert ("single bit" in distances) if lang == "en" else ("只有一位" in distances)
        # the integer scheme climbs as positions grow: no one position's value is named
        climbs = "climbs with every position" if lang == "en" else "随位置一路增长"
        assert climbs in lines[lang, "recap", "bounded"]
        assert str(len(params.tokens)) in lines[lang, "attention-shuffle", "show_tokens"]
        periods = lines[lang, "clock-hands", "periods"]
        one = ("only one hand" in periods) if lang == "en" else ("只有一根指针" in periods)
        assert one == (params.d_model == 2), periods


@pytest.mark.parametrize("params", _sweep(12), ids=lambda p: p.digest()[:6])
def test_the_requirement_verdicts_the_narration_states_hold_at_every_knob(params):
    # integer-scale, binary-bits, relative-shift and rope-rotation state their verdicts as
    # fixed sentences; variants and recap choose theirs from the numbers
    params = params.replace(
        learned_max_len=int(np.random.default_rng(params.d_model).integers(2, 40))
    )
    v = pm.verdicts(params)
    missed = {s: {r for r, ok in x.checks.items() if not ok} for s, x in v.items()}
    # integer-scale: unique, smooth, free, any length; unbounded, no map, never seen past it
    assert missed["integer"] == {"bounded", "shift_map", "seen_length"}
    # binary-bits: unique and bounded; no map, and past the last code nothing new
    assert {"shift_map", "any_length", "seen_length"} <= missed["binary"]
    assert missed["binary"] <= {"smooth", "shift_map", "any_length", "seen_length"}
    # relative-shift and rope-rotation: all a formula promises; seen in training may miss
    assert missed["sinusoid"] <= {"seen_length"} and missed["rope"] <= {"seen_length"}
    assert {"any_length", "seen_length", "no_training"} <= missed["learned"]
    variants = registry.get("variants").load().numbers(params)
    assert set(variants.learned_misses) == missed["learned"]
    assert variants.learned_missed == len(missed["learned"])
    for lang in ("en", "zh"):
        takeaway = caption(lang, "variants", "takeaway", params)
        assert numbers_in(takeaway)[0] == len(missed["learned"])
        recap = caption(lang, "recap", "checklist", params)
        assert numbers_in(recap)[:3] == [len(missed[s]) for s in ("integer", "binary", "learned")]


@pytest.mark.parametrize(
    "params",
    [
        Params(learned_max_len=4),
        Params(d_model=16),
        Params(d_model=16, learned_max_len=17),
        Params(d_model=16, learned_max_len=18),
        Params(d_model=64, learned_seed=5),
        Params(d_model=128, learned_max_len=129),
    ],
    ids=lambda p: f"d{p.d_model}-rows{p.learned_max_len}",
)
def test_a_few_learned_rows_fit_one_linear_map_only_because_they_are_few(params):
    # variants' takeaway: with no more rows than the width plus one, lstsq fits them
    # exactly; the line says so with the rows, the width, and the rows at which it stops
    N, d = params.learned_max_len, params.d_model

    def fits(rows: int) -> bool:
        table = np.random.default_rng(params.learned_seed).normal(0.0, 0.02, size=(rows, d))
        M, *_ = np.linalg.lstsq(table[:-1], table[1:], rcond=None)
        return bool(np.linalg.norm(table[:-1] @ M - table[1:]) < 1e-9 * np.linalg.norm(table[1:]))

    nums = registry.get("variants").load().numbers(params)
    assert fits(N) is (N <= d + 1) is ("shift_map" not in nums.learned_misses)
    en, zh = (caption(lang, "variants", "takeaway", params) for lang in ("en", "zh"))
    missed = len(nums.learned_misses)
    assert f"misses {missed}, among them" in en and f"缺 {missed} 条" in zh
    if not fits(N):
        assert nums.learned_map_breaks is None and "no fixed map" in en
        return
    assert nums.learned_map_breaks == d + 2 and not fits(d + 2) and fits(d + 1)
    said_en = f"only because {N} rows are few for {d} dims: at {d + 2} rows, no linear map fits"
    assert said_en in en
    assert f"{d} 维的表只有 {N} 行；到 {d + 2} 行" in zh


def test_t5_learns_its_bucket_bias_once_and_every_layer_shares_it():
    # variants say.table and the T5 row: T5 computes its bucket bias in the first layer and
    # passes it to the rest (not a fresh bias per layer), unlike RoPE's turn in each layer
    en, zh = (caption(lang, "variants", "table") for lang in ("en", "zh"))
    assert "fresh" not in en and "in the first layer, and every layer reuses them" in en
    assert "重新" not in zh and "只在第一层学一次，之后各层共用" in zh
    for lang, shared in (("en", "learned in the first layer"), ("zh", "只在第一层学出")):
        assert shared in catalogue(lang, "variants")["ui"]["t5_bias"]


def test_the_recap_gives_the_same_reason_for_a_learned_tables_fixed_map():
    assert "fluke of size" in caption("en", "recap", "checklist", Params(d_model=16))
    assert "恰好" in caption("zh", "recap", "checklist", Params(d_model=16))
    assert "fluke" not in caption("en", "recap", "checklist", P)


def test_square_to_sine_gives_each_change_its_reason():
    # start: at ω = π the fastest sine is zero at every whole position
    p = np.arange(64)
    assert np.abs(np.sin(np.pi * p)).max() < 1e-12
    assert np.abs(np.sin(1.0 * p[1:])).min() > 0.008  # p = 44 comes closest to a whole lap
    # the path divides by π first (halving, fastest at 1), then slides to PE's ladder
    np.testing.assert_allclose(pm.ladder_path(4, 8, 1e4, "paper", 1.0), 2.0 ** -np.arange(4))
    np.testing.assert_allclose(pm.ladder_path(4, 8, 1e4, "paper", 2.0), pm.frequencies(8)[:4])
    # ladder: halving at the paper's width would leave the last pair frozen
    assert np.pi * 2.0**-255 < 1e-70
    # ... so the rungs run from 1 towards 1/base at any width (the slowest lap, which grows
    # with the base, is on screen here and spoken in pe-heatmap's base line)
    assert "towards one over the base" in caption("en", "square-to-sine", "ladder")
    for d in (8, 64, 512):
        assert pm.frequencies(d, P.base)[0] == 1
        assert 1 / P.base < pm.frequencies(d, P.base).min() < 1
    lap = 2 * np.pi / pm.frequencies(P.d_model, P.base).min()
    assert 2 * np.pi / pm.frequencies(8, 1e5).min() > lap
    # cosine: sin ω(p+k) needs both the sine and the cosine of ωp
    w, k = 0.3, 5
    np.testing.assert_allclose(
        np.sin(w * (p + k)), np.sin(w * p) * np.cos(w * k) + np.cos(w * p) * np.sin(w * k)
    )
    assert "cosine partner" in caption("en", "square-to-sine", "cosine")


def test_setting_p_beside_the_word_hands_the_next_layer_a_sum():
    # integer-scale's concat beat: W·[x; p] = W₁x + W₂p, and wide random directions are
    # nearly orthogonal (E|cos| ≈ 0.035 at 512 against 0.5 at 3)
    rng = np.random.default_rng(0)
    x, p, W = rng.normal(size=3), rng.normal(size=3), rng.normal(size=(3, 6))
    assert pm.concat_as_sum(x, p, W)["error"] < 1e-12
    assert pm.typical_abs_cosine(3) == pytest.approx(0.5)
    assert pm.typical_abs_cosine(512) == pytest.approx(np.sqrt(2 / (np.pi * 512)), rel=1e-3)
    v = rng.normal(size=(4000, 2, 512))
    cos = np.abs(np.einsum("ij,ij->i", v[:, 0], v[:, 1])) / np.prod(
        np.linalg.norm(v, axis=2), axis=1
    )
    assert cos.mean() == pytest.approx(pm.typical_abs_cosine(512), rel=0.05)
    nums = registry.get("integer-scale").load().numbers(P)
    assert nums.joined_error < 1e-9 and nums.wide_cosine < 0.04 < nums.narrow_cosine
    assert "512 dimensions are nearly orthogonal" in caption("en", "integer-scale", "concat")


def test_rope_turns_q_and_k_after_the_projections_or_the_gap_does_not_come_out_alone():
    # rope-rotation's formula beat: rotated after W_q and W_k, the score depends on n − m;
    # rotated once at the input, before them, it does not
    rng = np.random.default_rng(3)
    d = P.d_model
    x, y = rng.normal(size=d), rng.normal(size=d)
    Wq, Wk = rng.normal(size=(d, d)), rng.normal(size=(d, d))

    def after(m, n):
        return pm.rope_score(Wq @ x, Wk @ y, m, n, P.base)

    def before(m, n):
        R = pm.rope_matrix
        return float((Wq @ R(m, d, P.base) @ x) @ (Wk @ R(n, d, P.base) @ y))

    assert after(2, 5) == pytest.approx(after(12, 15), abs=1e-9)
    assert abs(before(2, 5) - before(12, 15)) > 0.1
    assert "after their projections, in every layer" in caption("en", "rope-rotation", "formula")


@pytest.mark.parametrize("pair", [(0, 6), (0, 3), (2, 15), (0, 13), (5, 8)])
def test_the_fast_hand_is_called_a_near_miss_only_when_it_nearly_repeats(pair):
    # clock-hands repeat and fingerprint: "almost back where it began" needs the fastest
    # hand to end within 30 degrees of its angle at the first position
    params = P.replace(ambiguity_positions=pair)
    a, b = pair
    gap = np.degrees(abs((b - a) * pm.frequencies(P.d_model, P.base)[0]) % (2 * np.pi))
    near = min(gap, 360 - gap) <= 30
    for lang in ("en", "zh"):
        repeat = caption(lang, "clock-hands", "repeat", params)
        said_near = ("almost back" in repeat) if lang == "en" else ("差不多回到" in repeat)
        assert said_near == near, (pair, repeat)
        if not near:
            assert numbers_in(repeat)[0] == pytest.approx(min(gap, 360 - gap), abs=0.5)


def test_every_chapter_but_the_last_ends_with_a_bridge_to_the_next():
    chapters = registry.lesson_chapters()
    for info, following in zip(chapters, chapters[1:], strict=False):
        for lang in ("en", "zh"):
            say_keys = list(catalogue(lang, info.slug)["say"])
            assert say_keys[-1] == "bridge", (info.slug, lang)
        assert registry.next_chapter(info.slug) == following
    assert "bridge" not in catalogue("en", chapters[-1].slug)["say"]


def test_the_recording_script_shows_the_lines_a_teacher_would_read_at_those_knobs(tmp_path):
    import csv
    import io

    from click.testing import CliRunner

    from render import cli

    quick = tmp_path / "espeak.toml"  # the words are the point here, not the voice
    quick.write_text('[voice.en]\nengine = "espeak"\n', encoding="utf-8")

    def periods(*knobs: str) -> str:
        args = ["script", "clock-hands", "--format", "csv", "--output", str(tmp_path)]
        args += ["--config", str(quick), *knobs]
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0, result.output
        rows = {r[1]: r[2] for r in csv.reader(io.StringIO(result.stdout))}
        return rows["periods"]

    assert periods("--set", "d_model=2") == caption(
        "en", "clock-hands", "periods", Params(d_model=2)
    )
    assert "only one hand" in periods("--set", "d_model=2")
    assert "only one hand" not in periods()


def test_subtitles_say_the_line_at_the_clip_s_knobs():
    from rendering.speech import captions

    cues = captions.cues_for([("adjacent", 0.0)], 30.0, "similarity", "en", None, Params(n_bits=1))
    words = " ".join(c.text.replace("\n", " ") for c in cues)
    assert caption("en", "similarity", "adjacent", Params(n_bits=1)) == words
    assert "single bit" in words and "single bit" not in caption("en", "similarity", "adjacent")


def test_a_bad_spoken_slot_or_choice_names_the_file_and_the_line(tmp_path):
    from dataclasses import dataclass

    from lesson import catalogue as catalogue_mod
    from lesson.catalogue import CatalogueError
    from lesson.say import fill

    (tmp_path / "en").mkdir()
    (tmp_path / "en" / "say-probe.toml").write_text(
        '[say]\nslot = "a gap of {n.gap} and {n.nope}"\n'
        'pick = { near = "near", far = "far" }\nplain = "no slots, {{braces}} as written"\n',
        encoding="utf-8",
    )

    @dataclass
    class Numbers:
        gap: int
        lines: dict

    catalogue_mod.add_root(tmp_path)
    try:
        where = tmp_path / "en" / "say-probe.toml"
        with pytest.raises(CatalogueError, match="nope"):
            fill("en", "say-probe", "slot", lambda: Numbers(3, {}))
        with pytest.raises(CatalogueError) as caught:
            fill("en", "say-probe", "pick", lambda: Numbers(3, {"pick": "middle"}))
        assert str(where) in str(caught.value) and "'middle'" in str(caught.value)
        assert fill("en", "say-probe", "pick", lambda: Numbers(3, {"pick": "far"})) == "far"
        never = lambda: pytest.fail("a line without slots needs no numbers")  # noqa: E731
        assert fill("en", "say-probe", "plain", never) == "no slots, {braces} as written"
    finally:
        catalogue_mod.ROOTS.remove(tmp_path)
        catalogue_mod.catalogue.cache_clear()


def test_no_narration_line_names_a_chapter_by_its_number():
    # chapters may move; a line points back by name or by "earlier", a label by {order}
    import re

    from lesson.say import lines

    numbered = re.compile(
        r"chapters? (\d+|one|two|three|four|five|six|seven|eight|nine|ten)\b|第.{1,3}章"
    )
    for info in registry.ordered():
        for lang in ("en", "zh"):
            for beat, text in lines(info.slug, lang).items():
                assert not numbered.search(text), (lang, info.slug, beat, text)
