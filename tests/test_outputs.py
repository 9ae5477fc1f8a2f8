"""The output folder: clean removes only what the project wrote, manifests survive damage,
published files are readable, and unwritable folders stop a run before it renders."""

import json
import os
import stat
import subprocess
import threading

import pytest
from click.testing import CliRunner

from render import cli
from rendering.core.files import atomic_write_text, replacing
from rendering.core.manifest import BACKUP, NAME, ClipEntry, Manifest
from tests.disks import fill, make_read_only


def dead_pid() -> int:
    return int(subprocess.run(["sh", "-c", "echo $$"], capture_output=True, text=True).stdout)


def run(*args, **kwargs):
    return CliRunner().invoke(cli, list(args), **kwargs)


# a manifest naming one clip, 01-a.mp4: the files of the project's making are named after it
ONE_CLIP = json.dumps(
    {
        "schema": 1,
        "clips": {
            "a": {
                "mp4": {
                    "slug": "a",
                    "file": "01-a.mp4",
                    "duration": 1.0,
                    "frames": 15,
                    "width": 854,
                    "height": 480,
                    "fps": 15,
                }
            }
        },
    }
)


@pytest.fixture
def outputs(tmp_path):
    """An output root with project folders beside a teacher's own files."""
    out = tmp_path / "media"
    clips = out / "en" / "480p15"
    clips.mkdir(parents=True)
    (clips / NAME).write_text(ONE_CLIP)
    (clips / "01-a.mp4").write_bytes(b"clip")
    (out / "zh" / "notes").mkdir(parents=True)  # no manifest: not ours
    (out / ".speech").mkdir()
    (out / ".text").mkdir()  # the words a render's workers set, kept for the next
    (out / ".work" / f"{dead_pid()}-0-gone").mkdir(parents=True)
    (out / "keep.txt").write_text("mine")
    (out / "mydocs").mkdir()
    course_set = out / "base100" / "en" / "480p15"  # a course file's parameter set
    course_set.mkdir(parents=True)
    (course_set / NAME).write_text(ONE_CLIP)
    (course_set / "01-a.mp4").write_bytes(b"clip")
    (out / "mydocs" / "en" / "notes").mkdir(parents=True)  # no manifest: not ours
    (out / "packages").mkdir()  # render.py package's zips and worksheets, and a teacher's file
    for name in ("pe-explainer-en-480p15.scorm12.zip", "pe-explainer-zh-720p30.worksheet.pdf"):
        (out / "packages" / name).write_bytes(b"made")
    (out / "packages" / "my-course.zip").write_bytes(b"mine")
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "480p15").mkdir(parents=True)
    (elsewhere / "480p15" / NAME).write_text("{}")
    (out / "preview").symlink_to(elsewhere / "480p15")
    (out / "zh" / "720p30").symlink_to(elsewhere / "480p15")
    return out, elsewhere


def test_clean_all_removes_only_project_folders_and_never_follows_links(outputs):
    out, elsewhere = outputs
    result = run("clean", "--all", "--yes", "--output", str(out))
    assert result.exit_code == 0, result.output
    left = sorted(str(p.relative_to(out)) for p in out.rglob("*"))
    assert left == [
        "keep.txt",
        "mydocs",
        "mydocs/en",
        "mydocs/en/notes",
        "packages",
        "packages/my-course.zip",
        "preview",
        "zh",
        "zh/720p30",
        "zh/notes",
    ]
    assert (elsewhere / "480p15" / NAME).exists()  # behind two symlinks, untouched
    assert f"  {out / 'en'}\n" in result.output  # named before it went
    for name in ("packages/my-course.zip", "preview", "zh/720p30", "zh/notes"):
        assert f"kept {out / name}: the project did not write it" in result.output


def test_clean_all_without_yes_from_a_script_deletes_nothing(outputs):
    out, _ = outputs
    refused = run("clean", "--all", "--output", str(out), input="y\n")
    assert refused.exit_code == 2 and "pass --yes to confirm" in refused.output
    assert (out / "en" / "480p15" / "01-a.mp4").exists() and (out / ".speech").exists()


def test_clean_without_all_keeps_finished_outputs(outputs):
    out, _ = outputs
    assert run("clean", "--output", str(out)).exit_code == 0
    assert (out / "en" / "480p15" / "01-a.mp4").exists()
    assert not (out / ".speech").exists() and not (out / ".work").exists()
    assert not (out / ".text").exists()
    assert (out / "preview").is_symlink()  # the project makes no links: kept, and its target
    assert (out.parent / "elsewhere" / "480p15" / NAME).exists()


@pytest.mark.parametrize(
    "text,why",
    [
        ("[]", "is not a manifest"),
        ("{broken", "cannot be read"),
        ('{"schema": 9, "clips": {}}', "schema 9"),
    ],
)
def test_a_damaged_manifest_is_reset_with_a_warning_and_a_backup(tmp_path, capsys, text, why):
    (tmp_path / NAME).write_text(text)
    manifest = Manifest.load(tmp_path)
    assert manifest.clips == {}
    err = capsys.readouterr().err
    assert why in err and "rendered again" in err and err.count("\n") == 1
    assert (tmp_path / BACKUP).read_text() == text
    Manifest.load(tmp_path)
    assert capsys.readouterr().err == ""  # said once


def test_a_damaged_manifest_does_not_crash_list_or_dry_run(tmp_path):
    folder = tmp_path / "en" / "480p15"
    folder.mkdir(parents=True)
    (folder / NAME).write_text("[]")
    for args in (["list"], ["render", "--all", "--dry-run"]):
        result = run(*args, "--voice", "none", "--output", str(tmp_path))
        assert result.exit_code == 0, result.output
        assert "never rendered" in result.output


def test_manifest_updates_under_the_lock_never_drop_an_entry(tmp_path):
    def add(n):
        for i in range(10):
            with Manifest.update(tmp_path) as manifest:
                entry = ClipEntry(f"s{n}-{i}", f"{n}-{i}.mp4", 1.0, 15, 854, 480, 15)
                manifest.record(entry.slug, "mp4", entry)

    threads = [threading.Thread(target=add, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(json.loads((tmp_path / NAME).read_text())["clips"]) == 40


def test_published_files_get_the_umask_mode_not_0600(tmp_path):
    old = os.umask(0o022)
    try:
        atomic_write_text(tmp_path / "index.html", "<p>")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "index.html").stat().st_mode) == 0o644


def test_a_file_written_by_name_replaces_the_old_one_only_when_its_writer_succeeds(tmp_path):
    target = tmp_path / "lesson.mp4"
    target.write_bytes(b"last good")
    with replacing(target, suffix=".mp4") as tmp:
        assert tmp.parent == tmp_path and tmp.suffix == ".mp4" and tmp != target
        tmp.write_bytes(b"new")
    assert target.read_bytes() == b"new" and os.listdir(tmp_path) == ["lesson.mp4"]

    with pytest.raises(ValueError), replacing(target) as tmp:
        tmp.write_bytes(b"half")
        raise ValueError("the writer failed")
    assert target.read_bytes() == b"new" and os.listdir(tmp_path) == ["lesson.mp4"]

    # an error about the temporary file names the file a person knows; one about
    # another file (an input the writer reads) keeps its own name
    with pytest.raises(OSError) as caught, replacing(target) as tmp:
        raise OSError(28, "No space left on device", str(tmp))
    assert caught.value.filename == str(target)
    with pytest.raises(OSError) as caught, replacing(target):
        raise OSError(2, "No such file or directory", str(tmp_path / "01-clip.mp4"))
    assert caught.value.filename == str(tmp_path / "01-clip.mp4")
    assert os.listdir(tmp_path) == ["lesson.mp4"]


def test_an_unwritable_clip_folder_stops_the_run_before_rendering(tmp_path):
    (tmp_path / "en").mkdir()
    (tmp_path / "en" / "480p15").write_text("a file where the clip folder should be")
    result = run("render", "clock-hands", "--voice", "none", "--output", str(tmp_path))
    assert result.exit_code == 2
    assert result.output.startswith("error: cannot write to") and "480p15" in result.output
    assert not (tmp_path / ".work").exists()


def test_worker_errors_are_one_line_with_a_fix():
    import errno
    from xml.etree.ElementTree import ParseError

    from rendering.run.task import describe_error

    svg = describe_error(ParseError("no element found: line 1, column 0"))
    assert "formula's SVG could not be read" in svg and "--output" in svg
    full = describe_error(OSError(errno.ENOSPC, "No space left on device"))
    assert full.startswith("the disk is full")
    for message in (svg, full, describe_error(ValueError("bad\nsecond line"))):
        assert "\n" not in message


def test_clean_all_keeps_a_teachers_file_inside_an_output_folder(outputs):
    out, _ = outputs
    clips = out / "en" / "480p15"
    (clips / "01-a.en.vtt").write_text("WEBVTT\n")
    (clips / "index.html").write_text("<p>gallery</p>")
    (clips / "my-notes.txt").write_text("a teacher's notes")
    (clips / "slides" / "01-a").mkdir(parents=True)
    (clips / "slides" / "01-a" / "01-a-draw.png").write_bytes(b"png")
    (clips / "slides" / "lesson.notes.md").write_text("notes")
    (clips / "slides" / "script-draft.docx").write_bytes(b"doc")
    result = run("clean", "--all", "--yes", "--output", str(out))
    assert result.exit_code == 0, result.output
    left = sorted(str(p.relative_to(clips)) for p in clips.rglob("*"))
    assert left == ["my-notes.txt", "slides", "slides/script-draft.docx"]
    for name in ("my-notes.txt", "slides/script-draft.docx"):
        assert f"kept {clips / name}: the project did not write it" in result.output
    assert str(clips / "01-a.mp4") in result.output  # every removed file is named first
    assert not (out / "base100").exists()  # a folder of ours alone goes


def test_clean_all_keeps_files_named_like_ours_that_no_clip_of_the_manifest_has(outputs):
    """Dot-names, NN-names of no clip, and a teacher's file among previews all stay."""
    out, _ = outputs
    clips = out / "en" / "480p15"
    (clips / ".git").mkdir()
    (clips / ".git" / "config").write_text("[core]")
    for name in (".teacher-notes", "99-homework.pdf", "01-intro.md"):
        (clips / name).write_text("a teacher's")
    made = [".manifest.json.lock", ".01-a.mp4.ab12cd_9", ".explore.key", "01-a.last.png"]
    for name in made:
        (clips / name).write_text("ours")
    (clips / ".beats" / "01-a").mkdir(parents=True)
    (clips / ".beats" / "01-a" / "0123456789abcdef.mp4").write_bytes(b"beat")
    (clips / ".beats" / "01-a" / "mine.mp4").write_bytes(b"a teacher's")
    (out / "preview").unlink()
    preview = out / "preview" / "en" / "480p15"
    preview.mkdir(parents=True)
    (preview / NAME).write_text(ONE_CLIP)
    (preview / "01-a.sheet.png").write_bytes(b"png")
    (out / "preview" / "lecture.mov").write_bytes(b"a teacher's")
    (out / ".text" / "notes.txt").write_text("a teacher's")
    result = run("clean", "--all", "--yes", "--output", str(out))
    assert result.exit_code == 0, result.output
    left = sorted(str(p.relative_to(clips)) for p in clips.rglob("*"))
    assert left == [
        ".beats",
        ".beats/01-a",
        ".beats/01-a/mine.mp4",
        ".git",
        ".git/config",
        ".teacher-notes",
        "01-intro.md",
        "99-homework.pdf",
    ]
    assert sorted(p.name for p in (out / "preview").rglob("*")) == ["lecture.mov"]
    assert sorted(p.name for p in (out / ".text").iterdir()) == ["notes.txt"]
    kept = [clips / n for n in (".beats/01-a/mine.mp4", ".git", ".teacher-notes", "01-intro.md")]
    for path in [*kept, out / "preview" / "lecture.mov", out / ".text" / "notes.txt"]:
        assert f"kept {path}: the project did not write it" in result.output
    # and plain clean, with no --all, keeps a teacher's file among the previews too
    (out / "preview" / "en").mkdir()
    assert run("clean", "--output", str(out)).exit_code == 0
    assert (out / "preview" / "lecture.mov").exists()


@pytest.mark.render
@pytest.mark.parametrize("trouble", ["full", "read-only"])
def test_a_full_or_read_only_disk_is_one_line_and_keeps_what_was_published(
    plugin_scenes, small_disk, trouble
):
    out = small_disk / "media"
    args = ("render", "tiny", "--voice", "none", "--output", str(out))
    assert run(*args).exit_code == 0
    folder = out / "en" / "480p15"
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    if trouble == "full":  # the clip is cached: the first write is the publish step's
        fill(small_disk)
        code, expected = 1, f"error: the disk is full (writing {folder}"
    else:  # found before anything runs
        make_read_only(small_disk)
        code, expected = 2, f"error: cannot write to {out} (Read-only file system)"
    result = run(*args)
    assert result.exit_code == code, result.output
    errors = result.stderr.strip().splitlines()
    assert len(errors) == 1 and errors[0].startswith(expected), errors
    after = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    assert after == before  # nothing published was touched, nothing half-written is left


def test_a_failed_write_is_named_with_its_cause_and_fix():
    import errno

    from rendering.core.files import write_problem

    def problem(code: int) -> str:
        return write_problem(OSError(code, os.strerror(code), "media/en/480p15/index.html"))

    assert problem(errno.ENOSPC) == (
        "the disk is full (writing media/en/480p15/index.html); free some space or pass "
        "--output elsewhere"
    )
    assert problem(errno.EROFS).endswith(
        "is on a read-only disk; pass --output to a writable folder"
    )
    assert "(permission denied); check the folder's permissions" in problem(errno.EACCES)


@pytest.mark.render
def test_a_damaged_clip_is_rendered_again_refused_by_package_and_cleaned_away(
    plugin_scenes, tmp_path
):
    out = tmp_path / "media"
    args = ("render", "tiny", "-q", "t", "--voice", "none", "--output", str(out))
    assert run(*args).exit_code == 0
    folder = out / "en" / "144p10"
    clip = folder / "tiny.mp4"
    whole = clip.read_bytes()
    clip.write_bytes(whole[: len(whole) // 2])  # cut short, as a crash or a copy might
    package = ("package", "tiny", "-q", "t", "--format", "scorm12", "--output", str(out))
    refused = run(*package)
    assert refused.exit_code == 2 and refused.output.splitlines() == [
        f"error: {clip} is not the video its manifest recorded (cut short or changed since); "
        "render it again (python render.py render tiny)"
    ]
    assert not (out / "packages").exists()
    listed = run("list", "--output", str(out), "-q", "t", "--json")
    assert "output file damaged" in listed.output
    again = run(*args)
    assert again.exit_code == 0 and "1 rendered, 0 cached" in again.output
    assert clip.read_bytes() == whole and run(*package).exit_code == 0
    # clean --all takes every file the project wrote, and keeps a teacher's
    (folder / "my-notes.txt").write_text("a teacher's")
    assert run("clean", "--all", "--yes", "--output", str(out)).exit_code == 0
    assert [str(p.relative_to(out)) for p in sorted(out.rglob("*"))] == [
        "en",
        "en/144p10",
        "en/144p10/my-notes.txt",
    ]


def test_json_nested_past_the_parsers_depth_is_set_aside_by_every_command(
    plugin_scenes, tmp_path, monkeypatch
):
    out = tmp_path / "media"
    folder = out / "en" / "480p15"
    folder.mkdir(parents=True)
    deep = "[" * 50_000 + "]" * 50_000
    keys = tmp_path / "keys"
    keys.mkdir()
    monkeypatch.setenv("PE_KEY_CACHE", str(keys))
    from rendering.core import keys as keys_mod

    monkeypatch.setattr(keys_mod, "_kept", None)  # read the planted file, as a new process would
    keys_mod._kept_file().write_text("[" * 100_000)
    for command in (
        ["list"],
        ["render", "tiny", "--dry-run"],
        ["listen", "tiny"],
        ["slides"],
        ["package", "--format", "scorm12"],
        ["clean", "--yes"],
    ):
        (folder / NAME).write_text(deep)
        result = run(*command, "--output", str(out))
        assert not isinstance(result.exception, RecursionError), command
        assert result.exit_code in (0, 2), (command, result.output)
        assert "Traceback" not in result.output and len(result.output.splitlines()) < 40
