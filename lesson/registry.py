"""The scene registry: slug → scene class, order, titles and the Params fields it reads.

Chapters are found in their folders (scenes/chapters/<slug_>/chapter.toml); their
order is the one list in scenes/chapters/order.toml.

Scene modules are imported only when a scene is needed, so listing the lesson
stays fast and never starts Manim.
"""

from __future__ import annotations

import difflib
import importlib
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from lesson.catalogue import CHAPTERS, COMMON, LANGS, has, lookup, path_for
from lesson.catalogue import catalogue as parsed  # `lesson.catalogue` stays the module
from lesson.reads import NEXT, word_read
from pe_math.params import shown, toml_problem


class UnknownScene(KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class SceneInfo:
    slug: str
    module: str  # importable module, e.g. "scenes.chapters.clock_hands.scene"
    class_name: str
    order: int  # its place in the lesson (chapters: from chapters/order.toml)
    # the Params fields the scene reads at the defaults, for people (`render.py list`);
    # a clip's key holds the fields its build read (lesson.reads), never this list
    fields: tuple[str, ...]
    shows: str = ""  # what the chapter shows, in a line (the README's table of the lesson)

    def fields_for(self, lang: str) -> tuple[str, ...]:
        """The fields a clip in `lang` reads: the other language's words are left out."""
        return tuple(f for f in self.fields if LANGUAGE_FIELDS.get(f, lang) == lang)

    def title(self, lang: str) -> str:
        return lookup(lang, self.slug, "title")

    def load(self):
        """The scene class (imports Manim)."""
        return getattr(importlib.import_module(self.module), self.class_name)

    @property
    def stem(self) -> str:
        """Output file stem: the slug, e.g. 'clock-hands'. The place in the lesson is kept
        in the manifest, so inserting a chapter renames no other chapter's files."""
        return self.slug


LANGUAGE_FIELDS = {"tokens": "zh", "tokens_en": "en"}  # words shown in one language only
ORDER = "order.toml"  # in CHAPTERS: the lesson's one list of chapters, in order


class ChapterError(ValueError):
    """A chapter folder's declaration or the lesson's list is broken."""


def _toml(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ChapterError(
            f"{path} is not valid TOML at {toml_problem(exc)}; fix it there"
        ) from None


def lesson_order(room: Path = CHAPTERS) -> list[str]:
    """The slugs of the lesson's chapters, in the order it plays them."""
    listed = _toml(room / ORDER).get("chapters")
    if not isinstance(listed, list) or not all(isinstance(s, str) for s in listed):
        raise ChapterError(
            f'{room / ORDER} needs chapters = ["slug", ...]; write the list of slugs'
        )
    return listed


def declared(folder: Path) -> tuple[str, str, tuple[str, ...]]:
    """(slug, class name, fields) from a chapter folder's chapter.toml."""
    return declaration(folder)[:3]


def declaration(folder: Path) -> tuple[str, str, tuple[str, ...], str]:
    """(slug, class name, fields, what it shows) from a chapter folder's chapter.toml."""
    decl = _toml(folder / "chapter.toml")
    slug, class_name, fields = decl.get("slug"), decl.get("class"), decl.get("fields", [])
    if not (
        isinstance(slug, str)
        and isinstance(class_name, str)
        and isinstance(fields, list)
        and all(isinstance(f, str) for f in fields)
        and isinstance(decl.get("shows", ""), str)
    ):
        raise ChapterError(
            f'{folder / "chapter.toml"} needs slug = "...", class = "..." and fields = [...] '
            '(and may say shows = "...")'
        )
    if slug.replace("-", "_") != folder.name:  # its catalogues are found by the slug
        raise ChapterError(
            f"{folder / 'chapter.toml'} declares slug {shown(slug)}; its folder must be named "
            f"{shown(slug.replace('-', '_'), quoted=False)}, or the slug {folder.name.replace('_', '-')}"
        )
    return slug, class_name, tuple(fields), decl.get("shows", "")


def discover(room: Path = CHAPTERS) -> tuple[SceneInfo, ...]:
    """The chapters found in their folders, numbered by the lesson's list. A folder the
    list leaves out still renders, after the listed ones; a listed slug without a folder
    is left out (tests/test_registry.py holds the two to each other)."""
    found = {}
    for folder in sorted(room.iterdir()):
        if folder.name.startswith(".") or not (folder / "chapter.toml").is_file():
            continue  # not a chapter, or one being made
        slug, class_name, fields, shows = declaration(folder)
        found[slug] = (f"scenes.chapters.{folder.name}.scene", class_name, fields, shows)
    listed = [s for s in lesson_order(room) if s in found]
    unlisted = sorted(set(found) - set(listed))
    return tuple(
        SceneInfo(slug, module, class_name, order, fields, shows)
        for order, slug in enumerate([*listed, *unlisted], start=1)
        for module, class_name, fields, shows in [found[slug]]
    )


MISSION = discover()  # the project's own chapters; plugins register() more

# The lesson's opening and closing cards: lesson.mp4 starts and ends with them.
CARDS = (
    SceneInfo("lesson-intro", "scenes.lesson_cards", "LessonIntro", 0, ()),
    SceneInfo("lesson-outro", "scenes.lesson_cards", "LessonOutro", 99, ()),
)

REGISTRY: dict[str, SceneInfo] = {}


def register(info: SceneInfo) -> None:
    REGISTRY[info.slug] = info


def unregister(slug: str) -> None:
    REGISTRY.pop(slug, None)


def ordered() -> list[SceneInfo]:
    return sorted(REGISTRY.values(), key=lambda i: (i.order, i.slug))


def lesson_chapters() -> list[SceneInfo]:
    """The lesson's chapters (every registered scene between the cards), in order. (Not
    `chapters`: that name is the package of chapter folders.)"""
    first, last = (card.order for card in CARDS)
    return [info for info in ordered() if first < info.order < last]


def next_chapter(slug: str) -> SceneInfo | None:
    """The chapter after `slug` in the lesson, or None after the last."""
    lesson = lesson_chapters()
    slugs = [info.slug for info in lesson]
    at = slugs.index(slug) + 1 if slug in slugs else len(slugs)
    return lesson[at] if at < len(slugs) else None


def bridge_to(slug: str, lang: str) -> SceneInfo | None:
    """The chapter `slug` ends by pointing to: the next one, when its catalogue in
    `lang` has a bridge line."""
    if not has(lang, slug, "say.bridge"):
        return None
    word_read(lang, slug, NEXT)  # a chapter registered in between changes it
    return next_chapter(slug)


def frame_files(slug: str, lang: str) -> tuple:
    """The files besides code a scene's frames read in `lang`: its catalogues, and the
    lesson's list, since a chapter shows its own number and others' (bridge, cards)."""
    return (*catalogue_files(slug, lang), CHAPTERS / ORDER)


def catalogue_files(slug: str, lang: str) -> tuple:
    """The catalogues a scene's frames read in `lang`: its own, the shared words, and,
    when it ends on a bridge, the next chapter's (its title appears there)."""
    return tuple(path_for(lang, s) for s in _catalogues_read(slug, lang))


def _catalogues_read(slug: str, lang: str) -> tuple[str, ...]:
    following = bridge_to(slug, lang)
    return (slug, COMMON) + ((following.slug,) if following else ())


def check_catalogues(slug: str) -> None:
    """Read every catalogue a clip of `slug` reads (its captions are in both languages),
    so that a missing or broken one is a CatalogueError before anything is drawn."""
    for lang in LANGS:
        for read in _catalogues_read(slug, lang):
            parsed(lang, read)


# the installed command first; a checkout's door is the same command
LIST_HINT = "run `pe-explainer list` (or `python render.py list` in a checkout) to see them"


def get(slug: str) -> SceneInfo:
    """The scene for `slug`, or an error naming the closest slug."""
    try:
        return REGISTRY[slug]
    except KeyError:
        close = difflib.get_close_matches(slug, list(REGISTRY), n=1, cutoff=0.4)
        hint = f"did you mean {close[0]!r}?" if close else LIST_HINT
        raise UnknownScene(f"unknown scene {shown(slug)}; {hint}") from None


for _info in (*MISSION, *CARDS):
    register(_info)

# Extra scenes: PE_SCENE_PLUGINS names modules (comma-separated) that call register().
# Worker processes inherit the variable, so plugin scenes render like built-in ones.
for _name in filter(None, (n.strip() for n in os.environ.get("PE_SCENE_PLUGINS", "").split(","))):
    importlib.import_module(_name)
