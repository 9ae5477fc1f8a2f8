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


def pytest_collection_modifyitems(config, items):
    """Send every test that builds one scene to the same test process (`--dist loadgroup`),
    so the scene's skip-animation builds are shared across test files."""
    import scenes

    by_module = {info.module.rpartition(".")[2]: info.slug for info in scenes.REGISTRY.values()}
    slugs = sorted(scenes.REGISTRY, key=len, reverse=True)
    for item in items:
        module = item.module.__name__.rpartition(".")[2]
        slug = by_module.get(module.removeprefix("test_scene_"))
        if slug is None and module in ("test_formats", "test_registry"):
            ident = getattr(getattr(item, "callspec", None), "id", "")
            slug = next((s for s in slugs if ident == s or ident.startswith(f"{s}-")), None)
        if slug is not None:
            item.add_marker(pytest.mark.xdist_group(slug))
