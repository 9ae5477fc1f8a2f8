"""The registry's `fields` match what each scene really reads at the defaults.

They document a scene (`render.py list` lists them); the cache keys a clip on the
fields its build read, so a field missing here cannot leave a stale clip "up to date".
"""

from dataclasses import fields

import pytest

from lesson import registry
from pe_math import Params
from tests.scene_tools import build_scene

NAMES = frozenset(f.name for f in fields(Params))


def reads(info: registry.SceneInfo, lang: str) -> set[str]:
    _, report = build_scene(info.load(), Params(), lang)  # construct() calls numbers()
    return report.fields_read


CASES = [(info, "en") for info in (*registry.MISSION, *registry.CARDS)] + [
    (info, "zh")
    for info in registry.MISSION
    if any(f in registry.LANGUAGE_FIELDS for f in info.fields)
]


@pytest.mark.parametrize("info,lang", CASES, ids=lambda v: getattr(v, "slug", v))
def test_declared_fields_are_exactly_the_fields_read(info, lang):
    assert reads(info, lang) == set(info.fields_for(lang))


def test_every_knob_reaches_a_screen():
    shown = {f for info in registry.REGISTRY.values() for f in info.fields}
    assert shown == NAMES, f"knobs no scene reads: {sorted(NAMES - shown)}"


# ----------------------------------------------------------- chapters as folders
CHAPTER_FILES = {"__init__.py", "chapter.toml", "scene.py", "en.toml", "zh.toml"}


def test_every_chapter_folder_is_whole_and_in_the_lessons_list_once():
    folders = {p.name for p in registry.CHAPTERS.iterdir() if (p / "chapter.toml").is_file()}
    listed = registry.lesson_order()
    assert len(listed) == len(set(listed))
    assert {slug.replace("-", "_") for slug in listed} == folders
    for name in folders:
        assert CHAPTER_FILES <= {p.name for p in (registry.CHAPTERS / name).iterdir()}, name
    assert [info.slug for info in registry.lesson_chapters()] == listed  # in the list's order


def chapter(room, slug, cls="Thing"):
    folder = room / slug.replace("-", "_")
    folder.mkdir()
    (folder / "chapter.toml").write_text(f'slug = "{slug}"\nclass = "{cls}"\nfields = ["base"]\n')


def test_inserting_a_chapter_renumbers_the_later_ones_and_renames_no_file(tmp_path):
    for slug in ("first", "second"):
        chapter(tmp_path, slug)
    (tmp_path / registry.ORDER).write_text('chapters = ["first", "second"]\n')
    before = {info.slug: info for info in registry.discover(tmp_path)}
    chapter(tmp_path, "between")
    (tmp_path / registry.ORDER).write_text('chapters = ["first", "between", "second"]\n')
    after = {info.slug: info for info in registry.discover(tmp_path)}
    assert [after[s].order for s in ("first", "between", "second")] == [1, 2, 3]
    assert before["second"].order == 2
    assert {s: i.stem for s, i in after.items()} == {s: s for s in after}
    assert after["between"].module == "scenes.chapters.between.scene"
    assert after["between"].fields == ("base",) and after["between"].class_name == "Thing"


def test_a_folder_left_out_of_the_list_still_renders_after_the_listed_ones(tmp_path):
    for slug in ("first", "extra"):
        chapter(tmp_path, slug)
    (tmp_path / registry.ORDER).write_text('chapters = ["first", "gone"]\n')
    assert [(i.slug, i.order) for i in registry.discover(tmp_path)] == [("first", 1), ("extra", 2)]


@pytest.mark.parametrize(
    "text,says",
    [
        ('slug = "odd-one"\nclass = "X"\n', "declares slug 'odd-one'; its folder must be named"),
        ('slug = "thing"\n', 'needs slug = "...", class = "..." and fields = [...]'),
        ('slug = "thing"\nclass = "X"\nfields = [1]\n', "needs slug"),
        ('slug = "thing\n', "is not valid TOML at line 1"),
    ],
    ids=["folder", "no class", "fields", "syntax"],
)
def test_a_broken_declaration_is_one_line_naming_the_file(tmp_path, text, says):
    (tmp_path / "thing").mkdir()
    (tmp_path / "thing" / "chapter.toml").write_text(text)
    (tmp_path / registry.ORDER).write_text('chapters = ["thing"]\n')
    with pytest.raises(registry.ChapterError) as caught:
        registry.discover(tmp_path)
    message = str(caught.value)
    assert says in message and str(tmp_path / "thing" / "chapter.toml") in message
    assert "\n" not in message


def test_a_list_that_is_not_a_list_of_slugs_is_named(tmp_path):
    (tmp_path / registry.ORDER).write_text('chapters = "first"\n')
    with pytest.raises(registry.ChapterError, match='needs chapters = \\["slug", ...\\]'):
        registry.lesson_order(tmp_path)
