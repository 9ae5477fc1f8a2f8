"""Motion that follows the voice: where a clip holds still while it speaks, and how much
slower each beat's animations run so that they fill the beat's speech.

Both come from a build without frames. Every play and wait of the scene is recorded on
the scene clock (`scenes.kit.base.Play`); a still run is a stretch of consecutive frozen
plays, and only its part inside a beat's speech counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lesson.timing import BREATH
from rendering.core.jobs import Job
from rendering.draw.config import manim_config

MOST_PACE = 6.0  # an animation runs at most this many times slower than written
MOST_STILL = 6.0  # seconds the picture may hold while the voice talks


@dataclass(frozen=True)
class StillRun:
    start: float
    end: float
    beat: str  # the beat whose speech the run falls in

    @property
    def seconds(self) -> float:
        return self.end - self.start


@dataclass(frozen=True)
class Motion:
    """How a clip moves while it speaks."""

    speech_seconds: float
    still_seconds: float  # of the speech, the part the picture holds still
    runs: list[StillRun]  # still runs during speech, longest first

    @property
    def still_share(self) -> float:
        return self.still_seconds / self.speech_seconds if self.speech_seconds else 0.0

    @property
    def longest(self) -> StillRun | None:
        return self.runs[0] if self.runs else None


def still_runs(plays, beats: list[tuple[str, float]], speech: dict[str, float]) -> Motion:
    """The still runs of a clip inside its speech. `plays` have start, end and frozen (in
    order), `beats` are (key, start) and `speech` a beat's seconds of narration."""
    spoken = [(start, start + speech[key], key) for key, start in beats if key in speech]
    held: list[list[float]] = []
    for play in plays:
        if not play.frozen or play.end <= play.start:
            continue
        if held and abs(held[-1][1] - play.start) < 1e-9:
            held[-1][1] = play.end  # one run across consecutive waits
        else:
            held.append([play.start, play.end])
    runs = []
    for a, b, key in spoken:
        for start, end in held:
            lo, hi = max(a, start), min(b, end)
            if hi - lo > 1e-9:
                runs.append(StillRun(lo, hi, key))
    runs.sort(key=lambda r: -r.seconds)
    return Motion(
        speech_seconds=sum(b - a for a, b, _ in spoken),
        still_seconds=sum(r.seconds for r in runs),
        runs=runs,
    )


def pace_inputs(plays) -> dict[str, list[float]]:
    """Beat -> [seconds its animations run, seconds it waits] as written (holds for speech
    left out); cued beats are timed by their sentences and have none."""
    out: dict[str, list[float]] = {}
    cued = {play.beat for play in plays if play.cued}
    for play in plays:
        if play.for_speech or not play.beat or play.beat in cued:
            continue
        out.setdefault(play.beat, [0.0, 0.0])[1 if play.wait else 0] += play.seconds
    return out


def beat_pace(moving: float, waiting: float, said: float, most: float = MOST_PACE) -> float:
    """The factor that stretches a beat's animations until they and its own waits fill its
    speech and breath; 1 where the animation is already longer."""
    if moving <= 0:
        return 1.0
    factor = (said + BREATH - waiting) / moving
    return round(min(factor, most), 6) if factor > 1.0 else 1.0


def build(
    job: Job,
    work_dir: Path,
    speech: dict[str, float],
    pace: dict[str, float] | None,
    frame: dict | None = None,
    sentences: dict | None = None,
):
    """The job's scene built with `speech` and `pace`, with no frames drawn (and without
    the hooks that watch a real render). `frame` overrides Manim's pixel size or rate, as
    the render does: text set once for that canvas is then reused by the render."""
    from manim import tempconfig

    config = {**manim_config(job, work_dir / "manim"), **(frame or {}), "dry_run": True}
    with tempconfig(config):
        scene = job.info.load()(
            params=job.params,
            lang=job.lang,
            speech=speech,
            pace=pace,
            sentences=sentences,
            skip_animations=True,
        )
        scene.render()
    return scene


_inputs: dict[tuple, dict[str, list[float]]] = {}  # this process's: a span needs its whole's


def paced(
    job: Job,
    work_dir: Path,
    speech: dict[str, float],
    frame: dict | None = None,
    sentences: dict | None = None,
) -> dict[str, float]:
    """The pace of every beat of `job` at this speech (its build made once per process)."""
    return pace_for_inputs(timed_inputs(job, work_dir, speech, frame, sentences), speech)


def timed_inputs(
    job: Job,
    work_dir: Path,
    speech: dict[str, float],
    frame: dict | None = None,
    sentences: dict | None = None,
) -> dict[str, list[float]]:
    """pace_inputs of `job`'s scene built at this speech, without frames."""
    known = (job.slug, job.lang, job.aspect, job.quality, job.params.digest())
    key = (*known, job.burn_captions, tuple(sorted(speech.items())), str(frame), str(sentences))
    if key not in _inputs:
        _inputs[key] = pace_inputs(build(job, work_dir, speech, None, frame, sentences).plays)
    return {beat: list(v) for beat, v in _inputs[key].items()}


def pace_for_inputs(
    inputs: dict[str, list[float]], speech: dict[str, float], most: float = MOST_PACE
) -> dict[str, float]:
    """Beat -> pace, for the beats that stretch, from pace_inputs and the speech."""
    pace = {
        key: beat_pace(*inputs.get(key, (0.0, 0.0)), said, most) for key, said in speech.items()
    }
    return {key: factor for key, factor in pace.items() if factor > 1.0}


def measure(job: Job, work_dir: Path, pace: bool = True) -> Motion:
    """The still runs of `job`'s clip with its speech (and its pace, as rendered)."""
    speech = job.narration.seconds() if job.narration else {}
    sentences = job.narration.sentence_times() if job.narration else {}
    chosen = paced(job, work_dir, speech, sentences=sentences) if pace and speech else None
    scene = build(job, work_dir, speech, chosen, sentences=sentences)
    return still_runs(scene.plays, scene.beats, speech)
