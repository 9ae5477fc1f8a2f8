"""Every voice this machine can speak with, its licence and how well a recogniser hears it,
and a page where each one reads the same line, so a teacher chooses by ear."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from html import escape
from pathlib import Path

from rendering.core.files import atomic_write_text
from rendering.speech import audio, voices
from rendering.speech.base import VoiceSpec
from rendering.speech.engines import kokoro, piper
from rendering.speech.engines.base import Engine

HEARD = (
    "heard wrong: the share of words (en) or syllables (zh) Whisper base got wrong; "
    "3 scenes: every line of square-to-sine, relative-shift and rope-rotation"
)


@dataclass(frozen=True)
class Measured:
    """The share of a voice's speech Whisper base heard wrong, and over what."""

    error: float
    over: str

    def shown(self) -> str:
        return f"{self.error:.1%} ({self.over})"


THREE_SCENES = "3 scenes"  # every line of square-to-sine, relative-shift, rope-rotation
# The one table of measured errors (the README quotes it): (engine, voice) at the speed the
# lesson gives it by default.
MEASURED = {
    ("kokoro", "af_bella"): Measured(0.014, THREE_SCENES),
    ("kokoro", "af_heart"): Measured(0.019, THREE_SCENES),
    ("kokoro", "am_fenrir"): Measured(0.021, THREE_SCENES),
    ("kokoro", "zf_xiaobei"): Measured(0.041, f"{THREE_SCENES}, speed 1.1"),
    ("kokoro", "zm_yunxi"): Measured(0.042, THREE_SCENES),
    ("fastspeech2", "baker"): Measured(0.043, "whole lesson"),
    ("piper", "joe"): Measured(0.073, "whole lesson"),
    ("espeak", "cmn"): Measured(0.48, "clock-hands, attention-shuffle, recap"),
}
# The short name of each engine's terms, for a table row (the card says them in full).
TERMS = {
    "kokoro": "Apache-2.0",
    "fastspeech2": "CSMSC: non-commercial",
    "piper": "lessac: non-commercial research",
    "espeak": "GPL-3.0 program",
}


@dataclass(frozen=True)
class Voice:
    lang: str
    engine: Engine
    card: dict
    default: bool

    @property
    def spec(self) -> VoiceSpec:
        return self.engine.spec

    @property
    def terms(self) -> str:
        if self.spec.engine == "piper" and self.spec.voice not in piper.BUNDLED:
            return "its model card"
        return TERMS[self.spec.engine]

    @property
    def measured(self) -> str:
        known = MEASURED.get((self.spec.engine, self.spec.voice))
        return known.shown() if known else "-"

    @property
    def cells(self) -> tuple[str, ...]:
        """Its row, as `voices` lists it and voices.html shows it (before the sound)."""
        name = self.card["voice"] + (" (default)" if self.default else "")
        return (
            self.spec.engine,
            name,
            self.lang,
            self.terms,
            self.card["sold_course"],
            self.measured,
        )

    @property
    def file_name(self) -> str:
        """The voice's audio file on the page: kokoro-af_bella.wav, piper-joe.wav."""
        name = Path(self.spec.voice).stem if self.spec.engine == "piper" else self.spec.voice
        return re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{self.spec.engine}-{name}") + ".wav"


def candidates(lang: str, specs: dict[str, VoiceSpec]) -> list[VoiceSpec]:
    """Every voice the lesson knows for `lang`: its own first, then Kokoro's, the former
    neural default and espeak-ng."""
    own = specs[lang]
    speed = voices.KOKORO[lang].speed
    out = [own]
    for name in kokoro.SHA256:
        if kokoro.language(name) == lang:
            default = name == voices.KOKORO[lang].voice
            out.append(VoiceSpec("kokoro", name, speed if default else 1.0))
    out += [voices.NEURAL[lang], voices.ESPEAK_VOICES[lang]]
    seen, unique = set(), []
    for spec in out:
        spec = replace(spec, lexicon=own.lexicon)
        if (spec.engine, spec.voice) not in seen:
            seen.add((spec.engine, spec.voice))
            unique.append(spec)
    return unique


def available(langs: list[str], specs: dict[str, VoiceSpec]) -> tuple[list[Voice], list[str]]:
    """The voices of `langs` that are ready here, and one line for each engine that is not."""
    ready, missing = [], {}
    for lang in langs:
        for spec in candidates(lang, specs):
            try:
                engine = voices.engine(spec)
            except voices.VoiceError as exc:
                missing.setdefault(str(exc), None)
                continue
            ready.append(Voice(lang, engine, engine.card(), spec == specs[lang]))
    return ready, list(missing)


def write_page(folder: Path, text: str, spoken: list[tuple[Voice, float]]) -> Path:
    """voices.html in `folder`: each voice's row and its audio file, no outside request."""
    rows = "\n".join(
        "<tr>"
        + "".join(f"<td>{escape(str(cell))}</td>" for cell in v.cells)
        + f'<td><audio controls preload="none" src="{escape(v.file_name)}"></audio>'
        f" {seconds:.1f} s</td></tr>"
        for v, seconds in spoken
    )
    page = f"""<!doctype html>
<html><head><meta charset="utf-8"><title>Voices</title>
<style>
body {{ font-family: sans-serif; margin: 2rem; }}
td, th {{ padding: 0.3rem 0.6rem; text-align: left; border-bottom: 1px solid #ccc; }}
</style></head>
<body><h1>Voices</h1>
<p>Each voice reads: <q>{escape(text)}</q></p>
<table>
<tr><th>engine</th><th>voice</th><th>language</th><th>licence</th><th>sold course</th>
<th>heard wrong</th><th>listen</th></tr>
{rows}
</table></body></html>
"""
    path = folder / "voices.html"
    atomic_write_text(path, page)
    return path


def write_audio(folder: Path, voice: Voice, samples) -> None:
    audio.write_wav(folder / voice.file_name, samples)
