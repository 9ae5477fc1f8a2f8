"""One render job as an executor runs it: checked against the client's key, failures as one line.

A worker first checks that its scene code, render pipeline and Manim match the cache key
the client computed, and refuses the job otherwise. A local worker hands back paths beside
the outputs; a remote one (a Dask worker, no shared disk) hands back the files' bytes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import dataclasses
import errno
import multiprocessing as mp
import os
import shutil
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from rendering.core.jobs import Job
from rendering.draw import clip_key
from rendering.draw.scene import RenderResult, Span, render
from rendering.draw.segments import BeatPlan, segmentable


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
    expected: dict[str, str]  # clip_key.key_parts(job) computed by the client
    work_dir: str | None = None
    speech: dict[str, bytes] | None = None
    verbose: bool = False
    span: Span | None = None  # draw only these animations (a part of a split job)
    store: str | None = None  # where the clip's beats are kept (local workers; segments.py)
    kept: BeatPlan | None = None  # the beats copied from the store, not drawn


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
                result = render(
                    task.job,
                    work,
                    lambda t: events.progress(task.index, t),
                    task.span,
                    Path(task.store) if task.store else None,
                    task.kept,
                )
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
        here = clip_key.key_parts(task.job)
    except Exception as exc:  # noqa: BLE001 - e.g. a scene this worker does not know
        raise Refused(
            f"worker {worker} cannot load scene {task.job.slug!r} ({describe_error(exc)}); "
            "install the same project (and PE_SCENE_PLUGINS) there and restart it"
        ) from None
    checked = ("code", "renderer", "manim", "machine")
    differ = [part for part in checked if here[part] != task.expected.get(part)]
    if not differ:
        return
    what = {
        "code": "scene code",
        "renderer": "render pipeline",
        "manim": f"Manim ({here['manim']}; here {task.expected['manim']})",
        "machine": "font or video libraries (ManimPango, PyAV, libav, x264)",
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
        beats = Path(tmp) / "beats"  # kept here, and sent back with the clip
        store = beats if segmentable(job) else None
        result = render(job, work, lambda t: events.progress(task.index, t), task.span, store)
        files = {"file": Path(result.file).read_bytes()}
        if result.poster:
            files["poster"] = Path(result.poster).read_bytes()
        for kept in sorted(beats.glob("*.mp4")):
            files[f"beats/{kept.name}"] = kept.read_bytes()
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
