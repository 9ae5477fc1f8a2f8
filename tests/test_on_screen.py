"""Each text's contrast against what is drawn behind it, from the scene's mobjects."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from manim import BLACK, RIGHT, UR, Circle, ManimColor, Rectangle

from lesson.palette import PALETTE, contrast_ratio
from scenes.kit import on_screen, theme
from scenes.kit.components import HeatGrid, text


def on_stage(*mobjects):
    """A stage as a scene shows it: these mobjects over the lesson's background."""
    camera = SimpleNamespace(background_color=ManimColor(PALETTE["background"]))
    return SimpleNamespace(mobjects=list(mobjects), camera=camera)


def test_a_dim_label_is_low_and_the_palette_text_is_not():
    dim = text("dim", size=theme.LABEL_SIZE, color="#3a3f4a")
    fine = text("fine", size=theme.LABEL_SIZE, color=theme.MUTED).next_to(dim, RIGHT)
    (low,) = on_screen.low_contrast(on_stage(dim, fine))
    assert low.text == "dim" and low.needed == 4.5
    assert low.ratio == pytest.approx(contrast_ratio("#3a3f4a", PALETTE["background"]), abs=0.01)


def test_a_label_on_a_cell_of_nearly_its_colour_is_low_but_not_beside_it():
    cell = Rectangle(width=2, height=1, fill_color=theme.POSITIVE, fill_opacity=1, stroke_width=0)
    on_cell = text("0.9", size=theme.LABEL_SIZE, color="#f7b27a").move_to(cell)
    beside = text("0.9", size=theme.LABEL_SIZE, color="#f7b27a").next_to(cell, RIGHT)
    found = on_screen.contrasts(on_stage(cell, on_cell, beside))
    assert [c.low for c in found] == [True, False]
    assert found[0].ratio == pytest.approx(contrast_ratio("#f7b27a", PALETTE["positive"]), abs=0.01)
    # drawn before the cell, the label is hidden under it, not read against it
    assert on_screen.contrasts(on_stage(on_cell.copy(), cell))[0].ratio > 4.5


def test_a_round_shape_covers_only_its_inside_and_a_faint_panel_blends():
    disc = Circle(radius=1, fill_color=theme.ACCENT, fill_opacity=1, stroke_width=0)
    corner = text("x", size=theme.LABEL_SIZE, color=theme.ACCENT).move_to(disc.get_corner(UR))
    corner.shift(0.15 * np.array([-1, -1, 0]))  # in the box, outside the circle
    assert on_screen.contrasts(on_stage(disc, corner))[0].ratio > 4.5
    panel = Rectangle(width=3, height=2, fill_color="#ffffff", fill_opacity=0.5, stroke_width=0)
    label = text("on a panel", size=theme.LABEL_SIZE, color="#ffffff")
    (c,) = on_screen.contrasts(on_stage(panel, label))
    bg = np.array(ManimColor(PALETTE["background"]).to_rgb())
    behind = 0.5 * np.ones(3) + 0.5 * bg
    assert c.ratio == pytest.approx(contrast_ratio(np.ones(3), behind), rel=1e-6)


def test_large_text_needs_three_to_one():
    colour = "#6b6f7a"  # about 3.6:1 on the background
    big = text("Title", size=theme.TITLE_SIZE, color=colour)
    small = text("note", size=theme.SMALL_SIZE, color=colour).next_to(big, RIGHT)
    assert [c.needed for c in on_screen.contrasts(on_stage(big, small))] == [3.0, 4.5]
    assert [c.text for c in on_screen.low_contrast(on_stage(big, small))] == ["note"]


def test_every_value_on_a_heat_map_reads_on_its_own_cell():
    values = np.linspace(-1, 1, 41).reshape(1, -1)
    for colormap in (theme.diverging, theme.sequential):
        grid = HeatGrid(values, vmin=-1, vmax=1, colormap=colormap, digits=2)
        found = on_screen.contrasts(on_stage(grid))
        assert len(found) == values.size
        assert min(c.ratio for c in found) >= 4.5, colormap.__name__


def test_a_text_is_read_against_the_scene_background_not_black():
    grey = text("grey", size=theme.LABEL_SIZE, color="#787878")  # 4.76:1 on black
    on_lesson = on_stage(grey)
    on_black = SimpleNamespace(mobjects=[grey], camera=SimpleNamespace(background_color=BLACK))
    assert on_screen.low_contrast(on_black) == []
    (low,) = on_screen.low_contrast(on_lesson)
    assert low.ratio == pytest.approx(contrast_ratio("#787878", PALETTE["background"]), abs=0.01)


def test_a_faint_line_is_low_but_not_a_grid_line_a_faded_one_or_a_text():
    from manim import Line

    faint = Line(stroke_color="#3a3f4a", stroke_width=4)
    axis = Line(stroke_color=theme.MUTED, stroke_width=4).shift(RIGHT)
    grid = Line(stroke_color=theme.NEUTRAL, stroke_width=4)  # faint by design
    faded = Line(stroke_color=theme.WORD_A, stroke_width=4).set_stroke(opacity=0.3)
    hairline = Line(stroke_color="#3a3f4a", stroke_width=1)
    label = text("dim", size=theme.LABEL_SIZE, color="#3a3f4a")  # its own check's
    (low,) = on_screen.low_contrast_lines(on_stage(faint, axis, grid, faded, hairline, label))
    assert low.text == "Line #3a3f4a" and low.needed == 3.0
    assert low.ratio == pytest.approx(contrast_ratio("#3a3f4a", PALETTE["background"]), abs=0.01)
