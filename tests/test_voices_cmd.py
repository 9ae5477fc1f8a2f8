"""`render.py voices`: every voice here with its licence, and a page where each reads a line."""

from __future__ import annotations

import re
import wave
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from render import cli
from rendering.speech import audio, chooser, voices

REPORT = Path(__file__).resolve().parent.parent / "bench" / "README.md"  # the measurements


def test_every_voice_is_listed_with_its_licence_and_whether_it_may_be_sold():
    found, missing = chooser.available(["zh", "en"], voices.load_specs())
    assert missing == []  # the set-up installs every engine
    rows = {(v.lang, v.spec.engine, v.spec.voice): v for v in found}
    bella = rows["en", "kokoro", "af_bella"]
    assert bella.default and bella.terms == "Apache-2.0" and bella.card["sold_course"] == "yes"
    assert bella.measured == "1.4% (3 scenes)"
    assert rows["zh", "kokoro", "zf_xiaobei"].spec.speed == 1.1  # as the lesson speaks her
    assert rows["zh", "fastspeech2", "baker"].card["sold_course"] == "no"
    assert rows["en", "piper", "joe"].card["sold_course"] == "unclear"
    assert rows["zh", "espeak", "cmn"].measured.startswith("48.0%")
    assert rows["zh", "kokoro", "zm_yunjian"].measured == "-"  # never measured
    assert sum(v.default for v in found) == 2
    assert {lang for lang, *_ in rows} == {"zh", "en"}
    assert not any(v.lang == "en" and v.spec.voice.startswith("z") for v in found)


def test_the_list_is_printed_for_one_language():
    result = CliRunner().invoke(cli, ["voices", "--lang", "zh"])
    assert result.exit_code == 0, result.output
    assert "zf_xiaoni" in result.output and "baker" in result.output
    assert "af_bella" not in result.output and "Apache-2.0" in result.output


def test_the_bench_report_quotes_every_measured_error():
    text = REPORT.read_text(encoding="utf-8")
    for (engine, voice), known in chooser.measured().items():
        shown = f"{known.error * 100:.1f}".removesuffix(".0")
        assert re.search(rf"\b{re.escape(shown)} ?%", text), (engine, voice)


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.sources, self.urls = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for name, value in attrs:
            if name in ("src", "href", "srcset", "poster", "data", "action"):
                self.urls.append(value)
            if name == "src" and tag == "audio":
                self.sources.append(value)


@pytest.fixture
def few_voices(monkeypatch):
    """Two Kokoro voices besides the former default and espeak-ng: the whole path, quicker."""
    every = chooser.candidates

    def few(lang, specs):
        out = every(lang, specs)
        return [s for s in out if s.engine != "kokoro"] + [s for s in out if s.engine == "kokoro"][
            :2
        ]

    monkeypatch.setattr(chooser, "candidates", few)


def test_say_writes_a_page_whose_audio_exists_decodes_and_asks_nothing_outside(
    tmp_path, few_voices
):
    line = "位置<编码>。"
    result = CliRunner().invoke(cli, ["voices", "--say", line, "--output", str(tmp_path)])
    assert result.exit_code == 0, result.output
    page = Page()
    html = (tmp_path / "voices.html").read_text(encoding="utf-8")
    page.feed(html)
    assert "位置&lt;编码&gt;。" in html  # the line, escaped
    assert len(page.sources) == 4  # zh only, as the line is Chinese
    assert not {"script", "link", "img", "iframe"} & set(page.tags)
    for url in page.urls:
        assert ":" not in url and not url.startswith(("/", "\\")), url  # no scheme, no root
    assert "url(" not in html and "@import" not in html
    for src in page.sources:
        with wave.open(str(tmp_path / src)) as w:
            assert w.getframerate() == audio.RATE and w.getnchannels() == 1
        samples = audio.read_wav(tmp_path / src)
        assert len(samples) > audio.RATE * 0.3 and abs(samples).max() > 0.05
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*page.sources, "voices.html"])


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--say", "  "], "--say is empty"),
        (["--say", "x" * 201], "--say has 201 characters"),
        (["--lang", "fr"], "--lang"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, args, said):
    result = CliRunner().invoke(cli, ["voices", *args, "--output", str(tmp_path / "out")])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0], result.stderr
    assert not (tmp_path / "out").exists()
