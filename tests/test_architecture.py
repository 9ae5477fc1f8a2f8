"""The shape of the code: rooms that import downwards only, and no cycles."""

import ast
from pathlib import Path

from rendering.core import keys

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("rendering", "scenes", "pe_math")


def project_modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = path
    return out


def import_graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports at run time (lazy imports included)."""
    modules = project_modules()
    graph = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        graph[name] = {m for m in keys._imports(path, package) if m in modules and m != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_one_that_imports_it_back():
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


# rendering reaches a chapter only through the registry (scenes), never by its module
SCENES = {"scenes", "scenes.kit"}
# rooms and the rooms they may import from: each layer only looks down; the most
# specific room first
ALLOWED = {
    # the support code; it asks the registry for a scene by slug (a scene's numbers, the
    # next chapter's title), never a chapter's module
    "scenes.kit": {"scenes"},
    "scenes.chapters": SCENES,
    "scenes": {"scenes.kit"},  # the registry and the lesson's cards
    "rendering.core": SCENES,
    "rendering.speech": {"rendering.core"} | SCENES,
    "rendering.draw": {"rendering.core", "rendering.speech"} | SCENES,
    "rendering.run": {"rendering.core", "rendering.speech", "rendering.draw"} | SCENES,
    "rendering.publish": {"rendering.core", "rendering.speech"} | SCENES,
    "rendering.cli": {f"rendering.{r}" for r in ("core", "speech", "draw", "run", "publish")}
    | SCENES,
}


def room(module: str) -> str | None:
    return next((r for r in ALLOWED if module == r or module.startswith(r + ".")), None)


def test_rooms_are_matched_most_specific_first():
    assert room("scenes.kit.base") == "scenes.kit"
    assert room("scenes.chapters.clock_hands.scene") == "scenes.chapters"
    assert room("scenes") == room("scenes.lesson_cards") == "scenes"
    assert room("rendering.cli.new_cmd") == "rendering.cli" and room("pe_math") is None


def test_each_room_imports_only_the_rooms_below_it():
    wrong = []
    for module, imports in import_graph().items():
        mine = room(module)
        for other in imports:
            theirs = room(other)
            if mine and theirs and theirs != mine and theirs not in ALLOWED[mine]:
                wrong.append(f"{module} -> {other}")
    assert wrong == []


def test_scenes_never_import_rendering():
    wrong = [
        f"{module} -> {other}"
        for module, imports in import_graph().items()
        if module.split(".")[0] == "scenes"
        for other in imports
        if other.split(".")[0] == "rendering"
    ]
    assert wrong == []


def test_pe_math_imports_neither_manim_nor_the_rest_of_the_project():
    for path in (ROOT / "pe_math").rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        for banned in ("manim", "scenes", "rendering"):
            assert f"import {banned}" not in source and f"from {banned}" not in source, path


def shape_questions(source: str) -> list[int]:
    """Lines that compare `self.shape` to something (==, !=, in), ternaries included."""

    def is_shape(node: ast.AST) -> bool:
        return (
            isinstance(node, ast.Attribute)
            and node.attr == "shape"
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        )

    return sorted(
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Compare) and any(map(is_shape, [node.left, *node.comparators]))
    )


def test_chapters_read_their_layout_from_one_table_not_from_shape_tests():
    """A scene says where its groups go per frame shape in its LAYOUTS and reads
    `self.layout`; only the shared stage helpers of the base scene ask the shape."""
    asking = {
        str(path.relative_to(ROOT)): lines
        for path in (ROOT / "scenes").rglob("*.py")
        if path.name != "base.py" and (lines := shape_questions(path.read_text(encoding="utf-8")))
    }
    assert asking == {}


def test_the_shape_test_finder_finds_each_spelling():
    source = """
class S:
    def f(self):
        a = 1 if self.shape == "wide" else 2
        if "tall" != self.shape:
            pass
        b = self.shape in ("wide", "square")
        c = self.layout.wide == 1
        d = {"wide": 1}[self.shape]
"""
    assert shape_questions(source) == [4, 5, 7]
