"""An accessibility report of a rendered folder: what a machine can check of WCAG 2.1 AA
in the clips, their captions and the lesson's colours, and what it cannot.

- Captions (1.2.2): every narrated clip has captions in every language. Beyond WCAG,
  subtitle practice: each cue is read at most READING_SPEED characters a second, holds
  at most two lines and stays on screen at least SHORTEST seconds.
- Three flashes (2.3.1), simplified (flashes.py): on every decoded frame, the mean
  luminance of each ninth of the frame changes in opposing directions at most six times
  in any one second. Smaller flashes, and flashes across the ninths' borders, are not
  judged.
- Contrast (1.4.3): each text against what is drawn behind it as each beat ends, as the
  render measured it from the scene's shapes (scenes/kit/on_screen.py), and each text
  colour of the palette against the background.
- Non-text contrast (1.4.11): each line and outline on screen as each beat ends against
  the background, at 3:1; grids (the palette's neutral) and lines faded back on purpose
  aside.

`a11y.json` holds every finding; `a11y.html` says it for a person. Each clip's flashes
are measured once: the next check reuses them while the clip's file is the same, and a
clip made of kept beats is measured again only in the beats drawn since.
"""

from __future__ import annotations

import html
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import av

from lesson.palette import PALETTE, TEXT_CONTRAST, contrast_ratio, recorded
from lesson.reads import PRELUDE
from lesson.text_layout import MAX_LINES
from rendering.core import formats
from rendering.core.files import atomic_write_text, quick_digest
from rendering.core.manifest import Manifest
from rendering.publish import presenter, transcript
from rendering.publish.flashes import FLASH_RULE, flash_problems, kept_parts
from rendering.publish.presenter import read_vtt
from rendering.speech.captions import READING_SPEED, SHORTEST, Cue, reading_length

JSON_NAME = "a11y.json"
HTML_NAME = "a11y.html"
CHECKED = (
    "1.2.2 Captions (prerecorded): a track per language; beyond it, subtitle practice "
    "(reading speed, two lines, time on screen)",
    "1.4.3 Contrast (minimum): each text against what is behind it as each beat ends "
    "(4.5:1, large text 3:1), and the palette's text colours on the background",
    "1.4.11 Non-text contrast: each line and outline against the background as each beat "
    "ends (3:1), but grids and lines faded back on purpose",
    "2.3.1 Three flashes or below threshold, simplified: each ninth of every frame",
)
SURFACES = ("background", "neutral")  # the palette's fills, not text
NOT_JUDGED = (
    "whether the narration says everything the picture shows that matters (audio "
    "description, 1.2.5): the numbers written on screen it does not say are listed "
    "below, but numbers inside formulas, shapes, colours and motion need a person",
    "the contrast of text while it moves between the ends of beats, and over lines and "
    "outlines (only filled shapes are counted behind a text, at each glyph's centre); "
    "a transparent clip's text is measured against the lesson's background",
    "numbers shown and gone again within one beat",
    "the contrast of filled shapes and of lines over other shapes than the background "
    "(1.4.11): a heat map's cells carry their values as text, grids are faint by design",
    "flashes smaller than a ninth of the frame, or across the ninths' borders",
    "red flashes (the saturated-red threshold of 2.3.1)",
)


@dataclass
class Finding:
    criterion: str  # e.g. "1.2.2 Captions"
    clip: str  # the slug ("" for the lesson's colours)
    where: str  # a language, a time, a colour's name
    problem: str


@dataclass
class Report:
    checked: tuple[str, ...] = CHECKED
    findings: list[Finding] = field(default_factory=list)
    not_judged: tuple[str, ...] = NOT_JUDGED
    # numbers written on screen during a beat that its narration does not say (problem:
    # the numbers)
    unsaid: list[Finding] = field(default_factory=list)
    clips: int = 0  # clips checked
    # slug -> {"file": the clip's fingerprint, "flashes": [[second, problem], ...]}, kept
    # for the next check (of every clip measured, not only those checked this time)
    measured: dict[str, dict] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return not self.findings

    def result(self, checked: str) -> str:
        """A checked criterion's result: "passed", or how many problems it has."""
        n = sum(f.criterion.split()[0] == checked.split()[0] for f in self.findings)
        return f"{n} problem{'s' if n != 1 else ''}" if n else "passed"

    def summary(self) -> str:
        """One line: how many clips were checked and how many problems were found."""
        clips = f"{self.clips} clip{'s' if self.clips != 1 else ''}"
        if self.passed:
            return f"no problem found in {clips}"
        n = len(self.findings)
        return f"{n} problem{'s' if n != 1 else ''} found in {clips}"


# ----------------------------------------------------------------- captions
def cues_of(path: Path) -> list[Cue]:
    """The cues of a caption file the project wrote, their text as a reader sees it."""
    return [Cue(a, b, html.unescape(text)) for a, b, text in read_vtt(path)]


def caption_problems(cues: list[Cue], lang: str) -> list[tuple[float, str]]:
    """(start, what is wrong) for each cue read too fast, too long or too briefly."""
    out = []
    for cue in cues:
        seconds = cue.end - cue.start
        length = reading_length(cue.text, lang)
        speed = length / seconds if seconds > 0 else float("inf")
        lines = len(cue.lines)
        if length > READING_SPEED[lang] * seconds + 1e-6:  # the file holds milliseconds
            out.append(
                (cue.start, f"{speed:.1f} characters a second (at most {READING_SPEED[lang]:g})")
            )
        if lines > MAX_LINES:
            out.append((cue.start, f"{lines} lines (at most {MAX_LINES})"))
        if seconds < SHORTEST - 1e-6:
            out.append((cue.start, f"on screen {seconds:.2f} s (at least {SHORTEST:.2f} s)"))
    return out


# ----------------------------------------------------------------- contrast
def palette_problems(palette: dict[str, str] = PALETTE) -> list[tuple[str, str]]:
    """(colour name, what is wrong) for each text colour under 4.5:1 on the background."""
    out = []
    for name, colour in palette.items():
        if name in SURFACES:
            continue
        ratio = contrast_ratio(colour, palette["background"])
        if ratio < TEXT_CONTRAST:
            out.append((name, f"{colour} on {palette['background']} is {ratio:.2f}:1"))
    return out


# ----------------------------------------------------------------- the report
class NothingToCheck(ValueError):
    """The folder holds no clip to check (of the scenes asked for)."""


def check(folder: Path, slugs: list[str] | None = None, progress=lambda slug: None) -> Report:
    """Check the main clips of a rendered folder (those of `slugs`, else all); `progress`
    is told each clip's slug as its check begins. NothingToCheck when there is none."""
    manifest = Manifest.load(folder)
    entries = manifest.entries()
    # the clip a course plays (webm and gif draw alike; captioned and alpha are variants)
    main = {slug: v[formats.MAIN] for slug, v in entries.items() if formats.MAIN in v}
    missing = [slug for slug in slugs or [] if slug not in main]
    if missing:
        raise NothingToCheck(
            f"{missing[0]} has no {formats.MAIN} clip in {folder}; render it first"
        )
    if not main:
        raise NothingToCheck(f"no {formats.MAIN} clips in {folder}; render them first")
    earlier = measured_before(folder)
    report = Report(measured={s: m for s, m in earlier.items() if s in main})
    palettes = {json.dumps(recorded(main[s].palette), sort_keys=True) for s in main}
    for palette in sorted(palettes):
        for name, problem in palette_problems(json.loads(palette)):
            report.findings.append(Finding("1.4.3 Contrast", "", name, problem))
    chosen = slugs or sorted(main, key=lambda s: main[s].order)
    for slug in chosen:
        progress(slug)
        _check_clip(folder, manifest, main[slug], report, earlier.get(slug))
    report.clips = len(chosen)
    return report


def _ended(beat: str) -> str:
    return "before the first beat" if beat == PRELUDE else f"end of beat {beat}"


def contrast_problems(entry, kind: str = "low") -> list[tuple[str, str]]:
    """(where, what) for each text (`kind` "low") or line ("lines") the render found under
    its contrast as a beat of `entry` ended; one line for a beat it has no measure of."""
    again = "not measured when it was drawn; render it again with --force"
    screen = entry.screen if isinstance(entry.screen, dict) else {}
    out = []
    for beat in [PRELUDE] * (PRELUDE in screen) + [b.key for b in entry.beats]:
        where = _ended(beat)
        try:
            for text, ratio, needed in screen[beat][kind]:
                out.append((where, f"{str(text)!r} at {float(ratio):.2f}:1 (needs {needed:g}:1)"))
        except (TypeError, ValueError, KeyError):
            out.append((where, again))
    return out


def unsaid_numbers(folder: Path, manifest: Manifest, entry) -> list[tuple[str, str]]:
    """(where, numbers) for each beat of the clip that the transcript follows with numbers
    written on screen that its line does not say."""
    try:
        timeline = presenter.clip_timeline(folder, manifest, entry.slug)
    except presenter.PresenterError:
        return []
    ((_, said),) = transcript.sections([timeline], {entry.slug: entry.screen})
    beats = [b.key for b in timeline.beats if b.say]
    return [(_ended(b), ", ".join(n)) for b, (_, _, n) in zip(beats, said, strict=True) if n]


def measured_before(folder: Path) -> dict[str, dict]:
    """The flashes the last report measured, per clip; nothing from a report that is
    missing or not as this module writes it."""
    try:
        data = json.loads((folder / JSON_NAME).read_text(encoding="utf-8"))
        kept = {}
        for slug, clip in data["measured"].items():
            flashes = [(float(second), str(problem)) for second, problem in clip["flashes"]]
            kept[slug] = {"file": str(clip["file"]), "flashes": flashes}
        return kept
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def _flashes(folder: Path, entry, before: dict | None) -> tuple[str, list[tuple[float, str]]]:
    """The clip's fingerprint and its flash problems, measured again only if it changed,
    and then only in the beats that changed where the clip is made of kept beats."""
    video = folder / entry.file
    try:
        fingerprint = f"{quick_digest(video)} {FLASH_RULE}"
        if before and before["file"] == fingerprint:
            return fingerprint, before["flashes"]
        return fingerprint, flash_problems(video, kept_parts(folder, entry))
    except (OSError, av.FFmpegError) as exc:
        reason = getattr(exc, "strerror", None) or type(exc).__name__
        return "", [(0.0, f"{video.name} cannot be decoded ({reason}); render it again")]


def _check_clip(
    folder: Path, manifest: Manifest, entry, report: Report, before: dict | None
) -> None:
    tracks = entry.captions.get("vtt", {})
    if entry.voice not in ("", "silent"):
        for track in READING_SPEED:
            vtt = folder / tracks[track] if track in tracks else None
            if vtt is None or not vtt.is_file():
                report.findings.append(Finding("1.2.2 Captions", entry.slug, track, "no captions"))
                continue
            for start, problem in caption_problems(cues_of(vtt), track):
                report.findings.append(
                    Finding("1.2.2 Captions", entry.slug, f"{track} at {start:.1f} s", problem)
                )
    for where, problem in contrast_problems(entry):
        report.findings.append(Finding("1.4.3 Contrast", entry.slug, where, problem))
    for where, problem in contrast_problems(entry, "lines"):
        report.findings.append(Finding("1.4.11 Non-text contrast", entry.slug, where, problem))
    for where, numbers in unsaid_numbers(folder, manifest, entry):
        report.unsaid.append(Finding("1.2.5 Audio description", entry.slug, where, numbers))
    fingerprint, flashes = _flashes(folder, entry, before)
    if fingerprint:
        report.measured[entry.slug] = {"file": fingerprint, "flashes": flashes}
    for second, problem in flashes:
        report.findings.append(
            Finding("2.3.1 Three flashes", entry.slug, f"at {second:.1f} s", problem)
        )


def refresh(folder: Path) -> str | None:
    """After a render: the folder's report written again, said in one line (None when the
    folder holds no clip to check). Unchanged clips keep their measured flashes."""
    try:
        report = check(folder)
    except NothingToCheck:
        return None
    _, page = write(folder, report)
    return f"{report.summary()}: {page}"


def texts(report: Report) -> dict[str, str]:
    """The report's files by name: a11y.json and a11y.html."""
    data = {
        "passed": report.passed,
        "checked": [{"criterion": c, "result": report.result(c)} for c in report.checked],
        "findings": [asdict(f) for f in report.findings],
        "not_judged": list(report.not_judged),
        "shown_not_said": [asdict(f) for f in report.unsaid],
        "measured": report.measured,
    }
    return {
        JSON_NAME: json.dumps(data, indent=1, ensure_ascii=False),
        HTML_NAME: _page(report),
    }


def write(folder: Path, report: Report) -> tuple[Path, Path]:
    """a11y.json and a11y.html beside the manifest."""
    for name, text in texts(report).items():
        atomic_write_text(folder / name, text)
    return folder / JSON_NAME, folder / HTML_NAME


def _table(findings: list[Finding], last: str) -> str:
    esc = html.escape
    rows = "".join(
        f"<tr><td>{esc(f.criterion)}</td><td>{esc(f.clip) or 'every clip'}</td>"
        f"<td>{esc(f.where)}</td><td>{esc(f.problem)}</td></tr>"
        for f in findings
    )
    return (
        f"<table><thead><tr><th scope='col'>Criterion</th><th scope='col'>Clip</th>"
        f"<th scope='col'>Where</th><th scope='col'>{last}</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )


def _page(report: Report) -> str:
    esc = html.escape
    found = _table(report.findings, "Problem") if report.findings else "<p>No problem found.</p>"
    checked = "".join(
        f"<li>{esc(c)}: <strong>{esc(report.result(c))}</strong></li>" for c in report.checked
    )
    left = "".join(f"<li>{esc(c)}</li>" for c in report.not_judged)
    unsaid = (
        "<h2>Numbers on screen the narration does not say</h2>"
        "<p>Each is in the transcript; a person judges whether the narration should say it."
        f"</p>{_table(report.unsaid, 'Numbers')}"
        if report.unsaid
        else ""
    )
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<title>Accessibility report</title></head><body><main>"
        "<h1>Accessibility report</h1>"
        f"<h2>Checked</h2><ul>{checked}</ul><h2>Found</h2>{found}{unsaid}"
        f"<h2>Not judged by a machine</h2><ul>{left}</ul></main></body></html>\n"
    )
