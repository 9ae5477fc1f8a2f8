"""Run render jobs on an executor (local processes or Dask), longest first, splitting the
long ones; each returned file is validated and installed as it arrives."""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import dataclasses
import os
import shutil
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from lesson import text_store
from rendering.core.files import atomic_write_bytes
from rendering.core.jobs import Job
from rendering.core.manifest import Manifest
from rendering.core.validate import InvalidOutput
from rendering.draw import clip_key, segments
from rendering.draw.join import join_parts
from rendering.draw.scene import RenderResult, Span, SpeechCutOff
from rendering.run import split
from rendering.run.estimates import expected_seconds, pixel_rate, previous_timings
from rendering.run.executors import Event, Executor, ExecutorError, Progressed, Started, connect
from rendering.run.install import check_output, install, refresh_sidecars
from rendering.run.plan import Planned
from rendering.run.preflight import PipelineError
from rendering.run.report import Outcome, RunReport
from rendering.run.task import JobFailed, Rendered, Task, describe_error, speech_files
from rendering.run.workdirs import WORK, remove_if_empty, remove_stale_work


def execute(
    planned: list[Planned],
    root: Path | list[Path],
    jobs: int,
    console: Console,
    verbose: bool = False,
    scheduler: str | None = None,
    work_root: Path | None = None,
    split_long: bool = True,
) -> RunReport:
    """Render every job that is not cached: `jobs` local processes, or on a Dask cluster.

    `root` is the output root of every job, or a list with each job's own root (a course
    plan: one root per parameter set), all in one schedule. Work folders live under
    `work_root` (default: the first root's .work), which must be on the roots' file system.
    With `split_long`, a job that would hold up the end of the run is drawn in spans by
    several workers, as its last render's timings suggest (see Runner).
    Raises PipelineError (one line) when the scheduler cannot be reached.
    """
    roots = list(root) if isinstance(root, list) else [root] * len(planned)
    if work_root is None:
        work_root = roots[0] / WORK if roots else Path(WORK)
    text_store.keep_beside(work_root)
    labels = folder_labels([p.job for p in planned], roots)
    report = RunReport()
    todo: list[Todo] = []
    for p, job_root, label in zip(planned, roots, labels, strict=True):
        if p.cached:
            refresh_sidecars(p.job, job_root)
            path = p.job.out_dir(job_root) / p.job.filename
            outcome = Outcome(p.job, "cached", path=path, message=p.reason, where=label)
            report.outcomes.append(outcome)
        else:
            todo.append(Todo(p.job, job_root, label, p.beats))
    if not todo:
        return report
    try:
        executor = connect(scheduler, jobs)
    except ExecutorError as exc:
        raise PipelineError(str(exc)) from None
    run = RunPlan(todo, tuple(sorted(set(roots))), work_root, split_long, verbose)
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
        Runner(run, executor, progress, report).run()
    return report


def describe_span(span: Span) -> str:
    """A span as "12-30", or "12-end" when drawn to where its build ends."""
    return f"{span[0]}-{span[1] if span[1] >= 0 else 'end'}"


def folder_labels(jobs: list[Job], roots: list[Path]) -> list[str]:
    """Each job's output folder below the roots' common parent, when jobs write to several."""
    folders = [job.out_dir(r) for job, r in zip(jobs, roots, strict=True)]
    if len(set(folders)) <= 1:
        return [""] * len(jobs)
    base = Path(os.path.commonpath([str(r) for r in roots]))
    return [str(f.relative_to(base)) for f in folders]


@dataclass(frozen=True)
class Todo:
    """A job of the run that is not cached: its output root, its folder as the run names
    it (where it writes to several), and the beats kept from its last render."""

    job: Job
    root: Path
    where: str
    kept: segments.BeatPlan | None = None


@dataclass(frozen=True)
class RunPlan:
    """What a Runner renders: the jobs to render, every output root of the run (those of
    cached jobs too), where work folders go, whether a long job may be split, and
    whether workers show Manim's log."""

    todo: list[Todo]
    roots: tuple[Path, ...]
    work_root: Path
    allow_split: bool = True
    verbose: bool = False


@dataclass(eq=False)
class Entry:
    """One job of the run to render: where it goes, what it costs, its progress bar, and
    the tasks (units) it is drawn by: one, or one per span when it is split."""

    job: Job
    root: Path
    where: str  # its folder, named in a run that writes to several
    cost: float  # for ordering: expected seconds times the pixels per second
    bar: TaskID
    units: list[Unit] = field(default_factory=list)
    split: Split | None = None
    ended: bool = False
    kept: segments.BeatPlan | None = None  # beats copied from the store, not drawn


@dataclass(eq=False)
class Unit:
    """What the executor runs: a whole job, or one span of a split one."""

    id: int  # the executor's task index, which its events name
    entry: Entry
    span: Span | None
    cost: float
    drawn: float = 0.0  # scene seconds drawn so far


@dataclass
class Running:
    """A submitted unit: its future, its local work folder, and the workers that started it."""

    unit: Unit
    future: cf.Future
    submitted: float
    work_dir: Path | None = None
    started: float | None = None
    workers: list[str] = field(default_factory=list)
    note: str = ""

    @property
    def job(self) -> Job:
        return self.unit.entry.job

    def outcome(self, status: str, since: float | None = None, **kwargs) -> Outcome:
        if since is None:
            since = self.started if self.started is not None else self.submitted
        return Outcome(
            self.job,
            status,
            time.monotonic() - since,
            note=self.note,
            where=self.unit.entry.where,
            **kwargs,
        )


@dataclass
class Split:
    """A job drawn as spans by several units: the parts back so far, then their join."""

    done: dict[int, tuple[Span, RenderResult]] = field(default_factory=dict)  # by unit id
    folders: list[Path] = field(default_factory=list)  # the parts' work folders, kept to join
    started: float | None = None
    join: cf.Future | None = None
    run: Running | None = None  # the last part back, which stands for the job while joining
    notes: list[str] = field(default_factory=list)  # e.g. a part retried on another worker


class Runner:
    """Submits every job to an executor, longest first, and installs each result as it comes.

    A long job may be split into spans of animations (split.py), one task each, when the
    last run's timings say it would otherwise hold up the end of the run; the client joins
    its parts, then voices, checks and installs the whole as for any job.
    """

    RETRIES = 1  # a job whose worker died may start once more, on another worker (Dask)

    def __init__(
        self, plan: RunPlan, executor: Executor, progress: Progress, report: RunReport
    ) -> None:
        self.executor, self.progress = executor, progress
        self.report, self.verbose = report, plan.verbose
        self.work_root = plan.work_root
        jobs, roots = [t.job for t in plan.todo], [t.root for t in plan.todo]
        # Longest first keeps the workers busy until the end: the expected scene seconds
        # (the last render's, else the same scene's in another folder, else its speech)
        # times the pixels per second of the job's frame.
        expected = expected_seconds(jobs, roots, plan.roots)
        self.entries = [
            Entry(
                t.job,
                t.root,
                t.where,
                (seconds or 0.0) * pixel_rate(t.job),
                progress.add_task(
                    f"{t.where} {t.job.info.stem}".strip(), total=seconds, status="waiting"
                ),
                # a remote worker cannot reach the kept beats
                kept=None if executor.remote else t.kept,
            )
            for t, seconds in zip(plan.todo, expected, strict=True)
        ]
        self.units: list[Unit] = []
        timings = [None] * len(jobs)
        if plan.allow_split:
            timings = previous_timings(jobs, roots, plan.roots)
        drawing = [
            self.to_draw(entry, animations)
            for entry, animations in zip(self.entries, timings, strict=True)
        ]
        per_slot = sum(e.cost for e in self.entries) / executor.slots
        for entry, (first, animations, cuts) in zip(self.entries, drawing, strict=True):
            self.plan_units(entry, first, animations, cuts, per_slot)
        self.running: dict[int, Running] = {}  # by unit id
        self.joiner = cf.ThreadPoolExecutor(1, thread_name_prefix="join")

    @staticmethod
    def to_draw(
        entry: Entry, animations: list[list[float]] | None
    ) -> tuple[int, list[list[float]] | None, set[int] | None]:
        """What of the job is to draw, from its last timings: the number of its first
        animation, the timings from there, and where a part may start (None: anywhere).

        A clip with kept beats draws only the others: when they follow one another, their
        animations with the builds before them, and the job costs that share of a whole
        clip. Otherwise a part starts where a beat began in the last render, so that every
        beat is drawn whole by one part and can be kept.
        """
        if not animations or not segments.segmentable(entry.job):
            return 0, None, None
        recorded = Manifest.load(entry.job.out_dir(entry.root)).entry(
            entry.job.slug, entry.job.variant
        )
        ranges = segments.play_ranges(recorded.segments if recorded else {}, len(animations))
        if entry.kept is None:
            return 0, animations, None if ranges is None else {a for a, _ in ranges.values()}
        run = segments.to_draw(entry.kept, ranges) if ranges else None
        if run is None:
            return 0, None, None
        window = split.window(animations, *run)
        whole = split.part_cost(animations, 0, len(animations) - 1)
        if whole > 0:
            entry.cost *= split.part_cost(window, 0, len(window) - 1) / whole
        return run[0], window, None

    def plan_units(
        self,
        entry: Entry,
        first: int,
        animations: list[list[float]] | None,
        cuts: set[int] | None,
        per_slot: float,
    ) -> None:
        """The job as one unit, or as spans sized from its last timings (split.py) of the
        animations from `first` on; `per_slot` is the run's cost per executor slot."""
        parts = 1
        if animations:
            share = entry.cost / per_slot if per_slot else 0.0
            parts = split.part_count(animations, share, self.executor.slots)
        spans: list = [None]
        if parts > 1:
            spans = split.spans(animations, parts, cuts)
        if len(spans) == 1:
            spans, costs = [None], [entry.cost]
        else:
            weights = [split.part_cost(animations, *span) for span in spans]
            costs = [entry.cost * w / sum(weights) for w in weights]
            spans = [(a + first, b + first) for a, b in spans]
            # the last part draws on to the end of the build (or to where kept beats
            # begin): new speech may hold a beat's last frame in one play more or less
            spans[-1] = (spans[-1][0], -1)
            entry.split = Split()
        for span, cost in zip(spans, costs, strict=True):
            unit = Unit(len(self.units), entry, span, cost)
            self.units.append(unit)
            entry.units.append(unit)

    def run(self) -> None:
        remove_stale_work(self.work_root)
        with _stop_requests() as stop:
            try:
                for unit in sorted(self.units, key=lambda u: -u.cost):
                    self.submit(unit)
                while (self.running or self.joining()) and not stop.is_set():
                    futures = {run.future: run for run in self.running.values()}
                    futures.update({e.split.join: e for e in self.joining()})
                    done, _ = cf.wait(futures, timeout=0.2, return_when=cf.FIRST_COMPLETED)
                    if stop.is_set():
                        break  # what finished as the signal came is not trusted either
                    for event in self.executor.events():
                        self.on_event(event)
                    for future in done:
                        which = futures[future]
                        if isinstance(which, Entry):
                            self.on_joined(which)
                        elif which.unit.id in self.running:
                            self.on_done(which)
                if stop.is_set():
                    raise KeyboardInterrupt
            except KeyboardInterrupt:
                self.stop_all()
            finally:
                self.joiner.shutdown(wait=True, cancel_futures=True)
                remove_if_empty(self.work_root)

    def joining(self) -> list[Entry]:
        return [e for e in self.entries if e.split and e.split.join is not None and not e.ended]

    def work_dir(self, unit: Unit, joined: bool = False) -> Path:
        """A fresh folder beside the outputs (same file system: the install is a rename)."""
        part = "-joined" if joined else f"-{describe_span(unit.span)}" if unit.span else ""
        folder = self.work_root / f"{os.getpid()}-{unit.id}-{unit.entry.job.slug}{part}"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        return folder

    def submit(self, unit: Unit) -> None:
        job = unit.entry.job
        remote = self.executor.remote
        work_dir = None if remote else self.work_dir(unit)
        # a local worker keeps the clip's beats beside the outputs; a remote one draws whole
        keeps = not remote and segments.segmentable(job)
        task = Task(
            unit.id,
            job,
            clip_key.key_parts(job),
            None if remote else str(work_dir),
            speech_files(job) if remote and unit.span is None else None,
            self.verbose,
            unit.span,
            str(segments.store_for(job, unit.entry.root)) if keeps else None,
            unit.entry.kept if keeps else None,
        )
        future = self.executor.submit(task, priority=unit.cost)
        self.running[unit.id] = Running(unit, future, time.monotonic(), work_dir)

    def on_event(self, event: Event) -> None:
        run = self.running.get(event.index)
        if run is None:
            return
        entry = run.unit.entry
        if isinstance(event, Progressed):
            run.unit.drawn = event.seconds
            self.progress.update(entry.bar, completed=sum(u.drawn for u in entry.units))
            return
        run.workers.append(event.worker)
        run.started = time.monotonic()
        if entry.split and entry.split.started is None:
            entry.split.started = run.started
        if len(run.workers) == 1:
            self.progress.update(entry.bar, status="rendering")
        elif len(run.workers) <= 1 + self.RETRIES:
            run.note = (
                f"its worker ({run.workers[-2]}) died mid-job; rendered again on {event.worker}"
            )
            run.unit.drawn = 0.0
            self.progress.update(entry.bar, status="[yellow]retrying")
        else:
            run.future.cancel()
            problem = (
                f"worker died {len(run.workers) - 1} times on it ({', '.join(run.workers)}); "
                "check the workers' memory and logs, then rerun"
            )
            self.fail(run, problem)

    def on_done(self, run: Running) -> None:
        try:
            rendered = run.future.result()
        except cf.CancelledError:
            return self.fail(run, "cancelled")
        except JobFailed as exc:
            return self.fail(run, exc.message, exc.detail)
        except Exception as exc:  # noqa: BLE001 - WorkerDied, or what a backend raised
            return self.fail(run, str(exc) or type(exc).__name__)
        try:
            result = self.receive(run, rendered)
            if run.unit.span is not None:
                return self.on_part(run, result)
            path = install(run.job, result, run.unit.entry.root)
        except InvalidOutput as exc:
            return self.fail(run, f"the returned file is bad: {exc}")
        except OSError as exc:
            return self.fail(run, f"could not install the output ({exc})")
        outcome = run.outcome("rendered", path=path)
        outcome.seconds = rendered.seconds or outcome.seconds  # the worker's own clock
        outcome.beats = self.drew(run.unit.entry, result)
        self.finish(run, outcome)

    def on_part(self, run: Running, result: RenderResult) -> None:
        """Keep a part of a split job; once all are back, join them in the client's thread."""
        unit, entry = run.unit, run.unit.entry
        del self.running[unit.id]
        parts = entry.split
        parts.done[unit.id] = (unit.span, result)
        if run.work_dir is not None:
            parts.folders.append(run.work_dir)
        if run.note:
            parts.notes.append(f"animations {describe_span(unit.span)}: {run.note}")
        if len(parts.done) < len(entry.units):
            return
        self.progress.update(entry.bar, status="joining")
        folder = self.work_dir(entry.units[0], joined=True)
        parts.folders.append(folder)
        store = segments.store_for(entry.job, entry.root)
        parts.join = self.joiner.submit(
            join_parts, entry.job, list(parts.done.values()), folder, store, entry.kept
        )
        parts.run = dataclasses.replace(run, note="; ".join(parts.notes))

    def on_joined(self, entry: Entry) -> None:
        run, since = entry.split.run, entry.split.started
        try:
            result = entry.split.join.result()
            path = install(entry.job, result, entry.root)
            outcome = run.outcome("rendered", since=since, path=path)
            outcome.beats = self.drew(entry, result)
        except (segments.SegmentMismatch, SpeechCutOff):  # the kept beats no longer fit
            return self.redraw_whole(entry)
        except (JobFailed, InvalidOutput) as exc:
            outcome = run.outcome("failed", since=since, message=f"joining its parts failed: {exc}")
        except OSError as exc:
            outcome = run.outcome("failed", since=since, message=f"could not install it ({exc})")
        except Exception as exc:  # noqa: BLE001 - voicing the joined clip, in one line
            message = f"joining its parts failed: {describe_error(exc)}"
            outcome = run.outcome("failed", since=since, message=message)
        self.end(entry, outcome)

    @staticmethod
    def drew(entry: Entry, result: RenderResult) -> str:
        """What a render with kept beats drew, for the summary ("" for any other)."""
        if not entry.kept or not result.segments or result.drawn_beats is None:
            return ""
        return f"drew {result.drawn_beats} of {len(result.segments)} beats, kept the rest"

    def redraw_whole(self, entry: Entry) -> None:
        """Draw a job whole again, in one unit, after its parts and kept beats did not fit."""
        for folder in entry.split.folders:
            shutil.rmtree(folder, ignore_errors=True)
        entry.split, entry.kept = None, None
        unit = Unit(len(self.units), entry, None, entry.cost)
        self.units.append(unit)
        entry.units = [unit]
        self.progress.update(entry.bar, completed=0, status="drawing it whole")
        self.submit(unit)

    def receive(self, run: Running, rendered: Rendered) -> RenderResult:
        """A local result as it is; a remote one written beside the outputs and checked again."""
        if rendered.files is None:
            return rendered.result
        run.work_dir = self.work_dir(run.unit)
        result = rendered.result
        clip = run.work_dir / Path(result.file).name
        clip.write_bytes(rendered.files["file"])
        poster = None
        if result.poster and "poster" in rendered.files:
            poster = run.work_dir / Path(result.poster).name
            poster.write_bytes(rendered.files["poster"])
        store = segments.store_for(run.job, run.unit.entry.root)
        for name, data in rendered.files.items():  # the beats it kept, kept here too
            if name.startswith("beats/"):
                store.mkdir(parents=True, exist_ok=True)
                atomic_write_bytes(store / Path(name).name, data)
        checked = check_output(run.job, clip)
        if checked.frames != result.frames:
            raise InvalidOutput(
                f"{clip.name} has {checked.frames} frames, the worker counted {result.frames}"
            )
        return dataclasses.replace(result, file=str(clip), poster=str(poster) if poster else None)

    def fail(self, run: Running, message: str, detail: str | None = None) -> None:
        """A unit failed: its job fails, with its other parts (if split) cancelled."""
        self.finish(run, run.outcome("failed", message=message, detail=detail))

    def finish(self, run: Running, outcome: Outcome) -> None:
        """A unit ended with its job's outcome; a split job's other parts go with it."""
        for sibling in run.unit.entry.units:
            other = self.running.pop(sibling.id, None)
            if other is None:
                continue
            if other is not run:
                other.future.cancel()
            if other.work_dir is not None:
                shutil.rmtree(other.work_dir, ignore_errors=True)
        self.end(run.unit.entry, outcome)

    def end(self, entry: Entry, outcome: Outcome) -> None:
        """Record a job's outcome once, and clear what its split parts left."""
        if entry.ended:
            return
        entry.ended = True
        if entry.split:
            for folder in entry.split.folders:
                shutil.rmtree(folder, ignore_errors=True)
        self.report.outcomes.append(outcome)
        total = self.progress.tasks[entry.bar].total or 1
        style = {"rendered": "[green]rendered", "failed": "[red]failed"}[outcome.status]
        self.progress.update(entry.bar, completed=total, total=total, status=style)

    def stop_all(self) -> None:
        """Ctrl-C or SIGTERM: stop every job; the published files stay as they were."""
        self.report.interrupted = True
        self.executor.cancel()
        for event in self.executor.events():  # which jobs had started, for the summary
            if isinstance(event, Started) and event.index in self.running:
                self.running[event.index].workers.append(event.worker)
        for run in list(self.running.values()):
            if run.unit.id in self.running:
                message = "interrupted" if run.workers else "not started (interrupted)"
                self.fail(run, message)
        for entry in self.joining():
            self.end(entry, entry.split.run.outcome("failed", message="interrupted"))


@contextlib.contextmanager
def _stop_requests() -> Iterator[threading.Event]:
    """Ctrl-C, SIGTERM and a hang-up set an event instead of raising where they land.

    A KeyboardInterrupt raised inside concurrent.futures.wait can leave a future's lock
    taken, and the thread that settles that future then waits forever; the run loop
    checks the event between waits instead.
    """
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    signals = [signal.SIGINT, signal.SIGTERM]
    if signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:  # under nohup it stays ignored
        signals.append(signal.SIGHUP)
    previous = {s: signal.signal(s, lambda *_: stop.set()) for s in signals}
    try:
        yield stop
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
