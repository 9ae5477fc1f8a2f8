"""Bad input to say, script and motion, and text no voice can say whole: one line each,
and nothing half-written left behind."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from lesson import catalogue as catalogue_mod
from render import cli
from rendering.speech import synthesis, voices, zh_frontend
from rendering.speech.engines.base import Engine
from rendering.speech.engines.piper import Piper
from tests.disks import fill, make_read_only

CAPTIONS = Path(__file__).resolve().parent / "captions"


def run(*args: str):
    return CliRunner().invoke(cli, [str(a) for a in args])


def files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


# ------------------------------------------------------------------ an unwritable output
@pytest.mark.parametrize("trouble", ["full", "read-only"])
def test_a_full_or_read_only_output_is_one_line_for_say_script_and_motion(
    plugin_scenes, small_disk, tmp_path, trouble, monkeypatch
):
    # espeak speaks in a moment: what is checked is the write, not the voice
    work = tmp_path / "work"
    work.mkdir()
    (work / "lesson.toml").write_text('[voice.en]\nengine = "espeak"\nvoice = "en-us"\n', "utf-8")
    monkeypatch.chdir(work)
    out = small_disk / "media"
    if trouble == "full":
        fill(small_disk)
        expected = f"error: the disk is full (writing {out / '.speech'}/"
        reason = "No space left on device"
    else:
        make_read_only(small_disk)
        expected = f"error: cannot write to {out / '.speech'} (Read-only file system)"
        reason = "Read-only file system"
    line = tmp_path / "line.wav"
    for command in (
        ["say", "A line to speak.", "--out", line],
        ["script", "tiny"],
        ["motion", "tiny"],
    ):
        result = run(*command, "--output", out)
        assert result.exit_code == 2, (command, result.output)
        errors = result.stderr.strip().splitlines()
        assert len(errors) == 1 and errors[0].startswith(expected), (command, errors)
        assert not line.exists()
        assert files(small_disk) == (["filler"] if trouble == "full" else [])
    # the line itself on that disk
    line = small_disk / "line.wav"
    result = run("say", "A line to speak.", "--out", line, "--output", tmp_path / "media")
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        f"error: cannot write {line} ({reason}); give --out a file in a writable folder "
        "with free space"
    ]
    assert files(small_disk) == (["filler"] if trouble == "full" else [])


# ------------------------------------------------------------------ long text
def test_say_refuses_more_than_2000_characters_in_one_line(tmp_path):
    out, media = tmp_path / "long.wav", tmp_path / "media"
    result = run("say", "七" * 2001, "--lang", "zh", "--out", out, "--output", media)
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "error: TEXT has 2,001 characters; say speaks at most 2,000 at once, "
        "so split it into several lines"
    ]
    assert not out.exists() and not media.exists()


class Heard(Engine):
    """An engine that keeps every text it is given."""

    def __init__(self) -> None:
        self.spec = voices.VoiceSpec("espeak", "heard")
        self.identity = "heard"
        self.given: list[str] = []

    def speak(self, text: str):
        self.given.append(text)
        tone = 0.3 * np.sin(np.arange(1600) * 2 * np.pi * 440 / 16000)  # 0.1 s
        return tone.astype(np.float32), 16000

    def card(self) -> dict:
        return {}


@pytest.mark.parametrize(
    ("lang", "line"),
    [
        ("en", "7" * 5000),
        ("en", ", ".join(["every clause of this sentence ends at a comma"] * 40) + "."),
        ("zh", "位置编码让模型知道每个词在哪里" * 14 + "。"),  # 210 characters, no pause
        ("zh", "位置编码让模型知道每个词在哪里" * 20 + "。"),
        ("zh", "7" * 5000),
    ],
    ids=["en-digits", "en-commas", "zh-one-clause", "zh-no-pause", "zh-digits"],
)
def test_a_long_sentence_reaches_every_engine_in_parts(tmp_path, lang, line):
    engine = Heard()
    (piece,) = synthesis.synthesised(engine, line, lang, tmp_path)
    assert len(engine.given) > 1 or len(line) <= synthesis.MAX_PART
    assert max(len(part) for part in engine.given) <= synthesis.MAX_PART
    said = "".join(engine.given).replace(" ", "")
    assert said == synthesis.spoken(line, lang).replace(" ", "")  # nothing lost or doubled
    if "," in line:  # cut at its pauses
        assert all(part.endswith(",") for part in engine.given[:-1])
    assert piece.seconds > (len(engine.given) - 1) * synthesis.PART_GAP
    # the neural Chinese voice is given at most MAX_CLAUSE syllables at once
    if lang == "zh":
        clauses = [c for part in engine.given for c in zh_frontend.clauses(part)]
        assert max(len(c) for c in clauses) <= zh_frontend.MAX_CLAUSE
        assert sum(map(len, clauses)) == len(zh_frontend.toneless(line))


# ------------------------------------------------------------------ an unreadable --config
@pytest.mark.parametrize("kind", ["syntax", "fifo", "deep"])
def test_say_refuses_an_unreadable_config_as_render_does(tmp_path, kind):
    config = tmp_path / "voices.toml"
    if kind == "syntax":
        config.write_text('[voice.en]\nengine = = "espeak"\n', encoding="utf-8")
    elif kind == "fifo":
        os.mkfifo(config)
    else:
        config.write_text("x = " + "[" * 2000 + "]" * 2000 + "\n", encoding="utf-8")
    out, media = tmp_path / "x.wav", tmp_path / "media"
    said = run("say", "Hello.", "--config", config, "--out", out, "--output", media)
    rendered = run("render", "clock-hands", "--dry-run", "--config", config)
    assert said.exit_code == rendered.exit_code == 2
    (line,) = said.output.strip().splitlines()
    assert line == rendered.output.strip()
    assert line.startswith(f"error: config file {config} ")
    assert not out.exists() and not media.exists()


# ------------------------------------------------------------------ a corrupt Piper voice
@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("espeak.voice", "xx-nowhere", 'espeak.voice "xx-nowhere" is not a voice'),
        ("audio.sample_rate", 0, "audio.sample_rate 0 must be a whole number of Hz"),
        ("phoneme_id_map", {}, "phoneme_id_map {} must map each phoneme to its ids"),
        ("audio.sample_rate", None, "is not a Piper voice config (no 'audio.sample_rate')"),
        ("num_speakers", None, "is not a Piper voice config (no 'num_speakers')"),
    ],
)
def test_a_corrupt_piper_config_is_one_line_naming_the_file_and_the_field(
    tmp_path, field, value, problem
):
    joe = voices.engine(Piper.voices["en"]).model
    model = tmp_path / "voice.onnx"
    model.symlink_to(joe)
    config = json.loads(Path(f"{joe}.json").read_text(encoding="utf-8"))
    *tables, key = field.split(".")
    table = config
    for name in tables:
        table = table[name]
    if value is None:
        del table[key]
    else:
        table[key] = value
    Path(f"{model}.json").write_text(json.dumps(config), encoding="utf-8")
    lesson = tmp_path / "lesson.toml"
    lesson.write_text(f'[voice.en]\nengine = "piper"\nvoice = "{model}"\n', encoding="utf-8")
    out, media = tmp_path / "x.wav", tmp_path / "media"
    result = run("say", "Hello.", "--config", lesson, "--out", out, "--output", media)
    assert result.exit_code == 2
    (line,) = result.output.strip().splitlines()
    assert line.startswith(f"error: {model}.json") and problem in line, line
    assert line.endswith("copy the .onnx.json that came with the voice beside it")
    assert not out.exists() and not [f for f in files(tmp_path) if f.endswith(".wav")]


@pytest.mark.parametrize("invisible", ["\u200b\u200b", "\u200d\ufeff \u2060", "\x07\t"])
def test_say_refuses_a_line_of_only_invisible_characters(tmp_path, invisible):
    out = tmp_path / "x.wav"
    said = run("say", invisible, "--out", out, "--output", tmp_path / "media")
    assert said.exit_code == 2 and said.output.startswith("error: TEXT is empty;")
    assert not out.exists()


def test_the_english_voice_warns_of_the_scripts_it_cannot_read(tmp_path):
    out = tmp_path / "x.wav"
    said = run("say", "the cat 猫 sat 😀 بيت.", "--voice", "espeak", "--out", out)
    assert said.exit_code == 0 and out.exists()
    assert said.stderr.strip().splitlines() == [
        "warning: the espeak voice will not say 猫, 😀, ب, ي, ت; write them out in words "
        "or remove them"
    ]


# ------------------------------------------------------------------ what the zh voice leaves out
LEFT_OUT = "猫🐱狗🐶，ب п 한 か\x07。"
NAMED = (
    "the kokoro voice will not say 🐱, 🐶, ب, п, 한, か, U+0007; "
    "write them out in words or remove them"
)


@pytest.fixture
def own_words(tmp_path, monkeypatch) -> Path:
    """The tiny scene's zh catalogue with LEFT_OUT as beat two's line."""
    words = tmp_path / "words" / "zh" / "tiny.toml"
    words.parent.mkdir(parents=True)
    text = (CAPTIONS / "zh" / "tiny.toml").read_text(encoding="utf-8")
    line = json.dumps(LEFT_OUT, ensure_ascii=False)  # \x07 as \u0007, as TOML writes it
    words.write_text(text.replace('"第二拍加上一个方块。"', line), encoding="utf-8")
    monkeypatch.setenv(catalogue_mod.OVERRIDE, str(tmp_path / "words"))
    return words


def test_say_and_script_name_the_characters_the_chinese_voice_leaves_out(
    plugin_scenes, shared_speech, tmp_path, own_words
):
    out, media = tmp_path / "x.wav", shared_speech(tmp_path / "media")
    said = run("say", LEFT_OUT, "--lang", "zh", "--out", out, "--output", media)
    assert said.exit_code == 0, said.output
    assert said.stderr.strip().splitlines() == [f"warning: {NAMED}"]
    assert out.stat().st_size > 1000
    script = run("script", "tiny", "--lang", "zh", "--output", media)
    assert script.exit_code == 0, script.output
    assert script.stderr.strip().splitlines() == [f"warning: {own_words} [say] two: {NAMED}"]
    assert "| two | 猫🐱狗🐶" in script.stdout


@pytest.mark.render
def test_render_names_the_characters_left_out_once_per_line(plugin_scenes, tmp_path, own_words):
    media = tmp_path / "media"
    result = run("render", "tiny", "--lang", "zh", "-j", "1", "--output", media)
    assert result.exit_code == 0, result.output
    warnings = [w for w in result.stderr.splitlines() if w.startswith("warning:")]
    assert warnings == [f"warning: {own_words} [say] two: {NAMED}"]
    manifest = json.loads((media / "zh" / "480p15" / "manifest.json").read_text("utf-8"))
    # Kokoro speaks by default: its card, and the render's one line, say a sold course may use it
    cards = manifest["clips"]["tiny"]["mp4"]["voice_cards"]
    assert [(c["engine"], c["sold_course"]) for c in cards] == [("kokoro", "yes")]
    assert "sold course: every voice used may be sold" in result.stdout.splitlines()
