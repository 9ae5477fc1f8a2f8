"""Where render tasks run: local worker processes, or the workers of a Dask cluster.

Both backends have one interface (`Executor`): `submit(task)` returns a
`concurrent.futures.Future` that ends with a `worker.Rendered`, or raises
`worker.JobFailed` (the job's own failure, one line) or `WorkerDied` (the process
running it vanished); `events()` drains what running tasks reported (`Started`,
`Progressed`); `cancel()` stops everything not finished (Ctrl-C); `close()` releases
the processes or the connection.

- `LocalExecutor`: one fresh process per task, at most `slots` at a time, behind a
  `concurrent.futures.Executor` (`ProcessPerJob`), forked from a server that has the
  heavy libraries imported (child.py). A fresh process per job keeps Manim's global
  state apart; a killed process fails only its own job (a `ProcessPoolExecutor` would
  break the whole pool), and Ctrl-C can stop exactly the running processes.
- `DaskExecutor`: a `distributed.Client` connected to an existing scheduler. Workers
  share no disk with the client: each renders into a temporary folder and returns the
  files' bytes, and the client checks and installs them like local outputs. Progress
  comes back as Dask events (`Worker.log_event` / `Client.subscribe_topic`), per
  `play` call as locally. A worker that dies mid-task makes the scheduler run the task
  again elsewhere; the driver (`scheduler.Runner`) allows that once.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import queue as queue_mod
import re
import socket
import threading
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import wait as wait_any
from typing import Any

from rendering.run import child
from rendering.run.task import Events, JobFailed, Task, run_task

SCHEDULER_ENV = "PE_DASK_SCHEDULER"
CONNECT_TIMEOUT = 10.0  # seconds to reach a scheduler before giving up


class WorkerDied(RuntimeError):
    """The process running a task ended without a result (killed, out of memory)."""


class ExecutorError(RuntimeError):
    """An executor that cannot start (e.g. an unreachable scheduler); one line: cause and fix."""


@dataclass(frozen=True)
class Started:
    index: int
    worker: str  # "local", or the Dask worker's address


@dataclass(frozen=True)
class Progressed:
    index: int
    seconds: float  # scene time rendered so far


Event = Started | Progressed


class Executor:
    """Runs `worker.Task`s; see the module docstring for the contract."""

    remote = False  # True: results carry the files' bytes, not paths beside the outputs
    name = "local"
    slots = 1  # tasks that can run at once

    def submit(self, task: Task, priority: float = 0.0) -> cf.Future:
        """Start `task` when a worker is free; higher `priority` first where the backend can."""
        raise NotImplementedError

    def events(self) -> list[Event]:
        raise NotImplementedError

    def cancel(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def connect(scheduler: str | None, jobs: int) -> Executor:
    """A Dask executor when a scheduler address is given, else `jobs` local processes."""
    if scheduler:
        return DaskExecutor(scheduler)
    return LocalExecutor(jobs)


# ----------------------------------------------------------------- local
class QueueEvents(Events):
    """Task events through a multiprocessing queue shared by the local worker processes."""

    def __init__(self, queue) -> None:
        self.queue = queue

    def started(self, index: int, worker: str) -> None:
        self.queue.put(Started(index, worker))

    def progress(self, index: int, seconds: float) -> None:
        self.queue.put(Progressed(index, seconds))


def _local_task(queue, task: Task):
    return run_task(task, QueueEvents(queue), "local")


class LocalExecutor(Executor):
    """Tasks in fresh local processes, `slots` at a time, in the order they were submitted."""

    def __init__(self, slots: int) -> None:
        ctx = child.context()
        self.queue = ctx.Queue()
        self.pool = ProcessPerJob(slots, ctx, shared=(self.queue,))
        self.slots = self.pool.slots

    def submit(self, task: Task, priority: float = 0.0) -> cf.Future:
        return self.pool.submit(_local_task, task)  # in submission order

    def events(self) -> list[Event]:
        out = []
        while True:
            try:
                out.append(self.queue.get_nowait())
            except queue_mod.Empty:
                return out

    def cancel(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.pool.kill()

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)
        self.queue.close()


class ProcessPerJob(cf.Executor):
    """A concurrent.futures Executor running every call in a new process, `slots` at a time.

    A supervisor thread starts processes as slots free up and settles each future from the
    process's pipe: its result, its exception, or `WorkerDied` with the exit code when the
    process ended without a word. Each call runs as `fn(*shared, *args, **kwargs)` with the
    environment this process has when it starts; `shared` holds what may only reach a
    process as it starts (a multiprocessing queue).
    """

    def __init__(self, slots: int, ctx=None, shared: tuple = ()) -> None:
        self.ctx = ctx or child.context()
        self.shared = shared
        self.slots = max(1, slots)
        self.lock = threading.Lock()
        self.pending: deque[tuple[cf.Future, Callable, tuple, dict]] = deque()
        self.running: dict[cf.Future, tuple[Any, Any]] = {}  # future -> (process, pipe)
        self.closed = False
        self.thread = threading.Thread(target=self._supervise, name="process-per-job", daemon=True)
        self.thread.start()

    def submit(self, fn, /, *args, **kwargs) -> cf.Future:
        future: cf.Future = cf.Future()
        with self.lock:
            if self.closed:
                raise RuntimeError("cannot submit after shutdown")
            self.pending.append((future, fn, args, kwargs))
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self.lock:
            self.closed = True
            dropped = list(self.pending) if cancel_futures else []
            if cancel_futures:
                self.pending.clear()
        for future, *_ in dropped:
            future.cancel()
            future.set_running_or_notify_cancel()
        if wait:
            self.thread.join()

    def kill(self) -> None:
        """Stop every running process now (terminate, then kill); their futures fail."""
        with self.lock:
            processes = [process for process, _ in self.running.values()]
        for process in processes:
            process.terminate()
        for process in processes:
            process.join(timeout=3)
            if process.is_alive():
                process.kill()
                process.join()

    def _supervise(self) -> None:
        while True:
            with self.lock:
                if self.closed and not self.pending and not self.running:
                    return
                self._start_ready()
                watched = {}
                for future, (process, conn) in self.running.items():
                    watched[conn] = watched[process.sentinel] = future
            for ready in wait_any(list(watched), timeout=0.1) if watched else ():
                self._collect(watched[ready])
            if not watched:
                threading.Event().wait(0.05)

    def _start_ready(self) -> None:
        while self.pending and len(self.running) < self.slots:
            future, fn, args, kwargs = self.pending.popleft()
            if not future.set_running_or_notify_cancel():
                continue  # cancelled while it waited
            try:
                payload = child.call(fn, args, kwargs)
            except Exception as exc:  # noqa: BLE001 - e.g. an argument that cannot be pickled
                future.set_exception(exc)
                continue
            receive, send = self.ctx.Pipe(duplex=False)
            start = (send, dict(os.environ), self.shared, payload)
            process = self.ctx.Process(target=child.run, args=start, daemon=True)
            try:
                process.start()
            except OSError as exc:
                future.set_exception(WorkerDied(f"could not start a worker process ({exc})"))
                continue
            finally:
                send.close()
            self.running[future] = (process, receive)

    def _collect(self, future: cf.Future) -> None:
        with self.lock:
            entry = self.running.get(future)
            if entry is None:
                return
            process, conn = entry
            outcome = None
            try:
                if conn.poll():
                    outcome = conn.recv()
            except (EOFError, OSError):
                pass
            if outcome is None and process.is_alive():
                return  # woken by nothing final
            del self.running[future]
        process.join(timeout=5)
        conn.close()
        if outcome is None:
            future.set_exception(WorkerDied(_died(process.exitcode)))
        elif outcome[0]:
            future.set_result(outcome[1])
        else:
            future.set_exception(outcome[1])


def _died(exitcode: int | None) -> str:
    return f"worker died (exit code {exitcode}); rerun, or lower --jobs if memory ran out"


# ----------------------------------------------------------------- Dask
class DaskEvents(Events):
    """Task events as Dask worker events on a topic the client subscribed to."""

    def __init__(self, topic: str) -> None:
        self.topic = topic

    def _log(self, msg: dict) -> None:
        from distributed import get_worker

        get_worker().log_event(self.topic, msg)

    def started(self, index: int, worker: str) -> None:
        self._log({"kind": "started", "index": index, "worker": worker})

    def progress(self, index: int, seconds: float) -> None:
        self._log({"kind": "progress", "index": index, "seconds": float(seconds)})


def dask_task(task: Task, topic: str):
    """Runs on a Dask worker: render into a temporary folder, return the files' bytes."""
    from distributed import get_worker

    return run_task(task, DaskEvents(topic), get_worker().address)


class DaskExecutor(Executor):
    """Tasks on an existing Dask cluster, through a client connected to its scheduler."""

    remote = True

    def __init__(self, address: str, timeout: float | None = None) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise ExecutorError(
                "the distributed package is missing; run scripts/setup.sh or pip install -e ."
            ) from None
        self.name = address
        timeout = CONNECT_TIMEOUT if timeout is None else timeout
        unreachable = (
            f"cannot reach the Dask scheduler at {address} ({{}}); start one with "
            f"`dask scheduler`, or fix --scheduler / {SCHEDULER_ENV}"
        )
        probe(address, timeout, unreachable)
        try:
            self.client = Client(address, timeout=timeout, set_as_default=False)
        except Exception as exc:  # noqa: BLE001 - OSError, TimeoutError: one line
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ExecutorError(unreachable.format(reason)) from None
        self.topic = f"pe-render-{uuid.uuid4().hex[:12]}"
        self.inbox: queue_mod.SimpleQueue = queue_mod.SimpleQueue()
        self.client.subscribe_topic(self.topic, lambda event: self.inbox.put(event[1]))
        self.futures: dict[str, Any] = {}  # key -> Dask future, until it settles
        self.slots = max(1, sum(self.client.nthreads().values()))
        self.lock = threading.Lock()  # futures settle in Dask's callback threads

    def submit(self, task: Task, priority: float = 0.0) -> cf.Future:
        key = f"render-{task.job.info.stem}-{uuid.uuid4().hex[:8]}"
        future = self.client.submit(
            dask_task, task, self.topic, key=key, pure=False, retries=0, priority=priority
        )
        with self.lock:
            self.futures[key] = future
        return self._wrap(future)

    def _wrap(self, future) -> cf.Future:
        """A concurrent.futures Future settled when the Dask future does."""
        settled: cf.Future = cf.Future()

        def settle(done) -> None:
            with self.lock:
                self.futures.pop(done.key, None)
            if settled.done():
                return
            if done.status == "finished":
                settled.set_result(done.result())
            elif done.status == "cancelled":
                settled.cancel()
                settled.set_running_or_notify_cancel()
            else:
                settled.set_exception(_translate(done.exception()))

        def cancel_remote(f: cf.Future) -> None:
            if f.cancelled() and future.status != "cancelled":
                future.cancel()

        settled.add_done_callback(cancel_remote)
        future.add_done_callback(settle)
        return settled

    def events(self) -> list[Event]:
        out: list[Event] = []
        while True:
            try:
                msg = self.inbox.get_nowait()
            except queue_mod.Empty:
                return out
            if msg.get("kind") == "started":
                out.append(Started(int(msg["index"]), str(msg["worker"])))
            elif msg.get("kind") == "progress":
                out.append(Progressed(int(msg["index"]), float(msg["seconds"])))

    def cancel(self) -> None:
        with self.lock:
            futures = list(self.futures.values())
        if futures:
            self.client.cancel(futures, force=True)

    def close(self) -> None:
        try:
            self.client.unsubscribe_topic(self.topic)
        except Exception:  # noqa: BLE001 - closing anyway
            pass
        self.client.close(timeout=CONNECT_TIMEOUT)


def _translate(exc: BaseException) -> BaseException:
    """Dask's KilledWorker (the task's workers kept dying) as our WorkerDied."""
    if isinstance(exc, JobFailed):
        return exc
    if type(exc).__name__ == "KilledWorker":
        return WorkerDied(
            "its workers died while rendering it; check the workers' memory and logs, then rerun"
        )
    return JobFailed(f"{type(exc).__name__}: {exc}")


ADDRESS = re.compile(r"^(?:(tcp|tls|ws|wss)://)?(\[[0-9a-fA-F:]+\]|[^:/\s\[\]]+):(\d{1,5})$")


def probe(address: str, timeout: float, unreachable: str) -> None:
    """Fail in one line, without waiting out the timeout, on a bad or refusing address."""
    match = ADDRESS.match(address.strip())
    if match is None:
        raise ExecutorError(
            f"{address!r} is not a scheduler address; give it as tcp://HOST:8786 "
            f"(--scheduler or {SCHEDULER_ENV})"
        )
    host, port = match.group(2).strip("[]"), int(match.group(3))
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except socket.gaierror:
        raise ExecutorError(unreachable.format(f"unknown host {host}")) from None
    except TimeoutError:
        raise ExecutorError(unreachable.format(f"no answer in {timeout:g} s")) from None
    except OSError as exc:
        raise ExecutorError(unreachable.format(exc.strerror or str(exc))) from None
