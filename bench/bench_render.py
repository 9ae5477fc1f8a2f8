"""The render driver against plain sequential `manim` renders, measured side by side in one run.

    python bench/bench_render.py [--quality l|m|h|k] [--jobs N] [--scenes a,b,...] [--voice auto]

Prints wall times and ratios for: plain sequential manim CLI renders; `render.py render
--jobs N` of the same scenes, and how that compares with the length of the video it made
(its animations stretched to the voice); an unchanged re-run; a one-knob change (base); and the
x264 presets at the chosen quality. Peak memory is the largest child process's RSS.
"""

from __future__ import annotations

import argparse
import json
import os
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
from rendering.core import settings  # noqa: E402


def timed(cmd: list[str], **kwargs) -> float:
    start = time.perf_counter()
    subprocess.run(
        cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kwargs
    )
    return time.perf_counter() - start


def peak_child_mb() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main() -> None:
    args = _parse_args()
    chosen = [registry.get(s) for s in args.scenes.split(",") if s] or list(registry.MISSION)
    slugs = [i.slug for i in chosen]
    py = sys.executable
    work = Path(tempfile.mkdtemp(prefix="pe-bench-"))
    try:
        plain = sum(plain_manim(i, args.quality, work / "plain") for i in chosen)
        plain_mem = peak_child_mb()

        out = work / "driver"
        driver = [
            py,
            "render.py",
            "render",
            *slugs,
            "-q",
            args.quality,
            "--jobs",
            str(args.jobs),
            "--voice",
            args.voice,
            "--output",
            str(out),
        ]
        full = timed(driver)
        video = sum(_durations(out, args.quality).values())
        rerun = timed(driver)
        before = _keys(out, args.quality)
        knob = timed([*driver, "--set", "base=500"])
        after = _keys(out, args.quality)
        changed = sorted(s for s in after if after[s] != before.get(s))
        readers = sorted(i.slug for i in chosen if "base" in i.fields)

        print(
            f"scenes: {', '.join(slugs)}   quality: {args.quality}   jobs: {args.jobs}   "
            f"voice: {args.voice}"
        )
        print(f"{'plain sequential manim':<34}{plain:>9.1f}s")
        print(
            f"{'render.py --jobs ' + str(args.jobs):<34}{full:>9.1f}s   {full / plain:.2f}x of plain"
        )
        print(
            f"{'real time':<34}{video:>9.1f}s of video   the render took "
            f"{full / video:.2f}x real time"
        )
        print(f"{'unchanged re-run':<34}{rerun:>9.1f}s   {rerun / plain:.3f}x of plain")
        print(
            f"{'one knob (base=500)':<34}{knob:>9.1f}s   re-rendered: {', '.join(changed) or 'none'}"
        )
        print(f"{'':<34}{'':>10}   scenes reading base: {', '.join(readers) or 'none'}")
        print(
            f"peak RSS of one process: plain manim {plain_mem:.0f} MB; overall (incl. workers) "
            f"{peak_child_mb():.0f} MB"
        )
        _encoders(py, chosen[0], args.quality, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--quality", default="l", choices=list(settings.QUALITIES), help="Manim quality preset"
    )
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="driver worker processes")
    ap.add_argument(
        "--scenes", default="", help="comma-separated slugs (default: the six mission scenes)"
    )
    ap.add_argument("--voice", default="auto", help="render.py --voice the driver speaks with")
    return ap.parse_args()


def plain_manim(info, quality: str, media: Path) -> float:
    """Seconds for plain `manim render` of one scene, into `media`."""
    module_file = ROOT / (info.module.replace(".", "/") + ".py")
    return timed(
        [
            sys.executable,
            "-m",
            "manim",
            "render",
            f"-q{quality}",
            "--disable_caching",
            "--media_dir",
            str(media),
            str(module_file),
            info.class_name,
        ]
    )


def _clips(out: Path, quality: str) -> dict:
    folder = out / "en" / settings.folder_name(quality, "16:9")
    return json.loads((folder / "manifest.json").read_text())["clips"]


def _keys(out: Path, quality: str) -> dict[str, str]:
    return {slug: v["mp4"]["key"] for slug, v in _clips(out, quality).items()}


def _durations(out: Path, quality: str) -> dict[str, float]:
    return {slug: v["mp4"]["duration"] for slug, v in _clips(out, quality).items()}


def _encoders(py: str, info, quality: str, work: Path) -> None:
    """x264 presets on one scene: encode time and file size."""
    print(f"\nx264 presets on {info.slug} at -q{quality}:")
    code = (
        "import sys, time, json; from pathlib import Path; from pe_math import Params;"
        "from rendering.core import settings; from rendering.draw import scene; from rendering.core.jobs import Job;"
        "settings.X264_PRESETS[sys.argv[2]] = sys.argv[1];"
        "d = Path(sys.argv[3]); d.mkdir(parents=True);"
        "t = time.perf_counter(); r = scene.render(Job(sys.argv[4], Params(), quality=sys.argv[2]), d);"
        "print(json.dumps([time.perf_counter() - t, Path(r.file).stat().st_size]))"
    )
    for preset in ("ultrafast", "veryfast", "faster", "medium"):
        res = subprocess.run(
            [py, "-c", code, preset, quality, str(work / f"enc-{preset}"), info.slug],
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        )
        seconds, size = json.loads(res.stdout.strip().splitlines()[-1])
        print(f"  {preset:<10}{seconds:>8.1f}s{size / 1024:>10.0f} KB")


if __name__ == "__main__":
    main()
