"""Narration cost, measured side by side in one run.

    python bench/bench_voice.py [--quality l|m|h|k] [--lang en|zh] [--scenes a,b,...]
    python bench/bench_voice.py --lines [--lang en|zh] [--voice NAME [--speed X]]

Prints: the time to synthesise the whole lesson's speech from an empty cache (the
language's default engine), a full narrated `render --all --lesson` at the same
quality into a fresh folder, TTS as a share of that render (goal: under 15%), a
cached, unchanged re-run of the same command (goal: under 2 s), and the time of
`listen --all` on the rendered clips with the recogniser's error per clip.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lesson import registry  # noqa: E402
from rendering.speech import audio, listen, narration, voices  # noqa: E402

LINE_LIMIT = 0.15  # the goal: no line of the lesson heard worse than this


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def listened(cmd: list[str]) -> tuple[float, dict[str, tuple[float, float | None, int]]]:
    """`listen`'s wall time and, per clip, its error, its error with tones (zh) and beat
    count (exit 1 = flags: fine)."""
    start = time.perf_counter()
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if run.returncode not in (0, 1):
        raise SystemExit(f"listen failed: {run.stderr.strip()}")
    found = re.findall(
        r"^(\S+): ([\d.]+)% of \w+ wrong(?: \(([\d.]+)% with tones\))? over (\d+) beats",
        run.stdout,
        re.M,
    )
    return wall, {
        slug: (float(pct) / 100, float(toned) / 100 if toned else None, int(n))
        for slug, pct, toned, n in found
    }


def heard_lines(lang: str, slugs: list[str], specs: dict, out: Path) -> None:
    """TTS time from an empty cache on every core, then every line transcribed."""
    cache, none = out / ".speech", out / "no-recordings"
    pending = [narration.narrate(s, lang, "auto", specs, none, cache, False) for s in slugs]
    start, cpu = time.perf_counter(), _cpu_seconds()
    narration.synthesise_pending([n for n in pending if n], "auto", specs, cache)
    tts, tts_cpu = time.perf_counter() - start, _cpu_seconds() - cpu
    spec = specs[lang]
    print(f"lines ({lang}, {spec.engine} {spec.voice} speed {spec.speed:g})", flush=True)
    kinds = (False, True) if lang == "zh" else (False,)
    totals = {tones: [0, 0] for tones in kinds}  # edits, units
    seconds, above = 0.0, []
    for slug in slugs:
        speech = narration.narrate(slug, lang, "auto", specs, none, cache)
        if speech is None:
            continue
        seconds += sum(speech.seconds().values())
        lines = narration.beat_lines(slug, lang)
        scene = {tones: [0, 0] for tones in kinds}
        for beat in speech.beats:
            samples = narration.line_samples(beat.pieces)
            heard = listen.transcribe(samples, audio.RATE, lang, threads=os.cpu_count() or 1)
            said = narration.spoken(lines[beat.key], lang)
            for tones in kinds:
                ref = listen.units(said, lang, tones)
                edits = listen.edit_distance(ref, listen.heard_units(heard.text, ref, lang, tones))
                scene[tones][0] += edits
                scene[tones][1] += len(ref)
            error = listen.error_rate(said, heard.text, lang)
            if error > LINE_LIMIT:
                above.append((slug, beat.key, error, lines[beat.key], heard.text))
        for tones in kinds:
            totals[tones][0] += scene[tones][0]
            totals[tones][1] += scene[tones][1]
        print(f"  {slug:<20} {_shares(scene)}", flush=True)
    unit = "syllables" if lang == "zh" else "words"
    print(f"  {'whole lesson':<20} {_shares(totals)}  ({unit} wrong over the lesson)")
    cores = os.cpu_count()
    print(
        f"  speech: {seconds:.1f} s; TTS from an empty cache on {cores} cores: {tts:.1f} s "
        f"({tts_cpu:.1f} s of CPU)"
    )
    print(f"  lines above {LINE_LIMIT:.0%}: {len(above)}")
    for slug, key, error, line, heard in above:
        print(f"    {slug} {key} {error:.1%}\n      said:  {line}\n      heard: {heard}")


def _cpu_seconds() -> float:
    """CPU time of this process and the workers it has waited for."""
    own, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _shares(counts: dict[bool, list[int]]) -> str:
    shares = [f"{edits / max(1, n):6.1%}" for edits, n in counts.values()]
    return shares[0] + (f"  {shares[1]} with tones" if len(shares) > 1 else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quality", default="l", choices=["l", "m", "h", "k"])
    parser.add_argument("--lang", default="en", choices=["en", "zh"])
    parser.add_argument("--scenes", default="", help="comma-separated slugs (default: the lesson)")
    parser.add_argument("--lines", action="store_true", help="hear every line; draw nothing")
    parser.add_argument("--voice", help="with --lines: another voice of the language's engine")
    parser.add_argument("--speed", type=float, help="with --lines: the voice's speed")
    args = parser.parse_args()
    specs = voices.load_specs()
    if args.voice or args.speed:
        own = specs[args.lang]
        specs[args.lang] = dataclasses.replace(
            own, voice=args.voice or own.voice, speed=args.speed or own.speed
        )
    try:
        chosen = [registry.get(s) for s in args.scenes.split(",") if s] or registry.ordered()
    except registry.UnknownScene as exc:
        sys.exit(f"error: {exc}")
    slugs = [i.slug for i in chosen]
    out = Path(tempfile.mkdtemp(prefix="pe-bench-voice-"))
    if args.lines:
        try:
            heard_lines(args.lang, slugs, specs, out)
        finally:
            shutil.rmtree(out, ignore_errors=True)
        return
    try:
        start = time.perf_counter()
        seconds = 0.0
        for slug in slugs:
            n = narration.narrate(
                slug, args.lang, "auto", specs, out / "no-recordings", out / ".speech"
            )
            seconds += sum(n.seconds().values()) if n else 0.0
        tts = time.perf_counter() - start
        shutil.rmtree(out / ".speech")  # the render synthesises again, as a first run would

        which = slugs if args.scenes else ["--all"]
        lesson = [] if args.scenes else ["--lesson"]
        cmd = [sys.executable, "render.py", "render", *which, *lesson, "-q", args.quality]
        cmd += ["--lang", args.lang, "--output", str(out)]
        full = timed(cmd)
        again = timed(cmd)
        listen_cmd = [sys.executable, "render.py", "listen", *which, "--lang", args.lang]
        listening, errors = listened(listen_cmd + ["-q", args.quality, "--output", str(out)])
    finally:
        shutil.rmtree(out, ignore_errors=True)
    voice = specs[args.lang]
    print(f"narration ({args.lang}, {voice.engine} {voice.voice}, quality {args.quality})")
    print(f"  speech in the lesson:          {seconds:7.1f} s")
    print(f"  TTS from an empty cache:       {tts:7.1f} s  ({seconds / tts:.0f}x real time)")
    print(f"  full narrated render --lesson: {full:7.1f} s")
    print(f"  TTS share of the full render:  {tts / full:7.1%}  (goal < 15%)")
    print(f"  cached, unchanged re-run:      {again:7.2f} s  (goal < 2 s)")
    print(
        f"  listen --all:                  {listening:7.1f} s  ({seconds / listening:.1f}x real time)"
    )
    unit = "syllables" if args.lang == "zh" else "words"
    print(f"  recogniser's error per clip ({unit} wrong):")
    for slug, (error, toned, beats) in errors.items():
        tones = f"  {toned:6.1%} with tones" if toned is not None else ""
        print(f"    {slug:<20} {error:6.1%}{tones}  over {beats} beats")
    beats = max(1, sum(n for *_, n in errors.values()))
    total = sum(e * n for e, _, n in errors.values()) / beats
    toned = sum((t or 0.0) * n for _, t, n in errors.values()) / beats
    tones = f"  {toned:6.1%} with tones" if args.lang == "zh" else ""
    print(f"    {'whole lesson':<20} {total:6.1%}{tones}  (mean over beats)")


if __name__ == "__main__":
    main()
