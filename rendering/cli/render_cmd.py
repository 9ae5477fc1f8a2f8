"""`render`: scenes, the whole lesson, or a course file's matrix, into media folders."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import click

from rendering.cli.options import (
    Fail,
    JobOptions,
    console,
    into_job_options,
    job_options,
    made_jobs,
    resolve_slugs,
    scene_arguments,
    speech_bar,
)
from rendering.cli.tables import plan_table, summary_table
from rendering.core import formats, settings
from rendering.core.files import write_problem
from rendering.core.jobs import Job
from rendering.publish.gallery import publish
from rendering.publish.lesson import join_folders
from rendering.run import child
from rendering.run.plan import plan
from rendering.run.preflight import check_writable, preflight
from rendering.run.request import check_glyphs
from rendering.run.scheduler import execute
from rendering.run.workdirs import WORK
from rendering.speech import synthesis, voices, warm


@click.command()
@scene_arguments("Render every scene of the lesson, in order.")
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
    "--verify",
    is_flag=True,
    help="Then draw each clip whole in a scratch folder and compare every frame and sound "
    "sample with the clip in place: one line per clip, exit 1 if any differs.",
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
@click.pass_context
@into_job_options
def render(
    ctx,
    slugs: tuple[str, ...],
    all_: bool,
    opts: JobOptions,
    jobs: int,
    scheduler: str | None,
    force: bool,
    split_long: bool,
    lesson: bool,
    dry_run: bool,
    verify: bool,
    plan_file: Path | None,
) -> None:
    """Render scenes (by slug, or --all) into <output>/<lang>/<quality>/, narrated."""
    if verify and dry_run:
        raise Fail("--verify draws each clip again to compare it; drop --dry-run or --verify")
    run = Run(jobs, scheduler, force, split_long, dry_run, ctx.obj["verbose"])
    if not dry_run and not scheduler:
        synthesis.before_new_speech(child.warm_up)  # the workers' imports overlap it
        if os.environ.get(child.AT_ONCE):  # watch renders after an edit: it will draw
            child.warm_up()
        synthesis.made_elsewhere(warm.spoken_by_host)  # by watch's voice, when it has one
    if plan_file is not None:
        given = [
            f"--{name.replace('_', '-')}"
            for name in ("lang", "quality", "aspect")
            if ctx.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE
        ]
        given += ["scene names"] * bool(slugs) + ["--all"] * all_ + ["--lesson"] * lesson
        given += ["--verify"] * verify
        if given:
            raise Fail(
                "--plan takes the scenes, langs, qualities and aspects from the course file; "
                f"drop {given[0]}"
            )
        render_course(plan_file, opts, run)
        return
    output = opts.output
    params = opts.params()
    if lesson and slugs:
        raise Fail("--lesson joins the whole lesson; use it with --all, without scene names")
    chosen = resolve_slugs(slugs, all_ or lesson)
    if not dry_run:
        preflight(output)
    jobs_ = made_jobs(opts, chosen, params, synthesize=not dry_run)
    planned = plan(jobs_, output, force)
    if dry_run:
        console.print(plan_table(planned, output))
        return
    _check_writable(jobs_, output)
    report = _execute(planned, output, run)
    print_voice_notes(jobs_, opts.voice, opts.fmt)
    print_sold_course(jobs_)
    differ = verify_clips(jobs_, output, run) if verify and not report.failed else []
    finish_run(report, [(jobs_, output)], lesson, console, force, differ)


def _check_writable(jobs_, root: Path) -> None:
    """Every output folder of `jobs_` under `root` can be written, or one line says why."""
    for folder in sorted({job.out_dir(root) for job in jobs_}):
        check_writable(folder)


def verify_clips(jobs_: list[Job], output: Path, run: Run) -> list[str]:
    """Each clip in place drawn whole in a scratch folder and compared with it; says so
    of each that is the same, returns a line for each that differs."""
    import shutil
    import tempfile

    from rendering.run.verify import difference

    checked = [j for j in jobs_ if j.format.moving and (j.out_dir(output) / j.filename).exists()]
    scratch = Path(tempfile.mkdtemp(prefix=".verify-", dir=output))  # on the outputs' disk
    differ = []
    try:
        console.print(f"verify: drawing {len(checked)} clip(s) whole to compare")
        _execute(plan(checked, scratch, force=True), scratch, run, work_root=scratch / WORK)
        for job in checked:
            whole = job.out_dir(scratch) / job.filename
            if not whole.exists():
                differ.append(f"verify: {job.slug}: the whole render failed, nothing to compare")
                continue
            fps = settings.geometry(job.quality, job.aspect).fps
            found = difference(job.out_dir(output) / job.filename, whole, fps)
            if found:
                differ.append(
                    f"verify: {job.slug}: {found}; run `render {job.slug} --force` to redraw it"
                )
            else:
                click.echo(f"verify: {job.slug}: every frame and sound sample as a whole render")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return differ


def finish_run(
    report, groups, lesson: bool, console, force: bool, differ: list[str] | None = None
) -> None:
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
    problems += differ or []
    for message in problems:
        click.echo(f"error: {message}", err=True)
    if report.interrupted:
        click.echo(
            "interrupted: finished outputs were kept; unfinished jobs left the previous files untouched",
            err=True,
        )
        sys.exit(130)
    sys.exit(1 if report.failed or problems else 0)


@dataclass(frozen=True)
class Run:
    """How a render runs, as opposed to what it renders."""

    jobs: int
    scheduler: str | None
    force: bool
    split_long: bool
    dry_run: bool
    verbose: bool


def render_course(plan_file: Path, opts: JobOptions, run: Run) -> None:
    """`render --plan`: every job of a course file in one schedule, longest first."""
    from rendering.run import course as course_mod

    output, fmt = opts.output, opts.fmt
    try:
        course = course_mod.load(plan_file, opts.params())
        settings.check_format(fmt, opts.transparent)
    except course_mod.CourseError as exc:
        raise Fail(str(exc)) from None
    for name, params in course.sets.items():
        check_glyphs(params, f"{plan_file}: [sets.{name}] ")
    if not run.dry_run:
        preflight(output)
    # per set: a line may say the set's numbers (the same words are synthesised once)
    palette = opts.palette()  # before any speech is made
    looks = {lang: dataclasses.replace(opts, lang=lang).look(course.slugs) for lang in course.langs}
    for name, params in course.sets.items():  # the tokens a language's own font shows
        for lang, look in looks.items():
            if "font" in dict(look):
                check_glyphs(params, f"{plan_file}: [sets.{name}] ", dict(look)["font"], lang)
    speech = {}
    for name, params in course.sets.items():
        for lang in course.langs:
            in_lang = dataclasses.replace(opts, lang=lang)
            with speech_bar(in_lang, len(course.slugs), not run.dry_run) as advance:
                speech[name, lang] = in_lang.narrations(
                    course.slugs, params, not run.dry_run, advance
                )
    groups: list[tuple[list[Job], Path]] = []  # one per set: its jobs and its root
    for name, params in course.sets.items():
        set_jobs = [
            opts.job(
                slug,
                params,
                speech[name, lang][slug],
                lang=lang,
                quality=q,
                aspect=aspect,
                palette=palette,
                look=looks[lang],
            )
            for lang in course.langs
            for q in course.qualities
            for aspect in course.aspects
            for slug in course.slugs
        ]
        groups.append((set_jobs, course.root(output, name)))
    planned, roots = [], []
    for set_jobs, root in groups:
        planned += plan(set_jobs, root, run.force)
        roots += [root] * len(set_jobs)
    if run.dry_run:
        console.print(course.describe())
        console.print(plan_table(planned, roots, title="course plan"))
        return
    for set_jobs, root in groups:
        _check_writable(set_jobs, root)
    report = _execute(planned, roots, run, work_root=output / WORK)
    first_jobs = groups[0][0]
    for lang in course.langs:
        print_voice_notes([j for j in first_jobs if j.lang == lang], opts.voice, fmt)
    print_sold_course(first_jobs)
    finish_run(report, groups, course.lesson, console, run.force)


def _execute(planned, roots, run: Run, work_root: Path | None = None):
    """Render what the plan says, print the summary and each job's warning."""
    report = execute(
        planned,
        roots,
        run.jobs,
        console,
        verbose=run.verbose,
        scheduler=run.scheduler,
        work_root=work_root,
        split_long=run.split_long,
    )
    console.print(summary_table(report))
    for o in report.outcomes:
        if o.beats:
            click.echo(f"{_named(o)}: {o.beats}")
        if o.note:
            click.echo(f"warning: {_named(o)}: {o.note}", err=True)
    return report


def _named(outcome) -> str:
    """A job's scene, after its output folder when the run wrote to several."""
    return f"{outcome.where} {outcome.job.slug}".strip()


def print_sold_course(jobs: list[Job]) -> None:
    """One line: whether a sold course may use every voice these jobs spoke with."""
    cards = [
        card for j in jobs if j.narration is not None for card in json.loads(j.narration.cards)
    ]
    if cards:
        console.print(voices.sold_course(cards), markup=False, soft_wrap=True)


def print_voice_notes(jobs: list[Job], voice: str, fmt: str) -> None:
    """Who spoke, which beats fell back from recordings to an engine, what sounds wrong."""
    voiced = [j for j in jobs if j.narration is not None]
    if not voiced:
        return
    if formats.get(fmt).audio_codec is None:
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
