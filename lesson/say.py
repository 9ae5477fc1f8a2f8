"""The narration lines of a scene at given knobs.

A `[say]` line may depend on the numbers: its `{n.field}` slots are filled from the
scene's `numbers(params)`, and a line written as an inline table of alternatives is the
one that `numbers().lines[beat]` names. So what the voice says follows the knobs the way
the screen does.

A sentence may start with a cue marker, `@name`: the scene plays what it shows for that
sentence as the sentence is spoken (`LessonScene.while_saying`). Markers are neither
spoken nor shown; each language places them on its own sentences.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lesson import registry
from lesson.catalogue import CatalogueError, catalogue, path_for
from lesson.catalogue import node as catalogue_node
from lesson.speaker import speaker
from lesson.text_layout import sentences
from pe_math import Params

MARKER = re.compile(r"@([a-z][a-z0-9_]*) ?")


@functools.lru_cache(maxsize=64)
def numbers_for(slug: str, params: Params) -> Any:
    """The registered scene's numbers() at `params` (kept: narration asks once per beat)."""
    return registry.get(slug).load().numbers(params)


def line(lang: str, slug: str, key: str, params: Params | None = None) -> str:
    """The narration line of one beat at `params` (the lesson's defaults if None)."""
    return fill(lang, slug, key, lambda: numbers_for(slug, params or Params()))


def lines(slug: str, lang: str, params: Params | None = None) -> dict[str, str]:
    """Beat key → narration line at `params`, in the catalogue's order."""
    say = catalogue(lang, slug).get("say", {})
    return {key: line(lang, slug, key, params) for key in say}


def fill(lang: str, slug: str, key: str, numbers: Callable[[], Any]) -> str:
    """Beat `key`'s line, its alternative chosen and slots filled from `numbers()`,
    which is asked only when the line needs it; without its cue markers."""
    return MARKER.sub("", marked(lang, slug, key, numbers))


def cues(lang: str, slug: str, key: str, numbers: Callable[[], Any]) -> dict[str, Cue]:
    """Cue name -> where its marker sits in beat `key`'s line: which sentence, and how
    far into it (the share of the sentence's characters before the marker)."""
    found: dict[str, Cue] = {}
    for index, sentence in enumerate(sentences(marked(lang, slug, key, numbers), lang)):
        plain = MARKER.sub("", sentence)
        removed = 0
        for mark in MARKER.finditer(sentence):
            name = mark.group(1)
            if name in found:
                raise CatalogueError(
                    f"{path_for(lang, slug)}: say.{key} marks @{name} twice; keep one"
                )
            found[name] = Cue(index, (mark.start() - removed) / max(len(plain), 1))
            removed += len(mark.group(0))
    return found


@dataclass(frozen=True, order=True)
class Cue:
    sentence: int
    share: float  # how far into the sentence, 0 at its start

    def at(self, spans) -> float | None:
        """Its time inside the beat, given [start, end] of each sentence (None if unknown)."""
        if self.sentence >= len(spans):
            return None
        start, end = spans[self.sentence]
        return start + self.share * (end - start)


def marked(lang: str, slug: str, key: str, numbers: Callable[[], Any]) -> str:
    """Beat `key`'s line as `fill` makes it, with its cue markers still in."""
    where = f"{path_for(lang, slug)}: say.{key}"
    node = catalogue_node(lang, slug, f"say.{key}")
    n = None
    if isinstance(node, dict):
        n = numbers()
        choice = getattr(n, "lines", {}).get(key)
        if choice not in node:
            raise CatalogueError(
                f"{where} has the alternatives {', '.join(sorted(node))}, but the scene's "
                f"numbers choose {choice!r}; give the line one alternative per choice"
            )
        node = node[choice]
    if not isinstance(node, str):
        raise CatalogueError(f"{where} must be text or a table of texts")
    try:
        if "{" not in node and "}" not in node:
            return node
        if not any(name for _, name, _, _ in string.Formatter().parse(node)):
            return node.format()  # only {{ }} braces
        return speaker(lang).format(node, n=n if n is not None else numbers())
    except (KeyError, IndexError) as exc:
        raise CatalogueError(
            f"{where} has the slot {{{exc.args[0]}}}; a spoken slot is written {{n.<field>}}, "
            "a field of the scene's numbers()"
        ) from None
    except AttributeError as exc:
        raise CatalogueError(f"{where}: {exc.args[0]}; fix the slot's name") from None
    except ValueError as exc:
        raise CatalogueError(
            f"{where} has a broken slot ({exc}); write slots as {{n.field}}, and braces as {{{{ }}}}"
        ) from None
