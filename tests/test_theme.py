"""Themes: [theme] in lesson.toml picks dark or light and sets colours by name; a clip is
drawn in its job's palette, keyed by it, and every text reads in either."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import av
import numpy as np
import pytest
from manim import ManimColor

import scenes
from lesson import registry
from lesson.palette import DARK, LIGHT, ThemeError, palette_of, rgb_of
from pe_math import Params
from rendering.core.jobs import Job
from rendering.draw import clip_key
from rendering.publish import accessibility
from rendering.run.request import JobOptions, RequestError
from scenes.kit import theme
from tests import test_lesson
from tests.scene_tools import build_in

tiny_scenes = test_lesson.tiny_scenes  # the fixture: tiny scenes at 256x144, 10 fps


@pytest.fixture
def light():
    with theme.drawn_in(LIGHT):
        yield


def test_a_theme_table_names_a_theme_and_sets_colours_or_says_what_is_wrong():
    assert palette_of(None) == DARK and palette_of({"name": "light"}) == LIGHT
    mine = palette_of({"name": "light", "accent": "#7A5200"})
    assert mine == {**LIGHT, "accent": "#7a5200"}
    for table, said in [
        ({"name": "sepia"}, "[theme] name = 'sepia': use one of dark, light"),
        ({"gold": "#ffcc00"}, "[theme] gold: no such colour; the colours are background,"),
        ({"accent": "yellow"}, "[theme] accent = 'yellow': write a colour as \"#rrggbb\""),
        ("light", "[theme] must be a table"),
    ]:
        with pytest.raises(ThemeError) as caught:
            palette_of(table)
        assert str(caught.value).startswith(said) and "\n" not in str(caught.value)


def test_both_themes_text_colours_read_at_four_and_a_half_to_one():
    assert accessibility.palette_problems(DARK) == []
    assert accessibility.palette_problems(LIGHT) == []


def _held_colours() -> list[tuple[str, ManimColor]]:
    """Every colour a scene module holds from import on: default arguments and tables."""
    held = []
    for info in pkgutil.walk_packages(scenes.__path__, "scenes."):
        module = importlib.import_module(info.name)
        if module is theme:
            continue
        for name, value in vars(module).items():
            values = value.values() if isinstance(value, dict) else value
            if isinstance(value, ManimColor):
                held.append((f"{info.name}.{name}", value))
            elif isinstance(value, dict | tuple | list):
                held += [(f"{info.name}.{name}", v) for v in values if isinstance(v, ManimColor)]
            owners = [value] if inspect.isfunction(value) else []
            if inspect.isclass(value) and value.__module__ == info.name:
                owners += [f for f in vars(value).values() if inspect.isfunction(f)]
            for fn in owners:
                for p in inspect.signature(fn).parameters.values():
                    if isinstance(p.default, ManimColor):
                        held.append((f"{info.name}.{fn.__qualname__}({p.name})", p.default))
    return held


def test_a_palette_drawn_in_gives_way_to_the_one_before_it():
    with theme.drawn_in(LIGHT):
        with theme.drawn_in({**LIGHT, "accent": "#7a5200"}):
            assert theme.ACCENT.to_hex().lower() == "#7a5200"
        assert theme.ACCENT.to_hex().lower() == LIGHT["accent"]
    assert theme.ACCENT.to_hex().lower() == DARK["accent"]


def test_every_colour_a_scene_holds_follows_the_theme(light):
    held = _held_colours()
    assert len(held) > 10
    allowed = {ManimColor(c).to_hex() for c in LIGHT.values()}
    allowed |= {theme.INK_LIGHT.to_hex(), theme.INK_DARK.to_hex()}
    stray = [f"{where} {c.to_hex()}" for where, c in held if c.to_hex() not in allowed]
    assert stray == [], "colours that stay dark in the light theme:\n" + "\n".join(stray)


def test_a_theme_is_part_of_the_key_and_the_default_keeps_its_keys():
    dark = Job("binary-bits", Params())
    light = Job("binary-bits", Params(), palette=tuple(sorted(LIGHT.items())))
    assert clip_key.key_parts(dark)["settings"] != clip_key.key_parts(light)["settings"]
    assert clip_key.key(dark) != clip_key.key(light)


def test_the_options_read_the_theme_from_the_lesson_file(tmp_path):
    cfg = tmp_path / "course.toml"
    cfg.write_text('[theme]\nname = "light"\nmuted = "#505560"\n', encoding="utf-8")
    palette = dict(JobOptions(config=str(cfg)).palette())
    assert palette == {**LIGHT, "muted": "#505560"}
    assert JobOptions().palette() == ()  # lesson.toml's own: the default
    cfg.write_text('[theme]\nname = "pastel"\n', encoding="utf-8")
    with pytest.raises(RequestError, match=r"^\[theme\] name = 'pastel': use one of"):
        JobOptions(config=str(cfg)).palette()
    cfg.write_text('[theme]\nname = ["light"]\n', encoding="utf-8")
    with pytest.raises(RequestError, match=r"^\[theme\] name = \['light'\]: use one of"):
        JobOptions(config=str(cfg)).palette()


def test_a_chapter_built_in_the_light_theme_has_every_text_readable(light):
    """The scene tests hold every chapter to contrast in the default theme; the light
    theme is held here on binary-bits (lit bit cells), square-to-sine (live numbers) and
    relative-shift (text on tints of its own colour)."""
    for slug in ("binary-bits", "square-to-sine", "relative-shift"):
        _, report = build_in(registry.get(slug).load(), "16:9", watchers=theme_watch())
        report.assert_clean()


def theme_watch():
    """A watcher that makes a build its own: shared builds are in the default theme."""
    from scenes.kit.base import Watchers

    return Watchers(play=(lambda scene: None,))


@pytest.mark.render
def test_a_clip_is_drawn_in_its_palette(tiny_scenes, tmp_path):
    folder = test_lesson.render_clips(tmp_path, ["tiny-a"], palette=tuple(sorted(LIGHT.items())))
    with av.open(str(folder / "tiny-a.mp4")) as container:
        first = next(container.decode(video=0)).to_ndarray(format="rgb24")
    corner = first[:8, :8].reshape(-1, 3).mean(axis=0) / 255
    assert np.allclose(corner, rgb_of(LIGHT["background"]), atol=0.02)
    assert theme.BACKGROUND.to_hex().lower() == DARK["background"]  # drawn, then put back
