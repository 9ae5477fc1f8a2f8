"""Absolute position encodings: integer, binary, Fourier and sinusoidal."""

from __future__ import annotations

import numpy as np

LAYOUTS = ("interleaved", "concat")
VARIANTS = ("paper", "t2t")


def _positions(positions) -> np.ndarray:
    p = np.atleast_1d(np.asarray(positions, dtype=np.float64))
    if np.any(p < 0):
        raise ValueError("positions must be >= 0")
    return p


def _check_d(d_model: int) -> None:
    if d_model < 2 or d_model % 2:
        raise ValueError(f"d_model={d_model}: must be even and >= 2")


def integer_encoding(positions, d_model: int) -> np.ndarray:
    """PE(p) = [p, p, ..., p]: the raw position repeated in every dim."""
    return np.repeat(_positions(positions)[:, None], d_model, axis=1)


def integer_mix(word_a, word_b, positions) -> dict[str, np.ndarray]:
    """cos(a + p·1, b + p·1) and ‖p·1‖ / ‖a‖ for each position p."""
    a, b = np.asarray(word_a, dtype=np.float64), np.asarray(word_b, dtype=np.float64)
    pe = integer_encoding(positions, len(a))
    ca, cb = a + pe, b + pe
    cos = np.einsum("ij,ij->i", ca, cb) / (np.linalg.norm(ca, axis=1) * np.linalg.norm(cb, axis=1))
    return {
        "cosine": cos,
        "ratio": np.linalg.norm(pe, axis=1) / np.linalg.norm(a),
        "a": ca,
        "b": cb,
    }


def binary_encoding(positions, n_bits: int) -> np.ndarray:
    """Bits of each position; column k is bit k (bit 0 = least significant)."""
    p = _positions(positions).astype(np.int64)
    return ((p[:, None] >> np.arange(n_bits)) & 1).astype(np.float64)


def adjacent_distances(table: np.ndarray) -> np.ndarray:
    """‖row(p+1) - row(p)‖ for each consecutive pair of rows."""
    table = np.asarray(table, dtype=np.float64)
    return np.linalg.norm(np.diff(table, axis=0), axis=1)


def square_wave(positions, bit: int) -> np.ndarray:
    """Bit `bit` of floor(p), centred to ±1 (-1 for 0, +1 for 1); period 2^(bit+1)."""
    p = np.floor(_positions(positions)).astype(np.int64)
    return 2.0 * ((p >> bit) & 1) - 1.0


def fourier_partial_sum(positions, bit: int, n_terms: int) -> np.ndarray:
    """First n_terms odd harmonics of square_wave: -(4/π) Σ sin(2πnp/T)/n, n = 1,3,5…, T = 2^(bit+1)."""
    p = _positions(positions)
    n = 2 * np.arange(n_terms) + 1
    T = 2.0 ** (bit + 1)
    return -(4 / np.pi) * (np.sin(2 * np.pi * np.outer(p, n) / T) / n).sum(axis=1)


def frequencies(d_model: int, base: float = 10000.0, variant: str = "paper") -> np.ndarray:
    """Angular speeds ω_i, i < d/2: "paper" base^(-2i/d); "t2t" base^(-i/max(d/2-1, 1))."""
    _check_d(d_model)
    i = np.arange(d_model // 2, dtype=np.float64)
    if variant == "paper":
        return base ** (-2.0 * i / d_model)
    if variant == "t2t":
        return base ** (-i / max(d_model // 2 - 1, 1))
    raise ValueError(f"variant={variant!r}: must be one of {VARIANTS}")


def periods(d_model: int, base: float = 10000.0, variant: str = "paper") -> np.ndarray:
    """Period of each sin/cos pair in positions: 2π/ω_i."""
    return 2 * np.pi / frequencies(d_model, base, variant)


def sinusoidal(
    positions,
    d_model: int,
    base: float = 10000.0,
    layout: str = "interleaved",
    variant: str = "paper",
) -> np.ndarray:
    """Sinusoidal PE, shape (len(positions), d_model): interleaved sin/cos (Vaswani) or concat [sin | cos] (GPT-J, Marian)."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout={layout!r}: must be one of {LAYOUTS}")
    return _sin_cos(_positions(positions), frequencies(d_model, base, variant), layout)


_BLOCK = 64  # a run of whole positions is split as p = p0 + 64·j + k for angle addition


def _sin_cos(p: np.ndarray, omega: np.ndarray, layout: str = "interleaved") -> np.ndarray:
    """Table of sin(p·ω) and cos(p·ω) in the given layout.

    A long run of consecutive whole positions (the usual p0..p0+n-1) uses angle addition,
    sin(a+b) = sin a cos b + cos a sin b, over 64-position blocks: a few multiply-adds per
    cell instead of two transcendental calls; it equals the direct formula to ~1e-13.
    """
    n, h = len(p), len(omega)
    if n < 4 * _BLOCK or p[0] != np.floor(p[0]) or not np.array_equal(p, p[0] + np.arange(n)):
        angles = np.outer(p, omega)
        return _arrange(np.sin(angles), np.cos(angles), layout)
    blocks = -(-n // _BLOCK)
    a_block = np.outer(p[0] + _BLOCK * np.arange(blocks), omega)[:, None, :]
    a_step = np.outer(np.arange(_BLOCK), omega)[None, :, :]
    s_b, c_b, s_k, c_k = np.sin(a_block), np.cos(a_block), np.sin(a_step), np.cos(a_step)
    shape = (blocks, _BLOCK, h, 2) if layout == "interleaved" else (blocks, _BLOCK, 2, h)
    out = np.empty(shape)
    sin_part, cos_part = (
        (out[..., 0], out[..., 1]) if layout == "interleaved" else (out[..., 0, :], out[..., 1, :])
    )
    np.multiply(s_b, c_k, out=sin_part)
    sin_part += c_b * s_k
    np.multiply(c_b, c_k, out=cos_part)
    cos_part -= s_b * s_k
    return out.reshape(blocks * _BLOCK, 2 * h)[:n]


def _arrange(sin: np.ndarray, cos: np.ndarray, layout: str) -> np.ndarray:
    if layout == "concat":
        return np.concatenate([sin, cos], axis=1)
    out = np.empty((sin.shape[0], 2 * sin.shape[1]))
    out[:, 0::2], out[:, 1::2] = sin, cos
    return out


def layout_permutation(d_model: int) -> np.ndarray:
    """Column order that turns the interleaved layout into concat: concat = interleaved[:, perm]."""
    return np.concatenate([np.arange(0, d_model, 2), np.arange(1, d_model, 2)])


def mixed_frequency_encoding(positions, d_model: int, base: float = 10000.0) -> np.ndarray:
    """Experimental: ω_i = ½·linspace(1, 0.01)_i + ½·base^(-2i/d), interleaved sin/cos."""
    omega = 0.5 * np.linspace(1.0, 0.01, d_model // 2) + 0.5 * frequencies(d_model, base)
    return _sin_cos(_positions(positions), omega)


def binary_frequencies(n_bits: int) -> np.ndarray:
    """Angular speed of each bit's fundamental: ω_k = 2π / 2^(k+1) = π·2^(-k), k < n_bits."""
    return np.pi * 2.0 ** (-np.arange(n_bits, dtype=np.float64))


def frequency_slide(
    n_rows: int, d_model: int, base: float = 10000.0, variant: str = "paper", t=0.0
) -> np.ndarray:
    """Log-linear slide ω_i(t) = (π·2^(-i))^(1-t) · ω_i^t from the binary ladder (t=0) to PE's (t=1).

    Shape (len(t), n_rows) for an array t, (n_rows,) for a scalar; n_rows <= d_model/2.
    """
    target = frequencies(d_model, base, variant)
    if not 1 <= n_rows <= len(target):
        raise ValueError(f"n_rows={n_rows}: must be from 1 to d_model/2 ({len(target)})")
    start, end = np.log(binary_frequencies(n_rows)), np.log(target[:n_rows])
    tt = np.asarray(t, dtype=np.float64)
    return np.exp(np.multiply.outer(1.0 - tt, start) + np.multiply.outer(tt, end))


def ladder_path(
    n_rows: int, d_model: int, base: float = 10000.0, variant: str = "paper", t=0.0
) -> np.ndarray:
    """The speeds ω_i(t) as the bits' ladder becomes PE's, one change at a time.

    From t=0 to 1 every speed is divided by π^t: the fastest goes from π (a sine that is
    zero at every whole position) to 1, and the ladder still halves. From t=1 to 2 the
    halving ladder 2^(-i) slides log-linearly to PE's ω_i = base^(-2i/d). Shapes as in
    frequency_slide.
    """
    tt = np.asarray(t, dtype=np.float64)
    if np.any((tt < 0) | (tt > 2)):
        raise ValueError("t must be from 0 to 2")
    halving = frequency_slide(n_rows, d_model, base, variant, 0.0) / np.pi
    start = np.log(halving)
    end = np.log(frequency_slide(n_rows, d_model, base, variant, 1.0))
    first = np.multiply.outer(np.clip(tt, 0, 1), np.full(n_rows, -np.log(np.pi)))
    second = np.multiply.outer(np.clip(tt - 1, 0, 1), end - start)
    return np.exp(np.log(halving * np.pi) + first + second)


def pair_waves(positions, omegas) -> tuple[np.ndarray, np.ndarray]:
    """sin(ω_i·p) and cos(ω_i·p), each of shape (len(positions), len(omegas))."""
    angles = np.outer(_positions(positions), np.atleast_1d(np.asarray(omegas, dtype=np.float64)))
    return np.sin(angles), np.cos(angles)
