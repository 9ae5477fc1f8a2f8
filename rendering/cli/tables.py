"""The Rich tables a render prints: the plan before it, the summary after."""

from __future__ import annotations

from pathlib import Path

from rich.table import Table

from rendering.run.plan import Planned
from rendering.run.report import RunReport


def plan_table(
    planned: list[Planned], root: Path | list[Path], title: str = "render plan"
) -> Table:
    """What would render and why; `root` may be a list with each job's own root."""
    roots = list(root) if isinstance(root, list) else [root] * len(planned)
    table = Table(title=title)
    for col in ("scene", "lang", "variant", "status", "why"):
        table.add_column(col)
    table.add_column("output", overflow="fold")
    for p, job_root in zip(planned, roots, strict=True):
        out = p.job.out_dir(job_root) / p.job.filename
        table.add_row(
            p.job.info.stem,
            p.job.lang,
            p.job.variant,
            "cached" if p.cached else "render",
            p.reason,
            _rel(out),
        )
    rendered = sum(not p.cached for p in planned)
    table.caption = f"{len(planned)} jobs: {rendered} to render, {len(planned) - rendered} cached"
    return table


def summary_table(report: RunReport) -> Table:
    table = Table(title="summary")
    for col in ("scene", "status", "time", "output / problem"):
        table.add_column(col)
    for o in sorted(report.outcomes, key=lambda o: (o.where, o.job.info.order)):
        colour = {"rendered": "green", "cached": "cyan", "failed": "red"}[o.status]
        where = _rel(o.path) if o.path else f"{o.where}: {o.message}" if o.where else o.message
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
