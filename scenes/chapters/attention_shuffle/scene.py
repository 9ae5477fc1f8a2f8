"""attention-shuffle: swap two tokens and every attention output moves with its token."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from manim import (
    DOWN,
    LEFT,
    ORIGIN,
    PI,
    RIGHT,
    UP,
    Circumscribe,
    Create,
    FadeIn,
    FadeOut,
    LaggedStart,
    Mobject,
    Rectangle,
    ReplacementTransform,
    RoundedRectangle,
    SurroundingRectangle,
    Transform,
    TransformFromCopy,
    ValueTracker,
    VGroup,
    Write,
    always_redraw,
)

import pe_math as pm
from pe_math import Params
from scenes.kit import theme
from scenes.kit.base import LessonScene
from scenes.kit.components import (
    Checklist,
    HeatGrid,
    LiveNumber,
    VectorColumn,
    arrow,
    bind_number,
    formula,
)

CELL = 0.55  # height of one matrix row, shared by the X rows, the weight grid and the outputs
CELL_W = 0.8  # width of one weight-grid cell
# a square frame sets X and the grid side by side in 7.3 units: smaller cells, same text
SQUARE_CELL = 0.45
SQUARE_CELL_W = 0.72
SQUARE_GAP = 0.8  # between X and the grid: an arrow with QKᵀ/√d over it
SQUARE_DROP = 0.65  # between the grid and the outputs: an arrow with ·V beside it
SQUARE_CORNER_BUFF = 0.3  # between the outputs and the seed (then P) in the corner beside them
OUT_DIGITS = 2  # decimals of weights and outputs on the stage
# "nearly even" weights: each within this share of the even weight 1/n (0.25 → 1/3 ± 1/12)
EVEN_TOLERANCE = 0.25
SWAP_ARC = PI  # the swapped rows and columns of weights pass each other on half circles
# under the causal mask, a swap that moves the outputs by more than this changes them
# (float64 rounding alone leaves about 1e-16)
LEAK_TOLERANCE = 1e-9
MASK_TEXT_WIDTH = 7.0  # the mask beat's lines wrap at this width


def sci_tex(x: float) -> str:
    """x as TeX scientific notation, e.g. 5.6\\times10^{-17} (plain 0 for an exact zero)."""
    if x == 0:
        return "0"
    mantissa, exponent = f"{x:.1e}".split("e")
    return rf"{mantissa}\times10^{{{int(exponent)}}}"


def bmatrix(rows) -> str:
    """A TeX bmatrix of whole numbers."""
    body = r" \\ ".join(" & ".join(f"{int(round(v))}" for v in row) for row in rows)
    return rf"\begin{{bmatrix}} {body} \end{{bmatrix}}"


@dataclass(frozen=True)
class Layout:
    """Where the sentence, the attention pipeline and the boards go in one frame shape."""

    cell: tuple[float, float]  # a matrix row's height and a weight cell's width
    # how the pipeline runs: "_line_up_blocks" across, "_stack_blocks" down the frame,
    # "_turn_blocks" across to the weights, then down to the outputs
    pipeline: str
    corner: bool  # the seed (then P) fills the corner left of the outputs; heads wrap to blocks
    notes_wrap: bool  # the notes wrap to the pipeline's width, so they never set the scale
    seed_buff: float  # between the pipeline and the notes under it
    sentence_buff: float  # under the sentence (a square is short of height)
    labels_above: bool  # each label above its row (else left of it)
    mask_buff: float  # a tall frame has rows to spare
    grow: bool  # the bag and the needs grow to fill the stage
    needs_size: float
    needs_spread: bool  # rows to spare: the needs spread down the stage


LAYOUTS = {
    "wide": Layout(
        cell=(CELL, CELL_W), pipeline="_line_up_blocks", corner=False, notes_wrap=False,
        seed_buff=1.1, sentence_buff=0.7, labels_above=False, mask_buff=0.45, grow=True,
        needs_size=theme.BODY_SIZE, needs_spread=True,
    ),
    "tall": Layout(
        cell=(CELL, CELL_W), pipeline="_stack_blocks", corner=False, notes_wrap=True,
        seed_buff=0.5, sentence_buff=0.7, labels_above=True, mask_buff=0.7, grow=False,
        needs_size=theme.HEADING_SIZE, needs_spread=True,
    ),
    "square": Layout(
        cell=(SQUARE_CELL, SQUARE_CELL_W), pipeline="_turn_blocks", corner=True,
        notes_wrap=False, seed_buff=0.5, sentence_buff=0.5, labels_above=True, mask_buff=0.45,
        grow=False, needs_size=theme.BODY_SIZE, needs_spread=False,
    ),
}  # fmt: skip


@dataclass(frozen=True)
class AttentionShuffleNumbers:
    """Every number AttentionShuffle shows, computed by pe_math (JSON-ready)."""

    X: list[list[float]]
    swap: list[int]
    order: list[int]
    proj_seed: int
    proj_scale: float
    P: list[list[float]]
    scores: list[list[float]]
    weights: list[list[float]]
    output: list[list[float]]
    weights_perm: list[list[float]]
    output_perm: list[list[float]]
    equivariance_error: float
    weight_min: float
    weight_max: float
    # every weight within EVEN_TOLERANCE of 1/n: what the random projections give at small scale
    nearly_even: bool
    n_tokens: int  # words in the sentence
    # under a causal mask, on the swapped sentence PX: what each slot may see and weigh
    keys_seen: list[int]
    even_weights: list[float]  # equal scores under the mask: one over the keys seen
    masked_weights_perm: list[list[float]]
    masked_error: float  # max |out(PX) − P out(X)| under the mask: order leaks in when > 0
    lines: dict[str, str]  # beat → the narration alternative these numbers make true


QK_TEX = r"\tfrac{QK^{\top}}{\sqrt{d}}"
MIX_TEX = r"\cdot\,V"


class AttentionShuffle(LessonScene, layouts=LAYOUTS):
    """猫咬狗 → 狗咬猫: the weight grid permutes and the outputs travel with their tokens."""

    slug = "attention-shuffle"

    @classmethod
    def numbers(cls, params: Params) -> AttentionShuffleNumbers:
        case = pm.attention_for(params)
        order = pm.swap_order(len(case.X), *params.swap)
        n = len(case.X)
        masked = pm.attention_for(params, causal=True)
        even = pm.softmax(np.zeros((n, n)) + pm.causal_mask(n))
        leaks = masked.equivariance_error > LEAK_TOLERANCE
        return AttentionShuffleNumbers(
            n_tokens=len(case.X),
            X=case.X.tolist(),
            swap=[int(i) for i in params.swap],
            order=[int(i) for i in order],
            proj_seed=int(params.proj_seed),
            proj_scale=float(params.proj_scale),
            P=case.P.tolist(),
            scores=case.scores.tolist(),
            weights=case.weights.tolist(),
            output=case.output.tolist(),
            weights_perm=case.weights_perm.tolist(),
            output_perm=case.output_perm.tolist(),
            equivariance_error=float(case.equivariance_error),
            weight_min=float(np.min(case.weights)),
            weight_max=float(np.max(case.weights)),
            nearly_even=bool(np.all(np.abs(case.weights - 1 / n) <= EVEN_TOLERANCE / n)),
            keys_seen=[int(k) for k in pm.keys_seen(n)],
            even_weights=[float(even[i, 0]) for i in range(n)],
            masked_weights_perm=masked.weights_perm.tolist(),
            masked_error=float(masked.equivariance_error),
            lines={"causal_mask": "leaks" if leaks else "all_alike"},
        )

    # ------------------------------------------------------------------ story
    def construct(self) -> None:
        self.n = self.numbers(self.params)
        tokens = self.params.tokens if self.lang == "zh" else self.params.tokens_en
        self.tokens = list(tokens)
        self.x_digits = theme.digits_for(self.n.X)
        self.identity = list(range(len(self.tokens)))
        self.title_card()
        self.show_tokens()
        self.compute_attention()
        self.swap_tokens()
        self.compare_outputs()
        self.causal_mask()
        self.inject_position()
        self.requirements()
        self.takeaway()

    def show_tokens(self) -> None:
        self.beat("show_tokens")
        self.sentence = self._sentence(self.identity).to_edge(UP, buff=theme.MARGIN + 0.1)
        self.play(Write(self.sentence), run_time=theme.NORMAL)
        cards = VGroup()
        for t, word in enumerate(self.tokens):
            name = self.words.text(word, size=theme.BODY_SIZE, color=self._color(t))
            box = RoundedRectangle(
                width=max(name.width + 0.5, 1.3),
                height=name.height + 0.35,
                corner_radius=0.12,
                stroke_color=self._color(t),
                stroke_width=2,
            )
            column = VectorColumn(self.n.X[t], digits=self.x_digits, color=self._color(t))
            cards.add(VGroup(VGroup(box, name.move_to(box)), column).arrange(DOWN, buff=0.25))
        cards.arrange(RIGHT, buff=0.9, aligned_edge=UP)
        note = self.words.label(
            "embedding", size=theme.LABEL_SIZE, color=theme.MUTED, d=len(self.n.X[0])
        )
        board = VGroup(cards, note).arrange(DOWN, buff=0.45)
        self.stage.fill_below(self.sentence, board, 0.72, buff=0.45)
        self.play(
            LaggedStart(
                *[TransformFromCopy(self.sentence[t], card[0]) for t, card in enumerate(cards)],
                lag_ratio=0.25,
            ),
            run_time=theme.NORMAL,
        )
        self.play(
            LaggedStart(*[FadeIn(card[1], shift=0.2 * DOWN) for card in cards], lag_ratio=0.2),
            FadeIn(note),
            run_time=theme.NORMAL,
        )
        self.wait(theme.LONG)
        self.cards, self.note = cards, note

    def compute_attention(self) -> None:
        self.beat("score_primer")
        n = self.n
        self.board = self._board(self.identity, n.weights, n.output, perm=False)
        st = self.board
        # the scores sit where the weights will be, in a diverging colour scale
        m = max(abs(v) for row in n.scores for v in row) or 1.0
        scores = self._grid(n.scores, self.identity, theme.diverging, -m, m)
        scores.scale(self.stage_scale).move_to(st["grid"])
        scores_head = self.words.label("scores", size=theme.LABEL_SIZE, color=theme.MUTED)
        scores_head.scale(self.stage_scale).move_to(st["grid_head"])
        # each card's column lies down into its row of X
        self.play(
            FadeOut(self.note),
            *[FadeOut(card[0]) for card in self.cards],
            *[
                ReplacementTransform(card[1], st["x_rows"][t][1])
                for t, card in enumerate(self.cards)
            ],
            *[FadeIn(st["x_rows"][t][0]) for t in self.identity],
            FadeIn(st["x_head"]),
            run_time=theme.NORMAL,
        )
        self.play(FadeIn(st["qk"]), FadeIn(st["seed"][:2]), run_time=theme.SHORT)
        self.play(FadeIn(scores, shift=0.2 * RIGHT), FadeIn(scores_head), run_time=theme.NORMAL)
        # one score: this row's query dotted with that column's key
        self.play(Circumscribe(scores.cells[1], color=theme.ACCENT), run_time=theme.NORMAL)
        self.wait(theme.SHORT)
        self.beat("compute_attention")
        self.play(
            ReplacementTransform(scores, st["grid"]),
            ReplacementTransform(scores_head, st["grid_head"]),
            run_time=theme.NORMAL,
        )
        # random, untrained projections: the weights' values say little, their moves will
        self.play(FadeIn(st["seed"][2], shift=0.1 * UP), run_time=theme.SHORT)
        self.wait(theme.SHORT)
        self.play(FadeIn(st["mix"]), run_time=theme.SHORT)
        self.play(
            LaggedStart(
                *[FadeIn(row, shift=0.3 * RIGHT) for row in st["out_rows"]], lag_ratio=0.25
            ),
            FadeIn(st["out_head"]),
            run_time=theme.NORMAL,
        )
        self._settle(self.sentence, *st.values())
        self.wait(theme.READ)

    def swap_tokens(self) -> None:
        self.beat("swap_tokens")
        n, old = self.n, self.board
        order = n.order
        slot_of = {t: k for k, t in enumerate(order)}  # where token t sits after the swap
        i, j = n.swap
        p_tex = formula("P = " + bmatrix(n.P), size=34)
        if self.stage.layout.corner:  # P over its note, in the corner the seed leaves
            p_note = self.words.label(
                "swap_note", theme.LABEL_SIZE, theme.ACCENT, max_width=self.corner_width, i=i, j=j
            )
            p_group = VGroup(p_tex, p_note).arrange(DOWN, buff=0.3, aligned_edge=LEFT)
        else:
            p_note = self.words.label(
                "swap_note", size=theme.LABEL_SIZE, color=theme.ACCENT, i=i, j=j
            )
            p_group = VGroup(p_tex, p_note).arrange(RIGHT, buff=0.4)
            self.stage.fit(p_group, 1.0, 0.2)
        corner = old["seed"][:2]  # where Q, K, V and the seed note were
        p_group.move_to(corner).align_to(corner, UP)
        self.play(FadeOut(old["seed"]), FadeIn(p_group), run_time=theme.NORMAL)
        new = self._board(order, n.weights_perm, n.output_perm, perm=True)
        self._land_on(new, old)
        self.recomputed = new  # the layout on PX: targets only, never itself on stage
        new_sentence = self._sentence(order).move_to(self.sentence)
        # the input: two words and their rows of X physically trade places
        self.play(
            *[Transform(self.sentence[t], new_sentence[t], path_arc=-1.2) for t in self.identity],
            *[
                Transform(old["x_rows"][t], new["x_rows"][slot_of[t]], path_arc=-0.6)
                for t in self.identity
            ],
            Transform(old["x_head"], new["x_head"]),
            run_time=theme.LONG,
        )
        self.wait(theme.SHORT)
        # recompute on PX: the same cells travel, rows first, then columns, so cell (a, b)
        # lands on (slot of a, slot of b), where the weight recomputed on PX has its value
        grid = old["grid"]
        self._permute_grid(
            grid, slot_of, rows=True, extra=[Transform(old["grid_head"], new["grid_head"])]
        )
        self._permute_grid(grid, slot_of, rows=False)
        # ... and every output row travels with its token to the slot it moved to
        out_rows = old["out_rows"]
        home = [row.get_y() for row in out_rows]
        moving = VGroup(*[out_rows[t] for t in self.identity if slot_of[t] != t]).set_z_index(1)
        self.play(
            *[
                out_rows[t].animate(path_arc=SWAP_ARC).shift((home[slot_of[t]] - home[t]) * UP)
                for t in self.identity
                if slot_of[t] != t
            ],
            Transform(old["out_head"], new["out_head"]),
            run_time=theme.LONG,
        )
        moving.set_z_index(0)
        moved = old["out_rows"][i]
        self.play(Circumscribe(moved, color=theme.ACCENT), run_time=theme.NORMAL)
        self.wait(theme.SHORT)
        self.moved_row, self.moved_parent = moved, old["out_rows"]

    def compare_outputs(self) -> None:
        self.beat("compare_outputs")
        n = self.n
        i, j = n.swap
        token = self.tokens[i]
        before_row = VectorColumn(n.output[i], digits=4, color=self._color(i), horizontal=True)
        after_row = VectorColumn(n.output_perm[j], digits=4, color=self._color(i), horizontal=True)
        before_lab = self.words.label(
            "at_position",
            size=theme.LABEL_SIZE,
            token=token,
            pos=i,
            sentence=self._says(range(len(self.tokens))),
        )
        after_lab = self.words.label(
            "at_position",
            size=theme.LABEL_SIZE,
            token=token,
            pos=j,
            sentence=self._says(n.order),
        )
        if self.stage.layout.labels_above:
            pairs = [
                VGroup(lab, row).arrange(DOWN, buff=0.15)
                for lab, row in ((before_lab, before_row), (after_lab, after_row))
            ]
            VGroup(*pairs).arrange(DOWN, buff=0.4)
            rows = VGroup(before_row, after_row)
            labels = VGroup(before_lab, after_lab)
        else:  # each label left of its row
            rows = VGroup(before_row, after_row).arrange(DOWN, buff=0.25)
            labels = VGroup(before_lab, after_lab).arrange(DOWN, aligned_edge=LEFT)
            labels.next_to(rows, LEFT, buff=0.4)
            for lab, row in zip(labels, rows, strict=True):
                lab.match_y(row)
        same = self.words.label("identical", size=theme.LABEL_SIZE, color=theme.ACCENT)
        compare = VGroup(labels, rows)
        same.next_to(rows, DOWN, buff=0.2)
        error = formula(
            r"\max\left|\,\mathrm{out}(PX)-P\,\mathrm{out}(X)\,\right| = "
            + sci_tex(n.equivariance_error),
            size=36,
        )
        rounding = self.words.label("rounding", size=theme.LABEL_SIZE, color=theme.MUTED)
        identity = formula(r"\mathrm{out}(PX) = P\,\mathrm{out}(X)", size=44, color=theme.ACCENT)
        # why that loses order: the output follows the token, never the place it stands in
        order_lost = self.words.label(
            "order_lost", theme.LABEL_SIZE, theme.FOREGROUND, max_width=self.stage.width()
        )
        proof = VGroup(error, rounding, identity, order_lost).arrange(DOWN, buff=0.3)
        board = VGroup(VGroup(compare, same), proof).arrange(DOWN, buff=0.6)
        self.stage.fill_below(self.sentence, board, 0.75)
        self.moved_parent.remove(self.moved_row)
        self.add(self.moved_row)
        self.play(
            *[FadeOut(m) for m in self.stage_mobjects(self.sentence, self.moved_row)],
            ReplacementTransform(self.moved_row, after_row),
            FadeIn(after_lab),
            run_time=theme.NORMAL,
        )
        self.play(FadeIn(before_row, shift=0.3 * DOWN), FadeIn(before_lab), run_time=theme.NORMAL)
        self.play(
            *[
                Circumscribe(VGroup(b, a), color=theme.ACCENT, buff=0.03)
                for b, a in zip(before_row.cells, after_row.cells, strict=True)
            ],
            FadeIn(same),
            run_time=theme.LONG,
        )
        self.play(Write(error), run_time=theme.NORMAL)
        self.play(FadeIn(rounding), run_time=theme.SHORT)
        self.play(Write(identity), run_time=theme.NORMAL)
        self.play(FadeIn(order_lost, shift=0.1 * UP), run_time=theme.NORMAL)
        self.wait(theme.READ)

    def causal_mask(self) -> None:
        """The one exception: a causal mask hides later keys, so a token can count the ones
        before it, and the same swap now changes the outputs."""
        self.beat("causal_mask")
        n = self.n
        order, rows = n.order, range(n.n_tokens)
        plain = self._grid(n.weights_perm, order, theme.sequential, 0.0, 1.0)
        masked = self._grid(n.masked_weights_perm, order, theme.sequential, 0.0, 1.0)
        hidden = [(i, j) for i in rows for j in rows if j > i]
        tiles = self._mask_tiles(plain, hidden)
        width = min(self.stage.width(), MASK_TEXT_WIDTH)  # words wrap so the grid can grow
        head = self.words.label("mask_head", theme.LABEL_SIZE, theme.ACCENT, max_width=width)
        # beside each row: how many keys it sees (counted up), and the even weight 1/k
        seen = [self.words.text("0", theme.LABEL_SIZE, theme.ACCENT) for _ in rows]
        even = [self.words.text(f"1/{k}" if k > 1 else "1", theme.LABEL_SIZE) for k in n.keys_seen]
        seen_head = self.words.label("seen_head", theme.SMALL_SIZE, theme.MUTED)
        even_head = self.words.label("even_head", theme.SMALL_SIZE, theme.MUTED)
        table = VGroup(plain, tiles)
        columns = VGroup(VGroup(seen_head, *seen), VGroup(even_head, *even))
        self._place_columns(plain, columns)
        error = formula(
            r"\max\left|\,\mathrm{out}(PX)-P\,\mathrm{out}(X)\,\right| = "
            + theme.fmt(n.masked_error, OUT_DIGITS),
            size=36,
        )
        verdict = "mask_leak" if n.lines["causal_mask"] == "leaks" else "mask_same"
        leak = self.words.label(verdict, theme.LABEL_SIZE, theme.ACCENT, max_width=width)
        board = VGroup(head, VGroup(table, columns), error, leak)
        board.arrange(DOWN, buff=self.stage.layout.mask_buff)
        self.stage.fill_below(self.sentence, board, 0.75)
        masked.scale(plain.cells.height / masked.cells.height)
        masked.shift(plain.cells.get_center() - masked.cells.get_center())
        self.play(*[FadeOut(m) for m in self.stage_mobjects(self.sentence)], run_time=theme.SHORT)
        self.play(FadeIn(plain), FadeIn(head), run_time=theme.NORMAL)
        # the mask slides over the later keys; the weights left visible share out each row again
        self.while_saying(
            "mask",
            LaggedStart(*[FadeIn(t, shift=0.3 * LEFT) for t in tiles], lag_ratio=0.3),
            *[
                ReplacementTransform(plain.cell(i, j), masked.cell(i, j))
                for i in rows
                for j in rows
                if j <= i
            ],
            run_time=theme.LONG,
        )
        # each token counts the keys it sees: a bar runs along its visible cells
        count = ValueTracker(0.0)
        bars, counters = self._counting_bars(plain, count, seen)
        self.add(bars, counters)  # at 0; their digits change as they count, so no fade
        self.while_saying(
            "count",
            FadeIn(seen_head),
            count.animate.set_value(n.n_tokens),
            run_time=theme.LONG,
        )
        for m in (*bars, *counters):  # counted: they hold still, and fade out as they are
            m.clear_updaters()
        self.play(
            FadeIn(even_head),
            LaggedStart(*[FadeIn(m, shift=0.2 * RIGHT) for m in even], lag_ratio=0.3),
            run_time=theme.NORMAL,
        )
        self.while_saying("swap", Write(error), FadeIn(leak, shift=0.1 * UP), run_time=theme.NORMAL)
        self.wait(theme.READ)

    def _mask_tiles(self, plain: HeatGrid, hidden: list[tuple[int, int]]) -> VGroup:
        """A grey tile over each hidden cell of the weight grid."""
        return VGroup(
            *[
                Rectangle(
                    width=plain.cell(i, j).width,
                    height=plain.cell(i, j).height,
                    stroke_color=theme.BACKGROUND,
                    stroke_width=1,
                    fill_color=theme.MUTED,
                    fill_opacity=1,
                ).move_to(plain.cell(i, j))
                for i, j in hidden
            ]
        )

    def _place_columns(self, plain: HeatGrid, columns: VGroup) -> None:
        """The columns side by side right of the grid, each entry level with its row."""
        left = plain.cells.get_right()[0] + 0.5
        for column in columns:
            column[0].next_to(plain.cells, UP, buff=0.12)
            for i, m in enumerate(column[1:]):
                m.match_y(plain.row(i))
            column.set_x(left + column.width / 2)
            for m in column[1:]:
                m.match_x(column[0])
            left += column.width + 0.5

    def _counting_bars(
        self, plain: HeatGrid, count: ValueTracker, seen: list[Mobject]
    ) -> tuple[VGroup, VGroup]:
        """Along each row, a frame as long as `count` (up to the keys the row sees), and in
        place of each count in `seen`, a number that follows it."""
        n = self.n
        rows = range(n.n_tokens)
        first = plain.cell(0, 0)
        cell_w, cell_h = first.width, first.height

        def bar(i: int) -> Mobject:
            reach = min(count.get_value(), n.keys_seen[i])
            frame = Rectangle(
                width=max(reach, 1e-3) * cell_w,
                height=cell_h,
                stroke_color=theme.ACCENT,
                stroke_width=4 if reach > 0 else 0,
            )
            return frame.move_to(plain.cell(i, 0), aligned_edge=LEFT)

        bars = VGroup(*[always_redraw(lambda i=i: bar(i)) for i in rows])
        counters = VGroup()
        for i, m in enumerate(seen):
            number = LiveNumber(
                0, num_decimal_places=0, font_size=theme.LABEL_SIZE, color=theme.ACCENT
            )
            number.match_height(m).move_to(m)
            bind_number(number, lambda i=i: min(int(count.get_value()), n.keys_seen[i]))
            counters.add(number)
        return bars, counters

    def inject_position(self) -> None:
        self.beat("inject_position")
        self.play(
            *[FadeOut(m) for m in self.stage_mobjects(self.sentence)],
            run_time=theme.SHORT,
        )
        pieces = VGroup(
            formula("x", size=48),
            formula("=", size=48),
            self.words.label("embedding_word", size=theme.HEADING_SIZE, color=theme.FOREGROUND),
            formula("+", size=48),
            self.words.label("position_word", size=theme.HEADING_SIZE, color=theme.ACCENT),
        ).arrange(RIGHT, buff=0.3)
        # every slot of the sentence gets its own position vector
        slots = VGroup()
        for k, t in enumerate(self.n.order):
            tag = self.words.label("pos_tag", size=theme.LABEL_SIZE, color=theme.ACCENT, k=k)
            slots.add(VGroup(self.sentence[t].copy(), tag).arrange(DOWN, buff=0.3))
        slots.arrange(RIGHT, buff=0.9, aligned_edge=DOWN)
        board = VGroup(slots, pieces).arrange(DOWN, buff=0.9)
        self.stage.fit(board, 1.0, 0.75, grow=self.stage.layout.grow).move_to(ORIGIN)
        self.play(
            *[Transform(self.sentence[t], slots[k][0]) for k, t in enumerate(self.n.order)],
            run_time=theme.NORMAL,
        )
        self.play(
            LaggedStart(*[FadeIn(slot[1], shift=0.2 * UP) for slot in slots], lag_ratio=0.25),
            run_time=theme.NORMAL,
        )
        self.play(Write(pieces), run_time=theme.NORMAL)
        self.wait(theme.READ)

    def requirements(self) -> None:
        """What the position vector should be like: the list every later scheme is judged by."""
        self.beat("requirements")
        self.play(*[FadeOut(m) for m in self.stage_mobjects()], run_time=theme.SHORT)
        heading = self.words.text(
            self.words.common("needs"), size=theme.HEADING_SIZE, color=theme.ACCENT
        )
        width = self.stage.width() - 0.8
        size = self.stage.layout.needs_size
        names = [self.words.lines(n, width, size=size) for n in self.words.requirement_names()]
        needs = Checklist(names)
        if self.stage.layout.needs_spread:
            needs.arrange(DOWN, buff=0.5, aligned_edge=LEFT)
        board = VGroup(heading, needs).arrange(DOWN, buff=0.5)
        self.stage.place(board, grow=self.stage.layout.grow)
        self.play(Write(heading), run_time=theme.NORMAL)
        # each need as it is said: the line marks every need of the one list, by its name
        for need, row in zip(pm.REQUIREMENTS, needs, strict=True):
            self.while_saying(need, FadeIn(row, shift=0.2 * RIGHT), run_time=theme.NORMAL)

    # ---------------------------------------------------------------- layout
    def _settle(self, *groups: Mobject) -> None:
        """Replace the loose pieces on stage by the groups they belong to (same look)."""
        self.remove(*self.stage_mobjects())
        self.add(*groups)

    def _permute_grid(self, grid: HeatGrid, slot_of: dict[int, int], rows: bool, extra=()) -> None:
        """Carry the grid's moving rows (or columns), labels and all, to their new slots.

        Each moving line is framed in its token's colour and drawn over the rest, so the
        cells can be followed even though their values are close.
        """
        k = len(slot_of)
        line = grid.row if rows else grid.column
        labels = grid.row_labels if rows else grid.col_labels
        moving = [t for t in range(k) if slot_of[t] != t]
        if not moving:
            return
        # where each line's slot is now (it is fixed before anything moves)
        home = [line(t).get_center() for t in range(k)]
        frames = {
            t: SurroundingRectangle(
                line(t), color=self._color(t), buff=0.02, stroke_width=4, corner_radius=0.04
            )
            for t in moving
        }
        groups = {t: VGroup(line(t), labels[t], frames[t]) for t in moving}
        for group in groups.values():
            group.set_z_index(1)
        self.play(*[Create(f) for f in frames.values()], run_time=theme.SHORT)
        self.play(
            *[
                group.animate(path_arc=SWAP_ARC).shift(home[slot_of[t]] - home[t])
                for t, group in groups.items()
            ],
            *extra,
            run_time=theme.NORMAL,
        )
        self.play(*[FadeOut(f) for f in frames.values()], run_time=theme.SHORT)
        for t in moving:
            VGroup(line(t), labels[t]).set_z_index(0)

    @property
    def cell_size(self) -> tuple[float, float]:
        """A matrix row's height and a weight cell's width in this frame."""
        return self.stage.layout.cell

    def _color(self, token: int):
        return theme.TOKEN_COLORS[token % len(theme.TOKEN_COLORS)]

    def _says(self, order) -> str:
        """The sentence in this order: run together in Chinese, spaced in English."""
        glue = "" if self.lang == "zh" else " "
        return glue.join(self.tokens[t] for t in order)

    def _sentence(self, order) -> VGroup:
        """The sentence in `order`, as one glyph group per token, indexed by token (not slot).

        It is set as a single Text so every word sits on the same baseline.
        """
        said = self._says(order)
        line = self.words.text(said, size=theme.HEADING_SIZE)  # one glyph per character, spaces too
        words: dict[int, VGroup] = {}
        start = 0
        for t in order:
            start = said.index(self.tokens[t], start)
            end = start + len(self.tokens[t])
            words[t] = VGroup(*line[start:end]).set_color(self._color(t))
            start = end
        return VGroup(*[words[t] for t in range(len(self.tokens))])

    def _grid(self, matrix, order, colormap, vmin, vmax) -> HeatGrid:
        names = [self.tokens[t] for t in order]
        grid = HeatGrid(
            np.asarray(matrix),
            vmin=vmin,
            vmax=vmax,
            cell=self.cell_size[0],
            cell_width=self.cell_size[1],
            colormap=colormap,
            digits=OUT_DIGITS,
            row_labels=names,
            col_labels=names,
        )
        for k, t in enumerate(order):
            grid.row_labels[k].set_color(self._color(t))
            grid.col_labels[k].set_color(self._color(t))
        return grid

    def _row(self, token: int, values, digits: int) -> VGroup:
        """A token's name and its values as one horizontal row of matrix cells."""
        cells = VectorColumn(
            values,
            digits=digits,
            color=self._color(token),
            cell=self.cell_size[0],
            size=theme.SMALL_SIZE,
            horizontal=True,
        )
        name = self.words.text(self.tokens[token], size=theme.SMALL_SIZE, color=self._color(token))
        return VGroup(name, cells).arrange(RIGHT, buff=0.15)

    def _board(self, order, weights, outputs, perm: bool) -> dict[str, Mobject]:
        """X rows → weight grid → output rows, row k of each showing the token in slot k.

        x_rows and out_rows are indexed by slot; the grid by slot too.
        """
        grid = self._grid(weights, order, theme.sequential, 0.0, 1.0)
        x_rows = VGroup(*[self._row(t, self.n.X[t], self.x_digits) for t in order])
        out_rows = VGroup(*[self._row(t, outputs[k], OUT_DIGITS) for k, t in enumerate(order)])
        for rows in (x_rows, out_rows):
            rows.arrange(DOWN, buff=0, aligned_edge=RIGHT)
            for k, row in enumerate(rows):
                row.match_y(grid.row(k))
        keys = (
            "px_header" if perm else "x_header",
            "weights_perm" if perm else "weights",
            "out_perm_header" if perm else "out_header",
        )
        layout = self.stage.layout
        if layout.corner:  # X's head and the grid's share a row: each wraps to its block
            heads = [
                self.words.label(key, theme.LABEL_SIZE, theme.MUTED, max_width=block.width)
                for key, block in zip(keys, (x_rows, grid, out_rows), strict=True)
            ]
        else:
            heads = [
                self.words.label(key, size=theme.LABEL_SIZE, color=theme.MUTED) for key in keys
            ]
        qk, mix = getattr(self, layout.pipeline)(heads, x_rows, grid, out_rows)
        if layout.corner:  # the seed fills the corner left of the outputs
            left, right = x_rows.get_left()[0], out_rows.get_left()[0]
            self.corner_width = right - left - SQUARE_CORNER_BUFF
            seed = self._seed(stacked=True, width=self.corner_width)
            seed.match_y(out_rows).set_x((left + right) / 2)
            # ... and the weights note under the outputs, right of the seed note
            room = out_rows.get_right()[0] - seed.get_right()[0] - SQUARE_CORNER_BUFF
            even = self._weights_note(room)
            even.next_to(out_rows, DOWN, buff=SQUARE_CORNER_BUFF).align_to(out_rows, RIGHT)
            seed.add(even)
        else:
            # a tall frame's notes wrap to the pipeline's width, so they never set the scale
            wrap = VGroup(x_rows, grid, out_rows).width if layout.notes_wrap else None
            seed = self._seed(stacked=False, width=wrap)
            seed.add(self._weights_note(wrap)).arrange(DOWN, buff=0.2)
            seed.next_to(VGroup(x_rows, grid, out_rows), DOWN, buff=layout.seed_buff)
            if seed.width > self.stage.width():
                seed[0].next_to(seed[1], UP, buff=0.2)
        parts = {
            "x_rows": x_rows,
            "grid": grid,
            "out_rows": out_rows,
            "qk": qk,
            "mix": mix,
            "x_head": heads[0],
            "grid_head": heads[1],
            "out_head": heads[2],
            "seed": seed,
        }
        whole = VGroup(*parts.values())
        width = whole.width
        self.stage.fill_below(self.sentence, whole, 0.8, buff=layout.sentence_buff)
        self.stage_scale = whole.width / width
        if layout.corner:  # the corner grew or shrank with the stage
            self.corner_width *= self.stage_scale
        return parts

    def _land_on(self, new: dict[str, Mobject], old: dict[str, Mobject]) -> None:
        """Lay the recomputed stage exactly over the old one, whose arrows and formulas stay
        (its own fit may differ a little: its heads wrap differently)."""
        whole = VGroup(*new.values())
        whole.scale(old["grid"].cells.width / new["grid"].cells.width)
        whole.shift(old["grid"].cells.get_center() - new["grid"].cells.get_center())

    def _seed(self, stacked: bool, width: float | None = None) -> VGroup:
        """Q, K and V from X, and where their random projections come from (the note
        wrapped to `width`)."""
        values = {
            "seed": self.n.proj_seed,
            "scale": theme.fmt(self.n.proj_scale, theme.digits_for([self.n.proj_scale])),
        }
        note = self.words.label("seed", theme.LABEL_SIZE, theme.MUTED, max_width=width, **values)
        if stacked:  # one projection a line, the note in the corner
            qkv = formula(r"Q &= XW_q \\ K &= XW_k \\ V &= XW_v", size=32)
            return VGroup(qkv, note).arrange(DOWN, buff=0.2, aligned_edge=LEFT)
        qkv = formula(r"Q = XW_q,\quad K = XW_k,\quad V = XW_v", size=32)
        return VGroup(qkv, note).arrange(DOWN, buff=0.2)

    def _weights_note(self, width: float | None = None) -> Mobject:
        """What random, untrained projections do to the weights: nearly even ones (when
        they are), and their range, wrapped to `width`."""
        n = self.n
        return self.words.label(
            "even" if n.nearly_even else "uneven",
            theme.LABEL_SIZE,
            theme.ACCENT,
            max_width=width,
            lo=theme.fmt(n.weight_min, OUT_DIGITS),
            hi=theme.fmt(n.weight_max, OUT_DIGITS),
        )

    def _feed_grid(self, x_rows, grid, gap: float) -> VGroup:
        """X's rows left of the grid, each level with its row there, and the QKᵀ arrow between."""
        x_rows.next_to(grid.row_labels, LEFT, buff=gap)
        for k, row in enumerate(x_rows):
            row.match_y(grid.row(k))
        qk_arrow = arrow(
            x_rows.get_right() + 0.15 * RIGHT, grid.row_labels.get_left() + 0.15 * LEFT
        )
        return VGroup(qk_arrow, formula(QK_TEX, size=30).next_to(qk_arrow, UP, buff=0.1))

    def _line_up_blocks(self, heads, x_rows, grid, out_rows) -> tuple[VGroup, VGroup]:
        gap = 1.0  # room for the arrow and its formula between blocks
        qk = self._feed_grid(x_rows, grid, gap)
        out_rows.next_to(grid.cells, RIGHT, buff=gap)
        for k, row in enumerate(out_rows):
            row.match_y(grid.row(k))
        mix_arrow = arrow(grid.cells.get_right() + 0.15 * RIGHT, out_rows.get_left() + 0.15 * LEFT)
        mix_tex = formula(MIX_TEX, size=30).next_to(mix_arrow, UP, buff=0.1)
        for head, block in zip(heads, (x_rows, grid, out_rows), strict=True):
            head.next_to(grid, UP, buff=0.25).match_x(block)
        return qk, VGroup(mix_arrow, mix_tex)

    def _turn_blocks(self, heads, x_rows, grid, out_rows) -> tuple[VGroup, VGroup]:
        """An L: X → weights across the top, then down from the weights to the outputs."""
        qk = self._feed_grid(x_rows, grid, SQUARE_GAP)
        for head, block in zip(heads[:2], (x_rows, grid), strict=True):
            head.next_to(grid, UP, buff=0.25).match_x(block)
        # the outputs hang under the grid, their cells flush with its right edge
        out_rows.arrange(DOWN, buff=0.06, aligned_edge=RIGHT)
        out_cells = VGroup(*[row[1] for row in out_rows])
        heads[2].next_to(out_rows, UP, buff=0.2).match_x(out_cells)
        VGroup(heads[2], out_rows).next_to(grid, DOWN, buff=SQUARE_DROP).align_to(grid.cells, RIGHT)
        # straight down from the grid onto the outputs' head, as far as the grid reaches
        x = np.clip(out_cells.get_x(), grid.cells.get_left()[0], grid.cells.get_right()[0])
        mix_arrow = arrow([x, grid.get_bottom()[1] - 0.08, 0], [x, heads[2].get_top()[1] + 0.08, 0])
        return qk, VGroup(mix_arrow, formula(MIX_TEX, size=30).next_to(mix_arrow, RIGHT, buff=0.15))

    def _stack_blocks(self, heads, x_rows, grid, out_rows) -> tuple[VGroup, VGroup]:
        for rows in (x_rows, out_rows):
            rows.arrange(DOWN, buff=0.06, aligned_edge=RIGHT)
        blocks = [
            VGroup(h, b).arrange(DOWN, buff=0.2)
            for h, b in zip(heads, (x_rows, grid, out_rows), strict=True)
        ]
        VGroup(*blocks).arrange(DOWN, buff=1.0)
        links = []
        for upper, lower, tex in ((blocks[0], blocks[1], QK_TEX), (blocks[1], blocks[2], MIX_TEX)):
            link = arrow(upper.get_bottom() + 0.12 * DOWN, lower.get_top() + 0.12 * UP)
            links.append(VGroup(link, formula(tex, size=30).next_to(link, RIGHT, buff=0.15)))
        return links[0], links[1]
