"""Every voice says under which licence it speaks and whether a sold course may use it; a
render says in one line whether all its voices may be sold."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from rendering.cli import render_cmd
from rendering.core.manifest import VoiceCard
from rendering.speech import voices
from rendering.speech.base import VoiceSpec

SOLD = [
    (VoiceSpec("kokoro", "af_bella"), "yes"),
    (VoiceSpec("kokoro", "zf_xiaobei", 1.1), "yes"),
    (VoiceSpec("espeak", "en-us"), "yes"),
    (VoiceSpec("fastspeech2", "baker"), "no"),
    (VoiceSpec("piper", "joe"), "unclear"),
]


@pytest.mark.parametrize(("spec", "sold"), SOLD, ids=lambda v: getattr(v, "engine", v))
def test_each_engines_card_says_its_licence_and_whether_it_may_be_sold(spec, sold):
    card = voices.engine(spec).card()
    assert card["sold_course"] == sold
    assert card["licence"]
    assert VoiceCard(**card).sold_course == sold  # the manifest keeps it
    if spec.engine == "kokoro":
        assert "Apache-2.0" in card["licence"] and "Kokoro-82M by hexgrad" in card["licence"]
    if spec.engine == "fastspeech2":
        assert "non-commercial" in card["licence"]


def test_teachers_recordings_are_theirs_to_sell():
    assert voices.RECORDED_CARD["sold_course"] == "yes"
    assert voices.sold_course([voices.RECORDED_CARD]) == "sold course: every voice used may be sold"


def _card(engine, voice, sold):
    return {"engine": engine, "voice": voice, "sold_course": sold}


def test_the_sold_course_line_names_each_voice_that_may_not_be_sold():
    kokoro = _card("kokoro", "af_bella", "yes")
    baker = _card("fastspeech2", "baker", "no")
    joe = _card("piper", "joe", "unclear")
    assert voices.sold_course([kokoro, kokoro]) == "sold course: every voice used may be sold"
    line = voices.sold_course([kokoro, joe, baker, baker])
    assert line.startswith("sold course: not with fastspeech2 baker (no), piper joe (unclear);")
    assert "kokoro" not in line and "\n" not in line
    # a card from before the question was asked is not taken for a yes
    assert "espeak-ng en-us (unclear)" in voices.sold_course([_card("espeak-ng", "en-us", "")])


def test_a_render_prints_the_sold_course_line_once_for_all_its_voices(capsys):
    def job(*cards):
        return SimpleNamespace(narration=SimpleNamespace(cards=json.dumps(list(cards))))

    jobs = [
        job(_card("kokoro", "af_bella", "yes")),
        job(_card("fastspeech2", "baker", "no"), voices.RECORDED_CARD),
        SimpleNamespace(narration=None),  # a silent job
    ]
    render_cmd.print_sold_course(jobs)
    out = capsys.readouterr().out.strip().splitlines()
    assert out == [voices.sold_course([_card("fastspeech2", "baker", "no")])]
    render_cmd.print_sold_course([SimpleNamespace(narration=None)])  # nothing spoke: no line
    assert capsys.readouterr().out == ""
