"""`render.py watch`: a saved edit becomes a new clip on the live page; a bad one does not.

The first test runs the watcher as a teacher runs it, in its own process, on a tiny plugin
scene whose words are a course's own copy (PE_CAPTIONS), and reads the page's event stream.
The others put a stub in place of the render, or talk to the live page's server alone.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from queue import Empty, Queue
from urllib.parse import urlparse

import pytest

from rendering.cli import watch_cmd
from rendering.run.request import JobOptions
from rendering.watch.changes import snapshot, syntax_error
from rendering.watch.server import LivePage

ROOT = Path(__file__).resolve().parent.parent


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


@contextlib.contextmanager
def interruptible():
    """SIGINT handled as in a terminal, even where the tests run with it ignored (a shell's
    background job): a process started inside does not inherit it ignored."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def children_of(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True)
    return [int(p) for p in out.stdout.split()]


@pytest.mark.render
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
    with interruptible():
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
        url = re.search(r"open (http://127\.0\.0\.1:\d+/[\w-]+/)", first).group(1)
        page = urllib.request.urlopen(url, timeout=10).read().decode()
        assert 'id="clip-tiny"' in page and "<script>" in page
        assert "http:" not in page and "https:" not in page  # nothing fetched from outside
        messages: Queue = Queue()
        threading.Thread(target=events, args=(url, messages), daemon=True).start()
        shown = next_event(messages, "clip")  # the first look renders it
        clip = out / "en" / "480p15" / "tiny.mp4"
        assert clip.exists() and shown["src"].startswith("media/en/480p15/tiny.mp4")

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

        good, words = clip.read_bytes(), line.read_text()
        time.sleep(1.1)
        line.write_text(words.replace("[say]", "[say"))  # a TOML error
        problem = next_event(messages, "error")
        assert "tiny.toml is not valid TOML" in problem["message"], problem
        assert clip.read_bytes() == good  # the last good clip stays

        time.sleep(1.1)
        line.write_text(words)  # undone: no clip changes, and the page leaves "rendering"
        assert next_event(messages, "unchanged")["text"].startswith("up to date")
        assert clip.read_bytes() == good
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


def until(condition, within: float = 30.0) -> bool:
    """Whether `condition()` came true within `within` seconds (asked every 50 ms)."""
    end = time.monotonic() + within
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


def test_a_bad_set_is_one_line_and_exit_2_before_watching(tmp_path):
    run = subprocess.run(
        [sys.executable, "render.py", "watch", "clock-hands", "--set", "nosuch=1", "--port", "0"]
        + ["--output", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [
        "error: unknown parameter 'nosuch'; see lesson.toml for the valid keys"
    ]
    assert "watching" not in run.stdout


def test_a_syntax_error_is_one_line_naming_the_file_and_line(tmp_path):
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    good.write_text("x = 1\n")
    bad.write_text("x = 1\n\n\ndef f(:\n    pass\n")
    error = syntax_error(snapshot([tmp_path]))
    assert watch_cmd.code_problem(error, "fix it and save") == (
        "bad.py is not valid Python (line 4: invalid syntax); fix it and save"
    )
    bad.write_text("x = 1\n\n\ndef f():\n    pass\n")
    assert syntax_error(snapshot([tmp_path])) is None


class Page:
    """Stands in for the live page: keeps what it was told."""

    def __init__(self) -> None:
        self.told: list[dict] = []

    def tell(self, message: dict) -> None:
        self.told.append(message)


def test_an_undone_bad_edit_takes_the_page_off_rendering(tmp_path, monkeypatch, capsys):
    page = Page()
    loop = watch_cmd.Loop(["clock-hands"], JobOptions(output=tmp_path), page)
    bad = "print('error: tiny.toml is not valid TOML'); raise SystemExit(1)"
    monkeypatch.setattr(watch_cmd, "render_command", lambda *_: [sys.executable, "-c", bad])
    loop.render("a bad edit")
    assert page.told[-1] == {"type": "error", "message": "tiny.toml is not valid TOML"}
    monkeypatch.setattr(watch_cmd, "render_command", lambda *_: [sys.executable, "-c", "pass"])
    loop.render("the edit undone")  # the render keeps every clip as it was
    assert page.told[-2]["text"] == "rendering: the edit undone"
    assert page.told[-1]["type"] == "unchanged"
    assert page.told[-1]["text"].startswith("up to date: no clip changed")
    assert capsys.readouterr().out.splitlines()[-1] == page.told[-1]["text"]


TOLD = """
import json, os, signal, sys, time
from pathlib import Path
from rendering.cli import watch_cmd
from rendering.run.request import JobOptions
from rendering.watch.server import LivePage
signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal
page = LivePage(Path(sys.argv[1]), {})
page.start()
told = []
def tell(message):  # the stop lands while the page's lock is held
    with page.lock:
        told.append("begun")
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)  # the handler has run by now
        told.append("done")
page.tell = tell
loop = watch_cmd.Loop(["clock-hands"], JobOptions(output=Path(sys.argv[1])), page)
loop.take_stops()
try:
    loop.refuse("tiny.toml is not valid TOML")
    raised = False
except KeyboardInterrupt:
    raised = True
locked = page.lock.locked()
page.stop()  # returns: nothing is left held
print(json.dumps([raised, told, locked]))
"""


def test_a_stop_while_the_page_is_told_waits_for_the_telling_to_end(tmp_path):
    """A stop that cut `LivePage.tell` in half could leave its lock (or a page's queue)
    held, and watch then hung for ever in `LivePage.stop`. The stop is a real SIGINT, so
    it runs in a session of its own, where it cannot reach the test runner."""
    done = subprocess.run(
        [sys.executable, "-c", TOLD, str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        start_new_session=True,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [True, ["begun", "done"], False]


HANG_UP = """
import os, signal, subprocess, sys, threading, time, types
from pathlib import Path
from rendering.cli import main, watch_cmd
marker, out, way = sys.argv[1:]
signal.signal(signal.SIGHUP, signal.SIG_DFL)  # a terminal's session, even when the tests run under nohup
stub = "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(300)"
watch_cmd.render_command = lambda *_: [sys.executable, "-c", stub, marker]
if way == "while-starting":  # it comes the moment the render exists, before watch holds it
    class Starting(subprocess.Popen):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            Path(marker + ".started").write_text(str(self.pid))
            os.kill(os.getpid(), signal.SIGHUP)
    watch_cmd.subprocess = types.SimpleNamespace(**{**vars(subprocess), "Popen": Starting})
if way == "to-a-thread":  # the kernel hands it to a thread other than the main one
    def hang_up_here():
        while not (os.path.exists(marker) and Path(marker).read_text()):
            time.sleep(0.05)
        signal.pthread_kill(threading.get_ident(), signal.SIGHUP)
    threading.Thread(target=hang_up_here, daemon=True).start()
sys.argv = ["render.py", "watch", "clock-hands", "--voice", "none", "--port", "0", "--output", out]
main()
"""


@pytest.mark.parametrize("way", ["to-the-process", "to-a-thread", "while-starting"])
def test_a_hang_up_ends_watch_and_the_render_it_started(tmp_path, way):
    """Whenever the hang-up comes and whichever thread takes it. Taken by a thread other
    than the main one (as when the main one blocks signals to start the render), it is
    seen only when the main one runs again; and one that stops watch while it starts the
    render must still find that render to end."""
    marker = tmp_path / "render.pid"
    watcher = subprocess.Popen(
        [sys.executable, "-c", HANG_UP, str(marker), str(tmp_path / "out"), way],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    started = Path(f"{marker}.started")
    render = None
    try:
        if way == "while-starting":
            assert until(lambda: started.exists() and started.read_text(), within=120)
            render = int(started.read_text())
        else:
            assert until(lambda: marker.exists() and marker.read_text(), within=120)
            render = int(marker.read_text())
        if way == "to-the-process":
            os.kill(watcher.pid, signal.SIGHUP)
        _, stderr = watcher.communicate(timeout=60)
        assert watcher.returncode == 130
        assert stderr.strip().splitlines() == ["interrupted"], stderr
        with pytest.raises(ProcessLookupError):
            os.kill(render, 0)  # stopped and reaped, not left running without its watcher
    finally:
        for group in filter(None, (watcher.pid, render)):
            try:
                os.killpg(group, signal.SIGKILL)
            except ProcessLookupError:
                pass


def request(url: str, path: str, headers: dict | None = None) -> tuple[int, dict, bytes]:
    """GET `path` under the page's own `url` (its secret folder), from its own origin."""
    where = urlparse(url)
    connection = http.client.HTTPConnection(where.hostname, where.port, timeout=10)
    try:
        connection.request("GET", where.path + path.lstrip("/"), headers=headers or {})
        answer = connection.getresponse()
        return answer.status, dict(answer.getheaders()), answer.read()
    finally:
        connection.close()


@pytest.fixture
def live(tmp_path):
    (tmp_path / "clip.mp4").write_bytes(b"abcdefghij")
    page = LivePage(tmp_path, {}, 0, limit=2, timeout=3.0)
    page.start()
    yield page
    page.stop()


def connect(page: LivePage) -> socket.socket:
    return socket.create_connection(("127.0.0.1", page.server.server_address[1]), timeout=30)


def read_until(connection: socket.socket, end: bytes) -> bytes:
    got = b""
    while end not in got:
        got += connection.recv(65536)
    return got


def test_odd_paths_and_huge_ranges_are_answered_without_a_traceback(live, capfd):
    digits = "9" * 5000
    assert request(live.url, "/media/%00")[0] == 404
    assert request(live.url, "/media/" + "x" * 5000)[0] == 404  # a name too long for the disk
    status, headers, _ = request(live.url, "/media/clip.mp4", {"Range": f"bytes={digits}-"})
    assert status == 416 and headers["Content-Range"] == "bytes */10"
    for whole in (f"bytes=0-{digits}", f"bytes=-{digits}"):
        status, headers, body = request(live.url, "/media/clip.mp4", {"Range": whole})
        assert (status, headers["Content-Range"], body) == (206, "bytes 0-9/10", b"abcdefghij")
    status, headers, body = request(live.url, "/media/clip.mp4", {"Range": "bytes=2-4"})
    assert (status, headers["Content-Range"], body) == (206, "bytes 2-4/10", b"cde")
    assert request(live.url, "/media/clip.mp4")[::2] == (200, b"abcdefghij")
    assert capfd.readouterr().err == ""


def test_silent_and_closed_connections_end_and_their_number_is_bounded(live):
    threads = threading.active_count()
    idle = [connect(live), connect(live)]
    try:
        assert request(live.url, "/")[0] == 503  # both places are taken
        for connection in idle:
            assert connection.recv(1024) == b""  # the server closed it: it said nothing
    finally:
        for connection in idle:
            connection.close()
    assert until(lambda: threading.active_count() == threads)
    assert request(live.url, "/")[0] == 200

    events = connect(live)
    events.sendall(
        f"GET {urlparse(live.url).path}events HTTP/1.1\r\n{own_host(live.url)}\r\n\r\n".encode()
    )
    assert read_until(events, b": connected\n\n").startswith(b"HTTP/1.0 200")
    events.close()  # a closed tab: the stream ends at its next heartbeat
    assert until(lambda: not live.listeners and threading.active_count() == threads)


def settled(url: str, path: str, headers: dict | None = None) -> tuple[int, dict, bytes]:
    """`request`, asked again as a browser would when told to retry (503): on a busy
    machine the server may not yet have freed the place of the request before."""
    for _ in range(5):
        answer = request(url, path, headers)
        if answer[0] != 503:
            return answer
        time.sleep(float(answer[1].get("Retry-After", 1)))
    return answer


def test_only_its_own_origin_and_its_secret_folder_are_answered(live):
    port = urlparse(live.url).port
    assert settled(live.url, "/media/clip.mp4")[0] == 200
    for host in ("localhost", "[::1]"):
        assert settled(live.url, "/media/clip.mp4", {"Host": f"{host}:{port}"})[0] == 200
    for host in ("evil.example", f"evil.example:{port}", "127.0.0.1", f"127.0.0.1:{port + 1}"):
        status, _, body = settled(live.url, "/media/clip.mp4", {"Host": host})
        assert (status, body) == (403, b"forbidden"), host
    status, headers, _ = settled(f"http://127.0.0.1:{port}/", f"/{live.token}")
    assert (status, headers["Location"]) == (301, f"/{live.token}/")
    outside = f"http://127.0.0.1:{port}/"
    for path in ("/", "/media/clip.mp4", "/events", f"/{live.token[:-1]}/media/clip.mp4"):
        assert settled(outside, path)[0] == 404, path


def test_a_request_head_that_trickles_in_is_cut_at_its_deadline(tmp_path):
    page = LivePage(tmp_path, {}, 0, limit=2, timeout=30.0, head_deadline=1.0)
    page.start()
    try:
        slow = connect(page)
        slow.sendall(b"GET / HTTP/1.1\r\n")
        started = time.monotonic()
        with pytest.raises(OSError):  # each line well within the 30 s silence allowed
            while time.monotonic() - started < 10:
                slow.sendall(b"X-Slow: 1\r\n")
                time.sleep(0.2)
        assert time.monotonic() - started < 3
        assert request(page.url, "/")[0] == 200
    finally:
        page.stop()


SERVER = """
import json, sys, threading
from pathlib import Path
from rendering.watch.server import LivePage
page = LivePage(Path(sys.argv[1]), {}, 0)
page.start()
print(page.url, flush=True)
for _ in sys.stdin:  # each line asks for the threads and the peak memory
    # VmHWM is this program's own; ru_maxrss after exec can keep a larger parent's
    status = Path("/proc/self/status").read_text()
    peak = int(status.split("VmHWM:")[1].split()[0]) * 1024
    print(json.dumps([threading.active_count(), peak]), flush=True)
page.stop()
"""


def own_host(url: str) -> str:
    return f"Host: {urlparse(url).netloc}"


def aborted_download(url: str, first: int, reset: bool) -> None:
    """Ask for a clip from byte `first` on, read a little of it, and go (a video seeking)."""
    where = urlparse(url)
    with socket.create_connection((where.hostname, where.port), timeout=10) as connection:
        asked = (
            f"GET {where.path}media/big.mp4 HTTP/1.1\r\n{own_host(url)}\r\n"
            f"Range: bytes={first}-\r\n\r\n"
        )
        connection.sendall(asked.encode())
        assert read_until(connection, b"\r\n\r\n").startswith(b"HTTP/1.0 206")
        if reset:  # as a browser aborts: the server's next write fails with a reset
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def test_aborted_range_downloads_of_a_big_clip_stream_quietly_and_leave_no_thread(tmp_path):
    size = 300 * 2**20
    with open(tmp_path / "big.mp4", "wb") as big:
        big.truncate(size)  # sparse: 300 MB that take no disk
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(tmp_path)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )

    def ask() -> tuple[int, int]:
        server.stdin.write("\n")
        server.stdin.flush()
        return tuple(json.loads(server.stdout.readline()))

    try:
        url = server.stdout.readline().strip()
        threads_before, _ = ask()
        for i in range(50):
            aborted_download(url, i * size // 50, reset=i % 2 == 0)
        assert until(lambda: ask()[0] == threads_before)
        _, peak = ask()
        assert peak < size, f"peak memory {peak / 2**20:.0f} MB"
    finally:
        _, stderr = server.communicate(timeout=60)
    assert server.returncode == 0
    assert stderr == ""
