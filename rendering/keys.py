"""Cache keys: a hash of everything a job's output depends on."""

from __future__ import annotations

import ast
import hashlib
import importlib.metadata
import importlib.util
from functools import cache
from pathlib import Path

PROJECT_PACKAGES = ("scenes", "pe_math")
ROOT = Path(__file__).resolve().parent.parent


@cache
def manim_version() -> str:
    return importlib.metadata.version("manim")


def _origin(module: str) -> Path | None:
    parts = module.split(".")
    if parts[0] in PROJECT_PACKAGES:
        # by path, not find_spec: finding "scenes.base.LessonScene" would import
        # scenes.base, and with it Manim, only to learn it is not a module
        base = ROOT.joinpath(*parts)
        for path in (base.with_suffix(".py"), base / "__init__.py"):
            if path.is_file():
                return path
        return None
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    return Path(spec.origin) if spec is not None and spec.origin else None


@cache  # every scene's closure shares pe_math and scenes.base: parse each file once
def _imports(path: Path, package: str) -> frozenset[str]:
    """Project modules named by the import statements of one file."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolve against the importing package
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return frozenset(n for n in names if n.split(".")[0] in PROJECT_PACKAGES)


@cache
def module_closure(module: str) -> tuple[Path, ...]:
    """The source files of `module` and every project module it imports, transitively."""
    seen: dict[str, Path] = {}
    todo = [module]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        path = _origin(name)
        if path is None or path.suffix != ".py":
            continue
        seen[name] = path
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        parents = [".".join(name.split(".")[:i]) for i in range(1, len(name.split(".")))]
        todo.extend(_imports(path, package) | set(parents))
    return tuple(sorted(set(seen.values())))


def code_hash(module: str, extra_files: tuple[Path, ...] = ()) -> str:
    """Hash of the scene's source, the project code it imports and extra inputs (catalogues)."""
    return files_hash(tuple(set(module_closure(module)) | set(extra_files)))


def files_hash(files: tuple[Path, ...]) -> str:
    """Hash of some files' project-relative names and contents."""
    h = hashlib.sha256()
    for path in sorted(set(files)):
        rel = path.resolve().relative_to(ROOT) if path.resolve().is_relative_to(ROOT) else path.name
        h.update(str(rel).encode())
        h.update(path.read_bytes() if path.exists() else b"<missing>")
    return h.hexdigest()[:16]
