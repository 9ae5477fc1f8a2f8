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
