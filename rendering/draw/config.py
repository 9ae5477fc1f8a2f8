"""Manim's settings for one job: frame, rate, format, encoder and the span to draw."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rendering.core import formats, settings
from rendering.core.jobs import Job
from rendering.draw import encoders

Span = tuple[int, int]  # the first and last animation (play or wait) number to draw


def composed_for(job: Job) -> bool:
    """Whether the scene lays itself out for this aspect's shape (else it keeps 16:9's)."""
    return settings.SHAPES[job.aspect] in job.info.load().SHAPES


def manim_config(job: Job, media_dir: Path, span: Span | None = None) -> dict[str, Any]:
    """Manim's settings for `job`; with `span`, only those animations are drawn."""
    geo = settings.geometry(job.quality, job.aspect, composed_for(job))
    cfg: dict[str, Any] = {
        "media_dir": str(media_dir),
        **geo.manim_frame(),
        "frame_rate": geo.fps,
        "format": job.format.manim_format(job.transparent),
        "transparent": job.transparent,
        "output_file": job.info.stem,
        "disable_caching": True,  # a fresh media_dir per job: Manim's cache could never hit
        "progress_bar": "none",
        "verbosity": "ERROR",
        "write_to_movie": job.format.moving,
        "save_last_frame": not job.format.moving,
    }
    if job.format.video_codec == formats.MP4.video_codec and not job.transparent:
        cfg["video_encoder_options"] = {"preset": settings.X264_PRESETS[job.quality], "crf": "23"}
    if span is not None:
        cfg["from_animation_number"], cfg["upto_animation_number"] = span
    return encoders.adjust_config(job, cfg)
