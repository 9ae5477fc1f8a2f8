"""Sealed files: read back only when this user wrote them for that name."""

import os

import pytest

from lesson import sealed


@pytest.fixture
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(sealed, "_key", None)
    yield tmp_path
    sealed._key = None


def test_a_sealed_payload_opens_only_under_its_own_name_and_whole(own_cache):
    data = sealed.seal("entry-a", b"payload")
    assert sealed.unseal("entry-a", data) == b"payload"
    assert sealed.unseal("entry-b", data) is None  # copied under another name
    assert sealed.unseal("entry-a", data[:-1]) is None  # cut short
    assert sealed.unseal("entry-a", data[:-1] + b"!") is None  # changed
    assert sealed.unseal("entry-a", b"payload") is None  # never sealed
    assert os.stat(sealed.key_file()).st_mode & 0o777 == 0o600


def test_a_key_others_can_read_or_write_seals_nothing(own_cache):
    sealed.key_file().parent.mkdir(parents=True)
    sealed.key_file().write_bytes(b"k" * 32)
    os.chmod(sealed.key_file(), 0o644)
    assert sealed.key() is None
    assert sealed.seal("entry", b"payload") is None
    assert sealed.unseal("entry", sealed.MAGIC + b"\0" * 32 + b"payload") is None


def test_a_key_that_is_a_link_is_not_followed(own_cache, tmp_path):
    target = tmp_path / "elsewhere"
    target.write_bytes(b"k" * 32)
    os.chmod(target, 0o600)
    sealed.key_file().parent.mkdir(parents=True)
    sealed.key_file().symlink_to(target)
    assert sealed.key() is None
