"""The reader's checklist: what the voice says and the screen shows never uses the tool's
own words (a card, a knob, a slot, a beat, a render), in any variant of any line, in either
language."""

import re
import tomllib

import pytest

from lesson import registry
from lesson.catalogue import COMMON, path_for

TOOL_WORDS = {
    "en": re.compile(r"\b(cards?|knobs?|slots?|beats?|render(s|ed|ing)?)\b", re.IGNORECASE),
    "zh": re.compile(r"卡片|旋钮|这组参数|渲染"),
}


def every_text(lang: str, slug: str, table: str | None = None) -> dict[str, str]:
    """Every text of `slug`'s catalogue (or of one of its tables), by its dotted key."""
    whole = tomllib.loads(path_for(lang, slug).read_text(encoding="utf-8"))
    said = whole.get(table, {}) if table else whole

    def walk(node, key):
        if isinstance(node, dict):
            for name, value in node.items():
                yield from walk(value, f"{key}.{name}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                yield from walk(value, f"{key}[{index}]")
        elif isinstance(node, str):
            yield key, node

    return dict(walk(said, table or ""))


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("slug", [i.slug for i in registry.ordered()] + [COMMON])
def test_nothing_said_or_shown_names_the_tools_own_words(slug, lang):
    texts = every_text(lang, slug)  # [say] with its variants, and every text on screen
    assert slug == COMMON or any(key.startswith(".say.") for key in texts)
    found = {key: m.group(0) for key, text in texts.items() if (m := TOOL_WORDS[lang].search(text))}
    assert found == {}


def test_the_checklist_finds_the_words_it_looks_for():
    assert TOOL_WORDS["en"].search("the card marks it at these knobs")
    assert not TOOL_WORDS["en"].search("a heartbeat, a cardinal number")
    assert TOOL_WORDS["zh"].search("卡片标出了这组参数下的结果")
