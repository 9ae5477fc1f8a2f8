"""The written pages: a short README, and every link between the pages leads somewhere."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = [
    ROOT / "README.md",
    ROOT / "CONTRIBUTING.md",
    ROOT / "CHANGELOG.md",
    ROOT / "bench" / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings."""
    out = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") and not line.startswith("#!"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


def test_the_readme_is_an_introduction_not_a_manual():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) < 300


def test_the_readmes_table_of_the_lesson_is_made_from_the_chapters_folders():
    from lesson import contents, registry

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert contents.BEGIN in readme and contents.with_table(readme) == readme
    rows = re.findall(r"^\| \d+ \| `([a-z0-9-]+)` \|", readme, re.M)
    assert rows == registry.lesson_order()


def test_the_stills_are_the_ones_the_chapters_ask_for_and_none_is_stale():
    import json

    from lesson import contents

    folder = ROOT / "docs" / "stills"
    wanted = contents.stills()
    recorded = json.loads((folder / "stills.json").read_text(encoding="utf-8"))
    kept = {path.name for path in folder.glob("*.png")}
    assert kept <= {s.file for s in wanted}, "stills of no chapter: run python scripts/stills.py"
    stale = [
        f"{s.file}: python scripts/stills.py {s.slug}"
        for s in wanted
        if s.file in kept and recorded.get(s.file) != contents.fingerprint(s)
    ]
    assert stale == [], "these stills are older than their chapter's code or words"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = [s for s in wanted if s.file in kept]
    assert contents.STILLS_BEGIN in readme and contents.with_gallery(readme, shown) == readme


def test_a_still_goes_stale_when_its_chapters_words_change(tmp_path):
    import shutil

    from lesson import contents, registry

    room = tmp_path / "chapters"
    shutil.copytree(registry.CHAPTERS, room, ignore=shutil.ignore_patterns("__pycache__"))
    (still,) = [s for s in contents.stills(room) if s.file == "recap.9x16.png"]
    before = contents.fingerprint(still, room)
    words = room / "recap" / "zh.toml"
    words.write_text(words.read_text(encoding="utf-8") + "\n[ui.added]\nx = '新'\n", "utf-8")
    assert contents.fingerprint(still, room) != before
    english = next(s for s in contents.stills(room) if s.file == "recap.png")
    assert contents.fingerprint(english, room) == contents.fingerprint(english)


def test_the_guide_is_a_guide_not_a_log():
    assert len((ROOT / "docs" / "guide.md").read_text(encoding="utf-8").splitlines()) <= 400


def test_every_link_between_the_pages_leads_to_a_file_and_heading():
    broken = []
    for page in PAGES:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if "://" in target:
                continue
            path, _, anchor = target.partition("#")
            goal = (page.parent / path).resolve() if path else page
            if not goal.exists() or (anchor and anchor not in anchors(goal)):
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert broken == []


def test_the_version_is_one_in_pyproject_the_changelog_and_the_command():
    import tomllib

    from click.testing import CliRunner

    from render import cli

    version = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["version"]
    released = re.findall(r"^## \[(\d[^\]]*)\]", (ROOT / "CHANGELOG.md").read_text("utf-8"), re.M)
    assert released[0] == version
    said = CliRunner().invoke(cli, ["--version"])
    assert (said.exit_code, said.output) == (0, f"pe-explainer {version}\n")


def test_a_still_asked_for_wrongly_is_one_line(tmp_path):
    import shutil

    import pytest

    from lesson import contents, registry

    room = tmp_path / "chapters"
    shutil.copytree(registry.CHAPTERS, room, ignore=shutil.ignore_patterns("__pycache__"))
    declared = room / "recap" / "chapter.toml"
    text = declared.read_text(encoding="utf-8")
    for wrong in ('shapes = "9:16"', 'shapes = ["4:3"]', 'beat = "nope"'):
        declared.write_text(text.replace('shapes = ["9:16"]', wrong), encoding="utf-8")
        with pytest.raises(registry.ChapterError, match=r"\[still\] may say beat = one of"):
            contents.stills(room)
