"""pe-explainer: render the positional-encoding lesson.

python render.py list
python render.py render --all
python render.py numbers clock-hands --set base=100
python render.py preview clock-hands
python render.py slides --format pdf
python render.py say "每个位置有一组时钟指针。" --lang zh --out line.wav
python render.py listen --all --lang zh
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import signal
import sys
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn
from rich.table import Table

import scenes
from pe_math import ParamError, Params, parse_assignment
from rendering.core import settings
from rendering.core.files import write_problem
from rendering.core.jobs import Job
from rendering.publish.gallery import publish
from rendering.publish.lesson import join_folders
from rendering.run.pipeline import (
    WORK,
    PipelineError,
    check_writable,
    execute,
    plan_table,
    preflight,
    summary_table,
    work_folders,
)
from rendering.run.plan import plan
from rendering.speech import voices
from scenes.catalogue import LANGS, CatalogueError
from scenes.fonts import FONT, missing_glyphs

console = Console(stderr=False, highlight=False)
status_console = Console(stderr=True, highlight=False)  # progress that must not mix with output
DEFAULT_OUTPUT = Path("media")
DEFAULT_VOICE_DIR = Path("voice")


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
        params = Params.load(config, overrides)
    except ParamError as exc:
        raise Fail(str(exc)) from None
    check_glyphs(params)
    return params


def check_glyphs(params: Params, where: str = "") -> None:
    """Stop with one line if the theme font cannot draw a token."""
    for name in ("tokens", "tokens_en"):
        missing = missing_glyphs("".join(getattr(params, name)))
        if missing:
            raise Fail(
                f"{where}{name}: the font {FONT} has no glyph for {' '.join(missing)}; "
                "use letters or Chinese characters"
            )


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


def lang_option(help: str):
    return click.option(
        "--lang", type=click.Choice(LANGS), default="en", show_default=True, help=help
    )


def folder_option(name: str, default: Path, help: str):
    return click.option(
        name,
        type=click.Path(file_okay=False, path_type=Path),
        default=default,
        show_default=True,
        help=help,
    )


def output_option(help: str):
    return folder_option("--output", DEFAULT_OUTPUT, help)


aspect_option = click.option(
    "--aspect",
    type=click.Choice(list(settings.ASPECTS)),
    default="16:9",
    show_default=True,
    help="Frame shape: 16:9, or 9:16 and 1:1 with the stage laid out for phones and squares.",
)


def voice_dir_option(help: str):
    return folder_option("--voice-dir", DEFAULT_VOICE_DIR, help)


def quality_option(help: str):
    return click.option(
        "-q",
        "--quality",
        type=click.Choice(list(settings.QUALITIES)),
        default="l",
        show_default=True,
        help=help,
    )


def config_option(help: str):
    return click.option("--config", type=click.Path(dir_okay=False), default=None, help=help)


def param_options(f):
    f = click.option(
        "--set",
        "sets",
        multiple=True,
        metavar="KEY=VALUE",
        help="Override one lesson parameter, e.g. --set base=500 (repeatable).",
    )(f)
    f = config_option("A TOML file of parameters to use instead of lesson.toml.")(f)
    f = click.option(
        "--seed",
        type=click.IntRange(min=0),
        default=None,
        help="Seed for the random matrices (W_q/W_k/W_v and the learned table).",
    )(f)
    return f


def job_options(f):
    f = quality_option("Manim preset: l=480p15, m=720p30, h=1080p60, k=2160p60.")(f)
    f = lang_option("Language of on-screen words (subtitles are written in both).")(f)
    f = click.option(
        "--format",
        "fmt",
        type=click.Choice(settings.FORMATS),
        default="mp4",
        show_default=True,
        help="Output: mp4, webm (VP9), gif (for slides) or png (the last frame).",
    )(f)
    f = aspect_option(f)
    f = click.option(
        "--transparent", is_flag=True, help="Transparent background (webm, gif or png only)."
    )(f)
    f = click.option(
        "--burn-captions", is_flag=True, help="Draw the chosen language's captions into the video."
    )(f)
    f = output_option("Root folder for outputs: <output>/<lang>/<quality>/.")(f)
    return param_options(f)


def ready(output: Path) -> None:
    """Stop with one line if the tools, fonts or the output folder are not usable."""
    try:
        preflight(output)
    except PipelineError as exc:
        raise Fail(str(exc)) from None


def voice_options(f):
    f = click.option(
        "--voice",
        type=click.Choice(voices.CHOICES),
        default="auto",
        show_default=True,
        help="Who speaks: auto = your recording where one exists, else the language's engine "
        "([voice] in lesson.toml: piper for en, fastspeech2 for zh); none = silent.",
    )(f)
    f = voice_dir_option(
        "Folder of your recordings: <voice-dir>/<lang>/<scene>/<beat>.wav (or flac, mp3, m4a, ogg)."
    )(f)
    return f


def load_voices(config: str | None) -> dict[str, voices.VoiceSpec]:
    try:
        return voices.load_specs(config)
    except voices.VoiceError as exc:
        raise Fail(str(exc)) from None


def make_jobs(
    slugs,
    params,
    quality,
    lang,
    fmt,
    aspect,
    transparent,
    burn_captions,
    voice="none",
    specs=None,
    voice_dir=DEFAULT_VOICE_DIR,
    output=DEFAULT_OUTPUT,
    synthesize=True,
) -> list[Job]:
    """Jobs for `slugs`, each with its narration (synthesised now unless `synthesize` is off)."""
    try:
        settings.check_format(fmt, transparent)
    except settings.SettingsError as exc:
        raise Fail(str(exc)) from None
    speech = narrate_all(slugs, lang, voice, specs or {}, voice_dir, output, synthesize)
    return [
        Job(s, params, lang, quality, fmt, aspect, transparent, burn_captions, speech[s])
        for s in slugs
    ]


def narrate_all(slugs, lang, voice, specs, voice_dir, output, synthesize) -> dict:
    """Each scene's narration, with a progress bar while new speech is synthesised."""
    from rendering.speech.narration import CACHE, NarrationError, narrate

    out = {}
    with Progress(
        TextColumn("[bold]speech {task.description:<20}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} scenes"),
        console=status_console,
        transient=True,
        disable=voice == "none" or not synthesize,
    ) as progress:
        task = progress.add_task(lang, total=len(slugs))
        for slug in slugs:
            try:
                out[slug] = narrate(
                    slug, lang, voice, specs, voice_dir, output / CACHE, synthesize=synthesize
                )
            except NarrationError as exc:
                raise Fail(str(exc)) from None
            progress.advance(task)
    return out


class OneLineErrors(click.Group):
    """click's usage errors as one line and exit 2, like every other error of the driver."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:
            click.echo(exc.format_message())
            sys.exit(0)
        except click.UsageError as exc:
            where = f"; see `{exc.ctx.command_path} --help`" if exc.ctx else ""
            click.echo(f"error: {exc.format_message().rstrip('.')}{where}", err=True)
            sys.exit(2)
        except click.ClickException as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except (click.Abort, KeyboardInterrupt):
            click.echo("interrupted", err=True)
            sys.exit(130)
        if not standalone_mode:
            return code
        sys.exit(code if isinstance(code, int) else 0)


@click.group(cls=OneLineErrors, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--verbose", is_flag=True, help="Show full tracebacks and Manim's own log.")
@click.pass_context
def cli(ctx: click.Context, verbose: bool) -> None:
    """Render the positional-encoding lesson: every number on screen comes from pe_math."""
    ctx.obj = {"verbose": verbose}


@cli.command("list")
@job_options
@voice_options
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
def list_scenes(
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
    voice,
    voice_dir,
    as_json,
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
        voice,
        load_voices(config),
        voice_dir,
        output,
        synthesize=False,
    )
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
        table = Table(title=f"scenes ({lang}, {settings.folder_name(quality, aspect)}, {fmt})")
        for col in ("#", "slug", "zh", "en", "reads", "output"):
            table.add_column(col)
        for r in rows:
            state = "[green]up to date" if r["up_to_date"] else f"[yellow]{r['state']}"
            titles = [r["titles"][language] or "-" for language in LANGS]
            table.add_row(f"{r['order']:02d}", r["slug"], *titles, ", ".join(r["reads"]), state)
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
@click.option(
    "--scheduler",
    envvar="PE_DASK_SCHEDULER",
    default=None,
    metavar="tcp://HOST:8786",
    help="Send the jobs to this Dask scheduler's workers instead of local processes "
    "(--jobs is then ignored; default: $PE_DASK_SCHEDULER). Workers need the same commit "
    "set up by scripts/setup.sh, no shared disk. It is contacted only when a clip needs "
    "rendering: a run with every clip cached never checks it.",
)
@click.option("--force", is_flag=True, help="Render even when the output is up to date.")
@click.option(
    "--split/--no-split",
    "split_long",
    default=True,
    show_default=True,
    help="Draw a scene that would hold up the end of the run in ranges of animations on "
    "several workers, sized from its last render's timings, and join the parts.",
)
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
@click.option(
    "--plan",
    "plan_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    metavar="COURSE.toml",
    help="Render a course file's matrix (langs × qualities × aspects × parameter sets) in one "
    "schedule, each set into <output>/<set>/<lang>/<quality>/; see docs/course.example.toml. "
    "It names the scenes, langs, qualities and aspects itself.",
)
@voice_options
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
    scheduler,
    force,
    split_long,
    lesson,
    dry_run,
    plan_file,
    voice,
    voice_dir,
) -> None:
    """Render scenes (by slug, or --all) into <output>/<lang>/<quality>/, narrated."""
    if plan_file is not None:
        given = [
            f"--{name.replace('_', '-')}"
            for name in ("lang", "quality", "aspect")
            if ctx.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE
        ]
        given += ["scene names"] * bool(slugs) + ["--all"] * all_ + ["--lesson"] * lesson
        if given:
            raise Fail(
                "--plan takes the scenes, langs, qualities and aspects from the course file; "
                f"drop {given[0]}"
            )
        render_course(
            ctx,
            plan_file,
            load_params(config, sets, seed),
            fmt,
            transparent,
            burn_captions,
            output,
            config,
            jobs,
            scheduler,
            force,
            split_long,
            dry_run,
            voice,
            voice_dir,
        )
        return
    params = load_params(config, sets, seed)
    if lesson and slugs:
        raise Fail("--lesson joins the whole lesson; use it with --all, without scene names")
    chosen = resolve_slugs(slugs, all_ or lesson)
    if not dry_run:
        ready(output)
    jobs_ = make_jobs(
        chosen,
        params,
        quality,
        lang,
        fmt,
        aspect,
        transparent,
        burn_captions,
        voice,
        load_voices(config),
        voice_dir,
        output,
        synthesize=not dry_run,
    )
    planned = plan(jobs_, output, force)
    if dry_run:
        console.print(plan_table(planned, output))
        return
    _check_writable(jobs_, output)
    try:
        report = execute(
            planned,
            output,
            jobs,
            console,
            verbose=ctx.obj["verbose"],
            scheduler=scheduler,
            split_long=split_long,
        )
    except PipelineError as exc:
        raise Fail(str(exc)) from None
    console.print(summary_table(report))
    for o in report.outcomes:
        if o.note:
            click.echo(f"warning: {_named(o)}: {o.note}", err=True)
    print_voice_notes(jobs_, voice, fmt)
    finish_run(report, [(jobs_, output)], lesson, console, force)


def _check_writable(jobs_, root: Path) -> None:
    """Every output folder of `jobs_` under `root` can be written, or one line says why."""
    for folder in sorted({job.out_dir(root) for job in jobs_}):
        try:
            check_writable(folder)
        except PipelineError as exc:
            raise Fail(str(exc)) from None


def finish_run(report, groups, lesson: bool, console, force: bool) -> None:
    """Report failures, join and publish each (jobs, output root) group, then exit."""
    for o in report.failed:
        click.echo(f"error: {_named(o)}: {o.message}", err=True)
        if o.detail:
            click.echo(o.detail, err=True)
    problems = []
    try:
        if lesson and (report.failed or report.interrupted):
            problems.append("lesson: not joined, because some clips did not render")
        elif lesson:
            for group_jobs, root in groups:
                problems += join_folders(group_jobs, root, console, force=force)
        for group_jobs, root in groups:
            publish(group_jobs, root, console)
    except OSError as exc:  # every write is atomic: what was published before stays whole
        click.echo(f"error: {write_problem(exc)}", err=True)
        sys.exit(1)
    for message in problems:
        click.echo(f"error: {message}", err=True)
    if report.interrupted:
        click.echo(
            "interrupted: finished outputs were kept; unfinished jobs left the previous files untouched",
            err=True,
        )
        sys.exit(130)
    sys.exit(1 if report.failed or problems else 0)


def render_course(
    ctx,
    plan_file: Path,
    base: Params,
    fmt: str,
    transparent: bool,
    burn_captions: bool,
    output: Path,
    config: str | None,
    jobs: int,
    scheduler: str | None,
    force: bool,
    split_long: bool,
    dry_run: bool,
    voice: str,
    voice_dir: Path,
) -> None:
    """`render --plan`: every job of a course file in one schedule, longest first."""
    from rendering.run import course as course_mod

    try:
        course = course_mod.load(plan_file, base)
        settings.check_format(fmt, transparent)
    except (course_mod.CourseError, settings.SettingsError) as exc:
        raise Fail(str(exc)) from None
    for name, params in course.sets.items():
        check_glyphs(params, f"{plan_file}: [sets.{name}] ")
    if not dry_run:
        ready(output)
    specs = load_voices(config)
    speech = {
        lang: narrate_all(course.slugs, lang, voice, specs, voice_dir, output, not dry_run)
        for lang in course.langs
    }
    groups: list[tuple[list[Job], Path]] = []  # one per set: its jobs and its root
    for name, params in course.sets.items():
        set_jobs = [
            Job(slug, params, lang, q, fmt, aspect, transparent, burn_captions, speech[lang][slug])
            for lang in course.langs
            for q in course.qualities
            for aspect in course.aspects
            for slug in course.slugs
        ]
        groups.append((set_jobs, course.root(output, name)))
    planned, roots = [], []
    for set_jobs, root in groups:
        planned += plan(set_jobs, root, force)
        roots += [root] * len(set_jobs)
    if dry_run:
        console.print(course.describe())
        console.print(plan_table(planned, roots, title="course plan"))
        return
    for set_jobs, root in groups:
        _check_writable(set_jobs, root)
    try:
        report = execute(
            planned,
            roots,
            jobs,
            console,
            verbose=ctx.obj["verbose"],
            scheduler=scheduler,
            work_root=output / WORK,
            split_long=split_long,
        )
    except PipelineError as exc:
        raise Fail(str(exc)) from None
    console.print(summary_table(report))
    for o in report.outcomes:
        if o.note:
            click.echo(f"warning: {_named(o)}: {o.note}", err=True)
    first_jobs = groups[0][0]
    for lang in course.langs:
        print_voice_notes([j for j in first_jobs if j.lang == lang], voice, fmt)
    finish_run(report, groups, course.lesson, console, force)


def _named(outcome) -> str:
    """A job's scene, after its output folder when the run wrote to several."""
    return f"{outcome.where} {outcome.job.slug}".strip()


def print_voice_notes(jobs: list[Job], voice: str, fmt: str) -> None:
    """Who spoke, which beats fell back from recordings to an engine, what sounds wrong."""
    voiced = [j for j in jobs if j.narration is not None]
    if not voiced:
        return
    if fmt not in ("mp4", "webm"):
        console.print(f"voice: a {fmt} has no sound; the narration only timed the beats")
    labels = sorted({j.narration.voice for j in voiced})
    console.print(f"voice ({jobs[0].lang}): {', '.join(labels)}")
    for job in voiced:
        n = job.narration
        if n.recorded and n.fell_back or (voice == "recorded" and n.fell_back):
            console.print(
                f"  {job.slug}: {len(n.recorded)} of {len(n.beats)} beats recorded; "
                f"{', '.join(n.fell_back)} spoken by {n.engine_voice}"
            )
        for beat in n.beats:
            for warning in beat.warnings:
                click.echo(f"warning: {warning}", err=True)


@cli.command()
@click.argument("slugs", nargs=-1)
@click.option("--all", "all_", is_flag=True, help="Every scene of the lesson, in order.")
@lang_option("Language of the narration to record.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["md", "csv"]),
    default="md",
    show_default=True,
    help="Markdown tables (to read from) or CSV (for a spreadsheet).",
)
@voice_dir_option("Folder of your recordings: <voice-dir>/<lang>/<scene>/<beat>.wav.")
@output_option("Output root; its .speech/ folder caches the synthesised speech used for timing.")
@param_options
def script(slugs, all_, lang, fmt, voice_dir, output, sets, config, seed) -> None:
    """A recording script: every beat's text, the file to save it as, and how it fits."""
    import csv
    import io
    import tempfile

    from rendering.draw.scene import animation_times
    from rendering.speech.narration import CACHE, NarrationError, script_rows

    params = load_params(config, sets, seed)
    chosen = resolve_slugs(slugs, all_)
    specs = load_voices(config)
    engine_name = specs[lang].engine
    rows = []
    with tempfile.TemporaryDirectory(prefix="pe-script-") as tmp:
        for job in make_jobs(
            chosen,
            params,
            "l",
            lang,
            "mp4",
            "16:9",
            False,
            False,
            engine_name,
            specs,
            voice_dir,
            output,
        ):
            if job.narration is None:
                continue
            timing = animation_times(job, Path(tmp))
            try:
                rows += script_rows(
                    job.slug, lang, job.narration, voice_dir, output / CACHE, timing
                )
            except NarrationError as exc:
                raise Fail(str(exc)) from None
    head = ["scene", "beat", "text", "file", "tts_s", "animation_s", "status"]
    values = [
        [
            r.scene,
            r.beat,
            r.text,
            r.file,
            f"{r.tts_seconds:.1f}",
            "-" if r.animation_seconds is None else f"{r.animation_seconds:.1f}",
            r.status,
        ]
        for r in rows
    ]
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(head)
        writer.writerows(values)
        click.echo(buffer.getvalue(), nl=False)
        return
    for slug in chosen:
        mine = [v for v in values if v[0] == slug]
        if not mine:
            continue
        click.echo(f"## {scenes.get(slug).stem}: {scenes.get(slug).title(lang)}\n")
        click.echo("| " + " | ".join(head[1:]) + " |")
        click.echo("|" + "---|" * (len(head) - 1))
        for v in mine:
            click.echo("| " + " | ".join(c.replace("|", "\\|") for c in v[1:]) + " |")
        click.echo()
    done = sum(r.status.startswith("recorded") for r in rows)
    click.echo(f"{done} of {len(rows)} beats recorded in {voice_dir / lang}.")


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
    if dataclasses.is_dataclass(values):
        values = dataclasses.asdict(values)
    if as_json:
        click.echo(json.dumps(values, indent=2, ensure_ascii=False))
    else:
        console.print(
            f"[bold]{info.stem}[/] reads: {', '.join(f'{k}={v}' for k, v in params.as_dict(info.fields).items())}"
        )
        console.print_json(json.dumps(values, ensure_ascii=False))


@cli.command()
@click.argument("text")
@lang_option("Language of the line.")
@click.option(
    "--voice",
    type=click.Choice([c for c in voices.CHOICES if c not in ("auto", "recorded", "none")]),
    default=None,
    help="Engine to speak with (default: the language's own, from [voice] in lesson.toml).",
)
@click.option(
    "--out",
    "out_file",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="The WAV file to write (48 kHz mono, at the lesson's loudness).",
)
@config_option("A TOML file whose [voice] tables to use instead of lesson.toml's.")
@output_option("Output root; its .speech/ folder caches the speech, shared with renders.")
def say(text, lang, voice, out_file, config, output) -> None:
    """Speak TEXT exactly as the lesson would (front end, engine, speed, trim, loudness)."""
    from rendering.speech import audio
    from rendering.speech.narration import CACHE, NarrationError, line_samples, synthesised

    if not text.strip():
        raise Fail(
            "TEXT is empty; give the line to speak, e.g. render.py say '每个位置…' --lang zh"
        )
    if out_file.suffix.lower() != ".wav":
        raise Fail(f"--out {out_file}: give a .wav file name")
    if not out_file.parent.is_dir():
        raise Fail(f"--out {out_file}: the folder {out_file.parent} does not exist")
    specs = load_voices(config)
    try:
        engine = voices.engine(voices.spec_for(voice or "auto", lang, specs))
        pieces = synthesised(engine, text, lang, output / CACHE)
    except (voices.VoiceError, NarrationError) as exc:
        raise Fail(str(exc)) from None
    try:
        audio.write_wav(out_file, line_samples(pieces))
    except OSError as exc:
        raise Fail(f"cannot write {out_file} ({exc.strerror})") from None
    seconds = sum(p.seconds for p in pieces)
    click.echo(f"{out_file}: {seconds:.1f} s of speech by {engine.spec.engine} {engine.name}")


@cli.command()
@click.argument("slugs", nargs=-1)
@click.option("--all", "all_", is_flag=True, help="Every scene of the lesson, in order.")
@lang_option("Language of the narration to listen to.")
@quality_option("Which rendered clips: the quality they were rendered at.")
@aspect_option
@output_option("Output root the clips were rendered into.")
@voice_dir_option("Folder of your recordings: <voice-dir>/<lang>/<scene>/<beat>.wav.")
@click.option(
    "--threads",
    type=click.IntRange(min=1),
    default=os.cpu_count() or 1,
    show_default=True,
    help="CPU threads for the speech recogniser.",
)
def listen(slugs, all_, lang, quality, aspect, output, voice_dir, threads) -> None:
    """Transcribe rendered clips and your recordings beat by beat, and print the error.

    Chinese is scored as toneless pinyin syllables, English as words. A recording that
    does not say its line, or a beat the recogniser can hardly follow, is flagged, and
    the exit code is then 1.
    """
    from rendering.speech import review
    from rendering.speech.narration import NarrationError

    chosen = resolve_slugs(slugs, all_)
    folder = review.clip_folder(output, lang, quality, aspect)
    table = Table(box=None, pad_edge=False)
    for head in ("scene", "beat", "from", f"{review.UNIT[lang]} wrong", "heard"):
        table.add_column(head, overflow="fold")
    hearings = []
    try:
        with Progress(
            TextColumn("[bold]listen {task.description:<20}"),
            BarColumn(),
            TextColumn("{task.completed}/{task.total} scenes"),
            console=status_console,
            transient=True,
        ) as progress:
            task = progress.add_task(lang, total=len(chosen))
            for slug in chosen:
                progress.update(task, description=slug)
                hearings += review.clip_hearings(slug, lang, folder, threads)
                hearings += review.recording_hearings(slug, lang, voice_dir, threads)
                progress.advance(task)
    except (voices.VoiceError, NarrationError) as exc:
        raise Fail(str(exc)) from None
    if not hearings:
        raise Fail(
            f"nothing to listen to: no voiced clip of {', '.join(chosen)} in {folder} and no "
            f"recording in {voice_dir / lang}; render them first (render.py render --lang {lang})"
        )
    for h in hearings:
        where = "recording" if h.recording else "clip"
        table.add_row(h.scene, h.beat, where, f"{h.error:.0%}", h.heard)
    console.print(table)
    for scene in dict.fromkeys(h.scene for h in hearings):
        mine = [h for h in hearings if h.scene == scene]
        mean = sum(h.error for h in mine) / len(mine)
        console.print(f"{scene}: {mean:.1%} of {review.UNIT[lang]} wrong over {len(mine)} beats")
    flagged = [h for h in hearings if h.flagged]
    for h in flagged:
        click.echo(f"warning: {h.problem(lang)}", err=True)
    sys.exit(1 if flagged else 0)


@cli.command()
@click.argument("slug")
@lang_option("Language of the words.")
@output_option("Root folder; stills land in <output>/preview/.")
@aspect_option
@param_options
@voice_options
@click.pass_context
def preview(ctx, slug, lang, output, aspect, sets, config, seed, voice, voice_dir) -> None:
    """Quick low-quality render, then a last-frame PNG and a contact sheet of every beat's end."""
    from rendering.publish import preview as stills

    params = load_params(config, sets, seed)
    chosen = resolve_slugs((slug,), False)
    root = output / "preview"
    ready(output)
    (job,) = make_jobs(
        chosen,
        params,
        "l",
        lang,
        "mp4",
        aspect,
        False,
        False,
        voice,
        load_voices(config),
        voice_dir,
        output,
    )
    report = execute(plan([job], root, force=False), root, 1, console, verbose=ctx.obj["verbose"])
    if report.failed:
        o = report.failed[0]
        click.echo(f"error: {o.job.slug}: {o.message}", err=True)
        sys.exit(1)
    from rendering.core.manifest import Manifest

    folder = job.out_dir(root)
    entry = Manifest.load(folder).entry(job.slug, job.variant)
    clip = folder / entry.file
    last = stills.last_frame(clip, folder / f"{job.info.stem}.last.png")
    sheet = stills.contact_sheet(
        clip, entry.beats, entry.duration, folder / f"{job.info.stem}.sheet.png"
    )
    console.print(f"clip:          {clip}\nlast frame:    {last}\ncontact sheet: {sheet}")


@cli.command()
@click.argument("slugs", nargs=-1)
@click.option("--all", "all_", is_flag=True, help="One deck per rendered clip, in lesson order.")
@click.option(
    "--lesson",
    "use_lesson",
    is_flag=True,
    help="One deck from lesson.mp4 (the default when no scene is named).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["pdf", "png"]),
    default="pdf",
    show_default=True,
    help="pdf: one page per beat; png: a folder of lossless stills, one per beat.",
)
@click.option(
    "-q",
    "--quality",
    type=click.Choice(list(settings.QUALITIES)),
    default="l",
    show_default=True,
    help="Which rendered folder to read: l=480p15, m=720p30, h=1080p60, k=2160p60.",
)
@lang_option("Language of the rendered folder to read.")
@aspect_option
@output_option("Root folder of outputs; decks land in <output>/<lang>/<quality>/slides/.")
def slides(slugs, all_, use_lesson, fmt, quality, lang, aspect, output) -> None:
    """Stills for a slide deck: the frame just before each beat ends, with its narration as notes."""
    from rendering.core.manifest import NAME as MANIFEST
    from rendering.core.manifest import Manifest
    from rendering.publish import slides as decks

    folder = output / lang / settings.folder_name(quality, aspect)
    if not (folder / MANIFEST).is_file():
        raise Fail(
            f"{folder} has no {MANIFEST}; render into it first "
            f"(render.py render --all -q {quality} --lang {lang} --aspect {aspect})"
        )
    if sum(map(bool, (slugs, all_, use_lesson))) > 1:
        raise Fail("give scene names, --all or --lesson: one of them")
    manifest = Manifest.load(folder)
    if slugs:
        idents = list(slugs)
    elif all_:
        entries = manifest.entries()
        idents = sorted(entries, key=lambda s: (min(e.order for e in entries[s].values()), s))
        if not idents:
            raise Fail(f"no clips in {folder}; render them first (render.py render --all)")
    else:
        if not manifest.data.get("lesson"):
            raise Fail(
                f"no lesson.mp4 in {folder}; name scenes, pass --all, "
                "or join the lesson with `render.py render --all --lesson`"
            )
        idents = ["lesson"]
    for ident in idents:
        try:
            target, notes, made = decks.export(folder, ident, fmt)
        except decks.SlidesError as exc:
            raise Fail(str(exc)) from None
        click.echo(f"slides: {target} ({len(made)} beats), notes: {notes}")


@cli.command()
@click.option(
    "--all",
    "all_",
    is_flag=True,
    help="Also delete finished outputs: every <lang>/<quality> folder holding a manifest.json.",
)
@click.option("--yes", is_flag=True, help="Delete without asking (for scripts).")
@output_option("Root folder of outputs.")
def clean(all_, yes, output) -> None:
    """Remove what the project wrote: work folders and caches; finished outputs only with --all."""
    targets, kept = clean_targets(output, all_)
    if not targets:
        console.print(f"nothing to remove in {output}")
        return
    click.echo("will remove:\n" + "\n".join(f"  {path}" for path in targets))  # whole paths
    if all_ and not yes:
        if not sys.stdin.isatty():
            raise Fail("clean --all deletes finished outputs; pass --yes to confirm")
        click.confirm("delete these?", abort=True)
    for path in targets:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)  # a symlink: remove the link, never what it points to
    console.print(f"removed {len(targets)} item(s)")
    for path in kept:
        click.echo(f"kept {path}: the project did not write it")


def clean_targets(output: Path, all_: bool) -> tuple[list[Path], list[Path]]:
    """(paths the project wrote, files it did not write inside its output folders);
    symlinked folders are never entered."""
    from rendering.core.manifest import NAME as MANIFEST
    from rendering.core.manifest import written_here

    if not output.is_dir():
        return [], []
    targets = [output / name for name in ("preview", ".speech")]
    targets = [p for p in targets if p.exists() or p.is_symlink()]
    kept: list[Path] = []
    work = output / WORK
    if work.is_symlink():
        targets.append(work)
    elif work.is_dir():
        live, stale = work_folders(work)
        targets += stale if live else [work]  # a running render keeps its folders
    if all_:
        # <output>/<lang>/<quality>/, and a course's <output>/<set>/<lang>/<quality>/
        roots = [output] + sorted(
            d for d in output.iterdir() if d.is_dir() and not d.is_symlink() and d.name not in LANGS
        )
        for root in roots:
            for lang in LANGS:
                base = root / lang
                if base.is_symlink() or not base.is_dir():
                    continue
                for folder in sorted(base.iterdir()):
                    if folder.is_symlink() or not (folder / MANIFEST).is_file():
                        continue
                    mine, foreign = written_here(folder)
                    # a folder holding a teacher's file stays, with only our files removed
                    targets += mine if foreign else [folder]
                    kept += foreign
    return targets, kept


def main() -> None:
    # A stop from a service manager or `kill` ends the run like Ctrl-C: workers stop,
    # finished outputs stay, unfinished ones leave the previous files untouched.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    cli()


if __name__ == "__main__":
    main()
