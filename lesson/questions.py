"""Checkpoint questions: asked at the end of a chapter, answered by pe_math.

A chapter's catalogue holds the words of its questions under `[ask.<id>]`: a `prompt`,
for a multiple choice its `choices`, and a `reason` shown with the answer. Their
`{q.<name>}` slots are filled from the answer key below, worked out at the knobs the
lesson was rendered with, so when a knob changes the right answer changes with it.
Each chapter's keys live in its own folder, `scenes/chapters/<slug>/questions.py`.
"""

from __future__ import annotations

import importlib
import importlib.util
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np

from lesson import registry
from lesson.catalogue import CatalogueError, catalogue, path_for
from pe_math import Params

CHOICE, NUMBER = "choice", "number"


@dataclass(frozen=True)
class Key:
    """What pe_math says: the kind, the right answer (a choice's index, or a number),
    how far a number may be off, and the values the words name."""

    kind: str
    answer: float
    tolerance: float = 0.0
    slots: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Question:
    slug: str
    id: str
    kind: str
    prompt: str
    choices: tuple[str, ...]
    answer: float  # the right choice's index, or the number
    tolerance: float
    reason: str

    @property
    def answer_text(self) -> str:
        """The answer as the key shows it: the right choice, or the number (about it,
        when a tolerance allows some error)."""
        if self.kind == CHOICE:
            return self.choices[int(self.answer)]
        shown = _shown(self.answer)
        return f"≈ {shown}" if self.tolerance else str(shown)

    def right(self, given: float) -> bool:
        if self.kind == CHOICE:
            return given == self.answer
        return abs(float(given) - self.answer) <= self.tolerance + 1e-9


# slug -> question id -> its answer key, as each chapter's folder holds them in its
# questions.py (KEYS); a plugin scene's keys are added here by hand
KEYS: dict[str, dict[str, Callable[[Params], Key]]] = {}


def keys_of(slug: str) -> dict[str, Callable[[Params], Key]]:
    """The answer keys of `slug`'s questions: its folder's questions.py (none without one)."""
    if slug not in KEYS:
        info = registry.REGISTRY.get(slug)
        module = f"{info.module.rpartition('.')[0]}.questions" if info else ""
        found = module.startswith("scenes.chapters.") and importlib.util.find_spec(module)
        KEYS[slug] = importlib.import_module(module).KEYS if found else {}
    return KEYS[slug]


def questions(slug: str, lang: str, params: Params | None = None) -> list[Question]:
    """The chapter's questions in `lang`, their answers at `params` (the defaults if None)."""
    keys = keys_of(slug)
    if not keys:
        return []
    params = params or Params()
    asked = catalogue(lang, slug).get("ask", {})
    out = []
    for qid, key_of in keys.items():
        words = asked.get(qid)
        where = f"{path_for(lang, slug)}: ask.{qid}"
        if not isinstance(words, dict) or "prompt" not in words or "reason" not in words:
            raise CatalogueError(f"{where} needs a prompt and a reason")
        key = key_of(params)
        q = SimpleNamespace(**{k: _shown(v) for k, v in key.slots.items()})
        choices = tuple(_fill(c, q, where) for c in words.get("choices", ()))
        if key.kind == CHOICE and not 0 <= key.answer < len(choices):
            raise CatalogueError(f"{where} needs {int(key.answer) + 1} or more choices")
        out.append(
            Question(
                slug,
                qid,
                key.kind,
                _fill(words["prompt"], q, where),
                choices,
                float(key.answer),
                float(key.tolerance),
                _fill(words["reason"], q, where),
            )
        )
    return out


def _shown(value):
    """A number as the words show it: whole numbers plainly, others to 3 significant digits."""
    if isinstance(value, float | np.floating) and not float(value).is_integer():
        return f"{float(value):,.3g}" if abs(value) < 1000 else f"{float(value):,.0f}"
    if isinstance(value, float | np.floating):
        return f"{int(value):,}"
    return value


def _fill(text: str, q: SimpleNamespace, where: str) -> str:
    if not any(name for _, name, _, _ in string.Formatter().parse(text)):
        return text
    try:
        return text.format(q=q)
    except (AttributeError, KeyError, IndexError, ValueError) as exc:
        raise CatalogueError(
            f"{where} has a slot it cannot fill ({exc}); write slots as {{q.<name>}}"
        ) from None
