"""A course builder's brand and fonts: [brand] and [theme.font] in lesson.toml, checked to
one line; a logo laid over every frame in the corner every scene keeps clear; the cards'
words and name; the key; the PowerPoint title slide."""

from __future__ import annotations

import os

import av
import numpy as np
import pytest
from PIL import Image

from lesson.brand import BrandError, digest_of, look_of
from pe_math import Params
from rendering.core.jobs import Job
from rendering.core.manifest import Manifest
from rendering.draw import clip_key
from rendering.run.request import JobOptions, RequestError
from scenes.kit import brand, components, theme
from scenes.kit.on_screen import in_logo_corner, text_of, texts_on
from scenes.lesson_cards import LessonIntro, LessonOutro
from tests import test_lesson
from tests.scene_tools import build_in
from tests.test_theme import theme_watch

tiny_scenes = test_lesson.tiny_scenes  # the fixture: tiny scenes at 256x144, 10 fps

MAGENTA = (255, 0, 255)
ASPECTS = ("16:9", "9:16", "1:1")


@pytest.fixture
def logo(tmp_path):
    """A 200×75 magenta PNG with a transparent rim, in a folder beside a lesson file."""
    img = Image.new("RGBA", (200, 75), (0, 0, 0, 0))
    img.paste(Image.new("RGBA", (190, 65), (*MAGENTA, 255)), (5, 5))
    (tmp_path / "brand").mkdir()
    img.save(tmp_path / "brand" / "logo.png")
    return tmp_path / "brand" / "logo.png"


def test_a_brand_table_is_read_for_one_language_or_says_what_is_wrong(tmp_path, logo):
    table = {
        "name": "Maple Academy",
        "logo": "brand/logo.png",
        "en": {"title": "Where does each word sit?"},
        "zh": {"title": "词在哪里", "closing": "下次见"},
    }
    look = dict(look_of(table, None, "en", tmp_path))
    assert look["name"] == "Maple Academy" and look["title"] == "Where does each word sit?"
    assert look["logo"] == str(logo) and len(look["logo_digest"]) == 16
    assert "closing" not in look  # the other language's words are its own
    assert dict(look_of(table, None, "zh", tmp_path))["closing"] == "下次见"
    assert look_of(None, {"name": "dark"}, "en", tmp_path) == ()
    (tmp_path / "fake.png").write_text("not a picture")
    (tmp_path / "fake.svg").write_text("<html></html>")
    (tmp_path / "empty.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>')
    for brand_table, theme_table, said in [
        ({"slogan": "x"}, None, "[brand] 'slogan': use name, logo, or a table of words"),
        ({"en": {"heading": "x"}}, None, "[brand.en] 'heading': the cards' words are title,"),
        ({"name": ""}, None, "[brand] name = '': write some words in quotes"),
        ({"name": "x" * 121}, None, "[brand] name: keep it to one line of at most 120"),
        ({"logo": "missing.png"}, None, "[brand] logo = 'missing.png': no such file"),
        ({"logo": "fake.png"}, None, "[brand] logo = 'fake.png': is not a readable PNG picture"),
        ({"logo": "fake.svg"}, None, "[brand] logo = 'fake.svg': is XML, but not an SVG picture"),
        ({"logo": "empty.svg"}, None, "[brand] logo = 'empty.svg': draws nothing"),
        ({"logo": "a\0b.png"}, None, "[brand] logo = 'a\\x00b.png': not a usable path"),
        (
            {"name": "我们"},
            {"font": {"en": "DejaVu Sans"}},
            "[brand] name: the font DejaVu Sans has",
        ),
        ({"logo": "brand"}, None, "[brand] logo = 'brand': use a .png or .svg file"),
        ("Maple", None, "[brand] must be a table"),
        (None, {"font": {"en": "No Such Face"}}, "[theme.font] en = 'No Such Face': no such font"),
        (None, {"font": {"fr": "DejaVu Sans"}}, "[theme.font] 'fr': name a font per language"),
    ]:
        with pytest.raises(BrandError) as caught:
            look_of(brand_table, theme_table, "en", tmp_path)
        assert str(caught.value).startswith(said) and "\n" not in str(caught.value)


def test_the_options_read_the_brand_beside_the_lesson_file_and_a_font_must_draw_its_words(
    tmp_path, logo
):
    cfg = tmp_path / "course.toml"
    cfg.write_text('[brand]\nlogo = "brand/logo.png"\n[theme.font]\nzh = "DejaVu Sans"\n')
    assert dict(JobOptions(config=str(cfg)).look(["clock-hands"]))["logo"] == str(logo)
    with pytest.raises(
        RequestError,
        match=r"^\[theme.font\] zh: the font DejaVu Sans has no glyph for .* \(common\)$",
    ):
        JobOptions(config=str(cfg), lang="zh").look(["clock-hands"])
    assert JobOptions().look(["clock-hands"]) == ()  # lesson.toml's own: no brand
    # a font for English is held to the English tokens, not the Chinese ones it never draws
    cfg.write_text('[theme.font]\nen = "DejaVu Sans"\n')
    (job,) = JobOptions(config=str(cfg)).jobs(["clock-hands"], Params(), synthesize=False)
    assert dict(job.look)["font"] == "DejaVu Sans"
    with pytest.raises(RequestError, match=r"^tokens_en: the font DejaVu Sans has no glyph for 猫"):
        chinese = Params().replace(tokens_en=("猫", "dog", "bites"))
        JobOptions(config=str(cfg)).jobs(["clock-hands"], chinese, synthesize=False)


def test_a_logo_or_font_changes_every_key_and_the_cards_words_only_the_cards():
    def key(slug: str, **look: str) -> str:
        return clip_key.key(Job(slug, Params(), look=tuple(sorted(look.items()))))

    for slug in ("clock-hands", "lesson-intro"):
        assert key(slug, logo="/a/logo.png", logo_digest="1" * 16) != key(slug)
        assert key(slug, font="DejaVu Sans") != key(slug)
        # the file's bytes count, not where it is
        moved = key(slug, logo="/b/logo.png", logo_digest="1" * 16)
        assert moved == key(slug, logo="/a/logo.png", logo_digest="1" * 16)
    assert key("clock-hands", name="Maple", title="T") == key("clock-hands")
    assert key("lesson-intro", name="Maple") != key("lesson-intro")
    assert key("lesson-intro", closing="Bye") == key("lesson-intro")  # the outro's words
    assert key("lesson-outro", closing="Bye") != key("lesson-outro")
    assert key("lesson-outro", title="Hi", subtitle="There") == key("lesson-outro")


def _shown(scene) -> list[str]:
    return [text_of(m) for m in texts_on(scene.mobjects)]


def test_the_cards_say_the_brands_words_and_name_in_every_shape():
    look = {"name": "Maple Academy", "title": "Where does each word sit?", "closing": "Bye!"}
    look["subtitle"] = "A short course on how a Transformer is told the order of its words"
    with brand.worn(look):
        for aspect in ASPECTS:
            intro, report = build_in(LessonIntro, aspect, watchers=theme_watch())
            report.assert_clean()
            words = " ".join(_shown(intro))
            for said in ("Maple Academy", "Where does", "each word sit?", "A short course"):
                assert said in words
            outro, report = build_in(LessonOutro, aspect, watchers=theme_watch())
            report.assert_clean()
            assert {"Bye!", "Maple Academy"} <= set(_shown(outro))
    intro, _ = build_in(LessonIntro, "16:9", watchers=theme_watch())
    assert "Maple Academy" not in _shown(intro)  # worn, then put back


def _magenta(frame: np.ndarray) -> np.ndarray:
    rgb = frame[..., :3].astype(int)
    return (rgb[..., 0] > 200) & (rgb[..., 1] < 60) & (rgb[..., 2] > 200)


def _last_frame(aspect: str, look: dict[str, str]) -> tuple[np.ndarray, float, list[str]]:
    """LessonOutro's last frame in a frame shape with `look` (its logo as the renderer
    lays it), the pixels per scene unit, and the build's layout problems."""
    from manim import config

    from scenes.kit.base import Watchers

    seen: dict = {}

    def grab(scene, beat: str) -> None:
        if beat == "<end>":  # drawn while the shape's frame is set
            scene.renderer.update_frame(scene, ignore_skipping=True)
            seen["frame"] = scene.renderer.get_frame()
            seen["per_unit"] = config.pixel_height / config.frame_height

    with brand.worn(look):
        _, report = build_in(LessonOutro, aspect, watchers=Watchers(beat=(grab,)))
    return seen["frame"], seen["per_unit"], report.problems


def test_a_logo_is_laid_over_every_shape_in_the_corner_the_scenes_keep_clear(logo):
    for aspect in ASPECTS:
        look = {"logo": str(logo), "logo_digest": digest_of(logo.read_bytes())}
        frame, per_unit, problems = _last_frame(aspect, look)
        assert problems == []
        ys, xs = np.nonzero(_magenta(frame))
        width, height = (side * per_unit for side in theme.LOGO_CORNER)
        inset = theme.LOGO_INSET * per_unit
        # as large as the box inside the inset allows: its height, at the logo's 200:75
        drawn = (height - 2 * inset) * 190 / 200 * 65 / 75
        assert len(xs) > 0.8 * drawn * drawn * 200 / 75, aspect
        right = frame.shape[1]
        assert right - inset - 3 <= xs.max() <= right - inset and ys.min() >= inset - 1  # its rim
        assert xs.min() >= right - width + inset - 1 and ys.max() <= height - inset
        plain, _, _ = _last_frame(aspect, {})
        assert not _magenta(plain).any()
        assert np.array_equal(plain[ys.max() + 2 :], frame[ys.max() + 2 :])  # the rest as drawn


def test_the_corner_check_finds_a_text_in_the_logos_corner():
    from manim import config

    scene, _ = build_in(LessonOutro, "1:1", watchers=theme_watch())
    assert in_logo_corner(scene) == []
    x0, y0, x1, y1 = brand.corner_box(config.frame_width, config.frame_height)
    planted = components.text("ours", size=theme.SMALL_SIZE).move_to([x1 - 0.3, y1 - 0.2, 0])
    scene.add(planted)
    assert in_logo_corner(scene) == ["'ours'"]


def test_an_svg_logo_is_drawn_to_fit_its_box_with_its_strokes_and_straight_alpha(tmp_path):
    svg = tmp_path / "logo.svg"
    svg.write_bytes(
        b'<svg xmlns="http://www.w3.org/2000/svg" width="40" height="10">'
        b'<rect width="40" height="10" fill="#ff00ff" fill-opacity="0.5"/>'
        b'<line x1="0" y1="5" x2="40" y2="5" stroke="#00ff00" stroke-width="2"/></svg>'
    )
    pixels = brand.logo_pixels(str(svg), digest_of(svg.read_bytes()), 0.8, 0.4, 100.0)
    assert pixels.shape == (20, 80, 4)  # 0.8 units wide at 100 pixels a unit, 4:1
    half = pixels[3, 40]  # in the half-clear fill, away from the stroke
    assert abs(int(half[3]) - 128) <= 2 and half[0] > 250 and half[2] > 250  # not darkened
    assert (pixels[..., 1] > 200).any()  # the stroke is drawn as wide as a scene's
    with pytest.raises(brand.LogoError, match="changed after the render began"):
        brand.logo_pixels(str(svg), "0" * 16, 0.8, 0.4, 100.0)


def test_live_numbers_follow_the_worn_font():
    with brand.worn({"font": "DejaVu Sans"}):
        worn = {m.font for m in components.LiveNumber(1.5).submobjects}
    plain = {m.font for m in components.LiveNumber(1.5).submobjects}
    assert worn == {"DejaVu Sans"} and plain == {theme.FONT}


def test_a_font_worn_draws_every_text_and_is_put_back():
    with brand.worn({"font": "DejaVu Sans"}):
        assert components.text("Where").font == "DejaVu Sans"
    assert components.text("Where").font == theme.FONT == "Noto Sans CJK SC"


@pytest.mark.render
def test_a_clip_carries_its_logo_once_on_every_frame_and_the_deck_its_brand(
    tiny_scenes, tmp_path, logo
):
    from pptx import Presentation

    from rendering.publish import slides

    half_clear = tmp_path / "brand" / "half.png"
    Image.new("RGBA", (200, 75), (*MAGENTA, 128)).save(half_clear)
    look = look_of({"name": "Maple Academy", "logo": "brand/half.png"}, None, "en", tmp_path)
    folder = test_lesson.render_clips(tmp_path / "media", ["tiny-a"], look=look)
    with av.open(str(folder / "tiny-a.mp4")) as container:
        frames = [f.to_ndarray(format="rgb24") for f in container.decode(video=0)]
    height, width = frames[0].shape[:2]
    background = np.array([int(theme.BACKGROUND.to_hex()[i : i + 2], 16) for i in (1, 3, 5)])
    once = (np.array(MAGENTA) * 128 + background * 127) / 255  # laid over once, not twice
    corner = theme.LOGO_INSET * height / 8 + 2  # a pixel well inside the logo
    for frame in frames:
        assert np.abs(frame[round(corner), round(width - corner)] - once).max() < 12
    record = Manifest.load(folder).entry("tiny-a", "mp4")
    assert record.look["logo"] == os.path.relpath(half_clear, folder)  # no folder of ours

    Image.open(half_clear).convert("RGB").save(half_clear)  # an opaque logo: the deck's
    folder = test_lesson.render_clips(
        tmp_path / "again",
        ["tiny-a"],
        look=look_of({"name": "Maple Academy", "logo": "brand/half.png"}, None, "en", tmp_path),
    )
    target, _, _ = slides.export(folder, "tiny-a", "pptx")
    prs = Presentation(str(target))
    title = prs.slides[0]
    assert [p.text for p in title.placeholders[1].text_frame.paragraphs][-1] == "Maple Academy"
    (picture,) = [s for s in title.shapes if s.shape_type == 13]  # a picture
    assert picture.image.blob == half_clear.read_bytes()
    assert 0 < picture.left and picture.left + picture.width < prs.slide_width
