"""How narration text breaks into lines, cues and sentences, in both languages.

Scenes use it to burn captions into the frame; the subtitle files use it for their cues,
so a burned caption and its subtitle always break the same way.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

# Characters per line, counted in full-width cells (a Latin letter is half a cell in zh).
LINE_CHARS = {"zh": 16, "en": 42}
MAX_LINES = 2
_SENTENCE = {"zh": r"(?<=[。！？；])", "en": r"(?<=[.!?;])\s+"}
_CLAUSE = {"zh": r"(?<=[，、：])", "en": r"(?<=[,:;])\s+|\s+(?=—)|(?<=—)\s+"}
# Never at the start of a Chinese line (kinsoku): closing marks and clause punctuation.
_NO_LINE_START = set("，。、；：！？）》」』”’…—·,.;:!?)]}%")


def cell_width(text: str, lang: str) -> float:
    """Display width in cells: in zh a wide (Han, full-width) character is 1, others 1/2."""
    if lang != "zh":
        return float(len(text))
    return sum(1.0 if unicodedata.east_asian_width(ch) in "WF" else 0.5 for ch in text)


def zh_units(text: str) -> list[str]:
    """Unbreakable units of Chinese text: one wide character, or a run of narrow ones.

    A run of narrow characters (a Latin word, a number, a formula) stays together with
    its trailing space, so a wrap never cuts "sin" or "2π/ω" in half.
    """
    return re.findall(r"[^\s\u2e80-\u9fff\u3000-\u303f\uff00-\uffef]+\s*|\s+|.", text)


def wrap(text: str, lang: str) -> list[str]:
    """Break one cue's text into lines no wider than LINE_CHARS[lang]."""
    limit = LINE_CHARS[lang]
    text = " ".join(text.split())
    if not text:
        return [""]
    if lang == "zh":
        rows: list[list[str]] = [[]]
        for unit in zh_units(text):
            row = rows[-1]
            if row and cell_width("".join(row) + unit.rstrip(), lang) > limit:
                if unit[0] in _NO_LINE_START and len(row) > 1:
                    # carry the last unit down so the mark does not open a line
                    rows.append([row.pop(), unit])
                else:
                    rows.append([unit.lstrip()] if unit.strip() else [])
            else:
                row.append(unit)
        return ["".join(r).strip() for r in rows if "".join(r).strip()] or [""]
    out: list[str] = []
    line = ""
    for word in text.split(" "):
        while len(word) > limit:  # a word longer than a line (a URL) is cut
            if line:
                out.append(line)
                line = ""
            out.append(word[:limit])
            word = word[limit:]
        if line and len(line) + 1 + len(word) > limit:
            out.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        out.append(line)
    return out or [""]


def break_units(text: str, lang: str) -> list[str]:
    """Pieces a line may break between: words in English, characters and Latin runs in Chinese."""
    if lang == "zh":
        return [u for u in zh_units(text) if u.strip()]
    return text.split()


# A line ending after one of these breaks at a pause, where a reader expects it (not
# after 、, which runs through a list); so does a line starting with an opening bracket.
_CLAUSE_END = set("，。；：！？,.;:!?")
_OPENING = set("(（[")


def balanced_rows(
    units: Sequence[str], widths: Sequence[float], space: float, max_width: float, lang: str
) -> list[str]:
    """Join break units into the fewest rows no wider than `max_width`, then the most even
    ones, breaking after clause punctuation where that costs no extra row.

    `widths` are the units' widths and `space` that of a space, in any one unit; a unit
    wider than `max_width` gets a row of its own. A Chinese row opens with a mark that
    closes (kinsoku) only when no other break fits.
    """
    n = len(units)
    if n == 0:
        return []
    # gaps[k]: the space joining unit k to unit k-1 (a Latin run keeps its space in zh)
    gaps = [0.0] + [
        space if join_words(units[k - 1], units[k], lang) != units[k - 1] + units[k] else 0.0
        for k in range(1, n)
    ]
    detour = (0.3 * max_width) ** 2  # what a break outside the punctuation costs
    # open[j]: whether a break after unit j-1 falls inside brackets, as in "(dims 0, 1)"
    depth, open_ = 0, [False]
    for unit in units:
        depth += sum(unit.count(c) for c in "(（[") - sum(unit.count(c) for c in ")）]")
        open_.append(depth > 0)
    # best[j]: (closing marks opening a row, rows, cost, start of the last row) for the
    # first j units; compared in that order
    best: list[tuple[int, int, float, int]] = [(0, 0, 0.0, 0)] + [(n, n + 1, 0.0, 0)] * n
    for j in range(1, n + 1):
        width = 0.0
        for i in range(j - 1, -1, -1):  # the row holds units i..j-1
            width += widths[i] + (gaps[i + 1] if i + 1 < j else 0.0)
            if i < j - 1 and width > max_width:
                break
            bad = best[i][0] + (lang == "zh" and i > 0 and units[i][0] in _NO_LINE_START)
            cost = best[i][2] + (max_width - min(width, max_width)) ** 2
            pause = units[j - 1][-1] in _CLAUSE_END or (j < n and units[j][0] in _OPENING)
            if j < n and (open_[j] or not pause):
                cost += detour * (2 if open_[j] else 1)
            candidate = (bad, best[i][1] + 1, cost, i)
            if candidate[:3] < best[j][:3]:
                best[j] = candidate
    rows, j = [], n
    while j > 0:
        i = best[j][3]
        row = ""
        for unit in units[i:j]:
            row = join_words(row, unit, lang)
        rows.append(row)
        j = i
    return rows[::-1]


def listing(items, lang: str) -> str:
    """Items as a list in the language's way: "0, 1, 2" or "0、1、2"."""
    return ("、" if lang == "zh" else ", ").join(str(i) for i in items)


def _sep(lang: str) -> str:
    return "" if lang == "zh" else " "


def _spaced(ch: str) -> bool:
    """A narrow character that opens a Latin run ("sin", "× 64", "−1"), not a quotation mark."""
    return not re.match(r"[\u2e80-\u9fff\u3000-\u303f\uff00-\uffef\u2000-\u206f]", ch)


def join_words(a: str, b: str, lang: str) -> str:
    if (
        lang == "zh"
        and a
        and b
        and b[0] not in _NO_LINE_START  # closing punctuation hugs what it closes
        and not a[-1].isspace()  # a Latin run brings its own trailing space
        and not (a[-1] in _NO_LINE_START and not a[-1].isascii())  # nor after 、，：
        and (a[-1].isascii() and a[-1].isalnum() or _spaced(b[0]))
    ):
        return f"{a} {b}"  # a Latin run keeps its space to its Han neighbour
    return a + _sep(lang) + b if a else b


def _unwrap(lines: Sequence[str], lang: str) -> str:
    out = ""
    for line in lines:
        out = join_words(out, line, lang)
    return out


def fits(text: str, lang: str) -> bool:
    return len(wrap(text, lang)) <= MAX_LINES


def sentences(text: str, lang: str) -> list[str]:
    """The sentences of one narration line (a voice speaks each one on its own)."""
    text = " ".join(text.split())
    return [s for s in (p.strip() for p in re.split(_SENTENCE[lang], text)) if s]


def clauses(sentence: str, lang: str) -> list[str]:
    """A sentence cut after its commas and colons (and around an en dash in English)."""
    return [p.strip() for p in re.split(_CLAUSE[lang], sentence) if p and p.strip()]


def chunks(text: str, lang: str) -> list[str]:
    """Pieces of one narration line that each fit in one cue of at most MAX_LINES lines."""
    pieces: list[str] = []
    for sentence in sentences(text, lang):
        parts = [sentence]
        if not fits(sentence, lang):
            parts = clauses(sentence, lang)
        for part in parts:
            lines = wrap(part, lang)
            if len(lines) <= MAX_LINES:
                pieces.append(part)
                continue
            while len(lines) > MAX_LINES:
                pieces.append(_unwrap(lines[:MAX_LINES], lang))
                lines = wrap(_unwrap(lines[MAX_LINES:], lang), lang)
            pieces.append(_unwrap(lines, lang))
    # join neighbours that still fit together, so cues are not needlessly short
    merged: list[str] = []
    for piece in pieces:
        if merged and fits(join_words(merged[-1], piece, lang), lang):
            merged[-1] = join_words(merged[-1], piece, lang)
        else:
            merged.append(piece)
    return merged
