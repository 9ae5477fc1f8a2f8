"""`script`, `say` and `listen`: the narration as a teacher records it, speaks it and checks it."""

from __future__ import annotations

import dataclasses
import os
import re
import sys
from pathlib import Path

import click
from rich.table import Table

from lesson import registry
from rendering.cli.options import (
    LANGS,
    Fail,
    JobOptions,
    LiveChoice,
    aspect_option,
    config_option,
    console,
    into_job_options,
    lang_option,
    made_jobs,
    output_option,
    param_options,
    quality_option,
    resolve_slugs,
    scene_arguments,
    scene_progress,
    voice_dir_option,
)
from rendering.core import formats
from rendering.core.door import command
from rendering.core.files import write_problem
from rendering.run.preflight import check_writable
from rendering.speech import voices


@click.command()
@scene_arguments()
@lang_option("Language of the narration to record.")
@click.option(
    "--format",
    "table_format",
    type=click.Choice(["md", "csv"]),
    default="md",
    show_default=True,
    help="Markdown tables (to read from) or CSV (for a spreadsheet).",
)
@voice_dir_option("Folder of your recordings: <voice-dir>/<lang>/<scene>/<beat>.wav.")
@output_option("Output root; its .speech/ folder caches the synthesised speech used for timing.")
@param_options
@into_job_options
def script(slugs: tuple[str, ...], all_: bool, opts: JobOptions, table_format: str) -> None:
    """A recording script: every beat's text, the file to save it as, and how it fits."""
    import csv
    import io
    import tempfile

    from rendering.draw.scene import animation_times
    from rendering.speech.narration import CACHE, script_rows

    lang, voice_dir, output = opts.lang, opts.voice_dir, opts.output
    chosen = resolve_slugs(slugs, all_)
    timed = dataclasses.replace(opts, fmt=formats.MAIN, voice=opts.voices()[lang].engine)
    rows = []
    with tempfile.TemporaryDirectory(prefix="pe-script-") as tmp:
        for job in made_jobs(timed, chosen, opts.params()):
            if job.narration is None:
                continue
            for beat in job.narration.beats:
                for warning in beat.warnings:
                    click.echo(f"warning: {warning}", err=True)
            timing = animation_times(job, Path(tmp))
            try:
                rows += script_rows(
                    job.slug, lang, job.narration, voice_dir, output / CACHE, timing, job.params
                )
            except OSError as exc:  # a recording's shaped copy, on a full disk
                raise Fail(write_problem(exc)) from None
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
    if table_format == "csv":
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
        click.echo(f"## {registry.get(slug).stem}: {registry.get(slug).title(lang)}\n")
        click.echo("| " + " | ".join(head[1:]) + " |")
        click.echo("|" + "---|" * (len(head) - 1))
        for v in mine:
            click.echo("| " + " | ".join(c.replace("|", "\\|") for c in v[1:]) + " |")
        click.echo()
    done = sum(r.status.startswith("recorded") for r in rows)
    click.echo(f"{done} of {len(rows)} beats recorded in {voice_dir / lang}.")


@click.command()
@scene_arguments()
@lang_option("Language of the narration the picture should follow.")
@voice_dir_option("Folder of your recordings: <voice-dir>/<lang>/<scene>/<beat>.wav.")
@output_option("Output root; its .speech/ folder caches the synthesised speech used for timing.")
@param_options
@click.option(
    "--pixels",
    is_flag=True,
    help="Measure the rendered frames (drawn silent, timed by the voice): a frame is "
    "still when no pixel changes by more than 8 grey levels over 0.2 s. Slower.",
)
@into_job_options
def motion(slugs: tuple[str, ...], all_: bool, pixels: bool, opts: JobOptions) -> None:
    """Where each clip holds still while the voice talks: its still share and longest run."""
    import tempfile

    from rendering.draw import motion as measured
    from rendering.run import pixel_stills

    chosen = resolve_slugs(slugs, all_)
    share = "still in the frames" if pixels else "still while speaking"
    table = Table("scene", share, "longest still", "in beat")
    worst = 0.0
    with tempfile.TemporaryDirectory(prefix="pe-motion-") as tmp:
        voiced = dataclasses.replace(opts, fmt=formats.MAIN, voice="auto")
        for job in made_jobs(voiced, chosen, opts.params()):
            if job.narration is None:
                continue
            if pixels:
                found = pixel_stills.measure(job, Path(tmp) / job.info.stem)
                beat = " > ".join(found.longest.beats) if found.longest else ""
            else:
                found = measured.measure(job, Path(tmp))
                beat = found.longest.beat if found.longest else ""
            longest = found.longest
            seconds = longest.seconds if longest else 0.0
            worst = max(worst, seconds)
            mark = " [red](over 6 s)[/red]" if seconds > 6.0 else ""
            table.add_row(
                job.info.stem,
                f"{found.still_share:.0%}",
                f"{seconds:.1f} s{mark}",
                beat or "-",
            )
    console.print(table)
    console.print(
        f"longest still run: {worst:.1f} s (the lesson aims for {measured.MOST_STILL:.0f} s at most)"
    )


MAX_SAY = 2000  # characters of one `say`: minutes of speech, far more than a beat
MAX_VOICES_SAY = 200  # characters every voice of `voices --say` reads: one sentence
HAN = re.compile(r"[\u3400-\u9fff]")


@click.command()
@click.argument("text")
@lang_option("Language of the line.")
@click.option(
    "--voice",
    type=LiveChoice(voices.engine_names),
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
    from rendering.speech.narration import CACHE, line_samples, synthesised
    from rendering.speech.synthesis import unsaid, visible

    if not visible(text).strip():
        raise Fail(
            f"TEXT is empty; give the line to speak, e.g. {command()} say '每个位置…' --lang zh"
        )
    if len(text) > MAX_SAY:
        raise Fail(
            f"TEXT has {len(text):,} characters; say speaks at most {MAX_SAY:,} at once, "
            "so split it into several lines"
        )
    if out_file.suffix.lower() != ".wav":
        raise Fail(f"--out {out_file}: give a .wav file name")
    if not out_file.parent.is_dir():
        raise Fail(f"--out {out_file}: the folder {out_file.parent} does not exist")
    specs = voices.load_specs(config)
    check_writable(output / CACHE)
    try:
        engine = voices.engine(voices.spec_for(voice or "auto", lang, specs))
        missing = unsaid(engine, text, lang)
        if missing:
            click.echo(f"warning: {missing}", err=True)
        pieces = synthesised(engine, text, lang, output / CACHE)
    except OSError as exc:  # a full disk: every write is atomic, nothing is left half-made
        raise Fail(write_problem(exc)) from None
    try:
        audio.write_wav(out_file, line_samples(pieces))
    except OSError as exc:
        raise Fail(
            f"cannot write {out_file} ({exc.strerror}); give --out a file in a writable "
            "folder with free space"
        ) from None
    seconds = sum(p.seconds for p in pieces)
    click.echo(f"{out_file}: {seconds:.1f} s of speech by {engine.spec.engine} {engine.name}")


@click.command()
@scene_arguments()
@lang_option("Language of the narration to listen to.")
@quality_option("Which rendered clips: the quality they were rendered at.")
@aspect_option
@output_option("Output root the clips were rendered into.")
@voice_dir_option("Folder of your recordings: <voice-dir>/<lang>/<scene>/<beat>.wav.")
@click.option(
    "--threads",
    type=click.IntRange(1, os.cpu_count() or 1),
    default=os.cpu_count() or 1,
    show_default="CPU count",
    help="CPU threads for the speech recogniser (at most the machine's cores).",
)
def listen(slugs, all_, lang, quality, aspect, output, voice_dir, threads) -> None:
    """Transcribe rendered clips and your recordings beat by beat, and print the error.

    Chinese is scored as toneless pinyin syllables, and beside that as toned ones (a
    syllable heard in another tone is wrong there too), English as words. A recording that
    does not say its line, a silent one or one without speech, and a beat the recogniser
    can hardly follow are flagged, and the exit code is then 1.
    """
    from rendering.speech import review

    chosen = resolve_slugs(slugs, all_)
    folder = review.clip_folder(output, lang, quality, aspect)
    shape = "" if aspect == "16:9" else f" --aspect {aspect}"
    options = f" -q {quality}{shape} --output {output}"  # to render a clip again
    table = Table(box=None, pad_edge=False)
    toned = lang == "zh"
    wrong = [f"{review.UNIT[lang]} wrong", *(["with tones"] if toned else [])]
    for head in ("scene", "beat", "from", *wrong, "heard"):
        table.add_column(head, overflow="fold")
    hearings = []
    try:
        with scene_progress("listen") as progress:
            task = progress.add_task(lang, total=len(chosen))
            for slug in chosen:
                progress.update(task, description=slug)
                hearings += review.clip_hearings(slug, lang, folder, threads, options)
                knobs = review.clip_knobs(slug, folder)  # the lines as the clip says them
                hearings += review.recording_hearings(slug, lang, voice_dir, threads, knobs)
                progress.advance(task)
    except review.ClipError as exc:
        raise Fail(str(exc)) from None
    if not hearings:
        raise Fail(
            f"nothing to listen to: no voiced clip of {', '.join(chosen)} in {folder} and no "
            f"recording in {voice_dir / lang}; render them first ({command()} render --lang {lang})"
        )
    for h in hearings:
        where = "recording" if h.recording else "clip"
        cells = [h.scene, h.beat, where, f"{h.error:.0%}"]
        table.add_row(*cells, *([f"{h.toned_error:.0%}"] if toned else []), h.heard)
    console.print(table)
    for scene in dict.fromkeys(h.scene for h in hearings):
        mine = [h for h in hearings if h.scene == scene]
        mean = sum(h.error for h in mine) / len(mine)
        tones = sum(h.toned_error or 0.0 for h in mine) / len(mine)
        with_tones = f" ({tones:.1%} with tones)" if toned else ""
        console.print(
            f"{scene}: {mean:.1%} of {review.UNIT[lang]} wrong{with_tones} over {len(mine)} beats"
        )
    flagged = [h for h in hearings if h.flagged]
    for h in flagged:
        click.echo(f"warning: {h.problem(lang)}", err=True)
    sys.exit(1 if flagged else 0)


@click.command("voices")
@click.option(
    "--lang",
    type=click.Choice(LANGS),
    default=None,
    help="Only this language's voices (default: both; with --say, the language of TEXT).",
)
@click.option(
    "--say",
    "text",
    metavar="TEXT",
    default=None,
    help="A short line for every voice of the language to read: writes voices.html and "
    "one WAV file per voice into --output, to choose a voice by ear.",
)
@click.option(
    "--output",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("media") / "voices",
    show_default=True,
    help="Folder for voices.html and its audio files (with --say).",
)
@config_option("A TOML file whose [voice] and [lexicon] tables to use instead of lesson.toml's.")
def voices_cmd(lang, text, output, config) -> None:
    """Every voice this machine can speak with: its licence, whether a sold course may use
    it, and how much of it a speech recogniser heard wrong, where that was measured."""
    import tempfile

    from rendering.speech import audio, chooser
    from rendering.speech.narration import line_samples
    from rendering.speech.synthesis import synthesised, unsaid, visible

    if text is not None:
        if not visible(text).strip():
            raise Fail("--say is empty; give a short line, e.g. --say '每个位置有一组时钟指针。'")
        if len(text) > MAX_VOICES_SAY:
            raise Fail(
                f"--say has {len(text):,} characters; every voice reads it, so give at most "
                f"{MAX_VOICES_SAY} (one sentence)"
            )
        lang = lang or ("zh" if HAN.search(text) else "en")
    specs = voices.load_specs(config)
    langs = [lang] if lang else list(LANGS)
    with scene_progress("voices") as progress:
        progress.add_task("loading the voices", total=None)
        found, missing = chooser.available(langs, specs)
    table = Table("engine", "voice", "lang", "licence", "sold course", "heard wrong")
    table.caption = chooser.HEARD
    for v in found:
        table.add_row(*v.cells)
    console.print(table)
    for line in missing:
        click.echo(f"not here: {line}", err=True)
    if text is None:
        return
    check_writable(output)
    spoken = []
    try:
        with (
            tempfile.TemporaryDirectory(prefix="pe-voices-") as cache,
            scene_progress("say") as progress,
        ):
            task = progress.add_task(lang, total=len(found))
            for v in found:
                progress.update(task, description=v.file_name)
                missing_chars = unsaid(v.engine, text, v.lang)
                if missing_chars:
                    click.echo(f"warning: {v.file_name}: {missing_chars}", err=True)
                samples = line_samples(synthesised(v.engine, text, v.lang, Path(cache)))
                chooser.write_audio(output, v, samples)
                spoken.append((v, len(samples) / audio.RATE))
                progress.advance(task)
        page = chooser.write_page(output, text, spoken)
    except OSError as exc:
        raise Fail(write_problem(exc)) from None
    click.echo(f"{page}: {len(spoken)} voices read the line")
