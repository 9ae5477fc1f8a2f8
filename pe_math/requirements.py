"""What a position code needs, and which schemes of the lesson have it, computed.

REQUIREMENTS is the one list of needs: the first chapter states it, every verdict marks
a scheme against it, and the recap ticks it off. Each check is worked out from the
scheme's own numbers at the lesson's knobs, not written down:

- *unique*: no two positions share a code;
- *bounded*: a ten times longer sentence reaches no larger value;
- *smooth*: one step along the text moves the code by the same distance everywhere, so
  nearby positions get nearby codes and no step jumps (binary's all-bits flip does);
- *shift map*: one fixed linear map takes every position's code to the code k later;
- *any length*: the position after the last one checked still gets a new code (a
  formula gives one; a table has no row, binary's codes start over);
- *seen in training*: past the training length the codes are still made of parts the
  model met while training. For a formula of sin/cos pairs a part is a pair's angle, and
  it was met when that pair finished a whole turn within the training length T, that is
  T·ω ≥ 2π; any pair slower than that turns, past it, to angles no training position
  reached (this is the long-context chapter's story). For other codes a part is one
  value, met when it lies in the range the training positions covered. No code at all is
  not seen either;
- *no training*: nothing to learn.

"Seen" is judged pair by pair: a model may still meet a new combination of angles
it has not seen together, so a tick here says the parts are familiar, at these knobs.

One scheme, one set of knobs: the sinusoid is the one of width d_model and base `base`
(with the lesson's layout and variant); RoPE is the head of the long-context chapter,
of width rope_head_dim and base rope_base, its speeds those of `rope_frequencies`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .encodings import (
    adjacent_distances,
    binary_encoding,
    frequencies,
    integer_encoding,
    sinusoidal,
)
from .long_context import rope_frequencies
from .params import Params
from .relative import PositionOutOfRange, learned_lookup, learned_table

REQUIREMENTS = (
    "unique",
    "bounded",
    "smooth",
    "shift_map",
    "any_length",
    "seen_length",
    "no_training",
)
SCHEMES = ("integer", "binary", "sinusoid", "learned", "rope")
EXACT = 1e-9  # a residual this small (relative) is float64 rounding, not a miss
LONGER = 10  # "bounded": a sentence this many times longer reaches no larger value
SAME_STEP = 1e-6  # "smooth": steps differing by less than this (relative) are equal
TURN = 2 * np.pi
RANGE_SAMPLES = 4097  # "seen": positions sampled (both ends in) for a code's trained range


@dataclass(frozen=True)
class Verdict:
    """How one scheme fares against every requirement, at the lesson's knobs."""

    scheme: str
    checks: dict[str, bool]  # requirement → met
    parameters: int  # numbers to train

    @property
    def met(self) -> int:
        return sum(self.checks.values())


def _codes(scheme: str, params: Params, n: int) -> np.ndarray:
    """The scheme's codes of positions 0..n-1 (rows); PositionOutOfRange past a table's end."""
    return _codes_at(scheme, params, np.arange(n))


def _codes_at(scheme: str, params: Params, p: np.ndarray) -> np.ndarray:
    """The scheme's codes of the positions `p` (rows)."""
    if scheme == "integer":
        return integer_encoding(p, params.d_model)
    if scheme == "binary":
        return binary_encoding(p, params.n_bits)
    if scheme == "sinusoid":
        return sinusoidal(p, params.d_model, params.base, params.layout, params.variant)
    if scheme == "learned":
        table = learned_table(params.learned_max_len, params.d_model, params.learned_seed)
        return learned_lookup(table, p)
    if scheme == "rope":
        # R_m is fixed by the cos and sin of its angles m·θ_i, so those are its code:
        # a linear map between the codes of m and m+k is one between R_m and R_(m+k)
        angles = np.asarray(p, dtype=np.float64)[:, None] * pair_speeds("rope", params)
        return np.stack([np.sin(angles), np.cos(angles)], axis=2).reshape(len(angles), -1)
    raise ValueError(f"unknown scheme {scheme!r}; use one of {', '.join(SCHEMES)}")


def trained_length(scheme: str, params: Params) -> int:
    """How many positions the scheme is checked over: a learned table's rows, binary's 2^n
    codes; a formula covers any, so the lesson's max_len, and at least enough rows
    (2d + 2, d its width) that a linear map cannot fit them merely because they are few."""
    if scheme == "learned":
        return params.learned_max_len
    if scheme == "binary":
        return 2**params.n_bits
    return max(params.max_len, 2 * width(scheme, params) + 2)


def width(scheme: str, params: Params) -> int:
    """How many numbers a formula's code has: RoPE's head width, else d_model."""
    return params.rope_head_dim if scheme == "rope" else params.d_model


def training_length(scheme: str, params: Params) -> int:
    """How many positions a model of the scheme trained on: a learned table's rows, binary's
    2^n codes, else the lesson's train_len."""
    if scheme == "learned":
        return params.learned_max_len
    if scheme == "binary":
        return 2**params.n_bits
    return params.train_len


def pair_speeds(scheme: str, params: Params) -> np.ndarray | None:
    """The angular speed of each sin/cos pair of a formula of pairs (None for other codes)."""
    if scheme == "sinusoid":
        return frequencies(params.d_model, params.base, params.variant)
    if scheme == "rope":
        return rope_frequencies(params.rope_head_dim, params.rope_base)[0]
    return None


def trained_angles(scheme: str, params: Params) -> np.ndarray | None:
    """Radians each pair turns within the training length T: T·ω (None without pairs)."""
    speeds = pair_speeds(scheme, params)
    return None if speeds is None else training_length(scheme, params) * speeds


def unturned_pairs(scheme: str, params: Params) -> int:
    """Pairs that never finish a whole turn within the training length (T·ω < 2π): past
    it they reach angles no training position did (0 for a code without pairs)."""
    angles = trained_angles(scheme, params)
    return 0 if angles is None else int((angles < TURN).sum())


def smooth(codes: np.ndarray) -> bool:
    """Every step p → p+1 moves the code the same distance (up to rounding): no jump."""
    steps = adjacent_distances(codes)
    return len(steps) == 0 or float(steps.max() - steps.min()) <= SAME_STEP * float(steps.max())


def seen_in_training(scheme: str, params: Params) -> bool:
    """Past the training length, the codes are new ones made of parts met in training."""
    T = training_length(scheme, params)
    try:
        past = _codes_at(scheme, params, np.arange(T, T + 2))
    except PositionOutOfRange:
        return False  # no code at all
    trained = _codes_at(scheme, params, np.unique(np.linspace(0, T - 1, RANGE_SAMPLES).round()))
    if (np.abs(past[:, None, :] - trained[None, :, :]).max(axis=2) <= EXACT).any():
        return False  # a code that starts over is an old one, not a new one seen
    if pair_speeds(scheme, params) is not None:
        return unturned_pairs(scheme, params) == 0
    low, high = trained.min(axis=0) - EXACT, trained.max(axis=0) + EXACT
    return bool(((past >= low) & (past <= high)).all())


def unique(codes: np.ndarray) -> bool:
    """No two rows are the same (up to rounding)."""
    if len(codes) < 2:
        return True
    scale = max(1.0, float(np.abs(codes).max()))
    rows = np.round(codes / scale, 9) + 0.0  # + 0.0: -0.0 and 0.0 are one value
    ordered = rows[np.lexsort(rows.T[::-1])]  # equal rows side by side
    return not (ordered[1:] == ordered[:-1]).all(axis=1).any()


def shift_residual(codes: np.ndarray, k: int = 1) -> float:
    """The least-squares miss of one linear map M with code(p+k) = M·code(p) for every p,
    relative to the size of the codes (0 when such a map exists)."""
    before, after = codes[:-k], codes[k:]
    M, *_ = np.linalg.lstsq(before, after, rcond=None)
    return float(np.linalg.norm(before @ M - after) / max(np.linalg.norm(after), 1e-300))


def parameters(scheme: str, params: Params) -> int:
    return params.learned_max_len * params.d_model if scheme == "learned" else 0


def verdict(scheme: str, params: Params) -> Verdict:
    """The scheme against every requirement, at `params`."""
    n = trained_length(scheme, params)
    codes = _codes(scheme, params, n)
    try:
        longer = _codes(scheme, params, LONGER * n)
        bounded = float(np.abs(longer).max()) <= float(np.abs(codes).max()) + EXACT
        any_length = unique(_codes(scheme, params, n + 1))
    except PositionOutOfRange:  # a table has no row past its end: bounded by what it holds
        bounded, any_length = True, False
    checks = {
        "unique": unique(codes),
        "bounded": bounded,
        "smooth": smooth(codes),
        "shift_map": n > 1 and shift_residual(codes) < EXACT,
        "any_length": any_length,
        "seen_length": seen_in_training(scheme, params),
        "no_training": parameters(scheme, params) == 0,
    }
    return Verdict(scheme, checks, parameters(scheme, params))


def verdicts(params: Params) -> dict[str, Verdict]:
    """Every scheme of the lesson against the requirements, in the lesson's order."""
    return {scheme: verdict(scheme, params) for scheme in SCHEMES}
