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

    def place(self, mob, grow: bool = False):
        """Fit `mob` into the stage (with `grow`, fill it) and centre it there."""
        share = self.height() / (config.frame_height - 2 * theme.MARGIN)
        self.fit(mob, height_share=share, grow=grow)
        return mob.move_to(self.caption_band() / 2 * UP)

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
        max_w = (config.frame_width - 2 * theme.MARGIN) * width_share
        max_h = (config.frame_height - 2 * theme.MARGIN) * height_share
        factor = min(max_w / max(mob.width, 1e-6), max_h / max(mob.height, 1e-6))
        return mob.scale(factor if grow else min(1.0, factor))
