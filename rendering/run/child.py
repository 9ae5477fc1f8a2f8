"""Local worker processes, forked from a server that imported the heavy libraries once.

A "spawn" worker imports Manim, PyAV, SciPy and pyloudnorm afresh: seconds per job before
its first frame. A forkserver imports them once (`warm_up`, called as a command starts, so
that it happens while the driver makes and places speech) and forks every worker from
there. A fork keeps the server's environment from when it started, so this module imports
nothing of the project: `run` first takes on the driver's environment as it is now, and
only then unpickles the call, whose modules read it as they are imported (scenes reads
PE_SCENE_PLUGINS).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import pickle
from typing import Any

# Third-party only, so that nothing here depends on the environment the server started in
PRELOAD = ["numpy", "PIL.Image", "av", "scipy.signal", "pyloudnorm", "manim"]


def context() -> Any:
    """The multiprocessing context local workers start in: a warm forkserver where there is one."""
    if "forkserver" not in mp.get_all_start_methods():
        return mp.get_context("spawn")
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    return ctx


def warm_up() -> None:
    """Start the server now, so that its imports overlap the driver's own work."""
    if context().get_start_method() == "forkserver":
        from multiprocessing import forkserver

        forkserver.ensure_running()


def call(fn, args: tuple, kwargs: dict) -> bytes:
    """A call as `run` takes it."""
    return pickle.dumps((fn, args, kwargs), protocol=pickle.HIGHEST_PROTOCOL)


def run(conn, env: dict[str, str], shared: tuple, payload: bytes) -> None:
    """A worker's entry point: send back (True, fn(*shared, *args)) or (False, exception).

    `shared` holds what may only reach a process as it starts (a multiprocessing queue).
    """
    os.environ.clear()
    os.environ.update(env)
    try:
        fn, args, kwargs = pickle.loads(payload)
        value: tuple[bool, Any] = (True, fn(*shared, *args, **kwargs))
    except BaseException as exc:  # noqa: BLE001 - the parent's future carries it
        value = (False, exc)
    try:
        conn.send(value)
    except Exception as exc:  # noqa: BLE001 - an unpicklable result or exception
        conn.send((False, RuntimeError(f"{type(exc).__name__}: {exc}")))
    conn.close()
