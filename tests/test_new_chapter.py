"""`render.py new SLUG` makes a chapter that renders and whose test passes; it refuses a
bad or taken slug in one line and never leaves half a chapter behind."""

# The slug is one no teacher would pick, so the suite passes in a lesson that has a
# `my-chapter` of its own (the guide's example).

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from lesson import registry
from rendering.cli import new_cmd

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def room(tmp_path, monkeypatch):
    """A chapters folder and a tests folder of their own, holding the lesson's list."""
    chapters, tests = tmp_path / "chapters", tmp_path / "tests"
    chapters.mkdir()
    tests.mkdir()
    shutil.copy(registry.CHAPTERS / registry.ORDER, chapters / registry.ORDER)
    monkeypatch.setattr(registry, "CHAPTERS", chapters)
    monkeypatch.setattr(new_cmd, "tests_folder", lambda: tests)
    return tmp_path


def files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def new(*args: str):
    from render import cli

    return CliRunner().invoke(cli, ["new", *args])


def test_it_writes_the_folder_and_the_test_and_lists_the_chapter_after_another(room):
    result = new("inserted-chapter", "--after", "clock-hands")
    assert result.exit_code == 0, result.output
    folder = room / "chapters" / "inserted_chapter"
    assert {p.name for p in folder.iterdir()} == set(new_cmd.FOLDER_FILES)
    assert (room / "tests" / "test_scene_inserted_chapter.py").is_file()
    listed = registry.lesson_order(room / "chapters")
    assert listed[listed.index("clock-hands") + 1] == "inserted-chapter"
    assert "lists it as chapter 6" in result.output
    assert (
        "clock-hands's bridge now leads into it: reword its bridge line in "
        f"{room / 'chapters' / 'clock_hands'}/en.toml and zh.toml"
    ) in result.output
    assert registry.declared(folder) == ("inserted-chapter", "InsertedChapter", ("d_model",))


@pytest.mark.parametrize(
    "args,says",
    [
        (["My_Chapter"], "'My_Chapter' is not a chapter slug; use lowercase letters"),
        (["2fast"], "'2fast' is not a chapter slug"),
        (["a--b"], "'a--b' is not a chapter slug"),
        (["x" * 41], "at most 40 characters"),
        (["clock-hands"], "'clock-hands' is a scene already; pick another slug"),
        (["lesson-intro"], "'lesson-intro' is a scene already"),
        (["common"], "'common' names the shared words"),
        (["fresh", "--after", "nope"], "--after 'nope' is not in"),
        (["class"], "'class' would name its module class, a word of Python's own"),
        (["import"], "'import' would name its module import"),
        (["circle"], "'circle' would name its scene Circle, a name its scene or its test"),
        (["params"], "'params' would name its scene Params"),
        (["layout"], "'layout' would name its scene Layout"),
        (["exception"], "'exception' would name its scene Exception"),
    ],
    ids=[
        "case",
        "digit",
        "hyphens",
        "long",
        "chapter",
        "card",
        "shared",
        "after",
        "keyword",
        "keyword2",
        "manim-name",
        "test-name",
        "own-name",
        "builtin",
    ],
)
def test_a_bad_or_taken_slug_is_one_line_and_writes_nothing(room, args, says):
    before = files(room)
    result = new(*args)
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and result.output.startswith("error: ")
    assert says in result.output
    assert files(room) == before


def test_outside_a_checkout_it_says_where_to_run_it(room):
    (room / "tests").rmdir()  # an installed package has no tests/ beside it
    before = files(room)
    result = new("inserted-chapter")
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert "is not a folder" in result.output and "in a clone" in result.output
    assert files(room) == before


def test_a_write_that_fails_takes_back_what_it_wrote(room, monkeypatch):
    before = files(room)

    def full(path, text):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(new_cmd, "atomic_write_text", full)
    result = new("inserted-chapter")
    assert result.exit_code == 2
    assert "No space left on device" in result.output and "nothing was made" in result.output
    assert files(room) == before
    assert [p.name for p in (room / "chapters").iterdir()] == [registry.ORDER]  # no staging left


def test_a_list_it_cannot_edit_is_named_with_the_line_to_add(room):
    (room / "chapters" / registry.ORDER).write_text('chapters = ["recap"]\n')
    before = files(room)
    result = new("inserted-chapter")
    assert result.exit_code == 2
    assert 'add "inserted-chapter", to its chapters by hand' in result.output
    assert files(room) == before


def test_a_slug_listed_by_hand_is_not_listed_twice(room):
    order = room / "chapters" / registry.ORDER
    order.write_text('chapters = ["recap", "inserted-chapter"]\n')
    result = new("inserted-chapter")
    assert result.exit_code == 0, result.output
    assert order.read_text() == 'chapters = ["recap", "inserted-chapter"]\n'
    assert "lists it already" in result.output


def test_the_templates_ship_with_the_package():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"**/*.tmpl"' in pyproject
    for template in [*new_cmd.FOLDER_FILES.values(), "test.py.tmpl"]:
        assert (new_cmd.TEMPLATES / template).is_file()


@pytest.mark.render
def test_a_chapter_inserted_into_the_whole_project_renders_and_the_lessons_tests_pass(tmp_path):
    """In a copy of the whole project, with what is not committed yet (the checkout is
    never written): `new`, then the chapter renders and the lesson's own tests of its
    chapters, words and pages pass with no other edit."""
    project = tmp_path / "project"
    listed = ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"]
    kept = subprocess.run(listed, cwd=ROOT, capture_output=True, check=True).stdout.decode()
    for name in filter(None, kept.split("\0")):  # a teacher's own new chapter too
        if (ROOT / name).is_file():
            (project / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, project / name)

    def run(*args: str) -> subprocess.CompletedProcess:
        done = subprocess.run(
            [sys.executable, *args], cwd=project, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done

    run("render.py", "new", "inserted-chapter", "--after", "clock-hands")
    out = tmp_path / "out"
    run(
        "render.py",
        "render",
        "inserted-chapter",
        "-q",
        "t",
        "--voice",
        "none",
        "--output",
        str(out),
    )
    folder = out / "en" / "144p10"
    assert (folder / "inserted-chapter.mp4").stat().st_size > 0
    clips = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))["clips"]
    entry = clips["inserted-chapter"]["mp4"]
    assert [b for b, _ in entry["beats"]] == ["idea", "takeaway", "bridge"]
    assert entry["order"] == registry.lesson_order().index("clock-hands") + 2
    tests = [
        "tests/test_scene_inserted_chapter.py",
        "tests/test_scene_base.py::test_registry_numbers_the_chapters_in_the_order_the_lessons_list_gives",
        "tests/test_claims.py::test_every_chapter_but_the_last_ends_with_a_bridge_to_the_next",
        "tests/test_registry.py",
        "tests/test_docs.py",
    ]
    done = run(
        *("-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", *tests),
        *("-k", "not test_declared_fields or inserted-chapter"),
    )
    assert " passed" in done.stdout and "failed" not in done.stdout
    assert not (ROOT / "scenes" / "chapters" / "inserted_chapter").exists()
