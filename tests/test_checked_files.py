"""A model file is hashed in full once per stamp: a whole file is trusted again while its
stamp holds, a rewritten one is hashed again, and another user's note is not believed."""

import hashlib
import os

import pytest

from lesson import sealed
from rendering.speech import base


@pytest.fixture
def model(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(sealed, "_key", None)
    path = tmp_path / "model.onnx"
    path.write_bytes(b"weights" * 1000)
    return path, hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_whole_file_is_hashed_once_while_its_stamp_holds(model, monkeypatch):
    path, sha = model
    hashed = []
    digest = base.stream_digest
    monkeypatch.setattr(base, "stream_digest", lambda *a: hashed.append(a) or digest(*a))
    assert base.holds(path, sha) and base.holds(path, sha)
    assert len(hashed) == 1
    assert not base.holds(path, "0" * 64)  # another hash is another question


def test_a_file_rewritten_in_place_is_hashed_again_and_refused(model):
    path, sha = model
    assert base.holds(path, sha)
    stat = path.stat()
    with open(path, "r+b") as fh:  # same size, and its times put back: the change time moves
        fh.write(b"W")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert not base.holds(path, sha)


def test_a_note_sealed_with_another_key_is_not_believed(model, monkeypatch):
    path, sha = model
    assert base.holds(path, sha)
    path.write_bytes(b"tampered" * 1000)
    note = base._stamp_file(path, sha)
    forged = sealed.MAGIC + b"\0" * 32 + base._stamp(path, sha)
    note.write_bytes(forged)
    assert not base.holds(path, sha)
