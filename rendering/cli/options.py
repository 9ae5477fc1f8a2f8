"""The options the commands share, parsed into the one record a render's options become.

Every command that makes jobs gets one `JobOptions` (rendering/run/request.py) instead of
a dozen loose arguments: `into_job_options` folds the options that are its fields into
the `opts` argument. The lesson is checked and speech made in run/ and speech/; this
module only shows their progress.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import fields
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn

from lesson import registry
from lesson.catalogue import LANGS
from rendering.core import formats, settings
from rendering.core.door import command
from rendering.core.jobs import Job
from rendering.run.request import DEFAULT_OUTPUT, DEFAULT_VOICE_DIR, JobOptions
from rendering.speech import voices

console = Console(stderr=False, highlight=False)
status_console = Console(stderr=True, highlight=False)  # progress that must not mix with output


class Fail(click.ClickException):
    """One line on stderr, exit code 2 (a usage, parameter or environment problem)."""

    exit_code = 2

    def show(self, file=None) -> None:
        click.echo(f"error: {clipped(self.message)}", err=True)


LONGEST_WORD = 200  # characters of one word (a path, a value) an error line repeats whole
LONGEST_LINE = 2000


def clipped(message: str) -> str:
    """An error line as printed: a word of thousands of characters (a pasted path, a
    value) cut to its first 60 and "…", and the line itself kept readable."""
    message = re.sub(rf"(\S{{{LONGEST_WORD + 1},}}?)([:;,.)]*)(?=\s|$)", _cut, message)
    if len(message) > LONGEST_LINE:  # many long words: keep the start and the fix at the end
        message = f"{message[: LONGEST_LINE // 2]} … {message[-LONGEST_LINE // 2 :]}"
    return " ".join(message.splitlines())


def _cut(word: re.Match) -> str:
    return f"{word[1][:60]}… ({len(word[1]):,} characters){word[2]}"


NAME_MAX, PATH_MAX = 255, 4096  # bytes of one name and of a whole path on Linux and macOS


def short_enough(ctx, param, value: Path | None) -> Path | None:
    """A path option the file system can hold, or one line saying that it is too long."""
    if value is None:
        return value
    if len(os.fsencode(value)) > PATH_MAX or any(
        len(os.fsencode(part)) > NAME_MAX for part in value.parts
    ):
        raise click.BadParameter(
            f"{value} is longer than a file system allows ({NAME_MAX} bytes a name, "
            f"{PATH_MAX:,} in all); choose a shorter one"
        )
    return value


def scene_arguments(all_help: str = "Every scene of the lesson, in order."):
    """The SLUGS argument and the --all flag (as `all_`) of a command that takes scenes."""

    def decorate(f):
        f = click.option("--all", "all_", is_flag=True, help=all_help)(f)
        return click.argument("slugs", nargs=-1)(f)

    return decorate


def resolve_slugs(slugs: tuple[str, ...], all_: bool) -> list[str]:
    if all_ and slugs:
        raise Fail("give scene names or --all, not both")
    if all_:
        return [i.slug for i in registry.ordered()]
    if not slugs:
        raise Fail(f"name at least one scene (see `{command()} list`) or pass --all")
    try:
        return [registry.get(s).slug for s in slugs]
    except registry.UnknownScene as exc:
        raise Fail(str(exc)) from None


def lang_option(help: str):
    return click.option(
        "--lang", type=click.Choice(LANGS), default="en", show_default=True, help=help
    )


def folder_option(name: str, default: Path, help: str):
    return click.option(
        name,
        type=click.Path(file_okay=False, path_type=Path),
        callback=short_enough,
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
    f = quality_option(
        "Manim preset: l=480p15, m=720p30, h=1080p60, k=2160p60; t=144p10, a draft for checks."
    )(f)
    f = lang_option("Language of on-screen words (subtitles are written in both).")(f)
    f = click.option(
        "--format",
        "fmt",
        type=click.Choice(formats.names()),
        default=formats.MAIN,
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
    return voice_options(param_options(f))


class LiveChoice(click.Choice):
    """A choice among names read when asked, so one registered later is offered too."""

    def __init__(self, names: Callable[[], Sequence[str]]) -> None:
        self.names = names
        super().__init__(())

    @property
    def choices(self) -> Sequence[str]:
        return tuple(self.names())

    @choices.setter
    def choices(self, _value) -> None:
        pass  # click sets it on construction; the names are read live instead


def voice_options(f):
    default = " and ".join(sorted({spec.engine for spec in voices.DEFAULTS.values()}))
    f = click.option(
        "--voice",
        type=LiveChoice(voices.choices),
        default=voices.AUTO,
        show_default=True,
        help="Who speaks: auto = your recording where one exists, else the language's engine "
        f"([voice] in lesson.toml: {default} for both); {voices.NONE} = silent.",
    )(f)
    f = voice_dir_option(
        "Folder of your recordings: <voice-dir>/<lang>/<scene>/<beat>.wav (or flac, mp3, m4a, ogg)."
    )(f)
    return f


_FIELDS = frozenset(f.name for f in fields(JobOptions))


def into_job_options(f):
    """Pass the command's options that are JobOptions fields as one `opts` argument."""

    @functools.wraps(f)
    def command(*args, **kwargs):
        folded = {k: kwargs.pop(k) for k in list(kwargs) if k in _FIELDS}
        return f(*args, opts=JobOptions(**folded), **kwargs)

    return command


def scene_progress(verb: str, disable: bool = False) -> Progress:
    """A bar on stderr counting scenes, labelled `verb` and the current item; none where
    stderr is not a terminal (a transient bar still leaves an empty line there)."""
    return Progress(
        TextColumn(f"[bold]{verb} {{task.description:<20}}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} scenes"),
        console=status_console,
        transient=True,
        disable=disable or not status_console.is_terminal,  # elsewhere it leaves a blank line
    )


@contextlib.contextmanager
def speech_bar(opts: JobOptions, scenes: int, synthesize: bool) -> Iterator[Callable[[], None]]:
    """A bar counting scenes while their speech is made; yields what advances it."""
    with scene_progress("speech", disable=opts.voice == "none" or not synthesize) as progress:
        task = progress.add_task(opts.lang, total=scenes)
        yield lambda: progress.advance(task)


def made_jobs(opts: JobOptions, slugs: list[str], params, synthesize: bool = True) -> list[Job]:
    """`opts.jobs`, with a bar counting scenes while their speech is made."""
    with speech_bar(opts, len(slugs), synthesize) as advance:
        return opts.jobs(slugs, params, synthesize, advance)
