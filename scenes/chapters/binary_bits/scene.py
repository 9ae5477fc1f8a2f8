"""binary-bits: a binary counter is bounded and layered, but it jumps."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from manim import (
    DOWN,
    LEFT,
    ORIGIN,
    RIGHT,
    UP,
    Create,
    DashedLine,
    Dot,
    FadeIn,
    FadeOut,
    GrowFromEdge,
    LaggedStart,
    Line,
    MathTex,
    MoveToTarget,
    Rectangle,
    Restore,
    ValueTracker,
    VGroup,
    VMobject,
    always_redraw,
    config,
    linear,
)

import pe_math as pm
from scenes.kit import theme
from scenes.kit.base import LessonScene
from scenes.kit.components import BitRow, arrow, compact

# At most 2^ANIMATED_BITS positions are counted one by one; the trace rows follow them.
ANIMATED_BITS = 5
CELL = 0.7
TRACE_WIDTH = 9.5
TRACE_HEIGHT = 0.5
COUNT_SECONDS = 10.0  # the whole count, however many steps it has


def bit_color(k: int):
    return theme.SERIES_COLORS[k % len(theme.SERIES_COLORS)]


@dataclass(frozen=True)
class Layout:
    """How big the bits, the traces and the charts are in one frame shape."""

    big_cells: bool  # height to spare: bigger cells, while the row still fits
    trace_scale: float  # of TRACE_HEIGHT
    traces_fill_room: bool  # resize the trace rows, not the words, to the room under the bits
    cliff_cell_scale: float  # two rows only: in 16:9 they can take bigger cells
    cliff_drop: float  # long arrows: every bit falls
    chart_height: float  # a tall frame has height to spare; a square one keeps the words' room
    points_buff: float
    evidence_stays: bool  # room enough to keep the evidence above the verdict


LAYOUTS = {
    "wide": Layout(
        big_cells=False, trace_scale=1.15, traces_fill_room=False, cliff_cell_scale=1.5,
        cliff_drop=2.4, chart_height=3.2, points_buff=0.9, evidence_stays=False,
    ),
    "tall": Layout(
        big_cells=True, trace_scale=2.8, traces_fill_room=False, cliff_cell_scale=1.0,
        cliff_drop=3.0, chart_height=5.0, points_buff=0.5, evidence_stays=True,
    ),
    "square": Layout(
        big_cells=True, trace_scale=1.0, traces_fill_room=True, cliff_cell_scale=1.0,
        cliff_drop=2.2, chart_height=4.0, points_buff=0.9, evidence_stays=False,
    ),
}  # fmt: skip


@dataclass(frozen=True)
class BinaryBitsNumbers:
    """Every number BinaryBits shows, computed by pe_math (JSON-ready)."""

    n_bits: int
    positions: int
    total_positions: int
    table: list[list[int]]
    flip_every: list[int]
    trace_bits: int
    cliff: list[int]
    cliff_bits: list[list[int]]
    cliff_flips: int
    cliff_distance: float
    bar_steps: list[int]
    bar_heights: list[float]
    first_distance: float
    cliff_ratio: float  # the cliff step over the first step: sqrt(n_bits), every bit flips
    lines: dict[str, str]  # beat -> which of its narration alternatives holds here


class BinaryBits(LessonScene, layouts=LAYOUTS):
    slug = "binary-bits"

    @classmethod
    def numbers(cls, params: pm.Params) -> BinaryBitsNumbers:
        n = params.n_bits
        shown = 2 ** min(n, ANIMATED_BITS)
        table = pm.binary_encoding(np.arange(shown), n)
        steps = pm.adjacent_distances(table)
        cliff = 2 ** (n - 1)
        cliff_bits = pm.binary_encoding([cliff - 1, cliff], n)
        cliff_distance = float(pm.adjacent_distances(cliff_bits)[0])
        bar_steps = list(range(shown - 1))
        bar_heights = [float(v) for v in steps]
        if cliff - 1 not in bar_steps:  # the cliff lies beyond the animated count
            bar_steps.append(cliff - 1)
            bar_heights.append(cliff_distance)
        # one bit: a single step from 0 to 1, so no cliff, no layers and nothing longer
        choice = "many" if n > 1 else "one"
        return BinaryBitsNumbers(
            lines={beat: choice for beat in ("rhythm", "cliff", "distances", "verdict")},
            n_bits=n,
            positions=shown,
            total_positions=2**n,
            table=table.astype(int).tolist(),
            flip_every=[2**k for k in range(n)],
            trace_bits=min(n, ANIMATED_BITS),
            cliff=[cliff - 1, cliff],
            cliff_bits=cliff_bits.astype(int).tolist(),
            cliff_flips=int(np.abs(np.diff(cliff_bits, axis=0)).sum()),
            cliff_distance=cliff_distance,
            bar_steps=bar_steps,
            bar_heights=bar_heights,
            first_distance=bar_heights[0],
            cliff_ratio=cliff_distance / bar_heights[0],
        )

    # ------------------------------------------------------------------ beats
    def construct(self) -> None:
        self.n = self.numbers(self.params)
        self.title_card()
        self.show_counter()
        self.run_counter()
        self.show_cliff()
        self.show_distances()
        self.show_verdict()
        self.takeaway(verdict="binary")

    def show_counter(self) -> None:
        self.beat("counter")
        nums = self.n
        self.position = ValueTracker(0)
        table = nums.table
        self._build_bit_block()

        # The counter sits left of the bits when there is room, above them otherwise.
        widest = self.words.label("counter", theme.HEADING_SIZE, p=nums.total_positions - 1)
        avail = config.frame_width - 2 * theme.MARGIN
        beside = widest.width + 0.6 + self.bit_block.width <= avail

        made: dict[int, Any] = {}  # one Text per position, built once and swapped in

        def number(p: int):
            if p not in made:
                t = self.words.label("counter", theme.HEADING_SIZE, theme.ACCENT, p=p)
                if beside:
                    made[p] = t.next_to(self.bits, LEFT, buff=0.6)
                else:
                    made[p] = t.next_to(self.bit_block, UP, buff=0.25)
            return made[p]

        # The bits live at the top of the stage; the traces fill the room below them.
        above = 0 if beside else widest.height + 0.25
        self.bit_block.to_edge(UP, buff=theme.MARGIN + 0.1 + above)
        if beside:
            self.bit_block.shift(widest.width / 2 * RIGHT)

        def count(counter: VGroup) -> None:
            shown = number(self.shown_position())
            if counter[0] is not shown:
                # The renderer keeps drawing what a play began with: hide the old number.
                counter[0].set_opacity(0)
                counter.submobjects[0] = shown

        self.counter = VGroup(number(0))
        # Alone on stage, the counter and its bits stand large in the middle; they move to
        # their place at the top as the traces arrive (run_counter).
        self.staged = VGroup(self.bit_block, self.counter).save_state()
        grow = min(
            1.6,
            0.9 * self.stage.width() / self.staged.width,
            0.5 * self.stage.height() / self.staged.height,
        )
        self.staged.scale(max(grow, 1.0)).move_to(self.stage.caption_band() / 2 * UP)
        self.play(FadeIn(self.bit_block), FadeIn(self.counter), run_time=theme.NORMAL)
        # Only now: FadeIn's copies would carry the updater and swap the real "p = 0" into
        # their faded start, leaving it invisible.
        self.counter.add_updater(count)

        last = [-1]

        def light(row: BitRow) -> None:
            p = self.shown_position()
            if p != last[0]:
                last[0] = p
                row.set_bits(table[p])

        self.bits.add_updater(light)
        self.wait(theme.READ)

    def _build_bit_block(self) -> None:
        """The bits, their indices above and their flip rhythms below, under a legend."""
        nums = self.n
        n = nums.n_bits
        table = nums.table
        big = CELL * 1.5
        roomy = (
            self.stage.layout.big_cells and BitRow(table[0], cell=big).width <= self.stage.width()
        )
        self.cell = big if roomy else CELL
        self.bits = BitRow(table[0], cell=self.cell)
        index = VGroup(
            *[
                self.words.text(str(k), theme.SMALL_SIZE, theme.MUTED).next_to(
                    self.bits.bit_cell(k), UP, buff=0.12
                )
                for k in range(n)
            ]
        )
        rhythm = VGroup(
            *[
                self.words.text(str(nums.flip_every[k]), theme.SMALL_SIZE, bit_color(k)).next_to(
                    self.bits.bit_cell(k), DOWN, buff=0.12
                )
                for k in range(n)
            ]
        )
        legend = self.words.label("legend", theme.SMALL_SIZE, theme.MUTED)
        self.bit_block = VGroup(legend, VGroup(index, self.bits, rhythm)).arrange(DOWN, buff=0.2)
        self.stage.fit(self.bit_block)

    def shown_position(self) -> int:
        """The integer position the counter shows (the tracker runs continuously to the end)."""
        shown = self.n.positions
        return int(np.clip(np.floor(self.position.get_value()), 0, shown - 1))

    def trace_panel(self, width: float, height: float) -> VGroup:
        """One row per traced bit (its areas kept in self.areas), the position ticks, the
        axis name and a note on how many positions are counted."""
        nums = self.n
        shown = nums.positions
        rows = VGroup()
        self.areas: dict[int, Rectangle] = {}
        for k in reversed(range(nums.trace_bits)):
            area = Rectangle(width=width, height=height, stroke_width=0)
            floor = Line(area.get_corner(DOWN + LEFT), area.get_corner(DOWN + RIGHT))
            floor.set_stroke(theme.MUTED, 1.5, opacity=0.6)
            name = self.words.label("trace", theme.LABEL_SIZE, bit_color(k), k=k)
            name.next_to(area, LEFT, buff=0.3)
            self.areas[k] = area
            rows.add(VGroup(area, floor, name))
        rows.arrange(DOWN, buff=0.22, aligned_edge=RIGHT)

        step = max(1, shown // 4)
        ticks = VGroup(
            *[
                self.words.text(str(x), theme.SMALL_SIZE, theme.MUTED).next_to(
                    self.trace_point(0, x, 0), DOWN, buff=0.15
                )
                for x in range(0, shown + 1, step)
            ]
        )
        axis = self.words.label("axis", theme.SMALL_SIZE, theme.MUTED).next_to(
            ticks, DOWN, buff=0.12
        )
        if shown < nums.total_positions:
            note = self.words.label(
                "first_steps", theme.SMALL_SIZE, shown=shown, total=nums.total_positions
            )
        else:
            note = self.words.label("all_steps", theme.SMALL_SIZE, last=shown - 1)
        note.next_to(axis, DOWN, buff=0.2)
        return VGroup(rows, ticks, axis, note)

    def trace_point(self, k: int, x: float, y: float) -> np.ndarray:
        """The point at position x and bit value y in bit k's trace row."""
        area = self.areas[k]
        return (
            area.get_corner(DOWN + LEFT)
            + RIGHT * x * area.width / self.n.positions
            + UP * y * area.height
        )

    def run_counter(self) -> None:
        self.beat("rhythm")
        nums = self.n
        shown, table = nums.positions, nums.table
        trace_width = min(TRACE_WIDTH, self.stage.width() - 1.7)  # room for names and ticks
        trace_height = TRACE_HEIGHT * self.stage.layout.trace_scale
        block = self.staged.saved_state[0]  # where the bits go: the traces fill the room below
        self.traces = self.trace_panel(trace_width, trace_height)
        # Fit the traces into the room left under the bits (and above a caption band).
        room = block.get_bottom()[1] - 0.35 - self.stage.bottom()
        if self.stage.layout.traces_fill_room:
            spare = (room - self.traces.height) / nums.trace_bits
            self.traces = self.trace_panel(trace_width, max(trace_height + spare, TRACE_HEIGHT / 2))
        self.traces.scale(
            min(1.0, room / self.traces.height, self.stage.width() / self.traces.width)
        )
        self.traces.next_to(block, DOWN, buff=0.35)
        self.traces.shift(RIGHT * min(0.0, self.stage.width() / 2 - self.traces.get_right()[0]))

        def trace(k: int):
            def draw():
                p = float(np.clip(self.position.get_value(), 1e-3, shown))
                pts = []
                for j in range(min(int(np.floor(p)), shown - 1) + 1):
                    y = table[j][k]
                    pts += [
                        self.trace_point(k, j, y),
                        self.trace_point(k, max(min(j + 1, p), j + 1e-3), y),
                    ]
                return VMobject().set_points_as_corners(pts).set_stroke(bit_color(k), 3)

            return always_redraw(draw)

        waves = VGroup(*[trace(k) for k in range(nums.trace_bits)])
        top_area = self.areas[nums.trace_bits - 1]

        def cursor_line():
            foot = self.trace_point(0, self.position.get_value(), 0)
            head = np.array([foot[0], top_area.get_top()[1] + 0.1, 0.0])
            return DashedLine(foot + 0.1 * DOWN, head, stroke_width=1.5, color=theme.FOREGROUND)

        cursor = always_redraw(cursor_line)
        self.play(Restore(self.staged), run_time=theme.SHORT)
        self.play(FadeIn(self.traces), run_time=theme.SHORT)
        self.add(waves, cursor)
        self.play(
            self.position.animate.set_value(shown),
            run_time=COUNT_SECONDS,
            rate_func=linear,
        )
        waves.clear_updaters()  # freeze the drawn waves so they can fade with their rows
        self.remove(cursor, waves)
        self.traces.add(waves)  # the traces group is on stage, so the waves stay visible
        self.wait(theme.READ)

    def show_cliff(self) -> None:
        self.beat("cliff")
        nums = self.n
        n = nums.n_bits
        before, after = nums.cliff
        if after < nums.positions:  # the cliff is inside the traces: every wave jumps there
            top_area = self.areas[nums.trace_bits - 1]
            x = self.areas[0].get_left()[0] + after * self.areas[0].width / nums.positions
            wall = Line(
                [x, self.areas[0].get_bottom()[1] - 0.1, 0],
                [x, top_area.get_top()[1] + 0.1, 0],
                color=theme.ACCENT,
                stroke_width=6,
            )
            self.play(Create(wall), run_time=theme.SHORT)
            self.wait(theme.SHORT)
            self.remove(wall)
            self.traces.add(wall)  # leaves with the traces
        self.bits.clear_updaters()
        self.play(FadeOut(self.traces), FadeOut(self.bit_block), FadeOut(self.counter))

        rows = VGroup()
        for p, bits in zip(nums.cliff, nums.cliff_bits, strict=True):
            row = BitRow(bits, cell=self.cell * self.stage.layout.cliff_cell_scale)
            name = self.words.label("counter", theme.BODY_SIZE, theme.FOREGROUND, p=p)
            rows.add(VGroup(row, name.next_to(row, LEFT, buff=0.4)))
        rows.arrange(DOWN, buff=self.stage.layout.cliff_drop, aligned_edge=RIGHT)
        top, bottom = rows[0][0], rows[1][0]
        flips = VGroup(
            *[
                arrow(
                    top.bit_cell(k).get_bottom() + 0.08 * DOWN,
                    bottom.bit_cell(k).get_top() + 0.08 * UP,
                    color=theme.ACCENT if a != b else theme.MUTED,
                )
                for k, (a, b) in enumerate(zip(*nums.cliff_bits, strict=True))
            ]
        )
        said = self.words.label(
            "flips" if n > 1 else "flips_one",
            theme.BODY_SIZE,
            theme.ACCENT,
            flips=nums.cliff_flips,
            n=n,
        )
        dist = MathTex(
            rf"\lVert b({after}) - b({before}) \rVert = {theme.fmt(nums.cliff_distance)}",
            font_size=theme.HEADING_SIZE,
            color=theme.FOREGROUND,
        )
        group = VGroup(VGroup(rows, flips), said, dist).arrange(DOWN, buff=0.45)
        self.stage.place(group)
        self.play(FadeIn(rows[0]), run_time=theme.SHORT)
        self.play(
            LaggedStart(*[GrowFromEdge(a, UP) for a in flips], lag_ratio=0.1),
            FadeIn(rows[1]),
            run_time=theme.NORMAL,
        )
        self.play(FadeIn(said), FadeIn(dist), run_time=theme.SHORT)
        self.wait(theme.LONG)
        self.cliff_group = group

    def show_distances(self) -> None:
        self.beat("distances")
        nums = self.n
        steps, heights = nums.bar_steps, nums.bar_heights
        cliff_step = nums.cliff[0]
        gap = len(steps) > 1 and steps[-1] != steps[-2] + 1
        top = int(np.ceil(max(heights)))
        width = min(10.0, self.stage.width() - 0.8)
        height = self.stage.layout.chart_height
        slots = len(steps) + (1 if gap else 0)
        pitch = width / slots
        unit = height / top

        base = Line(ORIGIN, width * RIGHT)
        base.set_stroke(theme.MUTED, 2)
        bars = self._distance_bars(base, pitch, unit, gap)
        yaxis, yticks, grid = self._bar_axes(base, top, unit)
        chart = VGroup(grid, base, yaxis, yticks, bars)
        marks = self._bar_marks(bars, base)
        if gap:
            dots = self.words.label("gap", theme.LABEL_SIZE, theme.MUTED)
            dots.move_to(base.get_left() + (len(heights) - 0.5) * pitch * RIGHT + 0.25 * UP)
            chart.add(dots)
        formula = MathTex(
            r"\lVert b(p{+}1) - b(p) \rVert", font_size=theme.BODY_SIZE * 1.2, color=theme.MUTED
        )
        formula.next_to(yaxis, UP, buff=0.2).align_to(yticks, LEFT)
        title = self.words.label("bars_title", theme.BODY_SIZE)
        xname = self.words.label("bars_axis", theme.SMALL_SIZE, theme.MUTED)
        xname.next_to(marks, DOWN, buff=0.2).set_x(base.get_x())
        plot = VGroup(chart, marks, formula, xname)
        # the cliff against the first step (with one bit they are the same step)
        ratio = VGroup()
        if steps[0] != cliff_step:
            ratio.add(
                self.words.label(
                    "cliff_ratio",
                    theme.BODY_SIZE,
                    theme.ACCENT,
                    max_width=self.stage.width(),
                    flips=nums.cliff_flips,
                    ratio=compact(nums.cliff_ratio),
                )
            )
        group = VGroup(title, plot, *ratio).arrange(DOWN, buff=0.3)
        self.stage.place(group)
        self.play(FadeOut(self.cliff_group), run_time=theme.SHORT)
        self.play(
            FadeIn(title), FadeIn(chart), FadeIn(formula), FadeIn(xname), run_time=theme.SHORT
        )
        self.play(
            LaggedStart(*[GrowFromEdge(b, DOWN) for b in bars], lag_ratio=0.15),
            run_time=theme.LONG,
        )
        self.play(FadeIn(marks), run_time=theme.SHORT)
        if len(ratio):
            self.play(FadeIn(ratio, shift=0.1 * UP), run_time=theme.SHORT)
        self.wait(theme.LONG)
        self.chart_group = group

    def _distance_bars(self, base: Line, pitch: float, unit: float, gap: bool) -> VGroup:
        """One bar per step, standing on `base`; the cliff's bar apart after the gap."""
        nums = self.n
        steps, heights = nums.bar_steps, nums.bar_heights
        cliff_step = nums.cliff[0]
        bars = VGroup()
        for i, h in enumerate(heights):
            slot = i + (1 if gap and i == len(heights) - 1 else 0)
            step = steps[i]
            color = (
                theme.ACCENT if step == cliff_step else (theme.WORD_A if i == 0 else theme.MUTED)
            )
            bar = Rectangle(
                width=pitch * 0.7,
                height=max(h * unit, 1e-3),
                stroke_width=0,
                fill_color=color,
                fill_opacity=0.9,
            )
            bar.move_to(base.get_left() + (slot + 0.5) * pitch * RIGHT, aligned_edge=DOWN)
            bars.add(bar)
        return bars

    def _bar_axes(self, base: Line, top: int, unit: float) -> tuple[Line, VGroup, VGroup]:
        """The y axis, its whole-number ticks and the dashed grid lines across the chart."""
        yaxis = Line(base.get_left(), base.get_left() + (top * unit + 0.15) * UP)
        yaxis.set_stroke(theme.MUTED, 2)
        yticks = VGroup(
            *[
                self.words.text(str(v), theme.SMALL_SIZE, theme.MUTED).next_to(
                    base.get_left() + v * unit * UP, LEFT, buff=0.15
                )
                for v in range(top + 1)
            ]
        )
        grid = VGroup(
            *[
                DashedLine(
                    base.get_left() + v * unit * UP, base.get_right() + v * unit * UP
                ).set_stroke(theme.MUTED, 1, opacity=0.4)
                for v in range(1, top + 1)
            ]
        )
        return yaxis, yticks, grid

    def _bar_marks(self, bars: VGroup, base: Line) -> VGroup:
        """The value above and the step's name below the first bar and the cliff's."""
        nums = self.n
        steps, heights = nums.bar_steps, nums.bar_heights
        cliff_step = nums.cliff[0]
        marks = VGroup()
        marked = [0] if steps[0] == cliff_step else [0, steps.index(cliff_step)]
        for i in marked:
            color = theme.ACCENT if steps[i] == cliff_step else theme.WORD_A
            value = self.words.text(theme.fmt(heights[i]), theme.LABEL_SIZE, color)
            value.next_to(bars[i], UP, buff=0.12)
            if i in (0, len(bars) - 1):  # hang the value inwards, off the axis and the edge
                value.align_to(bars[i], LEFT if i == 0 else RIGHT)
            # Narrow bars: lift the value clear of every neighbour it spans.
            under = [
                b
                for b in bars
                if b.get_left()[0] < value.get_right()[0] and b.get_right()[0] > value.get_left()[0]
            ]
            value.set_y(max(b.get_top()[1] for b in under) + 0.12 + value.height / 2)
            name = self.words.text(f"{steps[i]}→{steps[i] + 1}", theme.SMALL_SIZE, color)
            name.next_to(bars[i], DOWN, buff=0.15).set_y(base.get_y() - 0.3)
            marks.add(value, name)
        return marks

    def show_verdict(self) -> None:
        self.beat("verdict")
        lines = VGroup()
        points = [("bounded", theme.WORD_C), ("layered", theme.WORD_C), ("jumps", theme.WORD_B)]
        if self.n.n_bits == 1:  # one bit: one layer and one step, so no layers and no cliff
            points[1:] = [("layered", theme.MUTED), ("jumps", theme.MUTED)]
        if not pm.verdict("binary", self.params).checks["shift_map"]:
            points.append(("no_map", theme.WORD_B))
        one = "_one" if self.n.n_bits == 1 else ""
        for key, color in points:
            shown = key + one if key in ("layered", "jumps") else key
            words = self.words.label(shown, theme.HEADING_SIZE, max_width=self.stage.width() - 0.6)
            lines.add(VGroup(Dot(radius=0.11, color=color), words).arrange(RIGHT, buff=0.3))
        lines.arrange(DOWN, buff=self.stage.layout.points_buff, aligned_edge=LEFT)
        if self.stage.layout.evidence_stays:
            chart = self.chart_group.generate_target().to_edge(UP, buff=theme.MARGIN)
            self.stage.fill_below(chart, lines, 0.8)
            self.play(MoveToTarget(self.chart_group), run_time=theme.SHORT)
        else:  # the points spread down the stage, their words at the size they were set
            self.stage.fit(lines, 1.0, 0.8)
            room = 0.9 * self.stage.height() - sum(line.height for line in lines)
            lines.arrange(DOWN, buff=max(0.9, room / max(len(lines) - 1, 1)), aligned_edge=LEFT)
            self.stage.place(lines)
            self.play(FadeOut(self.chart_group), run_time=theme.SHORT)
        for (key, _), line in zip(points, lines, strict=True):  # each point as it is said
            self.while_saying(
                key.removeprefix("no_"), FadeIn(line, shift=0.2 * RIGHT), run_time=theme.NORMAL
            )
        self.wait(theme.LONG)
