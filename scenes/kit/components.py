"""Reusable mobjects of the lesson, all drawn in the theme's language."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

import numpy as np
from manim import (
    DOWN,
    LEFT,
    ORIGIN,
    RIGHT,
    UP,
    AnnularSector,
    Arrow,
    Circle,
    DashedLine,
    DecimalNumber,
    Dot,
    Line,
    MathTex,
    Mobject,
    Rectangle,
    RoundedRectangle,
    Square,
    Text,
    ValueTracker,
    VGroup,
    VMobject,
    always_redraw,
    interpolate_color,
)

import pe_math as pm
from pe_math import Params
from scenes.kit import theme
from scenes.kit.copies import text_like


def text(content: str, size: float = theme.BODY_SIZE, color=theme.FOREGROUND, **kwargs) -> Text:
    """Text in the lesson font (Latin and Han alike), one glyph per character.

    Ligatures are off: the font would join "fi" or "ff" into one glyph, and code that
    colours a word by counting characters would then colour the wrong glyphs.
    """
    return text_like(
        content, font=theme.FONT, font_size=size, color=color, disable_ligatures=True, **kwargs
    )


class ThemeGlyph(Text):
    """One character of a live number, in the theme font (a true minus, not a hyphen)."""

    def __init__(self, string: str, **kwargs) -> None:
        kwargs.pop("font", None)
        super().__init__(
            string.replace("-", "\u2212"), font=theme.FONT, disable_ligatures=True, **kwargs
        )


class LiveNumber(DecimalNumber):
    """A number that updates on screen, set in the theme font beside its words.

    Digits sit in slots as wide as a "0", so a counting number does not jitter.
    `font_size` is that of the words it stands with (theme sizes, no TeX factor).
    """

    # Manim caches glyphs by string alone, across TeX and Text numbers: keep our own.
    _glyphs: ClassVar[dict[tuple[str, str], ThemeGlyph]] = {}  # by (font, string)

    def __init__(self, number: float = 0, **kwargs) -> None:
        kwargs.setdefault("color", theme.FOREGROUND)  # Manim's own default is white
        super().__init__(number, mob_class=ThemeGlyph, **kwargs)

    def _string_to_mob(self, string: str, mob_class=None, **kwargs):
        if mob_class not in (None, ThemeGlyph):  # e.g. TeX's \dots
            return super()._string_to_mob(string, mob_class, **kwargs)
        key = (theme.FONT, string)  # a process may draw jobs in other fonts
        if key not in self._glyphs:
            self._glyphs[key] = ThemeGlyph(string, **kwargs)
        mob = self._glyphs[key].copy()
        mob.font_size = self._font_size
        return mob

    def _set_submobjects_from_number(self, number: float) -> None:
        super()._set_submobjects_from_number(number)  # runs on every update: no new Text here
        num_string = self._get_num_string(number)
        slot = self._string_to_mob("0").width
        gap = 0.08 * slot
        x = 0.0
        # Past the number's characters comes the unit (e.g. a TeX degree sign), at its width.
        chars = list(num_string) + [""] * (len(self.submobjects) - len(num_string))
        for glyph, char in zip(self.submobjects, chars, strict=False):
            width = slot if char.isdigit() else glyph.width
            glyph.set_x(x + width / 2)
            x += width + gap
        self.move_to(ORIGIN)
        self.initial_height = self.height


class VectorColumn(VGroup):
    """A column vector: one boxed number per entry, an optional label above."""

    def __init__(
        self,
        values: Sequence[float],
        digits: int = 2,
        color=theme.FOREGROUND,
        label: str | None = None,
        cell: float = 0.5,
        size: float = theme.LABEL_SIZE,
        horizontal: bool = False,
    ) -> None:
        super().__init__()
        self.values = [float(v) for v in values]
        self.cells = VGroup()
        for v in self.values:
            num = text(theme.fmt(v, digits), size=size, color=color)
            box = Rectangle(
                width=max(cell * 1.6, num.width + 0.2),
                height=cell,
                stroke_color=color,
                stroke_width=1.5,
            )
            self.cells.add(VGroup(box, num.move_to(box)))
        self.cells.arrange(RIGHT if horizontal else DOWN, buff=0)
        self.add(self.cells)
        self.label = None
        if label is not None:
            self.label = text(label, size=size, color=color).next_to(self.cells, UP, buff=0.15)
            self.add(self.label)


class HeatGrid(VGroup):
    """A matrix as coloured cells, optionally with values, row/column labels and a colour scale."""

    def __init__(
        self,
        matrix: np.ndarray,
        vmin: float = -1.0,
        vmax: float = 1.0,
        cell: float = 0.5,
        colormap: Callable[[float, float, float], object] = theme.diverging,
        digits: int | None = None,
        row_labels: Sequence[str] | None = None,
        col_labels: Sequence[str] | None = None,
        size: float = theme.SMALL_SIZE,
        cell_width: float | None = None,
        stroke_width: float = 0.5,
    ) -> None:
        super().__init__()
        m = np.atleast_2d(np.asarray(matrix, dtype=float))
        self.matrix = m
        w = cell_width if cell_width is not None else cell
        self.cells = VGroup()
        for i in range(m.shape[0]):
            for j in range(m.shape[1]):
                fill = colormap(m[i, j], vmin, vmax)
                sq = Rectangle(
                    width=w,
                    height=cell,
                    stroke_width=stroke_width,
                    stroke_color=theme.BACKGROUND,
                    fill_color=fill,
                    fill_opacity=1,
                )
                sq.move_to(np.array([j * w, -i * cell, 0]))
                if digits is not None and np.isfinite(m[i, j]):
                    value = text(theme.fmt(m[i, j], digits), size=size, color=theme.ink_on(fill))
                    sq = VGroup(sq, value.move_to(sq))
                self.cells.add(sq)
        self.add(self.cells)
        self.row_labels = VGroup()
        self.col_labels = VGroup()
        if row_labels is not None:
            for i, lab in enumerate(row_labels):
                self.row_labels.add(
                    text(lab, size=size, color=theme.MUTED).next_to(
                        self.cell(i, 0), LEFT, buff=0.12
                    )
                )
            self.add(self.row_labels)
        if col_labels is not None:
            for j, lab in enumerate(col_labels):
                label = text(lab, size=size, color=theme.MUTED)
                label.scale_to_fit_width(min(label.width, 0.92 * w))  # a long word fits its column
                self.col_labels.add(label.next_to(self.cell(0, j), UP, buff=0.12))
            self.add(self.col_labels)

    def cell(self, i: int, j: int):
        return self.cells[i * self.matrix.shape[1] + j]

    def row(self, i: int) -> VGroup:
        n = self.matrix.shape[1]
        return VGroup(*self.cells[i * n : (i + 1) * n])

    def column(self, j: int) -> VGroup:
        n = self.matrix.shape[1]
        return VGroup(*self.cells[j::n])


class ColorScale(VGroup):
    """A vertical colour bar from vmin to vmax with end labels."""

    def __init__(
        self,
        vmin: float,
        vmax: float,
        height: float = 3.0,
        colormap=theme.diverging,
        steps: int = 24,
        digits: int = 1,
    ) -> None:
        super().__init__()
        bar = VGroup(
            *[
                Rectangle(
                    width=0.25,
                    height=height / steps,
                    stroke_width=0,
                    fill_color=colormap(vmin + (vmax - vmin) * (k + 0.5) / steps, vmin, vmax),
                    fill_opacity=1,
                )
                for k in range(steps)
            ]
        ).arrange(UP, buff=0)
        top = text(theme.fmt(vmax, digits), size=theme.SMALL_SIZE).next_to(bar, UP, buff=0.1)
        bottom = text(theme.fmt(vmin, digits), size=theme.SMALL_SIZE).next_to(bar, DOWN, buff=0.1)
        self.add(bar, top, bottom)


class BitRow(VGroup):
    """n bit cells, most significant on the left; cell k shows bit k of the value."""

    def __init__(self, bits: Sequence[float], cell: float = 0.7, on_color=theme.ACCENT) -> None:
        super().__init__()
        self.on_color = on_color
        self.cells = VGroup()
        for _ in bits:
            sq = Square(side_length=cell, stroke_color=theme.MUTED, stroke_width=2)
            self.cells.add(VGroup(sq, text("0", size=theme.BODY_SIZE).move_to(sq)))
        self.cells.arrange(RIGHT, buff=0.12)
        self.add(self.cells)
        self.set_bits(bits)

    def bit_cell(self, k: int):
        """The cell of bit k (bit 0 = least significant = rightmost)."""
        return self.cells[len(self.cells) - 1 - k]

    def set_bits(self, bits: Sequence[float]) -> BitRow:
        for k, b in enumerate(bits):
            sq, digit = self.bit_cell(k)
            on = bool(b)
            sq.set_fill(self.on_color if on else theme.BACKGROUND, opacity=0.9 if on else 0)
            lit = interpolate_color(theme.BACKGROUND, self.on_color, 0.9)  # as it is drawn
            digit.become(
                text(
                    "1" if on else "0",
                    size=theme.BODY_SIZE,
                    color=theme.ink_on(lit) if on else theme.MUTED,
                ).move_to(sq)
            )
        return self


class ClockFace(VGroup):
    """A clock dial; hand angles run clockwise from 12 o'clock, so the tip is (sin θ, cos θ)."""

    def __init__(self, radius: float = 1.0, color=theme.ACCENT, ticks: int = 12) -> None:
        super().__init__()
        self.radius = radius
        self.color = color
        self.dial = Circle(radius=radius, stroke_color=theme.MUTED, stroke_width=2)
        self.ticks = VGroup(
            *[
                Line(
                    radius * 0.85 * _dir(2 * np.pi * t / ticks),
                    radius * _dir(2 * np.pi * t / ticks),
                    stroke_color=theme.MUTED,
                    stroke_width=1.5,
                )
                for t in range(ticks)
            ]
        )
        self.add(self.dial, self.ticks)

    def tip(self, angle: float) -> np.ndarray:
        # the dial's current size, so a scaled face keeps hands that reach its rim
        return self.dial.get_center() + self.dial.width / 2 * 0.9 * _dir(angle)

    def hand(self, angle_of: Callable[[], float]) -> VGroup:
        """A hand that follows a function of a tracker, never accumulated time.

        Every frame its line and tip are set afresh from the angle (no new mobjects, as
        always_redraw would make): the same angle draws the same hand whatever came before.
        """
        tip = self.tip(angle_of())
        line = Line(self.dial.get_center(), tip, stroke_color=self.color, stroke_width=5)
        dot = Dot(tip, radius=0.05, color=self.color)
        outline = dot.points - tip

        def follow(_: Mobject) -> None:
            tip = self.tip(angle_of())
            line.set_points_by_ends(self.dial.get_center(), tip)
            dot.set_points(outline + tip)

        return VGroup(line, dot).add_updater(follow, call_updater=True)


def _dir(angle: float) -> np.ndarray:
    return np.array([np.sin(angle), np.cos(angle), 0.0])


def hand_angle(params: Params, position: float, i: int) -> float:
    """Clock hand i's angle at a position (fractional while a tracker runs), from pe_math."""
    return float(pm.clock_angles(position, params.d_model, params.base, params.variant)[i])


def formula(tex: str, size: float = 40, color=theme.FOREGROUND, **values: str) -> MathTex:
    """A LaTeX formula with `{name}` slots filled from computed values (use {{ }} for TeX braces).
    A value's Unicode minus, as theme.fmt writes it, becomes the ASCII one TeX reads."""
    ascii_values = {k: str(v).replace("−", "-") for k, v in values.items()}
    return MathTex(tex.format(**ascii_values) if values else tex, font_size=size, color=color)


def panel(width: float, height: float, color=theme.MUTED) -> RoundedRectangle:
    """A quiet frame that groups a part of the stage."""
    return RoundedRectangle(
        width=width, height=height, corner_radius=0.15, stroke_color=color, stroke_width=1.5
    )


def arrow(start, end, color=theme.FOREGROUND, **kwargs) -> Arrow:
    return Arrow(
        start,
        end,
        buff=0,
        color=color,
        stroke_width=4,
        max_tip_length_to_length_ratio=0.15,
        **kwargs,
    )


def spread_indices(n: int, k: int) -> list[int]:
    """At most k indices of range(n), evenly spread, always including the first and the last."""
    if n <= 0 or k <= 0:
        return []
    if k == 1:
        return [0]
    return sorted({int(i) for i in np.round(np.linspace(0, n - 1, min(k, n))).astype(int)})


def compact(x: float) -> str:
    """A short rendering of a magnitude such as ω, θ or a period: 3 significant digits, 6,283."""
    x = float(x)
    if abs(x) >= 100:
        return f"{x:,.0f}".replace("-", "−")
    s = f"{x:.3g}"
    if "e" in s:
        mantissa, exp = s.split("e")
        s = f"{mantissa}e{int(exp)}"
    return s.replace("-", "−")


def bind_number(number: DecimalNumber, value_of: Callable[[], float]) -> DecimalNumber:
    """Keep `number` showing value_of(), redrawing its digits only when the shown text changes.

    DecimalNumber.set_value rebuilds every glyph, so updating it each frame is slow.
    """
    shown: dict[str, str | None] = {"text": None}

    def update(m: DecimalNumber) -> None:
        value = value_of()
        text = f"{value:+.{m.num_decimal_places}f}"
        if text != shown["text"]:
            shown["text"] = text
            m.set_value(value)

    number.add_updater(update)
    return number


class WavePlot(VGroup):
    """A plot area mapping (position, value) to the stage; curves are built from sample arrays."""

    def __init__(self, width: float, height: float, x_max: float, y_max: float) -> None:
        super().__init__()
        self.area = Rectangle(width=width, height=height, stroke_width=0)
        self.x_max, self.y_max = x_max, y_max
        self.axis = DashedLine(self.at(0, 0), self.at(x_max, 0), dash_length=0.08)
        self.axis.set_stroke(theme.MUTED, 1.5, opacity=0.6)
        self.add(self.area, self.axis)

    def at(self, x: float, y: float) -> np.ndarray:
        a = self.area
        return (
            a.get_left() + RIGHT * x * a.width / self.x_max + UP * y * a.height / (2 * self.y_max)
        )

    def curve(self, xs: np.ndarray, ys: np.ndarray, color, width: float = 3, opacity=1.0):
        a = self.area
        pts = (
            a.get_left()
            + np.outer(np.asarray(xs) * a.width / self.x_max, RIGHT)
            + np.outer(np.asarray(ys) * a.height / (2 * self.y_max), UP)
        )
        return VMobject().set_points_as_corners(pts).set_stroke(color, width, opacity)


class PixelMap(VGroup):
    """A matrix as a block of coloured cells, one VMobject per colour level.

    Thousands of cells cost a few dozen paths, and no raster image is involved.
    """

    def __init__(
        self,
        matrix: np.ndarray,
        width: float,
        height: float,
        vmin: float = -1.0,
        vmax: float = 1.0,
        colormap=theme.diverging,
        levels: int = 65,
    ) -> None:
        super().__init__()
        m = np.asarray(matrix, dtype=float)
        rows, cols = m.shape
        cw, ch = width / cols, height / rows
        # overlap, so the anti-aliased edges of neighbouring colours leave no seam
        pad = 0.08 * min(cw, ch)
        level = np.rint(np.clip((m - vmin) / (vmax - vmin), 0, 1) * (levels - 1)).astype(int)
        thirds = np.array([0.0, 1 / 3, 2 / 3, 1.0])[None, None, :, None]
        for q in np.unique(level):
            i, j = np.nonzero(level == q)
            x0, x1 = j * cw - width / 2 - pad, (j + 1) * cw - width / 2 + pad
            y0, y1 = height / 2 - (i + 1) * ch - pad, height / 2 - i * ch + pad
            z = np.zeros_like(x0)
            corners = np.stack(
                [
                    np.stack([x0, y1, z], -1),
                    np.stack([x1, y1, z], -1),
                    np.stack([x1, y0, z], -1),
                    np.stack([x0, y0, z], -1),
                ],
                axis=1,
            )  # (cells, 4, 3)
            ends = np.roll(corners, -1, axis=1)
            curves = corners[:, :, None, :] + thirds * (ends - corners)[:, :, None, :]
            color = colormap(vmin + (vmax - vmin) * q / (levels - 1), vmin, vmax)
            cells = VMobject(stroke_width=0, fill_color=color, fill_opacity=1)
            cells.set_points(curves.reshape(-1, 3))
            self.add(cells)


class Mark(VGroup):
    """A tick (a requirement met) or a cross (missed), drawn with lines so that no font
    has to carry the glyph."""

    def __init__(self, ok: bool, size: float = 0.3) -> None:
        h = size / 2
        if ok:
            strokes = [VMobject().set_points_as_corners([[-h, 0, 0], [-h / 3, -h, 0], [h, h, 0]])]
        else:
            strokes = [Line([-h, -h, 0], [h, h, 0]), Line([-h, h, 0], [h, -h, 0])]
        color = theme.WORD_C if ok else theme.WORD_B
        super().__init__(*[s.set_stroke(color, width=5) for s in strokes])
        self.ok = ok


class Checklist(VGroup):
    """Requirement names, each after its mark (or its number while nothing is judged yet),
    in `cols` columns that read downwards."""

    def __init__(
        self,
        names: Sequence[Mobject],
        checks: Sequence[bool] | None = None,
        cols: int = 1,
        mark_size: float = 0.3,
    ) -> None:
        rows = VGroup()
        for i, name in enumerate(names):
            head = text(f"{i + 1}", size=theme.LABEL_SIZE, color=theme.ACCENT)
            if checks is not None:
                head = Mark(checks[i], mark_size)
            rows.add(VGroup(head, name).arrange(RIGHT, buff=0.25))
        n_rows = -(-len(rows) // cols)
        rows.arrange_in_grid(
            rows=n_rows, cols=cols, flow_order="dr", col_alignments="l" * cols, buff=(0.6, 0.2)
        )
        super().__init__(*rows)
        self.marks = [row[0] for row in rows]


class Plot(VGroup):
    """A plot area with a left and a bottom axis, mapping (x, y) in the given ranges to
    the stage. Log scales are the caller's: pass log10 of the values and label the ticks."""

    def __init__(
        self,
        width: float,
        height: float,
        x_range: tuple[float, float],
        y_range: tuple[float, float],
    ) -> None:
        super().__init__()
        self.area = Rectangle(width=width, height=height, stroke_width=0)
        self.x_range, self.y_range = x_range, y_range
        corner = self.area.get_corner(DOWN + LEFT)
        self.axes = VGroup(
            Line(corner, self.area.get_corner(DOWN + RIGHT)),
            Line(corner, self.area.get_corner(UP + LEFT)),
        ).set_stroke(theme.MUTED, 2)
        self.add(self.area, self.axes)

    def at(self, x: float, y: float) -> np.ndarray:
        (x0, x1), (y0, y1) = self.x_range, self.y_range
        a = self.area
        return (
            a.get_corner(DOWN + LEFT)
            + RIGHT * (x - x0) / (x1 - x0) * a.width
            + UP * (y - y0) / (y1 - y0) * a.height
        )

    def level(self, y: float, color=theme.MUTED) -> DashedLine:
        """A dashed line across the plot at height y."""
        x0, x1 = self.x_range
        return DashedLine(self.at(x0, y), self.at(x1, y), dash_length=0.1).set_stroke(color, 2)

    def upright(self, x: float, color=theme.MUTED) -> DashedLine:
        """A dashed line up the plot at x."""
        y0, y1 = self.y_range
        return DashedLine(self.at(x, y0), self.at(x, y1), dash_length=0.1).set_stroke(color, 2)

    def curve(self, xs, ys, color, width: float = 3) -> VMobject:
        points = [self.at(x, y) for x, y in zip(xs, ys, strict=True)]
        return VMobject().set_points_as_corners(points).set_stroke(color, width)

    def y_ticks(self, values: Sequence[float], labels: Sequence[str], size: float) -> VGroup:
        """Tick labels left of the axis at the given y values."""
        x0 = self.x_range[0]
        return VGroup(
            *[
                text(label, size=size, color=theme.MUTED).next_to(self.at(x0, y), LEFT, buff=0.12)
                for y, label in zip(values, labels, strict=True)
            ]
        )

    def x_ticks(self, values: Sequence[float], labels: Sequence[str], size: float) -> VGroup:
        """Tick labels under the axis at the given x values."""
        y0 = self.y_range[0]
        return VGroup(
            *[
                text(label, size=size, color=theme.MUTED).next_to(self.at(x, y0), DOWN, buff=0.12)
                for x, label in zip(values, labels, strict=True)
            ]
        )


def power_label(exponent: int) -> str:
    """10**exponent written short: 1, 10, 100, 1k, 10k, 100k, 1M, 10M."""
    value = 10**exponent
    for unit, size in (("M", 10**6), ("k", 10**3)):
        if value >= size:
            return f"{value // size}{unit}"
    return str(value)


class AngleDial(VGroup):
    """A dial for one RoPE pair: angles run counter-clockwise from 3 o'clock, as the pair
    turns. `sweep(start_of, end_of, color)` is a band between two angles (radians) that
    redraws from tracker functions; `hand(angle_of, color)` a hand. Both redraw every
    frame, so they fade with the tracker `shown` (0 to 1), never with FadeIn."""

    def __init__(self, radius: float = 1.0) -> None:
        super().__init__()
        self.radius = radius
        self.shown = ValueTracker(0.0)
        self.dial = Circle(radius=radius, stroke_color=theme.MUTED, stroke_width=2)
        self.add(self.dial)

    def _scale(self) -> float:
        return self.dial.width / 2 / self.radius

    def sweep(self, start_of: Callable[[], float], end_of: Callable[[], float], color):
        def band() -> Mobject:
            r = self.radius * self._scale()
            start = start_of()
            angle = min(end_of() - start, 2 * np.pi - 1e-3)
            return AnnularSector(
                inner_radius=0.55 * r,
                outer_radius=r,
                angle=max(angle, 1e-4),
                start_angle=start,
                fill_color=color,
                fill_opacity=0.55 * self.shown.get_value() if angle > 1e-3 else 0.0,
                stroke_width=0,
            ).move_arc_center_to(self.dial.get_center())

        return always_redraw(band)

    def hand(self, angle_of: Callable[[], float], color) -> VGroup:
        def draw() -> VGroup:
            centre = self.dial.get_center()
            r = self.radius * self._scale()
            tip = centre + 0.95 * r * np.array([np.cos(angle_of()), np.sin(angle_of()), 0.0])
            return VGroup(
                Line(centre, tip, stroke_color=color, stroke_width=4),
                Dot(tip, radius=0.05, color=color),
            ).set_opacity(self.shown.get_value())

        return always_redraw(draw)
