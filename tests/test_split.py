"""Scenes drawn in parts, then joined: spans of animations by several workers, or the
beats that changed, with the others kept from an earlier render (segments.py).

A part that starts late skips every play before it (they end without drawing), so a
scene whose state or clock depends on those plays would draw it differently; and a kept
beat may start later than it did, so a scene whose frames depend on the absolute clock
could not keep it. Every mission scene is drawn whole, then again with an earlier beat
speaking longer, drawing only from that beat on, at a tiny frame size with speech
lengths that are not whole frames: every later beat must be drawn as before. Spans are
checked on the scene that redraws its hands every frame, joining by packet copy on it
and through the driver.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import av
import numpy as np
import pytest
from click.testing import CliRunner

from lesson import catalogue as catalogue_mod
from lesson import reads, registry
from lesson.catalogue import catalogue
from lesson.reads import PRELUDE
from pe_math import Params
from render import cli
from rendering.cli import options
from rendering.core import validate
from rendering.core.jobs import Job
from rendering.draw import join, packets, segments
from rendering.draw.scene import draw
from rendering.publish import flashes
from rendering.run import split
from rendering.speech import audio
from scenes.kit.base import Watchers
from tests.videos import synthetic

TINY_FRAME = {"pixel_width": 256, "pixel_height": 144, "frame_rate": 10}
# Every frame of a beat depends on the same state, so a few frames a second show a
# difference as well as many would, at a fraction of the drawing
SPARSE_FRAME = {**TINY_FRAME, "frame_rate": 4}
# Chapters replayed beat by beat: one per kind of motion the chapters use (a counter's
# updaters, a chart that follows a moving position, hands redrawn from the scene clock and paced by speech,
# waves redrawn every frame). Every chapter is drawn whole elsewhere; this is the dearest check.
REPLAYED = ("binary-bits", "integer-scale", "clock-hands", "square-to-sine")
FOLDER = Path("en") / "480p15"
JOINED = "clock-hands"  # its hands are redrawn every frame from the scene clock


def decoded(*paths: Path) -> list[np.ndarray]:
    out = []
    for path in paths:
        with av.open(str(path)) as container:
            out += [frame.to_ndarray(format="rgb24") for frame in container.decode(video=0)]
    return out


# ----------------------------------------------------------------- choosing spans
def test_spans_make_the_dearest_part_as_cheap_as_possible():
    # every build up to a part's end is paid by that part; draws only by the part that draws
    animations = [[1.0, 2.0]] * 10
    assert split.spans(animations, 2) == [(0, 5), (6, 9)]
    assert split.part_cost(animations, 0, 5) == split.part_cost(animations, 6, 9) == 18.0
    # one expensive draw at each end: the cut falls in the cheap middle
    assert split.spans([[0, 10], [0, 1], [0, 1], [0, 10]], 2) == [(0, 1), (2, 3)]
    # the spans cover every animation once, in order, however many parts are asked for
    rng = np.random.default_rng(7)
    costs = rng.uniform(0, 3, size=(40, 2)).tolist()
    for parts in (1, 3, 7, 40, 60):
        got = split.spans(costs, parts)
        assert got[0][0] == 0 and got[-1][1] == 39
        assert all(b[0] == a[1] + 1 for a, b in zip(got, got[1:], strict=False))
        assert len(got) == min(parts, 40)


def test_a_job_is_split_only_when_it_would_hold_up_the_run_and_is_worth_it():
    long = [[0.5, 2.0]] * 20  # 50 s of work
    assert split.part_count(long, share=3.0, slots=2) == 2  # never more parts than slots
    assert split.part_count(long, share=3.0, slots=4) == 3
    assert split.part_count(long, share=0.8, slots=4) == 1  # smaller than a slot's share
    assert split.part_count(None, share=3.0, slots=4) == 1  # no timings from a last run
    assert split.part_count(long, share=3.0, slots=1) == 1
    short = [[0.1, 0.5]] * 5  # 3 s: one part of 2 s at least
    assert split.part_count(short, share=4.0, slots=4) == 1
    assert split.part_count(short * 2, share=4.0, slots=4) == 3


def test_a_join_of_parts_decodes_only_the_parts_not_decoded_before(tmp_path, monkeypatch):
    """The clip's packets are counted, the parts not yet decoded and the last one (the
    poster) are decoded; a join that lost a part's frames is refused."""
    parts = [synthetic(tmp_path / f"{i}.mp4", n, shade=40 * i) for i, n in enumerate((6, 9, 4))]
    joined = tmp_path / "joined.mp4"
    packets.join(parts, joined)
    seen = []
    decode = validate.check_video
    monkeypatch.setattr(
        validate, "check_video", lambda path, *a, **k: seen.append(path) or decode(path, *a, **k)
    )
    poster = tmp_path / "poster.png"
    marks = [(parts[0], True), (parts[1], False), (parts[2], True)]
    checked = validate.check_joined(joined, marks, 64, 32, 10, poster)
    assert (checked.frames, checked.duration) == (19, 1.9)
    assert seen == [parts[1], parts[2]]
    assert poster.exists()
    short = tmp_path / "short.mp4"
    packets.join(parts[:2], short)
    with pytest.raises(validate.InvalidOutput, match="holds 15 frames, its parts 19"):
        validate.check_joined(short, marks, 64, 32, 10)
    with pytest.raises(validate.InvalidOutput, match="is 64x32, expected 128x72"):
        validate.check_joined(joined, [(p, True) for p in parts], 128, 72, 10)


def test_merged_timings_take_each_animation_from_the_part_that_drew_it():
    first = [[1.0, 2.0], [1.0, 3.0], [0.5, 0.0]]
    second = [[1.0, 0.0], [1.2, 0.0], [0.5, 4.0]]
    merged = join.merged_timings([((2, 2), second), ((0, 1), first)])
    assert merged == [[1.0, 2.0], [1.0, 3.0], [0.5, 4.0]]
    # the last part draws to the end of the build, however many plays it has now
    longer = [*second, [0.0, 1.5]]
    merged = join.merged_timings([((2, -1), longer), ((0, 1), first)])
    assert merged == [[1.0, 2.0], [1.0, 3.0], [0.5, 4.0], [0.0, 1.5]]


def test_kept_beats_encoded_otherwise_are_not_joined_by_packet_copy(tmp_path):
    """A kept segment encoded with other settings (an upgraded encoder, say) next to one
    drawn now would make a clip whose packets do not fit one decoder set-up: the clip is
    drawn whole instead (SegmentMismatch); segments encoded alike are joined."""
    store = tmp_path / "store"
    store.mkdir()
    synthetic(store / "drawn.mp4", 6)
    synthetic(store / "same.mp4", 4, shade=90)
    synthetic(store / "other.mp4", 4, shade=90, options={"profile": "baseline"})
    assert validate.signature(store / "same.mp4") != validate.signature(store / "other.mp4")
    drawn = [{"beat": "one", "key": "drawn", "frames": 6}]

    def plan(kept: str) -> segments.BeatPlan:
        return segments.BeatPlan(("one", "two"), {"two": {"beat": "two", "key": kept, "frames": 4}})

    whole, starts = segments.assemble(drawn, plan("same"), store, tmp_path / "a.mp4", 10)
    assert starts == [("one", 0.0), ("two", 0.6)] and len(decoded(tmp_path / "a.mp4")) == 10
    with pytest.raises(segments.SegmentMismatch, match="encoded differently"):
        segments.assemble(drawn, plan("other"), store, tmp_path / "b.mp4", 10)
    # a beat whose last frame is held a few ticks short (as a beat cut from a part can be)
    # averages a hair over 10 frames a second, and still joins: the edit draws one beat
    held_short(store / "same.mp4", store / "short.mp4")
    with av.open(str(store / "short.mp4")) as short:
        assert short.streams.video[0].average_rate != 10
    segments.assemble(drawn, plan("short"), store, tmp_path / "c.mp4", 10)
    assert len(decoded(tmp_path / "c.mp4")) == 10


def held_short(source: Path, target: Path, ticks: int = 5) -> None:
    """`source`'s packets copied into `target`, the last frame shown `ticks` shorter."""
    with av.open(str(source)) as src, av.open(str(target), "w") as out:
        stream = src.streams.video[0]
        copy = out.add_stream_from_template(stream)
        packets = [p for p in src.demux(stream) if p.size]
        packets[-1].duration -= ticks
        for packet in packets:
            packet.stream = copy
            out.mux(packet)


# ----------------------------------------------------------------- frame for frame
def speeches(slug: str) -> tuple[dict[str, float], str, dict[str, float]]:
    """Speech that is no whole number of frames (the waits after skipped plays must
    match), a beat two thirds of the way in (not the last), and the same speech with that
    beat 15 s longer."""
    keys = list(catalogue("en", slug)["say"])
    speech = {key: 1.37 + 0.71 * i for i, key in enumerate(keys)}
    longer = keys[min(len(keys) - 2, 2 * len(keys) // 3)]
    return speech, longer, {**speech, longer: speech[longer] + 15.0}


@pytest.mark.render
@pytest.mark.parametrize("slug", REPLAYED)
def test_a_beat_drawn_after_kept_ones_and_an_earlier_longer_beat_leave_the_later_frames_alone(
    slug, tmp_path
):
    """A clip is drawn whole and its beats kept; then a beat two thirds of the way in
    speaks longer. The next render copies the beats before it and draws the rest in two
    spans, the second starting inside that beat, after playing the kept ones without
    drawing: the spans' pieces of the beat join into its segment, every later beat must
    come out as the whole render drew it (same key, same frames), though it now starts
    later, and the beats' start times must follow from the frames."""
    job = Job(slug, Params.load())
    speech, longer, speech2 = speeches(slug)
    # Speech stretches the animations to fill it (the driver's pacing, rendering.draw.motion), which costs a build
    # before the draw: one scene is drawn so, the others as written ({})
    pace = None if slug == JOINED else {}
    store = tmp_path / "beats"
    whole = draw(job, tmp_path / "whole", frame=SPARSE_FRAME, speech=speech, pace=pace)
    kept = segments.keep(job, whole, store)
    says = list(catalogue("en", slug)["say"])
    assert [r["beat"] for r in kept] in (says, [PRELUDE, *says])  # a prelude if it plays
    assert all(r["frames"] is not None for r in kept)
    order = [r["beat"] for r in kept]
    later = order[order.index(longer) + 1 :]
    assert later
    before = {r["beat"]: decoded(store / f"{r['key']}.mp4") for r in kept if r["beat"] in later}

    plan = segments.BeatPlan(tuple(order), {r["beat"]: r for r in kept[: order.index(longer)]})
    first = sum(r["plays"] for r in kept[: order.index(longer)])
    cut = first + max(1, kept[order.index(longer)]["plays"] // 2) - 1
    parts = []
    for span in ((first, cut), (cut + 1, -1)):
        folder = tmp_path / f"span-{span[0]}"
        drawn = draw(
            job, folder, span=span, frame=SPARSE_FRAME, speech=speech2, pace=pace, kept=plan
        )
        parts.append(segments.keep(job, drawn, store, folder / "pieces"))
    again = drawn  # the last span met every beat
    assert {r["beat"]: r for r in parts[1]}[longer].get("piece")  # it began inside the beat
    redrawn = segments.merged(parts, store)
    by_beat = {r["beat"]: r for r in redrawn}
    assert by_beat[longer]["key"] != kept[order.index(longer)]["key"]
    assert by_beat[longer]["frames"] > 0
    for beat in later:
        record = by_beat[beat]
        assert record["key"] == kept[order.index(beat)]["key"], beat
        got = decoded(store / f"{record['key']}.mp4")
        assert len(got) == len(before[beat]) and all(
            (a == b).all() for a, b in zip(before[beat], got, strict=True)
        ), f"beat {beat!r} drew differently after the longer beat"
    fps = SPARSE_FRAME["frame_rate"]
    clip, starts = segments.assemble(redrawn, plan, store, tmp_path / "clip.mp4", fps)
    assert starts == again.beats
    assert dict(starts)[later[0]] > dict(whole.beats)[later[0]] + 1.0  # it moved, unchanged
    assert len(decoded(tmp_path / "clip.mp4")) == sum(r["frames"] for r in clip)


@pytest.mark.render
def test_a_late_span_drawn_alone_is_the_end_of_the_whole_render_and_joins_to_it(tmp_path):
    """The spans a split job is drawn in: the last quarter drawn alone is the whole
    render's last frames, and the rest drawn apart and joined to it is the whole again."""
    job = Job(JOINED, Params.load())
    speech, _, _ = speeches(JOINED)
    ends: list[float] = []  # the scene clock after each animation of the whole render
    watch = Watchers(play=(lambda scene: ends.append(float(scene.renderer.time)),))
    whole = draw(job, tmp_path / "whole", frame=SPARSE_FRAME, speech=speech, watchers=watch)
    first, last = split.spans(whole.animations, 4)[-1]  # the last quarter of the drawing
    assert 0 < first <= last == len(ends) - 1
    tail = draw(job, tmp_path / "tail", span=(first, last), frame=SPARSE_FRAME, speech=speech)

    assert tail.beats == whole.beats  # every beat seen, at the same time, drawn or skipped
    expected, got = decoded(whole.file), decoded(tail.file)
    assert expected[0].shape == (SPARSE_FRAME["pixel_height"], SPARSE_FRAME["pixel_width"], 3)
    skipped = round(ends[first - 1] * SPARSE_FRAME["frame_rate"])  # frames the span must not draw
    assert len(got) == len(expected) - skipped
    differing = [
        i for i, (a, b) in enumerate(zip(expected[skipped:], got, strict=True)) if (a != b).any()
    ]
    assert not differing, f"{len(differing)} frames differ, from frame {skipped + differing[0]}"

    head = draw(job, tmp_path / "head", span=(0, first - 1), frame=SPARSE_FRAME, speech=speech)
    packets.join([head.file, tail.file], tmp_path / "joined.mp4")
    assert len(decoded(head.file)) == skipped
    joined = decoded(tmp_path / "joined.mp4")
    assert len(joined) == len(expected)
    assert all((a == b).all() for a, b in zip(expected, joined, strict=True))


# ----------------------------------------------------------------- through the driver
def render(out: Path, *args: str):
    return CliRunner().invoke(
        cli, ["render", "tiny", "--voice", "espeak", "--output", str(out), *args]
    )


def clip_entry(out: Path) -> dict:
    return json.loads((out / FOLDER / "manifest.json").read_text())["clips"]["tiny"]["mp4"]


@pytest.mark.render
def test_the_driver_splits_from_the_last_timings_and_publishes_the_same_clip(
    plugin_scenes, tmp_path, monkeypatch
):
    monkeypatch.setattr(split, "MIN_PART_SECONDS", 0.0)  # the test scene is a few seconds
    first = render(tmp_path, "--jobs", "2")
    assert first.exit_code == 0, first.output
    whole = clip_entry(tmp_path)
    assert whole["parts"] == 1  # no timings yet: nothing to size the spans from
    plays = whole["animations"]
    assert len(plays) >= 3 and all(build >= 0 and draw > 0 for build, draw in plays)
    frames = decoded(tmp_path / FOLDER / "tiny.mp4")

    again = render(tmp_path, "--jobs", "2", "--force")
    assert again.exit_code == 0, again.output
    joined = clip_entry(tmp_path)
    assert joined["parts"] == 2
    assert len(joined["animations"]) == len(plays)
    assert joined["beats"] == whole["beats"] and joined["frames"] == whole["frames"]
    assert joined["speech"] == whole["speech"]
    assert joined["sound"]["seconds"] == pytest.approx(whole["sound"]["seconds"], abs=0.03)
    got = decoded(tmp_path / FOLDER / "tiny.mp4")
    assert all((a == b).all() for a, b in zip(frames, got, strict=True))
    assert not (tmp_path / ".work").exists()

    # timings from a render with a play fewer (new speech may add a hold at a beat's end):
    # the last part draws on to the end of the build all the same
    manifest = tmp_path / FOLDER / "manifest.json"
    data = json.loads(manifest.read_text())
    data["clips"]["tiny"]["mp4"]["animations"].pop()
    manifest.write_text(json.dumps(data))
    fewer = render(tmp_path, "--jobs", "2", "--force")
    assert fewer.exit_code == 0, fewer.output
    assert clip_entry(tmp_path)["parts"] == 2
    assert len(clip_entry(tmp_path)["animations"]) == len(plays)
    got = decoded(tmp_path / FOLDER / "tiny.mp4")
    assert all((a == b).all() for a, b in zip(frames, got, strict=True))

    kept = render(tmp_path, "--jobs", "2", "--force", "--no-split")
    assert kept.exit_code == 0, kept.output
    assert clip_entry(tmp_path)["parts"] == 1
    solo = render(tmp_path, "--jobs", "1", "--force")  # one worker: nothing to gain
    assert solo.exit_code == 0, solo.output
    assert clip_entry(tmp_path)["parts"] == 1


@pytest.mark.render
def test_a_reworded_line_redraws_its_beat_alone_and_the_clip_is_a_whole_render_again(
    plugin_scenes, tmp_path, monkeypatch
):
    """Through the driver: after one line of the second beat is reworded, the plan names
    that beat, the render draws it alone (in two spans on two workers, whose pieces of
    it are joined), and the clip's frames and sound are those of a whole render of the
    new words. A changed knob that the first beat reads draws both."""
    words = tmp_path / "captions"  # a course's own wording, read before the project's
    shutil.copytree(Path(__file__).parent / "captions", words)
    monkeypatch.setenv(catalogue_mod.OVERRIDE, str(words))
    monkeypatch.setattr(options.console, "width", 250)  # the plan's table: a line per clip
    out, whole = tmp_path / "out", tmp_path / "whole"
    assert render(out, "--no-split").exit_code == 0
    recorded = clip_entry(out)["segments"]["beats"]
    assert [r["beat"] for r in recorded] == ["one", "two"]  # nothing before the first beat
    store = out / FOLDER / ".beats" / "tiny"
    kept_measure = store / f"{recorded[0]['key']}{flashes.AREAS}"  # the flash check's
    measured = kept_measure.stat().st_mtime_ns

    line = words / "en" / "tiny.toml"
    line.write_text(
        line.read_text().replace("adds a square.", "adds a square below the frequency.")
    )
    dry = render(out, "--dry-run")
    assert "beat 'two' narration changed; 1 of 2 beats to draw" in dry.output, dry.output
    monkeypatch.setattr(split, "MIN_PART_SECONDS", 0.0)  # the test scene is a few seconds
    again = render(out, "--jobs", "2")
    assert again.exit_code == 0, again.output
    assert "tiny: drew 1 of 2 beats, kept the rest" in again.output
    assert clip_entry(out)["parts"] == 2  # beat 'two' drawn in two spans
    assert not (out / ".work").exists()  # the spans' pieces went with their folders
    assert render(whole, "--no-split").exit_code == 0
    ours, theirs = out / FOLDER / "tiny.mp4", whole / FOLDER / "tiny.mp4"
    expected = decoded(theirs)
    got = decoded(ours)
    assert len(got) == len(expected)
    assert all((a == b).all() for a, b in zip(expected, got, strict=True))
    assert np.array_equal(audio.decode(ours), audio.decode(theirs))
    assert clip_entry(out)["beats"] == clip_entry(whole)["beats"]
    # what was on screen as each beat ended, the kept one's from before, as a whole render's
    assert list(clip_entry(whole)["screen"]) == ["one", "two"]
    assert clip_entry(out)["screen"] == clip_entry(whole)["screen"]
    assert len(list(store.glob("*.mp4"))) == 2  # old one gone
    # flashes measured on the new beat alone, the kept one's measure read again: the
    # beats' series joined are the clip's own
    assert len(list(store.glob(f"*{flashes.AREAS}"))) == 2
    assert kept_measure.stat().st_mtime_ns == measured
    entry = SimpleNamespace(segments=clip_entry(out)["segments"], file="tiny.mp4")
    parts = flashes.kept_parts(out / FOLDER, entry)
    joined = np.concatenate([flashes.beat_areas(path, n) for path, n in parts])
    assert np.array_equal(joined, flashes.decoded_areas(ours))

    knob = render(out, "--set", "base=500", "--dry-run")
    assert "knob base changed (read from beat 'one' on); all 2 beats to draw" in (knob.output), (
        knob.output
    )


def test_adding_a_bridge_line_changes_the_key_of_the_beat_that_lays_it_out(
    plugin_scenes, tmp_path, monkeypatch
):
    """Whether a chapter ends on a bridge line shapes its takeaway's layout: the beat that
    asked must read differently once the line is added, so it is drawn again."""
    words = tmp_path / "captions"
    shutil.copytree(Path(__file__).parent / "captions", words)
    monkeypatch.setenv(catalogue_mod.OVERRIDE, str(words))
    with reads.watching() as read:
        read.enter("takeaway")
        assert registry.bridge_to("tiny", "en") is None
    names = read.as_dict()
    job = Job("tiny", Params())
    before = segments.beat_keys("base", segments.traced(job, names, ({}, {}, set())))
    line = words / "en" / "tiny.toml"
    line.write_text(line.read_text() + 'bridge = "Next, a scene that reads the bits."\n')
    assert registry.bridge_to("tiny", "en") is not None
    after = segments.beat_keys("base", segments.traced(job, names, ({}, {}, set())))
    assert after["takeaway"] != before["takeaway"]


def test_a_bridge_that_points_to_another_chapter_changes_the_beat_that_shows_it(
    plugin_scenes, tmp_path, monkeypatch
):
    """The bridge shows the next chapter's number and title: when the registry's next
    chapter changes (a chapter removed or added between), the beat reads differently."""
    words = tmp_path / "captions"
    shutil.copytree(Path(__file__).parent / "captions", words)
    monkeypatch.setenv(catalogue_mod.OVERRIDE, str(words))
    line = words / "en" / "tiny.toml"
    line.write_text(line.read_text() + 'bridge = "Next, a scene that reads the bits."\n')
    with reads.watching() as read:
        read.enter("takeaway")
        assert registry.bridge_to("tiny", "en").slug == "tiny-static"
    names = read.as_dict()
    job = Job("tiny", Params())
    before = segments.beat_keys("base", segments.traced(job, names, ({}, {}, set())))
    monkeypatch.delitem(registry.REGISTRY, "tiny-static")
    assert registry.bridge_to("tiny", "en").slug == "slow"
    after = segments.beat_keys("base", segments.traced(job, names, ({}, {}, set())))
    assert after["takeaway"] != before["takeaway"]


def first_packets(path: Path, count: int) -> None:
    """Cut a kept segment down to its first `count` packets, in place."""
    cut = path.with_name("cut.mp4")
    with av.open(str(path)) as source, av.open(str(cut), mode="w") as target:
        stream = source.streams.video[0]
        copy = target.add_stream_from_template(template=stream)
        for packet in list(source.demux(stream))[:count]:
            if packet.dts is not None:
                packet.stream = copy
                target.mux(packet)
    cut.replace(path)


@pytest.mark.render
def test_a_kept_beat_that_ends_before_its_speech_is_drawn_again_not_cut_off(
    plugin_scenes, tmp_path, monkeypatch
):
    """Should a kept segment end before the narration it carries does, the clip is not
    published with its last words cut: the render draws the scene whole instead."""
    words = tmp_path / "captions"
    shutil.copytree(Path(__file__).parent / "captions", words)
    monkeypatch.setenv(catalogue_mod.OVERRIDE, str(words))
    monkeypatch.setattr(options.console, "width", 250)
    out = tmp_path / "out"
    assert render(out, "--no-split").exit_code == 0
    last = clip_entry(out)["segments"]["beats"][-1]
    assert last["beat"] == "two"
    first_packets(out / FOLDER / ".beats" / "tiny" / f"{last['key']}.mp4", 3)
    line = words / "en" / "tiny.toml"
    line.write_text(line.read_text().replace("one frequency,", "a frequency,", 1))
    assert "1 of 2 beats to draw" in render(out, "--dry-run").output
    again = render(out, "--no-split")
    assert again.exit_code == 0, again.output
    assert "drew 1 of 2 beats" not in again.output
    clip = clip_entry(out)
    spoken = max(end for spans in clip["speech"].values() for _, end in spans)
    assert clip["duration"] >= spoken
    assert len(decoded(out / FOLDER / "tiny.mp4")) == clip["frames"]
