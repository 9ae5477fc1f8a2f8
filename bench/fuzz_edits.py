"""Random edits, each rendered on top of the last render and clean: the two must match.

    python bench/fuzz_edits.py [--seed 44] [--edits 200] [--per-step 1] [--scene tiny-static]
                               [--quality t] [--from N] [--keep]

Runs bench/edit_fuzz.py in a fresh folder (removed after, unless --keep), in a copy of
the project's code made there, whose pe_math it edits too: a first render of the tests'
tiny scene, a scene plugin written outside the project and, with --scene, one chapter of
the lesson or another scene of the tests (tiny-static is the quickest), its words edited
in a copy; then `--edits` random edits of every kind a teacher makes. Each edit is
rendered incrementally and then clean into a fresh folder; frames, sound samples,
subtitles and the manifest's beats and spans must be the same. Both renders draw at
`--quality` (t, 144p10, unless told): they are compared with each other, so the smallest
frame checks as much as a large one. Prints a line per edit with the tally so far
(checked and held, by scene and by kind of edit), the one-line reproduction of any that
failed, and the whole tally at the end. Exits 1 when any failed. `--from N` makes the
edits before N without rendering, then renders and checks from there: a fast replay of
a failure that does not depend on the renders before it.
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import edit_fuzz  # noqa: E402
from rendering.core import settings  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=44)
    parser.add_argument("--edits", type=int, default=200, help="renders of edits to check")
    parser.add_argument("--per-step", type=int, default=1, help="edits made before each render")
    parser.add_argument(
        "--scene", default=None, help="a lesson chapter (or tiny-static) to edit as well"
    )
    parser.add_argument(
        "--quality", choices=list(settings.QUALITIES), default="t", help="the frame both draw"
    )
    parser.add_argument(
        "--from", dest="start", type=int, default=1, help="make the edits before it unrendered"
    )
    parser.add_argument("--keep", action="store_true", help="keep the folder of copies")
    parser.add_argument("--home", type=Path, help=argparse.SUPPRESS)  # the copy's own run
    args = parser.parse_args()
    if args.home is None:
        return in_a_copy(args.keep)
    return fuzz(args, args.home)


def in_a_copy(keep: bool) -> int:
    """Run this script again in a copy of the project's code, in a fresh folder."""
    home = Path(tempfile.mkdtemp(prefix="pe-fuzz-"))
    try:
        project = edit_fuzz.copy_project(home)
        script = project / "bench" / "fuzz_edits.py"
        command = [sys.executable, "-u", str(script), *sys.argv[1:], "--home", str(home)]
        code = subprocess.call(command, cwd=project)
        if code < 0:
            print(f"the fuzzer's process was stopped by signal {-code}", file=sys.stderr)
        return 1 if code < 0 else code
    finally:
        if keep:
            print(f"the copies are kept in {home}")
        else:
            shutil.rmtree(home, ignore_errors=True)


def fuzz(args: argparse.Namespace, home: Path) -> int:
    world = edit_fuzz.World(home.resolve(), extra=args.scene, quality=args.quality)
    if world.project != ROOT:
        print(f"error: --home is for the copy in {world.project}; run without it", file=sys.stderr)
        return 2
    edit_fuzz.enter(world.environment(), world.plugins, os.environ.__setitem__)
    os.environ.setdefault("PE_TEXT_CACHE", str(home / "text"))
    world.create()
    from lesson import registry

    importlib.import_module("tests.plugin_scenes")
    importlib.import_module(edit_fuzz.PLUGIN)
    slugs = [edit_fuzz.TINY, "fuzz-card", *([args.scene] if args.scene else [])]
    registry.get(slugs[-1])  # an unknown --scene stops here, in one line
    outcome = edit_fuzz.run(world, args.seed, args.edits, slugs, args.per_step, start=args.start)
    print(f"{outcome.checked} edits checked, {outcome.held} held, {len(outcome.failures)} differed")
    print(outcome.tally())
    print(f"kinds of edit made: {', '.join(sorted(set(outcome.kinds)))}")
    for line in outcome.failures:
        print(line)
    return 1 if outcome.failures else 0


if __name__ == "__main__":
    sys.exit(main())
