"""pe-heatmap: need two (bounded), then the question a student asks: why base 10000?

The table (positions × dims, pe_math.sinusoidal) is drawn with dims down and positions
across. "dim j" is column j of the table in the lesson's layout: interleaved puts pair i
in dims (2i, 2i+1), concat in dims (i, i + d/2), so under concat a high dim can be a fast
cosine. Every claim about a chosen dim (its pair, first step) is computed for that
column. The range answers need two; the first steps show what a base costs (the slow
dims barely move from one position to the next); the last beat shows what it buys, with
numbers: how long the slowest hand takes to come round at this base and at a contrasting
one, and how many laps it turns over a text of TEXT_POSITIONS positions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arc,
    Create,
    DashedLine,
    FadeIn,
    FadeOut,
    Indicate,
    Line,
    Mobject,
    Rectangle,
    ValueTracker,
    VGroup,
    Write,
    always_redraw,
)

import pe_math as pm
from lesson.facts import PAPER_WIDTH
from lesson.registry import REGISTRY
from pe_math import Params
from scenes.kit import theme
from scenes.kit.base import LessonScene
from scenes.kit.components import (
    ClockFace,
    ColorScale,
    LiveNumber,
    PixelMap,
    bind_number,
    compact,
    formula,
)

PAPER_BASE = 10000.0  # Vaswani et al. (2017)
SMALL_BASE = 100.0  # the contrast: a base this small gives the slowest hand a short lap
TEXT_POSITIONS = 1024  # the yardstick of a long text: the slowest lap against it
MAX_POSITIONS = 256  # heat-map columns: past these a column is under a pixel wide
MAX_DIMS = 256  # heat-map rows; a wider model shows every s-th dim plus the chosen ones
LOG_TICKS = 4  # at most this many decade labels under the bars
DIGITS = 2  # decimals of the table's min and max, and of a curve's range
TINY_STEP = 1e-3  # a first step below this is "almost nothing" beside the fastest, about 0.84
GAP = 0.4
SWEEP = 4.0  # seconds for the slowest hands to run through the text

# Outline colours that stand out on the blue–orange heat map.
DIM_COLORS = (theme.WORD_C, theme.ACCENT, theme.PINK, theme.WORD_A)


@dataclass(frozen=True)
class Layout:
    """Scene-unit sizes for one frame shape: the heat image (width, height), and whether
    the slot sits under the heat map (else beside it). The bars take the rest of the width."""

    image: tuple[float, float]
    stacked: bool
    base_columns: bool  # the base panel's two lists side by side (else one under the other)


LAYOUTS = {
    "wide": Layout(image=(5.4, 5.5), stacked=False, base_columns=False),
    "tall": Layout(image=(2.9, 6.2), stacked=True, base_columns=False),
    "square": Layout(image=(3.1, 1.95), stacked=True, base_columns=True),
}


@dataclass(frozen=True)
class PeHeatmapNumbers:
    """Every number PeHeatmap shows, computed by pe_math (JSON-ready)."""

    max_len: int
    shown_len: int  # positions drawn: 0 … shown_len − 1
    d_model: int
    base: float
    layout: str
    variant: str
    rows: list[int]  # the dims drawn as heat-map rows, top to bottom
    stride: int  # 1, or every stride-th dim of a wide model
    table: list[list[float]]  # shown positions × rows
    value_min: float
    value_max: float
    int_last: float  # the integer encoding at the last shown position
    dims: list[int]  # the chosen dims, in the order given
    dim_fn: list[str]  # "sin" or "cos"
    dim_pair: list[int]
    dim_period: list[float]
    steps: list[float]  # |PE(1) − PE(0)| per row
    step_max: float  # the largest first step of any dim: the fastest pair's sine, sin 1
    step_min: float  # the smallest: the slowest pair's cosine, 2·sin²(ω/2), never a float 0
    dim_steps: list[float]  # the same at the chosen dims
    step_decades: list[int]  # log10 tick exponents under the bars, top first
    slowest_pair: int
    slowest_dims: list[int]
    context: int  # positions in the text the slowest lap is measured against
    bases: list[float]  # this lesson's base, then the contrast
    slowest_lap: list[float]  # the slowest pair's period in positions, per base
    lap_said: list[float]  # the same rounded as the screen shows it (compact's digits)
    context_laps: list[float]  # its laps across positions 0 … context − 1, per base
    laps_said: list[float]  # the same rounded as the screen shows it
    context_angle: list[float]  # its angle at position context − 1 (radians), per base
    repeat_gap: list[int]  # round(lap) if that fits in the context, else 0
    repeat_deg: list[float]  # how far apart the hand is at 0 and at repeat_gap, in degrees
    lines: dict[str, str]  # beat -> which of its narration alternatives holds here
    paper_width: int  # the width of the paper's base model


def contrast_base(base: float) -> float:
    """The base set beside this lesson's: a small one, or the paper's if this one is small."""
    return SMALL_BASE if base > SMALL_BASE else PAPER_BASE


def said_like_screen(x: float) -> float:
    """`x` rounded as compact() shows it: whole above 100, else 3 significant digits
    (and 3 significant digits from a million on, where speech names the scale)."""
    if 100 <= abs(x) < 1e6:
        return float(round(x))
    return float(f"{x:.3g}")


def shown_rows(d_model: int, dims: Sequence[int]) -> tuple[list[int], int]:
    """The dims drawn as rows: all of them, or every s-th plus the chosen ones."""
    stride = max(1, math.ceil(d_model / MAX_DIMS))
    rows = set(range(0, d_model, stride)) | set(dims)
    return sorted(rows), stride


def log_decades(values: Sequence[float]) -> list[int]:
    """Decade exponents from 10^0 down past the smallest positive value, at most LOG_TICKS."""
    positive = [v for v in values if v > 0]
    low = math.floor(math.log10(min(positive))) if positive else -1
    low = min(low, -1)
    step = max(1, math.ceil(-low / (LOG_TICKS - 1)))
    ticks = list(range(0, low - 1, -step))
    if ticks[-1] > low:
        ticks.append(ticks[-1] - step)
    return ticks


def spread(ys: Sequence[float], gap: float) -> list[float]:
    """Move label heights apart to at least `gap`, keeping their order and mean."""
    order = sorted(range(len(ys)), key=lambda k: -ys[k])
    placed = [ys[k] for k in order]
    for _ in range(len(placed)):
        for a in range(1, len(placed)):
            placed[a] = min(placed[a], placed[a - 1] - gap)
        shift = (sum(ys) - sum(placed)) / max(len(placed), 1)
        placed = [y + shift for y in placed]
        ok = all(placed[a - 1] - placed[a] >= gap - 1e-9 for a in range(1, len(placed)))
        if ok:
            break
    out = [0.0] * len(ys)
    for k, y in zip(order, placed, strict=True):
        out[k] = y
    return out


def tex_power(exponent: int) -> str:
    return "1" if exponent == 0 else rf"10^{{{exponent}}}"


def first_steps(w: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """|PE(1) − PE(0)| per dim at its pair's speed `w`: |sin ω| for a sine dim, and
    1 − cos ω = 2·sin²(ω/2) for a cosine dim (the half-angle form keeps a tiny step from
    cancelling to a float 0)."""
    is_sin = np.zeros(len(w), dtype=bool)
    is_sin[pairs[:, 0]] = True
    return np.where(is_sin, np.abs(np.sin(w)), 2 * np.sin(w / 2) ** 2)


def slowest_hand(d: int, base: float, variant: str) -> tuple[float, float, float, int, float]:
    """The slowest pair at `base`: its lap, its laps and angle over a text of
    TEXT_POSITIONS, the lap rounded if it fits in that text (else 0), and how many degrees
    it misses a full turn by there."""
    slowest = d // 2 - 1
    lap = float(pm.periods(d, base, variant)[slowest])
    angle = float(pm.clock_angles(TEXT_POSITIONS - 1, d, base, variant)[slowest])
    gap = round(lap) if round(lap) < TEXT_POSITIONS else 0
    miss = float(pm.clock_angles(gap, d, base, variant)[slowest]) - 2 * np.pi if gap else 0.0
    return lap, angle / (2 * np.pi), angle, gap, abs(math.degrees(miss))


class PeHeatmap(LessonScene, layouts=LAYOUTS):
    """The PE matrix as a heat map: its range, its dims' first steps, the base's lap."""

    slug: ClassVar[str] = "pe-heatmap"

    # ------------------------------------------------------------------ numbers
    @classmethod
    def numbers(cls, params: Params) -> PeHeatmapNumbers:
        d, base, layout, variant = params.heat_d_model, params.base, params.layout, params.variant
        n = min(params.max_len, MAX_POSITIONS)
        dims = list(dict.fromkeys(params.heat_dims))
        pairs = pm.pair_dims(d, layout)
        slowest = d // 2 - 1
        rows, stride = shown_rows(d, [*dims, *pairs[slowest].tolist()])
        full = pm.sinusoidal(np.arange(n), d, base, layout, variant)
        pair_of = np.empty(d, dtype=int)
        pair_of[pairs[:, 0]] = pair_of[pairs[:, 1]] = np.arange(d // 2)
        omega = pm.frequencies(d, base, variant)
        period = pm.periods(d, base, variant)
        steps = first_steps(omega[pair_of], pairs)
        bases = [base, contrast_base(base)]
        laps, ctx_laps, ctx_angle, gaps, degs = zip(
            *(slowest_hand(d, b, variant) for b in bases), strict=True
        )
        one_pair = "one" if d == 2 else "many"
        return PeHeatmapNumbers(
            paper_width=PAPER_WIDTH,
            lines={
                # the slowest dim's first step said as "almost nothing" when under a thousandth
                # (about 1e-8 at the defaults), rather than "less than 0.01"
                "movement": "tiny" if d > 2 and steps.min() < TINY_STEP else one_pair,
                "base": one_pair,
            },
            max_len=params.max_len,
            shown_len=n,
            d_model=d,
            base=base,
            layout=layout,
            variant=variant,
            rows=rows,
            stride=stride,
            table=full[:, rows].tolist(),
            value_min=float(full.min()),
            value_max=float(full.max()),
            int_last=float(pm.integer_encoding([n - 1], 1)[0, 0]),
            dims=dims,
            dim_fn=["sin" if pairs[pair_of[j], 0] == j else "cos" for j in dims],
            dim_pair=[int(pair_of[j]) for j in dims],
            dim_period=[float(period[pair_of[j]]) for j in dims],
            steps=steps[rows].tolist(),
            step_max=float(steps.max()),
            step_min=float(steps.min()),
            dim_steps=steps[dims].tolist(),
            step_decades=log_decades(steps[rows]),
            slowest_pair=slowest,
            slowest_dims=pairs[slowest].tolist(),
            context=TEXT_POSITIONS,
            bases=bases,
            slowest_lap=list(laps),
            lap_said=[said_like_screen(lap) for lap in laps],
            context_laps=list(ctx_laps),
            laps_said=[said_like_screen(x) for x in ctx_laps],
            context_angle=list(ctx_angle),
            repeat_gap=list(gaps),
            repeat_deg=list(degs),
        )

    # ---------------------------------------------------------------- construct
    def construct(self) -> None:
        self.n = self.numbers(self.params)
        self.colors = [DIM_COLORS[k % len(DIM_COLORS)] for k in range(len(self.n.dims))]
        self.pos = ValueTracker(0)
        self.title_card()
        self.show_matrix()
        self.show_range()
        self.show_movement()
        self.show_base()
        self.takeaway()

    # ------------------------------------------------------------------- layout
    def build_stage(self) -> None:
        """The heat map, and one slot that shows each beat's panel in turn.

        16:9: the slot beside the heat map; 9:16 and 1:1: under it. The bar chart of first
        steps always sits right of the image, one bar per heat-map row.
        """
        self.heat = self.build_heat()
        if self.stage.layout.stacked:
            slot_w = self.stage.width()
        else:
            slot_w = self.stage.width() - self.heat.width - GAP
        self.formula_panel = self.build_formula(slot_w)
        self.range_panel = self.build_range(slot_w)
        self.base_panel = self.build_base(slot_w)
        panels = [self.formula_panel, self.range_panel, self.base_panel]
        for other in panels[1:]:
            other.move_to(panels[0])
        slot = VGroup(*panels)
        if self.stage.layout.stacked:  # the bars go right of the image: keep the heat map left
            page = VGroup(self.heat, slot).arrange(DOWN, buff=GAP)
            self.heat.align_to(slot, LEFT)
        else:
            page = VGroup(self.heat, slot).arrange(RIGHT, buff=GAP)
        for panel in panels:  # each panel at the top of the slot
            panel.align_to(slot, UP)
        self.bars = self.build_bars()
        page.add(self.bars)
        self.stage.place(page)

    def heat_tick(self, words: str, color=theme.MUTED) -> Mobject:
        return self.words.text(words, theme.SMALL_SIZE, color)

    def build_heat(self) -> VGroup:
        n = self.n
        width, height = self.stage.layout.image
        self.image = PixelMap(np.asarray(n.table).T, width, height)  # dims down
        self.row_h = height / len(n.rows)
        last = n.shown_len - 1
        key = "heat_title" if n.shown_len == n.max_len else "heat_title_part"
        title = self.words.label(
            key,
            theme.BODY_SIZE,
            max_width=width + 0.9,  # the bars' heading takes the room right of the image
            positions=n.shown_len,
            total=n.max_len,
            dims=n.d_model,
        )
        # left: the dim axis, its ends muted, the chosen dims in their colours (later)
        self.dim_axis = self.words.label("dim_axis", theme.SMALL_SIZE, theme.MUTED)
        tags = [self.heat_tick(str(j), c) for j, c in zip(n.dims, self.colors, strict=True)]
        ends = [self.heat_tick("0"), self.heat_tick(str(n.d_model - 1))]
        ys = spread([self.row_y(j) for j in n.dims], tags[0].height + 0.08)
        for tag, y in zip(tags, ys, strict=True):
            tag.next_to(self.image, LEFT, buff=0.15).set_y(y)
        ends[0].next_to(self.image, LEFT, buff=0.15).align_to(self.image, UP)
        ends[1].next_to(self.image, LEFT, buff=0.15).align_to(self.image, DOWN)
        self.tags = VGroup(*tags)
        self.ends = VGroup(*ends)
        self.covered_ends = VGroup(*[e for e in ends if any(_meets(e, t) for t in tags)])
        column = VGroup(*tags, *ends)
        self.dim_axis.rotate(math.pi / 2).next_to(column, LEFT, buff=0.12)
        start = self.heat_tick("0").next_to(self.image, DOWN, buff=0.1).align_to(self.image, LEFT)
        end = self.heat_tick(str(last)).next_to(self.image, DOWN, buff=0.1)
        end.align_to(self.image, RIGHT)
        axis = self.words.label("position_axis", theme.SMALL_SIZE, theme.MUTED)
        axis.next_to(self.image, DOWN, buff=0.1)
        self.x_ticks = VGroup(start, end, axis) if last > 0 else VGroup(start, axis)
        if last > 0 and axis.get_left()[0] < start.get_right()[0] + 0.1:
            axis.next_to(start, RIGHT, buff=0.2)
        self.scale = ColorScale(-1.0, 1.0, height=height * 0.7)
        self.scale.next_to(self.image, RIGHT, buff=0.3)
        self.notes = VGroup()
        if n.stride > 1:
            self.notes.add(
                self.words.label(
                    "every_dim",
                    theme.SMALL_SIZE,
                    theme.MUTED,
                    max_width=width + 1.0,
                    s=n.stride,
                    d=n.d_model,
                ).next_to(self.x_ticks, DOWN, buff=0.1)
            )
        self.outlines = VGroup(
            *[self.row_outline(j, c) for j, c in zip(n.dims, self.colors, strict=True)]
        )
        self.slow_outline = VGroup(*[self.row_outline(j, theme.FOREGROUND) for j in n.slowest_dims])
        body = VGroup(self.image, self.dim_axis, self.ends, self.x_ticks, self.scale, self.notes)
        title.next_to(body, UP, buff=0.25).align_to(self.dim_axis, LEFT)
        self.heat_title = title
        return VGroup(title, body, self.tags, self.outlines, self.slow_outline)

    def row_y(self, dim: int) -> float:
        r = self.n.rows.index(dim)
        return self.image.get_top()[1] - (r + 0.5) * self.row_h

    def row_outline(self, dim: int, color) -> Rectangle:
        h = max(self.row_h, 0.06) + 0.06
        return Rectangle(
            width=self.image.width + 0.08, height=h, stroke_color=color, stroke_width=2.5
        ).move_to([self.image.get_x(), self.row_y(dim), 0])

    def text_width(self, slot_w: float) -> float:
        return slot_w - 0.2

    def build_formula(self, slot_w: float) -> VGroup:
        """The formula that fills the table, with this lesson's base, width and layout."""
        n = self.n
        d = n.d_model
        exponent = rf"2i/{d}" if n.variant == "paper" else rf"i/{max(d // 2 - 1, 1)}"
        dims = (r"2i", r"2i+1") if n.layout == "interleaved" else (r"i", rf"i+{d // 2}")
        base = compact(n.base).replace(",", "{,}")
        lines = VGroup(
            *[
                formula(
                    rf"\mathrm{{PE}}(p,\,{dim}) = \{fn}\!\left(p \,/\, {base}^{{{exponent}}}\right)",
                    size=theme.BODY_SIZE * 1.35,
                )
                for dim, fn in zip(dims, ("sin", "cos"), strict=True)
            ]
        ).arrange(DOWN, buff=0.25, aligned_edge=LEFT)
        lines.scale_to_fit_width(min(lines.width, self.text_width(slot_w)))
        w = self.text_width(slot_w)
        notes = VGroup(
            self.words.label(f"layout_{n.layout}", theme.LABEL_SIZE, max_width=w, last=d // 2 - 1),
            self.words.label("reading", theme.LABEL_SIZE, theme.MUTED, max_width=w),
        ).arrange(DOWN, buff=0.2)
        return VGroup(lines, notes).arrange(DOWN, buff=0.4)

    def build_range(self, slot_w: float) -> VGroup:
        n = self.n
        w = self.text_width(slot_w)
        low = self.words.label("min", theme.LABEL_SIZE, theme.MUTED)
        low_v = self.words.text(theme.fmt(n.value_min, DIGITS), theme.HEADING_SIZE, theme.NEGATIVE)
        high = self.words.label("max", theme.LABEL_SIZE, theme.MUTED)
        high_v = self.words.text(theme.fmt(n.value_max, DIGITS), theme.HEADING_SIZE, theme.POSITIVE)
        row = VGroup(
            VGroup(low, low_v).arrange(RIGHT, buff=0.2),
            VGroup(high, high_v).arrange(RIGHT, buff=0.2),
        ).arrange(RIGHT, buff=0.6)
        self.range_values = row
        size = theme.LABEL_SIZE if self.stage.layout.stacked else theme.BODY_SIZE
        bounded = self.words.label("bounded", size, theme.ACCENT, max_width=w)
        integer = self.words.label(
            "integer",
            size,
            max_width=w,
            value=compact(n.int_last),
            last=n.shown_len - 1,
            order=REGISTRY["integer-scale"].order,  # its place in the lesson, which may move
        )
        body = VGroup(row, bounded, integer).arrange(DOWN, buff=0.3)
        return body

    def build_bars(self) -> VGroup:
        """|PE(1) − PE(0)| per heat-map row, on a log scale, right of the image."""
        n = self.n
        low = n.step_decades[-1]
        tags = [
            self.words.text(compact(v), theme.SMALL_SIZE, c)
            for v, c in zip(n.dim_steps, self.colors, strict=True)
        ]
        tag_w = max(t.width for t in tags)
        left = self.image.get_right()[0] + 0.3
        right = self.heat.get_left()[0] + self.stage.width()
        length = max(1.0, right - left - tag_w - 0.5)

        def x_of(value: float) -> float:
            if value <= 0:
                return left
            share = (math.log10(value) - low) / (0 - low)
            return left + length * float(np.clip(share, 0, 1))

        thick = max(0.8 * self.row_h, 0.02)
        chosen = {j: k for k, j in enumerate(n.dims)}
        bars = VGroup()
        for dim, value in zip(n.rows, n.steps, strict=True):
            w = x_of(value) - left
            if w <= 1e-4:
                continue
            color = self.colors[chosen[dim]] if dim in chosen else theme.MUTED
            bar = Rectangle(width=w, height=thick, stroke_width=0, fill_color=color)
            bar.set_fill(color, opacity=1 if dim in chosen else 0.55)
            bars.add(bar.move_to([left + w / 2, self.row_y(dim), 0]))
        top, bottom = self.image.get_top()[1], self.image.get_bottom()[1]
        grid = VGroup()
        marks = VGroup()
        for e in n.step_decades:
            x = left + length * (e - low) / (0 - low)
            grid.add(
                DashedLine([x, top, 0], [x, bottom, 0], dash_length=0.06).set_stroke(
                    theme.MUTED, 1, opacity=0.4
                )
            )
            marks.add(
                formula(tex_power(e), size=theme.SMALL_SIZE / 0.72, color=theme.MUTED).next_to(
                    [x, bottom, 0], DOWN, buff=0.1
                )
            )
        kept = [marks[0]]
        floor = self.x_ticks.get_right()[0] + 0.15  # the position axis's last tick
        for mark in marks[1:]:  # crowded decades: skip a label that would touch another
            if floor < mark.get_left()[0] and mark.get_right()[0] < kept[-1].get_left()[0] - 0.1:
                kept.append(mark)
        marks = VGroup(*kept)
        ys = spread([self.row_y(j) for j in n.dims], tags[0].height + 0.1)
        leaders = VGroup()
        tag_x = left + length + 0.35
        for tag, y, dim, color in zip(tags, ys, n.dims, self.colors, strict=True):
            tag.move_to([tag_x, y, 0], aligned_edge=LEFT)
            end = x_of(n.steps[n.rows.index(dim)])
            leaders.add(
                Line([end + 0.05, self.row_y(dim), 0], [tag_x - 0.08, y, 0]).set_stroke(
                    color, 1.5, opacity=0.8
                )
            )
        width = right - left + 0.2
        head = self.words.label("step_title", theme.SMALL_SIZE, max_width=max(width, 2.0))
        head.next_to(VGroup(bars, grid), UP, buff=0.15).align_to(grid, LEFT)
        head.set_x(max(head.get_x(), left + head.width / 2))
        self.bar_head = head
        self.bar_parts = (grid, marks, bars, leaders, VGroup(*tags))
        return VGroup(head, grid, marks, bars, leaders, *tags)

    def build_base(self, slot_w: float) -> VGroup:
        n = self.n
        w = self.text_width(slot_w)
        across = self.stage.layout.base_columns
        col_w = (w - GAP) / 2 if across else w - 2.2
        head = self.words.label("base_title", theme.LABEL_SIZE, theme.ACCENT, max_width=w)
        context = self.words.label(
            "context", theme.SMALL_SIZE, theme.MUTED, max_width=w, n=compact(n.context)
        )
        # laid out at its widest value, the last position
        self.counter = LiveNumber(n.context - 1, num_decimal_places=0, font_size=theme.LABEL_SIZE)
        self.counter.set_color(theme.ACCENT)
        counter = VGroup(self.words.label("position_is", theme.LABEL_SIZE), self.counter)
        counter.arrange(RIGHT, buff=0.15)
        bind_number(self.counter, lambda: round(self.pos.get_value()))
        radius = 0.4 if across else 0.75
        self.faces, self.sweeps, self.base_words = [], [], []
        rows = VGroup()
        for k, b in enumerate(n.bases):
            color = theme.ACCENT if k == 0 else theme.WORD_A
            face = ClockFace(radius=radius, color=color)
            key = "this_base" if k == 0 else "other_base"
            name = self.words.label(key, theme.LABEL_SIZE, color, b=compact(b))
            lap = self.words.label(
                "slowest_lap", theme.SMALL_SIZE, max_width=col_w, lap=compact(n.slowest_lap[k])
            )
            if n.repeat_gap[k]:
                verdict = self.words.label(
                    "lap_short",
                    theme.SMALL_SIZE,
                    color,
                    max_width=col_w,
                    laps=compact(n.context_laps[k]),
                    gap=n.repeat_gap[k],
                    deg=compact(n.repeat_deg[k]),
                )
            else:
                verdict = self.words.label(
                    "lap_long",
                    theme.SMALL_SIZE,
                    color,
                    max_width=col_w,
                    share=compact(n.context_laps[k]),
                    n=compact(n.context),
                )
            words = VGroup(name, lap, verdict).arrange(DOWN, buff=0.1, aligned_edge=LEFT)
            if across:
                row = VGroup(face, words).arrange(DOWN, buff=0.15)
            else:
                row = VGroup(face, words).arrange(RIGHT, buff=0.3)
            rows.add(row)
            self.faces.append(face)
            self.base_words.append(words)
        if across:
            rows.arrange(RIGHT, buff=GAP, aligned_edge=UP)
        else:
            rows.arrange(DOWN, buff=0.3, aligned_edge=LEFT)
        line = VGroup(context, counter).arrange(RIGHT, buff=0.4)
        if line.width > w:
            line.arrange(DOWN, buff=0.12)
        top = VGroup(head, line).arrange(DOWN, buff=0.15)
        body = VGroup(top, rows).arrange(DOWN, buff=0.3)
        self.base_rows = rows
        self.base_top = top
        self.counter.set_value(0)
        return body

    def hand_and_trail(self, k: int) -> tuple[Mobject, Mobject]:
        """The slowest hand at the tracker's position for base k, and the path it swept."""
        n, face = self.n, self.faces[k]
        color = face.color
        omega = n.context_angle[k] / (n.context - 1)

        def angle() -> float:
            return self.pos.get_value() * omega

        def trail() -> Mobject:
            sweep = min(angle(), 2 * math.pi)
            return Arc(
                radius=0.55 * face.dial.width / 2,
                start_angle=math.pi / 2,
                angle=-max(sweep, 1e-4),
                arc_center=face.dial.get_center(),
                stroke_color=color,
                stroke_width=4,
            )

        return face.hand(angle), always_redraw(trail)

    # -------------------------------------------------------------------- beats
    def show_matrix(self) -> None:
        self.beat("matrix")
        self.build_stage()
        self.play(Write(self.heat_title), run_time=theme.NORMAL)
        self.play(
            FadeIn(self.image),
            FadeIn(self.dim_axis),
            FadeIn(self.ends),
            FadeIn(self.x_ticks),
            FadeIn(self.notes),
            run_time=theme.NORMAL,
        )
        self.play(FadeIn(self.scale), run_time=theme.SHORT)
        self.play(FadeIn(self.formula_panel[0], shift=0.1 * UP), run_time=theme.NORMAL)
        self.play(FadeIn(self.formula_panel[1]), run_time=theme.SHORT)
        self.wait(theme.LONG)

    def show_range(self) -> None:
        self.beat("range")
        self.play(FadeOut(self.formula_panel), run_time=theme.SHORT)
        self.play(FadeIn(self.range_values, shift=0.1 * UP), run_time=theme.NORMAL)
        self.play(Indicate(self.scale, color=theme.ACCENT), run_time=theme.NORMAL)
        self.play(FadeIn(self.range_panel[1]), run_time=theme.SHORT)
        self.play(FadeIn(self.range_panel[2]), run_time=theme.NORMAL)
        self.wait(theme.LONG)

    def show_movement(self) -> None:
        self.beat("movement")  # what a base costs: how little the slow dims move in one step
        self.play(FadeOut(self.range_panel), FadeOut(self.scale), run_time=theme.SHORT)
        self.play(
            FadeOut(self.covered_ends),
            FadeIn(self.tags),
            *[Create(o) for o in self.outlines],
            run_time=theme.NORMAL,
        )
        grid, marks, bars, leaders, tags = self.bar_parts
        self.play(FadeIn(self.bar_head), FadeIn(grid), FadeIn(marks), run_time=theme.SHORT)
        self.play(FadeIn(bars, shift=0.2 * RIGHT), run_time=theme.NORMAL)
        self.play(Create(leaders), FadeIn(tags), run_time=theme.NORMAL)
        self.wait(theme.LONG)

    def show_base(self) -> None:
        self.beat("base")  # what a base buys: how long the slowest hand takes to come round
        leaving = [self.bars, self.outlines, self.tags]
        self.play(*[FadeOut(m) for m in leaving], FadeIn(self.covered_ends), run_time=theme.SHORT)
        self.play(*[Create(o) for o in self.slow_outline], run_time=theme.SHORT)
        self.play(FadeIn(self.base_top), FadeIn(VGroup(*self.faces)), run_time=theme.NORMAL)
        moving = [m for k in range(len(self.faces)) for m in self.hand_and_trail(k)]
        self.add(*moving)
        self.play(self.pos.animate.set_value(self.n.context - 1), run_time=SWEEP)
        for words in self.base_words:
            self.play(FadeIn(words, shift=0.1 * LEFT), run_time=theme.NORMAL)
        self.wait(theme.LONG)


def _meets(a: Mobject, b: Mobject) -> bool:
    """Whether two labels' boxes touch (with a hair of room)."""
    return (
        abs(a.get_y() - b.get_y()) < (a.height + b.height) / 2 + 0.04
        and abs(a.get_x() - b.get_x()) < (a.width + b.width) / 2 + 0.04
    )
