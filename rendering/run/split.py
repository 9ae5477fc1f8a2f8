"""Splitting a long scene into ranges of animations drawn by different workers.

Manim can draw only animations N to M of a scene (from/upto animation numbers): the
ones before N are played without drawing, so a worker reaches its range at the cost of
building the scene up to there. Every part is a silent video; the client joins them by
copying packets (Manim itself joins its per-animation files that way), then voices and
checks the whole like any clip.

The ranges come from the previous run's timings, kept per animation in the manifest as
[build, draw] wall seconds: build is what a worker pays to get past an animation (making
its mobjects, or skipping it), draw what it pays to draw it. A part [a, b] costs every
build up to b plus the draws from a to b; the ranges are chosen so that the dearest part
is as cheap as it can be.
"""

from __future__ import annotations

import math

# a part must be worth a fork of a warm worker and a join; its rebuild of the scene up to
# where it starts is in its cost already
MIN_PART_SECONDS = 2.0


def part_cost(animations: list[list[float]], first: int, last: int) -> float:
    """Wall seconds to draw animations first..last: every build up to last, their draws."""
    builds = sum(build for build, _ in animations[: last + 1])
    return builds + sum(draw for _, draw in animations[first : last + 1])


def spans(
    animations: list[list[float]], parts: int, cuts: set[int] | None = None
) -> list[tuple[int, int]]:
    """`parts` consecutive ranges covering every animation, the dearest as cheap as can be;
    with `cuts`, a range may start only at one of those animations (a beat's first, so
    that every beat is drawn whole by one part and can be kept)."""
    n = len(animations)
    if cuts is not None:
        cuts = {c for c in cuts if 0 < c < n}
        parts = min(parts, len(cuts) + 1)
    parts = max(1, min(parts, n))
    builds, draws = [0.0], [0.0]  # prefix sums
    for build, draw in animations:
        builds.append(builds[-1] + build)
        draws.append(draws[-1] + draw)
    # best[k][j]: the least possible dearest part when the first j animations form k parts
    best = [[math.inf] * (n + 1) for _ in range(parts + 1)]
    cut = [[0] * (n + 1) for _ in range(parts + 1)]
    best[0][0] = 0.0
    for k in range(1, parts + 1):
        for j in range(k, n + 1):
            for i in range(k - 1, j):
                if i and cuts is not None and i not in cuts:
                    continue
                worst = max(best[k - 1][i], builds[j] + draws[j] - draws[i])
                if worst < best[k][j]:
                    best[k][j], cut[k][j] = worst, i
    out, j = [], n
    for k in range(parts, 0, -1):
        i = cut[k][j]
        out.append((i, j - 1))
        j = i
    return out[::-1]


def window(animations: list[list[float]], first: int, last: int) -> list[list[float]]:
    """The timings of animations first..last as a job of their own (the beats to draw of
    a clip whose other beats are kept): every build before `first` is paid by its first
    animation, as a part drawing from there pays to get past them."""
    out = [list(a) for a in animations[first : last + 1]]
    if out:
        out[0][0] += sum(build for build, _ in animations[:first])
    return out


def part_count(animations: list[list[float]] | None, share: float, slots: int) -> int:
    """How many parts a job gets: enough that no part is longer than one slot's share.

    `share` is the job's cost over the run's cost per slot. Only a job above 1 is split:
    alone it would outlast the rest of the run, however the others are spread. Below that
    every slot is already busy, and a part's rebuild of the scene would only add work. A
    job without timings, or too short to be worth it, stays whole.
    """
    if not animations or len(animations) < 2 or slots < 2:
        return 1
    wanted = min(slots, len(animations), math.ceil(share - 1e-9))
    total = part_cost(animations, 0, len(animations) - 1)
    while wanted > 1 and total / wanted < MIN_PART_SECONDS:
        wanted -= 1
    return max(1, wanted)
