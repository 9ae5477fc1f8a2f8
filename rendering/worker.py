"""One render job in its own process, with its own Manim media_dir.

Two Manim processes must never share a media_dir: they trip over each other's text
and TeX caches and partial movie files. Each worker renders under its private work
folder, validates the result, and hands back paths; the parent moves them into place.
"""

from __future__ import annotations

import errno
import logging
import multiprocessing as mp
import os
import shutil
import threading
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rendering import audio, encoders, settings
from rendering.jobs import Job
from rendering.validate import check_image, check_video


def manim_config(job: Job, media_dir: Path) -> dict[str, Any]:
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


def composed_for(job: Job) -> bool:
    """Whether the scene lays itself out for this aspect's shape (else it keeps 16:9's)."""
    return settings.SHAPES[job.aspect] in job.info.load().SHAPES


def render(job: Job, work_dir: Path, report=None) -> RenderResult:
    """Render, validate and make a poster; returns what the manifest needs."""
    from manim import tempconfig

    from scenes.base import LessonScene

    scene_cls = job.info.load()
    media_dir = work_dir / "manim"
    narration = job.narration
    hook = None
    if report is not None:
        hook = lambda scene: report(float(scene.renderer.time))  # noqa: E731
        LessonScene.play_hooks.append(hook)
    logging.getLogger("manim").setLevel(logging.ERROR)
    try:
        with tempconfig(manim_config(job, media_dir)):
            scene = scene_cls(
                params=job.params,
                lang=job.lang,
                burn_captions=job.burn_captions,
                speech=narration.seconds() if narration else None,
            )
            scene.render()
            writer = scene.renderer.file_writer
            # only the artifact the plan has: the other path properties raise
            produced = Path(writer.image_file_path if job.fmt == "png" else writer.movie_file_path)
    finally:
        if hook is not None:
            LessonScene.play_hooks.remove(hook)
    geo = encoders.output_geometry(job)  # a GIF is smaller and slower than the job's frame
    voiced = narration is not None and job.fmt in audio.CODECS
    silent_name = f"{job.info.stem}.silent.{job.fmt}" if voiced else job.filename
    final = encoders.finish(job, produced, work_dir / silent_name)
    poster = work_dir / f"{job.info.stem}.png"
    if job.fmt == "png":
        checked = check_image(final, geo.width, geo.height)
        poster = None
    else:
        checked = check_video(
            final, geo.width, geo.height, None if job.fmt == "gif" else geo.fps, poster
        )
    beats = [(k, round(t, 3)) for k, t in scene.beats]
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


@dataclass(frozen=True)
class Message:
    """What a worker tells the driver: progress (scene seconds), done (the result) or error."""

    index: int
    kind: str  # progress | done | error
    payload: Any
    detail: str | None = None  # the traceback, with --verbose


def child_main(job: Job, work_dir: str, queue, index: int, verbose: bool) -> None:
    """Process entry point: sends progress messages, then one done or error message."""
    exit_with_parent(Path(work_dir))
    try:
        result = render(
            job, Path(work_dir), report=lambda t: queue.put(Message(index, "progress", t))
        )
        queue.put(Message(index, "done", result))
    except KeyboardInterrupt:
        queue.put(Message(index, "error", "interrupted"))
    except BaseException as exc:  # noqa: BLE001 - every failure becomes one line for the summary
        detail = traceback.format_exc() if verbose else None
        queue.put(Message(index, "error", describe_error(exc), detail))
