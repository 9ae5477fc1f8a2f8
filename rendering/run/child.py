"""Local worker processes, forked from a server that imported the heavy libraries once.

A "spawn" worker imports Manim, PyAV, SciPy and pyloudnorm afresh: seconds per job before
its first frame. A forkserver imports them once and forks every worker from there. It
starts with the first worker, or earlier (`warm_up`) as a render begins to make or place
new speech, or as one of watch's renders begins (it follows an edit: it will draw), so
that its imports overlap that work; a render with nothing to draw never starts it
otherwise, and `stop` ends it with the command.

A fork keeps the server's environment from when it started, so this module imports
nothing of the project: `run` first takes on the driver's environment as it is now, and
only then unpickles the call, whose modules read it as they are imported (scenes reads
PE_SCENE_PLUGINS).
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import pickle
import signal
import time
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


AT_ONCE = "PE_WORKERS_AT_ONCE"  # set: a render starts the server as it begins (watch's draw)


def warm_up() -> None:
    """Start the server now, so that its imports overlap the driver's own work."""
    if context().get_start_method() == "forkserver":
        from multiprocessing import forkserver

        forkserver.ensure_running()


def stop(wait: float = 2.0) -> None:
    """End the server, and the resource tracker it shares, with the command. Left alone,
    each would outlive it as an orphan until it noticed that nobody holds its pipe."""
    from multiprocessing import forkserver, resource_tracker

    server = forkserver._forkserver  # the module's one server, as ensure_running starts it
    if server._forkserver_pid is not None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(server._forkserver_pid, signal.SIGTERM)
        server._stop()  # closes its pipe, reaps it, removes its socket
    tracker = resource_tracker._resource_tracker
    if tracker._fd is None or tracker._pid is None:
        return
    os.close(tracker._fd)  # its end of the pipe: it exits once every holder has gone
    tracker._fd = None
    deadline = time.monotonic() + wait
    with contextlib.suppress(ChildProcessError):
        while not os.waitpid(tracker._pid, os.WNOHANG)[0] and time.monotonic() < deadline:
            time.sleep(0.01)  # a worker that still holds the pipe leaves it to end later
    tracker._pid = None


def call(fn, args: tuple, kwargs: dict) -> bytes:
    """A call as `run` takes it."""
    return pickle.dumps((fn, args, kwargs), protocol=pickle.HIGHEST_PROTOCOL)


def run(conn, env: dict[str, str], shared: tuple, payload: bytes) -> None:
    """A worker's entry point: send back (True, fn(*shared, *args)) or (False, exception).

    `shared` holds what may only reach a process as it starts (a multiprocessing queue).
    """
    os.environ.clear()
    os.environ.update(env)
    from rendering.core.lifetime import follow_parent

    follow_parent()  # the server ends with the driver, and this worker after it
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
