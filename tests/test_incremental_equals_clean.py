"""An edit's render equals a clean render: random edits of every kind a teacher makes
(tests/edit_fuzz.py), each rendered on top of the last render and clean into a fresh
folder, on a small scene of the tests and on a scene plugin kept outside the project."""

from __future__ import annotations

import importlib

import pytest

from tests import edit_fuzz

pytestmark = pytest.mark.render
SEED = 47  # its first render adds the bridge line beside an edit of the other scene
STEPS = 4  # renders checked, each after two edits: every kind of edit once


def test_every_edit_renders_as_a_clean_render_would(plugin_scenes, tmp_path, monkeypatch):
    world = edit_fuzz.World(tmp_path)
    edit_fuzz.enter(world.environment(), world.plugins, monkeypatch.setenv)
    monkeypatch.syspath_prepend(str(world.plugins))
    world.create()  # the plugin's module must exist before it is imported
    import scenes

    importlib.import_module(edit_fuzz.PLUGIN)
    try:
        slugs = [edit_fuzz.TINY, "fuzz-card"]
        outcome = edit_fuzz.run(world, SEED, STEPS, slugs, per_step=2, log=print)
    finally:
        scenes.unregister("fuzz-card")
    assert outcome.failures == []
    assert outcome.checked == outcome.held == STEPS
    assert sorted(outcome.kinds) == sorted(edit_fuzz.EDITS)
