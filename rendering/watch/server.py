"""The live page: the watched clips, told over server-sent events when one is new.

A small HTTP server on loopback serves the page, the clips under the output folder and
an event stream. The page needs nothing from outside: its script and style are inline.
"""

from __future__ import annotations

import html
import json
import queue
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlparse

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
const events = new EventSource("/events");
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


class LivePage:
    """Serves the page, the clips of `root` under /media/, and the events at /events."""

    def __init__(self, root: Path, clips: dict[str, str], port: int = 0) -> None:
        self.root = root.resolve()
        self.clips = clips  # slug -> path of its clip under root
        self.listeners: list[queue.Queue] = []
        self.lock = threading.Lock()
        page = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # the terminal is for the edits
                pass

            def do_GET(self) -> None:
                path = unquote(urlparse(self.path).path)
                if path == "/":
                    page.send(self, 200, "text/html; charset=utf-8", page.html().encode())
                elif path == "/events":
                    page.stream(self)
                elif path.startswith("/media/"):
                    page.send_file(self, path.removeprefix("/media/"))
                else:
                    page.send(self, 404, "text/plain", b"not found")

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/"

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
            f'<video id="clip-{html.escape(slug)}" controls src="/media/{html.escape(clip)}" '
            f'poster="/media/{html.escape(str(Path(clip).with_suffix(".png")))}">'
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

    def send_file(self, handler, relative: str) -> None:
        """A file under the output root; a byte range of it when asked (a video seeks so)."""
        path = (self.root / relative).resolve()
        if not path.is_relative_to(self.root) or not path.is_file():
            return self.send(handler, 404, "text/plain", b"not found")
        kind = "video/mp4" if path.suffix == ".mp4" else "application/octet-stream"
        data = path.read_bytes()
        asked = re.fullmatch(r"bytes=(\d*)-(\d*)", handler.headers.get("Range", ""))
        if not asked or not (asked.group(1) or asked.group(2)):
            return self.send(handler, 200, kind, data)
        if asked.group(1):
            start = int(asked.group(1))
            end = min(int(asked.group(2)), len(data) - 1) if asked.group(2) else len(data) - 1
        else:  # the last n bytes
            start, end = max(0, len(data) - int(asked.group(2))), len(data) - 1
        if start > end:
            handler.send_response(416)
            handler.send_header("Content-Range", f"bytes */{len(data)}")
            handler.end_headers()
            return
        handler.send_response(206)
        handler.send_header("Content-Type", kind)
        handler.send_header("Content-Range", f"bytes {start}-{end}/{len(data)}")
        handler.send_header("Content-Length", str(end - start + 1))
        handler.send_header("Cache-Control", "no-store")
        handler.end_headers()
        handler.wfile.write(data[start : end + 1])

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
            handler.wfile.flush()
            while (message := listener.get()) is not None:
                handler.wfile.write(f"data: {json.dumps(message)}\n\n".encode())
                handler.wfile.flush()
        except OSError:
            pass  # the page was closed
        finally:
            with self.lock:
                self.listeners.remove(listener)
