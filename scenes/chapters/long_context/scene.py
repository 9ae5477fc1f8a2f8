"""long-context: RoPE read past its training length, and four ways to stretch it.

Every pair of a RoPE head turns at its own speed θ_i. The slow pairs never finish one turn
within the training length, so positions past it give them angles training never showed.
Position Interpolation divides every θ by the factor; NTK-aware scaling raises the base;
YaRN blends the two by how often a pair turns in training, with an attention temperature;
Llama 3.1's rule mixes them between two wavelength bounds. Then the rules released models
use (each of which also trains at the longer length). Every number comes from
pe_math.long_context through numbers().
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from manim import (
    DOWN,
    LEFT,
    ORIGIN,
    RIGHT,
    UP,
    AnimationGroup,
    Create,
    Dot,
    FadeIn,
    FadeOut,
    Indicate,
    LaggedStart,
    Succession,
    ValueTracker,
    VGroup,
    Write,
)

import pe_math as pm
from lesson import facts
from pe_math import Params
from pe_math.requirements import trained_angles, unturned_pairs
from scenes.kit import theme
from scenes.kit.base import LessonScene
from scenes.kit.components import (
    AngleDial,
    LiveNumber,
    Plot,
    bind_number,
    compact,
    panel,
    power_label,
)

RULES = ("rope", "pi", "ntk", "yarn", "llama3")
YARN_FAST = pm.long_context.YARN_BETA_FAST  # the turns in training above which YaRN keeps a pair
LLAMA3_LOW, LLAMA3_HIGH = 1.0, 4.0  # Llama 3.1's low_freq_factor and high_freq_factor
FLAT = f"{1:.2f}"  # a temperature the voice would read as this changes nothing it could hear
HAIR = 1.0  # degrees: a target that moves every unfinished pair less past training is a hair
COLORS = {"lapped": theme.WORD_A, "unfinished": theme.WORD_B}


def said_above_one(x: float) -> str:
    """A factor a little over 1 as the narration reads it: two decimals, or as many more as
    it takes not to read "1.00" (YaRN's temperature at a factor near 1 is 1.00002)."""
    digits = 2
    while f"{x:.{digits}f}" == f"{1:.{digits}f}" and digits < 9:
        digits += 1
    return f"{x:.{digits}f}"


def crossfade(old, new) -> AnimationGroup:
    """One line of words giving way to the next (cheaper than morphing glyph into glyph)."""
    return AnimationGroup(FadeOut(old, shift=0.15 * UP), FadeIn(new, shift=0.15 * UP))


def scaling_for(rule: str, params: Params) -> dict | None:
    """The rope_scaling config (transformers' keys) of `rule` at the lesson's knobs; None
    for plain RoPE and for NTK-aware scaling, which is a larger base instead."""
    factor = params.target_len / params.train_len
    original = {"factor": factor, "original_max_position_embeddings": params.train_len}
    return {
        "rope": None,
        "ntk": None,
        "pi": {"rope_type": "linear", "factor": factor},
        "yarn": {"rope_type": "yarn", **original},
        "llama3": {
            "rope_type": "llama3",
            "low_freq_factor": LLAMA3_LOW,
            "high_freq_factor": LLAMA3_HIGH,
            **original,
        },
    }[rule]


def ntk_base(params: Params) -> float:
    """NTK-aware scaling's base: raised so that the slowest pair turns `factor` times
    slower while the fastest keeps its speed, base · factor^(d/(d−2))."""
    d = params.rope_head_dim
    return params.rope_base * (params.target_len / params.train_len) ** (d / (d - 2))


def frequencies(rule: str, params: Params) -> tuple[np.ndarray, float]:
    base = ntk_base(params) if rule == "ntk" else params.rope_base
    return pm.rope_frequencies(params.rope_head_dim, base, scaling_for(rule, params))


@dataclass(frozen=True)
class Layout:
    """Where the ladder, the dials and the notes go in one frame shape."""

    ladder: tuple[float, float]  # its width and height (a phone has height to spare)
    dials_dir: np.ndarray  # the fast dial after the slow one
    dials_edge: np.ndarray
    body_dir: np.ndarray  # the dials after the ladder
    body_buff: float
    body_edge: np.ndarray
    note_spans_stage: bool  # a note as wide as the stage (else as the ladder and dials)
    dial_radius: float
    table_col_gap: float  # between the columns of the configurations table


LAYOUTS = {
    "wide": Layout(
        ladder=(7.4, 4.2), dials_dir=DOWN, dials_edge=LEFT, body_dir=RIGHT, body_buff=0.5,
        body_edge=UP, note_spans_stage=False, dial_radius=0.75, table_col_gap=0.45,
    ),
    "tall": Layout(
        ladder=(6.4, 5.4), dials_dir=RIGHT, dials_edge=UP, body_dir=DOWN, body_buff=0.4,
        body_edge=ORIGIN, note_spans_stage=True, dial_radius=0.7, table_col_gap=0.16,
    ),
    "square": Layout(
        ladder=(6.4, 3.6), dials_dir=RIGHT, dials_edge=UP, body_dir=DOWN, body_buff=0.4,
        body_edge=ORIGIN, note_spans_stage=True, dial_radius=0.7, table_col_gap=0.16,
    ),
}  # fmt: skip


@dataclass(frozen=True)
class LongContextNumbers:
    """Every number LongContext shows, computed by pe_math (JSON-ready)."""

    train_len: int
    target_len: int
    factor: float
    base: float
    head_dim: int
    pairs: int
    log_wavelengths: dict[str, list[float]]  # rule -> log10 of each pair's positions per turn
    lapped: int  # pairs that finish a turn within the training length (T·θ ≥ 2π)
    unfinished: int  # ... that do not: pe_math's verdict on RoPE counts the same pairs
    fast_turns: float  # turns the fastest pair makes within the training length
    unseen: dict[str, int]  # rule -> unfinished pairs whose angle at the target passes training's
    seen_deg: float  # the slowest pair's angle at the training length, as trained
    past_deg: float  # the most any unfinished pair turns past its trained angle, unscaled
    target_deg: dict[str, float]  # rule -> the slowest pair's angle at the target length
    step_deg: dict[str, float]  # rule -> the fastest pair's turn per position
    ntk_base: float
    ntk_slowdown: float  # how many times slower NTK-aware scaling turns the slowest pair
    yarn_kept: int  # pairs YaRN keeps as they were
    yarn_divided: int  # ... divides by the factor
    yarn_blended: int  # ... blends on its ramp
    yarn_bounds: list[int]  # the pair indices where the ramp starts and ends
    yarn_temperature: float
    yarn_temperature_said: str  # ... as the voice and the note say it, never "1.00"
    beta_fast: float
    beta_slow: float
    llama_short: float  # wavelengths below this are kept
    llama_long: float  # ... above this divided by the factor
    llama_kept: int
    llama_divided: int
    configs: list[dict]  # released models: the facts and the slowest pair's turn
    base_raise: float  # Code Llama's base over Llama 2's
    code_llama_stretch: float  # Code Llama's training length over Llama 2's
    llama31_factor: float  # Llama 3.1's rope_scaling factor ...
    llama31_stretch: float  # ... and how many times its training length it reads
    lines: dict[str, str]


class LongContext(LessonScene, layouts=LAYOUTS):
    """The ladder of RoPE's turns against the training length, and what each remedy does."""

    slug: ClassVar[str] = "long-context"

    # ------------------------------------------------------------------ numbers
    @classmethod
    def numbers(cls, params: Params) -> LongContextNumbers:
        d, base = params.rope_head_dim, params.rope_base
        train, target = params.train_len, params.target_len
        factor = target / train
        speeds = {rule: frequencies(rule, params) for rule in RULES}
        waves = {rule: 2 * np.pi / theta for rule, (theta, _) in speeds.items()}
        plain = speeds["rope"][0]
        unfinished = unturned_pairs("rope", params)  # the verdict's own count
        trained = trained_angles("rope", params)  # radians each pair sweeps in training
        fast_turns = float(trained[0] / (2 * np.pi))
        seen, reach = math.degrees(trained[-1]), math.degrees(plain[-1] * target)
        past = math.degrees(float(np.max(plain[trained < 2 * np.pi])) * (target - train))
        unseen = {
            rule: int(np.sum((trained < 2 * np.pi) & (theta * target > trained * (1 + 1e-9))))
            for rule, (theta, _) in speeds.items()
        }
        step = {rule: math.degrees(s[0][0]) for rule, s in speeds.items()}
        yarn = scaling_for("yarn", params)
        ramp = pm.yarn_ramp(d, base, yarn)
        low, high = (int(b) for b in pm.yarn_bounds(d, base, yarn))
        short, long_ = train / LLAMA3_HIGH, train / LLAMA3_LOW
        configs = []
        for c in facts.ROPE_CONFIGS:
            slowest = float(pm.rope_wavelengths(c["head_dim"], c["rope_theta"], c["scaling"])[-1])
            configs.append({**c, "slowest_turn": slowest})
        by_model = {c["model"]: c for c in facts.ROPE_CONFIGS}
        llama31 = by_model["Llama 3.1"]
        flat = f"{speeds['yarn'][1]:.2f}" == FLAT
        return LongContextNumbers(
            train_len=train,
            target_len=target,
            factor=factor,
            base=base,
            head_dim=d,
            pairs=d // 2,
            log_wavelengths={rule: np.log10(w).tolist() for rule, w in waves.items()},
            lapped=d // 2 - unfinished,
            unfinished=unfinished,
            fast_turns=fast_turns,
            unseen=unseen,
            seen_deg=seen,
            past_deg=past,
            target_deg={rule: math.degrees(s[0][-1] * target) for rule, s in speeds.items()},
            step_deg=step,
            ntk_base=ntk_base(params),
            ntk_slowdown=float(plain[-1] / speeds["ntk"][0][-1]),
            yarn_kept=int(np.sum(ramp == 1)),
            yarn_divided=int(np.sum(ramp == 0)),
            yarn_blended=int(np.sum((ramp > 0) & (ramp < 1))),
            yarn_bounds=[low, high],
            yarn_temperature=speeds["yarn"][1],
            yarn_temperature_said=said_above_one(speeds["yarn"][1]),
            beta_fast=YARN_FAST,
            beta_slow=pm.long_context.YARN_BETA_SLOW,
            llama_short=short,
            llama_long=long_,
            llama_kept=int(np.sum(waves["rope"] < short)),
            llama_divided=int(np.sum(waves["rope"] > long_)),
            configs=configs,
            base_raise=by_model["Code Llama"]["rope_theta"] / by_model["Llama 2"]["rope_theta"],
            code_llama_stretch=by_model["Code Llama"]["trained"] / by_model["Llama 2"]["trained"],
            llama31_factor=llama31["scaling"]["factor"],
            llama31_stretch=llama31["reads"] / llama31["trained"],
            lines={
                # just past the training length every unfinished pair moves on by a hair,
                # less than HAIR degrees past the angle training took it
                "unseen": "hair" if past < HAIR else "wraps" if reach >= 360 else "arc",
                # so little crowding that the fastest pair's step reads the same
                "pi": "crowd" if f"{step['pi']:.1f}" != f"{step['rope']:.1f}" else "slight",
                "ntk": "some" if unseen["ntk"] else "none",
                # a short training length can leave no pair turning within a quarter of it
                "llama3": "some" if int(np.sum(waves["rope"] < short)) else "none",
                # with no pair past beta_fast turns, YaRN's ramp starts at the fastest pair
                # ... and a temperature that rounds to 1 sharpens nothing
                "yarn": ("all" if fast_turns > YARN_FAST else "short") + ("_flat" if flat else ""),
            },
        )

    # ---------------------------------------------------------------- construct
    def construct(self) -> None:
        self.n = self.numbers(self.params)
        self.title_card()
        self.show_ladder()
        self.show_unseen()
        self.interpolate()
        self.raise_base()
        self.blend_yarn()
        self.smooth_llama()
        self.show_configs()
        self.takeaway()

    # ------------------------------------------------------------------- layout
    def build_stage(self) -> None:
        n = self.n
        layout = self.stage.layout
        self.heading = self.words.label("rule_rope", theme.BODY_SIZE, theme.ACCENT)
        self.ladder = self.build_ladder(*layout.ladder)
        self.dials = self.build_dials()
        self.dials.arrange(layout.dials_dir, buff=0.35, aligned_edge=layout.dials_edge)
        body = VGroup(self.ladder, self.dials)
        body.arrange(layout.body_dir, buff=layout.body_buff, aligned_edge=layout.body_edge)
        width = self.stage.width() if layout.note_spans_stage else body.width
        self.note = self.words.label("note_rope", theme.LABEL_SIZE, max_width=width, n=n.unfinished)
        self.page = VGroup(self.heading, body, self.note).arrange(DOWN, buff=0.35)
        self.marks = VGroup()  # what the current remedy draws on the ladder
        self.stage.place(self.page, below_logo=True)

    def build_ladder(self, width: float, height: float) -> VGroup:
        n = self.n
        top = math.ceil(max(max(v) for v in n.log_wavelengths.values()) + 0.2)
        top = max(top, math.ceil(math.log10(n.target_len) + 0.3))
        plot = Plot(width, height, (-0.5, n.pairs - 0.5), (0, top))
        ticks = list(range(0, top + 1))
        y_ticks = plot.y_ticks(ticks, [power_label(k) for k in ticks], theme.LABEL_SIZE)
        first, last = 0, n.pairs - 1
        x_ticks = plot.x_ticks([first, last], [str(first), str(last)], theme.LABEL_SIZE)
        y_name = self.words.label("ladder_y", theme.LABEL_SIZE, theme.MUTED)
        y_name.next_to(plot.area, UP, buff=0.15).align_to(y_ticks, LEFT)
        x_name = self.words.label("ladder_x", theme.LABEL_SIZE, theme.MUTED)
        x_name.next_to(plot.area, DOWN, buff=0.15)
        radius = float(np.clip(0.35 * width / n.pairs, 0.025, 0.07))
        self.plot = plot
        self.dots = VGroup(
            *[
                Dot(plot.at(i, y), radius=radius, color=self.pair_color(i))
                for i, y in enumerate(n.log_wavelengths["rope"])
            ]
        )
        self.train_line = plot.level(math.log10(n.train_len), theme.FOREGROUND)
        self.target_line = plot.level(math.log10(n.target_len), theme.NEGATIVE)
        self.train_tag = self.words.label(
            "train_line", theme.LABEL_SIZE, theme.FOREGROUND, n=compact(n.train_len)
        ).next_to(self.train_line, UP, buff=0.06, aligned_edge=LEFT)
        self.target_tag = self.words.label(
            "target_line", theme.LABEL_SIZE, theme.NEGATIVE, n=compact(n.target_len)
        ).next_to(self.target_line, UP, buff=0.06, aligned_edge=LEFT)
        if self.target_tag.get_bottom()[1] < self.train_tag.get_top()[1]:
            # a target just past training: its line runs beside the training line, and its
            # tag goes to the other end
            self.target_tag.next_to(self.target_line, UP, buff=0.06, aligned_edge=RIGHT)
        self.frame_parts = VGroup(plot, y_ticks, x_ticks, y_name, x_name)
        return VGroup(  # the dots too, so that fitting the page to the stage moves them
            self.frame_parts,
            self.train_line,
            self.train_tag,
            self.target_line,
            self.target_tag,
            self.dots,
        )

    def pair_color(self, i: int):
        # the pairs slow down along the ladder: the first `lapped` finish a turn in training
        return COLORS["lapped" if i < self.n.lapped else "unfinished"]

    def build_dials(self) -> VGroup:
        n = self.n
        radius = self.stage.layout.dial_radius
        self.slow_dial, self.fast_dial = AngleDial(radius), AngleDial(radius)
        self.seen = ValueTracker(0.0)  # radians the slowest pair covered in training
        self.reach = ValueTracker(0.0)  # ... and reaches at the target length
        self.step = ValueTracker(0.0)  # the fastest pair's turn from one position to the next
        seen_band = self.slow_dial.sweep(lambda: 0.0, self.seen.get_value, theme.WORD_C)
        past_band = self.slow_dial.sweep(
            self.seen.get_value,
            lambda: max(self.reach.get_value(), self.seen.get_value()),
            theme.NEGATIVE,
        )
        self.slow_hand = self.slow_dial.hand(self.reach.get_value, theme.FOREGROUND)
        self.fast_hands = VGroup(
            self.fast_dial.hand(lambda: 0.0, theme.MUTED),
            self.fast_dial.hand(self.step.get_value, theme.ACCENT),
        )
        self.slow_bands = VGroup(seen_band, past_band)

        def readout(key: str, tracker: ValueTracker, color) -> VGroup:
            value = LiveNumber(0, num_decimal_places=0, font_size=theme.LABEL_SIZE, color=color)
            bind_number(value, lambda: math.degrees(tracker.get_value()))
            words = self.words.label(key, theme.LABEL_SIZE, color, n=compact(n.target_len))
            degree = self.words.text("°", theme.LABEL_SIZE, color)
            row = VGroup(words, value, degree).arrange(RIGHT, buff=0.12)
            # the number grows to the right as it counts: the sign follows its last digit
            degree.add_updater(lambda m: m.next_to(value, RIGHT, buff=0.04).align_to(value, UP))
            return row

        self.seen_row = readout("seen", self.seen, theme.WORD_C)
        self.reach_row = readout("reached", self.reach, theme.NEGATIVE)
        self.step_row = readout("step", self.step, theme.ACCENT)
        slow = VGroup(
            self.words.label("slowest", theme.LABEL_SIZE, i=n.pairs - 1),
            self.slow_dial,
            VGroup(self.seen_row, self.reach_row).arrange(DOWN, buff=0.1, aligned_edge=LEFT),
        )
        fast = VGroup(self.words.label("fastest", theme.LABEL_SIZE), self.fast_dial, self.step_row)
        cards = VGroup()
        for card in (slow, fast):
            card.arrange(DOWN, buff=0.15)
            cards.add(VGroup(panel(card.width + 0.3, card.height + 0.3).move_to(card), card))
        self.slow_card, self.fast_card = cards
        return cards

    @property
    def dial_parts(self) -> VGroup:
        return VGroup(self.slow_bands, self.slow_hand, self.fast_hands)

    # -------------------------------------------------------------------- beats
    def show_ladder(self) -> None:
        self.beat("ladder")
        self.build_stage()
        self.while_saying(
            "pairs", Write(self.heading), FadeIn(self.ladder[0]), run_time=theme.NORMAL
        )
        self.while_saying(
            "dots",
            LaggedStart(*[FadeIn(d, scale=0.5) for d in self.dots], lag_ratio=0.05),
            run_time=theme.LONG,
        )
        self.while_saying(
            "train", Create(self.train_line), FadeIn(self.train_tag), run_time=theme.NORMAL
        )
        lapped = VGroup(*self.dots[: self.n.lapped])
        slow = VGroup(*self.dots[self.n.lapped :])
        self.while_saying("fast", Indicate(lapped, color=COLORS["lapped"]), run_time=theme.NORMAL)
        self.while_saying(
            "slow",
            Indicate(slow, color=COLORS["unfinished"]),
            FadeIn(self.note, shift=0.1 * UP),
            run_time=theme.NORMAL,
        )
        self.wait(theme.SHORT)

    def show_unseen(self) -> None:
        self.beat("unseen")
        n = self.n
        self.ghosts = self.dots.copy().set_opacity(0.25)  # where the pairs were trained
        self.add(self.ghosts, self.dial_parts)  # the dials' parts show with `shown`
        self.while_saying(
            "slowest",
            FadeIn(self.slow_card),
            self.slow_dial.shown.animate.set_value(1.0),
            Indicate(self.dots[-1], scale_factor=2.0),
            run_time=theme.NORMAL,
        )
        seen = math.radians(n.seen_deg)
        self.while_saying(
            "seen", self.seen.animate.set_value(seen), self.reach.animate.set_value(seen)
        )
        self.while_saying(
            "past",
            Create(self.target_line),
            FadeIn(self.target_tag),
            self.reach.animate.set_value(math.radians(n.target_deg["rope"])),
        )
        note = "note_unseen_hair" if n.lines["unseen"] == "hair" else "note_unseen"
        self.while_saying("never", self.swap_note(note), run_time=theme.NORMAL)
        self.wait(theme.SHORT)

    def swap_note(self, key: str, **values) -> AnimationGroup:
        width = self.stage.width() if self.stage.layout.note_spans_stage else self.note.width
        new = self.words.label(
            key, theme.LABEL_SIZE, max_width=max(width, self.ladder.width), **values
        )
        new.move_to(self.note)
        old, self.note = self.note, new
        return crossfade(old, new)

    def swap_heading(self, key: str, **values) -> AnimationGroup:
        new = self.words.label(key, theme.BODY_SIZE, theme.ACCENT, **values)
        new.scale_to_fit_width(min(new.width, self.stage.width()))
        new.move_to(self.heading, aligned_edge=UP)  # a taller line grows downwards
        old, self.heading = self.heading, new
        return crossfade(old, new)

    def move_dots(self, rule: str) -> LaggedStart:
        ys = self.n.log_wavelengths[rule]
        return LaggedStart(
            *[
                d.animate.move_to(self.plot.at(i, y))
                for i, (d, y) in enumerate(zip(self.dots, ys, strict=True))
            ],
            lag_ratio=0.02,
        )

    def remedy(self, rule: str, note: str, marks: VGroup | None = None, **values) -> None:
        """The beat of one remedy: its name, the dots to their new turns with the rule's
        `marks` on the ladder (the last remedy's leave), the dials, its note."""
        n = self.n
        old, self.marks = self.marks, marks if marks is not None else VGroup()
        self.while_saying(
            "rule",
            self.swap_heading(f"rule_{rule}", f=compact(n.factor)),
            *[FadeOut(m) for m in old],
        )
        self.while_saying("ladder", *[Create(m) for m in self.marks], self.move_dots(rule))
        self.while_saying(
            "dials",
            self.reach.animate.set_value(math.radians(n.target_deg[rule])),
            self.step.animate.set_value(math.radians(n.step_deg[rule])),
        )
        self.while_saying("note", self.swap_note(note, **values), run_time=theme.NORMAL)
        self.wait(theme.SHORT)

    def interpolate(self) -> None:
        self.beat("pi")
        n = self.n
        self.while_saying(
            "fast",
            Succession(  # the card's number counts only once it is in
                AnimationGroup(FadeIn(self.fast_card), self.fast_dial.shown.animate.set_value(1)),
                self.step.animate.set_value(math.radians(n.step_deg["rope"])),
            ),
            run_time=theme.NORMAL,
        )
        note = "note_pi" if n.lines["pi"] == "crowd" else "note_pi_slight"
        self.remedy(
            "pi", note, a=theme.fmt(n.step_deg["rope"], 1), b=theme.fmt(n.step_deg["pi"], 1)
        )

    def raise_base(self) -> None:
        self.beat("ntk")
        self.remedy("ntk", "note_ntk", b=compact(self.n.ntk_base))

    def blend_yarn(self) -> None:
        self.beat("yarn")
        n = self.n
        low, high = n.yarn_bounds  # where the ramp starts and ends
        bounds = VGroup(
            self.plot.upright(low, theme.WORD_C),
            self.plot.upright(min(high, n.pairs - 1), theme.WORD_C),
        )
        self.remedy(
            "yarn",
            "note_yarn",
            bounds,
            k=n.yarn_kept,
            b=n.yarn_blended,
            v=n.yarn_divided,
            t=n.yarn_temperature_said,
        )

    def smooth_llama(self) -> None:
        self.beat("llama3")
        n = self.n
        levels = VGroup(  # the two wavelength bounds
            self.plot.level(math.log10(n.llama_short), theme.WORD_C),
            self.plot.level(math.log10(n.llama_long), theme.WORD_C),
        )
        self.remedy(
            "llama3",
            "note_llama3",
            levels,
            a=compact(n.llama_short),
            b=compact(n.llama_long),
        )

    def show_configs(self) -> None:
        self.beat("configs")
        n = self.n
        head = [
            self.words.label(k, theme.LABEL_SIZE, theme.MUTED)
            for k in ("col_model", "col_theta", "col_rule", "col_length", "col_slowest")
        ]
        rows = []
        for c in n.configs:
            scaling = c["scaling"]
            rule = (
                self.words.ui("plain")
                if scaling is None
                else self.words.ui(f"name_{scaling['rope_type']}", f=compact(scaling["factor"]))
            )
            length = compact(c["reads"])
            if c["reads"] != c["trained"]:
                length = f"{compact(c['trained'])} → {compact(c['reads'])}"
            rows.append(
                [
                    self.words.text(c["model"], theme.LABEL_SIZE, theme.ACCENT),
                    self.words.text(compact(c["rope_theta"]), theme.LABEL_SIZE),
                    self.words.text(rule, theme.LABEL_SIZE),
                    self.words.text(length, theme.LABEL_SIZE),
                    self.words.text(compact(c["slowest_turn"]), theme.LABEL_SIZE),
                ]
            )
        grid = VGroup(*head, *[cell for row in rows for cell in row]).arrange_in_grid(
            cols=5, buff=(self.stage.layout.table_col_gap, 0.22), col_alignments="lrlrr"
        )
        source = self.words.label(
            "sources", theme.LABEL_SIZE, theme.MUTED, max_width=self.stage.width()
        )
        table = VGroup(grid, source).arrange(DOWN, buff=0.3)
        table.scale_to_fit_width(min(table.width, self.stage.width()))
        room = self.heading.get_bottom()[1] - 0.3 - (self.note.get_top()[1] + 0.3)
        table.scale(min(1.0, room / table.height))
        table.move_to((self.heading.get_bottom() + self.note.get_top()) / 2)
        cells = VGroup(*grid)
        self.while_saying(
            "table",
            FadeOut(VGroup(self.ladder, self.ghosts, self.marks)),
            FadeOut(self.slow_card),
            FadeOut(self.fast_card),
            self.slow_dial.shown.animate.set_value(0.0),
            self.fast_dial.shown.animate.set_value(0.0),
            self.swap_heading("rule_configs"),
            FadeIn(VGroup(*cells[:5])),
            run_time=theme.NORMAL,
        )
        self.remove(self.dial_parts)
        for k, cue in enumerate(("plain", "base", "llama", "yarn")):
            lo = 5 * (k + 1)
            hi = lo + (10 if cue == "yarn" else 5)
            self.while_saying(
                cue,
                LaggedStart(*[FadeIn(c, shift=0.1 * RIGHT) for c in cells[lo:hi]], lag_ratio=0.1),
            )
        self.while_saying(
            "slowest",
            Indicate(VGroup(*cells[9::5]), color=theme.ACCENT),
            FadeIn(source),
            self.swap_note("note_configs"),
            run_time=theme.NORMAL,
        )
        self.wait(theme.SHORT)
