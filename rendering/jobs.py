"""Render jobs, their cache keys and the plan (what is rendered, what is reused, and why)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import scenes
from pe_math import Params
from rendering import keys, settings
from rendering.manifest import Manifest
from rendering.narration import Narration
from scenes.catalogue import path_for

# The pipeline code that shapes a clip's pixels and encoding (not its captions or gallery).
RENDERER_FILES = tuple(
    Path(__file__).resolve().parent / name
    for name in ("worker.py", "encoders.py", "settings.py", "audio.py")
)


@dataclass(frozen=True)
class Job:
    slug: str
    params: Params
    lang: str = "en"
    quality: str = "l"
    fmt: str = "mp4"
    aspect: str = "16:9"
    transparent: bool = False
    burn_captions: bool = False
    narration: Narration | None = None  # the speech of every beat; None renders silent

    @property
    def info(self) -> scenes.SceneInfo:
        return scenes.get(self.slug)

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
        """e.g. `05-clock-hands.mp4`, `05-clock-hands.alpha.webm`."""
        middle = self.variant.removeprefix(self.fmt)
        return f"{self.info.stem}{middle}.{self.fmt}"

    def out_dir(self, root: Path) -> Path:
        return root / self.lang / settings.folder_name(self.quality, self.aspect)

    def key_parts(self) -> dict[str, str]:
        info = self.info
        # only this language's words shape the clip; the other's subtitles are rewritten cheaply
        catalogues = (path_for(self.lang, info.slug),)
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
            "code": keys.code_hash(info.module, catalogues),
            "renderer": keys.files_hash(RENDERER_FILES),
            "params": self.params.digest(info.fields_for(self.lang)),
            "settings": hashlib.sha256(job_settings.encode()).hexdigest()[:16],
            "manim": keys.manim_version(),
            "speech": self.narration.digest() if self.narration else "silent",
        }

    def key(self) -> str:
        blob = json.dumps(self.key_parts(), sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


def by_folder(jobs: list[Job], root: Path) -> dict[Path, list[Job]]:
    """Jobs grouped by the output folder they write into, in order."""
    folders: dict[Path, list[Job]] = {}
    for job in jobs:
        folders.setdefault(job.out_dir(root), []).append(job)
    return folders


@dataclass(frozen=True)
class Planned:
    job: Job
    cached: bool
    reason: str


PART_NAMES = {
    "code": "scene code changed",
    "renderer": "render pipeline changed",
    "params": "parameters it reads changed",
    "settings": "render settings changed",
    "manim": "Manim version changed",
    "speech": "narration changed",
}


def plan(jobs: list[Job], root: Path, force: bool = False) -> list[Planned]:
    """Decide for each job whether its existing output is up to date."""
    out: list[Planned] = []
    manifests: dict[Path, Manifest] = {}
    for job in jobs:
        folder = job.out_dir(root)
        manifest = manifests.setdefault(folder, Manifest.load(folder))
        entry = manifest.entry(job.slug, job.variant)
        parts = job.key_parts()
        if force:
            out.append(Planned(job, False, "--force"))
        elif entry is None:
            out.append(Planned(job, False, "never rendered"))
        elif not (folder / entry.file).exists():
            out.append(Planned(job, False, "output file missing"))
        elif parts["speech"] == "pending":
            out.append(Planned(job, False, "narration not synthesised yet"))
        elif entry.key != job.key():
            changed = [PART_NAMES[k] for k, v in parts.items() if entry.key_parts.get(k) != v]
            out.append(Planned(job, False, ", ".join(changed) or "key changed"))
        else:
            out.append(Planned(job, True, "up to date"))
    return out
