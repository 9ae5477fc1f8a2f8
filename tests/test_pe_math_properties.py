"""Properties of the encodings, checked by hypothesis over many inputs."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import pe_math as pm

even_d = st.integers(1, 32).map(lambda h: 2 * h)
bases = st.floats(1.5, 1e5)
finite = st.floats(-3, 3, allow_nan=False)


@given(d=even_d, base=bases, p=st.lists(st.floats(0, 1e4), min_size=1, max_size=20))
def test_sinusoidal_is_bounded(d, base, p):
    assert np.abs(pm.sinusoidal(p, d, base)).max() <= 1.0


@given(d=even_d, base=bases, start=st.integers(0, 5000))
def test_adjacent_distance_is_constant(d, base, start):
    dist = pm.adjacent_distances(pm.sinusoidal(np.arange(start, start + 30), d, base))
    np.testing.assert_allclose(dist, dist[0], atol=1e-9)


@given(d=even_d, base=bases, p=st.floats(0, 1000), k=st.floats(0, 100))
def test_shift_matrix_moves_pe(d, base, p, k):
    M = pm.shift_matrix(k, d, base)
    np.testing.assert_allclose(
        M @ pm.sinusoidal([p], d, base)[0], pm.sinusoidal([p + k], d, base)[0], atol=1e-8
    )


@given(
    d=even_d,
    base=bases,
    p=st.floats(0, 1000),
    k=st.floats(0, 100),
    layout=st.sampled_from(["interleaved", "concat"]),
    variant=st.sampled_from(["paper", "t2t"]),
)
def test_shift_matrix_moves_pe_in_either_layout(d, base, p, k, layout, variant):
    M = pm.shift_matrix(k, d, base, variant, layout)
    here, there = pm.sinusoidal([p, p + k], d, base, layout, variant)
    np.testing.assert_allclose(M @ here, there, atol=1e-8)
    assert pm.shift_check(p, k, d, base, layout, variant)["max_error"] < 1e-8
    if layout == "concat":  # interleaved's M_k with rows and columns put in concat order
        perm = pm.layout_permutation(d)
        inter = pm.shift_matrix(k, d, base, variant)
        np.testing.assert_array_equal(M, inter[np.ix_(perm, perm)])


@given(
    d=even_d,
    base=bases,
    k=st.integers(-50, 50),
    p=st.lists(st.integers(50, 5000), min_size=1, max_size=8),
    layout=st.sampled_from(["interleaved", "concat"]),
)
def test_shifted_dot_products_depend_on_k_alone(d, base, k, p, layout):
    np.testing.assert_allclose(
        pm.shifted_dots(p, k, d, base, layout), pm.shift_dot(k, d, base), atol=1e-9
    )


@given(d=even_d, base=bases, a=st.floats(-50, 50), b=st.floats(-50, 50))
def test_shift_matrices_compose(d, base, a, b):
    np.testing.assert_allclose(
        pm.shift_matrix(a, d, base) @ pm.shift_matrix(b, d, base),
        pm.shift_matrix(a + b, d, base),
        atol=1e-9,
    )


@given(d=even_d, base=bases, p=st.lists(st.floats(0, 1e3), min_size=1, max_size=10))
def test_layouts_are_a_column_permutation(d, base, p):
    inter = pm.sinusoidal(p, d, base, layout="interleaved")
    np.testing.assert_array_equal(
        pm.sinusoidal(p, d, base, layout="concat"), inter[:, pm.layout_permutation(d)]
    )


@settings(max_examples=60)
@given(d=even_d, base=bases, pairing=st.sampled_from(["interleaved", "half"]), data=st.data())
def test_rope_keeps_norms_and_scores_depend_on_offset_only(d, base, pairing, data):
    q = data.draw(arrays(np.float64, d, elements=finite))
    k = data.draw(arrays(np.float64, d, elements=finite))
    m, n, s = (data.draw(st.integers(0, 500)) for _ in range(3))
    np.testing.assert_allclose(
        np.linalg.norm(pm.rope(q, [m], base, pairing)), np.linalg.norm(q), atol=1e-9
    )
    np.testing.assert_allclose(
        pm.rope_score(q, k, m, n, base, pairing),
        pm.rope_score(q, k, m + s, n + s, base, pairing),
        atol=1e-8,
    )
    R = pm.rope_matrix(m, d, base, pairing)
    np.testing.assert_allclose(R @ q, pm.rope(q, [m], base, pairing)[0], atol=1e-9)
    np.testing.assert_allclose(R.T @ R, np.eye(d), atol=1e-9)


@settings(max_examples=60)
@given(n=st.integers(2, 6), d=st.integers(1, 6), seed=st.integers(0, 2**31 - 1), data=st.data())
def test_attention_is_permutation_equivariant(n, d, seed, data):
    X = data.draw(arrays(np.float64, (n, d), elements=finite))
    order = data.draw(st.permutations(range(n)))
    W = pm.projection_matrices(d, seed % 1000, 0.5)
    assert pm.equivariance_report(X, *W, order)["max_abs_diff"] < 1e-9


@given(bits=st.integers(1, 12), k=st.integers(0, 11))
def test_bit_k_flips_every_2_to_the_k(bits, k):
    k = k % bits
    col = pm.binary_encoding(np.arange(2**bits), bits)[:, k]
    flips = np.flatnonzero(np.diff(col)) + 1
    np.testing.assert_array_equal(flips, np.arange(2**k, 2**bits, 2**k))


@given(bit=st.integers(0, 5))
def test_fourier_partial_sums_approach_square_wave_away_from_jumps(bit):
    T = 2 ** (bit + 1)
    p = np.linspace(0, 2 * T, 801)
    phase = (p % (T / 2)) / (T / 2)
    away = (phase > 0.15) & (phase < 0.85)
    errors = [
        np.abs(pm.fourier_partial_sum(p, bit, n) - pm.square_wave(p, bit))[away].max()
        for n in (1, 5, 40)
    ]
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 0.05


@given(
    d=even_d,
    base=bases,
    start=st.integers(0, 10**6),
    n=st.integers(1, 700),
    layout=st.sampled_from(["interleaved", "concat"]),
)
def test_fast_table_path_equals_the_direct_formula(d, base, start, n, layout):
    p = np.arange(start, start + n, dtype=np.float64)
    angles = np.outer(p, pm.frequencies(d, base))
    direct = np.empty((n, d))
    if layout == "interleaved":
        direct[:, 0::2], direct[:, 1::2] = np.sin(angles), np.cos(angles)
    else:
        direct = np.concatenate([np.sin(angles), np.cos(angles)], axis=1)
    np.testing.assert_allclose(pm.sinusoidal(p, d, base, layout=layout), direct, atol=1e-9)
