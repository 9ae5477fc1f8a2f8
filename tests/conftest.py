import pytest


@pytest.fixture
def plugin_scenes(monkeypatch):
    """Register the tiny test scenes here and in every worker process this test spawns."""
    import scenes
    from tests import plugin_scenes

    monkeypatch.setenv("PE_SCENE_PLUGINS", "tests.plugin_scenes")
    for info in plugin_scenes.SCENES:
        scenes.register(info)
    yield plugin_scenes.SCENES
    for info in plugin_scenes.SCENES:
        scenes.unregister(info.slug)


@pytest.fixture(scope="session", autouse=True)
def private_media_dir(tmp_path_factory):
    """Each test process builds Text and TeX in its own Manim media_dir.

    Two xdist workers writing the same cached SVG at once can leave it cut short, and
    every later Text with those words then fails to load.
    """
    from manim import config

    config.media_dir = str(tmp_path_factory.mktemp("manim-media"))
