"""The editing loop: a whole clip against re-rendering it after one beat changed, side by side.

    python bench/bench_beats.py [--quality m] [--scene clock-hands] [--beat tick]
                                [--reword SLUG] [--voice auto] [--jobs N] [--speech DIR]

Prints wall times and ratios for one scene: its first render (speech made, nothing kept),
the whole clip drawn again (--force, split over the workers as a normal render is), then
the same clip after one beat is re-recorded (a recording of that beat, read by
espeak-ng, dropped into the voice folder), and after one narration line of a second scene (by default the longest)
is reworded in a course's own copy of its catalogue (PE_CAPTIONS). Each re-render is
compared with its own scene's whole render. Ratios, not seconds, are what to compare.

Last, `render.py watch` runs on the first scene at 480p15 in a folder of its own: after
its first look, one line is reworded and saved, and the row gives the seconds from the
save to the watch announcing the new clip (the page is told in the same moment). The
renders and the watch share one speech cache: --speech names one to start from (a test
run's), else it starts empty.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lesson import (  # noqa: E402
    catalogue,
    registry,  # noqa: E402
    say,
)
from rendering.core import settings  # noqa: E402
from rendering.speech import narration  # noqa: E402


def timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    start = time.perf_counter()
    run = subprocess.run(
        cmd, cwd=ROOT, capture_output=True, text=True, env={**os.environ, **(env or {})}
    )
    if run.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[1:4])} failed:\n{run.stderr[-1500:]}")
    return time.perf_counter() - start, run.stdout


def drew(output: str) -> str:
    found = re.search(r"drew (\d+) of (\d+) beats", output)
    said = f"drew {found.group(1)} of {found.group(2)} beats" if found else "drew every beat"
    return f" of the whole clip; {said}"


def row(what: str, seconds: float, note: str) -> None:
    print(f"{what:<44}{seconds:>8.1f}s   {note}")


def longest(lang: str) -> str:
    """The lesson scene with the most narration (words in en, characters in zh)."""

    def spoken(slug: str) -> int:
        text = " ".join(say.lines(slug, lang).values())
        return len(text.split()) if lang == "en" else len(text)

    return max((info.slug for info in registry.MISSION), key=spoken)


def record(voice_dir: Path, slug: str, beat: str, lang: str) -> None:
    """A stand-in for a teacher's recording of `beat`: espeak-ng reading its line."""
    target = voice_dir / lang / slug / f"{beat}.wav"
    target.parent.mkdir(parents=True, exist_ok=True)
    voice = "en-us" if lang == "en" else "cmn"
    line = say.line(lang, slug, beat)
    subprocess.run(["espeak-ng", "-v", voice, "-w", str(target), line], check=True)


def course_copy(words: Path, lang: str, slug: str) -> Path:
    """Where a course's own copy of a scene's words is read from (PE_CAPTIONS)."""
    return words / lang / f"{slug}.toml"


def reword(words: Path, slug: str, lang: str, added: str = " That is all.") -> str:
    """Append a short sentence to the last plain line of `slug` in a course's copy."""
    source = catalogue.path_for(lang, slug)
    copy = course_copy(words, lang, slug)
    copy.parent.mkdir(parents=True, exist_ok=True)
    text = source.read_text(encoding="utf-8")
    say = tomllib.loads(text)["say"]
    beat = [k for k, v in say.items() if isinstance(v, str) and "{" not in v][-1]
    old = f"{beat} = {json.dumps(say[beat], ensure_ascii=False)}"
    new = f"{beat} = {json.dumps(say[beat] + added, ensure_ascii=False)}"
    if old not in text:
        raise SystemExit(f"cannot find the line of beat {beat!r} in {source.name} to reword")
    copy.write_text(text.replace(old, new), encoding="utf-8")
    return beat


def watched(cmd: list[str], env: dict[str, str], edits) -> list[float]:
    """Seconds from each of `edits` (after the watch's first clip, then after each new
    clip) to the watch's next new clip."""
    watch = subprocess.Popen(
        cmd,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, **env},
        start_new_session=True,
    )
    stop = threading.Timer(600, lambda: os.killpg(watch.pid, signal.SIGKILL))
    stop.start()
    said: list[str] = []

    def wait_for(text: str) -> None:
        for line in watch.stdout:
            said.append(line)
            if text in line:
                return
        raise SystemExit(f"watch ended before {text!r}:\n{''.join(said)[-1500:]}")

    try:
        wait_for("new clip")  # its first look
        seconds = []
        for edit in edits:
            time.sleep(2.0)  # as a person looks before saving again; the voice loads meanwhile
            started = time.perf_counter()
            edit()
            wait_for("new clip from beat")
            seconds.append(time.perf_counter() - started)
        return seconds
    finally:
        stop.cancel()
        os.killpg(watch.pid, signal.SIGTERM)
        watch.communicate(timeout=60)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quality", default="m", choices=list(settings.QUALITIES), help="quality")
    ap.add_argument("--scene", default="clock-hands", help="the scene whose beat is re-recorded")
    ap.add_argument("--beat", default="", help="the beat re-recorded (default: its third)")
    ap.add_argument(
        "--reword", default="", help="the scene whose line is reworded (default: the longest)"
    )
    ap.add_argument("--lang", default="en", choices=list(catalogue.LANGS), help="language")
    ap.add_argument("--voice", default="auto", help="render.py --voice for the engine's speech")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="driver worker processes")
    ap.add_argument("--speech", default="", help="speech cache folder (default: a new one)")
    args = ap.parse_args()
    registry.get(args.scene)  # an unknown slug stops here, in one line
    beats = list(catalogue.catalogue(args.lang, args.scene)["say"])
    beat = args.beat or beats[len(beats) // 3]
    work = Path(tempfile.mkdtemp(prefix="pe-bench-beats-"))
    out, voice_dir, words = work / "out", work / "voice", work / "words"
    words.mkdir()
    env = {catalogue.OVERRIDE: str(words)}
    speech = Path(args.speech).resolve() if args.speech else work / "speech"
    speech.mkdir(parents=True, exist_ok=True)
    for output in (out, work / "watched"):  # the watch's first look speaks what the renders did
        output.mkdir()
        (output / narration.CACHE).symlink_to(speech, target_is_directory=True)

    def render(*slugs: str, extra: tuple[str, ...] = ()) -> tuple[float, str]:
        cmd = [sys.executable, "render.py", "render", *slugs, "-q", args.quality]
        cmd += ["--lang", args.lang, "--voice", args.voice, "--voice-dir", str(voice_dir)]
        cmd += ["--jobs", str(args.jobs), "--output", str(out), *extra]
        return timed(cmd, env)

    try:
        first, _ = render(args.scene)
        whole, _ = render(args.scene, extra=("--force",))
        record(voice_dir, args.scene, beat, args.lang)
        recorded, said = render(args.scene)

        other = args.reword or longest(args.lang)
        other_whole = whole
        if other != args.scene:
            render(other)
            other_whole, _ = render(other, extra=("--force",))
        line = reword(words, other, args.lang)
        reworded, said_too = render(other)
        reword(words, other, args.lang, " That is all, for now.")  # the teacher's second try
        again, said_again = render(other)

        # the watch reads the course's copy of the first scene's words from its start
        copy = course_copy(words, args.lang, args.scene)
        if not copy.exists():
            shutil.copyfile(catalogue.path_for(args.lang, args.scene), copy)
        cmd = [sys.executable, "render.py", "watch", args.scene, "-q", "l", "--port", "0"]
        cmd += ["--lang", args.lang, "--voice", args.voice, "--voice-dir", str(voice_dir)]
        cmd += ["--output", str(work / "watched")]
        edited: list[str] = []
        saves = [
            lambda added=added: edited.append(reword(words, args.scene, args.lang, added))
            for added in (" Look again.", " Look once more.")
        ]
        saved = watched(cmd, env, saves)

        print(f"quality: {args.quality}   jobs: {args.jobs}   lang: {args.lang}")
        row("first render (speech made)", first, args.scene)
        row("whole clip again (--force)", whole, args.scene)
        row(f"one beat re-recorded ({beat})", recorded, f"{recorded / whole:.2f}x{drew(said)}")
        row("whole clip again (--force)", other_whole, other)
        ratio = reworded / other_whole
        row(f"one line reworded ({line})", reworded, f"{ratio:.2f}x{drew(said_too)}")
        row("the same line reworded again", again, f"{again / other_whole:.2f}x{drew(said_again)}")
        for nth, seconds in zip(("first", "second"), saved, strict=True):
            row(f"watch: line {edited[0]} saved, new clip ({nth})", seconds, "at 480p15")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
