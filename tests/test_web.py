"""The pages share one head and the lesson's palette; the publish modules import no cycle."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from lesson.palette import PALETTE
from rendering.core.manifest import Manifest
from rendering.publish import explorer, gallery, presenter, web
from scenes.kit import theme

PUBLISH = Path(web.__file__).parent


def _pages(folder: Path) -> dict[str, str]:
    manifest = Manifest(folder)
    manifest.data.update({"lang": "zh", "quality": "l", "aspect": "16:9"})
    return {
        "gallery": gallery.render_html(manifest),
        "present": presenter.render_html(folder, manifest),
        "explore": explorer.render_html({"schema": explorer.SCHEMA}, "zh"),
    }


def _custom_properties(page: str) -> dict[str, str]:
    """The --name: value pairs of every :root rule, later rules winning."""
    found: dict[str, str] = {}
    for rule in re.findall(r":root\s*\{([^}]*)\}", page):
        found |= dict(re.findall(r"--([\w-]+)\s*:\s*([^;]+);", rule))
    return found


def test_the_theme_reads_the_palette():
    pairs = {
        "background": theme.BACKGROUND,
        "foreground": theme.FOREGROUND,
        "muted": theme.MUTED,
        "accent": theme.ACCENT,
        "word_a": theme.WORD_A,
        "word_b": theme.WORD_B,
        "word_c": theme.WORD_C,
        "positive": theme.POSITIVE,
        "negative": theme.NEGATIVE,
        "neutral": theme.NEUTRAL,
        "violet": theme.VIOLET,
        "pink": theme.PINK,
    }
    assert pairs.keys() == PALETTE.keys()
    for name, color in pairs.items():
        assert color.to_hex().lower() == PALETTE[name], name


def test_every_page_carries_the_scenes_palette(tmp_path):
    scene = {
        "fg": theme.FOREGROUND,
        "muted": theme.MUTED,
        "accent": theme.ACCENT,
        "line": theme.NEUTRAL,
    }
    for name, page in _pages(tmp_path).items():
        props = _custom_properties(page)
        for prop, color in scene.items():
            assert props[prop] == color.to_hex().lower(), (name, prop)
        expected_bg = presenter.BACKDROP if name == "present" else theme.BACKGROUND.to_hex().lower()
        assert props["bg"] == expected_bg, name
        assert props.keys() == web.COLORS.keys(), name


def test_pages_start_with_the_shared_head_and_repeat_no_palette_colour(tmp_path):
    titles = {
        "gallery": f"pe-explainer · zh · {tmp_path.name}",
        "present": f"pe-explainer · {tmp_path.name} · present",
        "explore": explorer.UI["zh"]["title"],
    }
    for name, page in _pages(tmp_path).items():
        colors = {"bg": presenter.BACKDROP} if name == "present" else {}
        shared = web.head("zh", titles[name], **colors)
        assert page.startswith(shared + "\n<style>"), name
        rest = page[len(shared) :].lower()
        assert page.count(":root") == 1, name
        for hex_color in {*PALETTE.values(), *web.COLORS.values()}:
            assert hex_color not in rest, (name, hex_color)
        assert "{{" not in page, name


def test_head_escapes_and_refuses_unknown_colours():
    text = web.head('zh"><x', "<b>&")
    assert '<html lang="zh&quot;&gt;&lt;x">' in text
    assert "<title>&lt;b&gt;&amp;</title>" in text
    with pytest.raises(ValueError, match="no page colour named nope"):
        web.root_css(nope="#fff")


def test_json_for_script_cannot_close_the_script():
    data = {"a": "</script><!--&", "b": ["中文", 1.5]}
    text = web.json_for_script(data)
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == data


def _publish_imports() -> dict[str, set[str]]:
    """Each rendering.publish module -> the publish modules it imports, at any depth in it."""
    names = {p.stem for p in PUBLISH.glob("*.py") if p.stem != "__init__"}
    graph: dict[str, set[str]] = {}
    for name in names:
        tree = ast.parse((PUBLISH / f"{name}.py").read_text(encoding="utf-8"))
        found = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                if node.module == "rendering.publish":
                    found |= {a.name for a in node.names}
                elif node.module.startswith("rendering.publish."):
                    found.add(node.module.rpartition(".")[2])
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("rendering.publish."):
                        found.add(alias.name.rpartition(".")[2])
        graph[name] = found & names
    return graph


def test_publish_modules_import_no_cycle():
    graph = _publish_imports()
    assert graph["web"] == set()
    assert "gallery" not in graph["presenter"] | graph["explorer"]
    assert {"presenter", "explorer", "web"} <= graph["gallery"]
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, " → ".join((*path, name))
        if name in done:
            return
        for other in graph[name]:
            visit(other, (*path, name))
        done.add(name)

    for name in graph:
        visit(name, ())
