"""The stage: the part of the frame a scene may fill, and the shape it lays out for.

It reads the frame's size when asked (Manim's config is set before a scene is built).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from manim import DOWN, UP, config

from scenes.kit import theme


class Stage:
    def __init__(
        self, shapes: frozenset[str], layouts: Mapping[str, Any], burn_captions: bool = False
    ) -> None:
        self.shapes = shapes
        self.layouts = layouts
        self.burn_captions = burn_captions

    @property
    def shape(self) -> str:
        """The shape to lay out for: the frame's ("wide", "tall" or "square") when the
        scene composes for it, else "wide" (the 16:9 layout, whole inside the frame)."""
        shape = theme.frame_shape(config.frame_width, config.frame_height)
        return shape if shape in self.shapes else "wide"

    @property
    def layout(self) -> Any:
        """The scene's layout record (from its LAYOUTS) for the shape it lays out for."""
        return self.layouts[self.shape]

    def caption_band(self) -> float:
        """Height kept free at the bottom for burned-in captions (none without them)."""
        return theme.CAPTION_BAND if self.burn_captions else 0.0

    def height(self) -> float:
        """The height a scene may fill: the frame inside its margins, above any caption band."""
        return config.frame_height - 2 * theme.MARGIN - self.caption_band()

    def bottom(self) -> float:
        """The lowest y a scene may use (above any caption band)."""
        return -config.frame_height / 2 + theme.MARGIN + self.caption_band()

    def width(self) -> float:
        return config.frame_width - 2 * theme.MARGIN

    def place(self, mob, grow: bool = False, below_logo: bool = False):
        """Fit `mob` into the stage (with `grow`, fill it) and centre it there; with
        `below_logo`, under the corner kept for a logo (for a page whose top line may
        span the stage's width)."""
        cut = self.logo_strip() if below_logo else 0.0
        share = (self.height() - cut) / (config.frame_height - 2 * theme.MARGIN)
        self.fit(mob, height_share=share, grow=grow)
        return mob.move_to((self.caption_band() - cut) / 2 * UP)

    @staticmethod
    def logo_strip() -> float:
        """How far the corner kept for a logo reaches below the top margin."""
        return max(0.0, theme.LOGO_CORNER[1] - theme.MARGIN)

    def fill_below(self, anchor, mob, wide_share: float, buff: float = 0.5):
        """Place `mob` under `anchor`: in 16:9 grown or shrunk to `wide_share` of the stage's
        height (or its width); in a tall frame grown (at most 1.4×) or shrunk to the room
        left below the anchor."""
        if self.shape == "wide":
            self.fit(mob, 1.0, wide_share, grow=True)
        else:
            room = anchor.get_bottom()[1] - buff - self.bottom()
            factor = min(1.4, room / max(mob.height, 1e-6), self.width() / max(mob.width, 1e-6))
            mob.scale(factor)
        return mob.next_to(anchor, DOWN, buff=buff)

    def fit(self, mob, width_share: float = 1.0, height_share: float = 1.0, grow: bool = False):
        """Scale `mob` down to fit a share of the frame inside the margins; with `grow`,
        up as well, until it meets that share's width or height."""
        factor = self.fit_factor(mob, width_share, height_share)
        return mob.scale(factor if grow else min(1.0, factor))

    @staticmethod
    def fit_factor(mob, width_share: float = 1.0, height_share: float = 1.0) -> float:
        """The scale at which `mob` meets a share of the frame inside the margins."""
        max_w = (config.frame_width - 2 * theme.MARGIN) * width_share
        max_h = (config.frame_height - 2 * theme.MARGIN) * height_share
        return min(max_w / max(mob.width, 1e-6), max_h / max(mob.height, 1e-6))
