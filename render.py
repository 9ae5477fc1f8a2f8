"""pe-explainer: render the positional-encoding lesson.

python render.py list
python render.py render --all
python render.py numbers clock-hands --set base=100
python render.py preview clock-hands
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

import scenes
from pe_math import ParamError, Params, parse_assignment
from rendering import settings
from rendering.gallery import publish
from rendering.jobs import Job, plan
from rendering.pipeline import WORK, PipelineError, execute, plan_table, preflight, summary_table
from scenes.catalogue import LANGS, CatalogueError

console = Console(stderr=False, highlight=False)
DEFAULT_OUTPUT = Path("media")


class Fail(click.ClickException):
    """One line on stderr, exit code 2 (a usage, parameter or environment problem)."""

    exit_code = 2

    def show(self, file=None) -> None:
        click.echo(f"error: {self.message}", err=True)


def load_params(config: str | None, sets: tuple[str, ...], seed: int | None) -> Params:
    try:
        overrides = dict(parse_assignment(s) for s in sets)
        if seed is not None:
            overrides.update(proj_seed=seed, learned_seed=seed)
        return Params.load(config, overrides)
    except ParamError as exc:
        raise Fail(str(exc)) from None


def resolve_slugs(slugs: tuple[str, ...], all_: bool) -> list[str]:
    if all_ and slugs:
        raise Fail("give scene names or --all, not both")
    if all_:
        return [i.slug for i in scenes.ordered()]
    if not slugs:
        raise Fail("name at least one scene (see `python render.py list`) or pass --all")
    try:
        return [scenes.get(s).slug for s in slugs]
    except scenes.UnknownScene as exc:
        raise Fail(str(exc)) from None


def param_options(f):
    f = click.option(
        "--set",
        "sets",
        multiple=True,
        metavar="KEY=VALUE",
        help="Override one lesson parameter, e.g. --set base=500 (repeatable).",
    )(f)
    f = click.option(
        "--config",
        type=click.Path(dir_okay=False),
        default=None,
        help="A TOML file of parameters to use instead of lesson.toml.",
    )(f)
    f = click.option(
        "--seed",
        type=click.IntRange(min=0),
        default=None,
        help="Seed for the random matrices (W_q/W_k/W_v and the learned table).",
    )(f)
    return f


def job_options(f):
    f = click.option(
        "-q",
        "--quality",
        type=click.Choice(list(settings.QUALITIES)),
        default="l",
        show_default=True,
        help="Manim preset: l=480p15, m=720p30, h=1080p60, k=2160p60.",
    )(f)
    f = click.option(
        "--lang",
        type=click.Choice(LANGS),
        default="en",
        show_default=True,
        help="Language of on-screen words (subtitles are written in both).",
    )(f)
    f = click.option(
        "--format",
        "fmt",
        type=click.Choice(settings.FORMATS),
        default="mp4",
        show_default=True,
        help="Output: mp4, webm (VP9), gif (for slides) or png (the last frame).",
    )(f)
    f = click.option(
        "--aspect",
        type=click.Choice(list(settings.ASPECTS)),
        default="16:9",
        show_default=True,
        help="Frame shape; 9:16 and 1:1 fit the whole scene into vertical or square players.",
    )(f)
    f = click.option(
        "--transparent", is_flag=True, help="Transparent background (webm, gif or png only)."
    )(f)
    f = click.option(
        "--burn-captions", is_flag=True, help="Draw the chosen language's captions into the video."
    )(f)
    f = click.option(
        "--output",
        type=click.Path(file_okay=False, path_type=Path),
        default=DEFAULT_OUTPUT,
        show_default=True,
        help="Root folder for outputs: <output>/<lang>/<quality>/.",
    )(f)
    return param_options(f)


def make_jobs(slugs, params, quality, lang, fmt, aspect, transparent, burn_captions) -> list[Job]:
    try:
        settings.check_format(fmt, transparent)
    except settings.SettingsError as exc:
        raise Fail(str(exc)) from None
    return [Job(s, params, lang, quality, fmt, aspect, transparent, burn_captions) for s in slugs]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--verbose", is_flag=True, help="Show full tracebacks and Manim's own log.")
@click.pass_context
def cli(ctx: click.Context, verbose: bool) -> None:
    """Render the positional-encoding lesson: every number on screen comes from pe_math."""
    ctx.obj = {"verbose": verbose}


@cli.command("list")
@job_options
def list_scenes(
    quality, lang, fmt, aspect, transparent, burn_captions, output, sets, config, seed
) -> None:
    """Each scene: order, slug, titles, the parameters it reads, and whether its output is up to date."""
    params = load_params(config, sets, seed)
    jobs = make_jobs(
        [i.slug for i in scenes.ordered()],
        params,
        quality,
        lang,
        fmt,
        aspect,
        transparent,
        burn_captions,
    )
    table = Table(title=f"scenes ({lang}, {settings.folder_name(quality, aspect)}, {fmt})")
    for col in ("#", "slug", "zh", "en", "reads", "output"):
        table.add_column(col)
    for p in plan(jobs, output):
        info = p.job.info
        titles = []
        for language in LANGS:
            try:
                titles.append(info.title(language))
            except CatalogueError:
                titles.append("-")
        state = "[green]up to date" if p.cached else f"[yellow]{p.reason}"
        table.add_row(f"{info.order:02d}", info.slug, *titles, ", ".join(info.fields), state)
    console.print(table)


@cli.command()
@click.argument("slugs", nargs=-1)
@click.option("--all", "all_", is_flag=True, help="Render every scene of the lesson, in order.")
@job_options
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1),
    default=os.cpu_count() or 1,
    show_default="CPU count",
    help="Scenes rendered at the same time, each in its own process.",
)
@click.option("--force", is_flag=True, help="Render even when the output is up to date.")
@click.option(
    "--lesson",
    is_flag=True,
    help="Also join every clip into lesson.mp4 with chapters and lesson subtitles (implies --all).",
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="Print the plan (what would render, what is cached, and why) and stop.",
)
@click.pass_context
def render(
    ctx,
    slugs,
    all_,
    quality,
    lang,
    fmt,
    aspect,
    transparent,
    burn_captions,
    output,
    sets,
    config,
    seed,
    jobs,
    force,
    lesson,
    dry_run,
) -> None:
    """Render scenes (by slug, or --all) into <output>/<lang>/<quality>/."""
    params = load_params(config, sets, seed)
    if lesson and slugs:
        raise Fail("--lesson joins the whole lesson; use it with --all, without scene names")
    chosen = resolve_slugs(slugs, all_ or lesson)
    planned = plan(
        make_jobs(chosen, params, quality, lang, fmt, aspect, transparent, burn_captions),
        output,
        force,
    )
    if dry_run:
        console.print(plan_table(planned, output))
        return
    try:
        preflight(output)
    except PipelineError as exc:
        raise Fail(str(exc)) from None
    report = execute(planned, output, jobs, console, verbose=ctx.obj["verbose"])
    console.print(summary_table(report))
    for o in report.failed:
        click.echo(f"error: {o.job.slug}: {o.message}", err=True)
        if o.detail:
            click.echo(o.detail, err=True)
    join = lesson and not report.failed and not report.interrupted
    if lesson and not join:
        click.echo("error: lesson: not joined, because some clips did not render", err=True)
    problems = publish([p.job for p in planned], output, console, lesson=join, force=force)
    for message in problems:
        click.echo(f"error: {message}", err=True)
    if report.interrupted:
        click.echo(
            "interrupted: finished outputs were kept; unfinished jobs left the previous files untouched",
            err=True,
        )
        sys.exit(130)
    sys.exit(1 if report.failed or problems else 0)


@cli.command()
@click.argument("slug")
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@param_options
def numbers(slug, as_json, sets, config, seed) -> None:
    """Print the numbers a scene will show for the current parameters (no rendering)."""
    params = load_params(config, sets, seed)
    try:
        info = scenes.get(slug)
    except scenes.UnknownScene as exc:
        raise Fail(str(exc)) from None
    values = info.load().numbers(params)
    if as_json:
        click.echo(json.dumps(values, indent=2, ensure_ascii=False))
    else:
        console.print(
            f"[bold]{info.stem}[/] reads: {', '.join(f'{k}={v}' for k, v in params.as_dict(info.fields).items())}"
        )
        console.print_json(json.dumps(values, ensure_ascii=False))


@cli.command()
@click.argument("slug")
@click.option(
    "--lang",
    type=click.Choice(LANGS),
    default="en",
    show_default=True,
    help="Language of the words.",
)
@click.option(
    "--output",
    type=click.Path(file_okay=False, path_type=Path),
    default=DEFAULT_OUTPUT,
    show_default=True,
    help="Root folder; stills land in <output>/preview/.",
)
@param_options
@click.pass_context
def preview(ctx, slug, lang, output, sets, config, seed) -> None:
    """Quick low-quality render, then a last-frame PNG and a contact sheet of every beat's end."""
    from rendering import preview as stills

    params = load_params(config, sets, seed)
    chosen = resolve_slugs((slug,), False)
    job = Job(chosen[0], params, lang, "l")
    try:
        preflight(output)
    except PipelineError as exc:
        raise Fail(str(exc)) from None
    root = output / "preview"
    report = execute(plan([job], root, force=False), root, 1, console, verbose=ctx.obj["verbose"])
    if report.failed:
        o = report.failed[0]
        click.echo(f"error: {o.job.slug}: {o.message}", err=True)
        sys.exit(1)
    from rendering.manifest import Manifest

    folder = job.out_dir(root)
    entry = Manifest.load(folder).entry(job.slug, job.variant)
    clip = folder / entry["file"]
    last = stills.last_frame(clip, folder / f"{job.info.stem}.last.png")
    sheet = stills.contact_sheet(
        clip, entry["beats"], entry["duration"], folder / f"{job.info.stem}.sheet.png"
    )
    console.print(f"clip:          {clip}\nlast frame:    {last}\ncontact sheet: {sheet}")


@cli.command()
@click.option(
    "--all", "all_", is_flag=True, help="Also delete finished outputs (everything under --output)."
)
@click.option(
    "--output",
    type=click.Path(file_okay=False, path_type=Path),
    default=DEFAULT_OUTPUT,
    show_default=True,
    help="Root folder of outputs.",
)
def clean(all_, output) -> None:
    """Remove temporary work folders and caches; finished outputs stay unless --all."""
    removed = []
    targets = [output / WORK, output / "preview"]
    if all_:
        targets = [p for p in output.iterdir() if p.name != "README.md"] if output.exists() else []
    for path in targets:
        if path.is_dir():
            shutil.rmtree(path)
            removed.append(path)
        elif path.exists():
            path.unlink()
            removed.append(path)
    console.print(
        f"removed {len(removed)} item(s)" + (": " + ", ".join(map(str, removed)) if removed else "")
    )


def main() -> None:
    try:
        cli(standalone_mode=True)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
