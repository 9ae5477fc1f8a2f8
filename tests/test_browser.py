"""The gallery in headless Chromium: loads clean, every video and caption track loads.

Clips are tiny real renders (256x144, 10 fps) served from a localhost http.server.
"""

from __future__ import annotations

import functools
import http.server
import shutil
import tempfile
import threading
import time

import pytest
import webvtt

from rendering import gallery, lesson
from rendering.manifest import Manifest
from tests import test_lesson
from tests.test_lesson import render_clips

tiny_scenes = test_lesson.tiny_scenes  # the fixture

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.render,
    pytest.mark.skipif(
        not (CHROMIUM and DRIVER),
        reason="chromium and chromium-driver are not installed (scripts/setup.sh installs them)",
    ),
]
WAIT = 60  # seconds a page may take to load media on a busy machine


@pytest.fixture
def site(tiny_scenes, tmp_path):
    """A folder with two clips (mp4, one also webm), the lesson and the gallery, served locally."""
    folder = render_clips(tmp_path, ["tiny-a", "tiny-b"], lang="zh")
    render_clips(tmp_path, ["tiny-a"], lang="zh", fmt="webm")
    lesson.build(folder, ["tiny-a", "tiny-b"])
    gallery.write(folder)
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield folder, f"http://127.0.0.1:{server.server_address[1]}/index.html"
    server.shutdown()
    server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="pe-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--autoplay-policy=no-user-gesture-required",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.set_script_timeout(WAIT)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


VIDEO_STATE = """
const done = arguments[arguments.length - 1];
const videos = Array.from(document.querySelectorAll("video"));
const deadline = Date.now() + arguments[0] * 1000;
(function poll() {
  const ready = videos.every(v => v.readyState >= 1 || v.error);
  if (ready || Date.now() > deadline) {
    done(videos.map(v => ({
      id: v.id, src: v.currentSrc, readyState: v.readyState, duration: v.duration,
      width: v.videoWidth, height: v.videoHeight, error: v.error ? v.error.code : null})));
  } else { setTimeout(poll, 100); }
})();
"""

TRACK_CUES = """
const done = arguments[arguments.length - 1];
const deadline = Date.now() + arguments[0] * 1000;
const tracks = [];
document.querySelectorAll("video").forEach(v => {
  Array.from(v.textTracks).forEach((t, i) => {
    t.mode = "hidden";
    tracks.push({video: v.id, t: t, src: v.querySelectorAll("track")[i].getAttribute("src")});
  });
});
(function poll() {
  const loaded = tracks.every(x => x.t.cues && x.t.cues.length > 0);
  if (loaded || Date.now() > deadline) {
    done(tracks.map(x => ({video: x.video, kind: x.t.kind, lang: x.t.language, src: x.src,
      cues: x.t.cues ? x.t.cues.length : -1,
      first: x.t.cues && x.t.cues.length ? [x.t.cues[0].startTime, x.t.cues[0].text] : null})));
  } else { setTimeout(poll, 100); }
})();
"""

PLAY = """
const done = arguments[arguments.length - 1];
const v = document.getElementById(arguments[0]);
v.muted = true;
const deadline = Date.now() + arguments[1] * 1000;
v.play().catch(e => {});
(function poll() {
  const q = v.getVideoPlaybackQuality();
  if ((v.currentTime > 0.5 && q.totalVideoFrames > 0) || v.error || Date.now() > deadline) {
    v.pause();
    done({time: v.currentTime, frames: q.totalVideoFrames, error: v.error ? v.error.code : null,
          src: v.currentSrc});
  } else { setTimeout(poll, 100); }
})();
"""


def _errors(driver) -> list[dict]:
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def test_gallery_loads_every_video_and_caption_track_in_chromium(site, browser):
    folder, url = site
    manifest = Manifest.load(folder)
    browser.get(url)
    assert browser.title.startswith("pe-explainer")

    videos = browser.execute_async_script(VIDEO_STATE, WAIT)
    expected = {
        f"clip-{slug}": manifest.entry(slug, "mp4").to_dict() for slug in ("tiny-a", "tiny-b")
    }
    expected["lesson"] = manifest.data["lesson"]
    assert {v["id"] for v in videos} == set(expected)
    for v in videos:
        entry = expected[v["id"]]
        assert v["error"] is None and v["readyState"] >= 1, v
        assert (v["width"], v["height"]) == (entry["width"], entry["height"])
        # within two frames of what the manifest says
        assert abs(v["duration"] - entry["duration"]) <= 2 / entry["fps"], (v, entry["duration"])

    tracks = browser.execute_async_script(TRACK_CUES, WAIT)
    assert len(tracks) == 2 + 2 + 3  # zh/en per clip; zh/en/chapters for the lesson
    for t in tracks:
        assert t["cues"] > 0, t
        assert t["cues"] == len(webvtt.read(str(folder / t["src"]))), t
    chapters = next(t for t in tracks if t["kind"] == "chapters")
    assert chapters["cues"] == 2 and chapters["first"] == [0, "一个圆"]

    assert _errors(browser) == []


def test_chromium_decodes_the_h264_clips_and_the_lesson(site, browser):
    """Debian's Chromium is built with the proprietary codecs: H.264 mp4 really plays."""
    folder, url = site
    browser.get(url)
    support = browser.execute_script(
        "const v = document.createElement('video');"
        "return [v.canPlayType('video/mp4; codecs=\"avc1.64001E\"'),"
        "        v.canPlayType('video/webm; codecs=\"vp9\"')];"
    )
    assert support[1] == "probably"
    if support[0] != "probably":
        pytest.skip(f"this Chromium cannot play H.264 (canPlayType: {support[0]!r}); use webm")
    for ident in ("lesson", "clip-tiny-a"):
        state = browser.execute_async_script(PLAY, ident, WAIT)
        assert state["error"] is None and state["frames"] > 0 and state["time"] > 0.5, state
        assert state["src"].endswith(".mp4")
    time.sleep(0.2)
    assert _errors(browser) == []
