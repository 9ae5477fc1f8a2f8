"""Scene 3, binary-bits: the numbers it shows, its layout in both languages, and a real render."""

import numpy as np
import pytest
from hypothesis import given, settings

import pe_math as pm
from lesson.catalogue import lookup
from pe_math import Params
from scenes.chapters.binary_bits.scene import BinaryBits
from scenes.kit.components import compact
from tests.scene_tools import alternating_langs, build_and_read, squash
from tests.test_knob_sweep import examples_at, knob_sets

BEATS = ["counter", "rhythm", "cliff", "distances", "verdict", "takeaway", "bridge"]
CASES = {"defaults": Params(), "n_bits=2": Params(n_bits=2), "n_bits=8": Params(n_bits=8)}


@pytest.mark.parametrize(("case", "lang"), alternating_langs(CASES))
def test_builds_clean_and_shows_its_numbers(case, lang):
    params = CASES[case]
    scene, report, seen, _ = build_and_read(BinaryBits, params, lang)
    report.assert_clean()
    assert [b for b, _ in scene.beats] == BEATS
    n = params.n_bits
    cliff = 2 ** (n - 1)
    # the cliff beat left both counters and the distance on stage
    on_cliff = seen["distances"]
    assert f"p = {cliff - 1}" in on_cliff and f"p = {cliff}" in on_cliff
    distance = pm.adjacent_distances(pm.binary_encoding([cliff - 1, cliff], n))[0]
    assert any(f"= {distance:.2f}" in w for w in on_cliff)
    # the bar chart named the first step and the cliff step
    on_bars = seen["verdict"]
    assert "0→1" in on_bars and f"{cliff - 1}→{cliff}" in on_bars
    # ... and said how many bits flip there and how much longer that step is than the first
    ratio = lookup(lang, "binary-bits", "ui.cliff_ratio").format(flips=n, ratio=compact(np.sqrt(n)))
    assert "".join(ratio.split()) in "".join("".join(on_bars).split())
    # every bit is labelled with its rhythm, and the counter reads 0, before the count
    on_counter = seen["rhythm"]
    for k in range(n):
        assert str(2**k) in on_counter
    assert on_counter.count("p = 0") == 1


def test_numbers_are_pe_maths_binary_table_cliff_and_distances():
    nums = BinaryBits.numbers(Params())
    table = pm.binary_encoding(np.arange(16), 4)
    np.testing.assert_array_equal(nums.table, table)
    assert nums.positions == nums.total_positions == 16
    np.testing.assert_allclose(nums.bar_heights, pm.adjacent_distances(table))
    assert nums.bar_steps == list(range(15))
    assert nums.cliff == [7, 8]
    np.testing.assert_array_equal(nums.cliff_bits, [[1, 1, 1, 0], [0, 0, 0, 1]])
    assert nums.cliff_flips == 4
    assert nums.cliff_distance == pytest.approx(2.0)
    assert nums.first_distance == pytest.approx(1.0)
    # the cliff bar towers over the first step, and is the tallest
    assert nums.bar_heights[7] == max(nums.bar_heights) > nums.bar_heights[0]


@pytest.mark.parametrize("n_bits", range(1, 9))
def test_distances_claims_hold_for_any_bit_count(n_bits):
    """say.cliff / say.distances: the cliff is where the top bit first switches on; there
    every bit flips, and that step is sqrt(n_bits) times the first; most steps flip one bit."""
    nums = BinaryBits.numbers(Params(n_bits=n_bits))
    before, after = nums.cliff
    table = pm.binary_encoding(np.arange(2**n_bits), n_bits)
    top = table[:, n_bits - 1]
    assert top[after] == 1 and not top[:after].any()
    assert nums.cliff_flips == n_bits
    assert nums.first_distance == pytest.approx(1.0)
    assert nums.cliff_ratio == pytest.approx(nums.cliff_distance / nums.first_distance)
    assert nums.cliff_ratio == pytest.approx(np.sqrt(n_bits))
    steps = pm.adjacent_distances(table)
    assert np.sum(np.isclose(steps, 1.0)) > len(steps) / 2
    # the bars drawn over the counted steps tell the same story
    counted = np.asarray(nums.bar_heights[: nums.positions - 1])
    assert np.sum(np.isclose(counted, 1.0)) > len(counted) / 2


def test_at_the_defaults_four_bits_flip_and_the_cliff_is_twice_the_first_step():
    nums = BinaryBits.numbers(Params())
    assert nums.cliff_flips == 4
    assert nums.cliff_ratio == pytest.approx(2.0)
    assert compact(nums.cliff_ratio) == "2"
    # the cliff is the tallest bar, yet not by far: 3 → 4 already moves sqrt(3)
    assert nums.bar_heights[3] == pytest.approx(np.sqrt(3))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_one_bit_has_no_ratio_to_show(lang):
    scene, report, seen, _ = build_and_read(BinaryBits, Params(n_bits=1), lang)
    report.assert_clean()
    # the fixed words of the label, between its two numbers, are nowhere on stage
    template = lookup(lang, "binary-bits", "ui.cliff_ratio")
    words = template.split("{flips}")[1].split("{ratio}")[0].strip()
    assert words and not any(words in w for w in seen["verdict"])


def test_each_bits_rhythm_label_matches_when_the_bit_really_flips():
    nums = BinaryBits.numbers(Params(n_bits=5))
    table = pm.binary_encoding(np.arange(64), 5)
    for k, every in enumerate(nums.flip_every):
        flips = np.nonzero(np.diff(table[:, k]))[0] + 1
        np.testing.assert_array_equal(flips, np.arange(every, 64, every))


def test_numbers_follow_n_bits_and_cap_the_animated_count():
    small, wide = BinaryBits.numbers(Params(n_bits=2)), BinaryBits.numbers(Params(n_bits=8))
    assert small != BinaryBits.numbers(Params()) != wide
    np.testing.assert_array_equal(small.table, pm.binary_encoding(np.arange(4), 2))
    np.testing.assert_allclose(small.bar_heights, [1, np.sqrt(2), 1])
    assert small.cliff == [1, 2] and small.trace_bits == 2
    # 8 bits: 256 positions, only the first 32 are counted one by one ...
    assert wide.positions == 32 and wide.total_positions == 256 and wide.trace_bits == 5
    np.testing.assert_array_equal(wide.table, pm.binary_encoding(np.arange(32), 8))
    # ... and the 127 → 128 cliff, out of that range, still gets its own bar
    assert wide.bar_steps == [*range(31), 127]
    cliff = pm.adjacent_distances(pm.binary_encoding([127, 128], 8))[0]
    assert wide.bar_heights[-1] == pytest.approx(cliff) == pytest.approx(np.sqrt(8))
    assert wide.cliff_flips == 8


# ------------------------------------------- the lines that follow n_bits, by hand
def said(beat: str, params: Params) -> tuple[str, str]:
    from lesson.say import line

    return line("en", "binary-bits", beat, params), line("zh", "binary-bits", beat, params)


def by_hand(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every code of n bits, bit k = (p >> k) & 1, and the length of each step p → p+1."""
    p = np.arange(2**n)
    codes = ((p[:, None] >> np.arange(n)) & 1).astype(float)
    return codes, np.linalg.norm(np.diff(codes, axis=0), axis=1)


@pytest.mark.parametrize("n_bits", range(1, 17))
def test_the_verdict_follows_the_distances_at_every_bit_count(n_bits):
    # say.distances and say.verdict: with one bit its only step is every step, so there is
    # no cliff, no longest step and no second layer; with more, the cliff is the longest
    # step (said once, with its ratio, in distances), and the code past it, half the count
    # from 0, lies one bit from 0: code distance breaks with position's
    codes, steps = by_hand(n_bits)
    distances, verdict = (said(beat, Params(n_bits=n_bits)) for beat in ("distances", "verdict"))
    # the verdict never says the cliff's size again: the distances beat said it
    assert "square root" not in verdict[0] and "longest" not in verdict[0]
    assert "根号" not in verdict[1] and "最长" not in verdict[1] and "倍" not in verdict[1]
    if np.ptp(steps) < 1e-12:  # one bit: a single step, 0 → 1
        assert n_bits == 1 and steps.size == 1
        # one bit counts 0, 1: a single step, so nothing "every step" could be said of
        assert "only one step: it flips that bit" in distances[0]
        assert "只有一步：翻转这一位" in distances[1] and "every step" not in distances[0]
        assert "layered is good news" not in verdict[0] and "分层是好消息" not in verdict[1]
        assert "single layer" in verdict[0] and "只有一层" in verdict[1]
        assert "no cliff" in verdict[0] and "谈不上陡跳" in verdict[1]
        return
    cliff = 2 ** (n_bits - 1)
    assert np.argmax(steps) == cliff - 1 and np.sum(steps == steps.max()) == 1
    assert steps[cliff - 1] / steps[0] == pytest.approx(np.sqrt(n_bits))
    # "every other step changes one bit": the steps from an even p flip bit 0 alone, the
    # steps from an odd p carry and flip more (the first step, and the last, flip one)
    flips = np.abs(np.diff(codes, axis=0)).sum(axis=1)
    np.testing.assert_array_equal(flips[0::2], 1)
    assert np.all(flips[1::2] > 1)
    assert np.linalg.norm(codes[cliff] - codes[0]) == 1.0  # one bit from position 0
    assert cliff == len(codes) // 2  # ... though half the count away from it
    # position cliff + 1 lies further from cliff − 1 than the cliff does, its code nearer
    assert np.linalg.norm(codes[cliff + 1] - codes[cliff - 1]) < steps[cliff - 1]
    assert "at the cliff every bit flips" in distances[0] and "所有位一齐翻转" in distances[1]
    assert "Every other step changes one bit" in distances[0]
    assert "隔一步就有一步只改一位" in distances[1] and "多数" not in distances[1]
    assert "half the count away, lies a single bit from position zero" in verdict[0]
    assert "离 0 已数过一半，编码却和位置 0 只差一位" in verdict[1]
    assert "layered is good news" in verdict[0] and "分层是好消息" in verdict[1]
    assert f"{np.sqrt(n_bits):.3g} times, with {n_bits} bits" in distances[0]
    assert f"{n_bits} 位时是 {np.sqrt(n_bits):.3g} 倍" in distances[1]


@pytest.mark.parametrize("n_bits", range(1, 17))
def test_the_code_of_zero_is_all_zeros_so_no_matrix_moves_it_as_with_integers(n_bits):
    # say.verdict: "as with integers, no fixed matrix turns the code of p into the code of
    # p plus k": position 0's code is all zeros for both, and M·0 = 0 is never a code of k
    codes, _ = by_hand(n_bits)
    assert not codes[0].any() and not pm.integer_encoding([0], 4).any()
    for k in range(1, min(4, len(codes))):
        assert codes[k].any()
        M, *_ = np.linalg.lstsq(codes[:-k], codes[k:], rcond=None)
        assert np.abs(codes[:-k] @ M - codes[k:]).max() > 0.1
    assert not pm.verdict("binary", Params(n_bits=n_bits)).checks["shift_map"]
    for lang, words in (("en", "as with integers, no fixed matrix"), ("zh", "和整数一样")):
        from lesson.say import line

        assert words in line(lang, "binary-bits", "verdict", Params(n_bits=n_bits))


def bits_oracle(test):
    """`test(params)` at 25 drawn knob sets, after one, two and sixteen bits."""
    test = examples_at([{"n_bits": 1}, {"n_bits": 2}, {"n_bits": 16}])(
        given(params=knob_sets())(test)
    )
    return settings(max_examples=25, deadline=None)(test)


@bits_oracle
def test_the_takeaway_bounded_and_unique_until_the_codes_start_over(params):
    # say.takeaway: "bounded and unique, but only up to the last code; after it the codes
    # start over": 2^n different codes of 0s and 1s, then position 2^n + j repeats j
    n = params.n_bits
    codes, _ = by_hand(n)
    assert set(np.unique(codes)) <= {0.0, 1.0}
    assert len(np.unique(codes, axis=0)) == len(codes) == 2**n
    later = pm.binary_encoding(np.arange(2**n, 2**n + min(2**n, 64)), n)
    np.testing.assert_array_equal(later, codes[: len(later)])
    checks = pm.verdict("binary", params).checks
    assert checks["bounded"] and checks["unique"] and not checks["any_length"]
    en, zh = said("takeaway", params)
    assert "bounded and unique, but only up to the last code" in en
    assert "after it the codes start over" in en
    assert "有界，也各不相同，但只到最后一个编码为止" in zh and "从头重复" in zh


@bits_oracle
def test_the_rhythm_and_the_cliff_say_what_the_count_shows(params):
    # say.rhythm: bit i flips every 2 to the power i steps (one bit, counted 0 and 1: one flip, one
    # period); say.cliff: halfway up, where the top bit first switches on, every bit flips
    # at once and that step is longer than the first (one bit: its only step, no cliff)
    n = params.n_bits
    codes, steps = by_hand(n)
    for k in range(n):
        flips = np.nonzero(np.diff(codes[:, k]))[0] + 1
        np.testing.assert_array_equal(flips, np.arange(2**k, 2**n, 2**k))
    rhythm, cliff = said("rhythm", params), said("cliff", params)
    if n == 1:
        assert steps.size == 1  # the count is 0, 1: the bit flips once
        assert "one period" in rhythm[0] and "只画出一个波长" in rhythm[1]
        assert "each bit draws" not in rhythm[0] and "每一位都画出" not in rhythm[1]
        assert "no cliff" in cliff[0] and "没有陡跳" in cliff[1]
        assert "every bit flips at once" not in cliff[0]
        return
    half = 2 ** (n - 1)
    assert codes[half, n - 1] == 1 and not codes[:half, n - 1].any()
    assert np.all(codes[half] != codes[half - 1]) and steps[half - 1] > steps[0]
    assert "bit i flips every 2 to the power i steps" in rhythm[0]
    assert "每隔 2 的 i 次方步翻转" in rhythm[1] and "^" not in rhythm[0] + rhythm[1]
    assert "every bit flips at once: a cliff" in cliff[0] and "所有位同时翻转" in cliff[1]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_with_one_bit_the_screen_shows_no_layers_and_no_cliff(lang):
    # the verdict's points follow the speech: one layer and no cliff, not "layered" and
    # "discontinuous"; the cliff's label does not say "1 of 1 bits flip"
    _, report, seen, _ = build_and_read(BinaryBits, Params(n_bits=1), lang)
    report.assert_clean()
    ui = {key: lookup(lang, "binary-bits", f"ui.{key}") for key in ("layered", "jumps")}
    ones = {key: lookup(lang, "binary-bits", f"ui.{key}_one") for key in ("layered", "jumps")}
    points = squash(seen["takeaway"])
    assert all(squash(words) in points for words in ones.values())
    assert not any(squash(words) in points for words in ui.values())
    assert squash(lookup(lang, "binary-bits", "ui.flips_one")) in squash(seen["distances"])
