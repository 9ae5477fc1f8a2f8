"""Which of the watched files changed since the last look (by polling: no extra package),
and whether the code among them still compiles."""

from __future__ import annotations

import functools
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


def syntax_error(stamps: dict[Path, Stamp]) -> SyntaxError | None:
    """The first Python file among `stamps` that does not compile, as its SyntaxError
    (filename and line set), or None. A file is compiled again only when its stamp changed."""
    for path in sorted(p for p in stamps if p.suffix == ".py"):
        error = _compile_error(path, stamps[path])
        if error is not None:
            return error
    return None


@functools.lru_cache(maxsize=1024)
def _compile_error(path: Path, stamp: Stamp) -> SyntaxError | None:
    try:
        compile(path.read_bytes(), str(path), "exec", dont_inherit=True)
    except SyntaxError as exc:
        return exc
    except ValueError as exc:  # a null byte
        error = SyntaxError(str(exc))
        error.filename = str(path)
        return error
    except OSError:
        pass  # removed while we looked: the next look sees it gone
    return None
