"""`render.py watch`: a saved edit becomes a new clip on the live page; a bad one does not.

The watcher runs as a teacher runs it, in its own process, on a tiny plugin scene whose
words are a course's own copy (PE_CAPTIONS). The test reads the page's event stream.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from queue import Empty, Queue

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.render


def events(url: str, into: Queue) -> None:
    with urllib.request.urlopen(url + "events", timeout=300) as stream:
        for raw in stream:
            line = raw.decode().strip()
            if line.startswith("data: "):
                into.put(json.loads(line.removeprefix("data: ")))


def next_event(messages: Queue, kind: str, within: float = 180.0) -> dict:
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            message = messages.get(timeout=1.0)
        except Empty:
            continue
        if message["type"] == kind:
            return message
    raise AssertionError(f"no {kind!r} event within {within:.0f} s")


def children_of(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True)
    return [int(p) for p in out.stdout.split()]


def test_a_saved_line_reloads_the_page_at_its_beat_and_a_broken_one_keeps_the_clip(tmp_path):
    words = tmp_path / "words" / "en"
    words.mkdir(parents=True)
    line = words / "tiny.toml"
    shutil.copy(ROOT / "tests" / "captions" / "en" / "tiny.toml", line)
    env = {
        **os.environ,
        "PE_SCENE_PLUGINS": "tests.plugin_scenes",
        "PE_CAPTIONS": str(tmp_path / "words"),
    }
    out = tmp_path / "out"
    cmd = [sys.executable, "render.py", "watch", "tiny", "--voice", "espeak", "--port", "0"]
    watcher = subprocess.Popen(
        [*cmd, "--output", str(out)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    lines: Queue = Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in watcher.stdout], daemon=True).start()
    try:
        first = lines.get(timeout=60)
        url = re.search(r"open (http://127\.0\.0\.1:\d+/)", first).group(1)
        page = urllib.request.urlopen(url, timeout=10).read().decode()
        assert 'id="clip-tiny"' in page and "<script>" in page
        assert "http:" not in page and "https:" not in page  # nothing fetched from outside
        messages: Queue = Queue()
        threading.Thread(target=events, args=(url, messages), daemon=True).start()
        shown = next_event(messages, "clip")  # the first look renders it
        clip = out / "en" / "480p15" / "90-tiny.mp4"
        assert clip.exists() and shown["src"].startswith("/media/en/480p15/90-tiny.mp4")

        time.sleep(1.1)  # a new mtime on file systems that keep whole seconds
        line.write_text(line.read_text().replace("adds a square.", "adds a square under it."))
        saved = time.monotonic()
        changed = next_event(messages, "clip")
        took = time.monotonic() - saved
        assert changed["beat"] == "two" and changed["at"] > 0, changed
        assert changed["src"] != shown["src"]
        with urllib.request.urlopen(url + changed["src"].lstrip("/").split("?")[0]) as got:
            assert got.read() == clip.read_bytes()
        print(f"save to new clip: {took:.1f} s")

        good = clip.read_bytes()
        time.sleep(1.1)
        line.write_text(line.read_text().replace("[say]", "[say"))  # a TOML error
        problem = next_event(messages, "error")
        assert "tiny.toml is not valid TOML" in problem["message"], problem
        assert clip.read_bytes() == good  # the last good clip stays
    finally:
        os.killpg(watcher.pid, signal.SIGINT)
        watcher.wait(timeout=60)
    said = []
    while not lines.empty():
        said.append(lines.get())
    assert any("error:" in x and "not valid TOML" in x for x in said), said
    assert not children_of(watcher.pid)
    assert not (out / ".work").exists() or not any((out / ".work").iterdir())


def test_a_taken_port_is_one_line_and_exit_2(tmp_path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        run = subprocess.run(
            [sys.executable, "render.py", "watch", "clock-hands", "--port", port],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [
        f"error: cannot serve the live page on port {port} (Address already in use); "
        "pass --port with another number (0 picks a free one)"
    ]
