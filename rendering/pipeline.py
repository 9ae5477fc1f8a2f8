"""Run render jobs in worker processes, validate, install atomically, record in the manifest."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import queue as queue_mod
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from rendering import captions
from rendering.files import publish_mode
from rendering.jobs import Job, Planned
from rendering.manifest import ClipEntry, Manifest
from rendering.worker import Message, RenderResult, child_main

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
    planned: list[Planned], root: Path, jobs: int, console: Console, verbose: bool = False
) -> RunReport:
    """Render every job that is not cached, `jobs` processes at a time."""
    report = RunReport()
    todo: list[Job] = []
    for p in planned:
        if p.cached:
            refresh_sidecars(p.job, root)
            path = p.job.out_dir(root) / p.job.filename
            report.outcomes.append(Outcome(p.job, "cached", path=path, message=p.reason))
        else:
            todo.append(p.job)
    if todo:
        with Progress(
            TextColumn("[bold]{task.description:<28}"),
            BarColumn(),
            TextColumn("{task.fields[status]}"),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        ) as progress:
            Runner(todo, root, jobs, progress, report, verbose).run()
    return report


@dataclass
class Running:
    process: mp.Process
    job: Job
    work_dir: Path
    started: float

    def outcome(self, status: str, **kwargs) -> Outcome:
        return Outcome(self.job, status, time.monotonic() - self.started, **kwargs)


class Runner:
    """Worker processes for a list of jobs, each in its own work folder, longest first."""

    def __init__(self, todo, root, jobs, progress, report, verbose) -> None:
        self.root, self.slots, self.progress = root, max(1, jobs), progress
        self.report, self.verbose = report, verbose
        self.ctx = mp.get_context("spawn")
        self.messages = self.ctx.Queue()
        self.work_root = root / WORK
        self.running: dict[int, Running] = {}
        # Longest first (by the last render's duration) keeps the workers busy until the end.
        expected = [_expected(job, root) for job in todo]
        self.pending = sorted(enumerate(todo), key=lambda item: -(expected[item[0]] or 0.0))
        self.tasks = {
            i: progress.add_task(job.info.stem, total=expected[i], status="waiting")
            for i, job in enumerate(todo)
        }

    def run(self) -> None:
        remove_stale_work(self.work_root)
        try:
            while self.pending or self.running:
                self.start_workers()
                message = self.next_message()
                if message is not None:
                    self.handle(message)
                else:
                    self.reap_dead()
        except KeyboardInterrupt:
            self.stop_all()
        finally:
            self.messages.close()
            _remove_if_empty(self.work_root)

    def start_workers(self) -> None:
        while self.pending and len(self.running) < self.slots:
            index, job = self.pending.pop(0)
            work_dir = self.work_root / f"{os.getpid()}-{index}-{job.slug}"
            shutil.rmtree(work_dir, ignore_errors=True)
            work_dir.mkdir(parents=True)
            process = self.ctx.Process(
                target=child_main,
                args=(job, str(work_dir), self.messages, index, self.verbose),
                daemon=True,
            )
            process.start()
            self.running[index] = Running(process, job, work_dir, time.monotonic())
            self.progress.update(self.tasks[index], status="rendering")

    def next_message(self) -> Message | None:
        try:
            return self.messages.get(timeout=0.2)
        except queue_mod.Empty:
            return None

    def handle(self, message: Message) -> None:
        run = self.running.get(message.index)
        if run is None:
            return
        if message.kind == "progress":
            self.progress.update(self.tasks[message.index], completed=message.payload)
        elif message.kind == "done":
            try:
                path = install(run.job, message.payload, self.root)
                self.finish(message.index, run.outcome("rendered", path=path))
            except OSError as exc:
                problem = f"could not install the output ({exc})"
                self.finish(message.index, run.outcome("failed", message=problem))
        else:
            failed = run.outcome("failed", message=message.payload, detail=message.detail)
            self.finish(message.index, failed)

    def reap_dead(self) -> None:
        """A worker that exited without a last word crashed (killed, out of memory)."""
        for index, run in list(self.running.items()):
            if run.process.is_alive() or run.process.exitcode is None:
                continue
            time.sleep(0.2)  # let a last message arrive before calling it a crash
            if _drain_for(self.messages, index):
                continue
            problem = (
                f"worker died (exit code {run.process.exitcode}); "
                "rerun, or lower --jobs if memory ran out"
            )
            self.finish(index, run.outcome("failed", message=problem))

    def finish(self, index: int, outcome: Outcome) -> None:
        run = self.running.pop(index)
        run.process.join(timeout=5)
        shutil.rmtree(run.work_dir, ignore_errors=True)
        self.report.outcomes.append(outcome)
        task = self.tasks[index]
        total = self.progress.tasks[task].total or 1
        style = {"rendered": "[green]rendered", "failed": "[red]failed"}[outcome.status]
        self.progress.update(task, completed=total, total=total, status=style)

    def stop_all(self) -> None:
        """Ctrl-C or SIGTERM: stop every worker; the previous outputs stay untouched."""
        self.report.interrupted = True
        for run in self.running.values():
            run.process.terminate()
            run.process.join(timeout=3)
            if run.process.is_alive():
                run.process.kill()
                run.process.join()
            shutil.rmtree(run.work_dir, ignore_errors=True)
            self.report.outcomes.append(run.outcome("failed", message="interrupted"))
        self.running.clear()


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


def _drain_for(messages, index: int) -> bool:
    """Put back any message still queued; True if one ends job `index` (so it did not crash)."""
    held, found = [], False
    while True:
        try:
            message = messages.get_nowait()
        except queue_mod.Empty:
            break
        held.append(message)
        found |= message.index == index and message.kind in ("done", "error")
    for message in held:
        messages.put(message)
    return found


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
