"""Reusable mobjects: the live numbers set in the theme font."""

import numpy as np
import pytest

from scenes import theme
from scenes.components import LiveNumber, ThemeGlyph


def test_live_digits_sit_in_fixed_slots_so_a_count_does_not_jitter():
    number = LiveNumber(1.111, num_decimal_places=3, font_size=theme.LABEL_SIZE)
    narrow = [g.get_x() for g in number.submobjects]
    number.set_value(8.888)
    wide = [g.get_x() for g in number.submobjects]
    assert all(isinstance(g, ThemeGlyph) for g in number.submobjects)
    # "1" and "8" take the same slot: the glyphs' centres keep their spacing
    assert np.diff(wide) == pytest.approx(np.diff(narrow), abs=1e-9)


def test_a_unit_follows_the_digits():
    number = LiveNumber(109.5, num_decimal_places=1, unit=r"^\circ", font_size=theme.LABEL_SIZE)
    *digits, degree = number.submobjects
    assert len(digits) == len("109.5")
    assert degree.get_left()[0] > max(d.get_right()[0] for d in digits)
    assert degree.get_bottom()[1] > digits[-1].get_center()[1]  # raised, as a degree sign
