"""Scene 12, recap: the five properties of the sinusoidal encoding, one small card each.

Bounded (against the integer position), smooth (against binary's cliff), no parameters
(against a learned table), extrapolates (a learned table has no row past its end),
precomputable (one table, looked up and added). Then the list of requirements from the
first chapter, ticked off for every scheme the lesson met.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    DashedLine,
    Dot,
    FadeIn,
    FadeOut,
    Line,
    Mobject,
    Rectangle,
    VGroup,
    Write,
)

import pe_math as pm
from pe_math import Params
from scenes import theme
from scenes.base import LessonScene
from scenes.components import Checklist, Mark, PixelMap, compact, formula, panel, spread_indices
from scenes.facts import GPT2_POSITIONS, GPT2_WIDTH

SIN_PARAMETERS = 0  # the formula has nothing to train: no seed, no weights
MAX_SIN_BARS = 32  # adjacent steps drawn for the sinusoidal encoding
BINARY_BITS_SHOWN = 5  # binary steps are drawn over 2^this positions at most (+ the cliff)
MAX_HEAT = 64  # rows and columns of the precomputed table drawn as a heat map
MAX_GRID = 10  # rows and columns of the learned table's mini grid
DIGITS = 2
PAD = 0.18  # inside a card
GAP = 0.25  # between cards
TITLE_BUFF = 0.15  # under a card's title
LINE_BUFF = 0.1  # between the lines of a card

# Per frame shape: grid columns and the card size before the page is fitted to the stage.
SIZES = {
    "wide": dict(cols=3, card_w=4.35, card_h=3.5, pad=PAD, gap=GAP),
    "tall": dict(cols=2, card_w=3.55, card_h=4.3, pad=PAD, gap=GAP),
    "square": dict(cols=2, card_w=3.6, card_h=2.33, pad=0.12, gap=0.15),
}
PROPERTIES = ("bounded", "smooth", "params", "extrapolate", "precompute")


@dataclass(frozen=True)
class RecapNumbers:
    """Every number Recap shows, computed by pe_math (JSON-ready)."""

    d_model: int
    max_len: int
    # 1. bounded
    n_values: int
    pe_min: float
    pe_max: float
    int_position: int
    int_value: float
    # 2. smooth
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
    # 3. no parameters
    learned_max_len: int
    learned_params: int
    gpt2_positions: int
    gpt2_width: int
    gpt2_params: int
    sin_params: int
    # 4. extrapolates
    probe: int
    pe_probe: list[float]
    learned_raises: bool
    # 5. precomputable
    table_shape: list[int]
    table_values: int
    table_error: float  # max |table − the formula evaluated position by position|
    heat_positions: list[int]
    heat_dims: list[int]
    heat: list[list[float]]  # dims × positions
    # the list from the first chapter, ticked off
    checks: dict[str, dict[str, bool]]  # scheme → requirement → met
    misses: dict[str, int]  # scheme → requirements missed
    lines: dict[str, str]  # beat → the narration alternative these numbers make true


def probe_position(learned_max_len: int) -> int:
    """A position past the learned table's last row (a quarter of its length further)."""
    return learned_max_len + max(1, learned_max_len // 4)


class Recap(LessonScene):
    """Five cards, one per property of the sinusoidal encoding, then the requirements ticked off."""

    slug: ClassVar[str] = "recap"
    SHAPES: ClassVar[frozenset[str]] = frozenset({"wide", "tall", "square"})

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
        bin_heights = pm.adjacent_distances(pm.binary_encoding(np.arange(shown), n)).tolist()
        bin_steps = list(range(shown - 1))
        top = 2 ** (n - 1)  # top − 1 → top flips every bit
        cliff_bits = pm.binary_encoding([top - 1, top], n)
        cliff_distance = float(pm.adjacent_distances(cliff_bits)[0])
        if top - 1 not in bin_steps:  # the cliff lies past the drawn steps
            bin_steps.append(top - 1)
            bin_heights.append(cliff_distance)

        L = params.learned_max_len
        learned = pm.learned_table(L, d)
        probe = probe_position(L)
        try:
            pm.learned_lookup(learned, [probe])
            raises = False
        except pm.PositionOutOfRange:
            raises = True

        heat_positions = spread_indices(n_pos, MAX_HEAT)
        heat_dims = spread_indices(d, MAX_HEAT)
        verdicts = pm.verdicts(params)
        all_met = [s for s, v in verdicts.items() if v.met == len(pm.REQUIREMENTS)]
        return RecapNumbers(
            d_model=d,
            max_len=n_pos,
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
            learned_max_len=L,
            learned_params=int(learned.size),
            gpt2_positions=GPT2_POSITIONS,
            gpt2_width=GPT2_WIDTH,
            gpt2_params=GPT2_POSITIONS * GPT2_WIDTH,
            sin_params=SIN_PARAMETERS,
            probe=probe,
            pe_probe=pm.sinusoidal([probe], d, base, layout, variant)[0].tolist(),
            learned_raises=raises,
            table_shape=list(table.shape),
            table_values=int(table.size),
            table_error=float(np.abs(table - rows).max()),
            heat_positions=heat_positions,
            heat_dims=heat_dims,
            heat=table[np.ix_(heat_positions, heat_dims)].T.tolist(),
            checks={s: v.checks for s, v in verdicts.items()},
            misses={s: len(pm.REQUIREMENTS) - v.met for s, v in verdicts.items()},
            lines={"checklist": "+".join(all_met) or "none"},
        )

    # ---------------------------------------------------------------- construct
    def construct(self) -> None:
        self.n = self.numbers(self.params)
        self.size = SIZES[self.shape]
        self.title_card()
        self.show_bounded()
        self.show_property("smooth")
        self.show_property("params")
        self.show_property("extrapolate")
        self.show_property("precompute")
        self.checklist()
        self.takeaway()

    # ------------------------------------------------------------------- layout
    @property
    def roomy(self) -> bool:
        """Whether a card has room for its second lines (not in a square frame)."""
        return self.shape != "square"

    def inner_width(self) -> float:
        return self.size["card_w"] - 2 * self.size["pad"]

    def build_stage(self) -> None:
        """Five cards (a frame, a title, a body) in a grid."""
        builders = {
            "bounded": self.bounded_body,
            "smooth": self.smooth_body,
            "params": self.params_body,
            "extrapolate": self.extrapolate_body,
            "precompute": self.precompute_body,
        }
        w, h, pad = self.size["card_w"], self.size["card_h"], self.size["pad"]
        self.cards: dict[str, tuple[Mobject, Mobject, Mobject]] = {}
        cells = VGroup()
        for i, key in enumerate(PROPERTIES):
            title = self.label(
                f"title_{key}", theme.LABEL_SIZE, theme.MUTED, max_width=self.inner_width(), i=i + 1
            )
            room = h - 2 * pad - title.height - TITLE_BUFF
            body = builders[key](self.inner_width(), room)
            frame = panel(w, h)
            title.next_to(frame.get_top(), DOWN, buff=pad).align_to(frame, LEFT).shift(pad * RIGHT)
            body.next_to(title, DOWN, buff=TITLE_BUFF).align_to(title, LEFT)
            self.cards[key] = (frame, title, body)
            cells.add(VGroup(frame, title, body))
        cells.arrange_in_grid(cols=self.size["cols"], buff=self.size["gap"])
        self.fit_to_stage(cells)

    # ------------------------------------------------------------- card bodies
    def line(self, key: str, width: float, color=theme.ACCENT, **values) -> Mobject:
        return self.label(key, theme.SMALL_SIZE, color, max_width=width, **values)

    def bounded_body(self, w: float, h: float) -> VGroup:
        """Two bars on one scale from 0: the largest |PE| value and the integer position."""
        n = self.n
        sin_value = max(abs(n.pe_min), abs(n.pe_max))
        scale = max(n.int_value, sin_value, 1e-9)
        rows = [
            ("bounded_sin", sin_value, theme.WORD_A, theme.fmt(sin_value, DIGITS)),
            ("bounded_int", n.int_value, theme.WORD_B, compact(n.int_value)),
        ]
        names = [self.line(key, w, color) for key, _, color, _ in rows]
        values = [self.text(text, theme.SMALL_SIZE, color) for _, _, color, text in rows]
        name_w = max(m.width for m in names)
        track = w - name_w - max(m.width for m in values) - 0.3
        bar_h = 0.3 if self.roomy else 0.2
        group = VGroup()
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
        group.arrange(DOWN, buff=0.3 if self.roomy else 0.15, aligned_edge=LEFT)
        parts = [group]
        if self.roomy:
            where = self.line("bounded_int_at", w, theme.MUTED, p=n.int_position)
            parts.append(where)
        parts.append(
            self.line(
                "bounded_range",
                w,
                n=f"{n.n_values:,}",
                lo=theme.fmt(n.pe_min, DIGITS),
                hi=theme.fmt(n.pe_max, DIGITS),
            )
        )
        return VGroup(*parts).arrange(DOWN, buff=0.2, aligned_edge=LEFT)

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

    def smooth_body(self, w: float, h: float) -> VGroup:
        """The adjacent-step distances: flat for the formula, spiky for binary, on one scale."""
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
        return VGroup(sin_bars, sin_label, bin_bars, bin_label).arrange(
            DOWN, buff=LINE_BUFF, aligned_edge=LEFT
        )

    def params_body(self, w: float, h: float) -> VGroup:
        """The formula, with nothing to train, beside a learned table's grid of trained cells."""
        n = self.n
        rows, cols = min(n.learned_max_len, MAX_GRID), min(n.d_model, MAX_GRID)
        cell = (0.6 if self.roomy else 0.3) / max(rows, cols)
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
        sin = formula(
            r"\sin(p\,\omega_i)",
            size=theme.LABEL_SIZE * 1.3,
            color=theme.WORD_A,
        )
        versus = self.label("versus", theme.SMALL_SIZE, theme.MUTED)
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
        return VGroup(visual, lines).arrange(
            DOWN, buff=0.2 if self.roomy else 0.12, aligned_edge=LEFT
        )

    def extrapolate_body(self, w: float, h: float) -> VGroup:
        """Two strips on one position axis: the learned table stops at its last row, the
        formula runs on; the probe position is a dot on one and a cross on the other."""
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

        strip_h, gap = 0.22, (0.4 if self.roomy else 0.28)
        ys = (0.0, -gap)
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
        for name, y in zip(names, ys, strict=True):
            name.move_to([0, y, 0], aligned_edge=LEFT)
        mark = x(n.probe)
        dot = Dot([mark, ys[0], 0], radius=0.07, color=theme.ACCENT)
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
        ticks = VGroup(
            *[
                self.text(str(p), theme.SMALL_SIZE, color).move_to([x(p), 0, 0])
                for p, color in (
                    (0, theme.MUTED),
                    (n.learned_max_len, theme.MUTED),
                    (n.probe, theme.ACCENT),
                )
            ]
        )
        ticks.set_y(low - (0.1 if self.roomy else 0.05) - ticks.height / 2)
        ticks[0].align_to(sin_strip, LEFT)
        # the probe's tick moves right of the table's when they would touch
        if ticks[2].get_left()[0] < ticks[1].get_right()[0] + 0.1:
            ticks[2].next_to(ticks[1], RIGHT, buff=0.1)
        visual = VGroup(*names, sin_strip, learned_strip, missing, edge, dot, cross, ticks)
        head = ", ".join(theme.fmt(v, DIGITS) for v in n.pe_probe[:2])
        more = ", …" if len(n.pe_probe) > 2 else ""
        parts = [visual, self.line("extra_value", w, p=n.probe, v=head + more)]
        if self.roomy:  # in a square card the cross on the learned strip says it
            parts.append(self.line("extra_fails", w, theme.WORD_B, p=n.probe))
        parts.append(self.line("extra_caveat" if self.roomy else "extra_theory", w, theme.MUTED))
        return VGroup(*parts).arrange(DOWN, buff=LINE_BUFF, aligned_edge=LEFT)

    def precompute_body(self, w: float, h: float) -> VGroup:
        """The whole table as a heat map (positions across, dims down), and how it is used."""
        n = self.n
        total = self.line(
            "pre_table", w, N=n.table_shape[0], d=n.table_shape[1], k=f"{n.table_values:,}"
        )
        use = formula(r"x_p = e_p + \mathrm{PE}[p]", size=theme.LABEL_SIZE * 1.3)
        parts = [total, use]
        if self.roomy:
            parts.append(self.line("pre_use", w, theme.FOREGROUND))
        text_h = sum(m.height for m in parts) + len(parts) * LINE_BUFF
        heat_h = min(max(0.35, h - text_h - 0.05), 0.45 * w)
        heat = PixelMap(np.asarray(n.heat), width=w, height=heat_h)
        return VGroup(heat, *parts).arrange(DOWN, buff=LINE_BUFF, aligned_edge=LEFT)

    def checklist_table(self) -> VGroup:
        """Schemes down, the numbered requirements across, each cell marked from pe_math;
        the numbers' names in a legend below, as the first chapter listed them."""
        n = self.n
        numbers = [
            self.text(str(i + 1), theme.LABEL_SIZE, theme.ACCENT)
            for i in range(len(pm.REQUIREMENTS))
        ]
        cells = [VGroup(), *numbers]
        for scheme in pm.SCHEMES:
            cells.append(self.text(self.common(scheme), size=theme.LABEL_SIZE))
            cells += [Mark(n.checks[scheme][r]) for r in pm.REQUIREMENTS]
        table = VGroup(*cells).arrange_in_grid(
            rows=len(pm.SCHEMES) + 1,
            cols=len(numbers) + 1,
            buff=(0.45, 0.3),
            col_alignments="l" + "c" * len(numbers),
        )
        names = [self.text(t, size=theme.LABEL_SIZE) for t in self.requirement_names(short=True)]
        legend = Checklist(names, cols=1 if self.shape == "tall" else 2)
        heading = self.text(self.common("needs"), size=theme.HEADING_SIZE, color=theme.ACCENT)
        return VGroup(heading, table, legend).arrange(DOWN, buff=0.45)

    # -------------------------------------------------------------------- beats
    def reveal(self, key: str) -> None:
        frame, title, body = self.cards[key]
        self.play(
            title.animate.set_color(theme.ACCENT),
            frame.animate.set_stroke(theme.ACCENT),
            run_time=theme.SHORT,
        )
        self.play(FadeIn(body, shift=0.1 * UP), run_time=theme.NORMAL)
        self.wait(theme.READ)
        self.play(
            title.animate.set_color(theme.FOREGROUND),
            frame.animate.set_stroke(theme.MUTED),
            run_time=theme.SHORT,
        )

    def show_bounded(self) -> None:
        self.beat("bounded")
        self.build_stage()
        self.play(
            *[FadeIn(VGroup(frame, title)) for frame, title, _ in self.cards.values()],
            run_time=theme.NORMAL,
        )
        self.reveal("bounded")

    def show_property(self, key: str) -> None:
        self.beat(key)
        self.reveal(key)

    def checklist(self) -> None:
        """The list from the first chapter, ticked off for every scheme of the lesson."""
        self.beat("checklist")
        board = self.fit_to_stage(self.checklist_table())
        heading, table, legend = board
        cols = len(pm.REQUIREMENTS) + 1
        self.play(*[FadeOut(VGroup(*c)) for c in self.cards.values()], run_time=theme.SHORT)
        self.play(Write(heading), FadeIn(legend), FadeIn(table[:cols]), run_time=theme.NORMAL)
        for row in range(1, len(pm.SCHEMES) + 1):  # one scheme at a time, as the voice names them
            self.play(FadeIn(table[row * cols : (row + 1) * cols], shift=0.1 * RIGHT))
        self.wait(theme.LONG)
