"""Scaled dot-product self-attention, its permutation equivariance, and the causal mask
that breaks it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .params import Params


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax: exp(x - max) / sum(exp(x - max)) along `axis`."""
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def attention_scores(X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray) -> np.ndarray:
    """Scaled scores (X W_q)(X W_k)^T / sqrt(d_k)."""
    X = np.asarray(X, dtype=np.float64)
    Q, K = X @ W_q, X @ W_k
    return Q @ K.T / np.sqrt(K.shape[1])


def causal_mask(n: int) -> np.ndarray:
    """The additive causal mask of n tokens (query i, key j): 0 where j <= i, -inf where the
    key comes later, so softmax gives a later key no weight."""
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return np.where(j <= i, 0.0, -np.inf)


def keys_seen(n: int) -> np.ndarray:
    """How many keys each query may attend to under the causal mask: 1, 2, ..., n."""
    return np.isfinite(causal_mask(n)).sum(axis=1)


def self_attention(
    X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray, causal: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Single-head self-attention: (weights = softmax(QK^T/sqrt(d)), output = weights V);
    with `causal`, each query attends only to its own and earlier keys."""
    scores = attention_scores(X, W_q, W_k)
    if causal:
        scores = scores + causal_mask(len(scores))
    weights = softmax(scores, axis=-1)
    return weights, weights @ (np.asarray(X, dtype=np.float64) @ W_v)


def projection_matrices(d: int, seed: int = 7, scale: float = 0.5) -> tuple[np.ndarray, ...]:
    """W_q, W_k, W_v drawn in that order from np.random.RandomState(seed), times `scale`."""
    rng = np.random.RandomState(seed)
    return tuple(rng.randn(d, d) * scale for _ in range(3))


def permutation_matrix(order) -> np.ndarray:
    """P with (P @ X)[i] = X[order[i]]."""
    order = np.asarray(order, dtype=int)
    if sorted(order.tolist()) != list(range(len(order))):
        raise ValueError(f"order {order.tolist()} is not a permutation of 0..{len(order) - 1}")
    P = np.zeros((len(order), len(order)))
    P[np.arange(len(order)), order] = 1.0
    return P


def swap_order(n: int, i: int, j: int) -> np.ndarray:
    """The order that trades rows i and j of n rows."""
    order = np.arange(n)
    order[[i, j]] = order[[j, i]]
    return order


@dataclass(frozen=True)
class AttentionCase:
    """One run of the shuffle experiment: original and permuted attention."""

    X: np.ndarray
    W_q: np.ndarray
    W_k: np.ndarray
    W_v: np.ndarray
    P: np.ndarray
    scores: np.ndarray
    weights: np.ndarray
    output: np.ndarray
    weights_perm: np.ndarray
    output_perm: np.ndarray

    @property
    def equivariance_error(self) -> float:
        """max |out(PX) - P out(X)|."""
        return float(np.max(np.abs(self.output_perm - self.P @ self.output)))


def attention_case(X, W_q, W_k, W_v, order, causal: bool = False) -> AttentionCase:
    """Attention on X and on P X for the permutation `order` (under the causal mask if asked)."""
    X = np.asarray(X, dtype=np.float64)
    P = permutation_matrix(order)
    weights, output = self_attention(X, W_q, W_k, W_v, causal)
    weights_p, output_p = self_attention(P @ X, W_q, W_k, W_v, causal)
    return AttentionCase(
        X, W_q, W_k, W_v, P, attention_scores(X, W_q, W_k), weights, output, weights_p, output_p
    )


def attention_for(params: Params, causal: bool = False) -> AttentionCase:
    """The shuffle experiment for the lesson's X, seeded projections and swap."""
    X = np.asarray(params.X, dtype=np.float64)
    W_q, W_k, W_v = projection_matrices(X.shape[1], params.proj_seed, params.proj_scale)
    return attention_case(X, W_q, W_k, W_v, swap_order(len(X), *params.swap), causal)


def equivariance_report(X, W_q, W_k, W_v, order) -> dict[str, float]:
    """How far attention is from equivariant: max |out(PX) - P out(X)| (≈ 0)."""
    case = attention_case(X, W_q, W_k, W_v, order)
    return {"max_abs_diff": case.equivariance_error}
