"""The click driver: usage, help and error paths, without rendering."""

import json

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
