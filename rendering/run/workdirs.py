"""The temporary job folders under an output root, and those left by runs that died."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

WORK = ".work"  # temporary job folders live under the output root: same filesystem, atomic renames


def work_folders(work_root: Path) -> tuple[list[Path], list[Path]]:
    """Job folders under `work_root`: (those of running drivers, those left by dead ones)."""
    live, stale = [], []
    for folder in sorted(work_root.glob("*-*")) if work_root.is_dir() else []:
        pid = folder.name.split("-", 1)[0]
        if folder.is_dir() and not folder.is_symlink() and pid.isdigit():
            (live if _alive(int(pid)) else stale).append(folder)
    return live, stale


def remove_stale_work(work_root: Path) -> None:
    """Remove job folders left by runs whose driver process no longer exists."""
    for folder in work_folders(work_root)[1]:
        shutil.rmtree(folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


def remove_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:
        pass
