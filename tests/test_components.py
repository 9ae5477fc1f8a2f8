"""Reusable mobjects: the live numbers set in the theme font."""

import numpy as np
import pytest

from scenes.kit import theme
from scenes.kit.components import LiveNumber, ThemeGlyph


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


def test_text_is_copied_from_words_set_before_and_each_copy_is_its_own():
    from manim import Text, tempconfig

    from scenes.kit import copies
    from scenes.kit.components import text

    first, second = text("PE(p) · 位置"), text("PE(p) · 位置")
    fresh = Text("PE(p) · 位置", font=theme.FONT, font_size=theme.BODY_SIZE, disable_ligatures=True)
    assert first is not second
    assert np.array_equal(first.get_all_points(), fresh.get_all_points())
    assert np.array_equal(second.get_all_points(), fresh.get_all_points())
    first.shift(np.array([1.0, 0.0, 0.0])).set_color(theme.ACCENT)  # a scene moves its copy
    assert np.array_equal(second.get_all_points(), fresh.get_all_points())
    assert second.get_color() == theme.FOREGROUND
    # glyph copies share the path they were drawn from instead of copying it again
    glyph = first[0]
    assert glyph.copy().path_obj is glyph.path_obj
    # words set on a smaller canvas (where Pango may drop glyphs) are not reused on a larger one
    made = copies._made.cache_info().misses
    text("PE(p) · 位置")
    assert copies._made.cache_info().misses == made
    with tempconfig({"pixel_width": 256, "pixel_height": 144}):
        text("PE(p) · 位置")
    assert copies._made.cache_info().misses == made + 1


def test_words_set_in_one_process_are_loaded_whole_by_the_next(tmp_path, monkeypatch):
    from lesson import text_store
    from scenes.kit import copies
    from scenes.kit.components import text

    monkeypatch.setenv(text_store.CACHE_ENV, str(tmp_path))
    words = "位置 p = 4,096 · kept"
    copies._made.cache_clear()  # as in a process that has set nothing yet
    fresh = text(words, color=theme.ACCENT)
    stored = list(tmp_path.glob("*.sealed"))
    assert len(stored) == 1
    copies._made.cache_clear()
    loaded = text(words, color=theme.ACCENT)
    assert list(tmp_path.glob("*.sealed")) == stored and not list(tmp_path.glob("*.part"))
    a, b = fresh.family_members_with_points(), loaded.family_members_with_points()
    assert len(a) == len(b) >= len(words.replace(" ", ""))
    for x, y in zip(a, b, strict=True):
        assert np.array_equal(x.points, y.points) and np.array_equal(x.fill_rgbas, y.fill_rgbas)
    # other arguments are other words; a damaged file is set again and written whole
    copies._made.cache_clear()
    assert text(words, color=theme.MUTED).get_color() != loaded.get_color()
    assert len(list(tmp_path.glob("*.sealed"))) == 2
    stored[0].write_bytes(stored[0].read_bytes()[:100])
    copies._made.cache_clear()
    again = text(words, color=theme.ACCENT)
    assert np.array_equal(again.get_all_points(), fresh.get_all_points())
    assert stored[0].stat().st_size > 1000
    # unset, nothing is kept
    monkeypatch.delenv(text_store.CACHE_ENV)
    copies._made.cache_clear()
    text("only here")
    assert len(list(tmp_path.glob("*.sealed"))) == 2
    copies._made.cache_clear()


def test_a_formula_tex_drew_in_one_process_is_not_compiled_again_by_the_next(tmp_path, monkeypatch):
    from manim import MathTex, tempconfig
    from manim.mobject.svg import svg_mobject

    from lesson import text_store
    from scenes.kit import copies

    store = tmp_path / "store"
    monkeypatch.setenv(text_store.CACHE_ENV, str(store))
    compiled, manims = [], copies.MANIM_TEX

    def counted(*args):
        compiled.append(args[0])
        return manims(*args)

    monkeypatch.setattr(copies, "MANIM_TEX", counted)

    def formula(folder: str) -> MathTex:  # as in a process with its own media folder
        svg_mobject.SVG_HASH_TO_MOB_MAP.clear()
        with tempconfig({"tex_dir": str(tmp_path / folder)}):
            return MathTex(r"\theta_i = b^{-2i/d} + 1")

    first = formula("a")
    assert len(compiled) == 1 and len(list(store.glob("*.sealed"))) == 1
    again = formula("b")
    assert len(compiled) == 1  # read from the store, not compiled
    assert np.array_equal(again.get_all_points(), first.get_all_points())
    (kept,) = store.glob("*.sealed")
    kept.write_bytes(kept.read_bytes()[:-200])  # damaged: compiled again, kept whole
    third = formula("c")
    assert len(compiled) == 2 and np.array_equal(third.get_all_points(), first.get_all_points())
    monkeypatch.delenv(text_store.CACHE_ENV)  # unset: compiled, nothing kept
    formula("d")
    assert len(compiled) == 3 and len(list(store.glob("*.sealed"))) == 1
