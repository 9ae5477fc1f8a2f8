"""Which of the watched files changed since the last look (by polling: no extra package)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

SOURCE_TYPES = (".py", ".toml", ".wav", ".flac", ".mp3", ".m4a", ".ogg")

Stamp = tuple[int, int]  # mtime_ns, size


def snapshot(places: Iterable[Path]) -> dict[Path, Stamp]:
    """Every source file in `places` (files, or folders searched recursively) and its stamp."""
    out: dict[Path, Stamp] = {}
    for place in places:
        files = [place] if place.is_file() else place.rglob("*") if place.is_dir() else []
        for path in files:
            if path.suffix in SOURCE_TYPES and "__pycache__" not in path.parts:
                try:
                    st = path.stat()
                except OSError:
                    continue  # removed while we looked
                out[path] = (st.st_mtime_ns, st.st_size)
    return out


class Watcher:
    """Tells which files were added, edited or removed between two calls of `changed`."""

    def __init__(self, places: Iterable[Path]) -> None:
        self.places = list(places)
        self.seen = snapshot(self.places)

    def changed(self) -> list[Path]:
        now = snapshot(self.places)
        differ = sorted(p for p in now.keys() | self.seen.keys() if now.get(p) != self.seen.get(p))
        self.seen = now
        return differ
