"""pe_math against published numbers and hand-checked values."""

import numpy as np
import pytest

import pe_math as pm


def test_pe1_d8_base10000_interleaved_matches_published_values():
    expected = [
        0.84147098,
        0.54030231,
        0.09983342,
        0.99500417,
        0.00999983,
        0.99995000,
        0.00100000,
        0.99999950,
    ]
    np.testing.assert_allclose(pm.sinusoidal([1], 8)[0], expected, atol=1e-8)


def test_pe0_is_sin0_cos0_and_concat_layout_groups_sin_then_cos():
    np.testing.assert_array_equal(pm.sinusoidal([0], 4)[0], [0, 1, 0, 1])
    np.testing.assert_array_equal(pm.sinusoidal([0], 4, layout="concat")[0], [0, 0, 1, 1])


def test_frequencies_paper_and_t2t():
    np.testing.assert_allclose(pm.frequencies(8), [1, 0.1, 0.01, 0.001])
    # tensor2tensor spreads the same range over d/2-1 steps: 10000^(-i/3)
    np.testing.assert_allclose(pm.frequencies(8, variant="t2t"), 10000.0 ** (-np.arange(4) / 3))
    np.testing.assert_allclose(pm.periods(8)[0], 2 * np.pi)
    with pytest.raises(ValueError, match="variant"):
        pm.frequencies(8, variant="nope")


def test_alibi_slopes_for_8_and_12_heads():
    np.testing.assert_allclose(pm.alibi_slopes(8), [2.0**-k for k in range(1, 9)])
    # 12 heads: the 8-head ladder, then every other slope of the 16-head ladder
    sixteen = [2.0 ** (-k / 2) for k in range(1, 17)]
    np.testing.assert_allclose(
        pm.alibi_slopes(12), [2.0**-k for k in range(1, 9)] + sixteen[0::2][:4]
    )


def test_alibi_bias_is_causal_and_linear_in_distance():
    b = pm.alibi_bias(2, 4)
    assert b.shape == (2, 4, 4)
    assert np.isneginf(b[0, 0, 1])
    assert b[0, 3, 0] == pytest.approx(-3 * 0.25**1 * 0 - 3 * pm.alibi_slopes(2)[0])
    np.testing.assert_array_equal(np.diagonal(b, axis1=1, axis2=2), 0)


@pytest.mark.parametrize(
    "rel,bucket",
    [(-8, 8), (-1, 1), (0, 0), (1, 17), (8, 24), (-20, 10), (20, 26), (-128, 15), (128, 31)],
)
def test_t5_bidirectional_buckets(rel, bucket):
    assert pm.t5_bucket(rel) == bucket


def test_t5_causal_buckets_ignore_future_and_log_bin_the_past():
    got = pm.t5_bucket(np.array([5, 1, 0, -1, -8, -20, -128, -500]), bidirectional=False)
    np.testing.assert_array_equal(got, [0, 0, 0, 1, 8, 17, 31, 31])


def test_binary_encoding_lsb_in_column_0():
    np.testing.assert_array_equal(
        pm.binary_encoding([0, 1, 2, 7, 8, 15], 4),
        [[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 1, 1, 0], [0, 0, 0, 1], [1, 1, 1, 1]],
    )


def test_binary_adjacent_distance_cliff_7_to_8():
    d = pm.adjacent_distances(pm.binary_encoding(np.arange(16), 4))
    assert d[0] == 1.0 and d[7] == 2.0  # one bit flips at 0→1, all four at 7→8
    assert d.argmax() == 7


def test_integer_table_at_300_and_drowning_cosine():
    mix = pm.integer_mix([0.2, -0.1, 0.5], [0.4, 0.3, -0.2], [0, 300])
    np.testing.assert_allclose(mix["a"][1], [300.2, 299.9, 300.5])
    np.testing.assert_allclose(mix["b"][1], [300.4, 300.3, 299.8])
    assert mix["cosine"][0] < 0.2
    assert mix["cosine"][1] > 0.99999
    assert mix["ratio"][1] == pytest.approx(300 * np.sqrt(3) / np.linalg.norm([0.2, -0.1, 0.5]))


def test_seed_attention_demo_equivariance():
    case = pm.attention_for(pm.Params())
    np.testing.assert_allclose(case.weights.sum(axis=1), 1)
    assert case.equivariance_error < 1e-12
    np.testing.assert_allclose(case.output[0], case.output_perm[2], atol=1e-12)
    W_q, _, _ = pm.projection_matrices(4, 7, 0.5)
    np.testing.assert_allclose(W_q, np.random.RandomState(7).randn(4, 4) * 0.5)


@pytest.mark.parametrize("n", [1, 2, 3, 7])
def test_the_causal_mask_hides_later_keys_and_even_weights_count_the_earlier_ones(n):
    mask = pm.causal_mask(n)
    for i in range(n):
        assert np.all(mask[i, : i + 1] == 0) and np.all(np.isneginf(mask[i, i + 1 :]))
    np.testing.assert_array_equal(pm.keys_seen(n), np.arange(1, n + 1))
    # equal scores under the mask: query i splits its weight evenly over its i + 1 keys
    even = pm.softmax(np.zeros((n, n)) + mask)
    for i in range(n):
        np.testing.assert_allclose(even[i, : i + 1], 1 / (i + 1))
        assert np.all(even[i, i + 1 :] == 0)


def test_under_the_causal_mask_a_swap_changes_the_outputs():
    plain, masked = pm.attention_for(pm.Params()), pm.attention_for(pm.Params(), causal=True)
    assert plain.equivariance_error < 1e-12 < 0.5 < masked.equivariance_error
    # the first token sees only itself: its output is its own value vector
    np.testing.assert_allclose(masked.weights[0], [1, 0, 0])
    np.testing.assert_allclose(masked.output[0], (masked.X @ masked.W_v)[0])
    # the last sees every token, so its row is the unmasked one
    np.testing.assert_allclose(masked.weights[-1], plain.weights[-1])
    np.testing.assert_allclose(np.triu(masked.weights, 1), 0)


def test_permutation_matrix_rejects_non_permutations():
    np.testing.assert_array_equal(pm.permutation_matrix([2, 1, 0]) @ np.arange(3), [2, 1, 0])
    with pytest.raises(ValueError, match="not a permutation"):
        pm.permutation_matrix([0, 0, 1])


def test_clock_hand_tips_are_pe_pairs():
    tips = pm.clock_hand_tips(5, 8)
    np.testing.assert_allclose(tips.reshape(-1), pm.sinusoidal([5], 8)[0])


def test_clock_fast_hand_nearly_repeats_after_six_positions_but_fingerprint_differs():
    a0, a6 = pm.clock_angles(0, 8), pm.clock_angles(6, 8)
    assert abs(np.cos(a6[0]) - np.cos(a0[0])) < 0.05
    pe = pm.sinusoidal([0, 6], 8)
    assert np.linalg.norm(pe[0] - pe[1]) > 0.5


def test_learned_table_has_no_row_past_max_len():
    table = pm.learned_table(16, 4, seed=3)
    assert table.shape == (16, 4)
    np.testing.assert_array_equal(pm.learned_lookup(table, [15])[0], table[15])
    with pytest.raises(pm.PositionOutOfRange, match="position 16 is outside the learned table"):
        pm.learned_lookup(table, [3, 16])


def test_mixed_frequency_encoding_shape_and_bounds():
    pe = pm.mixed_frequency_encoding(np.arange(100), 32)
    assert pe.shape == (100, 32) and np.abs(pe).max() <= 1
    assert not np.allclose(pe, pm.sinusoidal(np.arange(100), 32))


def test_cosine_similarity_matrix_diagonal_and_decay():
    S = pm.cosine_similarity_matrix(pm.sinusoidal(np.arange(64), 64))
    np.testing.assert_allclose(np.diag(S), 1)
    assert S[0, 1] > S[0, 10] > S[0, 40]


def test_softmax_is_stable_for_large_inputs():
    np.testing.assert_allclose(pm.softmax(np.array([1000.0, 1000.0])), [0.5, 0.5])


def test_rope_half_pairing_matches_rotate_half_formula():
    x = np.arange(1.0, 9.0)
    out = pm.rope(x, [3], pairing="half")[0]
    theta = pm.frequencies(8)
    cos, sin = np.cos(3 * np.r_[theta, theta]), np.sin(3 * np.r_[theta, theta])
    rot_half = np.r_[-x[4:], x[:4]]
    np.testing.assert_allclose(out, x * cos + rot_half * sin)


def test_rope_plane_reports_constant_dot_under_common_shift():
    a = pm.rope_plane([1, 0.4], [0.7, -0.6], 2, 5, 1.0)
    b = pm.rope_plane([1, 0.4], [0.7, -0.6], 5, 8, 1.0)
    assert a["dot"] == pytest.approx(b["dot"]) == pytest.approx(a["relative_dot"])
    assert a["angle"] == pytest.approx(b["angle"])
    assert not np.allclose(a["q_rot"], b["q_rot"])


def test_pair_dims_follow_the_layout():
    np.testing.assert_array_equal(pm.pair_dims(8), [[0, 1], [2, 3], [4, 5], [6, 7]])
    np.testing.assert_array_equal(pm.pair_dims(8, "concat"), [[0, 4], [1, 5], [2, 6], [3, 7]])
    np.testing.assert_array_equal(pm.pair_dims(6, "half"), [[0, 3], [1, 4], [2, 5]])
    # the dims really hold (sin, cos) of clock i in either sinusoidal layout
    for layout in ("interleaved", "concat"):
        pe = pm.sinusoidal([5], 8, layout=layout)[0]
        np.testing.assert_allclose(pe[pm.pair_dims(8, layout)], pm.clock_hand_tips(5, 8))
    with pytest.raises(ValueError, match="layout"):
        pm.pair_dims(8, "zigzag")


def test_clock_angle_gaps_wrap_into_half_turn():
    # 0 → 6: the fast hand turns 6 rad, i.e. 2π − 0.283 ≈ −0.283 rad short of a full turn
    gaps = pm.clock_angle_gaps(0, 6, 8)
    np.testing.assert_allclose(gaps, [6 - 2 * np.pi, 0.6, 0.06, 0.006])
    assert pm.clock_angle_gaps(0, np.pi, 8)[0] == pytest.approx(np.pi)  # π stays π, not −π
    np.testing.assert_allclose(pm.clock_angle_gaps(6, 0, 8), -gaps)


def test_binary_frequencies_are_the_square_waves_fundamentals():
    # bit k has period 2^(k+1), so its fundamental turns at π·2^-k radians per position
    np.testing.assert_allclose(pm.binary_frequencies(4), [np.pi, np.pi / 2, np.pi / 4, np.pi / 8])
    p = np.linspace(0, 16, 161)
    np.testing.assert_allclose(
        pm.fourier_partial_sum(p, 2, 1), -(4 / np.pi) * np.sin(pm.binary_frequencies(3)[2] * p)
    )


def test_frequency_slide_runs_from_the_binary_ladder_to_the_pe_ladder():
    ends = pm.frequency_slide(4, 8, 10000.0, "paper", np.array([0.0, 0.5, 1.0]))
    assert ends.shape == (3, 4)
    np.testing.assert_allclose(ends[0], pm.binary_frequencies(4))
    np.testing.assert_allclose(ends[2], [1, 0.1, 0.01, 0.001])
    # halfway in log space is the geometric mean of the two ladders
    np.testing.assert_allclose(ends[1], np.sqrt(ends[0] * ends[2]))
    np.testing.assert_allclose(pm.frequency_slide(2, 4, 100.0, t=1.0), pm.frequencies(4, 100.0))
    with pytest.raises(ValueError, match="n_rows=5"):
        pm.frequency_slide(5, 8)


def test_pair_waves_match_the_interleaved_sinusoidal_table():
    s, c = pm.pair_waves(np.arange(6), pm.frequencies(8))
    table = pm.sinusoidal(np.arange(6), 8)
    np.testing.assert_allclose(s, table[:, 0::2], atol=1e-12)
    np.testing.assert_allclose(c, table[:, 1::2], atol=1e-12)


def test_nice_ticks_pick_1_2_5_steps_inside_the_range():
    np.testing.assert_allclose(pm.nice_step([1, 10, 0.7, 3, 550]), [0.2, 2, 0.2, 1, 200])
    np.testing.assert_allclose(pm.nice_ticks(-0.2, 0.55), [-0.2, 0, 0.2, 0.4])
    np.testing.assert_allclose(pm.nice_ticks(0, 5500), [0, 2000, 4000])
    np.testing.assert_allclose(pm.nice_ticks(-0.3, 0.33), [-0.2, 0, 0.2])
    assert pm.nice_ticks(0, 0.3)[1] == 0.1  # rounded to the step's digits, not 0.1000…02
    with pytest.raises(ValueError, match="hi must exceed lo"):
        pm.nice_ticks(1, 1)
