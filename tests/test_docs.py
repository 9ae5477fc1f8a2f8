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
