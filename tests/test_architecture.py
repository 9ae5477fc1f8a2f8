"""The shape of the code: rooms that import downwards only, and no cycles."""

import ast
import os
import subprocess
import sys
from pathlib import Path

from rendering.core import keys

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("rendering", "scenes", "lesson", "pe_math")


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


# rooms and the rooms they may import from (pe_math, below them all, is open to each):
# each layer only looks down, and no two rooms import each other; the most specific first
ALLOWED = {
    "lesson": set(),  # the words and the registry: no Manim, no pictures
    "scenes.kit": {"lesson"},
    "scenes.chapters": {"scenes.kit", "lesson"},
    "scenes": {"scenes.kit", "lesson"},  # the lesson's opening and closing cards
    "rendering.core": {"lesson"},
    "rendering.speech": {"rendering.core", "lesson"},
    # only here does rendering reach the pictures: a scene's class, through the registry
    "rendering.draw": {"rendering.core", "rendering.speech", "lesson", "scenes.kit"},
    "rendering.run": {"rendering.core", "rendering.speech", "rendering.draw", "lesson"},
    "rendering.publish": {"rendering.core", "rendering.speech", "lesson"},
    "rendering.cli": {f"rendering.{r}" for r in ("core", "speech", "draw", "run", "publish")}
    | {"lesson"},
}


def room(module: str) -> str | None:
    return next((r for r in ALLOWED if module == r or module.startswith(r + ".")), None)


def test_rooms_are_matched_most_specific_first():
    assert room("scenes.kit.base") == "scenes.kit"
    assert room("scenes.chapters.clock_hands.scene") == "scenes.chapters"
    assert room("scenes") == room("scenes.lesson_cards") == "scenes"
    assert room("lesson.registry") == "lesson" and room("lesson") == "lesson"
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


def named_modules(path: Path) -> set[str]:
    """The project modules a file names in a string, e.g. "rendering.run.scheduler"."""
    modules = project_modules()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value in modules
        and "." in node.value
    }


# the registry is where a slug becomes the name of its scene's module (only draw imports it)
NAMED_AS_DATA = {("lesson.registry", "scenes.lesson_cards")}


def test_no_room_names_a_room_above_it_even_as_a_string():
    wrong = [
        f"{module} names {other}"
        for module, path in project_modules().items()
        for other in named_modules(path)
        if (mine := room(module))
        and room(other) not in (None, mine, *ALLOWED[mine])
        and (module, other) not in NAMED_AS_DATA
    ]
    assert wrong == []


def test_a_module_named_in_a_string_is_found():
    assert named_modules(ROOT / "lesson" / "registry.py") == {"scenes.lesson_cards"}


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


def test_the_lesson_and_the_command_line_load_without_manim():
    """Every module of lesson/, and the command line as it starts, run without Manim:
    listing the lesson or reading its words never loads the drawing."""
    lesson = sorted(m for m in project_modules() if m.split(".")[0] == "lesson")
    code = (
        "import importlib, sys\n"
        f"for name in {lesson!r} + ['rendering.cli']:\n"
        "    importlib.import_module(name)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('manim', 'scenes')))"
    )
    env = {k: v for k, v in os.environ.items() if k != "PE_SCENE_PLUGINS"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def shape_questions(source: str) -> list[int]:
    """Lines that compare `self.stage.shape` to something (==, !=, in), ternaries included."""

    def is_shape(node: ast.AST) -> bool:
        return (
            isinstance(node, ast.Attribute)
            and node.attr == "shape"
            and isinstance(stage := node.value, ast.Attribute)
            and stage.attr == "stage"
            and isinstance(stage.value, ast.Name)
            and stage.value.id == "self"
        )

    return sorted(
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Compare) and any(map(is_shape, [node.left, *node.comparators]))
    )


def test_chapters_read_their_layout_from_one_table_not_from_shape_tests():
    """A scene says where its groups go per frame shape in its LAYOUTS and reads
    `self.stage.layout`; only the kit (the stage and the shared cards) asks the shape."""
    asking = {
        str(path.relative_to(ROOT)): lines
        for path in (ROOT / "scenes").rglob("*.py")
        if path.parent.name != "kit"
        and (lines := shape_questions(path.read_text(encoding="utf-8")))
    }
    assert asking == {}


def test_the_shape_test_finder_finds_each_spelling():
    source = """
class S:
    def f(self):
        a = 1 if self.stage.shape == "wide" else 2
        if "tall" != self.stage.shape:
            pass
        b = self.stage.shape in ("wide", "square")
        c = self.stage.layout.wide == 1
        d = {"wide": 1}[self.stage.shape]
"""
    assert shape_questions(source) == [4, 5, 7]


def test_no_function_outside_the_tests_is_over_80_lines():
    long = [
        f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1})"
        for folder in (*PACKAGES, "bench", "scripts")
        for path in (ROOT / folder).rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno - node.lineno + 1 > 80
    ]
    assert long == []


def test_the_lesson_scene_is_thin():
    tree = ast.parse((ROOT / "scenes" / "kit" / "base.py").read_text(encoding="utf-8"))
    (scene,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "LessonScene"]
    methods = [n for n in scene.body if isinstance(n, ast.FunctionDef)]
    assert len(methods) <= 20, [m.name for m in methods]
