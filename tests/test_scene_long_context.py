"""Scene 11, long-context: its numbers against a computation by hand, every claim its
captions make at the defaults and under a knob sweep, the knobs' errors, and its layout."""

from __future__ import annotations

import contextlib
import itertools
import math
import re

import numpy as np
import pytest

import pe_math as pm
from pe_math import ParamError, Params
from scenes import catalogue, facts, say
from scenes.components import compact
from scenes.long_context import RULES, LongContext, scaling_for
from scenes.theme import fmt
from tests.scene_tools import build_in, build_scene, catalogue_ui, squash

SLUG = LongContext.slug
BEATS = [
    "ladder",
    "unseen",
    "pi",
    "ntk",
    "yarn",
    "llama3",
    "decay",
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
    # the score bound as a share of its start, (d/2 + 1) / 2
    start = (d / 2 + 1) / 2
    m = 10 ** np.array(n.decay_log_distances)
    np.testing.assert_allclose(
        n.decay["rope"], pm.rope_score_decay(d, p.rope_base, m) / start, rtol=1e-9
    )
    assert n.decay_percent == pytest.approx(
        100 * pm.rope_score_decay(d, p.rope_base, [p.train_len])[0] / start
    )


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


@pytest.mark.parametrize("case", list(CASES))
def test_interpolation_slides_the_score_bound_right_by_the_factor(case):
    # say.decay: "the same drop takes target_len positions"; "the curve slides right"
    p = CASES[case]
    n = LongContext.numbers(p)
    assert n.pi_decay_at_target == pytest.approx(n.decay_at_train, rel=1e-9)
    m = np.array([1.0, 37.0, 500.0, float(p.train_len)])
    pi = pm.rope_score_decay(p.rope_head_dim, p.rope_base, m * n.factor, scaling_for("pi", p))
    np.testing.assert_allclose(pi, pm.rope_score_decay(p.rope_head_dim, p.rope_base, m))
    assert n.decay["rope"][0] < 1 and n.decay_at_train < 1  # it has fallen from its start


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
    # Llama 2's slowest pair: 2π · 10000^(63/64)
    assert by_model["Llama 2"]["slowest_turn"] == pytest.approx(2 * math.pi * 1e4 ** (63 / 64))


# --------------------------------------------------------------- narration
def test_the_narration_follows_the_knobs():
    before = {lang: say.lines(SLUG, lang, Params()) for lang in ("en", "zh")}
    after = {lang: say.lines(SLUG, lang, CHANGED) for lang in ("en", "zh")}
    n = LongContext.numbers(CHANGED)
    for lang in ("en", "zh"):
        for beat in ("ladder", "unseen", "pi", "ntk", "yarn", "llama3", "decay"):
            assert after[lang][beat] != before[lang][beat], (lang, beat)
        line = after[lang]
        assert f"{n.lapped} " in line["ladder"] and f"{n.unfinished} " in line["ladder"]
        assert f" {n.seen_said} " in line["unseen"]
        assert float(n.seen_said) == pytest.approx(n.seen_deg, rel=0.05)
        assert f"{n.step_deg['pi']:.1f} " in line["pi"]
        blended = {"en": f" {n.yarn_blended} pairs in between", "zh": f"，{n.yarn_blended} 对介于"}
        assert blended[lang] in line["yarn"]
        assert f"{n.decay_percent:.0f}" in line["decay"]
    assert "65536" in after["en"]["unseen"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_narration_picks_the_sentence_the_numbers_support(lang):
    wraps = say.lines(SLUG, lang, CASES["factor 16: the slowest pair wraps"])["unseen"]
    arc = say.lines(SLUG, lang, Params())["unseen"]
    assert LongContext.numbers(Params()).lines["unseen"] == "arc"
    assert f"{LongContext.numbers(Params()).target_deg['rope']:.0f}" in arc
    far = LongContext.numbers(CASES["factor 16: the slowest pair wraps"]).target_deg["rope"]
    assert far > 360 and f"{far:.0f}" not in wraps  # past a full turn it names no angle
    assert wraps != arc
    short = CASES["short training: no pair turns 32 times"]
    tiny = LongContext.numbers(short)
    assert tiny.seen_deg < 1 and tiny.seen_said == f"{tiny.seen_deg:.2g}" != "0"
    for beat in ("pi", "ntk", "yarn", "llama3"):  # "stops at the N degrees", N not 0
        assert f" {tiny.seen_said} " in say.lines(SLUG, lang, short)[beat], beat
    one = CASES["one slow pair only"]
    assert LongContext.numbers(one).lines["ntk"] == "none"
    assert say.lines(SLUG, lang, one)["ntk"] != say.lines(SLUG, lang, Params())["ntk"]


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


def said_as(x: float) -> str:
    return f"{x:.0f}" if x >= 10 else f"{x:.2g}"


@pytest.mark.parametrize(
    "p", _sweep(), ids=lambda p: f"d{p.rope_head_dim}-b{p.rope_base:g}-{p.train_len}-{p.target_len}"
)
def test_every_long_context_line_is_true_from_one_position_past_training(p):
    # the lines checked against numbers worked out here: the angles, the steps, the counts
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
    if reach >= 360:
        assert "all the way round" in unseen and "转过了一整圈" in zh["unseen"]
    elif said_as(reach) == said_as(seen):  # the voice would say the same angle twice
        assert "only a hair further" in unseen and "never" not in unseen
        assert "只多转了一丝" in zh["unseen"]
    else:
        assert (
            f"sweeps on to {said_as(reach)} degrees" in unseen
            and f"{said_as(reach)} 度" in zh["unseen"]
        )
    assert f"only ever swept {said_as(seen)} degrees" in unseen

    said_step, said_crowded = f"{step:.1f}", f"{crowded:.1f}"
    assert f"turns {said_step} degrees" in en["pi"] and f"{said_step} 度" in zh["pi"]
    assert f"only {said_crowded} degrees apart" in en["pi"] or said_crowded == said_step
    assert ("The price is crowding" in en["pi"]) == (said_crowded != said_step)
    assert ("代价是拥挤" in zh["pi"]) == (said_crowded != said_step)

    # NTK-aware scaling slows the slowest pair by exactly the factor, said as it is
    assert f"exactly {factor:g} times" in en["ntk"] and f"恰好慢了 {factor:g} 倍" in zh["ntk"]
    still = n.unseen["ntk"]
    if still == 1:
        assert "1 of them still reaches angles it never saw" in en["ntk"]
    elif still:
        assert f"{still} of them still reach angles they never saw" in en["ntk"]
    else:
        assert "none of them leaves" in en["ntk"]

    said_t = n.yarn_temperature_said
    assert n.yarn_temperature == pytest.approx(temperature)
    assert float(said_t) > 1 and float(said_t) == pytest.approx(temperature, rel=0.006)
    assert (
        f"multiplies cos and sin by {said_t}, which makes the attention scores larger" in en["yarn"]
    )
    assert f"乘以 {said_t}，让注意力分数变大" in zh["yarn"]

    # a count agrees with its noun and verb, and none is said as none
    assert n.lapped == lapped and n.unfinished == unfinished
    for count, one, many in (
        (lapped, "1 pair below it turns", f"{lapped} pairs below it turn"),
        (unfinished, "1 pair above it never finishes", f"{unfinished} pairs above it never finish"),
    ):
        assert (one if count == 1 else many) in en["ladder"]
    blended = {0: "no pair in between moves", 1: "1 pair in between moves"}
    assert blended.get(n.yarn_blended, f"{n.yarn_blended} pairs in between move") in en["yarn"]
    assert ("两者之间没有别的对" in zh["yarn"]) == (n.yarn_blended == 0)
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
    assert squash(llama) in seen["decay"]
    decay = ui(
        lang,
        "note_decay",
        a=fmt(n.decay_percent, 0),
        b=compact(n.train_len),
        c=compact(n.target_len),
    )
    assert squash(decay) in seen["configs"]
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
