"""`render --plan course.toml`: a matrix of sets × langs × scenes in one schedule.

The tiny plugin scenes (tests/plugin_scenes.py) render for real through the local
executor; one module-scoped course render (2 sets × 2 langs × 2 scenes) serves the
tests that read its folders.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from lesson import registry
from pe_math import Params
from render import cli
from rendering.cli import options as cli_options
from rendering.core.jobs import Job
from rendering.run.estimates import expected_seconds, pixel_rate

pytestmark = pytest.mark.render

COURSE = """
[course]
langs = ["en", "zh"]
qualities = ["l"]
aspects = ["16:9"]
scenes = ["tiny-static", "tiny"]
lesson = true

[sets.paper]

[sets.base100]
base = 100
"""
SETS = {"paper": 10000.0, "base100": 100.0}
LANG_LIST = ("en", "zh")


def invoke(*args: str):
    return CliRunner().invoke(cli, ["render", *args], catch_exceptions=False)


@pytest.fixture(scope="module")
def registered():
    """The tiny scenes, here and (through PE_SCENE_PLUGINS) in every worker process."""
    from tests import plugin_scenes  # importing registers them: not at collection, for all

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PE_SCENE_PLUGINS", "tests.plugin_scenes")
        for info in plugin_scenes.SCENES:
            registry.register(info)
        yield
        for info in plugin_scenes.SCENES:
            registry.unregister(info.slug)


@pytest.fixture(scope="module")
def course(registered, tmp_path_factory):
    """The course rendered once: (plan file, output root, the run's output)."""
    base = tmp_path_factory.mktemp("course")
    plan_file = base / "course.toml"
    plan_file.write_text(COURSE, encoding="utf-8")
    out = base / "media"
    result = invoke(
        "--plan", str(plan_file), "--voice", "none", "--jobs", "2", "--output", str(out)
    )
    assert result.exit_code == 0, result.output
    return plan_file, out, result.output


def test_each_set_gets_its_own_folders_manifest_gallery_and_lesson(course):
    _, out, output = course
    assert "8 rendered, 0 cached, 0 failed" in output
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == sorted(SETS)
    for name, base in SETS.items():
        for lang in LANG_LIST:
            folder = out / name / lang / "480p15"
            manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
            assert manifest["lang"] == lang and manifest["quality"] == "l"
            clips = manifest["clips"]
            assert set(clips) == {"tiny", "tiny-static"}
            assert clips["tiny"]["mp4"]["params"] == {"d_model": 8, "base": base}
            assert clips["tiny-static"]["mp4"]["params"] == {"n_bits": 4}
            for entry in (clips["tiny"]["mp4"], clips["tiny-static"]["mp4"]):
                assert (folder / entry["file"]).stat().st_size == entry["bytes"]
            # the lesson joins the listed scenes in lesson order
            assert [c["slug"] for c in manifest["lesson"]["chapters"]] == ["tiny", "tiny-static"]
            assert (folder / "lesson.mp4").is_file()
            gallery = (folder / "index.html").read_text(encoding="utf-8")
            assert "tiny.mp4" in gallery and "tiny-static.mp4" in gallery
            assert "lesson.mp4" in gallery
            assert (folder / "explore.html").is_file()
        # the two sets really differ where the knob is read, and only there
    paper = json.loads((out / "paper/en/480p15/manifest.json").read_text())["clips"]
    other = json.loads((out / "base100/en/480p15/manifest.json").read_text())["clips"]
    assert paper["tiny"]["mp4"]["key"] != other["tiny"]["mp4"]["key"]
    assert paper["tiny-static"]["mp4"]["key"] == other["tiny-static"]["mp4"]["key"]
    assert not (out / ".work").exists()
    assert not any(out.glob("*/.work"))


def test_a_second_run_reuses_every_clip_and_dry_run_prints_the_whole_plan(
    course, tmp_path, monkeypatch
):
    plan_file, out, _ = course
    monkeypatch.setattr(cli_options.console, "_width", 250)  # one table row per line
    again = invoke("--plan", str(plan_file), "--voice", "none", "--output", str(out))
    assert again.exit_code == 0, again.output
    assert "0 rendered, 8 cached, 0 failed" in again.output

    changed = tmp_path / "changed.toml"
    changed.write_text(COURSE.replace("base = 100", "base = 500"), encoding="utf-8")
    monkeypatch.setattr(cli_options.console, "width", 250)  # the plan: one line per clip
    dry = CliRunner().invoke(
        cli,
        ["render", "--plan", str(changed), "--dry-run", "--voice", "none", "--output", str(out)],
        catch_exceptions=False,
    )
    assert dry.exit_code == 0, dry.output
    assert "course: 2 sets (paper, base100) × 2 langs (en, zh)" in dry.output
    assert "= 8 jobs, each folder joined into lesson.mp4" in dry.output
    assert "8 jobs: 2 to render, 6 cached" in dry.output
    why = "knob base changed (read from beat 'one' on); all 2 beats to draw"
    rows = [line for line in dry.output.splitlines() if why in line]
    assert len(rows) == 2 and all("tiny" in r and "base100" in r for r in rows)
    assert json.loads((out / "base100/en/480p15/manifest.json").read_text())["clips"]["tiny"][
        "mp4"
    ]["params"]["base"] == pytest.approx(100.0)


def test_the_longest_jobs_are_expected_first_even_in_folders_never_rendered(course, tmp_path):
    _, out, _ = course
    params = Params()
    rendered = Job("tiny", params)  # 2.5 s in out/paper/en/480p15
    jobs = [
        Job("tiny-static", params),  # 1.5 s, known in its own folder
        Job("tiny", params, quality="m"),  # never rendered at 720p30: the 480p15 length
        rendered,
        Job("slow", params),  # never rendered anywhere, silent: unknown
    ]
    roots = [out / "paper", tmp_path, out / "paper", tmp_path]
    seconds = expected_seconds(jobs, roots)
    assert seconds[0] == pytest.approx(1.5, abs=0.1)
    assert seconds[1] == seconds[2] == pytest.approx(2.5, abs=0.1)
    assert seconds[3] is None
    cost = [(s or 0) * pixel_rate(j) for j, s in zip(jobs, seconds, strict=True)]
    assert sorted(range(4), key=lambda i: -cost[i]) == [1, 2, 0, 3]
    assert pixel_rate(Job("tiny", params, quality="h")) == 1.0


def test_the_example_course_file_is_valid():
    from rendering.run import course as course_mod

    root = Path(__file__).resolve().parent.parent
    example = course_mod.load(root / "docs" / "course.example.toml", Params())
    assert list(example.sets) == ["paper", "base100", "wide"]
    assert example.sets["base100"].base == 100 and example.sets["wide"].d_model == 16
    assert example.langs == ("en", "zh") and example.aspects == ("16:9", "9:16")
    assert example.lesson and example.size == 3 * 2 * 2 * len(registry.ordered())


BAD = [
    ("[course]\nlang = ['en']\n", "[course] unknown key 'lang'; did you mean 'langs'?"),
    ("[course]\nqualities = ['x']\n", "[course] qualities: 'x' is not one of t, l, m, h, k"),
    ("[course]\nscenes = ['tiny', 'tinny']\n", "[course] scenes: unknown scene 'tinny'"),
    ("[course]\n[sets.a]\nbse = 5\n", "[sets.a] unknown parameter 'bse'; did you mean 'base'?"),
    ("[course]\n[sets.a]\nbase = 0.5\n", "[sets.a] base=0.5: must be > 1"),
    ("[course]\n[sets.a]\nd_model = 'wide'\n", "[sets.a] d_model='wide': must be a whole number"),
    ("[course]\n[sets.'a/b']\n", "[sets.a/b] is not a usable folder name"),
    ("[course]\nlesson = 'yes'\n", "[course] lesson = 'yes' must be true or false"),
    ("[sets.a]\nbase = 5\n", "[course] is missing"),
    ("[course]\n" + "".join(f"[sets.s{i}]\n" for i in range(101)), "[sets] holds 101 sets"),
    ("[course]\n[sets.A]\n[sets.a]\n", "[sets.a] differs from [sets.A] only in case"),
    (
        "[course]\nlangs = ['en', 'zh']\nqualities = ['l', 'm', 'h', 'k']\n"
        "aspects = ['16:9', '9:16', '1:1']\nscenes = ['clock-hands', 'recap', 'variants']\n"
        + "".join(f"[sets.s{i}]\n" for i in range(100)),
        f"[course] makes {100 * 2 * 4 * 3 * 3:,} jobs; one plan may make 5,000 at most",
    ),
]


@pytest.mark.parametrize(("text", "message"), BAD, ids=[m.split(" ")[1] for _, m in BAD])
def test_a_bad_plan_is_one_line_and_exit_2_with_nothing_written(
    plugin_scenes, tmp_path, text, message
):
    plan_file = tmp_path / "course.toml"
    plan_file.write_text(text, encoding="utf-8")
    out = tmp_path / "media"
    result = CliRunner().invoke(cli, ["render", "--plan", str(plan_file), "--output", str(out)])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith(f"error: {plan_file}: ") and message in lines[0], lines[0]
    assert not out.exists()


def test_plan_refuses_the_options_it_sets_itself(plugin_scenes, tmp_path):
    plan_file = tmp_path / "course.toml"
    plan_file.write_text("[course]\nscenes = ['tiny']\n", encoding="utf-8")
    for extra in (["-q", "h"], ["--lang", "zh"], ["tiny"], ["--all"], ["--lesson"]):
        result = CliRunner().invoke(
            cli, ["render", *extra, "--plan", str(plan_file), "--output", str(tmp_path / "m")]
        )
        assert result.exit_code == 2, (extra, result.output)
        assert result.output.startswith("error: --plan takes the scenes, langs, qualities")
        assert len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "m").exists()


def test_a_new_set_borrows_another_sets_timings_to_split_its_long_pole(
    plugin_scenes, tmp_path, monkeypatch
):
    from rendering.run import split

    monkeypatch.setattr(split, "MIN_PART_SECONDS", 0.0)  # the test scene is a few seconds
    plan_file = tmp_path / "course.toml"
    out = tmp_path / "media"

    def run(sets: str) -> dict:
        plan_file.write_text(f'[course]\nscenes = ["tiny"]\n{sets}', encoding="utf-8")
        result = invoke("--plan", str(plan_file), "--voice", "none", "--output", str(out))
        assert result.exit_code == 0, result.output
        return {
            name: json.loads((out / name / "en/480p15/manifest.json").read_text())["clips"]["tiny"][
                "mp4"
            ]
            for name in ("paper", "base100")
            if (out / name).is_dir()
        }

    first = run("[sets.paper]\n")
    assert first["paper"]["parts"] == 1  # nothing rendered before: no timings anywhere
    both = run("[sets.paper]\n[sets.base100]\nbase = 100\n")
    # paper is up to date; base100 renders alone, split by paper's timings of the same clip
    assert both["paper"] == first["paper"]
    assert both["base100"]["parts"] == 2
    assert both["base100"]["frames"] == first["paper"]["frames"]
    assert both["base100"]["params"]["base"] == 100.0
