"""The live page: the watched clips, told over server-sent events when one is new.

A small HTTP server on loopback serves the page, the clips under the output folder and
an event stream. The page needs nothing from outside: its script and style are inline.

It answers only its own origin: a request whose Host is not this server's (a page of
another site that rebound its name to 127.0.0.1) gets 403, and everything it serves lies
under an unguessable path that only the URL printed in the terminal holds.
"""

from __future__ import annotations

import contextlib
import hmac
import html
import json
import os
import queue
import re
import secrets
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlparse

from rendering.core import formats

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>pe-explainer: watching</title>
<style>
body {{ font: 15px system-ui, sans-serif; background: #111; color: #eee; margin: 1.5em; }}
#status {{ padding: .4em .7em; border-radius: 4px; background: #234; margin-bottom: 1em; }}
#status.error {{ background: #722; }}
figure {{ margin: 0 0 1.5em; }} video {{ max-width: 100%; max-height: 70vh; }}
</style></head><body>
<div id="status">watching {names}; the clips reload when you save</div>
{figures}
<script>
const status = document.getElementById("status");
const events = new EventSource("events");
events.onmessage = (e) => {{
  const m = JSON.parse(e.data);
  if (m.type === "error") {{ status.className = "error"; status.textContent = m.message; return; }}
  status.className = "";
  status.textContent = m.text;
  if (m.type !== "clip") return;
  const video = document.getElementById("clip-" + m.slug);
  if (!video) return;
  video.addEventListener("loadedmetadata", () => {{ video.currentTime = m.at; video.play().catch(() => {{}}); }}, {{ once: true }});
  video.src = m.src;
}};
</script></body></html>
"""


MAX_CONNECTIONS = 16  # a browser opens at most six per host; more is a stuck or hostile client
TIMEOUT = 30.0  # seconds a connection may stay silent, or stop reading, before it is closed
HEAD_DEADLINE = 10.0  # seconds for a whole request line and headers, however they trickle in
BUSY = b"HTTP/1.0 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n"
FAR = 10**18  # past the end of any file: stands for a byte number of more digits than that


class BoundedServer(ThreadingHTTPServer):
    """A thread per connection, at most `limit` at once; a dropped connection is quiet."""

    daemon_threads = True

    def __init__(self, address, handler, limit: int) -> None:
        self.slots = threading.BoundedSemaphore(limit)
        super().__init__(address, handler)

    def process_request(self, request, client_address) -> None:
        if not self.slots.acquire(blocking=False):
            try:
                request.sendall(BUSY)
            except OSError:
                pass
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def handle_error(self, request, client_address) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, OSError):
            return  # the page went away mid-answer: a video aborts a download each time it seeks
        print(f"warning: the live page could not answer: {error!r:.200}", file=sys.stderr)


class LivePage:
    """Serves, under /<token>/ (its `url`), the page, the clips of `root` under media/,
    and the events at events."""

    def __init__(
        self,
        root: Path,
        clips: dict[str, str],
        port: int = 0,
        limit: int = MAX_CONNECTIONS,
        timeout: float = TIMEOUT,
        head_deadline: float = HEAD_DEADLINE,
    ) -> None:
        self.root = root.resolve()
        self.token = secrets.token_urlsafe(18)
        self.clips = clips  # slug -> path of its clip under root
        self.listeners: list[queue.Queue] = []
        self.lock = threading.Lock()
        self.heartbeat = timeout / 2  # an event stream writes this often, so a closed page ends it
        page = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # the terminal is for the edits
                pass

            def setup(self) -> None:
                super().setup()
                # one deadline for the whole head: a socket timeout restarts with each byte
                self.cut = threading.Timer(head_deadline, self._hang_up)
                self.cut.daemon = True
                self.cut.start()

            def _hang_up(self) -> None:
                with contextlib.suppress(OSError):
                    self.connection.shutdown(socket.SHUT_RDWR)

            def finish(self) -> None:
                self.cut.cancel()
                super().finish()

            def do_GET(self) -> None:
                self.cut.cancel()
                if self.headers.get("Host", "") not in page.hosts():
                    return page.send(self, 403, "text/plain", b"forbidden")
                path = unquote(urlparse(self.path).path)
                mine, slash, rest = path.removeprefix("/").partition("/")
                if not hmac.compare_digest(mine.encode(), page.token.encode()):
                    page.send(self, 404, "text/plain", b"not found")
                elif not slash:  # the page's own links are relative to its folder
                    self.send_response(301)
                    self.send_header("Location", f"/{page.token}/")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                elif not rest:
                    page.send(self, 200, "text/html; charset=utf-8", page.html().encode())
                elif rest == "events":
                    page.stream(self)
                elif rest.startswith("media/"):
                    page.send_file(self, rest.removeprefix("media/"))
                else:
                    page.send(self, 404, "text/plain", b"not found")

        Handler.timeout = timeout
        self.server = BoundedServer(("127.0.0.1", port), Handler, limit)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/{self.token}/"

    def hosts(self) -> set[str]:
        """The Host headers of this server's own origin."""
        port = self.server.server_address[1]
        return {f"{name}:{port}" for name in ("127.0.0.1", "localhost", "[::1]")}

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        with self.lock:
            for listener in self.listeners:
                listener.put(None)
        self.server.shutdown()
        self.server.server_close()

    def tell(self, message: dict) -> None:
        """Send `message` to every open page."""
        with self.lock:
            for listener in self.listeners:
                listener.put(message)

    def html(self) -> str:
        figures = "\n".join(
            f"<figure><figcaption>{html.escape(slug)}</figcaption>"
            f'<video id="clip-{html.escape(slug)}" controls src="media/{html.escape(clip)}" '
            f'poster="media/{html.escape(str(Path(clip).with_suffix(".png")))}">'
            "</video></figure>"
            for slug, clip in self.clips.items()
        )
        return PAGE.format(names=html.escape(", ".join(self.clips)), figures=figures)

    @staticmethod
    def send(handler, code: int, kind: str, body: bytes) -> None:
        handler.send_response(code)
        handler.send_header("Content-Type", kind)
        handler.send_header("Content-Length", str(len(body)))
        handler.send_header("Cache-Control", "no-store")
        handler.send_header("Accept-Ranges", "bytes")
        handler.end_headers()
        handler.wfile.write(body)

    def find(self, relative: str) -> Path | None:
        """The file `relative` names under the output root, or None."""
        if "\0" in relative:
            return None
        try:
            path = (self.root / relative).resolve()
            return path if path.is_relative_to(self.root) and path.is_file() else None
        except OSError:  # a name too long, a loop of links
            return None

    def send_file(self, handler, relative: str) -> None:
        """A file under the output root, streamed from the disk; a byte range of it when
        asked (a video seeks so)."""
        path = self.find(relative)
        if path is None:
            return self.send(handler, 404, "text/plain", b"not found")
        known = formats.by_extension(path.suffix)
        kind = known.mime if known else "application/octet-stream"
        with path.open("rb") as file:
            size = os.fstat(file.fileno()).st_size
            span = byte_range(handler.headers.get("Range", ""), size)
            if span is None:
                handler.send_response(200)
                start, end = 0, size - 1
            elif span[0] > span[1]:
                handler.send_response(416)
                handler.send_header("Content-Range", f"bytes */{size}")
                handler.send_header("Content-Length", "0")
                handler.end_headers()
                return
            else:
                start, end = span
                handler.send_response(206)
                handler.send_header("Content-Range", f"bytes {start}-{end}/{size}")
            handler.send_header("Content-Type", kind)
            handler.send_header("Content-Length", str(end - start + 1))
            handler.send_header("Cache-Control", "no-store")
            handler.send_header("Accept-Ranges", "bytes")
            handler.end_headers()
            if end >= start:
                handler.connection.sendfile(file, start, end - start + 1)

    def stream(self, handler) -> None:
        listener: queue.Queue = queue.Queue()
        with self.lock:
            self.listeners.append(listener)
        try:
            handler.send_response(200)
            handler.send_header("Content-Type", "text/event-stream")
            handler.send_header("Cache-Control", "no-store")
            handler.end_headers()
            handler.wfile.write(b": connected\n\n")
            while True:
                try:
                    message = listener.get(timeout=self.heartbeat)
                except queue.Empty:
                    handler.wfile.write(b": still here\n\n")
                    continue
                if message is None:
                    break
                handler.wfile.write(f"data: {json.dumps(message)}\n\n".encode())
        except OSError:
            pass  # the page was closed
        finally:
            with self.lock:
                self.listeners.remove(listener)


def byte_range(header: str, size: int) -> tuple[int, int] | None:
    """The first and last byte a Range header asks of a file of `size` bytes (first > last
    when nothing of it can be sent), or None for the whole file."""
    asked = re.fullmatch(r"bytes=(\d*)-(\d*)", header.strip())
    if not asked or not (asked.group(1) or asked.group(2)):
        return None
    first, last = (_number(digits) for digits in asked.groups())
    if first is None:  # the last n bytes
        return max(0, size - last), size - 1
    return first, size - 1 if last is None else min(last, size - 1)


def _number(digits: str) -> int | None:
    digits = digits.lstrip("0") or ("0" if digits else "")
    if not digits:
        return None
    return FAR if len(digits) > 18 else int(digits)
