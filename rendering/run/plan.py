"""The plan: for each job, whether its output is reused or rendered, and why."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rendering.core import keys
from rendering.core.jobs import Job
from rendering.core.manifest import ClipEntry, Manifest
from rendering.draw import clip_key, segments


@dataclass(frozen=True)
class Planned:
    job: Job
    cached: bool
    reason: str
    beats: segments.BeatPlan | None = None  # the beats kept from before (segments.py)


PART_NAMES = {
    "code": "scene code changed",
    "renderer": "render pipeline changed",
    "params": "parameters it reads changed",
    "settings": "render settings changed",
    "manim": "Manim version changed",
    "machine": "font or video libraries changed",
    "speech": "narration changed",
}


def _why(job: Job, entry: ClipEntry, part: str) -> str:
    """What changed in one key part, naming the files when the manifest knows them."""
    before = entry.sources.get(part)
    if part not in ("code", "renderer") or not before:
        return PART_NAMES[part]
    files = keys.changed(before, clip_key.sources(job)[part])
    shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
    return f"{PART_NAMES[part]} ({shown})" if files else PART_NAMES[part]


def plan(jobs: list[Job], root: Path, force: bool = False) -> list[Planned]:
    """Decide for each job whether its existing output is up to date."""
    out: list[Planned] = []
    manifests: dict[Path, Manifest] = {}
    for job in jobs:
        folder = job.out_dir(root)
        manifest = manifests.setdefault(folder, Manifest.load(folder))
        entry = manifest.entry(job.slug, job.variant)
        # the knobs its last build read: their values now decide whether it is up to date
        knobs = list(entry.params) if entry is not None else None
        parts = clip_key.key_parts(job, knobs)
        if force:
            out.append(Planned(job, False, "--force"))
        elif entry is None:
            out.append(Planned(job, False, "never rendered"))
        elif not (folder / entry.file).exists():
            out.append(Planned(job, False, "output file missing"))
        elif not entry.intact(folder):
            out.append(Planned(job, False, "output file damaged"))
        elif parts["speech"] == "pending" or entry.key != clip_key.key(job, knobs):
            changed = [_why(job, entry, k) for k, v in parts.items() if entry.key_parts.get(k) != v]
            reason = ", ".join(changed) or "key changed"
            if parts["speech"] == "pending":
                reason = "narration not synthesised yet"
            beats = segments.plan_beats(job, entry.segments, segments.store_for(job, root))
            if beats is None or (parts["speech"] == "pending" and not beats.reuse):
                out.append(Planned(job, False, reason))
            else:
                out.append(Planned(job, False, beats.explain(), beats if beats.reuse else None))
        else:
            out.append(Planned(job, True, "up to date"))
    return out
