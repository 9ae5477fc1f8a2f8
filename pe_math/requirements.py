"""What a position code needs, and which schemes of the lesson have it, computed.

Each check is worked out from the scheme's own numbers at the lesson's knobs, not
written down: a code is *unique* when no two positions share a row, *bounded* when a
ten times longer sentence reaches no larger value, has a *shift map* when one fixed
linear map takes every position's code to the code k places later, reaches *any
length* when the position after its last trained one gets a new code, and needs *no
training* when it has no parameters.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .encodings import binary_encoding, integer_encoding, sinusoidal
from .params import Params
from .relative import PositionOutOfRange, learned_lookup, learned_table

REQUIREMENTS = ("unique", "bounded", "shift_map", "any_length", "no_training")
SCHEMES = ("integer", "binary", "sinusoid", "learned", "rope")
EXACT = 1e-9  # a residual this small (relative) is float64 rounding, not a miss
LONGER = 10  # "bounded": a sentence this many times longer reaches no larger value


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
    p = np.arange(n)
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
        return sinusoidal(p, params.d_model, params.base, "interleaved", "paper")
    raise ValueError(f"unknown scheme {scheme!r}; use one of {', '.join(SCHEMES)}")


def trained_length(scheme: str, params: Params) -> int:
    """How many positions the scheme is checked over: a learned table's rows, binary's 2^n
    codes; a formula covers any, so the lesson's max_len, and at least enough rows
    (2d + 2) that a linear map cannot fit them merely because they are few."""
    if scheme == "learned":
        return params.learned_max_len
    if scheme == "binary":
        return 2**params.n_bits
    return max(params.max_len, 2 * params.d_model + 2)


def unique(codes: np.ndarray) -> bool:
    """No two rows are the same (up to rounding)."""
    scale = max(1.0, float(np.abs(codes).max()))
    return len(np.unique(np.round(codes / scale, 9), axis=0)) == len(codes)


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
        "shift_map": n > 1 and shift_residual(codes) < EXACT,
        "any_length": any_length,
        "no_training": parameters(scheme, params) == 0,
    }
    return Verdict(scheme, checks, parameters(scheme, params))


def verdicts(params: Params) -> dict[str, Verdict]:
    """Every scheme of the lesson against the requirements, in the lesson's order."""
    return {scheme: verdict(scheme, params) for scheme in SCHEMES}
