"""The lesson's knobs: a frozen, validated dataclass loaded from lesson.toml."""

from __future__ import annotations

import dataclasses
import difflib
import errno
import hashlib
import json
import math
import re
import sys
import tomllib
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

# The lesson's defaults ship inside this package; a lesson.toml in the current folder
# is read instead of them (as --config would be), so a user's own knobs win.
DEFAULT_TOML = Path(__file__).resolve().parent / "lesson.toml"
LOCAL_TOML = Path("lesson.toml")


def lesson_file() -> Path:
    """The lesson file read when none is named: ./lesson.toml if there is one, else the
    package's default."""
    return LOCAL_TOML if LOCAL_TOML.exists() else DEFAULT_TOML


class ParamError(ValueError):
    """A lesson parameter broke a rule; the message names key, value and rule."""


@dataclass(frozen=True)
class Rule:
    """One knob's own rule: a test of its value, and the words an error says."""

    ok: Callable[[Any], bool]
    text: str


def at_least(n: int, text: str | None = None) -> Rule:
    return Rule(lambda v: v >= n, text or f"must be >= {n}")


def above(n: float) -> Rule:
    return Rule(lambda v: v > n, f"must be > {n:g}")


def even_from(n: int) -> Rule:
    return Rule(lambda v: v >= n and v % 2 == 0, f"must be even and >= {n}")


def between(low: int, high: int) -> Rule:
    return Rule(lambda v: low <= v <= high, f"must be from {low} to {high}")


def one_of(*choices: str) -> Rule:
    return Rule(lambda v: v in choices, "must be " + " or ".join(f'"{c}"' for c in choices))


def entries_at_least(n: int, text: str | None = None) -> Rule:
    return Rule(lambda v: all(x >= n for x in v), text or f"entries must be >= {n}")


def count(low: int, high: int, text: str) -> Rule:
    return Rule(lambda v: low <= len(v) <= high, text)


POSITION = at_least(0, "positions and seeds must be >= 0")
# Upper bounds: past these a frame cannot show the result, and the arrays grow
# until the machine runs out of memory.
MAX_TOKENS = 6  # rows of X: the matrices of attention-shuffle must fit a frame
MAX_DOT_ROWS = 6  # rows of relative-shift's dot-product table
MAX_HEAT_DIMS = 4  # curves beside pe-heatmap's matrix
VECTOR_LIMIT = 1000.0  # |entry| of a vector knob: larger values overflow the grids
MAX_WIDTH = 16  # entries per vector
MAX_TOKEN_CHARS = 12
SEED_MAX = 2**32 - 1  # numpy's seed range


def knob(default: object, *rules: Rule, most: float | None = None, vector: bool = False):
    """A Params field with its own rules: `most` bounds every number in it, `vector`
    bounds its entries to ±VECTOR_LIMIT."""
    meta = {"rules": rules, "most": most, "vector": vector}
    if isinstance(default, tuple):
        return field(default_factory=lambda: default, metadata=meta)
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class Params:
    """Every knob a scene may read. Defaults equal lesson.toml."""

    d_model: int = knob(8, even_from(2), most=4096)
    base: float = knob(10000.0, above(1), most=1e9)
    max_len: int = knob(64, at_least(1), most=4096)
    layout: str = knob("interleaved", one_of("interleaved", "concat"))
    variant: str = knob("paper", one_of("paper", "t2t"))
    tokens: tuple[str, ...] = knob(("猫", "咬", "狗"))
    tokens_en: tuple[str, ...] = knob(("cat", "bites", "dog"))
    X: tuple[tuple[float, ...], ...] = knob(
        ((0.2, -0.1, 0.5, 0.1), (0.9, 0.3, -0.2, 0.4), (-0.3, 0.6, 0.2, -0.5)), vector=True
    )
    swap: tuple[int, ...] = knob((0, 2), entries_at_least(0), most=MAX_TOKENS)
    proj_seed: int = knob(7, POSITION, most=SEED_MAX)
    proj_scale: float = knob(0.5, above(0), most=100.0)
    word_a: tuple[float, ...] = knob((0.2, -0.1, 0.5), vector=True)
    word_b: tuple[float, ...] = knob((0.4, 0.3, -0.2), vector=True)
    int_position: int = knob(300, POSITION, most=1_000_000)
    int_max_position: int = knob(500, POSITION, at_least(1), most=1_000_000)
    n_bits: int = knob(4, between(1, 16))
    fourier_terms: tuple[int, ...] = knob(
        (1, 3, 5, 15),
        Rule(
            lambda v: len(v) >= 1 and all(t >= 1 for t in v), "needs one or more counts, each >= 1"
        ),
        most=999,
    )
    clock_max_position: int = knob(24, POSITION, most=10_000)
    clocks_shown: int = knob(4, at_least(1), most=64)
    ambiguity_positions: tuple[int, ...] = knob(
        (0, 6), entries_at_least(0), count(2, 2, "needs exactly two positions"), most=10_000
    )
    shift_p: int = knob(3, POSITION, most=10_000)
    shift_k: int = knob(5, most=4096)
    shift_dot_positions: tuple[int, ...] = knob(
        (0, 3, 10, 100, 1000),
        entries_at_least(0),
        count(1, MAX_DOT_ROWS, f"needs 1 to {MAX_DOT_ROWS} positions"),
        most=10_000,
    )
    rope_q: tuple[float, ...] = knob(
        (1.0, 0.4), count(2, 2, "must be a 2-d vector [x, y]"), vector=True
    )
    rope_k: tuple[float, ...] = knob(
        (0.7, -0.6), count(2, 2, "must be a 2-d vector [x, y]"), vector=True
    )
    rope_m: int = knob(2, POSITION, most=100_000)
    rope_n: int = knob(5, POSITION, most=100_000)
    rope_shift: int = knob(3, most=100_000)
    rope_pair: int = knob(0)
    rope_pairing: str = knob("interleaved", one_of("interleaved", "half"))
    similarity_d_model: int = knob(64, even_from(2), most=4096)
    heat_d_model: int = knob(64, even_from(2), most=4096)
    heat_dims: tuple[int, ...] = knob((0, 10, 40), entries_at_least(0), most=4096)
    learned_max_len: int = knob(16, at_least(1), most=4096)
    alibi_heads: int = knob(8, at_least(1), most=64)
    t5_num_buckets: int = knob(32, even_from(4), most=1024)
    t5_max_distance: int = knob(128, most=1_000_000)
    t5_bidirectional: bool = knob(True)
    learned_seed: int = knob(0, POSITION, most=SEED_MAX)
    train_len: int = knob(4096, at_least(16), most=10_000_000)
    target_len: int = knob(32768, at_least(16), most=100_000_000)
    rope_base: float = knob(10000.0, above(1), most=1e9)
    rope_head_dim: int = knob(128, even_from(8), most=512)

    def __post_init__(self) -> None:
        for f in fields(self):
            object.__setattr__(
                self, f.name, _coerce(f.name, getattr(self, f.name), _hints()[f.name])
            )
        _validate(self)

    # ------------------------------------------------------------------ loading
    @classmethod
    def load(
        cls,
        path: str | Path | None = None,
        overrides: Mapping[str, object] | None = None,
    ) -> Params:
        """Read a TOML file (default: `lesson_file()`) and apply `key=value` overrides."""
        values: dict[str, object] = {}
        if path is not None or lesson_file().exists():
            values.update(read_toml(path))
            values.pop("voice", None)  # the narration's tables, read by the pipeline
            values.pop("lexicon", None)
            values.pop("theme", None)  # the look, read by the pipeline (lesson.palette)
            values.pop("brand", None)  # ... and the brand (lesson.brand)
        for key, raw in (overrides or {}).items():
            values[key] = _parse_override(raw, key) if isinstance(raw, str) else raw
        unknown = [k for k in values if k not in _hints()]
        if unknown:
            raise ParamError(_unknown_message(unknown[0]))
        return cls(**values)

    def replace(self, **changes: object) -> Params:
        """A copy with some fields changed (validated again)."""
        return dataclasses.replace(self, **changes)

    def as_dict(self, names: Sequence[str] | None = None) -> dict[str, object]:
        """The named fields (all by default) as plain JSON-ready values."""
        names = list(names) if names is not None else [f.name for f in fields(self)]
        return {n: _plain(getattr(self, n)) for n in names}

    def digest(self, names: Sequence[str] | None = None) -> str:
        """A stable 16-hex-digit hash of the named fields' values."""
        blob = json.dumps(
            self.as_dict(sorted(set(names)) if names is not None else None), sort_keys=True
        )
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


MAX_CONFIG_BYTES = 1_000_000


def read_toml(path: str | Path | None = None) -> dict[str, object]:
    """A lesson file's tables (default: `lesson_file()`), read with a size limit."""
    source = Path(path) if path is not None else lesson_file()
    try:
        if source.exists() and not (source.is_file() or source.is_dir()):
            # a pipe or a device would block the read or never end
            raise ParamError(f"config file {source} is not a regular file; pass a .toml file")
        with source.open("rb") as handle:
            blob = handle.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        raise ParamError(
            f"config file {source} does not exist; pass an existing .toml file"
        ) from None
    except IsADirectoryError:
        raise ParamError(f"config file {source} is a folder; pass a .toml file") from None
    except OSError as exc:
        fix = "check its permissions" if exc.errno == errno.EACCES else "pass a readable .toml file"
        raise ParamError(f"config file {source} cannot be read ({exc.strerror}); {fix}") from None
    if len(blob) > MAX_CONFIG_BYTES:
        raise ParamError(
            f"config file {source} is larger than {MAX_CONFIG_BYTES:,} bytes; pass a lesson .toml file"
        )
    try:
        return tomllib.loads(blob.decode("utf-8-sig"))  # a byte-order mark some editors write
    except UnicodeDecodeError:
        raise ParamError(
            f"config file {source} is not UTF-8 text; pass a lesson .toml file"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise ParamError(
            f"config file {source} is not valid TOML at {toml_problem(exc)}; fix the syntax there"
        ) from None
    except ValueError:  # a whole number past Python's limit on digits
        text = blob.decode("utf-8-sig")
        key, digits, line = longest_number(text)
        raise ParamError(f"config file {source}, line {line}: {_too_long(key, digits)}") from None
    except RecursionError:
        raise ParamError(
            f"config file {source} nests lists or tables too deeply; no knob needs more than two"
        ) from None


def toml_problem(exc: tomllib.TOMLDecodeError) -> str:
    """Where a TOML error is and what it is: "line 3, column 5 (invalid value)"."""
    line, column = getattr(exc, "lineno", None), getattr(exc, "colno", None)  # Python 3.14+
    what = getattr(exc, "msg", str(exc))
    found = re.fullmatch(r"(.*) \(at line (\d+), column (\d+)\)", what, flags=re.DOTALL)
    if found:
        what, line, column = found[1], int(found[2]), int(found[3])
    if line is None:
        return f"its end ({what.removesuffix(' (at end of document)').lower()})"
    return f"line {line}, column {column} ({what.lower()})"


def longest_number(text: str) -> tuple[str, str, int]:
    """The key, digits and line of the first whole number too long for Python to read."""
    limit = sys.get_int_max_str_digits()
    for number in re.finditer(r"\d[\d_]*", text):
        digits = number[0].replace("_", "")
        if len(digits) > limit:
            before = text[: number.start()]
            keys = re.findall(r"^\s*([^\s=#\[]+)\s*=", before, flags=re.MULTILINE)
            return (keys[-1] if keys else "a value"), digits, before.count("\n") + 1
    return "a value", "", text.count("\n") + 1


def _too_long(key: str, digits: str) -> str:
    """The error for a knob given a number of thousands of digits."""
    return f"{key}={shown(digits, quoted=False)}: {_size_rule(key)}"


def _size_rule(key: str) -> str:
    known = Params.__dataclass_fields__.get(key)
    most = known.metadata["most"] if known else None
    if most is not None:
        return f"must be at most {most:,}"
    if known and known.metadata["vector"]:
        return f"entries must lie within ±{VECTOR_LIMIT:g}"
    return "no knob needs a number that long"


def field_names() -> list[str]:
    return [f.name for f in fields(Params)]


def parse_assignment(text: str) -> tuple[str, str]:
    """Split a `key=value` override; the one-line error says how to write it."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise ParamError(f"override {shown(text)} is not KEY=VALUE; write it like --set base=500")
    key = key.strip()
    if key not in _hints():
        raise ParamError(_unknown_message(key))
    return key, value.strip()


# ---------------------------------------------------------------------- helpers
_HINTS: dict[str, object] = {}


def _hints() -> dict[str, object]:
    if not _HINTS:
        _HINTS.update(typing.get_type_hints(Params))
    return _HINTS


def _unknown_message(key: str) -> str:
    close = difflib.get_close_matches(key, field_names(), n=1, cutoff=0.5)
    hint = f"did you mean {close[0]!r}?" if close else "see lesson.toml for the valid keys"
    return f"unknown parameter {shown(key)}; {hint}"


def _parse_override(raw: str, key: str = "") -> object:
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw  # a bare word, such as layout=concat
    except ValueError:  # a whole number past Python's limit on digits
        raise ParamError(f"--set {_too_long(key, raw)}") from None
    except RecursionError:
        raise ParamError(
            f"--set {key or 'value'}: nests lists too deeply; no knob needs more than two, "
            "e.g. X=[[0.2, -0.1], [0.9, 0.3]]"
        ) from None


def _plain(value: object) -> object:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def _coerce(name: str, value: object, hint: object) -> object:
    origin = typing.get_origin(hint)
    if origin is tuple:
        inner = typing.get_args(hint)[0]
        if isinstance(value, str) or not isinstance(value, Sequence):
            raise ParamError(f"{name}={shown(value)}: must be a list, such as {_example(name)}")
        return tuple(_coerce(name, v, inner) for v in value)
    if hint is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        raise ParamError(f"{name}={shown(value)}: must be true or false")
    if hint is int:
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or (isinstance(value, float) and not value.is_integer())
        ):
            raise ParamError(f"{name}={shown(value)}: must be a whole number")
        return int(value)
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ParamError(f"{name}={shown(value)}: must be a number")
        try:
            return float(value)
        except OverflowError:  # a whole number of hundreds of digits
            raise ParamError(f"{name}={shown(value)}: {_size_rule(name)}") from None
    if hint is str:
        if not isinstance(value, str):
            raise ParamError(f"{name}={shown(value)}: must be text")
        return value
    return value


def _example(name: str) -> str:
    return json.dumps(
        _plain(getattr(Params.__dataclass_fields__[name], "default_factory", lambda: [])())
    )


def _require(ok: bool, name: str, value: object, rule: str) -> None:
    if not ok:
        raise ParamError(f"{name}={_fmt(value)}: {rule}")


def _fmt(value: object) -> str:
    text = json.dumps(_plain(value), ensure_ascii=False) if isinstance(value, tuple) else None
    return shown(value) if text is None else shown(text, quoted=False)


SHOWN = 40  # characters of a bad value an error repeats


def shown(value: object, quoted: bool = True) -> str:
    """A value as an error message repeats it: its repr, cut to SHOWN characters when long
    ("'aaaa…' (100,000 characters)"), so one bad token is still one readable line."""
    try:
        text = repr(value) if quoted else str(value)
    except ValueError:  # an int past Python's limit on digits
        return f"a number of {len(hex(value)) * 1.2:,.0f} or so digits"
    if len(text) <= SHOWN + 20:
        return text
    return f"{text[:SHOWN]}… ({len(text):,} characters)"


def _validate(p: Params) -> None:
    _check_finite_and_bounded(p)
    for f in fields(p):
        value = getattr(p, f.name)
        for rule in f.metadata["rules"]:
            _require(rule.ok(value), f.name, value, rule.text)
    _check_together(p)


def _check_together(p: Params) -> None:
    """The rules that tie one knob to another."""
    _check_tokens(p)
    _check_word_vectors(p)
    for name, position in (
        ("shift_p", p.shift_p),
        ("shift_dot_positions", min(p.shift_dot_positions, default=0)),
    ):
        _require(
            position + p.shift_k >= 0,
            "shift_k",
            p.shift_k,
            f"moves {name}={position} below 0; positions must stay >= 0",
        )
    _require(
        0 <= p.rope_pair < p.d_model // 2,
        "rope_pair",
        p.rope_pair,
        f"must be from 0 to d_model/2-1 ({p.d_model // 2 - 1})",
    )
    _require(
        1 <= len(p.heat_dims) <= MAX_HEAT_DIMS and max(p.heat_dims) < p.heat_d_model,
        "heat_dims",
        p.heat_dims,
        f"needs 1 to {MAX_HEAT_DIMS} dims, each below heat_d_model ({p.heat_d_model})",
    )
    for name, position in (("rope_m", p.rope_m), ("rope_n", p.rope_n)):
        _require(
            position + p.rope_shift >= 0,
            "rope_shift",
            p.rope_shift,
            f"moves {name}={position} below 0; positions must stay >= 0",
        )
    _require(
        p.target_len > p.train_len,
        "target_len",
        p.target_len,
        f"must exceed train_len ({p.train_len}): the length to stretch the context to",
    )
    slowest = 2 * math.pi * p.rope_base ** ((p.rope_head_dim - 2) / p.rope_head_dim)
    _require(
        slowest > p.train_len,
        "rope_base",
        p.rope_base,
        f"lets every RoPE pair finish a turn within train_len ({p.train_len}); "
        "raise rope_base or lower train_len",
    )
    exact = p.t5_num_buckets // (4 if p.t5_bidirectional else 2)
    _require(
        p.t5_max_distance > exact,
        "t5_max_distance",
        p.t5_max_distance,
        f"must exceed the exact range ({exact}: num_buckets/"
        f"{'4 both ways' if p.t5_bidirectional else '2 one way'})",
    )


def _check_tokens(p: Params) -> None:
    """X's rows, one token per row in both languages (each a short line), and the swapped
    pair among them."""
    _require(2 <= len(p.X) <= MAX_TOKENS, "X", p.X, f"needs 2 to {MAX_TOKENS} token rows")
    _require(
        len({len(r) for r in p.X}) == 1 and len(p.X[0]) >= 1,
        "X",
        p.X,
        "rows must all have the same length",
    )
    for name in ("tokens", "tokens_en"):
        tokens = getattr(p, name)
        _require(
            len(tokens) == len(p.X), name, tokens, f"needs one token per row of X ({len(p.X)})"
        )
    _require(
        len(p.swap) == 2 and max(p.swap) < len(p.X) and p.swap[0] != p.swap[1],
        "swap",
        p.swap,
        f"must be two different row indices below {len(p.X)}",
    )
    for name in ("tokens", "tokens_en"):
        for token in getattr(p, name):
            _require(
                0 < len(token.strip()) <= MAX_TOKEN_CHARS
                and token == token.strip()
                and token.isprintable(),
                name,
                getattr(p, name),
                f"each token must be 1 to {MAX_TOKEN_CHARS} characters on one line, "
                "without outer spaces",
            )


def _check_word_vectors(p: Params) -> None:
    _require(
        len(p.word_a) == len(p.word_b) >= 1,
        "word_b",
        p.word_b,
        f"must have the same length as word_a ({len(p.word_a)})",
    )
    for name in ("word_a", "word_b"):  # a length that squares to nothing has no direction
        vector = getattr(p, name)
        _require(
            math.hypot(*vector) ** 2 > 1e-12,
            name,
            vector,
            "a word vector needs a length above 1e-6 (not all zero)",
        )


def _check_finite_and_bounded(p: Params) -> None:
    """Reject inf, NaN and sizes no frame could show, before any array is built."""
    for f in fields(p):
        value = getattr(p, f.name)
        flat = _flatten(value)
        numbers = [v for v in flat if isinstance(v, int | float) and not isinstance(v, bool)]
        _require(
            all(math.isfinite(v) for v in numbers if isinstance(v, float)),
            f.name,
            value,
            "must be a finite number",
        )
        limit = f.metadata["most"]
        if limit is not None:
            _require(
                all(abs(v) <= limit for v in numbers),
                f.name,
                value,
                f"must be at most {limit:,}",
            )
        if f.metadata["vector"]:
            _require(
                all(abs(v) <= VECTOR_LIMIT for v in numbers),
                f.name,
                value,
                f"entries must lie within ±{VECTOR_LIMIT:g}",
            )
        if isinstance(value, tuple):
            rows = value if f.name == "X" else (value,)
            _require(
                all(len(r) <= MAX_WIDTH for r in rows),
                f.name,
                value,
                f"at most {MAX_WIDTH} entries" + (" per row" if f.name == "X" else ""),
            )


def _flatten(value: object) -> list[object]:
    if isinstance(value, tuple):
        return [x for v in value for x in _flatten(v)]
    return [value]
