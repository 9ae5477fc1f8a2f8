"""The output formats: one record each, looked up by name.

Code elsewhere asks a record what it needs (does it move, carry sound, keep alpha, play
in a page) and never compares a format's name. Adding a format is one `register` call.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Format:
    name: str  # the --format value and the file's extension
    mime: str  # the type a page serves it under
    moving: bool = True  # False: the last frame, as a still image
    alpha: bool = False  # can keep a transparent background (--transparent)
    playable: bool = False  # a <video> plays it (else a page shows it in an <img>)
    joinable: bool = False  # the lesson's clips join into one file of this format
    segmentable: bool = False  # drawn in spans by different workers, then joined
    for_slides: bool = False  # smaller and slower than the job: its own size and rate
    video_codec: str | None = None  # what encodes its frames when they are encoded again
    audio_codec: str | None = None  # None: it carries no sound
    audio_bitrate: int = 0
    mux_options: dict[str, str] = field(default_factory=dict)  # for the container writer
    # what Manim is asked to write (opaque, transparent); a different one is converted
    manim_writes: tuple[str, str] | None = None

    @property
    def extension(self) -> str:
        return f".{self.name}"

    def manim_format(self, transparent: bool) -> str:
        if self.manim_writes is None:
            return self.name
        return self.manim_writes[transparent]

    @property
    def converted(self) -> bool:
        """Whether Manim writes an intermediate that is turned into this format."""
        return self.manim_writes is not None


_REGISTRY: dict[str, Format] = {}


def register(fmt: Format) -> Format:
    _REGISTRY[fmt.name] = fmt
    return fmt


def get(name: str) -> Format:
    """The record of `name`; a KeyError names the formats there are."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"format {name!r} is not known; use one of {', '.join(names())}") from None


def names() -> tuple[str, ...]:
    return tuple(_REGISTRY)


def every() -> tuple[Format, ...]:
    return tuple(_REGISTRY.values())


def by_extension(suffix: str) -> Format | None:
    """The format of a file suffix such as `.webm` (None for one that is no format)."""
    return _REGISTRY.get(suffix.lower().removeprefix("."))


MP4 = register(
    Format(
        "mp4",
        "video/mp4",
        playable=True,
        joinable=True,
        segmentable=True,
        video_codec="libx264",
        audio_codec="aac",
        audio_bitrate=128_000,
        mux_options={"movflags": "+faststart"},  # the index first: a page plays it at once
    )
)
WEBM = register(
    Format(
        "webm",
        "video/webm",
        alpha=True,
        playable=True,
        joinable=True,
        video_codec="libvpx-vp9",
        audio_codec="libopus",
        audio_bitrate=96_000,
    )
)
# Manim writes a clean H.264 (or qtrle .mov when transparent) clip; encoders.to_gif converts
GIF = register(Format("gif", "image/gif", alpha=True, for_slides=True, manim_writes=("mp4", "mov")))
PNG = register(Format("png", "image/png", moving=False, alpha=True))

MAIN = MP4.name  # the lesson's main clip, and the default of --format
STILL = PNG.name  # a single frame's format (posters, slides as images)
