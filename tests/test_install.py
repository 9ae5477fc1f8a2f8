"""The package as a user installs it: a wheel, `pip install` into a fresh environment,
and the `pe-explainer` command run from a folder outside the checkout.

Offline: the wheel is built without build isolation and installed with --no-deps; the
fresh environment sees this one's installed dependencies through a .pth file of plain
folders (so the checkout's own editable install is not among them).
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import av
import pytest

from lesson import catalogue

pytestmark = pytest.mark.render
ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("pe_math", "lesson", "scenes", "rendering")
COMMAND = "pe-explainer"
# a catalogue line and a knob of the user's own, both read from the folder the command runs in
OWN_LINE = "These words come from the user's own folder."
OWN_LESSON = 'layout = "concat"\n'


def package_files() -> list[str]:
    """Every file of the four packages that the wheel must carry: the tracked ones, or
    without git every file outside the byte-code caches."""
    listed = subprocess.run(
        ["git", "ls-files", "--", *PACKAGES], cwd=ROOT, capture_output=True, text=True
    )
    if listed.returncode == 0 and listed.stdout.strip():
        return [name for name in listed.stdout.splitlines() if (ROOT / name).is_file()]
    return [
        path.relative_to(ROOT).as_posix()
        for package in PACKAGES
        for path in (ROOT / package).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    ]


def build_wheel(files: list[str], tmp: Path) -> Path:
    """The wheel, built from a copy of the sources (a build writes into its source folder)."""
    source = tmp / "source"
    for name in [*files, "pyproject.toml", "README.md"]:
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index"]
        + ["-w", str(tmp / "dist"), str(source)],
        check=True,
    )
    (wheel,) = (tmp / "dist").glob("*.whl")
    return wheel


def fresh_environment(wheel: Path, tmp: Path) -> Path:
    """A new venv with the wheel installed; its bin folder."""
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    Path(purelib, "_dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
        + ["--python", str(python), "install", "--no-deps", "--no-index", str(wheel)],
        check=True,
    )
    return venv / "bin"


def user_environment(bin_folder: Path, words: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PE_"))}
    env.pop("VIRTUAL_ENV", None)
    return {
        **env,
        "PATH": f"{bin_folder}{os.pathsep}{env.get('PATH', '')}",
        "PE_CAPTIONS": str(words),
    }


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("install")
    files = package_files()
    wheel = build_wheel(files, tmp)
    return files, wheel, fresh_environment(wheel, tmp)


def test_the_wheel_carries_every_file_of_the_packages(installed):
    files, wheel, _ = installed
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
    missing = [name for name in files if name not in names]
    assert missing == [], f"package-data in pyproject.toml misses {missing}"
    assert "pe_math/lesson.toml" in names and not any(n.startswith("render.py") for n in names)
    assert any(n.startswith("scenes/captions/zh/") for n in names)
    # a chapter's folder, the lesson's list and the template `new` makes chapters from
    assert {"scenes/chapters/order.toml", "scenes/chapters/clock_hands/zh.toml"} <= names
    assert "rendering/cli/templates/chapter/scene.py.tmpl" in names


def test_the_installed_command_renders_a_scene_from_a_folder_outside_the_checkout(
    installed, tmp_path
):
    _, _, bin_folder = installed
    work = tmp_path / "work"
    assert not work.is_relative_to(ROOT)
    words = work / "words" / "en" / "lesson-intro.toml"
    words.parent.mkdir(parents=True)
    text = catalogue.path_for("en", "lesson-intro").read_text("utf-8")
    first = catalogue.catalogue("en", "lesson-intro")["say"]["welcome"]
    words.write_text(text.replace(first, OWN_LINE), "utf-8")
    (work / "lesson.toml").write_text(OWN_LESSON, "utf-8")
    env = user_environment(bin_folder, words.parent.parent)

    where = subprocess.run(
        [str(bin_folder / "python"), "-c", "import rendering; print(rendering.__file__)"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(where.stdout.strip()).is_relative_to(bin_folder.parent)
    run = subprocess.run(
        [COMMAND, "render", "lesson-intro", "-q", "l", "--voice", "none", "--jobs", "1"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr[-2000:]

    folder = work / "media" / "en" / "480p15"
    with av.open(str(folder / "lesson-intro.mp4")) as container:
        frames = [f for f in container.decode(video=0)]
    assert len(frames) > 10 and (frames[0].width, frames[0].height) == (854, 480)
    subtitles = (folder / "lesson-intro.en.vtt").read_text("utf-8")
    assert " ".join(subtitles.split()).count(OWN_LINE) == 1
    explorer = json.loads((folder / "explore.json").read_text("utf-8"))
    assert explorer["initial"]["layout"] == "concat"  # ./lesson.toml, not the default


def test_the_installed_command_is_render_py(installed, tmp_path):
    _, _, bin_folder = installed
    env = {**user_environment(bin_folder, tmp_path / "words"), "COLUMNS": "80"}
    run = subprocess.run([COMMAND, "--help"], cwd=tmp_path, env=env, capture_output=True, text=True)
    door = subprocess.run(
        [sys.executable, "render.py", "--help"],
        cwd=ROOT,
        env={**os.environ, "COLUMNS": "80"},
        capture_output=True,
        text=True,
    )
    assert run.returncode == door.returncode == 0, run.stderr
    assert run.stdout.startswith(f"Usage: {COMMAND} [OPTIONS] COMMAND")
    assert run.stdout.replace(COMMAND, "render.py") == door.stdout


def test_an_installed_command_names_itself_in_its_hints(installed, tmp_path):
    _, _, bin_folder = installed
    env = user_environment(bin_folder, tmp_path / "words")
    run = subprocess.run([COMMAND, "render"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [
        f"error: name at least one scene (see `{COMMAND} list`) or pass --all"
    ]
    # in the checkout, the same hint names the door
    from rendering.core.door import command

    assert command() == "python render.py"
