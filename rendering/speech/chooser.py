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
from rendering.speech.engines.base import REGISTRY, Engine, Measured, ranked

HEARD = (
    "heard wrong: the share of words (en) or syllables (zh) Whisper base got wrong; "
    "3 scenes: every line of square-to-sine, relative-shift and rope-rotation"
)


def measured() -> dict[tuple[str, str], Measured]:
    """How well a recogniser hears each voice the engines declare (the README quotes it)."""
    return {(kind.engine_name, voice): m for kind in ranked() for voice, m in kind.heard.items()}


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
    def kind(self) -> type[Engine]:
        return REGISTRY[self.spec.engine]

    @property
    def terms(self) -> str:
        return self.kind.terms_of(self.spec.voice)

    @property
    def measured(self) -> str:
        known = self.kind.heard.get(self.spec.voice)
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
        name = self.kind.file_stem(self.spec.voice)
        return re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{self.spec.engine}-{name}") + ".wav"


def candidates(lang: str, specs: dict[str, VoiceSpec]) -> list[VoiceSpec]:
    """Every voice the lesson knows for `lang`: its own first, then each engine's in turn."""
    own = specs[lang]
    out = [own] + [spec for kind in ranked() for spec in kind.candidates(lang)]
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
<html lang="en"><head><meta charset="utf-8"><title>Voices</title>
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
