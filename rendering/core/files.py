"""Writing published files: atomically, readable by a web server, one writer at a time."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def publish_mode(path: Path) -> None:
    """Give a finished file the mode a plain `open` would (mkstemp makes 0600)."""
    os.chmod(path, 0o666 & ~_umask())


def write_problem(exc: OSError) -> str:
    """One line for a failed write: which file, what went wrong, and the fix."""
    where = exc.filename or "a file"
    if exc.errno == errno.ENOSPC:
        return f"the disk is full (writing {where}); free some space or pass --output elsewhere"
    if exc.errno == errno.EROFS:
        return f"{where} is on a read-only disk; pass --output to a writable folder"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return f"cannot write {where} (permission denied); check the folder's permissions"
    return f"cannot write {where} ({exc.strerror or exc}); check the folder and the disk"


@contextlib.contextmanager
def replacing(path: Path, suffix: str = "") -> Iterator[Path]:
    """A temporary file beside `path` for a writer that takes a file name; it replaces
    `path` when the block ends without error, and is removed when it raises.

    `suffix` keeps the extension a writer may choose its format by."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix, dir=path.parent)
        os.close(fd)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(path)) from None  # name the file, not a temp
    tmp = Path(name)
    try:
        yield tmp
        publish_mode(tmp)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        if exc.filename not in (None, str(tmp)):
            raise  # about another file, e.g. one the writer reads
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def atomic_write(path: Path, write: Callable[[BinaryIO], object], durable: bool = True) -> None:
    """Let `write` fill a temporary file beside `path`, then rename it into place.

    `durable` also waits for the bytes to reach the disk; a cache that can be made again
    skips that wait."""
    with replacing(path) as tmp, open(tmp, "wb") as fh:
        write(fh)
        fh.flush()
        if durable:
            os.fsync(fh.fileno())


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write(path, lambda fh: fh.write(text.encode("utf-8")))


def atomic_write_bytes(path: Path, data: bytes) -> None:
    atomic_write(path, lambda fh: fh.write(data))


def loads(text: str) -> Any:
    """json.loads, where a document nested too deeply for the parser is a ValueError like
    any other that is not JSON (a hostile file must not end a command in a traceback)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


SAMPLE = 1 << 20  # bytes read from each end of a file for its quick digest


def quick_digest(path: Path) -> str:
    """A cheap fingerprint of a published file: its size, its first and its last MiB.
    It tells a clip cut short, emptied or overwritten from the one recorded, without
    reading hundreds of megabytes on every plan."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        digest.update(str(size).encode())
        digest.update(fh.read(SAMPLE))
        if size > SAMPLE:
            fh.seek(max(SAMPLE, size - SAMPLE))
            digest.update(fh.read(SAMPLE))
    return digest.hexdigest()[:16]


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path`.lock while reading-modifying-writing `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(f".{path.name}.lock"), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
