"""Drawing one scene (or a span of its animations) with Manim, then voicing and checking it.

Two Manim processes must never share a media_dir: they trip over each other's text
and TeX caches and partial movie files. Each render draws under its private work
folder and validates the result before anything is handed back.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lesson import reads
from lesson.palette import PALETTE
from rendering.core import settings
from rendering.core.jobs import Job
from rendering.core.validate import Checked, InvalidOutput, check_image, check_joined, check_video
from rendering.draw import encoders, motion, segments
from rendering.draw.config import Span, manim_config
from rendering.draw.packets import frames_in
from rendering.speech import audio


@dataclass(frozen=True)
class RenderResult:
    """A validated output in the worker's folder, and what the manifest needs to know of it."""

    file: str
    poster: str | None
    duration: float
    frames: int
    width: int
    height: int
    fps: int
    beats: list[list]  # [beat key, start second]
    sound: dict[str, Any] | None = None  # measured codec, rate, loudness and peak
    speech: dict[str, list] | None = None  # beat -> spoken sentence spans
    animations: list[list[float]] | None = None  # per play: [build, draw] wall seconds
    parts: int = 1  # ranges of animations drawn apart and joined
    segments: list[dict[str, Any]] | None = None  # per beat: its key, reads and frames
    drawn_beats: int | None = None  # beats drawn (the others copied from the store)
    knobs: list[str] | None = None  # the Params fields the build read (the clip key's)
    # beat -> what is on screen as it ends (on_screen.ended); a beat the build did not
    # reach is absent
    screen: dict[str, dict] | None = None


class SpeechCutOff(InvalidOutput):
    """The picture ends before the narration does: its last words would be cut off."""


@dataclass(frozen=True)
class Drawn:
    """Manim's silent video of a job (or of one span of its animations), and its timings."""

    file: Path
    beats: list[tuple[str, float]]
    animations: list[list[float]]  # per play: [build, draw] wall seconds; see split.py
    plays: list = dataclasses.field(default_factory=list)  # scenes.kit.base.Play, per play
    partials: list[str | None] = dataclasses.field(default_factory=list)  # Manim's file per play
    drawn: list[bool] = dataclasses.field(default_factory=list)  # per play
    read: reads.Reads | None = None  # what the build read, beat by beat
    ended: bool = True  # the scene ran to its end (a span stops at its last animation)
    speech: dict[str, float] = dataclasses.field(default_factory=dict)  # what timed it
    sentences: dict[str, list] = dataclasses.field(default_factory=dict)
    inputs: dict[str, list[float]] = dataclasses.field(default_factory=dict)  # motion.pace_inputs
    screen: dict[str, dict] = dataclasses.field(default_factory=dict)  # as RenderResult's


def draw(
    job: Job,
    work_dir: Path,
    report=None,
    span: Span | None = None,
    frame: dict[str, Any] | None = None,
    speech: dict[str, float] | None = None,
    pace: dict[str, float] | None = None,
    sentences: dict[str, list[tuple[float, float]]] | None = None,
    kept: segments.BeatPlan | None = None,
    watchers=None,
) -> Drawn:
    """Let Manim draw the job's frames into a silent video under `work_dir`.

    `report` gets the scene seconds drawn so far after every play. `span` draws only
    those animations (the ones before it are skipped, not drawn), and `kept` names the
    beats whose frames are kept from before: they are played without drawing, and the
    build stops where only kept beats are left. `frame` overrides Manim's pixel size or
    frame rate, and `speech` and `sentences` the narration's beat lengths and sentence
    times, and `watchers` (a scenes.kit.base.Watchers) what is called as the build goes
    (tests).
    """
    from manim import tempconfig

    from scenes.kit.base import UNWATCHED

    scene_cls = job.info.load()
    record, clock = _play_clock(report)
    screen, ended_beat = _screen_watch()
    with drawn_in(job):
        speech, sentences, pace, inputs = _timing(
            job, work_dir, frame, speech, pace, sentences, kept
        )
        given = watchers or UNWATCHED
        logging.getLogger("manim").setLevel(logging.ERROR)
        with (
            tempconfig({**manim_config(job, work_dir / "manim", span), **(frame or {})}),
            reads.watching() as read,
        ):
            begun = time.perf_counter()
            scene = scene_cls(
                params=job.params,
                lang=job.lang,
                burn_captions=job.burn_captions,
                speech=speech,
                pace=pace,
                sentences=sentences,
                skip_beats=set(kept.reuse) if kept else None,
                stop_at=kept.stop_at() if kept else None,
                watchers=dataclasses.replace(
                    given, play=(*given.play, record), beat=(*given.beat, ended_beat)
                ),
            )
            scene.render()
            writer = scene.renderer.file_writer
            # only the artifact the plan has: the other path properties raise
            produced = Path(writer.movie_file_path if job.format.moving else writer.image_file_path)
            ended = scene.stopped or not scene.cut_short
    return Drawn(
        produced,
        [(k, round(t, 3)) for k, t in scene.beats],
        timings(begun, clock),
        scene.plays,
        list(getattr(writer, "partial_movie_files", [])),
        [drawn for _, _, drawn in clock],
        read,
        ended,
        dict(speech or {}),
        dict(sentences or {}),
        inputs or {},
        screen,
    )


@contextlib.contextmanager
def drawn_in(job: Job) -> Iterator[None]:
    """The job's colours, brand and font while it is built or drawn: a process draws jobs
    of any look."""
    from scenes.kit import brand, theme

    with theme.drawn_in(dict(job.palette) or PALETTE), brand.worn(dict(job.look)):
        yield


def _screen_watch() -> tuple[dict[str, dict], Callable[[Any, str], None]]:
    """What is on screen as each beat ends (PRELUDE: before the first), and the beat
    watcher that fills it."""
    from scenes.kit.on_screen import ended

    ends: dict[str, dict] = {}
    current, shown = [reads.PRELUDE], [set()]

    def ended_beat(scene, beat: str) -> None:
        if current[0] != reads.PRELUDE or scene.plays:  # as segments.keep: no empty prelude
            ends[current[0]], shown[0] = ended(scene, shown[0])
        current[0] = beat

    return ends, ended_beat


def _play_clock(report) -> tuple[Callable[[Any], None], list[tuple[float, float, bool]]]:
    """A play watcher, and the list it fills: every play's wall clock at start and end, and
    whether it was drawn. `report` (if any) gets the scene seconds drawn so far."""
    drawn_seconds = 0.0
    clock: list[tuple[float, float, bool]] = []  # every play: wall clock at start and end, drawn

    def record(scene) -> None:
        nonlocal drawn_seconds
        end = time.perf_counter()
        drawn = not scene.renderer.skip_animations
        clock.append((scene.play_started, end, drawn))
        if drawn:
            drawn_seconds += float(scene.duration)
        if report is not None:
            report(drawn_seconds)

    return record, clock


def _timing(
    job: Job,
    work_dir: Path,
    frame: dict[str, Any] | None,
    speech: dict[str, float] | None,
    pace: dict[str, float] | None,
    sentences: dict[str, list[tuple[float, float]]] | None,
    kept: segments.BeatPlan | None,
) -> tuple[
    dict[str, float] | None,
    dict[str, list[tuple[float, float]]] | None,
    dict[str, float] | None,
    dict[str, list[float]] | None,
]:
    """The speech, sentences and pace the draw is timed by, and the pace's inputs (if
    worked out): the job's narration unless given."""
    if speech is None and job.narration is not None:
        speech = job.narration.seconds()
        sentences = job.narration.sentence_times()
    # animations stretched to fill their beat's speech (worked out before any frame is
    # drawn, from a build without frames unless the kept beats recorded what it needs)
    inputs = kept.inputs if kept is not None else None
    if pace is None and speech:  # tests may fix it
        if inputs is None:
            inputs = motion.timed_inputs(job, work_dir / "pace", speech, frame, sentences)
        pace = motion.pace_for_inputs(inputs, speech)
    return speech, sentences, pace, inputs


def timings(begun: float, clock: list[tuple[float, float, bool]]) -> list[list[float]]:
    """Per play, [build, draw] seconds: the wall time before it (and in it, when skipped), in it."""
    out, last = [], begun
    for start, end, drawn in clock:
        build, inside = start - last, end - start
        out.append(
            [round(build + (0.0 if drawn else inside), 3), round(inside if drawn else 0.0, 3)]
        )
        last = end
    return out


def complete(
    job: Job,
    drawn: Path,
    beats: list[tuple[str, float]],
    work_dir: Path,
    parts: list[tuple[Path, bool]] | None = None,
) -> RenderResult:
    """From Manim's video to the delivered clip: convert, validate, poster, and voice it.

    With `parts`, `drawn` is their join by packets, and only the parts not decoded before
    (False beside them) are decoded (validate.check_joined); else every frame is."""
    narration = job.narration
    geo = encoders.output_geometry(job)  # a GIF is smaller and slower than the job's frame
    voiced = narration is not None and job.format.audio_codec is not None
    silent_name = f"{job.info.stem}.silent.{job.fmt}" if voiced else job.filename
    final = encoders.finish(job, drawn, work_dir / silent_name)
    poster = work_dir / f"{job.info.stem}.png"
    sound = speech = None
    if not job.format.moving:
        checked = check_image(final, geo.width, geo.height)
        poster = None
    elif voiced:
        picture = frames_in(final) / geo.fps
        spoken = [(end, key) for key, spans in narration.spans(beats).items() for _, end in spans]
        end, key = max(spoken, default=(0.0, ""))
        if end > picture + 1 / geo.fps:
            raise SpeechCutOff(
                f"{job.filename}: beat {key!r} speaks until {end:.3f} s, but the picture "
                f"ends at {picture:.3f} s: its last words would be cut off"
            )
        track = narration.track(beats, picture)
        voiced_file = work_dir / job.filename
        # the picture is decoded while the sound is made: the voiced file copies its packets
        with ThreadPoolExecutor(1, thread_name_prefix="check-picture") as pool:
            decoded = pool.submit(check_picture, final, geo, poster, parts)
            measured = audio.voice_clip(final, track, voiced_file, geo.fps)
            checked = decoded.result()
        final.unlink()
        final = voiced_file
        voiced_frames = frames_in(final)
        if voiced_frames != checked.frames:
            raise InvalidOutput(
                f"{final.name} holds {voiced_frames} frames after voicing, "
                f"its picture {checked.frames}"
            )
        if abs(checked.duration - len(track) / audio.RATE) > 1 / geo.fps:
            raise InvalidOutput(
                f"{final.name}: the picture lasts {checked.duration:.3f} s after voicing, "
                f"its sound {len(track) / audio.RATE:.3f} s"
            )
    elif parts:
        checked = check_picture(final, geo, poster, parts)
    else:
        checked = check_video(final, geo.width, geo.height, encoders.checked_rate(job), poster)
    if voiced:
        sound = {
            "codec": measured.codec,
            "rate": measured.rate,
            "seconds": round(measured.duration, 3),
            "lufs": round(measured.lufs, 2),
            "true_peak_dbtp": round(measured.true_peak, 2),
        }
        speech = narration.spans(beats)
    return RenderResult(
        file=str(final),
        poster=str(poster) if poster else None,
        duration=checked.duration,
        frames=checked.frames,
        width=checked.width,
        height=checked.height,
        fps=geo.fps,
        beats=[[k, t] for k, t in beats],
        sound=sound,
        speech=speech,
    )


def render(
    job: Job,
    work_dir: Path,
    report=None,
    span: Span | None = None,
    store: Path | None = None,
    kept: segments.BeatPlan | None = None,
) -> RenderResult:
    """Render, validate and make a poster; returns what the manifest needs.

    With `span`, only that range of animations: Manim's silent video as it is, to be
    joined with the other ranges' (split.py) and completed by the client. With `store`,
    every beat drawn whole is kept there (segments.py), and the beats `kept` names are
    copied from it instead of drawn (a span of a clip with kept beats draws a part of
    the others, and leaves the pieces of beats it drew in part for the client to join).
    """
    kept = kept if kept and kept.reuse and store is not None else None
    if kept is not None and not kept.to_draw:  # only the sound changed: nothing to draw
        drawn, records = None, []
    else:
        drawn = draw(job, work_dir, report, span, kept=kept)
        pieces = work_dir / "pieces" if span is not None else None
        records = segments.keep(job, drawn, store, pieces) if store is not None else None
    if span is not None:
        return span_result(job, drawn, records)
    if kept is not None:
        try:
            return with_kept(job, records, kept, store, work_dir)
        except (segments.SegmentMismatch, SpeechCutOff):  # the kept beats no longer fit
            (work_dir / "whole").mkdir(exist_ok=True)
            return render(job, work_dir / "whole", report, None, store)
    result = complete(job, drawn.file, drawn.beats, work_dir)
    return dataclasses.replace(
        result,
        animations=drawn.animations,
        segments=records,
        drawn_beats=len(records or []),
        knobs=drawn.read.knob_names() if drawn.read else None,
        screen=drawn.screen,
    )


def check_picture(
    path: Path, geo, poster: Path | None, parts: list[tuple[Path, bool]] | None
) -> Checked:
    """A clip's picture decoded end to end, or as a join of `parts` (validate.check_joined)."""
    if parts:
        return check_joined(path, parts, geo.width, geo.height, geo.fps, poster)
    return check_video(path, geo.width, geo.height, geo.fps, poster)


def with_kept(
    job: Job,
    records: list[dict[str, Any]],
    kept: segments.BeatPlan,
    store: Path,
    work_dir: Path,
    parts: int = 1,
) -> RenderResult:
    """The clip from the beats drawn now (`records`) and the kept ones, voiced and checked.
    Raises SegmentMismatch or SpeechCutOff when the kept beats no longer fit."""
    silent = work_dir / f"{job.info.stem}.beats.mp4"
    fps = settings.geometry(job.quality, job.aspect).fps
    records, beats = segments.assemble(records, kept, store, silent, fps)
    # kept beats were decoded in the clip they were drawn for, and a split's parts by the
    # workers that drew them: only the beats one build drew now are yet to be decoded
    decoded = [r["beat"] in kept.reuse or parts > 1 for r in records if r["frames"]]
    files = zip(segments.files_of(records, store), decoded, strict=True)
    result = complete(job, silent, beats, work_dir, list(files))
    drew = sum(1 for r in records if r["beat"] not in kept.reuse and r["frames"])
    knobs = sorted({name for r in records for name in r.get("knobs", {})})
    screen = {r["beat"]: r["screen"] for r in records if r.get("screen") is not None}
    return dataclasses.replace(
        result,
        segments=records,
        drawn_beats=drew,
        parts=parts,
        knobs=knobs,
        screen=screen,
    )


def span_result(job: Job, drawn: Drawn, records: list[dict[str, Any]] | None) -> RenderResult:
    """A span's silent video, checked, with its timings and beat records, for the client."""
    geo = settings.geometry(job.quality, job.aspect)
    checked = check_video(drawn.file, geo.width, geo.height, geo.fps)
    return RenderResult(
        file=str(drawn.file),
        poster=None,
        duration=checked.duration,
        frames=checked.frames,
        width=checked.width,
        height=checked.height,
        fps=geo.fps,
        beats=[[k, t] for k, t in drawn.beats],
        animations=drawn.animations,
        segments=records,
        knobs=drawn.read.knob_names() if drawn.read else None,
        screen=drawn.screen,
    )


def animation_times(job: Job, work_dir: Path) -> dict[str, float]:
    """How long each beat lasts without speech: the scene built with animations skipped."""
    from manim import tempconfig

    with tempconfig({**manim_config(job, work_dir / "manim"), "dry_run": True}), drawn_in(job):
        scene = job.info.load()(params=job.params, lang=job.lang, skip_animations=True)
        scene.render()
        end = float(scene.renderer.time)
    starts = [t for _, t in scene.beats] + [end]
    return {key: round(starts[i + 1] - t, 3) for i, (key, t) in enumerate(scene.beats)}
