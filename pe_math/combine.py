"""Adding a position code to a word versus setting it beside the word."""

from __future__ import annotations

import math

import numpy as np


def concat_as_sum(x, p, W) -> dict[str, np.ndarray]:
    """W·[x; p] and W₁·x + W₂·p, where W = [W₁ | W₂] is split after len(x) columns:
    a layer that reads the joined vector reads a sum of the two, projected."""
    x, p, W = (np.asarray(a, dtype=np.float64) for a in (x, p, W))
    if W.shape[1] != len(x) + len(p):
        raise ValueError(f"W has {W.shape[1]} columns; [x; p] has {len(x) + len(p)} entries")
    joined = W @ np.concatenate([x, p])
    summed = W[:, : len(x)] @ x + W[:, len(x) :] @ p
    return {"joined": joined, "summed": summed, "error": float(np.abs(joined - summed).max())}


def random_projection(rows: int, cols: int, seed: int = 7, scale: float = 0.5) -> np.ndarray:
    """An untrained layer's weights: N(0, scale²) entries from a seeded generator."""
    return np.random.default_rng(seed).normal(0.0, scale, size=(rows, cols))


def typical_abs_cosine(d: int) -> float:
    """E|cos θ| between two independent random directions in d dimensions:
    Γ(d/2) / (√π · Γ((d+1)/2)), about √(2/(πd)) when d is large."""
    if d < 1:
        raise ValueError(f"d={d}: a direction needs at least one dimension")
    return math.exp(math.lgamma(d / 2) - math.lgamma((d + 1) / 2)) / math.sqrt(math.pi)
