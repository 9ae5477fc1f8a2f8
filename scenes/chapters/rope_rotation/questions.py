"""rope-rotation's checkpoint: what RoPE's score sees of two positions."""

from __future__ import annotations

from lesson.questions import NUMBER, Key
from pe_math import Params


def shift(p: Params) -> Key:
    m, n = p.rope_m, p.rope_n
    return Key(NUMBER, n - m, slots={"m": m, "n": n, "gap": n - m})


KEYS = {"shift": shift}
