"""Why an added position code is weak inside attention: the score of (x + p) against
(x' + p') splits into four terms, and only one of them compares position with position."""

from __future__ import annotations

import math

import numpy as np

from .attention import projection_matrices
from .encodings import sinusoidal

TERMS = ("word_word", "word_position", "position_word", "position_position")


def score_terms(x, x2, p, p2, W_q, W_k) -> dict[str, float]:
    """(x + p) W_q · (x' + p') W_k (row vectors, unscaled) and its four terms:
    word–word xW_q·x'W_k, word–position xW_q·p'W_k, position–word pW_q·x'W_k and
    position–position pW_q·p'W_k; `total` is the whole score, their sum."""
    x, x2, p, p2, W_q, W_k = (np.asarray(a, dtype=np.float64) for a in (x, x2, p, p2, W_q, W_k))
    out = {
        "word_word": float((x @ W_q) @ (x2 @ W_k)),
        "word_position": float((x @ W_q) @ (p2 @ W_k)),
        "position_word": float((p @ W_q) @ (x2 @ W_k)),
        "position_position": float((p @ W_q) @ (p2 @ W_k)),
    }
    out["total"] = float(((x + p) @ W_q) @ ((x2 + p2) @ W_k))
    return out


def example_words(d_model: int, seed: int = 7) -> np.ndarray:
    """Two word vectors of width d_model from a seeded generator, each as long as an
    interleaved sinusoid code (√(d/2)), so that words and positions weigh alike."""
    words = np.random.default_rng(seed).normal(size=(2, d_model))
    return words * math.sqrt(d_model / 2) / np.linalg.norm(words, axis=1, keepdims=True)


def additive_example(
    d_model: int,
    base: float,
    m: int,
    n: int,
    seed: int = 7,
    scale: float = 0.5,
    layout: str = "interleaved",
    variant: str = "paper",
) -> dict[str, float]:
    """score_terms for word 1 at position m against word 2 at position n: the words from
    example_words, the codes sinusoidal PE(m) and PE(n), W_q and W_k from
    projection_matrices(d_model, seed, scale)."""
    x, x2 = example_words(d_model, seed)
    p, p2 = sinusoidal([m, n], d_model, base, layout, variant)
    W_q, W_k, _ = projection_matrices(d_model, seed, scale)
    return score_terms(x, x2, p, p2, W_q, W_k)
