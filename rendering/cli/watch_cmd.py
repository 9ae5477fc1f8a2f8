"""`watch`: re-render the scenes as their words, recordings, knobs or code are saved."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import click

from lesson import catalogue
from pe_math.params import DEFAULT_TOML, LOCAL_TOML
from rendering.cli.options import (
    Fail,
    JobOptions,
    aspect_option,
    into_job_options,
    lang_option,
    output_option,
    param_options,
    quality_option,
    resolve_slugs,
    voice_options,
)
from rendering.core import formats, keys, settings
from rendering.core.jobs import Job
from rendering.core.manifest import Manifest
from rendering.run import child
from rendering.speech import voices
from rendering.watch.changes import Watcher, snapshot, syntax_error
from rendering.watch.server import LivePage
from rendering.watch.voice_host import Host

POLL = 0.3  # seconds between looks at the files
SETTLE = 0.2  # an editor may save in steps: wait this long for the last one
STEP = 0.2  # seconds watch waits on a render before it looks whether it was asked to stop
STOPS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)  # Ctrl-C, `kill`, a closed terminal


def watched_places(slugs: list[str], opts: JobOptions) -> list[Path]:
    """The scene code, the knobs, the words (every catalogue folder) and the recordings."""
    from lesson import registry

    code = {keys.ROOT / name for name in ("scenes", "lesson", "pe_math")}
    for slug in slugs:
        code.update(keys.module_closure(registry.get(slug).module))
    # without --config: ./lesson.toml, which may appear while watching, else the default
    configs = [Path(opts.config)] if opts.config else [LOCAL_TOML.resolve(), DEFAULT_TOML]
    return sorted({*code, *configs, *catalogue.roots(), opts.voice_dir / opts.lang})


def render_command(slugs: list[str], opts: JobOptions) -> list[str]:
    """The render that brings the watched clips up to date (what is unchanged is kept)."""
    door = keys.ROOT / "render.py"  # the checkout's; an installed package runs as a module
    cmd = [sys.executable, *([str(door)] if door.is_file() else ["-m", "rendering.cli"])]
    cmd += ["render", *slugs, "-q", opts.quality]
    cmd += ["--lang", opts.lang, "--aspect", opts.aspect, "--voice", opts.voice]
    cmd += ["--voice-dir", str(opts.voice_dir), "--output", str(opts.output)]
    for assignment in opts.sets:
        cmd += ["--set", assignment]
    if opts.config:
        cmd += ["--config", str(opts.config)]
    if opts.seed is not None:
        cmd += ["--seed", str(opts.seed)]
    return cmd


def first_problem(output: str) -> str:
    """The first `error:` line a failed render printed, without its prefix."""
    for line in output.splitlines():
        if line.startswith("error:"):
            return line.removeprefix("error:").strip()
    lines = [line for line in output.splitlines() if line.strip()]
    return lines[-1].strip() if lines else "the render failed"


class Loop:
    """Render, tell the page, wait for a save; again until Ctrl-C."""

    def __init__(
        self, slugs: list[str], opts: JobOptions, page: LivePage, voice: Host | None = None
    ) -> None:
        self.slugs, self.opts, self.page = slugs, opts, page
        self.voice_env = voice.env() if voice else {}  # where its renders find the voice
        self.process: subprocess.Popen | None = None
        self.folder = opts.output / opts.lang / settings.folder_name(opts.quality, opts.aspect)
        self.asked_to_stop = False
        self.holding = False  # inside `stops_held`: a stop is only noted till the block ends

    def take_stops(self) -> None:
        """From now on a stop signal stops watch where it lands, except inside `stops_held`:
        there it is noted, and acted on once the block is done.

        A signal the kernel hands to another thread (as it does while the main one blocks
        signals to start a process) runs its handler only when the main thread next runs
        Python: so no wait of watch on its render is longer than STEP.
        """
        for signum in STOPS:
            if signal.getsignal(signum) is not signal.SIG_IGN:  # as under nohup: stays ignored
                signal.signal(signum, self._note_stop)

    def _note_stop(self, signum, frame) -> None:
        if signum == signal.SIGHUP:  # the terminal closed: write nothing more to it
            devnull = os.open(os.devnull, os.O_WRONLY)
            for fd in (1, 2):
                if os.isatty(fd):
                    os.dup2(devnull, fd)
            os.close(devnull)
        self.asked_to_stop = True
        if not self.holding:  # a blocking call elsewhere is interrupted, not resumed
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def stops_held(self):
        """A block a stop must not cut in half: starting a render (watch would not hold the
        process to end it), or handing the page a message under its locks (a lock left held
        would keep watch from ever ending). A stop inside is acted on when the block ends."""
        self.holding = True
        try:
            yield
        finally:
            self.holding = False
        if self.asked_to_stop:
            raise KeyboardInterrupt

    def tell(self, message: dict) -> None:
        with self.stops_held():
            self.page.tell(message)

    def entries(self) -> dict[str, dict]:
        manifest = Manifest.load(self.folder)
        found = {slug: manifest.entry(slug, formats.MAIN) for slug in self.slugs}
        return {slug: entry.to_dict() for slug, entry in found.items() if entry is not None}

    def render(self, why: str) -> None:
        before = self.entries()
        self.tell({"type": "rendering", "text": f"rendering: {why}"})
        click.echo(f"rendering: {why}")
        started = time.monotonic()
        with self.stops_held():
            self.process = subprocess.Popen(
                render_command(self.slugs, self.opts),
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                start_new_session=True,  # Ctrl-C reaches it through us, once, as SIGTERM
                env={**os.environ, "COLUMNS": "200", child.AT_ONCE: "1", **self.voice_env},
            )
        output = self.output_of_render()
        code, self.process = self.process.returncode, None
        seconds = time.monotonic() - started
        if code != 0:
            return self.refuse(first_problem(output))
        new = {s: e for s, e in self.entries().items() if before.get(s, {}).get("key") != e["key"]}
        if not new:  # an edit undone, or one no clip reads: the page must leave "rendering"
            text = f"up to date: no clip changed ({seconds:.1f} s)"
            click.echo(text)
            self.tell({"type": "unchanged", "text": text})
        for slug, entry in new.items():
            beat, at = changed_beat(before.get(slug), entry)
            where = f" from beat {beat!r}" if beat else ""
            text = f"{slug}: new clip{where} ({seconds:.1f} s)"
            click.echo(text)
            self.tell(
                {
                    "type": "clip",
                    "slug": slug,
                    "src": f"media/{self.relative(entry['file'])}?v={entry['key']}",
                    "at": at,
                    "beat": beat,
                    "text": text,
                }
            )

    def output_of_render(self) -> str:
        """What the render printed, once it ended (a stop signal ends it sooner)."""
        while True:
            try:
                return self.process.communicate(timeout=STEP)[0]
            except subprocess.TimeoutExpired:
                continue  # nothing it printed is lost: communicate goes on where it was

    def refuse(self, problem: str) -> None:
        """Tell the terminal and the page why there is no new clip."""
        click.echo(f"error: {problem} (the last good clips are kept)", err=True)
        self.tell({"type": "error", "message": problem})

    def relative(self, name: str) -> str:
        return (self.folder / name).resolve().relative_to(self.opts.output.resolve()).as_posix()

    def stop(self) -> None:
        """End a running render and every process it started."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def changed_beat(before: dict | None, after: dict) -> tuple[str, float]:
    """The first beat whose kept frames or speech changed, and where it starts in the clip."""
    starts = dict(after.get("beats", []))
    old = {b["beat"]: b["key"] for b in (before or {}).get("segments", {}).get("beats", [])}
    for record in after.get("segments", {}).get("beats", []):
        if old.get(record["beat"]) != record["key"]:
            return record["beat"], float(starts.get(record["beat"], 0.0))
    spoke, speaks = (before or {}).get("speech", {}), after.get("speech", {})
    for beat, start in after.get("beats", []):  # the frames are kept, the sound is new
        if spoke.get(beat) != speaks.get(beat):
            return beat, float(start)
    return "", 0.0


@click.command()
@click.argument("slugs", nargs=-1, required=True)
@quality_option("Manim preset while watching: l=480p15 (the quick look), m=720p30, h, k.")
@lang_option("Language of the words.")
@aspect_option
@output_option("Root folder for outputs: <output>/<lang>/<quality>/.")
@param_options
@voice_options
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8765,
    show_default=True,
    help="Port of the live page on 127.0.0.1 (0 picks a free one).",
)
@into_job_options
def watch(slugs: tuple[str, ...], opts: JobOptions, port: int) -> None:
    """Re-render SLUGS each time their words, recordings, knobs or code are saved.

    Open the page it names: each new clip plays from the beat that changed. A bad edit
    is reported there and here in one line, and the last good clip stays. Ctrl-C stops
    it, and any render it started.
    """
    chosen = resolve_slugs(slugs, False)
    opts.params()  # a bad --set or --config stops here, not in every render
    opts.voices()
    broken = syntax_error(snapshot(keys.ROOT / name for name in keys.PROJECT_PACKAGES))
    if broken is not None:
        raise Fail(code_problem(broken, "fix it, then start watch again"))
    folder = settings.folder_name(opts.quality, opts.aspect)
    clips = {s: f"{opts.lang}/{folder}/{Job(s, None, lang=opts.lang).filename}" for s in chosen}
    try:
        page = LivePage(opts.output, clips, port)
    except OSError as exc:
        raise Fail(
            f"cannot serve the live page on port {port} ({exc.strerror}); "
            "pass --port with another number (0 picks a free one)"
        ) from None
    voice = loaded_voice()
    loop = Loop(chosen, opts, page, voice)
    watcher = Watcher(watched_places(chosen, opts))
    loop.take_stops()
    page.start()
    click.echo(f"watching {', '.join(chosen)}: open {page.url} (Ctrl-C stops)")
    try:
        if voice is not None:
            voice.start()
        loop.render("the first look")
        if voice is not None:
            warm_up(voice, opts)
        while True:
            time.sleep(POLL)
            changed = watcher.changed()
            if not changed:
                continue
            time.sleep(SETTLE)
            changed += watcher.changed()
            broken = syntax_error(watcher.seen)
            if broken is not None:
                loop.refuse(code_problem(broken, "fix it and save"))
                continue
            names = sorted({_shown(p) for p in changed})
            loop.render(
                ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
            )
    except KeyboardInterrupt:
        loop.stop()
        raise
    finally:
        page.stop()
        if voice is not None:
            voice.stop()


def loaded_voice() -> Host | None:
    """The voice watch keeps loaded for its renders; None where no socket can be made
    (each render then speaks for itself)."""
    try:
        return Host()
    except OSError:
        return None


def warm_up(voice: Host, opts: JobOptions) -> None:
    """Load the voice the renders speak with (none for --voice none)."""
    with contextlib.suppress(voices.VoiceError):
        voice.warm_up(voices.spec_for(opts.voice, opts.lang, opts.voices()), opts.lang)


def code_problem(error: SyntaxError, fix: str) -> str:
    """A file that does not compile, as one line: which, where, what, and the fix."""
    where = f"line {error.lineno}: " if error.lineno else ""
    return f"{_shown(Path(error.filename))} is not valid Python ({where}{error.msg}); {fix}"


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(keys.ROOT))
    except ValueError:
        return path.name
