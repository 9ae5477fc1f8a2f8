"""RoPE past its training length: the frequencies under Position Interpolation, NTK-aware
scaling (a larger base; transformers' "dynamic" type is dynamic NTK, which raises the base
with the length being read), YaRN and Llama 3.1's smoothing ("llama3"), and RoFormer's
long-range decay bound.

`scaling` uses the key names of Hugging Face transformers' `rope_scaling` (and
`rope_parameters`), so a model's config can be passed as it is written:
`rope_type`, `factor`, `original_max_position_embeddings`; for yarn `beta_fast`,
`beta_slow`, `attention_factor`, `mscale`, `mscale_all_dim`, `truncate`; for llama3
`low_freq_factor`, `high_freq_factor`. The results equal transformers'
`ROPE_INIT_FUNCTIONS[rope_type]` for a config whose `max_position_embeddings` is
`original_max_position_embeddings` (dynamic) or `factor` times it (yarn).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

ROPE_TYPES = ("default", "linear", "dynamic", "yarn", "llama3")
YARN_BETA_FAST = 32.0  # rotations within the training length above which a pair is kept
YARN_BETA_SLOW = 1.0  # ... and below which it is fully interpolated


class ScalingError(ValueError):
    """A rope scaling config that cannot work; the message names the key and the fix."""


def rope_frequencies(
    d: int,
    base: float = 10000.0,
    scaling: Mapping[str, Any] | None = None,
    seq_len: int | None = None,
) -> tuple[np.ndarray, float]:
    """(inv_freq, attention_factor): the d/2 angular speeds θ_i of a RoPE head of width d,
    and the factor its cos and sin are multiplied by (1.0 unless yarn sets a temperature).

    `seq_len` is the length being read now, which only "dynamic" scaling looks at.
    """
    d = _check_width(d)
    base = _above_one("base", base)
    kind = _rope_type(scaling)
    ladder = np.arange(0, d, 2, dtype=np.float64) / d
    if kind == "default":
        return 1.0 / base**ladder, 1.0
    s = dict(scaling or {})
    factor = _factor(s, kind)
    if kind == "linear":
        return 1.0 / base**ladder / factor, 1.0
    original = _original_length(s, kind)
    if kind == "dynamic":
        seen = original if seq_len is None else max(int(seq_len), original)
        grown = base * (factor * seen / original - (factor - 1)) ** (d / (d - 2))
        return 1.0 / grown**ladder, 1.0
    if kind == "yarn":
        return _yarn(d, base, ladder, factor, original, s)
    return _llama3(base, ladder, factor, original, s), 1.0


def rope_wavelengths(
    d: int,
    base: float = 10000.0,
    scaling: Mapping[str, Any] | None = None,
    seq_len: int | None = None,
) -> np.ndarray:
    """Positions per full turn of each pair, 2π/θ_i (same arguments as rope_frequencies)."""
    inv_freq, _ = rope_frequencies(d, base, scaling, seq_len)
    return 2 * np.pi / inv_freq


def rope_score_decay(
    d: int,
    base: float,
    distances,
    scaling: Mapping[str, Any] | None = None,
) -> np.ndarray:
    """RoFormer's relative upper bound of the RoPE score at each distance (section 3.4.3):
    the mean over i of |S_i|, S_i = Σ_{j<i} e^{i·m·θ_j}, for all-ones queries and keys.
    At distance 0 it is (d/2 + 1)/2, the mean of 1…d/2; for the paper's θ it then falls,
    with ripples, as the distance grows."""
    inv_freq, _ = rope_frequencies(d, base, scaling)
    m = np.atleast_1d(np.asarray(distances, dtype=np.float64))
    partial = np.cumsum(np.exp(1j * np.outer(m, inv_freq)), axis=1)
    return np.abs(partial).mean(axis=1)


def yarn_ramp(d: int, base: float, scaling: Mapping[str, Any]) -> np.ndarray:
    """YaRN's share of each pair kept as it was (1: extrapolated, 0: interpolated)."""
    low, high = yarn_bounds(d, base, scaling)
    if low == high:
        high += 0.001  # as transformers does: a step instead of a ramp
    return 1.0 - np.clip((np.arange(int(d) // 2, dtype=np.float64) - low) / (high - low), 0.0, 1.0)


def yarn_bounds(d: int, base: float, scaling: Mapping[str, Any]) -> tuple[float, float]:
    """The pair indices where YaRN's ramp starts and ends: the pairs that turn beta_fast
    and beta_slow times within the original length (rounded out unless truncate is off)."""
    d = _check_width(d)
    s = dict(scaling)
    return _yarn_bounds(d, _above_one("base", base), _original_length(s, "yarn"), s)


def yarn_temperature(factor: float, mscale: float = 1.0) -> float:
    """YaRN's attention factor for a context `factor` times longer: 0.1·mscale·ln(s) + 1."""
    return 1.0 if factor <= 1 else 0.1 * mscale * math.log(factor) + 1.0


# ----------------------------------------------------------------- the types
def _yarn(d, base, ladder, factor, original, s) -> tuple[np.ndarray, float]:
    kept = yarn_ramp(d, base, {**s, "factor": factor})
    extrapolated = 1.0 / base**ladder
    inv_freq = extrapolated / factor * (1.0 - kept) + extrapolated * kept
    attention = s.get("attention_factor")
    if attention is None:
        mscale, all_dim = s.get("mscale"), s.get("mscale_all_dim")
        if mscale and all_dim:
            attention = yarn_temperature(factor, mscale) / yarn_temperature(factor, all_dim)
        else:
            attention = yarn_temperature(factor)
    return inv_freq, float(attention)


def _yarn_bounds(d: int, base: float, original: int, s: dict) -> tuple[float, float]:
    """The pair indices where the ramp starts and ends: where a pair turns beta_fast and
    beta_slow times within the training length."""
    fast = s.get("beta_fast") or YARN_BETA_FAST
    slow = s.get("beta_slow") or YARN_BETA_SLOW

    def pair_turning(turns: float) -> float:
        return d * math.log(original / (turns * 2 * math.pi)) / (2 * math.log(base))

    low, high = pair_turning(fast), pair_turning(slow)
    if s.get("truncate", True):
        low, high = math.floor(low), math.ceil(high)
    return max(low, 0), min(high, d - 1)


def _llama3(base, ladder, factor, original, s) -> np.ndarray:
    low_ff = _number(s, "low_freq_factor", "llama3")
    high_ff = _number(s, "high_freq_factor", "llama3")
    if high_ff <= low_ff:
        raise ScalingError(
            f"rope_scaling high_freq_factor={high_ff:g} must exceed low_freq_factor={low_ff:g}"
        )
    inv_freq = 1.0 / base**ladder
    wavelength = 2 * np.pi / inv_freq
    slow = wavelength > original / low_ff  # longer than the low bound: divided by the factor
    fast = wavelength < original / high_ff  # shorter than the high bound: kept
    smooth = (original / wavelength - low_ff) / (high_ff - low_ff)
    between = (1 - smooth) * inv_freq / factor + smooth * inv_freq
    return np.where(slow, inv_freq / factor, np.where(fast, inv_freq, between))


# ----------------------------------------------------------------- checks
def _rope_type(scaling: Mapping[str, Any] | None) -> str:
    if not scaling:
        return "default"
    kind = scaling.get("rope_type", scaling.get("type", "default"))
    if kind not in ROPE_TYPES:
        raise ScalingError(
            f"rope_scaling rope_type={kind!r}: must be one of {', '.join(ROPE_TYPES)}"
        )
    return kind


def _check_width(d: int) -> int:
    if int(d) != d or d < 4 or d % 2:
        raise ScalingError(f"d={d}: a RoPE head width must be an even whole number, at least 4")
    return int(d)


def _above_one(name: str, value: float) -> float:
    value = float(value)
    if not value > 1:
        raise ScalingError(f"{name}={value:g}: must exceed 1")
    return value


def _number(s: dict, key: str, kind: str) -> float:
    if s.get(key) is None:
        raise ScalingError(f"rope_scaling[{key!r}] is missing: rope_type {kind!r} needs it")
    try:
        return float(s[key])
    except (TypeError, ValueError):
        raise ScalingError(f"rope_scaling[{key!r}]={s[key]!r}: must be a number") from None


def _factor(s: dict, kind: str) -> float:
    factor = _number(s, "factor", kind)
    if not factor > 1:
        raise ScalingError(
            f"rope_scaling['factor']={factor:g}: must exceed 1 for rope_type {kind!r} "
            "(how many times longer the context gets)"
        )
    return factor


def _original_length(s: dict, kind: str) -> int:
    original = _number(s, "original_max_position_embeddings", kind)
    if original < 1 or int(original) != original:
        raise ScalingError(
            f"rope_scaling['original_max_position_embeddings']={original:g}: "
            "must be the training length, a whole number of positions"
        )
    return int(original)
