"""What is on screen, from the scene's own mobjects: each text's contrast against what is
drawn behind it (WCAG 1.4.3), and the numbers shown (for the transcript, and for the
report's list of numbers the narration does not say).

Every glyph's colour is laid over what Manim draws before it at the glyph's centre: the
background, then each filled shape that holds that point (a panel, a heat-map cell, a
bar), each at its own opacity. The text's contrast is that of its worst glyph. Lines and
outlines behind a text are not counted (they are thin), nor are images (the lesson draws
none).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from manim import (
    DecimalNumber,
    MarkupText,
    MathTex,
    Mobject,
    SingleStringMathTex,
    Tex,
    Text,
    VMobject,
    config,
)
from manim.utils.family import extract_mobject_family_members

from lesson.palette import LARGE_TEXT_CONTRAST, TEXT_CONTRAST, contrast_ratio
from lesson.speaker import WRITTEN_NUMBER
from scenes.kit import theme
from scenes.kit.brand import corner_box

TEXT_TYPES = (Text, MarkupText, MathTex, Tex, SingleStringMathTex, DecimalNumber)
TEX_TYPES = (MathTex, Tex, SingleStringMathTex)
# The em of a Text is font_size/72 scene units; LaTeX's Computer Modern sets smaller:
# measured from a capital H (cap height 0.683 em in CM, 0.733 em in Noto Sans CJK).
TEX_EM_PER_TEXT_EM = 0.747
# Large text (WCAG: 18 pt, 24 CSS px) needs only 3:1. A frame is taken as 480 pixels on
# its short side, the smallest the lesson is watched at.
LARGE_PX = 24
SEEN = 0.05  # a glyph or shape fainter than this is not on screen
LINE_PX = 2  # a stroke this wide (Manim's width units) or wider is a line to see
DIMMED = 0.5  # a line drawn under this opacity is faded back on purpose


@dataclass(frozen=True)
class Contrast:
    text: str  # what the text says (its TeX source for a formula)
    ratio: float  # of its worst glyph against what is behind it
    needed: float  # 4.5, or 3 for large text

    @property
    def low(self) -> bool:
        return self.ratio < self.needed - 1e-9

    def __str__(self) -> str:
        return f"{self.text!r} at {self.ratio:.2f}:1 (needs {self.needed:g}:1)"


def text_of(m: Mobject) -> str:
    """A text as it reads on screen (a live number with its decimal places); a formula's
    TeX source."""
    if isinstance(m, DecimalNumber):
        return f"{m.get_value():.{m.num_decimal_places}f}".replace("-", "−")
    return getattr(m, "original_text", None) or getattr(m, "tex_string", "") or type(m).__name__


def scene_content(scene) -> list[Mobject]:
    """The scene's mobjects but a burned-in caption band (drawn over it, not part of it)."""
    return [m for m in scene.mobjects if m.z_index < theme.CAPTION_Z]


def em_px(m: Mobject) -> float:
    """The em (font size) of a text in pixels, were the frame's short side 480 pixels."""
    if isinstance(m, DecimalNumber):  # its glyphs are Text or TeX pieces: the smallest counts
        return min((em_px(sub) for sub in m.submobjects if isinstance(sub, TEXT_TYPES)), default=99)
    units = m.font_size / 72 * (TEX_EM_PER_TEXT_EM if isinstance(m, TEX_TYPES) else 1.0)
    return units * 480 / min(config.frame_width, config.frame_height)


def in_logo_corner(scene) -> list[str]:
    """What the scene draws in the corner kept for a brand's logo (brand.corner_box): the
    text of each mobject with a visible part there, or its kind."""
    x0, y0, x1, y1 = corner_box(config.frame_width, config.frame_height)
    found = []
    for top in scene_content(scene):
        for m in top.family_members_with_points():
            if not isinstance(m, VMobject):
                continue
            seen = max(m.get_fill_opacity(), m.get_stroke_opacity() * (m.get_stroke_width() > 0))
            lo, hi = m.points.min(axis=0), m.points.max(axis=0)
            if seen > SEEN and hi[0] > x0 and lo[0] < x1 and hi[1] > y0 and lo[1] < y1:
                texts = texts_on([top])
                found.append(repr(text_of(texts[0])) if texts else type(top).__name__)
                break
    return found


def texts_on(mobjects: list[Mobject]) -> list[Mobject]:
    """The outermost text-like mobjects among `mobjects` and their families."""
    found: list[Mobject] = []

    def walk(m: Mobject) -> None:
        if isinstance(m, TEXT_TYPES):
            found.append(m)
            return
        for sub in m.submobjects:
            walk(sub)

    for m in mobjects:
        walk(m)
    return found


def _rgb(m: VMobject) -> np.ndarray:
    return np.array(m.get_fill_color().to_rgb(), dtype=np.float64)


def _inside(m: VMobject, point: np.ndarray) -> bool:
    """Whether `point` lies in the shape's filled area (even-odd, over its outline's anchors)."""
    inside = False
    x, y = point[0], point[1]
    for path in m.get_subpaths():
        corners = path[::4, :2]
        if len(corners) < 3:
            continue
        x0, y0 = corners[:, 0], corners[:, 1]
        x1, y1 = np.roll(x0, -1), np.roll(y0, -1)
        crosses = (y0 > y) != (y1 > y)
        with np.errstate(divide="ignore", invalid="ignore"):
            at = x0 + (y - y0) * (x1 - x0) / (y1 - y0)
        inside ^= bool(np.count_nonzero(crosses & (x < at)) % 2)
    return inside


class _Backdrop:
    """The filled shapes in the order Manim draws them, each with its box for a quick test."""

    def __init__(self, drawn: list[Mobject], glyphs: set[int], background):
        self.order = {id(m): i for i, m in enumerate(drawn)}
        self.shapes = [
            m
            for m in drawn
            if isinstance(m, VMobject) and id(m) not in glyphs and m.get_fill_opacity() > SEEN
        ]
        boxes = [(m.points.min(axis=0), m.points.max(axis=0)) for m in self.shapes]
        self.lo = np.array([b[0][:2] for b in boxes]).reshape(-1, 2)
        self.hi = np.array([b[1][:2] for b in boxes]).reshape(-1, 2)
        self.ranks = np.array([self.order[id(m)] for m in self.shapes], dtype=int)
        self.background = np.array(background.to_rgb(), dtype=np.float64)

    def behind(self, glyph: VMobject) -> np.ndarray:
        """The colour drawn at the glyph's centre before the glyph."""
        point = glyph.get_center()[:2]
        colour = self.background
        if not len(self.shapes):
            return colour
        near = np.flatnonzero(
            (self.ranks < self.order[id(glyph)])
            & np.all(self.lo <= point, axis=1)
            & np.all(point <= self.hi, axis=1)
        )
        for i in near:  # in drawing order
            shape = self.shapes[i]
            if _inside(shape, point):
                alpha = min(1.0, shape.get_fill_opacity())
                colour = alpha * _rgb(shape) + (1 - alpha) * colour
        return colour


def contrasts(scene) -> list[Contrast]:
    """Every text on screen with its contrast against what is behind it, as Manim would
    draw the scene now on its camera's background (a transparent clip's is the lesson's);
    burned-in captions (their own band) aside."""
    shown = scene_content(scene)
    drawn = extract_mobject_family_members(shown, use_z_index=True, only_those_with_points=True)
    texts = texts_on(shown)
    glyphs_of = {id(t): [g for g in t.family_members_with_points()] for t in texts}
    glyphs = {id(g) for gs in glyphs_of.values() for g in gs}
    backdrop = _Backdrop(drawn, glyphs, scene.camera.background_color)
    out = []
    for text in texts:
        worst = None
        for glyph in glyphs_of[id(text)]:
            alpha = glyph.get_fill_opacity()
            if alpha <= SEEN or id(glyph) not in backdrop.order:
                continue
            under = backdrop.behind(glyph)
            ratio = contrast_ratio(alpha * _rgb(glyph) + (1 - alpha) * under, under)
            worst = ratio if worst is None else min(worst, ratio)
        if worst is not None:
            large = em_px(text) >= LARGE_PX
            out.append(
                Contrast(text_of(text), worst, LARGE_TEXT_CONTRAST if large else TEXT_CONTRAST)
            )
    return out


def low_contrast_lines(scene) -> list[Contrast]:
    """The lines and outlines on screen now under WCAG's 3:1 for graphics (1.4.11) against
    the background: every stroke at least LINE_PX wide but the palette's neutral (grids,
    faint by design) and those dimmed under half their opacity (context, on purpose)."""
    background = np.array(scene.camera.background_color.to_rgb(), dtype=np.float64)
    neutral = theme.NEUTRAL.to_hex().lower()
    out: dict[str, Contrast] = {}
    shown = scene_content(scene)
    glyphs = {id(g) for t in texts_on(shown) for g in t.family_members_with_points()}
    for top in shown:
        for m in top.family_members_with_points():
            if id(m) in glyphs or not isinstance(m, VMobject) or m.get_stroke_width() < LINE_PX:
                continue
            alpha, colour = m.get_stroke_opacity(), m.get_stroke_color()
            if alpha < DIMMED or colour.to_hex().lower() == neutral:
                continue
            rgb = np.array(colour.to_rgb(), dtype=np.float64)
            ratio = contrast_ratio(alpha * rgb + (1 - alpha) * background, background)
            name = f"{type(m).__name__} {colour.to_hex().lower()}"
            if ratio < LARGE_TEXT_CONTRAST - 1e-9 and (name not in out or ratio < out[name].ratio):
                out[name] = Contrast(name, ratio, LARGE_TEXT_CONTRAST)
    return list(out.values())


def low_contrast(scene) -> list[Contrast]:
    """The texts on screen now that are under WCAG's contrast for their size."""
    return [c for c in contrasts(scene) if c.low]


def numbers_shown(scene) -> list[str]:
    """Every number written on screen now, as written, each once, in the order drawn.
    Formulas are left out: their TeX source does not read as they show (10^{-3})."""
    out: dict[str, None] = {}
    for text in texts_on(scene_content(scene)):
        if isinstance(text, TEX_TYPES):
            continue
        if any(g.get_fill_opacity() > SEEN for g in text.family_members_with_points()):
            out.update(dict.fromkeys(WRITTEN_NUMBER.findall(text_of(text))))
    return list(out)


def ended(scene, before: set[str]) -> tuple[dict[str, list], set[str]]:
    """What a render records as a beat ends: the texts and the lines under their
    contrast, as [text, ratio, needed], and the numbers on screen not there as the beat
    before ended (`before`); and the numbers on screen now, for the next beat."""
    now = numbers_shown(scene)
    record = {
        "low": [[c.text, round(c.ratio, 2), c.needed] for c in low_contrast(scene)],
        "lines": [[c.text, round(c.ratio, 2), c.needed] for c in low_contrast_lines(scene)],
        "numbers": [n for n in now if n not in before],
    }
    return record, set(now)
