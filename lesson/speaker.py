"""How the lesson says a number, one speaker per language.

A slot is written as in `str.format`, `{n.period:,.0f}`, and the speaker keeps what that
spec means while making the result sayable:
- never scientific notation: 1e+06 is "1 million" in English and "100万" in Chinese, and
  a small value is written out in decimals;
- a value that rounds to nothing is "less than 0.01" (不到 0.01), and an exact zero is 0;
- a count agrees with its noun: `{n:pair turns|pairs turn}` reads "1 pair turns" or
  "46 pairs turn"; a first form for none, `{n:no pair turns|pair turns|pairs turn}`,
  reads 0 as "no pair turns". A measured value takes a format first,
  `{n.deg:.0f|degree|degrees}`: "1 degree", "12 degrees", "less than 1 degree".
The same speaker fills the words on screen, so a number reads alike on screen, in speech
and in captions.
"""

from __future__ import annotations

import math
import re
import string

FORMAT_SPEC = re.compile(r"^[<>=^+\- #0]*\d*[,_]?(\.\d+)?[dfFgGn%]?$")
# a number as written on screen or in a line: 12, −0.37, 1,024, 50%
WRITTEN_NUMBER = re.compile(r"[−-]?\d+(?:[.,]\d+)*%?")
EN_SCALES = ((1e12, "trillion"), (1e9, "billion"), (1e6, "million"))
ZH_SCALES = ((1e8, "亿"), (1e4, "万"))


class Speaker(string.Formatter):
    """`str.format` that says numbers the lesson's way in one language."""

    def __init__(self, lang: str) -> None:
        super().__init__()
        self.lang = lang

    def vformat(self, format_string, args, kwargs) -> str:
        text = super().vformat(format_string, args, kwargs)
        if self.lang == "zh":  # 只转了 不到 1 度 → 只转了不到 1 度: the bound joins its verb
            text = re.sub(r"(?<=[\u4e00-\u9fff]) (不到|略低于) ", r"\1 ", text)
        return text

    def format_field(self, value: object, spec: str) -> str:
        forms = spec.split("|")
        if len(forms) in (2, 3) and is_number(value):
            if FORMAT_SPEC.match(forms[0]) and len(forms) == 3:
                said = self.number(value, forms[0])
                return f"{said} {forms[1] if said.split()[-1] == '1' else forms[2]}"
            if isinstance(value, int):
                if value == 0 and len(forms) == 3:
                    return forms[0]
                return f"{self.number(value, '')} {forms[-2] if value == 1 else forms[-1]}"
        if is_number(value):
            return self.number(value, spec)
        return super().format_field(value, spec)

    def number(self, value: float, spec: str) -> str:
        """`value` formatted by `spec`, as it is said."""
        if not math.isfinite(value):
            raise ValueError(f"{value} cannot be said; the numbers gave a non-finite value")
        text = format(value, spec)
        if "e" in text.lower() and "e" not in spec.lower():
            return self.large(value, spec) if abs(value) >= 1 else self.small(value, spec)
        if value != 0 and float(text.replace(",", "").rstrip("%")) == 0:
            return self.below(text, value)
        if re.fullmatch(r"-?0(\.0*)?", text.replace(",", "")):
            return "0"
        return text

    def large(self, value: float, spec: str) -> str:
        """A big value with its scale word, at the precision `spec` asked for."""
        digits = significant(spec)
        for size, word in EN_SCALES if self.lang == "en" else ZH_SCALES:
            if abs(value) >= size:
                head = f"{round_to(value / size, digits):,g}"
                return f"{head} {word}" if self.lang == "en" else f"{head}{word}"
        return f"{round_to(value, digits):,.0f}"

    def small(self, value: float, spec: str) -> str:
        """A tiny value written out in decimals, to the precision `spec` asked for."""
        digits = significant(spec)
        places = digits - 1 - math.floor(math.log10(abs(value)))
        text = f"{value:.{places}f}"
        return text.rstrip("0") if "#" not in spec else text

    def below(self, text: str, value: float) -> str:
        """A value that rounds to nothing at this precision: less than its last digit."""
        decimals = len(text.split(".")[1].rstrip("%")) if "." in text else 0
        least = f"{10.0**-decimals:.{decimals}f}"
        if value > 0:
            return f"less than {least}" if self.lang == "en" else f"不到 {least}"
        return "just below 0" if self.lang == "en" else "略低于 0"


def is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def significant(spec: str) -> int:
    """How many significant digits a `g`-style spec keeps (6, as Python's, when unsaid)."""
    match = re.search(r"\.(\d+)", spec)
    return max(int(match.group(1)), 1) if match else 6


def round_to(value: float, digits: int) -> float:
    if value == 0:
        return 0.0
    return round(value, digits - 1 - math.floor(math.log10(abs(value))))


SPEAKERS = {"en": Speaker("en"), "zh": Speaker("zh")}


def speaker(lang: str) -> Speaker:
    """The speaker of `lang` (English's for a language the lesson has no speaker for)."""
    return SPEAKERS.get(lang, SPEAKERS["en"])
