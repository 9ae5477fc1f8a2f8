"""End-to-end renders through the driver: validation, manifest, cache, faults, parallel jobs."""

import contextlib
import hashlib
import json
import os
import pickle
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import av
import pytest
from click.testing import CliRunner

from lesson import text_store
from pe_math import Params
from render import cli
from rendering.core.files import quick_digest
from rendering.core.jobs import Job
from rendering.core.manifest import Manifest
from rendering.run.plan import plan

pytestmark = pytest.mark.render
ROOT = Path(__file__).resolve().parent.parent


def render(out: Path, *args: str):
    # silent: these tests are about the pipeline; test_narration covers the voices
    return CliRunner().invoke(
        cli, ["render", *args, "--voice", "none", "--output", str(out)], catch_exceptions=False
    )


def manifest(out: Path, lang: str = "en", folder: str = "480p15") -> dict:
    return json.loads((out / lang / folder / "manifest.json").read_text(encoding="utf-8"))


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def decode(path: Path) -> tuple[int, int, int]:
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        frames = sum(1 for _ in container.decode(stream))
        return frames, stream.codec_context.width, stream.codec_context.height


def test_a_rendered_clip_decodes_and_matches_its_manifest_entry(
    plugin_scenes, tmp_path, monkeypatch
):
    monkeypatch.delenv(text_store.CACHE_ENV)  # as a teacher's shell has it
    old_umask = os.umask(0o022)
    try:
        result = render(tmp_path, "tiny")
    finally:
        os.umask(old_umask)
    assert result.exit_code == 0, result.output
    folder = tmp_path / "en" / "480p15"
    entry = manifest(tmp_path)["clips"]["tiny"]["mp4"]
    clip = folder / entry["file"]
    assert clip.name == "tiny.mp4"
    frames, width, height = decode(clip)
    assert (width, height) == (entry["width"], entry["height"]) == (854, 480)
    assert frames == entry["frames"]
    assert entry["duration"] == pytest.approx(frames / 15, abs=1e-3) == pytest.approx(2.5, abs=0.1)
    assert entry["bytes"] == clip.stat().st_size
    assert [k for k, _ in entry["beats"]] == ["one", "two"]
    assert entry["params"] == {"d_model": 8, "base": 10000.0}
    assert (folder / entry["poster"]).stat().st_size > 0
    assert entry["captions"]["vtt"] == {"zh": "tiny.zh.vtt", "en": "tiny.en.vtt"}
    assert "第一拍" in (folder / "tiny.zh.vtt").read_text(encoding="utf-8")
    assert not (tmp_path / ".work").exists()
    assert list((tmp_path / text_store.FOLDER).glob("*.sealed"))  # the words, for next time
    # published as a web server can serve them, not 0600 as temporary files are made
    modes = {
        f.name: f.stat().st_mode & 0o777 for f in folder.iterdir() if not f.name.startswith(".")
    }
    assert {"tiny.mp4", "manifest.json", "index.html", "tiny.en.vtt"} <= set(modes)
    assert set(modes.values()) == {0o644}, modes


class Planted:
    """What an attacker leaves in a shared text cache: unpickled, it writes a file."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def test_planted_or_wrong_text_cache_entries_are_never_unpickled_and_are_set_again(
    plugin_scenes, tmp_path, monkeypatch
):
    from manim import Text

    from lesson import sealed

    monkeypatch.delenv(text_store.CACHE_ENV)  # the render keeps words in <output>/.text
    out, marker = tmp_path / "out", tmp_path / "code-ran"
    assert render(out, "tiny").exit_code == 0
    (entry,) = (out / text_store.FOLDER).glob(f"*{text_store.SUFFIX}")
    whole = entry.read_bytes()
    bad = {
        "an unsealed pickle": pickle.dumps(Planted(marker)),
        "sealed, of the wrong kind": sealed.seal(entry.stem, pickle.dumps({"x": 1})),
        "sealed for another entry": sealed.seal("0" * 64, sealed.unseal(entry.stem, whole)),
    }
    for case, data in bad.items():
        entry.write_bytes(data)
        result = render(out, "tiny", "--force")
        assert result.exit_code == 0, (case, result.output)
        assert not marker.exists(), case
        value = pickle.loads(sealed.unseal(entry.stem, entry.read_bytes()))
        assert isinstance(value, Text), case  # set again and sealed afresh


def test_cache_skips_unchanged_and_rerenders_only_scenes_reading_a_changed_knob(
    plugin_scenes, tmp_path
):
    assert render(tmp_path, "tiny", "tiny-static", "--jobs", "2").exit_code == 0
    first = manifest(tmp_path)["clips"]

    def planned(**overrides):
        params = Params.load(overrides={k: str(v) for k, v in overrides.items()})
        return {
            p.job.slug: (p.cached, p.reason)
            for p in plan([Job("tiny", params), Job("tiny-static", params)], tmp_path)
        }

    assert planned() == {"tiny": (True, "up to date"), "tiny-static": (True, "up to date")}
    assert render(tmp_path, "tiny", "tiny-static").exit_code == 0
    assert manifest(tmp_path)["clips"] == first  # nothing re-rendered, nothing rewritten

    assert planned(base=100) == {
        # the beats say which knob changed and from which beat on the frames read it
        "tiny": (False, "knob base changed (read from beat 'one' on); all 2 beats to draw"),
        "tiny-static": (True, "up to date"),
    }
    assert render(tmp_path, "tiny", "tiny-static", "--set", "base=100").exit_code == 0
    second = manifest(tmp_path)["clips"]
    assert second["tiny"]["mp4"]["key"] != first["tiny"]["mp4"]["key"]
    assert second["tiny"]["mp4"]["params"]["base"] == 100.0
    assert second["tiny-static"] == first["tiny-static"]


def test_a_knob_the_build_reads_makes_the_clip_out_of_date_though_the_registry_omits_it(
    plugin_scenes, tmp_path, monkeypatch
):
    """The clip key holds the knobs its build read, not the registry's list of fields:
    a scene that reads a field it does not declare is still drawn again when it changes."""
    import dataclasses

    from lesson import registry

    info = registry.get("tiny-static")
    monkeypatch.setitem(registry.REGISTRY, info.slug, dataclasses.replace(info, fields=()))
    assert render(tmp_path, "tiny-static").exit_code == 0
    assert manifest(tmp_path)["clips"]["tiny-static"]["mp4"]["params"] == {"n_bits": 4}

    def cached(**overrides) -> bool:
        params = Params.load(overrides={k: str(v) for k, v in overrides.items()})
        return plan([Job("tiny-static", params)], tmp_path)[0].cached

    assert cached() and cached(base=100)  # a knob it does not read
    assert not cached(n_bits=5)
    assert render(tmp_path, "tiny-static", "--set", "n_bits=5").exit_code == 0
    assert manifest(tmp_path)["clips"]["tiny-static"]["mp4"]["params"] == {"n_bits": 5}
    assert cached(n_bits=5)


def test_verify_draws_a_clip_whole_and_names_a_clip_that_differs(plugin_scenes, tmp_path):
    """--verify compares the clip in place with one drawn whole in a scratch folder: the
    same says so in a line; one that differs is a one-line error and exit 1."""
    out, other = tmp_path / "out", tmp_path / "other"
    assert render(out, "tiny-static").exit_code == 0
    runner = CliRunner()
    args = ["render", "tiny-static", "--voice", "none", "--output", str(out), "--verify"]
    same = runner.invoke(cli, args)
    assert same.exit_code == 0, same.output + same.stderr
    assert "verify: tiny-static: every frame and sound sample as a whole render" in same.output
    assert not list(out.glob(".verify-*"))  # the scratch folder went with the check
    dry = runner.invoke(cli, [*args, "--dry-run"])
    assert dry.exit_code == 2
    assert dry.stderr.strip().endswith(
        "--verify draws each clip again to compare it; drop --dry-run or --verify"
    )
    assert render(other, "tiny-static", "--set", "n_bits=7").exit_code == 0
    clip = Path("en") / "480p15" / "tiny-static.mp4"
    (out / clip).write_bytes((other / clip).read_bytes())  # a wrong clip, still "up to date":
    with Manifest.update(out / clip.parent) as kept:  # as a wrongly drawn beat would leave it
        entry = kept.clips["tiny-static"]["mp4"]
        entry["bytes"], entry["digest"] = (out / clip).stat().st_size, quick_digest(out / clip)
    wrong = runner.invoke(cli, args)
    assert wrong.exit_code == 1
    (line,) = wrong.stderr.strip().splitlines()
    assert re.fullmatch(
        r"error: verify: tiny-static: frame \d+ \(\d+\.\d\d s\) differs from a whole render; "
        r"run `render tiny-static --force` to redraw it",
        line,
    ), line


def test_a_cached_clips_subtitles_are_rewritten_as_its_render_wrote_them(tmp_path):
    """A cached clip's subtitles are written again from its manifest entry (the other
    language's words may have changed), so its render writes them from the same
    recorded (rounded) length: a refresh with nothing changed leaves them as they were."""
    from rendering.draw.scene import RenderResult
    from rendering.run.install import install, refresh_sidecars
    from tests.videos import synthetic

    job = Job("lesson-intro", Params())
    clip = synthetic(tmp_path / "clip.mp4", 4)
    # a length whose rounding to the millisecond moves a Chinese clause's cue
    result = RenderResult(
        str(clip), None, 106 / 15, 106, 64, 32, 15, [["welcome", 0.0], ["chapters", 3.0]]
    )
    out = tmp_path / "out"
    install(job, result, out)
    folder = job.out_dir(out)

    def subtitles() -> dict[str, str]:
        return {p.name: p.read_text(encoding="utf-8") for p in folder.glob("*.[sv][rt]t")}

    written = subtitles()
    assert len(written) == 4  # vtt and srt in both languages
    refresh_sidecars(job, out)
    assert subtitles() == written


def test_two_parallel_jobs_make_distinct_correct_clips(plugin_scenes, tmp_path):
    assert render(tmp_path, "tiny", "tiny-static", "--jobs", "2").exit_code == 0
    clips = manifest(tmp_path)["clips"]
    folder = tmp_path / "en" / "480p15"
    tiny, static = (
        folder / clips["tiny"]["mp4"]["file"],
        folder / clips["tiny-static"]["mp4"]["file"],
    )
    assert digest(tiny) != digest(static)
    # Tiny plays 2.5 s, TinyStatic 1.5 s, at 15 fps
    assert decode(tiny)[0] == clips["tiny"]["mp4"]["frames"] == pytest.approx(2.5 * 15, abs=1)
    assert (
        decode(static)[0] == clips["tiny-static"]["mp4"]["frames"] == pytest.approx(1.5 * 15, abs=1)
    )


def _driver(out: Path, flag: Path, *extra: str) -> subprocess.Popen:
    env = dict(os.environ, PE_SCENE_PLUGINS="tests.plugin_scenes", PE_TEST_SLOW=str(flag))
    return subprocess.Popen(
        [sys.executable, "render.py", "render", "slow", "--force", "--voice", "none"]
        + ["--output", str(out), *extra],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _wait_for(flag: Path, proc: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not flag.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the worker never started"
        time.sleep(0.1)


def _children(pid: int) -> list[int]:
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.append(int(stat.parent.name))
    return kids


@pytest.fixture
def good_slow_clip(plugin_scenes, tmp_path):
    out = tmp_path / "media"
    assert render(out, "slow").exit_code == 0
    clip = out / "en" / "480p15" / "slow.mp4"
    return out, clip, digest(clip), (out / "en" / "480p15" / "manifest.json").read_bytes()


def test_a_killed_worker_leaves_the_previous_output_untouched(good_slow_clip, tmp_path):
    out, clip, before, manifest_before = good_slow_clip
    flag = tmp_path / "busy"
    proc = _driver(out, flag)
    _wait_for(flag, proc)
    workers = _workers(proc.pid)
    assert workers, "no worker process found"
    for pid in workers:
        os.kill(pid, signal.SIGKILL)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert "slow: worker died" in stderr
    assert digest(clip) == before
    assert (out / "en" / "480p15" / "manifest.json").read_bytes() == manifest_before
    assert not (out / ".work").exists()


def test_an_interrupted_driver_leaves_the_previous_output_untouched(good_slow_clip, tmp_path):
    out, clip, before, manifest_before = good_slow_clip
    flag = tmp_path / "busy"
    proc = _driver(out, flag)
    _wait_for(flag, proc)
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C reaches the driver and its workers
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "interrupted" in stderr
    assert digest(clip) == before
    assert (out / "en" / "480p15" / "manifest.json").read_bytes() == manifest_before
    assert not (out / ".work").exists()


def _session(sid: int) -> list[str]:
    """The processes of session `sid` still alive (zombies have ended), as their commands."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            alive.append(command[:120])
    return alive


# the render, with a hang-up handled as a terminal's session has it (not nohup's)
AS_IN_A_TERMINAL = (
    "import runpy, signal, sys; signal.signal(signal.SIGHUP, signal.SIG_DFL); "
    "sys.argv = sys.argv[1:]; runpy.run_path('render.py', run_name='__main__')"
)


@pytest.mark.parametrize(
    ("phase", "stop"),
    [("speech", "SIGHUP"), ("speech", "SIGKILL"), ("drawing", "SIGKILL")],
)
def test_no_process_of_a_render_outlives_its_hang_up_or_kill(tmp_path, phase, stop):
    """Speech workers blocked on their pipe, and drawing workers forked by the server,
    end with the driver, however it ended."""
    flag = tmp_path / "busy"
    scene, voice = ("tiny", "kokoro") if phase == "speech" else ("slow", "none")
    proc = subprocess.Popen(
        [sys.executable, "-c", AS_IN_A_TERMINAL, "render.py", "render", scene, "-q", "t"]
        + ["--voice", voice, "-j", "1", "--output", str(tmp_path / "media")],
        cwd=ROOT,
        # tiny's few sentences are spoken by a pool, as a chapter's are
        env=dict(
            os.environ,
            PE_SCENE_PLUGINS="tests.plugin_scenes",
            PE_TEST_SLOW=str(flag),
            PE_SPEECH_POOL_FROM="2",
        ),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        if phase == "speech":  # two workers speak (the cache is new), each loading the voice
            deadline = time.monotonic() + 60
            while sum("spawn_main" in c for c in _session(proc.pid)) < 2:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.1)
            time.sleep(1.0)
        else:
            _wait_for(flag, proc)
        os.kill(proc.pid, getattr(signal, stop))
        proc.wait(timeout=30)
        deadline = time.monotonic() + 10
        while _session(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _session(proc.pid) == []
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


def _workers(pid: int) -> list[int]:
    """The driver's workers: forked by its forkserver, a child of the driver (child.py)."""
    servers = [k for k in _children(pid) if "forkserver" in Path(f"/proc/{k}/cmdline").read_text()]
    return [k for server in servers for k in _children(server)]


def _gone(pids: list[int], seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(Path(f"/proc/{p}").exists() and _state(p) != "Z" for p in pids):
            return True
        time.sleep(0.2)
    return False


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "X"


def test_sigterm_stops_the_driver_like_ctrl_c(good_slow_clip, tmp_path):
    out, clip, before, manifest_before = good_slow_clip
    flag = tmp_path / "busy"
    proc = _driver(out, flag)
    _wait_for(flag, proc)
    workers = _workers(proc.pid)
    os.kill(proc.pid, signal.SIGTERM)  # the driver only, as a service manager would
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    assert _gone(workers)
    assert digest(clip) == before
    assert (out / "en" / "480p15" / "manifest.json").read_bytes() == manifest_before


def test_workers_exit_when_the_driver_is_killed_and_a_later_run_sweeps_their_folders(
    good_slow_clip, tmp_path
):
    out, clip, before, _ = good_slow_clip
    flag = tmp_path / "busy"
    proc = _driver(out, flag)
    _wait_for(flag, proc)
    workers = _workers(proc.pid)
    assert workers
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=30)
    assert _gone(workers), "a worker kept rendering after its driver died"
    assert digest(clip) == before
    # a folder of a driver that died before it could clean up, as after a power cut
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], **TEXT)
    stale = out / ".work" / f"{dead.stdout.strip()}-0-slow"
    (stale / "manim").mkdir(parents=True)
    assert render(out, "tiny").exit_code == 0
    assert not stale.exists()


TEXT = {"capture_output": True, "text": True, "check": True}


def _in_group(pgid: int) -> list[int]:
    """Live processes (not zombies) of process group `pgid`."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state, _, group = stat.read_text().rsplit(")", 1)[1].split()[:3]
        except (OSError, ValueError):
            continue
        if int(group) == pgid and state != "Z":
            found.append(int(stat.parent.name))
    return found


def test_a_render_ends_its_worker_server_with_it_and_a_cached_one_starts_none(
    plugin_scenes, tmp_path, monkeypatch
):
    from rendering.run import child

    out = tmp_path / "media"
    command = [sys.executable, "render.py", "render", "tiny", "--voice", "none", "--output"]
    for args in ((), ("--force",)):  # each draws on a worker
        proc = subprocess.Popen(
            [*command, str(out), *args], cwd=ROOT, start_new_session=True, text=True
        )
        assert proc.wait(timeout=120) == 0
        assert _in_group(proc.pid) == [], "a process outlived the command"

    def no_workers():
        raise AssertionError("a render with nothing to draw started the worker server")

    monkeypatch.setattr(child, "context", no_workers)
    result = render(out, "tiny")
    assert result.exit_code == 0, result.output
    assert "cached" in result.output


def test_a_command_that_ends_holding_a_lock_ends_without_a_traceback():
    """A failed render can end with one of its locks still held: the warm server's
    resource tracker once unlinked it as leaked, and its finalizer printed a traceback."""
    script = (
        "from rendering.cli import end\n"
        "from rendering.run import child\n"
        "held = child.context().Lock()\n"
        "child.warm_up()\n"
        "end(1)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 1 and run.stderr == "", run.stderr
