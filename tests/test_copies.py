"""Mobject copies made by scenes/kit/copies.py are what Manim's own deepcopy makes.

Same types, values, array layouts and sharing: an object shared inside the original's
family is shared inside the copy, and what Manim's copy shares with the original (its
functions, enums, glyph paths) this one shares too, and nothing else.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from manim import (
    Arrow,
    Axes,
    Circle,
    DecimalNumber,
    Dot,
    Group,
    ManimColor,
    MathTex,
    Mobject,
    VGroup,
    always_redraw,
)

from lesson import registry
from scenes.kit import copies
from scenes.kit.components import text
from tests.scene_tools import build_scene


def _walk(orig, ref, ours, seen: dict[int, tuple[int, int]], where: str) -> None:
    if isinstance(ref, str | int | float | type(None)):  # values: who holds them cannot matter
        assert type(ref) is type(ours) and ref == ours, f"{where}: {ref!r} vs {ours!r}"
        return
    if id(orig) in seen:
        assert seen[id(orig)] == (id(ref), id(ours)), f"{where}: shared differently"
        return
    seen[id(orig)] = (id(ref), id(ours))
    assert type(ref) is type(ours), f"{where}: {type(ref).__name__} vs {type(ours).__name__}"
    assert (ref is orig) == (ours is orig), f"{where}: shares with the original differently"
    if ref is orig:
        return
    if isinstance(ref, np.ndarray):
        assert ref.dtype == ours.dtype and ref.shape == ours.shape, where
        assert ref.strides == ours.strides, f"{where}: another memory layout"
        assert np.array_equal(ref, ours, equal_nan=ref.dtype.kind == "f"), where
        assert not np.shares_memory(ours, orig), f"{where}: shares the original's memory"
    elif hasattr(ref, "__dict__"):  # a mobject, a colour, a scale: attribute by attribute
        _walk(vars(orig), vars(ref), vars(ours), seen, where)
    elif isinstance(ref, dict):
        assert list(ref) == list(ours), f"{where}: other attributes"
        for key in ref:  # a copy notes the id of what it copied: the original may not have one
            _walk(orig.get(key, key), ref[key], ours[key], seen, f"{where}.{key}")
    elif isinstance(ref, list | tuple):
        assert len(ref) == len(ours), where
        for i, (a, b, c) in enumerate(zip(orig, ref, ours, strict=True)):
            _walk(a, b, c, seen, f"{where}[{i}]")
    else:
        assert ref == ours, f"{where}: {ref!r} vs {ours!r}"


def assert_copied_as_manim_does(mob: Mobject, monkeypatch) -> None:
    ours = copy.deepcopy(mob)
    with monkeypatch.context() as patch:
        patch.setattr(Mobject, "__deepcopy__", copies.MANIM_COPY)
        ref = copy.deepcopy(mob)
    assert Mobject.__deepcopy__ is not copies.MANIM_COPY  # the faster copy is in place again
    _walk(mob, ref, ours, {}, type(mob).__name__)


def test_copies_of_shapes_text_tex_and_updaters_are_manims(monkeypatch):
    dot = Dot()
    shared = ManimColor("#3366ff")
    circle = Circle(color=shared).set_fill(shared, 0.5)
    follower = always_redraw(lambda: Arrow(dot.get_center(), circle.get_center()))
    group = VGroup(dot, circle, follower, text("words ×8"), MathTex(r"\theta_i"), Axes())
    group.add(DecimalNumber(3.25), group[0])  # a member twice: one copy, two places
    circle.points = np.asfortranarray(circle.points)  # another layout
    assert_copied_as_manim_does(group, monkeypatch)


@pytest.mark.parametrize("slug", ["clock-hands"])
def test_copies_of_a_built_stage_are_manims(slug, monkeypatch):
    scene, _ = build_scene(registry.get(slug).load())
    assert scene.mobjects
    assert_copied_as_manim_does(Group(*scene.mobjects), monkeypatch)


@pytest.mark.parametrize("quality", ["t", "l"])
def test_a_line_wider_than_the_frames_pixels_is_set_whole(quality):
    """Pango leaves out the glyphs past the frame's pixel width: a long Chinese line of
    integer-scale failed to render at every quality."""
    from manim import config, tempconfig

    from rendering.core import settings

    line = "原论文把词嵌入乘以 √512 ≈ 22.6；它的位置编码（后面会讲）在每个 p 长度都是 16.0"
    with tempconfig(settings.geometry(quality, "16:9").manim_frame()):
        copies._made.cache_clear()
        whole = text(line)
        assert config.pixel_width < 1000
    assert len(whole.submobjects) == len(line) and whole.width > text(line[:-1]).width
