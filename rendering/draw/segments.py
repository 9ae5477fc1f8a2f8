"""A clip as beat segments: each beat's frames kept under a key of what can change them.

A beat's frames depend on the scene code, the output settings, the knobs and words the
build had read by the end of the beat (lesson.reads), its own line, and its own speech:
the seconds and sentence times it is timed by. Earlier beats' speech shifts a beat in
time but leaves its frames alone (a skipped play ends where a drawn one would, and the
scenes hold no updater on the absolute clock; tests/test_split.py checks every scene).
A scene that sets SPLITS = False (its state integrates drawn frames) is drawn whole.

After a render the drawn beats' frames are kept in `<folder>/.beats/<clip>/<key>.mp4`,
copied out of Manim's one file per play. The next render of the clip draws only the beats
whose key changed: the scene is built with the other beats played without drawing, their
kept segments are copied in, and the clip is voiced and checked as any other.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lesson import registry
from lesson.catalogue import CatalogueError, has, node
from lesson.reads import EXISTS, NEXT, PRELUDE
from rendering.core import keys
from rendering.core.jobs import Job
from rendering.core.manifest import BEAT_STORE
from rendering.core.validate import signature
from rendering.draw import clip_key
from rendering.draw.packets import frames_in, join

STORE = BEAT_STORE
MISSING = "<missing>"


class SegmentMismatch(RuntimeError):
    """A kept beat no longer matches what the build read: the clip is drawn whole."""


def segmentable(job: Job) -> bool:
    """Whether a clip may be drawn in parts (spans of animations, or beats) and joined:
    an opaque mp4 (joined by copying H.264 packets) of a scene that may skip plays."""
    return job.format.segmentable and not job.transparent and job.info.load().SPLITS


def store_for(job: Job, root: Path) -> Path:
    """The folder that keeps the beats of `job`'s clip."""
    return job.out_dir(root) / STORE / Path(job.filename).stem


def _digest(value: Any) -> str:
    blob = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def base(job: Job) -> str:
    """What every beat's frames depend on: the scene code (without its words, which are
    keyed by the reads), the renderer, the output settings, Manim, the font and the
    video libraries."""
    parts = clip_key.key_parts(job)
    code = keys.hash_of(keys.sources(job.info.module))
    return _digest([code, *(parts[p] for p in ("renderer", "settings", "manim", "machine"))])


def knob_value(job: Job, name: str) -> str:
    try:
        return _digest(job.params.as_dict([name])[name])
    except AttributeError:
        return MISSING


def word_value(name: str) -> str:
    """The digest of a catalogue read named "lang/slug:key" as it reads now."""
    where, _, key = name.partition(":")
    lang, _, slug = where.partition("/")
    if key == NEXT:
        following = registry.next_chapter(slug)
        return _digest(following and [following.slug, following.order])
    if key.endswith(EXISTS):
        try:
            return _digest(has(lang, slug, key.removesuffix(EXISTS)))
        except CatalogueError:
            return MISSING
    try:
        return _digest(node(lang, slug, key))
    except CatalogueError:
        return MISSING


def speech_value(speech: dict[str, float], sentences: dict[str, list], beat: str) -> str:
    """The digest of what times a beat: its speech's seconds and its sentences' times."""
    spans = sentences.get(beat)
    return _digest([speech.get(beat), [list(s) for s in spans] if spans is not None else None])


def timing_of(job: Job) -> tuple[dict[str, float], dict[str, list], set[str]]:
    """The speech seconds and sentence times a render of `job` is timed by, and the beats
    whose speech is not made yet."""
    if job.narration is None:
        return {}, {}, set()
    pending = {b.key for b in job.narration.beats if b.pending}
    return job.narration.seconds(), job.narration.sentence_times(), pending


@dataclass(frozen=True)
class Traced:
    """One beat's reads (knob and word digests by name) and what times it."""

    beat: str
    knobs: dict[str, str]
    words: dict[str, str]
    own: dict[str, str]
    speech: str | None

    def as_dict(
        self, key: str | None, frames: int | None, plays: int, inputs: list[float] | None
    ) -> dict[str, Any]:
        return {
            "beat": self.beat,
            "key": key,
            "frames": frames,
            "plays": plays,
            "inputs": inputs,
            "knobs": self.knobs,
            "words": self.words,
            "own": self.own,
            "speech": self.speech,
        }


def traced(
    job: Job,
    reads: dict[str, dict[str, list[str]]],
    timing: tuple[dict[str, float], dict[str, list], set[str]],
) -> list[Traced]:
    """Each beat's reads with their values now, from the names a build read, and what
    times it (`timing`: speech seconds, sentence times, beats not spoken yet)."""
    speech, sentences, pending = timing
    return [
        Traced(
            beat,
            {n: knob_value(job, n) for n in got.get("knobs", [])},
            {n: word_value(n) for n in got.get("words", [])},
            {n: word_value(n) for n in got.get("own", [])},
            None if beat in pending else speech_value(speech, sentences, beat),
        )
        for beat, got in reads.items()
    ]


def beat_keys(base_: str, beats: list[Traced]) -> dict[str, str | None]:
    """Beat -> its segment key: the base, every knob and word read up to its end, its own
    lines and speech (None while its speech is not made)."""
    knobs: dict[str, str] = {}
    words: dict[str, str] = {}
    out: dict[str, str | None] = {}
    for t in beats:
        knobs.update(t.knobs)
        words.update(t.words)
        if t.speech is None:
            out[t.beat] = None
        else:
            out[t.beat] = _digest([base_, t.beat, knobs, words, t.own, t.speech])
    return out


# ----------------------------------------------------------------- what to draw
@dataclass(frozen=True)
class BeatPlan:
    """Which beats of a clip are copied from the store, which drawn, and why."""

    order: tuple[str, ...]  # every beat of the last render, the prelude first
    reuse: dict[str, dict[str, Any]] = field(default_factory=dict)  # beat -> its kept record
    reasons: tuple[str, ...] = ()
    # motion.pace_inputs of every beat, when no beat's plays can have changed (only
    # speech or lines did): the render then needs no build to work out the pace
    inputs: dict[str, list[float]] | None = None

    @property
    def total(self) -> int:
        return len(self.order)

    @property
    def to_draw(self) -> int:
        return self.total - len(self.reuse)

    def stop_at(self) -> str | None:
        """The beat from which every beat is kept: the build may end as it begins."""
        at = None
        for beat in reversed(self.order):
            if beat not in self.reuse or beat == PRELUDE:
                break
            at = beat
        return at

    def explain(self) -> str:
        why = "; ".join(self.reasons) or "beats changed"
        if not self.reuse:
            return f"{why}; all {self.total} beats to draw"
        return f"{why}; {self.to_draw} of {self.total} beats to draw"


def _shown(beat: str) -> str:
    return "before the first beat" if beat == PRELUDE else f"beat {beat!r}"


def _word_kind(name: str) -> str:
    key = name.partition(":")[2]
    if key.endswith(EXISTS):
        return f"whether {key.removesuffix(EXISTS)} exists"
    if key == NEXT:
        return "the chapter its bridge points to"
    if key.startswith("ui."):
        return f"label {key}"
    if key.startswith("say."):
        return f"line {key}"
    return key


def plan_beats(job: Job, recorded: dict[str, Any], store: Path) -> BeatPlan | None:
    """What a render of `job` must draw, given the clip's recorded segments (None when
    nothing can be kept: no record, or the scene code or settings changed)."""
    if not segmentable(job) or not recorded or recorded.get("base") != base(job):
        return None
    old = recorded.get("beats") or []
    names = {b["beat"]: {k: list(b.get(k, {})) for k in ("knobs", "words", "own")} for b in old}
    now = traced(job, names, timing_of(job))
    keys_now = beat_keys(recorded["base"], now)
    reasons: list[str] = []
    same_plays = True  # no knob or word read has changed, so neither has any play
    for before, t in zip(old, now, strict=True):
        knobs = [n for n, v in t.knobs.items() if before["knobs"].get(n) != v]
        words = [n for n, v in t.words.items() if before["words"].get(n) != v]
        same_plays = same_plays and not knobs and not words
        if knobs:
            reasons.append(f"knob {', '.join(knobs)} changed (read from {_shown(t.beat)} on)")
        reasons += [f"{_word_kind(n)} changed (read from {_shown(t.beat)} on)" for n in words]
        own = any(before["own"].get(n) != v for n, v in t.own.items())
        if own or t.speech is None or t.speech != before.get("speech"):
            reasons.append(f"{_shown(t.beat)} narration changed")
    reuse = {}
    for before in old:
        key = keys_now[before["beat"]]
        if key is None or key != before["key"]:
            continue
        frames = before.get("frames")
        if frames is None or (frames and not (store / f"{key}.mp4").exists()):
            reasons.append(f"{_shown(before['beat'])} kept frames missing")
            continue
        reuse[before["beat"]] = before
    inputs = None
    if same_plays and all("inputs" in b for b in old):
        inputs = {b["beat"]: b["inputs"] for b in old if b["inputs"] is not None}
    return BeatPlan(tuple(b["beat"] for b in old), reuse, tuple(reasons), inputs)


# ----------------------------------------------------------------- keeping and joining
def keep(job: Job, drawn, store: Path, pieces: Path | None = None) -> list[dict[str, Any]]:
    """Write every beat the build (`scene.Drawn`) drew whole into `store`, from Manim's
    file per play; returns each beat's record: its key, reads and frames (None where the
    build did not draw all of it). With `pieces` (a span's folder), the plays it drew of
    a beat it did not draw whole are joined there, and the record names that piece, for
    the client to join with the other spans' pieces of the beat (merged)."""
    beats = traced(job, drawn.read.as_dict(), (drawn.speech, drawn.sentences, set()))
    keyed = beat_keys(base(job), beats)
    store.mkdir(parents=True, exist_ok=True)
    cut = None if drawn.ended else beats[-1].beat  # a span may stop inside its last beat
    records = []
    carried: Traced | None = None
    for t in beats:
        mine = [i for i, play in enumerate(drawn.plays) if (play.beat or PRELUDE) == t.beat]
        if t.beat == PRELUDE and not mine:
            carried = t  # nothing drawn before the first beat: its reads count from there
            continue
        key, frames = keyed[t.beat], None
        if carried is not None:
            t = dataclasses.replace(
                t, knobs={**carried.knobs, **t.knobs}, words={**carried.words, **t.words}
            )
            carried = None
        ours = [i for i in mine if drawn.drawn[i]]
        piece = None
        if key is not None and t.beat != cut and len(ours) == len(mine):
            frames = _joined(drawn, mine, store / f"{key}.mp4")
        elif key is not None and ours and pieces is not None:
            name = pieces / f"{len(records)}-{ours[0]}.mp4"
            piece = {"file": str(name), "first": mine.index(ours[0]), "plays": len(ours)}
            piece["frames"] = _joined(drawn, ours, name)
        record = t.as_dict(key, frames, len(mine), drawn.inputs.get(t.beat))
        record["screen"] = drawn.screen.get(t.beat)  # None: the build ended inside it
        records.append({**record, "piece": piece} if piece else record)
    return records


def _joined(drawn, plays: list[int], target: Path) -> int:
    """Manim's files of `plays` joined into `target`; its frames (0 for no frames)."""
    files = [Path(f) for i in plays if (f := drawn.partials[i]) and Path(f).exists()]
    if not files:
        return 0  # a beat without plays (often the prelude) has no frames to keep
    return _join_into(files, target)


def _join_into(files: list[Path], target: Path) -> int:
    """`files` joined into `target` (whole or not at all); its frames."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.tmp.mp4")
    join(files, tmp)
    frames = frames_in(tmp)
    os.replace(tmp, target)
    return frames


def merged(parts: list[list[dict[str, Any]]], store: Path | None) -> list[dict[str, Any]] | None:
    """One clip's beat records from the spans it was drawn in (in order): each beat's from
    the span that drew it whole, else, when the spans' pieces of it cover its plays in
    order, with those pieces joined into `store`; in the order of the last span, which
    met every beat up to where the build ended. A beat neither keeps frames None."""
    if not parts:
        return None
    whole = {r["beat"]: r for records in parts for r in records if r["frames"] is not None}
    out = []
    for record in parts[-1]:
        record = whole.get(record["beat"], record)
        pieces = [
            r["piece"] for rs in parts for r in rs if r["beat"] == record["beat"] and "piece" in r
        ]
        record = {k: v for k, v in record.items() if k != "piece"}
        if record["frames"] is None and pieces and store is not None and _cover(pieces, record):
            files = [Path(p["file"]) for p in sorted(pieces, key=lambda p: p["first"])]
            record["frames"] = _join_into(files, store / f"{record['key']}.mp4")
        out.append(record)
    return out


def _cover(pieces: list[dict[str, Any]], record: dict[str, Any]) -> bool:
    """Whether pieces, by where they start in the beat, hold each of its plays once."""
    at = 0
    for piece in sorted(pieces, key=lambda p: p["first"]):
        if piece["first"] != at:
            return False
        at += piece["plays"]
    return record["key"] is not None and at == record["plays"]


def assemble(
    records: list[dict[str, Any]], plan: BeatPlan, store: Path, out: Path, fps: int
) -> tuple[list[dict[str, Any]], list[tuple[str, float]]]:
    """Join every beat's segment, drawn now or kept, in order, into the silent clip `out`.

    `records` are the build's (keep), which ended where only kept beats were left; the
    kept beats it met must read as the plan found them (same key), or SegmentMismatch.
    Returns every beat's record and start (from the frames before it).
    """
    met = {r["beat"]: r for r in records}
    if [r["beat"] for r in records] != list(plan.order[: len(records)]):
        raise SegmentMismatch("the scene's beats are not the ones kept")
    whole = []
    for beat in plan.order:
        record = met.get(beat) or plan.reuse.get(beat)
        if record is None:
            raise SegmentMismatch(f"{_shown(beat)} was neither drawn nor kept")
        if beat in plan.reuse:
            if record["key"] != plan.reuse[beat]["key"]:
                raise SegmentMismatch(f"{_shown(beat)} reads differently now")
            record = plan.reuse[beat]
        elif record["frames"] is None:
            raise SegmentMismatch(f"{_shown(beat)} was not drawn whole")
        whole.append(record)
    files = files_of(whole, store)
    if any(not f.exists() for f in files):
        raise SegmentMismatch("kept frames went missing")
    if len({signature(f) for f in files}) > 1:  # e.g. kept from before an encoder upgrade
        raise SegmentMismatch("kept beats were encoded differently from the ones drawn now")
    join(files, out)
    starts, frames = [], 0
    for record in whole:
        if record["beat"] != PRELUDE:
            starts.append((record["beat"], round(frames / fps, 3)))
        frames += record["frames"]
    return whole, starts


def files_of(records: list[dict[str, Any]], store: Path) -> list[Path]:
    """The segment files of the beats that have frames, in order."""
    return [store / f"{r['key']}.mp4" for r in records if r["frames"]]


def prune(store: Path, records: list[dict[str, Any]]) -> None:
    """Remove kept segments the clip no longer uses, and what is kept beside them (their
    measures: `<key>.<kind>`)."""
    used = {r["key"] for r in records if r.get("key")}
    for path in store.glob("*.*"):
        key = path.name.split(".", 1)[0]
        if key and key not in used and path.is_file():  # ".name": one being written
            path.unlink(missing_ok=True)


def play_ranges(recorded: dict[str, Any], animations: int) -> dict[str, tuple[int, int]] | None:
    """Beat -> the numbers of its first and last play (last < first for a beat without
    plays), from a clip's recorded segments; None when they do not count the plays the
    timings have."""
    counts = [(b["beat"], b.get("plays")) for b in recorded.get("beats", [])] if recorded else []
    if not counts or any(n is None for _, n in counts) or sum(n for _, n in counts) != animations:
        return None
    out, at = {}, 0
    for beat, count in counts:
        out[beat] = (at, at + count - 1)
        at += count
    return out


def to_draw(plan: BeatPlan, ranges: dict[str, tuple[int, int]]) -> tuple[int, int] | None:
    """The first and last play of the beats `plan` draws, when they follow one another
    (one beat, or every beat from one on: a line, a recording or a label); else None."""
    drawn = [i for i, beat in enumerate(plan.order) if beat not in plan.reuse]
    if not drawn or drawn != list(range(drawn[0], drawn[-1] + 1)):
        return None
    if any(plan.order[i] not in ranges for i in drawn):
        return None
    first, last = ranges[plan.order[drawn[0]]][0], ranges[plan.order[drawn[-1]]][1]
    return (first, last) if last >= first else None
