"""The speech clock a scene keeps, on its own: no Manim, times in seconds."""

import subprocess
import sys
from pathlib import Path

import pytest

from lesson.say import Cue
from lesson.timing import BREATH
from scenes.kit.clock import SpeechClock


def test_a_beat_holds_for_its_speech_and_a_breath_and_runs_at_its_pace():
    clock = SpeechClock({"a": 3.0}, {"a": 1.5})
    clock.enter("a", 10.0)
    assert clock.speech_until == pytest.approx(13.0 + BREATH)
    assert clock.current_pace == 1.5
    clock.enter("silent", 20.0)  # no speech: the hold stays where it was, pace back to 1
    assert clock.speech_until == pytest.approx(13.0 + BREATH)
    assert clock.current_pace == 1.0


def test_a_cue_runs_from_its_marker_to_the_next_one_or_the_end_of_the_speech():
    clock = SpeechClock(sentences={"a": [(0.0, 2.0), (2.5, 6.5)]})
    marks = {"first": Cue(0, 0.0), "half": Cue(1, 0.5), "later": Cue(1, 0.75)}
    assert clock.cue_window("a", 10.0, marks, "first") == (10.0, 14.5)
    assert clock.cue_window("a", 10.0, marks, "half") == (14.5, 15.5)
    assert clock.cue_window("a", 10.0, marks, "later") == (15.5, 16.5)
    assert SpeechClock().cue_window("a", 10.0, marks, "half") is None  # untimed: at once


def test_the_clock_loads_without_manim():
    code = "import sys, scenes.kit.clock; print('manim' in sys.modules)"
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr
