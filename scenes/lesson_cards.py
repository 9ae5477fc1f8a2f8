"""The lesson's opening and closing cards, joined around the chapters in lesson.mp4.

Render alone with `manim -ql scenes/lesson_cards.py LessonIntro` (or LessonOutro).
"""

from __future__ import annotations

from dataclasses import dataclass

from manim import (
    DOWN,
    LEFT,
    ORIGIN,
    RIGHT,
    UP,
    Circle,
    FadeIn,
    FadeOut,
    LaggedStart,
    Line,
    VGroup,
    Write,
)

from pe_math import Params
from scenes import theme
from scenes.base import LessonScene

FIRST, LAST = 0, 99  # the cards' places in the lesson order; chapters sit in between


def chapter_numbers() -> list[int]:
    """The order numbers of the lesson's chapters (every registered scene between the cards)."""
    import scenes

    return [info.order for info in scenes.ordered() if FIRST < info.order < LAST]


@dataclass(frozen=True)
class LessonIntroNumbers:
    """Every number LessonIntro shows, computed by pe_math (JSON-ready)."""

    chapters: list[int]


class LessonIntro(LessonScene):
    """Title, one line on what the lesson is about, and a track of numbered chapter stops."""

    slug = "lesson-intro"
    SHAPES = frozenset({"wide", "tall", "square"})

    @classmethod
    def numbers(cls, params: Params) -> LessonIntroNumbers:
        return LessonIntroNumbers(**{"chapters": chapter_numbers()})

    def construct(self) -> None:
        self.beat("welcome")
        title = self.text(self.ui("heading"), size=theme.TITLE_SIZE)
        subtitle = self.label("subtitle", color=theme.MUTED)
        head = VGroup(title, subtitle).arrange(DOWN, buff=0.35)
        track = self.chapter_track(chapter_numbers())
        note = self.label("count", size=theme.LABEL_SIZE, color=theme.MUTED, n=len(track.stops))
        body = VGroup(track, note).arrange(DOWN, buff=0.4)
        card = VGroup(head, body).arrange(DOWN, buff=1.0)
        self.fit(card).move_to(ORIGIN)  # laid out whole first, so it sits centred in any frame
        self.play(Write(title), FadeIn(subtitle, shift=0.2 * UP), run_time=theme.NORMAL)
        self.wait(theme.READ)

        self.beat("chapters")
        self.play(FadeIn(track.line), run_time=theme.SHORT)
        self.play(
            LaggedStart(*[FadeIn(s, scale=0.6) for s in track.stops], lag_ratio=0.2),
            FadeIn(note),
            run_time=theme.NORMAL,
        )
        self.wait(theme.LONG)  # the card stays: its last frame is the lesson's poster

    def chapter_track(self, orders: list[int]) -> VGroup:
        """Numbered stops on a line, like the stations of a route."""
        stops = VGroup()
        for order in orders or [1]:
            ring = Circle(radius=0.38, stroke_color=theme.ACCENT, stroke_width=3)
            ring.set_fill(theme.BACKGROUND, opacity=1)
            number = self.text(f"{order:02d}", size=theme.LABEL_SIZE, color=theme.FOREGROUND)
            stops.add(VGroup(ring, number.move_to(ring)))
        stops.arrange(RIGHT, buff=0.7)
        line = Line(stops[0].get_center(), stops[-1].get_center(), stroke_color=theme.MUTED)
        track = VGroup(line, stops)
        track.line, track.stops = line, stops
        return track


@dataclass(frozen=True)
class LessonOutroNumbers:
    """Every number LessonOutro shows, computed by pe_math (JSON-ready)."""


class LessonOutro(LessonScene):
    """What to remember, then a closing line."""

    slug = "lesson-outro"
    SHAPES = frozenset({"wide", "tall", "square"})
    POINTS = ("point_order", "point_clocks", "point_rotation")

    @classmethod
    def numbers(cls, params: Params) -> LessonOutroNumbers:
        return LessonOutroNumbers(**{})

    def construct(self) -> None:
        self.beat("recap")
        heading = self.label("recap_head", size=theme.HEADING_SIZE, color=theme.ACCENT)
        points = VGroup(
            *[
                VGroup(
                    self.text("•", size=theme.BODY_SIZE, color=theme.ACCENT),
                    self.label(key),
                ).arrange(RIGHT, buff=0.25)
                for key in self.POINTS
            ]
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.45)
        card = VGroup(heading, points).arrange(DOWN, buff=0.6)
        self.fit(card)
        self.play(FadeIn(heading, shift=0.2 * DOWN), run_time=theme.SHORT)
        self.play(
            LaggedStart(*[FadeIn(p, shift=0.2 * RIGHT) for p in points], lag_ratio=0.4),
            run_time=theme.NORMAL * 2,
        )
        self.wait(theme.LONG)

        self.beat("end")
        self.play(FadeOut(card), run_time=theme.SHORT)
        thanks = self.label("thanks", size=theme.TITLE_SIZE)
        hint = self.label("try_it", size=theme.LABEL_SIZE, color=theme.MUTED)
        closing = VGroup(thanks, hint).arrange(DOWN, buff=0.4)
        self.fit(closing)
        self.play(Write(thanks), FadeIn(hint, shift=0.2 * UP), run_time=theme.NORMAL)
        self.wait(theme.LONG)  # ends on the closing line, which is also the clip's poster
