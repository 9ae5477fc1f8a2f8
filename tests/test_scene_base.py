"""The shared scene machinery: registry, catalogues, beats, layout checker."""

import pytest
from manim import RIGHT, Text, Write

from lesson import registry
from lesson.catalogue import LANGS, CatalogueError, catalogue, lookup
from scenes.kit.base import LessonScene
from tests.scene_tools import build_scene


def test_registry_orders_the_lesson_as_a_design_story():
    # the sinusoid's own properties come before relative position; RoPE and the variants
    # are the climax, and the recap ticks off the requirements last
    assert [i.slug for i in registry.lesson_chapters()] == [
        "attention-shuffle",
        "integer-scale",
        "binary-bits",
        "square-to-sine",
        "clock-hands",
        "similarity",
        "pe-heatmap",
        "relative-shift",
        "rope-rotation",
        "variants",
        "long-context",
        "recap",
    ]
    assert [i.order for i in registry.lesson_chapters()] == list(range(1, 13))
    assert registry.get("clock-hands").stem == "clock-hands"  # its place is only `order`
    assert registry.get("rope-rotation").order == 9
    assert registry.next_chapter("pe-heatmap").slug == "relative-shift"
    assert registry.next_chapter("recap") is None


def test_unknown_slug_suggests_the_closest():
    with pytest.raises(registry.UnknownScene, match="did you mean 'clock-hands'"):
        registry.get("clock-hand")


def test_missing_catalogue_key_names_the_file_and_fix():
    with pytest.raises(CatalogueError, match="has no 'ui.nope'; add it to both zh and en"):
        lookup("en", "clock-hands", "ui.nope")
    with pytest.raises(CatalogueError, match="language 'fr' is not available"):
        catalogue("fr", "clock-hands")


@pytest.mark.parametrize("info", registry.MISSION, ids=lambda i: i.slug)
def test_both_catalogues_have_the_same_keys(info):
    def keys(node, prefix=""):
        return {
            k2
            for k, v in node.items()
            for k2 in (keys(v, f"{prefix}{k}.") if isinstance(v, dict) else [f"{prefix}{k}"])
        }

    zh, en = (keys(catalogue(lang, info.slug)) for lang in LANGS)
    assert zh == en
    assert {"title", "takeaway"} <= zh


class _Crowded(LessonScene):
    slug = "clock-hands"

    @classmethod
    def numbers(cls, params):
        return {}

    def construct(self):
        self.beat("a")
        self.play(Write(Text("past the right edge").shift(6.5 * RIGHT)))
        self.add(Text("one"), Text("one"))
        self.beat("b")


def test_layout_checker_catches_overflow_and_overlap():
    scene, report = build_scene(_Crowded)
    assert [b for b, _ in scene.beats] == ["a", "b"]
    assert any("leaves the frame" in p for p in report.problems)
    assert any("overlaps" in p for p in report.problems)
    assert report.checked_beats == ["a", "b", "<end>"]
