"""One render job in its own process, with its own Manim media_dir.

Two Manim processes must never share a media_dir: they trip over each other's text
and TeX caches and partial movie files. Each worker renders under its private work
folder and validates the result. A local worker hands back paths beside the outputs; a
remote one (a Dask worker, no shared disk) hands back the files' bytes. The client moves
them into place. A worker first checks that its scene code, render pipeline and Manim
match the cache key the client computed, and refuses the job otherwise.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import dataclasses
import errno
import logging
import multiprocessing as mp
import os
import shutil
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rendering import audio, encoders, settings
from rendering.jobs import Job
from rendering.validate import check_image, check_video


def manim_config(job: Job, media_dir: Path, span: Span | None = None) -> dict[str, Any]:
    """Manim's settings for `job`; with `span`, only those animations are drawn."""
    geo = settings.geometry(job.quality, job.aspect, composed_for(job))
    cfg: dict[str, Any] = {
        "media_dir": str(media_dir),
        **geo.manim_frame(),
        "frame_rate": geo.fps,
        "format": job.fmt,
        "transparent": job.transparent,
        "output_file": job.info.stem,
        "disable_caching": True,  # a fresh media_dir per job: Manim's cache could never hit
        "progress_bar": "none",
        "verbosity": "ERROR",
        "write_to_movie": job.fmt != "png",
        "save_last_frame": job.fmt == "png",
    }
    if job.fmt == "mp4" and not job.transparent:
        cfg["video_encoder_options"] = {"preset": settings.X264_PRESETS[job.quality], "crf": "23"}
    if span is not None:
        cfg["from_animation_number"], cfg["upto_animation_number"] = span
    return encoders.adjust_config(job, cfg)


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


Span = tuple[int, int]  # the first and last animation (play or wait) number to draw


@dataclass(frozen=True)
class Drawn:
    """Manim's silent video of a job (or of one span of its animations), and its timings."""

    file: Path
    beats: list[tuple[str, float]]
    animations: list[list[float]]  # per play: [build, draw] wall seconds; see split.py


def composed_for(job: Job) -> bool:
    """Whether the scene lays itself out for this aspect's shape (else it keeps 16:9's)."""
    return settings.SHAPES[job.aspect] in job.info.load().SHAPES


def draw(
    job: Job,
    work_dir: Path,
    report=None,
    span: Span | None = None,
    frame: dict[str, Any] | None = None,
    speech: dict[str, float] | None = None,
) -> Drawn:
    """Let Manim draw the job's frames into a silent video under `work_dir`.

    `report` gets the scene seconds drawn so far after every play. `span` draws only
    those animations (the ones before it are skipped, not drawn). `frame` overrides
    Manim's pixel size or frame rate, and `speech` the narration's beat lengths (tests).
    """
    from manim import tempconfig

    from scenes.base import LessonScene

    scene_cls = job.info.load()
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

    if speech is None and job.narration is not None:
        speech = job.narration.seconds()
    LessonScene.play_hooks.append(record)
    logging.getLogger("manim").setLevel(logging.ERROR)
    try:
        with tempconfig({**manim_config(job, work_dir / "manim", span), **(frame or {})}):
            begun = time.perf_counter()
            scene = scene_cls(
                params=job.params, lang=job.lang, burn_captions=job.burn_captions, speech=speech
            )
            scene.render()
            writer = scene.renderer.file_writer
            # only the artifact the plan has: the other path properties raise
            produced = Path(writer.image_file_path if job.fmt == "png" else writer.movie_file_path)
    finally:
        LessonScene.play_hooks.remove(record)
    return Drawn(produced, [(k, round(t, 3)) for k, t in scene.beats], timings(begun, clock))


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


def complete(job: Job, drawn: Path, beats: list[tuple[str, float]], work_dir: Path) -> RenderResult:
    """From Manim's video to the delivered clip: convert, validate, poster, and voice it."""
    narration = job.narration
    geo = encoders.output_geometry(job)  # a GIF is smaller and slower than the job's frame
    voiced = narration is not None and job.fmt in audio.CODECS
    silent_name = f"{job.info.stem}.silent.{job.fmt}" if voiced else job.filename
    final = encoders.finish(job, drawn, work_dir / silent_name)
    poster = work_dir / f"{job.info.stem}.png"
    if job.fmt == "png":
        checked = check_image(final, geo.width, geo.height)
        poster = None
    else:
        checked = check_video(
            final, geo.width, geo.height, None if job.fmt == "gif" else geo.fps, poster
        )
    sound = speech = None
    if voiced:
        track = narration.track(beats, checked.duration)
        voiced_file = work_dir / job.filename
        measured = audio.voice_clip(final, track, voiced_file, geo.fps)
        final.unlink()
        final = voiced_file
        check_video(final, geo.width, geo.height, geo.fps)
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


def render(job: Job, work_dir: Path, report=None, span: Span | None = None) -> RenderResult:
    """Render, validate and make a poster; returns what the manifest needs.

    With `span`, only that range of animations: Manim's silent video as it is, to be
    joined with the other ranges' (split.py) and completed by the client.
    """
    drawn = draw(job, work_dir, report, span)
    if span is None:
        result = complete(job, drawn.file, drawn.beats, work_dir)
        return dataclasses.replace(result, animations=drawn.animations)
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
    )


def animation_times(job: Job, work_dir: Path) -> dict[str, float]:
    """How long each beat lasts without speech: the scene built with animations skipped."""
    from manim import tempconfig

    with tempconfig({**manim_config(job, work_dir / "manim"), "dry_run": True}):
        scene = job.info.load()(params=job.params, lang=job.lang, skip_animations=True)
        scene.render()
        end = float(scene.renderer.time)
    starts = [t for _, t in scene.beats] + [end]
    return {key: round(starts[i + 1] - t, 3) for i, (key, t) in enumerate(scene.beats)}


def describe_error(exc: BaseException) -> str:
    """One line: the cause and the fix."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return "the disk is full; free some space or pass --output to a roomier place"
    if isinstance(exc, FileNotFoundError) and any(t in str(exc) for t in ("latex", "dvisvgm")):
        return "LaTeX is missing; install texlive-latex-base texlive-latex-extra dvisvgm (make setup does it)"
    if type(exc).__name__ == "ParseError":  # an empty or cut-off SVG from the TeX step
        return (
            f"a formula's SVG could not be read ({text}); the disk may be full or the work "
            "folder not writable: free space, or pass --output to a writable place"
        )
    if "LaTeX" in text or "latex" in text:
        return f"LaTeX failed ({text}); check the formula or install texlive-latex-extra"
    return f"{type(exc).__name__}: {text}"


def exit_with_parent(work_dir: Path) -> None:
    """Stop rendering as soon as the driver is gone, even if it was killed with SIGKILL."""

    def watch() -> None:
        parent.join()  # returns when the parent's end of the sentinel pipe closes
        shutil.rmtree(work_dir, ignore_errors=True)
        os._exit(1)

    parent = mp.parent_process()
    if parent is not None:
        threading.Thread(target=watch, name="parent-watch", daemon=True).start()


class JobFailed(Exception):
    """A job that ended without a clip: one line (cause and fix), and the traceback with --verbose."""

    def __init__(self, message: str, detail: str | None = None) -> None:
        super().__init__(message, detail)
        self.message, self.detail = message, detail

    def __str__(self) -> str:
        return self.message


class Refused(JobFailed):
    """A worker whose scene code, render pipeline or Manim differs from the client's."""


@dataclass(frozen=True)
class Task:
    """One job as an executor runs it: what to render, where, and the key the client expects.

    `work_dir` is a folder beside the outputs for local jobs; remote jobs (None) render in
    a temporary folder of their own and send the files back. `speech` holds the WAV bytes of
    every narration piece by digest, for workers that do not share the client's disk.
    """

    index: int
    job: Job
    expected: dict[str, str]  # Job.key_parts() computed by the client
    work_dir: str | None = None
    speech: dict[str, bytes] | None = None
    verbose: bool = False
    span: Span | None = None  # draw only these animations (a part of a split job)


@dataclass(frozen=True)
class Rendered:
    """A finished job: the result, and for remote jobs the files' bytes (by RenderResult field)."""

    result: RenderResult
    files: dict[str, bytes] | None = None
    worker: str = "local"
    seconds: float = 0.0  # time spent rendering on the worker


class Events:
    """Where a running task reports: started (on which worker) and progress (scene seconds)."""

    def started(self, index: int, worker: str) -> None:
        raise NotImplementedError

    def progress(self, index: int, seconds: float) -> None:
        raise NotImplementedError


def run_task(task: Task, events: Events, worker: str = "local") -> Rendered:
    """Render one task in this process; every failure becomes a JobFailed with one line."""
    keep_freed_frames()
    # Manim's config is global to a process: tasks in threads of one Dask worker take turns.
    with _RENDER_LOCK:
        started = time.monotonic()
        events.started(task.index, worker)
        try:
            check_versions(task, worker)
            if task.work_dir is not None:
                exit_with_parent(Path(task.work_dir))
                work = Path(task.work_dir)
                result = render(task.job, work, lambda t: events.progress(task.index, t), task.span)
                return Rendered(result, None, worker, time.monotonic() - started)
            result, files = _render_detached(task, events)
            return Rendered(result, files, worker, time.monotonic() - started)
        except JobFailed:
            raise
        except KeyboardInterrupt:
            raise JobFailed("interrupted") from None
        except BaseException as exc:  # noqa: BLE001 - every failure becomes one line
            detail = traceback.format_exc() if task.verbose else None
            raise JobFailed(describe_error(exc), detail) from None


_RENDER_LOCK = threading.Lock()
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters (malloc.h)


def keep_freed_frames() -> None:
    """Let malloc reuse freed frame buffers, in a process started with MALLOC_TRIM_THRESHOLD_.

    A Dask nanny starts its workers with MALLOC_TRIM_THRESHOLD_=65536, which also turns
    off glibc's growing mmap threshold: every frame buffer (8 MB at 1080p) is then mapped,
    zero-filled by the kernel and unmapped again. That made a 1080p60 scene take half as
    long again (51.7 s against 77.7 s, a third of it system time). Keeping buffers up to
    32 MB on the heap, and the heap's top, gives the speed back.
    """
    if "MALLOC_TRIM_THRESHOLD_" not in os.environ:
        return  # glibc's own adaptive thresholds already do this
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(M_MMAP_THRESHOLD, 32 * 2**20)
        libc.mallopt(M_TRIM_THRESHOLD, 256 * 2**20)
    except (OSError, AttributeError):
        pass  # not glibc: its allocator is not affected


def check_versions(task: Task, worker: str) -> None:
    """Refuse to render when this process would not make the clip the client's key names."""
    try:
        here = task.job.key_parts()
    except Exception as exc:  # noqa: BLE001 - e.g. a scene this worker does not know
        raise Refused(
            f"worker {worker} cannot load scene {task.job.slug!r} ({describe_error(exc)}); "
            "install the same project (and PE_SCENE_PLUGINS) there and restart it"
        ) from None
    differ = [part for part in ("code", "renderer", "manim") if here[part] != task.expected[part]]
    if not differ:
        return
    what = {
        "code": "scene code",
        "renderer": "render pipeline",
        "manim": f"Manim ({here['manim']}; here {task.expected['manim']})",
    }
    names = " and ".join(what[part] for part in differ)
    verb = "differs" if len(differ) == 1 else "differ"
    if worker == "local":  # same machine: the files changed after the plan was made
        raise Refused(f"the {names} changed while the run was starting; rerun")
    raise Refused(
        f"refused by worker {worker}: its {names} {verb} from this checkout; "
        "run scripts/setup.sh from the same commit on that machine and restart its worker"
    )


def _render_detached(task: Task, events: Events) -> tuple[RenderResult, dict[str, bytes]]:
    """Render in a private temporary folder; the result names files, sent back as bytes."""
    with tempfile.TemporaryDirectory(prefix="pe-render-") as tmp:
        job = with_speech_files(task.job, task.speech or {}, Path(tmp) / "speech")
        work = Path(tmp) / "job"
        work.mkdir()
        result = render(job, work, lambda t: events.progress(task.index, t), task.span)
        files = {"file": Path(result.file).read_bytes()}
        if result.poster:
            files["poster"] = Path(result.poster).read_bytes()
        poster = Path(result.poster).name if result.poster else None
        return dataclasses.replace(result, file=Path(result.file).name, poster=poster), files


def speech_files(job: Job) -> dict[str, bytes]:
    """The WAV bytes of every narration piece of `job`, by digest, to send to a worker."""
    if job.narration is None:
        return {}
    pieces = (p for b in job.narration.beats for p in b.pieces)
    return {p.digest: Path(p.file).read_bytes() for p in pieces if p.file}


def with_speech_files(job: Job, speech: dict[str, bytes], folder: Path) -> Job:
    """`job` with its narration pointing at copies of the speech written into `folder`."""
    if job.narration is None:
        return job
    folder.mkdir(parents=True, exist_ok=True)
    beats = []
    for beat in job.narration.beats:
        pieces = []
        for piece in beat.pieces:
            if piece.digest in speech:
                path = folder / f"{piece.digest}.wav"
                path.write_bytes(speech[piece.digest])
                piece = dataclasses.replace(piece, file=str(path))
            pieces.append(piece)
        beats.append(dataclasses.replace(beat, pieces=tuple(pieces)))
    narration = dataclasses.replace(job.narration, beats=tuple(beats))
    return dataclasses.replace(job, narration=narration)
