"""manifest.json: one per output folder, the record of every validated clip."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

SCHEMA = 1
NAME = "manifest.json"


def atomic_write_text(path: Path, text: str) -> None:
    """Write to a temporary file beside `path`, then rename it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@dataclass
class Manifest:
    folder: Path
    data: dict = field(default_factory=lambda: {"schema": SCHEMA, "clips": {}})

    @classmethod
    def load(cls, folder: Path) -> Manifest:
        path = folder / NAME
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return cls(folder)
        except (OSError, ValueError):
            return cls(
                folder
            )  # unreadable: treat as empty, outputs get re-rendered and it is rewritten
        if data.get("schema") != SCHEMA or not isinstance(data.get("clips"), dict):
            return cls(folder)
        return cls(folder, data)

    @property
    def clips(self) -> dict[str, dict[str, dict]]:
        return self.data["clips"]

    def entry(self, slug: str, variant: str) -> dict | None:
        return self.clips.get(slug, {}).get(variant)

    def record(self, slug: str, variant: str, entry: dict) -> None:
        self.clips.setdefault(slug, {})[variant] = entry

    def save(self) -> Path:
        path = self.folder / NAME
        atomic_write_text(
            path, json.dumps(self.data, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
        )
        return path
