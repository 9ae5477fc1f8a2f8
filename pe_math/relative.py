"""Relative schemes: RoPE, ALiBi, T5 buckets; and a learned absolute table."""

from __future__ import annotations

import math

import numpy as np

from .attention import causal_mask
from .encodings import frequencies
from .geometry import rotation_2d

PAIRINGS = ("interleaved", "half")


def _rope_cos_sin(
    positions, d_model: int, base: float, pairing: str
) -> tuple[np.ndarray, np.ndarray]:
    theta = frequencies(d_model, base)
    angles = np.outer(np.atleast_1d(np.asarray(positions, dtype=np.float64)), theta)
    if pairing == "interleaved":
        angles = np.repeat(angles, 2, axis=1)
    elif pairing == "half":
        angles = np.concatenate([angles, angles], axis=1)
    else:
        raise ValueError(f"pairing={pairing!r}: must be one of {PAIRINGS}")
    return np.cos(angles), np.sin(angles)


def _rotate_pairs(x: np.ndarray, pairing: str) -> np.ndarray:
    """The 90° partner of each pair: interleaved (-x1, x0); half rotate_half = [-x2 | x1]."""
    if pairing == "interleaved":
        out = np.empty_like(x)
        out[..., 0::2], out[..., 1::2] = -x[..., 1::2], x[..., 0::2]
        return out
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)


def rope(x, positions, base: float = 10000.0, pairing: str = "interleaved") -> np.ndarray:
    """Rotary embedding of rows x (n, d) at `positions`: pair i turned by pos·θ_i, θ_i = base^(-2i/d).

    "interleaved" pairs dims (2i, 2i+1) as GPT-J/RoFormer; "half" pairs (j, j+d/2) as GPT-NeoX and
    HF LLaMA's rotate_half.
    """
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    cos, sin = _rope_cos_sin(positions, x.shape[-1], base, pairing)
    return x * cos + _rotate_pairs(x, pairing) * sin


def rope_matrix(
    position: float, d_model: int, base: float = 10000.0, pairing: str = "interleaved"
) -> np.ndarray:
    """R_position with rope(x, position) = x @ R.T, an orthogonal d×d matrix."""
    return rope(np.eye(d_model), [position] * d_model, base, pairing).T


def rope_score(
    q, k, m: float, n: float, base: float = 10000.0, pairing: str = "interleaved"
) -> float:
    """⟨R_m q, R_n k⟩, which depends only on n - m."""
    return float(rope(q, [m], base, pairing)[0] @ rope(k, [n], base, pairing)[0])


def rope_plane(q, k, m: float, n: float, theta: float) -> dict[str, object]:
    """One 2-d frequency pair: q turned by mθ, k by nθ, their dot product, angle and norms."""
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    qr, kr = rotation_2d(m * theta) @ q, rotation_2d(n * theta) @ k
    between = math.atan2(qr[0] * kr[1] - qr[1] * kr[0], qr @ kr)
    return {
        "q_rot": qr,
        "k_rot": kr,
        "dot": float(qr @ kr),
        "angle": between,
        "q_norm": float(np.linalg.norm(qr)),
        "k_norm": float(np.linalg.norm(kr)),
        "relative_dot": float(q @ (rotation_2d((n - m) * theta) @ k)),
    }


def alibi_slopes(n_heads: int) -> np.ndarray:
    """Per-head ALiBi slopes: geometric from 2^(-8/n); non-powers of two interleave the 2n ladder (Press et al.)."""

    def power_of_2(n: int) -> list[float]:
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start**i for i in range(n)]

    if n_heads < 1:
        raise ValueError("n_heads must be >= 1")
    if math.log2(n_heads).is_integer():
        return np.array(power_of_2(n_heads))
    closest = 2 ** math.floor(math.log2(n_heads))
    extra = alibi_slopes(2 * closest)[0::2][: n_heads - closest]
    return np.concatenate([power_of_2(closest), extra])


def alibi_bias(n_heads: int, seq_len: int) -> np.ndarray:
    """Causal ALiBi bias (heads, query i, key j): slope·-(i-j) for j ≤ i, -inf above the diagonal."""
    i, j = np.arange(seq_len)[:, None], np.arange(seq_len)[None, :]
    dist = (i - j).astype(np.float64)
    return -alibi_slopes(n_heads)[:, None, None] * dist + causal_mask(seq_len)


def t5_bucket(
    relative_position, bidirectional: bool = True, num_buckets: int = 32, max_distance: int = 128
):
    """HF T5Attention._relative_position_bucket, relative_position = key - query."""
    rel = np.asarray(relative_position, dtype=np.int64)
    buckets = np.zeros_like(rel)
    if bidirectional:
        num_buckets //= 2
        buckets = buckets + (rel > 0) * num_buckets
        rel = np.abs(rel)
    else:
        rel = -np.minimum(rel, 0)
    max_exact = num_buckets // 2
    with np.errstate(divide="ignore"):
        large = max_exact + (
            np.log(np.maximum(rel, 1) / max_exact)
            / math.log(max_distance / max_exact)
            * (num_buckets - max_exact)
        ).astype(np.int64)
    large = np.minimum(large, num_buckets - 1)
    out = buckets + np.where(rel < max_exact, rel, large)
    return out if out.ndim else int(out)


class PositionOutOfRange(IndexError):
    """A learned table has no row for this position."""


def learned_table(max_len: int, d_model: int, seed: int = 0) -> np.ndarray:
    """A stand-in for a trained position table: N(0, 0.02²) rows for positions 0..max_len-1."""
    return np.random.default_rng(seed).normal(0.0, 0.02, size=(max_len, d_model))


def learned_lookup(table: np.ndarray, positions) -> np.ndarray:
    """Rows of a learned table; a position ≥ max_len has no row and raises PositionOutOfRange."""
    p = np.atleast_1d(np.asarray(positions, dtype=np.int64))
    bad = p[(p < 0) | (p >= len(table))]
    if bad.size:
        raise PositionOutOfRange(
            f"position {int(bad[0])} is outside the learned table (max_len={len(table)}): "
            f"learned tables cannot extrapolate; use positions 0..{len(table) - 1}"
        )
    return table[p]
