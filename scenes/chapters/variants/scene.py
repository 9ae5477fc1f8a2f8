"""variants: not every model adds sinusoids.

A learned table (one trained row per position, and none past the end), ALiBi (a bias on
the attention scores, a slope per head), T5's relative buckets (exact nearby, then ever
wider, the far ones shared) and RoPE (q and k turned inside attention), then
a comparison of the five ways. Every number comes from pe_math through numbers().
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arc,
    Circle,
    Create,
    DashedLine,
    FadeIn,
    FadeOut,
    Line,
    Mobject,
    Rectangle,
    TransformFromCopy,
    ValueTracker,
    VGroup,
    VMobject,
    Write,
    always_redraw,
)

import pe_math as pm
from lesson.registry import REGISTRY
from pe_math import Params
from pe_math.requirements import EXACT, shift_residual
from scenes.kit import theme
from scenes.kit.base import LessonScene
from scenes.kit.components import (
    HeatGrid,
    LiveNumber,
    arrow,
    bind_number,
    compact,
    formula,
    panel,
    spread_indices,
)

MAX_ROWS = 8  # learned-table rows drawn: all if they fit, else the first ones, ⋮, the last two
MAX_DIMS = 8  # columns (dims) drawn of the learned table and of the sinusoid row
TABLE_DIGITS = 2  # decimals of the learned values and the sinusoid row
ALIBI_LEN = 6  # positions of the ALiBi bias grid
MAX_SLOPES = 8  # heads whose slopes are listed: the first ones, then … and the last
MAX_POWERS = 7  # powers of two among the T5 sample distances
ROPE_GAP = 1  # n − m of the RoPE arrows
ROPE_STEPS = 4  # how far m travels while the gap stays
GAP = 0.35

VARIANTS = ("sinusoidal", "learned", "rope", "alibi", "t5")
GROUPS = {"input": ("sinusoidal", "learned"), "attention": ("rope", "alibi", "t5")}
COLORS = {
    "sinusoidal": theme.SERIES_COLORS[4],
    "learned": theme.WORD_A,
    "rope": theme.ACCENT,
    "alibi": theme.WORD_B,
    "t5": theme.WORD_C,
}


@dataclass(frozen=True)
class Layout:
    """Where each variant's picture and notes go in one frame shape."""

    learned_cell_h: float
    notes_beside: bool  # the learned table's notes beside it (else under it)
    swap_notes: bool  # no room for both: the paper's lines take the table's notes' place
    alibi_dir: np.ndarray  # the heads' grids side by side or one over the other
    alibi_swap: bool  # two grids do not fit: the last head takes the first one's place
    t5_area: tuple[float, float]
    rope_radius: float
    rope_dir: np.ndarray  # the readouts after the dial
    cards: bool  # the closing table as one card per variant (else rows under their groups)
    grid_size: float  # the closing table's text
    grid_widths: tuple[float, ...]  # its columns
    grid_gap: float


LAYOUTS = {
    "wide": Layout(
        learned_cell_h=0.42, notes_beside=True, swap_notes=False, alibi_dir=RIGHT,
        alibi_swap=False, t5_area=(8.0, 3.0), rope_radius=2.0, rope_dir=RIGHT, cards=False,
        grid_size=theme.LABEL_SIZE, grid_widths=(2.1, 3.0, 3.6, 3.0), grid_gap=0.35,
    ),
    "tall": Layout(
        learned_cell_h=0.42, notes_beside=False, swap_notes=False, alibi_dir=DOWN,
        alibi_swap=False, t5_area=(6.2, 5.5), rope_radius=2.6, rope_dir=DOWN, cards=True,
        grid_size=theme.SMALL_SIZE, grid_widths=(), grid_gap=0.0,
    ),
    "square": Layout(
        learned_cell_h=0.36, notes_beside=False, swap_notes=True, alibi_dir=RIGHT,
        alibi_swap=True, t5_area=(5.6, 2.6), rope_radius=1.5, rope_dir=RIGHT, cards=False,
        grid_size=theme.SMALL_SIZE, grid_widths=(1.3, 1.7, 1.9, 1.6), grid_gap=0.2,
    ),
}  # fmt: skip


@dataclass(frozen=True)
class VariantsNumbers:
    """Every number Variants shows, computed by pe_math (JSON-ready; None marks a masked cell)."""

    d_model: int
    base: float
    learned_max_len: int
    learned_rows: list[int]
    learned_dims: int
    learned_values: list[list[float]]
    learned_scale: float
    past_end: int
    past_end_error: str
    sinusoid_past: list[float]
    alibi_heads: int
    alibi_len: int
    alibi_slopes: list[float]
    alibi_shown: list[int]
    alibi_bias: list[list[list[float | None]]]
    alibi_listed: list[int]
    t5_num_buckets: int
    t5_max_distance: int
    t5_bidirectional: bool
    t5_span: int
    t5_steps: list[list[int]]
    t5_exact: int
    t5_last: int
    t5_distances: list[int]
    t5_buckets: list[int]
    t5_after: list[int]
    rope_theta: float
    learned_misses: list[str]  # the requirements a learned table misses at these knobs
    learned_missed: int  # how many
    # when the table ticks the fixed map: the rows it would need for no linear map to fit
    # (None when it misses the map, or when even that many rows still fit)
    learned_map_breaks: int | None
    lines: dict[str, str]  # beat → the narration alternative these numbers make true


def shown_rows(n: int) -> list[int]:
    """All rows if they fit MAX_ROWS, else the first ones and the last two."""
    if n <= MAX_ROWS:
        return list(range(n))
    return list(range(MAX_ROWS - 2)) + [n - 2, n - 1]


def slope_text(slope: float) -> str:
    """A slope as 1/2^k when it is one (ALiBi's, for a power-of-two head count), else 3 digits."""
    frac = Fraction(slope).limit_denominator(1 << 20)
    if frac.numerator == 1 and float(frac) == slope:
        return f"1/{frac.denominator}"
    return compact(slope)


def map_breaks(n_rows: int, d: int, seed: int) -> int | None:
    """The rows a learned table of width d needs before no linear map takes each row to the
    next: d + 2 (d + 1 rows or fewer can always be fitted), checked on the same table grown
    to that length; None if it still fits there."""
    rows = max(n_rows + 1, d + 2)
    grown = pm.learned_table(rows, d, seed=seed)
    return rows if shift_residual(grown) >= EXACT else None


def takeaway_line(misses: list[str], breaks: int | None) -> str:
    if "shift_map" in misses:
        return "misses_map"
    return "few_rows" if breaks is not None else "fits_anyway"


def alibi_line(heads: int) -> str:
    """Each head has its own slope only with two heads or more (their slopes all differ)."""
    return "many" if heads > 1 else "one"


def t5_samples(max_distance: int) -> list[int]:
    """Distances to list: powers of two below max_distance (at most MAX_POWERS), the limit, 4×."""
    powers = [1 << k for k in range(int(max_distance).bit_length()) if 1 << k < max_distance]
    powers = [powers[i] for i in spread_indices(len(powers), MAX_POWERS)]
    return [*powers, max_distance, 4 * max_distance]


class Variants(LessonScene, layouts=LAYOUTS):
    """A learned table, ALiBi, T5 buckets and RoPE, then all five ways side by side."""

    slug: ClassVar[str] = "variants"

    # ------------------------------------------------------------------ numbers
    @classmethod
    def numbers(cls, params: Params) -> VariantsNumbers:
        d, base = params.d_model, params.base
        n_rows, seed = params.learned_max_len, params.learned_seed
        table = pm.learned_table(n_rows, d, seed=seed)
        checks = pm.verdict("learned", params).checks
        misses = [r for r in pm.REQUIREMENTS if not checks[r]]
        breaks = None if "shift_map" in misses else map_breaks(n_rows, d, seed)
        rows = shown_rows(n_rows)
        dims = min(d, MAX_DIMS)
        values = pm.learned_lookup(table, rows)[:, :dims]
        try:
            pm.learned_lookup(table, [n_rows])
            error = ""
        except pm.PositionOutOfRange as exc:
            error = type(exc).__name__

        heads = params.alibi_heads
        slopes = pm.alibi_slopes(heads)
        shown_heads = sorted({0, heads - 1})
        bias = pm.alibi_bias(heads, ALIBI_LEN)[shown_heads]

        nb, far, bi = params.t5_num_buckets, params.t5_max_distance, params.t5_bidirectional
        span = 2 * far
        back = pm.t5_bucket(-np.arange(span + 1), bi, nb, far)  # key d positions before the query
        starts = np.concatenate([[0], np.flatnonzero(np.diff(back)) + 1])
        widths = np.diff(np.append(starts, span + 1))
        exact = int(
            starts[np.flatnonzero(widths > 1)[0]]
        )  # below it, every distance has its own bucket
        after = pm.t5_bucket(np.arange(1, span + 1), bi, nb, far)
        distances = t5_samples(far)
        return VariantsNumbers(
            d_model=d,
            base=base,
            learned_max_len=n_rows,
            learned_rows=rows,
            learned_dims=dims,
            learned_values=values.tolist(),
            learned_scale=float(np.abs(values).max()),
            past_end=n_rows,
            past_end_error=error,
            sinusoid_past=pm.sinusoidal([n_rows], d, base)[0, :dims].tolist(),
            alibi_heads=heads,
            alibi_len=ALIBI_LEN,
            alibi_slopes=slopes.tolist(),
            alibi_shown=shown_heads,
            alibi_bias=[
                [[float(v) + 0.0 if np.isfinite(v) else None for v in row] for row in grid]
                for grid in bias
            ],
            alibi_listed=list(range(min(heads, MAX_SLOPES) - 1)) + [heads - 1],
            t5_num_buckets=nb,
            t5_max_distance=far,
            t5_bidirectional=bi,
            t5_span=span,
            t5_steps=[[int(s), int(back[s])] for s in starts],
            t5_exact=exact,
            t5_last=int(back[-1]),
            t5_distances=distances,
            t5_buckets=[int(b) for b in pm.t5_bucket(-np.asarray(distances), bi, nb, far)],
            t5_after=[int(after.min()), int(after.max())],
            rope_theta=float(pm.frequencies(d, base)[0]),
            learned_misses=misses,
            learned_missed=len(misses),
            learned_map_breaks=breaks,
            lines={"takeaway": takeaway_line(misses, breaks), "alibi": alibi_line(heads)},
        )

    # ---------------------------------------------------------------- construct
    def construct(self) -> None:
        self.n = self.numbers(self.params)
        self.title_card()
        self.learned()
        self.paper()
        self.alibi()
        self.t5()
        self.rope()
        self.table()
        self.takeaway(verdict="learned")

    # ------------------------------------------------------------------ helpers
    def text_width(self) -> float:
        return self.stage.width() - 0.2

    def header(self, name: str) -> VGroup:
        """A variant's name over the models that use it."""
        title = self.words.label(f"{name}_title", theme.HEADING_SIZE, COLORS[name])
        used = self.words.label(f"{name}_used", theme.LABEL_SIZE, theme.MUTED, self.text_width())
        return VGroup(title, used).arrange(DOWN, buff=0.15)

    def page(self, *parts: Mobject, buff: float = GAP) -> VGroup:
        page = VGroup(*parts).arrange(DOWN, buff=buff)
        self.stage.place(page)
        return page

    def clear(self) -> None:
        if self.stage_mobjects():
            self.play(*[FadeOut(m) for m in self.stage_mobjects()], run_time=theme.SHORT)

    # ----------------------------------------------------------------- learned
    def value_grid(self, rows, labels, scale, digits, cell_w, cell_h) -> HeatGrid:
        return HeatGrid(
            np.asarray(rows),
            vmin=-scale,
            vmax=scale,
            cell=cell_h,
            cell_width=cell_w,
            digits=digits,
            row_labels=labels,
            size=theme.SMALL_SIZE,
        )

    def build_learned(self) -> VGroup:
        n = self.n
        values = np.asarray(n.learned_values)
        sample = [
            self.words.text(theme.fmt(v, TABLE_DIGITS), theme.SMALL_SIZE) for v in (-0.99, 0.99)
        ]
        cell_w = max(m.width for m in sample) + 0.16
        cell_h = self.stage.layout.learned_cell_h
        grids = self._learned_grids(values, cell_w, cell_h)
        self._missing_rows(grids, cell_w, cell_h)
        self.table_grid = grids
        column = VGroup(grids, self.missing, self.sin_row)

        beside = self.stage.layout.notes_beside
        notes_w = self.text_width() - column.width - 0.5 if beside else self.text_width()
        notes = self._learned_notes(notes_w)
        if beside:
            body = VGroup(column, notes).arrange(RIGHT, buff=0.5)
        else:
            body = VGroup(column, notes).arrange(DOWN, buff=GAP)
        return self.page(self.header("learned"), body)

    def _learned_grids(self, values: np.ndarray, cell_w: float, cell_h: float) -> VGroup:
        """The table's rows, in two blocks with ⋮ between when there are more than MAX_ROWS."""
        n = self.n
        split = len(n.learned_rows) if n.learned_max_len <= MAX_ROWS else MAX_ROWS - 2
        parts = [
            self.value_grid(
                values[:split],
                [str(r) for r in n.learned_rows[:split]],
                n.learned_scale,
                TABLE_DIGITS,
                cell_w,
                cell_h,
            )
        ]
        if split < len(n.learned_rows):
            parts.append(self.words.text("⋮", theme.SMALL_SIZE, theme.MUTED))
            parts.append(
                self.value_grid(
                    values[split:],
                    [str(r) for r in n.learned_rows[split:]],
                    n.learned_scale,
                    TABLE_DIGITS,
                    cell_w,
                    cell_h,
                )
            )
        grids = VGroup(*parts).arrange(DOWN, buff=0.08, aligned_edge=RIGHT)
        if len(parts) > 1:  # the dots sit in the middle of the cells, not of the labels
            parts[1].set_x(parts[0].cells.get_x())
        return grids

    def _missing_rows(self, grids: VGroup, cell_w: float, cell_h: float) -> None:
        """Under the table: the crossed-out row past its end, and the sinusoid's row there."""
        n = self.n
        # the row that is not there: empty cells, crossed out
        empty = VGroup(
            *[
                Rectangle(width=cell_w, height=cell_h, stroke_color=theme.MUTED, stroke_width=1.5)
                for _ in range(n.learned_dims)
            ]
        ).arrange(RIGHT, buff=0)
        cross = Line(empty.get_corner(LEFT + DOWN), empty.get_corner(RIGHT + UP))
        cross.set_stroke(theme.WORD_B, 3)
        label = self.words.text(str(n.past_end), theme.SMALL_SIZE, theme.WORD_B)
        self.missing = VGroup(empty, cross, label)
        self.missing_row = VGroup(empty, cross)
        self.missing_row.next_to(grids, DOWN, buff=0.12).align_to(grids, RIGHT)
        label.next_to(empty, LEFT, buff=0.12)
        # in the paper beat: the sinusoid's row for the same position, under the crossed one
        self.sin_row = self.value_grid(
            [n.sinusoid_past], [f"PE({n.past_end})"], 1.0, TABLE_DIGITS, cell_w, cell_h
        )
        self.sin_row.next_to(empty, DOWN, buff=0.3).align_to(grids, RIGHT)

    def _learned_notes(self, notes_w: float) -> VGroup:
        """The notes by the table: what it holds, the missing row and its error, and the
        paper's lines (laid over the first two when the layout swaps them)."""
        n = self.n
        notes = [
            self.words.label(
                "learned_note",
                theme.LABEL_SIZE,
                max_width=notes_w,
                n=n.learned_max_len,
                last=n.learned_max_len - 1,
            )
        ]
        if n.learned_dims < n.d_model:
            notes.append(
                self.words.label(
                    "dims_note",
                    theme.SMALL_SIZE,
                    theme.MUTED,
                    max_width=notes_w,
                    shown=n.learned_dims,
                    d=n.d_model,
                )
            )
        self.learned_notes = VGroup(*notes).arrange(DOWN, buff=0.15, aligned_edge=LEFT)
        self.no_row = self.words.label(
            "no_row", theme.LABEL_SIZE, theme.WORD_B, notes_w, p=n.past_end
        )
        self.error_name = self.words.text(n.past_end_error, theme.SMALL_SIZE, theme.WORD_B)
        missing_note = VGroup(self.no_row, self.error_name).arrange(
            DOWN, buff=0.1, aligned_edge=LEFT
        )
        self.paper_lines = VGroup(
            self.words.label("paper_source", theme.SMALL_SIZE, theme.MUTED, notes_w),
            self.words.label("paper_result", theme.LABEL_SIZE, max_width=notes_w),
            self.words.label(
                "paper_kept",
                theme.LABEL_SIZE,
                COLORS["sinusoidal"],
                notes_w,
                p=n.past_end,
                d=n.d_model,
            ),
        ).arrange(DOWN, buff=0.12, aligned_edge=LEFT)
        self.missing_note = missing_note
        self.swap_notes = self.stage.layout.swap_notes
        if self.swap_notes:
            first = VGroup(self.learned_notes, missing_note).arrange(
                DOWN, buff=0.25, aligned_edge=LEFT
            )
            self.paper_lines.move_to(first, aligned_edge=UP + LEFT)
            notes = VGroup(first, self.paper_lines)
        else:
            notes = VGroup(self.learned_notes, missing_note, self.paper_lines).arrange(
                DOWN, buff=0.4, aligned_edge=LEFT
            )
        return notes

    def learned(self) -> None:
        self.beat("learned")
        page = self.build_learned()
        head, _ = page
        self.play(FadeIn(head), run_time=theme.SHORT)
        self.play(
            FadeIn(self.table_grid, lag_ratio=0.05),
            FadeIn(self.learned_notes),
            run_time=theme.NORMAL,
        )
        self.play(FadeIn(self.missing[2]), Create(self.missing_row), run_time=theme.NORMAL)
        self.play(FadeIn(self.no_row), FadeIn(self.error_name), run_time=theme.SHORT)
        self.wait(theme.READ)

    def paper(self) -> None:
        self.beat("paper")
        if self.swap_notes:
            self.play(FadeOut(self.learned_notes), FadeOut(self.missing_note), run_time=theme.SHORT)
        self.play(FadeIn(self.paper_lines[:2]), run_time=theme.NORMAL)
        self.wait(theme.SHORT)
        self.play(
            FadeIn(self.sin_row, shift=0.1 * UP), FadeIn(self.paper_lines[2]), run_time=theme.NORMAL
        )
        self.wait(theme.READ)

    # ------------------------------------------------------------------- alibi
    def alibi_grid(self, k: int) -> VGroup:
        n = self.n
        h = n.alibi_shown[k]
        bias = np.array([[np.nan if v is None else v for v in row] for row in n.alibi_bias[k]])
        finite = bias[np.isfinite(bias)]
        digits = theme.digits_for(finite, 3)
        low = float(finite.min())
        sample = self.words.text(theme.fmt(low, digits), theme.SMALL_SIZE)
        grid = HeatGrid(
            bias,
            vmin=low,
            vmax=-low,
            cell=0.42,
            cell_width=sample.width + 0.18,
            digits=digits,
            row_labels=[str(i) for i in range(n.alibi_len)],
            col_labels=[str(j) for j in range(n.alibi_len)],
            size=theme.SMALL_SIZE,
        )
        title = self.words.label(
            "alibi_head",
            theme.LABEL_SIZE,
            COLORS["alibi"],
            h=h + 1,
            slope=slope_text(n.alibi_slopes[h]),
        )
        return VGroup(title, grid).arrange(DOWN, buff=0.15)

    def build_alibi(self) -> VGroup:
        n = self.n
        grids = [self.alibi_grid(k) for k in range(len(n.alibi_shown))]
        axes = self.words.label("alibi_axes", theme.SMALL_SIZE, theme.MUTED, self.text_width())
        self.alibi_swap = self.stage.layout.alibi_swap and len(grids) > 1
        row = VGroup(*grids).arrange(self.stage.layout.alibi_dir, buff=0.6)
        if self.alibi_swap:
            grids[1].move_to(grids[0], aligned_edge=UP)
        self.alibi_grids = grids
        rule = formula(
            r"\text{score}_{ij} \mathrel{+}= -m_h\,(i-j), \quad j \le i",
            size=theme.BODY_SIZE * 1.3,
            color=COLORS["alibi"],
        )
        listed = [f"{slope_text(n.alibi_slopes[h])}" for h in n.alibi_listed]
        if len(n.alibi_listed) < n.alibi_heads:
            listed.insert(-1, "…")
        self.slopes = self.words.label(
            "alibi_slopes" if n.alibi_heads > 1 else "alibi_slopes_one",
            theme.LABEL_SIZE,
            max_width=self.text_width(),
            n=n.alibi_heads,
            slopes=self.words.listing(listed),
        )
        self.no_table = self.words.label(
            "alibi_no_table", theme.LABEL_SIZE, theme.ACCENT, self.text_width()
        )
        self.rule = rule
        notes = VGroup(self.slopes, self.no_table).arrange(DOWN, buff=0.15)
        return self.page(
            self.header("alibi"), rule, VGroup(row, axes).arrange(DOWN, buff=0.15), notes
        )

    def alibi(self) -> None:
        self.beat("alibi")
        self.clear()
        page = self.build_alibi()
        head, rule, (row, axes), _ = page
        self.play(FadeIn(head), run_time=theme.SHORT)
        self.play(Write(rule), run_time=theme.NORMAL)
        self.play(FadeIn(self.alibi_grids[0]), FadeIn(axes), run_time=theme.NORMAL)
        if self.alibi_swap:
            self.wait(theme.SHORT)
            self.play(
                FadeOut(self.alibi_grids[0]), FadeIn(self.alibi_grids[1]), run_time=theme.NORMAL
            )
        elif len(self.alibi_grids) > 1:
            self.play(
                TransformFromCopy(self.alibi_grids[0], self.alibi_grids[1]), run_time=theme.NORMAL
            )
        self.play(FadeIn(self.slopes), FadeIn(self.no_table), run_time=theme.SHORT)
        self.wait(theme.READ)

    # ---------------------------------------------------------------------- t5
    def build_t5(self) -> VGroup:
        n = self.n
        width, height = self.stage.layout.t5_area
        top = max(n.t5_last, 1)
        area = Rectangle(width=width, height=height, stroke_width=0)

        def at(d: float, b: float) -> np.ndarray:
            return (
                area.get_corner(LEFT + DOWN) + RIGHT * d * width / n.t5_span + UP * b * height / top
            )

        corners = []
        steps = n.t5_steps
        for k, (start, bucket) in enumerate(steps):
            end = steps[k + 1][0] if k + 1 < len(steps) else n.t5_span
            corners += [at(start, bucket), at(end, bucket)]
        self.stairs = VMobject().set_points_as_corners(corners).set_stroke(COLORS["t5"], 4)
        x_axis = Line(at(0, 0), at(n.t5_span, 0)).set_stroke(theme.MUTED, 2)
        y_axis = Line(at(0, 0), at(0, top)).set_stroke(theme.MUTED, 2)
        limit = DashedLine(at(n.t5_max_distance, 0), at(n.t5_max_distance, top), dash_length=0.08)
        limit.set_stroke(theme.FOREGROUND, 2, opacity=0.7)
        last = DashedLine(at(0, top), at(n.t5_span, top), dash_length=0.08)
        last.set_stroke(theme.MUTED, 1.5, opacity=0.6)
        ticks = VGroup(
            *[
                self.words.text(compact(d), theme.SMALL_SIZE, theme.MUTED).next_to(
                    at(d, 0), DOWN, 0.12
                )
                for d in (0, n.t5_max_distance, n.t5_span)
            ]
        )
        y_ticks = VGroup(
            *[
                self.words.text(str(b), theme.SMALL_SIZE, theme.MUTED).next_to(at(0, b), LEFT, 0.12)
                for b in (0, n.t5_last)
            ]
        )
        x_name = self.words.label("t5_x", theme.SMALL_SIZE, theme.MUTED).next_to(ticks, DOWN, 0.12)
        y_name = self.words.label("t5_y", theme.SMALL_SIZE, theme.MUTED).next_to(
            at(0, top), UP, 0.15
        )
        y_name.align_to(y_ticks, LEFT)
        limit_name = self.words.label(
            "t5_max", theme.SMALL_SIZE, theme.FOREGROUND, m=compact(n.t5_max_distance)
        )
        limit_name.next_to(at(n.t5_max_distance, top), UP, 0.15)
        self.last_name = self.words.label("t5_last", theme.SMALL_SIZE, COLORS["t5"], b=n.t5_last)
        self.last_name.next_to(at(n.t5_span, top), DOWN, 0.12).align_to(at(n.t5_span, 0), RIGHT)
        self.exact_name = self.words.label("t5_exact", theme.SMALL_SIZE, COLORS["t5"], e=n.t5_exact)
        self.exact_name.next_to(at(n.t5_exact, top * 0.25), RIGHT, 0.3)
        self.plot_frame = VGroup(area, x_axis, y_axis, ticks, y_ticks, x_name, y_name, last)
        self.limit = VGroup(limit, limit_name)
        plot = VGroup(self.plot_frame, self.stairs, self.limit, self.last_name, self.exact_name)

        self._build_t5_samples()
        self._build_t5_notes()
        return self.page(self.header("t5"), plot, self.samples, self.t5_notes)

    def _build_t5_samples(self) -> None:
        """Sample distances and their buckets: two rows, or two columns if the rows are too wide."""
        n = self.n
        heads = [self.words.label("t5_distance", theme.SMALL_SIZE, theme.MUTED)] + [
            self.words.text(compact(d), theme.SMALL_SIZE) for d in n.t5_distances
        ]
        cells = [self.words.label("t5_bucket", theme.SMALL_SIZE, theme.MUTED)] + [
            self.words.text(str(b), theme.SMALL_SIZE, COLORS["t5"]) for b in n.t5_buckets
        ]
        self.samples = VGroup(*heads, *cells).arrange_in_grid(
            rows=2, buff=(0.3, 0.15), col_alignments="l" + "r" * len(n.t5_distances)
        )
        if self.samples.width > self.text_width():
            self.samples = VGroup(
                *[m for pair in zip(heads, cells, strict=True) for m in pair]
            ).arrange_in_grid(cols=2, buff=(0.4, 0.1))

    def _build_t5_notes(self) -> None:
        """The buckets of the keys after the query, and the bias each bucket learns."""
        n = self.n
        if n.t5_bidirectional:
            after = self.words.label(
                "t5_after_bi",
                theme.SMALL_SIZE,
                theme.MUTED,
                self.text_width(),
                lo=n.t5_after[0],
                hi=n.t5_after[1],
            )
        else:
            after = self.words.label(
                "t5_after_uni", theme.SMALL_SIZE, theme.MUTED, self.text_width(), b=n.t5_after[0]
            )
        self.t5_bias = self.words.label(
            "t5_bias", theme.LABEL_SIZE, theme.ACCENT, self.text_width()
        )
        self.t5_notes = VGroup(after, self.t5_bias).arrange(DOWN, buff=0.12)

    def t5(self) -> None:
        self.beat("t5")
        self.clear()
        page = self.build_t5()
        self.play(FadeIn(page[0]), FadeIn(self.plot_frame), run_time=theme.SHORT)
        self.play(Create(self.stairs), run_time=2.5)
        self.play(
            FadeIn(self.exact_name),
            FadeIn(self.limit),
            FadeIn(self.last_name),
            run_time=theme.NORMAL,
        )
        self.play(FadeIn(self.samples), run_time=theme.NORMAL)
        self.play(FadeIn(self.t5_notes), run_time=theme.SHORT)
        self.wait(theme.READ)

    # -------------------------------------------------------------------- rope
    def build_rope(self) -> VGroup:
        n = self.n
        self.m = ValueTracker(0)
        radius = self.stage.layout.rope_radius
        dial = Circle(radius=radius, stroke_color=theme.MUTED, stroke_width=2)
        self.dial = dial

        def tip(
            angle: float,
        ) -> np.ndarray:  # counter-clockwise from the x axis, as in rope-rotation
            return dial.get_center() + 0.9 * dial.width / 2 * np.array(
                [np.cos(angle), np.sin(angle), 0]
            )

        def angles() -> tuple[float, float]:
            m = self.m.get_value()
            return m * n.rope_theta, (m + ROPE_GAP) * n.rope_theta

        self.q_arrow = always_redraw(
            lambda: arrow(dial.get_center(), tip(angles()[0]), theme.WORD_A)
        )
        self.k_arrow = always_redraw(
            lambda: arrow(dial.get_center(), tip(angles()[1]), theme.WORD_B)
        )
        self.between = always_redraw(
            lambda: Arc(
                radius=0.35 * dial.width / 2,
                start_angle=angles()[0],
                angle=ROPE_GAP * n.rope_theta,
                arc_center=dial.get_center(),
                stroke_color=theme.ACCENT,
                stroke_width=3,
            )
        )
        readouts = VGroup()
        self.m_number = LiveNumber(
            0, num_decimal_places=0, font_size=theme.BODY_SIZE, color=theme.WORD_A
        )
        self.n_number = LiveNumber(
            ROPE_GAP, num_decimal_places=0, font_size=theme.BODY_SIZE, color=theme.WORD_B
        )
        bind_number(self.m_number, lambda: round(self.m.get_value()))
        bind_number(self.n_number, lambda: round(self.m.get_value()) + ROPE_GAP)
        for key, number in (("m", self.m_number), ("n", self.n_number)):
            readouts.add(
                VGroup(self.words.label(key, theme.BODY_SIZE), number).arrange(RIGHT, buff=0.15)
            )
        readouts.add(
            VGroup(
                self.words.label("gap", theme.BODY_SIZE, theme.ACCENT),
                self.words.text(str(ROPE_GAP), theme.BODY_SIZE, theme.ACCENT),
            ).arrange(RIGHT, buff=0.15)
        )
        readouts.arrange(DOWN, buff=0.2, aligned_edge=LEFT)
        theta = self.words.label(
            "rope_theta", theme.SMALL_SIZE, theme.MUTED, theta=compact(n.rope_theta)
        )
        side = VGroup(readouts, theta).arrange(DOWN, buff=0.25, aligned_edge=LEFT)
        picture = VGroup(dial, side).arrange(self.stage.layout.rope_dir, buff=0.6)
        rule = formula(
            r"\langle R_m\mathbf{q},\, R_n\mathbf{k}\rangle = \langle \mathbf{q},\, R_{n-m}\mathbf{k}\rangle",
            size=theme.BODY_SIZE * 1.3,
        )
        info = REGISTRY["rope-rotation"]
        back = self.words.label(
            "rope_back",
            theme.LABEL_SIZE,
            theme.MUTED,
            self.text_width(),
            order=f"{info.order:02d}",
            title=info.title(self.lang),
        )
        self.rope_rule = VGroup(rule, back).arrange(DOWN, buff=0.15)
        self.rope_picture = picture
        return self.page(self.header("rope"), picture, self.rope_rule)

    def rope(self) -> None:
        self.beat("rope")
        self.clear()
        page = self.build_rope()
        self.play(FadeIn(page[0]), FadeIn(self.rope_picture), run_time=theme.SHORT)
        self.add(self.q_arrow, self.k_arrow, self.between)
        self.play(self.m.animate.set_value(ROPE_STEPS), run_time=3.0)
        self.play(FadeIn(self.rope_rule), run_time=theme.NORMAL)
        self.wait(theme.READ)

    # ------------------------------------------------------------------- table
    COLUMNS: ClassVar[tuple[str, ...]] = ("params", "reach", "models")

    def cell_words(self, name: str, column: str, width: float, size: float) -> Mobject:
        n = self.n
        values = {
            "params_learned": dict(n=n.learned_max_len, d=n.d_model),
            "params_t5": dict(b=n.t5_num_buckets),
        }.get(f"{column}_{name}", {})
        return self.words.label(f"{column}_{name}", size, theme.FOREGROUND, width, **values)

    def build_table(self) -> VGroup:
        """One row per variant under its group (16:9, 1:1), or one card per variant (9:16)."""
        title = self.words.label("table_title", theme.HEADING_SIZE)
        body = self.build_cards() if self.stage.layout.cards else self.build_grid()
        return self.page(title, body)

    def build_grid(self) -> VGroup:
        size, widths, gap = (
            self.stage.layout.grid_size,
            self.stage.layout.grid_widths,
            self.stage.layout.grid_gap,
        )
        heads = [
            Rectangle(width=widths[0], height=0.05, stroke_width=0),
            *[
                self.words.label(f"col_{c}", size, theme.MUTED, w)
                for c, w in zip(self.COLUMNS, widths[1:], strict=True)
            ],
        ]
        rows = [heads]
        for group, names in GROUPS.items():
            rows.append([self.words.label(f"group_{group}", theme.LABEL_SIZE, theme.ACCENT)])
            for name in names:
                rows.append(
                    [
                        self.words.label(f"name_{name}", theme.LABEL_SIZE, COLORS[name], widths[0]),
                        *[
                            self.cell_words(name, c, w, size)
                            for c, w in zip(self.COLUMNS, widths[1:], strict=True)
                        ],
                    ]
                )
        # cells placed by hand: column lefts from the widths; the first lines of a row share
        # a centre line, so one-line and two-line cells read level
        lefts = np.concatenate([[0], np.cumsum(np.asarray(widths) + gap)])[:-1]
        y = 0.0
        self.table_rows = VGroup()
        rule = VGroup()
        for row in rows:
            first = max(self.first_line(m).height for m in row)
            for k, m in enumerate(row):
                m.move_to([lefts[k], 0, 0], aligned_edge=LEFT)
                m.shift((y - first / 2 - self.first_line(m).get_y()) * UP)
            top = max(m.get_top()[1] for m in row)
            bottom = min(m.get_bottom()[1] for m in row)
            self.table_rows.add(VGroup(*row).shift((y - top) * UP))
            y -= (top - bottom) + 0.22
            if row is heads:
                rule.add(Line([0, y + 0.11, 0], [lefts[-1] + widths[-1], y + 0.11, 0]))
        rule.set_stroke(theme.MUTED, 1, opacity=0.5)
        table = VGroup(self.table_rows, rule)
        self.table_parts = [VGroup(self.table_rows[0], rule), *self.table_rows[1:]]
        return VGroup(panel(table.width + 0.4, table.height + 0.4).move_to(table), table)

    @staticmethod
    def first_line(m: Mobject) -> Mobject:
        """A label's first line (a broken label is a VGroup of lines)."""
        return m[0] if isinstance(m, VGroup) and not isinstance(m, Rectangle) and len(m) else m

    def build_cards(self) -> VGroup:
        width = self.text_width() - 0.4
        parts = []
        for group, names in GROUPS.items():
            parts.append(self.words.label(f"group_{group}", theme.LABEL_SIZE, theme.ACCENT))
            for name in names:
                keys = [
                    self.words.label(f"col_{c}", theme.SMALL_SIZE, theme.MUTED)
                    for c in self.COLUMNS
                ]
                key_w = max(k.width for k in keys)
                lines = VGroup(
                    *[
                        VGroup(
                            key,
                            self.cell_words(name, c, width - key_w - 0.3, theme.SMALL_SIZE),
                        )
                        for key, c in zip(keys, self.COLUMNS, strict=True)
                    ]
                )
                for key, words in lines:
                    words.next_to(key, RIGHT, buff=0.3, aligned_edge=UP)
                    words.shift((key_w - key.width) * RIGHT)
                lines.arrange(DOWN, buff=0.12, aligned_edge=LEFT)
                title = self.words.label(f"name_{name}", theme.LABEL_SIZE, COLORS[name])
                body = VGroup(title, lines).arrange(DOWN, buff=0.12, aligned_edge=LEFT)
                card = panel(width + 0.3, body.height + 0.3, COLORS[name]).move_to(body)
                body.align_to(card, LEFT).shift(0.15 * RIGHT)
                parts.append(VGroup(card, body))
        cards = VGroup(*parts).arrange(DOWN, buff=0.18, aligned_edge=LEFT)
        self.table_parts = list(parts)
        return cards

    def table(self) -> None:
        self.beat("table")
        self.clear()
        title, body = self.build_table()
        self.play(FadeIn(title), run_time=theme.SHORT)
        if not self.stage.layout.cards:  # the grid's header row
            self.play(FadeIn(body[0]), run_time=theme.SHORT)
        for part in self.table_parts:
            self.play(FadeIn(part, shift=0.1 * RIGHT), run_time=0.5)
        self.wait(theme.LONG)
