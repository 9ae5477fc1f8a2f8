"""The click driver: usage, help and error paths, without rendering."""

import json
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from render import cli


def run(*args):
    return CliRunner().invoke(cli, list(args))


def test_every_option_of_every_command_has_help_text():
    for name, command in cli.commands.items():
        for param in command.params:
            if param.param_type_name == "option":
                assert param.help, f"{name} {param.opts} has no help text"
        assert command.help


def test_help_lists_the_commands():
    result = run("--help")
    assert result.exit_code == 0
    for command in ("list", "render", "numbers", "preview", "script", "slides", "clean"):
        assert command in result.output


@pytest.mark.parametrize(
    "args,message",
    [
        (["render", "clock-hand"], "unknown scene 'clock-hand'; did you mean 'clock-hands'?"),
        (["render"], "name at least one scene"),
        (["render", "--all", "clock-hands"], "give scene names or --all, not both"),
        (["render", "clock-hands", "--set", "d_model=7"], "d_model=7: must be even and >= 2"),
        (
            ["render", "clock-hands", "--set", "bsae=10"],
            "unknown parameter 'bsae'; did you mean 'base'?",
        ),
        (["render", "clock-hands", "--set", "base"], "is not KEY=VALUE"),
        (["render", "clock-hands", "--transparent"], "--transparent cannot be used with mp4"),
        (["numbers", "rope"], "unknown scene 'rope'"),
        (["render", "clock-hands", "--aspect", "4:3"], "'4:3' is not one of '16:9', '9:16', '1:1'"),
        (["render", "clock-hands", "-j", "0"], "0 is not in the range x>=1"),
        (["numbers", "clock-hands", "--config", "."], "is a directory"),
        (["numbers", "clock-hands", "--config", "/dev/zero"], "is not a regular file"),
        (["numbers", "clock-hands", "--seed", "4294967296"], "must be at most 4,294,967,295"),
        (
            ["numbers", "attention-shuffle", "--set", 'tokens_en=["cat", "\U0001f600", "dog"]'],
            "has no glyph for \U0001f600",
        ),
        (["frobnicate"], "No such command 'frobnicate'"),
    ],
)
def test_usage_errors_are_one_line_with_exit_code_2(args, message):
    result = run(*args)
    assert result.exit_code == 2
    assert message in result.output


def test_an_unknown_scene_with_no_close_name_points_to_the_installed_list_command():
    result = run("numbers", "zzzzzz")
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "error: unknown scene 'zzzzzz'; run `pe-explainer list` "
        "(or `python render.py list` in a checkout) to see them"
    ]
    project = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())
    assert "pe-explainer" in project["project"]["scripts"]  # the command the hint names
    assert result.output.count("\n") == 1 and result.output.startswith("error: ")


def test_unreadable_config_is_reported(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("base = = 2")
    result = run("render", "clock-hands", "--config", str(bad), "--dry-run")
    assert result.exit_code == 2 and "is not valid TOML" in result.output


def test_output_that_is_not_writable_is_reported(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = run("render", "clock-hands", "--output", str(blocker / "media"))
    assert result.exit_code == 2
    assert "cannot write to" in result.output and "--output" in result.output


def test_dry_run_plans_every_scene_without_rendering(tmp_path):
    result = run("render", "--all", "--dry-run", "--output", str(tmp_path))
    assert result.exit_code == 0
    assert "never rendered" in result.output
    assert not any(tmp_path.iterdir())


def test_numbers_follow_the_params(plugin_scenes):
    default = json.loads(run("numbers", "tiny", "--json").output)
    changed = json.loads(run("numbers", "tiny", "--json", "--set", "base=100").output)
    assert default == {"omega_1": pytest.approx(10000 ** (-2 / 8))}
    assert changed == {"omega_1": pytest.approx(100 ** (-2 / 8))}


def test_list_shows_titles_and_fields(plugin_scenes, tmp_path):
    result = CliRunner().invoke(cli, ["list", "--output", str(tmp_path)], terminal_width=200)
    assert result.exit_code == 0
    assert (
        "tiny-static" in result.output
        and "静态测试场景" in result.output
        and "n_bits" in result.output
    )


def test_list_prints_whole_slugs_when_piped_and_json_on_request(tmp_path):
    plain = run("list", "--voice", "none", "--output", str(tmp_path))
    assert plain.exit_code == 0
    rows = {line.split("\t")[1]: line.split("\t") for line in plain.output.splitlines()}
    assert rows["clock-hands"][0] == "05" and rows["clock-hands"][-1] == "never rendered"
    assert "clock_max_position" in rows["clock-hands"][-2].split(",")
    data = json.loads(run("list", "--json", "--voice", "none", "--output", str(tmp_path)).output)
    by_slug = {row["slug"]: row for row in data}
    assert by_slug["rope-rotation"]["reads"][:1] and not by_slug["rope-rotation"]["up_to_date"]
    assert by_slug["clock-hands"]["titles"]["en"]


def test_a_file_that_is_not_valid_python_behind_a_key_is_one_line(tmp_path, monkeypatch, capsys):
    """A scene file saved half-edited: the render names the file and line, not a traceback."""
    from rendering.cli import render_cmd
    from rendering.core import keys

    broken = tmp_path / "half_edited.py"
    broken.write_text("X = 1\ndef beat(:\n", encoding="utf-8")
    monkeypatch.setattr(render_cmd, "plan", lambda *a, **k: keys.sources(extra_files=(broken,)))
    with pytest.raises(SystemExit) as ended:
        cli.main(["render", "clock-hands", "--dry-run", "--voice", "none"])
    assert ended.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        "error: half_edited.py is not valid Python (line 2: invalid syntax); fix it and run again"
    )


@pytest.fixture
def words(tmp_path, monkeypatch):
    """A copy of the project's catalogues, read instead of them: a test may break one."""
    import shutil

    from lesson import catalogue

    copy = tmp_path / "captions"
    shutil.copytree(catalogue.ROOT, copy)
    shutil.copytree(
        catalogue.CHAPTERS, tmp_path / "chapters", ignore=shutil.ignore_patterns("*.py")
    )
    monkeypatch.setattr(catalogue, "ROOT", copy)
    monkeypatch.setattr(catalogue, "CHAPTERS", tmp_path / "chapters")
    monkeypatch.setattr(catalogue, "ROOTS", [copy])
    monkeypatch.delenv(catalogue.OVERRIDE, raising=False)
    catalogue.catalogue.cache_clear()
    yield copy
    catalogue.catalogue.cache_clear()


@pytest.mark.parametrize("damage", ["syntax", "missing"])
@pytest.mark.parametrize(
    "command",
    [
        ["render", "clock-hands", "--dry-run", "--voice", "none"],
        ["render", "clock-hands", "--voice", "none"],
        ["script", "clock-hands"],
        ["list"],
    ],
    ids=lambda c: " ".join(c),
)
def test_a_broken_or_missing_catalogue_is_one_line_naming_file_line_and_fix(
    words, tmp_path, command, damage
):
    if damage == "syntax":  # the teacher's likeliest slip, in the words of the other language
        broken = words.parent / "chapters" / "clock_hands" / "zh.toml"
        lines = broken.read_text(encoding="utf-8").count("\n")
        with broken.open("a", encoding="utf-8") as f:
            f.write("x = = 1\n")
        expected = f"{broken} is not valid TOML at line {lines + 1}, column 5 (invalid value)"
    else:
        broken = words / "en" / "common.toml"
        broken.unlink()
        expected = f"no en catalogue for scene 'common': {broken} is missing; restore it"
    out = tmp_path / "out"
    result = run(*command, "--output", str(out))
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and result.output.startswith("error: "), result.output
    assert expected in result.output
    assert "fix the syntax there" in result.output or damage == "missing"
    assert not list(out.rglob("*.*"))  # nothing made, not even the speech cache


def test_watch_reports_a_broken_catalogue_in_one_line_and_keeps_watching(
    tmp_path, monkeypatch, capsys
):
    from lesson import catalogue
    from rendering.cli.watch_cmd import Loop
    from rendering.run.request import JobOptions

    own = tmp_path / "words" / "en"
    own.mkdir(parents=True)
    (own / "clock-hands.toml").write_text('title = "Clock hands"\n[say\n', encoding="utf-8")
    monkeypatch.setenv(catalogue.OVERRIDE, str(tmp_path / "words"))  # read by the render

    class Page:
        told: list = []

        def tell(self, event):
            self.told.append(event)

    page = Page()
    Loop(["clock-hands"], JobOptions(output=tmp_path / "out"), page).render("the first look")
    problem = page.told[-1]
    assert problem["type"] == "error"
    assert problem["message"].startswith(f"{own / 'clock-hands.toml'} is not valid TOML at line 2")
    errors = capsys.readouterr().err.splitlines()
    assert errors == [f"error: {problem['message']} (the last good clips are kept)"]
    assert not list((tmp_path / "out").rglob("*.mp4"))


LONG = "a" * 100_000
DIGITS = {"hundreds": "9" * 400, "thousands": "9" * 4_400}  # past float, past int("…")


@pytest.mark.parametrize(
    "args,named",
    [
        (["numbers", "clock-hands", "--set", f"base={DIGITS['hundreds']}"], "base=99999"),
        (["numbers", "clock-hands", "--set", f"d_model={DIGITS['thousands']}"], "d_model=9999"),
        (["numbers", "rope-rotation", "--set", f"rope_pair={DIGITS['hundreds']}"], "rope_pair=9"),
        (["numbers", "clock-hands", "--config", "hundreds.toml"], "base=99999"),
        (["numbers", "clock-hands", "--config", "thousands.toml"], "line 3: base=99999"),
        (["render", LONG, "--dry-run"], "unknown scene 'aaaaa"),
        (["say", "hi", "--out", LONG], "--out aaaaa"),
        (["say", "hi", "--out", f"/no-such-folder/{LONG}.wav"], "--out /no-such-folder/aaaa"),
        (["render", "clock-hands", "--dry-run", "--output", LONG], "'--output': aaaaa"),
        (["render", "clock-hands", "--dry-run", "--config", LONG], "config file aaaaa"),
    ],
    ids=[
        "set 400 digits",
        "set 4,400 digits",
        "set 400 digits, no bound",
        "config 400 digits",
        "config 4,400 digits",
        "slug",
        "say --out",
        "say --out in no folder",
        "--output",
        "--config",
    ],
)
def test_a_huge_number_or_a_long_name_is_one_short_line_naming_it(
    tmp_path, monkeypatch, args, named
):
    monkeypatch.chdir(tmp_path)  # the config files and --out names are relative to it
    for name, digits in DIGITS.items():
        Path(f"{name}.toml").write_text(f"# knobs\nd_model = 8\nbase = {digits}\n")
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and result.output.startswith("error: "), result.output
    assert named in result.output and "…" in result.output
    assert len(result.output) < 400
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hundreds.toml", "thousands.toml"]


def test_a_boolean_is_no_number_for_a_knob_or_the_voice_speed(tmp_path):
    config = tmp_path / "lesson.toml"
    for body, message in (
        ("[voice.en]\nspeed = true\n", "[voice.en] speed=True: must be a number from 0.5 to 2"),
        ("base = true\n", "base=True: must be a number"),
        ("d_model = false\n", "d_model=False: must be a whole number"),
    ):
        config.write_text(body)
        result = run("render", "clock-hands", "--dry-run", "--config", str(config))
        assert result.exit_code == 2, result.output
        assert result.output == f"error: {message}\n"
