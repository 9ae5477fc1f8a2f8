"""Local workers: forked from a server that imported the heavy libraries, yet each with
the driver's environment as it is when the worker starts."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from rendering.run import child
from rendering.run.executors import ProcessPerJob


def probe() -> tuple[str | None, bool, int]:
    """What a worker sees: the plugins variable, whether its scene registered, its parent."""
    from lesson import registry

    known = any(info.slug == "tiny" for info in registry.ordered())
    return os.environ.get("PE_SCENE_PLUGINS"), known, os.getppid()


def test_a_worker_is_forked_warm_and_reads_the_environment_of_its_start(monkeypatch):
    monkeypatch.delenv("PE_SCENE_PLUGINS", raising=False)
    child.warm_up()  # the server may keep the environment of this moment
    monkeypatch.setenv("PE_SCENE_PLUGINS", "tests.plugin_scenes")
    pool = ProcessPerJob(1)
    try:
        plugins, known, parent = pool.submit(probe).result(timeout=120)
    finally:
        pool.shutdown()
    assert plugins == "tests.plugin_scenes"
    assert known  # the scenes registry was imported after the environment was taken on
    assert parent != os.getpid()
    assert "forkserver" in Path(f"/proc/{parent}/cmdline").read_text()


def test_a_call_that_cannot_be_sent_fails_its_future_and_the_next_one_runs():
    pool = ProcessPerJob(1)
    try:
        with pytest.raises((pickle.PicklingError, AttributeError)):
            pool.submit(probe, lambda: None).result(timeout=60)
        assert pool.submit(os.getpid).result(timeout=120) > 0
    finally:
        pool.shutdown()
