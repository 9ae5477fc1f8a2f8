"""Cache keys: hashes of the code behind an output, found by tracing its imports.

A key covers the source of a module and of every project module it imports, at the top
or inside a function, transitively. Imports under `if TYPE_CHECKING:` are left out: they
never run. A project module that cannot be found is an error, never a silent gap.

Each source is hashed as its syntax tree without the words meant for people: docstrings,
and the text of raised errors and warnings. Rewording a message cannot change a clip's
bytes, so it re-renders nothing; any other edit changes the key.

Parsing every file behind a key costs a process a few tenths of a second, and every
command and worker is a new process. So each file's digest and import statements are
also kept on disk (in the user's cache, or $PE_KEY_CACHE) under the file's stamp: its
change and status-change times, size and inode. Any write to a file, even one that puts
its old time back, changes the status-change time, so a kept value is never used for
a file that has changed since.
"""

from __future__ import annotations

import ast
import ctypes.util
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from string import hexdigits
from typing import Any

from lesson import text_store
from lesson.fonts import FONT
from lesson.sealed import user_cache
from rendering.core import files
from rendering.core.files import atomic_write

PROJECT_PACKAGES = ("scenes", "lesson", "pe_math", "rendering")
ROOT = Path(__file__).resolve().parents[2]
# Calls whose string arguments are messages for people, by the name they are called
# through: (the last name before the method, the method). A drawing helper that happens
# to be called `info` or `error` is none of them, so its words stay in the key.
MESSAGE_CALLS = frozenset(
    {("", "print"), ("warnings", "warn"), ("click", "echo"), ("click", "secho")}
    | {("console", "print"), ("err_console", "print")}
    | {
        (logger, level)
        for logger in ("logging", "log", "logger", "_log", "_logger", "LOG")
        for level in ("debug", "info", "warning", "error", "exception", "critical")
    }
)


class MissingModule(RuntimeError):
    """A project import that names no file: the key would silently stop covering it."""


@cache
def manim_version() -> str:
    return importlib.metadata.version("manim")


@cache
def machine() -> str:
    """The digest of what outside the project sets a clip's pixels and bytes: the font's
    file, ManimPango (text), PyAV and its libav and x264 libraries (encoding)."""
    parts = [font_identity(FONT)]
    parts += [_package_version(p) for p in ("manimpango", "av")]
    parts += _codec_libraries()
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


def font_identity(font: str) -> str:
    """The file a font's name finds here, as its name and size: its time and folder
    differ between machines."""
    file, size, *_ = [*text_store.font_file(font).rsplit(":", 2), "", ""]
    return f"{Path(file).name}:{size}"


def _package_version(name: str) -> str:
    try:
        return f"{name} {importlib.metadata.version(name)}"
    except importlib.metadata.PackageNotFoundError:
        return f"{name} missing"


def _codec_libraries() -> list[str]:
    """The libav and x264 library files PyAV loads (their names carry their versions),
    found without importing it: its wheel bundles them beside it, else the system's."""
    spec = importlib.util.find_spec("av")
    if spec is None or spec.origin is None:
        return ["av missing"]
    bundled = Path(spec.origin).parent.parent / "av.libs"
    names = ("libavcodec", "libavformat", "libavutil", "libswscale", "libx264")
    found = sorted(p.name for p in bundled.glob("lib*") if p.name.startswith(names))
    if found:
        return found
    import av  # linked against the system's libraries: ask it

    system = [ctypes.util.find_library("x264") or "x264 unknown"]
    return [repr(sorted(av.library_versions.items())), *system]


def _origin(module: str, home: Path | None = None) -> Path | None:
    """The file of a module under `home` (default: the project), found by path (finding
    a spec would import parents)."""
    base = (home or ROOT).joinpath(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _is_project(module: str) -> bool:
    return module.split(".")[0] in PROJECT_PACKAGES


def _library_folder(folder: Path) -> bool:
    """Where installed packages or the standard library live (never a plugin's own room)."""
    stdlib = Path(sys.base_prefix).resolve() / "lib"
    return folder.name in ("site-packages", "dist-packages") or folder.is_relative_to(stdlib)


@dataclass(frozen=True)
class _Home:
    """Where the modules a key traces live: the project, and for a scene plugin the
    folder on the import path that holds it, whose modules (its helpers) are traced too,
    or, in a folder of installed packages, only the plugin's own package."""

    folder: Path | None = None
    top: str | None = None  # in a folder of installed packages: the plugin's package

    def base(self, module: str) -> Path | None:
        """The folder `module` is looked for under, when the key traces it."""
        if _is_project(module):
            return ROOT
        if self.folder is None or (self.top and module.split(".")[0] != self.top):
            return None
        found = _origin(module, self.folder) or self.namespace(module)
        return self.folder if found else None

    def namespace(self, module: str) -> bool:
        """Whether `module` is a plugin's folder without an __init__ (it has no code)."""
        if self.folder is None or _is_project(module):
            return False
        folder = self.folder.joinpath(*module.split("."))
        return folder.is_dir() and not (folder / "__init__.py").is_file()

    def origin(self, module: str) -> Path | None:
        base = self.base(module)
        return _origin(module, base) if base else None


PROJECT_HOME = _Home()


def _home_of(module: str) -> _Home:
    """The home of a key traced from `module`: a plugin's folder on the import path."""
    if _is_project(module):
        return PROJECT_HOME
    for entry in sys.path:
        folder = Path(entry or os.getcwd()).resolve()
        if folder == ROOT or not _origin(module, folder):
            continue
        if _library_folder(folder):
            return _Home(folder, module.split(".")[0])
        _named[folder] = folder.name
        return _Home(folder)
    if _origin(module):  # a module of the project's own folder outside its packages
        return _Home(ROOT, module.split(".")[0])
    return PROJECT_HOME


_named: dict[Path, str] = {}  # plugin folders outside the project -> their name in keys


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_nodes(tree: ast.AST):
    """Every node of `tree` except those under `if TYPE_CHECKING:`."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking_only(child):
                todo.extend(child.orelse)
            else:
                todo.append(child)


def _stamp(path: Path) -> tuple[int, ...]:
    """When a file last changed: parsed trees and digests are kept until it does."""
    st = path.stat()
    return st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino


# ----------------------------------------------------------- kept between processes
_kept: dict[str, list] | None = None  # "kind:path" -> [stamp, value, content], as on disk
_new: dict[str, list] = {}  # what this process worked out and has not written yet
_by_content: dict[tuple[str, str], Any] = {}  # (kind, content) -> value, from _indexed
_indexed: dict[str, list] | None = None  # the _kept that _by_content was made from


def _kept_file() -> Path:
    """One file per version of this module and of Python (its values depend on both)."""
    folder = os.environ.get("PE_KEY_CACHE")
    base = Path(folder) if folder else user_cache() / "keys"
    return base / f"sources-{_version()}.json"


@cache
def _version() -> str:
    me = hashlib.sha256(Path(__file__).read_bytes())
    me.update(str(sys.version_info[:2]).encode())
    return me.hexdigest()[:16]


def _read_kept() -> dict[str, list]:
    try:
        kept = files.loads(_kept_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return kept if isinstance(kept, dict) else {}


def _recall(kind: str, path: Path, stamp: tuple[int, ...], valid: Callable[[Any], bool]) -> Any:
    """What was worked out for `path` at this stamp by this or an earlier process, or for
    the same bytes at another path (a fresh copy of the project), or None (also when the
    file holds a value `valid` refuses: it is then worked out again)."""
    global _kept, _by_content, _indexed
    if _kept is None:
        _kept = _read_kept()
    entry = _new.get(f"{kind}:{path}") or _kept.get(f"{kind}:{path}")
    if isinstance(entry, list) and len(entry) in (2, 3) and entry[0] == list(stamp):
        return entry[1] if valid(entry[1]) else None
    if _indexed is not _kept:
        _indexed = _kept
        _by_content = {
            (k.partition(":")[0], v[2]): v[1]
            for k, v in {**_kept, **_new}.items()
            if isinstance(v, list) and len(v) == 3 and isinstance(v[2], str)
        }
    data = path.read_bytes()
    value = _by_content.get((kind, _content(data)))
    if value is None or not valid(value):
        return None
    _keep(kind, path, stamp, value, data)
    return value


def _content(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:32]


def _is_digest(value: Any) -> bool:
    return isinstance(value, str) and len(value) == 16 and all(c in hexdigits for c in value)


def _are_imports(value: Any) -> bool:
    """[[module, [name, ...]], ...], as _import_statements keeps them."""
    return isinstance(value, list | tuple) and all(
        isinstance(item, list | tuple)
        and len(item) == 2
        and isinstance(item[0], str)
        and isinstance(item[1], list | tuple)
        and all(isinstance(name, str) for name in item[1])
        for item in value
    )


def _keep(kind: str, path: Path, stamp: tuple[int, ...], value: Any, data: bytes) -> None:
    """Keep `value`, worked out from `data` (the bytes read at `stamp`), for `path`."""
    content = _content(data)
    _new[f"{kind}:{path}"] = [list(stamp), value, content]
    _by_content[kind, content] = value


def _write_kept() -> None:
    """Add what this process worked out to the file (merged with what others added)."""
    global _kept
    if not _new:
        return
    # the files of a folder since removed (a test's copy of the project) go with it
    kept = {k: v for k, v in {**_read_kept(), **_new}.items() if Path(k.partition(":")[2]).exists()}
    target = _kept_file()
    try:
        blob = json.dumps(kept).encode()
        atomic_write(target, lambda fh: fh.write(blob), durable=False)
        for older in target.parent.glob("sources-*.json"):  # other versions' values
            if older != target:
                older.unlink(missing_ok=True)
    except OSError:
        return  # a cache that cannot be written is only slower
    _kept = kept
    _new.clear()


def _imports(path: Path, package: str, home: _Home = PROJECT_HOME) -> frozenset[str]:
    """Project modules the import statements of one file need to exist, and may name.

    `from pkg import name` names a submodule, or a name the package binds; anything else
    is kept, so that module_closure reports it missing. This is decided on every call,
    since it depends on other files than this one."""
    needed: set[str] = set()
    for base, names in _import_statements(path, package, _stamp(path)):
        needed.add(base)
        folder = home.base(base)
        if folder is None:
            continue
        for alias in names:
            name = f"{base}.{alias}"
            if _origin(name, folder) or (
                _is_package(base, folder) and not _defines(base, alias, folder)
            ):
                needed.add(name)
    return frozenset(n for n in needed if home.base(n) is not None)


@cache  # every scene's closure shares pe_math and scenes.kit.base: parse each file once
def _import_statements(
    path: Path, package: str, stamp: tuple[int, ...]
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(module, names imported from it) for each import that runs, relative ones resolved."""
    kept = _recall(f"imports from {package}", path, stamp, _are_imports)
    if kept is not None:
        return tuple((base, tuple(names)) for base, names in kept)
    out: list[tuple[str, tuple[str, ...]]] = []
    data = path.read_bytes()
    for node in _runtime_nodes(ast.parse(data.decode("utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out += [(alias.name, ()) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolve against the importing package
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            out.append((base, tuple(alias.name for alias in node.names)))
    _keep(f"imports from {package}", path, stamp, out, data)
    return tuple(out)


def _is_package(module: str, folder: Path) -> bool:
    return folder.joinpath(*module.split("."), "__init__.py").is_file()


def _defines(package: str, name: str, folder: Path) -> bool:
    init = folder.joinpath(*package.split("."), "__init__.py")
    return name in _bound_at(init, _stamp(init))


@cache
def _bound_at(init: Path, stamp: tuple[int, ...]) -> frozenset[str]:
    """The names a package's __init__ binds (defs, classes, assignments, imports)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(init.read_text(encoding="utf-8"), str(init))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update(a.asname or a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return frozenset(names)


def module_closure(module: str) -> tuple[Path, ...]:
    """The source files of `module` and every project module it imports, transitively."""
    seen: dict[str, Path] = {}
    todo: list[tuple[str, str]] = [(module, "the key")]
    home = _home_of(module)
    while todo:
        name, importer = todo.pop()
        if name in seen:
            continue
        path = home.origin(name)
        if path is None and home.namespace(name):
            continue
        if path is None:
            raise MissingModule(
                f"{importer} imports {name}, which is not a file of this project; "
                "fix the import or restore the module"
            )
        seen[name] = path
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        parents = [".".join(name.split(".")[:i]) for i in range(1, len(name.split(".")))]
        rel = _relative(path)
        todo.extend((n, rel) for n in _imports(path, package, home) | set(parents))
    return tuple(sorted(set(seen.values())))


class _WithoutMessages(ast.NodeTransformer):
    """A syntax tree with docstrings and the text of errors and warnings blanked."""

    def _blank_docstring(self, node):
        body = getattr(node, "body", None)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            if isinstance(body[0].value.value, str):
                body[0] = ast.Pass()
        return self.generic_visit(node)

    visit_Module = visit_ClassDef = visit_FunctionDef = visit_AsyncFunctionDef = _blank_docstring

    def visit_Raise(self, node: ast.Raise):
        return _Blanked().visit(node)

    def visit_Call(self, node: ast.Call):
        if _called_as(node.func) in MESSAGE_CALLS:
            return _Blanked().visit(node)
        return self.generic_visit(node)


def _called_as(func: ast.expr) -> tuple[str, str]:
    """("receiver", "method") of `receiver.method(...)` (the receiver's last name), or
    ("", "name") of a plain `name(...)`."""
    if isinstance(func, ast.Name):
        return "", func.id
    if isinstance(func, ast.Attribute):
        owner = func.value
        last = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "?")
        return last, func.attr
    return "?", "?"


class _Blanked(ast.NodeTransformer):
    def visit_Constant(self, node: ast.Constant):
        return ast.Constant("") if isinstance(node.value, str) else node

    def visit_JoinedStr(self, node: ast.JoinedStr):
        return ast.Constant("")


def _file_digest(path: Path) -> str:
    if not path.is_file():
        raise MissingModule(f"{_relative(path)} is gone; a cache key cannot cover a missing file")
    return _digest_at(path, _stamp(path))


@cache
def _digest_at(path: Path, stamp: tuple[int, ...]) -> str:
    kept = _recall("digest", path, stamp, _is_digest)
    if kept is not None:
        return kept
    data = read = path.read_bytes()
    if path.suffix == ".py":
        tree = _WithoutMessages().visit(ast.parse(data, str(path)))
        data = ast.dump(tree, include_attributes=False).encode()
    digest = hashlib.sha256(data).hexdigest()[:16]
    _keep("digest", path, stamp, digest, read)
    return digest


def _relative(path: Path) -> str:
    resolved = path.resolve()
    if resolved.is_relative_to(ROOT):
        return str(resolved.relative_to(ROOT))
    for folder, name in _named.items():  # a plugin's module: named within its folder
        if resolved.is_relative_to(folder):
            return f"{name}/{resolved.relative_to(folder)}"
    return path.name


def project_module(path: Path) -> str:
    """The dotted name of a project file: rendering/draw/scene.py -> rendering.draw.scene."""
    parts = path.resolve().relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def digests(files: tuple[Path, ...]) -> dict[str, str]:
    """Each file's project-relative name and the digest of what in it can change an output."""
    return {_relative(p): _file_digest(p.resolve()) for p in sorted(set(files))}


def hash_of(digests_: dict[str, str]) -> str:
    blob = "".join(f"{name}\0{digest}\n" for name, digest in sorted(digests_.items()))
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def sources(*modules: str, extra_files: tuple[Path, ...] = ()) -> dict[str, str]:
    """The digests of the closure of `modules`, plus extra inputs (catalogues)."""
    files = {p for m in modules for p in module_closure(m)} | set(extra_files)
    found = digests(tuple(files))
    _write_kept()
    return found


def changed(before: dict[str, str], now: dict[str, str]) -> list[str]:
    """The files whose digests differ, with added and removed ones."""
    return sorted(n for n in before.keys() | now.keys() if before.get(n) != now.get(n))
