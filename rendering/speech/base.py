"""What every voice engine shares: its spec, its error, and the hash of a model file."""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from lesson.sealed import seal, unseal, user_cache
from rendering.core.files import atomic_write


class VoiceError(RuntimeError):
    """A voice that cannot speak here; the message names what is missing and how to get it."""


@dataclass(frozen=True)
class VoiceSpec:
    engine: str
    voice: str
    speed: float = 1.0
    # the lesson's [lexicon.<lang>]: (word, phonemes or a spelling to read), for the
    # engines that take phonemes
    lexicon: tuple[tuple[str, str], ...] = ()


def stream_digest(path: Path, length: int = 16) -> str:
    """sha256 of a file, read in blocks (model files are tens of MB, a take may be huge)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:length]


@cache
def file_digest(path: Path, length: int = 16) -> str:
    """stream_digest of a file that does not change while the program runs (a model)."""
    return stream_digest(path, length)


def holds(path: Path, sha256: str) -> bool:
    """Whether `path` is a file whose sha256 is `sha256` (False when it cannot be read).

    A file found whole is hashed again only once its stamp (device, inode, size, change
    and modification times) moves: the stamp is kept sealed with this user's key in the
    user's cache, so another user cannot vouch for a file, and a file rewritten in place
    is hashed again."""
    try:
        if not path.is_file():
            return False
        kept = _stamp_file(path, sha256)
        if kept.is_file() and unseal(_STAMPED, kept.read_bytes()) == _stamp(path, sha256):
            return True
        if stream_digest(path, 64) != sha256:
            return False
    except OSError:
        return False
    _keep_stamp(path, sha256)
    return True


_STAMPED = "checked-file"


def _stamp(path: Path, sha256: str) -> bytes:
    info = os.stat(path)
    fields = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    return f"{path.resolve()}\0{sha256}\0{fields}".encode()


def _stamp_file(path: Path, sha256: str) -> Path:
    name = hashlib.sha256(f"{path.resolve()}\0{sha256}".encode()).hexdigest()[:24]
    return user_cache() / "checked" / name


def _keep_stamp(path: Path, sha256: str) -> None:
    """Note that `path` held `sha256` at its current stamp (nothing when it cannot be kept)."""
    with contextlib.suppress(OSError):
        sealed = seal(_STAMPED, _stamp(path, sha256))
        if sealed is not None:
            target = _stamp_file(path, sha256)
            target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            atomic_write(target, lambda fh: fh.write(sealed), durable=False)


def reinstall(package: str) -> str:
    """The command that puts a package's files back as it ships them."""
    try:
        package = f"{package}=={importlib.metadata.version(package)}"
    except importlib.metadata.PackageNotFoundError:
        pass
    return f"{sys.executable} -m pip install --force-reinstall --no-deps {package}"


def cache_folder() -> Path:
    """Where prepared models live, outside the project: $PE_MODEL_CACHE, else the user's cache."""
    env = os.environ.get("PE_MODEL_CACHE")
    if env:
        return Path(env)
    return user_cache()


def install_bytes(path: Path, blob: bytes) -> None:
    """Write a file beside its place and rename it in."""
    atomic_write(path, lambda fh: fh.write(blob), durable=False)


@contextlib.contextmanager
def native_stderr_muted() -> Iterator[None]:
    """Silence what native libraries print on file descriptor 2 (LiteRT's INFO lines)."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
