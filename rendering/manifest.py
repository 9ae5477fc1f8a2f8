"""manifest.json: one per output folder, the record of every validated clip."""

from __future__ import annotations

import contextlib
import json
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rendering.files import atomic_write_text, locked

SCHEMA = 1
NAME = "manifest.json"
BACKUP = "manifest.unreadable.json"
_reported: set[Path] = set()


@dataclass
class Manifest:
    folder: Path
    data: dict = field(default_factory=lambda: {"schema": SCHEMA, "clips": {}})

    @classmethod
    def load(cls, folder: Path) -> Manifest:
        path = folder / NAME
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
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

    def entry(self, slug: str, variant: str) -> dict | None:
        variants = self.clips.get(slug)
        entry = variants.get(variant) if isinstance(variants, dict) else None
        return entry if isinstance(entry, dict) else None

    def record(self, slug: str, variant: str, entry: dict) -> None:
        self.clips.setdefault(slug, {})[variant] = entry

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
