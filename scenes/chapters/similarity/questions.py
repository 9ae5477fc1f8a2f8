"""similarity's checkpoint: which of two positions has the code nearer to position 0's."""

from __future__ import annotations

import math

import pe_math as pm
from lesson.questions import CHOICE, Key
from pe_math import Params


def closer(p: Params) -> Key:
    """Which of two positions has the code nearer (by cosine) to position 0's."""
    near, far = 1, min(6, p.max_len - 1)
    table = pm.sinusoidal([0, near, far], p.d_model, p.base, layout=p.layout, variant=p.variant)
    a, b = pm.cosine(table[0], table[1]), pm.cosine(table[0], table[2])
    answer = 2 if math.isclose(a, b, abs_tol=1e-9) else (0 if a > b else 1)
    slots = {"d": p.d_model, "near": near, "far": far, "cos_near": a, "cos_far": b}
    return Key(CHOICE, answer, slots=slots)


KEYS = {"closer": closer}
