"""Joining the parts of a split scene into one clip, by copying packets, then checking it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import av

from rendering.core.jobs import Job
from rendering.core.validate import InvalidOutput
from rendering.draw import segments
from rendering.draw.packets import join
from rendering.draw.scene import RenderResult, Span, complete, with_kept


def join_parts(
    job: Job,
    parts: list[tuple[Span, RenderResult]],
    folder: Path,
    store: Path | None = None,
    kept: segments.BeatPlan | None = None,
) -> RenderResult:
    """A split job's parts joined (packets copied), then voiced and checked like a whole
    clip. With `kept`, the parts drew only the beats not kept: the pieces of a beat drawn
    by several are joined into `store`, and the clip is made of every beat's segment
    (raises SegmentMismatch or SpeechCutOff when the kept beats no longer fit)."""
    parts = sorted(parts, key=lambda p: p[0][0])
    records = segments.merged([r.segments for _, r in parts if r.segments], store)
    if kept is not None:
        return with_kept(job, records or [], kept, store, folder, parts=len(parts))
    silent = folder / f"{job.info.stem}.joined.mp4"
    try:
        join([Path(result.file) for _, result in parts], silent)
    except av.FFmpegError as exc:
        raise InvalidOutput(f"the parts do not join ({exc})") from None
    beats = [(key, start) for key, start in parts[-1][1].beats]  # the last part saw them all
    # every part was decoded by the worker that drew it (and again here if it came from afar)
    result = complete(job, silent, beats, folder, [(Path(r.file), True) for _, r in parts])
    timings = merged_timings([(span, r.animations or []) for span, r in parts])
    read = [r.knobs for _, r in parts]
    knobs = None if None in read else sorted({k for names in read for k in names})
    return dataclasses.replace(
        result,
        animations=timings,
        parts=len(parts),
        segments=records,
        knobs=knobs,
        screen=parts[-1][1].screen,
    )


def merged_timings(parts: list[tuple[tuple[int, int], list[list[float]]]]) -> list[list[float]]:
    """One job's per-animation timings from its parts: each animation's from the part that drew it."""
    out: list[list[float]] = []
    for (first, last), animations in sorted(parts):
        out.extend(animations[first : last + 1] if last >= 0 else animations[first:])
    return out
