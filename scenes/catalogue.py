"""The words of the lesson: one catalogue per language, one TOML file per scene.

`scenes/captions/<lang>/<slug>.toml` holds a scene's `title`, `takeaway`, its
on-screen labels under `[ui]` and its narration beats under `[say]`.
"""

from __future__ import annotations

import os
import tomllib
from functools import cache
from pathlib import Path

from scenes.reads import EXISTS, word_read

LANGS = ("zh", "en")
COMMON = "common"  # the catalogue of words several scenes share
ROOT = Path(__file__).resolve().parent / "captions"
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


def path_for(lang: str, slug: str) -> Path:
    """The catalogue file of a scene (the first root that has one)."""
    for root in roots():
        if (root / lang / f"{slug}.toml").exists():
            return root / lang / f"{slug}.toml"
    return ROOT / lang / f"{slug}.toml"


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
            f"no {lang} catalogue for scene {slug!r}: add {path.name} under scenes/captions/{lang}/"
        ) from None
    # as rendering.core.keys stamps files: a write that puts the old time and size back
    # still changes the status-change time
    return _parsed(path, (stamp.st_mtime_ns, stamp.st_ctime_ns, stamp.st_size, stamp.st_ino))


@cache
def _parsed(path: Path, stamp: tuple[int, ...]) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise CatalogueError(f"{path} is not valid TOML ({exc}); fix the syntax") from None


catalogue.cache_clear = _parsed.cache_clear  # type: ignore[attr-defined]


def node(lang: str, slug: str, key: str) -> object:
    """What a dotted key such as 'ui.swap' holds: text, or a table."""
    word_read(lang, slug, key)
    found: object = catalogue(lang, slug)
    for part in key.split("."):
        if not isinstance(found, dict) or part not in found:
            raise CatalogueError(
                f"{lang}/{slug}.toml has no {key!r}; add it to both zh and en catalogues"
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
        raise CatalogueError(f"{lang}/{slug}.toml: {key!r} is a table, not text")
    return text


def fill(lang: str, slug: str, key: str, **values: object) -> str:
    """A dotted key's text with its `{name}` slots filled; a slot the scene does not
    fill is named with its file and key."""
    text = lookup(lang, slug, key)
    if not values:
        return text
    try:
        return text.format(**values)
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
