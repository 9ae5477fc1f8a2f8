"""The recap: the numbers of its pictures, one per need of pe_math.REQUIREMENTS, its
layout in both languages, and every claim its captions make, at the defaults and other knobs."""

import functools
import re

import numpy as np
import pytest
from hypothesis import given, settings

import pe_math as pm
from lesson import say
from lesson.catalogue import lookup
from lesson.facts import GPT2_POSITIONS, GPT2_WIDTH
from lesson.text_layout import sentences
from pe_math import Params
from rendering.draw.motion import MOST_STILL, still_runs
from scenes.chapters.recap.scene import (
    BINARY_BITS_SHOWN,
    DIGITS,
    MAX_SIN_BARS,
    Recap,
    probe_position,
)
from scenes.kit.components import compact
from scenes.kit.theme import fmt
from tests.scene_tools import (
    bits,
    build_in,
    build_scene,
    catalogue_ui,
    omegas,
    pace_for,
    squash,
    with_pace,
)
from tests.test_knob_sweep import EXAMPLES, any_knobs, examples_at, problems

BEATS = [*pm.REQUIREMENTS, "checklist", "beyond", "takeaway"]
CHANGED = Params(d_model=16, base=100.0, learned_max_len=8, n_bits=6, max_len=40, int_position=120)
CASES = {
    "defaults": Params(),
    "d_model=16": Params(d_model=16),
    "base=100": Params(base=100.0),
    "learned_max_len=8": Params(learned_max_len=8),
    "n_bits=6": Params(n_bits=6),
    "changed": CHANGED,
    "concat,t2t": Params(layout="concat", variant="t2t", max_len=300, n_bits=9),
}

ui = catalogue_ui(Recap.slug)


# ----------------------------------------------------------------- by hand
def pe(params: Params, p: float) -> np.ndarray:
    """One PE row from the formula: sin/cos pairs, interleaved or concatenated."""
    w = omegas(params.d_model, params.base, params.variant)
    s, c = np.sin(p * w), np.cos(p * w)
    if params.layout == "concat":
        return np.concatenate([s, c])
    return np.ravel(np.column_stack([s, c]))


def table(params: Params, n: int) -> np.ndarray:
    return np.array([pe(params, p) for p in range(n)])


# ----------------------------------------------------------------- numbers
@pytest.mark.parametrize("case", list(CASES))
def test_numbers_match_an_independent_computation(case):
    params = CASES[case]
    nums = Recap.numbers(params)
    d, n_pos, L = params.d_model, params.max_len, params.learned_max_len
    t = table(params, n_pos)
    # unique
    assert nums.unique_codes == len({tuple(np.round(row, 9)) for row in t})
    # bounded
    assert nums.n_values == n_pos * d
    assert nums.pe_min == pytest.approx(t.min(), abs=1e-12)
    assert nums.pe_max == pytest.approx(t.max(), abs=1e-12)
    assert nums.int_position == params.int_position
    assert nums.int_value == params.int_position
    # 2. smooth: PE steps, binary steps and the all-bits cliff
    steps = np.linalg.norm(np.diff(table(params, max(n_pos, 2)), axis=0), axis=1)
    np.testing.assert_allclose(nums.sin_steps, steps[:MAX_SIN_BARS], atol=1e-12)
    w = omegas(d, params.base, params.variant)
    assert nums.sin_step == pytest.approx(np.sqrt(2 * (1 - np.cos(w)).sum()))
    n = params.n_bits
    shown = 2 ** min(n, BINARY_BITS_SHOWN)
    want = [np.linalg.norm(bits(p + 1, n) - bits(p, n)) for p in range(shown - 1)]
    top = 2 ** (n - 1)
    assert nums.cliff == [top - 1, top]
    assert nums.cliff_flips == n
    assert nums.cliff_distance == pytest.approx(np.sqrt(n))
    assert nums.bin_first == 1.0 and nums.cliff_ratio == pytest.approx(np.sqrt(n))
    assert nums.bin_steps[: shown - 1] == list(range(shown - 1))
    np.testing.assert_allclose(nums.bin_heights[: shown - 1], want)
    # shift map: the fastest and the slowest pair
    assert nums.shift_omegas == pytest.approx([w.max(), w.min()])
    # nothing to train
    assert nums.learned_params == L * d and nums.sin_params == 0
    assert nums.gpt2_params == 786_432 == GPT2_POSITIONS * GPT2_WIDTH
    # seen in training: each formula's slowest pair's turn within train_len, T·ω
    T = params.train_len
    assert nums.train_len == T and nums.pairs == d // 2
    assert nums.slow_turn_deg == pytest.approx(np.degrees(T * w.min()))
    assert nums.unturned == int((T * w < 2 * np.pi).sum())
    theta = rope_speeds(params)
    assert nums.rope_head_dim == params.rope_head_dim and nums.rope_pairs == len(theta)
    assert nums.rope_turn_deg == pytest.approx(np.degrees(T * theta.min()))
    assert nums.rope_unturned == int((T * theta < 2 * np.pi).sum())
    assert nums.binary_codes == 2**params.n_bits
    # any length
    assert nums.probe == L + max(1, L // 4) > L - 1
    np.testing.assert_allclose(nums.pe_probe, pe(params, nums.probe), atol=1e-12)
    assert nums.learned_raises
    # the formula's table, kept for the numbers' readers
    assert nums.table_shape == [n_pos, d] and nums.table_values == n_pos * d
    assert nums.table_error < 1e-12
    np.testing.assert_allclose(
        nums.heat, t[np.ix_(nums.heat_positions, nums.heat_dims)].T, atol=1e-12
    )
    # the checklist: pe_math's verdict on every scheme
    assert nums.needs == list(pm.REQUIREMENTS) and nums.n_schemes == len(pm.SCHEMES)
    for scheme, verdict in pm.verdicts(params).items():
        assert nums.checks[scheme] == verdict.checks
        assert nums.misses[scheme] == len(pm.REQUIREMENTS) - verdict.met
    for need in pm.REQUIREMENTS:
        assert nums.met_by[need] == sum(nums.checks[s][need] for s in pm.SCHEMES)


def test_defaults_tell_the_recap_story():
    nums = Recap.numbers(Params())
    assert (fmt(nums.pe_min, DIGITS), fmt(nums.pe_max, DIGITS)) == ("−1.00", "1.00")
    assert nums.int_value == 300
    assert nums.sin_step == pytest.approx(0.9641, abs=1e-4)
    assert nums.cliff == [7, 8] and nums.cliff_flips == 4 and nums.cliff_distance == 2.0
    assert nums.learned_params == 128 and nums.probe == 20
    assert nums.misses == {"integer": 3, "binary": 4, "sinusoid": 1, "learned": 5, "rope": 1}
    assert round(nums.slow_turn_deg) == 235 and nums.unturned == 1 and nums.pairs == 4
    assert round(nums.rope_turn_deg) == 27 and nums.rope_unturned == 18
    assert nums.lines == {
        "unique": "all",
        "smooth": "jump",
        "seen_length": "unturned",
        "checklist": "map",
        "beyond": "seen",
    }


def test_numbers_follow_the_params():
    base = Recap.numbers(Params())
    for changed in (
        Params(d_model=16),
        Params(base=100.0),
        Params(learned_max_len=8),
        Params(n_bits=6),
        Params(max_len=40),
        Params(int_position=120),
        Params(layout="concat"),
        Params(variant="t2t"),
        Params(train_len=6300),
    ):
        assert Recap.numbers(changed) != base, changed


# ------------------------------------------------------------ on the screen
def expected_words(params: Params, lang: str) -> dict[str, list[str]]:
    """Per beat, the words that must be on screen when it starts (the picture before it)."""
    nums = Recap.numbers(params)
    head = ", ".join(fmt(v, DIGITS) for v in nums.pe_probe[:2]) + ", …"
    return {
        "bounded": [ui(lang, "unique_sin", N=params.max_len, k=nums.unique_codes)],
        "smooth": [
            ui(
                lang,
                "bounded_range",
                n=f"{nums.n_values:,}",
                lo=fmt(nums.pe_min, DIGITS),
                hi=fmt(nums.pe_max, DIGITS),
            ),
            ui(lang, "bounded_int_at", p=params.int_position),
            compact(nums.int_value),
        ],
        "shift_map": [
            ui(lang, "smooth_sin", s=fmt(nums.sin_step, DIGITS)),
            ui(
                lang,
                "smooth_bin",
                a=nums.cliff[0],
                b=nums.cliff[1],
                s=fmt(nums.cliff_distance, DIGITS),
                r=fmt(nums.cliff_ratio, 1),
            ),
        ],
        "any_length": [ui(lang, "shift_turn"), f"ω = {compact(nums.shift_omegas[-1])}"],
        "seen_length": [
            ui(lang, "extra_value", p=nums.probe, v=head),
            ui(lang, "extra_fails", p=nums.probe),
            str(nums.probe),
            str(params.learned_max_len),
        ],
        "no_training": [
            ui(
                lang,
                "seen_sin",
                d=params.d_model,
                T=f"{nums.train_len:,}",
                a=min(nums.slow_turn_deg, 360),
            ),
            ui(lang, "seen_rope", r=params.rope_head_dim, b=nums.rope_turn_deg),
        ],
        "checklist": [
            ui(lang, "params_sin", k=0),
            ui(
                lang,
                "params_learned",
                L=params.learned_max_len,
                d=params.d_model,
                k=nums.learned_params,
            ),
            ui(lang, "params_gpt2", L="1,024", d=768, k="786,432"),
        ],
        # the one table: every need, every scheme and what each misses
        "takeaway": [lookup(lang, "common", f"ui.short_{r}") for r in pm.REQUIREMENTS]
        + [lookup(lang, "common", f"ui.{s}") for s in pm.SCHEMES]
        + [ui(lang, "missed", k=nums.misses[s]) for s in pm.SCHEMES],
    }


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("case", ["defaults", "changed"])
def test_builds_clean_and_shows_its_numbers(case, lang):
    params = CASES[case]
    scene, report = build_scene(Recap, params, lang)
    report.assert_clean()
    report.assert_readable()
    report.assert_fills_the_stage()
    assert [b for b, _ in scene.beats] == BEATS
    # each need is named over its picture while it is said
    for i, need in enumerate(pm.REQUIREMENTS):
        name = f"{i + 1}  " + lookup(lang, "common", f"ui.{need}")
        later = BEATS[i + 1]
        assert squash(name) in squash(report.words_at_start[later]), need
    for beat, words in expected_words(params, lang).items():
        seen = squash(report.words_at_start[beat])
        for w in words:
            assert squash(w) in seen, (beat, w)


def test_knobs_change_what_the_scene_reports():
    _, default = build_scene(Recap, Params(), "en")
    _, changed = build_scene(Recap, CHANGED, "en")
    for beat in ("bounded", "smooth", "shift_map", "seen_length", "no_training", "checklist"):
        assert default.words_at_start[beat] != changed.words_at_start[beat], beat
    words = squash(changed.words_at_start["shift_map"])
    assert squash("binary 31 → 32: step 2.45, 2.4 × the first") in words
    assert squash("learned: 8 × 16 = 128") in squash(changed.words_at_start["checklist"])
    assert squash("PE(10) =") in squash(changed.words_at_start["seen_length"])
    assert squash("integer scheme: position 120") in squash(changed.words_at_start["smooth"])


@pytest.mark.parametrize("aspect,lang", [("9:16", "en"), ("1:1", "zh"), ("1:1", "en")])
def test_other_frames_compose(aspect, lang):
    scene, report = build_in(Recap, aspect, lang)
    report.assert_clean()
    report.assert_readable()
    report.assert_fills_the_stage()
    assert [b for b, _ in scene.beats] == BEATS
    assert squash(ui(lang, "extra_value", p=20, v="0.91, 0.41, …")) in squash(
        report.words_at_start["seen_length"]
    )


# ------------------------------------------------- the captions' claims
@pytest.mark.parametrize("case", list(CASES))
def test_every_value_is_bounded_while_the_integer_scheme_is_not(case):
    # say.bounded: between minus one and one; the integer position runs into the hundreds
    params = CASES[case]
    t = pm.sinusoidal(np.arange(4096), params.d_model, params.base, params.layout, params.variant)
    assert np.abs(t).max() <= 1.0
    assert pm.integer_encoding([Params().int_position], params.d_model).max() >= 100


@pytest.mark.parametrize("case", list(CASES))
def test_every_step_moves_the_vector_by_the_same_distance(case):
    # say.smooth and ui.smooth_sin: "every step", over many positions
    params = CASES[case]
    t = table(params, 2000)
    steps = np.linalg.norm(np.diff(t, axis=0), axis=1)
    np.testing.assert_allclose(steps, steps[0], atol=1e-9)
    assert Recap.numbers(params).sin_step_spread < 1e-9


@pytest.mark.parametrize("n", range(2, 17))
def test_binary_jumps_worst_where_every_bit_flips(n):
    # say.smooth: the largest binary step is the one where all bits flip; at 4 bits, 7 → 8
    # is twice the first step
    p = np.arange(2**n)
    steps = pm.adjacent_distances(((p[:, None] >> np.arange(n)) & 1).astype(float))
    assert int(np.argmax(steps)) == 2 ** (n - 1) - 1
    assert steps.max() == pytest.approx(np.sqrt(n)) and steps[0] == 1.0
    if n == 4:
        assert steps[7] == 2.0 == 2 * steps[0]


def test_the_formula_has_nothing_to_train_and_a_learned_table_has_every_entry():
    # say.no_training: a formula writes the table (no seed, same numbers every time);
    # the smallest GPT-2's table (1024 positions × 768 dims) holds over three quarters of
    # a million trained numbers, 七十八万多
    a = pm.sinusoidal(np.arange(64), 8)
    np.testing.assert_array_equal(a, pm.sinusoidal(np.arange(64), 8))
    assert not np.array_equal(pm.learned_table(16, 8, seed=0), pm.learned_table(16, 8, seed=1))
    entries = 1024 * 768
    assert (GPT2_POSITIONS, GPT2_WIDTH) == (1024, 768) and entries == 786_432
    assert "over three quarters of a million" in say.line("en", "recap", "no_training")
    assert entries > 750_000
    assert "七十八万多" in say.line("zh", "recap", "no_training")
    assert 780_000 < entries < 790_000


@pytest.mark.parametrize("case", list(CASES))
def test_past_the_last_row_the_lookup_fails_and_the_formula_gives_a_vector(case):
    # say.extrapolate and ui.extra_fails
    params = CASES[case]
    L = params.learned_max_len
    probe = probe_position(L)
    learned = pm.learned_table(L, params.d_model)
    assert pm.learned_lookup(learned, [L - 1]).shape == (1, params.d_model)
    for p in (L, probe):
        with pytest.raises(pm.PositionOutOfRange):
            pm.learned_lookup(learned, [p])
    far = pm.sinusoidal([probe, 10 * L, 100_000], params.d_model, params.base)
    assert np.all(np.isfinite(far)) and np.abs(far).max() <= 1.0


# --------------------------------------------------- the spoken lines at every knob
SWEEP = {
    **CASES,
    "n_bits=1": Params(n_bits=1),
    "d_model=2": Params(d_model=2),
    "d_model=64,rows=40": Params(d_model=64, learned_max_len=40),
    "learned_max_len=2": Params(learned_max_len=2),
    "learned_max_len=1": Params(learned_max_len=1),
    "train_len=6000": Params(train_len=6000),
    "train_len=6300": Params(train_len=6300),
    "base=500000": Params(base=500000.0),
}
# the knob sets a careful reader flagged, and the edges of the knobs these lines read
EDGES = [
    *EXAMPLES,
    {"max_len": 1, "n_bits": 1, "learned_max_len": 1},
    {"n_bits": 16, "max_len": 4096},
    {"int_position": 1_000_000},
    {"rope_base": 1e6},
    {"rope_base": 1e9},
    {"rope_head_dim": 8},
    {"rope_head_dim": 512},
    {"rope_head_dim": 512, "rope_base": 1e9, "train_len": 16, "target_len": 32},
    {"rope_head_dim": 8, "rope_base": 1e6, "train_len": 8192, "target_len": 65536},
    {"base": 1e9, "d_model": 512},
    {"d_model": 2, "learned_max_len": 2},
]
# how many of the five schemes meet a need, said in words as a teacher says it (worked out
# here by hand): in Chinese 五种里有四种做到, 五种都做到了, 一种也没做到; in English "None of
# the five", "Every one of the five", "Only one", or the count as a word opening the sentence
EN_WORDS = ("none", "one", "two", "three", "four", "five")
ZH_WORDS = ("零", "一", "两", "三", "四", "五")


def count_said(lang: str, need: str, met: int) -> str:
    """The words that open each need's counting sentence, for `met` of five schemes."""
    if lang == "zh":
        if met == 0:
            return "一种也没做到。"
        if met == 5:
            return "五种都做到了。"
        return "五种里只有一种做到。" if met == 1 else f"五种里有{ZH_WORDS[met]}种做到。"
    if need == "no_training":  # counted the other way round: the schemes needing none
        if met == 0:
            return "Each of the five has to be trained."
        if met == 5:
            return "None of the five need any."
    if met == 0:
        return "None of the five"
    if met == 5:
        return "Every one of the five"
    return "Only one" if met == 1 else EN_WORDS[met].capitalize()


ORDINALS = {
    "en": ("first", "second", "third", "fourth", "fifth", "sixth", "seventh"),
    "zh": ("第一", "第二", "第三", "第四", "第五", "第六", "第七"),
}
LANGS = ("en", "zh")


at_edges = examples_at(EDGES)


def rope_speeds(params: Params) -> np.ndarray:
    """The long-context chapter's RoPE head, by hand: θ_i = rope_base^(-2i/rope_head_dim)."""
    i = np.arange(params.rope_head_dim // 2, dtype=float)
    return params.rope_base ** (-2 * i / params.rope_head_dim)


def degrees_said(x: float, lang: str) -> str:
    """An angle in whole degrees as the voice says it, worked out here: "less than 1"
    when it rounds to nothing, the unit agreeing."""
    text = f"{x:.0f}"
    if text == "0" and x > 0:
        text = "less than 1" if lang == "en" else "不到 1"
    if lang == "zh":
        return f"{text} 度"
    return f"{text} {'degree' if text.split()[-1] == '1' else 'degrees'}"


def degrees_shown(x: float, lang: str) -> str:
    """An angle in whole degrees as the screen writes it: "less than 1°" for a sliver."""
    text = f"{x:.0f}"
    if text == "0" and x > 0:
        text = "less than 1" if lang == "en" else "不到 1"
    return f"{text}°"


@functools.lru_cache(maxsize=128)
def verdicts_at(params: Params) -> dict[str, pm.Verdict]:
    """pe_math's verdicts, worked out once per knob set."""
    return pm.verdicts(params)


def check_recap(params: Params) -> None:
    """Every recap line at `params`, in both languages, against numbers worked out here
    and pe_math's verdicts: each in one check, so a knob set is computed once."""
    said = {lang: say.lines("recap", lang, params) for lang in LANGS}
    for lang in LANGS:
        for beat, text in said[lang].items():  # plainly: no open slot, no "1 degrees"
            assert problems(text, lang) == [], (beat, text)
    verdicts = verdicts_at(params)
    missed = {s: {r for r, ok in v.checks.items() if not ok} for s, v in verdicts.items()}
    check_counts(params, said, missed)
    check_unique(params, said)
    check_bounded(params, said)
    check_smooth_and_length(params, said)
    check_rope_agrees(params, said, missed)
    check_said_once(params, said, missed)


def check_counts(params: Params, said: dict, missed: dict) -> None:
    """Each need's beat counts the schemes that meet it, the rows' counts agree, and
    each alternative is the one its numbers support."""
    for lang in LANGS:
        lines = said[lang]
        assert len(pm.SCHEMES) == 5  # "five" and 五种 are written into the lines
        for need in pm.REQUIREMENTS:
            met = sum(need not in missed[s] for s in pm.SCHEMES)
            # the counting sentence is the line's last, with no digit in it
            if lang == "en":
                last = lines[need].rsplit(". ", 1)[-1]
            else:
                last = lines[need].rstrip("。").rsplit("。", 1)[-1] + "。"
                last = last.removeprefix("在各自范围内，")
            assert last.startswith(count_said(lang, need, met)), (need, met, lines[need])
            assert not re.search(r"\d", last), (need, last)
        # the count row by row, and why a learned table's fixed map fits when it does
        counts = [int(x) for x in re.findall(r"\d+", lines["checklist"])]
        assert counts[:3] == [len(missed[s]) for s in ("integer", "binary", "learned")]
        rows = params.learned_max_len
        few = ("fluke of size" if lang == "en" else "恰好") in lines["checklist"]
        assert few == ("shift_map" not in missed["learned"])
        if few:  # one map fits L rows in d dims only while the rows are few
            assert 2 <= rows and rows - 1 <= params.d_model
            said_rows = [rows, params.d_model] if lang == "en" else [params.d_model, rows]
            assert counts[3:] == said_rows
        else:  # too many random rows for one map (L - 1 > d), or one row with no step
            assert rows == 1 or rows - 1 > params.d_model
            assert counts[3:] == []
        # binary's jump, named only where binary has one
        jump = ("jumps" if lang == "en" else "陡跳") in lines["smooth"]
        assert jump == ("smooth" in missed["binary"])


def check_unique(params: Params, said: dict) -> None:
    # say.unique: no two positions share a code over the positions a scheme covers. The
    # sinusoid's max_len codes are all different; binary's n bits give 2^n codes, all
    # different, and the next position repeats the first: the verdict ticks binary unique
    # and not "any length", and the line says where binary's codes start over.
    n, N = params.n_bits, params.max_len
    p = np.arange(2**n + 1)
    bits = ((p[:, None] >> np.arange(n)) & 1).astype(float)
    assert len(np.unique(bits[:-1], axis=0)) == 2**n
    np.testing.assert_array_equal(bits[-1], bits[0])
    checks = verdicts_at(params)["binary"].checks
    assert checks["unique"] and not checks["any_length"]
    w = omegas(params.d_model, params.base, params.variant)
    angles = np.arange(N)[:, None] * w
    codes = np.round(np.hstack([np.sin(angles), np.cos(angles)]), 9)
    assert len(np.unique(codes, axis=0)) == N  # the sinusoid repeats none
    en, zh = said["en"]["unique"], said["zh"]["unique"]
    if N == 1:
        assert "the sinusoid's 1 position has its own code" in en
        assert "正弦编码的 1 个位置有自己的编码" in zh
    else:
        assert f"the sinusoid's {N} positions all have different codes" in en
        assert f"正弦编码的 {N} 个位置编码各不相同" in zh
    bit = "1 bit covers" if n == 1 else f"{n} bits cover"
    assert f"binary's {bit} {2**n:,} before repeating" in en
    assert f"二进制的 {n} 位能分出 {2**n:,} 个编码，之后重复" in zh
    assert "that within their reach" in en and "在各自范围内" in zh


def check_bounded(params: Params, said: dict) -> None:
    # say.bounded: every sine value lies in [-1, 1]; the integer scheme's value is its
    # position, so it climbs at every step, from 0 (int_position may be 0: no number)
    d = params.d_model
    positions = np.arange(max(params.max_len, 2))
    w = omegas(d, params.base, params.variant)
    assert np.abs(np.sin(positions[:, None] * w)).max() <= 1
    ints = pm.integer_encoding(positions, d)
    assert np.all(np.diff(ints, axis=0) > 0) and ints[0].max() == 0
    met = sum(v.checks["bounded"] for v in verdicts_at(params).values())
    en, zh = said["en"]["bounded"], said["zh"]["bounded"]
    assert "sines stay between minus one and one" in en and "正弦值都在负一和一之间" in zh
    assert "the integer scheme climbs with every position" in en and "随位置一路增长" in zh
    # the count in words (check_counts), no digit
    assert not re.findall(r"\d", en) and not re.findall(r"\d", zh)
    assert count_said("en", "bounded", met) in en
    assert zh.endswith(count_said("zh", "bounded", met))


def check_smooth_and_length(params: Params, said: dict) -> None:
    # say.smooth: the sinusoid's steps are all equal (each pair turns by its own fixed
    # angle, so every step has the same length); binary jumps where every bit flips.
    # say.any_length: the formula writes a code past the learned table's last row.
    w = omegas(params.d_model, params.base, params.variant)
    p = np.arange(max(params.max_len, 2))[:, None] * w
    steps = np.linalg.norm(np.diff(np.hstack([np.sin(p), np.cos(p)]), axis=0), axis=1)
    np.testing.assert_allclose(steps, steps[0], atol=1e-9)
    assert "the sinusoid's steps are all equal" in said["en"]["smooth"]
    assert "正弦编码每一步都一样长" in said["zh"]["smooth"]
    n = params.n_bits
    if n > 1:  # 2^(n-1) − 1 → 2^(n-1) flips all n bits: √n, the largest binary step
        a, b = 2 ** (n - 1) - 1, 2 ** (n - 1)
        assert f"binary jumps from {a} to {b}." in said["en"]["smooth"]
        assert f"二进制从 {a} 到 {b} 却是陡跳" in said["zh"]["smooth"]
    else:
        assert "one bit gives binary a single step" in said["en"]["smooth"]
        assert "只有一位的二进制也只有一步" in said["zh"]["smooth"]
    L = params.learned_max_len
    probe = L + max(1, L // 4)
    assert probe >= L  # past the last row, L − 1
    rows = "1 row" if L == 1 else f"{L} rows"
    none = f"a code for position {probe}; a learned table of {rows} has none"
    assert none in said["en"]["any_length"]
    assert f"位置 {probe} 的编码，{L} 行的可学习位置表却没有" in said["zh"]["any_length"]


def check_rope_agrees(params: Params, said: dict, missed: dict) -> None:
    # say.seen_length (recap) against say.ladder and say.unseen (long-context): one RoPE,
    # the long-context chapter's head of rope_head_dim and rope_base. Pair i turns at
    # θ_i = rope_base^(-2i/rope_head_dim) and finishes a turn within train_len when
    # train_len·θ_i ≥ 2π; the sinusoid's pairs likewise at d_model and base. Each
    # sentence names the width it speaks of; the recap shows the angles its voice skips.
    T, r, d = params.train_len, params.rope_head_dim, params.d_model
    theta = rope_speeds(params)
    rope_unturned = int((T * theta < 2 * np.pi).sum())
    rope_deg = np.degrees(T * theta.min())
    w = omegas(d, params.base, params.variant)
    sin_unturned = int((T * w < 2 * np.pi).sum())
    sin_deg = np.degrees(T * w.min())
    assert rope_unturned >= 1  # the knobs refuse a RoPE base that turns every pair
    assert ("seen_length" in missed["rope"]) is (rope_unturned > 0) is True
    assert ("seen_length" in missed["sinusoid"]) == (sin_unturned > 0)
    nums = say.numbers_for("recap", params)
    assert nums.rope_unturned == rope_unturned == say.numbers_for("long-context", params).unfinished
    assert nums.rope_turn_deg == pytest.approx(rope_deg) and nums.unturned == sin_unturned
    for lang in LANGS:
        seen, beyond = said[lang]["seen_length"], said[lang]["beyond"]
        long_context = say.lines("long-context", lang, params)
        ladder, unseen = long_context["ladder"], long_context["unseen"]
        deg = re.escape(degrees_said(rope_deg, lang))
        # the picture under the recap's words: the same angle, as the long-context said it
        shown = ui(lang, "seen_rope", r=r, b=nums.rope_turn_deg)
        assert shown.startswith(str(r))
        assert re.search(rf"(?<![\d.]){re.escape(degrees_shown(rope_deg, lang))} ", shown)
        sin_shown = ui(lang, "seen_sin", d=d, T=f"{T:,}", a=min(nums.slow_turn_deg, 360))
        sin_said = degrees_shown(min(sin_deg, 360), lang)
        assert re.search(rf"(?<![\d.]){re.escape(sin_said)} ", sin_shown)
        if lang == "en":  # the same head, the same angle, in both chapters
            assert f"This {r}-dim RoPE head" in ladder
            assert re.search(rf"training took it {deg};", unseen), unseen
            assert re.search(rf"(?<!\d){rope_unturned} pairs? above it never finish", ladder)
            assert f"in {T} training positions" in seen
            if sin_unturned:
                heads = f"neither the {d}-dim sinusoid's slowest pair nor the {r}-dim RoPE head's"
                assert f"{heads} turns fully; past them, both reach new angles" in seen
            else:
                heads = f"every pair of the {d}-dim sinusoid turns fully, but not the {r}-dim"
                assert f"{heads} RoPE head's slowest; past them, it reaches new angles" in seen
        else:
            assert f"这个 {r} 维的 RoPE 头" in ladder
            assert re.search(rf"只转过 ?{deg}，", unseen), unseen
            assert f"线上 {rope_unturned} 对没转满" in ladder
            assert f"训练的 {T} 个位置里" in seen
            if sin_unturned:
                assert (
                    f"{d} 维正弦编码和 {r} 维 RoPE 头最慢的一对都没转满一圈；往后都是新角度" in seen
                )
            else:
                heads = f"{d} 维正弦编码每一对都转满了一圈；{r} 维 RoPE 头最慢的一对却没有"
                assert f"{heads}，往后它会转到新角度" in seen
        nothing = "misses none" if lang == "en" else "一条不缺"
        assert (nothing in beyond) == (sin_unturned == 0), beyond


def check_said_once(params: Params, said: dict, missed: dict) -> None:
    # the rows are counted once, integer, binary and learned in the checklist, the
    # sinusoid and RoPE in the beyond line, and the one need they may miss is said in the
    # takeaway alone, as the principle: a formula promises all the others. The sixth
    # need, as the list orders it, is codes seen in training.
    assert pm.REQUIREMENTS.index("seen_length") == 5
    # what a formula may miss is codes seen in training alone (the takeaway's "but one")
    assert missed["sinusoid"] <= {"seen_length"} and missed["rope"] == {"seen_length"}
    one_each = missed["sinusoid"] == {"seen_length"}
    for lang in LANGS:
        lines = said[lang]
        # each need's beat opens with its place on the list (the last with "Last")
        for i, need in enumerate(pm.REQUIREMENTS[:-1]):
            assert lines[need].lower().startswith(ORDINALS[lang][i]), (need, lines[need])
        last = "Last, nothing to train" if lang == "en" else "最后，无须训练"
        assert lines["no_training"].startswith(last)
        tally = lines["checklist"] + " " + lines["beyond"]
        if lang == "en":
            names = ("Integer positions", "binary", "learned table", "sinusoid", "RoPE")
            beyond = (
                "RoPE and the sinusoid miss one each, the same one."
                if one_each
                else "The sinusoid misses none, and RoPE one."
            )
            principle = "every need but one"
            why = "whether the model met its codes depends on training"
        else:
            names = ("整数位置", "二进制", "可学习位置表", "正弦编码", "RoPE")
            beyond = "正弦编码和 RoPE 各缺一条，缺的是同一条。"
            if not one_each:
                beyond = "正弦编码一条不缺，RoPE 缺一条。"
            principle = "只差一条"
            why = "编码见没见过，要看训练"
        assert [tally.count(name) for name in names] == [1] * len(names), tally
        assert lines["beyond"] == beyond
        # the fourth need maps codes, not positions: the code of p to the code of p plus k
        code_map = (
            "the code of p to that of p plus k" if lang == "en" else "把 p 的编码变成 p 加 k 的"
        )
        assert code_map in lines["shift_map"]
        # the principle once, in the takeaway, and no count or ordinal repeats it
        assert [b for b, t in lines.items() if principle in t] == ["takeaway"]
        assert why in lines["takeaway"]
        assert lookup(lang, "recap", "takeaway") == lines["takeaway"]  # shown as said
        for beat in ("checklist", "beyond", "takeaway"):
            assert not any(word in lines[beat].lower() for word in ORDINALS[lang]), beat
        assert not any(("every box" if lang == "en" else "全部打勾") in t for t in lines.values())


@pytest.mark.parametrize("case", list(SWEEP))
def test_every_recap_line_is_true_at_these_knobs(case):
    check_recap(SWEEP[case])


@settings(max_examples=12, deadline=None)
@given(params=any_knobs())
@at_edges
def test_every_recap_line_is_true_at_any_knobs(params):
    check_recap(params)


def test_zh_sentences_fit_a_breath_at_the_defaults():
    for beat, words in say.lines("recap", "zh", Params()).items():
        for sentence in sentences(words, "zh"):
            assert len(sentence) <= 50, (beat, sentence)


# ------------------------------------------------------------ motion while it speaks
RATE = {"en": 14.0, "zh": 5.5}  # characters a second: about a voice's pace


def spoken_timing(lang: str) -> tuple[dict[str, float], dict[str, list[tuple[float, float]]]]:
    """Each beat's seconds of speech and its sentences' spans, from the length of its words."""
    speech, spans = {}, {}
    for beat, words in say.lines("recap", lang, Params()).items():
        at, spans[beat] = 0.0, []
        for sentence in sentences(words, lang):
            spans[beat].append((at, at + len(sentence) / RATE[lang]))
            at = spans[beat][-1][1]
        speech[beat] = at
    return speech, spans


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_need_moves_while_it_is_said(lang):
    speech, spans = spoken_timing(lang)
    scene, _ = build_scene(Recap, Params(), lang, speech=speech, sentences=spans)
    # as rendered: the beats that play nothing with their sentences are paced to the speech
    plays, beats = with_pace(scene.plays, scene.beats, pace_for(scene.plays, speech))
    motion = still_runs(plays, beats, speech)
    assert motion.longest is None or motion.longest.seconds <= MOST_STILL, motion.longest
    assert motion.still_share < 0.1, motion.still_share
    # every need's picture moves through its sentences: no beat holds for half its speech
    for need in pm.REQUIREMENTS:
        held = sum(r.seconds for r in motion.runs if r.beat == need)
        assert held < speech[need] / 2, (need, held)
