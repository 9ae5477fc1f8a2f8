"""Embed formats: what Manim is asked for per format, and the GIF made for slides.

- mp4: H.264 from Manim, with the x264 preset of the quality.
- webm: VP9 from Manim in constant-quality mode, with a faster encoder speed than
  libvpx's default; `--transparent` keeps the alpha plane (yuva420p).
- gif: Manim's own GIF path maps its palette output to rgb8, a fixed 3-3-2 colour
  cube, which dithers every frame and makes files about a hundred times larger
  than needed. So the worker has Manim write an H.264 clip (a qtrle .mov when
  transparent) and turns it into a GIF here: fewer frames per second, a width
  capped for slides, one palette for the clip, and only changed rectangles
  re-dithered between frames.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import av

from rendering.core import formats, settings

GIF_FPS = 10  # enough for slides; motion stays readable
GIF_MAX_WIDTH = 640  # pixels; a slide shows a GIF at a fraction of the screen
GIF_COLORS = 128  # the lesson's flat palette needs few colours
# libvpx-vp9: constant quality (b=0), row threads, a mid speed (libvpx's default is slowest)
WEBM_OPTIONS = {"crf": "32", "b": "0", "deadline": "good", "cpu-used": "4", "row-mt": "1"}


@dataclass(frozen=True)
class Output:
    width: int
    height: int
    fps: int


def output_geometry(job) -> Output:
    """Pixel size and rate of the file a job delivers (a GIF is smaller and slower)."""
    geo = settings.geometry(job.quality, job.aspect)
    if not job.format.for_slides:
        return Output(geo.width, geo.height, geo.fps)
    width = min(geo.width, GIF_MAX_WIDTH)
    height = round(geo.height * width / geo.width / 2) * 2
    return Output(width, height, min(geo.fps, GIF_FPS))


def checked_rate(job) -> int | None:
    """The frame rate a delivered file is held to (None: a slide format keeps its own)."""
    return None if job.format.for_slides else output_geometry(job).fps


def adjust_config(job, cfg: dict[str, Any]) -> dict[str, Any]:
    """Manim settings per format, on top of the worker's geometry and paths."""
    codec = job.format.video_codec
    if job.format.converted:
        # Manim writes a clean intermediate; finish() converts it
        if not job.transparent:
            cfg["video_encoder_options"] = {"preset": "veryfast", "crf": "18"}
    elif codec == formats.WEBM.video_codec:
        cfg["video_encoder_options"] = dict(WEBM_OPTIONS)
    return cfg


def finish(job, produced: Path, final: Path) -> Path:
    """Put the delivered file at `final` (converting Manim's intermediate for a GIF)."""
    if job.format.converted:
        out = output_geometry(job)
        to_gif(produced, final, out.fps, out.width, out.height, job.transparent)
        produced.unlink(missing_ok=True)
    else:
        produced.replace(final)
    return final


def to_gif(
    src: Path,
    dst: Path,
    fps: int,
    width: int,
    height: int,
    transparent: bool = False,
    colors: int = GIF_COLORS,
) -> int:
    """Convert a video to a looping GIF with one palette (palettegen/paletteuse); returns frames."""
    with av.open(str(src)) as inp, av.open(str(dst), "w", format="gif") as out:
        source = inp.streams.video[0]
        stream = out.add_stream("gif", rate=fps)
        stream.width, stream.height, stream.pix_fmt = width, height, "pal8"
        graph = av.filter.Graph()
        buffer = graph.add_buffer(template=source)
        steps = [
            graph.add("fps", f"fps={fps}"),
            graph.add("scale", f"{width}:{height}:flags=lanczos"),
            graph.add("split"),
        ]
        reserve = 1 if transparent else 0
        palettegen = graph.add(
            "palettegen", f"max_colors={colors}:stats_mode=diff:reserve_transparent={reserve}"
        )
        # bayer dithering is ordered, so a still area stays identical from frame to frame
        paletteuse = graph.add(
            "paletteuse", "dither=bayer:bayer_scale=5:diff_mode=rectangle:alpha_threshold=128"
        )
        sink = graph.add("buffersink")
        buffer.link_to(steps[0])
        steps[0].link_to(steps[1])
        steps[1].link_to(steps[2])
        steps[2].link_to(palettegen, 0, 0)
        steps[2].link_to(paletteuse, 1, 0)
        palettegen.link_to(paletteuse, 0, 1)
        paletteuse.link_to(sink)
        graph.configure()
        for frame in inp.decode(source):
            graph.push(frame)
        graph.push(None)
        count = 0
        while True:
            try:
                frame = graph.pull()
            except (av.error.EOFError, av.error.BlockingIOError):
                break
            frame.pts, frame.time_base = count, Fraction(1, fps)
            count += 1
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
    return count
