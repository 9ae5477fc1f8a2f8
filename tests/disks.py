"""A small disk of the test's own (the `small_disk` fixture), made full or read-only."""

from __future__ import annotations

import contextlib
import subprocess
from pathlib import Path


def fill(disk: Path) -> None:
    """Write zeros into `disk` until no byte more fits."""
    with open(disk / "filler", "wb") as fh, contextlib.suppress(OSError):
        while True:
            fh.write(b"\0" * (1 << 20))
            fh.flush()


def make_read_only(disk: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
