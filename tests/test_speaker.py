"""The number speaker: what a slot's value becomes in each language."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lesson.speaker import speaker

EN, ZH = speaker("en"), speaker("zh")


@pytest.mark.parametrize(
    ("slot", "value", "en", "zh"),
    [
        ("{:,g}", 1e6, "1 million", "100万"),
        ("{:,g}", 1e8, "100 million", "1亿"),
        ("{:.3g}", 1.5e9, "1.5 billion", "15亿"),
        ("{:.3g}", 12345.0, "12,300", "1.23万"),
        ("{:g}", 2.3e-5, "0.000023", "0.000023"),
        ("{:,.0f}", 47117.3, "47,117", "47,117"),
        ("{:.1f}", 0.04, "less than 0.1", "不到 0.1"),
        ("{:.2f}", -0.001, "just below 0", "略低于 0"),
        ("{:.2f}", 0.0, "0", "0"),
        ("{:.2f}", -0.0, "0", "0"),
        ("{:.2f}", 1.234, "1.23", "1.23"),
    ],
)
def test_a_value_is_said_without_notation_or_a_false_zero(slot, value, en, zh):
    assert (EN.format(slot, value), ZH.format(slot, value)) == (en, zh)


@pytest.mark.parametrize(
    ("slot", "value", "said"),
    [
        ("{:pair turns|pairs turn}", 1, "1 pair turns"),
        ("{:pair turns|pairs turn}", 46, "46 pairs turn"),
        ("{:no pair turns|pair turns|pairs turn}", 0, "no pair turns"),
        ("{:.0f|degree|degrees}", 1.2, "1 degree"),
        ("{:.0f|degree|degrees}", 12.0, "12 degrees"),
        ("{:.0f|degree|degrees}", 0.2, "less than 1 degree"),
        ("{:.1f|degree|degrees}", 0.01, "less than 0.1 degrees"),
        ("{:,g|position|positions}", 2e6, "2 million positions"),
    ],
)
def test_a_count_agrees_with_its_noun(slot, value, said):
    assert EN.format(slot, value) == said


def test_a_value_that_cannot_be_said_is_an_error_not_a_word():
    with pytest.raises(ValueError, match="non-finite"):
        EN.format("{:.2f}", float("nan"))


@given(
    st.floats(min_value=-1e12, max_value=1e12, allow_nan=False),
    st.sampled_from(["", "g", ",g", ".3g", ".2g", ".0f", ".1f", ".2f", ",.0f"]),
    st.sampled_from(["en", "zh"]),
)
def test_no_value_reaches_speech_in_scientific_notation_or_as_a_rounded_zero(value, spec, lang):
    said = speaker(lang).format("{:" + spec + "}", value)
    assert "e+" not in said and "e-" not in said and "inf" not in said
    if value != 0 and said.lstrip("-").replace("0", "").strip(".") == "":
        pytest.fail(f"{value!r} said as {said!r}")


def test_a_chinese_bound_joins_the_word_before_it():
    assert ZH.format("只转了 {:.0f} 度", 0.3) == "只转了不到 1 度"
    assert ZH.format("只转了 {:.0f} 度", 3.0) == "只转了 3 度"
