"""The gallery in headless Chromium: loads clean, every video and caption track loads.

Clips are tiny real renders (256x144, 10 fps) served from a localhost http.server.
"""

from __future__ import annotations

import time

import pytest
import webvtt

from rendering.core.manifest import Manifest
from rendering.publish import gallery, lesson
from tests import test_lesson
from tests.browser_tools import WAIT, chromium, console_errors, static_server
from tests.test_lesson import render_clips

tiny_scenes = test_lesson.tiny_scenes  # the fixture

pytestmark = [pytest.mark.browser, pytest.mark.render]


@pytest.fixture
def site(tiny_scenes, tmp_path):
    """A folder with two clips (mp4, one also webm), the lesson and the gallery, served locally."""
    folder = render_clips(tmp_path, ["tiny-a", "tiny-b"], lang="zh")
    render_clips(tmp_path, ["tiny-a"], lang="zh", fmt="webm")
    lesson.build(folder, ["tiny-a", "tiny-b"])
    gallery.write(folder)
    with static_server(folder) as base:
        yield folder, f"{base}/index.html"


@pytest.fixture
def browser():
    with chromium("--autoplay-policy=no-user-gesture-required") as driver:
        yield driver


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

    assert console_errors(browser) == []


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
    assert console_errors(browser) == []
