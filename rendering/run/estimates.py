"""How long each job's clip will be and what its animations cost, from earlier renders."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rendering.core import settings
from rendering.core.files import loads
from rendering.core.jobs import Job
from rendering.core.manifest import NAME as MANIFEST
from rendering.core.manifest import Manifest


def expected_seconds(
    jobs: list[Job], roots: list[Path], others: Sequence[Path] = ()
) -> list[float | None]:
    """Each job's expected clip length: its last render's, else the same scene's in another
    output folder under the roots or `others` (another quality, aspect, language or course
    set), else the sum of its narration (a lower bound); None when unknown."""
    manifests: dict[Path, Manifest] = {}
    known: list[float | None] = []
    for job, root in zip(jobs, roots, strict=True):
        folder = job.out_dir(root)
        manifest = manifests.setdefault(folder, Manifest.load(folder))
        entry = manifest.entry(job.slug, job.variant)
        known.append(entry.duration if entry else None)
    by_slug: dict[str, float] = {}
    if any(seconds is None for seconds in known):
        for root in set(roots) | set(others):  # read only: a broken one is not this run's
            for path in sorted(root.glob(f"*/*/{MANIFEST}")):
                for slug, seconds in _durations(path).items():
                    by_slug[slug] = max(seconds, by_slug.get(slug, 0.0))
    out: list[float | None] = []
    for job, seconds in zip(jobs, known, strict=True):
        if seconds is None:
            seconds = by_slug.get(job.slug)
        if seconds is None and job.narration is not None:
            seconds = sum(job.narration.seconds().values()) or None
        out.append(seconds)
    return out


def previous_timings(
    jobs: list[Job], roots: list[Path], others: Sequence[Path] = ()
) -> list[list[list[float]] | None]:
    """Each job's per-animation timings from its output's last render; else from the same
    clip in another root of this run (a course's other parameter set: same frame, language
    and scene, so about the same costs), read without touching that manifest."""
    manifests: dict[Path, Manifest] = {}
    out = []
    for job, root in zip(jobs, roots, strict=True):
        folder = job.out_dir(root)
        entry = manifests.setdefault(folder, Manifest.load(folder)).entry(job.slug, job.variant)
        timings = entry.animations if entry and entry.animations else None
        for other in sorted((set(roots) | set(others)) - {root}):
            if timings:
                break
            timings = _timings(job.out_dir(other) / MANIFEST, job.slug, job.variant)
        out.append(timings)
    return out


def _timings(path: Path, slug: str, variant: str) -> list[list[float]] | None:
    try:
        clips = loads(path.read_text(encoding="utf-8")).get("clips", {})
        return clips[slug][variant]["animations"] or None
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def _durations(path: Path) -> dict[str, float]:
    """slug -> the longest clip a manifest file records, without touching the file."""
    try:
        clips = loads(path.read_text(encoding="utf-8")).get("clips", {})
        return {
            slug: max(float(v["duration"]) for v in variants.values())
            for slug, variants in clips.items()
            if variants
        }
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}


def pixel_rate(job: Job) -> float:
    """Pixels per second of a job's frames, relative to 1080p60 (what a render costs per second)."""
    geo = settings.geometry(job.quality, job.aspect)
    return geo.width * geo.height * geo.fps / (1920 * 1080 * 60)
