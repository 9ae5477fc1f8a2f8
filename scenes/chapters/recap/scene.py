"""recap: the list of needs from the first chapter, one need at a time, on one table.

The table (every scheme down, every need of `pe_math.REQUIREMENTS` across) stands beside a
picture. Each need gets a beat of its own: its picture moves while it is said, then its
column is marked for every scheme. Then the rows are counted, the sinusoid's and RoPE's
last, with the one need they may miss (codes the model met in training) circled; the
takeaway says why a formula cannot promise that one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from manim import (
    DOWN,
    LEFT,
    PI,
    RIGHT,
    UP,
    AnimationGroup,
    Arc,
    Circumscribe,
    Create,
    DashedLine,
    Dot,
    FadeIn,
    FadeOut,
    GrowFromEdge,
    Indicate,
    LaggedStart,
    Line,
    Mobject,
    Rectangle,
    Succession,
    Transform,
    ValueTracker,
    VGroup,
    linear,
)

import pe_math as pm
from lesson.facts import GPT2_POSITIONS, GPT2_WIDTH
from pe_math import Params
from pe_math.requirements import pair_speeds, trained_angles, training_length, unturned_pairs
from scenes.kit import theme
from scenes.kit.base import LessonScene
from scenes.kit.components import (
    Checklist,
    ClockFace,
    Mark,
    PixelMap,
    compact,
    formula,
    panel,
    spread_indices,
)

SIN_PARAMETERS = 0  # the formula has nothing to train: no seed, no weights
MAX_SIN_BARS = 32  # adjacent steps drawn for the sinusoidal encoding
BINARY_BITS_SHOWN = 5  # binary steps are drawn over 2^this positions at most (+ the cliff)
MAX_HEAT = 64  # rows and columns of the sinusoid's codes drawn as a heat map
MAX_GRID = 10  # rows and columns of the learned table's mini grid
SHIFT_STEPS = 6  # positions the clocks of the shift picture step through
PAST_TURN = 0.3  # of a turn: how far past the training length the seen picture's hand goes
DIGITS = 2
PAD = 0.18  # inside the picture's panel
LINE_BUFF = 0.1  # between the lines of a picture
GROW = 1.25  # at most this much larger than built, to fill the panel


@dataclass(frozen=True)
class Layout:
    """Where the table, its legend and the picture's panel go in one frame shape."""

    w: float  # the picture's panel, before the stage is fitted to the frame
    h: float
    side: bool  # the panel beside the table (else above it)
    roomy: bool  # a picture has room for its second lines
    legend_first: bool  # the legend stands under the table from the start (else with the count)
    legend_cols: int


LAYOUTS = {
    "wide": Layout(w=5.6, h=4.6, side=True, roomy=True, legend_first=True, legend_cols=1),
    "tall": Layout(w=6.4, h=4.4, side=False, roomy=True, legend_first=True, legend_cols=2),
    # the room goes to the pictures; the heading names each need, the legend waits for the count
    "square": Layout(w=5.8, h=4.0, side=False, roomy=False, legend_first=False, legend_cols=2),
}


@dataclass(frozen=True)
class RecapNumbers:
    """Every number Recap shows, computed by pe_math (JSON-ready)."""

    d_model: int
    max_len: int
    # unique
    unique_codes: int  # different codes among the sinusoid's max_len positions
    binary_codes: int  # 2^n_bits: the positions binary covers before its codes repeat
    # bounded
    n_values: int
    pe_min: float
    pe_max: float
    int_position: int
    int_value: float
    # smooth
    sin_steps: list[float]  # the first MAX_SIN_BARS adjacent distances
    sin_step: float
    sin_step_spread: float  # max − min over every step of the max_len positions
    n_bits: int
    bin_steps: list[int]  # p of each drawn step p → p+1
    bin_heights: list[float]
    bin_first: float
    cliff: list[int]
    cliff_flips: int
    cliff_distance: float
    cliff_ratio: float
    # shift map: the fastest and the slowest pair turn by their own ω per step
    shift_omegas: list[float]
    # nothing to train
    learned_max_len: int
    learned_params: int
    gpt2_positions: int
    gpt2_width: int
    gpt2_params: int
    sin_params: int
    # any length
    probe: int
    pe_probe: list[float]
    learned_raises: bool
    # seen in training: how far each formula's slowest pair turns within the training
    # length, T·ω: the sinusoid's (d_model, base) and RoPE's (rope_head_dim, rope_base)
    train_len: int
    pairs: int
    slow_turn_deg: float
    unturned: int  # the sinusoid's pairs that never finish a turn within train_len
    rope_head_dim: int
    rope_pairs: int
    rope_turn_deg: float
    rope_unturned: int
    # kept for the numbers' readers: the table the formula writes, as a heat map
    table_shape: list[int]
    table_values: int
    table_error: float  # max |table − the formula evaluated position by position|
    heat_positions: list[int]
    heat_dims: list[int]
    heat: list[list[float]]  # dims × positions
    # the one list, ticked off
    needs: list[str]  # pe_math.REQUIREMENTS, in order
    n_schemes: int
    checks: dict[str, dict[str, bool]]  # scheme → requirement → met
    misses: dict[str, int]  # scheme → requirements missed
    met_by: dict[str, int] = field(default_factory=dict)  # requirement → schemes that meet it
    tally: dict[str, Tally] = field(default_factory=dict)  # the same counts, as said
    lines: dict[str, str] = field(default_factory=dict)  # beat → the alternative made true


EN_COUNTS = ("none", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
ZH_COUNTS = ("零", "一", "两", "三", "四", "五", "六", "七", "八", "九")
CJK = re.compile(r"[\u4e00-\u9fff]")


@dataclass(frozen=True)
class Tally:
    """How many of the schemes meet one need, said by the count as a teacher says it. Its
    slot gives four forms, `{n.tally[need]:none|one|some|all}`: nothing meets it, only one,
    some, every one. In the `some` form `#` stands for the count in words, Chinese where
    the form is Chinese ("四"), English otherwise ("four", capitalised to open a form)."""

    met: int
    of: int

    def choice(self) -> str:
        """Which form holds: none, one, some or all."""
        if self.met == 0:
            return "none"
        if self.met == self.of:
            return "all"
        return "one" if self.met == 1 else "some"

    def __format__(self, spec: str) -> str:
        forms = dict(zip(("none", "one", "some", "all"), spec.split("|"), strict=True))
        form = forms[self.choice()]
        if "#" not in form:
            return form
        word = (ZH_COUNTS if CJK.search(form) else EN_COUNTS)[self.met]
        if form.startswith("#") and not CJK.search(form):
            word = word.capitalize()
        return form.replace("#", word)


def probe_position(learned_max_len: int) -> int:
    """A position past the learned table's last row (a quarter of its length further)."""
    return learned_max_len + max(1, learned_max_len // 4)


def best_line(checks: dict[str, dict[str, bool]]) -> str:
    """How the sinusoid and RoPE fare: both miss only codes seen in training ("seen"), the
    sinusoid nothing and RoPE only that ("rope"), or something else ("other")."""
    missed = {s: {r for r, ok in checks[s].items() if not ok} for s in ("sinusoid", "rope")}
    if missed["rope"] == {"seen_length"} and missed["sinusoid"] in ({"seen_length"}, set()):
        return "seen" if missed["sinusoid"] else "rope"
    return "other"


class Recap(LessonScene, layouts=LAYOUTS):
    """The needs one at a time, each with its picture in motion, marked on one table."""

    slug: ClassVar[str] = "recap"

    # ------------------------------------------------------------------ numbers
    @classmethod
    def numbers(cls, params: Params) -> RecapNumbers:
        d, base, layout, variant = params.d_model, params.base, params.layout, params.variant
        n_pos = params.max_len
        table = pm.sinusoidal(np.arange(n_pos), d, base, layout, variant)
        rows = np.vstack([pm.sinusoidal([p], d, base, layout, variant) for p in range(n_pos)])
        integer = pm.integer_encoding([params.int_position], d)
        # steps need two positions, even when max_len is 1
        steps = pm.adjacent_distances(
            pm.sinusoidal(np.arange(max(n_pos, 2)), d, base, layout, variant)
        )
        n = params.n_bits
        shown = 2 ** min(n, BINARY_BITS_SHOWN)
        top = 2 ** (n - 1)  # top − 1 → top flips every bit
        bin_steps, bin_heights, cliff_bits, cliff_distance = cls._binary_steps(n, shown, top)
        L = params.learned_max_len
        learned, probe, raises = cls._learned_probe(L, d)
        speeds = pair_speeds("sinusoid", params)
        T = training_length("sinusoid", params)
        rope_angles = trained_angles("rope", params)
        codes = len(np.unique(np.round(table, 9), axis=0))
        heat_positions = spread_indices(n_pos, MAX_HEAT)
        heat_dims = spread_indices(d, MAX_HEAT)
        verdicts = pm.verdicts(params)
        checks = {s: v.checks for s, v in verdicts.items()}
        met_by = {r: sum(checks[s][r] for s in pm.SCHEMES) for r in pm.REQUIREMENTS}
        return RecapNumbers(
            d_model=d,
            max_len=n_pos,
            unique_codes=codes,
            binary_codes=2**n,
            n_values=int(table.size),
            pe_min=float(table.min()),
            pe_max=float(table.max()),
            int_position=params.int_position,
            int_value=float(integer.max()),
            sin_steps=steps[:MAX_SIN_BARS].tolist(),
            sin_step=float(steps[0]),
            sin_step_spread=float(steps.max() - steps.min()),
            n_bits=n,
            bin_steps=bin_steps,
            bin_heights=bin_heights,
            bin_first=bin_heights[0],
            cliff=[top - 1, top],
            cliff_flips=int(np.abs(np.diff(cliff_bits, axis=0)).sum()),
            cliff_distance=cliff_distance,
            cliff_ratio=cliff_distance / bin_heights[0],
            shift_omegas=[float(speeds[0]), float(speeds[-1])],
            learned_max_len=L,
            learned_params=int(learned.size),
            gpt2_positions=GPT2_POSITIONS,
            gpt2_width=GPT2_WIDTH,
            gpt2_params=GPT2_POSITIONS * GPT2_WIDTH,
            sin_params=SIN_PARAMETERS,
            probe=probe,
            pe_probe=pm.sinusoidal([probe], d, base, layout, variant)[0].tolist(),
            learned_raises=raises,
            train_len=T,
            pairs=len(speeds),
            slow_turn_deg=float(np.degrees(trained_angles("sinusoid", params).min())),
            unturned=unturned_pairs("sinusoid", params),
            rope_head_dim=params.rope_head_dim,
            rope_pairs=len(rope_angles),
            rope_turn_deg=float(np.degrees(rope_angles.min())),
            rope_unturned=unturned_pairs("rope", params),
            table_shape=list(table.shape),
            table_values=int(table.size),
            table_error=float(np.abs(table - rows).max()),
            heat_positions=heat_positions,
            heat_dims=heat_dims,
            heat=table[np.ix_(heat_positions, heat_dims)].T.tolist(),
            needs=list(pm.REQUIREMENTS),
            n_schemes=len(pm.SCHEMES),
            checks=checks,
            misses={s: len(pm.REQUIREMENTS) - v.met for s, v in verdicts.items()},
            met_by=met_by,
            tally={r: Tally(k, len(pm.SCHEMES)) for r, k in met_by.items()},
            lines=cls._lines(params, checks, codes),
        )

    @staticmethod
    def _binary_steps(
        n: int, shown: int, top: int
    ) -> tuple[list[int], list[float], np.ndarray, float]:
        """The binary steps drawn (the first `shown` positions' and the cliff's), their
        lengths, the cliff's two codes and its length."""
        bin_heights = pm.adjacent_distances(pm.binary_encoding(np.arange(shown), n)).tolist()
        bin_steps = list(range(shown - 1))
        cliff_bits = pm.binary_encoding([top - 1, top], n)
        cliff_distance = float(pm.adjacent_distances(cliff_bits)[0])
        if top - 1 not in bin_steps:  # the cliff lies past the drawn steps
            bin_steps.append(top - 1)
            bin_heights.append(cliff_distance)
        return bin_steps, bin_heights, cliff_bits, cliff_distance

    @staticmethod
    def _learned_probe(L: int, d: int) -> tuple[np.ndarray, int, bool]:
        """The learned table, the position probed past its end, and whether looking it up raises."""
        learned = pm.learned_table(L, d)
        probe = probe_position(L)
        try:
            pm.learned_lookup(learned, [probe])
            raises = False
        except pm.PositionOutOfRange:
            raises = True
        return learned, probe, raises

    @staticmethod
    def _lines(params: Params, checks: dict[str, dict[str, bool]], codes: int) -> dict[str, str]:
        """Beat -> which of its narration alternatives holds here."""
        # a learned table's fixed map is a fluke of its few rows (one row has no step to map)
        rows = "few_rows" if checks["learned"]["shift_map"] else "map"
        return {
            "unique": "all" if codes == params.max_len else "some",
            "smooth": "even" if checks["binary"]["smooth"] else "jump",
            # RoPE always leaves a pair unturned (the knobs refuse a base that does not)
            "seen_length": "turned" if unturned_pairs("sinusoid", params) == 0 else "unturned",
            "checklist": rows,
            "beyond": best_line(checks),
        }

    # ---------------------------------------------------------------- construct
    def construct(self) -> None:
        self.n = self.numbers(self.params)
        self.pictures: dict[str, Callable[[float, float], tuple[VGroup, list, Callable]]] = {
            "unique": self.unique_picture,
            "bounded": self.bounded_picture,
            "smooth": self.smooth_picture,
            "shift_map": self.shift_picture,
            "any_length": self.any_length_picture,
            "seen_length": self.seen_picture,
            "no_training": self.no_training_picture,
        }
        self.title_card()
        self.build_stage()
        for i, need in enumerate(pm.REQUIREMENTS):  # the one list, in its order
            self.show_need(i, need)
        self.checklist()
        self.beyond()
        self.takeaway()

    # ------------------------------------------------------------------- layout
    def inner_width(self) -> float:
        return self.stage.layout.w - 2 * PAD

    def inner_height(self) -> float:
        return self.stage.layout.h - 2 * PAD

    def build_stage(self) -> None:
        """The table and its legend, with the picture's panel beside it (or above it)."""
        self.table, self.legend = self.checklist_table()
        board = VGroup(self.table, self.legend).arrange(DOWN, buff=0.4)
        if not self.stage.layout.legend_first:
            board.remove(self.legend)
        self.frame = panel(self.stage.layout.w, self.stage.layout.h)
        if self.stage.layout.side:
            stage = VGroup(board, self.frame).arrange(RIGHT, buff=0.5)
        else:
            stage = VGroup(self.frame, board).arrange(DOWN, buff=0.35)
        self.stage.place(stage, grow=True)
        self.scale_factor = self.frame.width / self.stage.layout.w
        cols = len(pm.REQUIREMENTS) + 1
        self.play(
            FadeIn(self.frame),
            FadeIn(self.table[:cols]),
            FadeIn(VGroup(*[self.table[r * cols] for r in range(1, len(pm.SCHEMES) + 1)])),
            *([FadeIn(self.legend)] if self.stage.layout.legend_first else []),
            run_time=theme.NORMAL,
        )

    def checklist_table(self) -> tuple[VGroup, Checklist]:
        """Schemes down, the numbered needs across, a mark in every cell (shown as each
        need is said); the needs' names in a legend below, as the first chapter listed them."""
        n = self.n
        numbers = [
            self.words.text(str(i + 1), theme.LABEL_SIZE, theme.ACCENT)
            for i in range(len(pm.REQUIREMENTS))
        ]
        cells = [VGroup(), *numbers]
        for scheme in pm.SCHEMES:
            cells.append(self.words.text(self.words.common(scheme), size=theme.LABEL_SIZE))
            cells += [Mark(n.checks[scheme][r]) for r in pm.REQUIREMENTS]
        table = VGroup(*cells).arrange_in_grid(
            rows=len(pm.SCHEMES) + 1,
            cols=len(numbers) + 1,
            buff=(0.4, 0.3),
            col_alignments="l" + "c" * len(numbers),
        )
        names = [
            self.words.text(t, size=theme.LABEL_SIZE)
            for t in self.words.requirement_names(short=True)
        ]
        legend = Checklist(names, cols=self.stage.layout.legend_cols)
        return table, legend

    def column(self, i: int) -> VGroup:
        """The marks of need i, one per scheme, top to bottom."""
        cols = len(pm.REQUIREMENTS) + 1
        return VGroup(*[self.table[r * cols + i + 1] for r in range(1, len(pm.SCHEMES) + 1)])

    def row(self, scheme: str) -> VGroup:
        cols = len(pm.REQUIREMENTS) + 1
        r = pm.SCHEMES.index(scheme) + 1
        return VGroup(*self.table[r * cols : (r + 1) * cols])

    def place(self, picture: VGroup, heading: Mobject) -> VGroup:
        """The need's heading and its picture inside the panel, at the stage's scale."""
        group = VGroup(heading, picture).arrange(DOWN, buff=0.2, aligned_edge=LEFT)
        group.scale(self.scale_factor)
        inner = self.frame.width - 2 * PAD * self.scale_factor
        tall = self.frame.height - 2 * PAD * self.scale_factor
        group.scale(min(GROW, inner / group.width, tall / group.height))
        return group.move_to(self.frame)

    # ---------------------------------------------------------------- pictures
    # Each returns (picture, still parts shown at once, and a function making the animations
    # played while it is said, called once the picture stands in its panel).
    def line(self, key: str, width: float, color=theme.ACCENT, **values) -> Mobject:
        return self.words.label(key, theme.SMALL_SIZE, color, max_width=width, **values)

    def unique_picture(self, w: float, h: float):
        """The sinusoid's codes as a heat map, a frame sweeping from position to position."""
        n = self.n
        words = self.line("unique_sin", w, N=n.max_len, k=n.unique_codes)
        heat_h = min(max(0.6, h - words.height - 0.5), 0.4 * w)
        heat = PixelMap(np.asarray(n.heat), width=w, height=heat_h)
        cols = len(n.heat_positions)
        cell = w / cols
        cursor = Rectangle(
            width=max(cell, 0.06), height=heat_h + 0.1, stroke_color=theme.ACCENT, stroke_width=3
        )
        picture = VGroup(heat, words).arrange(DOWN, buff=0.2, aligned_edge=LEFT)
        cursor.move_to(heat.get_left() + cell / 2 * RIGHT)
        picture.add(cursor)

        def sweep() -> list:
            end = heat.get_right()[0] - cursor.width / 2
            return [cursor.animate(rate_func=linear).set_x(end)]

        return picture, [heat, words, cursor], sweep

    def bounded_picture(self, w: float, h: float):
        """Two bars on one scale from 0: the largest |PE| value and the integer position."""
        n = self.n
        sin_value = max(abs(n.pe_min), abs(n.pe_max))
        scale = max(n.int_value, sin_value, 1e-9)
        rows = [
            ("bounded_sin", sin_value, theme.WORD_A, theme.fmt(sin_value, DIGITS)),
            ("bounded_int", n.int_value, theme.WORD_B, compact(n.int_value)),
        ]
        names = [self.line(key, w, color) for key, _, color, _ in rows]
        values = [self.words.text(text, theme.SMALL_SIZE, color) for _, _, color, text in rows]
        name_w = max(m.width for m in names)
        track = w - name_w - max(m.width for m in values) - 0.3
        bar_h = 0.3 if self.stage.layout.roomy else 0.2
        group, bars = VGroup(), []
        for name, value_mob, (_, value, color, _) in zip(names, values, rows, strict=True):
            bar = Rectangle(
                width=max(0.04, track * value / scale),
                height=bar_h,
                stroke_width=0,
                fill_color=color,
                fill_opacity=0.9,
            )
            bar.move_to([name_w + 0.15, 0, 0], aligned_edge=LEFT)
            name.move_to([0, 0, 0], aligned_edge=LEFT)
            value_mob.next_to(bar, RIGHT, buff=0.15)
            group.add(VGroup(name, bar, value_mob))
            bars.append(bar)
        group.arrange(DOWN, buff=0.3 if self.stage.layout.roomy else 0.15, aligned_edge=LEFT)
        parts = [group]
        if self.stage.layout.roomy:
            parts.append(self.line("bounded_int_at", w, theme.MUTED, p=n.int_position))
        parts.append(
            self.line(
                "bounded_range",
                w,
                n=f"{n.n_values:,}",
                lo=theme.fmt(n.pe_min, DIGITS),
                hi=theme.fmt(n.pe_max, DIGITS),
            )
        )
        picture = VGroup(*parts).arrange(DOWN, buff=0.2, aligned_edge=LEFT)
        still = [*names, *parts[1:]]

        def grow() -> list:
            return [
                Succession(GrowFromEdge(bar, LEFT, rate_func=linear), FadeIn(row[2]))
                for bar, row in zip(bars, group, strict=True)
            ]

        return picture, still, grow

    def bars(self, heights: list[float], w: float, h: float, top: float, colors) -> VGroup:
        """Bars of the given heights side by side on a base line, on a scale up to `top`."""
        slot = w / len(heights)
        group = VGroup()
        for j, (value, color) in enumerate(zip(heights, colors, strict=True)):
            bar = Rectangle(
                width=0.7 * slot,
                height=max(0.01, h * value / top),
                stroke_width=0,
                fill_color=color,
                fill_opacity=0.9,
            )
            bar.move_to([(j + 0.5) * slot, 0, 0], aligned_edge=DOWN)
            group.add(bar)
        base = Line([0, 0, 0], [w, 0, 0], stroke_color=theme.MUTED, stroke_width=1.5)
        return VGroup(base, group)

    def smooth_picture(self, w: float, h: float):
        """The adjacent-step distances: flat for the formula, spiky for binary, on one scale;
        the bars rise one step at a time."""
        n = self.n
        sin_label = self.line("smooth_sin", w, theme.WORD_A, s=theme.fmt(n.sin_step, DIGITS))
        bin_label = self.line(
            "smooth_bin",
            w,
            theme.WORD_B,
            a=n.cliff[0],
            b=n.cliff[1],
            s=theme.fmt(n.cliff_distance, DIGITS),
            r=theme.fmt(n.cliff_ratio, 1),
        )
        text_h = sin_label.height + bin_label.height + 3 * LINE_BUFF
        chart_h = min(0.9, max(0.25, (h - text_h) / 2))
        top = max(n.cliff_distance, max(n.sin_steps), max(n.bin_heights))
        sin_bars = self.bars(n.sin_steps, w, chart_h, top, [theme.WORD_A] * len(n.sin_steps))
        colors = [theme.ACCENT if p == n.cliff[0] else theme.WORD_B for p in n.bin_steps]
        bin_bars = self.bars(n.bin_heights, w, chart_h, top, colors)
        picture = VGroup(sin_bars, sin_label, bin_bars, bin_label).arrange(
            DOWN, buff=LINE_BUFF, aligned_edge=LEFT
        )

        def rise() -> list:
            bars = [*sin_bars[1], *bin_bars[1]]
            return [
                LaggedStart(*[GrowFromEdge(b, DOWN, rate_func=linear) for b in bars], lag_ratio=0.5)
            ]

        return picture, [sin_bars[0], bin_bars[0], sin_label, bin_label], rise

    def shift_picture(self, w: float, h: float):
        """Two clocks, the fastest pair and the slowest, stepping along: each step turns
        a hand by its own fixed angle, wherever it stands."""
        n = self.n
        step = ValueTracker(0.0)
        words = self.line("shift_turn", w)
        radius = max(0.35, min(0.9, (h - words.height - 0.9) / 2, w / 5))
        clocks = VGroup()
        for omega, color in zip(n.shift_omegas, (theme.WORD_A, theme.WORD_B), strict=True):
            face = ClockFace(radius, color)
            hand = face.hand(lambda omega=omega: step.get_value() * omega)
            name = self.words.text(f"ω = {compact(omega)}", theme.SMALL_SIZE, color)
            clocks.add(VGroup(VGroup(face, hand), name).arrange(DOWN, buff=0.15))
        clocks.arrange(RIGHT, buff=0.8)
        picture = VGroup(clocks, words).arrange(DOWN, buff=0.3)
        return (
            picture,
            [clocks, words],
            lambda: [step.animate(rate_func=linear).set_value(SHIFT_STEPS)],
        )

    def any_length_picture(self, w: float, h: float):
        """Two strips on one position axis: the learned table stops at its last row, the
        formula runs on; a dot travels to the probe position, where the table has no row."""
        n = self.n
        names = [
            self.line("extra_sin", w, theme.WORD_A),
            self.line("extra_learned", w, theme.WORD_B),
        ]
        name_w = max(m.width for m in names) + 0.15
        end = n.probe + max(1, n.probe // 6)  # the axis runs a little past the probe
        scale = (w - name_w) / end

        def x(p: float) -> float:
            return name_w + p * scale

        strip_h, gap = 0.22, (0.4 if self.stage.layout.roomy else 0.28)
        ys = (0.0, -gap)
        sin_strip, learned_strip, missing = self._length_strips(x, end, ys, strip_h)
        for name, y in zip(names, ys, strict=True):
            name.move_to([0, y, 0], aligned_edge=LEFT)
        mark = x(n.probe)
        dot = Dot([x(0), ys[0], 0], radius=0.07, color=theme.ACCENT)
        r = 0.09
        cross = VGroup(
            Line([mark - r, ys[1] - r, 0], [mark + r, ys[1] + r, 0]),
            Line([mark - r, ys[1] + r, 0], [mark + r, ys[1] - r, 0]),
        ).set_stroke(theme.ACCENT, 4)
        low = ys[1] - strip_h / 2
        edge = DashedLine(
            [x(n.learned_max_len), strip_h / 2 + 0.05, 0],
            [x(n.learned_max_len), low - 0.05, 0],
            dash_length=0.06,
        ).set_stroke(theme.MUTED, 1.5)
        ticks = self._length_ticks(x, low, sin_strip)
        visual = VGroup(*names, sin_strip, learned_strip, missing, edge, dot, cross, ticks)
        head = ", ".join(theme.fmt(v, DIGITS) for v in n.pe_probe[:2])
        more = ", …" if len(n.pe_probe) > 2 else ""
        value = self.line("extra_value", w, p=n.probe, v=head + more)
        parts = [visual, value]
        if self.stage.layout.roomy:  # in a square frame the cross on the learned strip says it
            parts.append(self.line("extra_fails", w, theme.WORD_B, p=n.probe))
        picture = VGroup(*parts).arrange(DOWN, buff=LINE_BUFF, aligned_edge=LEFT)
        still = [*names, sin_strip, learned_strip, missing, edge, ticks[0], ticks[1], dot]

        def travel() -> list:
            return [
                Succession(
                    dot.animate(rate_func=linear).set_x(cross.get_center()[0]),
                    FadeIn(VGroup(cross, ticks[2], *parts[1:]), shift=0.1 * UP),
                )
            ]

        return picture, still, travel

    def _length_strips(
        self, x: Callable[[float], float], end: float, ys: tuple[float, float], strip_h: float
    ) -> tuple[Rectangle, Rectangle, Rectangle]:
        """The formula's strip to the axis's end, the table's to its last row, and the
        outline of the rows it does not have."""
        n = self.n
        sin_strip = Rectangle(
            width=x(end) - x(0),
            height=strip_h,
            stroke_width=0,
            fill_color=theme.WORD_A,
            fill_opacity=0.7,
        ).move_to([(x(0) + x(end)) / 2, ys[0], 0])
        learned_strip = Rectangle(
            width=x(n.learned_max_len) - x(0),
            height=strip_h,
            stroke_width=0,
            fill_color=theme.WORD_B,
            fill_opacity=0.7,
        ).move_to([(x(0) + x(n.learned_max_len)) / 2, ys[1], 0])
        missing = Rectangle(
            width=x(end) - x(n.learned_max_len),
            height=strip_h,
            stroke_color=theme.WORD_B,
            stroke_width=1,
            stroke_opacity=0.5,
            fill_opacity=0,
        ).next_to(learned_strip, RIGHT, buff=0)
        return sin_strip, learned_strip, missing

    def _length_ticks(
        self, x: Callable[[float], float], low: float, sin_strip: Rectangle
    ) -> VGroup:
        """Positions 0, the table's length and the probe, under the strips."""
        n = self.n
        ticks = VGroup(
            *[
                self.words.text(str(p), theme.SMALL_SIZE, color).move_to([x(p), 0, 0])
                for p, color in (
                    (0, theme.MUTED),
                    (n.learned_max_len, theme.MUTED),
                    (n.probe, theme.ACCENT),
                )
            ]
        )
        ticks.set_y(low - (0.1 if self.stage.layout.roomy else 0.05) - ticks.height / 2)
        ticks[0].align_to(sin_strip, LEFT)
        # the probe's tick moves right of the table's when they would touch
        if ticks[2].get_left()[0] < ticks[1].get_right()[0] + 0.1:
            ticks[2].next_to(ticks[1], RIGHT, buff=0.1)
        return ticks

    def seen_picture(self, w: float, h: float):
        """The sinusoid's slowest pair: the arc its hand sweeps within the training length,
        then on past it, onto angles no training position reached when the arc is short;
        under it, what RoPE's head (of the long-context chapter) does in the same length."""
        n = self.n
        omega = n.shift_omegas[-1]
        trained = np.radians(n.slow_turn_deg)
        lines = [
            self.line(
                "seen_sin",
                w,
                theme.WORD_A,
                d=n.d_model,
                T=f"{n.train_len:,}",
                a=min(n.slow_turn_deg, 360.0),
            ),
            self.line("seen_rope", w, theme.WORD_B, r=n.rope_head_dim, b=n.rope_turn_deg),
        ]
        radius = max(0.4, min(1.1, (h - sum(m.height for m in lines) - 0.6) / 2))
        face = ClockFace(radius, theme.ACCENT)
        position = ValueTracker(0.0)
        hand = face.hand(lambda: position.get_value() * omega)
        arc = Arc(
            radius=radius * 0.97,
            start_angle=PI / 2,
            angle=-min(trained, 2 * PI - 1e-3),
            arc_center=face.dial.get_center(),
            stroke_color=theme.WORD_A,
            stroke_width=8,
        )
        dial = VGroup(face, arc, hand)
        picture = VGroup(dial, *lines).arrange(DOWN, buff=0.2)
        lap = 2 * np.pi / omega  # positions per turn of this hand
        reach = min(n.train_len - 1, lap)  # a hand that turns many times is shown turning once

        def sweep() -> list:
            return [
                Succession(
                    AnimationGroup(
                        position.animate(rate_func=linear).set_value(reach),
                        Create(arc, rate_func=linear),
                    ),
                    position.animate(rate_func=linear).set_value(reach + PAST_TURN * lap),
                )
            ]

        return picture, [face, hand, *lines], sweep

    def no_training_picture(self, w: float, h: float):
        """The formula, with nothing to train, beside a learned table's grid, whose cells
        fill in one by one as if trained."""
        n = self.n
        rows, cols = min(n.learned_max_len, MAX_GRID), min(n.d_model, MAX_GRID)
        cell = (1.4 if self.stage.layout.roomy else 0.8) / max(rows, cols)
        grid = VGroup(
            *[
                Rectangle(
                    width=cell,
                    height=cell,
                    stroke_color=theme.BACKGROUND,
                    stroke_width=0.5,
                    fill_color=theme.WORD_B,
                    fill_opacity=0.6,
                )
                for _ in range(rows * cols)
            ]
        ).arrange_in_grid(rows=rows, cols=cols, buff=0)
        sin = formula(r"\sin(p\,\omega_i)", size=theme.LABEL_SIZE * 1.3, color=theme.WORD_A)
        versus = self.words.label("versus", theme.SMALL_SIZE, theme.MUTED)
        visual = VGroup(sin, versus, grid).arrange(RIGHT, buff=0.3)
        lines = VGroup(
            self.line("params_sin", w, theme.WORD_A, k=n.sin_params),
            self.line(
                "params_learned",
                w,
                theme.WORD_B,
                L=n.learned_max_len,
                d=n.d_model,
                k=f"{n.learned_params:,}",
            ),
            self.line(
                "params_gpt2",
                w,
                theme.MUTED,
                L=f"{n.gpt2_positions:,}",
                d=n.gpt2_width,
                k=f"{n.gpt2_params:,}",
            ),
        ).arrange(DOWN, buff=LINE_BUFF, aligned_edge=LEFT)
        picture = VGroup(visual, lines).arrange(
            DOWN, buff=0.2 if self.stage.layout.roomy else 0.12, aligned_edge=LEFT
        )
        return (
            picture,
            [sin, versus, lines],
            lambda: [LaggedStart(*[FadeIn(c, scale=1.5) for c in grid], lag_ratio=0.3)],
        )

    # -------------------------------------------------------------------- beats
    def show_need(self, i: int, need: str) -> None:
        """Need i's beat: its name over its picture, the picture moving while it is said,
        then its column marked for every scheme."""
        self.beat(need)
        if getattr(self, "shown", None) is not None:
            self.play(FadeOut(self.shown), run_time=theme.SHORT)
        heading = self.words.lines(
            f"{i + 1}  {self.words.common(need)}",
            self.inner_width(),
            theme.LABEL_SIZE,
            theme.ACCENT,
        )
        picture, still, moving = self.pictures[need](self.inner_width(), self.inner_height() - 0.6)
        self.shown = self.place(picture, heading)
        self.remove(picture)  # only what is played in stays on stage
        legend_row = self.legend[i][1]  # the need's name; its number keeps its colour
        lit = [legend_row.animate.set_color(theme.ACCENT)] if self.stage.layout.legend_first else []
        self.play(
            FadeIn(heading),
            *[FadeIn(m) for m in still],
            *lit,
            self.table[i + 1].animate.scale(1.4),
            run_time=theme.SHORT,
        )
        # made once the picture is in place: an animation starts from where its mobject stands
        self.while_saying("show", *moving(), run_time=theme.LONG * 1.5)
        self.while_saying(
            "mark",
            LaggedStart(*[FadeIn(m, scale=1.6) for m in self.column(i)], lag_ratio=0.5),
            run_time=theme.NORMAL,
        )
        unlit = (
            [legend_row.animate.set_color(theme.FOREGROUND)]
            if self.stage.layout.legend_first
            else []
        )
        self.play(*unlit, self.table[i + 1].animate.scale(1 / 1.4), run_time=theme.SHORT)

    def misses_text(self, scheme: str) -> Mobject:
        return self.words.text(
            self.words.ui("missed", k=self.n.misses[scheme]), theme.LABEL_SIZE, theme.MUTED
        ).next_to(self.row(scheme), RIGHT, buff=0.4)

    def checklist(self) -> None:
        """Row by row: how many needs each scheme misses, counted on the table."""
        self.beat("checklist")
        self.play(FadeOut(self.shown), FadeOut(self.frame), run_time=theme.SHORT)
        self.shown = None
        if not self.stage.layout.legend_first:  # at the table's scale, under it
            self.legend.scale(self.scale_factor).next_to(self.table, DOWN, buff=0.4)
        board = VGroup(self.table, self.legend)
        # the board grows to the stage with each row's count beside it (shown as it is said)
        target = VGroup(board.copy(), *[self.misses_text(s) for s in pm.SCHEMES])
        self.stage.place(target, grow=True)
        if self.stage.layout.legend_first:
            self.play(Transform(board, target[0]), run_time=theme.NORMAL)
        else:
            self.play(
                Transform(self.table, target[0][0]),
                FadeIn(self.legend.move_to(target[0][1]).match_width(target[0][1])),
                run_time=theme.NORMAL,
            )
        counts = dict(zip(pm.SCHEMES, target[1:], strict=True))
        for scheme in ("integer", "binary", "learned"):
            self.while_saying(
                scheme,
                Indicate(self.row(scheme), 1.05, color=theme.ACCENT),
                FadeIn(counts[scheme], shift=0.2 * RIGHT),
                run_time=theme.NORMAL,
            )
        self.counts = counts

    def beyond(self) -> None:
        """The sinusoid's and RoPE's rows counted, and the one need they may miss (codes
        met in training, which depends on training) circled in both."""
        self.beat("beyond")
        seen = pm.REQUIREMENTS.index("seen_length")
        cols = len(pm.REQUIREMENTS) + 1
        marks = VGroup(
            *[self.table[(pm.SCHEMES.index(s) + 1) * cols + seen + 1] for s in ("sinusoid", "rope")]
        )
        self.while_saying(
            "best",
            Indicate(VGroup(self.row("sinusoid"), self.row("rope")), 1.05, color=theme.ACCENT),
            FadeIn(VGroup(self.counts["sinusoid"], self.counts["rope"]), shift=0.2 * RIGHT),
            run_time=theme.NORMAL,
        )
        self.while_saying(
            "long",
            Circumscribe(marks, color=theme.ACCENT, run_time=theme.LONG),
            Indicate(self.legend[seen], 1.1, color=theme.ACCENT),
            run_time=theme.LONG,
        )
