"""The registry's `fields` match what each scene really reads at the defaults.

They document a scene (`render.py list` lists them); the cache keys a clip on the
fields its build read, so a field missing here cannot leave a stale clip "up to date".
"""

from dataclasses import fields

import pytest

import scenes
from pe_math import Params
from tests.scene_tools import build_scene

NAMES = frozenset(f.name for f in fields(Params))


def reads(info: scenes.SceneInfo, lang: str) -> set[str]:
    _, report = build_scene(info.load(), Params(), lang)  # construct() calls numbers()
    return report.fields_read


CASES = [(info, "en") for info in (*scenes.MISSION, *scenes.CARDS)] + [
    (info, "zh") for info in scenes.MISSION if any(f in scenes.LANGUAGE_FIELDS for f in info.fields)
]


@pytest.mark.parametrize("info,lang", CASES, ids=lambda v: getattr(v, "slug", v))
def test_declared_fields_are_exactly_the_fields_read(info, lang):
    assert reads(info, lang) == set(info.fields_for(lang))


def test_every_knob_reaches_a_screen():
    shown = {f for info in scenes.REGISTRY.values() for f in info.fields}
    assert shown == NAMES, f"knobs no scene reads: {sorted(NAMES - shown)}"
