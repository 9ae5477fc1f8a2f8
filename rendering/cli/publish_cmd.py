"""`preview`, `slides`, `check`, `package` and `clean`: looking at renders, making decks
and course packages from them, checking them, and tidying up."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import click

from rendering.cli.options import (
    Fail,
    JobOptions,
    aspect_option,
    console,
    into_job_options,
    lang_option,
    made_jobs,
    output_option,
    param_options,
    quality_option,
    resolve_slugs,
    scene_arguments,
    voice_options,
)
from rendering.core import formats, settings
from rendering.core.door import command
from rendering.run.cleaning import PACKAGES, clean_targets
from rendering.run.plan import plan
from rendering.run.preflight import preflight
from rendering.run.scheduler import execute


def rendered_folder(output: Path, lang: str, quality: str, aspect: str) -> Path:
    """The folder a render of these options wrote, or one line saying how to make it."""
    from rendering.core.manifest import NAME as MANIFEST

    folder = output / lang / settings.folder_name(quality, aspect)
    if not (folder / MANIFEST).is_file():
        raise Fail(
            f"{folder} has no {MANIFEST}; render into it first "
            f"({command()} render --all -q {quality} --lang {lang} --aspect {aspect})"
        )
    return folder


@click.command()
@scene_arguments("Every clip rendered in the folder (the default).")
@click.option(
    "--a11y",
    is_flag=True,
    help="Accessibility (WCAG 2.1 AA): each clip's captions in both languages (reading "
    "speed, lines, time on screen), its flashes on every decoded frame, each text's "
    "contrast as every beat ends, and the numbers on screen the narration does not say; "
    "written to a11y.html and a11y.json beside the manifest (every render writes them too).",
)
@quality_option("Which rendered folder to check: l=480p15, m=720p30, h=1080p60, k=2160p60.")
@lang_option("Language of the rendered folder to check.")
@aspect_option
@output_option("Root folder of outputs: the folder checked is <output>/<lang>/<quality>/.")
def check(slugs, all_, a11y, quality, lang, aspect, output) -> None:
    """Check rendered clips; exits 1 when a check finds a problem."""
    from rendering.publish import accessibility

    if not a11y:
        raise Fail("say what to check: --a11y")
    if slugs and all_:
        raise Fail("give scene names or --all, not both")
    folder = rendered_folder(output, lang, quality, aspect)
    chosen = resolve_slugs(slugs, False) if slugs else None
    try:
        report = accessibility.check(folder, chosen, lambda slug: click.echo(f"checking {slug}"))
    except accessibility.NothingToCheck as exc:
        raise Fail(str(exc)) from None
    json_path, html_path = accessibility.write(folder, report)
    for found in report.findings:
        where = " ".join(filter(None, (found.clip, found.where)))
        click.echo(f"{found.criterion}: {where}: {found.problem}")
    verdict = "no problem found" if report.passed else f"{len(report.findings)} problems"
    click.echo(f"a11y: {html_path} ({verdict}); {json_path.name} beside it")
    if not report.passed:
        sys.exit(1)


@click.command()
@click.argument("slug")
@lang_option("Language of the words.")
@output_option("Root folder; stills land in <output>/preview/.")
@aspect_option
@param_options
@voice_options
@click.pass_context
@into_job_options
def preview(ctx, slug: str, opts: JobOptions) -> None:
    """Quick low-quality render, then a last-frame PNG and a contact sheet of every beat's end."""
    from rendering.publish import preview as stills

    chosen = resolve_slugs((slug,), False)
    root = opts.output / "preview"
    preflight(opts.output)
    (job,) = made_jobs(opts, chosen, opts.params())
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


@click.command()
@scene_arguments("One deck per rendered clip, in lesson order.")
@click.option(
    "--lesson",
    "use_lesson",
    is_flag=True,
    help="One deck from lesson.mp4 (the default when no scene is named).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(("pdf", formats.STILL, "pptx")),
    default="pdf",
    show_default=True,
    help="pdf: one page per beat; png: a folder of lossless stills, one per beat; "
    "pptx: a PowerPoint deck with the narration in the speaker notes.",
)
@click.option(
    "--per",
    type=click.Choice(("beat", "chapter")),
    default="beat",
    show_default=True,
    help="pptx only: a slide per beat with its still, or per chapter with its clip "
    "embedded to play in the slide.",
)
@quality_option("Which rendered folder to read: l=480p15, m=720p30, h=1080p60, k=2160p60.")
@lang_option("Language of the rendered folder to read.")
@aspect_option
@output_option("Root folder of outputs; decks land in <output>/<lang>/<quality>/slides/.")
def slides(slugs, all_, use_lesson, fmt, per, quality, lang, aspect, output) -> None:
    """Stills for a slide deck: the frame just before each beat ends, with its narration as notes."""
    from rendering.core.manifest import Manifest
    from rendering.publish import slides as decks

    folder = rendered_folder(output, lang, quality, aspect)
    if sum(map(bool, (slugs, all_, use_lesson))) > 1:
        raise Fail("give scene names, --all or --lesson: one of them")
    if per != "beat" and fmt != "pptx":
        raise Fail(f"--per {per} is for --format pptx; a {fmt} deck has a page per beat")
    manifest = Manifest.load(folder)
    if slugs:
        idents = list(slugs)
    elif all_:
        entries = manifest.entries()
        idents = sorted(entries, key=lambda s: (min(e.order for e in entries[s].values()), s))
        if not idents:
            raise Fail(f"no clips in {folder}; render them first ({command()} render --all)")
    else:
        if not manifest.lesson:
            raise Fail(
                f"no lesson.mp4 in {folder}; name scenes, pass --all, "
                f"or join the lesson with `{command()} render --all --lesson`"
            )
        idents = ["lesson"]
    for ident in idents:
        try:
            target, notes, made = decks.export(folder, ident, fmt, per)
        except decks.SlidesError as exc:
            raise Fail(str(exc)) from None
        count = f"{len(made)} beats"
        if per == "chapter":
            n = len({s.slug for s in made})
            count = f"{n} chapter{'' if n == 1 else 's'}, each clip embedded"
        click.echo(f"slides: {target} ({count}), notes: {notes}")


@click.command()
@click.argument("slugs", nargs=-1)
@click.option(
    "--lesson",
    "use_lesson",
    is_flag=True,
    help="One package of lesson.mp4 with every chapter (the default when no scene is named).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["scorm12", "scorm2004"]),
    default=None,
    help="SCORM 1.2 (most platforms, Moodle's default) or SCORM 2004 4th edition.",
)
@click.option(
    "--worksheet",
    is_flag=True,
    help="Also (or only) a printable PDF of the chapters' checkpoint questions, with the "
    "answer key on a page of its own.",
)
@quality_option("Which rendered folder to package: l=480p15, m=720p30, h=1080p60, k=2160p60.")
@lang_option("Language of the rendered lesson to package.")
@aspect_option
@output_option("Root folder of outputs; packages land in <output>/packages/.")
def package(slugs, use_lesson, fmt, worksheet, quality, lang, aspect, output) -> None:
    """Zips for a course platform (Moodle, Canvas, ...): the lesson, or one per named clip,
    each with its player and subtitles; and a worksheet of the questions."""
    from rendering.core.files import write_problem
    from rendering.publish import scorm
    from rendering.publish import worksheet as sheets

    if slugs and use_lesson:
        raise Fail("give scene names or --lesson, not both")
    if fmt is None and not worksheet:
        raise Fail("say what to make: --format scorm12 or scorm2004, and/or --worksheet")
    folder = output / lang / settings.folder_name(quality, aspect)
    chosen = resolve_slugs(slugs, False) if slugs else []
    made = []
    try:
        for slug in (chosen or [None]) if fmt else []:
            made.append(scorm.build(folder, fmt, output / PACKAGES, slug))
        if worksheet:
            clips = "".join(f"-{slug}" for slug in chosen)
            name = f"pe-explainer-{lang}-{folder.name}{clips}.worksheet.pdf"
            scorm.check_target(output / PACKAGES / name)
            made.append(sheets.build(folder, output / PACKAGES / name, chosen or None))
    except (scorm.PackageError, sheets.WorksheetError) as exc:
        raise Fail(str(exc)) from None
    except OSError as exc:
        raise Fail(write_problem(exc)) from None
    for path in made:
        console.print(f"package: {path} ({path.stat().st_size / 1e6:.1f} MB)")


@click.command()
@click.option(
    "--all",
    "all_",
    is_flag=True,
    help="Also delete finished outputs: every <lang>/<quality> folder holding a manifest.json, "
    "and the packages (a file of your own in either stays).",
)
@click.option("--yes", is_flag=True, help="Delete without asking (for scripts).")
@output_option("Root folder of outputs.")
def clean(all_, yes, output) -> None:
    """Remove what the project wrote: work folders and caches; finished outputs only with --all."""
    targets, kept = clean_targets(output, all_)
    if not targets:
        console.print(f"nothing to remove in {output}")
        _list_kept(kept)
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
    _list_kept(kept)


def _list_kept(kept: list[Path]) -> None:
    for path in kept:
        click.echo(f"kept {path}: the project did not write it")
