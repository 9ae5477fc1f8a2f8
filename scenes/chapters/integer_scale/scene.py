"""integer-scale: adding the raw position p to every dim drowns the word vectors."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from manim import (
    DOWN,
    LEFT,
    ORIGIN,
    RIGHT,
    UP,
    Circumscribe,
    DecimalNumber,
    FadeIn,
    FadeOut,
    Line,
    Rectangle,
    Square,
    Text,
    ValueTracker,
    VGroup,
    Write,
)

import pe_math as pm
from lesson.facts import PAPER_WIDTH
from pe_math import Params
from scenes.kit import theme
from scenes.kit.base import LessonScene
from scenes.kit.components import LiveNumber, arrow, formula

SAMPLES = 500  # at most this many positions are sampled between 0 and int_max_position
CHART_W, CHART_H = 6.4, 4.2  # the plot box, before the stage is fitted to the frame
DIM_BUFF = 0.15  # between the plot box and the dim labels under it
TICK_ZONE = 1.1  # room left of the plot box for tick labels
HEADROOM = 0.08  # share of the data span kept free above and below the bars
COS_DIGITS = 8  # cosine readout: truncated, so 0.99999987 never shows as 1.00000000


@dataclass(frozen=True)
class Layout:
    """Where the table, the chart and the readouts go in one frame shape."""

    word_blocks: bool  # the table as one block per word (else one grid with a header row)
    block_buff: float  # between the word blocks
    facts_stacked: bool  # the cosine and the ratio one under the other (else side by side)
    board_buff: float  # between the table's title, its rows and its facts
    board_share: float | None  # of the frame's height the table may take; None: all the stage
    grow: bool  # the table and the concat page grow to fill the frame
    readouts_in_row: bool  # the live readouts side by side (else stacked)
    recipe_dir: np.ndarray  # the recipe's words after its formula
    recipe_may_stack: bool  # a recipe wider than the stage goes under its formula
    top_dir: np.ndarray  # the recipe after the legend
    top_buff: float
    note_under_top: bool  # the sliver note goes between the recipe and the plot box
    stage_buff: float  # between the chart and the readouts
    chart_scale: float | None  # of CHART_H; None: the height the words leave
    stage_dir: np.ndarray  # the readouts after the chart


LAYOUTS = {
    "wide": Layout(
        word_blocks=False, block_buff=0.0, facts_stacked=False, board_buff=0.6,
        board_share=0.85, grow=True, readouts_in_row=False, recipe_dir=RIGHT,
        recipe_may_stack=False, top_dir=RIGHT, top_buff=1.0, note_under_top=False,
        stage_buff=0.8, chart_scale=1.2, stage_dir=RIGHT,
    ),
    "tall": Layout(  # a tall frame gives the bars more height
        word_blocks=True, block_buff=0.6, facts_stacked=True, board_buff=0.7,
        board_share=0.85, grow=False, readouts_in_row=False, recipe_dir=DOWN,
        recipe_may_stack=False, top_dir=DOWN, top_buff=0.5, note_under_top=False,
        stage_buff=0.8, chart_scale=1.5, stage_dir=DOWN,
    ),
    "square": Layout(  # a stage only as tall as it is wide: the blocks need all of it
        word_blocks=True, block_buff=0.45, facts_stacked=False, board_buff=0.5,
        board_share=None, grow=False, readouts_in_row=True, recipe_dir=RIGHT,
        recipe_may_stack=True, top_dir=DOWN, top_buff=0.5, note_under_top=True,
        stage_buff=0.5, chart_scale=None, stage_dir=DOWN,
    ),
}  # fmt: skip


def truncate(x: float, digits: int) -> float:
    """x cut (not rounded) towards zero at `digits` decimals: 0.99999987 stays below 1."""
    scale = 10**digits
    return math.trunc(x * scale) / scale


def truncated(x: float, digits: int) -> str:
    """truncate(x) written out with a real minus sign."""
    return theme.fmt(truncate(x, digits), digits)


def tick_text(value: float) -> str:
    """A tick label: whole numbers without decimals, others with the digits they need."""
    if float(value).is_integer():
        return theme.fmt(value, 0)
    return theme.fmt(value, theme.digits_for([value], most=4))


@dataclass(frozen=True)
class IntegerScaleNumbers:
    """Every number IntegerScale shows, computed by pe_math (JSON-ready)."""

    word_a: list[float]
    word_b: list[float]
    positions: list[int]
    position_vectors: list[list[float]]
    a: list[list[float]]
    b: list[list[float]]
    cosine: list[float]
    ratio: list[float]
    table: dict
    # why add rather than set side by side: W·[x; p] = W₁x + W₂p
    lines: dict[str, str]  # beat -> which of its narration alternatives holds here
    last_position: int  # the run's end, int_max_position
    last_cosine: float  # the words' cosine there
    joined_error: float  # max |W·[cat; PE(p)] − (W₁·cat + W₂·PE(p))| at the table's p
    word_width: int
    paper_width: int
    narrow_cosine: float  # typical |cos| of two random directions, at the words' width
    wide_cosine: float  # ... and at the paper's width
    paper_scale: float  # √d_model, the paper's factor on every embedding
    paper_pe_norm: float  # ‖PE(p)‖ at the paper's width, the same for every p


BURIED = 10.0  # the position's length over the word's: a thin tip on a tall tower
ALIKE = 0.99  # a cosine this close to one reads as "almost the same"


def said_lines(cosine, ratio, table_ratio: float) -> dict[str, str]:
    """Which words hold: the words' own directions, where the run ends, and the table's
    position (buried under the position, or not yet)."""
    return {
        "show_words": "differ" if cosine[0] < 0.9 else "alike",
        "sliver": "buried" if ratio[-1] >= BURIED and cosine[-1] >= ALIKE else "rising",
        "table": "small" if table_ratio >= BURIED else "visible",
    }


class IntegerScale(LessonScene, layouts=LAYOUTS):
    """cat and dog plus p·1: the axis stretches, the meaning shrinks to a sliver, cos → 1."""

    slug = "integer-scale"

    @classmethod
    def numbers(cls, params: Params) -> IntegerScaleNumbers:
        top = params.int_max_position
        positions = np.unique(
            np.concatenate(
                [np.round(np.linspace(0, top, min(top, SAMPLES) + 1)), [params.int_position]]
            ).astype(int)
        )
        positions = positions[positions <= top]
        d = len(params.word_a)
        run = pm.integer_mix(params.word_a, params.word_b, positions)
        at = pm.integer_mix(params.word_a, params.word_b, [params.int_position])
        pe_at = pm.integer_encoding([params.int_position], d)[0]
        W = pm.random_projection(d, 2 * d, params.proj_seed, params.proj_scale)
        return IntegerScaleNumbers(
            lines=said_lines(run["cosine"], run["ratio"], float(at["ratio"][0])),
            last_position=int(positions[-1]),
            last_cosine=float(run["cosine"][-1]),
            joined_error=pm.concat_as_sum(params.word_a, pe_at, W)["error"],
            word_width=d,
            paper_width=PAPER_WIDTH,
            narrow_cosine=pm.typical_abs_cosine(d),
            wide_cosine=pm.typical_abs_cosine(PAPER_WIDTH),
            paper_scale=math.sqrt(PAPER_WIDTH),
            paper_pe_norm=float(
                np.linalg.norm(pm.sinusoidal([params.int_position], PAPER_WIDTH, params.base)[0])
            ),
            word_a=[float(v) for v in params.word_a],
            word_b=[float(v) for v in params.word_b],
            positions=positions.tolist(),
            position_vectors=pm.integer_encoding(positions, d).tolist(),
            a=run["a"].tolist(),
            b=run["b"].tolist(),
            cosine=run["cosine"].tolist(),
            ratio=run["ratio"].tolist(),
            table={
                "position": int(params.int_position),
                "position_vector": pm.integer_encoding([params.int_position], d)[0].tolist(),
                "a": at["a"][0].tolist(),
                "b": at["b"][0].tolist(),
                "cosine": float(at["cosine"][0]),
                "ratio": float(at["ratio"][0]),
            },
        )

    # ------------------------------------------------------------------ story
    def construct(self) -> None:
        self.n = self.numbers(self.params)
        self.pos = np.asarray(self.n.positions, dtype=float)
        self.a = np.asarray(self.n.a)
        self.b = np.asarray(self.n.b)
        self.pe = np.asarray(self.n.position_vectors)
        self.digits = theme.digits_for(self.n.word_a + self.n.word_b)
        self.p = ValueTracker(0.0)
        self.title_card()
        self.show_words()
        self.add_position()
        self.sliver()
        self.table()
        self.concat()
        self.takeaway(verdict="integer")

    def show_words(self) -> None:
        self.beat("show_words")
        self._layout()
        self.play(FadeIn(self.legend), FadeIn(self.frame_parts), run_time=theme.SHORT)
        self.play(FadeIn(self.chart), run_time=theme.NORMAL)
        self.play(FadeIn(self.readouts), run_time=theme.NORMAL)
        self.wait(theme.READ)

    def add_position(self) -> None:
        self.beat("add_position")
        self.play(Write(self.recipe), run_time=theme.NORMAL)
        top = float(self.pos[-1])
        # p grows slowly while the cosine changes most, then fast: p(t) = top·(2^(10t) − 1)/1023
        self.play(
            self.p.animate.set_value(top),
            rate_func=lambda t: (2 ** (10 * t) - 1) / (2**10 - 1),
            run_time=9,
        )
        self.wait(theme.SHORT)

    def sliver(self) -> None:
        self.beat("sliver")
        tips = self.chart[-1]  # the coloured word parts of the bars (see _chart)
        note = self.note
        note.next_to(self.plot_box, UP, buff=0.15).align_to(self.plot_box, RIGHT)
        pointer = arrow(note.get_bottom() + 0.05 * DOWN, tips.get_top() + 0.08 * UP, theme.ACCENT)
        self.play(FadeIn(note), FadeIn(pointer), run_time=theme.SHORT)
        self.play(Circumscribe(tips, color=theme.ACCENT), run_time=theme.NORMAL)
        self.play(
            Circumscribe(self.readouts[1], color=theme.ACCENT),
            Circumscribe(self.readouts[2], color=theme.ACCENT),
            run_time=theme.LONG,
        )
        self.wait(theme.READ)

    def table(self) -> None:
        self.beat("table")
        t = self.n.table
        self.chart.clear_updaters()
        for readout in self.readouts:
            readout.clear_updaters()
        self.play(*[FadeOut(m) for m in self.stage_mobjects()], run_time=theme.SHORT)
        head, rows = self._table_rows(t)
        layout = self.stage.layout
        if layout.word_blocks:  # column names at the left, values right
            blocks = []
            for row in rows[1:]:
                names = [head[i].copy() for i in range(1, len(head))]
                pairs = [
                    cell
                    for name, value in zip(names, row[1:], strict=True)
                    for cell in (name, value)
                ]
                block = VGroup(*pairs).arrange_in_grid(cols=2, buff=(0.4, 0.3), col_alignments="lr")
                row += names  # shown with the row's values
                blocks.append(VGroup(row[0], block).arrange(DOWN, buff=0.25, aligned_edge=LEFT))
            grid = VGroup(*blocks).arrange(DOWN, buff=layout.block_buff, aligned_edge=LEFT)
            head[0].set_opacity(0)  # the word names head their blocks; no header row
            rule = VGroup(*head[1:]).set_opacity(0)
        else:
            grid = VGroup(*[cell for row in rows for cell in row]).arrange_in_grid(
                rows=len(rows), cols=len(head), buff=(0.6, 0.45), col_alignments="lcrr"
            )
            rule = Line(LEFT, RIGHT, stroke_color=theme.MUTED, stroke_width=1.5)
            rule.width = grid.width
            rule.next_to(VGroup(*head), DOWN, buff=0.2).match_x(grid)
        title = self.words.label(
            "table_p", size=theme.HEADING_SIZE, color=theme.ACCENT, p=t["position"]
        )
        facts = VGroup(
            self._fact("cosine", truncated(t["cosine"], COS_DIGITS)),
            self._fact("ratio", theme.fmt(t["ratio"], 1)),
        ).arrange(RIGHT, buff=1.0)
        if layout.facts_stacked:
            facts.arrange(DOWN, buff=0.4, aligned_edge=LEFT)
        if layout.word_blocks:
            board = VGroup(title, grid, facts).arrange(DOWN, buff=layout.board_buff)
            board.add(rule)  # the unused header row rides along, invisible
        else:
            board = VGroup(title, VGroup(grid, rule), facts).arrange(DOWN, buff=layout.board_buff)
        if layout.board_share is None:
            self.stage.place(board)
        else:
            self.stage.fit(board, 1.0, layout.board_share, grow=layout.grow).move_to(ORIGIN)
        self.play(FadeIn(title, shift=0.2 * DOWN), run_time=theme.SHORT)
        self.play(FadeIn(VGroup(*head)), FadeIn(rule), run_time=theme.SHORT)
        for row in rows[1:]:
            self.play(*[FadeIn(cell, shift=0.15 * RIGHT) for cell in row], run_time=theme.NORMAL)
        self.play(FadeIn(facts), run_time=theme.NORMAL)
        self.play(
            *[Circumscribe(rows[r][3], color=theme.ACCENT) for r in (1, 2)], run_time=theme.LONG
        )
        self.wait(theme.READ)

    def _table_rows(self, t) -> tuple[list, list[list]]:
        """The table's header and its rows (the header first): each word, its embedding,
        the position vector and their sum."""
        size = theme.BODY_SIZE
        head = [
            self.words.label("col_word", size=size, color=theme.MUTED),
            self.words.label("col_embedding", size=size, color=theme.MUTED),
            self.words.label("col_position", size=size, color=theme.MUTED),
            self.words.label("col_combined", size=size, color=theme.MUTED),
        ]
        rows = [head]
        for key, word, combined, color in (
            ("word_a", self.n.word_a, t["a"], theme.WORD_A),
            ("word_b", self.n.word_b, t["b"], theme.WORD_B),
        ):
            rows.append(
                [
                    self.words.label(key, size=theme.BODY_SIZE, color=color),
                    self.words.text(self._vec(word, self.digits), size=size, color=color),
                    self.words.text(
                        self._vec(t["position_vector"], 0), size=size, color=theme.MUTED
                    ),
                    self.words.text(
                        self._vec(combined, self.digits), size=size, color=theme.FOREGROUND
                    ),
                ]
            )
        return head, rows

    def concat(self) -> None:
        """Why the lesson adds: setting p beside the word only hands the next layer a sum."""
        self.beat("concat")
        n = self.n
        self.play(*[FadeOut(m) for m in self.stage_mobjects()], run_time=theme.SHORT)
        width = self.stage.width()

        def line(key: str, size: float, color, **values):
            return self.words.label(key, size, color, max_width=width, **values)

        question = line("concat_q", theme.HEADING_SIZE, theme.ACCENT)
        identity = formula(r"W\begin{bmatrix} x \\ p \end{bmatrix} = W_1\,x + W_2\,p", size=48)
        p, D = n.table["position"], n.paper_width
        check = line("concat_check", theme.LABEL_SIZE, theme.MUTED, p=p, e=f"{n.joined_error:.0e}")
        cosines = line(
            "concat_cosines", theme.BODY_SIZE, theme.FOREGROUND, d=n.word_width, D=D,
            c=theme.fmt(n.narrow_cosine, 2), C=theme.fmt(n.wide_cosine, 3),
        )  # fmt: skip
        scale = line(
            "concat_scale", theme.BODY_SIZE, theme.FOREGROUND, D=D,
            s=theme.fmt(n.paper_scale, 1), r=theme.fmt(n.paper_pe_norm, 1),
        )  # fmt: skip
        board = VGroup(question, VGroup(identity, check).arrange(DOWN, buff=0.25), cosines, scale)
        self.stage.place(board.arrange(DOWN, buff=0.55), grow=self.stage.layout.grow)
        self.play(FadeIn(question, shift=0.2 * DOWN), run_time=theme.NORMAL)
        self.play(Write(identity), run_time=theme.LONG)
        self.play(FadeIn(check), run_time=theme.SHORT)
        self.play(FadeIn(cosines, shift=0.1 * UP), run_time=theme.NORMAL)
        self.play(FadeIn(scale, shift=0.1 * UP), run_time=theme.NORMAL)
        self.wait(theme.READ)

    # ---------------------------------------------------------------- layout
    def _index(self) -> int:
        """The sampled position nearest to the tracker."""
        return int(np.abs(self.pos - self.p.get_value()).argmin())

    def _vec(self, values, digits: int) -> str:
        return "[" + ", ".join(theme.fmt(v, digits) for v in values) + "]"

    def _fact(self, key: str, value: str) -> VGroup:
        return VGroup(
            self.words.label(key, size=theme.LABEL_SIZE, color=theme.MUTED),
            self.words.text(value, size=theme.BODY_SIZE, color=theme.ACCENT),
        ).arrange(DOWN, buff=0.12, aligned_edge=LEFT)

    def _layout(self) -> None:
        """Legend and recipe on top, the plot box (with room for ticks and dim labels) at the
        left, the live readouts at the right (in tall and square frames: under the plot box);
        then fit everything into the frame."""
        d = len(self.n.word_a)
        layout = self.stage.layout
        # the words first: a square frame gives the plot box the height they leave
        cos = [truncate(c, COS_DIGITS) for c in self.n.cosine]
        self.readouts = VGroup(
            self._live("p_readout", self.n.positions, 0, theme.FOREGROUND),
            self._live("cosine", cos, COS_DIGITS, theme.ACCENT),
            self._live("ratio", self.n.ratio, 1, theme.ACCENT),
        )
        if layout.readouts_in_row:  # as wide as the stage allows
            self.stage.fit(self.readouts.arrange(RIGHT, buff=0.45, aligned_edge=UP))
        else:  # a label above a live value, stacked
            self.readouts.arrange(DOWN, buff=0.5, aligned_edge=LEFT)
        self.legend = VGroup(
            self._key(theme.WORD_A, self.words.label("word_a", size=theme.LABEL_SIZE)),
            self._key(theme.WORD_B, self.words.label("word_b", size=theme.LABEL_SIZE)),
            self._key(theme.MUTED, self.words.label("position", size=theme.LABEL_SIZE)),
        ).arrange(RIGHT, buff=0.5)
        entries = ", ".join(["p"] * d)
        self.recipe = VGroup(
            formula(rf"x = w + [\,{entries}\,]", size=38),
            self.words.label("recipe", size=theme.LABEL_SIZE, color=theme.MUTED),
        ).arrange(layout.recipe_dir, buff=0.35)
        if layout.recipe_may_stack and self.recipe.width > self.stage.width():  # many dims
            self.recipe.arrange(DOWN, buff=0.35)
        top = VGroup(self.legend, self.recipe).arrange(layout.top_dir, buff=layout.top_buff)
        note = "sliver" if self.n.lines["sliver"] == "buried" else "sliver_rising"
        self.note = self.words.label(note, size=theme.LABEL_SIZE, color=theme.ACCENT)
        gap = self.note.height + 0.4 if layout.note_under_top else 0.5  # room for the note
        stage_buff = layout.stage_buff
        chart_w = min(CHART_W, self.stage.width() - TICK_ZONE - 0.2)
        group_w = chart_w / d
        self.bar_w = min(0.5, group_w / 3)
        dims = VGroup()
        for k in range(d):
            lab = self.words.label("dim", size=theme.SMALL_SIZE, color=theme.MUTED, k=k)
            dims.add(lab.scale_to_fit_width(min(lab.width, 0.9 * group_w)))
        if layout.chart_scale is None:
            words = top.height + gap + dims.height + DIM_BUFF + stage_buff + self.readouts.height
            chart_h = self.stage.height() - words
        else:
            chart_h = CHART_H * layout.chart_scale

        self.plot_box = Rectangle(width=chart_w, height=chart_h, stroke_opacity=0)
        tick_zone = Rectangle(width=TICK_ZONE, height=chart_h, stroke_opacity=0)
        tick_zone.next_to(self.plot_box, LEFT, buff=0)
        for k, lab in enumerate(dims):
            lab.next_to(self.plot_box.get_corner(DOWN + LEFT), DOWN, buff=DIM_BUFF)
            lab.set_x(self.plot_box.get_left()[0] + (k + 0.5) * group_w)
        chart_area = VGroup(tick_zone, self.plot_box, dims)
        stage = VGroup(chart_area, self.readouts).arrange(layout.stage_dir, buff=stage_buff)
        whole = VGroup(top, stage).arrange(DOWN, buff=gap)
        self.stage.place(whole)  # above any burned-in caption band

        self.frame_parts = VGroup(dims, self._axis_line())
        self._ticks: dict[str, Text] = {}
        self._drawn: tuple[int, VGroup] | None = None
        self.chart = VGroup()
        self._follow(self.chart)
        # Animations also update their copies of the chart; only the chart itself may follow
        # (and a lambda, unlike a bound method, does not drag the scene into those copies).
        self.chart.add_updater(lambda m: self._follow(m) if m is self.chart else None)
        for readout in self.readouts:
            number, values = readout[1], readout.values
            number.set_value(values[0])
            number.add_updater(lambda m, values=values: self._show(m, values[self._index()]))

    @staticmethod
    def _show(number: DecimalNumber, value: float) -> None:
        """Set a readout's number, skipping the (costly) rebuild when it has not changed."""
        if number.get_value() != value:
            number.set_value(value)

    def _follow(self, chart: VGroup) -> None:
        """Show the chart of the tracker's sample (rebuilt only when the sample changes)."""
        i = self._index()
        if self._drawn is not None and self._drawn[0] == i:
            return
        if self._drawn is not None:
            # The Cairo renderer keeps drawing the family a mobject had when play() began
            # (as DecimalNumber.set_value notes); empty the old pieces so no ghost remains.
            for piece in self._drawn[1].get_family():
                piece.points = np.zeros((0, 3))
        self._drawn = (i, self._chart(i))
        chart.submobjects = list(self._drawn[1].submobjects)

    def _key(self, color, name) -> VGroup:
        chip = Square(side_length=0.25, stroke_width=0, fill_color=color, fill_opacity=1)
        return VGroup(chip, name).arrange(RIGHT, buff=0.15)

    def _live(self, key: str, values, digits: int, color) -> VGroup:
        """A readout: a muted label over a number that follows the tracker's sample."""
        label = self.words.label(key, size=theme.LABEL_SIZE, color=theme.MUTED)
        widest = max(values, key=abs)  # reserves the room the number will need
        number = LiveNumber(
            widest, num_decimal_places=digits, font_size=theme.BODY_SIZE, color=color
        )
        readout = VGroup(label, number).arrange(DOWN, buff=0.15, aligned_edge=LEFT)
        readout.values = values
        return readout

    def _range(self, i: int) -> tuple[float, float]:
        """The axis range at sample i: the data plus headroom, always including 0."""
        values = np.concatenate([self.a[i], self.b[i], [0.0]])
        lo, hi = float(values.min()), float(values.max())
        pad = HEADROOM * (hi - lo)
        return (lo - pad if lo < 0 else 0.0), hi + pad

    def _y(self, value: float, lo: float, hi: float) -> float:
        box = self.plot_box
        return box.get_bottom()[1] + (value - lo) / (hi - lo) * box.height

    def _axis_line(self) -> VGroup:
        box = self.plot_box
        return Line(
            box.get_corner(DOWN + LEFT), box.get_corner(UP + LEFT), stroke_color=theme.MUTED
        )

    def _chart(self, i: int) -> VGroup:
        """Ticks, zero line, grey position towers and coloured word tips at sample i."""
        lo, hi = self._range(i)
        box = self.plot_box
        d = self.a.shape[1]
        group_w = box.width / d
        size = max(theme.SMALL_SIZE, theme.SMALL_SIZE * box.height / CHART_H)
        ticks = VGroup()
        for v in pm.nice_ticks(lo, hi, 5):
            y = self._y(v, lo, hi)
            mark = Line(
                [box.get_left()[0] - 0.08, y, 0], [box.get_left()[0], y, 0], color=theme.MUTED
            )
            lab = self._tick_label(tick_text(v), size).next_to(mark, LEFT, buff=0.08)
            ticks.add(VGroup(mark, lab))
        y0 = self._y(0.0, lo, hi)
        zero = Line(
            [box.get_left()[0], y0, 0], [box.get_right()[0], y0, 0], color=theme.MUTED
        ).set_stroke(width=1.5)
        towers, tips = VGroup(), VGroup()
        for k in range(d):
            centre = box.get_left()[0] + (k + 0.5) * group_w
            for side, combined, color in (
                (-1, self.a[i, k], theme.WORD_A),
                (1, self.b[i, k], theme.WORD_B),
            ):
                x = centre + side * 0.55 * self.bar_w
                base = self.pe[i, k]
                towers.add(self._bar(x, 0.0, base, lo, hi, theme.NEUTRAL, theme.MUTED))
                tips.add(self._bar(x, base, combined, lo, hi, color, color))
        return VGroup(ticks, zero, towers, tips)

    def _tick_label(self, content: str, size: float) -> Text:
        """Tick labels repeat from frame to frame: set each string once, then copy it."""
        if content not in self._ticks:
            self._ticks[content] = self.words.text(content, size=size, color=theme.MUTED)
        return self._ticks[content].copy()

    def _bar(self, x: float, v0: float, v1: float, lo: float, hi: float, fill, stroke) -> Rectangle:
        y0, y1 = self._y(v0, lo, hi), self._y(v1, lo, hi)
        bar = Rectangle(
            width=self.bar_w,
            height=max(abs(y1 - y0), 1e-4),
            stroke_color=stroke,
            stroke_width=1.5,
            fill_color=fill,
            fill_opacity=1,
        )
        return bar.move_to([x, (y0 + y1) / 2, 0])
