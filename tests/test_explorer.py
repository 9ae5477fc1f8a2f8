"""explore.html and explore.json: the tables round-trip against pe_math, the page draws them.

The explorer needs no rendered video: every test writes it straight from Params into a
tmp folder. The browser tests move each slider by keyboard in headless Chromium and
compare the values the page drew (its data- attributes) with pe_math's for the same
knobs, from a static server, from file:// and inside an iframe.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console

import pe_math
from pe_math import Params
from rendering.core.manifest import Manifest
from rendering.publish import explorer, gallery, presenter
from tests.browser_tools import browser_test, chromium, static_server

TOL = 1e-6  # what the page shows, against pe_math's float64
HALF_STEP = 0.5 / explorer.SCALE + 1e-15  # the most a stored value may differ from pe_math's


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """explore.html and explore.json at the lesson's default knobs, in Chinese."""
    folder = tmp_path_factory.mktemp("site") / "zh" / "480p15"
    written = explorer.write(folder, Params(), "zh")
    return folder, written


def load(folder: Path) -> dict:
    return json.loads((folder / explorer.DATA_NAME).read_text(encoding="utf-8"))


def inline(folder: Path, ident: str) -> dict:
    text = (folder / explorer.NAME).read_text(encoding="utf-8")
    found = re.search(rf'<script type="application/json" id="{ident}">(.*?)</script>', text)
    return json.loads(found.group(1))


def stored_table(data: dict, di: int, bi: int, layout: str) -> np.ndarray:
    """The PE table exactly as the page looks it up: one pool column per dim."""
    ids = data["tables"][di][bi]["layouts"][layout]["pe"]
    return np.array([data["vectors"][i] for i in ids], dtype=np.int64).T


def combos(data: dict):
    for di, d in enumerate(data["d_models"]):
        for bi, base in enumerate(data["bases"]):
            for layout in data["layouts"]:
                yield di, bi, d, base, layout


# ------------------------------------------------------------------ explore.json
def test_explore_json_round_trips_exactly_against_pe_math(site):
    folder, _ = site
    data = load(folder)
    n, variant, vectors = data["positions"], data["variant"], data["vectors"]
    assert (n, variant, data["scale"]) == (64, "paper", 10**7)
    assert data["d_models"] == [8, 16, 64, 128] and data["bases"] == [100.0, 1000.0, 10000.0]
    positions = np.arange(n)
    for di, bi, d, base, layout in combos(data):
        combo = data["tables"][di][bi]
        tables = combo["layouts"][layout]
        table = pe_math.sinusoidal(positions, d, base, layout, variant)
        stored = stored_table(data, di, bi, layout)
        assert np.array_equal(stored, explorer.encode(table)), (d, base, layout)
        assert np.max(np.abs(explorer.decode(stored) - table)) <= HALF_STEP
        sim = explorer.from_offsets(tables["similarity"], vectors, n)
        assert np.array_equal(sim, explorer.encode(pe_math.cosine_similarity_matrix(table)))
        dots = explorer.from_offsets(tables["dot"], vectors, n)
        assert np.array_equal(
            dots, explorer.encode(explorer.dot_matrix(n, d, base, layout, variant))
        )
        assert np.max(np.abs(explorer.decode(dots) - table @ table.T)) < TOL
        adjacent = vectors[tables["adjacent"]]
        assert adjacent == explorer.encode(pe_math.adjacent_distances(table)).tolist()
        shift = [pe_math.shift_dot(k, d, base, variant) for k in range(-(n - 1), n)]
        assert vectors[combo["shift_dot"]] == explorer.encode(shift).tolist()
        assert combo["periods"] == explorer.encode(pe_math.periods(d, base, variant)).tolist()
        dims = data["dims"][di]
        assert dims["pairs"][layout] == pe_math.pair_dims(d, layout).tolist()
        assert dims["perm"] == pe_math.layout_permutation(d).tolist()
        # concat is interleaved in pe_math.layout_permutation's order: the same pool columns
        interleaved = combo["layouts"]["interleaved"]["pe"]
        assert combo["layouts"]["concat"]["pe"] == [interleaved[j] for j in dims["perm"]]


def test_single_dots_match_pe_math_shifted_dots_cell_by_cell(site):
    folder, _ = site
    data = load(folder)
    n = data["positions"]
    for di, bi, d, base, layout in combos(data):
        dots = explorer.from_offsets(
            data["tables"][di][bi]["layouts"][layout]["dot"], data["vectors"], n
        )
        for p, q in ((0, 0), (3, 8), (8, 3), (63, 0), (17, 62)):
            want = pe_math.shifted_dots([p], q - p, d, base, layout)[0]
            assert dots[p, q] == explorer.encode(want), (d, base, layout, p, q)


def test_the_page_inlines_explore_json_and_both_languages(site):
    folder, _ = site
    assert inline(folder, "explore-data") == load(folder)
    words = inline(folder, "explore-ui")
    assert words["lang"] == "zh" and set(words["ui"]) == {"zh", "en"}
    assert set(words["ui"]["zh"]) == set(words["ui"]["en"])
    text = (folder / explorer.NAME).read_text(encoding="utf-8")
    assert "/*DATA*/" not in text and "/*UI*/" not in text and "{{" not in text
    assert '<html lang="zh">' in text


def test_the_page_makes_no_outside_requests(site):
    folder, _ = site
    text = (folder / explorer.NAME).read_text(encoding="utf-8")
    # the only URL is the SVG namespace name, which is never fetched
    assert re.findall(r"https?://[^\s\"']*", text) == ["http://www.w3.org/2000/svg"]
    assert "//cdn" not in text and "fetch(" not in text and "XMLHttpRequest" not in text
    assert re.findall(r"<script[^>]*\ssrc=", text) == []
    assert re.findall(r'<link[^>]*href="([^"]+)"', text) == ["data:,"]
    assert text.count("</script>") == 3  # the words, the data and the page's own script


def test_size_at_the_defaults_is_a_few_hundred_kilobytes(site):
    folder, written = site
    assert written.data_bytes == (folder / explorer.DATA_NAME).stat().st_size
    assert 100_000 < written.data_bytes < 300_000
    assert written.page_bytes < written.data_bytes + 40_000  # the page is the data plus ~25 KB
    assert (written.combos, written.positions, written.notes) == (24, 64, [])
    line = explorer.report(written)
    assert "explore.json" in line and "KB" in line and "24 tables" in line


def test_the_sliders_ranges_come_from_the_knobs():
    r = explorer.ranges(
        Params(
            max_len=16,
            d_model=32,
            base=500,
            layout="concat",
            shift_p=20,
            shift_k=-4,
            shift_dot_positions=(10,),
        )
    )
    assert r.positions == 16 and r.d_models == (8, 16, 32, 64, 128)
    assert r.bases == (100.0, 500.0, 1000.0, 10000.0) and r.notes == ()
    assert r.initial == {"p": 15, "q": 11, "d_model": 2, "base": 1, "layout": "concat"}
    r = explorer.ranges(Params(max_len=4096, d_model=1024))
    assert r.positions == explorer.MAX_POSITIONS and 1024 not in r.d_models
    assert r.initial["d_model"] == r.d_models.index(128)
    assert len(r.notes) == 2 and "max_len=4096" in r.notes[0] and "d_model=1024" in r.notes[1]
    assert explorer.ranges(Params(max_len=1)).positions == explorer.MIN_POSITIONS


def test_other_knobs_build_their_own_tables(tmp_path):
    params = Params(max_len=10, d_model=6, base=50, variant="t2t", layout="concat")
    data = load(explorer.write(tmp_path, params).data.parent)
    di, bi = data["d_models"].index(6), data["bases"].index(50.0)
    assert data["positions"] == 10 and data["variant"] == "t2t"
    table = pe_math.sinusoidal(np.arange(10), 6, 50.0, "concat", "t2t")
    assert np.array_equal(stored_table(data, di, bi, "concat"), explorer.encode(table))


def test_a_second_write_from_the_same_knobs_keeps_the_files_and_a_change_rewrites_them(
    tmp_path, monkeypatch
):
    """Every render ends by writing the explorer: from the same knobs, language and code
    it leaves both files as they are; a knob, the language or a missing file rewrites."""
    first = explorer.write(tmp_path, Params.load(), "en")
    page = (tmp_path / explorer.NAME).read_bytes()
    built = []
    build = explorer.build
    monkeypatch.setattr(explorer, "build", lambda params: built.append(params) or build(params))
    assert explorer.write(tmp_path, Params.load(), "en") == first and built == []
    assert (tmp_path / explorer.NAME).read_bytes() == page
    explorer.write(tmp_path, Params.load(), "zh")
    assert len(built) == 1 and 'lang="zh"' in (tmp_path / explorer.NAME).read_text()
    other = explorer.write(tmp_path, Params.load().replace(base=500.0), "zh")
    assert (
        len(built) == 2
        and 500.0 in json.loads((tmp_path / explorer.DATA_NAME).read_text())["bases"]
    )
    assert other.data_bytes == (tmp_path / explorer.DATA_NAME).stat().st_size
    (tmp_path / explorer.NAME).unlink()
    explorer.write(tmp_path, Params.load().replace(base=500.0), "zh")
    assert len(built) == 3 and (tmp_path / explorer.NAME).exists()


def test_a_matrix_that_is_not_one_value_per_offset_keeps_every_row():
    pool = explorer._Pool()
    toeplitz = np.array([[0, 1, 2], [-1, 0, 1], [-2, -1, 0]])
    entry = explorer.by_offset(toeplitz, pool)
    assert set(entry) == {"offsets"} and pool.vectors[entry["offsets"]] == [-2, -1, 0, 1, 2]
    assert np.array_equal(explorer.from_offsets(entry, pool.vectors, 3), toeplitz)
    odd = toeplitz.copy()
    odd[2, 2] = 1  # one cell off: the rows are stored
    entry = explorer.by_offset(odd, pool)
    assert set(entry) == {"rows"} and len(entry["rows"]) == 3
    assert np.array_equal(explorer.from_offsets(entry, pool.vectors, 3), odd)


def test_a_bad_folder_is_one_line_naming_the_fix(tmp_path):
    target = tmp_path / "a-file"
    target.write_text("x")
    with pytest.raises(
        explorer.ExplorerError, match=r"is a file, not a folder; pass an output"
    ) as e:
        explorer.write(target, Params())
    assert "\n" not in str(e.value)


# ------------------------------------------------------------------ the links
def test_gallery_and_present_link_the_explorer_only_when_it_exists(tmp_path):
    folder = tmp_path / "en" / "480p15"
    folder.mkdir(parents=True)
    Manifest(folder).save()
    gallery.write(folder)
    assert 'href="explore.html"' not in (folder / "index.html").read_text(encoding="utf-8")
    assert presenter.page_data(folder, Manifest.load(folder))["explore"] is None
    explorer.write(folder, Params(), "en")
    gallery.write(folder)
    assert 'class="explore" href="explore.html"' in (folder / "index.html").read_text(
        encoding="utf-8"
    )
    present = (folder / "present.html").read_text(encoding="utf-8")
    assert '"explore":"explore.html"' in present


def test_publish_writes_the_explorer_and_reports_its_size(tmp_path):
    from rendering.core.jobs import Job
    from tests.test_gallery import _folder

    folder = _folder(tmp_path, with_lesson=False)
    jobs = [Job("clock-hands", Params(d_model=16), "en", "l", "gif")]
    console = Console(record=True, width=200)
    gallery.publish(jobs, tmp_path, console)
    out = console.export_text()
    assert f"explorer: {folder / explorer.NAME}" in out and "explore.json" in out
    assert load(folder)["initial"]["d_model"] == load(folder)["d_models"].index(16)
    index = (folder / gallery.NAME).read_text(encoding="utf-8")
    assert 'href="explore.html"' in index


# ------------------------------------------------------------------ in Chromium
@pytest.fixture(scope="module")
def server(site):
    folder, _ = site
    (folder / "host.html").write_text(
        '<!doctype html><html><head><link rel="icon" href="data:,"></head><body>'
        '<iframe id="embed" src="explore.html?lang=en" width="420" height="700"></iframe>'
        "</body></html>",
        encoding="utf-8",
    )
    with static_server(folder) as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    with chromium(size=(1280, 800)) as driver:
        yield driver


DRAWN = """
const one = (sel) => document.querySelector(sel);
const all = (sel) => Array.from(document.querySelectorAll(sel));
const r = one("#readout").dataset;
return {
  p: +r.p, q: +r.q, offset: +r.offset, d_model: +r.dModel, base: +r.base, layout: r.layout,
  lang: r.lang, dot: +r.dot, shift_dot: +r.shiftDot, cosine: +r.cosine, step: +r.step,
  step_at: +one("#step-value").dataset.step,
  bars: all("#bars rect.bar").map(b => +b.dataset.value),
  qticks: all("#bars line.qtick").map(b => +b.dataset.value),
  clocks: all("#clocks g.clock").map(g => [+g.dataset.sin, +g.dataset.cos]),
  table_p: all("#numbers td[data-value]:not([data-of])").map(td => +td.dataset.value),
  table_q: all("#numbers td[data-of=q]").map(td => +td.dataset.value),
  similarity: one("#sim polyline").dataset.values.split(",").map(Number),
  adjacent: one("#adj polyline").dataset.values.split(",").map(Number),
  dots: one("#dots polyline").dataset.values.split(",").map(Number),
  heat: [one("#heat").width, one("#heat").height, +one("#heat-p").dataset.position,
         +one("#heat-q").dataset.position],
  title: one("h1").textContent, html_lang: document.documentElement.lang,
};
"""


def check_against_pe_math(driver) -> dict:
    """Every drawn value against pe_math at the knobs the page says it shows."""
    v = driver.execute_script(DRAWN)
    p, q, d, base, layout = v["p"], v["q"], v["d_model"], v["base"], v["layout"]
    n = 64
    table = pe_math.sinusoidal(np.arange(n), d, base, layout)
    close = functools.partial(np.testing.assert_allclose, rtol=0, atol=TOL)
    close(v["bars"], table[p])
    close(v["table_p"], table[p])
    close(v["qticks"], table[q])
    close(v["table_q"], table[q])
    tips = [[row[a], row[b]] for row in (table[p],) for a, b in pe_math.pair_dims(d, layout)]
    close(v["clocks"], tips)
    if layout == "interleaved":  # the clock hands are pe_math's own clock_hand_tips
        close(v["clocks"], pe_math.clock_hand_tips(p, d, base))
    sim = pe_math.cosine_similarity_matrix(table)
    close(v["similarity"], sim[p])
    close(v["cosine"], sim[p, q])
    close(v["dot"], pe_math.shifted_dots([p], q - p, d, base, layout)[0])
    close(v["shift_dot"], pe_math.shift_dot(q - p, d, base))
    close(v["dots"], [pe_math.shift_dot(k, d, base) for k in range(-(n - 1), n)])
    steps = pe_math.adjacent_distances(table)
    close(v["adjacent"], steps)
    assert v["step_at"] == min(p, n - 2)
    close(v["step"], steps[v["step_at"]])
    assert v["offset"] == q - p
    assert v["heat"] == [d, n, p, q]
    return v


def press(driver, element_id: str, *keys) -> None:
    element = driver.find_element("id", element_id)
    for key in keys:
        element.send_keys(key)


def severe(driver) -> list[dict]:
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


@browser_test
def test_every_slider_moved_by_keyboard_draws_pe_maths_values(server, browser):
    from selenium.webdriver.common.keys import Keys

    browser.get(f"{server}/explore.html")
    v = check_against_pe_math(browser)
    assert (v["p"], v["q"], v["d_model"], v["base"], v["layout"]) == (3, 8, 8, 10000, "interleaved")
    press(browser, "p", Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)
    assert check_against_pe_math(browser)["p"] == 5
    press(browser, "q", Keys.END)
    v = check_against_pe_math(browser)
    assert (v["q"], v["offset"]) == (63, 58)
    press(browser, "d", Keys.ARROW_RIGHT)
    assert check_against_pe_math(browser)["d_model"] == 16
    press(browser, "b", Keys.HOME)
    assert check_against_pe_math(browser)["base"] == 100
    press(browser, "d", Keys.END)
    v = check_against_pe_math(browser)
    assert v["d_model"] == 128 and len(v["bars"]) == 128 and len(v["clocks"]) == 64
    press(browser, "b", Keys.ARROW_RIGHT)
    assert check_against_pe_math(browser)["base"] == 1000
    browser.find_element("css selector", "input[name=layout]:checked").send_keys(Keys.ARROW_DOWN)
    v = check_against_pe_math(browser)
    assert v["layout"] == "concat"
    press(browser, "p", Keys.END)
    v = check_against_pe_math(browser)
    assert (v["p"], v["step_at"]) == (63, 62)
    press(browser, "q", Keys.HOME, Keys.PAGE_UP)
    assert check_against_pe_math(browser)["q"] > 0
    assert severe(browser) == []


@browser_test
def test_with_the_offset_held_the_dot_product_stays_while_p_moves(server, browser):
    from selenium.webdriver.common.keys import Keys

    browser.get(f"{server}/explore.html")
    press(browser, "lock", Keys.SPACE)
    first = check_against_pe_math(browser)
    seen = set()
    for _ in range(6):
        press(browser, "p", Keys.ARROW_RIGHT)
        v = check_against_pe_math(browser)
        assert v["offset"] == first["offset"] == 5 and v["q"] == v["p"] + 5
        seen.add(v["dot"])
    assert v["p"] == first["p"] + 6 and seen == {first["dot"]}
    press(browser, "p", Keys.END)  # q cannot pass the last position: p stops 5 before it
    v = check_against_pe_math(browser)
    assert (v["p"], v["q"]) == (58, 63)
    assert severe(browser) == []


@browser_test
def test_the_language_switches_by_keyboard_and_the_numbers_stay(server, browser):
    from selenium.webdriver.common.keys import Keys

    browser.get(f"{server}/explore.html")
    words = explorer.UI
    before = check_against_pe_math(browser)
    assert (before["lang"], before["html_lang"], before["title"]) == (
        "zh",
        "zh",
        words["zh"]["title"],
    )
    press(browser, "lang", Keys.ENTER)
    after = check_against_pe_math(browser)
    assert (after["lang"], after["html_lang"], after["title"]) == ("en", "en", words["en"]["title"])
    assert after["bars"] == before["bars"] and after["dot"] == before["dot"]
    browser.get(f"{server}/explore.html?lang=en")
    assert browser.execute_script(DRAWN)["title"] == words["en"]["title"]
    assert severe(browser) == []


@browser_test
def test_the_page_works_from_file_and_inside_an_iframe(site, server, browser):
    from selenium.webdriver.common.keys import Keys

    folder, _ = site
    browser.get((folder / explorer.NAME).as_uri())
    press(browser, "p", Keys.ARROW_RIGHT)
    assert check_against_pe_math(browser)["p"] == 4
    assert severe(browser) == []
    browser.get(f"{server}/host.html")
    browser.switch_to.frame(browser.find_element("id", "embed"))
    try:
        press(browser, "d", Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)
        v = check_against_pe_math(browser)
        assert (v["d_model"], v["lang"]) == (64, "en")
        # a 420 px frame: the views stack in one column and nothing overflows sideways
        assert browser.execute_script("return document.documentElement.scrollWidth <= innerWidth")
    finally:
        browser.switch_to.default_content()
    assert severe(browser) == []


@browser_test
def test_on_a_phone_the_views_stack_and_nothing_overflows(server, browser):
    browser.set_window_size(390, 844)
    try:
        browser.get(f"{server}/explore.html")
        layout = browser.execute_script(
            "const boxes = Array.from(document.querySelectorAll('#views > section'))"
            "  .map(s => s.getBoundingClientRect());"
            "return {width: innerWidth, scroll: document.documentElement.scrollWidth,"
            "  lefts: boxes.map(b => Math.round(b.left)), rights: boxes.map(b => b.right),"
            "  svgs: Array.from(document.querySelectorAll('svg'))"
            "    .map(s => s.getBoundingClientRect().right)};"
        )
        assert layout["scroll"] <= layout["width"]
        assert len(set(layout["lefts"])) == 1  # one column
        assert max(layout["rights"] + layout["svgs"]) <= layout["width"]
        check_against_pe_math(browser)
    finally:
        browser.set_window_size(1280, 800)
    assert severe(browser) == []


@browser_test
def test_present_html_links_the_explorer_and_the_link_opens_it(tmp_path, browser):
    folder = tmp_path / "en" / "480p15"
    folder.mkdir(parents=True)
    Manifest(folder).save()
    explorer.write(folder, Params(), "en")
    gallery.write(folder)  # index.html and present.html, both linking explore.html
    browser.get((folder / "present.html").as_uri())
    links = browser.find_elements("css selector", "#message a[href='explore.html']")
    assert [a.text for a in links] == [presenter.UI["en"]["explore_link"]]
    assert "E explorer" in browser.find_element("id", "hint").get_attribute("textContent")
    links[0].click()
    assert browser.current_url.endswith("/explore.html")
    assert check_against_pe_math(browser)["lang"] == "en"
    assert severe(browser) == []
