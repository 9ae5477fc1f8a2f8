"""Scene 3, binary-bits: the numbers it shows, its layout in both languages, and a real render."""

import numpy as np
import pytest

import pe_math as pm
from lesson.catalogue import lookup
from pe_math import Params
from scenes.chapters.binary_bits.scene import BinaryBits
from scenes.kit.components import compact
from tests.scene_tools import alternating_langs, build_and_read

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
