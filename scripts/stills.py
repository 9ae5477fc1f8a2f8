"""Regenerate docs/stills/ from the chapters: each chapter's frame at the end of a telling
beat, in 16:9 English and in the Chinese shapes its chapter.toml asks for (`[still]`),
with stills.json (what each shows, for the test that finds a stale one) and the README's
gallery.

    .venv/bin/python scripts/stills.py            # every chapter
    .venv/bin/python scripts/stills.py clock-hands
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lesson import contents, registry  # noqa: E402
from rendering.core import settings  # noqa: E402
from rendering.core.files import atomic_write_text  # noqa: E402
from rendering.core.manifest import Manifest  # noqa: E402
from rendering.publish.preview import frames_at, moments  # noqa: E402

STILLS = ROOT / "docs" / "stills"
RECORD = STILLS / "stills.json"
README = ROOT / "README.md"


def draw(still: contents.Still, work: Path) -> None:
    """Render the chapter's preview in the still's frame and save the frame it names."""
    subprocess.run(
        [sys.executable, "render.py", "preview", still.slug, "--aspect", still.aspect]
        + ["--lang", still.lang, "--voice", "none", "--output", str(work)],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    folder = work / "preview" / still.lang / settings.folder_name("l", still.aspect)
    entry = Manifest.load(folder).entry(still.slug, "mp4")
    ends = dict(moments([tuple(b) for b in entry.beats], entry.duration))
    beat = still.beat or [k for k, _ in entry.beats if k not in ("takeaway", "bridge")][-1]
    (frame,) = frames_at(folder / entry.file, [ends[beat]])
    frame.save(STILLS / still.file)


def main(slugs: list[str]) -> None:
    chosen = {registry.get(s).slug for s in slugs}
    wanted = contents.stills()
    record = json.loads(RECORD.read_text("utf-8")) if RECORD.is_file() else {}
    with tempfile.TemporaryDirectory(prefix="pe-stills-") as tmp:
        for still in wanted:
            if not chosen or still.slug in chosen:
                draw(still, Path(tmp))
                record[still.file] = contents.fingerprint(still)
                atomic_write_text(RECORD, json.dumps(record, indent=1, sort_keys=True) + "\n")
                print(STILLS / still.file)
    names = {s.file for s in wanted}
    for old in STILLS.glob("*.png"):
        if old.name not in names:  # a chapter or a shape no longer asked for
            old.unlink()
    record = {name: digest for name, digest in record.items() if name in names}
    atomic_write_text(RECORD, json.dumps(record, indent=1, sort_keys=True) + "\n")
    shown = [s for s in wanted if (STILLS / s.file).is_file()]
    README.write_text(contents.with_gallery(README.read_text("utf-8"), shown), "utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
