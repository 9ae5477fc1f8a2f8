"""Sidecar subtitles (WebVTT and SRT, zh and en) from the beats a scene recorded.

The timings come from one render; the words come from each language's catalogue.
Chinese has no spaces, so cues are split on punctuation and by character count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from rendering.manifest import atomic_write_text
from scenes.catalogue import LANGS, caption

MIN_CUE = 1.0  # seconds; shorter pieces are merged into a neighbour
LINE_CHARS = {"zh": 16, "en": 42}
MAX_LINES = 2
_SENTENCE = {"zh": r"(?<=[。！？；])", "en": r"(?<=[.!?;])\s+"}
_CLAUSE = {"zh": r"(?<=[，、：])", "en": r"(?<=[,:])\s+"}


@dataclass(frozen=True)
class Cue:
    start: float
    end: float
    text: str  # lines joined by "\n"


def _width(text: str) -> int:
    return len(text)


def wrap(text: str, lang: str) -> list[str]:
    """Break one cue's text into lines of at most LINE_CHARS (by character in zh, by word in en)."""
    limit = LINE_CHARS[lang]
    if lang == "zh":
        return [text[i : i + limit] for i in range(0, len(text), limit)] or [""]
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > limit:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return [*lines, line] if line else lines or [""]


def chunks(text: str, lang: str) -> list[str]:
    """Pieces that each fit in one cue of at most MAX_LINES lines."""
    limit = LINE_CHARS[lang] * MAX_LINES
    out: list[str] = []
    for sentence in filter(None, (s.strip() for s in re.split(_SENTENCE[lang], text))):
        pieces = [sentence]
        if _width(sentence) > limit:
            pieces = [p.strip() for p in re.split(_CLAUSE[lang], sentence) if p.strip()]
        for piece in pieces:
            while len(wrap(piece, lang)) > MAX_LINES:
                lines = wrap(piece, lang)
                head = lines[:MAX_LINES]
                out.append(("" if lang == "zh" else " ").join(head))
                piece = ("" if lang == "zh" else " ").join(lines[MAX_LINES:])
            out.append(piece)
    # join neighbours that still fit together, so cues are not needlessly short
    merged: list[str] = []
    sep = "" if lang == "zh" else " "
    for piece in out:
        if merged and len(wrap(merged[-1] + sep + piece, lang)) <= MAX_LINES:
            merged[-1] = merged[-1] + sep + piece
        else:
            merged.append(piece)
    return merged


def cues_for(beats: list[tuple[str, float]], duration: float, slug: str, lang: str) -> list[Cue]:
    """Cues for every beat; a beat runs until the next one (the last until the clip ends)."""
    cues: list[Cue] = []
    for i, (key, start) in enumerate(beats):
        end = beats[i + 1][1] if i + 1 < len(beats) else duration
        end = min(end, duration)
        if end - start <= 0:
            continue
        pieces = chunks(caption(lang, slug, key), lang)
        total = sum(_width(p) for p in pieces) or 1
        t = start
        spans = []
        for piece in pieces:
            span = (end - start) * _width(piece) / total
            spans.append([t, t + span, piece])
            t += span
        spans = _merge_short(spans, lang)
        cues.extend(Cue(a, b, "\n".join(wrap(p, lang))) for a, b, p in spans)
    return cues


def _merge_short(spans: list[list], lang: str) -> list[list]:
    sep = "" if lang == "zh" else " "
    out: list[list] = []
    for span in spans:
        if out and (span[1] - span[0] < MIN_CUE or out[-1][1] - out[-1][0] < MIN_CUE):
            out[-1] = [out[-1][0], span[1], out[-1][2] + sep + span[2]]
        else:
            out.append(span)
    return out


def _stamp(t: float, sep: str) -> str:
    ms = round(t * 1000)
    h, rem = divmod(ms, 3_600_000)
    m, rem = divmod(rem, 60_000)
    s, ms = divmod(rem, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}{sep}{ms:03d}"


def to_vtt(cues: list[Cue]) -> str:
    body = "".join(
        f"{i}\n{_stamp(c.start, '.')} --> {_stamp(c.end, '.')}\n{c.text}\n\n"
        for i, c in enumerate(cues, 1)
    )
    return "WEBVTT\n\n" + body


def to_srt(cues: list[Cue]) -> str:
    return "".join(
        f"{i}\n{_stamp(c.start, ',')} --> {_stamp(c.end, ',')}\n{c.text}\n\n"
        for i, c in enumerate(cues, 1)
    )


def write_sidecars(
    folder: Path, stem: str, slug: str, beats, duration: float
) -> dict[str, dict[str, str]]:
    """Write STEM.<lang>.vtt and .srt for both languages; returns {"vtt": {lang: name}, "srt": {...}}."""
    files: dict[str, dict[str, str]] = {"vtt": {}, "srt": {}}
    beats = [(k, float(t)) for k, t in beats]
    for lang in LANGS:
        cues = cues_for(beats, duration, slug, lang)
        for kind, render in (("vtt", to_vtt), ("srt", to_srt)):
            name = f"{stem}.{lang}.{kind}"
            atomic_write_text(folder / name, render(cues))
            files[kind][lang] = name
    return files
