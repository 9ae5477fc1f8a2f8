"""Clocks, similarity and the linear shift of sinusoidal PE (either layout)."""

from __future__ import annotations

import numpy as np

from .encodings import frequencies, sinusoidal


def clock_angles(
    position: float, d_model: int, base: float = 10000.0, variant: str = "paper"
) -> np.ndarray:
    """Hand angle of each clock i: position·ω_i radians (clockwise from 12 o'clock)."""
    return float(position) * frequencies(d_model, base, variant)


def clock_hand_tips(
    position: float, d_model: int, base: float = 10000.0, variant: str = "paper"
) -> np.ndarray:
    """Tip (x, y) = (sin, cos)(position·ω_i) of each hand, i.e. PE dims (2i, 2i+1); shape (d/2, 2)."""
    a = clock_angles(position, d_model, base, variant)
    return np.stack([np.sin(a), np.cos(a)], axis=1)


def cosine(a, b) -> float:
    """Cosine similarity a·b / (‖a‖‖b‖)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def cosine_similarity_matrix(table: np.ndarray) -> np.ndarray:
    """S[i, j] = cos(row i, row j)."""
    t = np.asarray(table, dtype=np.float64)
    unit = t / np.linalg.norm(t, axis=1, keepdims=True)
    return unit @ unit.T


def rotation_2d(angle: float) -> np.ndarray:
    """Counter-clockwise rotation [[cos, -sin], [sin, cos]]."""
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s], [s, c]])


def shift_matrix(
    k: float,
    d_model: int,
    base: float = 10000.0,
    variant: str = "paper",
    layout: str = "interleaved",
) -> np.ndarray:
    """M_k with block [[cos kω_i, sin kω_i], [-sin kω_i, cos kω_i]] on pair i's dims (pair_dims), so PE(p+k) = M_k·PE(p)."""
    M = np.zeros((d_model, d_model))
    a, b = pair_dims(d_model, layout).T
    turn = float(k) * frequencies(d_model, base, variant)
    c, s = np.cos(turn), np.sin(turn)
    M[a, a], M[a, b], M[b, a], M[b, b] = c, s, -s, c
    return M


def shift_check(
    p: float,
    k: float,
    d_model: int,
    base: float = 10000.0,
    layout: str = "interleaved",
    variant: str = "paper",
) -> dict[str, object]:
    """M_k, PE(p), M_k·PE(p) and PE(p+k), with max_j |PE(p+k)_j - (M_k·PE(p))_j| over all d dims."""
    pe_p, pe_pk = sinusoidal([p, p + k], d_model, base, layout, variant)
    M = shift_matrix(k, d_model, base, variant, layout)
    moved = M @ pe_p
    return {
        "matrix": M,
        "pe_p": pe_p,
        "moved": moved,
        "pe_pk": pe_pk,
        "max_error": float(np.max(np.abs(pe_pk - moved))),
    }


def shifted_dots(
    positions,
    k: float,
    d_model: int,
    base: float = 10000.0,
    layout: str = "interleaved",
    variant: str = "paper",
) -> np.ndarray:
    """PE(p)·PE(p+k) for each p; every one equals shift_dot(k): Σ_i cos(k·ω_i)."""
    p = np.atleast_1d(np.asarray(positions, dtype=np.float64))
    here = sinusoidal(p, d_model, base, layout, variant)
    there = sinusoidal(p + k, d_model, base, layout, variant)
    return np.einsum("ij,ij->i", here, there)


def shift_dot(k: float, d_model: int, base: float = 10000.0, variant: str = "paper") -> float:
    """Σ_i cos(k·ω_i): the dot product PE(p)·PE(p+k), which depends on k alone."""
    return float(np.cos(float(k) * frequencies(d_model, base, variant)).sum())


def pair_dims(d_model: int, layout: str = "interleaved") -> np.ndarray:
    """Dims holding pair i, shape (d/2, 2): "interleaved" (2i, 2i+1); "concat"/"half" (i, i+d/2)."""
    if d_model < 2 or d_model % 2:
        raise ValueError(f"d_model={d_model}: must be even and >= 2")
    i = np.arange(d_model // 2)
    if layout == "interleaved":
        return np.stack([2 * i, 2 * i + 1], axis=1)
    if layout in ("concat", "half"):
        return np.stack([i, i + d_model // 2], axis=1)
    raise ValueError(f"layout={layout!r}: must be 'interleaved', 'concat' or 'half'")


def clock_angle_gaps(
    a: float, b: float, d_model: int, base: float = 10000.0, variant: str = "paper"
) -> np.ndarray:
    """How far each hand turns from position a to b: (b − a)·ω_i wrapped into (−π, π], clockwise > 0."""
    turn = (float(b) - float(a)) * frequencies(d_model, base, variant)
    return np.pi - np.mod(np.pi - turn, 2 * np.pi)
