"""The render farm against plain sequential `manim`, side by side in one run.

    python bench/bench_farm.py [--quality l|m|h|k] [--scenes a,b,...] [--workers N]

Renders the same scenes (default: the whole lesson, at -qh) three ways, silent so every
way draws the same frames:

1. plain sequential `manim render` of each scene (per-scene times are printed too);
2. `render.py render --jobs N` (a local process per job), twice into one folder: the
   first run has no timings to go by, the second splits the scenes that would hold up
   its end into spans of animations, sized from the first run's timings;
3. `render.py render --scheduler ...` on a `distributed.LocalCluster` of N worker
   processes with one thread each, started before the clock runs, with the first run's
   timings too.

Then the scheduling overhead on that cluster: the round trip of an empty Dask task, and
for one short scene, the driver's wall time on the cluster minus a local `--jobs 1`
run (connecting, sending the task, returning the clip's bytes and decoding them again).
Not part of the test suite: at -qh the whole lesson takes tens of minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import logging
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_render import plain_manim, timed  # noqa: E402
from lesson import registry  # noqa: E402
from rendering.core import settings  # noqa: E402


def driver(slugs: list[str], quality: str, out: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "render.py",
        "render",
        *slugs,
        "-q",
        quality,
        "--voice",
        "none",
        "--force",
        "--output",
        str(out),
        *extra,
    ]


def _noop() -> int:
    return 0


def split_counts(out: Path) -> dict[str, int]:
    """slug -> the parts its clip was drawn in, from the run's manifest."""
    counts: dict[str, int] = {}
    for path in out.glob("*/*/manifest.json"):
        for slug, variants in json.loads(path.read_text()).get("clips", {}).items():
            counts[slug] = max(v.get("parts", 1) for v in variants.values())
    return counts


def main() -> None:
    args = _parse_args()
    try:
        chosen = [registry.get(s) for s in args.scenes.split(",") if s] or registry.ordered()
    except registry.UnknownScene as exc:
        sys.exit(f"error: {exc}")
    slugs = [i.slug for i in chosen]
    q, n = args.quality, args.workers
    work = Path(tempfile.mkdtemp(prefix="pe-bench-farm-"))
    try:
        per_scene = {i.slug: plain_manim(i, q, work / "plain") for i in chosen}
        plain = sum(per_scene.values())
        cold = timed(driver(slugs, q, work / "local", "--jobs", str(n)))
        shutil.copytree(work / "local", work / "farm")  # the timings for the cluster's run
        local = timed(driver(slugs, q, work / "local", "--jobs", str(n)))
        parts = split_counts(work / "local")

        startup, farm, trips, shortest, one_farm = _on_cluster(slugs, q, n, work, per_scene)
        one_local = timed(driver([shortest], q, work / "one-local", "--jobs", "1"))

        print(f"scenes ({len(slugs)}): {', '.join(slugs)}")
        print(f"quality: -q{q} ({settings.folder_name(q, '16:9')}), silent, workers: {n}")
        print(f"\n{'way':<44}{'wall':>9}   of plain")
        print(f"{'plain sequential manim':<44}{plain:>8.1f}s   1.00x")
        for label, seconds in (
            (f"render.py --jobs {n}, first run (no timings)", cold),
            (f"render.py --jobs {n}, again (split by timings)", local),
            (f"render.py --scheduler (LocalCluster {n}x1 thread)", farm),
        ):
            print(f"{label:<44}{seconds:>8.1f}s   {seconds / plain:.2f}x")
        print(
            f"{'ideal on ' + str(n) + ' cores (plain / ' + str(n) + ')':<44}{plain / n:>8.1f}s   {1 / n:.2f}x"
        )
        longest = max(per_scene, key=per_scene.get)
        print(
            f"{'longest scene alone (' + longest + ')':<44}{per_scene[longest]:>8.1f}s   "
            f"{per_scene[longest] / plain:.2f}x"
        )
        split_ = ", ".join(f"{slug} in {k}" for slug, k in parts.items() if k > 1) or "none"
        print(f"scenes split on the second run: {split_}")
        print("\nscheduling overhead on the cluster:")
        print(f"  LocalCluster start (not in the times above) {startup:>8.1f}s")
        print(
            f"  empty Dask task round trip                  {statistics.median(trips) * 1000:>8.1f} ms "
            f"(median of {len(trips)})"
        )
        print(
            f"  one job ({shortest}): cluster {one_farm:.1f}s vs local --jobs 1 {one_local:.1f}s "
            f"= {one_farm - one_local:+.1f}s per run"
        )
        print(
            f"  whole run: cluster - local = {farm - local:+.1f}s over {len(slugs)} jobs "
            f"= {(farm - local) / len(slugs):+.2f}s per job"
        )
        print(f"\nplain manim per scene at -q{q}:")
        for slug, seconds in per_scene.items():
            print(f"  {slug:<22}{seconds:>8.1f}s")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--quality",
        default="h",
        choices=list(settings.QUALITIES),
        help="Manim quality preset (default h: 1080p60)",
    )
    ap.add_argument(
        "--scenes", default="", help="comma-separated slugs (default: every scene of the lesson)"
    )
    ap.add_argument(
        "--workers",
        type=int,
        default=2,
        help="local --jobs, and the LocalCluster's worker processes (default 2)",
    )
    return ap.parse_args()


def _on_cluster(
    slugs: list[str], q: str, n: int, work: Path, per_scene: dict[str, float]
) -> tuple[float, float, list[float], str, float]:
    """On a LocalCluster of n workers: its start-up time, the whole run's wall time, empty
    tasks' round trips, and the shortest scene alone and its wall time."""
    from distributed import Client, LocalCluster

    started = time.perf_counter()
    with (
        LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        ) as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        startup = time.perf_counter() - started
        address = cluster.scheduler_address
        farm = timed(driver(slugs, q, work / "farm", "--scheduler", address))

        client.submit(_noop, pure=False).result()  # warm
        trips = []
        for _ in range(30):
            t = time.perf_counter()
            client.submit(_noop, pure=False).result()
            trips.append(time.perf_counter() - t)
        shortest = min(per_scene, key=per_scene.get)
        one_farm = timed(driver([shortest], q, work / "one-farm", "--scheduler", address))
    return startup, farm, trips, shortest, one_farm


if __name__ == "__main__":
    main()
