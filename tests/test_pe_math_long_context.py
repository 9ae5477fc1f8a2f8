"""RoPE scaling in pe_math against transformers' ROPE_INIT_FUNCTIONS, against a
pair-by-pair re-implementation from the papers' formulas (with transformers'
conventions for the YaRN ramp), and against published numbers."""

from __future__ import annotations

import cmath
import math

import numpy as np
import pytest

import pe_math as pm


# ----------------------------------------------------------------- the reference
def speeds(d: int, base: float) -> list[float]:
    return [base ** (-2 * i / d) for i in range(d // 2)]


def reference(d: int, base: float, s: dict | None, seq_len: int | None = None):
    kind = (s or {}).get("rope_type", "default")
    if kind == "default":
        return speeds(d, base), 1.0
    k = s["factor"]
    if kind == "linear":  # Position Interpolation: position p is read as p / k
        return [t / k for t in speeds(d, base)], 1.0
    L0 = s["original_max_position_embeddings"]
    if kind == "dynamic":  # NTK-aware: a larger base, grown with the length read
        L = max(seq_len or L0, L0)
        return speeds(d, base * (k * L / L0 - (k - 1)) ** (d / (d - 2))), 1.0
    if kind == "yarn":
        beta_fast, beta_slow = s.get("beta_fast") or 32, s.get("beta_slow") or 1

        def index_turning(turns):  # the pair index that turns `turns` times within L0
            return (d / 2) * math.log(L0 / (2 * math.pi * turns)) / math.log(base)

        lo, hi = index_turning(beta_fast), index_turning(beta_slow)
        if s.get("truncate", True):
            lo, hi = math.floor(lo), math.ceil(hi)
        lo, hi = max(lo, 0), min(hi, d - 1)
        hi = hi + 0.001 if hi == lo else hi
        out = []
        for i, t in enumerate(speeds(d, base)):
            interpolated = min(1.0, max(0.0, (i - lo) / (hi - lo)))
            out.append(t / k * interpolated + t * (1 - interpolated))
        if s.get("attention_factor") is not None:
            temp = s["attention_factor"]
        elif s.get("mscale") and s.get("mscale_all_dim"):
            temp = (0.1 * s["mscale"] * math.log(k) + 1) / (
                0.1 * s["mscale_all_dim"] * math.log(k) + 1
            )
        else:
            temp = 0.1 * math.log(k) + 1
        return out, temp
    lo_f, hi_f = s["low_freq_factor"], s["high_freq_factor"]
    out = []
    for t in speeds(d, base):
        wavelength = 2 * math.pi / t
        if wavelength < L0 / hi_f:
            out.append(t)
        elif wavelength > L0 / lo_f:
            out.append(t / k)
        else:
            w = (L0 / wavelength - lo_f) / (hi_f - lo_f)
            out.append((1 - w) * t / k + w * t)
    return out, 1.0


LLAMA31 = {  # Meta Llama 3.1 8B, config.json: rope_theta 500000, head_dim 128
    "rope_type": "llama3",
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192,
}
CONFIGS = [
    (64, 10000.0, None, None),
    (128, 500000.0, None, None),
    (128, 10000.0, {"rope_type": "linear", "factor": 4.0}, None),
    (64, 10000.0, {"rope_type": "linear", "factor": 2.5}, None),
    (
        128,
        10000.0,
        {"rope_type": "dynamic", "factor": 2.0, "original_max_position_embeddings": 4096},
        None,
    ),
    (
        128,
        10000.0,
        {"rope_type": "dynamic", "factor": 2.0, "original_max_position_embeddings": 4096},
        16384,
    ),
    (
        64,
        50000.0,
        {"rope_type": "dynamic", "factor": 4.0, "original_max_position_embeddings": 2048},
        1000,
    ),
    (
        128,
        10000.0,
        {"rope_type": "yarn", "factor": 16.0, "original_max_position_embeddings": 4096},
        None,
    ),
    (
        128,
        1000000.0,
        {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
        None,
    ),
    (
        64,
        10000.0,
        {
            "rope_type": "yarn",
            "factor": 40.0,
            "original_max_position_embeddings": 4096,
            "beta_fast": 16,
            "beta_slow": 2,
            "mscale": 1.0,
            "mscale_all_dim": 0.5,
            "truncate": False,
        },
        None,
    ),
    (
        128,
        10000.0,
        {
            "rope_type": "yarn",
            "factor": 8.0,
            "original_max_position_embeddings": 2048,
            "attention_factor": 1.5,
        },
        None,
    ),
    (128, 500000.0, LLAMA31, None),
    (
        64,
        10000.0,
        {
            **LLAMA31,
            "factor": 4.0,
            "original_max_position_embeddings": 2048,
            "high_freq_factor": 8.0,
        },
        None,
    ),
]


@pytest.mark.parametrize(("d", "base", "scaling", "seq_len"), CONFIGS)
def test_rope_frequencies_equal_the_pair_by_pair_reference(d, base, scaling, seq_len):
    inv_freq, attention = pm.rope_frequencies(d, base, scaling, seq_len)
    want, want_attention = reference(d, base, scaling, seq_len)
    assert inv_freq.shape == (d // 2,)
    np.testing.assert_allclose(inv_freq, want, rtol=1e-6)  # float32 rounding, as the peers
    assert attention == pytest.approx(want_attention, rel=1e-9)
    np.testing.assert_allclose(pm.rope_wavelengths(d, base, scaling, seq_len), 2 * np.pi / inv_freq)


def test_published_numbers_are_kept():
    # YaRN's default temperature, sqrt(1/t) = 0.1 ln(s) + 1 (Peng et al. 2023, eq. 22)
    _, t16 = pm.rope_frequencies(
        128,
        10000.0,
        {"rope_type": "yarn", "factor": 16.0, "original_max_position_embeddings": 4096},
    )
    assert t16 == pytest.approx(1.2772588722, abs=1e-9)
    assert pm.yarn_temperature(4.0) == pytest.approx(1.1386294361, abs=1e-9)
    # DeepSeek-V3: mscale = mscale_all_dim = 1.0, so the two temperatures cancel
    deepseek = {
        "rope_type": "yarn",
        "factor": 40.0,
        "original_max_position_embeddings": 4096,
        "mscale": 1.0,
        "mscale_all_dim": 1.0,
        "beta_fast": 32,
        "beta_slow": 1,
    }
    assert pm.rope_frequencies(64, 10000.0, deepseek)[1] == 1.0
    # Llama 3.1: the fastest pair is untouched, the slowest turns 8 times slower
    inv, _ = pm.rope_frequencies(128, 500000.0, LLAMA31)
    plain, _ = pm.rope_frequencies(128, 500000.0)
    assert inv[0] == plain[0] == 1.0
    assert inv[-1] == pytest.approx(plain[-1] / 8, rel=1e-12)
    waves = 2 * np.pi / plain
    assert np.all(inv[waves < 2048] == plain[waves < 2048])  # under 8192/4: kept
    np.testing.assert_allclose(inv[waves > 8192], plain[waves > 8192] / 8)  # over 8192/1: / 8


def test_each_remedy_moves_the_ladder_the_way_the_chapter_says():
    d, base, L0 = 128, 10000.0, 4096
    plain = pm.rope_frequencies(d, base)[0]
    pi = pm.rope_frequencies(d, base, {"rope_type": "linear", "factor": 8.0})[0]
    ntk = pm.rope_frequencies(
        d,
        base,
        {"rope_type": "dynamic", "factor": 8.0, "original_max_position_embeddings": L0},
        8 * L0,
    )[0]
    yarn = {"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": L0}
    yarn_inv = pm.rope_frequencies(d, base, yarn)[0]
    np.testing.assert_allclose(pi * 8, plain)  # PI: every pair slowed alike
    assert ntk[0] == plain[0] and np.all(np.diff(plain / ntk) >= 0)  # NTK: slower the slower
    ramp = pm.yarn_ramp(d, base, yarn)
    assert ramp[0] == 1.0 and ramp[-1] == 0.0 and np.all(np.diff(ramp) <= 0)
    np.testing.assert_allclose(yarn_inv[ramp == 1], plain[ramp == 1])  # fast pairs kept
    np.testing.assert_allclose(yarn_inv[ramp == 0], plain[ramp == 0] / 8)  # slow ones as PI


def test_the_score_bound_matches_its_sum_and_decays_with_distance():
    d, base = 128, 10000.0
    distances = [0, 1, 10, 100, 1000]
    got = pm.rope_score_decay(d, base, distances)
    theta = speeds(d, base)
    for m, value in zip(distances, got, strict=True):
        partial, total = 0, 0.0
        for t in theta:
            partial += cmath.exp(1j * m * t)
            total += abs(partial)
        assert value == pytest.approx(total / len(theta), rel=1e-9)
    assert got[0] == pytest.approx((d / 2 + 1) / 2)
    far = pm.rope_score_decay(d, base, np.arange(0, 4000, 50))
    assert far[-20:].mean() < far[:2].mean() / 2  # it falls, ripples apart
    stretched = pm.rope_score_decay(d, base, [1000], {"rope_type": "linear", "factor": 4.0})
    assert stretched[0] == pytest.approx(pm.rope_score_decay(d, base, [250])[0])  # PI: m/4


@pytest.mark.parametrize(
    ("scaling", "message"),
    [
        (
            {"rope_type": "ntk-by-parts", "factor": 2.0},
            "rope_type='ntk-by-parts': must be one of default, linear",
        ),
        ({"rope_type": "linear", "factor": 1.0}, r"\['factor'\]=1: must exceed 1"),
        (
            {"rope_type": "yarn", "factor": 0.5, "original_max_position_embeddings": 4096},
            r"\['factor'\]=0.5: must exceed 1",
        ),
        ({"rope_type": "linear"}, r"\['factor'\] is missing"),
        (
            {"rope_type": "yarn", "factor": 4.0},
            r"\['original_max_position_embeddings'\] is missing",
        ),
        (
            {"rope_type": "dynamic", "factor": 4.0},
            r"\['original_max_position_embeddings'\] is missing",
        ),
        ({**LLAMA31, "high_freq_factor": 1.0}, "high_freq_factor=1 must exceed low_freq_factor=1"),
        ({**LLAMA31, "low_freq_factor": None}, r"\['low_freq_factor'\] is missing"),
        ({**LLAMA31, "factor": "eight"}, r"\['factor'\]='eight': must be a number"),
    ],
)
def test_bad_configs_are_one_line_naming_the_key(scaling, message):
    with pytest.raises(pm.ScalingError, match=message) as err:
        pm.rope_frequencies(128, 10000.0, scaling)
    assert "\n" not in str(err.value)


def test_bad_widths_and_bases_are_refused():
    with pytest.raises(pm.ScalingError, match="d=63"):
        pm.rope_frequencies(63)
    with pytest.raises(pm.ScalingError, match="base=1: must exceed 1"):
        pm.rope_frequencies(64, 1.0)


# ----------------------------------------------------------------- the peer code
def peer(d: int, base: float, scaling: dict | None, seq_len: int | None):
    """transformers' own result for a Llama config with this head and scaling."""
    from transformers import LlamaConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    scaling = dict(scaling or {"rope_type": "default"})
    kind = scaling["rope_type"]
    original = scaling.get("original_max_position_embeddings", 2048)
    # dynamic reads the training length from the config; yarn's factor is the ratio
    longest = original if kind == "dynamic" else int(original * scaling.get("factor", 1))
    config = LlamaConfig(
        hidden_size=d * 4,
        num_attention_heads=4,
        head_dim=d,
        max_position_embeddings=longest,
        rope_parameters={**scaling, "rope_theta": base},
    )
    if kind == "default":
        from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

        inv_freq, attention = LlamaRotaryEmbedding.compute_default_rope_parameters(config)
    else:
        inv_freq, attention = ROPE_INIT_FUNCTIONS[kind](config, "cpu", seq_len)
    return inv_freq.double().numpy().reshape(-1), float(attention)


@pytest.mark.parametrize(("d", "base", "scaling", "seq_len"), CONFIGS)
def test_rope_frequencies_equal_transformers_rope_init_functions(d, base, scaling, seq_len):
    inv_freq, attention = pm.rope_frequencies(d, base, scaling, seq_len)
    want, want_attention = peer(d, base, scaling, seq_len)
    np.testing.assert_allclose(inv_freq, want, rtol=2e-6)  # the peer computes in float32
    assert attention == pytest.approx(want_attention, rel=1e-6)
