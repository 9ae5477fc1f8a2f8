"""manifest.json: one per output folder, the record of every validated clip."""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import sys
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, NamedTuple

from pe_math import ParamError, Params
from rendering.core import formats
from rendering.core.files import atomic_write_text, loads, locked, quick_digest

SCHEMA = 1
NAME = "manifest.json"
BACKUP = "manifest.unreadable.json"
_reported: set[Path] = set()


class Beat(NamedTuple):
    """Where a beat starts in its clip; written to JSON as [key, start]."""

    key: str
    start: float


@dataclass(frozen=True)
class VoiceCard:
    """Who speaks a clip, under which licence (the gallery shows it)."""

    engine: str
    voice: str
    licence: str = ""
    model_card: str = ""
    engine_version: str = ""
    engine_licence: str = ""
    speed: float = 1.0
    sold_course: str = ""  # may a sold course use it: yes, no or unclear


def _known(cls, data: dict) -> dict:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in names}


@dataclass(frozen=True)
class ChapterMark:
    slug: str
    title: str
    start: float
    end: float


def video_facts(file: Path, checked, fps: int, poster: str | None) -> dict[str, Any]:
    """What the manifest records of any video it lists (a clip, the joined lesson): its
    name, its length, size and rate as decoded (`checked`), its bytes and its poster."""
    return {
        "file": file.name,
        "duration": round(checked.duration, 3),
        "frames": checked.frames,
        "width": checked.width,
        "height": checked.height,
        "fps": fps,
        "bytes": file.stat().st_size,
        "digest": quick_digest(file),
        "poster": poster,
    }


class Recorded:
    """A video the manifest records by its `file`, `bytes` and quick `digest`."""

    file: str
    bytes: int
    digest: str

    def intact(self, folder: Path) -> bool:
        """Whether `folder`/file is still the video recorded: a plain file of that size and
        quick digest (an entry written before digests were kept: that size)."""
        path = folder / self.file
        try:
            if Path(self.file).name != self.file or not path.is_file():
                return False
            if path.stat().st_size != self.bytes:
                return False
            return not self.digest or quick_digest(path) == self.digest
        except OSError:
            return False


@dataclass(frozen=True)
class LessonRecord(Recorded):
    """The joined lesson of a folder, as the manifest keeps it under "lesson"."""

    file: str
    variant: str
    key: str
    joined: str  # how: "remux" (packets copied) or "encode"
    duration: float
    frames: int
    width: int
    height: int
    fps: int
    bytes: int = 0
    digest: str = ""  # files.quick_digest of the file
    poster: str | None = None
    chapters: tuple[ChapterMark, ...] = ()
    chapters_vtt: str | None = None
    voice: tuple[str, ...] = ()
    captions: dict[str, dict[str, str]] = field(default_factory=dict)  # vtt/srt -> lang -> file

    @classmethod
    def from_dict(cls, data: object) -> LessonRecord | None:
        """The record, or None when `data` is not one (the lesson is then joined again)."""
        if not isinstance(data, dict):
            return None
        try:
            chapters = tuple(
                ChapterMark(**_known(ChapterMark, c)) for c in data.get("chapters", [])
            )
            return cls(
                **{**_known(cls, data), "chapters": chapters, "voice": tuple(data.get("voice", ()))}
            )
        except TypeError:
            return None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ClipEntry(Recorded):
    """One validated clip as the manifest records it."""

    slug: str
    file: str
    duration: float
    frames: int
    width: int
    height: int
    fps: int
    order: int = 0
    title: str = ""
    titles: dict[str, str] = field(default_factory=dict)
    key: str = ""
    key_parts: dict[str, str] = field(default_factory=dict)
    sources: dict[str, dict[str, str]] = field(default_factory=dict)  # key part -> file -> digest
    params: dict[str, Any] = field(default_factory=dict)
    format: str = formats.MAIN
    transparent: bool = False
    burn_captions: bool = False
    poster: str | None = None
    bytes: int = 0
    digest: str = ""  # files.quick_digest of the file
    beats: list[Beat] = field(default_factory=list)
    captions: dict[str, dict[str, str]] = field(default_factory=dict)  # vtt/srt -> lang -> file
    voice: str = "silent"
    voice_cards: list[VoiceCard] = field(default_factory=list)
    recorded_beats: list[str] = field(default_factory=list)
    speech: dict[str, list] = field(default_factory=dict)  # beat -> spoken sentence spans
    sound: dict[str, Any] | None = None  # codec, rate, seconds, lufs, true_peak_dbtp
    animations: list[list[float]] = field(default_factory=list)  # per play: [build, draw] s
    parts: int = 1  # ranges of animations drawn by different workers, then joined
    segments: dict[str, Any] = field(default_factory=dict)  # its beats' keys (segments.py)
    # beat -> what is on screen as it ends: {"low": [[text, ratio, needed], ...] under
    # WCAG's contrast, "numbers": [as written, ...] not there as the beat before ended};
    # None when not recorded
    screen: dict[str, dict] | None = None
    palette: dict[str, str] = field(default_factory=dict)  # its theme's; empty: the default
    look: dict[str, str] = field(default_factory=dict)  # its brand and font (lesson.brand)

    def knobs(self) -> Params:
        """The knobs the clip was rendered at: its recorded fields, the rest at their
        defaults (the scene reads no other field)."""
        try:
            return Params().replace(**self.params)
        except (ParamError, TypeError, ValueError):
            return Params()  # a hand-edited entry: its lines are read at the defaults

    @classmethod
    def from_dict(cls, data: object) -> ClipEntry | None:
        """The entry, or None when `data` lacks what a clip needs (then it renders again)."""
        if not isinstance(data, dict):
            return None
        try:
            typed = {
                "beats": [Beat(str(k), float(t)) for k, t in data.get("beats", [])],
                "voice_cards": [
                    VoiceCard(**_known(VoiceCard, c)) for c in data.get("voice_cards", [])
                ],
            }
            return cls(**{**_known(cls, data), **typed})
        except (TypeError, ValueError):
            return None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Manifest:
    folder: Path
    data: dict = field(default_factory=lambda: {"schema": SCHEMA, "clips": {}})

    @classmethod
    def load(cls, folder: Path) -> Manifest:
        path = folder / NAME
        try:
            data = loads(path.read_text(encoding="utf-8"))
        except (FileNotFoundError, NotADirectoryError):
            return cls(folder)
        except (OSError, ValueError) as exc:
            _set_aside(path, f"it cannot be read ({exc.__class__.__name__})")
            return cls(folder)
        if not isinstance(data, dict) or not isinstance(data.get("clips"), dict):
            _set_aside(path, "it is not a manifest")
            return cls(folder)
        if data.get("schema") != SCHEMA:
            _set_aside(path, f"it has schema {data.get('schema')!r}, not {SCHEMA}")
            return cls(folder)
        return cls(folder, data)

    @classmethod
    @contextlib.contextmanager
    def update(cls, folder: Path) -> Iterator[Manifest]:
        """Load, change and save under a lock, so two runs at once never drop an entry."""
        with locked(folder / NAME):
            manifest = cls.load(folder)
            yield manifest
            manifest.save()

    @property
    def clips(self) -> dict[str, dict[str, dict]]:
        return self.data["clips"]

    def entry(self, slug: str, variant: str) -> ClipEntry | None:
        variants = self.clips.get(slug)
        return ClipEntry.from_dict(variants.get(variant)) if isinstance(variants, dict) else None

    def entries(self) -> dict[str, dict[str, ClipEntry]]:
        """Every readable entry: slug -> variant -> entry."""
        out: dict[str, dict[str, ClipEntry]] = {}
        for slug, variants in self.clips.items():
            if not isinstance(variants, dict):
                continue
            for variant, data in variants.items():
                if (entry := ClipEntry.from_dict(data)) is not None:
                    out.setdefault(slug, {})[variant] = entry
        return out

    @property
    def lesson(self) -> LessonRecord | None:
        return LessonRecord.from_dict(self.data.get("lesson"))

    @lesson.setter
    def lesson(self, record: LessonRecord) -> None:
        self.data["lesson"] = record.to_dict()

    def record(self, slug: str, variant: str, entry: ClipEntry) -> None:
        self.clips.setdefault(slug, {})[variant] = entry.to_dict()

    def save(self) -> Path:
        path = self.folder / NAME
        atomic_write_text(
            path, json.dumps(self.data, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
        )
        return path


def _set_aside(path: Path, why: str) -> None:
    """Keep a copy of a manifest we cannot use, and say once that its clips render again."""
    if path in _reported:
        return
    _reported.add(path)
    backup = path.with_name(BACKUP)
    try:
        shutil.copyfile(path, backup)
        kept = f"a copy is in {backup.name}"
    except OSError:
        kept = "no copy could be kept"
    print(
        f"warning: {path} was reset because {why}; {kept}; its clips will be rendered again",
        file=sys.stderr,
    )


# What the project writes into an output folder besides its clips' own files.
PAGES = {
    NAME,
    BACKUP,
    "index.html",
    "present.html",
    "explore.html",
    "explore.json",
    "transcript.html",
    "transcript.md",
    "a11y.html",
    "a11y.json",
    "chapters.vtt",
    "chapters.txt",
}
BEAT_STORE = ".beats"  # each clip's drawn beats, kept for the next render
EXPLORE_KEY = ".explore.key"  # what the explorer's two files were last written from
# a kept beat's frames, and its flash measure (rendering.publish.flashes.AREAS)
_BEAT_FILE = re.compile(r"^[0-9a-f]{16}(\.mp4|\.areas\.npz)$")
# What a locked or atomic write leaves beside a file: ".name.lock", ".name.old", ".name.tmp.mp4",
# ".name.<6 hex bytes>", and mkstemp's ".name.<8 characters>[suffix]"
_TEMPORARY = re.compile(r"^\.(.+?)\.(lock|old|tmp\.mp4|[0-9a-f]{12}|[a-z0-9_]{8}(\.[a-z0-9]+)?)$")


def made_here(own: Callable[[str], bool]) -> Callable[[Path], bool]:
    """A test for the files a folder holds of the project's making: those `own` names,
    and the locks and temporaries written beside them."""

    def test(path: Path) -> bool:
        if own(path.name):
            return True
        found = _TEMPORARY.match(path.name)
        return bool(found) and own(found.group(1))

    return test


def written_here(folder: Path) -> Callable[[Path], Any]:
    """The rule (see rendering.run.cleaning) for an output folder: the pages, the files of
    the clips its manifest names, their slides and kept beats; nothing else is ours."""
    stems = {"lesson"} | {
        stem
        for variants in Manifest.load(folder).entries().values()
        for e in variants.values()
        # named by its slug; NN-slug before chapters were named by slug alone
        if re.fullmatch(rf"(?:\d\d-)?{re.escape(e.slug)}", stem := Path(e.file).stem)
        and Path(e.file).name == e.file
    }

    def own(name: str) -> bool:
        return name in PAGES or name == EXPLORE_KEY or name.split(".")[0] in stems

    ours = made_here(own)
    beat = made_here(lambda name: bool(_BEAT_FILE.match(name)))

    def deck(path: Path) -> Any:  # slides/: a clip's or the lesson's deck, and its PNG folder
        if path.is_dir():
            return path.name in stems and (lambda png: png.name.startswith(path.name))
        return ours(path)

    def beats(path: Path) -> Any:  # .beats/<clip>/<key>.mp4 and <key>.areas.npz
        return path.is_dir() and path.name in stems and (lambda p: p.is_file() and beat(p))

    def rule(path: Path) -> Any:
        if path.is_dir() and path.name in ("slides", BEAT_STORE):
            return deck if path.name == "slides" else beats
        return ours(path)

    return rule
