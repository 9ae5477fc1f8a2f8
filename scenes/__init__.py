"""The scene registry: slug → scene class, order, titles and the Params fields it reads.

Scene modules are imported only when a scene is needed, so listing the lesson
stays fast and never starts Manim.
"""

from __future__ import annotations

import difflib
import importlib
import os
from dataclasses import dataclass

from pe_math.params import shown
from scenes.catalogue import COMMON, LANGS, has, lookup, path_for
from scenes.catalogue import catalogue as parsed  # `scenes.catalogue` stays the module
from scenes.reads import NEXT, word_read


class UnknownScene(KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class SceneInfo:
    slug: str
    module: str  # importable module, e.g. "scenes.clock_hands"
    class_name: str
    order: int
    # the Params fields the scene reads at the defaults, for people (`render.py list`);
    # a clip's key holds the fields its build read (scenes.reads), never this list
    fields: tuple[str, ...]

    def fields_for(self, lang: str) -> tuple[str, ...]:
        """The fields a clip in `lang` reads: the other language's words are left out."""
        return tuple(f for f in self.fields if LANGUAGE_FIELDS.get(f, lang) == lang)

    def title(self, lang: str) -> str:
        return lookup(lang, self.slug, "title")

    def load(self):
        """The scene class (imports Manim)."""
        return getattr(importlib.import_module(self.module), self.class_name)

    @property
    def stem(self) -> str:
        """Output file stem, e.g. '05-clock-hands'."""
        return f"{self.order:02d}-{self.slug}"


SINUSOID = ("d_model", "base", "layout", "variant")
LANGUAGE_FIELDS = {"tokens": "zh", "tokens_en": "en"}  # words shown in one language only

MISSION = (
    SceneInfo(
        "attention-shuffle",
        "scenes.attention_shuffle",
        "AttentionShuffle",
        1,
        ("tokens", "tokens_en", "X", "swap", "proj_seed", "proj_scale"),
    ),
    SceneInfo(
        "integer-scale",
        "scenes.integer_scale",
        "IntegerScale",
        2,
        # the verdict's integer codes and the concat beat's layer and paper-width PE too
        (
            "word_a",
            "word_b",
            "int_position",
            "int_max_position",
            "d_model",
            "max_len",
            "base",
            "proj_seed",
            "proj_scale",
            "train_len",  # the verdict: integers past the training length were never seen
        ),
    ),
    SceneInfo("binary-bits", "scenes.binary_bits", "BinaryBits", 3, ("n_bits",)),
    SceneInfo(
        "square-to-sine",
        "scenes.square_to_sine",
        "SquareToSine",
        4,
        ("n_bits", "fourier_terms", "max_len") + SINUSOID,
    ),
    SceneInfo(
        "clock-hands",
        "scenes.clock_hands",
        "ClockHands",
        5,
        ("clock_max_position", "clocks_shown", "ambiguity_positions") + SINUSOID,
    ),
    SceneInfo(
        "similarity",
        "scenes.similarity",
        "Similarity",
        6,
        ("max_len", "similarity_d_model", "n_bits") + SINUSOID,
    ),
    SceneInfo(
        "pe-heatmap",
        "scenes.pe_heatmap",
        "PeHeatmap",
        7,
        ("max_len", "heat_d_model", "heat_dims", "base", "layout", "variant"),
    ),
    SceneInfo(
        "relative-shift",
        "scenes.relative_shift",
        "RelativeShift",
        8,
        ("shift_p", "shift_k", "shift_dot_positions", "max_len", "train_len") + SINUSOID,
    ),
    SceneInfo(
        "rope-rotation",
        "scenes.rope_rotation",
        "RopeRotation",
        9,
        (
            "rope_q",
            "rope_k",
            "rope_m",
            "rope_n",
            "rope_shift",
            "rope_pair",
            "rope_pairing",
            "d_model",
            "base",
            "max_len",
            "train_len",
            "layout",
            "variant",
            "proj_seed",
            "proj_scale",
        ),
    ),
    SceneInfo(
        "variants",
        "scenes.variants",
        "Variants",
        10,
        (
            "learned_max_len",
            "learned_seed",
            "alibi_heads",
            "t5_num_buckets",
            "t5_max_distance",
            "t5_bidirectional",
            "d_model",
            "base",
        ),
    ),
    SceneInfo(
        "long-context",
        "scenes.long_context",
        "LongContext",
        11,
        ("train_len", "target_len", "rope_base", "rope_head_dim"),
    ),
    SceneInfo(
        "recap",
        "scenes.recap",
        "Recap",
        12,
        ("max_len", "learned_max_len", "learned_seed", "n_bits", "int_position", "train_len")
        + SINUSOID,
    ),
)

# The lesson's opening and closing cards: lesson.mp4 starts and ends with them.
CARDS = (
    SceneInfo("lesson-intro", "scenes.lesson_cards", "LessonIntro", 0, ()),
    SceneInfo("lesson-outro", "scenes.lesson_cards", "LessonOutro", 99, ()),
)

REGISTRY: dict[str, SceneInfo] = {}


def register(info: SceneInfo) -> None:
    REGISTRY[info.slug] = info


def unregister(slug: str) -> None:
    REGISTRY.pop(slug, None)


def ordered() -> list[SceneInfo]:
    return sorted(REGISTRY.values(), key=lambda i: (i.order, i.slug))


def chapters() -> list[SceneInfo]:
    """The lesson's chapters (every registered scene between the cards), in order."""
    first, last = (card.order for card in CARDS)
    return [info for info in ordered() if first < info.order < last]


def next_chapter(slug: str) -> SceneInfo | None:
    """The chapter after `slug` in the lesson, or None after the last."""
    lesson = chapters()
    slugs = [info.slug for info in lesson]
    at = slugs.index(slug) + 1 if slug in slugs else len(slugs)
    return lesson[at] if at < len(slugs) else None


def bridge_to(slug: str, lang: str) -> SceneInfo | None:
    """The chapter `slug` ends by pointing to: the next one, when its catalogue in
    `lang` has a bridge line."""
    if not has(lang, slug, "say.bridge"):
        return None
    word_read(lang, slug, NEXT)  # a chapter registered in between changes it
    return next_chapter(slug)


def catalogue_files(slug: str, lang: str) -> tuple:
    """The catalogues a scene's frames read in `lang`: its own, the shared words, and,
    when it ends on a bridge, the next chapter's (its title appears there)."""
    return tuple(path_for(lang, s) for s in _catalogues_read(slug, lang))


def _catalogues_read(slug: str, lang: str) -> tuple[str, ...]:
    following = bridge_to(slug, lang)
    return (slug, COMMON) + ((following.slug,) if following else ())


def check_catalogues(slug: str) -> None:
    """Read every catalogue a clip of `slug` reads (its captions are in both languages),
    so that a missing or broken one is a CatalogueError before anything is drawn."""
    for lang in LANGS:
        for read in _catalogues_read(slug, lang):
            parsed(lang, read)


def get(slug: str) -> SceneInfo:
    """The scene for `slug`, or an error naming the closest slug."""
    try:
        return REGISTRY[slug]
    except KeyError:
        close = difflib.get_close_matches(slug, list(REGISTRY), n=1, cutoff=0.4)
        hint = f"did you mean {close[0]!r}?" if close else "run `python render.py list` to see them"
        raise UnknownScene(f"unknown scene {shown(slug)}; {hint}") from None


for _info in (*MISSION, *CARDS):
    register(_info)

# Extra scenes: PE_SCENE_PLUGINS names modules (comma-separated) that call register().
# Worker processes inherit the variable, so plugin scenes render like built-in ones.
for _name in filter(None, (n.strip() for n in os.environ.get("PE_SCENE_PLUGINS", "").split(","))):
    importlib.import_module(_name)
