"""Sidecar subtitles (WebVTT and SRT, zh and en) from the beats a scene recorded.

The timings come from one render; the words come from each language's catalogue.
A beat's line runs from its start to the next beat (the last one to the clip's end).
Long lines are cut into cues of at most MAX_LINES lines: first at sentence ends, then
at clause punctuation, then by line width. Chinese has no spaces, so it is wrapped by
character, but a run of Latin letters or digits ("sin", "2π/ω") is never split and a
line never starts with closing punctuation. Each cue gets a share of its beat that
grows with its text; a short cue borrows time from its neighbours up to MIN_CUE, and
one still shorter than MERGE_BELOW is merged with a neighbour when the text fits.
Cues timed by speech sit on the sentence they show. A cue too fast or too brief to be
read (either track) stays up a little into the pause after it, comes up a little early,
or takes time its neighbours can spare (`readable`).
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from lesson.catalogue import LANGS
from lesson.say import line as narration_line
from lesson.text_layout import (
    cell_width,
    chunks,
    fits,
    join_words,
    sentences,
    wrap,
)
from pe_math import Params
from rendering.core.files import atomic_write_text

MIN_CUE = 1.0  # seconds; shorter cues borrow time from a neighbour with time to spare
MERGE_BELOW = 0.9  # seconds; a cue still shorter than this after borrowing is merged
# characters a second a reader keeps up with (subtitle practice for adults: 17 in
# English, counting spaces; 9 in Chinese)
READING_SPEED = {"en": 17.0, "zh": 9.0}
SHORTEST = 5 / 6  # seconds a cue stays at least, or it is gone before it is read
# seconds a cue timed by speech may stay up after its words are said, until it can be
# read at READING_SPEED and has stayed SHORTEST (never past the next cue)
LINGER = 0.6
# ... and if that is not enough, may come up this early before its words, into the pause
# before it or over the cue before as far as that one has time to spare
LEAD = 0.3
# ... or hold the next cue back this long, as far as that one has time to spare (the
# first cue has no pause before it to come up in)
LAG = 0.2
# A track timed by the beats (the language not spoken) has no voice to keep up with: a
# cue still read too fast may run this far behind its beat, and the cues after it with it
DRIFT = 1.5
_EPS = 1e-6


@dataclass(frozen=True)
class Cue:
    start: float
    end: float
    text: str  # lines joined by "\n"

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    def shifted(self, offset: float) -> Cue:
        return replace(self, start=self.start + offset, end=self.end + offset)


# ------------------------------------------------------------------ timing
def cues_for(
    beats: Iterable[tuple[str, float]],
    duration: float,
    slug: str,
    lang: str,
    spoken: dict[str, list[list[float]]] | None = None,
    params: Params | None = None,
) -> list[Cue]:
    """Cues for every beat of one clip, all inside [0, duration], its lines at `params`.

    With `spoken` (beat key -> [start, end] of each spoken sentence, from the voice
    of this language), every cue sits inside the sentence it shows.
    """
    lines = [(key, start, narration_line(lang, slug, key, params)) for key, start in beats]
    if spoken:
        return spoken_cues(lines, spoken, duration, lang)
    return flowing(readable(timed_cues(lines, duration, lang), duration, lang), duration, lang)


def flowing(cues: list[Cue], duration: float, lang: str) -> list[Cue]:
    """Beat-timed `cues` (in order), each still read too fast kept up until it can be read,
    the cues after it moved on as far as that takes: none more than DRIFT (or half its
    own time) behind where it was, nor so far that it could no longer be read before the
    next cue's latest start (or the clip's end); none ends earlier than it did."""
    latest = [c.start + min(DRIFT, (c.end - c.start) / 2) for c in cues]  # in its own time
    out: list[Cue] = []
    for i, cue in enumerate(cues):
        limit = latest[i + 1] if i + 1 < len(cues) else duration
        start = cue.start
        if out:
            readable_by = max(cue.start, limit - _reading_time(cue, lang))
            start = _ms(max(cue.start, min(out[-1].end, latest[i], readable_by)), up=False)
        if out and out[-1].end > start:  # run too far behind: the cue before gives way
            out[-1] = replace(out[-1], end=start)
        end = min(max(cue.end, _ms(start + _reading_time(cue, lang), up=True)), duration)
        out.append(replace(cue, start=start, end=round(end, 3)))
    return out


def spoken_cues(
    lines: Sequence[tuple[str, float, str]],
    spoken: dict[str, list[list[float]]],
    duration: float,
    lang: str,
) -> list[Cue]:
    """Cues timed by speech: each sentence's pieces share the time it is spoken.

    A beat with one span for several sentences (a teacher's recording) spreads all
    of its text over that span. Beats without speech fall back to beat timing.
    """
    out: list[Cue] = []
    silent = []
    for key, _, words in lines:
        spans = spoken.get(key)
        if not spans:
            silent.append((key, _, words))
            continue
        said = sentences(words, lang)
        if len(said) != len(spans):
            said = [" ".join(said) if lang != "zh" else "".join(said)]
            spans = [[spans[0][0], spans[-1][1]]]
        for text, (a, b) in zip(said, spans, strict=True):
            a, b = max(0.0, a), min(duration, b)
            for start, end, piece in _spread(text, a, b, lang):
                out.append(
                    Cue(round(start, 3), round(min(end, b), 3), "\n".join(wrap(piece, lang)))
                )
    if silent:
        out.extend(timed_cues(silent, duration, lang))
    return readable(sorted(out, key=lambda c: c.start), duration, lang)


def reading_length(text: str, lang: str) -> int:
    """The characters a reader reads in a cue (a line break is a space in English, nothing
    in Chinese)."""
    return len(text.replace("\n", " " if lang == "en" else ""))


def _reading_time(cue: Cue, lang: str) -> float:
    return max(reading_length(cue.text, lang) / READING_SPEED[lang], SHORTEST)


def _ms(seconds: float, up: bool) -> float:
    """To the millisecond a caption file holds, rounded up (or down) so that a cue is
    read in time (less a hair, so that float noise in an exact sum moves no millisecond)."""
    if up:
        return math.ceil(seconds * 1e3 - 1e-6) / 1e3
    return math.floor(seconds * 1e3 + 1e-6) / 1e3


def readable(cues: list[Cue], duration: float, lang: str) -> list[Cue]:
    """`cues` (in order), each said faster than it can be read, or too short to be read,
    kept up a little longer into the pause after it: at most LINGER, and never past the
    next cue or the clip; still short, it comes up at most LEAD before its words, over
    the cue before only as far as that one has time to spare, or holds the next one back
    at most LAG, as far as that one has time to spare."""
    out: list[Cue] = []
    for i, cue in enumerate(cues):
        following = duration
        if i + 1 < len(cues):
            after = cues[i + 1]
            # what the next cue could hold: its words and the pause after, up to LINGER
            last = min(after.end + LINGER, cues[i + 2].start if i + 2 < len(cues) else duration)
            room = max(after.end, last) - after.start - _reading_time(after, lang)
            following = after.start + max(0.0, min(LAG, room))
        seconds = _reading_time(cue, lang)
        held = out[-1].end if out and out[-1].end > cue.start else cue.start
        read = _ms(held + seconds, up=True)
        end = max(cue.end, min(read, cue.end + LINGER, following, duration))
        needed = _ms(end - seconds, up=False)
        before = spare = 0.0
        if out:  # the cue before ends where this one starts, once it has been read
            spare = min(out[-1].end, _ms(out[-1].start + _reading_time(out[-1], lang), up=True))
            before = min(out[-1].end, max(spare, needed))
        start = min(cue.start, max(needed, cue.start - LEAD, before))
        if held > cue.start:  # the cue before holds this one back
            start = held
        if out and spare <= start < out[-1].end:  # never below its reading time
            out[-1] = replace(out[-1], end=round(start, 3))
        out.append(replace(cue, start=round(start, 3), end=round(end, 3)))
    return out


def timed_cues(lines: Sequence[tuple[str, float, str]], duration: float, lang: str) -> list[Cue]:
    """Cues from (beat key, start time, words); a beat runs until the next one starts."""
    duration = max(0.0, float(duration))
    ordered = sorted(
        ((key, min(max(0.0, float(t)), duration), words) for key, t, words in lines),
        key=lambda x: x[1],
    )
    spans: list[list] = []  # [start, end, text]
    for i, (_, start, words) in enumerate(ordered):
        end = ordered[i + 1][1] if i + 1 < len(ordered) else duration
        if end - start <= _EPS or not words.strip():
            continue
        spans.extend(list(span) for span in _spread(words, start, end, lang))
        spans[-1][1] = end  # no rounding drift at the beat boundary
    spans = _lengthen_short(spans, lang)
    return [
        Cue(round(a, 3), round(min(b, duration), 3), "\n".join(wrap(p, lang))) for a, b, p in spans
    ]


def _spread(words: str, start: float, end: float, lang: str) -> list[tuple[float, float, str]]:
    """(start, end, piece) of cue-sized pieces of `words` sharing [start, end] by width.

    A span too short for all its pieces gets fewer, fuller cues.
    """
    pieces = chunks(words, lang)
    while len(pieces) > 1 and min(_shares(pieces, end - start, lang)) < MERGE_BELOW:
        merged = _merge_pair(pieces, lang)
        if merged is None:
            break
        pieces = merged
    out, t = [], start
    for piece, span in zip(pieces, _shares(pieces, end - start, lang), strict=True):
        out.append((t, t + span, piece))
        t += span
    return out


def _shares(pieces: list[str], total: float, lang: str) -> list[float]:
    """Split `total` seconds between pieces in proportion to their width."""
    weights = [max(cell_width(p, lang), 1.0) for p in pieces]
    return [total * w / sum(weights) for w in weights]


def _merge_pair(pieces: list[str], lang: str) -> list[str] | None:
    """Merge the neighbouring pair with the shortest joined text, if that still fits a cue."""
    best = None
    for i in range(len(pieces) - 1):
        joined = join_words(pieces[i], pieces[i + 1], lang)
        if fits(joined, lang) and (best is None or len(joined) < len(best[1])):
            best = (i, joined)
    if best is None:
        return None
    i, joined = best
    return [*pieces[:i], joined, *pieces[i + 2 :]]


def _lengthen_short(spans: list[list], lang: str) -> list[list]:
    """Give every cue shorter than MIN_CUE time from a neighbour with time to spare.

    Only the edge two touching cues share moves, so cues never overlap and stay inside
    the clip. A cue still shorter than MERGE_BELOW is merged with its shorter touching
    neighbour when the joined text fits in one cue.
    """
    while True:
        for i in range(len(spans)):
            _borrow(spans, i)
        short = [i for i, (a, b, _) in enumerate(spans) if b - a < MERGE_BELOW]
        for i in short:
            neighbours = sorted(
                (k for k in (i - 1, i + 1) if 0 <= k < len(spans)),
                key=lambda k: spans[k][1] - spans[k][0],
            )
            for j in neighbours:
                lo, hi = min(i, j), max(i, j)
                joined = join_words(spans[lo][2], spans[hi][2], lang)
                if abs(spans[lo][1] - spans[hi][0]) < _EPS and fits(joined, lang):
                    spans[lo : hi + 1] = [[spans[lo][0], spans[hi][1], joined]]
                    break
            else:
                continue
            break  # the list changed: borrow again, then look again
        else:
            return spans


def _borrow(spans: list[list], i: int) -> None:
    a, b, _ = spans[i]
    need = MIN_CUE - (b - a)
    for j in (i + 1, i - 1):
        if need <= _EPS or not 0 <= j < len(spans):
            continue
        other = spans[j]
        spare = other[1] - other[0] - MIN_CUE
        if spare <= _EPS:
            continue
        give = min(need, spare)
        if j > i and abs(other[0] - spans[i][1]) < _EPS:
            spans[i][1] = other[0] = spans[i][1] + give
            need -= give
        elif j < i and abs(other[1] - spans[i][0]) < _EPS:
            spans[i][0] = other[1] = spans[i][0] - give
            need -= give


# ------------------------------------------------------------------ files
def _stamp(t: float, sep: str) -> str:
    ms = max(0, round(t * 1000))
    h, rem = divmod(ms, 3_600_000)
    m, rem = divmod(rem, 60_000)
    s, ms = divmod(rem, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}{sep}{ms:03d}"


def _vtt_text(text: str) -> str:
    # cue text is markup in WebVTT: escape it, and "-->" must never appear
    return html.escape(text, quote=False).replace("--&gt;", "&#45;&#45;&gt;")


def to_vtt(cues: Sequence[Cue]) -> str:
    body = "".join(
        f"{i}\n{_stamp(c.start, '.')} --> {_stamp(c.end, '.')}\n{_vtt_text(c.text)}\n\n"
        for i, c in enumerate(cues, 1)
    )
    return "WEBVTT\n\n" + body


def to_srt(cues: Sequence[Cue]) -> str:
    return "".join(
        f"{i}\n{_stamp(c.start, ',')} --> {_stamp(c.end, ',')}\n{c.text}\n\n"
        for i, c in enumerate(cues, 1)
    )


def write_cues(folder: Path, stem: str, cues_by_lang: dict[str, list[Cue]]) -> dict:
    """Write STEM.<lang>.vtt and .srt; returns {"vtt": {lang: name}, "srt": {lang: name}}."""
    files: dict[str, dict[str, str]] = {"vtt": {}, "srt": {}}
    for lang, cues in cues_by_lang.items():
        for kind, render in (("vtt", to_vtt), ("srt", to_srt)):
            name = f"{stem}.{lang}.{kind}"
            text = render(cues)
            if not (folder / name).is_file() or (folder / name).read_text("utf-8") != text:
                atomic_write_text(folder / name, text)
            files[kind][lang] = name
    return files


def write_sidecars(
    folder: Path,
    stem: str,
    slug: str,
    beats,
    duration: float,
    spoken: dict[str, dict[str, list[list[float]]]] | None = None,
    params: Params | None = None,
) -> dict[str, dict[str, str]]:
    """Write STEM.<lang>.vtt and .srt for both languages of one clip, its lines at `params`.

    `spoken` maps a language to its sentence spans (the voiced language has them);
    the other language keeps the same beat boundaries.
    """
    beats = [(k, float(t)) for k, t in beats]
    spoken = spoken or {}
    return write_cues(
        folder,
        stem,
        {lang: cues_for(beats, duration, slug, lang, spoken.get(lang), params) for lang in LANGS},
    )


def chapters_vtt(chapters: Sequence[tuple[float, float, str]]) -> str:
    """A WebVTT chapters track: one cue per (start, end, title)."""
    return to_vtt([Cue(a, b, title) for a, b, title in chapters])


YOUTUBE_SHORTEST = 10.0  # seconds: a video platform ignores a chapter list with a shorter one


def chapter_list(chapters: Sequence[tuple[float, float, str]]) -> str:
    """Chapters as a video description lists them (YouTube's format): `00:00 Title` lines,
    the first at 00:00, `h:mm:ss` past an hour. A chapter under YOUTUBE_SHORTEST seconds
    is folded into the next one (the last into the one before), so the list is accepted."""
    kept: list[list] = []
    carried = None  # where a folded chapter began
    for i, (start, end, title) in enumerate(chapters):
        begin = start if carried is None else carried
        if end - begin < YOUTUBE_SHORTEST and i < len(chapters) - 1:
            carried = begin
            continue
        if end - begin < YOUTUBE_SHORTEST and kept:
            kept[-1][1] = end
            continue
        kept.append([begin, end, title])
        carried = None

    def stamp(seconds: float) -> str:
        whole = int(seconds)
        h, m, sec = whole // 3600, whole // 60 % 60, whole % 60
        return f"{h}:{m:02d}:{sec:02d}" if h else f"{m:02d}:{sec:02d}"

    return "".join(f"{stamp(a)} {' '.join(title.split())}\n" for a, _, title in kept)
