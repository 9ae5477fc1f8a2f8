"""Cache keys cover everything a clip depends on, and nothing it does not."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lesson import registry
from pe_math import Params
from rendering.core import keys
from rendering.core.jobs import Job
from rendering.draw import clip_key

ROOT = Path(__file__).resolve().parent.parent
PROJECT = (*keys.PROJECT_PACKAGES, "render")


@pytest.mark.parametrize("info", [*registry.MISSION, *registry.CARDS], ids=lambda i: i.slug)
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


def test_a_chapter_key_covers_its_folder_the_kit_and_the_lessons_list():
    # the list numbers the chapters on screen; the other language's words are left out
    names = set(clip_key.sources(Job("clock-hands", Params(), "en"))["code"])
    folder = "scenes/chapters/clock_hands"
    assert {
        f"{folder}/scene.py",
        f"{folder}/__init__.py",
        f"{folder}/en.toml",
        "scenes/chapters/order.toml",
        "scenes/kit/base.py",
        "lesson/catalogue.py",
        "scenes/__init__.py",
    } <= names
    assert f"{folder}/zh.toml" not in names


def test_scenes_never_import_the_rendering_package():
    # rendering depends on scenes; the reverse would hide code from the cache key
    for path in (ROOT / "scenes").rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        assert "from rendering" not in source and "import rendering" not in source, path


def test_a_clip_key_holds_the_knobs_its_build_read():
    # an English build reads tokens_en, a Chinese one tokens (tests/test_registry.py)
    base = Params()
    zh_words = base.replace(tokens=("鸟", "吃", "虫"))
    en_words = base.replace(tokens_en=("bird", "eats", "worm"))
    en_read, zh_read = ["tokens_en", "X", "swap"], ["tokens", "X", "swap"]

    def params(p: Params, lang: str, read: list[str]) -> str:
        return clip_key.key_parts(Job("attention-shuffle", p, lang), read)["params"]

    en, zh = params(base, "en", en_read), params(base, "zh", zh_read)
    assert params(zh_words, "en", en_read) == en
    assert params(en_words, "en", en_read) != en
    assert params(en_words, "zh", zh_read) == zh
    assert params(zh_words, "zh", zh_read) != zh


def test_a_clip_key_covers_the_shared_words_and_the_next_chapters_title():
    # the bridge shows the next chapter's title, the verdicts the shared requirement names
    def files(slug: str) -> set[str]:
        code = clip_key.sources(Job(slug, Params(), "en"))["code"]
        return {f for f in code if f.endswith(".toml")}

    chapters, common = "scenes/chapters", {"scenes/captions/en/common.toml"}
    lesson = {f"{chapters}/order.toml"}  # the chapters' numbers
    assert files("pe-heatmap") == {
        f"{chapters}/pe_heatmap/en.toml",
        f"{chapters}/relative_shift/en.toml",
        *common,
        *lesson,
    }
    assert files("recap") == {f"{chapters}/recap/en.toml", *common, *lesson}  # no bridge


@pytest.mark.parametrize("change", ["font", "manimpango", "av"])
def test_the_font_and_the_text_and_video_libraries_are_in_the_clip_and_beat_keys(
    plugin_scenes, monkeypatch, change
):
    """Another font file, ManimPango or PyAV (with its libav and x264) draws or encodes
    other bytes: no clip or kept beat made with the old one may be reused."""
    from importlib import metadata

    from lesson import text_store
    from rendering.draw import segments

    job = Job("tiny-static", Params())
    before = (clip_key.key(job), segments.base(job))
    if change == "font":
        monkeypatch.setattr(text_store, "font_file", lambda font: "/other/NotoSansCJK.ttc:1:2")
    else:
        real = metadata.version
        monkeypatch.setattr(metadata, "version", lambda p: "99.0" if p == change else real(p))
    for cached in (getattr(keys, "machine", None), keys.manim_version):
        if cached is not None:
            cached.cache_clear()
    try:
        assert clip_key.key(job) != before[0]
        assert segments.base(job) != before[1]
    finally:
        monkeypatch.undo()
        for cached in (getattr(keys, "machine", None), keys.manim_version):
            if cached is not None:
                cached.cache_clear()


def test_a_plugin_outside_the_project_is_traced_with_its_own_helper_modules(tmp_path, monkeypatch):
    """A scene plugin may live anywhere on the import path: its key covers its module,
    the helper modules beside it and the project code it uses, not installed packages."""
    folder = tmp_path / "plugins"
    (folder / "outside_kit").mkdir(parents=True)
    (folder / "outside_scene.py").write_text(
        "import numpy\nimport outside_helper\nfrom outside_kit import shapes\n"
        "from scenes.kit.base import LessonScene\nX = outside_helper.SIZE + shapes.SIDES\n"
    )
    (folder / "outside_helper.py").write_text("SIZE = 1\n")
    (folder / "outside_kit" / "shapes.py").write_text("SIDES = 4\n")  # a namespace package
    monkeypatch.syspath_prepend(str(folder))
    names = {p.name for p in keys.module_closure("outside_scene")}
    assert {"outside_scene.py", "outside_helper.py", "shapes.py", "base.py"} <= names
    assert not any("numpy" in str(p) for p in keys.module_closure("outside_scene"))
    before = keys.sources("outside_scene")
    assert "plugins/outside_helper.py" in before  # named within its folder
    for helper, text in (
        ("outside_helper.py", "SIZE = 2\n"),
        ("outside_kit/shapes.py", "SIDES = 3\n"),
    ):
        (folder / helper).write_text(text)
        now = keys.sources("outside_scene")
        assert keys.hash_of(now) != keys.hash_of(before), helper
        before = now


# --- keys traced from the code -------------------------------------------------------

TREE = keys.PROJECT_PACKAGES


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A copy of the project's code that keys are computed from, to edit freely."""
    import shutil

    for name in TREE:
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(keys, "ROOT", tmp_path)
    return tmp_path


def renderer_key() -> str:
    return keys.hash_of(keys.sources(*clip_key.renderer_modules()))


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def append(path: Path, line: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")


def test_rewording_messages_and_docstrings_keeps_the_renderer_key(tree):
    before = renderer_key()
    edit(tree / "rendering/draw/join.py", "the parts do not join", "the parts would not join")
    edit(tree / "rendering/draw/scene.py", '"""Drawing one scene', '"""Draws one scene')
    edit(tree / "rendering/core/settings.py", "raise SettingsError(", "raise SettingsError(  # x\n")
    # the task module says what went wrong; it never writes a clip's bytes
    edit(tree / "rendering/run/task.py", "the disk is full", "the disk has no room left")
    append(tree / "rendering/run/task.py", "X = 1")
    assert renderer_key() == before


def test_only_calls_that_print_or_log_have_their_words_left_out(tree):
    """Words passed to print, warnings, click or a logger are messages; the same words
    passed to a drawing helper that is named `info` or `error` are drawn."""
    target = tree / "rendering/draw/encoders.py"
    append(target, 'def info(text):\n    return text\n\n\nTAG = info("made by v1")')
    append(target, 'def _say(logger, click):\n    logger.info("encoding")\n    click.echo("done")')
    before = renderer_key()
    edit(target, 'logger.info("encoding")', 'logger.info("encoding the clip")')
    edit(target, 'click.echo("done")', 'click.echo("all done")')
    assert renderer_key() == before
    edit(target, 'info("made by v1")', 'info("made by v2")')
    assert renderer_key() != before


@pytest.mark.parametrize(
    "where, old, new",
    [
        ("rendering/draw/config.py", '"crf": "23"', '"crf": "24"'),
        ("rendering/draw/packets.py", "packet.dts = None", "packet.dts = None\n            pass"),
        ("rendering/draw/encoders.py", "\nimport ", "\nLIMIT = 2\nimport "),
        ("rendering/speech/audio.py", "\nimport ", "\nGAIN = 0.5\nimport "),
    ],
    ids=["encoder-setting", "span-join", "encoders", "audio"],
)
def test_an_edit_to_code_that_writes_clip_bytes_changes_the_renderer_key(tree, where, old, new):
    before = renderer_key()
    edit(tree / where, old, new)
    assert renderer_key() != before


def test_every_module_of_the_draw_package_is_in_the_renderer_key(tree):
    (tree / "rendering/draw/mux.py").write_text("TRACKS = 1\n", encoding="utf-8")
    (tree / "rendering/draw/.#mux.py").write_text("an editor's lock file\n", encoding="utf-8")
    before = renderer_key()
    edit(tree / "rendering/draw/mux.py", "TRACKS = 1", "TRACKS = 2")
    assert renderer_key() != before


def test_the_render_drivers_own_modules_stay_out_of_the_renderer_key(tree):
    before = renderer_key()
    append(tree / "rendering/run/scheduler.py", "THRESHOLD = 9")
    append(tree / "rendering/run/pixel_stills.py", "THRESHOLD = 9")
    assert renderer_key() == before


def test_a_renamed_module_is_an_error_naming_who_imports_it(tree):
    (tree / "rendering/draw/encoders.py").rename(tree / "rendering/draw/encoding.py")
    with pytest.raises(
        keys.MissingModule,
        match=r"rendering/(draw/scene|draw/config|run/install).py imports rendering.draw.encoders",
    ):
        renderer_key()


def test_every_drawing_module_the_render_driver_imports_is_in_the_renderer_key():
    driver = {keys.project_module(p) for p in keys.module_closure("rendering.run.scheduler")}
    drawing = {name for name in driver if name.startswith("rendering.draw.")}
    assert "rendering.draw.scene" in drawing
    assert drawing <= set(clip_key.renderer_modules())


def test_imports_only_for_type_checking_are_not_in_the_key():
    files = {str(p.relative_to(ROOT)) for p in keys.module_closure("rendering.core.jobs")}
    assert "rendering/core/jobs.py" in files
    assert not any(f.startswith("rendering/speech/narration") for f in files)


def test_every_project_module_the_drawing_code_loads_is_in_the_renderer_or_scene_key(tmp_path):
    # draw a tiny scene in a fresh interpreter and see which project files it really loads
    probe = (
        "import json, sys; from pathlib import Path; from pe_math import Params; from lesson import registry;"
        "from tests import plugin_scenes; [registry.register(i) for i in plugin_scenes.SCENES];"
        "from rendering.core.jobs import Job; from rendering.draw import scene;"
        f"scene.render(Job('tiny', Params()), Path({str(tmp_path)!r}));"
        "print(json.dumps([m.__file__ for m in list(sys.modules.values())"
        " if getattr(m, '__file__', None)]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    loaded = {Path(f).resolve() for f in json.loads(out.stdout.splitlines()[-1])}
    drawing = {f for f in loaded if f.is_relative_to(ROOT / "rendering")}
    hashed = {p.resolve() for m in clip_key.renderer_modules() for p in keys.module_closure(m)}
    assert drawing, "the probe loaded no rendering module"
    assert drawing <= hashed, f"loaded but not in the key: {sorted(map(str, drawing - hashed))}"


def test_dry_run_names_the_module_that_changed_and_ignores_reworded_messages(tmp_path):
    import os
    import shutil

    project = tmp_path / "project"
    for name in TREE:
        shutil.copytree(ROOT / name, project / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "tests/captions", project / "tests/captions")
    for name in ("tests/__init__.py", "tests/plugin_scenes.py", "render.py"):
        shutil.copy(ROOT / name, project / name)
    env = {**os.environ, "PE_SCENE_PLUGINS": "tests.plugin_scenes"}

    def run(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "render.py", "render", "tiny", "--voice", "none", *args],
            cwd=project,
            env={**env, "COLUMNS": "250"},
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    run("--jobs", "1")
    edit(project / "rendering/run/task.py", "the disk is full", "the disk has no room")
    edit(project / "rendering/draw/join.py", "the parts do not join", "the parts would not join")
    assert "up to date" in run("--dry-run")
    edit(
        project / "rendering/draw/packets.py",
        "packet.dts = None",
        "packet.dts = None\n            pass",
    )
    plan = run("--dry-run")
    assert "render pipeline changed (rendering/draw/packets.py)" in plan, plan


def test_an_engine_edit_renames_that_engines_speech_only(tree):
    def code(engine: str) -> str:
        return keys.hash_of(keys.sources(f"rendering.speech.engines.{engine}"))

    before = {e: code(e) for e in ("piper", "espeak", "fastspeech2")}
    edit(tree / "rendering/speech/engines/piper.py", "noise_scale=0.0", "noise_scale=0.3")
    assert code("piper") != before["piper"]
    assert code("espeak") == before["espeak"] and code("fastspeech2") == before["fastspeech2"]
    append(tree / "rendering/speech/zh_frontend.py", "EXTRA = 1")
    assert code("espeak") != before["espeak"] and code("fastspeech2") != before["fastspeech2"]


def test_speech_shaping_follows_the_code_that_shapes_speech_not_its_messages(tree):
    def shaping() -> str:
        return keys.hash_of(keys.sources("rendering.speech.synthesis"))

    before = shaping()
    append(tree / "rendering/speech/narration.py", "STATUS = 'reworded'")
    edit(tree / "rendering/speech/audio.py", "raise AudioError(f", "raise AudioError(f'x' f")
    assert shaping() == before  # narration only arranges pieces; audio's edit was a message
    append(tree / "rendering/speech/audio.py", "HEADROOM = 0.5")
    assert shaping() != before


@pytest.fixture
def own_kept(tmp_path, monkeypatch):
    """A key cache of this test's own, empty, as a new process finds it."""
    monkeypatch.setenv("PE_KEY_CACHE", str(tmp_path / "kept"))
    monkeypatch.setattr(keys, "_kept", None)
    monkeypatch.setattr(keys, "_new", {})
    return tmp_path


def test_a_digest_is_kept_for_the_next_process_until_the_file_is_written_again(
    own_kept, tmp_path, monkeypatch
):
    """The next process takes a file's digest from disk without parsing it; after any
    write, even one of the same size that puts the old modification time back, the file
    is digested again."""
    source = tmp_path / "knob.py"
    source.write_text("X = 1\n", encoding="utf-8")
    first = keys.sources(extra_files=(source,))

    def next_process() -> None:
        keys._digest_at.cache_clear()
        monkeypatch.setattr(keys, "_kept", None)

    def unparsable(*args, **kwargs):
        raise AssertionError("parsed again")

    next_process()
    with monkeypatch.context() as m:
        m.setattr(keys.ast, "parse", unparsable)
        assert keys.sources(extra_files=(source,)) == first

    before = os.stat(source)
    source.write_text("X = 2\n", encoding="utf-8")
    os.utime(source, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(source).st_size == before.st_size
    next_process()
    assert keys.sources(extra_files=(source,)) != first


@pytest.mark.parametrize("value", [7, None, "zz", ["x"], [[1, ["a"]]], {"a": 1}])
def test_a_kept_value_of_the_wrong_type_is_worked_out_again(own_kept, tmp_path, monkeypatch, value):
    """A kept entry whose stamp holds but whose value is not what was kept is set aside."""
    source = tmp_path / "knob.py"
    source.write_text("import os\nX = 1\n", encoding="utf-8")
    first = keys.sources(extra_files=(source,))
    keys._write_kept()
    kept_file = keys._kept_file()
    kept = json.loads(kept_file.read_text(encoding="utf-8"))
    mine = [k for k in kept if k.endswith(f":{source}")]
    assert mine
    for name in mine:
        kept[name][1] = value
    kept_file.write_text(json.dumps(kept), encoding="utf-8")
    keys._digest_at.cache_clear()
    keys._import_statements.cache_clear()
    monkeypatch.setattr(keys, "_kept", None)
    monkeypatch.setattr(keys, "_new", {})
    assert keys.sources(extra_files=(source,)) == first


def test_a_fresh_copy_of_a_file_recalls_what_was_worked_out_for_its_bytes(
    own_kept, tmp_path, monkeypatch
):
    source = tmp_path / "a" / "knob.py"
    source.parent.mkdir()
    source.write_text('"""A knob."""\nimport os\nX = 1\n', encoding="utf-8")
    first = keys.sources(extra_files=(source,))
    keys._write_kept()
    copy = tmp_path / "b" / "knob.py"
    copy.parent.mkdir()
    copy.write_bytes(source.read_bytes())  # another path, another stamp, the same bytes
    keys._digest_at.cache_clear()
    monkeypatch.setattr(keys, "_kept", None)
    monkeypatch.setattr(keys, "_new", {})

    class Unparsed:
        def visit(self, tree):
            raise AssertionError("parsed again")

    monkeypatch.setattr(keys, "_WithoutMessages", Unparsed)
    assert keys.sources(extra_files=(copy,)) == first  # recalled, not parsed
    copy.write_text("X = 2\n", encoding="utf-8")  # other bytes are worked out
    keys._digest_at.cache_clear()
    with pytest.raises(AssertionError, match="parsed again"):
        keys.sources(extra_files=(copy,))
