"""The words of the lesson: one catalogue per language, one TOML file per scene.

`scenes/captions/<lang>/<slug>.toml` holds a scene's `title`, `takeaway`, its
on-screen labels under `[ui]` and its narration beats under `[say]`.
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

LANGS = ("zh", "en")
COMMON = "common"  # the catalogue of words several scenes share
ROOT = Path(__file__).resolve().parent / "captions"
ROOTS: list[Path] = [ROOT]  # scene plugins may add their own catalogue folders


def add_root(folder: Path) -> None:
    """Let a scene plugin keep its catalogues beside its code."""
    if folder not in ROOTS:
        ROOTS.append(folder)
        catalogue.cache_clear()


def path_for(lang: str, slug: str) -> Path:
    """The catalogue file of a scene (the first root that has one)."""
    for root in ROOTS:
        if (root / lang / f"{slug}.toml").exists():
            return root / lang / f"{slug}.toml"
    return ROOT / lang / f"{slug}.toml"


class CatalogueError(KeyError):
    """A caption or label is missing from a language's catalogue."""

    def __str__(self) -> str:
        return str(self.args[0])


@cache
def catalogue(lang: str, slug: str) -> dict:
    """The parsed catalogue of one scene in one language."""
    if lang not in LANGS:
        raise CatalogueError(f"language {lang!r} is not available; use one of {', '.join(LANGS)}")
    path = path_for(lang, slug)
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CatalogueError(
            f"no {lang} catalogue for scene {slug!r}: add {path.name} under scenes/captions/{lang}/"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise CatalogueError(f"{path} is not valid TOML ({exc}); fix the syntax") from None


def node(lang: str, slug: str, key: str) -> object:
    """What a dotted key such as 'ui.swap' holds: text, or a table."""
    found: object = catalogue(lang, slug)
    for part in key.split("."):
        if not isinstance(found, dict) or part not in found:
            raise CatalogueError(
                f"{lang}/{slug}.toml has no {key!r}; add it to both zh and en catalogues"
            )
        found = found[part]
    return found


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
