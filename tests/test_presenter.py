"""present.html: written beside the gallery, self-contained, and driven by keys in Chromium.

The tiny scenes of test_lesson are rendered once for the module (256x144 at 10 fps, in
Chinese) and joined into a three-beat lesson: tiny-a's "draw" at 0 s and "hold" at
1.5 s, tiny-b's "draw" at 2.6 s, 4.4 s in all. Every key press is checked by reading
the video's currentTime and paused through JS against the manifest's beat times.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from pathlib import Path

import pytest

from lesson import catalogue as catalogue_mod
from lesson import questions, registry
from lesson.say import line as caption
from rendering.core import settings
from rendering.core.manifest import Manifest
from rendering.publish import gallery, lesson, presenter
from tests import test_lesson
from tests.browser_tools import WAIT, browser_test, chromium, console_errors, static_server
from tests.test_lesson import render_clips

pytestmark = pytest.mark.render
SLUGS = ["tiny-a", "tiny-b"]


# tiny-b asks binary-bits' question, answered at its knobs (n_bits 4: 16 codes)
ASKED = {
    "en": '[ask.codes]\nprompt = "{q.bits} bits give how many codes?"\nreason = "2 to the {q.bits}."\n',
    "zh": '[ask.codes]\nprompt = "{q.bits} 个比特有多少种编码？"\nreason = "2 的 {q.bits} 次方。"\n',
}


@contextlib.contextmanager
def tiny_scenes_for_module(tmp_path_factory):
    """test_lesson's tiny_scenes fixture, for a whole module: catalogues, scenes, 256x144@10."""
    root = tmp_path_factory.mktemp("catalogues")
    for lang, files in test_lesson.CATALOGUES.items():
        (root / lang).mkdir()
        for slug, text in files.items():
            extra = ASKED[lang] if slug == "tiny-b" else ""
            (root / lang / f"{slug}.toml").write_text(text + extra, encoding="utf-8")
    catalogue_mod.add_root(root)
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(settings.QUALITIES, "l", test_lesson.TINY)
        mp.setitem(questions.KEYS, "tiny-b", {"codes": questions.keys_of("binary-bits")["codes"]})
        for info in test_lesson.TINY_SCENES:
            registry.register(info)
        try:
            yield
        finally:
            for info in test_lesson.TINY_SCENES:
                registry.unregister(info.slug)
            catalogue_mod.ROOTS.remove(root)
            catalogue_mod.catalogue.cache_clear()


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """Two tiny clips, their lesson, the gallery and present.html (rendered once)."""
    with tiny_scenes_for_module(tmp_path_factory):
        root = tmp_path_factory.mktemp("site")
        out = render_clips(root, SLUGS, lang="zh")
        lesson.build(out, SLUGS)
        gallery.write(out)
        yield out


def expected_beats(folder: Path) -> list[tuple[str, str, float]]:
    """(slug, beat, start in lesson time), straight from manifest.json."""
    data = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    out = []
    for chapter in data["lesson"]["chapters"]:
        entry = data["clips"][chapter["slug"]]["mp4"]
        out += [(chapter["slug"], key, chapter["start"] + t) for key, t in entry["beats"]]
    return out


def inline_data(folder: Path) -> dict:
    text = (folder / presenter.NAME).read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="present-data">(.*?)</script>', text)
    return json.loads(found.group(1))


# ------------------------------------------------------------------ the file
def test_present_html_is_written_beside_the_gallery_and_linked_from_it(folder):
    assert (folder / "present.html").is_file() and (folder / "index.html").is_file()
    index = (folder / "index.html").read_text(encoding="utf-8")
    assert 'href="present.html#lesson"' in index
    for slug in SLUGS:
        assert f'href="present.html#{slug}"' in index


def test_the_page_inlines_the_manifest_beats_and_each_beats_narration(folder):
    data = inline_data(folder)
    assert data["lang"] == "zh"
    items = {item["id"]: item for item in data["items"]}
    assert list(items) == ["lesson", *SLUGS]  # the lesson first, then the clips in order
    want = expected_beats(folder)
    assert [(b["slug"], b["key"]) for b in items["lesson"]["beats"]] == [w[:2] for w in want]
    assert [b["start"] for b in items["lesson"]["beats"]] == pytest.approx([w[2] for w in want])
    assert [b["start"] for b in items["lesson"]["beats"]] == pytest.approx([0.0, 1.5, 2.6])
    assert [(b["n"], b["of"]) for b in items["lesson"]["beats"]] == [(1, 2), (2, 2), (1, 1)]
    for b in items["lesson"]["beats"]:
        assert b["say"] == caption("zh", b["slug"], b["key"])
    manifest = Manifest.load(folder)
    for slug in SLUGS:
        entry = manifest.entry(slug, "mp4")
        assert [(b["key"], b["start"]) for b in items[slug]["beats"]] == entry.beats
        assert items[slug]["sources"] == [[entry.file, "video/mp4"]]
        assert items[slug]["duration"] == entry.duration
    # subtitles of both languages come inline, as the .vtt files have them
    assert [c[2] for c in items["lesson"]["cues"]["zh"]][-1] == caption("zh", "tiny-b", "draw")
    assert set(items["lesson"]["cues"]) == {"zh", "en"}


def test_the_page_makes_no_outside_requests(folder):
    text = (folder / "present.html").read_text(encoding="utf-8")
    assert "http:" not in text and "https:" not in text and "//cdn" not in text
    assert re.findall(r"<script[^>]*\ssrc=", text) == []
    assert re.findall(r'<link[^>]*href="([^"]+)"', text) == ["data:,"]
    assert text.count("</script>") == 2  # the data and the page's own script


def test_manifest_text_cannot_break_out_of_the_inline_data(tmp_path):
    from tests.test_gallery import EVIL, _folder

    folder = _folder(tmp_path)  # clips and a lesson with hostile titles; fake video files
    gallery.write(folder)
    text = (folder / "present.html").read_text(encoding="utf-8")
    assert "<script>alert" not in text and text.count("<script") == 2
    titles = [c["title"] for item in inline_data(folder)["items"] for c in item["chapters"]]
    assert EVIL in titles


def test_a_folder_with_nothing_to_play_still_gets_a_page(tmp_path):
    folder = tmp_path / "en" / "480p15"
    folder.mkdir(parents=True)
    Manifest(folder).save()
    gallery.write(folder)
    assert inline_data(folder)["items"] == []


def test_timeline_errors_name_the_problem_and_the_fix(folder, tmp_path):
    with pytest.raises(presenter.PresenterError, match="no manifest.json.*render.py render"):
        presenter.timeline(tmp_path)
    with pytest.raises(presenter.PresenterError, match="no clip 'nope'.*render it first"):
        presenter.timeline(folder, "nope")


# ------------------------------------------------------------------ in Chromium
@pytest.fixture(scope="module")
def server(folder):
    with static_server(folder) as base:
        yield f"{base}/present.html"


@pytest.fixture(scope="module")
def browser():
    with chromium("--autoplay-policy=no-user-gesture-required", "--window-size=1280,720") as driver:
        yield driver


READY = """
const done = arguments[arguments.length - 1];
const deadline = Date.now() + arguments[0] * 1000;
(function poll() {
  const v = document.getElementById("video");
  const ready = v && window.presenter.state.ready && v.readyState >= 2;
  if (ready || (v && v.error) || Date.now() > deadline) {
    done(v ? {ready: v.readyState, error: v.error ? v.error.code : null} : null);
  } else { setTimeout(poll, 50); }
})();
"""

SETTLED = """
const done = arguments[arguments.length - 1];
const deadline = Date.now() + arguments[0] * 1000;
(function poll() {
  const v = document.getElementById("video"), s = window.presenter.state;
  if ((v.paused && s.target === null && !v.seeking) || Date.now() > deadline) {
    done({time: v.currentTime, paused: v.paused, muted: v.muted,
          strip: document.getElementById("strip").textContent,
          overshoot: s.overshoot.slice()});
  } else { setTimeout(poll, 20); }
})();
"""


def _open(driver, url: str) -> None:
    driver.get(url)
    state = driver.execute_async_script(READY, WAIT)
    assert state and state["error"] is None and state["ready"] >= 2, state


def _press(driver, key: str) -> dict:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(key).perform()
    return driver.execute_async_script(SETTLED, WAIT)


@browser_test
@pytest.mark.parametrize("where", ["http", "file"])
def test_each_key_lands_on_the_manifest_beat_times(folder, server, browser, where):
    from selenium.webdriver.common.keys import Keys

    url = server if where == "http" else (folder / "present.html").as_uri()
    browser.get_log("browser")  # start clean
    _open(browser, url)
    frame = 1 / Manifest.load(folder).data["lesson"]["fps"]
    starts = [t for _, _, t in expected_beats(folder)]
    last = starts[-1]

    def at(state, t):
        assert state["paused"], state
        assert abs(state["time"] - t) <= frame, (state, t)

    at(browser.execute_async_script(SETTLED, WAIT), 0.0)
    s = _press(browser, Keys.ARROW_RIGHT)  # plays beat 1 and stops where beat 2 begins
    at(s, starts[1])
    assert "一个圆" in s["strip"] and "第 2 段，共 2 段" in s["strip"]
    s = _press(browser, " ")  # Space: the same, into the next chapter
    at(s, starts[2])
    assert "一个正方形" in s["strip"] and "第 1 段，共 1 段" in s["strip"]
    at(_press(browser, Keys.ARROW_LEFT), starts[1])  # back to the start of the previous beat
    at(_press(browser, Keys.ARROW_LEFT), starts[0])
    at(_press(browser, Keys.END), last)
    at(_press(browser, Keys.HOME), starts[0])
    at(_press(browser, "20"), starts[2])  # 2 then 0 typed together: chapter 20, tiny-b
    time.sleep(1)  # a digit typed later starts a new number
    at(_press(browser, "10"), starts[0])  # chapter 10: tiny-a
    time.sleep(1)
    at(_press(browser, "2"), starts[0])  # there is no chapter 2: it stays
    s = _press(browser, Keys.END)
    s = _press(browser, Keys.ARROW_RIGHT)  # the last beat plays to the end of the video
    at(s, Manifest.load(folder).data["lesson"]["duration"])
    # where the video really was when it was paused, before it was set on the boundary
    assert s["overshoot"] and all(abs(o) <= frame for o in s["overshoot"]), s["overshoot"]
    print(f"{where}: pause landed {[round(o * 1000, 1) for o in s['overshoot']]} ms off")
    assert console_errors(browser) == []


@browser_test
def test_a_single_clip_steps_through_its_own_beats(folder, server, browser):
    from selenium.webdriver.common.keys import Keys

    entry = Manifest.load(folder).entry("tiny-a", "mp4")
    frame = 1 / entry.fps
    _open(browser, server + "#tiny-a")
    assert browser.execute_script("return window.presenter.state.item.id") == "tiny-a"
    s = _press(browser, Keys.ARROW_RIGHT)
    assert s["paused"] and abs(s["time"] - entry.beats[1][1]) <= frame
    s = _press(browser, Keys.ARROW_RIGHT)
    assert s["paused"] and abs(s["time"] - entry.duration) <= frame
    s = _press(browser, Keys.ARROW_RIGHT)  # at the end: nothing left to play
    assert s["paused"] and abs(s["time"] - entry.duration) <= frame
    s = _press(browser, "2")  # one chapter: number keys go to that beat
    assert abs(s["time"] - entry.beats[1][1]) <= frame
    assert console_errors(browser) == []


CAPTIONS = """
const v = document.getElementById("video");
return Array.from(v.textTracks).map(t => [t.language, t.mode,
  t.activeCues && t.activeCues.length ? t.activeCues[0].text : null]);
"""


@browser_test
def test_c_cycles_captions_and_b_blanks_the_screen(folder, server, browser):
    from selenium.webdriver.common.keys import Keys

    _open(browser, server + "#lesson")
    _press(browser, Keys.ARROW_RIGHT)
    assert [m for _, m, _ in browser.execute_script(CAPTIONS)] == ["disabled", "disabled"]
    seen = []
    for _ in range(3):
        _press(browser, "c")
        seen.append({lang: mode for lang, mode, _ in browser.execute_script(CAPTIONS)})
    assert seen == [
        {"zh": "showing", "en": "disabled"},
        {"zh": "disabled", "en": "showing"},
        {"zh": "disabled", "en": "disabled"},
    ]
    _press(browser, "c")
    _press(browser, Keys.HOME)
    zh = {lang: cue for lang, _, cue in browser.execute_script(CAPTIONS)}["zh"]
    assert zh == caption("zh", "tiny-a", "draw")  # the cue on screen at the first beat

    blank = "return document.getElementById('blank').hidden"
    assert browser.execute_script(blank) is True
    before = _press(browser, "b")
    assert browser.execute_script(blank) is False
    assert browser.execute_script(
        "const r = document.getElementById('blank').getBoundingClientRect();"
        "return [r.width >= innerWidth, r.height >= innerHeight,"
        " getComputedStyle(document.getElementById('blank')).backgroundColor];"
    ) == [True, True, "rgb(0, 0, 0)"]
    after = _press(browser, "b")
    assert browser.execute_script(blank) is True
    assert before["time"] == after["time"] == 0.0  # blanking leaves the video where it was
    assert console_errors(browser) == []


@browser_test
def test_voice_off_mutes_the_narration(folder, server, browser):
    from selenium.webdriver.common.keys import Keys

    _open(browser, server)
    assert _press(browser, Keys.HOME)["muted"] is False
    _open(browser, server + "?voice=off")
    s = _press(browser, Keys.ARROW_RIGHT)
    assert s["muted"] is True and s["paused"]
    assert console_errors(browser) == []


NOTES = """
return ["now-where", "now-say", "next-where", "next-say"].map(
  id => document.getElementById(id).textContent);
"""


@browser_test
def test_notes_view_shows_this_beats_narration_and_the_next(folder, server, browser):
    from selenium.webdriver.common.keys import Keys

    _open(browser, server + "?notes#lesson")
    assert browser.execute_script("return document.body.classList.contains('notes')")
    where, now, where_next, after = browser.execute_script(NOTES)
    assert now == caption("zh", "tiny-a", "draw")
    assert after == caption("zh", "tiny-a", "hold")
    assert "一个圆" in where and "第 1 段，共 2 段" in where and "第 2 段" in where_next
    _press(browser, Keys.ARROW_RIGHT)
    where, now, where_next, after = browser.execute_script(NOTES)
    assert (now, after) == (caption("zh", "tiny-a", "hold"), caption("zh", "tiny-b", "draw"))
    assert "一个正方形" in where_next
    s = _press(browser, Keys.END)
    _, now, _, after = browser.execute_script(NOTES)
    assert now == caption("zh", "tiny-b", "draw") and after == presenter.UI["zh"]["end"]
    assert s["muted"] is True  # the notes screen never speaks over the audience window
    assert console_errors(browser) == []


@browser_test
def test_an_unknown_clip_lists_what_can_be_presented(folder, server, browser):
    browser.get(server + "#nope")
    text = browser.execute_script(
        "const m = document.getElementById('message'); return m.hidden ? null : m.textContent"
    )
    assert text and "nope" in text and "一个圆" in text and "完整课程" in text
    assert console_errors(browser) == []


@browser_test
def test_nothing_is_requested_outside_the_folder(folder, server, browser):
    from selenium.webdriver.common.keys import Keys

    _open(browser, server)
    _press(browser, Keys.ARROW_RIGHT)
    names = browser.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)"
    )
    base = server.rsplit("/", 1)[0] + "/"
    assert names and all(n.startswith(base) for n in names), names


@browser_test
def test_the_notes_view_drives_the_audience_window_it_opens(folder, browser):
    from selenium.webdriver.common.keys import Keys

    url = (folder / "present.html").as_uri()  # from file://, where windows can only postMessage
    _open(browser, url + "?notes&voice=off#lesson")
    notes = browser.current_window_handle
    _press(browser, "p")  # opens the audience window
    (audience,) = [h for h in browser.window_handles if h != notes]
    browser.switch_to.window(audience)
    browser.execute_async_script(READY, WAIT)
    browser.switch_to.window(notes)
    s = _press(browser, Keys.ARROW_RIGHT)
    _press(browser, "b")
    browser.switch_to.window(audience)
    seen = browser.execute_async_script(SETTLED, WAIT)
    try:
        assert browser.current_url.endswith("present.html?voice=off#lesson")
        assert seen["paused"] and seen["time"] == s["time"] == pytest.approx(1.5, abs=0.1)
        assert (
            seen["muted"]
            and browser.execute_script("return document.getElementById('blank').hidden") is False
        )
        assert console_errors(browser) == []
    finally:
        browser.close()
        browser.switch_to.window(notes)


QUIZ = """
const q = document.getElementById("quiz");
return [q.hidden, q.textContent];
"""


@browser_test
def test_q_asks_the_chapters_question_then_answers_it_then_hides_it(folder, server, browser):
    assert inline_data(folder)["questions"] == {
        "tiny-b": [
            {
                "id": "codes",
                "kind": "number",
                "prompt": "4 个比特有多少种编码？",
                "choices": [],
                "answer": "16",
                "key": 16.0,
                "tolerance": 0.0,
                "reason": "2 的 4 次方。",
            }
        ]
    }
    _open(browser, server + "#tiny-a")
    _press(browser, "q")  # tiny-a asks nothing: the strip says so, no panel
    assert browser.execute_script(QUIZ)[0] is True
    assert "本章没有提问" in browser.execute_script(
        'return document.querySelector("#strip .extra").textContent'
    )
    _open(browser, server + "#tiny-b")
    _press(browser, "q")
    hidden, text = browser.execute_script(QUIZ)
    assert not hidden and "4 个比特有多少种编码？" in text and "16" not in text
    _press(browser, "q")
    hidden, text = browser.execute_script(QUIZ)
    assert not hidden and "答案：16" in text and "2 的 4 次方。" in text
    _press(browser, "q")
    assert browser.execute_script(QUIZ)[0] is True
    assert console_errors(browser) == []
