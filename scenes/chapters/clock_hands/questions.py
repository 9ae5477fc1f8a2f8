"""clock-hands' checkpoint: the slowest hand's lap, read off the clock."""

from __future__ import annotations

import pe_math as pm
from lesson.questions import NUMBER, Key
from pe_math import Params


def slowest(p: Params) -> Key:
    period = float(pm.periods(p.d_model, p.base, p.variant)[-1])
    return Key(
        NUMBER,
        period,
        tolerance=0.01 * period,  # one percent: read off the clock, not to the last digit
        slots={"d": p.d_model, "base": p.base, "period": period},
    )


KEYS = {"slowest": slowest}
