"""Rendering on a Dask cluster: a real LocalCluster with two worker processes, no mocks.

The workers load the tiny test scenes through PE_SCENE_PLUGINS=tests.plugin_scenes, as
any worker started by `dask worker` with that variable would.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from render import cli
from rendering.run import executors

distributed = pytest.importorskip("distributed")
pytestmark = pytest.mark.render
ROOT = Path(__file__).resolve().parent.parent
FOLDER = Path("en") / "480p15"


@pytest.fixture(scope="module")
def farm():
    """One cluster for the module: (scheduler address, a client to inspect and steer it)."""
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            scheduler_port=0,
            dashboard_address=":0",
            env={"PE_SCENE_PLUGINS": "tests.plugin_scenes"},
            silence_logs=logging.ERROR,
        ) as cluster,
        distributed.Client(cluster, set_as_default=False) as client,
    ):
        yield cluster.scheduler_address, client


def render(out: Path, *args: str):
    return CliRunner().invoke(cli, ["render", *args, "--output", str(out)], catch_exceptions=False)


def files(folder: Path) -> dict[str, str]:
    """Each file's digest: a clip's of what it shows and says, the manifest's without what
    differs from run to run (wall-clock timings, and the clip's size: see `decoded`)."""
    digests = {}
    for f in sorted(folder.iterdir()):
        if not f.is_file() or f.name.startswith("."):
            continue
        content = f.read_bytes()
        if f.suffix == ".mp4":
            content = decoded(f)
        elif f.name == "manifest.json":
            content = comparable(content)
        digests[f.name] = hashlib.sha256(content).hexdigest()
    return digests


def decoded(clip: Path) -> bytes:
    """Every decoded picture and sound sample. The H.264 bytes themselves can differ by a
    few bits between two renders of one scene that decode to the same pictures."""
    import av

    with av.open(str(clip)) as container:
        pictures = [f.to_ndarray(format="rgb24").tobytes() for f in container.decode(video=0)]
    with av.open(str(clip)) as container:
        tracks = container.streams.audio[:1]
        sound = [f.to_ndarray().tobytes() for f in container.decode(*tracks)] if tracks else []
    return b"".join(pictures + sound)


def comparable(manifest: bytes) -> bytes:
    data = json.loads(manifest)
    for variants in data["clips"].values():
        for entry in variants.values():
            assert entry.pop("animations"), "every rendered clip records its timings"
            assert entry.pop("bytes") > 0
    return json.dumps(data, sort_keys=True).encode()


def render_events(client) -> list[dict]:
    """What the workers reported to the drivers' topics (started, progress), oldest first."""
    events = client.get_events()
    return [
        msg for topic, log in events.items() if topic.startswith("pe-render-") for _, msg in log
    ]


def test_the_cluster_makes_the_same_outputs_and_manifest_as_a_local_run(
    farm, plugin_scenes, tmp_path
):
    address, client = farm
    args = ("tiny", "tiny-static", "--voice", "espeak")  # speech travels to the workers too
    local = render(tmp_path / "local", *args, "--jobs", "2")
    assert local.exit_code == 0, local.output
    seen = len(render_events(client))
    remote = render(tmp_path / "farm", *args, "--scheduler", address)
    assert remote.exit_code == 0, remote.output
    assert "2 rendered, 0 cached, 0 failed" in remote.output

    here, there = files(tmp_path / "local" / FOLDER), files(tmp_path / "farm" / FOLDER)
    assert {"tiny.mp4", "tiny-static.mp4", "tiny.png", "manifest.json"} <= set(there)
    assert there == here  # every clip, poster, subtitle, the manifest and the gallery
    manifest = json.loads((tmp_path / "farm" / FOLDER / "manifest.json").read_text())
    assert manifest["clips"]["tiny"]["mp4"]["voice"] == "espeak-ng en-us"
    assert not (tmp_path / "farm" / ".work").exists()

    # the jobs really ran on the cluster's workers, and reported progress per play call
    events = render_events(client)[seen:]
    workers = set(client.scheduler_info()["workers"])
    assert {e["worker"] for e in events if e["kind"] == "started"} <= workers
    assert sorted(e["index"] for e in events if e["kind"] == "started") == [0, 1]
    assert sum(e["kind"] == "progress" for e in events) >= 4

    again = render(tmp_path / "farm", *args, "--scheduler", address)
    assert again.exit_code == 0 and "0 rendered, 2 cached" in again.output


def test_a_worker_with_another_manim_is_refused(farm, plugin_scenes, tmp_path):
    address, client = farm
    from rendering.core import keys

    client.run(lambda: setattr(keys, "real_manim_version", keys.manim_version))
    client.run(lambda: setattr(keys, "manim_version", lambda: "0.18.0"))
    try:
        result = CliRunner().invoke(
            cli,
            ["render", "tiny", "--voice", "none", "--output", str(tmp_path)]
            + ["--scheduler", address],
        )
    finally:
        client.run(lambda: setattr(keys, "manim_version", keys.real_manim_version))
    assert result.exit_code == 1, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.output
    assert "error: tiny: refused by worker tcp://" in errors[0]
    assert f"its Manim (0.18.0; here {keys.manim_version()}) differs from this" in errors[0]
    assert "scripts/setup.sh" in errors[0]
    assert not (tmp_path / FOLDER / "tiny.mp4").exists()
    assert not (tmp_path / FOLDER / "manifest.json").exists()


def _slow_driver(address: str, out: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "render.py", "render", "slow", "--force", "--voice", "none"]
        + ["--output", str(out), "--scheduler", address],
        cwd=ROOT,
        env=dict(os.environ, PE_SCENE_PLUGINS="tests.plugin_scenes"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _busy_worker(client, flag: Path, proc: subprocess.Popen) -> str:
    """Wait until the slow scene sleeps on a worker; its address."""
    deadline = time.monotonic() + 90
    while not flag.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the slow job never started"
        time.sleep(0.1)
    busy = [w for w, keys in client.processing().items() if any("slow" in k for k in keys)]
    assert len(busy) == 1
    return busy[0]


@pytest.fixture
def slow_on_the_workers(farm, plugin_scenes, tmp_path):
    """The slow scene sleeps for a minute, on every worker, until the test says otherwise."""
    _, client = farm
    flag = tmp_path / "busy"
    client.run(lambda: os.environ.__setitem__("PE_TEST_SLOW", str(flag)))
    yield flag
    client.run(lambda: os.environ.pop("PE_TEST_SLOW", None), on_error="ignore")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _kill(client, worker: str, wait: bool = False) -> None:
    """SIGKILL a worker's process; with `wait`, until its nanny has started a fresh one."""
    pid = client.run(os.getpid, workers=[worker])[worker]
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 60
    while wait and (worker in client.scheduler_info()["workers"] or len(client.nthreads()) < 2):
        assert time.monotonic() < deadline, "the killed worker was not replaced"
        time.sleep(0.1)


def test_a_worker_killed_mid_job_is_retried_once_on_another_worker(
    farm, slow_on_the_workers, tmp_path
):
    address, client = farm
    out = tmp_path / "media"
    proc = _slow_driver(address, out)
    busy = _busy_worker(client, slow_on_the_workers, proc)
    client.run(lambda: os.environ.pop("PE_TEST_SLOW", None))  # the retry renders at once
    _kill(client, busy)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    assert f"warning: slow: its worker ({busy}) died mid-job; rendered again on tcp://" in stderr
    assert "1 rendered, 0 cached, 0 failed" in stdout
    folder = out / FOLDER
    entry = json.loads((folder / "manifest.json").read_text())["clips"]["slow"]["mp4"]
    assert entry["bytes"] == (folder / "slow.mp4").stat().st_size
    assert {f.name for f in folder.iterdir() if f.name.startswith("slow")} == {
        "slow.mp4",
        "slow.png",
        "slow.en.vtt",
        "slow.zh.vtt",
        "slow.en.srt",
        "slow.zh.srt",
    }
    assert not (out / ".work").exists()
    client.wait_for_workers(2, timeout=60)  # the nanny replaced the killed worker


def test_ctrl_c_cancels_the_cluster_jobs_and_keeps_the_published_files(
    farm, plugin_scenes, slow_on_the_workers, tmp_path
):
    address, client = farm
    out = tmp_path / "media"
    client.run(lambda: os.environ.pop("PE_TEST_SLOW", None))
    assert render(out, "slow", "--voice", "none", "--scheduler", address).exit_code == 0
    clip, manifest = out / FOLDER / "slow.mp4", out / FOLDER / "manifest.json"
    before = _digest(clip), manifest.read_bytes()
    client.run(lambda: os.environ.__setitem__("PE_TEST_SLOW", str(slow_on_the_workers)))

    proc = _slow_driver(address, out)
    busy = _busy_worker(client, slow_on_the_workers, proc)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "error: slow: interrupted" in stderr and "Traceback" not in stderr
    assert (_digest(clip), manifest.read_bytes()) == before
    assert not (out / ".work").exists()
    deadline = time.monotonic() + 30
    while any(client.processing().values()):  # the scheduler dropped the cancelled job
        assert time.monotonic() < deadline, client.processing()
        time.sleep(0.1)
    _kill(client, busy, wait=True)  # its thread still sleeps; a fresh worker takes its place


def test_an_unreachable_scheduler_is_one_line_and_exit_2(plugin_scenes, tmp_path):
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = CliRunner().invoke(
        cli,
        ["render", "tiny", "--voice", "none", "--output", str(tmp_path)],
        env={executors.SCHEDULER_ENV: f"tcp://127.0.0.1:{port}"},
    )
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f"error: cannot reach the Dask scheduler at tcp://127.0.0.1:{port} (Connection refused); "
        "start one with `dask scheduler`, or fix --scheduler / PE_DASK_SCHEDULER"
    ]
    assert not (tmp_path / FOLDER / "tiny.mp4").exists()


def test_a_course_plan_renders_every_set_on_the_cluster(farm, plugin_scenes, tmp_path):
    address, client = farm
    plan_file = tmp_path / "course.toml"
    plan_file.write_text(
        '[course]\nscenes = ["tiny"]\n[sets.paper]\n[sets.base100]\nbase = 100\n',
        encoding="utf-8",
    )
    seen = len(render_events(client))
    out = tmp_path / "media"
    result = render(out, "--plan", str(plan_file), "--voice", "none", "--scheduler", address)
    assert result.exit_code == 0, result.output
    assert "2 rendered, 0 cached, 0 failed" in result.output
    for name, base in (("paper", 10000.0), ("base100", 100.0)):
        folder = out / name / FOLDER
        entry = json.loads((folder / "manifest.json").read_text())["clips"]["tiny"]["mp4"]
        assert entry["params"]["base"] == base
        assert (folder / "tiny.mp4").stat().st_size == entry["bytes"]
        assert (folder / "index.html").is_file()
    started = [e for e in render_events(client)[seen:] if e["kind"] == "started"]
    assert len(started) == 2 and {e["worker"] for e in started} <= set(client.nthreads())
    assert not (out / ".work").exists()


def test_a_long_scene_is_split_across_the_cluster_and_joined_frame_for_frame(
    farm, plugin_scenes, tmp_path, monkeypatch
):
    from rendering.run import split

    address, client = farm
    monkeypatch.setattr(split, "MIN_PART_SECONDS", 0.0)  # the test scene is a few seconds
    args = ("tiny", "--voice", "espeak")
    assert render(tmp_path, *args, "--jobs", "1").exit_code == 0  # timings to split by
    clip = tmp_path / FOLDER / "tiny.mp4"
    whole = decoded(clip)
    seen = len(render_events(client))
    result = render(tmp_path, *args, "--force", "--scheduler", address)
    assert result.exit_code == 0, result.output
    entry = json.loads((tmp_path / FOLDER / "manifest.json").read_text())["clips"]["tiny"]["mp4"]
    assert entry["parts"] == 2
    started = [e for e in render_events(client)[seen:] if e["kind"] == "started"]
    assert len(started) == 2  # one task per span, each on a worker of the cluster
    assert decoded(clip) == whole  # the same pictures, and the same sound
    assert not (tmp_path / ".work").exists()
