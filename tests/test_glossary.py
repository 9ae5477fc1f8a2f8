"""The Chinese catalogues write one word per idea, as zh/glossary.toml says."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator

from lesson import registry
from lesson.catalogue import GLOSSARY, ROOT, catalogue, shipped
from rendering.publish import explorer

ZH = ROOT / "zh"


def glossary() -> dict[str, dict]:
    return tomllib.loads((ZH / f"{GLOSSARY}.toml").read_text(encoding="utf-8"))


def zh_slugs() -> list[str]:
    return sorted(slug for slug in shipped("zh") if slug != GLOSSARY)


def texts(node: object, key: str = "") -> Iterator[tuple[str, str]]:
    """(dotted key, text) for every text of a catalogue: labels, lines, alternatives, choices."""
    if isinstance(node, dict):
        for name, value in node.items():
            yield from texts(value, f"{key}.{name}" if key else name)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from texts(value, f"{key}[{index}]")
    elif isinstance(node, str):
        yield key, node


def breaches(terms: dict[str, dict], where: str, words: dict) -> list[str]:
    """One line per variant the glossary forbids: where it is, what it is, what to write."""
    found = []
    for key, text in texts(words):
        for term in terms.values():
            for pattern in term["never"]:
                for match in re.finditer(pattern, text):
                    found.append(
                        f"{where}: {key} has “{match.group()}”; write {term['use']} "
                        f"({term['idea']})"
                    )
    return found


def test_every_zh_catalogue_holds_to_the_glossary():
    terms = glossary()
    found = [
        line
        for slug in zh_slugs()
        for line in breaches(terms, f"zh/{slug}.toml", catalogue("zh", slug))
    ]
    # the explorer page's own words too
    found += breaches(terms, "rendering/publish/explorer.py: UI['zh']", explorer.UI["zh"])
    assert not found, "\n".join(found)


def test_a_forbidden_variant_is_named_with_its_file_key_and_fix():
    words = {
        "ui": {"title": "训练表"},
        "say": {"rows": {"one": "第 {n.i} 组不用训练。"}},
        "ask": {"codes": {"choices": ["3 比特"]}},
    }
    assert breaches(glossary(), "zh/probe.toml", words) == [
        "zh/probe.toml: ui.title has “训练表”; write 可学习位置表 (learned position table)",
        "zh/probe.toml: say.rows.one has “不用训练”; write 无须训练 (nothing to train)",
        "zh/probe.toml: say.rows.one has “第 {n.i} 组”; "
        "write 对 (a pair of dimensions (one sin and one cos))",
        "zh/probe.toml: ask.codes.choices[0] has “比特”; write 位 (a bit of the binary code)",
    ]


def test_the_glossary_never_forbids_a_word_it_chooses():
    terms = glossary()
    chosen = [term["use"] for term in terms.values()]
    chosen += [term["also"] for term in terms.values() if "also" in term]
    for name, term in terms.items():
        assert set(term) <= {"idea", "use", "also", "never"}, name
        for pattern in term["never"]:
            hits = [word for word in chosen if re.search(pattern, word)]
            assert not hits, f"glossary [{name}] forbids {pattern!r}, which matches {hits}"


def test_every_chosen_word_is_in_the_lesson():
    everything = "".join(text for slug in zh_slugs() for _, text in texts(catalogue("zh", slug)))
    unused = [term["use"] for term in glossary().values() if term["use"] not in everything]
    assert not unused, f"no zh line uses {unused}"


def test_a_picture_word_is_tied_to_its_term_in_the_first_line_that_says_it():
    # the learner hears 转速 first with 频率 beside it, so the two are one idea
    order = [info.slug for info in registry.ordered() if info.slug in shipped("zh")]
    for name, term in glossary().items():
        if "also" not in term:
            continue
        word = term["also"]
        first = next(s for s in order if any(word in t for _, t in texts(catalogue("zh", s))))
        said = [(k, t) for k, t in texts(catalogue("zh", first).get("say", {})) if word in t]
        assert said, (
            f"zh/{first}.toml shows {word} first but never says it; say it with {term['use']}"
        )
        beat = said[0][0].split(".")[0]
        for key, text in said:
            if key.split(".")[0] == beat:
                assert term["use"] in text, (
                    f"zh/{first}.toml: say.{key} is the first line with {word}; "
                    f"tie it to {term['use']} there ([{name}] in the glossary)"
                )
