"""The speech clock of a scene: how long each beat's voice lasts, how much slower its
animations run to fill it, and when a cued sentence starts and ends. No Manim: times
are seconds on the scene clock."""

from __future__ import annotations

from collections.abc import Mapping

from lesson import say
from lesson.timing import BREATH


class SpeechClock:
    """With `speech` (beat key -> seconds of narration) a beat lasts at least its speech
    plus BREATH; `pace` (beat -> factor) slows its animations to fill it; `sentences`
    (beat -> [start, end] of each sentence, from the beat's start) time the cues."""

    def __init__(
        self,
        speech: Mapping[str, float] | None = None,
        pace: Mapping[str, float] | None = None,
        sentences: Mapping[str, list[tuple[float, float]]] | None = None,
    ) -> None:
        self.speech = dict(speech or {})
        self.pace = dict(pace or {})
        self.sentences = {key: list(spans) for key, spans in (sentences or {}).items()}
        self.speech_until = 0.0  # when the current beat's voice and its breath are over
        self.current_pace = 1.0

    def enter(self, key: str, start: float) -> None:
        """Beat `key` starts at `start`."""
        if key in self.speech:
            self.speech_until = start + self.speech[key] + BREATH
        self.current_pace = self.pace.get(key, 1.0)

    def cue_window(
        self, key: str, began: float, marks: Mapping[str, say.Cue], cue: str
    ) -> tuple[float, float] | None:
        """When the voice reaches marker `cue` of beat `key` (begun at `began`), and when
        the next marker (or the beat's speech) does; None without the sentences' times."""
        spans = self.sentences.get(key, [])
        start = marks[cue].at(spans)
        if start is None:
            return None
        later = [at for m in marks.values() if (at := m.at(spans)) is not None and at > start]
        return began + start, began + min(later, default=spans[-1][1])
