"""The lesson's opening and closing cards, joined around the chapters in lesson.mp4.

Render alone with `manim -ql scenes/lesson_cards.py LessonIntro` (or LessonOutro).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from manim import (
    DOWN,
    ORIGIN,
    RIGHT,
    UP,
    Circle,
    FadeIn,
    LaggedStart,
    VGroup,
    Write,
)

from lesson import registry
from pe_math import Params
from scenes.kit import brand, theme
from scenes.kit.base import LessonScene


class CardScene(LessonScene):
    """A card of the lesson's own, which a brand may sign."""

    def one_or_more_lines(self, words: str, size: float, color=theme.FOREGROUND) -> list:
        """`words` as one line, and (when wider than the stage) as centred lines that fit."""
        one = self.words.text(words, size=size, color=color)
        if one.width <= self.stage.width():
            return [one]
        return [one, self.words.lines(words, self.stage.width(), size, color, align=ORIGIN)]

    def roomiest(self, ways: list, card: Callable[[Any], VGroup]) -> Any:
        """Of `ways` to set a card's words, the one whose `card` fits the stage at the
        largest scale (the first of equals)."""
        return max(ways, key=lambda way: self.stage.fit_factor(card(way)))

    def brand_name(self) -> list:
        """The brand's name as a line for the card's foot (none without one)."""
        name = brand.LOOK.get("name")
        if not name:
            return []
        width = self.stage.width()
        return [self.words.lines(name, width, theme.LABEL_SIZE, theme.ACCENT, align=ORIGIN)]


@dataclass(frozen=True)
class LessonIntroNumbers:
    """Every number LessonIntro shows, computed by pe_math (JSON-ready)."""

    chapters: list[int]


# Columns of the chapter list for each frame shape.
COLUMNS = {"wide": 2, "tall": 1, "square": 2}
RING = 0.32  # radius of a chapter's numbered stop
COLUMN_GAP = 0.4
ROW_GAP = 0.2
# Rows the twelve chapters take in each shape. Past them (chapters added) the list packs
# its rows closer, so its words stay readable; the lesson's own card keeps its spacing.
ROOMY_ROWS = {"wide": 6, "tall": 12, "square": 6}


class LessonIntro(CardScene):
    """Title, one line on what the lesson is about, and the numbered list of chapters."""

    slug = "lesson-intro"
    SHAPES = frozenset({"wide", "tall", "square"})

    @classmethod
    def numbers(cls, params: Params) -> LessonIntroNumbers:
        return LessonIntroNumbers(chapters=[info.order for info in registry.lesson_chapters()])

    def construct(self) -> None:
        self.beat("welcome")
        stops = self.chapter_list(registry.lesson_chapters())
        note = self.words.label("count", size=theme.LABEL_SIZE, color=theme.MUTED, n=len(stops))
        names = self.brand_name()

        def card(way) -> VGroup:
            head = VGroup(*way).arrange(DOWN, buff=0.35)
            return VGroup(head, stops, note, *names).arrange(DOWN, buff=0.45)

        ways = [
            (title, subtitle)
            for title in self.one_or_more_lines(
                brand.words("title", self.words.ui("heading")), theme.TITLE_SIZE
            )
            for subtitle in self.one_or_more_lines(
                brand.words("subtitle", self.words.ui("subtitle")), theme.BODY_SIZE, theme.MUTED
            )
        ]
        title, subtitle = self.roomiest(ways, card)
        card = card((title, subtitle))
        # laid out whole first, so it sits centred in any frame
        self.stage.fit(card).move_to(ORIGIN)
        self.play(Write(title), FadeIn(subtitle, shift=0.2 * UP), run_time=theme.NORMAL)
        self.wait(theme.READ)

        self.beat("chapters")
        self.play(
            LaggedStart(*[FadeIn(s, shift=0.2 * RIGHT) for s in stops], lag_ratio=0.15),
            FadeIn(note),
            *[FadeIn(name) for name in names],
            run_time=theme.NORMAL * 2,
        )
        self.wait(theme.LONG)  # the card stays: its last frame is the lesson's poster

    def chapter_list(self, infos: list) -> VGroup:
        """Each chapter as a numbered stop and its title, in columns that read downwards."""
        cols = min(COLUMNS[self.stage.shape], max(len(infos), 1))
        ring_room = 2 * RING + 0.25
        title_width = (self.stage.width() - (cols - 1) * COLUMN_GAP) / cols - ring_room
        stops = VGroup()
        for info in infos:
            ring = Circle(radius=RING, stroke_color=theme.ACCENT, stroke_width=3)
            number = self.words.text(f"{info.order:02d}", size=theme.LABEL_SIZE).move_to(ring)
            name = self.words.lines(info.title(self.lang), title_width, size=theme.LABEL_SIZE)
            stops.add(VGroup(VGroup(ring, number), name).arrange(RIGHT, buff=0.25))
        rows = -(-len(stops) // cols)
        row_gap = ROW_GAP if rows <= ROOMY_ROWS[self.stage.shape] else ROW_GAP / 4
        stops.arrange_in_grid(
            rows=rows,
            cols=cols,
            flow_order="dr",
            col_alignments="l" * cols,
            buff=(COLUMN_GAP, row_gap),
        )
        return stops


@dataclass(frozen=True)
class LessonOutroNumbers:
    """Every number LessonOutro shows, computed by pe_math (JSON-ready)."""


class LessonOutro(CardScene):
    """The closing line, after the recap chapter has gathered what to remember."""

    slug = "lesson-outro"
    SHAPES = frozenset({"wide", "tall", "square"})

    @classmethod
    def numbers(cls, params: Params) -> LessonOutroNumbers:
        return LessonOutroNumbers(**{})

    def construct(self) -> None:
        self.beat("end")
        hint = self.words.lines(
            self.words.ui("try_it"), self.stage.width(), theme.LABEL_SIZE, theme.MUTED, align=ORIGIN
        )
        names = self.brand_name()

        def card(thanks) -> VGroup:
            return VGroup(thanks, hint, *names).arrange(DOWN, buff=0.4)

        closing = brand.words("closing", self.words.ui("thanks"))
        thanks = self.roomiest(self.one_or_more_lines(closing, theme.TITLE_SIZE), card)
        closing = card(thanks)
        self.stage.fit(closing)
        self.play(
            Write(thanks),
            FadeIn(hint, shift=0.2 * UP),
            *[FadeIn(name) for name in names],
            run_time=theme.NORMAL,
        )
        self.wait(theme.LONG)  # ends on the closing line, which is also the clip's poster
