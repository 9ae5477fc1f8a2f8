"""After a job: check the returned file, move it into place, write its subtitles, record it."""

from __future__ import annotations

import json
import os
from pathlib import Path

from lesson.catalogue import LANGS
from rendering.core.files import publish_mode
from rendering.core.jobs import Job
from rendering.core.manifest import Beat, ClipEntry, Manifest, VoiceCard, video_facts
from rendering.core.validate import check_image, check_video
from rendering.draw import clip_key, encoders, segments
from rendering.draw.scene import RenderResult
from rendering.speech import captions


def install(job: Job, result: RenderResult, root: Path) -> Path:
    """Move a validated output into place, write its subtitles, record it in the manifest."""
    folder = job.out_dir(root)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / job.filename
    publish_mode(Path(result.file))
    os.replace(result.file, target)
    poster = None
    if result.poster:
        poster = folder / f"{job.info.stem}.png"
        publish_mode(Path(result.poster))
        os.replace(result.poster, poster)
    subtitle_files = {}
    duration = round(result.duration, 3)  # as recorded: a cached clip's refresh reads it back
    if job.format.moving:
        spoken = {job.lang: result.speech} if result.speech else None
        subtitle_files = captions.write_sidecars(
            folder, job.info.stem, job.slug, result.beats, duration, spoken, job.params
        )
    narration = job.narration if result.speech else None
    recorded = {}
    animations = result.animations
    if result.segments:
        recorded = {"base": segments.base(job), "beats": result.segments}
        segments.prune(segments.store_for(job, root), result.segments)
    previous = Manifest.load(folder).entry(job.slug, job.variant)
    if animations is None:  # drawn in part: the last whole render's timings still hold
        animations = previous.animations if previous else []
    knobs = result.knobs
    if knobs is None:  # not known from this render: the last one's, else every field
        knobs = list(previous.params) if previous else None
    entry = ClipEntry(
        slug=job.slug,
        order=job.info.order,
        title=job.info.title(job.lang),
        titles={lang: job.info.title(lang) for lang in LANGS},
        key=clip_key.key(job, knobs),
        key_parts=clip_key.key_parts(job, knobs),
        sources=clip_key.sources(job),
        params=job.params.as_dict(knobs),
        format=job.fmt,
        transparent=job.transparent,
        burn_captions=job.burn_captions,
        **video_facts(target, result, result.fps, poster.name if poster else None),
        beats=[Beat(k, t) for k, t in result.beats],
        captions=subtitle_files,
        voice=narration.voice if narration else "silent",
        voice_cards=[VoiceCard(**c) for c in json.loads(narration.cards)] if narration else [],
        recorded_beats=narration.recorded if narration else [],
        speech=result.speech or {},
        sound=result.sound,
        animations=animations or [],
        parts=result.parts,
        segments=recorded,
        screen=result.screen,
        palette=dict(job.palette),
        look=recorded_look(job.look, folder),
    )
    with Manifest.update(folder) as manifest:
        manifest.data.update({"lang": job.lang, "quality": job.quality, "aspect": job.aspect})
        manifest.record(job.slug, job.variant, entry)
    return target


def recorded_look(look, folder: Path) -> dict[str, str]:
    """A job's look as its clip's record keeps it: the logo's path from the clip's folder,
    so the record names no folder of this machine."""
    kept = dict(look)
    if "logo" in kept:
        kept["logo"] = os.path.relpath(kept["logo"], folder)
    return kept


def refresh_sidecars(job: Job, root: Path) -> None:
    """Rewrite a cached clip's subtitles: the other language's words may have changed."""
    folder = job.out_dir(root)
    entry = Manifest.load(folder).entry(job.slug, job.variant)
    if entry is None or not job.format.moving:
        return
    spoken = {job.lang: entry.speech} if entry.speech else None
    captions.write_sidecars(
        folder, job.info.stem, job.slug, entry.beats, entry.duration, spoken, job.params
    )


def check_output(job: Job, path: Path):
    """Decode a returned file end to end against what the job asked for."""
    geo = encoders.output_geometry(job)
    if not job.format.moving:
        return check_image(path, geo.width, geo.height)
    return check_video(path, geo.width, geo.height, encoders.checked_rate(job))
