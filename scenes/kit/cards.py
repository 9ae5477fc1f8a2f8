"""The cards every chapter shares: its title, its takeaway (with a scheme's verdict and
the bridge to the next chapter) and the burned-in caption."""

from __future__ import annotations

from typing import TYPE_CHECKING

from manim import (
    DOWN,
    RIGHT,
    UP,
    FadeIn,
    FadeOut,
    Indicate,
    LaggedStart,
    Mobject,
    Rectangle,
    VGroup,
    Write,
    config,
)

import pe_math as pm
from lesson.catalogue import lookup
from lesson.text_layout import wrap
from scenes.kit import theme
from scenes.kit.components import Checklist

if TYPE_CHECKING:
    from scenes.kit.base import LessonScene


def title_card(scene: LessonScene) -> None:
    """The scene's title, on screen from the first frame, with its place in the lesson;
    then clear the stage."""
    from lesson.registry import REGISTRY  # the registry imports scene modules lazily

    words, width = scene.words, scene.stage.width()
    info = REGISTRY[scene.slug]
    number = words.text(f"{info.order:02d}", size=theme.HEADING_SIZE, color=theme.ACCENT)
    title = words.lines(lookup(scene.lang, scene.slug, "title"), width, theme.TITLE_SIZE)
    card = VGroup(number, title).arrange(DOWN, buff=0.3)
    title.scale_to_fit_width(min(title.width, width))
    scene.add(title)  # from the first frame: a page that takes it as the thumbnail shows it
    scene.play(FadeIn(number, shift=0.2 * DOWN), run_time=theme.NORMAL)
    scene.wait(theme.READ)
    scene.play(FadeOut(card, shift=0.3 * UP), run_time=theme.SHORT)


def takeaway(scene: LessonScene, key: str, verdict: str | None) -> Mobject:
    """Start the `key` beat, clear the stage and leave the one-line takeaway on screen;
    with `verdict`, that scheme's marks against the requirements under it. Then the
    bridge beat, when the catalogue has one: the next chapter's number and title."""
    scene.beat(key)
    if scene.stage_mobjects():
        scene.play(*[FadeOut(m) for m in scene.stage_mobjects()], run_time=theme.SHORT)
    width = scene.stage.width()
    line = scene.words.lines(
        lookup(scene.lang, scene.slug, key), width, theme.HEADING_SIZE, theme.ACCENT
    )
    line.scale_to_fit_width(min(line.width, width))  # one unbreakable word
    board = VGroup(line)
    if verdict is not None:
        board.add(verdict_card(scene, verdict))
    following = bridge_target(scene)
    if following is not None:
        board.add(next_line(scene, following))
    board.arrange(DOWN, buff=0.6)
    scene.stage.place(board)
    scene.play(Write(line), run_time=theme.NORMAL)
    if verdict is not None:
        card = board[1]
        scene.play(FadeIn(card[0]), run_time=theme.SHORT)
        scene.play(
            LaggedStart(*[FadeIn(row, shift=0.2 * RIGHT) for row in card[1]], lag_ratio=0.3),
            run_time=theme.LONG,
        )
    # the voice reads the takeaway out: each of its lines lights up in turn as it goes
    rows = line if isinstance(line, VGroup) else VGroup(line)
    scene.play(
        LaggedStart(*[Indicate(r, 1.03, color=theme.FOREGROUND) for r in rows], lag_ratio=0.6),
        run_time=theme.LONG,
    )
    scene.wait(theme.SHORT)
    if following is not None:
        scene.beat("bridge")
        scene.play(FadeIn(board[-1], shift=0.2 * UP), run_time=theme.NORMAL)
        scene.wait(theme.READ)
    return line


def verdict_card(scene: LessonScene, scheme: str) -> VGroup:
    """`scheme` against every requirement, marked from pe_math at the scene's knobs."""
    words = scene.words
    checks = pm.verdict(scheme, scene.params).checks
    head = words.text(
        words.common("verdict", scheme=words.common(scheme)), theme.LABEL_SIZE, theme.MUTED
    )
    names = [words.text(n, size=theme.LABEL_SIZE) for n in words.requirement_names(short=True)]
    cols = 1 if scene.stage.shape == "tall" else 2
    marks = Checklist(names, [checks[r] for r in pm.REQUIREMENTS], cols=cols)
    return VGroup(head, marks).arrange(DOWN, buff=0.3)


def bridge_target(scene: LessonScene):
    """The next chapter, when this scene's catalogue has a bridge line to it."""
    from lesson import registry  # the registry imports scene modules lazily

    return registry.bridge_to(scene.slug, scene.lang)


def next_line(scene: LessonScene, info) -> Mobject:
    words = scene.words
    line = words.common("next", order=f"{info.order:02d}", title=info.title(scene.lang))
    return words.lines(line, scene.stage.width(), theme.BODY_SIZE, theme.MUTED)


def burned_caption(scene: LessonScene, line: str) -> VGroup:
    """`line` as a caption over the bottom of the frame, on a dimmed band."""
    # The subtitle wrapper's lines, two to a row: a burned caption has the whole frame width.
    lines = wrap(line, scene.lang)
    sep = "" if scene.lang == "zh" else " "
    rows = [sep.join(lines[i : i + 2]) for i in range(0, len(lines), 2)]
    words = VGroup(*[scene.words.text(r, size=theme.CAPTION_SIZE) for r in rows]).arrange(
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
    caption = VGroup(box, words).to_edge(DOWN, buff=0.15)
    caption.set_z_index(theme.CAPTION_Z)
    return caption
