"""render.py package: SCORM zips of the lesson, played inside a real SCORM runtime.

The runtime is the npm package scorm-again (tests/js, installed by the set-up script):
a harness page gives `window.API` (1.2) or `window.API_1484_11` (2004) and opens the
package's player in a frame, as a course platform does.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path
from urllib.parse import quote

import pytest
from click.testing import CliRunner

from lesson import catalogue as catalogue_mod
from lesson import questions
from lesson.say import line as caption
from render import cli
from rendering.core import settings
from rendering.core.manifest import Manifest
from rendering.publish import accessibility, lesson, scorm, transcript
from tests.browser_tools import WAIT, browser_test, chromium, console_errors, static_server
from tests.test_lesson import render_clips
from tests.test_presenter import SLUGS, expected_beats, tiny_scenes_for_module

pytestmark = pytest.mark.render
RUNTIME = Path(__file__).resolve().parent / "js" / "node_modules" / "scorm-again" / "dist"
FORMATS = {
    "scorm12": ("1.2", "API", "Scorm12API"),
    "scorm2004": ("2004 4th Edition", "API_1484_11", "Scorm2004API"),
}


# tiny-a asks similarity's question (a choice), tiny-b binary-bits' (a number; see
# test_presenter), both answered at the defaults: PE(6), and 16 codes
CHOICE = {
    "en": '[ask.closer]\nprompt = "Closer to PE(0)?"\nchoices = ["PE({q.near})", "PE({q.far})", "same"]\n'
    'reason = "{q.cos_near} against {q.cos_far}."\n',
    "zh": '[ask.closer]\nprompt = "哪个离 PE(0) 更近？"\nchoices = ["PE({q.near})", "PE({q.far})", "一样"]\n'
    'reason = "{q.cos_near} 对 {q.cos_far}。"\n',
}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The tiny lesson in Chinese (two chapters, 4.4 s), rendered and joined once."""
    with tiny_scenes_for_module(tmp_path_factory), pytest.MonkeyPatch.context() as mp:
        for lang, text in CHOICE.items():
            path = catalogue_mod.path_for(lang, "tiny-a")
            path.write_text(path.read_text("utf-8") + text, "utf-8")
        mp.setitem(questions.KEYS, "tiny-a", {"closer": questions.keys_of("similarity")["closer"]})
        root = tmp_path_factory.mktemp("media")
        folder = render_clips(root, SLUGS, lang="zh")
        lesson.build(folder, SLUGS)
        yield root, folder


def package(root: Path, fmt: str) -> Path:
    run = CliRunner().invoke(
        cli, ["package", "--format", fmt, "--lang", "zh", "--output", str(root)]
    )
    assert run.exit_code == 0, run.output
    path = root / "packages" / f"pe-explainer-zh-{settings.folder_name('l', '16:9')}.{fmt}.zip"
    assert path.is_file() and str(path) in run.output.replace("\n", "")
    return path


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_every_file_the_manifest_lists_is_in_the_zip_and_the_player_launches(site, fmt):
    root, folder = site
    with zipfile.ZipFile(package(root, fmt)) as z:
        names = set(z.namelist())
        tree = ET.fromstring(z.read("imsmanifest.xml"))
        video = z.read("lesson.mp4")
        player = z.read(scorm.PLAYER).decode("utf-8")
    ns = {"m": tree.tag[1:].split("}")[0]}
    assert tree.find("m:metadata/m:schemaversion", ns).text == FORMATS[fmt][0]
    (resource,) = tree.findall("m:resources/m:resource", ns)
    item = tree.find("m:organizations/m:organization/m:item", ns)
    assert item.get("identifierref") == resource.get("identifier")
    assert resource.get("href") == scorm.PLAYER  # the launch page is the player
    listed = {f.get("href") for f in resource.findall("m:file", ns)}
    assert listed <= names and names == listed | {"imsmanifest.xml"}
    record = Manifest.load(folder).lesson
    assert {"lesson.mp4", *record.captions["vtt"].values()} <= listed
    assert video == (folder / "lesson.mp4").read_bytes()
    assert 'href="transcript.html"' in player and transcript.HTML in listed
    with zipfile.ZipFile(package(root, fmt)) as z:
        text = z.read(transcript.HTML).decode("utf-8")
    for slug, key, _ in expected_beats(folder):  # every line of the lesson, in the package
        assert html.escape(caption("zh", slug, key)) in text
    assert "http://" not in player.replace("http://www.w3.org", "") and "https://" not in player


def test_a_named_clip_gets_a_package_of_its_own_with_its_question(site):
    root, folder = site
    run = CliRunner().invoke(
        cli, ["package", "tiny-b", "--format", "scorm2004", "--lang", "zh", "--output", str(root)]
    )
    assert run.exit_code == 0, run.output
    entry = Manifest.load(folder).entry("tiny-b", "mp4")
    stem = Path(entry.file).stem
    path = root / "packages" / f"pe-explainer-zh-{folder.name}-{stem}.scorm2004.zip"
    with zipfile.ZipFile(path) as z:
        names = set(z.namelist())
        player = z.read(scorm.PLAYER).decode("utf-8")
        video = z.read(entry.file)
        checked = json.loads(z.read(accessibility.JSON_NAME))
    assert names == {
        "imsmanifest.xml",
        scorm.PLAYER,
        transcript.HTML,  # tiny-b's lines only
        accessibility.HTML_NAME,  # tiny-b's clip only
        accessibility.JSON_NAME,
        entry.file,
        entry.poster,
        *entry.captions["vtt"].values(),
    }
    assert video == (folder / entry.file).read_bytes()
    assert list(checked["measured"]) == ["tiny-b"]
    data = json.loads(re.search(r'id="player-data">(.*?)</script>', player).group(1))
    assert [c["slug"] for c in data["chapters"]] == ["tiny-b"]
    assert data["chapters"][0]["end"] == entry.duration
    assert list(data["questions"]) == ["tiny-b"]  # tiny-a's question stays in its own


def test_the_worksheet_asks_every_question_and_keeps_the_answers_on_a_page_of_their_own(site):
    from pypdf import PdfReader

    root, folder = site
    run = CliRunner().invoke(cli, ["package", "--worksheet", "--lang", "zh", "--output", str(root)])
    assert run.exit_code == 0, run.output
    path = root / "packages" / f"pe-explainer-zh-{folder.name}.worksheet.pdf"
    pages = [" ".join(p.extract_text().split()) for p in PdfReader(path).pages]
    assert len(pages) == 2
    sheet, key = pages
    for text in (
        "1. 哪个离 PE(0) 更近？",
        "(a) PE(1)",
        "(b) PE(6)",
        "2. 4 个比特有多少种编码？",
        "姓名",
    ):
        assert text in sheet, (text, sheet)
    assert "答案" not in sheet and "0.946" not in sheet  # nothing gives the answers away
    for text in ("1. 答案：(b) PE(6)", "0.884 对 0.946。", "2. 答案：16", "2 的 4 次方。"):
        assert text in key, (text, key)
    assert not list((root / "packages").glob(".*"))  # no temporary file left behind


def test_bad_input_is_one_line_and_exit_2_and_leaves_nothing(site, tmp_path):
    root, _ = site
    runner = CliRunner()
    for args, message in [
        (["--format", "scorm3"], "scorm3"),
        (["--format", "scorm12", "--output", str(tmp_path)], "has no manifest.json"),
        (["--format", "scorm12", "--output", str(root), "--lang", "en"], "has no manifest.json"),
        (
            ["nope", "--format", "scorm12", "--output", str(root), "--lang", "zh"],
            "unknown scene 'nope'",
        ),
        (["tiny-a", "--lesson", "--format", "scorm12", "--output", str(root)], "not both"),
        (["--output", str(root)], "--format scorm12 or scorm2004, and/or --worksheet"),
    ]:
        run = runner.invoke(cli, ["package", *args])
        assert run.exit_code == 2, run.output
        lines = [line for line in run.output.splitlines() if line.strip()]
        assert len(lines) == 1 and message in lines[0], run.output
    assert not (tmp_path / "packages").exists() or not any((tmp_path / "packages").iterdir())


def test_a_folder_without_a_lesson_or_with_an_unsafe_name_is_refused(site, tmp_path):
    _, folder = site
    bare = tmp_path / "zh" / "480p15"
    bare.mkdir(parents=True)
    (bare / "manifest.json").write_bytes((folder / "manifest.json").read_bytes())
    data = json.loads((bare / "manifest.json").read_text("utf-8"))
    data.pop("lesson", None)
    (bare / "manifest.json").write_text(json.dumps(data), "utf-8")
    with pytest.raises(scorm.PackageError, match="no lesson.mp4 .*--lesson"):
        scorm.build(bare, "scorm12", tmp_path / "out")
    data = json.loads((folder / "manifest.json").read_text("utf-8"))
    data["lesson"]["file"] = "../lesson.mp4"
    (bare / "manifest.json").write_text(json.dumps(data), "utf-8")
    (bare.parent / "lesson.mp4").write_bytes(b"x")
    with pytest.raises(scorm.PackageError, match="'../lesson.mp4' cannot go into a package"):
        scorm.build(bare, "scorm12", tmp_path / "out")
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def copy_of(folder: Path, root: Path) -> Path:
    """The rendered folder copied into a fresh output root (to spoil without harm)."""
    copy = root / folder.parent.name / folder.name
    shutil.copytree(folder, copy)
    return copy


def refused(*args: str) -> str:
    """`package ARGS`: exit 2 and one line on the output; that line."""
    run = CliRunner().invoke(cli, ["package", *args])
    assert run.exit_code == 2, run.output
    lines = [line for line in run.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), run.output
    return lines[0]


def test_a_linked_video_poster_or_subtitle_is_refused_and_no_zip_is_left(site, tmp_path):
    _, folder = site
    secret = tmp_path / "hostname"
    secret.write_text("not part of the lesson", "utf-8")
    record = Manifest.load(folder).lesson
    for name, target in [
        (record.file, secret),
        (record.poster, secret),
        (record.captions["vtt"]["en"], Path("..") / ".." / ".." / secret.name),  # relative
        (record.captions["vtt"]["zh"], Path(record.file)),  # even a link to a lesson file
    ]:
        root = tmp_path / name
        copy = copy_of(folder, root)
        (copy / name).unlink()
        (copy / name).symlink_to(target)
        line = refused("--format", "scorm12", "--lang", "zh", "--output", str(root))
        assert f"{copy / name} is a link" in line, line
        assert not (root / "packages").exists() or not any((root / "packages").iterdir())
    assert secret.read_text("utf-8") == "not part of the lesson"


def test_control_characters_in_a_title_a_blocked_name_or_an_unknown_lang(
    site, tmp_path, monkeypatch
):
    _, folder = site
    # a title with control characters makes an imsmanifest.xml and a page that parse
    words = tmp_path / "words" / "zh"
    words.mkdir(parents=True)
    (words / "lesson-intro.toml").write_text('title = "位置\\u0007编码\\u0000\\u001b"\n', "utf-8")
    monkeypatch.setenv(catalogue_mod.OVERRIDE, str(words.parent))
    root = tmp_path / "title"
    copy = copy_of(folder, root)
    run = CliRunner().invoke(
        cli, ["package", "--format", "scorm2004", "--lang", "zh", "--output", str(root)]
    )
    assert run.exit_code == 0, run.output
    with zipfile.ZipFile(root / "packages" / f"pe-explainer-zh-{copy.name}.scorm2004.zip") as z:
        tree = ET.fromstring(z.read("imsmanifest.xml"))
        player = z.read(scorm.PLAYER).decode("utf-8")
    titles = [t.text for t in tree.iter() if t.tag.endswith("}title")]
    assert titles == ["位置编码", "位置编码"]
    assert "<title>位置编码</title>" in player

    # `packages` a file, the zip's or worksheet's name a folder: one line, theirs kept
    root = tmp_path / "blocked"
    copy = copy_of(folder, root)
    (root / "packages").write_text("a teacher's notes", "utf-8")
    line = refused("--format", "scorm12", "--lang", "zh", "--output", str(root))
    assert f"{root / 'packages'} is a file" in line, line
    assert (root / "packages").read_text("utf-8") == "a teacher's notes"
    (root / "packages").unlink()
    for args, name in [
        (["--format", "scorm12"], f"pe-explainer-zh-{copy.name}.scorm12.zip"),
        (["--worksheet"], f"pe-explainer-zh-{copy.name}.worksheet.pdf"),
    ]:
        (root / "packages" / name).mkdir(parents=True)
        (root / "packages" / name / "mine.txt").write_text("kept", "utf-8")
        line = refused(*args, "--lang", "zh", "--output", str(root))
        assert f"{root / 'packages' / name} is a folder" in line, line
        assert [p.name for p in (root / "packages").iterdir()] == [name]  # no temporary file
        assert (root / "packages" / name / "mine.txt").read_text("utf-8") == "kept"
        shutil.rmtree(root / "packages")

    # a manifest in no language of the lesson's: named, with the value (cut if huge)
    data = json.loads((copy / "manifest.json").read_text("utf-8"))
    for lang, shown in [("fr", "'fr'"), ("x" * 100_000, "'xxxxxxxxxxxx...xxxxxxxxxxxxx'")]:
        (copy / "manifest.json").write_text(json.dumps(data | {"lang": lang}), "utf-8")
        for args in (["--format", "scorm12"], ["--worksheet"]):
            line = refused(*args, "--lang", "zh", "--output", str(root))
            assert f"{copy / 'manifest.json'} says lang {shown}" in line and len(line) < 400
        assert not (root / "packages").exists() or not any((root / "packages").iterdir())


# ----------------------------------------------------------------- in a real runtime
HARNESS = """<!doctype html><meta charset="utf-8"><title>LMS</title><link rel="icon" href="data:,">
<script src="{script}"></script>
<script>
  var saved = new URLSearchParams(location.search).get("cmi");
  saved = saved ? JSON.parse(saved) : null;
  window.{name} = new {cls}({{autocommit: false, logLevel: 5}});
  if (saved) {{ window.{name}.loadFromJSON(saved); }}
  // write-only values (cmi.exit) are read from what the player set
  window.setCalls = [];
  var api = window.{name}, setter = api.LMSSetValue ? "LMSSetValue" : "SetValue";
  var real = api[setter].bind(api);
  api[setter] = function (key, value) {{
    var ok = real(key, value);
    window.setCalls.push([key, value, String(ok)]);
    return ok;
  }};
</script>
<iframe id="sco" src="pkg/player.html" style="width:960px;height:600px"></iframe>
"""
READY = """
const done = arguments[arguments.length - 1];
const deadline = Date.now() + 20000;
(function wait() {
  const w = document.getElementById("sco").contentWindow;
  const p = w && w.player;
  if (p && p.video.readyState >= 2 && !p.video.seeking) { done(true); }
  else if (Date.now() > deadline) { done(false); }
  else { setTimeout(wait, 50); }
})();
"""
READY_ALONE = """
const done = arguments[arguments.length - 1], deadline = Date.now() + 20000;
(function wait() {
  const v = document.getElementById("video");
  if (v.readyState >= 2 && v.seekable.length && v.seekable.end(0) > 0) { done(true); }
  else if (Date.now() > deadline) { done(false); } else { setTimeout(wait, 50); }
})();
"""
PLAY = """
const done = arguments[arguments.length - 1];
const p = document.getElementById("sco").contentWindow.player;
p.video.muted = true;
p.video.play().then(() => done(true), e => done(String(e)));
"""
ASKED = """
const done = arguments[arguments.length - 1], deadline = Date.now() + 20000;
const doc = document.getElementById("sco").contentDocument;
(function wait() {
  const ask = doc.getElementById("ask"), v = doc.getElementById("video");
  if (!ask.hidden && v.paused && !ask.querySelector(".verdict")) {
    done([ask.querySelector(".prompt").textContent, v.currentTime]);
  } else if (Date.now() > deadline) { done(null); } else { setTimeout(wait, 50); }
})();
"""
ANSWER = """
const [how, value] = arguments;
const doc = document.getElementById("sco").contentDocument, ask = doc.getElementById("ask");
if (how === "choice") { ask.querySelectorAll("button.choice")[value].click(); }
else { ask.querySelector("input").value = value; ask.querySelector("button.submit").click(); }
const verdict = ask.querySelector(".verdict").textContent;
ask.querySelector("button.go-on").click();
return verdict;
"""
ENDED = """
const done = arguments[arguments.length - 1], deadline = Date.now() + 20000;
const doc = document.getElementById("sco").contentDocument;
(function wait() {
  const v = doc.getElementById("video");
  if (v.currentTime >= v.duration - 0.05 && doc.getElementById("ask").hidden) { done(true); }
  else if (Date.now() > deadline) { done(false); } else { setTimeout(wait, 50); }
})();
"""


def cmi(browser, fmt: str) -> dict:
    if fmt == "scorm12":
        script = """const c = window.API.cmi;
        return {location: c.core.lesson_location, status: c.core.lesson_status,
                suspend: c.suspend_data};"""
    else:
        script = """const c = window.API_1484_11.cmi;
        return {location: c.location, status: c.completion_status,
                success: c.success_status, suspend: c.suspend_data};"""
    out = browser.execute_script(script)
    calls = browser.execute_script("return window.setCalls")
    assert all(ok == "true" for *_, ok in calls), [c for c in calls if c[2] != "true"]
    out["calls"] = {k: v for k, v, _ in calls}
    out["exit"] = [v for k, v, _ in calls if k.endswith(".exit")][-1:] or [None]
    out["exit"] = out["exit"][0]
    return out


@browser_test
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_the_runtime_records_progress_and_completion_and_a_relaunch_resumes(site, fmt, tmp_path):

    root, folder = site
    if not (RUNTIME / "scorm12.min.js").is_file():
        pytest.fail("scorm-again is missing: run scripts/setup.sh (it installs tests/js)")
    _, name, cls = FORMATS[fmt]
    web = tmp_path / "lms"
    with zipfile.ZipFile(package(root, fmt)) as z:
        z.extractall(web / "pkg")
    script = f"{'scorm12' if fmt == 'scorm12' else 'scorm2004'}.min.js"
    (web / script).write_bytes((RUNTIME / script).read_bytes())
    (web / "lms.html").write_text(HARNESS.format(script=script, name=name, cls=cls), "utf-8")
    chapters = [c.slug for c in Manifest.load(folder).lesson.chapters]
    with (
        static_server(web) as base,
        chromium("--autoplay-policy=no-user-gesture-required") as browser,
    ):
        browser.set_script_timeout(WAIT)
        browser.get(f"{base}/lms.html")
        assert browser.execute_async_script(READY)
        started = cmi(browser, fmt)
        assert started["status"] == "incomplete" and started["exit"] == "suspend"
        record = Manifest.load(folder).lesson
        assert browser.execute_async_script(PLAY) is True
        # tiny-a's end: its question stops the video; a wrong choice, then on
        prompt, at = browser.execute_async_script(ASKED)
        assert prompt == "哪个离 PE(0) 更近？"
        assert at == pytest.approx(record.chapters[0].end, abs=0.5)
        said = browser.execute_script(ANSWER, "choice", 0)
        assert said.startswith("不太对。 答案：PE(6)") and "0.884 对 0.946" in said
        assert cmi(browser, fmt)["status"] == "incomplete"  # a question is still to come
        # tiny-b's end, the lesson's: a number, answered right
        prompt, _ = browser.execute_async_script(ASKED)
        assert prompt == "4 个比特有多少种编码？"
        assert browser.execute_script(ANSWER, "number", "16").startswith("答对了。 答案：16")
        assert browser.execute_async_script(ENDED) is True
        ended = cmi(browser, fmt)
        kept = json.loads(ended["suspend"])
        assert sorted(kept["seen"]) == sorted(chapters)  # every chapter played to its end
        assert kept["answers"] == {"tiny-a_closer": False, "tiny-b_codes": True}
        assert int(ended["location"]) == int(record.duration)
        calls = ended["calls"]
        v12 = fmt == "scorm12"
        assert calls["cmi.interactions.0.id"] == "tiny-a_closer"
        assert calls["cmi.interactions.0.type"] == "choice"
        assert calls["cmi.interactions.0.result"] == ("wrong" if v12 else "incorrect")
        assert calls["cmi.interactions.0.correct_responses.0.pattern"] == "b"
        assert calls["cmi.interactions.1.type"] == "numeric"
        assert calls["cmi.interactions.1.result"] == "correct"
        assert calls["cmi.interactions.1.correct_responses.0.pattern"] == (
            "16" if v12 else "16[:]16"
        )
        score = "cmi.core.score." if v12 else "cmi.score."
        assert [calls[score + k] for k in ("raw", "min", "max")] == ["1", "0", "2"]
        if v12:
            assert ended["status"] == "passed"  # half right: the mastery line
        else:
            assert ended["status"] == "completed" and ended["success"] == "passed"
            assert calls["cmi.score.scaled"] == "0.5000"

        # relaunch where the first chapter ends, as the platform stores it
        first_end = int(Manifest.load(folder).lesson.chapters[0].end)
        answered = {"tiny-a_closer": False}
        stored = {
            "suspend_data": json.dumps({"t": first_end, "seen": chapters[:1], "answers": answered})
        }
        if fmt == "scorm12":
            stored["core"] = {"lesson_location": str(first_end)}
        else:
            stored["location"] = str(first_end)
        browser.get(f"{base}/lms.html?cmi={quote(json.dumps(stored))}")  # a new launch
        assert browser.execute_async_script(READY)
        at = browser.execute_script(
            'return document.getElementById("sco").contentWindow.player.video.currentTime'
        )
        assert at == pytest.approx(first_end, abs=0.1)
        assert cmi(browser, fmt)["status"] == "incomplete"  # one chapter seen of two
        assert console_errors(browser) == []


@browser_test
def test_without_a_platform_the_player_plays_and_says_progress_is_not_recorded(site, tmp_path):

    root, _ = site
    with zipfile.ZipFile(package(root, "scorm12")) as z:
        z.extractall(tmp_path / "pkg")
    with chromium() as browser:
        browser.get((tmp_path / "pkg" / scorm.PLAYER).as_uri())  # opened from the unzipped folder
        note = browser.execute_script(
            'return [document.getElementById("note").hidden, document.getElementById("note").textContent]'
        )
        assert note == [False, scorm.UI["zh"]["unrecorded"]]
        tracks = browser.execute_script(
            'return Array.from(document.getElementById("video").textTracks).map(t => t.language)'
        )
        assert sorted(tracks) == ["en", "zh"]
        # the presenter's keys: chapters, subtitles, play and pause
        from selenium.webdriver.common.action_chains import ActionChains

        state = """const v = document.getElementById("video");
          return [v.currentTime, v.paused, Array.from(v.textTracks)
            .filter(t => t.mode === "showing").map(t => t.language)];"""
        assert browser.execute_async_script(READY_ALONE)
        second = Manifest.load(site[1]).lesson.chapters[1].start
        for key, want in [
            ("\ue014", (second, True, [])),
            ("c", (second, True, ["en"])),
            ("c", (second, True, ["zh"])),
            ("\ue012", (0.0, True, ["zh"])),
        ]:
            ActionChains(browser).send_keys(key).perform()
            at, paused, showing = browser.execute_script(state)
            assert (round(at, 1), paused, showing) == (round(want[0], 1), *want[1:]), key
        ActionChains(browser).send_keys(" ").perform()
        assert browser.execute_script(state)[1] is False  # Space plays
        assert console_errors(browser) == []


def test_a_missing_caption_or_poster_is_named_missing(site, tmp_path):
    _, folder = site
    record = Manifest.load(folder).lesson
    for name in (record.poster, record.captions["vtt"]["en"]):
        root = tmp_path / name
        copy = copy_of(folder, root)
        (copy / name).unlink()
        line = refused("--format", "scorm12", "--lang", "zh", "--output", str(root))
        assert line == f"error: {copy / name} is missing; render the lesson again to write it"
