"""Still runs of every chapter, measured on its rendered frames, in both languages.

    python bench/still_runs.py [--scenes a,b,...] [--langs en,zh] [--voice estimate|auto|...]
                               [--speech DIR] [--quality l|m|h|k] [--fps N] [--most S]

Each chapter is drawn (silent) at the quality's pixel size and frame rate (or --fps),
its beats timed and paced as a narrated render would time them: by a slow voice's
estimate from the words (`--voice estimate`, the default: nothing is synthesised), or by
the speech a voice makes (`--voice auto` or an engine; cached in --speech, by default a
fresh folder). A frame is still when no pixel changes by more than 8 grey levels over
0.2 s. Prints a table (chapter, language, still share, longest run, the beats it falls
in) and exits 1 when a run lasts over 6 s (or --most).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lesson import registry  # noqa: E402
from pe_math import Params  # noqa: E402
from rendering.core.jobs import Job  # noqa: E402
from rendering.draw.motion import MOST_STILL  # noqa: E402
from rendering.run import pixel_stills  # noqa: E402
from rendering.speech import narration, voices  # noqa: E402
from rendering.speech.estimate import estimated_speech  # noqa: E402

ESTIMATE = "estimate"


def timing(slug: str, lang: str, voice: str, speech_dir: Path) -> tuple[dict, dict]:
    """Beat -> seconds and beat -> sentence spans: estimated, or of the voice's speech."""
    if voice == ESTIMATE:
        return estimated_speech(slug, lang, Params())
    said = narration.narrate(
        slug, lang, voice, voices.load_specs(), speech_dir / "no-recordings", speech_dir
    )
    return (said.seconds(), said.sentence_times()) if said else ({}, {})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--scenes", default="", help="comma-separated slugs (default: every chapter)"
    )
    parser.add_argument("--langs", default="en,zh")
    parser.add_argument("--voice", default=ESTIMATE, help="estimate, auto or an engine name")
    parser.add_argument("--speech", type=Path, help="folder caching the voice's speech")
    parser.add_argument("--most", type=float, default=MOST_STILL, help="seconds a run may last")
    parser.add_argument("--quality", default="l", choices=["l", "m", "h", "k"])
    parser.add_argument(
        "--fps",
        type=int,
        help=f"frames a second (default: the quality's; {pixel_stills.QUICK_FPS} is quicker)",
    )
    args = parser.parse_args()
    try:
        chosen = [registry.get(s) for s in args.scenes.split(",") if s] or list(registry.MISSION)
    except registry.UnknownScene as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    langs = [lang for lang in args.langs.split(",") if lang]
    if not langs or set(langs) - {"en", "zh"}:
        print(f"error: --langs {args.langs!r}: give en, zh or en,zh", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="pe-bench-stills-"))
    speech_dir = args.speech or work / ".speech"
    rows, worst = [], 0.0
    try:
        for info in chosen:
            for lang in langs:
                begun = time.perf_counter()
                speech, sentences = timing(info.slug, lang, args.voice, speech_dir)
                job = Job(info.slug, Params(), lang, quality=args.quality)
                drawn_in = work / f"{info.slug}-{lang}"
                found = pixel_stills.measure(job, drawn_in, speech, sentences, args.fps)
                shutil.rmtree(drawn_in, ignore_errors=True)  # only the table is kept
                longest = found.longest
                seconds = longest.seconds if longest else 0.0
                worst = max(worst, seconds)
                beats = " > ".join(longest.beats) if longest else ""
                where = f"{longest.start:.1f} s, {beats or 'title'}" if longest else "-"
                rows.append(
                    (
                        info.slug,
                        lang,
                        found.still_share,
                        seconds,
                        where,
                        found.seconds,
                        time.perf_counter() - begun,
                    )
                )
                print(
                    f"{info.slug:<18} {lang}  {found.still_share:5.0%}  {seconds:5.1f} s"
                    f"  {where}  ({found.seconds:.0f} s clip, measured in "
                    f"{rows[-1][-1]:.0f} s)",
                    flush=True,
                )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print()
    print(
        f"still runs on rendered frames ({args.voice} timing, -q {args.quality}, {args.fps or 'its'} fps)"
    )
    print("| chapter | lang | still share | longest run | starts at, in beats | clip |")
    print("|---|---|---|---|---|---|")
    for slug, lang, share, seconds, where, length, _ in rows:
        mark = f" (over {args.most:g} s)" if seconds > args.most else ""
        print(
            f"| {slug} | {lang} | {share:.0%} | {seconds:.1f} s{mark} | {where} | {length:.0f} s |"
        )
    print(f"longest still run: {worst:.1f} s (the lesson aims for {args.most:g} s at most)")
    return 1 if worst > args.most else 0


if __name__ == "__main__":
    sys.exit(main())
