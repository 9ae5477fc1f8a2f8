"""One record per concept: a command's options build their Job by name with the Job's
defaults, the scenes argument is declared once, and the run prints no tables itself."""

from __future__ import annotations

import dataclasses

import click
import pytest

from pe_math import Params
from render import cli
from rendering.core.jobs import Job
from rendering.run.request import JobOptions
from tests.test_architecture import import_graph, project_modules


def test_job_options_take_a_jobs_defaults_and_build_it_by_name():
    params = Params()
    assert JobOptions().job("clock-hands", params) == Job("clock-hands", params)
    opts = JobOptions(lang="zh", quality="m", fmt="webm", aspect="9:16", transparent=True)
    job = opts.job("clock-hands", params, quality="h")
    assert (job.lang, job.quality, job.fmt, job.aspect) == ("zh", "h", "webm", "9:16")
    assert job.variant == "webm.alpha" and job.narration is None


def test_every_setting_a_job_and_its_options_share_has_one_default():
    job = {f.name: f.default for f in dataclasses.fields(Job)}
    shared = [f for f in dataclasses.fields(JobOptions) if f.name in job]
    assert len(shared) == 6 and all(f.default == job[f.name] for f in shared)


@pytest.mark.parametrize("name", ["render", "script", "motion", "listen", "slides"])
def test_the_commands_that_take_scenes_take_them_alike(name):
    params = {p.name: p for p in cli.commands[name].params}
    slugs, every = params["slugs"], params["all_"]
    assert isinstance(slugs, click.Argument) and slugs.nargs == -1
    assert every.opts == ["--all"] and every.is_flag


def test_the_run_prints_no_tables_the_cli_does():
    for module, path in project_modules().items():
        if module.startswith("rendering.run"):
            assert "rich.table" not in path.read_text(encoding="utf-8"), module
    assert "rendering.cli.tables" in import_graph()["rendering.cli.render_cmd"]
