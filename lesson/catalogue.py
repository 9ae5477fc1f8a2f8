"""The words of the lesson: one catalogue per language, one TOML file per scene.

A chapter keeps its catalogues in its folder, `scenes/chapters/<slug_>/<lang>.toml`;
the shared words (common, glossary) and the lesson's cards are in
`scenes/captions/<lang>/<slug>.toml`. Each holds a scene's `title`, `takeaway`, its
on-screen labels under `[ui]` and its narration beats under `[say]`.
"""

from __future__ import annotations

import os
import tomllib
from functools import cache
from pathlib import Path

from lesson.reads import EXISTS, word_read
from lesson.speaker import speaker
from pe_math.params import longest_number, shown, toml_problem

LANGS = ("zh", "en")
COMMON = "common"  # the catalogue of words several scenes share
GLOSSARY = "glossary"  # zh/glossary.toml: one word per idea, held by a test; no scene reads it
ROOT = Path(__file__).resolve().parents[1] / "scenes" / "captions"
CHAPTERS = Path(__file__).resolve().parents[1] / "scenes" / "chapters"  # a folder per chapter
ROOTS: list[Path] = [ROOT]  # scene plugins may add their own catalogue folders
# A folder of catalogues (<lang>/<slug>.toml) read before the project's: a course's own
# wording of some scenes, kept outside the project
OVERRIDE = "PE_CAPTIONS"


def add_root(folder: Path) -> None:
    """Let a scene plugin keep its catalogues beside its code."""
    if folder not in ROOTS:
        ROOTS.append(folder)
        catalogue.cache_clear()


def roots() -> list[Path]:
    """Where catalogues are looked for, first to last."""
    extra = os.environ.get(OVERRIDE)
    return [Path(extra), *ROOTS] if extra else list(ROOTS)


def chapter_folder(slug: str) -> Path:
    """A chapter's folder: its slug with underscores, e.g. chapters/clock_hands."""
    return CHAPTERS / slug.replace("-", "_")


def shipped(lang: str) -> dict[str, Path]:
    """Every catalogue the project holds in `lang`, by slug: the shared ones and each
    chapter's own."""
    found = {path.stem: path for path in sorted((ROOT / lang).glob("*.toml"))}
    for folder in sorted(CHAPTERS.iterdir()):
        if (folder / f"{lang}.toml").is_file():
            found[folder.name.replace("_", "-")] = folder / f"{lang}.toml"
    return found


def path_for(lang: str, slug: str) -> Path:
    """The catalogue file of a scene: a course's override, else the chapter's own, else
    the first root that has one."""
    own = chapter_folder(slug) / f"{lang}.toml"
    extra = os.environ.get(OVERRIDE)
    places = [Path(extra) / lang / f"{slug}.toml"] if extra else []
    places += [own, *(root / lang / f"{slug}.toml" for root in ROOTS)]
    fallback = own if own.parent.is_dir() else ROOT / lang / f"{slug}.toml"
    return next((place for place in places if place.exists()), fallback)


class CatalogueError(KeyError):
    """A caption or label is missing from a language's catalogue."""

    def __str__(self) -> str:
        return str(self.args[0])


def catalogue(lang: str, slug: str) -> dict:
    """The parsed catalogue of one scene in one language (parsed again once edited)."""
    if lang not in LANGS:
        raise CatalogueError(f"language {lang!r} is not available; use one of {', '.join(LANGS)}")
    path = path_for(lang, slug)
    try:
        stamp = path.stat()
    except FileNotFoundError:
        raise CatalogueError(
            f"no {lang} catalogue for scene {slug!r}: {path} is missing; restore it, "
            "or write one with the scene's title, [ui] and [say]"
        ) from None
    # as rendering.core.keys stamps files: a write that puts the old time and size back
    # still changes the status-change time
    return _parsed(path, (stamp.st_mtime_ns, stamp.st_ctime_ns, stamp.st_size, stamp.st_ino))


@cache
def _parsed(path: Path, stamp: tuple[int, ...]) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise CatalogueError(
            f"{path} is not valid TOML at {toml_problem(exc)}; fix the syntax there "
            '(texts in "quotes", one key = value per line)'
        ) from None
    except UnicodeDecodeError:
        raise CatalogueError(f"{path} is not UTF-8 text; save it as UTF-8") from None
    except ValueError:  # a whole number past Python's limit on digits
        key, digits, line = longest_number(path.read_text(encoding="utf-8"))
        raise CatalogueError(
            f"{path}, line {line}: {key} = {shown(digits, quoted=False)} is a number too long "
            "to read; shorten it"
        ) from None
    except RecursionError:
        raise CatalogueError(f"{path} nests tables or lists too deeply; flatten it") from None
    except OSError as exc:
        raise CatalogueError(
            f"{path} cannot be read ({exc.strerror}); make it a readable file"
        ) from None


catalogue.cache_clear = _parsed.cache_clear  # type: ignore[attr-defined]


def node(lang: str, slug: str, key: str) -> object:
    """What a dotted key such as 'ui.swap' holds: text, or a table."""
    word_read(lang, slug, key)
    found: object = catalogue(lang, slug)
    for part in key.split("."):
        if not isinstance(found, dict) or part not in found:
            raise CatalogueError(
                f"{path_for(lang, slug)} has no {key!r}; add it to both zh and en catalogues"
            )
        found = found[part]
    return found


def has(lang: str, slug: str, key: str) -> bool:
    """Whether a dotted key exists; the answer is recorded as a read (reads.EXISTS), so
    a line added or removed later changes what depends on it."""
    word_read(lang, slug, key + EXISTS)
    found: object = catalogue(lang, slug)
    for part in key.split("."):
        if not isinstance(found, dict) or part not in found:
            return False
        found = found[part]
    return True


def lookup(lang: str, slug: str, key: str) -> str:
    """The text of a dotted key such as 'title', 'ui.swap' or 'say.intro'."""
    text = node(lang, slug, key)
    if not isinstance(text, str):
        raise CatalogueError(f"{path_for(lang, slug)}: {key!r} is a table, not text")
    return text


def fill(lang: str, slug: str, key: str, **values: object) -> str:
    """A dotted key's text with its `{name}` slots filled; a slot the scene does not
    fill is named with its file and key."""
    text = lookup(lang, slug, key)
    if not values:
        return text
    try:
        return speaker(lang).format(text, **values)
    except KeyError as exc:
        given = ", ".join(sorted(values))
        raise CatalogueError(
            f"{path_for(lang, slug)}: {key} has the placeholder {{{exc.args[0]}}}, which the "
            f"scene does not fill (it gives {given}); fix the text"
        ) from None
    except (IndexError, ValueError) as exc:
        raise CatalogueError(
            f"{path_for(lang, slug)}: {key} has a broken placeholder ({exc}); "
            "write slots as {name}, and braces as {{ }}"
        ) from None
