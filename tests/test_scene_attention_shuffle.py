"""Scene 1, attention-shuffle: its numbers are pe_math's, its layout holds, it renders."""

import json
from dataclasses import asdict

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from manim import Text

import pe_math as pm
from lesson.say import line as caption
from pe_math import Params
from pe_math.params import MAX_TOKEN_CHARS
from scenes.chapters.attention_shuffle.scene import (
    EVEN_TOLERANCE,
    LEAK_TOLERANCE,
    AttentionShuffle,
    sci_tex,
)
from scenes.kit import theme
from scenes.kit.base import Watchers
from tests.scene_tools import build_scene, catalogue_ui, squash

BEATS = [
    "show_tokens",
    "score_primer",
    "compute_attention",
    "swap_tokens",
    "compare_outputs",
    "causal_mask",
    "inject_position",
    "requirements",
    "takeaway",
    "bridge",
]

# four tokens of six dims, other projections, the middle pair swapped
CHANGED = Params(
    X=[
        [0.2, -0.1, 0.5, 0.1, 0.3, -0.7],
        [0.9, 0.3, -0.2, 0.4, 0.1, 0.2],
        [-0.3, 0.6, 0.2, -0.5, 0.8, -0.9],
        [1.5, -2.25, 0.125, 0.6, 0.0, 0.4],
    ],
    tokens=["我", "爱", "北京", "天安门"],
    tokens_en=["I", "love", "Beijing", "square"],
    swap=[1, 3],
    proj_seed=3,
    proj_scale=0.8,
)
# the smallest case: two tokens of three dims
TINY = Params(
    X=[[1, 2, 3], [-4, 5, 6]], tokens=["你", "好"], tokens_en=["hello", "world"], swap=[0, 1]
)


def direct(params: Params) -> dict:
    """The experiment from pe_math's building blocks, not through the scene."""
    X = np.asarray(params.X, dtype=float)
    W_q, W_k, W_v = pm.projection_matrices(X.shape[1], params.proj_seed, params.proj_scale)
    P = pm.permutation_matrix(pm.swap_order(len(X), *params.swap))
    weights, output = pm.self_attention(X, W_q, W_k, W_v)
    weights_p, output_p = pm.self_attention(P @ X, W_q, W_k, W_v)
    return {
        "P": P,
        "scores": pm.attention_scores(X, W_q, W_k),
        "weights": weights,
        "output": output,
        "weights_perm": weights_p,
        "output_perm": output_p,
        "equivariance_error": np.max(np.abs(output_p - P @ output)),
    }


@pytest.mark.parametrize("params", [Params(), CHANGED, TINY], ids=["defaults", "4x6", "2x3"])
def test_numbers_are_pe_maths(params):
    got = AttentionShuffle.numbers(params)
    json.dumps(asdict(got))  # JSON-ready: no numpy types
    want = direct(params)
    for key in ("P", "scores", "weights", "output", "weights_perm", "output_perm"):
        np.testing.assert_allclose(getattr(got, key), want[key], rtol=0, atol=1e-15, err_msg=key)
    assert got.equivariance_error == pytest.approx(want["equivariance_error"], abs=1e-18)
    assert got.equivariance_error < 1e-12
    np.testing.assert_array_equal(got.X, params.X)
    # the swapped token's output is the same before (position i) and after (position j)
    i, j = params.swap
    np.testing.assert_allclose(got.output[i], got.output_perm[j], atol=1e-12)


def test_numbers_follow_the_params():
    default, changed = AttentionShuffle.numbers(Params()), AttentionShuffle.numbers(CHANGED)
    assert np.shape(default.weights) == (3, 3) and np.shape(changed.weights) == (4, 4)
    assert np.shape(changed.output) == (4, 6)
    assert default.order == [2, 1, 0] and changed.order == [0, 3, 2, 1]
    reseeded = AttentionShuffle.numbers(Params(proj_seed=8))
    assert not np.allclose(reseeded.weights, default.weights)


def test_default_weights_match_the_seed_demo():
    # seed 7, scale 0.5 and the 猫/咬/狗 embeddings: the first row of weights, to 4 decimals
    got = AttentionShuffle.numbers(Params())
    np.testing.assert_allclose(got.weights[0], [0.3062, 0.3722, 0.3216], atol=5e-5)
    np.testing.assert_allclose(got.output[0], [-0.3682, 0.2508, -0.0232, -0.1772], atol=5e-5)


def test_error_is_written_honestly():
    assert sci_tex(5.551115123125783e-17) == r"5.6\times10^{-17}"
    assert sci_tex(0.0) == "0"


@pytest.mark.parametrize(
    "params,lang",
    [(Params(), "en"), (Params(), "zh"), (CHANGED, "en"), (CHANGED, "zh"), (TINY, "en")],
    ids=["defaults-en", "defaults-zh", "4x6-en", "4x6-zh", "2x3-en"],
)
def test_builds_clean_and_shows_the_swapped_tokens_digits(params, lang):
    scene, report = build_scene(AttentionShuffle, params, lang)
    report.assert_clean()
    assert [b for b, _ in scene.beats] == BEATS
    assert report.checked_beats == BEATS + ["<end>"]
    # when the comparison ends, the moved token's output is on screen twice, digit for digit
    n = AttentionShuffle.numbers(params)
    i, j = params.swap
    shown = report.words_at_start["causal_mask"]
    for before, after in zip(n.output[i], n.output_perm[j], strict=True):
        assert theme.fmt(before, 4) == theme.fmt(after, 4)
        assert shown.count(theme.fmt(before, 4)) >= 2
    assert any(sci_tex(n.equivariance_error) in s for s in shown)
    # the sentence after the swap reads in the new order (猫咬狗 → 狗咬猫)
    words = params.tokens if lang == "zh" else params.tokens_en
    glue = "" if lang == "zh" else " "
    swapped = glue.join(words[t] for t in n.order)
    assert any(swapped in s for s in shown)
    check_the_mask(report, n, lang)


def check_the_mask(report, n, lang: str) -> None:
    """When the mask beat ends: the masked weights of PX, each slot's count of the keys it
    sees (counted up to its end), the even weight 1/k and the swap's masked error."""
    shown = report.words_at_start["inject_position"]
    k = len(n.masked_weights_perm)
    for r in range(k):
        for c in range(r + 1):
            assert theme.fmt(n.masked_weights_perm[r][c], 2) in shown
    assert report.values_at_start["inject_position"] == n.keys_seen == list(range(1, k + 1))
    for seen, even in zip(n.keys_seen, n.even_weights, strict=True):
        assert even == pytest.approx(1 / seen)
        assert ("1" if seen == 1 else f"1/{seen}") in shown
    assert any(theme.fmt(n.masked_error, 2) in s for s in shown)
    verdict = "mask_leak" if n.masked_error > LEAK_TOLERANCE else "mask_same"
    assert squash(catalogue_ui(AttentionShuffle.slug)(lang, verdict)) in squash("".join(shown))


def test_each_word_of_the_sentence_is_coloured_on_its_own_glyphs():
    # "fi", "fl" and "ff" are ligatures in the theme font: with them on, counting
    # characters would colour part of the next word
    params = Params(tokens_en=["fish", "flies", "off"])
    scene, _ = build_scene(AttentionShuffle, params, "en")
    for t, word in enumerate(params.tokens_en):
        group = scene.sentence[t]
        assert len(group) == len(word)
        alone = theme_text(word, group)
        assert group.width == pytest.approx(alone.width, rel=0.02)
        assert {sub.get_color().to_hex() for sub in group} == {scene._color(t).to_hex()}


def theme_text(word, like):
    from scenes.kit.components import text

    return text(word, size=theme.HEADING_SIZE).scale_to_fit_height(like.height)


@pytest.mark.parametrize(
    "lang,tokens",
    [
        ("en", ["institutions", "WWWWWWWWWWWW", "cat"]),
        ("zh", ["中华人民共和国中华人民共", "咬", "狗" * 12]),
    ],
)
def test_the_longest_tokens_allowed_still_fit_the_frame(lang, tokens):
    field = "tokens" if lang == "zh" else "tokens_en"
    params = Params(**{field: tokens})
    assert max(len(t) for t in tokens) == MAX_TOKEN_CHARS
    _, report = build_scene(AttentionShuffle, params, lang)
    report.assert_clean()


@pytest.mark.parametrize("params", [Params(), CHANGED, TINY], ids=["defaults", "4x6", "2x3"])
def test_nearly_even_means_each_weight_within_a_quarter_of_an_even_share(params):
    got = AttentionShuffle.numbers(params)
    w = np.asarray(got.weights)
    n = len(w)
    assert (got.weight_min, got.weight_max) == (w.min(), w.max())
    assert got.nearly_even == bool(np.all(np.abs(w - 1 / n) <= EVEN_TOLERANCE / n))


def test_the_default_weights_are_nearly_even_and_the_others_are_not():
    # random, untrained projections at scale 0.5: every default weight is 1/3 ± 1/12,
    # so the whole grid spans less than 1/6; bigger inputs and scales spread them out
    default = AttentionShuffle.numbers(Params())
    w = np.asarray(default.weights)
    assert default.nearly_even
    assert w.max() - w.min() < 2 * EVEN_TOLERANCE / 3
    assert (theme.fmt(w.min(), 2), theme.fmt(w.max(), 2)) == ("0.29", "0.37")
    assert not AttentionShuffle.numbers(CHANGED).nearly_even
    assert not AttentionShuffle.numbers(TINY).nearly_even


@pytest.mark.parametrize(
    "params,lang,key",
    [(Params(), "en", "even"), (Params(), "zh", "even"), (CHANGED, "en", "uneven")],
    ids=["defaults-en", "defaults-zh", "4x6-en"],
)
def test_the_screen_says_the_projections_are_untrained_and_how_even_the_weights_are(
    params, lang, key
):
    scene, report = build_scene(AttentionShuffle, params, lang)
    n = AttentionShuffle.numbers(params)
    shown = report.words_at_start["swap_tokens"]  # how compute_attention ended
    lo, hi = theme.fmt(n.weight_min, 2), theme.fmt(n.weight_max, 2)
    seed = scene.words.ui("seed", seed=n.proj_seed, scale=theme.fmt(n.proj_scale, 1))
    assert seed in shown
    assert scene.words.ui(key, lo=lo, hi=hi) in shown
    other = "uneven" if key == "even" else "even"
    assert scene.words.ui(other, lo=lo, hi=hi) not in shown
    # the range it quotes is the grid's own smallest and largest digits
    cells = [theme.fmt(v, 2) for row in n.weights for v in row]
    assert lo in cells and hi in cells and min(map(_num, cells)) == _num(lo)
    assert max(map(_num, cells)) == _num(hi)


def _num(s: str) -> float:
    return float(s.replace("−", "-"))


@pytest.mark.parametrize("params", [Params(), CHANGED, TINY], ids=["defaults", "4x6", "2x3"])
def test_each_token_keeps_its_output_wherever_it_stands(params):
    # what the closing line says: the outputs follow the tokens, and the weights on PX are
    # the old ones with rows and columns permuted (P W Pᵀ), at any knobs
    n = AttentionShuffle.numbers(params)
    P, W = np.asarray(n.P), np.asarray(n.weights)
    slot_of = {t: k for k, t in enumerate(n.order)}
    for t in range(len(n.order)):
        np.testing.assert_allclose(n.output_perm[slot_of[t]], n.output[t], atol=1e-12)
    np.testing.assert_allclose(n.weights_perm, P @ W @ P.T, atol=1e-12)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_comparison_says_why_order_is_lost(lang):
    scene, report = build_scene(AttentionShuffle, Params(), lang)
    # ... under the identity it explains, once the comparison is over
    shown = report.words_at_start["causal_mask"]
    assert scene.words.ui("order_lost") in shown
    assert r"\mathrm{out}(PX) = P\,\mathrm{out}(X)" in shown


def _centre(m) -> np.ndarray:
    return np.round(m.get_center(), 6)


def _digits(m) -> str:
    return next(t.original_text for t in m.get_family() if isinstance(t, Text))


@pytest.mark.parametrize("params", [Params(), CHANGED], ids=["defaults", "4x6"])
def test_the_swap_moves_the_same_cells_rows_then_columns(params, tmp_path):
    """The weight cells and output rows on screen are the ones from before the swap, carried
    to their permuted places (no new grid is drawn): cell (a, b) ends where cell
    (slot of a, slot of b) started and shows the weight recomputed on PX there."""
    n = AttentionShuffle.numbers(params)
    slot_of = {t: k for k, t in enumerate(n.order)}
    k = len(n.order)
    seen: dict[str, dict] = {}
    plays: list[list[np.ndarray]] = []

    def at_beat(scene, beat):
        if beat in ("swap_tokens", "compare_outputs"):
            grid = scene.board["grid"]
            seen[beat] = {
                "grid": grid,
                "cells": [grid.cell(a, b) for a in range(k) for b in range(k)],
                "centres": [_centre(grid.cell(a, b)) for a in range(k) for b in range(k)],
                "rows": list(scene.board["out_rows"]),
                "row_y": [row.get_y() for row in scene.board["out_rows"]],
                "row_digits": [
                    [_digits(c) for c in row[1].cells] for row in scene.board["out_rows"]
                ],
                "cell_digits": [_digits(grid.cell(a, b)) for a in range(k) for b in range(k)],
                "label_y": [lab.get_y() for lab in grid.row_labels],
                "col_x": [lab.get_x() for lab in grid.col_labels],
                "on_stage": {id(m) for top in scene.mobjects for m in top.get_family()},
            }

    def after_play(scene):
        if scene.beats and scene.beats[-1][0] == "swap_tokens":
            grid = scene.board["grid"]
            plays.append([_centre(grid.cell(a, b)) for a in range(k) for b in range(k)])

    watch = Watchers(beat=(at_beat,), play=(after_play,))
    scene, report = build_scene(AttentionShuffle, params, "en", tmp=tmp_path, watchers=watch)
    report.assert_clean()
    before, after = seen["swap_tokens"], seen["compare_outputs"]
    assert after["grid"] is before["grid"]
    assert all(x is y for x, y in zip(after["cells"], before["cells"], strict=True))
    # they are on stage, and no cell of the grid recomputed on PX ever came on
    assert all(id(c) in after["on_stage"] for c in after["cells"])
    fresh = scene.recomputed["grid"]
    assert not any(id(m) in after["on_stage"] for m in fresh.get_family())
    start = before["centres"]
    for a in range(k):
        for b in range(k):
            cell = after["cells"][a * k + b]
            want = start[slot_of[a] * k + slot_of[b]]
            np.testing.assert_allclose(_centre(cell), want, atol=1e-6)
            shown = after["cell_digits"][a * k + b]
            assert shown == theme.fmt(n.weights_perm[slot_of[a]][slot_of[b]], 2)
            assert shown == theme.fmt(n.weights[a][b], 2)
        # the row and column names travel with their cells
        assert after["label_y"][a] == pytest.approx(before["label_y"][slot_of[a]])
        assert after["col_x"][a] == pytest.approx(before["col_x"][slot_of[a]])
    # rows first: one play ends with every cell in its new row but still in its old column
    rows_only = [start[slot_of[a] * k + b] for a in range(k) for b in range(k)]
    assert any(
        all(np.allclose(c, w, atol=1e-6) for c, w in zip(snap, rows_only, strict=True))
        for snap in plays
    )
    # each output row is the same mobject, now level with the slot its token moved to,
    # showing the same digits as out(PX) there
    for t in range(k):
        row = after["rows"][t]
        assert row is before["rows"][t]
        assert after["row_y"][t] == pytest.approx(before["row_y"][slot_of[t]])
        assert after["row_digits"][t] == [theme.fmt(v, 2) for v in n.output_perm[slot_of[t]]]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_tokens_all_alike_leak_nothing_even_under_the_mask_and_the_line_says_so(lang):
    # two equal tokens swapped still leak (the first sees itself, the last sees all) ...
    pair = AttentionShuffle.numbers(Params(X=[[0.5, 0.1], [0.3, -0.2], [0.5, 0.1]], swap=[0, 2]))
    assert pair.masked_error > 0.01 and pair.lines["causal_mask"] == "leaks"
    # ... only tokens all alike give every slot the same output
    twins = Params(X=[[0.5, 0.1]] * 3, swap=[0, 2])
    n = AttentionShuffle.numbers(twins)
    assert n.masked_error < LEAK_TOLERANCE and n.lines["causal_mask"] == "all_alike"
    assert AttentionShuffle.numbers(Params()).lines["causal_mask"] == "leaks"
    scene, report = build_scene(AttentionShuffle, twins, lang)
    report.assert_clean()
    check_the_mask(report, n, lang)


# ------------------------------------------- what the voice says, held to the numbers
LANGS = ("en", "zh")
BLIND = {"en": "cannot see order", "zh": "看不出词序"}
RECURRENT = {"en": "recurrent network", "zh": "循环网络"}
EQUIVARIANT = {"en": "permutation-equivariant", "zh": "输出也只跟着互换"}


def by_hand(X: np.ndarray, seed: int, scale: float) -> np.ndarray:
    """Self-attention's outputs with numpy alone: softmax(QKᵀ/√d)·V, no mask."""
    W_q, W_k, W_v = pm.projection_matrices(X.shape[1], seed, scale)
    scores = (X @ W_q) @ (X @ W_k).T / np.sqrt(X.shape[1])
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    return weights @ (X @ W_v)


@st.composite
def sentences(draw) -> Params:
    """A sentence of 2 to 6 tokens of 1 to 6 dims, any swapped pair, any projections."""
    n, d = draw(st.integers(2, 6)), draw(st.integers(1, 6))
    entry = st.floats(-10, 10, allow_nan=False).map(lambda v: round(v, 3))
    X = draw(st.lists(st.lists(entry, min_size=d, max_size=d), min_size=n, max_size=n))
    swap = draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True))
    words = [f"w{t}" for t in range(n)]
    return Params(
        X=X,
        tokens=words,
        tokens_en=words,
        swap=swap,
        proj_seed=draw(st.integers(0, 1000)),
        proj_scale=draw(st.floats(0.01, 100)),
    )


@settings(max_examples=40, deadline=None)
@given(params=sentences())
@example(params=Params())
@example(params=CHANGED)
@example(params=TINY)
def test_the_moved_tokens_output_agrees_in_every_digit_at_any_inputs(params):
    # say.compare_outputs: "before and after, the moved token's output agrees in every
    # digit": every digit the screen shows (4 decimals), worked out apart from the scene
    X = np.asarray(params.X, dtype=float)
    i, j = params.swap
    order = list(range(len(X)))
    order[i], order[j] = order[j], order[i]
    before = by_hand(X, params.proj_seed, params.proj_scale)[i]
    after = by_hand(X[order], params.proj_seed, params.proj_scale)[j]
    shown = [theme.fmt(v, 4) for v in before]
    assert shown == [theme.fmt(v, 4) for v in after]
    n = AttentionShuffle.numbers(params)
    assert [theme.fmt(v, 4) for v in n.output[i]] == shown
    assert [theme.fmt(v, 4) for v in n.output_perm[j]] == shown
    en, zh = (caption(lang, AttentionShuffle.slug, "compare_outputs", params) for lang in LANGS)
    assert "agrees in every digit" in en and "每一位都相同" in zh
    # ... and the sentence's length, as show_tokens says it
    en, zh = (caption(lang, AttentionShuffle.slug, "show_tokens", params) for lang in LANGS)
    assert f"A sentence of {len(X)} words" in en and f"一句话，{len(X)} 个词元" in zh
    assert "个词，" not in zh  # one word for a token in one sentence: 词元, not 词 and 词元


@pytest.mark.parametrize("lang", LANGS)
def test_order_blindness_is_said_once_and_the_takeaway_only_names_it(lang):
    # the blow lands once, when the two outputs agree; the recurrent network's contrast
    # once, where position is brought in; the takeaway gives the property its name, briefly
    said = {beat: caption(lang, AttentionShuffle.slug, beat) for beat in BEATS}
    assert [b for b, words in said.items() if BLIND[lang] in words] == ["compare_outputs"]
    assert [b for b, words in said.items() if RECURRENT[lang] in words] == ["inject_position"]
    assert [b for b, words in said.items() if EQUIVARIANT[lang] in words] == ["takeaway"]
    takeaway = said["takeaway"]
    assert (len(takeaway.split()) if lang == "en" else len(takeaway)) <= 20, takeaway
    # with the mask the swap does change the outputs: the name holds only without one
    assert ("Without a causal mask" if lang == "en" else "不加掩码时") in takeaway
    masked = AttentionShuffle.numbers(Params())
    assert masked.masked_error > LEAK_TOLERANCE > masked.equivariance_error


@pytest.mark.parametrize("lang", LANGS)
def test_the_needs_come_with_their_reasons_and_the_last_is_told_honestly(lang):
    # say.requirements: the fixed map is a wish with a reason (later chapters call it the
    # paper's hypothesis), and "nothing to train" admits that learned rows score as well
    # (the original paper found them about even, as the variants chapter tells)
    needs = caption(lang, AttentionShuffle.slug, "requirements")
    if lang == "en":
        # a map between codes, not between positions: the code of p to the code of p + k
        assert "ideally, one fixed linear map from the code of p to the code of p plus k" in needs
        assert "so looking k words back is learned once, everywhere" in needs
        assert "a formula adds no parameters, though learned rows can score as well" in needs
    else:
        assert "最好有个固定的线性映射，把 p 的编码变成 p 加 k 的编码" in needs
        assert "学一次就处处适用" in needs
        assert "公式不带参数，不过学出的位置表效果相当" in needs
    # the words the old line used for it belong to the fifth need, a code at any length
    assert "training stopped" not in needs and "训练长度" not in needs
    params = Params()
    assert pm.verdict("sinusoid", params).parameters == 0 < pm.verdict("learned", params).parameters


NEEDS = ["unique", "bounded", "smooth", "shift_map", "any_length", "seen_length", "no_training"]
ORDINALS = {
    "en": ["First", "Second", "Third", "Fourth", "Fifth", "sixth", "Seventh"],
    "zh": ["第一", "第二", "第三", "第四", "第五", "第六", "第七"],
}


@pytest.mark.parametrize("lang", LANGS)
def test_the_needs_are_numbered_as_later_chapters_call_them(lang):
    # clock-hands says "need one", similarity "need three", long-context "the sixth need":
    # the list says each number as it names the need, in the order of pe_math's checks
    from lesson.catalogue import catalogue

    raw = catalogue(lang, AttentionShuffle.slug)["say"]["requirements"]
    assert list(pm.verdict("sinusoid", Params()).checks) == NEEDS
    cues = [raw.index(f"@{need}") for need in NEEDS]
    assert cues == sorted(cues)
    for need, ordinal in zip(NEEDS, ORDINALS[lang], strict=True):
        after = raw[raw.index(f"@{need}") + len(need) + 1 :].lstrip()
        assert after.startswith(ordinal), (need, after[:20])


@pytest.mark.parametrize("lang", LANGS)
def test_order_must_be_supplied_even_with_a_mask_and_the_paper_is_named_alike(lang):
    # say.inject_position: without a mask attention has no order; with one, only the count
    # of keys it sees (a faint hint): decoder-only models need a position code too
    said = caption(lang, AttentionShuffle.slug, "inject_position")
    if lang == "en":
        assert said.startswith("Order must be supplied: without a causal mask there is none")
        assert "a mask's count is a faint hint of place" in said
        assert "its original paper adds a position vector" in said
    else:
        assert said.startswith("所以顺序得另外提供：没有掩码就分不出先后")
        assert "有掩码也只靠计数略知位置" in said
        assert "原论文便给词嵌入加上位置向量" in said
    assert "Attention Is All You Need" not in said  # a Latin title the zh voice reads poorly
    # under the mask the swap does change the outputs, but only through what each slot sees
    n = AttentionShuffle.numbers(Params())
    assert n.masked_error > LEAK_TOLERANCE > n.equivariance_error
    assert n.keys_seen == list(range(1, len(n.order) + 1))
