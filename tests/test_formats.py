"""Embed formats and frame shapes: WebM (VP9, with alpha), slide GIFs, posters, 9:16 and 1:1."""

from __future__ import annotations

import av
import numpy as np
import pytest
from manim import DOWN, RIGHT, VGroup, config
from PIL import Image

from lesson import registry
from lesson.catalogue import catalogue
from lesson.timing import BREATH
from pe_math import Params
from rendering.core import settings
from rendering.core.jobs import Job
from rendering.core.manifest import ClipEntry, Manifest
from rendering.draw import encoders
from rendering.draw.motion import MOST_STILL, still_runs
from rendering.publish import gallery
from scenes.kit import theme
from scenes.kit.base import LessonScene, Watchers
from scenes.lesson_cards import LessonIntro, LessonOutro
from tests import test_lesson
from tests.scene_tools import (
    LayoutReport,
    build_in,
    build_scene,
    check_layout,
    estimated_speech,
    pace_for,
    with_pace,
)
from tests.test_lesson import render_clips

tiny_scenes = test_lesson.tiny_scenes  # the fixture: tiny scenes at 256x144, 10 fps


def _entry(folder, slug, variant):
    entry = Manifest.load(folder).entry(slug, variant)
    assert entry is not None
    assert (folder / entry.file).exists() and (folder / entry.poster).exists()
    return entry


@pytest.mark.render
@pytest.mark.usefixtures("tiny_scenes")
def test_webm_is_vp9_and_matches_the_mp4(tmp_path):
    folder = render_clips(tmp_path, ["tiny-a"], fmt="webm")
    render_clips(tmp_path / "mp4", ["tiny-a"])
    webm = _entry(folder, "tiny-a", "webm")
    mp4 = Manifest.load(folder.parent.parent / "mp4" / folder.relative_to(tmp_path)).entry(
        "tiny-a", "mp4"
    )
    assert webm.file == "tiny-a.webm"
    with av.open(str(folder / webm.file)) as c:
        assert c.format.name.startswith("matroska")
        assert c.streams.video[0].codec_context.name == "vp9"
    assert (webm.width, webm.height, webm.fps) == (256, 144, 10)
    assert webm.frames == mp4.frames and webm.duration == mp4.duration
    assert webm.captions["vtt"] == {"zh": "tiny-a.zh.vtt", "en": "tiny-a.en.vtt"}


def _alpha_frames(path):
    """Decode with libvpx-vp9, the decoder that reads VP9's alpha side channel."""
    with av.open(str(path)) as c:
        stream = c.streams.video[0]
        ctx = av.codec.CodecContext.create("libvpx-vp9", "r")
        out = []
        for packet in c.demux(stream):
            for frame in ctx.decode(packet):
                out.append(frame.to_ndarray(format="rgba"))
        return stream.metadata, out


@pytest.mark.render
@pytest.mark.usefixtures("tiny_scenes")
def test_transparent_webm_keeps_an_alpha_plane(tmp_path):
    folder = render_clips(tmp_path, ["tiny-a"], fmt="webm", transparent=True)
    entry = _entry(folder, "tiny-a", "webm.alpha")
    assert entry.file == "tiny-a.alpha.webm" and entry.transparent is True
    metadata, frames = _alpha_frames(folder / entry.file)
    assert metadata.get("alpha_mode") == "1"
    last = frames[-1]
    assert len(frames) == entry.frames
    assert last[0, 0, 3] == 0  # the background is see-through
    assert last[..., 3].max() > 150  # the drawn circle is (nearly, once VP9 is done) opaque


@pytest.mark.render
@pytest.mark.usefixtures("tiny_scenes")
def test_gif_is_palette_based_smaller_and_slower(tmp_path, monkeypatch):
    monkeypatch.setitem(settings.QUALITIES, "l", ("low_quality", 480, 15))  # above the GIF caps
    monkeypatch.setattr(encoders, "GIF_MAX_WIDTH", 320)
    folder = render_clips(tmp_path, ["tiny-a"], fmt="gif")
    render_clips(tmp_path / "mp4", ["tiny-a"])
    gif = _entry(folder, "tiny-a", "gif")
    mp4 = Manifest.load(tmp_path / "mp4" / folder.relative_to(tmp_path)).entry("tiny-a", "mp4")
    assert (gif.width, gif.height, gif.fps) == (320, 180, encoders.GIF_FPS)
    assert gif.duration == pytest.approx(mp4.duration, abs=2 / encoders.GIF_FPS)
    with Image.open(folder / gif.file) as img:
        assert img.format == "GIF" and img.mode == "P" and img.size == (320, 180)
        assert img.n_frames == gif.frames
        assert img.info.get("loop") == 0  # loops forever on a slide
        colours = len(img.getcolors(256) or [])
        assert 2 < colours <= encoders.GIF_COLORS
        frame_ms = img.info["duration"]
    assert frame_ms == pytest.approx(1000 / encoders.GIF_FPS, abs=10)
    # a single palette and ordered dither keep it small: under 40 kB per second here
    assert gif.bytes < 40_000 * gif.duration


@pytest.mark.render
@pytest.mark.usefixtures("tiny_scenes")
def test_transparent_gif_has_a_transparent_background(tmp_path):
    folder = render_clips(tmp_path, ["tiny-a"], fmt="gif", transparent=True)
    gif = _entry(folder, "tiny-a", "gif.alpha")
    with Image.open(folder / gif.file) as img:
        img.seek(img.n_frames - 1)
        rgba = np.asarray(img.convert("RGBA"))
    assert rgba[0, 0, 3] == 0 and rgba[..., 3].max() == 255


def test_gif_geometry_caps_width_and_rate():
    job = Job("lesson-intro", Params(), "en", "h", "gif")
    out = encoders.output_geometry(job)
    assert (out.width, out.height, out.fps) == (encoders.GIF_MAX_WIDTH, 360, encoders.GIF_FPS)
    tall = encoders.output_geometry(Job("lesson-intro", Params(), "en", "l", "gif", "9:16"))
    assert tall.width == 480 and tall.height == 854 and tall.height % 2 == 0
    assert encoders.output_geometry(Job("lesson-intro", Params(), "en", "l")).fps == 15


def test_size_report_lists_gifs_only():
    gif = ClipEntry("a", "a.gif", 4.0, 40, 640, 360, 10, format="gif", bytes=123_456)
    mp4 = ClipEntry("a", "a.mp4", 1.0, 1, 1, 1, 1, format="mp4", bytes=1)
    assert gallery.size_report([gif, mp4]) == [("a.gif", "120.6 KB", "640x360@10", "4.0s")]


def test_the_draft_quality_draws_a_thumbnail_into_a_folder_of_its_own(tmp_path):
    from rendering.draw.config import manim_config

    job = Job("binary-bits", Params(), quality="t")
    cfg = manim_config(job, tmp_path)
    assert (cfg["pixel_width"], cfg["pixel_height"], cfg["frame_rate"]) == (256, 144, 10)
    assert job.out_dir(tmp_path) == tmp_path / "en" / "144p10"
    assert settings.folder_name("t", "9:16") == "144p10-9x16"


@pytest.mark.render
@pytest.mark.usefixtures("tiny_scenes")
@pytest.mark.parametrize("aspect", ["9:16", "1:1"])
def test_other_aspects_render_at_their_size(tmp_path, aspect):
    folder = render_clips(tmp_path, ["tiny-b"], aspect=aspect)
    geo = settings.geometry("l", aspect)
    assert folder.name == settings.folder_name("l", aspect)
    entry = _entry(folder, "tiny-b", "mp4")
    assert (entry.width, entry.height) == (geo.width, geo.height)
    with Image.open(folder / entry.poster) as poster:
        assert poster.size == (geo.width, geo.height)


def _layout_in(cls, aspect, lang):
    """Build the scene in the aspect's frame; check layout at every beat and after every play."""
    during = LayoutReport()

    def check(scene):
        check_layout(scene, f"after play {len(during.checked_beats) + 1}", during)

    # a watched build is never shared (see build_scene)
    scene, report = build_in(cls, aspect, lang, watchers=Watchers(play=(check,)))
    return scene, report, during


MISSION_CLASSES = [pytest.param(info, id=info.slug) for info in registry.MISSION]
SHAPE_ASPECTS = {shape: aspect for aspect, shape in settings.SHAPES.items()}


@pytest.mark.parametrize("aspect", ["16:9", "9:16", "1:1"])
@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("cls", [LessonIntro, LessonOutro], ids=["intro", "outro"])
def test_cards_lay_out_cleanly_in_every_aspect(cls, lang, aspect):
    scene, report, during = _layout_in(cls, aspect, lang)
    report.assert_clean()
    report.assert_readable()
    during.assert_clean()
    assert len(during.checked_beats) >= 2  # checked while the words were on screen
    assert report.checked_beats[-1] == "<end>"


class _AddedChapter(registry.SceneInfo):
    """A thirteenth chapter, as `render.py new` adds one, with a title of the usual length."""

    def title(self, lang):
        return "一个新加的章节" if lang == "zh" else "A chapter added by a teacher"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_intro_still_reads_at_1_1_with_a_chapter_added(lang):
    registry.register(_AddedChapter("added-chapter", "unused", "Unused", 13, ()))
    try:
        _, report, during = _layout_in(LessonIntro, "1:1", lang)
    finally:
        registry.unregister("added-chapter")
    report.assert_clean()
    report.assert_readable()
    during.assert_clean()
    assert "13" in "".join(report.words_at_start["<end>"])


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_intro_lists_every_chapter_by_number_and_title(lang):
    _, report = build_scene(LessonIntro, Params(), lang)
    on_screen = "".join("".join(report.words_at_start["<end>"]).split())
    chapters = [i for i in registry.ordered() if i.slug not in ("lesson-intro", "lesson-outro")]
    assert len(chapters) == len(LessonIntro.numbers(Params()).chapters) >= 11
    for info in chapters:
        assert f"{info.order:02d}" in on_screen
        assert "".join(info.title(lang).split()) in on_screen


class _WideOnly(LessonScene):
    """A scene laid out for 16:9 only (SHAPES left at its default), as a plugin might be."""

    slug = "clock-hands"

    @classmethod
    def numbers(cls, params):
        return {}

    def construct(self):
        self.beat("a")
        row = VGroup(*[self.words.text(f"column {i}") for i in range(4)]).arrange(RIGHT, buff=3)
        self.add(self.stage.fit(row))
        self.frame = (config.frame_width, config.frame_height)
        self.wait(0.1)


@pytest.mark.parametrize("aspect", ["9:16", "1:1"])
def test_a_16_9_only_scene_keeps_its_layout_whole_in_other_frames(aspect):
    scene, report = build_in(_WideOnly, aspect)
    wide = settings.geometry("l", "16:9")
    assert scene.stage.shape == "wide"
    width, height = scene.frame
    assert width == pytest.approx(wide.frame_width, rel=0.01)  # the 16:9 width, letterboxed
    assert height > 1.5 * wide.frame_height if aspect == "9:16" else height == width
    assert scene.mobjects[0].width == pytest.approx(width - 2 * theme.MARGIN)  # not squeezed
    report.assert_clean()  # nothing leaves the frame


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("info", MISSION_CLASSES)
def test_mission_scenes_are_readable_fill_the_16_9_stage_and_move_while_a_voice_talks(info, lang):
    """Each chapter timed as a voice slower than the default ones would read it, paced as
    a render paces it: laid out cleanly at every beat and cue, and never long still."""
    cls = info.load()
    speech, sentences = estimated_speech(cls, lang)
    scene, report = build_in(cls, "16:9", lang, speech=speech, sentences=sentences)
    report.assert_clean()
    report.assert_readable()
    report.assert_fills_the_stage()
    report.assert_fills_the_wide_frame()
    # its beats in the order they are narrated, each as long as its speech at least
    assert [key for key, _ in scene.beats] == list(catalogue(lang, info.slug)["say"])
    times = [t for _, t in scene.beats] + [scene.renderer.time]
    assert times == sorted(times) and 0 < times[0]
    for (key, start), end in zip(scene.beats, times[1:], strict=False):
        assert end - start >= speech[key] + BREATH - 0.1, key
    # paced as rendered: the stretch comes from the animations alone, then the holds shrink
    plays, beats = with_pace(scene.plays, scene.beats, pace_for(scene.plays, speech))
    motion = still_runs(plays, beats, speech)
    assert motion.longest is None or motion.longest.seconds <= MOST_STILL, motion.longest
    assert motion.still_share <= 0.3


def test_every_mission_scene_composes_for_every_frame_shape():
    for info in registry.MISSION:
        assert info.load().SHAPES == set(settings.SHAPES.values()), info.slug


LANGS = ("en", "zh")
# Every (scene, shape) a scene composes for beyond 16:9, in one language each: a
# chapter's two shapes take one language each, and the next chapter the other way round,
# so that every shape is checked in both languages and every chapter in both.
COMPOSED = [
    pytest.param(info, SHAPE_ASPECTS[shape], lang, id=f"{info.slug}-{shape}-{lang}")
    for i, info in enumerate(registry.MISSION)
    for j, shape in enumerate(sorted(info.load().SHAPES - {"wide"}))
    for lang in [LANGS[(i + j) % 2]]
]


@pytest.mark.parametrize("info,aspect,lang", COMPOSED)
def test_composed_frames_are_readable_and_filled(info, aspect, lang):
    _, report = build_in(info.load(), aspect, lang)
    report.assert_clean()
    report.assert_readable()
    report.assert_fills_the_stage()


class _Whisper(LessonScene):
    slug = "clock-hands"

    @classmethod
    def numbers(cls, params):
        return {}

    def construct(self):
        self.beat("a")
        self.add(self.words.text("small print", size=10))  # under 14 px
        self.add(self.words.text("a short line", size=theme.BODY_SIZE).shift(2 * DOWN))
        self.wait(0.1)


def test_the_checker_catches_small_text_and_an_empty_stage():
    _, report = build_in(_Whisper, "16:9")
    assert len(report.too_small) == 1 and "small print" in report.too_small[0]
    with pytest.raises(AssertionError, match="too small"):
        report.assert_readable()
    assert report.fill["a"] < 0.4  # two lines of text on a whole stage
    with pytest.raises(AssertionError, match="of the stage on average"):
        report.assert_fills_the_stage()
