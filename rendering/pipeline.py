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
from rendering.manifest import Manifest
from rendering.worker import child_main

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
def install(job: Job, result: dict, root: Path) -> Path:
    """Move a validated output into place, write its subtitles, record it in the manifest."""
    folder = job.out_dir(root)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / job.filename
    publish_mode(Path(result["file"]))
    os.replace(result["file"], target)
    poster = None
    if result.get("poster"):
        poster = folder / f"{job.info.stem}.png"
        publish_mode(Path(result["poster"]))
        os.replace(result["poster"], poster)
    speech = result.get("speech")
    subtitle_files = (
        captions.write_sidecars(
            folder,
            job.info.stem,
            job.slug,
            result["beats"],
            result["duration"],
            {job.lang: speech} if speech else None,
        )
        if job.fmt != "png"
        else {}
    )
    narration = job.narration if speech else None
    entry = {
        "slug": job.slug,
        "order": job.info.order,
        "title": job.info.title(job.lang),
        "titles": {lang: job.info.title(lang) for lang in ("zh", "en")},
        "key": job.key(),
        "key_parts": job.key_parts(),
        "params": job.params.as_dict(job.info.fields_for(job.lang)),
        "format": job.fmt,
        "transparent": job.transparent,
        "burn_captions": job.burn_captions,
        "file": target.name,
        "poster": poster.name if poster else None,
        "duration": round(result["duration"], 3),
        "frames": result["frames"],
        "width": result["width"],
        "height": result["height"],
        "fps": result["fps"],
        "bytes": target.stat().st_size,
        "beats": result["beats"],
        "captions": subtitle_files,
        "voice": narration.voice if narration else "silent",
        "voice_cards": json.loads(narration.cards) if narration else [],
        "recorded_beats": narration.recorded if narration else [],
        "speech": speech or {},
        "sound": result.get("sound"),
    }
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
    speech = entry.get("speech")
    captions.write_sidecars(
        folder,
        job.info.stem,
        job.slug,
        entry["beats"],
        entry["duration"],
        {job.lang: speech} if speech else None,
    )


# ----------------------------------------------------------------- running
def execute(
    planned: list[Planned], root: Path, jobs: int, console: Console, verbose: bool = False
) -> RunReport:
    """Render every job that is not cached, `jobs` processes at a time."""
    report = RunReport()
    todo: list[tuple[int, Job]] = []
    for p in planned:
        if p.cached:
            folder = p.job.out_dir(root)
            refresh_sidecars(p.job, root)
            report.outcomes.append(
                Outcome(p.job, "cached", path=folder / p.job.filename, message=p.reason)
            )
        else:
            todo.append((len(todo), p.job))
    if not todo:
        return report

    ctx = mp.get_context("spawn")
    messages = ctx.Queue()
    work_root = root / WORK
    remove_stale_work(work_root)
    running: dict[int, tuple[mp.Process, Job, Path, float]] = {}
    # Longest first (by the last render's duration) keeps the workers busy until the end.
    expected = {i: _expected(job, root) for i, job in todo}
    pending = sorted(todo, key=lambda item: -(expected[item[0]] or 0.0))

    with Progress(
        TextColumn("[bold]{task.description:<28}"),
        BarColumn(),
        TextColumn("{task.fields[status]}"),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    ) as progress:
        tasks = {
            i: progress.add_task(job.info.stem, total=expected[i], status="waiting")
            for i, job in todo
        }

        def finish(index: int, outcome: Outcome) -> None:
            process, _, work_dir, _ = running.pop(index)
            process.join(timeout=5)
            shutil.rmtree(work_dir, ignore_errors=True)
            report.outcomes.append(outcome)
            task = tasks[index]
            total = progress.tasks[task].total
            style = {"rendered": "[green]rendered", "failed": "[red]failed"}[outcome.status]
            progress.update(task, completed=total or 1, total=total or 1, status=style)

        try:
            while pending or running:
                while pending and len(running) < max(1, jobs):
                    index, job = pending.pop(0)
                    work_dir = work_root / f"{os.getpid()}-{index}-{job.slug}"
                    shutil.rmtree(work_dir, ignore_errors=True)
                    work_dir.mkdir(parents=True)
                    process = ctx.Process(
                        target=child_main,
                        args=(job, str(work_dir), messages, index, verbose),
                        daemon=True,
                    )
                    process.start()
                    running[index] = (process, job, work_dir, time.monotonic())
                    progress.update(tasks[index], status="rendering")
                try:
                    msg = messages.get(timeout=0.2)
                except queue_mod.Empty:
                    msg = None
                if msg is not None:
                    index, kind, payload, *rest = msg
                    if index not in running:
                        continue
                    job, started = running[index][1], running[index][3]
                    if kind == "progress":
                        progress.update(tasks[index], completed=payload)
                    elif kind == "done":
                        try:
                            path = install(job, payload, root)
                            finish(
                                index, Outcome(job, "rendered", time.monotonic() - started, path)
                            )
                        except OSError as exc:
                            finish(
                                index,
                                Outcome(
                                    job,
                                    "failed",
                                    time.monotonic() - started,
                                    message=f"could not install the output ({exc})",
                                ),
                            )
                    elif kind == "error":
                        finish(
                            index,
                            Outcome(
                                job,
                                "failed",
                                time.monotonic() - started,
                                message=payload,
                                detail=rest[0] if rest else None,
                            ),
                        )
                    continue
                for index, (process, job, _, started) in list(running.items()):
                    if not process.is_alive() and process.exitcode is not None:
                        time.sleep(0.2)  # let a last message arrive before calling it a crash
                        if _drain_for(messages, index, running):
                            continue
                        finish(
                            index,
                            Outcome(
                                job,
                                "failed",
                                time.monotonic() - started,
                                message=f"worker died (exit code {process.exitcode}); "
                                "rerun, or lower --jobs if memory ran out",
                            ),
                        )
        except KeyboardInterrupt:
            report.interrupted = True
            for process, job, work_dir, started in list(running.values()):
                process.terminate()
                process.join(timeout=3)
                if process.is_alive():
                    process.kill()
                    process.join()
                shutil.rmtree(work_dir, ignore_errors=True)
                report.outcomes.append(
                    Outcome(job, "failed", time.monotonic() - started, message="interrupted")
                )
            running.clear()
    messages.close()
    _remove_if_empty(work_root)
    return report


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


def _drain_for(messages, index: int, running: dict) -> bool:
    """Put back any message still queued; True if one belongs to `index` (so it did not crash)."""
    held, found = [], False
    while True:
        try:
            msg = messages.get_nowait()
        except queue_mod.Empty:
            break
        held.append(msg)
        found |= msg[0] == index and msg[1] in ("done", "error")
    for msg in held:
        messages.put(msg)
    return found


def _expected(job: Job, root: Path) -> float | None:
    entry = Manifest.load(job.out_dir(root)).entry(job.slug, job.variant)
    return entry["duration"] if entry else None


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
