"""A scene's words on screen: labels from its catalogue in its language, set as Text,
and broken into lines that fit a width."""

from __future__ import annotations

from typing import Any

from manim import DOWN, LEFT, Mobject, Text, VGroup

import pe_math as pm
from lesson.catalogue import COMMON, fill
from lesson.text_layout import balanced_rows, break_units, listing
from scenes.kit import theme
from scenes.kit.components import text


class Words:
    def __init__(self, lang: str, slug: str) -> None:
        self.lang = lang
        self.slug = slug

    def ui(self, key: str, **values: Any) -> str:
        """An on-screen label in the scene's language, with `{name}` slots filled."""
        return fill(self.lang, self.slug, f"ui.{key}", **values)

    def common(self, key: str, **values: Any) -> str:
        """A label from the catalogue of words several scenes share."""
        return fill(self.lang, COMMON, f"ui.{key}", **values)

    def requirement_names(self, short: bool = False) -> list[str]:
        return [self.common(f"short_{r}" if short else r) for r in pm.REQUIREMENTS]

    def listing(self, items) -> str:
        """Items as a list in the scene's language: "0, 1, 2" or "0、1、2"."""
        return listing(items, self.lang)

    def text(
        self, content: str, size: float = theme.BODY_SIZE, color=theme.FOREGROUND, **kwargs: Any
    ) -> Text:
        return text(content, size=size, color=color, **kwargs)

    def label(
        self,
        key: str,
        size: float = theme.BODY_SIZE,
        color=theme.FOREGROUND,
        max_width: float | None = None,
        **values: Any,
    ) -> Mobject:
        """An on-screen label; with `max_width`, broken into lines no wider than that."""
        words = self.ui(key, **values)
        if max_width is None:
            return self.text(words, size=size, color=color)
        return self.lines(words, max_width, size=size, color=color)

    def lines(
        self,
        words: str,
        max_width: float,
        size: float = theme.BODY_SIZE,
        color=theme.FOREGROUND,
        align=LEFT,
    ) -> Mobject:
        """`words` as one Text if it fits `max_width`, else as lines that do, aligned on
        `align` (LEFT, or ORIGIN to centre them)."""
        whole = self.text(words, size=size, color=color)
        if whole.width <= max_width:
            return whole
        units = break_units(words, self.lang)
        # A Text's width is its ink; between two bars a unit shows its advance (ink + spacing).
        bars = self.text("||", size=size).width

        def advance(unit: str) -> float:
            return self.text(f"|{unit}|", size=size).width - bars

        rows = balanced_rows(units, [advance(u) for u in units], advance(" "), max_width, self.lang)
        return VGroup(*[self.text(r, size=size, color=color) for r in rows]).arrange(
            DOWN, buff=0.1, aligned_edge=align
        )
