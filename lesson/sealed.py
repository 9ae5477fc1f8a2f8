"""Files only this user could have written: each carries an HMAC under a key kept 0600 in
the user's cache folder, so a cache in a shared folder is never read unless it is ours.

A file another user planted, cut short, or copied under another entry's name fails the
check and is treated as missing. Use it for anything that can carry code (a pickle).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
from pathlib import Path

MAGIC = b"pe-seal1"
_KEY_BYTES = 32
_key: bytes | None = None


def user_cache() -> Path:
    """The project's folder in the user's cache ($XDG_CACHE_HOME, else ~/.cache)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pe-explainer"


def key_file() -> Path:
    return user_cache() / "seal.key"


def _read_key(path: Path) -> bytes | None:
    """The key, if the file is a plain file of ours that nobody else can read or write."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(file.fileno())
        private = stat.S_ISREG(info.st_mode) and not info.st_mode & 0o077
        if not private or info.st_uid != os.getuid():
            return None
        key = file.read(_KEY_BYTES + 1)
    return key if len(key) == _KEY_BYTES else None


def key() -> bytes | None:
    """This user's key, made on first use; None when it cannot be trusted or made."""
    global _key
    if _key is None:
        path = key_file()
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            pass
        except OSError:
            return None
        else:
            with os.fdopen(fd, "wb") as file:
                file.write(secrets.token_bytes(_KEY_BYTES))
        _key = _read_key(path)
    return _key


def _mac(secret: bytes, name: str, payload: bytes) -> bytes:
    return hmac.new(secret, name.encode() + b"\0" + payload, hashlib.sha256).digest()


def seal(name: str, payload: bytes) -> bytes | None:
    """`payload` with its seal for the entry `name`; None when there is no key."""
    secret = key()
    return None if secret is None else MAGIC + _mac(secret, name, payload) + payload


def unseal(name: str, data: bytes) -> bytes | None:
    """The payload, if `data` was sealed by this user for the entry `name`; else None."""
    secret = key()
    head = len(MAGIC) + hashlib.sha256().digest_size
    if secret is None or len(data) < head or not data.startswith(MAGIC):
        return None
    payload = data[head:]
    return (
        payload
        if hmac.compare_digest(data[len(MAGIC) : head], _mac(secret, name, payload))
        else None
    )
