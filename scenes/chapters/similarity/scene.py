"""similarity: need three (nearby positions, nearby codes, no jumps), then its caveat.

First the answer: every step p → p+1 has the same length, sqrt(Σ_i (2 − 2cos ω_i)),
where binary's steps jump. Then the caveat: the cosine-similarity matrix of the PE rows
is 1 on its diagonal and fades away from it, but with few clocks not steadily: row 0
dips and climbs back. A wider model's row falls far more smoothly, though not to 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from manim import (
    DOWN,
    LEFT,
    ORIGIN,
    RIGHT,
    UP,
    DashedLine,
    FadeIn,
    FadeOut,
    GrowFromEdge,
    LaggedStart,
    Line,
    Mobject,
    Rectangle,
    VGroup,
    Write,
)

import pe_math as pm
from lesson.speaker import speaker
from pe_math import Params
from scenes.kit import theme
from scenes.kit.base import LessonScene
from scenes.kit.components import ColorScale, PixelMap, WavePlot, formula, text

MAX_MAP = 128  # positions per side of a heat map; past that every s-th position is drawn
FIRST = 7  # offsets k of row 0 written out in the table
MAX_BAR_POSITIONS = 32  # positions whose steps are drawn as bars
GAP = 0.35  # between the parts of the page
ROW_DIGITS = 2
STEP_DIGITS = 3
BIN_DIGITS = 2

# per shape: heat-map side, row-plot size, bar-chart size


@dataclass(frozen=True)
class Layout:
    """Where the maps, the notes, the rows and the bars go in one frame shape."""

    map_side: float
    plot: tuple[float, float]  # the rows' plot, width and height
    bars: tuple[float, float]
    slot_under: bool  # the slot under map A, as wide as the stage (else beside it)
    # map A first stands alone over its notes (this side), the rows then take the page,
    # and a smaller map A comes back beside map B; else map A stays beside the slot
    map_a_alone: float | None
    notes_buff: float


LAYOUTS = {
    "wide": Layout(
        map_side=4.9, plot=(5.6, 2.1), bars=(11.0, 1.55), slot_under=False, map_a_alone=None,
        notes_buff=0.3,
    ),
    "tall": Layout(
        map_side=5.0, plot=(6.3, 2.3), bars=(6.3, 4.0), slot_under=True, map_a_alone=None,
        notes_buff=0.3,
    ),
    "square": Layout(
        map_side=2.8, plot=(6.3, 1.9), bars=(6.3, 1.45), slot_under=False, map_a_alone=3.8,
        notes_buff=0.15,
    ),
}  # fmt: skip

FAR_FROM_ZERO = 0.1  # a lowest similarity above this is "still far from 0"
# A row "decays" when it climbs back at most this share of how far it has fallen; the
# wider model's decay is "cleaner" when its climb is at most CLEANER of the narrower's
# and smaller by at least CLEARLY (so 1.64 against 1.60 is no verdict).
DECAYS = 0.5
CLEANER = 0.8
CLEARLY = 0.05
CLIMBS = 1e-9  # a row that rises by more than this somewhere climbs back; else it only falls


@dataclass(frozen=True)
class SimilarityNumbers:
    """Every number Similarity shows, computed by pe_math (JSON-ready)."""

    d_model: int
    wide_d: int
    max_len: int
    stride: int
    map_positions: list[int]
    matrix: list[list[float]]
    matrix_wide: list[list[float]]
    diagonal: float
    row: list[float]
    row_wide: list[float]
    rebound: float
    rebound_at: list[int]  # the dip k and the later k the row climbs back to
    rebound_wide: float
    rebound_wide_at: list[int]
    lowest: float
    lowest_wide: float
    n_bits: int
    bar_positions: int
    sin_steps: list[float]
    sin_step: float
    sin_spread: float
    checked_steps: int
    wide_step: float
    bin_steps: list[float]
    tallest: int
    tallest_ratio: float
    wider_d: int  # the wider of the two widths (either when they are equal)
    lines: dict[str, str]  # beat -> which of its narration alternatives holds here


def decays(row: Sequence[float], climb: float) -> bool:
    """Whether a row falls more than it climbs back: its climb within DECAYS of its fall."""
    return climb <= DECAYS * (1.0 - float(min(row)))


def compare_rows(d: int, row, climb: float, wide_d: int, row_wide, climb_wide: float) -> str:
    """What the two rows show about more clocks: "one" position (a single point), "same"
    width ("same_falls" if it never climbs back), "falls" (neither row climbs back: too few
    positions to tell), "cleaner" (the wider row only falls while the other climbs back, or
    it decays and climbs back clearly less), "not_cleaner" (the wider climbs back at least
    as far), else "neither" (both climb back, and the wider does not decay clearly better)."""
    if len(row) == 1:
        return "one"
    if d == wide_d:
        return "same" if climb > CLIMBS else "same_falls"
    (_, lo_row, lo), (_, hi_row, hi) = sorted(
        [(d, row, climb), (wide_d, row_wide, climb_wide)], key=lambda t: t[0]
    )
    if max(lo, hi) <= CLIMBS:
        return "falls"
    if hi >= lo:
        return "not_cleaner"
    if hi <= CLIMBS or (hi <= CLEANER * lo and lo - hi >= CLEARLY and decays(hi_row, hi)):
        return "cleaner"
    return "neither"


def climbs_back(values: Sequence[float]) -> bool:
    """Whether a curve rises again somewhere after it has fallen."""
    return largest_rebound(values)[0] > CLIMBS


def largest_rebound(row: Sequence[float]) -> tuple[float, int, int]:
    """How far a curve climbs back above its lowest point so far: (height, dip, peak).

    0 for a curve that never rises; a steady decay has none.
    """
    r = np.asarray(row, dtype=float)
    climb = r - np.minimum.accumulate(r)
    peak = int(np.argmax(climb))
    dip = int(np.argmin(r[: peak + 1]))
    return float(climb[peak]), dip, peak


def greedy_labels(labels: Sequence[Mobject], first: Sequence[int] = (), gap: float = 0.1):
    """The labels that fit side by side: those in `first`, then left to right."""
    kept: list[Mobject] = []
    order = [*first, *[i for i in range(len(labels)) if i not in first]]
    for i in order:
        m = labels[i]
        if all(
            m.get_left()[0] > k.get_right()[0] + gap or m.get_right()[0] < k.get_left()[0] - gap
            for k in kept
        ):
            kept.append(m)
    return VGroup(*kept)


def bar_chart(
    values: Sequence[float],
    width: float,
    unit: float,
    colors: Sequence,
    digits: int,
    first: Sequence[int] = (),
    size: float = theme.SMALL_SIZE,
) -> VGroup:
    """Bars on a baseline, one slot each, `unit` scene units per 1, dashed lines at the whole
    numbers they reach; a value over every bar that has room (those in `first` are served
    first). Parts: base, bars, values, grid."""
    pitch = width / max(len(values), 1)
    base = Line(ORIGIN, width * RIGHT).set_stroke(theme.MUTED, 2)
    grid = VGroup()
    for v in range(1, math.ceil(max(values, default=0)) + 1):
        y = v * unit * UP
        line = DashedLine(base.get_left() + y, base.get_right() + y, dash_length=0.08)
        tick = text(str(v), size=size, color=theme.MUTED).next_to(line, LEFT, buff=0.15)
        grid.add(line.set_stroke(theme.MUTED, 1, opacity=0.5), tick)
    bars = VGroup()
    for i, (v, c) in enumerate(zip(values, colors, strict=True)):
        bar = Rectangle(
            width=pitch * 0.7,
            height=max(v * unit, 1e-3),
            stroke_width=0,
            fill_color=c,
            fill_opacity=0.9,
        )
        bars.add(bar.move_to(base.get_left() + (i + 0.5) * pitch * RIGHT, aligned_edge=DOWN))
    marks = [
        text(theme.fmt(v, digits), size=size, color=c).next_to(bar, UP, buff=0.08)
        for v, c, bar in zip(values, colors, bars, strict=True)
    ]
    return VGroup(base, bars, greedy_labels(marks, first), grid)


class Similarity(LessonScene, layouts=LAYOUTS):
    """The similarity matrix of PE at two widths, row 0 as curves, and the step lengths."""

    slug: ClassVar[str] = "similarity"

    # ------------------------------------------------------------------ numbers
    @classmethod
    def numbers(cls, params: Params) -> SimilarityNumbers:
        d, wide_d, n = params.d_model, params.similarity_d_model, params.max_len
        base, layout, variant = params.base, params.layout, params.variant

        def table(width: int, positions) -> np.ndarray:
            return pm.sinusoidal(positions, width, base, layout=layout, variant=variant)

        stride = math.ceil(n / MAX_MAP)
        shown = np.arange(0, n, stride)
        everything = np.arange(n)
        rows = [
            [pm.cosine(t[0], t[k]) for k in range(n)]
            for t in (table(d, everything), table(wide_d, everything))
        ]
        rebound, rebound_wide = (largest_rebound(r) for r in rows)
        matrix = pm.cosine_similarity_matrix(table(d, shown))
        bars = min(2**params.n_bits, MAX_BAR_POSITIONS)
        checked = max(n, bars)
        sin_steps = pm.adjacent_distances(table(d, np.arange(checked)))
        bin_steps = pm.adjacent_distances(pm.binary_encoding(np.arange(bars), params.n_bits))
        tallest = int(np.argmax(bin_steps))
        # the map's rows all read S(0, k) at the drawn offsets k (S depends on |i − j| only)
        drawn = matrix[0] if n > 1 else []
        return SimilarityNumbers(
            d_model=d,
            wide_d=wide_d,
            max_len=n,
            stride=stride,
            map_positions=shown.tolist(),
            matrix=matrix.tolist(),
            matrix_wide=pm.cosine_similarity_matrix(table(wide_d, shown)).tolist(),
            diagonal=float(np.diag(matrix).min()),
            row=rows[0],
            row_wide=rows[1],
            rebound=rebound[0],
            rebound_at=list(rebound[1:]),
            rebound_wide=rebound_wide[0],
            rebound_wide_at=list(rebound_wide[1:]),
            lowest=float(min(rows[0])),
            lowest_wide=float(min(rows[1])),
            n_bits=params.n_bits,
            bar_positions=bars,
            sin_steps=sin_steps[: bars - 1].tolist(),
            sin_step=float(sin_steps[0]),
            sin_spread=float(np.ptp(sin_steps)),
            checked_steps=checked - 1,
            wide_step=float(pm.adjacent_distances(table(wide_d, [0, 1]))[0]),
            bin_steps=bin_steps.tolist(),
            tallest=tallest,
            tallest_ratio=float(bin_steps[tallest] / bin_steps[0]),
            wider_d=max(d, wide_d),
            lines={
                # one position is one cell; else the drawn map fades, steadily or not
                "matrix": "one" if n == 1 else ("unsteady" if climbs_back(drawn) else "steady"),
                "rows": compare_rows(d, rows[0], rebound[0], wide_d, rows[1], rebound_wide[0]),
                "wider": ("one" if n == 1 else "above" if min(rows[1]) > FAR_FROM_ZERO else "near"),
                # a far position looks more alike than a near one somewhere on screen, or
                # only further out than these positions reach
                "takeaway": "climbs" if max(rebound[0], rebound_wide[0]) > CLIMBS else "few",
                # one bit takes a single step: nothing to jump
                "adjacent": "jumps" if len(bin_steps) > 1 else "one_step",
            },
        )

    # ---------------------------------------------------------------- construct
    def construct(self) -> None:
        self.n = self.numbers(self.params)
        self.color_a, self.color_b = theme.WORD_A, theme.WORD_C
        self.title_card()
        self.show_steps()  # need three answered first: every step the same length
        self.show_matrix()  # then the caveat: similarity does not fall steadily
        self.show_rows()
        self.show_wider()
        self.takeaway()

    # ------------------------------------------------------------------- layout
    def build_stage(self) -> None:
        """Header over map A and one slot beside it (under it in 9:16) for each beat's part.

        1:1: map A, larger, over its notes; the row plots take the page under the header;
        then a smaller map A beside map B.
        """
        n = self.n
        self.header = self.build_header()
        layout = self.stage.layout
        square = layout.map_a_alone is not None
        self.map_a, self.scale_bar, left = self.map_and_scale(layout.map_a_alone)
        if layout.slot_under:
            self.slot_w = self.stage.width()
        else:
            self.slot_w = self.stage.width() - self.map_and_scale()[2].width - GAP
        self.notes = self.build_notes(self.stage.width() if square else self.slot_w)
        self.map_b = self.heat_block(n.matrix_wide, n.wide_d, self.color_b, layout.map_side)
        self.floor = self.words.label(
            {"above": "floor_above", "near": "floor", "one": "floor_one"}[n.lines["wider"]],
            theme.LABEL_SIZE,
            self.color_b,
            max_width=self.slot_w,
            v=theme.fmt(n.lowest_wide, ROW_DIGITS),
            last=n.max_len - 1,
        )
        self.wider = VGroup(self.map_b, self.floor).arrange(DOWN, buff=0.2)
        self.rows = self.build_rows()
        # the map A beside map B: map A itself, or (1:1) a smaller copy
        self.map_a_beside, self.scale_beside, left_beside = (
            self.map_and_scale() if square else (self.map_a, self.scale_bar, left)
        )
        slot_parts = [self.wider] + ([] if square else [self.notes, self.rows])
        for other in slot_parts[1:]:
            other.move_to(slot_parts[0])
        slot = VGroup(*slot_parts)
        direction = DOWN if layout.slot_under else RIGHT
        body = VGroup(left_beside, slot).arrange(direction, buff=GAP)
        if not layout.slot_under:
            slot.align_to(left_beside, UP)
        page = VGroup(self.header, body).arrange(DOWN, buff=GAP)
        if square:
            alone = VGroup(left, self.notes).arrange(DOWN, buff=0.25)
            page.add(alone.next_to(self.header, DOWN, buff=GAP))
            page.add(self.rows.next_to(self.header, DOWN, buff=GAP))
        self.stage.place(page)
        # the map's top row is row 0: the row the plots read
        image = self.map_a.image
        cell = image.height / len(n.map_positions)
        self.row_box = Rectangle(
            width=image.width + 0.06, height=cell + 0.06, stroke_color=theme.ACCENT, stroke_width=3
        ).move_to(image.get_top() + cell / 2 * DOWN)

    def map_and_scale(self, side: float | None = None) -> tuple[VGroup, ColorScale, VGroup]:
        """Map A (d_model) with the colour scale at its right."""
        block = self.heat_block(
            self.n.matrix, self.n.d_model, self.color_a, side or self.stage.layout.map_side
        )
        scale = ColorScale(-1.0, 1.0, height=block.image.height * 0.8, digits=0)
        group = VGroup(block, scale).arrange(RIGHT, buff=0.25)
        scale.align_to(block.image, DOWN)
        return block, scale, group

    def build_header(self) -> VGroup:
        n = self.n
        cos = formula(
            r"S_{ij} = \frac{\mathrm{PE}(i)\cdot\mathrm{PE}(j)}"
            r"{\lVert\mathrm{PE}(i)\rVert\,\lVert\mathrm{PE}(j)\rVert}",
            size=theme.BODY_SIZE * 1.2,
        )
        words = [self.words.label("positions", theme.LABEL_SIZE, last=n.max_len - 1)]
        if n.stride > 1:
            words.append(self.words.label("stride", theme.SMALL_SIZE, theme.MUTED, s=n.stride))
        said = VGroup(*words).arrange(DOWN, buff=0.1, aligned_edge=LEFT)
        top = VGroup(cos, said).arrange(RIGHT, buff=0.5)
        if top.width > self.stage.width():
            top.arrange(DOWN, buff=0.15)
        return top

    def heat_block(self, matrix, d: int, color, side: float) -> VGroup:
        """A titled heat map of S, position i down and j across, with its first and last."""
        image = PixelMap(np.asarray(matrix), side, side)
        last = str(self.n.map_positions[-1])
        muted = theme.MUTED
        title = self.words.label("map_title", theme.LABEL_SIZE, color, d=d)
        j0 = self.words.text("0", theme.SMALL_SIZE, muted).next_to(image, UP, buff=0.1)
        j0.align_to(image, LEFT)
        j1 = self.words.text(last, theme.SMALL_SIZE, muted).next_to(image, UP, buff=0.1)
        j1.align_to(image, RIGHT)
        j = self.words.text("j →", theme.SMALL_SIZE, muted).next_to(image, UP, buff=0.1)
        i0 = self.words.text("0", theme.SMALL_SIZE, muted).next_to(image, LEFT, buff=0.12)
        i0.align_to(image, UP)
        i1 = self.words.text(last, theme.SMALL_SIZE, muted).next_to(image, LEFT, buff=0.12)
        i1.align_to(image, DOWN)
        i = self.words.text("i ↓", theme.SMALL_SIZE, muted).next_to(image, LEFT, buff=0.12)
        ticks = VGroup(j0, j1, j, i0, i1, i)
        title.next_to(VGroup(image, ticks), UP, buff=0.15)
        block = VGroup(title, image, ticks)
        block.image = image
        return block

    def build_notes(self, w: float) -> VGroup:
        n = self.n
        diagonal = self.words.label(
            "diagonal", theme.LABEL_SIZE, theme.ACCENT, max_width=w, v=theme.fmt(n.diagonal)
        )
        colors = self.words.label("colors", theme.LABEL_SIZE, max_width=w)
        row0 = self.words.label("row0", theme.LABEL_SIZE, max_width=w)
        buff = self.stage.layout.notes_buff
        return VGroup(diagonal, colors, row0).arrange(DOWN, buff=buff, aligned_edge=LEFT)

    def build_rows(self) -> VGroup:
        """Row 0 at both widths on one plot, what each does, its first values, the verdict."""
        n = self.n
        width, height = self.stage.layout.plot
        if self.stage.layout.map_a_alone is None:  # the rows share the slot
            width = min(width, self.slot_w - 0.6)
        rows = (np.asarray(n.row), np.asarray(n.row_wide))
        lo = min(0.0, math.floor(min(r.min() for r in rows) * 2) / 2)
        mid = (1 + lo) / 2
        x_max = max(n.max_len - 1, 1)
        plot = WavePlot(width, height, x_max, (1 - lo) / 2)
        plot.remove(plot.axis)

        def at(k: float, v: float):
            return plot.at(k, v - mid)

        grid, yticks = self._row_axes(at, lo, x_max)
        curves, brackets = self._row_curves(plot, at, rows, mid)
        x0 = self.words.text("0", theme.SMALL_SIZE, theme.MUTED).next_to(at(0, lo), DOWN, buff=0.1)
        x1 = self.words.text(str(x_max), theme.SMALL_SIZE, theme.MUTED)
        x1.next_to(at(x_max, lo), DOWN, buff=0.1)
        xname = self.words.label("offset", theme.SMALL_SIZE, theme.MUTED)
        xname.next_to(at(x_max / 2, lo), DOWN, buff=0.1)
        chart = VGroup(plot, grid, yticks, curves, brackets, x0, x1, xname)
        title = self.words.label("rows_title", theme.LABEL_SIZE, max_width=width)
        line_w = self.slot_w if self.stage.layout.map_a_alone is None else self.stage.width()
        notes = self._row_notes(line_w)
        table = self.first_values()
        verdict = self.words.label(
            n.lines["rows"],
            theme.LABEL_SIZE,
            theme.ACCENT,
            max_width=line_w,
        )
        self.row_parts = (title, chart, notes, table, verdict)
        self.curves, self.brackets = curves, brackets
        return VGroup(title, chart, notes, table, verdict).arrange(DOWN, buff=0.22)

    def _row_axes(
        self, at: Callable[[float, float], np.ndarray], lo: float, x_max: int
    ) -> tuple[VGroup, VGroup]:
        """Dashed levels at lo, 0 and 1 across the plot, and their values on the left."""
        grid = VGroup(
            *[
                DashedLine(at(0, v), at(x_max, v), dash_length=0.08).set_stroke(
                    theme.MUTED, 1.5, opacity=0.6
                )
                for v in sorted({lo, 0.0, 1.0})
            ]
        )
        yticks = VGroup(
            *[
                self.words.text(
                    theme.fmt(v, 1 if v % 1 else 0), theme.SMALL_SIZE, theme.MUTED
                ).next_to(at(0, v), LEFT, buff=0.12)
                for v in sorted({lo, 0.0, 1.0})
            ]
        )
        return grid, yticks

    def _row_curves(
        self,
        plot: WavePlot,
        at: Callable[[float, float], np.ndarray],
        rows: tuple[np.ndarray, np.ndarray],
        mid: float,
    ) -> tuple[VGroup, VGroup]:
        """Both rows' curves, and a bracket where each climbs back from its dip."""
        n = self.n
        ks = np.arange(n.max_len)
        curves = VGroup()
        brackets = VGroup()
        for r, color, (dip, peak), climb in (
            (rows[0], self.color_a, n.rebound_at, n.rebound),
            (rows[1], self.color_b, n.rebound_wide_at, n.rebound_wide),
        ):
            curves.add(plot.curve(ks, r - mid, color, width=3))
            if climb > 1e-9:  # where the row climbs back: level from the dip, up to the peak
                brackets.add(
                    DashedLine(at(dip, r[dip]), at(peak, r[dip]), dash_length=0.06).set_stroke(
                        color, 2
                    ),
                    Line(at(peak, r[dip]), at(peak, r[peak])).set_stroke(color, 5),
                )
        return curves, brackets

    def _row_notes(self, line_w: float) -> VGroup:
        """What each width does: how far its row climbs back and how low it goes."""
        n = self.n

        def note(climb: float) -> str:
            if n.max_len == 1:
                return "row_note_one"
            return "row_note" if climb > CLIMBS else "row_note_falls"

        return VGroup(
            *[
                self.words.label(
                    note(climb),
                    theme.LABEL_SIZE,
                    color,
                    max_width=line_w,
                    d=d,
                    # a climb too small for two decimals reads "less than 0.01", not 0.00
                    up=speaker(self.lang).format(f"{{v:.{ROW_DIGITS}f}}", v=climb),
                    low=theme.fmt(low, ROW_DIGITS),
                )
                for d, color, climb, low in (
                    (n.d_model, self.color_a, n.rebound, n.lowest),
                    (n.wide_d, self.color_b, n.rebound_wide, n.lowest_wide),
                )
            ]
        ).arrange(DOWN, buff=0.12, aligned_edge=LEFT)

    def first_values(self) -> VGroup:
        """S(0, k) for the first offsets at both widths: one column per k."""
        n = self.n
        ks = list(range(min(FIRST, n.max_len)))
        cells: list[Mobject] = [self.words.text("k", theme.SMALL_SIZE, theme.MUTED)]
        cells += [self.words.text(str(k), theme.SMALL_SIZE, theme.MUTED) for k in ks]
        for d, row, color in (
            (n.d_model, n.row, self.color_a),
            (n.wide_d, n.row_wide, self.color_b),
        ):
            cells.append(self.words.label("d_is", theme.SMALL_SIZE, color, d=d))
            cells += [
                self.words.text(theme.fmt(row[k], ROW_DIGITS), theme.SMALL_SIZE, color) for k in ks
            ]
        return VGroup(*cells).arrange_in_grid(
            rows=3, buff=(0.25, 0.1), col_alignments="l" + "r" * len(ks)
        )

    def build_steps(self) -> VGroup:
        """One step's length at every p: sinusoidal bars over binary's, on the same scale."""
        n = self.n
        width, height = self.stage.layout.bars
        width = min(width, self.stage.width() - 0.8)
        top = max(max(n.sin_steps, default=0), max(n.bin_steps, default=0), 1e-6)
        unit = height / top
        sin_chart = bar_chart(
            n.sin_steps, width, unit, [self.color_a] * len(n.sin_steps), STEP_DIGITS, [0]
        )
        colors = [theme.ACCENT if i == n.tallest else theme.WORD_B for i in range(len(n.bin_steps))]
        # one of each height first, tallest first: 2.00, 1.73, 1.41, 1.00 with four bits
        shown = [theme.fmt(v, BIN_DIGITS) for v in n.bin_steps]
        firsts = sorted({shown.index(v) for v in shown}, key=lambda i: -n.bin_steps[i])
        bin_chart = bar_chart(n.bin_steps, width, unit, colors, BIN_DIGITS, firsts)
        size = theme.LABEL_SIZE * 1.3
        sin_title, bin_title = self._step_titles(size)
        line_w = self.stage.width()
        same, wide = self._flat_notes(line_w, size)
        a, b = n.tallest, n.tallest + 1
        cliff = self.words.label(
            "tallest" if n.lines["adjacent"] == "jumps" else "one_step",
            theme.LABEL_SIZE,
            theme.ACCENT,
            max_width=line_w,
            a=a,
            b=b,
            v=theme.fmt(n.bin_steps[a], BIN_DIGITS),
            r=theme.fmt(n.tallest_ratio, BIN_DIGITS),
        )
        shown = self._step_ticks(bin_chart)
        xname = self.words.label("step_axis", theme.SMALL_SIZE, theme.MUTED)
        lower = VGroup(bin_chart, shown)
        xname.next_to(lower, DOWN, buff=0.1)
        self.step_parts = (sin_title, sin_chart, VGroup(same, wide), bin_title, bin_chart, cliff)
        self.step_axis = VGroup(shown, xname)
        page = VGroup(
            sin_title,
            sin_chart,
            VGroup(same, wide).arrange(DOWN, buff=0.1),
            bin_title,
            VGroup(bin_chart, shown, xname),
            cliff,
        ).arrange(DOWN, buff=0.2)
        return self.stage.place(page)

    def _step_titles(self, size: float) -> tuple[VGroup, VGroup]:
        """Each chart's name and the step length it plots."""
        n = self.n
        sin_title = VGroup(
            self.words.label("sin_title", theme.LABEL_SIZE, self.color_a, d=n.d_model),
            formula(r"\lVert \mathrm{PE}(p{+}1) - \mathrm{PE}(p) \rVert", size=size),
        ).arrange(RIGHT, buff=0.25)
        bin_title = VGroup(
            self.words.label("bin_title", theme.LABEL_SIZE, theme.WORD_B, bits=n.n_bits),
            formula(r"\lVert b(p{+}1) - b(p) \rVert", size=size),
        ).arrange(RIGHT, buff=0.25)
        return sin_title, bin_title

    def _flat_notes(self, line_w: float, size: float) -> tuple[VGroup, Mobject]:
        """The sinusoidal step, the same at every p, and the wider model's."""
        n = self.n
        same = VGroup(
            self.words.label(
                "flat",
                theme.LABEL_SIZE,
                self.color_a,
                max_width=line_w,
                v=theme.fmt(n.sin_step, STEP_DIGITS),
                steps=n.checked_steps,
            ),
            formula(
                r"= \sqrt{{\textstyle\sum_i (2 - 2\cos\omega_i)}}", size=size, color=self.color_a
            ),
        ).arrange(RIGHT, buff=0.2)
        if same.width > line_w:
            same.arrange(DOWN, buff=0.1)
        wide = self.words.label(
            "flat_wide",
            theme.SMALL_SIZE,
            self.color_b,
            max_width=line_w,
            d=n.wide_d,
            v=theme.fmt(n.wide_step, STEP_DIGITS),
        )
        return same, wide

    def _step_ticks(self, bin_chart: VGroup) -> VGroup:
        """The steps' p under the lower chart, as many as have room."""
        n = self.n
        bars = bin_chart[1]
        ticks = [
            self.words.text(str(p), theme.SMALL_SIZE, theme.MUTED).next_to(bar, DOWN, buff=0.1)
            for p, bar in enumerate(bars)
        ]
        for t in ticks:
            t.set_y(bin_chart[0].get_y() - 0.1 - t.height / 2)
        return greedy_labels(ticks, [0, n.tallest, len(ticks) - 1], gap=0.15)

    # -------------------------------------------------------------------- beats
    def show_matrix(self) -> None:
        self.beat("matrix")
        if self.stage_mobjects():  # the steps leave the stage to the grid
            self.play(*[FadeOut(m) for m in self.stage_mobjects()], run_time=theme.SHORT)
        self.build_stage()
        title, image, ticks = self.map_a
        self.play(Write(self.header), run_time=theme.NORMAL)
        self.play(FadeIn(title), FadeIn(ticks), FadeIn(self.scale_bar), run_time=theme.SHORT)
        self.play(FadeIn(image), run_time=theme.NORMAL)
        self.play(FadeIn(self.notes[0]), run_time=theme.SHORT)
        self.play(FadeIn(self.notes[1]), run_time=theme.SHORT)
        self.play(FadeIn(self.notes[2]), FadeIn(self.row_box), run_time=theme.SHORT)
        self.wait(theme.READ)

    def show_rows(self) -> None:
        self.beat("rows")
        leaving = [self.notes]
        if self.stage.layout.map_a_alone is not None:
            leaving += [self.map_a, self.scale_bar, self.row_box]
        self.play(*[FadeOut(m) for m in leaving], run_time=theme.SHORT)
        title, chart, notes, table, verdict = self.row_parts
        plot, grid, yticks, curves, brackets, *xticks = chart
        self.play(FadeIn(title), FadeIn(grid), FadeIn(yticks), *map(FadeIn, xticks))
        for j in range(2):
            self.play(FadeIn(curves[j]), FadeIn(notes[j]), run_time=theme.NORMAL)
        self.play(FadeIn(brackets), FadeIn(table), run_time=theme.SHORT)
        self.play(FadeIn(verdict, shift=0.1 * UP), run_time=theme.SHORT)
        self.wait(theme.READ)

    def show_wider(self) -> None:
        self.beat("wider")
        self.play(FadeOut(self.rows), run_time=theme.SHORT)
        if self.stage.layout.map_a_alone is not None:
            self.play(FadeIn(self.map_a_beside), FadeIn(self.scale_beside), run_time=theme.SHORT)
        title, image, ticks = self.map_b
        self.play(FadeIn(title), FadeIn(ticks), FadeIn(image), run_time=theme.NORMAL)
        self.play(FadeIn(self.floor), run_time=theme.SHORT)
        self.wait(theme.READ)

    def show_steps(self) -> None:
        self.beat("adjacent")
        if self.stage_mobjects():
            self.play(*[FadeOut(m) for m in self.stage_mobjects()], run_time=theme.SHORT)
        self.build_steps()
        sin_title, sin_chart, same, bin_title, bin_chart, cliff = self.step_parts
        base, bars, values, grid = sin_chart
        self.play(FadeIn(sin_title), FadeIn(base), FadeIn(grid), run_time=theme.SHORT)
        self.play(LaggedStart(*[GrowFromEdge(b, DOWN) for b in bars], lag_ratio=0.05))
        self.play(FadeIn(values), FadeIn(same), run_time=theme.SHORT)
        base, bars, values, grid = bin_chart
        self.play(
            FadeIn(bin_title),
            FadeIn(base),
            FadeIn(grid),
            FadeIn(self.step_axis),
            run_time=theme.SHORT,
        )
        self.play(LaggedStart(*[GrowFromEdge(b, DOWN) for b in bars], lag_ratio=0.1))
        self.play(FadeIn(values), FadeIn(cliff), run_time=theme.SHORT)
        self.wait(theme.LONG)
