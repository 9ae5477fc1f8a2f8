"""long-context's checkpoint: where Position Interpolation reads the target length."""

from __future__ import annotations

import pe_math as pm
from lesson.questions import NUMBER, Key
from pe_math import Params


def interpolated(p: Params) -> Key:
    """The position Position Interpolation reads the target length as: every pair's angle
    there over its angle per position as trained."""
    factor = p.target_len / p.train_len
    plain, _ = pm.rope_frequencies(p.rope_head_dim, p.rope_base)
    scaled, _ = pm.rope_frequencies(
        p.rope_head_dim, p.rope_base, {"rope_type": "linear", "factor": factor}
    )
    read = round(float(p.target_len * scaled[0] / plain[0]), 6)  # a whole position
    return Key(NUMBER, read, slots={"train": p.train_len, "target": p.target_len, "read": read})


KEYS = {"interpolated": interpolated}
