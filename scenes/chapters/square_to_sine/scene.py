"""square-to-sine: sand each bit's square wave into a sine, then into the PE table."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Circumscribe,
    Create,
    DashedLine,
    FadeIn,
    FadeOut,
    Mobject,
    Rectangle,
    ReplacementTransform,
    Transform,
    ValueTracker,
    VGroup,
    always_redraw,
    linear,
)

import pe_math as pm
from scenes.kit import theme
from scenes.kit.base import LessonScene
from scenes.kit.components import ColorScale, LiveNumber, PixelMap, WavePlot, formula

FAMILY_BITS = 4  # at most this many bits get a wave row
MIN_WINDOW = 8  # positions shown, at least
ROW_SAMPLES = 400


@dataclass(frozen=True)
class Layout:
    """Scene-unit sizes of the big plot, a family row and the heat map for one frame shape,
    and how the family and the heat map sit on the stage. A width of None means the
    stage's width less the labels beside the shape."""

    plot: tuple[float | None, float]
    row: tuple[float | None, float]
    heat: tuple[float | None, float]
    stacked: bool  # labels above the rows (else beside them)
    tag_buff: float
    rows_buff: float  # between the family's rows
    family_share: float  # of the frame's height the family may take
    family_lift: float  # how far above the centre the family sits
    heat_share: float  # of the frame's height the heat map and its labels may take


LAYOUTS = {
    "wide": Layout(
        plot=(10.0, 4.0), row=(8.5, 1.0), heat=(8.5, 4.4), stacked=False, tag_buff=0.3,
        rows_buff=0.25, family_share=0.82, family_lift=0.25, heat_share=0.82,
    ),
    "tall": Layout(
        plot=(None, 6.5), row=(None, 2.0), heat=(None, 7.5), stacked=True, tag_buff=0.6,
        rows_buff=0.45, family_share=1.0, family_lift=0.0, heat_share=0.72,
    ),
    "square": Layout(
        plot=(None, 2.8), row=(None, 0.7), heat=(None, 2.9), stacked=True, tag_buff=0.3,
        rows_buff=0.25, family_share=1.0, family_lift=0.0, heat_share=0.62,
    ),
}  # fmt: skip


def series(k: int):
    return theme.SERIES_COLORS[k % len(theme.SERIES_COLORS)]


def number_text(x: float) -> str:
    """A whole number without a decimal point, otherwise up to 3 significant decimals."""
    return str(int(x)) if float(x).is_integer() else f"{x:.4g}"


@dataclass(frozen=True)
class SquareToSineNumbers:
    """Every number SquareToSine shows, computed by pe_math (JSON-ready)."""

    shown_bits: int
    bit: int
    window: int
    pairs: int
    n_bits: int
    period: float
    fundamental_scale: float
    terms: list[int]
    peaks: list[float]
    family_periods: list[float]
    omega_binary: list[float]
    omega_pe: list[float]
    d_model: int
    pair_last: int
    base: float
    layout: str
    variant: str
    max_len: int
    table: list[list[float]]
    table_range: list[float]
    slowest_lap: float  # 2π/ω of the table's slowest pair: positions per lap
    ladder_factor: float  # ω_i / ω_(i+1): how much slower each pair is than the one before
    lines: dict[str, str]  # beat -> which of its narration alternatives holds here


class SquareToSine(LessonScene, layouts=LAYOUTS):
    slug = "square-to-sine"

    @classmethod
    def layout_sizes(cls, params: pm.Params) -> dict[str, int]:
        shown_bits = min(params.n_bits, FAMILY_BITS)
        return {
            "shown_bits": shown_bits,
            "bit": shown_bits - 1,
            "window": max(2**shown_bits, MIN_WINDOW),
            "pairs": min(shown_bits, params.d_model // 2),
        }

    @classmethod
    def grid(cls, params: pm.Params) -> np.ndarray:
        """Dense sample positions for the big plot: enough points per period of the top harmonic."""
        s = cls.layout_sizes(params)
        top_harmonic = 2 * max(params.fourier_terms) - 1
        period = 2.0 ** (s["bit"] + 1)
        samples = int(np.clip(24 * top_harmonic * s["window"] / period, 800, 6000))
        return np.linspace(0.0, s["window"], samples)

    @classmethod
    def numbers(cls, params: pm.Params) -> SquareToSineNumbers:
        s = cls.layout_sizes(params)
        grid = cls.grid(params)
        bits = np.arange(s["shown_bits"])
        omega = pm.frequencies(params.d_model, params.base, params.variant)
        table = pm.sinusoidal(
            np.arange(params.max_len), params.d_model, params.base, params.layout, params.variant
        )
        factor = float(omega[0] / omega[1]) if len(omega) > 1 else 1.0
        if params.max_len == 1:  # one column: every pair at its start, nothing changes
            heatmap = "single"
        elif len(omega) == 1:  # one pair: no ladder to see
            heatmap = "one"
        else:  # each pair slower than the one before it
            heatmap = "ladder"
        if len(omega) == 1:  # one pair turns at ω = 1 whatever the base: no ladder
            ladder = "one"
        else:  # a factor that reads as 1 is said as barely above one
            ladder = "ladder" if f"{factor:.3g}" != "1" else "gentle"
        return SquareToSineNumbers(
            **s,
            n_bits=params.n_bits,
            period=float(2 * np.pi / pm.binary_frequencies(s["bit"] + 1)[-1]),
            # The fundamental's value a quarter period in, where its sine is 1: its signed scale.
            fundamental_scale=float(pm.fourier_partial_sum(2.0 ** (s["bit"] - 1), s["bit"], 1)[0]),
            terms=list(params.fourier_terms),
            peaks=[
                float(pm.fourier_partial_sum(grid, s["bit"], t).max()) for t in params.fourier_terms
            ],
            family_periods=[float(v) for v in 2 * np.pi / pm.binary_frequencies(len(bits))],
            omega_binary=pm.frequency_slide(
                s["pairs"], params.d_model, params.base, params.variant, 0.0
            ).tolist(),
            omega_pe=pm.frequency_slide(
                s["pairs"], params.d_model, params.base, params.variant, 1.0
            ).tolist(),
            d_model=params.d_model,
            pair_last=len(pm.frequencies(params.d_model, params.base, params.variant)) - 1,
            base=params.base,
            layout=params.layout,
            variant=params.variant,
            max_len=params.max_len,
            table=table.tolist(),
            table_range=[float(table.min()), float(table.max())],
            slowest_lap=float(pm.periods(params.d_model, params.base, params.variant)[-1]),
            ladder_factor=factor,
            lines={
                "family": "many" if s["shown_bits"] > 1 else "one",
                "ladder": ladder,
                "heatmap": heatmap,
            },
        )

    # ----------------------------------------------------------------- layout
    def size(self, part: str, beside: float) -> tuple[float, float]:
        """A part's (width, height) for this frame; `beside` is the room its side labels take."""
        width, height = getattr(self.stage.layout, part)
        return (self.stage.width() - beside if width is None else width), height

    def tag_buff(self) -> float:
        return self.stage.layout.tag_buff

    def exponent(self) -> str:
        """TeX for the exponent of ω_i = base^(−exponent) under this lesson's variant."""
        d = self.n.d_model
        return rf"2i/{d}" if self.n.variant == "paper" else rf"i/{max(d // 2 - 1, 1)}"

    def stack_if_wide(self, parts: VGroup, buff: float) -> VGroup:
        """`parts` side by side, or one under another when that is wider than the stage."""
        parts.arrange(RIGHT, buff=buff)
        if parts.width > self.stage.width():
            parts.arrange(DOWN, buff=0.2)
        return parts

    def beside_row(self, plot: WavePlot, label: Mobject, side: np.ndarray) -> Mobject:
        """Put `label` at the `side` (LEFT or RIGHT) of a family row: beside its plot in
        16:9, above its plot's end in tall and square frames."""
        if self.stage.layout.stacked:
            return label.next_to(plot, UP, buff=0.1).align_to(plot, side)
        return label.next_to(plot, side, buff=0.3)

    # ------------------------------------------------------------------ beats
    def construct(self) -> None:
        self.n = self.numbers(self.params)
        self.title_card()
        self.show_square()
        self.show_fourier()
        self.show_fundamental()
        self.show_family()
        self.show_slide()
        self.show_heatmap()
        self.show_formula()
        self.takeaway()

    def show_square(self) -> None:
        self.beat("square")
        nums = self.n
        k, window = nums.bit, nums.window
        self.xs = self.grid(self.params)
        plot = WavePlot(*self.size("plot", beside=0.7), window, 1.35)
        guides = VGroup()
        for y in (1, -1):
            line = DashedLine(plot.at(0, y), plot.at(window, y), dash_length=0.06)
            guides.add(line.set_stroke(theme.MUTED, 1, opacity=0.5))
            mark = self.words.text(
                theme.fmt(y, 0) if y < 0 else "+1", theme.SMALL_SIZE, theme.MUTED
            )
            guides.add(mark.next_to(plot.at(0, y), LEFT, buff=0.15))
        step = window // 4
        ticks = VGroup(
            *[
                self.words.text(str(x), theme.SMALL_SIZE, theme.MUTED).next_to(
                    plot.at(x, -1.35), DOWN, buff=0.1
                )
                for x in range(0, window + 1, step)
            ]
        )
        axis = self.words.label("position", theme.SMALL_SIZE, theme.MUTED).next_to(ticks, DOWN, 0.1)
        title = self.words.label(
            "square_title", theme.BODY_SIZE, series(k), max_width=self.stage.width(), k=k
        )
        self.plot = plot
        self.board = VGroup(title, VGroup(plot, guides, ticks, axis)).arrange(DOWN, buff=0.35)
        self.stage.fit(self.board, 1.0, 0.8)
        self.board.to_edge(UP, buff=theme.MARGIN + 0.2)
        square = plot.curve(self.xs, pm.square_wave(self.xs, k), series(k))
        self.play(FadeIn(self.board), run_time=theme.SHORT)
        self.play(Create(square), run_time=theme.NORMAL)
        self.wait(theme.SHORT)
        self.square = square

    def show_fourier(self) -> None:
        self.beat("fourier")
        nums = self.n
        k = nums.bit
        plot = self.plot
        self.square.set_stroke(theme.MUTED, 2, opacity=0.7)
        wave = None
        tag = None
        for terms, peak in zip(nums.terms, nums.peaks, strict=True):
            new = plot.curve(self.xs, pm.fourier_partial_sum(self.xs, k, terms), theme.ACCENT)
            words = self.words.label("terms", theme.BODY_SIZE, theme.ACCENT, n=terms)
            if terms == 1:
                words = self.words.label("one_term", theme.BODY_SIZE, theme.ACCENT)
            high = self.words.label(
                "peak", theme.LABEL_SIZE, theme.FOREGROUND, value=theme.fmt(peak)
            )
            new_tag = VGroup(words, high).arrange(RIGHT, buff=0.5)
            new_tag.next_to(self.board, DOWN, buff=self.tag_buff())
            if wave is None:
                self.play(Create(new), FadeIn(new_tag), run_time=theme.NORMAL)
            else:
                self.play(Transform(wave, new), FadeOut(tag), FadeIn(new_tag))
            wave = wave or new
            tag = new_tag
            self.wait(theme.SHORT)
        self.wave, self.tag = wave, tag

    def show_fundamental(self) -> None:
        self.beat("fundamental")
        nums = self.n
        k = nums.bit
        smooth = self.plot.curve(self.xs, pm.fourier_partial_sum(self.xs, k, 1), series(k))
        words = self.words.label(
            "fundamental",
            theme.BODY_SIZE,
            series(k),
            max_width=self.stage.width(),
            period=number_text(nums.period),
        )
        words.next_to(self.board, DOWN, buff=self.tag_buff())
        self.play(Transform(self.wave, smooth), ReplacementTransform(self.tag, words))
        self.wait(theme.READ)
        self.tag = words

    def show_family(self) -> None:
        self.beat("family")
        nums = self.n
        m, window = nums.shown_bits, nums.window
        xs = np.linspace(0.0, window, ROW_SAMPLES)
        self.row_xs = xs
        rows = VGroup()
        self.rows: list[WavePlot] = []
        self.fundamentals = VGroup()
        self.names = VGroup()
        self.right_tags = VGroup()
        for k in range(m):
            plot = WavePlot(*self.size("row", beside=0.0), window, 1.35)
            square = plot.curve(xs, pm.square_wave(xs, k), theme.MUTED, 1.5, 0.6)
            smooth = plot.curve(xs, pm.fourier_partial_sum(xs, k, 1), series(k))
            name = self.words.label("bit", theme.LABEL_SIZE, series(k), k=k)
            period = number_text(nums.family_periods[k])
            tag = self.words.label("period", theme.LABEL_SIZE, theme.MUTED, period=period)
            self.beside_row(plot, name, LEFT)
            self.beside_row(plot, tag, RIGHT)
            rows.add(VGroup(plot, square, smooth, name, tag))
            self.rows.append(plot)
            self.fundamentals.add(smooth)
            self.names.add(name)
            self.right_tags.add(tag)
        rows.arrange(DOWN, buff=self.stage.layout.rows_buff)
        for row in rows[1:]:  # line the plots up whatever the label widths
            row.shift((rows[0][0].get_x() - row[0].get_x()) * RIGHT)
        footer = VGroup()
        if nums.n_bits > m:
            footer = self.words.label("more_bits", theme.SMALL_SIZE, shown=m, total=nums.n_bits)
            footer.next_to(rows, DOWN, buff=0.3)
        self.family = VGroup(rows, footer)
        self.stage.fit(self.family, 1.0, self.stage.layout.family_share)
        self.family.move_to(self.stage.layout.family_lift * UP)
        self.play(FadeOut(self.board), FadeOut(self.square), FadeOut(self.tag), FadeOut(self.wave))
        self.play(FadeIn(self.family), run_time=theme.NORMAL)
        self.wait(theme.READ)
        self.family_rows = rows

    def show_slide(self) -> None:
        """Four beats, one change each: tidy the waves, start at ω = 1, the base's ladder,
        the cosine partner."""
        self.beat("tidy")
        nums = self.n
        R = nums.pairs
        xs = self.row_xs
        p = self.params
        t = ValueTracker(0.0)

        def omegas() -> np.ndarray:
            return pm.ladder_path(R, p.d_model, p.base, p.variant, t.get_value())

        def waves(i: int, which: int):
            def draw():
                w = pm.pair_waves(xs, omegas())[which][:, i]
                return self.rows[i].curve(
                    xs, w, series(i), 3 if which == 0 else 2.5, 1 - 0.55 * which
                )

            return draw

        # The plain sin at each bit's own speed (the 4/π and the sign dropped), with its cos partner.
        sines = VGroup(*[always_redraw(waves(i, 0)) for i in range(R)])
        cosines = VGroup(*[always_redraw(waves(i, 1)) for i in range(R)])
        extra = VGroup(*self.family_rows[R:])
        kept = self.family_rows[:R]
        squares = VGroup(*[row[1] for row in kept])
        plots = VGroup(*[row[0] for row in kept])
        flip = self._slide_flip()
        legend, notes, keys = self._slide_keys()
        reasons = self._slide_reasons()
        header, drop = self._place_header(flip, keys, kept, reasons)
        moving = VGroup(plots, *self.fundamentals[:R], *self.names[:R], *self.right_tags[:R])
        # Unpack the family so every part below has exactly one animation.
        self.remove(self.family)
        self.add(moving, squares, extra, self.family[1])
        self.play(
            moving.animate.shift(drop * DOWN),
            FadeOut(squares, shift=drop * DOWN),
            FadeOut(extra, shift=drop * DOWN),
            FadeOut(self.family[1]),
            FadeIn(flip[0]),
            run_time=theme.SHORT,
        )
        self.remove(moving)
        self.add(plots, *self.fundamentals[:R], *self.names[:R], *self.right_tags[:R])
        names = self._pair_names()
        readouts = self._omega_readouts(omegas)
        # The flip: each fundamental turns over and shrinks from 4/π to 1, at its own speed.
        self.play(
            *[Transform(self.fundamentals[i], sines[i].copy().clear_updaters()) for i in range(R)],
            *[ReplacementTransform(self.names[i], names[i]) for i in range(R)],
            FadeOut(VGroup(*self.right_tags[:R])),
            FadeIn(readouts),
            FadeIn(legend),
            run_time=theme.NORMAL,
        )
        self.remove(*self.fundamentals[:R])
        self.add(sines)
        if len(notes):
            self.play(FadeIn(notes), run_time=theme.SHORT)
        self.wait(theme.READ)

        self._slide_start(t, reasons)
        self._slide_ladder(t, flip, reasons, sines, readouts)
        self._slide_cosine(reasons, cosines)
        sines.clear_updaters()
        cosines.clear_updaters()
        readouts.clear_updaters()
        self.slide_group = VGroup(sines, cosines, names, readouts, header, notes, plots, reasons[2])

    def _slide_flip(self) -> VGroup:
        """The two formula lines: the fundamental becoming sin(ω_i p), and ω_i itself."""
        nums = self.n
        # On screen, the fundamental's sign and 4/π go: -(4/π)·sin(πp/2^i) becomes sin(ω_i p).
        sign = "-" if nums.fundamental_scale < 0 else ""
        return self.stack_if_wide(
            VGroup(
                formula(
                    rf"{sign}\frac{{4}}{{\pi}}\,\sin(\pi p/2^{{i}})"
                    r"\;\longrightarrow\;\sin(\omega_i\,p)",
                    size=theme.HEADING_SIZE * 1.1,
                ),
                formula(
                    rf"\omega_i = {number_text(nums.base)}^{{-{self.exponent()}}}",
                    size=theme.HEADING_SIZE * 1.1,
                    color=theme.ACCENT,
                ),
            ),
            buff=0.6,
        )

    def _slide_keys(self) -> tuple[Mobject, VGroup, Mobject]:
        """(legend, notes, keys): keys is the legend with the notes, if any, beside or under it."""
        R = self.n.pairs
        p = self.params
        legend = self.words.label("legend", theme.SMALL_SIZE, theme.MUTED)
        notes = VGroup()
        if p.d_model // 2 > R:
            notes.add(
                self.words.label("more_pairs", theme.SMALL_SIZE, shown=R, total=p.d_model // 2)
            )
        # The legend, and beside it (or under it) how many pairs of the table the rows show.
        keys = self.stack_if_wide(VGroup(legend, notes), buff=0.6) if len(notes) else legend
        return legend, notes, keys

    def _slide_reasons(self) -> list[Mobject]:
        """Each later beat's reason, one at a time, in one slot under the legend."""
        nums = self.n
        width = self.stage.width()
        return [
            self.words.label("why_start", theme.LABEL_SIZE, theme.ACCENT, max_width=width),
            self.words.label(
                "why_ladder",
                theme.LABEL_SIZE,
                theme.ACCENT,
                max_width=width,
                lap=number_text(round(nums.slowest_lap)),
            ),
            formula(
                r"\sin\omega(p+k) = \sin\omega p\,\cos\omega k + \cos\omega p\,\sin\omega k",
                size=theme.HEADING_SIZE,
                color=theme.ACCENT,
            ),
        ]

    def _place_header(
        self, flip: VGroup, keys: Mobject, kept: VGroup, reasons: list[Mobject]
    ) -> tuple[VGroup, float]:
        """The formulas and keys above the rows with room for a reason under them, and how
        far everything drops so that they stay on stage."""
        slot = max(r.height for r in reasons)
        header = VGroup(flip, keys).arrange(DOWN, buff=0.2)
        header.next_to(kept, UP, buff=0.45 + slot)
        # Where the rows reach the top of the stage, lower them (the footer leaves room below).
        drop = max(0.0, header.get_top()[1] - (self.stage.bottom() + self.stage.height()))
        header.shift(drop * DOWN)
        for reason in reasons:
            reason.next_to(header, DOWN, buff=0.2)
        return header, drop

    def _pair_names(self) -> VGroup:
        R = self.n.pairs
        return VGroup(
            *[
                self.words.label("pair", theme.LABEL_SIZE, series(i), i=i).move_to(
                    self.names[i], aligned_edge=LEFT if self.stage.layout.stacked else RIGHT
                )
                for i in range(R)
            ]
        )

    def _omega_readouts(self, omegas: Callable[[], np.ndarray]) -> VGroup:
        """Beside each row, its ω as it changes."""
        nums = self.n
        R = nums.pairs
        # Enough decimals that the slowest pair never reads as zero.
        places = int(np.clip(np.ceil(-np.log10(min(nums.omega_pe))) + 1, 3, 6))
        readouts = VGroup()
        for i in range(R):
            name = self.words.label("omega", theme.LABEL_SIZE, theme.FOREGROUND)
            value = LiveNumber(omegas()[i], num_decimal_places=places, font_size=theme.LABEL_SIZE)
            value.add_updater(lambda m, i=i: m.set_value(omegas()[i]))
            readout = VGroup(name, value.next_to(name, RIGHT, buff=0.15))
            readouts.add(self.beside_row(self.rows[i], readout, RIGHT))
        return readouts

    def _slide_start(self, t: ValueTracker, reasons: list[Mobject]) -> None:
        self.beat("start")  # every speed divided by π: the fastest turns 1 radian a position
        self.play(FadeIn(reasons[0], shift=0.1 * UP), run_time=theme.SHORT)
        self.while_saying("slow", t.animate.set_value(1.0), run_time=3.0, rate_func=linear)
        self.wait(theme.READ)

    def _slide_ladder(
        self,
        t: ValueTracker,
        flip: VGroup,
        reasons: list[Mobject],
        sines: VGroup,
        readouts: VGroup,
    ) -> None:
        R = self.n.pairs
        self.beat("ladder")  # halving gives way to one fixed factor, set by the base and d
        self.play(
            FadeIn(flip[1]), ReplacementTransform(reasons[0], reasons[1]), run_time=theme.SHORT
        )
        # halving over the many pairs of a wide model would leave the slowest ones frozen
        slowest = VGroup(sines[R - 1], readouts[R - 1])
        self.while_saying("frozen", Circumscribe(slowest, color=theme.ACCENT), run_time=2.0)
        self.while_saying("ladder", t.animate.set_value(2.0), run_time=4.0, rate_func=linear)
        self.wait(theme.READ)

    def _slide_cosine(self, reasons: list[Mobject], cosines: VGroup) -> None:
        self.beat("cosine")  # the partner that makes a fixed map from p to p+k possible
        self.play(ReplacementTransform(reasons[1], reasons[2]), run_time=theme.NORMAL)
        self.play(FadeIn(cosines), run_time=theme.NORMAL)
        self.wait(theme.READ)

    def heat_map(self, height: float) -> tuple[VGroup, PixelMap]:
        """The PE table as a titled, labelled heat map whose image is `height` tall, at the top."""
        table = np.asarray(self.n.table)
        positions, dims = table.shape
        width = self.size("heat", beside=1.9)[0]
        image = PixelMap(table.T, width, height)  # dims down, positions across
        title = self.words.label(
            "heat_title",
            theme.BODY_SIZE,
            max_width=self.stage.width(),
            positions=positions,
            dims=dims,
        )
        first = self.words.label("dim_first", theme.SMALL_SIZE, theme.MUTED)
        first.next_to(image, LEFT, buff=0.15).align_to(image, UP)
        last = self.words.label("dim_last", theme.SMALL_SIZE, theme.MUTED, d=dims - 1)
        last.next_to(image, LEFT, buff=0.15).align_to(image, DOWN)
        start = self.words.text("0", theme.SMALL_SIZE, theme.MUTED).next_to(image, DOWN, buff=0.12)
        start.align_to(image, LEFT)
        end = self.words.text(str(positions - 1), theme.SMALL_SIZE, theme.MUTED)
        end.next_to(image, DOWN, buff=0.12).align_to(image, RIGHT)
        axis = self.words.label("position", theme.SMALL_SIZE, theme.MUTED).next_to(
            image, DOWN, 0.12
        )
        scale = ColorScale(-1.0, 1.0, height=height * 0.8).next_to(image, RIGHT, buff=0.4)
        labels = VGroup(first, last, start, end, axis, scale)
        title.next_to(VGroup(image, labels), UP, buff=0.3)
        group = VGroup(title, image, labels)
        self.stage.fit(group, 1.0, self.stage.layout.heat_share)
        group.to_edge(UP, buff=theme.MARGIN + 0.1)
        return group, image

    def show_heatmap(self) -> None:
        self.beat("heatmap")
        self.heat_height = self.size("heat", beside=1.9)[1]
        self.heat_group, image = self.heat_map(self.heat_height)
        title, labels = self.heat_group[0], self.heat_group[2]

        sweep = ValueTracker(0.0)

        def veil():
            hidden = max(image.width * (1 - sweep.get_value()), 1e-3)
            cover = Rectangle(width=hidden, height=image.height + 0.04, stroke_width=0)
            cover.set_fill(theme.BACKGROUND, 1)
            return cover.move_to(image).align_to(image, RIGHT)

        cover = always_redraw(veil)
        self.play(FadeOut(self.slide_group), run_time=theme.SHORT)
        self.add(image, cover)
        self.play(FadeIn(title), FadeIn(labels), run_time=theme.SHORT)
        self.play(sweep.animate.set_value(1.0), run_time=3.0, rate_func=linear)
        self.remove(cover)
        self.wait(theme.READ)

    def show_formula(self) -> None:
        self.beat("formula")
        nums = self.n
        d, base = nums.d_model, number_text(nums.base)
        if nums.layout == "interleaved":
            dims = (r"2i", r"2i+1")
        else:
            dims = (r"i", rf"i+{d // 2}")
        lines = self.stack_if_wide(
            VGroup(
                *[
                    formula(
                        rf"PE(p,\,{dim}) = \{fn}\!\left(p \,/\, {base}^{{{self.exponent()}}}\right)",
                        size=theme.HEADING_SIZE * 1.1,
                    )
                    for dim, fn in zip(dims, ("sin", "cos"), strict=True)
                ]
            ),
            buff=0.8,
        )
        self.stage.fit(lines)
        width = self.stage.width()
        terms = self.words.label(
            "define", theme.LABEL_SIZE, theme.ACCENT, max_width=width, last=nums.pair_last, d=d
        )
        circle = self.words.label("partner", theme.LABEL_SIZE, max_width=width)
        once = self.words.label("partner_once", theme.LABEL_SIZE, max_width=width)
        notes = VGroup(terms, circle, once).arrange(DOWN, buff=0.15)
        block = VGroup(lines, notes).arrange(DOWN, buff=0.3)
        # Make room below the heat map: shrink its image (never its labels) if the block needs it.
        group = self.heat_group
        room = group.get_top()[1] - self.stage.bottom() - 0.3 - block.height
        other = group.height - group[1].height
        height = min(self.heat_height, room - other)
        if height < self.heat_height:
            smaller, _ = self.heat_map(height)
            self.play(Transform(group, smaller), run_time=theme.SHORT)
        block.next_to(group, DOWN, buff=0.3)
        self.play(FadeIn(lines, shift=0.2 * UP), run_time=theme.NORMAL)
        self.play(FadeIn(terms), run_time=theme.SHORT)
        self.play(FadeIn(circle), run_time=theme.SHORT)
        self.play(FadeIn(once), run_time=theme.SHORT)
        self.wait(theme.LONG)
