"""What the narration claims, checked at the lesson's defaults.

Each test holds one sentence of the lesson to its numbers, computed here by hand or by
pe_math, so a rewording that turns a careful claim back into a false one is caught by
the numbers it would contradict.
"""

from __future__ import annotations

import numpy as np
import pytest

import pe_math as pm
from pe_math import Params
from scenes.catalogue import caption
from tests.scene_tools import bits

P = Params()


def said(slug: str, beat: str) -> str:
    return caption("en", slug, beat)


def test_a_causal_mask_alone_lets_attention_tell_the_swapped_sentences_apart():
    # attention-shuffle: "with no causal mask, [attention] cannot see order"
    assert "no causal mask" in said("attention-shuffle", "inject_position")
    X = np.asarray(P.X[: len(P.tokens)], dtype=float)
    W_q, W_k, W_v = pm.projection_matrices(X.shape[1], P.proj_seed, P.proj_scale)
    order = list(range(len(X)))
    i, j = P.swap
    order[i], order[j] = order[j], order[i]

    def outputs(rows: np.ndarray, causal: bool) -> np.ndarray:
        scores = (rows @ W_q) @ (rows @ W_k).T / np.sqrt(X.shape[1])
        if causal:
            scores = np.where(np.tril(np.ones_like(scores)) > 0, scores, -np.inf)
        weights = np.exp(scores - scores.max(axis=1, keepdims=True))
        return (weights / weights.sum(axis=1, keepdims=True)) @ (rows @ W_v)

    for causal, same in ((False, True), (True, False)):
        plain, swapped = outputs(X, causal), outputs(X[order], causal)
        # the token that moved from slot i to slot j: its output, before and after
        assert np.allclose(plain[i], swapped[j], atol=1e-12) is same


def test_the_shifted_dot_product_depends_on_the_gap_but_is_no_ruler():
    # relative-shift: "a wider gap can score higher than a narrower one, and k and minus k
    # score the same"
    line = said("relative-shift", "dot")
    assert "wider gap can score higher" in line and "minus k" in line
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
    # square-to-sine: "from the sine alone, no fixed matrix can do it", but the pair can
    assert "no fixed matrix" in said("binary-bits", "verdict")
    assert "From the sine alone, no fixed matrix" in said("square-to-sine", "formula")
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


def test_t5_shares_its_last_bucket_among_the_farthest_distances():
    # variants: "the farthest distances all share the last [bucket]"
    assert "farthest distances all share the last" in said("variants", "t5")
    far = -np.arange(0, 4 * P.t5_max_distance)  # keys before the query
    buckets = pm.t5_bucket(far, P.t5_bidirectional, P.t5_num_buckets, P.t5_max_distance)
    last = buckets.max()
    first_last = int(np.argmax(buckets == last))
    assert first_last < P.t5_max_distance  # reached before max_distance (91 at the defaults)
    assert (buckets[first_last:] == last).all()


def test_an_integer_position_keeps_the_word_but_dwarfs_it():
    # integer-scale: "the word is still there, but only as a small change to a large number"
    assert "still there" in said("integer-scale", "table")
    mix = pm.integer_mix(P.word_a, P.word_b, [P.int_position])
    difference = mix["a"][0] - mix["b"][0]
    assert difference == pytest.approx(np.subtract(P.word_a, P.word_b), abs=1e-12)
    assert mix["ratio"][0] > 100  # the position's size against the word's


def test_the_heat_map_is_wider_than_the_toy_model_and_narrower_than_the_paper():
    assert "512" in said("pe-heatmap", "matrix")
    assert P.d_model < P.heat_d_model < 512
