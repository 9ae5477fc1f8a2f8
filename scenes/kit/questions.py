"""Checkpoint questions: asked at the end of a chapter, answered by pe_math.

A chapter's catalogue holds the words of its questions under `[ask.<id>]`: a `prompt`,
for a multiple choice its `choices`, and a `reason` shown with the answer. Their
`{q.<name>}` slots are filled from the answer key below, worked out at the knobs the
lesson was rendered with, so when a knob changes the right answer changes with it.
"""

from __future__ import annotations

import math
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np

import pe_math as pm
from pe_math import Params
from scenes.kit.catalogue import CatalogueError, catalogue, path_for

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


def _closer(p: Params) -> Key:
    """Which of two positions has the code nearer (by cosine) to position 0's."""
    near, far = 1, min(6, p.max_len - 1)
    table = pm.sinusoidal([0, near, far], p.d_model, p.base, layout=p.layout, variant=p.variant)
    a, b = pm.cosine(table[0], table[1]), pm.cosine(table[0], table[2])
    answer = 2 if math.isclose(a, b, abs_tol=1e-9) else (0 if a > b else 1)
    slots = {"d": p.d_model, "near": near, "far": far, "cos_near": a, "cos_far": b}
    return Key(CHOICE, answer, slots=slots)


def _codes(p: Params) -> Key:
    return Key(NUMBER, 2**p.n_bits, slots={"bits": p.n_bits})


def _slowest(p: Params) -> Key:
    period = float(pm.periods(p.d_model, p.base, p.variant)[-1])
    return Key(
        NUMBER,
        period,
        tolerance=0.01 * period,  # one percent: read off the clock, not to the last digit
        slots={"d": p.d_model, "base": p.base, "period": period},
    )


def _shift(p: Params) -> Key:
    m, n = p.rope_m, p.rope_n
    return Key(NUMBER, n - m, slots={"m": m, "n": n, "gap": n - m})


def _interpolated(p: Params) -> Key:
    """The position Position Interpolation reads the target length as: every pair's angle
    there over its angle per position as trained."""
    factor = p.target_len / p.train_len
    plain, _ = pm.rope_frequencies(p.rope_head_dim, p.rope_base)
    scaled, _ = pm.rope_frequencies(
        p.rope_head_dim, p.rope_base, {"rope_type": "linear", "factor": factor}
    )
    read = round(float(p.target_len * scaled[0] / plain[0]), 6)  # a whole position
    return Key(NUMBER, read, slots={"train": p.train_len, "target": p.target_len, "read": read})


# chapter -> question id -> its answer key (the catalogue holds the words)
KEYS: dict[str, dict[str, Callable[[Params], Key]]] = {
    "binary-bits": {"codes": _codes},
    "clock-hands": {"slowest": _slowest},
    "similarity": {"closer": _closer},
    "rope-rotation": {"shift": _shift},
    "long-context": {"interpolated": _interpolated},
}


def questions(slug: str, lang: str, params: Params | None = None) -> list[Question]:
    """The chapter's questions in `lang`, their answers at `params` (the defaults if None)."""
    if slug not in KEYS:
        return []
    params = params or Params()
    asked = catalogue(lang, slug).get("ask", {})
    out = []
    for qid, key_of in KEYS.get(slug, {}).items():
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
