"""A render job: what to draw, in which language, quality and frame, and its cache key."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lesson import registry
from pe_math import Params
from rendering.core import formats, keys, settings

if TYPE_CHECKING:
    from rendering.speech.narration import Narration

# The code that writes a clip's bytes (drawing a scene or a span, encoding, voicing, joining
# spans) is the draw package as the render driver reaches it. The renderer key is traced
# from those modules, not from the driver, so its messages, plans and reports, captions
# or pages never re-render a clip.
RENDER_DRIVER = "rendering.run.scheduler"
DRAWING = "rendering.draw"


def renderer_modules() -> tuple[str, ...]:
    """The modules of the draw package that the render driver imports, directly or not."""
    names = (keys.project_module(path) for path in keys.module_closure(RENDER_DRIVER))
    return tuple(name for name in names if name.startswith(f"{DRAWING}."))


@dataclass(frozen=True)
class Job:
    slug: str
    params: Params
    lang: str = "en"
    quality: str = "l"
    fmt: str = formats.MAIN
    aspect: str = "16:9"
    transparent: bool = False
    burn_captions: bool = False
    narration: Narration | None = None  # the speech of every beat; None renders silent

    @property
    def info(self) -> registry.SceneInfo:
        return registry.get(self.slug)

    @property
    def format(self) -> formats.Format:
        return formats.get(self.fmt)

    @property
    def variant(self) -> str:
        """The manifest slot of this output: format plus the options that change the pixels."""
        return (
            self.fmt
            + (".alpha" if self.transparent else "")
            + (".captioned" if self.burn_captions else "")
        )

    @property
    def filename(self) -> str:
        """e.g. `clock-hands.mp4`, `clock-hands.alpha.webm`."""
        middle = self.variant.removeprefix(self.fmt)
        return f"{self.info.stem}{middle}.{self.fmt}"

    def out_dir(self, root: Path) -> Path:
        return root / self.lang / settings.folder_name(self.quality, self.aspect)

    def sources(self) -> dict[str, dict[str, str]]:
        """The digest of every file behind the scene code and behind the renderer."""
        info = self.info
        # only this language's words shape the clip; the other's subtitles are rewritten cheaply
        data = registry.frame_files(info.slug, self.lang)
        return {
            "code": keys.sources(info.module, extra_files=data),
            "renderer": keys.sources(*renderer_modules()),
        }

    def key_parts(self, knobs: Sequence[str] | None = None) -> dict[str, str]:
        """The key's parts, its params those of `knobs`: the fields the last build of the
        clip read (every field when None). A build whose knobs all read as before reads
        the same fields again, so no list of fields a scene uses is kept by hand."""
        sources = self.sources()
        job_settings = json.dumps(
            [
                self.lang,
                self.quality,
                self.fmt,
                self.aspect,
                self.transparent,
                self.burn_captions,
                settings.X264_PRESETS[self.quality],
            ]
        )
        return {
            "code": keys.hash_of(sources["code"]),
            "renderer": keys.hash_of(sources["renderer"]),
            "params": self.params.digest(knobs),
            "settings": hashlib.sha256(job_settings.encode()).hexdigest()[:16],
            "manim": keys.manim_version(),
            "machine": keys.machine(),
            "speech": self.narration.digest() if self.narration else "silent",
        }

    def key(self, knobs: Sequence[str] | None = None) -> str:
        blob = json.dumps(self.key_parts(knobs), sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


def by_folder(jobs: list[Job], root: Path) -> dict[Path, list[Job]]:
    """Jobs grouped by the output folder they write into, in order."""
    folders: dict[Path, list[Job]] = {}
    for job in jobs:
        folders.setdefault(job.out_dir(root), []).append(job)
    return folders
