"""Regenerate docs/stills/: each scene's frame at the end of a telling beat, in 16:9,
and in Chinese 9:16 and 1:1 frames for a few scenes (README shows them).

    .venv/bin/python scripts/stills.py            # every mission scene
    .venv/bin/python scripts/stills.py clock-hands
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lesson import registry  # noqa: E402
from rendering.core import settings  # noqa: E402
from rendering.core.manifest import Manifest  # noqa: E402
from rendering.publish.preview import frames_at, moments  # noqa: E402

STILLS = ROOT / "docs" / "stills"
# The beat whose end each still shows (default: the last one before the takeaway and bridge).
BEAT = {
    "attention-shuffle": "swap_tokens",
    "integer-scale": "sliver",
    "binary-bits": "rhythm",
    "relative-shift": "check",
    "similarity": "rows",
    "pe-heatmap": "curves",
    "long-context": "yarn",
}
# The scenes shown in the other frame shapes.
OTHER_SHAPES = {
    "9:16": ("clock-hands", "attention-shuffle", "recap"),
    "1:1": ("rope-rotation", "integer-scale", "pe-heatmap"),
}


def still(slug: str, aspect: str, lang: str, work: Path) -> Path:
    info = registry.get(slug)
    subprocess.run(
        [sys.executable, "render.py", "preview", slug, "--aspect", aspect, "--lang", lang]
        + ["--voice", "none", "--output", str(work)],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    folder = work / "preview" / lang / settings.folder_name("l", aspect)
    entry = Manifest.load(folder).entry(slug, "mp4")
    ends = dict(moments([tuple(b) for b in entry.beats], entry.duration))
    beat = BEAT.get(slug) or [k for k, _ in entry.beats if k not in ("takeaway", "bridge")][-1]
    (frame,) = frames_at(folder / entry.file, [ends[beat]])
    suffix = "" if aspect == "16:9" else "." + aspect.replace(":", "x")
    out = STILLS / f"{info.stem}{suffix}.png"
    frame.save(out)
    return out


def main(slugs: list[str]) -> None:
    chosen = [registry.get(s) for s in slugs] if slugs else list(registry.MISSION)
    with tempfile.TemporaryDirectory(prefix="pe-stills-") as tmp:
        for info in chosen:
            print(still(info.slug, "16:9", "en", Path(tmp)))
            for aspect, slugs in OTHER_SHAPES.items():
                if info.slug in slugs:
                    print(still(info.slug, aspect, "zh", Path(tmp)))


if __name__ == "__main__":
    main(sys.argv[1:])
