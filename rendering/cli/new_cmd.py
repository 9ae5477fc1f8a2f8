"""`new SLUG`: a chapter folder made from the templates, and its place in the lesson's list."""

from __future__ import annotations

import ast
import builtins
import contextlib
import functools
import keyword
import os
import re
import shutil
import string
import tempfile
import tomllib
from pathlib import Path

import click

from lesson import catalogue, contents, registry
from pe_math.params import shown
from rendering.cli.options import Fail
from rendering.core import keys
from rendering.core.door import command
from rendering.core.files import atomic_write_text

TEMPLATES = Path(__file__).resolve().parent / "templates" / "chapter"
# a chapter folder's files and the templates they are made from
FOLDER_FILES = {
    "__init__.py": "init.py.tmpl",
    "chapter.toml": "chapter.toml.tmpl",
    "scene.py": "scene.py.tmpl",
    "en.toml": "en.toml.tmpl",
    "zh.toml": "zh.toml.tmpl",
}
SLUG = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
LONGEST_SLUG = 40


def tests_folder() -> Path:
    return keys.ROOT / "tests"


@click.command("new")
@click.argument("slug")
@click.option(
    "--after",
    metavar="SLUG",
    help="Place the chapter after this one in the lesson's list (default: at its end).",
)
def new(slug: str, after: str | None) -> None:
    """Make a chapter from the template: its folder in scenes/chapters/ (scene.py, en.toml,
    zh.toml, chapter.toml), its test in tests/, and its line in the lesson's list."""
    folder, test, placed = make_chapter(slug, after, registry.CHAPTERS, tests_folder())
    click.echo(f"made {shown_path(folder)}/ ({', '.join(FOLDER_FILES)}) and {shown_path(test)}")
    order = shown_path(registry.CHAPTERS / registry.ORDER)
    click.echo(f"{order} lists it as chapter {placed}" if placed else f"{order} lists it already")
    before = registry.lesson_order(registry.CHAPTERS)[placed - 2] if placed > 1 else None
    if before is not None:
        folder_of = shown_path(registry.CHAPTERS / before.replace("-", "_"))
        if catalogue.has("en", before, "say.bridge"):
            say = f"{before}'s bridge now leads into it: reword its bridge line"
        else:
            say = f"{before} ends without a bridge: add a bridge line to [say]"
        click.echo(f"{say} in {folder_of}/en.toml and zh.toml")
    click.echo(f"render it: {command()} render {slug} -q l --voice none")


def shown_path(path: Path) -> str:
    return str(path.relative_to(keys.ROOT)) if path.is_relative_to(keys.ROOT) else str(path)


def class_name(slug: str) -> str:
    """ "my-chapter" -> "MyChapter"."""
    return "".join(part.capitalize() for part in slug.split("-"))


def check_slug(slug: str, room: Path, tests: Path) -> None:
    if len(slug) > LONGEST_SLUG or not SLUG.fullmatch(slug):
        raise Fail(
            f"{shown(slug)} is not a chapter slug; use lowercase letters, digits and "
            f"single hyphens, starting with a letter, at most {LONGEST_SLUG} characters "
            "(e.g. my-chapter)"
        )
    name = slug.replace("-", "_")
    clash = name_clash(slug)
    if clash:
        raise Fail(f"{slug!r} {clash}; pick another slug")
    taken = [
        (slug in registry.REGISTRY, "is a scene already"),
        ((room / name).exists(), f"has a folder already ({room / name})"),
        (slug in (catalogue.COMMON, catalogue.GLOSSARY), "names the shared words"),
        ((catalogue.ROOT / "en" / f"{slug}.toml").exists(), "has a catalogue already"),
        ((tests / f"test_scene_{name}.py").exists(), "has a test already"),
    ]
    for hit, why in taken:
        if hit:
            raise Fail(f"{slug!r} {why}; pick another slug")
    if not tests.is_dir():
        raise Fail(
            f"{tests} is not a folder: `new` writes a chapter and its test into a checkout "
            f"of the project; run `python render.py new {slug}` in a clone"
        )


def name_clash(slug: str) -> str | None:
    """Why the module or class a chapter named `slug` gets cannot be used, or None."""
    name = slug.replace("-", "_")
    if keyword.iskeyword(name):
        return f"would name its module {name}, a word of Python's own"
    cls = class_name(slug)
    if cls in template_names() or hasattr(builtins, cls):
        return f"would name its scene {cls}, a name its scene or its test already uses"
    return None


@functools.cache
def template_names() -> frozenset[str]:
    """The names the scene and test templates import or define at their top level."""
    names = set()
    for file in (*FOLDER_FILES.values(), "test.py.tmpl"):
        if file.endswith(".py.tmpl"):
            fill = {"slug": "x", "cls": "CLASS", "folder": "x", "title": "x"}
            for node in ast.parse(template(file, fill)).body:
                if isinstance(node, ast.Import | ast.ImportFrom):
                    names |= {(a.asname or a.name).split(".")[0] for a in node.names}
                elif isinstance(node, ast.ClassDef | ast.FunctionDef):
                    names.add(node.name)
                elif isinstance(node, ast.Assign):
                    names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return frozenset(n for n in names if "CLASS" not in n)


def listed_with(order: Path, text: str, slug: str, after: str | None, listed: list[str]) -> str:
    """The lesson's list with `slug` on a line of its own, after `after` or at the end."""
    lines = text.splitlines(keepends=True)
    start = next((i for i, ln in enumerate(lines) if re.match(r"\s*chapters\s*=\s*\[", ln)), None)
    if start is not None:
        rest = range(start + 1, len(lines))
        if after is None:
            at = next((i for i in rest if lines[i].strip().startswith("]")), None)
        else:
            at = next((i + 1 for i in rest if lines[i].strip().startswith(f'"{after}"')), None)
        if at is not None:
            lines.insert(at, f'    "{slug}",\n')
    edited = "".join(lines)
    where = listed.index(after) + 1 if after is not None else len(listed)
    try:
        if tomllib.loads(edited).get("chapters") == [*listed[:where], slug, *listed[where:]]:
            return edited
    except tomllib.TOMLDecodeError:
        pass
    raise Fail(
        f"cannot place {slug!r} in {shown_path(order)}, which does not list one "
        f'slug a line; add "{slug}", to its chapters by hand and run `new` again'
    )


def make_chapter(slug: str, after: str | None, room: Path, tests: Path) -> tuple[Path, Path, int]:
    """Write the chapter folder, its test and its place in the list, all or nothing.
    Returns the folder, the test and its number in the lesson (0: it was listed)."""
    check_slug(slug, room, tests)
    order = room / registry.ORDER
    try:
        text = order.read_text(encoding="utf-8")
        listed = registry.lesson_order(room)
    except (OSError, registry.ChapterError) as exc:
        raise Fail(str(exc)) from None
    if after is not None and after not in listed:
        raise Fail(f"--after {shown(after)} is not in {shown_path(order)}; name a listed chapter")
    edited = None if slug in listed else listed_with(order, text, slug, after, listed)
    name = slug.replace("-", "_")
    values = {"slug": slug, "cls": class_name(slug), "folder": name, "title": slug_title(slug)}
    fill = {f: template(t, values) for f, t in FOLDER_FILES.items()}
    folder, test = room / name, tests / f"test_scene_{name}.py"
    made: list[Path] = []
    edits: list[tuple[Path, str]] = []  # files edited in place, with their text before
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=room))
        made.append(staging)
        for file, text_ in fill.items():
            (staging / file).write_text(text_, encoding="utf-8")
        os.rename(staging, folder)
        made[-1] = folder
        atomic_write_text(test, template("test.py.tmpl", values))
        made.append(test)
        if edited is not None:
            edits.append((order, text))
            atomic_write_text(order, edited)
        readme = room.parents[1] / "README.md"  # the checkout's: its table of the lesson
        if readme.is_file():
            edits.append((readme, readme.read_text(encoding="utf-8")))
            atomic_write_text(readme, contents.with_table(edits[-1][1], room))
    except OSError as exc:
        for path, before in reversed(edits):
            with contextlib.suppress(OSError):
                atomic_write_text(path, before)
        for path in reversed(made):
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink(missing_ok=True)
        raise Fail(
            f"cannot write {exc.filename or room} ({exc.strerror}); nothing was made"
        ) from None
    placed = 0 if edited is None else registry.lesson_order(room).index(slug) + 1
    return folder, test, placed


def slug_title(slug: str) -> str:
    return slug.replace("-", " ").capitalize()


def template(name: str, values: dict[str, str]) -> str:
    return string.Template((TEMPLATES / name).read_text(encoding="utf-8")).substitute(values)
