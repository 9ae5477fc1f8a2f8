"""lesson.mp4: clips joined in order without re-encoding, chapters read back, shifted subtitles.

Clips are rendered for real by the worker, in this process, at a tiny size (the "l"
quality is shrunk to 256x144 at 10 fps for the test), then installed by the pipeline.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import av
import numpy as np
import pytest
import srt
import webvtt
from manim import DOWN, Circle, Create, FadeIn, Square

from lesson import catalogue as catalogue_mod
from lesson import registry
from lesson.say import line as say_line
from pe_math import Params
from rendering.core import settings
from rendering.core.jobs import Job
from rendering.core.manifest import ClipEntry, Manifest
from rendering.draw import scene
from rendering.publish import lesson
from rendering.run.install import install
from rendering.speech import captions
from scenes.kit.base import LessonScene
from tests.videos import synthetic

TINY = ("low_quality", 144, 10)  # 256x144 at 10 fps

CATALOGUES = {
    "en": {
        "tiny-a": 'title = "A circle"\ntakeaway = "x"\n[say]\n'
        'draw = "First we draw a circle, slowly and carefully."\n'
        'hold = "Then it waits."\n',
        "tiny-b": 'title = "A <square> & more"\ntakeaway = "x"\n[say]\n'
        'draw = "A square comes in from below."\n',
    },
    "zh": {
        "tiny-a": 'title = "一个圆"\ntakeaway = "x"\n[say]\n'
        'draw = "先慢慢地、仔细地画一个圆。"\nhold = "然后停一下。"\n',
        "tiny-b": 'title = "一个正方形"\ntakeaway = "x"\n[say]\ndraw = "正方形从下面进来。"\n',
    },
}


class TinyA(LessonScene):
    slug = "tiny-a"

    @classmethod
    def numbers(cls, params):
        return {}

    def construct(self):
        self.beat("draw")
        self.play(Create(Circle()), run_time=1.5)
        self.beat("hold")
        self.wait(1.2)


class TinyB(LessonScene):
    slug = "tiny-b"

    @classmethod
    def numbers(cls, params):
        return {}

    def construct(self):
        self.beat("draw")
        self.play(FadeIn(Square().shift(DOWN)), run_time=1.3)
        self.wait(0.5)


TINY_SCENES = (
    registry.SceneInfo("tiny-a", __name__, "TinyA", 10, ()),
    registry.SceneInfo("tiny-b", __name__, "TinyB", 20, ()),
)


@pytest.fixture
def tiny_scenes(tmp_path_factory, monkeypatch):
    """Register the tiny scenes and their catalogues; shrink quality "l" to 256x144@10."""
    root = tmp_path_factory.mktemp("catalogues")
    for lang, files in CATALOGUES.items():
        (root / lang).mkdir()
        for slug, text in files.items():
            (root / lang / f"{slug}.toml").write_text(text, encoding="utf-8")
    catalogue_mod.add_root(root)
    monkeypatch.setitem(settings.QUALITIES, "l", TINY)
    for info in TINY_SCENES:
        registry.register(info)
    yield TINY_SCENES
    for info in TINY_SCENES:
        registry.unregister(info.slug)
    catalogue_mod.ROOTS.remove(root)
    catalogue_mod.catalogue.cache_clear()


def render_clips(root: Path, slugs, lang="en", fmt="mp4", **job_args) -> Path:
    """Render and install each slug the way the pipeline does; returns the output folder."""
    folder = None
    for slug in slugs:
        job = Job(slug, Params(), lang, "l", fmt, **job_args)
        work = root / ".work" / f"{slug}-{fmt}"
        work.mkdir(parents=True)
        install(job, scene.render(job, work), root)
        folder = job.out_dir(root)
    return folder


LESSON_SLUGS = ["lesson-intro", "tiny-a", "tiny-b", "lesson-outro"]


@pytest.fixture
def lesson_folder(tiny_scenes, tmp_path):
    folder = render_clips(tmp_path, LESSON_SLUGS, lang="zh")
    return folder


def _frames(path: Path) -> list[np.ndarray]:
    with av.open(str(path)) as c:
        return [f.to_ndarray(format="rgb24") for f in c.decode(video=0)]


def _secs(stamp: str) -> float:
    h, m, s = stamp.split(":")
    return int(h) * 3600 + int(m) * 60 + float(s)


@pytest.mark.render
def test_lesson_joins_clips_in_order_with_chapters_and_shifted_subtitles(lesson_folder):
    folder = lesson_folder
    record = lesson.build(folder, list(reversed(LESSON_SLUGS)))
    manifest = Manifest.load(folder)
    entries = [manifest.entry(s, "mp4") for s in LESSON_SLUGS]
    assert record == manifest.lesson
    assert record.file == "lesson.mp4" and record.joined == "remux"

    # every frame is there, bit-identical to the clip's (packets were copied, not re-encoded)
    joined = _frames(folder / "lesson.mp4")
    clips = [_frames(folder / e.file) for e in entries]
    assert len(joined) == sum(len(c) for c in clips) == record.frames
    assert [e.frames for e in entries] == [len(c) for c in clips]
    i = 0
    for clip in clips:
        assert np.array_equal(joined[i], clip[0]) and np.array_equal(
            joined[i + len(clip) - 1], clip[-1]
        )
        i += len(clip)
    fps = entries[0].fps
    assert record.duration == pytest.approx(len(joined) / fps, abs=1e-3)

    # chapters: read back from the file, titled in the folder's language, at the clip starts
    chapters = lesson.read_chapters(folder / "lesson.mp4")
    starts = np.cumsum([0] + [e.frames / fps for e in entries])
    assert [t for _, _, t in chapters] == [e.titles["zh"] for e in entries]
    assert [t for _, _, t in chapters][1:3] == ["一个圆", "一个正方形"]
    for (a, b, _), s0, s1 in zip(chapters, starts[:-1], starts[1:], strict=True):
        assert a == pytest.approx(s0, abs=1e-3) and b == pytest.approx(s1, abs=1e-3)
    assert [c.slug for c in record.chapters] == LESSON_SLUGS

    # chapters.vtt says the same
    track = webvtt.read(str(folder / record.chapters_vtt))
    assert [c.text for c in track] == [t for _, _, t in chapters]
    assert [_secs(c.start) for c in track] == pytest.approx(list(starts[:-1]), abs=1e-3)
    # and chapters.txt, for a video description, from the marks in the file
    listed = (folder / lesson.CHAPTER_LIST).read_text("utf-8")
    assert listed == captions.chapter_list(chapters) and listed.startswith("00:00 ")

    # lesson subtitles: each clip's cues, moved by where the clip starts, in both languages
    for lang in ("zh", "en"):
        subs = list(srt.parse((folder / record.captions["srt"][lang]).read_text("utf-8")))
        vtt = webvtt.read(str(folder / record.captions["vtt"][lang]))
        assert len(subs) == len(vtt)
        expected = []
        for e, s0 in zip(entries, starts, strict=False):
            clip_subs = srt.parse((folder / e.captions["srt"][lang]).read_text("utf-8"))
            expected += [
                (c.start.total_seconds() + s0, c.end.total_seconds() + s0, c.content)
                for c in clip_subs
            ]
        got = [(c.start.total_seconds(), c.end.total_seconds(), c.content) for c in subs]
        assert [t for *_, t in got] == [t for *_, t in expected]
        assert np.allclose([g[:2] for g in got], [x[:2] for x in expected], atol=2e-3)
        assert got[-1][1] <= record.duration + 1e-3
        tiny_b = [t for a, _, t in got if a >= starts[2] - 1e-3 and a < starts[3]]
        assert tiny_b == [say_line(lang, "tiny-b", "draw")]


@pytest.mark.render
def test_lesson_is_reused_while_its_clips_are_unchanged(lesson_folder):
    first = lesson.build(lesson_folder, LESSON_SLUGS)
    stamp = (lesson_folder / "lesson.mp4").stat().st_mtime_ns
    assert lesson.build(lesson_folder, LESSON_SLUGS) == first
    assert (lesson_folder / "lesson.mp4").stat().st_mtime_ns == stamp
    again = lesson.build(lesson_folder, LESSON_SLUGS, force=True)
    assert again.key == first.key
    assert (lesson_folder / "lesson.mp4").stat().st_mtime_ns != stamp


@pytest.mark.render
def test_lesson_refuses_missing_clips_and_alpha_variants(tiny_scenes, tmp_path):
    folder = render_clips(tmp_path, ["tiny-a"])
    with pytest.raises(lesson.LessonError, match="no whole mp4 clip for tiny-b; render them first"):
        lesson.build(folder, ["tiny-a", "tiny-b"])
    with pytest.raises(lesson.LessonError, match="without --transparent"):
        lesson.build(folder, ["tiny-a"], "webm.alpha")
    assert not (folder / "lesson.mp4").exists()


def test_clips_with_different_encoder_settings_are_reencoded_with_chapters(tmp_path):
    a, b = tmp_path / "a.mp4", tmp_path / "b.mp4"
    synthetic(a, 12, (128, 72), 20, 10, {"preset": "veryfast"})
    # other SPS/PPS: no remux
    synthetic(b, 8, (128, 72), 120, 10, {"preset": "ultrafast", "crf": "30"})
    out = tmp_path / "joined.mp4"
    method = lesson.join([a, b], [0, 1.2], out, [(0.0, 1.2, "一"), (1.2, 2.0, "two")])
    assert method == "reencode"
    frames = _frames(out)
    assert len(frames) == 20
    assert abs(int(frames[0].mean()) - 20) < 6 and abs(int(frames[12].mean()) - 120) < 6
    assert lesson.read_chapters(out) == [(0.0, 1.2, "一"), (1.2, 2.0, "two")]


def test_identical_clips_are_remuxed(tmp_path):
    a, b = tmp_path / "a.mp4", tmp_path / "b.mp4"
    synthetic(a, 10, (128, 72), 20, 10, {"preset": "veryfast"})
    synthetic(b, 10, (128, 72), 120, 10, {"preset": "veryfast"})
    out = tmp_path / "joined.mp4"
    assert lesson.join([a, b], [0, 1], out, [(0.0, 1.0, "a"), (1.0, 2.0, "b")]) == "remux"
    frames = _frames(out)
    assert len(frames) == 20
    assert np.array_equal(frames[10], _frames(b)[0])


def test_lesson_filenames_follow_the_variant():
    assert lesson.filename("mp4") == "lesson.mp4"
    assert lesson.filename("mp4.captioned") == "lesson.captioned.mp4"
    assert lesson.filename("webm") == "lesson.webm"


def test_lesson_subtitle_files_are_valid(tmp_path):
    """write_subtitles on hand-made entries of the card scenes (no render needed)."""
    entries = [
        ClipEntry(
            "lesson-intro",
            "a.mp4",
            7.0,
            70,
            256,
            144,
            10,
            beats=[["welcome", 0.0], ["chapters", 2.7]],
        ),
        ClipEntry("lesson-outro", "b.mp4", 9.0, 90, 256, 144, 10, beats=[["end", 0.5]]),
    ]
    chapters = [
        lesson.Chapter("lesson-intro", "a", 0.0, 7.0),
        lesson.Chapter("lesson-outro", "b", 7.0, 16.0),
    ]
    files = lesson.write_subtitles(tmp_path, entries, chapters, "en")
    for lang in ("zh", "en"):
        vtt = webvtt.from_buffer(io.StringIO((tmp_path / files["vtt"][lang]).read_text("utf-8")))
        starts = [_secs(c.start) for c in vtt]
        assert starts == sorted(starts)
        # each beat's first cue, up to LEAD before it when it needs time to be read, or up
        # to DRIFT after it while the beat before is still being read (the unspoken track)
        for beat in (2.7, 7.5):
            assert any(beat - captions.LEAD <= s <= beat + captions.DRIFT for s in starts)
        assert _secs(vtt[-1].end) == pytest.approx(16.0)
        assert json.dumps(files)  # plain data for the manifest
    assert captions.MIN_CUE <= 1.0
