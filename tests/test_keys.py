"""Cache keys cover everything a clip depends on, and nothing it does not."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import scenes
from pe_math import Params
from rendering.core import keys
from rendering.core.jobs import Job

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ("scenes", "pe_math", "rendering", "render")


@pytest.mark.parametrize("info", [*scenes.MISSION, *scenes.CARDS], ids=lambda i: i.slug)
def test_every_project_module_a_scene_imports_is_in_its_key(info):
    # import the scene in a fresh interpreter and see which project files it really loads
    probe = (
        f"import json, sys, importlib; importlib.import_module({info.module!r}); "
        "print(json.dumps([m.__file__ for m in list(sys.modules.values()) "
        "if getattr(m, '__file__', None)]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    loaded = {Path(f).resolve() for f in json.loads(out.stdout)}
    mine = {f for f in loaded if f.is_relative_to(ROOT) and f.relative_to(ROOT).parts[0] in PROJECT}
    hashed = {p.resolve() for p in keys.module_closure(info.module)}
    assert mine <= hashed, f"loaded but not in the key: {sorted(map(str, mine - hashed))}"


def test_scenes_never_import_the_rendering_package():
    # rendering depends on scenes; the reverse would hide code from the cache key
    for path in (ROOT / "scenes").glob("*.py"):
        source = path.read_text(encoding="utf-8")
        assert "from rendering" not in source and "import rendering" not in source, path.name


def test_a_clip_key_reads_only_its_own_languages_words():
    base = Params()
    zh_words = base.replace(tokens=("鸟", "吃", "虫"))
    en_words = base.replace(tokens_en=("bird", "eats", "worm"))
    en = Job("attention-shuffle", base, "en").key_parts()["params"]
    zh = Job("attention-shuffle", base, "zh").key_parts()["params"]
    assert Job("attention-shuffle", zh_words, "en").key_parts()["params"] == en
    assert Job("attention-shuffle", en_words, "en").key_parts()["params"] != en
    assert Job("attention-shuffle", en_words, "zh").key_parts()["params"] == zh
    assert Job("attention-shuffle", zh_words, "zh").key_parts()["params"] != zh
