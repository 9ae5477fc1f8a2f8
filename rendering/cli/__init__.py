"""The command line: one click group, its commands in a module per family."""

from __future__ import annotations

import atexit
import multiprocessing.util
import os
import signal
import sys
import threading
from pathlib import Path

import click

from lesson.catalogue import CatalogueError
from rendering.cli import new_cmd, publish_cmd, render_cmd, scenes_cmd, speech_cmd, watch_cmd
from rendering.cli.options import Fail, clipped
from rendering.core.door import INSTALLED, version
from rendering.core.files import write_problem
from rendering.core.settings import SettingsError
from rendering.run import child
from rendering.run.preflight import PipelineError
from rendering.run.request import RequestError
from rendering.speech.base import VoiceError
from rendering.speech.narration import NarrationError

USER_ERRORS = (RequestError, SettingsError, PipelineError, VoiceError, NarrationError)


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
            click.echo(f"error: {clipped(exc.format_message().rstrip('.'))}{where}", err=True)
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

    def invoke(self, ctx: click.Context):
        """Run the command; what the rooms refuse (USER_ERRORS: the request, the voice,
        the narration, the settings, the preflight) is one line; a broken or missing
        catalogue, a project file saved half-edited (read for a cache key), or a file that
        cannot be written, whichever command meets it, too (its traceback with --verbose)."""
        try:
            return super().invoke(ctx)
        except OSError as exc:  # a folder on a read-only or full disk, whichever step wrote
            if (ctx.obj or {}).get("verbose"):
                raise
            click.echo(f"error: {clipped(write_problem(exc))}", err=True)
            sys.exit(1)
        except USER_ERRORS as exc:  # what the request or the lesson's files got wrong
            raise Fail(str(exc)) from None
        except (CatalogueError, SyntaxError) as exc:
            if (ctx.obj or {}).get("verbose"):
                raise
            if not isinstance(exc, SyntaxError):
                raise Fail(str(exc)) from None
            if exc.filename is None or not Path(exc.filename).is_file():
                raise
            raise Fail(watch_cmd.code_problem(exc, "fix it and run again")) from None


@click.group(cls=OneLineErrors, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(version(), "--version", prog_name=INSTALLED, message="%(prog)s %(version)s")
@click.option("--verbose", is_flag=True, help="Show full tracebacks and Manim's own log.")
@click.pass_context
def cli(ctx: click.Context, verbose: bool) -> None:
    """Render the positional-encoding lesson: every number on screen comes from pe_math."""
    ctx.obj = {"verbose": verbose}


for command in (
    scenes_cmd.list_scenes,
    render_cmd.render,
    watch_cmd.watch,
    speech_cmd.script,
    speech_cmd.motion,
    scenes_cmd.numbers,
    speech_cmd.say,
    speech_cmd.listen,
    speech_cmd.voices_cmd,
    publish_cmd.preview,
    publish_cmd.slides,
    publish_cmd.check,
    publish_cmd.package,
    publish_cmd.clean,
    new_cmd.new,
):
    cli.add_command(command)


def main() -> None:
    # A stop from a service manager or `kill` ends the run like Ctrl-C: workers stop,
    # finished outputs stay, unfinished ones leave the previous files untouched.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    # a closed terminal too, unless the command was started to outlive it (nohup)
    if signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:
        signal.signal(signal.SIGHUP, signal.default_int_handler)
    try:
        cli()
    except SystemExit as exc:
        end(exc.code)
    end(0)


def end(code: int | str | None) -> None:
    """Exit once the command is done, without tearing down every module one by one (a
    third of a second with Manim and SciPy loaded): the exit handlers still run, and the
    files are all closed. Where a thread still runs, Python's own exit waits for it."""
    if not isinstance(code, int):
        if code is not None:
            print(code, file=sys.stderr)
        code = 0 if code is None else 1
    if threading.active_count() > 1:
        child.stop()  # the warm worker server ends with the command
        sys.exit(code)
    # with no thread left to use them, the command's locks and queues let go while their
    # tracker still runs: else it unlinks them as leaked, and their finalizers print a
    # traceback as the process exits
    multiprocessing.util._run_finalizers(0)
    child.stop()
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    main()
