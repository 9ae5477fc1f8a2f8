"""A course file: a matrix of langs × qualities × aspects × parameter sets, rendered in one schedule.

    [course]
    langs = ["en", "zh"]
    qualities = ["h"]
    aspects = ["16:9", "9:16"]
    scenes = "all"          # or a list of slugs
    lesson = true           # also join lesson.mp4 in every output folder

    [sets.paper]            # no overrides: the lesson's knobs
    [sets.base100]
    base = 100

Each set renders into <output>/<set>/<lang>/<quality>/ with its own manifest and gallery.
`load` checks everything before anything is rendered or written; every problem is one
line naming the file, the table and the key (see docs/course.example.toml).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from lesson import registry
from lesson.catalogue import LANGS
from pe_math import ParamError, Params
from pe_math.params import field_names, read_toml
from rendering.core import settings
from rendering.core.door import command

COURSE_KEYS = ("langs", "qualities", "aspects", "scenes", "lesson")
SET_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
RESERVED = {*LANGS, "preview"}  # names the output root already uses for itself


class CourseError(ValueError):
    """A course file that cannot be rendered; one line: the file, the key and the fix."""


MAX_SETS = 100  # parameter sets in one course file
MAX_JOBS = 5000  # clips in one plan (ten lessons in two languages and two shapes are 520)


@dataclass(frozen=True)
class Course:
    langs: tuple[str, ...]
    qualities: tuple[str, ...]
    aspects: tuple[str, ...]
    slugs: tuple[str, ...]  # in lesson order
    lesson: bool
    sets: dict[str, Params]  # set name -> its knobs (the base knobs with its overrides)
    overrides: dict[str, dict[str, object]]  # set name -> the keys it changes

    def root(self, output: Path, name: str) -> Path:
        """Where a set's folders go: <output>/<set>."""
        return output / name

    @property
    def size(self) -> int:
        return (
            len(self.sets)
            * len(self.langs)
            * len(self.qualities)
            * len(self.aspects)
            * len(self.slugs)
        )

    def describe(self) -> str:
        """One line: the matrix and its number of jobs."""
        parts = [
            f"{len(self.sets)} sets ({', '.join(self.sets)})",
            f"{len(self.langs)} langs ({', '.join(self.langs)})",
            f"{len(self.qualities)} qualities ({', '.join(self.qualities)})",
            f"{len(self.aspects)} aspects ({', '.join(self.aspects)})",
            f"{len(self.slugs)} scenes",
        ]
        lesson = ", each folder joined into lesson.mp4" if self.lesson else ""
        return f"course: {' × '.join(parts)} = {self.size} jobs{lesson}"


def load(path: str | Path, base: Params) -> Course:
    """Read and check a course file; `base` holds the knobs the sets start from."""
    source = Path(path)
    try:
        data = read_toml(source)
    except ParamError as exc:
        raise CourseError(str(exc).replace("config file", "course file", 1)) from None

    def fail(where: str, problem: str) -> CourseError:
        return CourseError(f"{source}: {where} {problem}")

    unknown_tables = [k for k in data if k not in ("course", "sets")]
    if unknown_tables:
        raise fail(
            f"{unknown_tables[0]!r}:",
            "is not a table of a course file; use [course] and [sets.NAME]",
        )
    course = data.get("course")
    if not isinstance(course, dict):
        raise fail("[course]", "is missing; add a [course] table (see docs/course.example.toml)")
    for key in course:
        if key not in COURSE_KEYS:
            raise fail("[course]", f"unknown key {key!r}; {_hint(key, COURSE_KEYS)}")

    langs = _choices(course, "langs", LANGS, ("en",), fail)
    qualities = _choices(course, "qualities", tuple(settings.QUALITIES), ("l",), fail)
    aspects = _choices(course, "aspects", tuple(settings.ASPECTS), ("16:9",), fail)
    slugs = _scenes(course.get("scenes", "all"), fail)
    lesson = course.get("lesson", False)
    if not isinstance(lesson, bool):
        raise fail("[course] lesson =", f"{lesson!r} must be true or false")

    tables = data.get("sets", {})
    if not isinstance(tables, dict):
        raise fail("sets", "must be tables, such as [sets.base100] with base = 100")
    if not tables:
        tables = {"default": {}}
    if len(tables) > MAX_SETS:
        raise fail(
            "[sets]",
            f"holds {len(tables):,} sets; a course file may hold {MAX_SETS} at most: "
            "split it into several files",
        )
    folded: dict[str, str] = {}
    for name in tables:
        other = folded.setdefault(name.casefold(), name)
        if other != name:
            raise fail(
                f"[sets.{name}]",
                f"differs from [sets.{other}] only in case, and on a disk that ignores case "
                "both would write one folder; rename one",
            )
    sets: dict[str, Params] = {}
    overrides: dict[str, dict[str, object]] = {}
    for name, table in tables.items():
        where = f"[sets.{name}]"
        if not SET_NAME.match(name) or name in RESERVED:
            raise fail(
                where,
                "is not a usable folder name; use letters, digits, '-', '_' or '.', "
                f"and none of {', '.join(sorted(RESERVED))}",
            )
        if not isinstance(table, dict):
            raise fail(where, "must be a table of knobs, such as base = 100")
        for key in table:
            if key not in field_names():
                raise fail(where, f"unknown parameter {key!r}; {_hint(key, field_names())}")
        try:
            sets[name] = base.replace(**table)
        except ParamError as exc:
            raise fail(where, str(exc)) from None
        overrides[name] = dict(table)
    course = Course(langs, qualities, aspects, slugs, lesson, sets, overrides)
    if course.size > MAX_JOBS:
        raise fail(
            "[course]",
            f"makes {course.size:,} jobs; one plan may make {MAX_JOBS:,} at most: split the "
            "sets, languages, qualities or aspects into several course files",
        )
    return course


def _hint(key: str, valid) -> str:
    close = difflib.get_close_matches(key, list(valid), n=1, cutoff=0.5)
    return f"did you mean {close[0]!r}?" if close else f"use {', '.join(valid)}"


def _choices(course: dict, key: str, valid: tuple[str, ...], default, fail) -> tuple[str, ...]:
    values = course.get(key, list(default))
    if isinstance(values, str):
        values = [values]
    if not isinstance(values, list) or not values:
        raise fail(
            f"[course] {key} =", f"{values!r} must be a non-empty list, such as {list(valid[:2])}"
        )
    for value in values:
        if value not in valid:
            raise fail(f"[course] {key}:", f"{value!r} is not one of {', '.join(valid)}")
    if len(set(values)) != len(values):
        raise fail(f"[course] {key}:", "lists a value twice; name each once")
    return tuple(values)


def _scenes(value, fail) -> tuple[str, ...]:
    if value == "all":
        return tuple(i.slug for i in registry.ordered())
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise fail("[course] scenes =", f'{value!r} must be "all" or a list of scene names')
    try:
        infos = [registry.get(slug) for slug in value]
    except registry.UnknownScene as exc:
        raise fail("[course] scenes:", f"{exc} (see `{command()} list`)") from None
    if len({i.slug for i in infos}) != len(infos):
        raise fail("[course] scenes:", "lists a scene twice; name each once")
    return tuple(i.slug for i in sorted(infos, key=lambda i: i.order))
