"""How long a voice would take to say a scene's lines, estimated from their words alone."""

from __future__ import annotations

import re

from lesson import say
from lesson.text_layout import sentences
from pe_math import Params
from rendering.speech.synthesis import SENTENCE_GAP, spoken

# Seconds a voice takes per spoken word (en) or character (zh): the slowest tenth of the
# default voices' sentences, so a clip estimated with them holds still no less than spoken.
SECONDS_PER_UNIT = {"en": 0.38, "zh": 0.26}


def estimated_speech(
    slug: str, lang: str, params: Params | None = None
) -> tuple[dict[str, float], dict[str, list[tuple[float, float]]]]:
    """Beat -> seconds, and beat -> its sentences' [start, end], as a slow voice would say
    the scene's lines (SENTENCE_GAP between sentences), without synthesising anything."""
    speech, times = {}, {}
    for key, line in say.lines(slug, lang, params).items():
        at, spans = 0.0, []
        for sentence in sentences(line, lang):
            words = spoken(sentence, lang)
            units = len(words.split()) if lang == "en" else len(re.findall(r"[^\s\W]", words))
            spans.append((at, at + units * SECONDS_PER_UNIT[lang]))
            at = spans[-1][1] + SENTENCE_GAP
        speech[key], times[key] = spans[-1][1], spans
    return speech, times
