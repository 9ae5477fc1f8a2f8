"""The voice `watch` keeps loaded for its renders (rendering.speech.warm asks it).

It answers in a thread of watch's own process, so it ends with watch, whatever ends it.
It speaks only while the project's modules it loaded are unchanged on disk: after an
edit to the code, each render speaks for itself until watch starts again.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import sys
import tempfile
import threading
from pathlib import Path

import numpy as np

from rendering.core import keys
from rendering.speech import synthesis, voices, warm
from rendering.speech.base import VoiceSpec


def _loaded_stamps() -> dict[str, tuple[int, int]]:
    """The files of the project's modules this process has imported, with their stamps."""
    homes = tuple(str(keys.ROOT / package) + os.sep for package in keys.PROJECT_PACKAGES)
    out = {}
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if path and path.startswith(homes):
            with contextlib.suppress(OSError):
                stat = os.stat(path)
                out[path] = (stat.st_mtime_ns, stat.st_size)
    return out


WARM_UP = {"en": "Ready.", "zh": "好。"}


class Host:
    """Says sentences for the renders of one `watch`, in a thread of its process."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="pe-voice-"))  # 0700: only this user
        self.address = self.folder / "voice.sock"
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.listener.bind(str(self.address))
            self.listener.listen(4)
        except OSError:  # e.g. a path too long for a socket: nothing is left behind
            self.listener.close()
            shutil.rmtree(self.folder, ignore_errors=True)
            raise
        self.stamps: dict[str, tuple[int, int]] = {}  # each module's file as it was loaded
        self.stale = False  # the code it loaded changed: it speaks no more
        self.lock = threading.Lock()  # one sentence at a time: an engine is not shared
        self.thread = threading.Thread(target=self._serve, name="voice-host", daemon=True)

    def start(self) -> None:
        """Answer renders from now on."""
        self.changed()
        self.thread.start()

    def warm_up(self, voice: VoiceSpec, lang: str) -> None:
        """Load `voice` and what shapes its speech now, in the background (its first
        sentence would load them)."""

        def load() -> None:
            with self.lock, contextlib.suppress(Exception):  # renders say why it cannot load
                synthesis.sentence_speech(voices.engine(voice), WARM_UP[lang], lang)

        threading.Thread(target=load, name="voice-warm-up", daemon=True).start()

    def env(self) -> dict[str, str]:
        """What a render's environment needs to find the host."""
        return {warm.ENV: str(self.address)}

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return  # stopped
            with conn:
                conn.settimeout(warm.ANSWER_TIMEOUT)
                with contextlib.suppress(OSError, ValueError):
                    self._answer(conn)

    def _answer(self, conn: socket.socket) -> None:
        try:
            request = json.loads(warm.sized(conn, warm.MAX_REQUEST))
            samples = self.said(request)
        except Exception as exc:  # noqa: BLE001 - the render speaks itself, and says nothing
            warm.send(conn, b"n", f"{type(exc).__name__}: {exc}".encode()[:500])
            return
        warm.send(conn, b"y", samples.astype("<f4").tobytes())

    def changed(self) -> bool:
        """Whether a project module this process loaded has changed on disk since (a
        module loaded since the last look is taken as it is now)."""
        if not self.stale:
            now = _loaded_stamps()
            if any(self.stamps.get(path, stamp) != stamp for path, stamp in now.items()):
                self.stale = True
            self.stamps = {**now, **self.stamps}
        return self.stale

    def said(self, request: dict) -> np.ndarray:
        """The shaped samples of one sentence, as the render's own code would make them."""
        if self.changed():
            raise RuntimeError("the project's code changed since watch loaded it")
        with self.lock:
            return self._said(request)

    def _said(self, request: dict) -> np.ndarray:
        spec = VoiceSpec(**{**request["spec"], "lexicon": _entries(request["spec"]["lexicon"])})
        engine = voices.engine(spec)
        if (request["shaping"], request["identity"]) != (synthesis.SHAPING, engine.identity):
            raise RuntimeError("the render's voice is not the one loaded here")
        return synthesis.sentence_speech(engine, request["sentence"], request["lang"])


def _entries(lexicon: list) -> tuple[tuple[str, str], ...]:
    return tuple((str(word), str(said)) for word, said in lexicon)
