"""Scene 1, attention-shuffle: its numbers are pe_math's, its layout holds, it renders."""

import json
from dataclasses import asdict

import numpy as np
import pytest

import pe_math as pm
from pe_math import Params
from pe_math.params import MAX_TOKEN_CHARS
from scenes import theme
from scenes.attention_shuffle import AttentionShuffle, sci_tex
from tests.scene_tools import assert_lesson_clip, build_scene, render_scene

BEATS = [
    "show_tokens",
    "compute_attention",
    "swap_tokens",
    "compare_outputs",
    "inject_position",
    "takeaway",
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
    shown = report.words_at_start["inject_position"]
    for before, after in zip(n.output[i], n.output_perm[j], strict=True):
        assert theme.fmt(before, 4) == theme.fmt(after, 4)
        assert shown.count(theme.fmt(before, 4)) >= 2
    assert any(sci_tex(n.equivariance_error) in s for s in shown)
    # the sentence after the swap reads in the new order (猫咬狗 → 狗咬猫)
    words = params.tokens if lang == "zh" else params.tokens_en
    glue = "" if lang == "zh" else " "
    swapped = glue.join(words[t] for t in n.order)
    assert any(swapped in s for s in shown)


@pytest.mark.render
def test_renders_and_decodes(tmp_path):
    clip = render_scene(AttentionShuffle, tmp_path)
    assert_lesson_clip(clip, BEATS)


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
    from scenes.components import text

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
