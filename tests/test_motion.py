"""Still runs: where the picture holds while the voice talks, measured from a build."""

from pathlib import Path

import pytest
from manim import RIGHT, Dot, FadeIn, Rotate, Square, tempconfig

from lesson import say
from lesson.catalogue import CatalogueError, add_root
from lesson.timing import BREATH
from pe_math import Params
from rendering.draw.motion import MOST_PACE, still_runs
from scenes.kit.base import LessonScene, Play
from tests.scene_tools import pace_for, with_pace

add_root(Path(__file__).resolve().parent / "captions")  # the cued scene's lines


class _Toy(LessonScene):
    slug = "toy-motion"

    @classmethod
    def numbers(cls, params):
        return {}

    def construct(self):
        self.beat("a")  # 1 s of motion, then the picture holds while 4 more seconds are said
        self.play(FadeIn(Square()), run_time=1.0)
        self.beat("b")  # the animation outlasts the speech: nothing held
        self.play(FadeIn(Dot()), run_time=3.0)
        self.beat("c")  # a wait with a time-based updater still moves
        dot = Dot().add_updater(lambda m, dt: m.shift(dt * 0.1 * m.get_center() + 0.01))
        self.add(dot)
        self.wait(2.0)


def build(speech: dict[str, float]) -> _Toy:
    return build_paced(speech, None)


def build_paced(speech: dict[str, float], pace: dict[str, float] | None) -> _Toy:
    with tempconfig({"dry_run": True, "frame_rate": 15}):
        scene = _Toy(params=Params(), lang="en", speech=speech, pace=pace, skip_animations=True)
        scene.render()
    return scene


def test_a_still_run_is_the_held_part_of_a_beats_speech():
    scene = build({"a": 5.0, "b": 2.0, "c": 2.0})
    motion = still_runs(scene.plays, scene.beats, {"a": 5.0, "b": 2.0, "c": 2.0})
    (run,) = motion.runs
    assert run.beat == "a"
    assert run.start == pytest.approx(1.0, abs=0.07)  # after the 1 s fade
    assert run.seconds == pytest.approx(4.0, abs=0.07)  # to the end of a's speech, not its breath
    assert motion.speech_seconds == pytest.approx(9.0)
    assert motion.still_share == pytest.approx(4.0 / 9.0, abs=0.01)


def test_consecutive_waits_make_one_run_and_moving_plays_break_it():
    plays = [
        Play(0.0, 1.0, "x", False, False, False),
        Play(1.0, 2.5, "x", True, True, False),
        Play(2.5, 4.0, "x", True, True, True),
        Play(4.0, 5.0, "y", False, False, False),
    ]
    motion = still_runs(plays, [("x", 0.0)], {"x": 5.0})
    assert [(r.start, r.end) for r in motion.runs] == [(1.0, 4.0)]
    # speech that ends inside the run cuts it there; a beat without speech counts nothing
    motion = still_runs(plays, [("x", 0.0), ("y", 4.0)], {"x": 3.0})
    assert [(r.start, r.end, r.beat) for r in motion.runs] == [(1.0, 3.0, "x")]
    assert still_runs(plays, [("x", 0.0)], {}).still_share == 0.0


def test_the_breath_after_speech_is_not_counted():
    scene = build({"a": 1.0, "b": 3.0, "c": 2.0})  # a's speech ends as its fade does
    motion = still_runs(scene.plays, scene.beats, {"a": 1.0, "b": 3.0, "c": 2.0})
    assert all(r.seconds < 0.1 for r in motion.runs)
    assert scene.beats[1][1] == pytest.approx(1.0 + BREATH, abs=0.07)


def test_pacing_stretches_the_animations_to_the_speech_and_keeps_every_beat_in_place():
    speech = {"a": 5.0, "b": 2.0, "c": 2.0}
    plain = build(speech)
    pace = pace_for(plain.plays, speech)
    # a: one 1 s fade for 5 s of speech and a breath, at most MOST_PACE times slower
    assert pace == {"a": pytest.approx(min((5.0 + BREATH) / 1.0, MOST_PACE))}
    paced = build_paced(speech, pace)
    assert [k for k, _ in paced.beats] == [k for k, _ in plain.beats]
    for (_, t0), (_, t1) in zip(plain.beats, paced.beats, strict=True):
        assert t1 == pytest.approx(t0, abs=1 / 15 + 1e-9)  # within a frame
    fade = next(p for p in paced.plays if p.beat == "a" and not p.wait)
    assert fade.seconds == pytest.approx(min(5.0 + BREATH, MOST_PACE), abs=1 / 15)
    # worked out from the plain build, the paced times are the paced build's (within a frame)
    plays, beats = with_pace(plain.plays, plain.beats, pace)
    assert [b for _, b in beats] == pytest.approx([b for _, b in paced.beats], abs=1 / 15 + 1e-9)
    longer = [p for p in plays if p.seconds > 1 / 15]  # what a frame's rounding leaves
    assert [(p.start, p.end) for p in longer] == [
        (pytest.approx(p.start, abs=1 / 15), pytest.approx(p.end, abs=1 / 15)) for p in paced.plays
    ]
    before = still_runs(plain.plays, plain.beats, speech)
    after = still_runs(paced.plays, paced.beats, speech)
    assert after.still_seconds < before.still_seconds
    assert after.longest is None or after.longest.seconds <= 5.0 - min(5.3, MOST_PACE) + 0.07


def test_no_speech_means_no_pacing():
    scene = build({})
    assert pace_for(scene.plays, {}) == {}


def test_the_motion_command_reports_each_clips_still_share_and_longest_run(
    plugin_scenes, shared_speech, tmp_path
):
    from click.testing import CliRunner

    from render import cli

    shared_speech(tmp_path)
    result = CliRunner().invoke(cli, ["motion", "tiny", "--output", str(tmp_path)])
    assert result.exit_code == 0, result.output
    (row,) = [line for line in result.output.splitlines() if "tiny" in line]
    share, longest, beat = (cell.strip() for cell in row.split("│")[2:5])
    assert share.endswith("%") and longest.endswith(" s") and beat in ("one", "two", "-")
    assert "longest still run:" in result.output
    # measured on its drawn frames instead (the speech made above is reused)
    result = CliRunner().invoke(cli, ["motion", "tiny", "--pixels", "--output", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "still in the frames" in result.output
    (row,) = [line for line in result.output.splitlines() if "tiny" in line]
    share, longest, beat = (cell.strip() for cell in row.split("│")[2:5])
    assert 0 <= int(share.removesuffix("%")) <= 100 and beat in ("one", "two", "one > two", "-")
    assert 0.0 < float(longest.removesuffix(" s")) < 6.0  # its frames hold after each fade


class _Cued(LessonScene):
    slug = "cued"

    @classmethod
    def numbers(cls, params):
        return {}

    def construct(self):
        self.beat("one")
        square = Square()
        self.play(FadeIn(square), run_time=0.5)
        self.while_saying("grow", square.animate.scale(2), run_time=1.0)
        self.while_saying("spin", Rotate(square), stretch=False, run_time=0.5)


def build_cued(lang: str, sentences: dict | None, speech: float = 9.0) -> _Cued:
    with tempconfig({"dry_run": True, "frame_rate": 15}):
        scene = _Cued(
            params=Params(),
            lang=lang,
            speech={"one": speech},
            sentences=sentences,
            skip_animations=True,
        )
        scene.render()
    return scene


def test_cue_markers_are_neither_spoken_nor_shown_and_name_their_sentence():
    for lang, line in (
        (
            "en",
            "A square appears first. Then it grows while this sentence is spoken. And it turns.",
        ),
        ("zh", "先出现一个正方形，接着边说边变大。它转一圈。"),
    ):
        assert say.fill(lang, "cued", "one", dict) == line
    en, zh = say.cues("en", "cued", "one", dict), say.cues("zh", "cued", "one", dict)
    assert en == {"grow": say.Cue(1, 0.0), "spin": say.Cue(2, 0.0)}
    # zh marks its own sentences, and one marker sits inside its sentence: after 先出现一个正方形，
    assert zh["spin"] == say.Cue(1, 0.0) and zh["grow"].sentence == 0
    assert zh["grow"].share == pytest.approx(9 / len("先出现一个正方形，接着边说边变大。"))
    assert zh["grow"].at([(1.0, 3.0)]) == pytest.approx(1.0 + 2.0 * zh["grow"].share)


def test_a_cued_animation_plays_as_its_sentence_is_spoken_and_for_as_long():
    spans = [(0.0, 2.0), (2.3, 6.0), (6.3, 8.0)]
    scene = build_cued("en", {"one": spans})
    fade, hold, grow, spin = (p for p in scene.plays if not p.for_speech)
    assert hold.frozen and hold.start == pytest.approx(0.5, abs=1 / 15) and not fade.cued
    assert grow.cued and grow.start == pytest.approx(2.3, abs=1 / 15)
    assert grow.seconds == pytest.approx(4.0, abs=1 / 15)  # to the next cue, not the written 1 s
    assert spin.start == pytest.approx(6.3, abs=1 / 15)
    assert spin.seconds == pytest.approx(0.5, abs=1 / 15)  # stretch=False: as written
    assert scene.cues_used == [("one", "grow"), ("one", "spin")]
    assert pace_for(scene.plays, {"one": 9.0}) == {}  # its sentences time it, not a pace
    # zh marks other sentences: the same cue follows its own language's sentence
    zh = build_cued("zh", {"one": [(0.0, 3.0), (3.3, 5.0)]})
    zh_grow = next(p for p in zh.plays if p.cued)
    assert zh_grow.start == pytest.approx(3.0 * 9 / 17, abs=1 / 15)  # inside its sentence
    assert zh_grow.end == pytest.approx(3.3, abs=1 / 15)

    class LastCue(_Cued):
        def construct(self):
            self.beat("one")
            self.while_saying("spin", Rotate(Square()), run_time=0.5)

    with tempconfig({"dry_run": True, "frame_rate": 15}):
        last = LastCue(params=Params(), lang="en", speech={"one": 9.0}, sentences={"one": spans})
        last.render()
    spin = next(p for p in last.plays if p.cued)  # the last cue runs to the end of the speech
    assert (spin.start, spin.end) == (pytest.approx(6.3, abs=1 / 15), pytest.approx(8.0, abs=0.1))


def test_without_sentence_times_cued_animations_play_at_once_as_written():
    scene = build_cued("en", None)
    grow = next(p for p in scene.plays if p.cued)
    assert grow.start == pytest.approx(0.5, abs=1 / 15)
    assert grow.seconds == pytest.approx(1.0, abs=1 / 15)


def test_a_cue_the_line_does_not_mark_is_one_clear_error():
    class Unmarked(_Cued):
        def construct(self):
            self.beat("one")
            self.while_saying("fade", FadeIn(Square()))

    with tempconfig({"dry_run": True}), pytest.raises(CatalogueError) as err:
        Unmarked(params=Params(), lang="en", skip_animations=True).render()
    assert "say.one has no cue @fade" in str(err.value) and "\n" not in str(err.value)


def test_a_marked_cue_the_scene_never_plays_is_a_layout_problem():
    from tests.scene_tools import build_scene

    class Partial(_Cued):
        def construct(self):
            self.beat("one")
            self.while_saying("grow", FadeIn(Square()))

    for lang in ("en", "zh"):
        _, report = build_scene(Partial, lang=lang)
        assert report.problems == ["[one] the line marks @spin, which the scene never plays"]
    _, report = build_scene(_Cued, lang="zh")
    assert report.problems == []


def test_the_layout_is_checked_as_every_cued_animation_ends():
    from manim import Text

    from tests.scene_tools import build_scene

    class OffFrame(_Cued):
        def construct(self):
            self.beat("one")
            words = Text("out of the frame").shift(40 * RIGHT)
            self.while_saying("grow", FadeIn(words))
            self.remove(words)  # gone before the next cue and the beat's end: only one sees it
            self.while_saying("spin", FadeIn(Square()))

    _, report = build_scene(OffFrame, lang="en")
    assert len(report.problems) == 1 and report.problems[0].startswith("[one@grow] Text(")
