"""binary-bits' checkpoint: how many codes n bits can tell apart."""

from __future__ import annotations

from lesson.questions import NUMBER, Key
from pe_math import Params


def codes(p: Params) -> Key:
    return Key(NUMBER, 2**p.n_bits, slots={"bits": p.n_bits})


KEYS = {"codes": codes}
