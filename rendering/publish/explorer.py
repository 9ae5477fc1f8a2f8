"""explore.html per output folder: drag p, d_model, base and the layout; see PE move live.

The page (template rendering/publish/templates/explore.html) draws five linked views of the sinusoidal
encoding: PE(p) as bars, one clock hand per sin/cos pair, the heat map of every position
with a cursor at p, the cosine similarity of PE(p) to every position, and the distance of
each adjacent step; a second cursor q shows PE(p)·PE(q) beside the offset q − p.

Every number it shows was computed here by pe_math. The page never evaluates a formula:
it looks values up in tables and rounds them for display when it draws. The tables,
for every slider combination, are one JSON document (`build`):

- Each number is stored as the integer round(value × 10⁷) (`encode`), so JSON text stays
  short and 7 decimals keep every value within 5·10⁻⁸ of pe_math's float64.
- Integer vectors live once in a pool, `vectors`, and the tables refer to them by index.
  A PE table is one pool column per dim: the 4 widths × 3 bases share most of their
  frequencies (ω = base^(−2i/d)), so their 1296 columns in two layouts are 266 distinct
  ones at the defaults; the concat layout is the same columns in
  pe_math.layout_permutation's order. The dedup compares the stored integers, so it
  loses nothing. At the defaults (64 positions) explore.json is about 180 KB.
- The cosine similarity and dot product matrices (pe_math.cosine_similarity_matrix and
  pe_math.shifted_dots over every pair p, q) are stored as one value per offset q − p when
  the stored integers of the whole matrix depend on the offset alone; `build` checks that
  cell by cell and otherwise stores every row.

How the page gets the data: it is inlined into explore.html as JSON (the project's
convention, as in present.html), so the page works from file://, where a page cannot
fetch a file beside it, from any static server and inside an iframe, and needs no
request at all. The same document is written beside it as explore.json (the page parses
the same JSON), for other tools and for the tests. To put the explorer on a
course page, copy explore.html (it is complete); explore.json is the data file that
comes with it. The page's words, in Chinese and English, are inlined beside the data.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np

import pe_math
from pe_math import Params
from rendering.core import keys
from rendering.core.files import atomic_write_text
from rendering.core.manifest import EXPLORE_KEY
from rendering.publish import web

NAME = web.EXPLORE
DATA_NAME = "explore.json"
TEMPLATE = "explore.html"  # in templates/; {{head}}, /*UI*/ and /*DATA*/ are filled in
KEY_NAME = EXPLORE_KEY
SCHEMA = 1
SCALE = 10**7  # every table holds round(value × SCALE): 7 decimals
D_MODELS = (8, 16, 64, 128)  # the d_model slider's menu, plus the lesson's d_model
BASES = (100.0, 1000.0, 10000.0)  # the base slider's menu, plus the lesson's base
LAYOUTS = ("interleaved", "concat")
MIN_POSITIONS = 2  # positions 0..max_len-1, clamped to this range
MAX_POSITIONS = 256
MAX_D_MODEL = 256  # a wider lesson d_model is left out of the menu (its tables grow as d²·L)

UI = {
    "en": {
        "title": "Positional encoding explorer",
        "lead": "Every number here was computed by pe_math; the page only looks it up.",
        "language": "中文",
        "language_label": "Switch the page to Chinese",
        "controls": "Controls",
        "p": "position p",
        "q": "second position q",
        "lock": "keep q − p fixed while p moves",
        "d_model": "d_model",
        "base": "base",
        "layout": "layout",
        "interleaved": "interleaved (sin, cos, sin, cos …)",
        "concat": "concat ([sin … | cos …])",
        "bars": "PE(p): one bar per dim",
        "bars_note": "Blue bars: PE(p); pink ticks: PE(q). The first dims swing fast, the last barely move.",
        "clocks": "Clock hands: one per sin/cos pair",
        "clocks_note": "Hand i points at (sin, cos)(p·ωᵢ); the pink hand is q. Under each clock: its period T in positions.",
        "heat": "Heat map: every position",
        "heat_note": "Rows are positions 0…{last}, columns are dims; the yellow frame is p, the pink one q.",
        "dims": "dims →",
        "positions": "positions →",
        "similarity": "Cosine similarity of PE(p) to every position",
        "similarity_note": "Peaks at p itself (1) and is lower further away; with few dims it climbs back in waves.",
        "adjacent": "Adjacent-step distance",
        "adjacent_note": "‖PE(s+1) − PE(s)‖ for each step s: the same length everywhere.",
        "offset": "Depends only on the offset",
        "offset_note": "PE(p)·PE(q) against q − p. Tick the box and drag p: the dot does not move.",
        "dot": "PE(p)·PE(q)",
        "shift_dot": "Σᵢ cos((q−p)·ωᵢ)",
        "cosine": "cos(PE(p), PE(q))",
        "step": "‖PE({s}+1) − PE({s})‖",
        "numbers": "The numbers of PE(p) and PE(q)",
        "dim": "dim",
        "pair": "pair",
        "status": "p = {p}, q = {q}, q − p = {k}, PE(p)·PE(q) = {dot}",
        "source": "pe_math · {n} positions · variant {variant} · 7 decimals",
    },
    "zh": {
        "title": "位置编码探索器",
        "lead": "这里的每个数字都由 pe_math 算出；页面只负责查表。",
        "language": "English",
        "language_label": "切换为英文",
        "controls": "控制",
        "p": "位置 p",
        "q": "第二个位置 q",
        "lock": "移动 p 时保持 q − p 不变",
        "d_model": "d_model",
        "base": "底数 base",
        "layout": "排列方式",
        "interleaved": "交错（sin, cos, sin, cos …）",
        "concat": "拼接（[sin … | cos …]）",
        "bars": "PE(p)：每一维一根柱",
        "bars_note": "蓝柱是 PE(p)，粉色刻度是 PE(q)。前几维摆动快，后几维几乎不动。",
        "clocks": "时钟指针：每对 sin/cos 一根",
        "clocks_note": "第 i 根指针指向 (sin, cos)(p·ωᵢ)；粉色指针是 q。时钟下方是它的波长 T（转一圈的位置数）。",
        "heat": "热力图：所有位置",
        "heat_note": "行是位置 0…{last}，列是各维；黄框是 p，粉框是 q。",
        "dims": "维 →",
        "positions": "位置 →",
        "similarity": "PE(p) 与各位置的余弦相似度",
        "similarity_note": "在 p 处最高（等于 1），离得越远大体越低；维数少时会一阵阵回升。",
        "adjacent": "相邻一步的距离",
        "adjacent_note": "每一步 s 的 ‖PE(s+1) − PE(s)‖：处处一样长。",
        "offset": "只取决于位置差",
        "offset_note": "PE(p)·PE(q) 随 q − p 变化。勾选后拖动 p：点积不变。",
        "dot": "PE(p)·PE(q)",
        "shift_dot": "Σᵢ cos((q−p)·ωᵢ)",
        "cosine": "cos(PE(p), PE(q))",
        "step": "‖PE({s}+1) − PE({s})‖",
        "numbers": "PE(p) 与 PE(q) 的数值",
        "dim": "维",
        "pair": "对",
        "status": "p = {p}，q = {q}，q − p = {k}，PE(p)·PE(q) = {dot}",
        "source": "pe_math · {n} 个位置 · 变体 {variant} · 7 位小数",
    },
}


class ExplorerError(ValueError):
    """The explorer cannot be built or written; the message names the problem and the fix."""


@dataclass(frozen=True)
class Written:
    """What `write` produced, for the render summary."""

    page: Path
    data: Path
    page_bytes: int
    data_bytes: int
    combos: int
    positions: int
    notes: list[str] = field(default_factory=list)


def encode(values) -> np.ndarray:
    """The stored form of pe_math's floats: round(value × SCALE) as integers."""
    return np.rint(np.asarray(values, dtype=np.float64) * SCALE).astype(np.int64)


def decode(stored) -> np.ndarray:
    """The value the page draws: stored / SCALE (JavaScript divides the same way)."""
    return np.asarray(stored, dtype=np.float64) / SCALE


class _Pool:
    """Distinct integer vectors, each stored once; `add` returns its index."""

    def __init__(self) -> None:
        self.vectors: list[list[int]] = []
        self._index: dict[bytes, int] = {}

    def add(self, stored: np.ndarray) -> int:
        stored = np.ascontiguousarray(stored, dtype=np.int64)
        key = stored.tobytes() + stored.shape[0].to_bytes(4, "little")
        if key not in self._index:
            self._index[key] = len(self.vectors)
            self.vectors.append(stored.tolist())
        return self._index[key]


def by_offset(matrix: np.ndarray, pool: _Pool) -> dict[str, object]:
    """An L×L stored matrix as {"offsets": id} when M[p, q] = v[q − p + L − 1] for every cell,
    else {"rows": [id of row p, ...]}."""
    n = matrix.shape[0]
    offsets = np.concatenate([matrix[::-1, 0], matrix[0, 1:]])  # v[k + n - 1] = M[p, p + k]
    p, q = np.indices((n, n))
    if np.array_equal(offsets[q - p + n - 1], matrix):
        return {"offsets": pool.add(offsets)}
    return {"rows": [pool.add(row) for row in matrix]}


def from_offsets(entry: dict, vectors: list[list[int]], n: int) -> np.ndarray:
    """The stored L×L matrix back from `by_offset`'s entry (what the page looks up)."""
    if "offsets" in entry:
        v = np.asarray(vectors[entry["offsets"]], dtype=np.int64)
        p, q = np.indices((n, n))
        return v[q - p + n - 1]
    return np.asarray([vectors[i] for i in entry["rows"]], dtype=np.int64)


def dot_matrix(n: int, d_model: int, base: float, layout: str, variant: str) -> np.ndarray:
    """PE(p)·PE(q) for every p, q < n, each computed by pe_math.shifted_dots at offset q − p."""
    out = np.empty((n, n))
    for k in range(-(n - 1), n):
        p = np.arange(max(0, -k), min(n, n - k))
        out[p, p + k] = pe_math.shifted_dots(p, k, d_model, base, layout, variant)
    return out


@dataclass(frozen=True)
class Ranges:
    """The sliders' ranges, from the lesson's knobs, with a note for each value clamped."""

    positions: int
    d_models: tuple[int, ...]
    bases: tuple[float, ...]
    variant: str
    initial: dict
    notes: tuple[str, ...]


def ranges(params: Params) -> Ranges:
    notes = []
    n = min(max(params.max_len, MIN_POSITIONS), MAX_POSITIONS)
    if n != params.max_len:
        notes.append(
            f"max_len={params.max_len}: the explorer shows positions 0..{n - 1} "
            f"(from {MIN_POSITIONS} to {MAX_POSITIONS} positions)"
        )
    d_models = set(D_MODELS)
    if params.d_model <= MAX_D_MODEL:
        d_models.add(params.d_model)
    else:
        notes.append(
            f"d_model={params.d_model}: wider than the explorer's {MAX_D_MODEL}; "
            f"its menu keeps {', '.join(map(str, D_MODELS))}"
        )
    d_models = tuple(sorted(d_models))
    bases = tuple(sorted(set(BASES) | {float(params.base)}))
    p = min(params.shift_p, n - 1)
    d_model = params.d_model if params.d_model in d_models else D_MODELS[-1]
    initial = {
        "p": p,
        "q": min(max(p + params.shift_k, 0), n - 1),
        "d_model": d_models.index(d_model),
        "base": bases.index(float(params.base)),
        "layout": params.layout,
    }
    return Ranges(n, d_models, bases, params.variant, initial, tuple(notes))


def build(params: Params) -> dict:
    """Every table the page draws, for every slider combination, from pe_math."""
    r = ranges(params)
    n, variant = r.positions, r.variant
    positions = np.arange(n)
    pool = _Pool()
    dims, tables = [], []
    for d in r.d_models:
        dims.append(
            {
                "d_model": d,
                "perm": pe_math.layout_permutation(d).tolist(),
                "pairs": {lay: pe_math.pair_dims(d, lay).tolist() for lay in LAYOUTS},
            }
        )
        row = []
        for base in r.bases:
            combo = {
                "d_model": d,
                "base": base,
                "periods": encode(pe_math.periods(d, base, variant)).tolist(),
                "shift_dot": pool.add(
                    encode([pe_math.shift_dot(k, d, base, variant) for k in range(-(n - 1), n)])
                ),
                "layouts": {},
            }
            for lay in LAYOUTS:
                table = pe_math.sinusoidal(positions, d, base, lay, variant)
                stored = encode(table)
                combo["layouts"][lay] = {
                    "pe": [pool.add(stored[:, j]) for j in range(d)],
                    "similarity": by_offset(encode(pe_math.cosine_similarity_matrix(table)), pool),
                    "dot": by_offset(encode(dot_matrix(n, d, base, lay, variant)), pool),
                    "adjacent": pool.add(encode(pe_math.adjacent_distances(table))),
                }
            row.append(combo)
        tables.append(row)
    return {
        "schema": SCHEMA,
        "source": "pe_math",
        "scale": SCALE,
        "positions": n,
        "variant": variant,
        "d_models": list(r.d_models),
        "bases": list(r.bases),
        "layouts": list(LAYOUTS),
        "initial": r.initial,
        "notes": list(r.notes),
        "dims": dims,
        "tables": tables,
        "vectors": pool.vectors,
    }


def data_text(data: dict) -> str:
    """explore.json's text: compact JSON, one line."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def render_html(data: dict, lang: str = "en", colors: dict | None = None) -> str:
    lang = lang if lang in UI else "en"
    return (
        web.template(TEMPLATE)
        .replace("{{head}}", web.head(lang, UI[lang]["title"], **(colors or {})))
        .replace("/*UI*/null", web.json_for_script({"lang": lang, "ui": UI}))
        .replace("/*DATA*/null", web.json_for_script(data))
    )


def write(folder: Path, params: Params, lang: str = "en", colors: dict | None = None) -> Written:
    """(Re)write FOLDER/explore.json and FOLDER/explore.html from pe_math at PARAMS, unless
    both were written from the same knobs, language, page colours (web.page_colors) and
    code (every render ends here)."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ExplorerError(f"{folder} is a file, not a folder; pass an output folder")
    page_file, data_file, key_file = folder / NAME, folder / DATA_NAME, folder / KEY_NAME
    key = inputs_key(params, lang, colors or {})
    r = ranges(params)
    combos = len(r.d_models) * len(r.bases) * len(LAYOUTS)
    try:
        if key_file.read_text(encoding="utf-8") == key:
            sizes = page_file.stat().st_size, data_file.stat().st_size
            return Written(page_file, data_file, *sizes, combos, r.positions, list(r.notes))
    except OSError:
        pass  # not written yet, or in part: write it all
    data = build(params)
    text = data_text(data)
    page = render_html(data, lang, colors)
    key_file.unlink(missing_ok=True)  # until both files are whole again
    atomic_write_text(data_file, text)  # a failed write is the caller's one line
    atomic_write_text(page_file, page)
    atomic_write_text(key_file, key)
    return Written(
        page_file,
        data_file,
        len(page.encode()),
        len(text.encode()),
        combos,
        r.positions,
        list(r.notes),
    )


def inputs_key(params: Params, lang: str, colors: dict | None = None) -> str:
    """What the explorer's two files are made from: the knobs, the language, the page
    colours and its code."""
    template = resources.files(web.__package__).joinpath("templates", TEMPLATE)
    code = keys.hash_of(keys.sources(__name__, extra_files=(Path(str(template)),)))
    shade = hashlib.sha256(json.dumps(colors or {}, sort_keys=True).encode()).hexdigest()[:8]
    return f"{params.digest()}-{lang}-{shade}-{code}"


def report(w: Written) -> str:
    """One line for the render summary: where, how big, how many tables."""
    return (
        f"{w.page} ({web.human_bytes(w.page_bytes)}); {w.data.name} {web.human_bytes(w.data_bytes)}: "
        f"{w.combos} tables (d_model × base × layout) × {w.positions} positions"
    )
