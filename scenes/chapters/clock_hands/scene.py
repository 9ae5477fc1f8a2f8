"""clock-hands: every (sin, cos) pair of the PE vector is a clock hand.

Hand i points at angle p·ω_i, clockwise from 12 o'clock, so its tip is
(x, y) = (sin, cos)(p·ω_i): exactly PE dims (2i, 2i+1) in the interleaved layout
(dims (i, i+d/2) in the concat layout). The fast hand alone almost repeats after
2π/ω_0 positions; the set of hands does not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UL,
    UP,
    Dot,
    FadeIn,
    FadeOut,
    Indicate,
    Line,
    Rectangle,
    ReplacementTransform,
    Succession,
    ValueTracker,
    VGroup,
    Write,
    linear,
    smooth,
)

import pe_math as pm
from pe_math import Params
from scenes.kit import theme
from scenes.kit.base import LessonScene
from scenes.kit.components import (
    ClockFace,
    LiveNumber,
    bind_number,
    compact,
    formula,
    hand_angle,
    panel,
    spread_indices,
)

MAX_CLOCKS = 6  # the most clocks that stay readable at 854×480, whatever clocks_shown asks
SECONDS_PER_POSITION = 0.5


def stepwise(t: float, steps: int) -> float:
    """A rate function that eases from one whole step to the next: the counter ticks."""
    if steps <= 0:
        return smooth(t)
    whole, frac = divmod(t * steps, 1.0)
    if whole >= steps:
        return 1.0
    return (whole + smooth(frac)) / steps


NEAR_MISS_DEG = 30  # the fastest hand "nearly repeats" when it ends this close to its start
# The slower hands "add little" when all the dims together put the two positions less than
# this many times as far apart as the fastest hand alone does.
ADDS_LITTLE = 1.1


def said_like_table(x: float) -> float:
    """`x` rounded as the lap table (compact) shows it: whole from 100, else 3 significant
    digits, and 3 significant digits from a million on, where speech names the scale."""
    if 100 <= abs(x) < 1e6:
        return float(round(x))
    return float(f"{x:.3g}")


@dataclass(frozen=True)
class Layout:
    """Where the clocks, the readout and the counter go in one frame shape."""

    grid: bool  # the clocks two to a row (else all in one row)
    stacked: bool  # the readout under the clocks (else beside them)
    counter_under_readout: bool  # saves a row of height (else the counter is under the clocks)
    biggest_radius: float  # what the height allows a clock
    left_buff: float  # between the clocks, their note and the counter
    page_buff: float  # between the convention, the body and the notes


LAYOUTS = {
    # in 16:9 the row of clocks leaves height to spare: spread the page into it
    "wide": Layout(False, False, False, biggest_radius=1.2, left_buff=0.55, page_buff=0.6),
    "tall": Layout(True, True, False, biggest_radius=0.8, left_buff=0.3, page_buff=0.35),
    "square": Layout(True, False, True, biggest_radius=0.5, left_buff=0.3, page_buff=0.18),
}


@dataclass(frozen=True)
class ClockHandsNumbers:
    """Every number ClockHands shows, computed by pe_math (JSON-ready)."""

    d_model: int
    n_clocks: int
    shown: list[int]
    dims: list[list[int]]
    omega: list[float]
    period: list[float]
    positions: list[int]
    angles: list[list[float]]
    readout_dims: list[int]
    pe: list[list[float]]
    a: int
    b: int
    angles_a: list[float]
    angles_b: list[float]
    gap_deg: list[float]
    fast_period: float
    fast_distance: float
    pe_distance: float
    step_distance: float  # ‖PE(p+1) − PE(p)‖, the same for every p: the yardstick for pe_distance
    fast_gap_deg: float  # how far apart the fastest hand ends at the two positions
    step_ratio: float  # pe_distance in neighbour steps
    fast_laps: int  # whole laps of the fastest hand nearest to its turn from a to b
    slowest_period: float  # the slowest hand's lap, rounded as the lap table shows it
    lines: dict[str, str]  # beat -> which of its narration alternatives holds here


class ClockHands(LessonScene, layouts=LAYOUTS):
    """d/2 clocks, one per sin/cos pair; a position counter turns them all."""

    slug: ClassVar[str] = "clock-hands"

    # ------------------------------------------------------------------ numbers
    @classmethod
    def numbers(cls, params: Params) -> ClockHandsNumbers:
        p = params
        d, base, layout, variant = p.d_model, p.base, p.layout, p.variant
        shown = spread_indices(d // 2, min(p.clocks_shown, MAX_CLOCKS))
        dims = pm.pair_dims(d, layout)[shown]
        positions = np.arange(p.clock_max_position + 1)
        table = pm.sinusoidal(positions, d, base, layout, variant)
        a, b = p.ambiguity_positions
        pe_ab = pm.sinusoidal([a, b], d, base, layout, variant)
        tips_a = pm.clock_hand_tips(a, d, base, variant)
        tips_b = pm.clock_hand_tips(b, d, base, variant)
        fast_gap = abs(float(np.degrees(pm.clock_angle_gaps(a, b, d, base, variant))[0]))
        near_miss = fast_gap <= NEAR_MISS_DEG
        pe_distance = float(pm.adjacent_distances(pe_ab)[0])
        step_distance = float(
            pm.adjacent_distances(pm.sinusoidal([0, 1], d, base, layout, variant))[0]
        )
        # is the two positions' distance within one neighbour step ("small"), or beyond it?
        # Judged as said, to two places: equal-looking values are never called smaller.
        size = "small" if round(pe_distance, 2) < round(step_distance, 2) else "large"
        hands = "many" if d > 2 else "one"
        fast_distance = float(pm.adjacent_distances(np.stack([tips_a[0], tips_b[0]]))[0])
        # with several hands: do the slower ones move the code much beyond the fast hand's miss?
        adds = "little" if pe_distance < ADDS_LITTLE * fast_distance else "adds"
        fingerprint = f"{hands}_{adds}_{size}" if hands == "many" else f"{hands}_{size}"
        # the fastest hand nearly repeats only when the two positions sit whole laps apart:
        # "nearly" that many laps when it stops short of them, "just over" when it passes
        fast_turn = abs(b - a) * float(pm.frequencies(d, base, variant)[0])
        fast_laps = round(fast_turn / (2 * np.pi))
        short = fast_turn < 2 * np.pi * fast_laps
        repeat = "same" if a == b else ("near" if short else "past") if near_miss else "far"
        # the verdict leans on a hand coming round only where the demo showed one come round
        takeaway = "lapped" if hands == "many" and near_miss and a != b else hands
        slowest_period = float(pm.periods(d, base, variant)[-1])
        return ClockHandsNumbers(
            fast_gap_deg=fast_gap,
            fast_laps=fast_laps,
            slowest_period=said_like_table(slowest_period),
            lines={
                "periods": hands,
                "repeat": repeat,
                "fingerprint": "same" if a == b else fingerprint,
                "tick": hands,
                "takeaway": takeaway,
            },
            d_model=d,
            n_clocks=d // 2,
            shown=shown,
            dims=dims.tolist(),
            omega=pm.frequencies(d, base, variant)[shown].tolist(),
            period=pm.periods(d, base, variant)[shown].tolist(),
            positions=positions.tolist(),
            angles=[pm.clock_angles(q, d, base, variant)[shown].tolist() for q in positions],
            # the readout: PE values of the shown pairs' dims at every whole position
            readout_dims=dims.ravel().tolist(),
            pe=table[:, dims.ravel()].tolist(),
            a=int(a),
            b=int(b),
            angles_a=pm.clock_angles(a, d, base, variant)[shown].tolist(),
            angles_b=pm.clock_angles(b, d, base, variant)[shown].tolist(),
            gap_deg=np.degrees(pm.clock_angle_gaps(a, b, d, base, variant))[shown].tolist(),
            fast_period=float(pm.periods(d, base, variant)[0]),
            fast_distance=fast_distance,
            pe_distance=pe_distance,
            step_distance=step_distance,
            step_ratio=pe_distance / step_distance,
        )

    # ---------------------------------------------------------------- construct
    def construct(self) -> None:
        self.n = self.numbers(self.params)
        self.pos = ValueTracker(0)
        self.title_card()
        self.show_clocks()
        self.run_positions()
        self.near_repeat()
        self.fingerprints()
        self.period_table()
        self.takeaway()

    def whole_position(self) -> int:
        """The counter's position: the tracker rounded to a whole token index."""
        return int(round(self.pos.get_value()))

    def pe_now(self, dim: int) -> float:
        """PE(p)[dim] at the counter's whole position: the table row, or pe_math past its end."""
        p, n = self.params, self.n
        q = self.whole_position()
        if 0 <= q < len(n.positions):
            return float(n.pe[q][n.readout_dims.index(dim)])
        return float(pm.sinusoidal([q], p.d_model, p.base, p.layout, p.variant)[0, dim])

    # ------------------------------------------------------------------- layout
    def build_stage(self) -> None:
        n = self.n
        shown = n.shown
        self.colors = [theme.SERIES_COLORS[j % len(theme.SERIES_COLORS)] for j in range(len(shown))]
        grid = self.stage.layout.grid
        line_w = self.stage.width() if grid else None
        self.convention = self.words.label("convention", theme.LABEL_SIZE, max_width=line_w)

        # the readout column, built first: its width decides how big the clocks may be
        self.pe_column = self.build_readout()
        self.table = self.build_period_table()
        self.table.move_to(self.pe_column, aligned_edge=UL)
        right = VGroup(self.pe_column, self.table)
        self._build_cells(right)
        which = self.words.listing(shown)
        self.shown_note = self.words.label(
            "shown",
            theme.SMALL_SIZE,
            theme.MUTED,
            max_width=max(self.cells.width, 2.5) if grid else None,
            which=which,
            n=n.n_clocks,
        )
        counter = self._build_counter()
        notes = self._build_notes(line_w)
        self._place_page(right, counter, notes)
        bind_number(self.counter, self.whole_position)

    def _build_cells(self, right: VGroup) -> None:
        """One column per shown clock (title, dims, dial, ω), arranged in a row or a grid;
        `right` is the readout column, whose width the clocks leave free."""
        n = self.n
        shown = n.shown
        grid, stacked = self.stage.layout.grid, self.stage.layout.stacked
        # the labels under the dials decide the narrowest a clock's column can be
        deltas = [
            self.words.label("delta", theme.SMALL_SIZE, theme.ACCENT, g=theme.fmt(g, 1))
            for g in n.gap_deg
        ]
        label_w = max(d.width for d in deltas)
        per_row = min(2, len(shown)) if grid else len(shown)
        usable = self.stage.width() - (0 if stacked else right.width + 0.6)
        radius = float(np.clip(usable / per_row / 2 - 0.25, 0.45, self.stage.layout.biggest_radius))
        gap = 0.3 if 2 * radius + 0.3 > label_w + 0.2 else 0.2
        self.faces, self.omegas, self.deltas, self.cells = [], [], [], VGroup()
        for j, i in enumerate(shown):
            color = self.colors[j]
            face = ClockFace(radius=radius, color=color)
            head = self.words.label("clock", theme.LABEL_SIZE, color, i=i)
            dims = self.words.label(
                "dims", theme.SMALL_SIZE, theme.MUTED, a=n.dims[j][0], b=n.dims[j][1]
            )
            omega = self.words.label("omega", theme.SMALL_SIZE, w=compact(n.omega[j]))
            cell = VGroup(head, dims, face, omega).arrange(DOWN, buff=0.12)
            delta = deltas[j]
            # an invisible strut as wide as the widest dial label keeps neighbours apart
            cell.add(
                Rectangle(width=label_w, height=0.01, stroke_width=0, fill_opacity=0).move_to(omega)
            )
            self.cells.add(cell)
            self.faces.append(face)
            self.omegas.append(omega)
            self.deltas.append(delta)
        if grid:
            self.cells.arrange_in_grid(cols=per_row, buff=(gap, 0.3), aligned_edge=UP)
        else:
            self.cells.arrange(RIGHT, buff=gap, aligned_edge=UP)

    def _build_counter(self) -> VGroup:
        self.counter_label = self.words.label("position", theme.BODY_SIZE)
        self.counter = LiveNumber(
            0, num_decimal_places=0, font_size=theme.HEADING_SIZE, color=theme.ACCENT
        )
        return VGroup(self.counter_label, self.counter).arrange(RIGHT, buff=0.2)

    def _build_notes(self, line_w: float | None) -> VGroup:
        """The three notes under the page: the fast hand alone, the whole vector, one step."""
        n = self.n
        fmt_vals = dict(a=n.a, b=n.b, d=n.d_model)
        self.note_fast = self.words.label(
            "fast_alone",
            theme.LABEL_SIZE,
            self.colors[0],
            max_width=line_w,
            dist=theme.fmt(n.fast_distance),
            period=theme.fmt(n.fast_period),
            **fmt_vals,
        )
        self.note_all = VGroup(
            self.words.label("whole", theme.LABEL_SIZE, theme.ACCENT, d=n.d_model),
            formula(
                r"\lVert \mathrm{{PE}}({a}) - \mathrm{{PE}}({b}) \rVert = {dist}",
                size=theme.LABEL_SIZE * 1.3,
                color=theme.ACCENT,
                a=str(n.a),
                b=str(n.b),
                dist=theme.fmt(n.pe_distance),
            ),
        )
        self.note_all.arrange(RIGHT, buff=0.2)
        if self.note_all.width > self.stage.width():
            self.note_all.arrange(DOWN, buff=0.2, aligned_edge=LEFT)
        self.note_step = self.words.label(
            "step", theme.LABEL_SIZE, theme.MUTED, max_width=line_w, dist=theme.fmt(n.step_distance)
        )
        return VGroup(self.note_fast, self.note_all, self.note_step).arrange(
            DOWN, buff=0.15, aligned_edge=LEFT
        )

    def _place_page(self, right: VGroup, counter: VGroup, notes: VGroup) -> None:
        """Clocks, readout and counter, the convention above and the notes below, on stage."""
        stacked = self.stage.layout.stacked
        if self.stage.layout.counter_under_readout:
            left = VGroup(self.cells, self.shown_note).arrange(
                DOWN, buff=self.stage.layout.left_buff
            )
            counter.next_to(self.pe_column, DOWN, buff=0.35)
            right = VGroup(self.pe_column, self.table, counter)
        else:
            left = VGroup(self.cells, self.shown_note, counter).arrange(
                DOWN, buff=self.stage.layout.left_buff
            )
        if stacked:  # the readout (later the lap table) under the clocks
            body = VGroup(left, right).arrange(DOWN, buff=0.45)
        else:
            body = VGroup(left, right).arrange(RIGHT, buff=0.6, aligned_edge=UP)
        page = VGroup(self.convention, body, notes).arrange(DOWN, buff=self.stage.layout.page_buff)
        # each clock's angle gap (ambiguity beat) later takes its ω label's slot
        for delta, omega in zip(self.deltas, self.omegas, strict=True):
            delta.move_to(omega)
        page.add(*self.deltas)  # scaled and moved with the page, shown later
        self.stage.place(page, below_logo=True)

    def build_readout(self) -> VGroup:
        n = self.n
        header = self.words.label("pe_head", theme.LABEL_SIZE, theme.ACCENT)
        rows = VGroup()
        for j, pair in enumerate(n.dims):
            for k, dim in enumerate(pair):
                name = self.words.label(
                    "pe_row", theme.SMALL_SIZE, theme.MUTED, dim=dim, fn=("sin", "cos")[k]
                )
                value = LiveNumber(
                    n.pe[0][2 * j + k],
                    num_decimal_places=3,
                    include_sign=True,
                    font_size=theme.LABEL_SIZE,
                    color=self.colors[j],
                )
                bind_number(value, lambda dim=dim: self.pe_now(dim))
                rows.add(VGroup(name, value))
        names = VGroup(*[r[0] for r in rows]).arrange(DOWN, buff=0.16, aligned_edge=LEFT)
        x = names.get_right()[0] + 0.25
        for name, value in rows:
            value.move_to([x, name.get_y(), 0], aligned_edge=LEFT)
        note = self.words.label(
            "dims_note", theme.SMALL_SIZE, theme.MUTED, k=len(rows), d=n.d_model
        )
        body = VGroup(header, rows, note).arrange(DOWN, buff=0.2)
        return VGroup(panel(body.width + 0.4, body.height + 0.4).move_to(body), body)

    def build_period_table(self) -> VGroup:
        n = self.n
        head = [
            self.words.label(k, theme.SMALL_SIZE, theme.MUTED)
            for k in ("col_clock", "col_omega", "col_period")
        ]
        cells = list(head)
        for j, i in enumerate(n.shown):
            color = self.colors[j]
            cells += [
                self.words.text(str(i), theme.LABEL_SIZE, color),
                self.words.text(compact(n.omega[j]), theme.LABEL_SIZE, color),
                self.words.text(compact(n.period[j]), theme.LABEL_SIZE, color),
            ]
        grid = VGroup(*cells).arrange_in_grid(cols=3, buff=(0.35, 0.18), col_alignments="lrr")
        title = self.words.label("table_title", theme.LABEL_SIZE, theme.ACCENT)
        note = self.words.label("table_note", theme.SMALL_SIZE, theme.MUTED)
        body = VGroup(title, grid, note).arrange(DOWN, buff=0.22)
        return VGroup(panel(body.width + 0.4, body.height + 0.4).move_to(body), body)

    # -------------------------------------------------------------------- beats
    def show_clocks(self) -> None:
        self.beat("clocks")
        self.build_stage()
        self.hands = []
        for j, i in enumerate(self.n.shown):
            hand = self.faces[j].hand(lambda i=i: hand_angle(self.params, self.pos.get_value(), i))
            hand.set_z_index(2)
            self.hands.append(hand)
        self.while_saying(
            "split", FadeIn(self.cells), FadeIn(self.shown_note), run_time=theme.NORMAL
        )
        self.while_saying("hands", *[FadeIn(h) for h in self.hands], run_time=theme.SHORT)
        self.while_saying("speed", Write(self.convention), run_time=theme.NORMAL)
        self.wait(theme.LONG)

    def run_positions(self) -> None:
        self.beat("tick")
        self.while_saying(
            "step",
            FadeIn(self.counter_label),
            FadeIn(self.counter),
            FadeIn(self.pe_column),
            run_time=theme.SHORT,
        )
        self.wait(theme.SHORT)
        steps = self.n.positions[-1]
        self.while_saying(  # the hands step on for as long as the voice says how they turn
            "run",
            self.pos.animate.set_value(steps),
            rate_func=lambda t: stepwise(t, steps),
            run_time=float(np.clip(SECONDS_PER_POSITION * steps, 4, 14)),
        )
        self.wait(theme.READ)

    def near_repeat(self) -> None:
        self.beat("repeat")
        n = self.n
        self.ghosts = VGroup()
        for j, face in enumerate(self.faces):
            tip = face.tip(n.angles_a[j])
            self.ghosts.add(
                VGroup(
                    Line(face.dial.get_center(), tip, stroke_color=theme.MUTED, stroke_width=3),
                    Dot(tip, radius=0.04, color=theme.MUTED),
                )
            )
        self.while_saying(
            "watch",
            Succession(
                self.pos.animate(run_time=theme.NORMAL).set_value(n.a),
                FadeIn(self.ghosts, run_time=theme.SHORT),
            ),
        )
        self.while_saying("lap", self.pos.animate.set_value(n.b), rate_func=linear, run_time=3.0)
        self.while_saying(
            "note", FadeIn(self.note_fast, shift=0.1 * UP), stretch=False, run_time=theme.NORMAL
        )
        self.wait(theme.LONG)

    def fingerprints(self) -> None:
        self.beat("fingerprint")
        self.while_saying(
            "moved",
            *[ReplacementTransform(w, dl) for w, dl in zip(self.omegas, self.deltas, strict=True)],
            run_time=theme.NORMAL,
        )
        self.while_saying(  # every dim's change is pointed at as "all the dims" is said
            "all",
            Succession(
                Indicate(VGroup(*self.deltas), color=theme.ACCENT, run_time=theme.NORMAL),
                FadeIn(self.note_all, shift=0.1 * UP, run_time=theme.NORMAL),
            ),
        )
        self.while_saying(
            "step", FadeIn(self.note_step, shift=0.1 * UP), stretch=False, run_time=theme.SHORT
        )
        self.wait(theme.LONG + theme.READ)

    def period_table(self) -> None:
        self.beat("periods")
        self.play(FadeOut(self.pe_column), FadeOut(self.ghosts), run_time=theme.SHORT)
        self.play(FadeIn(self.table), run_time=theme.NORMAL)
        self.wait(theme.LONG + theme.READ)
