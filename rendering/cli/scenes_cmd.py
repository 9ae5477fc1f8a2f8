"""`list` and `numbers`: what the lesson holds, and what a scene will show."""

from __future__ import annotations

import dataclasses
import json

import click
from rich.table import Table

from lesson import registry
from lesson.catalogue import LANGS, CatalogueError
from rendering.cli.options import (
    Fail,
    JobOptions,
    console,
    into_job_options,
    job_options,
    param_options,
)
from rendering.core import settings
from rendering.run.plan import plan


@click.command("list")
@job_options
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@into_job_options
def list_scenes(opts: JobOptions, as_json: bool) -> None:
    """Each scene: order, slug, titles, the parameters it reads, and whether its output is up to date."""
    output, lang = opts.output, opts.lang
    jobs = opts.jobs([i.slug for i in registry.ordered()], opts.params(), synthesize=False)
    rows = []
    for p in plan(jobs, output):
        info = p.job.info
        titles = {}
        for language in LANGS:
            try:
                titles[language] = info.title(language)
            except CatalogueError:
                titles[language] = None
        rows.append(
            {
                "order": info.order,
                "slug": info.slug,
                "titles": titles,
                "reads": list(info.fields),
                "up_to_date": p.cached,
                "state": "up to date" if p.cached else p.reason,
                "output": str(p.job.out_dir(output) / p.job.filename),
            }
        )
    if as_json:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
    elif not console.is_terminal:  # a pipe or a file: whole slugs, one scene per line
        for r in rows:
            titles = [r["titles"][language] or "-" for language in LANGS]
            cells = [f"{r['order']:02d}", r["slug"], *titles, ",".join(r["reads"]), r["state"]]
            click.echo("\t".join(cells))
    else:
        folder = settings.folder_name(opts.quality, opts.aspect)
        table = Table(title=f"scenes ({lang}, {folder}, {opts.fmt})")
        for col in ("#", "slug", "zh", "en", "reads", "output"):
            table.add_column(col)
        for r in rows:
            state = "[green]up to date" if r["up_to_date"] else f"[yellow]{r['state']}"
            titles = [r["titles"][language] or "-" for language in LANGS]
            table.add_row(f"{r['order']:02d}", r["slug"], *titles, ", ".join(r["reads"]), state)
        console.print(table)


@click.command()
@click.argument("slug")
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@param_options
@into_job_options
def numbers(slug: str, as_json: bool, opts: JobOptions) -> None:
    """Print the numbers a scene will show for the current parameters (no rendering)."""
    params = opts.params()
    try:
        info = registry.get(slug)
    except registry.UnknownScene as exc:
        raise Fail(str(exc)) from None
    values = info.load().numbers(params)
    if dataclasses.is_dataclass(values):
        values = dataclasses.asdict(values)
    if as_json:
        click.echo(json.dumps(values, indent=2, ensure_ascii=False))
    else:
        console.print(
            f"[bold]{info.stem}[/] reads: {', '.join(f'{k}={v}' for k, v in params.as_dict(info.fields).items())}"
        )
        console.print_json(json.dumps(values, ensure_ascii=False))
