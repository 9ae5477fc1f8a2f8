"""pe_math.additive: an added code's score over its four terms; RoPE's signed offset."""

import numpy as np
import pytest

import pe_math as pm


def test_the_four_terms_add_up_to_the_score_of_the_sums():
    rng = np.random.default_rng(5)
    for d in (2, 8, 33):
        x, x2, p, p2 = rng.normal(size=(4, d))
        W_q, W_k = rng.normal(size=(2, d, d))
        terms = pm.score_terms(x, x2, p, p2, W_q, W_k)
        assert terms["total"] == pytest.approx((x + p) @ W_q @ W_k.T @ (x2 + p2))
        assert sum(terms[k] for k in pm.TERMS) == pytest.approx(terms["total"])
        # each term is its own bilinear form: word–position reads x against p′
        assert terms["word_position"] == pytest.approx(x @ W_q @ W_k.T @ p2)
        assert terms["position_word"] == pytest.approx(p @ W_q @ W_k.T @ x2)
        assert terms["position_position"] == pytest.approx(p @ W_q @ W_k.T @ p2)


def test_the_example_words_weigh_as_much_as_a_code():
    for d in (2, 8, 64):
        words = pm.example_words(d, seed=7)
        assert words.shape == (2, d)
        np.testing.assert_allclose(np.linalg.norm(words, axis=1), np.sqrt(d / 2))
        np.testing.assert_allclose(
            np.linalg.norm(pm.sinusoidal([3], d), axis=1), np.sqrt(d / 2), rtol=1e-12
        )
    assert not np.allclose(pm.example_words(8, 1), pm.example_words(8, 2))


def test_the_example_uses_the_lessons_codes_and_projections():
    d, base, m, n = 8, 10000.0, 2, 5
    got = pm.additive_example(d, base, m, n, seed=7, scale=0.5)
    x, x2 = pm.example_words(d, 7)
    p, p2 = pm.sinusoidal([m, n], d, base)
    W_q, W_k, _ = pm.projection_matrices(d, 7, 0.5)
    assert got == pm.score_terms(x, x2, p, p2, W_q, W_k)
    # the same offset three positions on: the word–word term holds, the score does not
    on = pm.additive_example(d, base, m + 3, n + 3, seed=7, scale=0.5)
    assert on["word_word"] == pytest.approx(got["word_word"])
    assert abs(on["total"] - got["total"]) > 0.5
    assert abs(on["word_position"] - got["word_position"]) > 0.5


def test_ropes_score_sees_the_sign_of_the_offset_and_the_sinusoids_does_not():
    q, k = (1.0, 0.4), (0.7, -0.6)  # the lesson's q and k, pair 0 at d_model 8: θ = 1
    plus = pm.rope_plane(q, k, 0, 3, 1.0)["relative_dot"]
    minus = pm.rope_plane(q, k, 0, -3, 1.0)["relative_dot"]
    assert round(plus, 3) == -0.331 and round(minus, 3) == -0.580
    # the same pair of positions read the other way round (q at n, k at m)
    assert pm.rope_plane(q, k, 5, 2, 1.0)["dot"] == pytest.approx(minus)
    # the difference is 2 sin(gθ) (q × k): zero only when q ∥ k or gθ is a multiple of π
    cross = q[0] * k[1] - q[1] * k[0]
    assert plus - minus == pytest.approx(-2 * np.sin(3.0) * cross)
    assert pm.rope_plane(q, (2.0, 0.8), 0, 3, 1.0)["dot"] == pytest.approx(
        pm.rope_plane(q, (2.0, 0.8), 0, -3, 1.0)["dot"]
    )
    for g in (1, 3, 7, 50):
        assert pm.shift_dot(g, 8) == pytest.approx(pm.shift_dot(-g, 8))
        dots = pm.shifted_dots([g, 2 * g + 1], -g, 8)
        np.testing.assert_allclose(dots, pm.shift_dot(g, 8))
