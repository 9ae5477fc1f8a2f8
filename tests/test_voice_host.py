"""The voice watch keeps loaded: a render's sentence said there is the one it would have
said itself, and anything amiss leaves the render to speak for itself."""

from __future__ import annotations

import copy
import os
import socket
import threading

import numpy as np
import pytest

from rendering.speech import audio, synthesis, voices, warm
from rendering.speech.base import VoiceSpec
from rendering.speech.engines.base import REGISTRY
from rendering.watch import voice_host
from tests import toy_engine

SPEC = VoiceSpec("toy", "beep", 1.0, (("RoPE", "rope"),))
LINE = "Each pair turns at its own speed. Then it stops."


@pytest.fixture
def host(monkeypatch):
    REGISTRY[toy_engine.Toy.engine_name] = toy_engine.Toy
    served = voice_host.Host()
    asked: list[str] = []
    said = served.said
    served.said = lambda request: asked.append(request["sentence"]) or said(request)
    served.start()
    monkeypatch.setenv(warm.ENV, str(served.address))
    monkeypatch.setattr(synthesis, "_made_elsewhere", [warm.spoken_by_host])  # as render does
    yield served, asked
    served.stop()
    toy_engine.unregister()
    voices.engine.cache_clear()


def test_a_sentence_said_by_the_host_is_cached_as_the_render_would_make_it(host, tmp_path):
    served, asked = host
    engine = voices.engine(SPEC)
    pieces = synthesis.synthesised(engine, LINE, "en", tmp_path)
    assert asked == ["Each pair turns at its own speed.", "Then it stops."]
    for piece in pieces:
        own = synthesis.sentence_speech(engine, piece.text, "en")
        cached = audio.read_wav(piece.file)
        np.testing.assert_array_equal(cached, audio.read_wav(_written(tmp_path, own)))
        assert piece.seconds == pytest.approx(len(own) / audio.RATE, abs=1e-3)


def _written(folder, samples):
    path = folder / "own.wav"
    audio.write_wav(path, samples)
    return path


def test_after_a_change_to_the_code_it_loaded_the_host_refuses_and_the_render_speaks(
    host, tmp_path, monkeypatch
):
    served, asked = host
    engine = voices.engine(SPEC)
    assert warm.spoken_by_host(engine, "One.", "en", synthesis.SHAPING) is not None
    path, (stamp, size) = next(iter(served.stamps.items()))
    monkeypatch.setattr(voice_host, "_loaded_stamps", lambda: {path: (stamp + 1, size)})
    assert warm.spoken_by_host(engine, "Two.", "en", synthesis.SHAPING) is None
    monkeypatch.undo()  # the file back as it was: the host still does not trust its code
    monkeypatch.setenv(warm.ENV, str(served.address))
    assert warm.spoken_by_host(engine, "Three.", "en", synthesis.SHAPING) is None
    (piece,) = synthesis.synthesised(engine, "Four.", "en", tmp_path)  # said here instead
    assert audio.take_seconds(piece.file) == pytest.approx(piece.seconds)


def test_a_render_whose_code_names_speech_otherwise_is_not_answered(host):
    engine = voices.engine(SPEC)
    assert warm.spoken_by_host(engine, "One.", "en", "another shaping") is None
    other = copy.copy(engine)  # as a render whose engine code differs names its speech
    other.__dict__["identity"] = engine.identity + " changed"
    assert warm.spoken_by_host(other, "One.", "en", synthesis.SHAPING) is None


def test_no_host_a_dead_one_or_garbage_leaves_the_render_to_speak(tmp_path, monkeypatch):
    REGISTRY[toy_engine.Toy.engine_name] = toy_engine.Toy
    try:
        engine = voices.engine(SPEC)
        monkeypatch.delenv(warm.ENV, raising=False)
        assert warm.spoken_by_host(engine, "One.", "en", synthesis.SHAPING) is None
        monkeypatch.setenv(warm.ENV, str(tmp_path / "gone.sock"))
        assert warm.spoken_by_host(engine, "One.", "en", synthesis.SHAPING) is None
        liar = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # answers with NaNs
        liar.bind(str(tmp_path / "liar.sock"))
        liar.listen(1)
        monkeypatch.setenv(warm.ENV, str(tmp_path / "liar.sock"))
        nan = np.full(8, np.nan, "<f4").tobytes()

        def answer():
            conn, _ = liar.accept()
            with conn:
                warm.sized(conn, warm.MAX_REQUEST)
                warm.send(conn, b"y", nan)

        threading.Thread(target=answer, daemon=True).start()
        assert warm.spoken_by_host(engine, "One.", "en", synthesis.SHAPING) is None
        liar.close()
    finally:
        toy_engine.unregister()
        voices.engine.cache_clear()


def test_the_host_lives_in_a_folder_only_its_user_enters_and_leaves_nothing(host):
    served, _ = host
    assert os.stat(served.folder).st_mode & 0o077 == 0
    served.stop()
    assert not served.folder.exists()
    assert warm.spoken_by_host(voices.engine(SPEC), "One.", "en", synthesis.SHAPING) is None
