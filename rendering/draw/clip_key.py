"""A clip's cache key: the scene's code and words, the code that writes the clip's bytes,
the knobs its last build read, the output settings, Manim, the machine and the speech.

The renderer is this package, whose modules draw, encode and join a clip: the render
driver's messages, plans and reports, captions or pages never re-render a clip.
"""

from __future__ import annotations

import hashlib
import json
import pkgutil
from collections.abc import Sequence

from lesson import brand, registry
from rendering.core import keys, settings
from rendering.core.jobs import Job


def renderer_modules() -> tuple[str, ...]:
    """Every module of this package (each is hashed with what it imports)."""
    package = __name__.rpartition(".")[0]
    folder = keys.ROOT.joinpath(*package.split("."))
    names = sorted(m.name for m in pkgutil.iter_modules([str(folder)]) if not m.ispkg)
    return tuple(f"{package}.{name}" for name in names)


def sources(job: Job) -> dict[str, dict[str, str]]:
    """The digest of every file behind the scene code and behind the renderer."""
    info = job.info
    # only this language's words shape the clip; the other's subtitles are rewritten cheaply
    data = registry.frame_files(info.slug, job.lang)
    return {
        "code": keys.sources(info.module, extra_files=data),
        "renderer": keys.sources(*renderer_modules()),
    }


def key_parts(job: Job, knobs: Sequence[str] | None = None) -> dict[str, str]:
    """The key's parts, its params those of `knobs`: the fields the last build of the
    clip read (every field when None). A build whose knobs all read as before reads
    the same fields again, so no list of fields a scene uses is kept by hand."""
    found = sources(job)
    job_settings = json.dumps(
        [
            job.lang,
            job.quality,
            job.fmt,
            job.aspect,
            job.transparent,
            job.burn_captions,
            settings.X264_PRESETS[job.quality],
            *([list(job.palette)] if job.palette else []),  # the default theme's keys stay
            *([drawn] if (drawn := _look_drawn(job)) else []),
        ]
    )
    return {
        "code": keys.hash_of(found["code"]),
        "renderer": keys.hash_of(found["renderer"]),
        "params": job.params.digest(knobs),
        "settings": hashlib.sha256(job_settings.encode()).hexdigest()[:16],
        "manim": keys.manim_version(),
        "machine": keys.machine(),
        "speech": job.narration.digest() if job.narration else "silent",
    }


def _look_drawn(job: Job) -> list[list[str]]:
    """The parts of the job's look its clip draws (lesson.brand.drawn_by): the logo by
    its digest, wherever its file is; a font with the file its name finds."""
    return [
        [field, f"{value} {keys.font_identity(value)}" if field == "font" else value]
        for field, value in brand.drawn_by(job.slug, job.look)
        if field != "logo"
    ]


def key(job: Job, knobs: Sequence[str] | None = None) -> str:
    blob = json.dumps(key_parts(job, knobs), sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]
