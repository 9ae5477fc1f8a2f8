"""relative-shift: moving k positions turns every clock hand by k·ω_i.

PE(p+k) = M_k·PE(p), where M_k holds one 2×2 rotation per (sin, cos) pair and zeros
elsewhere (pe_math.shift_matrix, laid out on the pair's dims for either layout). Hands
follow clock-hands' convention: angle p·ω_i clockwise from 12 o'clock, tip (sin, cos).
The dot product PE(p)·PE(p+k) = Σ_i cos(k·ω_i) involves k alone. RoPE, next, takes the
rotation literally. A model of width 2 has one clock: its lines and labels say so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from manim import (
    DOWN,
    LEFT,
    ORIGIN,
    RIGHT,
    UP,
    Arc,
    Dot,
    FadeIn,
    FadeOut,
    Indicate,
    Line,
    Mobject,
    Rectangle,
    ValueTracker,
    VGroup,
    Write,
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

MAX_CLOCKS = 4  # clocks drawn (evenly spread, fastest and slowest): 8 table rows at most
DIGITS = 3  # decimals of the PE values in the check table
MATRIX_DIGITS = 2  # decimals of M_k's entries
GAP = 0.35  # between the parts of the page
TURN = 3.0  # seconds for the hands to turn by k·ω_i


@dataclass(frozen=True)
class Layout:
    """Where the clocks, the slot of panels and the matrix go in one frame shape."""

    slot_under: bool  # the slot under the clocks, as wide as the stage (else beside them)
    # where the matrix goes: "" the slot; "body" over the clocks and the slot, so the clocks
    # can be bigger; "page" over the whole page, when the slot is too small for it
    matrix_covers: str
    clock_column: bool  # small dials in a column, each with its words to the right
    clock_radius: float
    note_beside_counter: bool  # the shown note and the counter share a row under the clocks
    foot_edge: np.ndarray  # how a clock's ω sits on its foot's slot
    narrow_slot: bool  # panel text breaks at the slot's width; tables run one row per dim
    table_tex_scale: float  # TeX sets small
    bridge_size: float


LAYOUTS = {
    "wide": Layout(
        slot_under=False, matrix_covers="", clock_column=False, clock_radius=0.85,
        note_beside_counter=False, foot_edge=ORIGIN, narrow_slot=False, table_tex_scale=1.3,
        bridge_size=theme.BODY_SIZE,
    ),
    "tall": Layout(
        slot_under=True, matrix_covers="body", clock_column=False, clock_radius=1.1,
        note_beside_counter=True, foot_edge=ORIGIN, narrow_slot=True, table_tex_scale=1.1,
        bridge_size=theme.LABEL_SIZE,
    ),
    "square": Layout(
        slot_under=False, matrix_covers="page", clock_column=True, clock_radius=0.42,
        note_beside_counter=False, foot_edge=LEFT, narrow_slot=True, table_tex_scale=1.1,
        bridge_size=theme.LABEL_SIZE,
    ),
}  # fmt: skip


@dataclass(frozen=True)
class RelativeShiftNumbers:
    """Every number RelativeShift shows, computed by pe_math (JSON-ready)."""

    d_model: int
    n_clocks: int
    layout: str
    shown: list[int]
    dims: list[list[int]]
    omega: list[float]
    p: int
    k: int
    angles_p: list[float]
    angles_pk: list[float]
    turn: list[float]
    turn_deg: list[float]
    rows: list[int]
    pe_p: list[float]
    moved: list[float]
    pe_pk: list[float]
    max_error: float
    matrix: list[list[float]]
    dot_positions: list[int]
    dots: list[float]
    dot_sum: float
    lines: dict[str, str]  # beat → the narration alternative these numbers make true


def clock_lines(n_clocks: int) -> dict[str, str]:
    """One clock (d_model = 2) is told as one hand, one rotation, one cosine."""
    choice = "one" if n_clocks == 1 else "many"
    return {beat: choice for beat in ("clocks", "turn", "matrix", "dot")}


def sci_tex(x: float) -> str:
    """A small magnitude in TeX: 1.1\\times10^{-16}, or 0."""
    if x == 0:
        return "0"
    mantissa, exp = f"{x:.1e}".split("e")
    return rf"{mantissa}\times10^{{{int(exp)}}}"


def degrees_text(deg: float) -> str:
    """A turn in degrees: one decimal, or whole degrees with thousands commas past 1,000."""
    return theme.fmt(deg, 1) if abs(deg) < 1000 else compact(deg)


class RelativeShift(LessonScene, layouts=LAYOUTS):
    """PE(p) as clocks; turning every hand by k·ω_i lands on PE(p+k)."""

    slug: ClassVar[str] = "relative-shift"

    # ------------------------------------------------------------------ numbers
    @classmethod
    def numbers(cls, params: Params) -> RelativeShiftNumbers:
        d, base, layout, variant = params.d_model, params.base, params.layout, params.variant
        p, k = params.shift_p, params.shift_k
        shown = spread_indices(d // 2, MAX_CLOCKS)
        dims = pm.pair_dims(d, layout)[shown]
        rows = dims.ravel()  # the shown dims, clock by clock: (sin, cos) of each
        check = pm.shift_check(p, k, d, base, layout, variant)
        turn = pm.clock_angles(k, d, base, variant)[shown]
        positions = list(params.shift_dot_positions)
        return RelativeShiftNumbers(
            d_model=d,
            n_clocks=d // 2,
            layout=layout,
            shown=shown,
            dims=dims.tolist(),
            omega=pm.frequencies(d, base, variant)[shown].tolist(),
            p=p,
            k=k,
            angles_p=pm.clock_angles(p, d, base, variant)[shown].tolist(),
            angles_pk=pm.clock_angles(p + k, d, base, variant)[shown].tolist(),
            turn=turn.tolist(),
            turn_deg=np.degrees(turn).tolist(),
            rows=rows.tolist(),
            pe_p=check["pe_p"][rows].tolist(),
            moved=check["moved"][rows].tolist(),
            pe_pk=check["pe_pk"][rows].tolist(),
            max_error=check["max_error"],
            matrix=check["matrix"][np.ix_(rows, rows)].tolist(),
            dot_positions=positions,
            dots=pm.shifted_dots(positions, k, d, base, layout, variant).tolist(),
            dot_sum=pm.shift_dot(k, d, base, variant),
            lines=clock_lines(d // 2),
        )

    # ---------------------------------------------------------------- construct
    def construct(self) -> None:
        self.n = self.numbers(self.params)
        self.pos = ValueTracker(self.n.p)
        self.title_card()
        self.show_clocks()
        self.turn_hands()
        self.show_matrix()
        self.check_numbers()
        self.dot_product()
        self.to_rope()
        self.takeaway(verdict="sinusoid")

    # ------------------------------------------------------------------- layout
    def build_stage(self) -> None:
        """Header over the clocks and one slot that shows each beat's panel in turn.

        16:9: a 2×2 grid of clocks beside the slot. 9:16: the grid over the slot. 1:1: a
        column of small clocks beside the slot; the matrix, too big for that slot, takes
        the whole page for its beat.
        """
        n = self.n
        self.colors = [
            theme.SERIES_COLORS[j % len(theme.SERIES_COLORS)] for j in range(len(n.shown))
        ]
        self.header = self.build_header()
        self.clocks = self.build_clocks()
        layout = self.stage.layout
        if layout.slot_under:
            self.slot_width = self.stage.width()
        else:
            self.slot_width = self.stage.width() - self.clocks.width - GAP
        self.matrix_covers = layout.matrix_covers
        self.table = self.build_table()
        self.matrix = self.build_matrix()
        self.dots = self.build_dots()
        self.link = self.build_bridge()
        panels = [self.table, self.dots, self.link]
        if not self.matrix_covers:
            panels.append(self.matrix)
        for other in panels[1:]:
            other.move_to(panels[0])
        slot = VGroup(*panels)
        body = VGroup(self.clocks, slot).arrange(DOWN if layout.slot_under else RIGHT, buff=GAP)
        page = VGroup(self.header, body).arrange(DOWN, buff=GAP)
        if self.matrix_covers == "page":
            page.add(self.matrix.move_to(page))
        elif self.matrix_covers == "body":
            page.add(self.matrix.move_to(body))
        # each clock's foot (its ω, after the turn how far it turned) sits on its slot
        edge = layout.foot_edge
        for slot_mark, omega, turned in zip(self.foot_slots, self.omegas, self.turned, strict=True):
            omega.move_to(slot_mark, aligned_edge=edge)
            turned.move_to(slot_mark, aligned_edge=edge)
        page.add(*self.omegas, *self.turned)  # moved and scaled with the page
        self.stage.place(page)

    def text_width(self) -> float | None:
        """How wide a panel's text may run (None: one line in 16:9)."""
        return self.slot_width - 0.4 if self.stage.layout.narrow_slot else None

    def build_header(self) -> VGroup:
        n = self.n
        claim = formula(
            r"\mathrm{PE}(p+k) = M_k\,\mathrm{PE}(p)",
            size=theme.BODY_SIZE * 1.4,
            color=theme.ACCENT,
        )
        worked = self.words.label("worked", theme.LABEL_SIZE, p=n.p, k=n.k)
        top = VGroup(claim, worked).arrange(RIGHT, buff=0.5)
        line_w = self.stage.width()
        if top.width > line_w:
            top.arrange(DOWN, buff=0.15)
        notes = VGroup(
            self.words.label(f"layout_{n.layout}", theme.SMALL_SIZE, theme.MUTED, max_width=line_w),
            self.words.label("convention", theme.SMALL_SIZE, theme.MUTED, max_width=line_w),
        )
        notes.arrange(RIGHT, buff=0.4)
        if notes.width > line_w:
            notes.arrange(DOWN, buff=0.1)
        self.claim = claim
        return VGroup(top, notes).arrange(DOWN, buff=0.15)

    def build_clocks(self) -> VGroup:
        n = self.n
        turned = [
            self.words.label("turned", theme.SMALL_SIZE, self.colors[j], deg=degrees_text(t))
            for j, t in enumerate(n.turn_deg)
        ]
        omegas = [
            self.words.label("omega", theme.SMALL_SIZE, self.colors[j], w=compact(w))
            for j, w in enumerate(n.omega)
        ]
        foot_w = max(m.width for m in turned + omegas)
        self.faces, self.omegas, self.turned, self.foot_slots = [], omegas, turned, []
        column, radius = self.stage.layout.clock_column, self.stage.layout.clock_radius
        cells = VGroup()
        for j, i in enumerate(n.shown):
            face = ClockFace(radius=radius, color=self.colors[j])
            head = self.words.label("clock", theme.LABEL_SIZE, self.colors[j], i=i)
            # an invisible slot for the foot, as wide as the widest, keeps neighbours apart
            foot = Rectangle(width=foot_w, height=omegas[j].height, stroke_width=0, fill_opacity=0)
            if column:
                words = VGroup(head, foot).arrange(DOWN, buff=0.1, aligned_edge=LEFT)
                cell = VGroup(face, words).arrange(RIGHT, buff=0.15)
            else:
                cell = VGroup(head, face, foot).arrange(DOWN, buff=0.12)
            self.foot_slots.append(foot)
            cells.add(cell)
            self.faces.append(face)
        if column:
            cells.arrange(DOWN, buff=0.2, aligned_edge=LEFT)
        else:
            cells.arrange_in_grid(cols=min(2, len(cells)), buff=(0.3, 0.3), aligned_edge=UP)
        self.cells = cells
        self.shown_note = self.words.label(
            "shown" if n.n_clocks > 1 else "shown_one",
            theme.SMALL_SIZE,
            theme.MUTED,
            max_width=max(cells.width, 2.5),
            which=self.words.listing(n.shown),
            n=n.n_clocks,
        )
        self.counter_label = self.words.label("position", theme.BODY_SIZE)
        self.counter = LiveNumber(
            n.p, num_decimal_places=0, font_size=theme.HEADING_SIZE, color=theme.ACCENT
        )
        self.counter_row = VGroup(self.counter_label, self.counter).arrange(RIGHT, buff=0.2)
        bind_number(self.counter, lambda: round(self.pos.get_value()))
        if self.stage.layout.note_beside_counter:
            foot = VGroup(self.shown_note, self.counter_row).arrange(RIGHT, buff=0.6)
            return VGroup(cells, foot).arrange(DOWN, buff=0.25)
        return VGroup(cells, self.shown_note, self.counter_row).arrange(DOWN, buff=0.25)

    def build_table(self) -> VGroup:
        """PE(p), M_k·PE(p) and PE(p+k) at the shown clocks' dims, one column per dim."""
        n = self.n
        size = theme.LABEL_SIZE * self.stage.layout.table_tex_scale
        dim_head = self.words.label("dim", theme.SMALL_SIZE, theme.MUTED)
        names = [
            self.words.text(f"{dim} {('sin', 'cos')[r % 2]}", theme.SMALL_SIZE, self.colors[r // 2])
            for r, dim in enumerate(n.rows)
        ]
        self.dim_row = VGroup(dim_head, *names)
        values = [
            [
                self.words.text(theme.fmt(v, DIGITS), theme.SMALL_SIZE, self.colors[r // 2])
                for r, v in enumerate(column)
            ]
            for column in (n.pe_p, n.moved, n.pe_pk)
        ]
        # the worked p and k in the column heads, or p and k themselves if those are too wide;
        # one column per dim in 16:9, one row per dim where that is too wide or the frame narrow
        numeric = dict(p=str(n.p), k=str(n.k), q=str(n.p + n.k))
        symbolic = dict(p="p", k="k", q="p+k")
        layouts = [(across, heads) for heads in (numeric, symbolic) for across in (True, False)]
        if self.stage.layout.narrow_slot:
            layouts = [(False, numeric), (False, symbolic)]
        for across, slots in layouts:
            heads = [
                formula(r"\mathrm{{PE}}({p})", size=size, **slots),
                formula(r"M_{{{k}}}\,\mathrm{{PE}}({p})", size=size, **slots),
                formula(r"\mathrm{{PE}}({q})", size=size, **slots),
            ]
            self.columns = [VGroup(heads[c], *values[c]) for c in range(3)]
            lines = [self.dim_row, *self.columns]
            if across:  # one column per dim
                cells = [m for line in lines for m in line]
                grid = VGroup(*cells).arrange_in_grid(
                    cols=len(n.rows) + 1, buff=(0.2, 0.22), col_alignments="l" + "r" * len(n.rows)
                )
            else:  # one row per dim
                cells = [line[r] for r in range(len(n.rows) + 1) for line in lines]
                grid = VGroup(*cells).arrange_in_grid(
                    cols=4, buff=(0.15, 0.14), col_alignments="lrrr"
                )
            if grid.width <= self.slot_width - 0.4:
                break
        self.rows_note = VGroup()
        if len(n.rows) < n.d_model:
            self.rows_note.add(
                self.words.label(
                    "rows_note", theme.SMALL_SIZE, theme.MUTED, rows=len(n.rows), d=n.d_model
                )
            )
        self.error_line = VGroup(
            self.words.label(
                "max_error",
                theme.LABEL_SIZE,
                theme.ACCENT,
                max_width=self.text_width(),
                d=n.d_model,
            ),
            formula(sci_tex(n.max_error), size=theme.LABEL_SIZE * 1.3, color=theme.ACCENT),
        ).arrange(RIGHT, buff=0.2)
        if self.text_width() is not None and self.error_line.width > self.text_width():
            self.error_line.arrange(DOWN, buff=0.12)
        self.rounding = self.words.label(
            "rounding", theme.SMALL_SIZE, theme.MUTED, max_width=self.text_width()
        )
        self.check = VGroup(self.error_line, self.rounding).arrange(DOWN, buff=0.12)
        body = VGroup(grid, *self.rows_note, self.check).arrange(DOWN, buff=0.22)
        self.table_frame = panel(body.width + 0.4, body.height + 0.4).move_to(body)
        return VGroup(self.table_frame, body)

    def build_matrix(self) -> VGroup:
        """M_k at the shown dims: a 2×2 block per clock on the diagonal, zeros elsewhere."""
        n = self.n
        width = self.stage.width() - 0.4 if self.matrix_covers else self.text_width()
        self._build_matrix_grid()
        self._build_matrix_notes(width)
        key = "matrix_title" if n.n_clocks > 1 else "matrix_title_one"
        title = self.words.label(key, theme.LABEL_SIZE, max_width=width, k=n.k)
        body = VGroup(title, self.matrix_grid, self.matrix_notes).arrange(DOWN, buff=0.25)
        self.matrix_title = title
        return VGroup(panel(body.width + 0.4, body.height + 0.4).move_to(body), body)

    def _build_matrix_grid(self) -> None:
        """The matrix's entries, its tinted 2×2 blocks and the dims along both edges."""
        n = self.n
        m = np.asarray(n.matrix)
        size = len(n.rows)
        texts = [
            self.words.text(
                theme.fmt(m[r, c], MATRIX_DIGITS) if r // 2 == c // 2 else "0",
                theme.SMALL_SIZE,
                self.colors[r // 2] if r // 2 == c // 2 else theme.MUTED,
            )
            for r in range(size)
            for c in range(size)
        ]
        cell_w = max(t.width for t in texts) + 0.16
        cell_h = max(t.height for t in texts) + 0.2
        for r in range(size):
            for c in range(size):
                texts[r * size + c].move_to([c * cell_w, -r * cell_h, 0])
        blocks = VGroup(
            *[
                Rectangle(
                    width=2 * cell_w,
                    height=2 * cell_h,
                    stroke_color=self.colors[j],
                    stroke_width=1.5,
                    fill_color=self.colors[j],
                    fill_opacity=0.12,
                ).move_to([(2 * j + 0.5) * cell_w, -(2 * j + 0.5) * cell_h, 0])
                for j in range(size // 2)
            ]
        )
        row_labels = VGroup(
            *[
                self.words.text(str(dim), theme.SMALL_SIZE, theme.MUTED)
                .next_to(blocks, LEFT, buff=0.15)
                .set_y(texts[r * size].get_y())
                for r, dim in enumerate(n.rows)
            ]
        )
        col_labels = VGroup(
            *[
                self.words.text(str(dim), theme.SMALL_SIZE, theme.MUTED)
                .next_to(blocks, UP, buff=0.1)
                .set_x(texts[c].get_x())
                for c, dim in enumerate(n.rows)
            ]
        )
        self.matrix_grid = VGroup(blocks, VGroup(*texts), row_labels, col_labels)

    def _build_matrix_notes(self, width: float | None) -> None:
        """The general 2×2 block, that it has no p in it, and which dims are shown."""
        n = self.n
        block = formula(
            r"\begin{pmatrix} \cos k\omega_i & \sin k\omega_i \\ -\sin k\omega_i & \cos k\omega_i"
            r"\end{pmatrix}",
            size=theme.LABEL_SIZE * 1.3,
        )
        general = VGroup(self.words.label("block", theme.LABEL_SIZE), block).arrange(
            RIGHT, buff=0.2
        )
        no_p = self.words.label("no_p", theme.LABEL_SIZE, theme.ACCENT)
        if len(n.shown) < n.n_clocks:
            order = self.words.label(
                "matrix_subset",
                theme.SMALL_SIZE,
                theme.MUTED,
                max_width=width,
                which=self.words.listing(n.shown),
                n=n.n_clocks,
            )
        else:
            order = self.words.label(
                f"order_{n.layout}",
                theme.SMALL_SIZE,
                theme.MUTED,
                max_width=width,
                first=n.rows[0],
                last=n.rows[-1],
            )
        notes = VGroup(no_p, order).arrange(DOWN, buff=0.15, aligned_edge=LEFT)
        self.matrix_notes = VGroup(general, notes).arrange(RIGHT, buff=0.4)
        if self.matrix_notes.width > max(self.matrix_grid.width, width or self.slot_width - 0.4):
            self.matrix_notes.arrange(DOWN, buff=0.2)

    def build_dots(self) -> VGroup:
        """PE(p)·PE(p+k) at several p: one column per position."""
        n = self.n
        title = self.words.label("dot_title", theme.LABEL_SIZE, max_width=self.text_width(), k=n.k)
        heads: list[Mobject] = [self.words.label("dot_p", theme.LABEL_SIZE, theme.MUTED)]
        values: list[Mobject] = [
            formula(
                r"\mathrm{{PE}}(p)\cdot\mathrm{{PE}}(p+{k})",
                size=theme.LABEL_SIZE * 1.3,
                k=str(n.k),
            )
        ]
        for q, value in zip(n.dot_positions, n.dots, strict=True):
            heads.append(self.words.text(str(q), theme.LABEL_SIZE, theme.FOREGROUND))
            values.append(self.words.text(theme.fmt(value, DIGITS), theme.LABEL_SIZE, theme.ACCENT))
        # one column per position in 16:9 if they fit, else one row per position
        grid = VGroup(*heads, *values).arrange_in_grid(
            rows=2, buff=(0.35, 0.22), col_alignments="l" + "r" * len(n.dots)
        )
        if self.stage.layout.narrow_slot or grid.width > self.slot_width - 0.4:
            cells = [m for pair in zip(heads, values, strict=True) for m in pair]
            grid = VGroup(*cells).arrange_in_grid(cols=2, buff=(0.4, 0.12), col_alignments="rr")
        self.dot_columns = [VGroup(heads[c], values[c]) for c in range(len(heads))]
        same = self.words.label("dot_same", theme.LABEL_SIZE, max_width=self.text_width())
        total = formula(
            r"\sum_{{i=0}}^{{{last}}} \cos({k}\,\omega_i) = {value}",
            size=theme.BODY_SIZE * 1.3,
            color=theme.ACCENT,
            last=str(n.n_clocks - 1),
            k=str(n.k),
            value=theme.fmt(n.dot_sum, DIGITS),
        )
        self.dot_total = VGroup(same, total).arrange(DOWN, buff=0.15)
        # a narrow slot drops the title: the formula heading the values says as much
        parts = (
            [grid, self.dot_total]
            if self.stage.layout.narrow_slot
            else [title, grid, self.dot_total]
        )
        body = VGroup(*parts).arrange(DOWN, buff=0.25)
        return VGroup(panel(body.width + 0.4, body.height + 0.4).move_to(body), body)

    def build_bridge(self) -> VGroup:
        line_w = self.text_width()
        size = self.stage.layout.bridge_size * 1.3
        pe = VGroup(
            self.words.label("bridge_pe", theme.LABEL_SIZE, max_width=line_w),
            formula(r"\mathrm{PE}(p+k) = M_k\,\mathrm{PE}(p)", size=size),
        ).arrange(DOWN, buff=0.2)
        rope = VGroup(
            self.words.label("bridge_rope", theme.LABEL_SIZE, theme.ACCENT, max_width=line_w),
            formula(
                r"\mathbf{q} \mapsto R_m\,\mathbf{q}, \qquad \mathbf{k} \mapsto R_n\,\mathbf{k}",
                size=size,
                color=theme.ACCENT,
            ),
        ).arrange(DOWN, buff=0.2)
        nxt = self.words.label("bridge_next", theme.LABEL_SIZE, theme.MUTED, max_width=line_w)
        self.bridge_parts = (pe, rope, nxt)
        body = VGroup(pe, rope, nxt).arrange(DOWN, buff=0.4)
        return VGroup(panel(body.width + 0.4, body.height + 0.4).move_to(body), body)

    def ghost(self, j: int, angle: float) -> VGroup:
        face = self.faces[j]
        tip = face.tip(angle)
        return VGroup(
            Line(face.dial.get_center(), tip, stroke_color=theme.MUTED, stroke_width=3),
            Dot(tip, radius=0.04, color=theme.MUTED),
        )

    def turn_arc(self, j: int) -> Arc:
        """The way hand j travels from p to p+k: clockwise by k·ω_j (one lap at most)."""
        n = self.n
        face = self.faces[j]
        sweep = float(np.clip(n.turn[j], -2 * np.pi, 2 * np.pi))
        return Arc(
            radius=0.4 * face.dial.width / 2,
            start_angle=np.pi / 2 - n.angles_p[j],
            angle=-sweep,
            arc_center=face.dial.get_center(),
            stroke_color=self.colors[j],
            stroke_width=3,
        )

    # -------------------------------------------------------------------- beats
    def show_clocks(self) -> None:
        self.beat("clocks")
        self.build_stage()
        self.hands = []
        for j, i in enumerate(self.n.shown):
            hand = self.faces[j].hand(lambda i=i: hand_angle(self.params, self.pos.get_value(), i))
            hand.set_z_index(2)
            self.hands.append(hand)
        self.play(Write(self.header), run_time=theme.NORMAL)
        self.play(
            FadeIn(self.cells),
            *[FadeIn(w) for w in self.omegas],
            FadeIn(self.shown_note),
            FadeIn(self.counter_row),
            *[FadeIn(h) for h in self.hands],
            run_time=theme.NORMAL,
        )
        self.play(
            FadeIn(self.table_frame),
            FadeIn(self.dim_row),
            FadeIn(self.columns[0]),
            FadeIn(self.rows_note),
            run_time=theme.NORMAL,
        )
        self.wait(theme.READ)

    def turn_hands(self) -> None:
        self.beat("turn")
        n = self.n
        self.ghosts = VGroup(*[self.ghost(j, a) for j, a in enumerate(n.angles_p)])
        self.arcs = VGroup(*[self.turn_arc(j) for j in range(len(n.shown))])
        self.play(FadeIn(self.ghosts), run_time=theme.SHORT)
        self.play(
            self.pos.animate.set_value(n.p + n.k),
            *[FadeOut(w) for w in self.omegas],
            *[FadeIn(t) for t in self.turned],
            run_time=TURN,
        )
        self.play(FadeIn(self.arcs), run_time=theme.SHORT)
        self.play(FadeIn(self.columns[2], shift=0.1 * UP), run_time=theme.NORMAL)
        self.wait(theme.READ)

    def clock_parts(self) -> list[Mobject]:
        return [
            self.cells,
            *self.turned,
            self.shown_note,
            self.counter_row,
            *self.hands,
            self.ghosts,
            self.arcs,
        ]

    def covered(self) -> list[Mobject]:
        """What leaves the stage while the matrix covers the body or the page."""
        parts = self.clock_parts()
        return [self.header, *parts] if self.matrix_covers == "page" else parts

    def table_parts(self) -> list[Mobject]:
        return [self.table_frame, self.dim_row, self.columns[0], self.columns[2], self.rows_note]

    def show_matrix(self) -> None:
        self.beat("matrix")
        leaving = self.table_parts()
        if self.matrix_covers:
            leaving += self.covered()
        self.play(*[FadeOut(m) for m in leaving], run_time=theme.SHORT)
        frame, (title, grid, notes) = self.matrix[0], self.matrix[1]
        blocks, texts, rows, cols = grid
        self.play(FadeIn(frame), FadeIn(title), FadeIn(rows), FadeIn(cols), run_time=theme.SHORT)
        self.play(FadeIn(blocks), FadeIn(texts), run_time=theme.NORMAL)
        self.play(FadeIn(notes[0]), run_time=theme.NORMAL)
        self.play(FadeIn(notes[1]), run_time=theme.NORMAL)
        self.wait(theme.READ)

    def check_numbers(self) -> None:
        self.beat("check")
        self.play(FadeOut(self.matrix), run_time=theme.SHORT)
        back = self.table_parts()
        if self.matrix_covers:
            back += self.covered()
        self.play(*[FadeIn(m) for m in back], run_time=theme.SHORT)
        self.play(FadeIn(self.columns[1], shift=0.1 * DOWN), run_time=theme.NORMAL)
        self.play(FadeIn(self.check, shift=0.1 * UP), run_time=theme.NORMAL)
        self.wait(theme.LONG)

    def dot_product(self) -> None:
        self.beat("dot")
        self.play(FadeOut(self.table), run_time=theme.SHORT)
        frame, body = self.dots
        total = body[-1]
        self.play(FadeIn(frame), *[FadeIn(m) for m in body[:-2]], run_time=theme.SHORT)
        self.play(FadeIn(self.dot_columns[0]), run_time=theme.SHORT)
        for column in self.dot_columns[1:]:
            self.play(FadeIn(column, shift=0.1 * DOWN), run_time=theme.SHORT)
        self.play(FadeIn(total, shift=0.1 * UP), run_time=theme.NORMAL)
        self.wait(theme.LONG)

    def to_rope(self) -> None:
        self.beat("rotation")
        self.play(
            FadeOut(self.dots), FadeOut(self.arcs), FadeOut(self.ghosts), run_time=theme.SHORT
        )
        frame = self.link[0]
        pe, rope, nxt = self.bridge_parts
        self.play(FadeIn(frame), FadeIn(pe), run_time=theme.NORMAL)
        self.play(Indicate(self.claim), run_time=theme.NORMAL)
        self.play(FadeIn(rope, shift=0.1 * UP), run_time=theme.NORMAL)
        # the hands turn once more: the same shift is the same turn, whatever p is
        self.play(self.pos.animate.increment_value(self.n.k), run_time=TURN)
        self.play(FadeIn(nxt), run_time=theme.SHORT)
        self.wait(theme.LONG)
