"""Axis scales: readable tick steps and tick values for a range of data."""

from __future__ import annotations

import numpy as np


def nice_step(span, count: int = 5) -> np.ndarray:
    """The smallest step from {1, 2, 5}·10^k that splits `span` into at most `count` parts."""
    span = np.asarray(span, dtype=np.float64)
    if count < 1:
        raise ValueError(f"count={count}: must be >= 1")
    raw = np.maximum(np.abs(span), np.finfo(np.float64).tiny) / count
    magnitude = 10.0 ** np.floor(np.log10(raw))
    ladder = np.array([1.0, 2.0, 5.0, 10.0])
    # the first rung that reaches the raw step (tolerant of float noise in raw / magnitude)
    rung = ladder[np.argmax((raw / magnitude)[..., None] <= ladder * (1 + 1e-9), axis=-1)]
    return rung * magnitude


def nice_ticks(lo: float, hi: float, count: int = 5) -> np.ndarray:
    """Multiples of nice_step(hi - lo, count) that lie in [lo, hi], rounded to the step's digits."""
    if not hi > lo:
        raise ValueError(f"range [{lo}, {hi}]: hi must exceed lo")
    step = float(nice_step(hi - lo, count))
    first, last = np.ceil(lo / step - 1e-9), np.floor(hi / step + 1e-9)
    ticks = np.arange(first, last + 1) * step
    decimals = max(0, -int(np.floor(np.log10(step))))
    return np.round(ticks, decimals) + 0.0  # + 0.0 turns -0.0 into 0.0
