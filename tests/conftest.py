import os
import shutil
import subprocess
from pathlib import Path

import pytest


@pytest.fixture
def plugin_scenes(monkeypatch):
    """Register the tiny test scenes here and in every worker process this test spawns."""
    from lesson import registry
    from tests import plugin_scenes

    monkeypatch.setenv("PE_SCENE_PLUGINS", "tests.plugin_scenes")
    for info in plugin_scenes.SCENES:
        registry.register(info)
    yield plugin_scenes.SCENES
    for info in plugin_scenes.SCENES:
        registry.unregister(info.slug)


@pytest.fixture
def small_disk(tmp_path):
    """A 20 MB tmpfs of our own (root only), unmounted afterwards."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root")
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=20m", "tmpfs", str(disk)])
    if mounted.returncode != 0:
        pytest.skip("this machine does not let us mount a tmpfs")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


@pytest.fixture(scope="session", autouse=True)
def private_media_dir(tmp_path_factory):
    """Each test process builds Text and TeX in its own Manim media_dir, in one frame.

    Two xdist workers writing the same cached SVG at once can leave it cut short, and
    every later Text with those words then fails to load.
    """
    from manim import config

    from lesson import text_store
    from rendering.core import settings

    config.media_dir = str(tmp_path_factory.mktemp("manim-media"))
    # set words are kept for every worker of this run and the processes they start
    os.environ[text_store.CACHE_ENV] = str(run_folder(tmp_path_factory) / "text-cache")
    # Builds run in the 16:9 frame of the 480-line preset, the one test_formats checks
    # 16:9 in: a scene's own tests, its field probe and that check then share one build.
    config.update(settings.geometry("l", "16:9").manim_frame())


def run_folder(tmp_path_factory) -> Path:
    """A folder every worker of this run shares (the base of its own temporary folders)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def run_speech(tmp_path_factory) -> Path:
    """One speech cache for the whole run, both workers included."""
    folder = run_folder(tmp_path_factory) / "speech-cache"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture
def shared_speech(run_speech):
    """`shared_speech(output)` gives an output folder the run's speech cache, for a test whose
    speech is a means, not what it checks: several speak the same lines of `tiny` with
    Kokoro. A cached piece is named by what made it (engine, voice, words, the shaping
    code), so a test with other words or voices makes its own; and each piece is written
    to a temporary name and renamed into place, so two workers may write one at once."""
    from rendering.speech.narration import CACHE

    def link(output):
        output.mkdir(parents=True, exist_ok=True)
        (output / CACHE).symlink_to(run_speech, target_is_directory=True)
        return output

    return link


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """A browser test needs Chromium: skipped without it, failed under CI=true. Checked
    before its fixtures, so no page is rendered for a test that cannot run."""
    if item.get_closest_marker("browser") is not None:
        from tests.browser_tools import require_browser

        require_browser()


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Under plain `-n`, every test of one scene in one language goes to one worker.

    scene_tools keeps each build for the rest of its process. The scene's own tests,
    the frame-shape checks of test_formats and the field probe of test_registry build
    the same scene at the same knobs: on one worker that build runs once, where spread
    over two it would run on both. The tests of a file in ONE_WORKER_FILES share a
    module fixture as dear and go to one worker too. Every other test is handed out alone.
    """
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SceneScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            file = nodeid.partition("::")[0]
            shared = file.rpartition("/")[2].removesuffix(".py") in ONE_WORKER_FILES
            return scene_scope(nodeid) or (file if shared else nodeid)

    return SceneScheduling(config, log)


# The dearest files, dearest first. They start first, so that two workers end together
# instead of one finishing a long round trip alone after the other is done.
DEAR_FILES = (
    "test_voices_heard",
    "test_incremental_equals_clean",
    "test_bench",
    "test_split",
    "test_farm",
    "test_install",
    "test_pixel_stills",
)


def pytest_collection_modifyitems(config, items):
    def rank(item) -> int:
        file = item.path.stem
        return DEAR_FILES.index(file) if file in DEAR_FILES else len(DEAR_FILES)

    items.sort(key=rank)  # stable: the order inside each group stays as collected


BUILDING_FILES = ("test_formats", "test_registry")  # besides test_scene_*: they build scenes
ONE_WORKER_FILES = ("test_install",)  # one wheel and one fresh environment for the file


def scene_scope(nodeid: str) -> str | None:
    """`scene:<slug>:<lang>` for a test that builds one lesson scene, else None."""
    from lesson import registry

    path, _, name = nodeid.partition("::")
    file = path.rpartition("/")[2].removesuffix(".py")
    ids = name.partition("[")[2].removesuffix("]")
    slugs = [info.slug for info in registry.ordered()]
    if file.startswith("test_scene_"):
        slug = file.removeprefix("test_scene_").replace("_", "-")
    elif file not in BUILDING_FILES:
        return None
    else:
        slug = next((s for s in sorted(slugs, key=len, reverse=True) if ids.startswith(s)), None)
    if slug not in slugs:
        return None
    lang = "zh" if "zh" in ids.split("-") else "en"
    return f"scene:{slug}:{lang}"
