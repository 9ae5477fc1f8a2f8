"""rope-rotation: RoPE turns q and k instead of adding a position vector (the one chapter
that says how; relative-shift and variants point here).

One frequency pair is drawn as a 2-d plane with the clock-hands scene's axes: the
pair's first dim to the right, its second dim up. q at position m is turned by m·θ
and k at position n by n·θ, counter-clockwise (pe_math.rotation_2d), the opposite
way to the sinusoid's clockwise hands. Shifting both positions turns both arrows
but keeps the (unsigned) angle between them, their lengths and their dot product;
changing n − m changes the dot product.

Before the plane, the chapter says why turning is worth it: an added code splits the score
into four terms (pe_math.additive_example). After the formula, swapping the positions
flips the sign of n − m and changes RoPE's score, where the sinusoid's dot product cannot
tell an offset from its negative. The key vector keeps the name k here; the offset, k in
relative-shift, is always n − m.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from manim import (
    DOWN,
    DR,
    LEFT,
    ORIGIN,
    RIGHT,
    UP,
    UR,
    Arc,
    Circle,
    Create,
    DashedVMobject,
    DecimalNumber,
    FadeIn,
    FadeOut,
    Indicate,
    LaggedStart,
    Line,
    MathTex,
    Mobject,
    SurroundingRectangle,
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
    LiveNumber,
    arrow,
    bind_number,
    compact,
    formula,
    panel,
    spread_indices,
)
from scenes.kit.theme import fmt

MAX_DIALS = 5  # dials in the strip (plus the plane's own pair if the spread misses it)
PLANE_RADIUS = 1.9  # scene units of the longer of q and k
PLANE_MARGIN = 0.8  # around the circle: the axes' overhang and room for the arrow labels
GAP = 0.3  # between the parts of the page
MOVE = 2.5  # seconds for a rotation
# where an arrow's name sits past its tip: (outwards, sideways away from the other arrow),
# the first spot that keeps clear of the axis names and of the other arrow's name
LABEL_SPOTS = (
    (0.45, 0.25),
    (0.45, 0.55),
    (0.75, 0.25),
    (0.45, -0.25),
    (0.75, 0.55),
    (0.45, 0.85),
    (1.05, 0.25),
)


def overlap(a: Mobject, b: Mobject) -> bool:
    """Whether the bounding boxes of a and b overlap."""
    return bool(
        a.get_left()[0] < b.get_right()[0]
        and b.get_left()[0] < a.get_right()[0]
        and a.get_bottom()[1] < b.get_top()[1]
        and b.get_bottom()[1] < a.get_top()[1]
    )


@dataclass(frozen=True)
class Layout:
    """Where the plane, its header, the readouts, the formulas and the strip go in one
    frame shape."""

    break_lines: bool  # long labels break under the stage's width; wide dials close up
    one_slot: bool  # readouts, formulas and strip take turns in one slot under the plane
    body_dir: np.ndarray  # the readouts after the plane (when they have a slot of their own)
    plane_note_size: float  # 16:9: small, to stay one line
    header_buff: float
    header_edge: np.ndarray  # beside the plane, its lines start at one edge
    term_cols: int  # the four terms of an added code, in rows of this many


LAYOUTS = {
    "wide": Layout(
        break_lines=False, one_slot=False, body_dir=RIGHT, plane_note_size=theme.SMALL_SIZE,
        header_buff=0.12, header_edge=ORIGIN, term_cols=4,
    ),
    "tall": Layout(
        break_lines=True, one_slot=False, body_dir=DOWN, plane_note_size=theme.LABEL_SIZE,
        header_buff=0.12, header_edge=ORIGIN, term_cols=2,
    ),
    "square": Layout(
        break_lines=True, one_slot=True, body_dir=RIGHT, plane_note_size=theme.LABEL_SIZE,
        header_buff=0.25, header_edge=LEFT, term_cols=2,
    ),
}  # fmt: skip


@dataclass(frozen=True)
class RopeRotationNumbers:
    """Every number RopeRotation shows, computed by pe_math (JSON-ready)."""

    d_model: int
    pair: int
    pairing: str
    dims: list[int]
    theta: float
    q: list[float]
    k: list[float]
    extra: int
    dials: list[int]
    dial_theta: list[float]
    dial_dims: list[list[int]]
    raw: dict
    start: dict
    shifted: dict
    regapped: dict
    turned: dict
    mixed: dict
    sign: dict
    long_order: int
    lines: dict


def visible_turn(angle: float) -> bool:
    """Whether turning by `angle` (radians) leaves an arrow a degree or more from where it
    was, whole laps aside."""
    off = abs((angle + np.pi) % (2 * np.pi) - np.pi)
    return bool(off >= np.radians(1.0))


def mixed_line(mixed: dict[str, Any]) -> str:
    """Both tokens moved on (a positive shift) or back (a negative one), where the shown
    digits move; else the line without the demonstration."""
    if not mixed["moves"]:
        return "stays"
    return "on" if mixed["shift"] > 0 else "back"


def same_axes(d: int, layout: str, pairing: str) -> bool:
    """Whether RoPE turns the pairs of dims the clocks were drawn from."""
    return bool(np.array_equal(pm.pair_dims(d, layout), pm.pair_dims(d, pairing)))


class RopeRotation(LessonScene, layouts=LAYOUTS):
    """q and k in one RoPE plane: a common shift keeps the score, a new gap changes it."""

    slug: ClassVar[str] = "rope-rotation"

    # ------------------------------------------------------------------ numbers
    @classmethod
    def numbers(cls, params: Params) -> RopeRotationNumbers:
        p = params
        d, base, pairing, pair = p.d_model, p.base, p.rope_pairing, p.rope_pair
        thetas = pm.frequencies(d, base)
        theta = float(thetas[pair])
        q, k = np.asarray(p.rope_q, dtype=float), np.asarray(p.rope_k, dtype=float)
        m, n, s = p.rope_m, p.rope_n, p.rope_shift
        # move k on until it has turned a quarter turn further from q than before
        extra = max(1, int(round(np.pi / 2 / theta)))
        states = {
            "raw": (0, 0),
            "start": (m, n),
            "shifted": (m + s, n + s),
            "regapped": (m + s, n + s + extra),
        }
        dims = pm.pair_dims(d, pairing)[pair]
        # the same q, k placed in the pair's dims of a full d-dim vector (zeros elsewhere)
        q_full, k_full = np.zeros(d), np.zeros(d)
        q_full[dims], k_full[dims] = q, k
        dials = sorted(set(spread_indices(d // 2, MAX_DIALS)) | {pair})
        out: dict[str, Any] = {
            "d_model": d,
            "pair": pair,
            "pairing": pairing,
            "dims": dims.tolist(),
            "theta": theta,
            "q": q.tolist(),
            "k": k.tolist(),
            "extra": extra,
            "dials": dials,
            "dial_theta": thetas[dials].tolist(),
            "dial_dims": pm.pair_dims(d, pairing)[dials].tolist(),
        }
        sign = cls.sign_numbers(p, (m + s, n + s + extra), extra, theta)
        # the dial beat shifts both once more from the swapped positions
        states["turned"] = (sign["swapped"][0] + s, sign["swapped"][1] + s)
        for name, (mm, nn) in states.items():
            plane = pm.rope_plane(q, k, mm, nn, theta)
            out[name] = {
                "m": mm,
                "n": nn,
                "q_rot": plane["q_rot"].tolist(),
                "k_rot": plane["k_rot"].tolist(),
                "dot": plane["dot"],
                "angle_deg": float(np.degrees(plane["angle"])),  # signed: the arc's sweep
                "between_deg": float(np.degrees(np.abs(plane["angle"]))),  # shown, in [0, 180]
                "q_norm": plane["q_norm"],
                "k_norm": plane["k_norm"],
                "relative_dot": plane["relative_dot"],
                "full_score": pm.rope_score(q_full, k_full, mm, nn, base, pairing),
                "dial_angles": (mm * thetas[dials]).tolist(),
            }
        out["mixed"] = cls.mixed_numbers(p)
        out["sign"] = sign
        from lesson.registry import REGISTRY  # the registry imports scene modules lazily

        out["long_order"] = REGISTRY["long-context"].order
        out["lines"] = {
            "mixed": mixed_line(out["mixed"]),
            "shift": "turns" if visible_turn(s * theta) else "still",
            "sign": "differ" if out["sign"]["differ"] else "alike",
            "plane": "clock_axes" if same_axes(d, p.layout, pairing) else "own_axes",
            "dials": "many" if d > 2 else "one",
        }
        return RopeRotationNumbers(**out)

    @staticmethod
    def mixed_numbers(p: Params) -> dict[str, Any]:
        """The four terms of an added code's score, for a word at m against one at n, and
        again with both moved on by the shift: the offset stays, the score need not."""
        m, n, s = p.rope_m, p.rope_n, p.rope_shift

        def terms(mm: int, nn: int) -> dict[str, float]:
            return pm.additive_example(
                p.d_model, p.base, mm, nn, p.proj_seed, p.proj_scale, p.layout, p.variant
            )

        before, after = terms(m, n), terms(m + s, n + s)
        # the voice says "from a to b" only where the shown digits differ
        moves = s != 0 and all(
            fmt(before[key], 3) != fmt(after[key], 3) for key in ("position_position", "total")
        )
        said = {
            f"{key}_{when}": fmt(t[key], 3)
            for when, t in (("before", before), ("after", after))
            for key in t
        }
        return {
            "m": m,
            "n": n,
            "shift": s,
            "steps": abs(s),  # said with "on" or "back"
            "gap": n - m,
            "before": before,
            "after": after,
            "moves": moves,
            "said": said,
        }

    @staticmethod
    def sign_numbers(
        p: Params, regapped: tuple[int, int], extra: int, theta: float
    ) -> dict[str, Any]:
        """Swap q's and k's positions so that n − m flips sign: RoPE's score changes, the
        sinusoid's dot product of two codes that far apart does not. From the regapped
        state; where its gap is 0 (nothing to flip), from k moved `extra` further on."""
        m, n = regapped
        gap = n - m if n != m else extra
        there = (m, m + gap)
        swapped = (m + gap, m)
        plus = pm.rope_plane(p.rope_q, p.rope_k, *there, theta)["dot"]
        minus = pm.rope_plane(p.rope_q, p.rope_k, *swapped, theta)["dot"]
        sinusoid = (
            pm.shift_dot(gap, p.d_model, p.base, p.variant),
            pm.shift_dot(-gap, p.d_model, p.base, p.variant),
        )
        return {
            "there": list(there),
            "swapped": list(swapped),
            "moves_first": there != (m, n),
            "gap": gap,
            "plus": plus,
            "minus": minus,
            "sinusoid": list(sinusoid),
            "differ": fmt(plus, 3) != fmt(minus, 3),
            "said": {
                "gap": fmt(gap, 0),
                "minus_gap": fmt(-gap, 0),
                "far": str(abs(gap)),
                "plus": fmt(plus, 3),
                "minus": fmt(minus, 3),
                "sinusoid": fmt(sinusoid[0], 3),
            },
        }

    # ---------------------------------------------------------------- construct
    def construct(self) -> None:
        self.n = self.numbers(self.params)
        self.m_at = ValueTracker(0)
        self.n_at = ValueTracker(0)
        self.title_card()
        self.show_mixing()
        self.show_plane()
        self.shift_both()
        self.change_gap()
        self.keep_norms()
        self.show_formula()
        self.flip_sign()
        self.show_dials()
        self.show_why_it_won()
        self.takeaway(verdict="rope")

    def plane_now(self) -> dict[str, Any]:
        """The pair's plane at the trackers' positions, straight from pe_math."""
        n = self.n
        return pm.rope_plane(n.q, n.k, self.m_at.get_value(), self.n_at.get_value(), n.theta)

    # ------------------------------------------------------------------- layout
    def line_width(self) -> float | None:
        """Outside 16:9 long labels break at a little under the stage's width."""
        return self.stage.width() - 0.6 if self.stage.layout.break_lines else None

    def build_stage(self) -> None:
        self.readouts = self.build_readouts()
        self.strip = self.build_strip()
        self.formulas = self.build_formulas()
        if self.stage.layout.one_slot:
            # The plane with the header beside it, over one slot that shows the readouts,
            # then the formulas, then the strip: the plane gets what the slot leaves.
            slot = VGroup(self.readouts, self.strip, self.formulas)
            self.strip.move_to(self.readouts)
            self.formulas.move_to(self.readouts)
            side = self.stage.height() - slot.height - GAP
            self.plane = self.build_plane(side / 2 - PLANE_MARGIN)
            self.header = self.build_header(self.stage.width() - self.plane.width - GAP)
            top = VGroup(self.plane, self.header).arrange(RIGHT, buff=GAP)
            page = VGroup(top, slot).arrange(DOWN, buff=GAP)
        else:
            self.plane = self.build_plane()
            self.header = self.build_header(self.line_width())
            slot = VGroup(self.readouts, self.strip)
            self.strip.move_to(self.readouts, aligned_edge=UP)
            right = VGroup(slot, self.formulas).arrange(DOWN, buff=0.35)
            body = VGroup(self.plane, right).arrange(self.stage.layout.body_dir, buff=0.5)
            page = VGroup(self.header, body).arrange(DOWN, buff=GAP)
        before = self.origin_mob.width
        self.stage.place(page)
        self.unit *= self.origin_mob.width / before  # arrows follow the rings if fit scaled

    def build_header(self, line_w: float | None) -> VGroup:
        """The pairing in use and the plane's pair, dims and θ."""
        n = self.n
        header = VGroup(
            self.words.label(f"pairing_{n.pairing}", theme.LABEL_SIZE, max_width=line_w),
            self.words.label(
                "plane_note",
                self.stage.layout.plane_note_size,
                theme.MUTED,
                max_width=line_w,
                pair=n.pair,
                a=n.dims[0],
                b=n.dims[1],
                theta=compact(n.theta),
            ),
        )
        return header.arrange(
            DOWN, buff=self.stage.layout.header_buff, aligned_edge=self.stage.layout.header_edge
        )

    def build_plane(self, radius: float = PLANE_RADIUS) -> VGroup:
        n = self.n
        longest = max(n.raw["q_norm"], n.raw["k_norm"], 1e-9)
        self.unit = radius / longest
        reach = radius + 0.3
        axes = VGroup(
            Line(reach * LEFT, reach * RIGHT, stroke_color=theme.NEUTRAL, stroke_width=2),
            Line(reach * DOWN, reach * UP, stroke_color=theme.NEUTRAL, stroke_width=2),
        )
        rings = VGroup(
            *[
                DashedVMobject(
                    Circle(
                        radius=max(r * self.unit, 0.05),
                        stroke_color=c,
                        stroke_width=1.5,
                        stroke_opacity=0.6,
                    ),
                    num_dashes=48,
                )
                for r, c in ((n.raw["q_norm"], theme.WORD_A), (n.raw["k_norm"], theme.WORD_B))
            ]
        )
        self.rings = rings
        # a frame that keeps room for the arrow labels around the circle
        side = 2 * (radius + PLANE_MARGIN)
        room = panel(side, side, color=theme.BACKGROUND)
        self.origin_mob = axes
        # the axes as in the clock-hands scene: the pair's first dim right, its second up
        x_name = self.words.label("axis", theme.SMALL_SIZE, theme.MUTED, dim=n.dims[0])
        y_name = self.words.label("axis", theme.SMALL_SIZE, theme.MUTED, dim=n.dims[1])
        x_name.next_to(radius * RIGHT, DR, buff=0.08)  # under the axis, just outside the ring
        y_name.next_to(radius * UP, UR, buff=0.08)  # beside the axis, just above the ring
        self.axis_names = VGroup(x_name, y_name)
        self.q_label = MathTex(r"R_m\,q", font_size=theme.BODY_SIZE * 1.3, color=theme.WORD_A)
        self.k_label = MathTex(r"R_n\,k", font_size=theme.BODY_SIZE * 1.3, color=theme.WORD_B)
        return VGroup(room, axes, rings, self.axis_names)

    def to_scene(self, v) -> np.ndarray:
        return self.origin_mob.get_center() + self.unit * np.array([v[0], v[1], 0.0])

    def arrows(self) -> VGroup:
        def draw() -> VGroup:
            plane = self.plane_now()
            o = self.origin_mob.get_center()
            q_tip, k_tip = self.to_scene(plane["q_rot"]), self.to_scene(plane["k_rot"])
            a_q = np.arctan2(*plane["q_rot"][::-1])
            group = VGroup()
            if plane["q_norm"] > 0 and plane["k_norm"] > 0:
                group.add(
                    Arc(
                        radius=0.45,
                        start_angle=a_q,
                        angle=plane["angle"],
                        arc_center=o,
                        stroke_color=theme.ACCENT,
                        stroke_width=3,
                    )
                )
            group.add(arrow(o, q_tip, color=theme.WORD_A), arrow(o, k_tip, color=theme.WORD_B))
            return group

        return always_redraw(draw)

    def place_labels(self) -> None:
        """Keep each arrow's name just past its tip, nudged away from the other arrow.

        Where that spot would cover an axis name or the other name, the name slides further along the
        same side, then further out, and only then to the other side.
        """

        def clear(label: Mobject, other_label: Mobject) -> bool:
            return not any(overlap(label, m) for m in (*self.axis_names, other_label))

        def place(label: Mobject, mine: str, other: str, other_label: Mobject) -> None:
            plane = self.plane_now()
            v = np.asarray(plane[mine], dtype=float)
            w = np.asarray(plane[other], dtype=float)
            length = np.linalg.norm(v)
            out = v / length if length > 0 else np.array([1.0, 0.0])
            side = np.array([-out[1], out[0]])
            if side @ w > 0:
                side = -side
            tip = self.to_scene(v)
            out3, side3 = np.array([*out, 0.0]), np.array([*side, 0.0])
            for away, across in LABEL_SPOTS:
                label.move_to(tip + away * out3 + across * side3)
                if clear(label, other_label):
                    return
            label.move_to(tip + LABEL_SPOTS[0][0] * out3 + LABEL_SPOTS[0][1] * side3)

        self.q_label.add_updater(lambda m: place(m, "q_rot", "k_rot", self.k_label))
        self.k_label.add_updater(lambda m: place(m, "k_rot", "q_rot", self.q_label))
        self.q_label.update()
        self.k_label.update()

    def number(
        self,
        value: float,
        digits: int,
        color=theme.FOREGROUND,
        widest: float | None = None,
        **kwargs: Any,
    ) -> DecimalNumber:
        """A readout number built at its widest value; `self.settle()` later sets `value`.

        Rows are laid out around the widest text, so a growing number never runs into its
        neighbour; set_value keeps the left edge in place.
        """
        num = LiveNumber(
            widest if widest is not None else value,
            num_decimal_places=digits,
            font_size=theme.BODY_SIZE,
            color=color,
            **kwargs,
        )
        self.unsettled.append((num, value))
        return num

    def settle(self) -> None:
        for num, value in self.unsettled:
            num.set_value(value)
        self.unsettled.clear()

    def build_readouts(self) -> VGroup:
        n = self.n
        self.unsettled: list[tuple[DecimalNumber, float]] = []
        # reserve room for the longest position or gap the scene reaches, sign included
        states = (n.start, n.shifted, n.regapped, n.turned)
        reached = [v for st in states for v in (st["m"], st["n"], st["n"] - st["m"])]
        widest = -max(max(abs(v) for v in reached), 10)

        def row(key: str, value: DecimalNumber, color=theme.MUTED, **fmt: Any) -> VGroup:
            return VGroup(self.words.label(key, theme.LABEL_SIZE, color, **fmt), value).arrange(
                RIGHT, buff=0.15
            )

        self.m_num = self.number(0, 0, theme.WORD_A, widest=widest)
        self.n_num = self.number(0, 0, theme.WORD_B, widest=widest)
        self.gap_num = self.number(0, 0, theme.FOREGROUND, widest=widest)
        positions = VGroup(
            row("m", self.m_num), row("n", self.n_num), row("gap", self.gap_num)
        ).arrange(RIGHT, buff=0.45)
        self.angle_num = self.number(
            n.raw["between_deg"], 1, theme.ACCENT, widest=179.9, unit=r"^\circ"
        )
        self.dot_num = self.number(n.raw["dot"], 3, theme.ACCENT, widest=-9.999)
        self.qn_num = self.number(n.raw["q_norm"], 3, theme.WORD_A)
        self.kn_num = self.number(n.raw["k_norm"], 3, theme.WORD_B)
        self.angle_row = row("angle", self.angle_num)
        self.dot_row = row("dot", self.dot_num)
        self.norm_rows = VGroup(
            row("q_norm", self.qn_num, before=theme.fmt(n.raw["q_norm"], 3)),
            row("k_norm", self.kn_num, before=theme.fmt(n.raw["k_norm"], 3)),
        ).arrange(DOWN, buff=0.18, aligned_edge=LEFT)
        body = VGroup(positions, self.angle_row, self.dot_row, self.norm_rows).arrange(
            DOWN, buff=0.25, aligned_edge=LEFT
        )
        frame = panel(body.width + 0.4, body.height + 0.4).move_to(body)  # sized at the widest
        self.settle()
        bind_number(self.m_num, lambda: round(self.m_at.get_value()))
        bind_number(self.n_num, lambda: round(self.n_at.get_value()))
        bind_number(self.gap_num, lambda: round(self.n_at.get_value() - self.m_at.get_value()))
        bind_number(self.angle_num, lambda: float(np.degrees(np.abs(self.plane_now()["angle"]))))
        bind_number(self.dot_num, lambda: self.plane_now()["dot"])
        bind_number(self.qn_num, lambda: self.plane_now()["q_norm"])
        bind_number(self.kn_num, lambda: self.plane_now()["k_norm"])
        return VGroup(frame, body)

    def build_formulas(self) -> VGroup:
        n = self.n
        r = n.regapped
        general = formula(
            r"\langle R_m q,\, R_n k \rangle = \langle q,\, R_{{n-m}}\, k \rangle",
            size=theme.BODY_SIZE * 1.4,
        )
        example = formula(
            r"\langle R_{{{m}}} q,\, R_{{{n}}} k \rangle = {dot} = \langle q,\, R_{{{g}}}\, k \rangle",
            size=theme.LABEL_SIZE * 1.3,
            color=theme.ACCENT,
            m=str(r["m"]),
            n=str(r["n"]),
            g=str(r["n"] - r["m"]),
            dot=theme.fmt(r["relative_dot"], 3),
        )
        full = self.words.label(
            "full",
            theme.SMALL_SIZE,
            theme.MUTED,
            max_width=self.line_width(),
            d=n.d_model,
            pairing=self.words.ui(f"name_{n.pairing}"),
            score=theme.fmt(r["full_score"], 3),
        )
        self.example = VGroup(example, full).arrange(DOWN, buff=0.18)
        self.signed = self.build_signed()
        # the signed scores take the worked example's place: the slot is sized for either
        slot = VGroup(self.example, self.signed)
        self.signed.move_to(self.example, aligned_edge=UP)
        return VGroup(general, slot).arrange(DOWN, buff=0.18)

    def build_signed(self) -> VGroup:
        """RoPE's score at n − m and at m − n, the sinusoid's dot product at both, and the
        note on the letters."""
        sign = self.n.sign
        said = sign["said"]

        rope_pm = formula(
            r"\langle q,\, R_{{{g}}}\, k \rangle = {plus} \qquad \langle q,\, R_{{{mg}}}\, k \rangle = {minus}",
            size=theme.LABEL_SIZE * 1.3,
            color=theme.ACCENT,
            g=said["gap"],
            mg=said["minus_gap"],
            plus=said["plus"],
            minus=said["minus"],
        )
        sinusoid = self.words.label(
            "sinusoid_sign",
            theme.SMALL_SIZE,
            theme.FOREGROUND,
            max_width=self.line_width(),
            far=said["far"],
            dot=said["sinusoid"],
        )
        letters = self.words.label(
            "letters", theme.SMALL_SIZE, theme.MUTED, max_width=self.line_width()
        )
        return VGroup(rope_pm, sinusoid, letters).arrange(DOWN, buff=0.18)

    def build_strip(self) -> VGroup:
        n = self.n
        dials = VGroup()
        self.dial_hands = []
        for j, i in enumerate(n.dials):
            mine = i == n.pair
            color = theme.ACCENT if mine else theme.WORD_A
            face = Circle(
                radius=0.42,
                stroke_color=color if mine else theme.MUTED,
                stroke_width=3 if mine else 2,
            )
            head = self.words.label("dial", theme.SMALL_SIZE, color, i=i)
            foot = self.words.label(
                "dial_theta", theme.SMALL_SIZE, theme.FOREGROUND, theta=compact(n.dial_theta[j])
            )
            dials.add(VGroup(head, face, foot).arrange(DOWN, buff=0.1))
            self.dial_hands.append((face, float(n.dial_theta[j]), color))
        dials.arrange(RIGHT, buff=0.3)
        if self.stage.layout.break_lines and dials.width > self.stage.width() - 0.4:
            # six dials with long θs close up rather than shrink; every other θ drops a
            # line so that neighbouring θs do not run together
            dials.arrange(RIGHT, buff=0.1)
            for dial in dials[1::2]:
                dial[-1].shift((dial[-1].height + 0.1) * DOWN)
        title = self.words.label(
            "strip", theme.LABEL_SIZE, theme.FOREGROUND, max_width=self.line_width()
        )
        # the sinusoid's hands turned the other way: said under the dials, as wide as they are
        # in 16:9 (beside the plane), as wide as the title may be elsewhere (few lines, so
        # the strip stays short and the plane keeps its room)
        note_w = max(dials.width, title.width)
        if self.stage.layout.break_lines:
            note_w = max(note_w, self.line_width() - 0.4)  # the panel's padding
        self.clocks_note = self.words.label(
            "clocks_note", theme.SMALL_SIZE, theme.MUTED, max_width=note_w
        )
        body = VGroup(title, dials, self.clocks_note).arrange(DOWN, buff=0.25)
        return VGroup(panel(body.width + 0.4, body.height + 0.4).move_to(body), body)

    def dial_hand(self, face: Circle, theta: float, color) -> Mobject:
        """Pair i turned by m·θ_i, counter-clockwise from 3 o'clock, like the plane."""

        def draw() -> Line:
            turn = pm.rotation_2d(self.m_at.get_value() * theta) @ np.array([1.0, 0.0])
            c = face.get_center()
            return Line(
                c,
                c + 0.85 * face.width / 2 * np.array([*turn, 0.0]),
                stroke_color=color,
                stroke_width=4,
            )

        return always_redraw(draw)

    # ------------------------------------------------------------ added codes
    def build_mixing(self) -> VGroup:
        """(x + p)W_qW_kᵀ(x′ + p′)ᵀ over its four terms, each named, with its value."""
        mixed = self.n.mixed
        whole = formula(r"(x+p)\,W_q W_k^\top (x'+p')^\top", size=theme.BODY_SIZE * 1.4)
        self.mixing_at = self.mixing_place(mixed["m"], mixed["n"])
        tex = {
            "word_word": r"x\,W_q W_k^\top x'^\top",
            "word_position": r"x\,W_q W_k^\top p'^\top",
            "position_word": r"p\,W_q W_k^\top x'^\top",
            "position_position": r"p\,W_q W_k^\top p'^\top",
        }
        self.term_values = {}
        cells = VGroup()
        for key in pm.TERMS:
            color = theme.ACCENT if key == "position_position" else theme.FOREGROUND
            value = self.words.text(fmt(mixed["before"][key], 3), theme.BODY_SIZE, color)
            self.term_values[key] = value
            cells.add(
                VGroup(
                    formula(tex[key], size=theme.BODY_SIZE * 1.2, color=color),
                    self.words.label(f"term_{key}", theme.SMALL_SIZE, theme.MUTED),
                    value,
                ).arrange(DOWN, buff=0.15)
            )
        cols = self.stage.layout.term_cols
        cells.arrange_in_grid(cols=cols, buff=(0.5, 0.45))
        self.term_cells = cells
        self.total_value = self.words.text(
            fmt(mixed["before"]["total"], 3), theme.BODY_SIZE, theme.ACCENT
        )
        total = VGroup(
            self.words.label("score", theme.LABEL_SIZE, theme.MUTED), self.total_value
        ).arrange(RIGHT, buff=0.2)
        page = VGroup(whole, self.mixing_at, cells, total).arrange(DOWN, buff=0.4)
        self.stage.place(page)
        self.pure_box = SurroundingRectangle(cells[3], color=theme.ACCENT, buff=0.12)
        self.mixed_boxes = VGroup(
            *[SurroundingRectangle(c, color=theme.WORD_B, buff=0.12) for c in cells[1:3]]
        )
        return page

    def mixing_place(self, m: int, n: int) -> Mobject:
        return self.words.label(
            "mixed_at", theme.LABEL_SIZE, theme.MUTED, max_width=self.line_width(), m=m, n=n
        )

    def show_mixing(self) -> None:
        self.beat("mixed")
        page = self.build_mixing()
        whole, _, cells, total = page
        self.play(Write(whole), FadeIn(self.mixing_at), run_time=theme.NORMAL)
        self.play(
            LaggedStart(*[FadeIn(c, shift=0.2 * DOWN) for c in cells], lag_ratio=0.4),
            run_time=theme.LONG,
        )
        self.play(Create(self.pure_box), run_time=theme.NORMAL)
        self.play(Create(self.mixed_boxes), FadeIn(total), run_time=theme.NORMAL)
        mixed = self.n.mixed
        if mixed["moves"]:
            self.wait(theme.SHORT)
            at = self.mixing_place(mixed["m"] + mixed["shift"], mixed["n"] + mixed["shift"])
            at.move_to(self.mixing_at)
            olds, news = [self.mixing_at], [at]
            for key, old in self.term_values.items():
                new = self.words.text(fmt(mixed["after"][key], 3), theme.BODY_SIZE, old.get_color())
                olds.append(old)
                news.append(new.move_to(old))
            new = self.words.text(fmt(mixed["after"]["total"], 3), theme.BODY_SIZE, theme.ACCENT)
            olds.append(self.total_value)
            news.append(new.move_to(self.total_value, aligned_edge=LEFT))
            self.total_value = new
            self.play(
                *[FadeOut(m, shift=0.25 * UP) for m in olds],
                *[FadeIn(m, shift=0.25 * UP) for m in news],
                run_time=theme.LONG,
            )
            self.play(Indicate(self.total_value), run_time=theme.NORMAL)

    # -------------------------------------------------------------------- beats
    def show_plane(self) -> None:
        self.beat("plane")
        self.play(*[FadeOut(m) for m in self.stage_mobjects()], run_time=theme.SHORT)
        self.build_stage()
        self.vectors = self.arrows()
        self.place_labels()
        self.play(
            FadeIn(self.plane),
            FadeIn(self.vectors),
            FadeIn(self.q_label),
            FadeIn(self.k_label),
            run_time=theme.NORMAL,
        )
        self.play(Write(self.header), FadeIn(self.readouts), run_time=theme.NORMAL)
        self.wait(theme.SHORT)
        start = self.n.start
        self.play(
            self.m_at.animate.set_value(start["m"]),
            self.n_at.animate.set_value(start["n"]),
            run_time=MOVE,
        )
        self.wait(theme.READ)

    def shift_both(self) -> None:
        self.beat("shift")
        target = self.n.shifted
        self.play(Indicate(self.dot_row), Indicate(self.angle_row), run_time=theme.NORMAL)
        self.play(
            self.m_at.animate.set_value(target["m"]),
            self.n_at.animate.set_value(target["n"]),
            run_time=MOVE + 0.5,
        )
        self.play(Indicate(self.dot_row), Indicate(self.angle_row), run_time=theme.NORMAL)
        self.wait(theme.READ)

    def change_gap(self) -> None:
        self.beat("gap")
        self.play(self.n_at.animate.set_value(self.n.regapped["n"]), run_time=MOVE)
        self.play(Indicate(self.dot_row), run_time=theme.NORMAL)
        self.wait(theme.READ)

    def keep_norms(self) -> None:
        self.beat("norms")
        self.play(Indicate(self.norm_rows), Indicate(self.rings), run_time=theme.NORMAL)
        self.wait(theme.LONG)

    def show_formula(self) -> None:
        self.beat("formula")
        general = self.formulas[0]
        example, full = self.example
        if self.stage.layout.one_slot:  # the formulas take the readouts' slot
            self.play(FadeOut(self.readouts), run_time=theme.SHORT)
        self.play(Write(general), run_time=theme.NORMAL)
        self.play(FadeIn(example, shift=0.1 * UP), run_time=theme.NORMAL)
        self.play(FadeIn(full), run_time=theme.SHORT)
        self.play(Indicate(example), run_time=theme.NORMAL)
        # "turning only k by n − m": q goes back to 0 and k to n − m, the score holds
        r = self.n.regapped
        self.play(
            self.m_at.animate.set_value(0),
            self.n_at.animate.set_value(r["n"] - r["m"]),
            run_time=MOVE,
        )
        self.play(
            self.m_at.animate.set_value(r["m"]),
            self.n_at.animate.set_value(r["n"]),
            run_time=MOVE,
        )

    def flip_sign(self) -> None:
        """Swap the two positions: n − m changes sign, and so does RoPE's score, not the
        sinusoid's."""
        self.beat("sign")
        sign = self.n.sign
        self.play(FadeOut(self.example), run_time=theme.SHORT)
        there, swapped = sign["there"], sign["swapped"]
        if sign["moves_first"]:
            self.play(self.n_at.animate.set_value(there[1]), run_time=MOVE)
        self.play(FadeIn(self.signed[2]), run_time=theme.SHORT)
        self.play(
            self.m_at.animate.set_value(swapped[0]),
            self.n_at.animate.set_value(swapped[1]),
            run_time=MOVE,
        )
        shown = (
            [] if self.stage.layout.one_slot else [Indicate(self.dot_row)]
        )  # the readouts are gone
        self.play(FadeIn(self.signed[0]), *shown, run_time=theme.NORMAL)
        self.play(FadeIn(self.signed[1], shift=0.1 * UP), run_time=theme.NORMAL)
        self.play(Indicate(self.signed[1]), run_time=theme.NORMAL)

    def show_dials(self) -> None:
        self.beat("dials")
        # the strip takes the slot from the readouts (the formulas in a square frame)
        one_slot = self.stage.layout.one_slot
        leaving = VGroup(self.formulas[0], self.signed) if one_slot else self.readouts
        self.play(FadeOut(leaving), run_time=theme.SHORT)
        self.hands = VGroup(*[self.dial_hand(*h) for h in self.dial_hands])
        self.play(FadeIn(self.strip), FadeIn(self.hands), run_time=theme.NORMAL)
        shift = self.params.rope_shift
        self.play(
            self.m_at.animate.increment_value(shift),
            self.n_at.animate.increment_value(shift),
            run_time=MOVE + 0.5,
        )
        self.play(Indicate(self.clocks_note), run_time=theme.NORMAL)

    def build_reasons(self, area: Mobject) -> VGroup:
        """Why RoPE won in practice: a heading over three reasons, fitted to `area`."""
        width = area.width - 0.4
        head = self.words.label("won", theme.LABEL_SIZE, theme.ACCENT, max_width=width)
        reasons = VGroup(
            *[
                self.words.label(
                    key, theme.LABEL_SIZE, max_width=width, order=f"{self.n.long_order:02d}"
                )
                for key in ("won_offset", "won_no_bias", "won_rescale")
            ]
        ).arrange(DOWN, buff=0.3, aligned_edge=LEFT)
        body = VGroup(head, reasons).arrange(DOWN, buff=0.35, aligned_edge=LEFT)
        board = VGroup(panel(body.width + 0.4, body.height + 0.4).move_to(body), body)
        board.scale(min(1.0, area.width / board.width, area.height / board.height))
        return board.move_to(area)

    def show_why_it_won(self) -> None:
        self.beat("won")
        one_slot = self.stage.layout.one_slot  # the formulas have already left the slot
        area = self.strip if one_slot else VGroup(self.strip, self.formulas)
        board = self.build_reasons(area)
        leaving = [self.strip, self.hands] + ([] if one_slot else [self.formulas[0], self.signed])
        panel, (head, reasons) = board
        self.play(*[FadeOut(m) for m in leaving], FadeIn(head), run_time=theme.NORMAL)
        shift = self.params.rope_shift
        first, *rest = reasons
        # back by the same shift as the first reason comes in: the offset alone reaches the score
        self.while_saying(
            "offset",
            FadeIn(panel),
            FadeIn(first, shift=0.2 * RIGHT),
            self.m_at.animate.increment_value(-shift),
            self.n_at.animate.increment_value(-shift),
            run_time=theme.NORMAL,
        )
        for cue, reason in zip(("no_bias", "rescale"), rest, strict=True):
            self.while_saying(cue, FadeIn(reason, shift=0.2 * RIGHT), run_time=theme.NORMAL)
        self.play(Indicate(board[1][1][-1]), run_time=theme.NORMAL)
