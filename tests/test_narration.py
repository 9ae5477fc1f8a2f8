"""Narration: engines, recordings, speech-timed beats, sound in every clip, cues on the speech."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import shutil
import struct
import subprocess
import sys
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
import pytest
from click.testing import CliRunner

from lesson import catalogue as catalogue_mod
from pe_math import Params
from render import cli
from rendering.core.jobs import Job
from rendering.draw import clip_key
from rendering.publish import lesson
from rendering.run.plan import plan
from rendering.speech import audio, captions, narration, synthesis, voices
from rendering.speech.engines import espeak
from rendering.speech.engines.piper import Piper
from tests.scene_tools import build_scene
from tests.videos import synthetic

ESPEAK = {"en": voices.VoiceSpec("espeak", "en-us"), "zh": voices.VoiceSpec("espeak", "cmn")}


def tone(seconds: float, level_db: float = -20.0, freq: float = 440.0) -> np.ndarray:
    t = np.arange(int(seconds * audio.RATE)) / audio.RATE
    return (10 ** (level_db / 20) * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def write_recording(path: Path, samples: np.ndarray, codec: str = "pcm_s16le") -> Path:
    """Save samples with PyAV in any container (wav, flac, ogg, m4a)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with av.open(str(path), "w") as out:
        stream = out.add_stream(codec, rate=audio.RATE, layout="mono")
        audio.encode_samples(out, stream, samples)
    return path


def ebur128(path: Path) -> tuple[float, float]:
    """Integrated loudness and true peak as FFmpeg's ebur128 filter measures them.

    A second, independent meter: the pipeline itself measures with pyloudnorm.
    """
    graph = av.filter.Graph()
    with av.open(str(path)) as c:
        src = graph.add_abuffer(template=c.streams.audio[0])
        meter = graph.add("ebur128", "metadata=1:peak=true")
        sink = graph.add("abuffersink")
        src.link_to(meter)
        meter.link_to(sink)
        graph.configure()
        last = {}
        for frame in c.decode(audio=0):
            graph.push(frame)
            while True:
                try:
                    out = graph.pull()
                except (av.error.BlockingIOError, av.error.EOFError):
                    break
                last = dict(out.metadata)
    # the peak is stored as a linear amplitude: the loudest so far
    return float(last["lavfi.r128.I"]), 20 * math.log10(float(last["lavfi.r128.true_peaks_ch0"]))


# ------------------------------------------------------------------ audio
def test_loudness_meter_reads_the_bs1770_reference_tone():
    # BS.1770: a 997 Hz sine at 0 dBFS peak in one channel measures -3.01 LUFS
    assert audio.loudness(tone(5.0, 0.0, 997.0)) == pytest.approx(-3.01, abs=0.05)


def test_normalise_hits_the_target_and_limits_peaks():
    quiet = np.concatenate([tone(2.0, -40.0), np.zeros(audio.RATE, np.float32)])
    assert audio.loudness(audio.normalise(quiet)) == pytest.approx(audio.TARGET_LUFS, abs=0.3)
    # a spiky signal: clicks far above its average level must be held under the ceiling
    spiky = tone(3.0, -30.0)
    spiky[:: audio.RATE // 4] = 0.99
    out = audio.normalise(spiky)
    assert audio.true_peak_db(out) <= audio.PEAK_DBTP
    assert audio.loudness(out) == pytest.approx(audio.TARGET_LUFS, abs=0.5)
    assert np.all(audio.normalise(np.zeros(4800, np.float32)) == 0)  # silence stays silent
    # a sound already at the level (a clip's track of normalised beats) is left as it is
    assert audio.normalise(out) is out  # the same array: voice_clip keeps its early encode
    louder = out * 10 ** (0.5 / 20)  # half a LU over: brought back
    assert audio.loudness(audio.normalise(louder)) == pytest.approx(audio.TARGET_LUFS, abs=0.2)


def test_a_codec_overshoot_is_lowered_where_it_happens_and_nowhere_else():
    # the decoded sound overshoots around one sample; only a few ms around it turn down
    sound_in = tone(2.0, -12.0)
    decoded = sound_in.copy()
    spike = audio.RATE
    decoded[spike] = 0.999
    fixed = audio.lower_encoded_peaks(sound_in, decoded)
    gain = fixed / np.where(sound_in == 0, 1, sound_in)
    near = slice(spike - audio.RATE // 100, spike + audio.RATE // 100)
    assert gain[spike] < 10 ** (-0.5 / 20) * 0.999 / abs(sound_in[spike]) + 1e-6
    assert gain[near].min() < 1
    assert np.array_equal(fixed[: spike - audio.RATE // 20], sound_in[: spike - audio.RATE // 20])
    assert np.array_equal(fixed[spike + audio.RATE // 20 :], sound_in[spike + audio.RATE // 20 :])


def test_a_track_at_the_level_already_is_encoded_once_while_it_is_measured(tmp_path, monkeypatch):
    video = synthetic(tmp_path / "v.mp4", 30, size=(64, 36), step=0)
    track = audio.normalise(tone(3.0, -30.0))
    tries = []
    add_track = audio.add_track
    monkeypatch.setattr(audio, "add_track", lambda *a: tries.append(a[2]) or add_track(*a))
    sound = audio.voice_clip(video, track, tmp_path / "out.mp4", 10)
    assert len(tries) == 1 and tries[0] != tmp_path / "out.mp4"  # the early encode, kept
    assert sound.lufs == pytest.approx(audio.TARGET_LUFS, abs=0.5)
    assert np.allclose(audio.decode(tmp_path / "out.mp4")[: len(track)], track, atol=0.05)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.mp4", "v.mp4"]
    # a quiet track is brought up: the early encode is dropped, the louder one kept
    tries.clear()
    sound = audio.voice_clip(video, tone(3.0, -40.0), tmp_path / "quiet.mp4", 10)
    assert tries[-1] == tmp_path / "quiet.mp4"
    assert sound.lufs == pytest.approx(audio.TARGET_LUFS, abs=0.5)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.mp4", "quiet.mp4", "v.mp4"]


def test_a_square_onset_that_the_encoder_overshoots_still_ends_under_the_ceiling(
    tmp_path, monkeypatch
):
    # a 10 ms square burst at 3 kHz in quiet speech-level sound: limited to 0.3 dB under
    # the ceiling, AAC rings over it (the limiter's own margin, 1 dB, spares most clips
    # the re-encode; here the sound is limited less, so the retries must bring it under)
    samples = tone(3.0, -26.0, 220.0)
    t = np.arange(int(0.01 * audio.RATE)) / audio.RATE
    start = int(1.5 * audio.RATE)
    samples[start : start + len(t)] = 0.9 * np.sign(np.sin(2 * np.pi * 3000 * t))
    video = synthetic(tmp_path / "v.mp4", 30, size=(64, 36), step=0)
    thin = audio.normalise
    monkeypatch.setattr(audio, "normalise", lambda x: thin(x, audio.PEAK_DBTP - 0.3))
    limited = audio.normalise(samples)
    audio.add_track(video, limited, tmp_path / "once.mp4")
    assert audio.true_peak_db(audio.decode(tmp_path / "once.mp4")) > audio.PEAK_DBTP
    tries = []
    add_track = audio.add_track
    monkeypatch.setattr(audio, "add_track", lambda *a: tries.append(1) or add_track(*a))
    sound = audio.voice_clip(video, samples, tmp_path / "out.mp4", 10)
    assert len(tries) > 1
    assert sound.true_peak <= audio.PEAK_DBTP
    assert sound.lufs == pytest.approx(audio.TARGET_LUFS, abs=0.5)


def test_trim_cuts_silence_around_speech():
    x = np.concatenate([np.zeros(audio.RATE), tone(1.0), np.zeros(audio.RATE // 2)])
    assert len(audio.trim(x)) / audio.RATE == pytest.approx(1.04, abs=0.02)
    assert audio.speech_span(np.zeros(4800, np.float32)) is None


# ------------------------------------------------------------------ config and text
def test_voice_tables_in_the_lesson_file(tmp_path):
    lesson = voices.load_specs()  # lesson.toml states the defaults, with its names' readings
    assert {lang: replace(spec, lexicon=()) for lang, spec in lesson.items()} == voices.DEFAULTS
    assert dict(lesson["en"].lexicon)["YaRN"] == "/jˈɑɹn/"
    cfg = tmp_path / "lesson.toml"
    cfg.write_text('d_model = 8\n[voice.en]\nengine = "espeak"\nspeed = 1.2\n', encoding="utf-8")
    specs = voices.load_specs(cfg)
    assert specs["en"] == voices.VoiceSpec("espeak", "en-us", 1.2)
    assert specs["zh"] == voices.DEFAULTS["zh"]
    assert Params.load(cfg).d_model == 8  # the [voice] table is not a lesson parameter
    for body, words in (
        (
            '[voice.en]\nengine = "festival"\n',
            "engine='festival': must be one of kokoro, piper, fastspeech2, espeak",
        ),
        ("[voice.en]\nspeed = 9\n", "speed=9: must be a number from 0.5 to 2"),
        ('[voice.fr]\nengine = "espeak"\n', "[voice.fr]: no such language"),
    ):
        cfg.write_text(body, encoding="utf-8")
        with pytest.raises(voices.VoiceError, match=words.replace("[", r"\[").replace("]", r"\]")):
            voices.load_specs(cfg)


def test_symbols_are_spoken_as_words_and_sentences_split():
    assert narration.spoken("One lap takes 2π/ω positions.", "en") == (
        "One lap takes two pi over omega positions."
    )
    assert narration.spoken("角速度 ω 旋转", "zh") == "角速度 ω 旋转"  # the zh front end reads ω
    assert narration.sentences("First one. Second one? Third.", "en") == [
        "First one.",
        "Second one?",
        "Third.",
    ]
    assert narration.sentences("第一句。第二句！", "zh") == ["第一句。", "第二句！"]


# ------------------------------------------------------------------ narrate
def test_a_few_sentences_are_spoken_in_the_command_not_by_a_pool(
    plugin_scenes, tmp_path, monkeypatch
):
    # each worker of a pool loads the engine anew: for a reworded line it costs more than it saves
    pending = [narration.narrate("tiny", "en", "auto", ESPEAK, tmp_path, tmp_path / "c", False)]
    assert 2 <= sum(len(b.pieces) for b in pending[0].beats) < narration.POOL_FROM

    def no_pool(*args, **kwargs):
        raise AssertionError("a pool was started")

    monkeypatch.setattr(narration, "ProcessPoolExecutor", no_pool)
    narration.synthesise_pending(pending, "auto", ESPEAK, tmp_path / "c")  # left to narrate


def test_pending_speech_is_made_on_every_core_and_then_found_cached(
    plugin_scenes, tmp_path, monkeypatch
):
    monkeypatch.setattr(narration, "POOL_FROM", 2)  # tiny has a few sentences
    cache = tmp_path / "cache"
    pending = [
        narration.narrate("tiny", lang, "auto", ESPEAK, tmp_path, cache, False)
        for lang in ("en", "zh")
    ]
    assert all(not p.file for n in pending for b in n.beats for p in b.pieces)
    narration.synthesise_pending(pending, "auto", ESPEAK, cache)
    for lang, before in zip(("en", "zh"), pending, strict=True):
        made = narration.narrate("tiny", lang, "auto", ESPEAK, tmp_path, cache, False)
        pieces = [p for b in made.beats for p in b.pieces]
        assert [p.digest for p in pieces] == [p.digest for b in before.beats for p in b.pieces]
        assert all(p.file and p.seconds > 0.3 for p in pieces)


def test_speech_made_on_every_core_is_what_the_narration_makes_itself(tmp_path, monkeypatch):
    # the same cache name must hold the same speech, whichever way it was made: the
    # lexicon's words kept for the engine, and a long sentence said in parts
    heard: list[str] = []

    class Listening:
        spec = replace(Piper.voices["en"], lexicon=(("RoPE", "/ɹˈOp/"),))
        lexicon_words = frozenset({"RoPE"})
        identity = "listening"

        def speak(self, text):
            heard.append(text)
            return np.full(audio.RATE // 4, 0.1, np.float32), audio.RATE

    monkeypatch.setattr(voices, "engine", lambda spec: Listening())
    sentence = "RoPE turns each pair of dimensions, " * 8 + "and the score sees only the gap."
    assert len(sentence) > synthesis.MAX_PART
    (piece,) = narration.synthesised(Listening(), sentence, "en", tmp_path)
    itself = list(heard)
    heard.clear()
    narration._make_piece((Listening.spec, sentence, "en", str(tmp_path / "pool.wav")))
    assert heard == itself and len(itself) == 2 and itself[0].startswith("RoPE turns")
    assert (tmp_path / "pool.wav").read_bytes() == Path(piece.file).read_bytes()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_sentence_is_spoken_on_its_own_and_cached(plugin_scenes, tmp_path, lang, monkeypatch):
    cache = tmp_path / "cache"
    n = narration.narrate("tiny", lang, "auto", ESPEAK, tmp_path / "voice", cache)
    assert [b.key for b in n.beats] == ["one", "two"]
    assert all(b.source == "espeak" for b in n.beats)
    for beat in n.beats:
        texts = narration.sentences(narration.beat_lines("tiny", lang)[beat.key], lang)
        assert [p.text for p in beat.pieces] == texts
        for a, b in zip(beat.pieces, beat.pieces[1:], strict=False):
            assert b.offset == pytest.approx(a.offset + a.seconds + narration.SENTENCE_GAP)
        assert beat.seconds > 0.5
        for piece in beat.pieces:  # trimmed: speech starts right away
            samples = audio.read_wav(Path(piece.file))
            assert audio.speech_span(samples)[0] < 0.05
    # a second run synthesises nothing: the engine is never asked
    monkeypatch.setattr(espeak.Espeak, "speak", lambda *a: pytest.fail("not cached"))
    again = narration.narrate("tiny", lang, "auto", ESPEAK, tmp_path / "voice", cache)
    assert again.digest() == n.digest()
    assert json.loads(n.cards)[0]["engine"] == "espeak-ng"


def _huge_header(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[40:44] = struct.pack("<I", 0xFFFFFFF0)  # the data chunk claims 4 GB
    path.write_bytes(bytes(data))


DAMAGE = {
    "empty": lambda path: path.write_bytes(b""),
    "cut-short": lambda path: path.write_bytes(path.read_bytes()[:-100]),
    "random": lambda path: path.write_bytes(os.urandom(5000)),
    "huge-header": _huge_header,
    "fifo": lambda path: (path.unlink(), os.mkfifo(path)),
}


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_damaged_cached_take_is_made_again_with_a_note(plugin_scenes, tmp_path, damage, capsys):
    cache = tmp_path / "cache"
    first = narration.narrate("tiny", "en", "auto", ESPEAK, tmp_path, cache).beats[0].pieces[0]
    whole = Path(first.file).read_bytes()
    DAMAGE[damage](Path(first.file))
    again = narration.narrate("tiny", "en", "auto", ESPEAK, tmp_path, cache).beats[0].pieces[0]
    assert again == first and Path(again.file).read_bytes() == whole
    assert capsys.readouterr().err == f"note: {first.file} was damaged; it is made again\n"


def test_pending_speech_is_not_synthesised_for_a_plan(plugin_scenes, tmp_path):
    n = narration.narrate(
        "tiny", "en", "espeak", ESPEAK, tmp_path, tmp_path / "cache", synthesize=False
    )
    assert n.pending and n.digest() == "pending"
    assert not (tmp_path / "cache").exists()
    (p,) = plan([Job("tiny", Params(), narration=n)], tmp_path / "out")
    assert (p.cached, p.reason) == (False, "never rendered")
    assert render(tmp_path / "out", "tiny", "--voice", "none").exit_code == 0
    silent = (tmp_path / "out" / "en" / "480p15" / "tiny.mp4").read_bytes()
    (p,) = plan([Job("tiny", Params(), narration=n)], tmp_path / "out")
    assert (p.cached, p.reason) == (False, "narration not synthesised yet")
    assert (tmp_path / "out" / "en" / "480p15" / "tiny.mp4").read_bytes() == silent


def test_a_recording_wins_beat_by_beat_and_warns_when_it_sounds_wrong(plugin_scenes, tmp_path):
    voice_dir = tmp_path / "voice"
    write_recording(
        voice_dir / "en" / "tiny" / "two.flac",
        np.concatenate([np.zeros(audio.RATE // 2), tone(1.5)]),
        "flac",
    )
    n = narration.narrate("tiny", "en", "auto", ESPEAK, voice_dir, tmp_path / "cache")
    one, two = n.beats
    assert (one.source, two.source) == ("espeak", "recorded")
    assert two.seconds == pytest.approx(1.54, abs=0.03)  # leading silence trimmed
    assert n.recorded == ["two"] and n.fell_back == ["one"]
    assert n.voice == "espeak-ng en-us + recorded" and n.engine_voice == "espeak-ng en-us"
    # --voice espeak ignores recordings
    forced = narration.narrate("tiny", "en", "espeak", ESPEAK, voice_dir, tmp_path / "cache")
    assert forced.recorded == []

    clipped = np.clip(tone(1.0, 6.0), -1, 1)
    write_recording(voice_dir / "en" / "tiny" / "one.wav", clipped)
    n = narration.narrate("tiny", "en", "auto", ESPEAK, voice_dir, tmp_path / "cache")
    assert "clipped" in n.beats[0].warnings[0] and "one.wav" in n.beats[0].warnings[0]
    write_recording(voice_dir / "en" / "tiny" / "one.wav", np.zeros(audio.RATE, np.float32))
    n = narration.narrate("tiny", "en", "auto", ESPEAK, voice_dir, tmp_path / "cache")
    assert "silent" in n.beats[0].warnings[0]


@pytest.mark.parametrize(
    "notes",
    [
        {"problems": 5, "sentences": None},
        {"problems": [7], "sentences": None},
        {"problems": [], "sentences": "x"},
        {"problems": [], "sentences": [[1.0]]},
        {"problems": [], "sentences": [["a", "b"]]},
        {"problems": [], "sentences": [[float("nan"), 1.0]]},
        [],
    ],
)
def test_a_takes_kept_notes_of_the_wrong_shape_are_made_again(plugin_scenes, tmp_path, notes):
    """The notes kept beside a shaped take (its problems, its sentences) are read only
    when they have the shape they were written with; otherwise the take is heard again."""
    voice_dir, cache = tmp_path / "voice", tmp_path / "cache"
    write_recording(voice_dir / "en" / "tiny" / "two.wav", np.clip(tone(1.0, 6.0), -1, 1))
    first = narration.narrate("tiny", "en", "auto", ESPEAK, voice_dir, cache)
    kept = [f for f in cache.glob("*.json") if "problems" in f.read_text(encoding="utf-8")]
    assert len(kept) == 1
    kept[0].write_text(json.dumps(notes), encoding="utf-8")
    again = narration.narrate("tiny", "en", "auto", ESPEAK, voice_dir, cache)
    assert again.beats[1].warnings == first.beats[1].warnings
    assert "clipped" in again.beats[1].warnings[0]
    assert json.loads(kept[0].read_text(encoding="utf-8"))["problems"]


def test_a_corrupt_recording_is_one_line_naming_the_file(plugin_scenes, tmp_path):
    bad = tmp_path / "voice" / "en" / "tiny" / "one.mp3"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"not audio at all" * 100)
    result = CliRunner().invoke(
        cli,
        [
            "render",
            "tiny",
            "--output",
            str(tmp_path / "out"),
            "--voice-dir",
            str(tmp_path / "voice"),
        ],
    )
    assert result.exit_code == 2
    line = result.output.strip().splitlines()[-1]
    assert line.startswith("error: ") and "one.mp3 cannot be decoded" in line
    assert not list((tmp_path / "out").glob("en/*/*.mp4"))


def test_a_missing_engine_or_voice_says_what_to_install(plugin_scenes, tmp_path, monkeypatch):
    def run(*args):
        return CliRunner().invoke(cli, ["render", "tiny", "--output", str(tmp_path), *args])

    result = run("--voice", "piper", "--lang", "zh")
    assert result.exit_code == 2 and "--voice piper has no zh voice here" in result.output
    result = run("--voice", "fastspeech2", "--lang", "en")
    assert result.exit_code == 2 and "--voice fastspeech2 has no en voice here" in result.output
    cfg = tmp_path / "c.toml"
    cfg.write_text('[voice.en]\nengine = "piper"\nvoice = "nowhere/x.onnx"\n', encoding="utf-8")
    result = run("--config", str(cfg))
    assert result.exit_code == 2 and "Piper voice 'nowhere/x.onnx' not found" in result.output
    voices.engine.cache_clear()
    which = shutil.which
    monkeypatch.setattr(espeak.shutil, "which", lambda n: None if n == "espeak-ng" else which(n))
    result = run("--voice", "espeak")
    voices.engine.cache_clear()
    assert result.exit_code == 2
    assert "espeak-ng is not installed; run `make setup`" in result.output
    assert len(result.output.strip().splitlines()) == 1


# ------------------------------------------------------------------ timing
def test_beats_wait_for_their_speech_and_keep_longer_animations(plugin_scenes):
    from tests.plugin_scenes import Tiny

    silent, _ = build_scene(Tiny)
    speech = {"one": 3.0, "two": 0.2}
    voiced, report = build_scene(Tiny, speech=speech)
    report.assert_clean()
    (_, a0), (_, b0) = silent.beats
    (_, a1), (_, b1) = voiced.beats
    assert b0 - a0 == pytest.approx(1.0)  # the silent animation of beat one
    assert b1 - a1 >= speech["one"] + narration.BREATH - 1e-6  # speech longer: it waits
    # beat two's animation (1.5 s) is longer than its speech: it keeps its time
    assert voiced.renderer.time - b1 == pytest.approx(silent.renderer.time - b0, abs=1e-6)
    # and the last beat's speech is waited out at the end
    longer, _ = build_scene(Tiny, speech={"two": 4.0})
    assert longer.renderer.time - longer.beats[1][1] >= 4.0 + narration.BREATH - 1e-6


# ------------------------------------------------------------------ rendered clips
def beat_onsets(samples: np.ndarray, beats, window: float = 0.01) -> list[tuple[float, float]]:
    """(seconds from each beat start to the first loud window, loudest dB before it)."""
    level = audio.window_db(samples, window)
    out = []
    for _, start in beats:
        i = int(round(start / window))
        loud = np.flatnonzero(level[i:] > -40.0)
        before = level[max(0, i - 20) : max(0, i - 2)]
        out.append(
            (loud[0] * window if loud.size else math.inf, float(np.max(before, initial=-np.inf)))
        )
    return out


def render(out: Path, *args: str):
    return CliRunner().invoke(cli, ["render", *args, "--output", str(out)], catch_exceptions=False)


@pytest.mark.render
@pytest.mark.parametrize(
    ("lang", "voice", "label"),
    [("en", "espeak", "espeak-ng en-us"), ("zh", "auto", "kokoro zf_xiaobei")],
)
def test_a_voiced_clip_speaks_on_every_beat(
    plugin_scenes, shared_speech, tmp_path, lang, voice, label
):
    result = render(shared_speech(tmp_path), "tiny", "--lang", lang, "--voice", voice)
    assert result.exit_code == 0, result.output
    folder = tmp_path / lang / "480p15"
    entry = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))["clips"]["tiny"][
        "mp4"
    ]
    clip = folder / entry["file"]
    with av.open(str(clip)) as c:
        stream = c.streams.audio[0]
        assert (stream.codec_context.name, stream.codec_context.sample_rate) == ("aac", 48000)
    samples = audio.decode(clip)
    video = entry["frames"] / entry["fps"]
    assert abs(len(samples) / audio.RATE - video) <= 1 / entry["fps"]
    # every beat lasts at least its speech plus a breath, and speech starts with its beat
    starts = [t for _, t in entry["beats"]] + [entry["duration"]]
    for i, (key, spans) in enumerate(entry["speech"].items()):
        assert starts[i + 1] - starts[i] >= spans[-1][1] - spans[0][0] + narration.BREATH - 0.07
        assert spans[0][0] == pytest.approx(starts[i], abs=1e-3), key
    for delay, before in beat_onsets(samples, entry["beats"]):
        assert delay <= 0.1
        assert before < -45.0 or entry["beats"][0][1] == 0.0
    lufs, peak = ebur128(clip)
    assert lufs == pytest.approx(audio.TARGET_LUFS, abs=1.0)
    assert peak <= audio.PEAK_DBTP + 0.05  # FFmpeg oversamples differently: a little slack
    assert entry["voice"] == label
    assert f"{label}</p>" in (folder / "index.html").read_text("utf-8")
    # the voiced language's cues lie inside the sentences they show, or stay up a little
    # around one, to be read
    spans = [s for beat in entry["speech"].values() for s in beat]
    vtt = (folder / entry["captions"]["vtt"][lang]).read_text(encoding="utf-8")
    for line in vtt.splitlines():
        if "-->" in line:
            a, b = (_secs(x) for x in line.split(" --> "))
            lead, linger = captions.LEAD + 0.002, captions.LINGER + 0.002
            assert any(s - lead <= a < min(b, e) and b <= e + linger for s, e in spans), line
    other = "zh" if lang == "en" else "en"
    assert (folder / entry["captions"]["vtt"][other]).read_text(encoding="utf-8").count("-->") >= 2
    # and a machine hears every beat say its line
    heard = CliRunner().invoke(cli, ["listen", "tiny", "--lang", lang, "--output", str(tmp_path)])
    assert heard.exit_code == 0, heard.output
    rows = [line.split() for line in heard.output.splitlines() if line.startswith("tiny ")]
    assert [r[1] for r in rows] == ["one", "two"] and all(r[2] == "clip" for r in rows)
    assert all(int(r[3].rstrip("%")) <= 35 for r in rows), heard.output


def _secs(stamp: str) -> float:
    h, m, s = stamp.split(":")
    return int(h) * 3600 + int(m) * 60 + float(s)


@pytest.mark.render
def test_webm_speaks_opus_and_gif_stays_silent(plugin_scenes, tmp_path):
    assert render(tmp_path, "tiny-static", "--voice", "espeak", "--format", "webm").exit_code == 0
    assert render(tmp_path, "tiny-static", "--voice", "espeak", "--format", "gif").exit_code == 0
    folder = tmp_path / "en" / "480p15"
    with av.open(str(folder / "tiny-static.webm")) as c:
        assert c.streams.audio[0].codec_context.name == "opus"
        assert c.streams.audio[0].codec_context.sample_rate == 48000
    with av.open(str(folder / "tiny-static.gif")) as c:
        assert not c.streams.audio


@pytest.mark.render
def test_rerecording_a_beat_rerenders_only_its_scene(plugin_scenes, tmp_path):
    voice_dir = tmp_path / "voice"
    out = tmp_path / "out"
    write_recording(voice_dir / "en" / "tiny-static" / "one.wav", tone(1.0))
    args = ("tiny", "tiny-static", "--voice-dir", str(voice_dir), "--voice", "auto", "--jobs", "2")
    cfg = tmp_path / "espeak.toml"
    cfg.write_text('[voice.en]\nengine = "espeak"\n', encoding="utf-8")
    first = render(out, *args, "--config", str(cfg))
    assert first.exit_code == 0
    # the render ends with the folder's accessibility report, in one line, linked from the gallery
    folder = out / "en" / "480p15"
    report = json.loads((folder / "a11y.json").read_text(encoding="utf-8"))
    said = f"{len(report['findings']) or 'no'} problem"
    assert f"a11y: {said}" in first.output and "found in 2 clips:" in first.output
    assert 'href="a11y.html"' in (folder / "index.html").read_text(encoding="utf-8")
    clips = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))["clips"]
    assert clips["tiny-static"]["mp4"]["recorded_beats"] == ["one"]
    assert clips["tiny"]["mp4"]["recorded_beats"] == []

    write_recording(voice_dir / "en" / "tiny-static" / "one.wav", tone(2.0, freq=300.0))
    result = render(out, *args, "--config", str(cfg), "--dry-run")
    assert "narration" in result.output  # the why column (rich may wrap "changed")
    specs = voices.load_specs(cfg)
    jobs = [
        Job(
            s,
            Params(),
            narration=narration.narrate(s, "en", "auto", specs, voice_dir, out / ".speech"),
        )
        for s in ("tiny", "tiny-static")
    ]
    assert {p.job.slug: p.cached for p in plan(jobs, out)} == {"tiny": True, "tiny-static": False}


def test_changing_one_languages_words_leaves_the_other_cached(plugin_scenes, tmp_path, monkeypatch):
    root = tmp_path / "captions"
    for lang in ("en", "zh"):
        (root / lang).mkdir(parents=True)
        for f in catalogue_mod.path_for(lang, "tiny").parent.glob("tiny.toml"):
            shutil.copy(f, root / lang / f.name)
    monkeypatch.setattr(catalogue_mod, "ROOTS", [root])
    catalogue_mod.catalogue.cache_clear()
    before = {lang: clip_key.key(Job("tiny", Params(), lang)) for lang in ("en", "zh")}
    path = root / "en" / "tiny.toml"
    path.write_text(path.read_text(encoding="utf-8").replace("square", "circle"), encoding="utf-8")
    catalogue_mod.catalogue.cache_clear()
    after = {lang: clip_key.key(Job("tiny", Params(), lang)) for lang in ("en", "zh")}
    catalogue_mod.catalogue.cache_clear()
    assert after["zh"] == before["zh"] and after["en"] != before["en"]


@pytest.mark.render
def test_the_lesson_joins_sound_without_drift(plugin_scenes, tmp_path):
    assert render(tmp_path, "tiny", "tiny-static", "--voice", "espeak").exit_code == 0
    folder = tmp_path / "en" / "480p15"
    record = lesson.build(folder, ["tiny", "tiny-static"])
    entries = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))["clips"]
    clip = folder / record.file
    fps = record.fps
    video = Fraction(record.frames, fps)
    samples = audio.decode(clip)
    assert abs(len(samples) / audio.RATE - float(video)) <= 1 / fps
    # the second clip's first beat speaks where its chapter starts
    second = record.chapters[1].start
    static = entries["tiny-static"]["mp4"]
    beats = [(k, second + t) for k, t in static["beats"]]
    assert beat_onsets(samples, beats)[0][0] <= 0.1
    assert ebur128(clip)[0] == pytest.approx(audio.TARGET_LUFS, abs=1.0)
    vtt = (folder / record.captions["vtt"]["en"]).read_text(encoding="utf-8")
    assert "Only the bit count matters here." in vtt


@pytest.mark.render
def test_the_script_lists_every_beat_with_its_file_and_fit(plugin_scenes, shared_speech, tmp_path):
    voice_dir = tmp_path / "voice"
    shared_speech(tmp_path)
    write_recording(voice_dir / "zh" / "tiny" / "two.wav", tone(15.0))
    result = CliRunner().invoke(
        cli,
        ["script", "tiny", "--lang", "zh", "--format", "csv", "--voice-dir", str(voice_dir)]
        + ["--output", str(tmp_path)],
    )
    assert result.exit_code == 0, result.output
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert rows[0] == ["scene", "beat", "text", "file", "tts_s", "animation_s", "status"]
    one, two = rows[1:]
    assert one[:2] == ["tiny", "one"] and one[3].endswith("zh/tiny/one.wav")
    assert one[6].startswith("missing") and "past the animation" in one[6]
    assert float(one[4]) > 1.0 and float(one[5]) == pytest.approx(1.0)
    assert two[6].startswith("recorded") and "far too long" in two[6]


def other_onnx() -> bytes:
    """A valid ONNX model that is not a Piper voice: y = x."""
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "other", [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()


@pytest.mark.parametrize(
    ("onnx", "config", "problem"),
    [
        (b"\x8f" * 3000, "{}", "bad.onnx.json is not a Piper voice config (no 'num_symbols')"),
        (b"\x8f" * 3000, "not json", "bad.onnx.json cannot be read as a Piper voice config"),
        (b"\x8f" * 3000, "joe", "bad.onnx is not a readable Piper voice (Protobuf parsing"),
        (b"", "joe", "bad.onnx is not a readable Piper voice (No graph was found"),
        (b"\x8f" * 3000, "[" * 100_000, "bad.onnx.json cannot be read as a Piper voice config"),
        ("other", "joe", "bad.onnx is not a Piper voice (it takes no input, input_lengths,"),
    ],
    ids=["empty-config", "not-json", "not-onnx", "no-graph", "nested-json", "other-model"],
)
def test_a_corrupt_piper_voice_is_one_line_before_anything_renders(
    plugin_scenes, tmp_path, onnx, config, problem
):
    model = tmp_path / "bad.onnx"
    model.write_bytes(other_onnx() if onnx == "other" else onnx)
    joe = voices.engine(Piper.voices["en"]).model
    text = Path(f"{joe}.json").read_text("utf-8") if config == "joe" else config
    Path(f"{model}.json").write_text(text, encoding="utf-8")
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[voice.en]\nengine = "piper"\nvoice = "{model}"\n', encoding="utf-8")
    for command in ("script", "render"):
        out = tmp_path / command
        result = CliRunner().invoke(
            cli, [command, "tiny", "--config", str(cfg), "--output", str(out)]
        )
        assert result.exit_code == 2, result.output
        (line,) = result.output.strip().splitlines()
        assert line.startswith("error: ") and problem in line
        assert not list(out.glob("*/*/*.mp4"))


def test_script_names_a_recording_it_cannot_decode_in_one_line(
    plugin_scenes, shared_speech, tmp_path
):
    take = shared_speech(tmp_path) / "voice" / "en" / "tiny" / "one.wav"
    take.parent.mkdir(parents=True)
    take.write_bytes(np.random.default_rng(0).bytes(50_000))
    result = CliRunner().invoke(
        cli, ["script", "tiny", "--voice-dir", str(tmp_path / "voice"), "--output", str(tmp_path)]
    )
    assert result.exit_code == 2
    (line,) = result.output.strip().splitlines()
    assert line.startswith(f"error: {take} cannot be decoded")


def test_a_ten_hour_recording_is_refused_by_its_header_without_decoding_it(plugin_scenes, tmp_path):
    take = tmp_path / "voice" / "en" / "tiny" / "one.wav"
    take.parent.mkdir(parents=True)
    data = 10 * 3600 * 48000 * 2  # ten hours of 16-bit mono at 48 kHz, as a sparse file
    header = b"RIFF" + struct.pack("<I", 36 + data) + b"WAVEfmt "
    header += struct.pack("<IHHIIHH", 16, 1, 1, 48000, 96000, 2, 16) + b"data"
    with open(take, "wb") as fh:
        fh.write(header + struct.pack("<I", data))
        fh.truncate(44 + data)
    # decoded whole, ten hours would take about 40 GB: 3 GB of address space must do
    bounded = (
        "import resource, runpy, sys; resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30)); "
        "sys.argv = sys.argv[1:]; runpy.run_path('render.py', run_name='__main__')"
    )
    args = ["render.py", "render", "tiny", "--dry-run", "--voice-dir", str(tmp_path / "voice")]
    run = subprocess.run(
        [sys.executable, "-c", bounded, *args, "--output", str(tmp_path / "out")],
        cwd=Path(__file__).resolve().parent.parent,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 2, run.stderr
    assert run.stderr.strip().splitlines() == [
        f"error: {take} is 10:00:00 long; a take may last 0:05:00 at most: "
        "trim it to the beat's line, or record the beat again"
    ]
    assert not (tmp_path / "out" / "en").exists()


def test_cached_speech_gets_the_mode_of_every_published_file(tmp_path):
    mask = os.umask(0o022)
    os.umask(mask)
    audio.write_wav(tmp_path / "speech.wav", tone(0.2))
    assert (tmp_path / "speech.wav").stat().st_mode & 0o777 == 0o666 & ~mask
