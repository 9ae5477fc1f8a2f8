"""Scene 10, variants: the numbers it shows, its layout in both languages, every claim its
captions make, and a real render."""

import math

import numpy as np
import pytest
from hypothesis import given, settings

import pe_math as pm
from lesson.say import line as caption
from lesson.text_layout import listing
from pe_math import Params
from scenes.chapters.variants.scene import (
    ALIBI_LEN,
    MAX_DIMS,
    MAX_ROWS,
    ROPE_GAP,
    ROPE_STEPS,
    TABLE_DIGITS,
    Variants,
    slope_text,
)
from scenes.kit.components import compact
from scenes.kit.theme import digits_for, fmt
from tests.scene_tools import build_in, build_scene, catalogue_ui, squash
from tests.test_knob_sweep import EXAMPLES, examples_at, knob_sets

BEATS = ["learned", "paper", "alibi", "t5", "rope", "table", "takeaway", "bridge"]
CHANGED = Params(
    alibi_heads=6,
    t5_bidirectional=False,
    learned_max_len=8,
    learned_seed=3,
    d_model=16,
    base=100.0,
)
CASES = {
    "defaults": Params(),
    "changed": CHANGED,
    "alibi_heads=6": Params(alibi_heads=6),
    "t5 one-way": Params(t5_bidirectional=False),
    "learned_max_len=8": Params(learned_max_len=8),
    "learned_seed=3": Params(learned_seed=3),
    "d_model=16": Params(d_model=16),
    "base=100": Params(base=100.0),
    "t5 64 buckets, 1000": Params(t5_num_buckets=64, t5_max_distance=1000),
    "one head, one row": Params(alibi_heads=1, learned_max_len=1),
}

ui = catalogue_ui(Variants.slug)


# ----------------------------------------------------------------- by hand
def learned_rows(n: int) -> list[int]:
    return list(range(n)) if n <= MAX_ROWS else [0, 1, 2, 3, 4, 5, n - 2, n - 1]


def sinusoid(p: float, d: int, base: float) -> np.ndarray:
    """Vaswani's PE(p): sin and cos of p·base^(−2i/d), interleaved."""
    out = np.empty(d)
    for i in range(d // 2):
        w = base ** (-2 * i / d)
        out[2 * i], out[2 * i + 1] = math.sin(p * w), math.cos(p * w)
    return out


def alibi_slopes(h: int) -> list[float]:
    """Press et al.: 2^(−8k/h) for h a power of two; else the nearest power's ladder plus
    every other slope of the ladder twice as long."""

    def ladder(n: int) -> list[float]:
        return [2 ** (-8 * (k + 1) / n) for k in range(n)]

    if h & (h - 1) == 0:
        return ladder(h)
    low = 1 << (h.bit_length() - 1)
    return ladder(low) + ladder(2 * low)[0::2][: h - low]


def t5_bucket(rel: int, bidirectional: bool, buckets: int, max_distance: int) -> int:
    """Mesh TensorFlow's relative_position_bucket, one distance at a time (rel = key − query)."""
    out = 0
    if bidirectional:
        buckets //= 2
        if rel > 0:
            out += buckets
        n = abs(rel)
    else:
        n = max(-rel, 0)
    exact = buckets // 2
    if n < exact:
        return out + n
    big = exact + int(math.log(n / exact) / math.log(max_distance / exact) * (buckets - exact))
    return out + min(big, buckets - 1)


# ----------------------------------------------------------------- numbers
@pytest.mark.parametrize("case", list(CASES))
def test_numbers_match_an_independent_computation(case):
    params = CASES[case]
    nums = Variants.numbers(params)
    N, d, base = params.learned_max_len, params.d_model, params.base
    rows, dims = learned_rows(N), min(d, MAX_DIMS)
    table = np.random.default_rng(params.learned_seed).normal(0.0, 0.02, size=(N, d))
    assert (nums.learned_max_len, nums.d_model, nums.past_end) == (N, d, N)
    assert nums.learned_rows == rows and nums.learned_dims == dims
    np.testing.assert_array_equal(nums.learned_values, table[rows, :dims])
    assert nums.learned_scale == pytest.approx(np.abs(table[rows, :dims]).max())
    assert nums.past_end_error == "PositionOutOfRange"
    np.testing.assert_allclose(nums.sinusoid_past, sinusoid(N, d, base)[:dims], atol=1e-12)

    h = params.alibi_heads
    slopes = alibi_slopes(h)
    np.testing.assert_allclose(nums.alibi_slopes, slopes, rtol=1e-12)
    assert nums.alibi_shown == sorted({0, h - 1}) and nums.alibi_len == ALIBI_LEN
    for k, head in enumerate(nums.alibi_shown):
        for i in range(ALIBI_LEN):
            for j in range(ALIBI_LEN):
                want = -slopes[head] * (i - j) if j <= i else None
                got = nums.alibi_bias[k][i][j]
                assert got == pytest.approx(want) if want is not None else got is None
    assert nums.alibi_listed == (list(range(min(h, 8) - 1)) + [h - 1])

    bi, nb, far = params.t5_bidirectional, params.t5_num_buckets, params.t5_max_distance
    assert nums.t5_span == 2 * far
    back = [t5_bucket(-dist, bi, nb, far) for dist in range(nums.t5_span + 1)]
    steps = [[0, back[0]]] + [
        [dist, back[dist]] for dist in range(1, len(back)) if back[dist] != back[dist - 1]
    ]
    assert nums.t5_steps == steps
    exact = (nb // 2 if bi else nb) // 2
    assert nums.t5_exact == exact
    assert nums.t5_last == (nb // 2 if bi else nb) - 1
    assert nums.t5_buckets == [t5_bucket(-dist, bi, nb, far) for dist in nums.t5_distances]
    assert nums.t5_distances[-2:] == [far, 4 * far]
    after = [t5_bucket(dist, bi, nb, far) for dist in range(1, nums.t5_span + 1)]
    assert nums.t5_after == [min(after), max(after)]
    assert nums.rope_theta == 1.0  # base^0: the fastest pair turns one radian per position


def test_defaults_tell_the_story():
    nums = Variants.numbers(Params())
    assert nums.learned_rows == [0, 1, 2, 3, 4, 5, 14, 15] and nums.past_end == 16
    assert [slope_text(s) for s in nums.alibi_slopes] == [
        "1/2",
        "1/4",
        "1/8",
        "1/16",
        "1/32",
        "1/64",
        "1/128",
        "1/256",
    ]
    assert nums.t5_distances == [1, 2, 4, 8, 16, 32, 64, 128, 512]
    assert nums.t5_buckets == [1, 2, 4, 8, 10, 12, 14, 15, 15]
    assert (nums.t5_exact, nums.t5_last, nums.t5_after) == (8, 15, [17, 31])
    # six heads: the four-head ladder, then 1/2 and 1/8 from the eight-head one
    six = Variants.numbers(Params(alibi_heads=6)).alibi_slopes
    assert [slope_text(s) for s in six] == ["1/4", "1/16", "1/64", "1/256", "1/2", "1/8"]


def test_numbers_follow_the_knobs():
    base = Variants.numbers(Params())
    for name, value in CHANGED.as_dict(
        ["alibi_heads", "t5_bidirectional", "learned_max_len", "learned_seed", "d_model", "base"]
    ).items():
        assert Variants.numbers(Params().replace(**{name: value})) != base, name
    for changed in (Params(t5_num_buckets=16), Params(t5_max_distance=64)):
        assert Variants.numbers(changed).t5_steps != base.t5_steps


# ------------------------------------------------------------ on the screen
def check_screen(report, params: Params, lang: str, shape: str = "wide") -> None:
    nums = Variants.numbers(params)
    seen = report.words_at_start
    # the learned table: shown rows and values, the missing row and its error
    after_learned = seen["paper"]
    for value in np.ravel(nums.learned_values):
        assert fmt(value, TABLE_DIGITS) in after_learned
    for r in nums.learned_rows:
        assert str(r) in after_learned
    assert squash(ui(lang, "no_row", p=nums.past_end)) in squash(after_learned)
    assert nums.past_end_error in after_learned
    # the paper: the sinusoid computes the position the table has no row for
    after_paper = seen["alibi"]
    for value in nums.sinusoid_past:
        assert fmt(value, TABLE_DIGITS) in after_paper
    assert f"PE({nums.past_end})" in after_paper
    assert squash(ui(lang, "paper_kept", p=nums.past_end, d=nums.d_model)) in squash(after_paper)
    # ALiBi: the last head's grid (and the first's beside it in 16:9), the slopes
    after_alibi = seen["t5"]
    grids = range(len(nums.alibi_shown)) if shape != "square" else [len(nums.alibi_shown) - 1]
    for k in grids:
        head = nums.alibi_shown[k]
        bias = [v for row in nums.alibi_bias[k] for v in row if v is not None]
        for v in bias:
            assert fmt(v, digits_for(bias, 3)) in after_alibi
        assert (
            ui(lang, "alibi_head", h=head + 1, slope=slope_text(nums.alibi_slopes[head]))
            in after_alibi
        )
    listed = [slope_text(nums.alibi_slopes[h]) for h in nums.alibi_listed]
    key = "alibi_slopes" if nums.alibi_heads > 1 else "alibi_slopes_one"
    slopes = ui(lang, key, n=nums.alibi_heads, slopes=listing(listed, lang))
    assert squash(slopes) in squash(after_alibi)
    # T5: the sample distances and their buckets, the limit, the last bucket
    after_t5 = seen["rope"]
    for dist, bucket in zip(nums.t5_distances, nums.t5_buckets, strict=True):
        assert compact(dist) in after_t5 and str(bucket) in after_t5
    assert ui(lang, "t5_max", m=compact(nums.t5_max_distance)) in after_t5
    assert ui(lang, "t5_last", b=nums.t5_last) in after_t5
    assert ui(lang, "t5_exact", e=nums.t5_exact) in after_t5
    # RoPE: m and n moved together, the gap stayed
    assert report.values_at_start["table"] == [ROPE_STEPS, ROPE_STEPS + ROPE_GAP]
    # the table: the learned table's size and T5's bucket count
    after_table = squash(seen["takeaway"])
    assert squash(ui(lang, "params_learned", n=nums.learned_max_len, d=nums.d_model)) in after_table
    assert squash(ui(lang, "params_t5", b=nums.t5_num_buckets)) in after_table


@pytest.mark.parametrize(
    ("case", "lang"),
    [
        ("defaults", "en"),
        ("defaults", "zh"),
        ("changed", "en"),
        ("changed", "zh"),
        ("one head, one row", "en"),
    ],
)
def test_builds_clean_and_shows_its_numbers(case, lang):
    params = CASES[case]
    scene, report = build_scene(Variants, params, lang)
    report.assert_clean()
    report.assert_readable()
    report.assert_fills_the_stage()
    assert [b for b, _ in scene.beats] == BEATS
    check_screen(report, params, lang)


def test_knobs_change_what_the_scene_reports():
    _, before = build_scene(Variants, Params(), "en")
    _, after = build_scene(Variants, CHANGED, "en")
    for beat in ("paper", "alibi", "t5", "rope", "takeaway"):
        assert after.words_at_start[beat] != before.words_at_start[beat], beat
    # a 16-dim model shows 8 of its dims; a one-way T5 puts later keys in bucket 0
    assert squash(ui("en", "dims_note", shown=8, d=16)) in squash(after.words_at_start["paper"])
    assert ui("en", "t5_after_uni", b=0) in after.words_at_start["rope"]
    assert ui("en", "t5_after_bi", lo=17, hi=31) in before.words_at_start["rope"]
    # eight rows fit whole: no dots between them
    assert "⋮" in before.words_at_start["paper"] and "⋮" not in after.words_at_start["paper"]


@pytest.mark.parametrize("aspect,lang", [("9:16", "en"), ("1:1", "zh")])
def test_other_frames_compose(aspect, lang):
    _, report = build_in(Variants, aspect, lang)
    report.assert_clean()
    report.assert_readable()
    report.assert_fills_the_stage()
    check_screen(report, Params(), lang, {"9:16": "tall", "1:1": "square"}[aspect])


# ------------------------------------------------- the captions' claims
@pytest.mark.parametrize("case", list(CASES))
def test_a_learned_table_has_no_row_past_its_end(case):
    # say.learned, ui.no_row, table: reach_learned
    params = CASES[case]
    N = params.learned_max_len
    table = pm.learned_table(N, params.d_model, seed=params.learned_seed)
    assert table.shape == (N, params.d_model)
    np.testing.assert_array_equal(pm.learned_lookup(table, [N - 1])[0], table[N - 1])
    for p in (N, N + 1, 10 * N):
        with pytest.raises(pm.PositionOutOfRange):
            pm.learned_lookup(table, [p])


@pytest.mark.parametrize("case", list(CASES))
def test_the_sinusoid_is_defined_past_the_learned_tables_end(case):
    # say.paper, ui.paper_kept, table: reach_sinusoidal
    params = CASES[case]
    N, d, base = params.learned_max_len, params.d_model, params.base
    for p in (N, 10 * N, 1000 * N):
        row = pm.sinusoidal([p], d, base)[0]
        assert np.all(np.isfinite(row)) and np.all(np.abs(row) <= 1)
        np.testing.assert_allclose(row, sinusoid(p, d, base), atol=1e-9)


@pytest.mark.parametrize("heads", [1, 6, 8, 12, 64])
def test_alibi_grows_linearly_with_distance_and_needs_no_table(heads):
    # say.alibi, ui.alibi_no_table, table: params_alibi = none
    n = 40
    bias = pm.alibi_bias(heads, n)
    slopes = pm.alibi_slopes(heads)
    assert np.all(slopes > 0)
    i, j = np.tril_indices(n)
    # one slope times the distance: the same wherever the pair sits, so nothing to store
    np.testing.assert_allclose(bias[:, i, j], -slopes[:, None] * (i - j)[None, :], atol=1e-12)
    for h in range(heads):
        last_row = bias[h, n - 1, ::-1]  # distances 0, 1, ..., n−1
        steps = np.diff(last_row)
        np.testing.assert_allclose(steps, -slopes[h])
    assert np.all(np.isneginf(bias[:, np.triu_indices(n, 1)[0], np.triu_indices(n, 1)[1]]))


def test_every_head_has_its_own_slope_halving_for_eight_heads():
    # say.alibi and ui.alibi_slopes
    for heads in (6, 8, 12, 64):
        assert len(set(pm.alibi_slopes(heads))) == heads
    np.testing.assert_allclose(pm.alibi_slopes(8), [2.0 ** -(k + 1) for k in range(8)])


@pytest.mark.parametrize("case", ["defaults", "t5 one-way", "t5 64 buckets, 1000"])
def test_t5_buckets_are_exact_nearby_then_widen_then_saturate(case):
    # say.t5, ui.t5_exact, ui.t5_last, table: reach_t5
    params = CASES[case]
    bi, nb, far = params.t5_bidirectional, params.t5_num_buckets, params.t5_max_distance
    nums = Variants.numbers(params)
    dist = np.arange(0, 50 * far)
    back = pm.t5_bucket(-dist, bi, nb, far)
    # one bucket per distance below the exact limit
    np.testing.assert_array_equal(back[: nums.t5_exact], dist[: nums.t5_exact])
    # the buckets never go down as the distance grows, and the steps get wider
    assert np.all(np.diff(back) >= 0)
    widths = np.diff([s for s, _ in nums.t5_steps])
    assert widths[-1] > 4 * widths[0] == 4
    # everything from max_distance on shares the last bucket
    assert np.all(back[far:] == nums.t5_last)
    assert pm.t5_bucket(-(10**6), bi, nb, far) == nums.t5_last


def test_t5_keys_after_the_query_take_the_upper_buckets_or_bucket_zero():
    # ui.t5_after_bi and ui.t5_after_uni
    dist = np.arange(1, 500)
    np.testing.assert_array_equal(
        pm.t5_bucket(dist, True, 32, 128), pm.t5_bucket(-dist, True, 32, 128) + 16
    )
    assert np.all(pm.t5_bucket(dist, False, 32, 128) == 0)


@pytest.mark.parametrize("case", ["defaults", "d_model=16", "base=100"])
def test_rope_scores_see_only_the_gap(case):
    # say.rope and the rope beat's formula
    params = CASES[case]
    rng = np.random.default_rng(1)
    q, k = rng.normal(size=params.d_model), rng.normal(size=params.d_model)
    for gap in (ROPE_GAP, 5):
        scores = [pm.rope_score(q, k, m, m + gap, params.base) for m in range(0, 60, 7)]
        np.testing.assert_allclose(scores, scores[0], atol=1e-9)
    assert pm.rope_score(q, k, 0, 1, params.base) != pytest.approx(
        pm.rope_score(q, k, 0, 5, params.base)
    )
    # a turn keeps the length of q
    turned = pm.rope(q, [1234], params.base)[0]
    assert np.linalg.norm(turned) == pytest.approx(np.linalg.norm(q))


# ----------------------------------------- the lines at any knobs, by predicate
ALIBI_HEADS = {
    "en": ("each head subtracts its own slope", "the one head here subtracts a slope"),
    "zh": ("每个头用自己的斜率", "这里只有一个头"),
}


@settings(max_examples=30, deadline=None)
@given(params=knob_sets())
@examples_at([*EXAMPLES, {"alibi_heads": 1}, {"alibi_heads": 2}, {"alibi_heads": 3}])
def test_alibi_says_each_head_its_own_slope_only_when_there_are_heads_to_differ(params):
    # say.alibi: "each head subtracts its own slope" needs two heads or more, every slope
    # different; one head is said as one head
    heads = params.alibi_heads
    slopes = alibi_slopes(heads)
    np.testing.assert_allclose(pm.alibi_slopes(heads), slopes, rtol=1e-12)
    assert len(set(slopes)) == heads and all(s > 0 for s in slopes)
    many, one = heads > 1, heads == 1
    for lang, (each, single) in ALIBI_HEADS.items():
        said = caption(lang, Variants.slug, "alibi", params)
        assert (each in said) is many and (single in said) is one, said


@settings(max_examples=30, deadline=None)
@given(params=knob_sets())
@examples_at([*EXAMPLES, {"alibi_heads": 1, "train_len": 16}, {"alibi_heads": 64}])
def test_alibi_reaches_past_the_training_length_for_the_reasons_the_voice_gives(params):
    # say.alibi: the penalty is a formula of the distance, there at any length (so no row
    # to run out of: said once); it grows with distance, so far keys weigh less and less; and attention
    # leans on the near distances met in training: in a text twice the training length,
    # keys of equal content put more than half of every head's weight below that length
    heads, L = params.alibi_heads, params.train_len
    slopes = np.asarray(alibi_slopes(heads))
    short = pm.alibi_bias(heads, 64)[:, -1, ::-1]  # the last query, distances 0 to 63
    np.testing.assert_allclose(short, -slopes[:, None] * np.arange(64)[None, :], atol=1e-12)
    distance = np.arange(2 * L)
    bias = -slopes[:, None] * distance[None, :]  # the same formula, at twice the length
    assert np.all(np.isfinite(bias)) and np.all(np.diff(bias, axis=1) < 0)
    weights = np.exp(bias)  # the largest is e⁰ at distance 0: no overflow
    weights /= weights.sum(axis=1, keepdims=True)
    assert np.all(np.diff(weights, axis=1) <= 0)
    near = weights[:, :L].sum(axis=1)
    np.testing.assert_allclose(near, 1 / (1 + np.exp(-slopes * L)), rtol=1e-9)
    assert np.all(near > 0.5)
    en, zh = (caption(lang, Variants.slug, "alibi", params) for lang in ("en", "zh"))
    for phrase in ("a formula, there at any length", "grows with distance"):
        assert phrase in en
    assert "attention leans on the near distances met in training" in en
    assert "models trained on short texts read longer ones about as well" in en
    for phrase in ("距离的公式", "多长都能算", "随距离变大", "注意力偏向训练见过的近处"):
        assert phrase in zh
    assert "短文本训练的模型读更长的文本" in zh


def test_the_paper_line_names_the_original_transformer_paper():
    # say.paper: tried learned rows, about the same score, kept sinusoids for longer texts
    en, zh = (caption(lang, Variants.slug, "paper") for lang in ("en", "zh"))
    assert en.startswith("The original Transformer paper tried learned rows too")
    assert "scored about the same" in en and "lengths training never saw" in en
    assert zh.startswith("Transformer 原论文也试过可学习位置表") and "差不多" in zh
    assert ui("en", "paper_source").startswith("Vaswani et al. 2017, Table 3, row E")


@settings(max_examples=20, deadline=None)
@given(params=knob_sets())
@examples_at([{"learned_max_len": 4}, {"d_model": 2, "learned_max_len": 2}])
def test_the_takeaway_says_the_fixed_map_takes_codes_not_positions(params):
    # the fourth need is one linear map from the code of p to the code of p plus k; a
    # learned table misses it when its random rows outnumber the width plus one
    rows = np.random.default_rng(params.learned_seed).normal(
        0.0, 0.02, size=(params.learned_max_len, params.d_model)
    )
    M, *_ = np.linalg.lstsq(rows[:-1], rows[1:], rcond=None)
    fits = (
        len(rows) > 1
        and bool(  # one row has no step to map
            np.linalg.norm(rows[:-1] @ M - rows[1:]) <= 1e-9 * np.linalg.norm(rows[1:])
        )
    )
    en, zh = (caption(lang, Variants.slug, "takeaway", params) for lang in ("en", "zh"))
    says_map = "no fixed map from the code of p to that of p plus k" in en
    assert says_map == ("没有固定映射把 p 的编码变成 p 加 k 的" in zh) == (not fits)
    assert "from p to p plus k" not in en and "把 p 移到" not in zh
