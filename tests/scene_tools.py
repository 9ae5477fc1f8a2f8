"""Helpers for scene tests: build a scene without rendering frames, check its layout."""

from __future__ import annotations

import functools
import itertools
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

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
    tempconfig,
)

from lesson import reads, registry, say
from lesson.catalogue import catalogue, lookup
from lesson.speaker import speaker
from pe_math import Params
from rendering.draw import motion
from scenes.kit import theme
from scenes.kit.base import UNWATCHED, LessonScene, Watchers
from scenes.kit.on_screen import (
    em_px,
    in_logo_corner,
    low_contrast,
    low_contrast_lines,
    scene_content,
    texts_on,
)

EDGE_TOLERANCE = 0.02  # scene units a glyph may touch past the frame edge
OVERLAP_TOLERANCE = 0.01  # scene units² two texts' boxes may share (anti-aliasing, kerning)
# text by design (the takeaway line, and the next chapter's title): not counted in the fill
TEXT_ONLY_BEATS = {"takeaway", "bridge"}


@dataclass
class LayoutReport:
    problems: list[str] = field(default_factory=list)
    checked_beats: list[str] = field(default_factory=list)
    # What is on stage as each beat STARTS (so it shows how the beat before it ended):
    # beat -> texts and TeX, and beat -> live DecimalNumbers; "<end>" is the final frame.
    words_at_start: dict[str, list[str]] = field(default_factory=dict)
    values_at_start: dict[str, list[float]] = field(default_factory=dict)
    fields_read: set[str] = field(default_factory=set)  # the Params fields the build read
    # beat -> share of the stage's height its content covers when the beat ENDS
    fill: dict[str, float] = field(default_factory=dict)
    frame_fill: dict[str, float] = field(default_factory=dict)  # ... and of the frame's
    smallest_px: float = float("inf")  # the smallest text's em, in pixels at a 480 short side
    too_small: list[str] = field(default_factory=list)  # texts under theme.MIN_TEXT_PX

    def assert_clean(self) -> None:
        assert not self.problems, "layout problems:\n" + "\n".join(self.problems)

    def assert_readable(self) -> None:
        assert not self.too_small, "text too small to read:\n" + "\n".join(self.too_small)

    def mean_fill(self) -> float:
        """Average stage fill over the beats that build a stage (the takeaway is one line)."""
        shares = [f for beat, f in self.fill.items() if beat not in TEXT_ONLY_BEATS]
        return float(np.mean(shares)) if shares else 1.0

    def assert_fills_the_wide_frame(self) -> None:
        """In 16:9, the median beat's content spans theme.WIDE_FRAME_FILL of the frame's height."""
        shares = [f for beat, f in self.frame_fill.items() if beat not in TEXT_ONLY_BEATS]
        per_beat = ", ".join(f"{b} {f:.0%}" for b, f in self.frame_fill.items())
        assert np.median(shares) >= theme.WIDE_FRAME_FILL, (
            f"the median beat spans {np.median(shares):.0%} of the frame's height "
            f"(needs {theme.WIDE_FRAME_FILL:.0%}): {per_beat}"
        )

    def assert_fills_the_stage(self) -> None:
        per_beat = ", ".join(f"{b} {f:.0%}" for b, f in self.fill.items())
        assert self.mean_fill() >= theme.MIN_STAGE_FILL, (
            f"content covers {self.mean_fill():.0%} of the stage on average "
            f"(needs {theme.MIN_STAGE_FILL:.0%}): {per_beat}"
        )


def visible_texts(scene: LessonScene) -> list[Mobject]:
    """Outermost text-like mobjects on stage that are not fully transparent (a burned-in
    caption band is not scene content)."""
    return [m for m in texts_on(scene_content(scene)) if _visible(m)]


def words(mobs: list[Mobject]) -> list[str]:
    """The text of each Text and the TeX source of each formula."""
    return [getattr(m, "original_text", None) or getattr(m, "tex_string", "") for m in mobs]


def _visible(m: Mobject) -> bool:
    opacities = [sub.get_fill_opacity() for sub in m.family_members_with_points()]
    return bool(opacities) and max(opacities) > 0.05 and m.width > 0 and m.height > 0


def _box(m: Mobject) -> tuple[float, float, float, float]:
    """(left, bottom, right, top): what get_left()[0] ... get_top()[1] give, in one pass
    over the boundary points instead of four."""
    points = m.get_points_defining_boundary()
    if len(points) == 0:
        return 0.0, 0.0, 0.0, 0.0
    lo, hi = points.min(axis=0), points.max(axis=0)
    return lo[0], lo[1], hi[0], hi[1]


def _describe(m: Mobject) -> str:
    if isinstance(m, Text | MarkupText):
        return f"Text({m.original_text!r})"
    if isinstance(m, MathTex | Tex | SingleStringMathTex):
        return f"{type(m).__name__}({m.tex_string!r})"
    if isinstance(m, DecimalNumber):
        return f"DecimalNumber({m.get_value():.3f})"
    return type(m).__name__


def stage_fill(scene: LessonScene) -> float:
    """The share of the stage's height covered by what is on it (the caption band aside)."""
    boxes = [
        _box(m)
        for m in scene.stage_mobjects()
        if m.z_index < theme.CAPTION_Z and m.family_members_with_points() and _visible_any(m)
    ]
    if not boxes:
        return 0.0
    top, bottom = max(b[3] for b in boxes), min(b[1] for b in boxes)
    return min(1.0, (top - bottom) / scene.stage.height())


def _visible_any(m: Mobject) -> bool:
    return any(
        isinstance(sub, VMobject) and max(sub.get_fill_opacity(), sub.get_stroke_opacity()) > 0.05
        for sub in m.family_members_with_points()
    )


def check_layout(scene: LessonScene, beat: str, report: LayoutReport) -> None:
    """Every visible text inside the frame, big enough to read; no two texts overlapping."""
    if report.checked_beats:  # the stage now shows how the previous beat ended
        ended = report.checked_beats[-1]
        report.fill[ended] = stage_fill(scene)
        report.frame_fill[ended] = report.fill[ended] * scene.stage.height() / config.frame_height
    report.checked_beats.append(beat)
    half_w, half_h = config.frame_width / 2, config.frame_height / 2
    texts = visible_texts(scene)
    for m in texts:
        px = em_px(m)
        report.smallest_px = min(report.smallest_px, px)
        if px < theme.MIN_TEXT_PX - 0.05:
            report.too_small.append(
                f"[{beat}] {_describe(m)} is {px:.1f} px (em at 480p); needs {theme.MIN_TEXT_PX}"
            )
    for low in low_contrast(scene) + low_contrast_lines(scene):
        report.problems.append(f"[{beat}] {low}")
    for shown in in_logo_corner(scene):
        report.problems.append(f"[{beat}] {shown} is in the corner kept for a logo")
    report.words_at_start[beat] = words(texts)
    report.values_at_start[beat] = [m.get_value() for m in texts if isinstance(m, DecimalNumber)]
    boxes = [_box(m) for m in texts]
    for m, box in zip(texts, boxes, strict=True):
        x0, y0, x1, y1 = box
        if (
            x0 < -half_w - EDGE_TOLERANCE
            or x1 > half_w + EDGE_TOLERANCE
            or y0 < -half_h - EDGE_TOLERANCE
            or y1 > half_h + EDGE_TOLERANCE
        ):
            report.problems.append(
                f"[{beat}] {_describe(m)} leaves the frame: box {np.round(box, 2)}"
            )
    for (a, (ax0, ay0, ax1, ay1)), (b, (bx0, by0, bx1, by1)) in itertools.combinations(
        zip(texts, boxes, strict=True), 2
    ):
        overlap = max(0.0, min(ax1, bx1) - max(ax0, bx0)) * max(0.0, min(ay1, by1) - max(ay0, by0))
        if overlap > OVERLAP_TOLERANCE:
            report.problems.append(
                f"[{beat}] {_describe(a)} overlaps {_describe(b)} ({overlap:.3f} units²)"
            )


@functools.cache
def _shared_media_dir() -> Path:
    """One throwaway media folder per test process: Manim's text and TeX caches are reused
    across builds, and nothing is written into the project."""
    return Path(tempfile.mkdtemp(prefix="pe-scene-tests-"))


def build_scene(
    cls: type[LessonScene],
    params: Params | None = None,
    lang: str = "en",
    tmp: Path | None = None,
    speech: dict[str, float] | None = None,
    pace: dict[str, float] | None = None,
    sentences: dict[str, list[tuple[float, float]]] | None = None,
    watchers: Watchers = UNWATCHED,
) -> tuple[LessonScene, LayoutReport]:
    """Run construct() with animations skipped (no frames, no files) and check layout at every beat.

    `speech` (beat -> seconds) times the beats as a narration would, `sentences` the
    sentences inside them, and `pace` stretches beats' animations. A lesson scene given
    neither is timed by `estimated_speech`, as a narrated render would time it; `speech={}`
    builds it silent. Builds are shared between tests: the same scene, knobs, timing and
    language are built once per test process (the scene's own tests, its frame-shape
    checks and the field probe run on one worker: conftest.py).
    """
    params = params if params is not None else Params()
    if speech is None and sentences is None and _is_lesson_scene(cls):
        speech, sentences = estimated_speech(cls, lang, params)
    if tmp is not None or watchers != UNWATCHED or pace:  # one of its own
        return _build(cls, params, lang, tmp, speech, pace, sentences, watchers)
    frame = (config.frame_width, config.frame_height, config.pixel_width, config.pixel_height)
    timing = (
        tuple(sorted((speech or {}).items())),
        tuple(sorted((k, tuple(map(tuple, v))) for k, v in (sentences or {}).items())),
    )
    return _shared_build(cls, params, lang, timing, frame)


def _is_lesson_scene(cls: type[LessonScene]) -> bool:
    return any(info.slug == cls.slug and info.load() is cls for info in registry.MISSION)


@functools.lru_cache(maxsize=24)
def _shared_build(cls, params, lang, timing, frame) -> tuple[LessonScene, LayoutReport]:
    speech, sentences = (dict(part) or None for part in timing)
    return _build(cls, params, lang, None, speech, None, sentences)


def _build(
    cls, params, lang, tmp, speech, pace=None, sentences=None, watchers=UNWATCHED
) -> tuple[LessonScene, LayoutReport]:
    report = LayoutReport()
    hook = lambda scene, beat: check_layout(scene, beat, report)  # noqa: E731
    at_cues = LayoutReport()  # as every cued animation ends: only its problems count
    cue_hook = lambda scene, cue: check_layout(scene, cue, at_cues)  # noqa: E731
    watchers = replace(watchers, beat=(*watchers.beat, hook), cue=(*watchers.cue, cue_hook))
    settings = {
        "dry_run": True,
        "quality": "low_quality",
        # ... which sets its own pixel size: the frame's shape is kept
        "pixel_width": config.pixel_width,
        "pixel_height": config.pixel_height,
        "disable_caching": True,
        "progress_bar": "none",
        "verbosity": "WARNING",
        "media_dir": str(tmp if tmp is not None else _shared_media_dir()),
    }
    # the knobs it reads are noted as a render notes them (lesson.reads)
    with tempconfig(settings), reads.watching() as read:
        # skip_animations jumps each play to its end state: no frames are drawn
        scene = cls(
            params=params,
            lang=lang,
            skip_animations=True,
            speech=speech,
            pace=pace,
            sentences=sentences,
            watchers=watchers,
        )
        scene.render()
    report.fields_read.update(read.knob_names())
    report.problems += at_cues.problems + unplayed_cues(scene)
    report.too_small += at_cues.too_small
    return scene, report


def unplayed_cues(scene: LessonScene) -> list[str]:
    """Cues a beat's line marks that the scene never plays with (the other way round,
    while_saying itself raises)."""
    problems = []
    lines = catalogue(scene.lang, scene.slug).get("say", {})
    for key, _ in scene.beats:
        if key not in lines:
            continue
        marked = say.cues(scene.lang, scene.slug, key, lambda: scene.numbers(scene.params))
        played = {cue for beat, cue in scene.cues_used if beat == key}
        problems += [
            f"[{key}] the line marks @{cue}, which the scene never plays"
            for cue in sorted(set(marked) - played)
        ]
    return problems


def estimated_speech(
    cls: type[LessonScene], lang: str, params: Params | None = None
) -> tuple[dict[str, float], dict[str, list[tuple[float, float]]]]:
    """rendering.speech.estimate.estimated_speech of a scene class."""
    from rendering.speech.estimate import estimated_speech as of_slug

    return of_slug(cls.slug, lang, params)


def build_and_read(
    cls: type[LessonScene], params: Params | None = None, lang: str = "en"
) -> tuple[LessonScene, LayoutReport, dict[str, list[str]], dict[str, list[float]]]:
    """build_scene, and what was on stage as each beat started: its words and live numbers."""
    scene, report = build_scene(cls, params, lang)
    return scene, report, report.words_at_start, report.values_at_start


def build_in(
    cls: type[LessonScene],
    aspect: str,
    lang: str = "en",
    params: Params | None = None,
    **timing,
) -> tuple[LessonScene, LayoutReport]:
    """build_scene in the frame of an aspect ("16:9", "9:16", "1:1") at the 480-line preset
    (`timing`: build_scene's speech, pace, sentences and watchers)."""
    from rendering.core import settings

    geo = settings.geometry("l", aspect, settings.SHAPES[aspect] in cls.SHAPES)
    with tempconfig(geo.manim_frame()):
        return build_scene(cls, params, lang, **timing)


def squash(words: str | list[str]) -> str:
    """Words without spaces: a label broken into lines reads the same as the whole."""
    text = words if isinstance(words, str) else "".join(words)
    return "".join(text.split())


def alternating_langs(cases: dict) -> list[tuple[str, str]]:
    """(case, lang) pairs: the first case in both languages, each other case in one,
    taking turns. A knob changes the numbers the same way in either language, and each
    language's wording is still built at changed knobs."""
    first, *others = cases
    return [(first, "en"), (first, "zh")] + [
        (case, ("zh", "en")[i % 2]) for i, case in enumerate(others)
    ]


def catalogue_ui(slug: str) -> Callable[..., str]:
    """ui(lang, key, **values): the scene's catalogue text ui.<key>, its slots filled."""

    def ui(lang: str, key: str, **values) -> str:
        return speaker(lang).format(lookup(lang, slug, f"ui.{key}"), **values)

    return ui


# ------------------------------------------------- by hand, apart from pe_math
def omegas(d: int, base: float, variant: str = "paper") -> np.ndarray:
    """ω_i written out: base^(-2i/d), or tensor2tensor's base^(-i/(d/2-1))."""
    i = np.arange(d // 2, dtype=float)
    if variant == "t2t":
        return base ** (-i / max(d // 2 - 1, 1))
    return base ** (-2 * i / d)


def bits(p: int, n: int) -> np.ndarray:
    """The n bits of p, lowest first."""
    return np.array([(p >> k) & 1 for k in range(n)], dtype=float)


# --------------------------------------------------------------- pacing without a build
def pace_for(plays, speech: dict[str, float], most: float = motion.MOST_PACE) -> dict[str, float]:
    """Beat -> the factor that stretches its animations (not its waits) until they and
    its own waits fill its speech and breath (beat_pace); only the beats it stretches,
    never those that play with their sentences. The beat lasts as long as before: only
    the hold at its end shrinks."""
    return motion.pace_for_inputs(motion.pace_inputs(plays), speech, most)


def with_pace(plays, beats: list[tuple[str, float]], pace: dict[str, float]):
    """The plays and beat starts as `pace` would time them, worked out from a build
    without it: a paced beat's animations run longer, and the hold for its speech at its
    end is shorter by as much (a beat grows only where nothing is left to shorten)."""
    out, shift, added = [], 0.0, 0.0
    starts = dict(beats)
    moved = {}
    for play in plays:
        if play.beat in starts and play.beat not in moved:
            moved[play.beat] = starts[play.beat] + shift
            added = 0.0
        length = play.seconds
        if not play.wait and not play.cued:
            length *= pace.get(play.beat, 1.0)
            added += length - play.seconds
        elif play.for_speech:
            length, added = max(0.0, length - added), max(0.0, added - length)
        start = play.start + shift
        shift += length - play.seconds
        if length > 1e-3:  # a hold with nothing left to wait is not played
            out.append(replace(play, start=start, end=start + length))
    return out, [(key, moved.get(key, start + shift)) for key, start in beats]
