"""What a scene build reads, beat by beat: the knobs of its Params and the catalogue words.

A beat's frames can depend only on what the build had read by the end of that beat, so
these reads tell which beats an edit can change: a label first read in beat j changes
the frames from beat j on, a knob read before the first beat changes them all. A beat's
own narration line (`say.<beat>`, read for its cues and burned captions) counts for that
beat alone.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field, fields

from pe_math import Params

PRELUDE = ""  # the "beat" of the plays before the first beat
EXISTS = "?"  # a word read ending so asked only whether the key exists (a beat's line)
NEXT = ">next"  # the word read of which chapter a chapter's bridge points to (the registry's)


@dataclass
class Reads:
    """Per beat (in the order met), the knobs and words it read first, and its own lines."""

    order: list[str] = field(default_factory=lambda: [PRELUDE])
    knobs: dict[str, list[str]] = field(default_factory=dict)  # beat -> knob names
    words: dict[str, list[str]] = field(default_factory=dict)  # beat -> "lang/slug:key"
    own: dict[str, list[str]] = field(default_factory=dict)  # beat -> its say.<beat> reads
    _seen: set[tuple[str, str]] = field(default_factory=set)

    @property
    def beat(self) -> str:
        return self.order[-1]

    def enter(self, key: str) -> None:
        if key not in self.order:
            self.order.append(key)

    def knob(self, name: str) -> None:
        if ("knob", name) not in self._seen:
            self._seen.add(("knob", name))
            self.knobs.setdefault(self.beat, []).append(name)

    def word(self, lang: str, slug: str, key: str) -> None:
        name = f"{lang}/{slug}:{key}"
        if key == f"say.{self.beat}" or key.startswith(f"say.{self.beat}."):
            bucket = self.own.setdefault(self.beat, [])
            if name not in bucket:
                bucket.append(name)
        elif ("word", name) not in self._seen:
            self._seen.add(("word", name))
            self.words.setdefault(self.beat, []).append(name)

    def knob_names(self) -> list[str]:
        """Every knob read, in name order."""
        return sorted(name for kind, name in self._seen if kind == "knob")

    def as_dict(self) -> dict[str, dict[str, list[str]]]:
        """Beat -> {"knobs", "words", "own"}: JSON for the manifest, in beat order."""
        return {
            beat: {
                "knobs": self.knobs.get(beat, []),
                "words": self.words.get(beat, []),
                "own": self.own.get(beat, []),
            }
            for beat in self.order
        }


ACTIVE: Reads | None = None  # the build being watched, if any


@contextlib.contextmanager
def watching() -> Iterator[Reads]:
    """Record what the scene built inside this block reads."""
    global ACTIVE
    before, ACTIVE = ACTIVE, Reads()
    try:
        yield ACTIVE
    finally:
        ACTIVE = before


def word_read(lang: str, slug: str, key: str) -> None:
    if ACTIVE is not None:
        ACTIVE.word(lang, slug, key)


_FIELDS = frozenset(f.name for f in fields(Params))


class WatchedParams(Params):
    """Params that note every knob read. Equal only to itself, so that no cache keyed
    by params can answer for it without reading (each build's reads are its own)."""

    __eq__ = object.__eq__
    __hash__ = object.__hash__

    def __getattribute__(self, name: str):
        if name in _FIELDS and ACTIVE is not None:
            ACTIVE.knob(name)
        return super().__getattribute__(name)


def watched(params: Params) -> Params:
    """`params` noting its reads while a build is watched; as it is otherwise."""
    if ACTIVE is None or isinstance(params, WatchedParams):
        return params
    copy = object.__new__(WatchedParams)
    for name in _FIELDS:
        object.__setattr__(copy, name, object.__getattribute__(params, name))
    return copy
