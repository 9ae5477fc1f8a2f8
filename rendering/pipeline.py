"""Run render jobs on an executor (local processes or Dask), validate, install atomically, record."""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from rendering import captions, encoders
from rendering.executors import Event, Executor, ExecutorError, Progressed, Started, connect
from rendering.files import publish_mode
from rendering.jobs import Job, Planned
from rendering.manifest import ClipEntry, Manifest
from rendering.validate import InvalidOutput, check_image, check_video
from rendering.worker import JobFailed, Rendered, RenderResult, Task, speech_files

WORK = ".work"  # temporary job folders live under the output root: same filesystem, atomic renames


class PipelineError(RuntimeError):
    """A problem that stops the whole run; its message says the cause and the fix."""


@dataclass
class Outcome:
    job: Job
    status: str  # rendered | cached | failed
    seconds: float = 0.0
    path: Path | None = None
    message: str = ""
    detail: str | None = None
    note: str = ""  # something to know about a job that did render (e.g. it was retried)


@dataclass
class RunReport:
    outcomes: list[Outcome] = field(default_factory=list)
    interrupted: bool = False

    @property
    def failed(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status == "failed"]


# ----------------------------------------------------------------- preflight
def preflight(output: Path, need_latex: bool = True) -> None:
    """Fail early, in one line, on what would make every job fail."""
    if need_latex:
        for tool in ("latex", "dvisvgm"):
            if shutil.which(tool) is None:
                raise PipelineError(
                    f"{tool} is not installed; run `make setup` or apt-get install "
                    "texlive-latex-base texlive-latex-extra dvisvgm"
                )
    if not _has_cjk_font():
        raise PipelineError(
            "the Noto Sans CJK font is missing; run `make setup` or apt-get install fonts-noto-cjk"
        )
    check_writable(output)


def check_writable(folder: Path) -> None:
    """Stop before rendering, not after, if an output folder cannot take files."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".write-test-"):
            pass
    except OSError as exc:
        raise PipelineError(
            f"cannot write to {folder} ({exc.strerror}); make it writable or pass --output "
            "to a writable folder"
        ) from None


def _has_cjk_font() -> bool:
    try:
        out = subprocess.run(
            ["fc-list", ":family"], capture_output=True, text=True, check=False
        ).stdout
    except FileNotFoundError:
        return True  # no fontconfig tools to ask; Pango will report for itself
    return "Noto Sans CJK" in out


# ----------------------------------------------------------------- install
def install(job: Job, result: RenderResult, root: Path) -> Path:
    """Move a validated output into place, write its subtitles, record it in the manifest."""
    folder = job.out_dir(root)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / job.filename
    publish_mode(Path(result.file))
    os.replace(result.file, target)
    poster = None
    if result.poster:
        poster = folder / f"{job.info.stem}.png"
        publish_mode(Path(result.poster))
        os.replace(result.poster, poster)
    subtitle_files = {}
    if job.fmt != "png":
        spoken = {job.lang: result.speech} if result.speech else None
        subtitle_files = captions.write_sidecars(
            folder, job.info.stem, job.slug, result.beats, result.duration, spoken
        )
    narration = job.narration if result.speech else None
    entry = ClipEntry(
        slug=job.slug,
        order=job.info.order,
        title=job.info.title(job.lang),
        titles={lang: job.info.title(lang) for lang in ("zh", "en")},
        key=job.key(),
        key_parts=job.key_parts(),
        params=job.params.as_dict(job.info.fields_for(job.lang)),
        format=job.fmt,
        transparent=job.transparent,
        burn_captions=job.burn_captions,
        file=target.name,
        poster=poster.name if poster else None,
        duration=round(result.duration, 3),
        frames=result.frames,
        width=result.width,
        height=result.height,
        fps=result.fps,
        bytes=target.stat().st_size,
        beats=result.beats,
        captions=subtitle_files,
        voice=narration.voice if narration else "silent",
        voice_cards=json.loads(narration.cards) if narration else [],
        recorded_beats=narration.recorded if narration else [],
        speech=result.speech or {},
        sound=result.sound,
    )
    with Manifest.update(folder) as manifest:
        manifest.data.update({"lang": job.lang, "quality": job.quality, "aspect": job.aspect})
        manifest.record(job.slug, job.variant, entry)
    return target


def refresh_sidecars(job: Job, root: Path) -> None:
    """Rewrite a cached clip's subtitles: the other language's words may have changed."""
    folder = job.out_dir(root)
    entry = Manifest.load(folder).entry(job.slug, job.variant)
    if entry is None or job.fmt == "png":
        return
    spoken = {job.lang: entry.speech} if entry.speech else None
    captions.write_sidecars(folder, job.info.stem, job.slug, entry.beats, entry.duration, spoken)


# ----------------------------------------------------------------- running
def execute(
    planned: list[Planned],
    root: Path,
    jobs: int,
    console: Console,
    verbose: bool = False,
    scheduler: str | None = None,
) -> RunReport:
    """Render every job that is not cached: `jobs` local processes, or on a Dask cluster.

    Raises PipelineError (one line) when the scheduler cannot be reached.
    """
    report = RunReport()
    todo: list[Job] = []
    for p in planned:
        if p.cached:
            refresh_sidecars(p.job, root)
            path = p.job.out_dir(root) / p.job.filename
            report.outcomes.append(Outcome(p.job, "cached", path=path, message=p.reason))
        else:
            todo.append(p.job)
    if not todo:
        return report
    try:
        executor = connect(scheduler, jobs)
    except ExecutorError as exc:
        raise PipelineError(str(exc)) from None
    with (
        executor,
        Progress(
            TextColumn("[bold]{task.description:<28}"),
            BarColumn(),
            TextColumn("{task.fields[status]}"),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        ) as progress,
    ):
        Runner(todo, root, executor, progress, report, verbose).run()
    return report


@dataclass
class Running:
    """A submitted job: its future, its local work folder, and the workers that started it."""

    job: Job
    future: cf.Future
    submitted: float
    work_dir: Path | None = None
    started: float | None = None
    workers: list[str] = field(default_factory=list)
    note: str = ""

    def outcome(self, status: str, **kwargs) -> Outcome:
        since = self.started if self.started is not None else self.submitted
        return Outcome(self.job, status, time.monotonic() - since, note=self.note, **kwargs)


class Runner:
    """Submits every job to an executor, longest first, and installs each result as it comes."""

    RETRIES = 1  # a job whose worker died may start once more, on another worker (Dask)

    def __init__(
        self,
        todo: list[Job],
        root: Path,
        executor: Executor,
        progress: Progress,
        report: RunReport,
        verbose: bool,
    ) -> None:
        self.todo, self.root, self.executor, self.progress = todo, root, executor, progress
        self.report, self.verbose = report, verbose
        self.work_root = root / WORK
        self.running: dict[int, Running] = {}
        # Longest first (by the last render's duration) keeps the workers busy until the end.
        self.expected = [_expected(job, root) for job in todo]
        self.order = sorted(range(len(todo)), key=lambda i: -(self.expected[i] or 0.0))
        self.tasks = {
            i: progress.add_task(job.info.stem, total=self.expected[i], status="waiting")
            for i, job in enumerate(todo)
        }

    def run(self) -> None:
        remove_stale_work(self.work_root)
        try:
            for index in self.order:
                self.submit(index)
            while self.running:
                futures = {run.future: i for i, run in self.running.items()}
                done, _ = cf.wait(futures, timeout=0.2, return_when=cf.FIRST_COMPLETED)
                for event in self.executor.events():
                    self.on_event(event)
                for future in done:
                    if futures[future] in self.running:
                        self.on_done(futures[future])
        except KeyboardInterrupt:
            self.stop_all()
        finally:
            _remove_if_empty(self.work_root)

    def work_dir(self, index: int) -> Path:
        """A fresh folder beside the outputs (same file system: the install is a rename)."""
        folder = self.work_root / f"{os.getpid()}-{index}-{self.todo[index].slug}"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        return folder

    def submit(self, index: int) -> None:
        job = self.todo[index]
        remote = self.executor.remote
        work_dir = None if remote else self.work_dir(index)
        task = Task(
            index,
            job,
            job.key_parts(),
            None if remote else str(work_dir),
            speech_files(job) if remote else None,
            self.verbose,
        )
        future = self.executor.submit(task, priority=self.expected[index] or 0.0)
        self.running[index] = Running(job, future, time.monotonic(), work_dir)

    def on_event(self, event: Event) -> None:
        run = self.running.get(event.index)
        if run is None:
            return
        task = self.tasks[event.index]
        if isinstance(event, Progressed):
            self.progress.update(task, completed=event.seconds)
            return
        run.workers.append(event.worker)
        run.started = time.monotonic()
        if len(run.workers) == 1:
            self.progress.update(task, status="rendering")
        elif len(run.workers) <= 1 + self.RETRIES:
            run.note = (
                f"its worker ({run.workers[-2]}) died mid-job; rendered again on {event.worker}"
            )
            self.progress.update(task, completed=0, status="[yellow]retrying")
        else:
            run.future.cancel()
            problem = (
                f"worker died {len(run.workers) - 1} times on it ({', '.join(run.workers)}); "
                "check the workers' memory and logs, then rerun"
            )
            self.finish(event.index, run.outcome("failed", message=problem))

    def on_done(self, index: int) -> None:
        run = self.running[index]
        try:
            rendered = run.future.result()
        except cf.CancelledError:
            outcome = run.outcome("failed", message="cancelled")
        except JobFailed as exc:
            outcome = run.outcome("failed", message=exc.message, detail=exc.detail)
        except Exception as exc:  # noqa: BLE001 - WorkerDied, or what a backend raised
            outcome = run.outcome("failed", message=str(exc) or type(exc).__name__)
        else:
            try:
                path = install(run.job, self.receive(index, rendered), self.root)
                outcome = run.outcome("rendered", path=path)
                outcome.seconds = rendered.seconds or outcome.seconds  # the worker's own clock
            except InvalidOutput as exc:
                outcome = run.outcome("failed", message=f"the returned file is bad: {exc}")
            except OSError as exc:
                problem = f"could not install the output ({exc})"
                outcome = run.outcome("failed", message=problem)
        self.finish(index, outcome)

    def receive(self, index: int, rendered: Rendered) -> RenderResult:
        """A local result as it is; a remote one written beside the outputs and checked again."""
        if rendered.files is None:
            return rendered.result
        run = self.running[index]
        run.work_dir = self.work_dir(index)
        result = rendered.result
        clip = run.work_dir / Path(result.file).name
        clip.write_bytes(rendered.files["file"])
        poster = None
        if result.poster and "poster" in rendered.files:
            poster = run.work_dir / Path(result.poster).name
            poster.write_bytes(rendered.files["poster"])
        checked = check_output(run.job, clip)
        if checked.frames != result.frames:
            raise InvalidOutput(
                f"{clip.name} has {checked.frames} frames, the worker counted {result.frames}"
            )
        return dataclasses.replace(result, file=str(clip), poster=str(poster) if poster else None)

    def finish(self, index: int, outcome: Outcome) -> None:
        run = self.running.pop(index)
        if run.work_dir is not None:
            shutil.rmtree(run.work_dir, ignore_errors=True)
        self.report.outcomes.append(outcome)
        task = self.tasks[index]
        total = self.progress.tasks[task].total or 1
        style = {"rendered": "[green]rendered", "failed": "[red]failed"}[outcome.status]
        self.progress.update(task, completed=total, total=total, status=style)

    def stop_all(self) -> None:
        """Ctrl-C or SIGTERM: stop every job; the published files stay as they were."""
        self.report.interrupted = True
        self.executor.cancel()
        for event in self.executor.events():  # which jobs had started, for the summary
            if isinstance(event, Started) and event.index in self.running:
                self.running[event.index].workers.append(event.worker)
        for index, run in list(self.running.items()):
            message = "interrupted" if run.workers else "not started (interrupted)"
            self.finish(index, run.outcome("failed", message=message))


def check_output(job: Job, path: Path):
    """Decode a returned file end to end against what the job asked for."""
    geo = encoders.output_geometry(job)
    if job.fmt == "png":
        return check_image(path, geo.width, geo.height)
    return check_video(path, geo.width, geo.height, None if job.fmt == "gif" else geo.fps)


def work_folders(work_root: Path) -> tuple[list[Path], list[Path]]:
    """Job folders under `work_root`: (those of running drivers, those left by dead ones)."""
    live, stale = [], []
    for folder in sorted(work_root.glob("*-*")) if work_root.is_dir() else []:
        pid = folder.name.split("-", 1)[0]
        if folder.is_dir() and not folder.is_symlink() and pid.isdigit():
            (live if _alive(int(pid)) else stale).append(folder)
    return live, stale


def remove_stale_work(work_root: Path) -> None:
    """Remove job folders left by runs whose driver process no longer exists."""
    for folder in work_folders(work_root)[1]:
        shutil.rmtree(folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


def _expected(job: Job, root: Path) -> float | None:
    entry = Manifest.load(job.out_dir(root)).entry(job.slug, job.variant)
    return entry.duration if entry else None


def _remove_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:
        pass


# ----------------------------------------------------------------- reporting
def plan_table(planned: list[Planned], root: Path) -> Table:
    table = Table(title="render plan")
    for col in ("scene", "lang", "variant", "status", "why", "output"):
        table.add_column(col)
    for p in planned:
        out = p.job.out_dir(root) / p.job.filename
        table.add_row(
            p.job.info.stem,
            p.job.lang,
            p.job.variant,
            "cached" if p.cached else "render",
            p.reason,
            _rel(out),
        )
    return table


def summary_table(report: RunReport) -> Table:
    table = Table(title="summary")
    for col in ("scene", "status", "time", "output / problem"):
        table.add_column(col)
    for o in sorted(report.outcomes, key=lambda o: o.job.info.order):
        colour = {"rendered": "green", "cached": "cyan", "failed": "red"}[o.status]
        where = _rel(o.path) if o.path else o.message
        table.add_row(
            o.job.info.stem,
            f"[{colour}]{o.status}",
            f"{o.seconds:.1f}s" if o.seconds else "-",
            where,
        )
    counts = {
        s: sum(o.status == s for o in report.outcomes) for s in ("rendered", "cached", "failed")
    }
    table.caption = ", ".join(f"{n} {s}" for s, n in counts.items())
    return table


def _rel(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)
