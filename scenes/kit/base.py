"""LessonScene: what every lesson scene shares (params, language, beats, cards)."""

from __future__ import annotations

import functools
import math
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Camera,
    FadeIn,
    FadeOut,
    Indicate,
    LaggedStart,
    Mobject,
    Rectangle,
    Scene,
    Text,
    VGroup,
    Wait,
    Write,
    config,
)
from manim.constants import RendererType
from manim.utils.exceptions import EndSceneEarlyException

import pe_math as pm
from lesson import reads, say
from lesson.catalogue import COMMON, CatalogueError, fill, lookup
from lesson.text_layout import balanced_rows, break_units, listing, wrap
from lesson.timing import BREATH
from pe_math import Params
from scenes.kit import theme
from scenes.kit.components import Checklist, text
from scenes.kit.skip_renderer import SkipRenderer

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
    # and gaps chosen once, so its beats read `self.layout` instead of asking the shape.
    # A chapter gives them as `class Chapter(LessonScene, layouts=LAYOUTS)`, which also
    # makes those shapes its SHAPES.
    LAYOUTS: ClassVar[Mapping[str, Any]] = {}
    # Whether the pipeline may draw the scene in ranges of animations on several workers.
    # A range skips the plays before it (they end without drawing), so a scene whose state
    # depends on drawn frames (an updater that integrates dt) must set this False.
    SPLITS: ClassVar[bool] = True
    # Called at every beat boundary and at the end; tests use it to check layout.
    beat_hooks: ClassVar[list[BeatHook]] = []
    # Called after every cued play with the scene and "beat@cue"; tests check layout there too.
    cue_hooks: ClassVar[list[BeatHook]] = []
    # Called after every play and wait with the scene; the pipeline reports progress from it.
    play_hooks: ClassVar[list[Callable[[LessonScene], None]]] = []

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
        **kwargs: Any,
    ) -> None:
        self.params = reads.watched(params if params is not None else Params.load())
        self.lang = lang or os.environ.get("PE_LANG", "en")
        self.burn_captions = burn_captions
        self.beats: list[tuple[str, float]] = []
        self.speech = dict(speech or {})
        # beat -> how much slower its animations run, so that they fill its speech
        self.pace = dict(pace or {})
        self._pace = 1.0
        self.sentences = {key: list(spans) for key, spans in (sentences or {}).items()}
        self._cueing = False
        self._holding_for_speech = False
        self.plays: list[Play] = []  # every play and wait: where the picture moves and holds
        self.cues_used: list[tuple[str, str]] = []  # (beat, cue) as while_saying met them
        self._speech_until = 0.0
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

    def setup(self) -> None:
        super().setup()
        self._draw_or_skip(reads.PRELUDE)

    def _draw_or_skip(self, key: str) -> None:
        if self.skip_beats:
            self.next_section(key or "prelude", skip_animations=key in self.skip_beats)

    # --------------------------------------------------------------- numbers
    @classmethod
    def numbers(cls, params: Params) -> Any:
        """Every number this scene shows, from pe_math: a frozen dataclass of plain JSON values."""
        raise NotImplementedError

    @functools.cached_property
    def _spoken_numbers(self) -> Any:
        """numbers() for burned captions that say a number: made once, when first asked."""
        return self.numbers(self.params)

    # ----------------------------------------------------------------- words
    def ui(self, key: str, **values: Any) -> str:
        """An on-screen label in the scene's language, with `{name}` slots filled."""
        return fill(self.lang, self.slug, f"ui.{key}", **values)

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

    def listing(self, items) -> str:
        """Items as a list in the scene's language: "0, 1, 2" or "0、1、2"."""
        return listing(items, self.lang)

    def lines(
        self, words: str, max_width: float, size: float = theme.BODY_SIZE, color=theme.FOREGROUND
    ) -> Mobject:
        """`words` as one Text if it fits `max_width`, else as left-aligned lines that do."""
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
            DOWN, buff=0.1, aligned_edge=LEFT
        )

    # ----------------------------------------------------------------- beats
    def beat(self, key: str) -> None:
        """Start narration beat `key`: record its time (and burn its caption if asked)."""
        self.wait_for_speech()  # the hold ends the beat before: drawn or skipped with it
        if key == self.stop_at:
            self.cut_short = self.stopped = True
            raise EndSceneEarlyException()
        if reads.ACTIVE is not None:
            reads.ACTIVE.enter(key)
        self._draw_or_skip(key)
        self._run_hooks(key)
        start = float(self.renderer.time)
        self.beats.append((key, start))
        if key in self.speech:
            self._speech_until = start + self.speech[key] + BREATH
        self._pace = self.pace.get(key, 1.0)
        if self.burn_captions:
            self._show_caption(say.fill(self.lang, self.slug, key, lambda: self._spoken_numbers))

    def play(self, *args: Any, **kwargs: Any) -> None:
        self.play_started = time.perf_counter()  # play hooks time the render per animation
        start = self.renderer.time
        waiting = all(isinstance(a, Wait) for a in args)
        if self._pace != 1.0 and not waiting and not self._cueing:  # stretched to its speech
            args = tuple(self.compile_animations(*args))
            base = kwargs.get("run_time") or max(a.get_run_time() for a in args)
            kwargs = {**kwargs, "run_time": base * self._pace}
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
        for hook in type(self).play_hooks:
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
            self._hold_until(self._speech_until)
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
        marks = self.cue_marks(key)
        if cue not in marks:
            raise CatalogueError(
                f"{say.path_for(self.lang, self.slug)}: say.{key} has no cue @{cue}; start "
                f"the sentence that goes with it with @{cue}"
            )
        self.cues_used.append((key, cue))
        spans = self.sentences.get(key, [])
        start = marks[cue].at(spans)
        if start is not None:
            later = [at for m in marks.values() if (at := m.at(spans)) is not None and at > start]
            end = min(later, default=spans[-1][1])
            self._hold_until(began + start)
            if stretch:
                animations = tuple(self.compile_animations(*animations))
                written = kwargs.get("run_time") or max(a.get_run_time() for a in animations)
                until = began + end - float(self.renderer.time)
                kwargs = {**kwargs, "run_time": max(written, until)}
        self._cueing = True
        try:
            self.play(*animations, **kwargs)
        finally:
            self._cueing = False
        for hook in type(self).cue_hooks:
            hook(self, f"{key}@{cue}")

    def cue_marks(self, key: str) -> dict[str, say.Cue]:
        """Cue name -> where in beat `key`'s line its marker sits."""
        return say.cues(self.lang, self.slug, key, lambda: self._spoken_numbers)

    def tear_down(self) -> None:
        if not self.ended_early() and not self.cut_short:
            self.wait_for_speech()
            self._run_hooks("<end>")
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

    def _run_hooks(self, key: str) -> None:
        for hook in type(self).beat_hooks:
            hook(self, key)

    def _show_caption(self, line: str) -> None:
        if self._caption is not None:
            self.remove(self._caption)
        # The subtitle wrapper's lines, two to a row: a burned caption has the whole frame width.
        lines = wrap(line, self.lang)
        sep = "" if self.lang == "zh" else " "
        rows = [sep.join(lines[i : i + 2]) for i in range(0, len(lines), 2)]
        words = VGroup(*[self.text(r, size=theme.CAPTION_SIZE) for r in rows]).arrange(
            DOWN, buff=0.08
        )
        words.scale_to_fit_width(min(words.width, config.frame_width - 2 * theme.MARGIN))
        box = Rectangle(
            width=words.width + 0.4,
            height=words.height + 0.25,
            stroke_width=0,
            fill_color=theme.BACKGROUND,
            fill_opacity=0.8,
        )
        self._caption = VGroup(box, words).to_edge(DOWN, buff=0.15)
        self._caption.set_z_index(100)
        self.add(self._caption)

    # ----------------------------------------------------------------- cards
    def title_card(self) -> None:
        """The scene's title with its place in the lesson, then clear the stage."""
        from lesson.registry import REGISTRY  # the registry imports scene modules lazily

        info = REGISTRY[self.slug]
        number = self.text(f"{info.order:02d}", size=theme.HEADING_SIZE, color=theme.ACCENT)
        title = self.lines(
            lookup(self.lang, self.slug, "title"), self.stage_width(), theme.TITLE_SIZE
        )
        card = VGroup(number, title).arrange(DOWN, buff=0.3)
        title.scale_to_fit_width(min(title.width, self.stage_width()))
        self.play(FadeIn(number, shift=0.2 * DOWN), Write(title), run_time=theme.NORMAL)
        self.wait(theme.READ)
        self.play(FadeOut(card, shift=0.3 * UP), run_time=theme.SHORT)

    def takeaway(self, key: str = "takeaway", verdict: str | None = None) -> Mobject:
        """Start the `key` beat, clear the stage and leave the one-line takeaway on screen;
        with `verdict`, that scheme's marks against the requirements under it. Then the
        bridge beat, when the catalogue has one: the next chapter's number and title."""
        self.beat(key)
        if self.stage_mobjects():
            self.play(*[FadeOut(m) for m in self.stage_mobjects()], run_time=theme.SHORT)
        line = self.lines(
            lookup(self.lang, self.slug, key), self.stage_width(), theme.HEADING_SIZE, theme.ACCENT
        )
        line.scale_to_fit_width(min(line.width, self.stage_width()))  # one unbreakable word
        board = VGroup(line)
        if verdict is not None:
            board.add(self.verdict_card(verdict))
        following = self.bridge_target()
        if following is not None:
            board.add(self.next_line(following))
        board.arrange(DOWN, buff=0.6)
        self.fit_to_stage(board)
        self.play(Write(line), run_time=theme.NORMAL)
        if verdict is not None:
            card = board[1]
            self.play(FadeIn(card[0]), run_time=theme.SHORT)
            self.play(
                LaggedStart(*[FadeIn(row, shift=0.2 * RIGHT) for row in card[1]], lag_ratio=0.3),
                run_time=theme.LONG,
            )
        # the voice reads the takeaway out: each of its lines lights up in turn as it goes
        rows = line if isinstance(line, VGroup) else VGroup(line)
        self.play(
            LaggedStart(*[Indicate(r, 1.03, color=theme.FOREGROUND) for r in rows], lag_ratio=0.6),
            run_time=theme.LONG,
        )
        self.wait(theme.SHORT)
        if following is not None:
            self.beat("bridge")
            self.play(FadeIn(board[-1], shift=0.2 * UP), run_time=theme.NORMAL)
            self.wait(theme.READ)
        return line

    # ------------------------------------------------------------- shared words
    def common(self, key: str, **values: Any) -> str:
        """A label from the catalogue of words several scenes share."""
        return fill(self.lang, COMMON, f"ui.{key}", **values)

    def requirement_names(self, short: bool = False) -> list[str]:
        return [self.common(f"short_{r}" if short else r) for r in pm.REQUIREMENTS]

    def verdict_card(self, scheme: str) -> VGroup:
        """`scheme` against every requirement, marked from pe_math at the scene's knobs."""
        checks = pm.verdict(scheme, self.params).checks
        head = self.text(
            self.common("verdict", scheme=self.common(scheme)), theme.LABEL_SIZE, theme.MUTED
        )
        names = [self.text(n, size=theme.LABEL_SIZE) for n in self.requirement_names(short=True)]
        cols = 1 if self.shape == "tall" else 2
        marks = Checklist(names, [checks[r] for r in pm.REQUIREMENTS], cols=cols)
        return VGroup(head, marks).arrange(DOWN, buff=0.3)

    def bridge_target(self):
        """The next chapter, when this scene's catalogue has a bridge line to it."""
        from lesson import registry  # the registry imports scene modules lazily

        return registry.bridge_to(self.slug, self.lang)

    def next_line(self, info) -> Mobject:
        words = self.common("next", order=f"{info.order:02d}", title=info.title(self.lang))
        return self.lines(words, self.stage_width(), theme.BODY_SIZE, theme.MUTED)

    # ----------------------------------------------------------------- stage
    @property
    def shape(self) -> str:
        """The shape to lay out for: the frame's ("wide", "tall" or "square") when the
        scene composes for it, else "wide" (the 16:9 layout, whole inside the frame)."""
        shape = theme.frame_shape(config.frame_width, config.frame_height)
        return shape if shape in self.SHAPES else "wide"

    @property
    def layout(self) -> Any:
        """The scene's layout record (from LAYOUTS) for the shape it lays out for."""
        return self.LAYOUTS[self.shape]

    def caption_band(self) -> float:
        """Height kept free at the bottom for burned-in captions (none without them)."""
        return theme.CAPTION_BAND if self.burn_captions else 0.0

    def stage_height(self) -> float:
        """The height a scene may fill: the frame inside its margins, above any caption band."""
        return config.frame_height - 2 * theme.MARGIN - self.caption_band()

    def stage_bottom(self) -> float:
        """The lowest y a scene may use (above any caption band)."""
        return -config.frame_height / 2 + theme.MARGIN + self.caption_band()

    def stage_width(self) -> float:
        return config.frame_width - 2 * theme.MARGIN

    def fit_to_stage(self, mob: Mobject, grow: bool = False) -> Mobject:
        """Fit `mob` into the stage (with `grow`, fill it) and centre it there."""
        band = self.caption_band()
        share = self.stage_height() / (config.frame_height - 2 * theme.MARGIN)
        self.fit(mob, height_share=share, grow=grow)
        return mob.move_to(band / 2 * UP)

    def fill_below(
        self, anchor: Mobject, mob: Mobject, wide_share: float, buff: float = 0.5
    ) -> Mobject:
        """Place `mob` under `anchor`: in 16:9 grown or shrunk to `wide_share` of the stage's
        height (or its width); in a tall frame grown (at most 1.4×) or shrunk to the room
        left below the anchor."""
        if self.shape == "wide":
            self.fit(mob, 1.0, wide_share, grow=True)
        else:
            room = anchor.get_bottom()[1] - buff - self.stage_bottom()
            factor = min(
                1.4, room / max(mob.height, 1e-6), self.stage_width() / max(mob.width, 1e-6)
            )
            mob.scale(factor)
        return mob.next_to(anchor, DOWN, buff=buff)

    def fit(
        self,
        mob: Mobject,
        width_share: float = 1.0,
        height_share: float = 1.0,
        grow: bool = False,
    ) -> Mobject:
        """Scale `mob` down to fit a share of the frame inside the margins; with `grow`,
        up as well, until it meets that share's width or height."""
        max_w = (config.frame_width - 2 * theme.MARGIN) * width_share
        max_h = (config.frame_height - 2 * theme.MARGIN) * height_share
        factor = min(max_w / max(mob.width, 1e-6), max_h / max(mob.height, 1e-6))
        return mob.scale(factor if grow else min(1.0, factor))
