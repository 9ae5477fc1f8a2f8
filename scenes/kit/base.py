"""LessonScene: what every lesson scene shares (params, language, beats, cards).

A thin scene over its collaborators: the speech clock (clock.py), its words (words.py),
the stage (stage.py) and the shared cards (cards.py)."""

from __future__ import annotations

import functools
import math
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from manim import Camera, Mobject, Scene, Wait, config
from manim.constants import RendererType
from manim.utils.exceptions import EndSceneEarlyException

from lesson import reads, say
from lesson.catalogue import CatalogueError
from pe_math import Params
from scenes.kit import brand, cards, theme
from scenes.kit.clock import SpeechClock
from scenes.kit.skip_renderer import SkipRenderer
from scenes.kit.stage import Stage
from scenes.kit.words import Words

BeatHook = Callable[["LessonScene", str], None]


@dataclass(frozen=True)
class Play:
    """One play or wait of a scene, on the scene clock."""

    start: float
    end: float
    beat: str  # the beat it belongs to ("" before the first)
    wait: bool
    frozen: bool  # nothing on screen changes
    for_speech: bool  # a hold until the beat's speech is over
    cued: bool = False  # played with a sentence of the narration (while_saying)

    @property
    def seconds(self) -> float:
        return self.end - self.start


@dataclass(frozen=True)
class Watchers:
    """What a build calls as it goes: the pipeline reports progress, tests check layout."""

    # at every beat boundary (the stage shows how the beat before ended), and "<end>" at
    # the end; also at the beat a build stops at (stop_at), which then never starts
    beat: tuple[BeatHook, ...] = ()
    cue: tuple[BeatHook, ...] = ()  # after every cued play, with "beat@cue"
    play: tuple[Callable[[LessonScene], None], ...] = ()  # after every play and wait


UNWATCHED = Watchers()


class LessonScene(Scene):
    """A scene of the lesson.

    Subclasses set `slug`, implement `numbers(params)` (every number the scene
    shows, JSON-ready, computed by pe_math) and `construct`, which calls
    `self.beat(key)` at the start of every narration beat.

    With `speech` (beat key -> seconds of narration), timing follows the voice: a
    beat lasts at least its speech plus BREATH. What the animation has not filled
    is waited out at the next beat boundary, or at the end, so scene code never
    knows how long its narration is. With `sentences` (beat key -> [start, end] of each
    sentence, from the beat's start), `while_saying` plays an animation with the sentence
    its line marks.
    """

    slug: ClassVar[str] = ""
    # Frame shapes the scene composes its stage for. In the others it keeps its 16:9
    # layout, whole and smaller, inside the frame.
    SHAPES: ClassVar[frozenset[str]] = frozenset({"wide"})
    # Where the scene's groups go, one record per shape it composes for: sizes, directions
    # and gaps chosen once, so its beats read `self.stage.layout` instead of asking the
    # shape. A chapter gives them as `class Chapter(LessonScene, layouts=LAYOUTS)`, which
    # also makes those shapes its SHAPES.
    LAYOUTS: ClassVar[Mapping[str, Any]] = {}
    # Whether the pipeline may draw the scene in ranges of animations on several workers.
    # A range skips the plays before it (they end without drawing), so a scene whose state
    # depends on drawn frames (an updater that integrates dt) must set this False.
    SPLITS: ClassVar[bool] = True

    def __init_subclass__(cls, layouts: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if layouts is not None:
            cls.LAYOUTS = layouts
            cls.SHAPES = frozenset(layouts)

    def __init__(
        self,
        params: Params | None = None,
        lang: str | None = None,
        burn_captions: bool = False,
        speech: dict[str, float] | None = None,
        pace: dict[str, float] | None = None,
        sentences: dict[str, list[tuple[float, float]]] | None = None,
        skip_beats: set[str] | None = None,
        stop_at: str | None = None,
        watchers: Watchers = UNWATCHED,
        **kwargs: Any,
    ) -> None:
        self.params = reads.watched(params if params is not None else Params.load())
        self.lang = lang or os.environ.get("PE_LANG", "en")
        self.burn_captions = burn_captions
        self.clock = SpeechClock(speech, pace, sentences)
        self.words = Words(self.lang, self.slug)
        self.stage = Stage(self.SHAPES, self.LAYOUTS, burn_captions)
        self.watchers = watchers
        self.beats: list[tuple[str, float]] = []
        self._cueing = False
        self._holding_for_speech = False
        self.plays: list[Play] = []  # every play and wait: where the picture moves and holds
        self.cues_used: list[tuple[str, str]] = []  # (beat, cue) as while_saying met them
        self._caption: Mobject | None = None
        # beats played without drawing, as a span's earlier plays are (reads.PRELUDE for
        # the plays before the first beat): their frames are kept from an earlier render
        self.skip_beats = set(skip_beats or ())
        self.stop_at = stop_at  # end the build as this beat begins (the rest is kept too)
        self.cut_short = False  # the build ended before the scene did (a span, or stop_at)
        self.stopped = False  # it ended at stop_at, every beat before it whole
        if config.renderer == RendererType.CAIRO and kwargs.get("renderer") is None:
            kwargs["renderer"] = SkipRenderer(
                camera_class=kwargs.get("camera_class", Camera),
                skip_animations=kwargs.get("skip_animations", False),
            )
        super().__init__(**kwargs)
        self.camera.background_color = theme.BACKGROUND
        if isinstance(self.renderer, SkipRenderer):
            self.renderer.overlay = brand.logo_overlay(
                config.pixel_width, config.pixel_height, config.frame_height
            )

    def setup(self) -> None:
        super().setup()
        self._draw_or_skip(reads.PRELUDE)

    def _draw_or_skip(self, key: str) -> None:
        if self.skip_beats:
            self.next_section(key or "prelude", skip_animations=key in self.skip_beats)

    @classmethod
    def numbers(cls, params: Params) -> Any:
        """Every number this scene shows, from pe_math: a frozen dataclass of plain JSON values."""
        raise NotImplementedError

    @functools.cached_property
    def _spoken_numbers(self) -> Any:
        """numbers() for lines that say a number: made once, when first asked."""
        return self.numbers(self.params)

    # ----------------------------------------------------------------- beats
    def beat(self, key: str) -> None:
        """Start narration beat `key`: record its time (and burn its caption if asked)."""
        self.wait_for_speech()  # the hold ends the beat before: drawn or skipped with it
        if key == self.stop_at:  # the beat before has ended: its watchers see how
            for hook in self.watchers.beat:
                hook(self, key)
            self.cut_short = self.stopped = True
            raise EndSceneEarlyException()
        if reads.ACTIVE is not None:
            reads.ACTIVE.enter(key)
        self._draw_or_skip(key)
        for hook in self.watchers.beat:
            hook(self, key)
        start = float(self.renderer.time)
        self.beats.append((key, start))
        self.clock.enter(key, start)
        if self.burn_captions:
            if self._caption is not None:
                self.remove(self._caption)
            line = say.fill(self.lang, self.slug, key, lambda: self._spoken_numbers)
            self._caption = cards.burned_caption(self, line)
            self.add(self._caption)

    def play(self, *args: Any, **kwargs: Any) -> None:
        self.play_started = time.perf_counter()  # play hooks time the render per animation
        start = self.renderer.time
        waiting = all(isinstance(a, Wait) for a in args)
        pace = self.clock.current_pace
        if pace != 1.0 and not waiting and not self._cueing:  # stretched to its speech
            args = tuple(self.compile_animations(*args))
            base = kwargs.get("run_time") or max(a.get_run_time() for a in args)
            kwargs = {**kwargs, "run_time": base * pace}
        try:
            super().play(*args, **kwargs)
        except EndSceneEarlyException:
            self.cut_short = True
            raise
        if self.renderer.skip_animations:
            self._end_as_drawn(start)
        self.plays.append(
            Play(
                float(start),
                float(self.renderer.time),
                self.beats[-1][0] if self.beats else "",
                waiting,
                # a wait with time-based updaters still moves; Manim marks the waits that do not
                self.is_current_animation_frozen_frame(),
                self._holding_for_speech,
                self._cueing,
            )
        )
        for hook in self.watchers.play:
            hook(self)

    def _end_as_drawn(self, start: float) -> None:
        """Leave a skipped play where a drawn one would have: same clock, same updated state.

        Manim adds a skipped play's exact run time to the clock, while a drawn one adds
        whole frames; and only a drawn one updates the mobjects once more at its end. A
        range rendered with from/upto animation numbers skips the plays before it, so
        without this its speech waits, beat times and always_redraw mobjects would drift
        from the whole render's.
        """
        dt = 1 / self.camera.frame_rate
        if self.is_current_animation_frozen_frame():
            self.renderer.time = start + int(self.duration / dt) * dt
        else:
            time = start
            for _ in np.arange(0, self.duration, 1 / config.frame_rate):
                time += dt  # one addition per frame, as the renderer counts
            self.renderer.time = time
        self.update_mobjects(0)

    def wait_for_speech(self) -> None:
        """Hold the last frame until the current beat's speech (and a breath) is over."""
        self._holding_for_speech = True
        try:
            self._hold_until(self.clock.speech_until)
        finally:
            self._holding_for_speech = False

    def _hold_until(self, moment: float) -> None:
        left = moment - float(self.renderer.time)
        if left > 1e-3:
            # Manim writes int(duration × fps) frames: ask for half a frame more than whole frames
            frames = math.ceil(left * config.frame_rate - 1e-6)
            self.wait((frames + 0.5) / config.frame_rate)

    def while_saying(self, cue: str, *animations: Any, stretch: bool = True, **kwargs: Any) -> None:
        """Play `animations` as the voice reaches the marker `@cue` in this beat's line:
        from there (holding until then), and with `stretch` until the next marker or the
        end of the speech, never faster than written. A marker inside a sentence is timed
        by its share of the sentence's characters. Without the sentences' times they play
        at once, as written."""
        key, began = self.beats[-1]
        marks = say.cues(self.lang, self.slug, key, lambda: self._spoken_numbers)
        if cue not in marks:
            raise CatalogueError(
                f"{say.path_for(self.lang, self.slug)}: say.{key} has no cue @{cue}; start "
                f"the sentence that goes with it with @{cue}"
            )
        self.cues_used.append((key, cue))
        window = self.clock.cue_window(key, began, marks, cue)
        if window is not None:
            self._hold_until(window[0])
            if stretch:
                animations = tuple(self.compile_animations(*animations))
                written = kwargs.get("run_time") or max(a.get_run_time() for a in animations)
                until = window[1] - float(self.renderer.time)
                kwargs = {**kwargs, "run_time": max(written, until)}
        self._cueing = True
        try:
            self.play(*animations, **kwargs)
        finally:
            self._cueing = False
        for hook in self.watchers.cue:
            hook(self, f"{key}@{cue}")

    def tear_down(self) -> None:
        if not self.ended_early() and not self.cut_short:
            self.wait_for_speech()
            for hook in self.watchers.beat:
                hook(self, "<end>")
        super().tear_down()

    def ended_early(self) -> bool:
        """Whether the render stopped at its last animation (upto_animation_number) before the end."""
        upto = config.upto_animation_number
        return upto >= 0 and self.renderer.num_plays > upto

    def stage_mobjects(self, *keep: Mobject) -> list[Mobject]:
        """What is on stage: every mobject but the burned caption and those in `keep`."""
        return [
            m for m in self.mobjects if m is not self._caption and all(m is not k for k in keep)
        ]

    # ----------------------------------------------------------------- cards
    def title_card(self) -> None:
        """The scene's title with its place in the lesson, then clear the stage."""
        cards.title_card(self)

    def takeaway(self, key: str = "takeaway", verdict: str | None = None) -> Mobject:
        """The takeaway beat (with `verdict`, that scheme's marks) and the bridge beat."""
        return cards.takeaway(self, key, verdict)
