"""Output formats live in one registry: nothing else compares a format's name, and a
format is added by registering one record."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pe_math import Params
from rendering.core import formats, settings
from rendering.core.jobs import Job
from rendering.core.manifest import ClipEntry
from rendering.draw import config, encoders, segments
from rendering.publish import gallery, web

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = ROOT / "rendering" / "core" / "formats.py"


def format_words() -> set[str]:
    """What names a format in code: its name, its extension, its MIME type."""
    return {w for f in formats.every() for w in (f.name, f.extension, f.mime)}


def compared_formats(source: str, words: set[str]) -> list[tuple[int, str]]:
    """(line, text) of every format name, extension or MIME type (or a variant of one,
    `mp4.captioned`) that `source` compares with, looks up by, or lists beside another."""

    def named(node) -> list[ast.Constant]:
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            return [c for item in node.elts for c in named(item)]
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            value = node.value
            return [node] if value in words or value.partition(".")[0] in words else []
        return []

    found: list[ast.Constant] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            found += [c for side in (node.left, *node.comparators) for c in named(side)]
        elif isinstance(node, ast.Dict):
            found += [c for key in node.keys if key is not None for c in named(key)]
        elif isinstance(node, ast.Subscript):
            found += named(node.slice)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("endswith", "startswith", "get", "entry", "removesuffix"):
                found += [c for arg in node.args for c in named(arg)]
        elif isinstance(node, ast.Tuple | ast.List | ast.Set) and len(named(node)) > 1:
            found += named(node)  # a list of formats kept beside the registry
    return sorted({(c.lineno, c.value) for c in found})


def test_the_finder_sees_a_compared_format_and_passes_prose():
    words = format_words()
    source = (
        'if fmt == "gif" or x in ("webm.alpha",):\n'
        '    y = {"mp4": 1}["png"], ("mp4", "webm"), name.endswith(".mp4")\n'
        'poster = f"{stem}.png"\n'
        'writer = open("out", format="gif")\n'
    )
    assert compared_formats(source, words) == [
        (1, "gif"),
        (1, "webm.alpha"),
        (2, ".mp4"),
        (2, "mp4"),
        (2, "png"),
        (2, "webm"),
    ]


def test_no_format_name_outside_the_registry():
    words = format_words()
    wrong = []
    for path in sorted((ROOT / "rendering").rglob("*.py")) + [ROOT / "render.py"]:
        if path == REGISTRY:
            continue
        for line, text in compared_formats(path.read_text(encoding="utf-8"), words):
            wrong.append(f"{path.relative_to(ROOT)}:{line}: {text!r}")
    assert wrong == []


def test_an_unknown_format_is_refused_with_the_known_ones():
    with pytest.raises(settings.SettingsError, match="use one of mp4, webm, gif, png"):
        settings.check_format("avi", False)
    with pytest.raises(settings.SettingsError, match="use --format webm or gif"):
        settings.check_format("mp4", True)


@pytest.fixture
def toy():
    """A made-up playable video format, registered for one test."""
    before = dict(formats._REGISTRY)
    fmt = formats.register(
        formats.Format(
            "toy",
            "video/x-toy",
            alpha=True,
            playable=True,
            video_codec="toycodec",
            audio_codec="toysound",
            audio_bitrate=1000,
        )
    )
    yield fmt
    formats._REGISTRY.clear()
    formats._REGISTRY.update(before)


def test_a_format_registered_as_one_record_is_used_everywhere(toy):
    settings.check_format("toy", True)  # accepted, and with alpha
    job = Job("clock-hands", Params(), fmt="toy", transparent=True)
    assert job.format is toy and job.filename == f"{job.info.stem}.alpha.toy"
    cfg = config.manim_config(job, Path("media"))
    assert cfg["format"] == "toy" and cfg["write_to_movie"] and not cfg["save_last_frame"]
    assert encoders.checked_rate(job) == 15 and not segments.segmentable(job)
    entry = ClipEntry(
        slug="clock-hands", file="a.toy", duration=1, frames=1, width=2, height=2, fps=1
    )
    assert web.video_sources({"toy.alpha": entry}) == [("a.toy", "video/x-toy")]
    assert web.lesson_sources("lesson.toy") == [("lesson.toy", "video/x-toy")]
    assert "toy.captioned" in gallery.shown_first()
    assert formats.by_extension(".TOY") is toy
