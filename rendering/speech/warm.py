"""Asking a voice kept loaded elsewhere (rendering.watch.voice_host) for a sentence.

`watch` renders each save in a new process, which would load the voice's front end and
model again to say one new sentence: seconds, where saying it takes a fraction of one.
So watch keeps the voice loaded, answering on a Unix socket in a folder only this user
may enter, and names the socket to its renders in PE_VOICE_HOST.

A render sends the voice's spec, the sentence, and the names its own code gives speech
(the shaping code's hash and the engine's identity); the host speaks only when its code
gives the same names, and sends back the shaped samples, which the render checks and
caches as if it had made them. A render that gets no samples, for any reason (no host,
a host that refuses, dies or sends something unusable), speaks the sentence itself.
"""

from __future__ import annotations

import json
import os
import socket
import struct
from dataclasses import asdict

import numpy as np

from rendering.speech import audio

ENV = "PE_VOICE_HOST"
CONNECT_TIMEOUT = 1.0  # seconds to reach the host: a local socket answers at once
ANSWER_TIMEOUT = 120.0  # seconds for a sentence: the longest takes a few
_LENGTH = struct.Struct(">I")
MAX_REQUEST = 1 << 20  # bytes: a sentence, a spec and its lexicon
MOST_SAMPLES = 300 * audio.RATE  # far longer than any sentence


def send(conn: socket.socket, status: bytes, payload: bytes) -> None:
    """One answer: a status byte (b"y" samples follow, b"n" a reason), then the payload."""
    conn.sendall(status + _LENGTH.pack(len(payload)) + payload)


def _received(conn: socket.socket, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = conn.recv(min(left, 1 << 20))
        if not chunk:
            raise ConnectionError("the other end closed the connection")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def sized(conn: socket.socket, most: int) -> bytes:
    (size,) = _LENGTH.unpack(_received(conn, _LENGTH.size))
    if size > most:
        raise ValueError(f"{size} bytes, more than {most}")
    return _received(conn, size)


def spoken_by_host(engine, sentence: str, lang: str, shaping: str) -> np.ndarray | None:
    """`synthesis.sentence_speech(engine, sentence, lang)` made by the host named in the
    environment, or None when there is none or it did not answer with usable samples.
    `shaping` is synthesis.SHAPING, as this process's code has it."""
    address = os.environ.get(ENV)
    if not address:
        return None
    try:
        request = {
            "spec": asdict(engine.spec),
            "lang": lang,
            "sentence": sentence,
            "shaping": shaping,
            "identity": engine.identity,
        }
        if os.stat(address).st_uid != os.geteuid():
            return None  # a socket another user made
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(CONNECT_TIMEOUT)
            conn.connect(address)
            conn.settimeout(ANSWER_TIMEOUT)
            payload = json.dumps(request).encode()
            conn.sendall(_LENGTH.pack(len(payload)) + payload)
            status = _received(conn, 1)
            answer = sized(conn, 4 * MOST_SAMPLES)
    except Exception:  # noqa: BLE001 - whatever went wrong, the render speaks for itself
        return None
    if status != b"y" or len(answer) % 4 or not answer:
        return None
    samples = np.frombuffer(answer, dtype="<f4").astype(np.float32)
    return samples if np.isfinite(samples).all() else None
