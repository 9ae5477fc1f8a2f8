"""Set words kept on disk between processes (see copies.py), without importing Manim.

With PE_TEXT_CACHE naming a folder, each Text is pickled there under a key of its words,
its arguments, the canvas, the font's file and the versions of what sets and stores it;
each formula's drawing (the SVG TeX made of it) under its TeX source and TeX's programs.
A pickle can run code, so each file is sealed with this user's key (lesson.sealed)
and only a file whose seal holds is unpickled: one planted in a shared folder, or copied
under another entry's name, is never read. A file that is missing, cut short, unsealed or
of the wrong kind is set again; one that cannot be written only costs time.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

from lesson import sealed
from lesson.fonts import FONT

CACHE_ENV = "PE_TEXT_CACHE"  # the folder; unset: nothing is kept
FOLDER = ".text"  # its name beside a render's work folders
SUFFIX = ".sealed"  # an entry's file; with ".part", all the project writes there


def keep_beside(work_root: Path) -> None:
    """Keep set text beside a render's work folders, for its workers and the next render
    (workers started from this process inherit it; a cluster's own do not). A folder
    already chosen stays."""
    os.environ.setdefault(CACHE_ENV, str(work_root.parent / FOLDER))


def enabled() -> bool:
    return bool(os.environ.get(CACHE_ENV))


def _path(key: Any, font: str | None) -> Path | None:
    return _entry(key, font_file(font or FONT))


def load(key: Any, font: str | None, kind: type) -> Any | None:
    """The `kind` kept for `key`, or None (the caller sets the words again)."""
    payload = _read(_path(key, font))
    if payload is None:
        return None
    try:
        value = pickle.loads(payload)
    except Exception:  # noqa: BLE001 - ours, but from a version that no longer loads
        return None
    return value if isinstance(value, kind) else None


def save(key: Any, font: str | None, value: Any) -> None:
    _write(_path(key, font), pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))


def load_bytes(key: str) -> bytes | None:
    """The bytes kept under `key` (a string naming all that made them), or None."""
    return _read(_bytes_path(key))


def save_bytes(key: str, data: bytes) -> None:
    _write(_bytes_path(key), data)


def _bytes_path(key: str) -> Path | None:
    return _entry(key)


def _entry(*made_by: Any) -> Path | None:
    """The file of the entry `made_by` names (with the versions that set and store it)."""
    folder = os.environ.get(CACHE_ENV)
    if not folder:
        return None
    full = repr((*made_by, _versions()))
    return Path(folder) / f"{hashlib.sha256(full.encode()).hexdigest()}{SUFFIX}"


def _read(path: Path | None) -> bytes | None:
    if path is None:
        return None
    try:
        return sealed.unseal(path.stem, path.read_bytes())
    except OSError:
        return None


def _write(path: Path | None, payload: bytes) -> None:
    if path is None:
        return
    data = sealed.seal(path.stem, payload)
    if data is None:  # no private key to seal with: keep nothing
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # a fresh name, never a link someone left at a name they could guess
        fd, part = tempfile.mkstemp(prefix=f"{path.stem}.", suffix=".part", dir=path.parent)
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.replace(part, path)  # whole or not at all, whoever writes the same words at once
    except OSError:
        pass


@functools.cache
def font_file(font: str) -> str:
    """The file fontconfig gives `font`, with its size and time: a changed font sets anew."""
    try:
        file = subprocess.run(
            ["fc-match", "--format=%{file}", font], capture_output=True, text=True, check=True
        ).stdout
        stat = Path(file).stat()
    except (OSError, subprocess.CalledProcessError):
        return font
    return f"{file}:{stat.st_size}:{stat.st_mtime_ns}"


@functools.cache
def _versions() -> tuple[str, ...]:
    packages = ("manim", "manimpango", "numpy", "svgelements")
    return (sys.version.split()[0], *(metadata.version(p) for p in packages))
