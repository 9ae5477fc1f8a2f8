"""Set words kept on disk between processes (see copies.py), without importing Manim.

With PE_TEXT_CACHE naming a folder, each Text is pickled there under a key of its words,
its arguments, the canvas, the font's file and the versions of what sets and stores it.
A file that is missing, cut short or unreadable is set again; one that cannot be written
only costs time.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from scenes.fonts import FONT

CACHE_ENV = "PE_TEXT_CACHE"  # the folder; unset: nothing is kept
FOLDER = ".text"  # its name beside a render's work folders


def enabled() -> bool:
    return bool(os.environ.get(CACHE_ENV))


def _path(key: Any, font: str | None) -> Path | None:
    folder = os.environ.get(CACHE_ENV)
    if not folder:
        return None
    full = repr((key, _font_file(font or FONT), _versions()))
    return Path(folder) / f"{hashlib.sha256(full.encode()).hexdigest()}.pickle"


def load(key: Any, font: str | None) -> Any | None:
    path = _path(key, font)
    if path is None:
        return None
    try:
        return pickle.loads(path.read_bytes())
    except Exception:  # missing, cut short or unreadable: the caller sets the words again
        return None


def save(key: Any, font: str | None, value: Any) -> None:
    path = _path(key, font)
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_name(f"{path.stem}.{os.getpid()}.part")
        part.write_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        os.replace(part, path)  # whole or not at all, whoever writes the same words at once
    except OSError:
        pass


@functools.cache
def _font_file(font: str) -> str:
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
