"""espeak-ng (a Debian package): `voice` is an espeak-ng voice name such as `en-us`.

Mandarin is given as tone-number pinyin from the Chinese front end to espeak-ng's
`cmn-latn-pinyin` voice: its `cmn` voice reads many Han syllables as English words.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import wave
from functools import cache
from pathlib import Path

import numpy as np

from rendering.speech import zh_frontend
from rendering.speech.base import VoiceError, VoiceSpec
from rendering.speech.engines.base import Engine, Measured

ESPEAK_WPM = 165  # espeak-ng's words per minute at speed 1.0 (its own default, 175, rushes)
MANDARIN_ESPEAK = "cmn-latn-pinyin"  # the espeak-ng voice that reads the front end's pinyin


class Espeak(Engine):
    engine_name = "espeak"
    rank = 3
    terms = "GPL-3.0 program"
    # espeak-ng's Mandarin drawls at its usual rate (about 2.9 syllables a second): 1.35
    # brings it to a teacher's pace of about 4.
    voices = {"en": VoiceSpec(engine_name, "en-us"), "zh": VoiceSpec(engine_name, "cmn", 1.35)}
    heard = {"cmn": Measured(0.48, "clock-hands, attention-shuffle, recap")}
    keeps_lexicon = False  # its voices read words their own way

    @classmethod
    def unset_speed(cls, lang: str) -> float:
        return cls.voices[lang].speed

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
        reader = f" {zh_frontend.dictionary()}" if self.mandarin else ""
        self.made_by = f"espeak-ng {self.version} {spec.voice}{reader} speed {spec.speed:g}"
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

    def unspoken(self, text: str) -> list[str]:
        return zh_frontend.unspoken(text) if self.mandarin else []

    def card(self) -> dict:
        return {
            "engine": "espeak-ng",
            "engine_version": self.version,
            "engine_licence": "GPL-3.0-or-later (espeak-ng)",
            "voice": self.name,
            "speed": self.spec.speed,
            "model_card": "formant synthesis, rule-based; no recorded voice"
            + (", Mandarin read from tone-number pinyin" if self.mandarin else ""),
            "licence": "the program is GPL-3.0; the speech it makes is yours to use",
            "sold_course": "yes",
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
