"""Every page the project writes, checked by axe-core in headless Chromium (WCAG 2.1 A and AA).

The pages are written for the tiny lesson in Chinese (gallery, presenter, transcript,
accessibility report, explorer, SCORM player) and the explorer in English; the voices page
with the voices ready here. axe-core is the npm package in tests/js, installed by the set-up
script.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from lesson.palette import LIGHT
from pe_math import Params
from rendering.cli import cli
from rendering.core import settings
from rendering.core.manifest import Manifest
from rendering.publish import accessibility, explorer, gallery, lesson, presenter, scorm, web
from rendering.publish import transcript as transcripts
from rendering.speech import chooser, voices
from tests.browser_tools import WAIT, browser_test, chromium, static_server
from tests.test_lesson import render_clips
from tests.test_presenter import SLUGS, tiny_scenes_for_module

pytestmark = pytest.mark.render

LIGHT_JOB = tuple(sorted(LIGHT.items()))
AXE = Path(__file__).resolve().parent / "js" / "node_modules" / "axe-core" / "axe.min.js"
LEVELS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]

RUN = """
const done = arguments[arguments.length - 1];
axe.run(document, {runOnly: {type: "tag", values: arguments[0]}, resultTypes: ["violations"]})
  .then(r => done(r.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 3).map(n => n.target.join(" ") + ": " + n.failureSummary)}))))
  .catch(e => done([{id: "axe-error", help: String(e), nodes: []}]));
"""


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """The folder every page is written into, and the pages' paths relative to it."""
    with tiny_scenes_for_module(tmp_path_factory):
        root = tmp_path_factory.mktemp("site")
        folder = render_clips(root, SLUGS, lang="zh")
        lesson.build(folder, SLUGS)
        gallery.write(folder)
        presenter.write(folder)
        transcripts.write(folder)
        accessibility.write(folder, accessibility.check(folder))
        explorer.write(folder, Params(), "zh")
        english = folder / "en"
        english.mkdir()
        explorer.write(english, Params(), "en")
        run = CliRunner().invoke(
            cli, ["package", "--format", "scorm12", "--lang", "zh", "--output", str(root)]
        )
        assert run.exit_code == 0, run.output
        name = f"pe-explainer-zh-{settings.folder_name('l', '16:9')}.scorm12.zip"
        with zipfile.ZipFile(root / "packages" / name) as z:
            z.extractall(folder / "package")
        ready, _ = chooser.available(["en", "zh"], voices.load_specs())
        chooser.write_page(folder / "voices", "位置编码。", [(v, 1.0) for v in ready])
        light = render_clips(folder / "light", SLUGS, lang="zh", palette=LIGHT_JOB)
        gallery.write(light)  # the gallery, transcript and player in the clips' light palette
        explorer.write(light, Params(), "zh", web.page_colors(Manifest.load(light)))
        lesson.build(light, SLUGS)
        with zipfile.ZipFile(scorm.build(light, "scorm12", tmp_path_factory.mktemp("p"))) as z:
            z.extractall(folder / "light-package")
        yield (
            folder,
            [
                "index.html",
                "present.html",
                "present.html?notes",
                "transcript.html",
                accessibility.HTML_NAME,
                "explore.html",
                "en/explore.html",
                f"package/{scorm.PLAYER}",
                "voices/voices.html",
                f"light/zh/{light.name}/index.html",
                f"light/zh/{light.name}/transcript.html",
                f"light/zh/{light.name}/explore.html",
                f"light-package/{scorm.PLAYER}",
            ],
        )


PLANTED = """<!doctype html><html><head><title>planted</title></head>
<body><img src="nothing.png"><button></button></body></html>"""
UNREACHABLE = """<!doctype html><html lang="en"><head><title>planted</title></head>
<body><button>reached</button><button tabindex="-1">skipped</button></body></html>"""

# Every control a person can use, marked so the keyboard's visits can be told apart: a
# radio group is one stop of the Tab key, whichever of its buttons it lands on.
CONTROLS = """
const native = "a[href], button, input, select, textarea, video[controls], audio[controls]";
const shown = Array.from(document.querySelectorAll(native + ", [tabindex]"))
  .filter(e => !e.disabled && (e.tabIndex >= 0 || e.matches(native))
               && e.getClientRects().length > 0
               && getComputedStyle(e).visibility !== "hidden");
shown.forEach((e, i) => {
  e.dataset.stop = e.type === "radio" ? "radio " + e.name : e.outerHTML.slice(0, 80) + " #" + i;
});
return Array.from(new Set(shown.map(e => e.dataset.stop)));
"""
FOCUSED = "return document.activeElement && document.activeElement.dataset.stop || null"


@browser_test
def test_axe_finds_no_violation_on_any_page(pages):
    if not AXE.is_file():
        pytest.fail("axe-core is missing: run scripts/setup.sh (it installs tests/js)")
    folder, names = pages
    source = AXE.read_text(encoding="utf-8")
    (folder / "planted.html").write_text(PLANTED, encoding="utf-8")
    found = {}
    with static_server(folder) as base, chromium(size=(1280, 800)) as browser:
        browser.set_script_timeout(WAIT)
        for name in [*names, "planted.html"]:
            assert (folder / name.split("?")[0]).is_file(), name
            browser.get(f"{base}/{name}")
            browser.execute_script(source)
            violations = browser.execute_async_script(RUN, LEVELS)
            if violations:
                found[name] = violations
    planted = found.pop("planted.html", [])
    assert {v["id"] for v in planted} >= {"html-has-lang", "image-alt", "button-name"}
    assert found == {}, json.dumps(found, indent=1, ensure_ascii=False)
    for light in names[-4:]:
        assert "color-scheme: light" in (folder / light).read_text(encoding="utf-8"), light


@browser_test
def test_the_keyboard_reaches_every_control_of_every_page(pages):
    folder, names = pages
    (folder / "unreachable.html").write_text(UNREACHABLE, encoding="utf-8")
    unreached = {}
    with static_server(folder) as base, chromium(size=(1280, 800)) as browser:
        for name in [*names, "unreachable.html"]:
            browser.get(f"{base}/{name}")
            controls = browser.execute_script(CONTROLS)
            # the report and transcript are only read; the presenter is worked by its keys
            keyless = (accessibility.HTML_NAME, "transcript.html", "present.html")
            assert bool(controls) != (Path(name.split("?")[0]).name in keyless), (
                f"{name}: {controls}"
            )
            browser.find_element(By.TAG_NAME, "body").click()
            reached = set()
            # a player's own buttons take several presses each
            for _ in range(8 * len(controls) + 10):
                ActionChains(browser).send_keys(Keys.TAB).perform()
                reached.add(browser.execute_script(FOCUSED))
                if reached >= set(controls):
                    break
            missing = sorted(set(controls) - reached)
            if missing:
                unreached[name] = missing
    planted = unreached.pop("unreachable.html", [])
    assert [stop.split(">")[1] for stop in planted] == ["skipped</button"]
    assert unreached == {}, json.dumps(unreached, indent=1, ensure_ascii=False)
