"""pe_math's vectorised tables against the straightforward per-element loops, side by side.

Run with `make bench`. Prints wall times, speed-up ratios and peak memory.

    python bench/bench_pe_math.py [--positions N] [--dims D] [--repeat R]
"""

from __future__ import annotations

import argparse
import math
import time
import tracemalloc

import numpy as np

import pe_math as pm

N_POS, D = 2048, 512


def loop_pe_table(n_pos: int, d: int, base: float = 10000.0) -> np.ndarray:
    """The textbook double loop: one np.sin or np.cos call per cell."""
    pe = np.zeros((n_pos, d))
    for p in range(n_pos):
        for i in range(d // 2):
            pe[p, 2 * i] = np.sin(p / base ** (2 * i / d))
            pe[p, 2 * i + 1] = np.cos(p / base ** (2 * i / d))
    return pe


def loop_cosine_matrix(table: np.ndarray) -> np.ndarray:
    """The textbook double loop over pairs of rows."""
    n = len(table)
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            out[i, j] = np.dot(table[i], table[j]) / (
                np.linalg.norm(table[i]) * np.linalg.norm(table[j])
            )
    return out


def measure(fn, *args, repeat: int = 1):
    """Best wall time of `repeat` runs, and the peak traced memory of one run."""
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn(*args)
        best = min(best, time.perf_counter() - start)
    tracemalloc.start()
    fn(*args)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return result, best, peak


def row(name: str, loop_s: float, vec_s: float, loop_mem: int, vec_mem: int) -> None:
    print(
        f"{name:<28}{loop_s:>10.3f}s{vec_s:>12.5f}s{loop_s / vec_s:>10.0f}x"
        f"{loop_mem / 2**20:>10.1f}MB{vec_mem / 2**20:>10.1f}MB"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=N_POS, help="rows of the tables")
    ap.add_argument("--dims", type=int, default=D, help="columns of the PE table (even)")
    ap.add_argument("--repeat", type=int, default=5, help="runs of each pe_math call")
    args = ap.parse_args()
    n, d, repeat = args.positions, args.dims, args.repeat
    print(f"{'':<28}{'loops':>11}{'pe_math':>13}{'speed-up':>11}{'loop mem':>12}{'np mem':>12}")
    positions = np.arange(n)
    slow, t_loop, m_loop = measure(loop_pe_table, n, d)
    fast, t_vec, m_vec = measure(pm.sinusoidal, positions, d, repeat=repeat)
    np.testing.assert_allclose(fast, slow, atol=1e-9)
    row(f"PE table {n}x{d}", t_loop, t_vec, m_loop, m_vec)

    slow_s, t_loop, m_loop = measure(loop_cosine_matrix, fast)
    fast_s, t_vec, m_vec = measure(pm.cosine_similarity_matrix, fast, repeat=repeat)
    np.testing.assert_allclose(fast_s, slow_s, atol=1e-9)
    row(f"cosine matrix {n}x{n}", t_loop, t_vec, m_loop, m_vec)

    _, t_big, m_big = measure(pm.sinusoidal, np.arange(4 * n), 2 * d, repeat=min(3, repeat))
    print(f"PE table {4 * n}x{2 * d} with pe_math: {t_big:.3f}s, peak {m_big / 2**20:.0f}MB")


if __name__ == "__main__":
    main()
