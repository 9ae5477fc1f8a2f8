"""The shared scene machinery: registry, catalogues, beats, layout checker."""

import tomllib

import pytest
from manim import RIGHT, Text, Write

from lesson import registry
from lesson.catalogue import LANGS, CatalogueError, catalogue, lookup
from scenes.kit.base import LessonScene
from tests.scene_tools import build_scene

# the design story: the needs first, integer and binary fail them, the sinusoid is built
# and examined, relative position and RoPE follow, the recap ticks the list last. A
# chapter added anywhere keeps this order among these.
STORY = [
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


def test_registry_numbers_the_chapters_in_the_order_the_lessons_list_gives():
    listed = tomllib.loads((registry.CHAPTERS / registry.ORDER).read_text("utf-8"))["chapters"]
    chapters = registry.lesson_chapters()
    assert [i.slug for i in chapters] == listed
    assert [i.order for i in chapters] == list(range(1, len(listed) + 1))
    assert [s for s in listed if s in STORY] == STORY
    for info, following in zip(chapters, [*chapters[1:], None], strict=True):
        assert registry.next_chapter(info.slug) == following
        assert info.stem == info.slug  # its place is only `order`


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


def test_no_chapter_names_its_own_place_in_the_lesson():
    """A chapter's number comes from the lesson's list: its code never says it."""
    import re

    for path in registry.CHAPTERS.glob("*/scene.py"):
        assert not re.search(r"\bScene \d+\b", path.read_text(encoding="utf-8")), path


def test_a_clip_opens_on_its_chapters_title(monkeypatch, tmp_path):
    # a course platform that takes the first frame as the thumbnail shows the title
    from scenes.chapters.binary_bits.scene import BinaryBits
    from tests.scene_tools import visible_texts, words

    first: list[list[str]] = []
    play = LessonScene.play

    def watched(self, *animations, **kwargs):
        if not first:
            first.append(words(visible_texts(self)))
        return play(self, *animations, **kwargs)

    monkeypatch.setattr(LessonScene, "play", watched)
    build_scene(BinaryBits, lang="zh", tmp=tmp_path)
    title = lookup("zh", "binary-bits", "title")
    assert "".join(first[0]).replace(" ", "") == title.replace(" ", "")
