"""Scene 11, long-context: its numbers against a computation by hand, every claim its
captions make at the defaults and under a knob sweep, the knobs' errors, and its layout."""

from __future__ import annotations

import contextlib
import itertools
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings

import pe_math as pm
from lesson import catalogue, facts, say
from lesson.speaker import speaker
from pe_math import ParamError, Params
from scenes.chapters.long_context.scene import RULES, LongContext, scaling_for
from scenes.kit.components import compact
from scenes.kit.theme import fmt
from tests.scene_tools import build_in, build_scene, catalogue_ui, squash
from tests.test_knob_sweep import EXAMPLES, any_knobs, examples_at, problems

SLUG = LongContext.slug
BEATS = [
    "ladder",
    "unseen",
    "pi",
    "ntk",
    "yarn",
    "llama3",
    "configs",
    "takeaway",
    "bridge",
]
CHANGED = Params(train_len=2048, target_len=65536, rope_base=500000.0, rope_head_dim=64)
CASES = {
    "defaults": Params(),
    "changed": CHANGED,
    "factor 2, narrow head": Params(
        train_len=8192, target_len=16384, rope_base=1e6, rope_head_dim=32
    ),
    "factor 16: the slowest pair wraps": Params(target_len=65536),
    "one slow pair only": Params(rope_head_dim=8, train_len=1000, target_len=4000),
    "uneven factor": Params(train_len=3000, target_len=10000, rope_base=20000.0),
    "short training: no pair turns 32 times": Params(train_len=64, target_len=512),
    "one position past training": Params(target_len=4097),
}

ui = catalogue_ui(SLUG)


# ----------------------------------------------------------------- by hand
def speeds(d: int, base: float) -> np.ndarray:
    return np.array([base ** (-2 * i / d) for i in range(d // 2)])


def turns_in_training(p: Params) -> np.ndarray:
    return p.train_len * speeds(p.rope_head_dim, p.rope_base) / (2 * math.pi)


@pytest.mark.parametrize("case", list(CASES))
def test_numbers_match_a_computation_by_hand(case):
    p = CASES[case]
    n = LongContext.numbers(p)
    theta = speeds(p.rope_head_dim, p.rope_base)
    s = p.target_len / p.train_len
    turns = turns_in_training(p)
    assert n.factor == pytest.approx(s)
    assert n.pairs == p.rope_head_dim // 2 == len(n.log_wavelengths["rope"])
    np.testing.assert_allclose(n.log_wavelengths["rope"], np.log10(2 * math.pi / theta))
    assert n.lapped == int(np.sum(turns >= 1)) and n.unfinished == int(np.sum(turns < 1))
    assert n.fast_turns == pytest.approx(turns[0])
    assert n.seen_deg == pytest.approx(math.degrees(theta[-1] * p.train_len))
    assert n.target_deg["rope"] == pytest.approx(math.degrees(theta[-1] * p.target_len))
    assert n.step_deg["rope"] == pytest.approx(math.degrees(1.0))  # θ_0 = 1 rad
    assert n.step_deg["pi"] == pytest.approx(math.degrees(1.0) / s)
    np.testing.assert_allclose(n.log_wavelengths["pi"], np.log10(2 * math.pi * s / theta))
    # NTK-aware: the base that slows the slowest pair exactly s times
    d = p.rope_head_dim
    assert n.ntk_base == pytest.approx(p.rope_base * s ** (d / (d - 2)))
    ntk = speeds(d, n.ntk_base)
    np.testing.assert_allclose(n.log_wavelengths["ntk"], np.log10(2 * math.pi / ntk))
    # YaRN: kept above beta_fast turns, divided below beta_slow, the rest blended
    ramp = pm.yarn_ramp(d, p.rope_base, scaling_for("yarn", p))
    assert n.yarn_kept + n.yarn_blended + n.yarn_divided == n.pairs
    assert n.yarn_kept == int(np.sum(ramp == 1)) and n.yarn_divided == int(np.sum(ramp == 0))
    assert n.yarn_temperature == pytest.approx(0.1 * math.log(s) + 1)
    # Llama 3: a quarter of the training length and all of it
    waves = 2 * math.pi / theta
    assert (n.llama_short, n.llama_long) == (p.train_len / 4, p.train_len)
    assert n.llama_kept == int(np.sum(waves < p.train_len / 4))
    assert n.llama_divided == int(np.sum(waves > p.train_len))


# ------------------------------------------------- the captions' claims, swept
@pytest.mark.parametrize("case", list(CASES))
def test_the_ladder_splits_at_the_training_length(case):
    # say.ladder, ui.note_rope: below the line at least one turn, above it none
    p = CASES[case]
    n = LongContext.numbers(p)
    turns = turns_in_training(p)
    assert np.all(turns[: n.lapped] >= 1) and np.all(turns[n.lapped :] < 1)
    assert n.unfinished >= 1  # the knobs refuse a base that lets every pair lap
    assert n.fast_turns == pytest.approx(turns.max())


@pytest.mark.parametrize("case", list(CASES))
def test_every_remedy_stops_the_slowest_pair_where_training_left_it(case):
    # say.pi/ntk/yarn/llama3 @dials: "stops at the N degrees it reached in training"
    n = LongContext.numbers(CASES[case])
    assert n.target_deg["rope"] == pytest.approx(n.seen_deg * n.factor)
    for rule in ("pi", "ntk", "yarn", "llama3"):
        assert n.target_deg[rule] == pytest.approx(n.seen_deg, rel=1e-9), rule
        assert n.unseen[rule] <= n.unfinished
    # "nothing is unseen" for PI; YaRN and Llama 3 divide every unfinished pair
    assert n.unseen["pi"] == n.unseen["yarn"] == n.unseen["llama3"] == 0
    assert n.unseen["rope"] == n.unfinished


@pytest.mark.parametrize("case", list(CASES))
def test_pi_crowds_and_the_others_keep_the_fastest_pair(case):
    n = LongContext.numbers(CASES[case])
    assert n.step_deg["pi"] == pytest.approx(n.step_deg["rope"] / n.factor)
    for rule in ("ntk", "yarn", "llama3"):
        assert n.step_deg[rule] == pytest.approx(n.step_deg["rope"], rel=1e-12), rule


@pytest.mark.parametrize("case", list(CASES))
def test_ntk_slows_the_slower_pairs_more_up_to_exactly_the_factor(case):
    p = CASES[case]
    n = LongContext.numbers(p)
    slowdown = 10 ** (np.array(n.log_wavelengths["ntk"]) - n.log_wavelengths["rope"])
    assert slowdown[0] == pytest.approx(1.0)
    assert np.all(np.diff(slowdown) > 0)
    assert n.ntk_slowdown == pytest.approx(n.factor) == pytest.approx(slowdown[-1])
    # the middle pairs slow by less: those that never lapped may still pass their range
    turns = turns_in_training(p)
    middle = (turns < 1) & (slowdown < n.factor * (1 - 1e-9))
    assert n.unseen["ntk"] == int(np.sum(middle))
    assert n.lines["ntk"] == ("some" if n.unseen["ntk"] else "none")


@pytest.mark.parametrize("case", list(CASES))
def test_yarn_keeps_pairs_past_beta_fast_and_divides_those_under_one_turn(case):
    p = CASES[case]
    n = LongContext.numbers(p)
    turns = turns_in_training(p)
    ramp = pm.yarn_ramp(p.rope_head_dim, p.rope_base, scaling_for("yarn", p))
    assert np.all(ramp[turns > n.beta_fast] == 1)
    assert np.all(ramp[turns < n.beta_slow] == 0)
    # "the N in between move part of the way": N counts the pairs between the two turn
    # counts, but for the fastest, which is kept when no pair turns beta_fast times
    between = (turns >= n.beta_slow) & (turns <= n.beta_fast)
    if n.lines["yarn"] == "short":
        assert turns.max() <= n.beta_fast and n.yarn_kept == 1
        between[0] = False
    else:
        assert n.yarn_kept == int(np.sum(turns > n.beta_fast))
    assert n.yarn_blended == int(np.sum(between))
    rise = np.array(n.log_wavelengths["yarn"]) - n.log_wavelengths["rope"]
    np.testing.assert_allclose(rise[ramp == 1], 0, atol=1e-12)
    np.testing.assert_allclose(rise[ramp == 0], math.log10(n.factor))
    blended = (ramp > 0) & (ramp < 1)
    assert np.all((rise[blended] > 0) & (rise[blended] < math.log10(n.factor)))


@pytest.mark.parametrize("case", list(CASES))
def test_llama3_keeps_short_turns_divides_long_ones_and_mixes_between(case):
    p = CASES[case]
    n = LongContext.numbers(p)
    waves = 10 ** np.array(n.log_wavelengths["rope"])
    rise = np.array(n.log_wavelengths["llama3"]) - n.log_wavelengths["rope"]
    np.testing.assert_allclose(rise[waves < n.llama_short], 0, atol=1e-12)
    np.testing.assert_allclose(rise[waves > n.llama_long], math.log10(n.factor))
    between = (waves >= n.llama_short) & (waves <= n.llama_long)
    assert np.all((rise[between] >= -1e-12) & (rise[between] <= math.log10(n.factor) + 1e-12))


@settings(max_examples=30, deadline=None)
@given(params=any_knobs())
@examples_at([{"train_len": 16, "target_len": 32}, {"train_len": 24, "target_len": 48}])
def test_llama3_says_short_turns_are_kept_only_where_one_is(params):
    # say.llama3: Llama 3.1 keeps the pairs whose turn is shorter than a quarter of the
    # training length; a short training length leaves none (the fastest pair's turn is 2π
    # positions), and then the line says so instead of "Shorter turns are kept"
    theta = params.rope_base ** (-np.arange(0, params.rope_head_dim, 2) / params.rope_head_dim)
    kept = int(np.sum(2 * np.pi / theta < params.train_len / 4))
    assert LongContext.numbers(params).llama_kept == kept
    en, zh = (say.line(lang, SLUG, "llama3", params) for lang in ("en", "zh"))
    assert (
        ("Shorter turns are kept" in en) == ("不到训练长度四分之一的照旧，超过" in zh) == (kept > 0)
    )
    assert ("none is kept" in en) == ("这里一对也没有" in zh) == (kept == 0)
    assert "一圈短的保留" not in zh


def test_released_configs_are_kept_with_their_sources_and_the_claims_hold():
    n = LongContext.numbers(Params())
    by_model = {c["model"]: c for c in n.configs}
    assert all(c["source"] for c in facts.ROPE_CONFIGS)
    assert n.base_raise == 100  # Code Llama's base over Llama 2's: "a hundredfold"
    assert n.configs[0]["model"] == "Llama 2" and n.configs[0]["scaling"] is None
    assert by_model["Llama 3.1"]["scaling"]["rope_type"] == "llama3"
    assert by_model["Llama 3.1"]["scaling"]["factor"] == 8  # "with a factor of 8"
    assert {m for m, c in by_model.items() if (c["scaling"] or {}).get("rope_type") == "yarn"} == {
        "gpt-oss",
        "DeepSeek-V3",
    }
    scaled = [c for c in n.configs if c["scaling"]]
    assert all(c["reads"] > 100_000 for c in scaled)  # "more than a hundred thousand"
    for c in n.configs:  # "the slowest pair takes longer than the whole text"
        assert c["slowest_turn"] > c["reads"], c["model"]
    # "Llama 3.1 scales by 8 yet reads 16 times further": the factor is not the stretch
    assert (n.llama31_factor, n.llama31_stretch) == (8, 16)
    assert by_model["Llama 3.1"]["rope_theta"] == 500_000
    assert n.code_llama_stretch == 4  # the table's lengths: trained on 4 times longer texts
    for lang in ("en", "zh"):  # the voice names the models as the table spells them
        line = say.lines(SLUG, lang, Params())
        for model in ("Llama 2", "Code Llama", "Llama 3.1", "gpt-oss", "DeepSeek-V3"):
            assert model in line["configs"], (lang, model)
        assert "GPT-OSS" not in line["configs"]
        stretch = {
            "en": "scales by 8 yet reads 16 times further",
            "zh": "倍数为 8，上下文却长了 16 倍",
        }
        assert stretch[lang] in line["configs"]
        assert "Llama 3 " not in line["llama3"] + line["configs"]  # the rule came with 3.1
        assert "Llama 3.1" in ui(lang, "rule_llama3")
        # the table names the rule by its rope_type in config.json, not as a model
        assert ui(lang, "name_llama3", f=8) == "llama3 ×8"
        # every remedy also trains at the longer length: the voice says so, once
        longer = {"en": "longer training does the rest", "zh": "其余靠更长的训练"}[lang]
        assert longer in line["takeaway"]
        assert not any(longer in line[b] for b in line if b != "takeaway")
    # Llama 2's slowest pair: 2π · 10000^(63/64)
    assert by_model["Llama 2"]["slowest_turn"] == pytest.approx(2 * math.pi * 1e4 ** (63 / 64))


# --------------------------------------------------------------- narration
def test_the_narration_follows_the_knobs():
    before = {lang: say.lines(SLUG, lang, Params()) for lang in ("en", "zh")}
    after = {lang: say.lines(SLUG, lang, CHANGED) for lang in ("en", "zh")}
    n = LongContext.numbers(CHANGED)
    for lang in ("en", "zh"):
        for beat in ("ladder", "unseen", "pi", "ntk", "yarn", "llama3"):
            assert after[lang][beat] != before[lang][beat], (lang, beat)
        line = after[lang]
        assert f"{n.lapped} " in line["ladder"] and f"{n.unfinished} " in line["ladder"]
        assert degrees_said(n.seen_deg, 0, lang) in line["unseen"]
        assert f"{n.step_deg['pi']:.1f} " in line["pi"]
        blended = {"en": f" {n.yarn_blended} pairs in between", "zh": f"，{n.yarn_blended} 对居中"}
        assert blended[lang] in line["yarn"]
    assert "32 times as far" in after["en"]["unseen"] and "65536" not in after["en"]["unseen"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_narration_picks_the_sentence_the_numbers_support(lang):
    wraps = say.lines(SLUG, lang, CASES["factor 16: the slowest pair wraps"])["unseen"]
    arc = say.lines(SLUG, lang, Params())["unseen"]
    assert LongContext.numbers(Params()).lines["unseen"] == "arc"
    assert ("8 times as far" if lang == "en" else "要转 8 倍") in arc
    far = LongContext.numbers(CASES["factor 16: the slowest pair wraps"]).target_deg["rope"]
    assert far > 360 and f"{far:.0f}" not in wraps  # past a full turn it names no angle
    assert wraps != arc
    short = CASES["short training: no pair turns 32 times"]
    tiny = LongContext.numbers(short)
    assert tiny.seen_deg < 0.5  # said as less than a degree, never as 0
    assert ("less than 1 degree" if lang == "en" else "不到 1 度") in say.line(
        lang, SLUG, "unseen", short
    )
    slowest = "slowest" if lang == "en" else "最慢"
    for beat in ("pi", "ntk", "yarn", "llama3"):  # where training left it: no number to round
        parts = re.split(r"[,;:.，；：。]", say.line(lang, SLUG, beat, short))
        said_of_slowest = [part for part in parts if slowest in part]
        assert not any(re.search(r"\d", x) for x in said_of_slowest), beat
        # PI, NTK-aware scaling and Llama 3 say where the slowest pair stops; YaRN's
        # dials move as its divided pairs are named
        assert said_of_slowest or beat == "yarn", beat
    one = CASES["one slow pair only"]
    assert LongContext.numbers(one).lines["ntk"] == "none"
    assert say.lines(SLUG, lang, one)["ntk"] != say.lines(SLUG, lang, Params())["ntk"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_narrow_head_counts_its_pairs_and_names_the_angle_it_passes(lang):
    # rope_head_dim=8: one slow pair, one blended by YaRN, and 235 of 360 degrees seen
    p = Params(rope_head_dim=8)
    n = LongContext.numbers(p)
    line = say.lines(SLUG, lang, p)
    assert (n.unfinished, n.yarn_blended, n.lines["unseen"]) == (1, 1, "wraps")
    assert f"{n.seen_deg:.0f}" == "235"
    if lang == "en":
        assert "1 pair above it never finishes" in line["ladder"]
        assert "1 pair in between moves" in line["yarn"]
        assert "training took it 235 degrees" in line["unseen"]
        assert "never showed the angles from where it stopped to a full turn" in line["unseen"]
        assert "all the way round" in line["unseen"] and "most" not in line["unseen"]
        assert not re.search(r"\b1 pairs\b", " ".join(line.values()))
    else:
        assert "线上 1 对没转满" in line["ladder"] and "，1 对居中" in line["yarn"]
        assert "只转过 235 度" in line["unseen"] and "从训练停下的角度到转满一圈" in line["unseen"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_one_position_past_training_claims_nothing_new_or_sharper(lang):
    # target_len=4097: the dials read 27° and 27°, the factor and temperature round to 1
    p = Params(target_len=4097)
    n = LongContext.numbers(p)
    line = say.lines(SLUG, lang, p)
    assert n.lines["unseen"] == "hair" and n.lines["yarn"] == "all_flat"
    assert f"{n.seen_deg:.0f}" == f"{n.target_deg['rope']:.0f}" == "27" and n.past_deg < 1
    assert f"{n.ntk_slowdown:g}" == "1.00024"
    temperature = n.yarn_temperature_said
    if lang == "en":
        assert "the slowest slows by the same factor" in line["ntk"]
        assert "1 times" not in line["ntk"] and "exactly" not in line["ntk"]
        assert f"here by {temperature}: too near 1 to change the scores" in line["yarn"]
        assert "larger" not in line["yarn"] and "never" not in line["unseen"]
    else:
        assert "最慢的慢了同样倍数" in line["ntk"]
        assert "几乎不改变注意力分数" in line["yarn"] and "变大" not in line["yarn"]
        assert "没见过" not in line["unseen"]
    # on screen: the note under the dials says a hair, and the takeaway names no new angle
    assert "hair" in ui("en", "note_unseen_hair") and "一丝" in ui("zh", "note_unseen_hair")
    takeaway = catalogue.lookup(lang, SLUG, "takeaway")
    assert "never" not in takeaway and "没见过" not in takeaway
    assert takeaway == say.lines(SLUG, lang, p)["takeaway"]


def _sweep() -> list[Params]:
    """Heads, bases and lengths from the narrowest to a release's, each stretched from one
    position past its training length to a thousandfold."""
    cases = []
    for d, base, train in itertools.product((8, 16, 128), (500.0, 1e4, 5e5), (16, 1000, 4096)):
        for target in sorted(
            {train + 1, train + train // 500 + 1, 2 * train, 16 * train, 1000 * train}
        ):
            with contextlib.suppress(ParamError):  # a base too small for the training length
                cases.append(
                    Params(train_len=train, target_len=target, rope_base=base, rope_head_dim=d)
                )
    return cases


def degrees_said(x: float, decimals: int, lang: str) -> str:
    """An angle as the voice should say it, worked out here: to `decimals` places, "less
    than" the last place when it rounds to nothing, with the unit agreeing."""
    text = f"{x:.{decimals}f}"
    if float(text) == 0 and x > 0:
        text = ("less than " if lang == "en" else "不到 ") + f"{10.0**-decimals:.{decimals}f}"
    if lang == "zh":
        return f"{text} 度"
    return f"{text} {'degree' if text.split()[-1] == '1' else 'degrees'}"


def zh_joined(template: str, said: str) -> str:
    """`said` in its place, as the Chinese voice joins a bound to its verb (只剩不到 …)."""
    return speaker("zh").format(template, said)


def unfinished_past(p: Params) -> float:
    """Degrees the unfinished pair that moves most turns past its trained angle, by hand."""
    theta = speeds(p.rope_head_dim, p.rope_base)
    slow = theta[p.train_len * theta < 2 * math.pi]
    return math.degrees(slow.max() * (p.target_len - p.train_len))


@pytest.mark.parametrize(
    "p", _sweep(), ids=lambda p: f"d{p.rope_head_dim}-b{p.rope_base:g}-{p.train_len}-{p.target_len}"
)
def test_every_long_context_line_is_true_from_one_position_past_training(p):
    check_lines(p)


# the knob sets a careful reader flagged, and the edges of the knobs this chapter reads
EDGES = [
    *EXAMPLES,
    {"train_len": 16, "target_len": 17},
    {"rope_base": 1e6},
    {"rope_base": 1e9},
    {"rope_head_dim": 8},
    {"rope_head_dim": 512},
    {"rope_head_dim": 512, "rope_base": 1e9, "train_len": 16, "target_len": 32},
    {"rope_head_dim": 8, "rope_base": 1e9, "train_len": 32768, "target_len": 100_000_000},
    {"rope_head_dim": 8, "rope_base": 1e6, "train_len": 8192, "target_len": 65536},
    {"train_len": 10_000_000, "target_len": 100_000_000, "rope_base": 1e9},
]


at_edges = examples_at(EDGES)


@settings(max_examples=25, deadline=None)
@given(params=any_knobs())
@at_edges
def test_every_long_context_line_is_true_at_any_knobs(params):
    check_lines(params)
    for lang in ("en", "zh"):  # and says its numbers plainly: no "1 degrees", no "0.0"
        for beat, text in say.lines(SLUG, lang, params).items():
            assert problems(text, lang) == [], (beat, text)


@settings(max_examples=25, deadline=None)
@given(params=any_knobs())
@at_edges
def test_the_chapter_names_the_need_it_is_about(params):
    # say.unseen: the need of codes seen in training, by its name on the list (common
    # ui.short_seen_length); an ordinal, if any, must be its place there (the sixth, not
    # the second, which is "bounded")
    place = pm.REQUIREMENTS.index("seen_length")
    ordinals = {
        "en": ("first", "second", "third", "fourth", "fifth", "sixth", "seventh"),
        "zh": ("第一", "第二", "第三", "第四", "第五", "第六", "第七"),
    }
    for lang in ("en", "zh"):
        unseen = say.line(lang, SLUG, "unseen", params)
        name = catalogue.lookup(lang, "common", "ui.short_seen_length")
        assert name in unseen, unseen
        said = [i for i, word in enumerate(ordinals[lang]) if word in unseen.lower()]
        assert said in ([], [place]), unseen


def softmax(scores: np.ndarray) -> np.ndarray:
    weights = np.exp(scores - scores.max())
    return weights / weights.sum()


def check_yarn_temperature(t: float, factor: float) -> None:
    """YaRN's temperature, by hand: cos and sin times t turn q and k into t·R q and t·R k,
    so every score q·k grows t² times; scores over more tokens spread the softmax thinner
    (each weight falls), and t² > 1 sharpens it again (the top weight rises)."""
    rng = np.random.default_rng(0)
    q, k = rng.normal(size=(2, 16))
    angles = rng.uniform(0, 2 * np.pi, size=(2, 8))

    def turned(x: np.ndarray, a: np.ndarray, scale: float) -> np.ndarray:
        cos, sin = scale * np.cos(a), scale * np.sin(a)
        x = x.reshape(-1, 2)
        return np.column_stack([x[:, 0] * cos - x[:, 1] * sin, x[:, 0] * sin + x[:, 1] * cos])

    plain = np.sum(turned(q, angles[0], 1.0) * turned(k, angles[1], 1.0))
    scaled = np.sum(turned(q, angles[0], t) * turned(k, angles[1], t))
    assert scaled == pytest.approx(t**2 * plain)
    short = 64
    scores = rng.normal(size=short * min(math.ceil(factor), 1024) + 1)
    few, many = softmax(scores[:short]), softmax(scores)
    assert np.all(many[:short] < few)  # more tokens: every weight thinner
    if t > 1:
        assert softmax(t**2 * scores).max() > many.max()  # t² sharpens the softmax


def check_lines(p: Params) -> None:
    """The lines checked against numbers worked out here: the angles, the steps, the counts."""
    theta = speeds(p.rope_head_dim, p.rope_base)
    seen, reach = (math.degrees(theta[-1] * length) for length in (p.train_len, p.target_len))
    factor = p.target_len / p.train_len
    step, crowded = math.degrees(theta[0]), math.degrees(theta[0] / factor)
    turns = turns_in_training(p)
    lapped, unfinished = int(np.sum(turns >= 1)), int(np.sum(turns < 1))
    temperature = 0.1 * math.log(factor) + 1  # YaRN's, as transformers sets it
    n = LongContext.numbers(p)
    en = say.lines(SLUG, "en", p)
    zh = say.lines(SLUG, "zh", p)
    assert not any("{" in line for line in [*en.values(), *zh.values()])

    unseen = en["unseen"]
    if unfinished_past(p) < 1:  # every pair a hair past its trained angle: nearly all seen
        assert "only a hair further" in unseen and "never" not in unseen
        assert "只多转了一丝" in zh["unseen"] and "没见过" not in zh["unseen"]
    elif reach >= 360:
        assert "all the way round" in unseen and "转过了一整圈" in zh["unseen"]
        assert "never showed the angles from where it stopped to a full turn" in unseen
        assert "从训练停下的角度到转满一圈，模型从没见过" in zh["unseen"]
    else:
        assert f"the target length, {factor:g} times as far." in unseen
        assert f"到目标长度要转 {factor:g} 倍。" in zh["unseen"]
    assert f"training took it {degrees_said(seen, 0, 'en')};" in unseen
    assert zh_joined("只转过 {}", degrees_said(seen, 0, "zh")) in zh["unseen"]
    assert "most of" not in unseen  # it names the angle, never a share it cannot back
    # the chapter is the story of the need "seen in training": said plainly, with its
    # place on the list, once in the chapter and in both languages
    assert unseen.endswith("this chapter is about the sixth need, codes seen in training.")
    assert zh["unseen"].endswith("本节讲第六条：训练中见过。")
    for lines, need in ((en, "sixth need"), (zh, "第六条")):
        assert [beat for beat, text in lines.items() if need in text] == ["unseen"]

    said_step, said_crowded = f"{step:.1f}", f"{crowded:.1f}"
    assert f"turns {said_step} degrees" in en["pi"] and f"{said_step} 度" in zh["pi"]
    if said_crowded != said_step:
        assert f"shrink to {degrees_said(crowded, 1, 'en')}," in en["pi"]
        assert zh_joined("只剩 {}", degrees_said(crowded, 1, "zh")) in zh["pi"]
    # crowded steps are new to the model: it is fine-tuned to read them
    assert ("fine-tuned on long texts" in en["pi"]) == (said_crowded != said_step)
    assert ("用长文本微调" in zh["pi"]) == (said_crowded != said_step)

    # NTK-aware scaling slows the slowest pair by the factor itself: said so, not rounded
    assert n.ntk_slowdown == pytest.approx(factor)
    assert "slows by the same factor" in en["ntk"] and "最慢的慢了同样倍数" in zh["ntk"]
    still = n.unseen["ntk"]
    if still:
        reach = "1 still reaches" if still == 1 else f"{still} still reach"
        assert f"Middle pairs slow less: {reach} unseen angles." in en["ntk"]
        assert f"中间的慢得少，{still} 对仍转到没见过的角度。" in zh["ntk"]
    else:
        assert "none leaves the range" in en["ntk"] and "都没超出" in zh["ntk"]
    assert not re.search(r"\b1 times\b", en["ntk"]) and "慢了 1 倍" not in zh["ntk"]

    said_t = n.yarn_temperature_said
    assert n.yarn_temperature == pytest.approx(temperature)
    assert float(said_t) > 1 and float(said_t) == pytest.approx(temperature, rel=0.006)
    # why YaRN scales cos and sin: over more tokens the softmax spreads thinner, and a
    # factor t on cos and sin multiplies every score by t², which sharpens it again
    assert "Over more tokens, attention spreads thinner." in en["yarn"]
    assert "词一多，注意力容易摊薄" in zh["yarn"]
    check_yarn_temperature(temperature, factor)
    # a temperature the voice reads as 1.00 at two decimals changes no score it could hear
    if f"{temperature:.2f}" != "1.00":
        said = "every score by its square, to sharpen it again; the factor is empirical."
        assert f"So YaRN scales cos and sin by {said_t}, {said}" in en["yarn"]
        said = "分数乘上它的平方，注意力重新集中；系数是经验值。"
        assert f"所以 cos 和 sin 再乘 {said_t}，{said}" in zh["yarn"]
    else:
        assert f"here by {said_t}: too near 1 to change the scores." in en["yarn"]
        assert f"这里只乘以 {said_t}，几乎不改变注意力分数。" in zh["yarn"]
        assert "square" not in en["yarn"] and "平方" not in zh["yarn"]

    # a count agrees with its noun and verb, and none is said as none
    assert n.lapped == lapped and n.unfinished == unfinished
    for count, one, many in (
        (lapped, "1 pair below it turns", f"{lapped} pairs below it turn"),
        (unfinished, "1 pair above it never finishes", f"{unfinished} pairs above it never finish"),
    ):
        assert (one if count == 1 else many) in en["ladder"]
    blended = {0: "no pair in between moves", 1: "1 pair in between moves"}
    assert blended.get(n.yarn_blended, f"{n.yarn_blended} pairs in between move") in en["yarn"]
    assert ("中间没有别的对" in zh["yarn"]) == (n.yarn_blended == 0)
    assert not re.search(r"\b1 (slow )?pairs\b|\b0 pairs\b", " ".join(en.values()))
    note = catalogue.fill("en", SLUG, "ui.note_rope", n=unfinished)
    assert note.startswith(
        "1 slow pair never finishes" if unfinished == 1 else f"{unfinished} slow pairs never finish"
    )


# ----------------------------------------------------------------- knobs
@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"target_len": 4096}, "target_len=4096: must exceed train_len (4096)"),
        ({"rope_base": 100.0}, "rope_base=100.0: lets every RoPE pair finish a turn"),
        ({"rope_head_dim": 127}, "rope_head_dim=127"),
        ({"train_len": 8}, "train_len=8"),
    ],
)
def test_bad_knobs_are_one_line_naming_the_knob(changes, message):
    with pytest.raises(ParamError) as err:
        Params(**changes)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_every_rule_reads_the_lesson_knobs():
    p = CHANGED
    assert scaling_for("rope", p) is None and scaling_for("ntk", p) is None
    for rule in ("pi", "yarn", "llama3"):
        assert scaling_for(rule, p)["factor"] == 32
    assert scaling_for("yarn", p)["original_max_position_embeddings"] == 2048
    assert set(RULES) == set(LongContext.numbers(p).target_deg)


# ------------------------------------------------------------------ layout
def check_screen(report, params: Params, lang: str) -> None:
    n = LongContext.numbers(params)
    seen = {beat: squash(words) for beat, words in report.words_at_start.items()}
    assert squash(ui(lang, "note_rope", n=n.unfinished)) in seen["unseen"]
    assert squash(ui(lang, "train_line", n=compact(n.train_len))) in seen["unseen"]
    assert squash(ui(lang, "target_line", n=compact(n.target_len))) in seen["pi"]
    assert squash(ui(lang, "slowest", i=n.pairs - 1)) in seen["pi"]
    # a target a hair past training: the note says a hair, not angles never shown
    unseen = "note_unseen_hair" if n.lines["unseen"] == "hair" else "note_unseen"
    assert squash(ui(lang, unseen)) in seen["pi"]
    note = "note_pi" if n.lines["pi"] == "crowd" else "note_pi_slight"
    pi = ui(lang, note, a=fmt(n.step_deg["rope"], 1), b=fmt(n.step_deg["pi"], 1))
    assert squash(pi) in seen["ntk"]
    assert squash(ui(lang, "note_ntk", b=compact(n.ntk_base))) in seen["yarn"]
    yarn = ui(
        lang,
        "note_yarn",
        k=n.yarn_kept,
        b=n.yarn_blended,
        v=n.yarn_divided,
        t=n.yarn_temperature_said,
    )
    assert squash(yarn) in seen["llama3"]
    llama = ui(lang, "note_llama3", a=compact(n.llama_short), b=compact(n.llama_long))
    assert squash(llama) in seen["configs"]
    for c in n.configs:
        assert squash(c["model"]) in seen["takeaway"]
        assert compact(c["slowest_turn"]) in seen["takeaway"]


@pytest.mark.parametrize(
    ("case", "lang"),
    [
        ("defaults", "en"),
        ("defaults", "zh"),
        ("changed", "en"),
        ("one position past training", "zh"),
    ],
)
def test_builds_clean_and_shows_its_numbers(case, lang):
    params = CASES[case]
    scene, report = build_scene(LongContext, params, lang)
    report.assert_clean()
    report.assert_readable()
    report.assert_fills_the_stage()
    assert [b for b, _ in scene.beats] == BEATS
    assert report.fields_read <= {"train_len", "target_len", "rope_base", "rope_head_dim"}
    check_screen(report, params, lang)


@pytest.mark.parametrize(("aspect", "lang"), [("9:16", "zh"), ("1:1", "en")])
def test_other_frames_compose(aspect, lang):
    _, report = build_in(LongContext, aspect, lang)
    report.assert_clean()
    report.assert_readable()
    report.assert_fills_the_stage()
    check_screen(report, Params(), lang)
