"""What `clean` may delete: only what the project made, found by name under the output
root; everything else in its folders is kept and listed. Links are never entered.

Each folder is sorted by a rule that gives every child a verdict: ours (deleted), not
ours (kept and listed), left alone (a running render's folder; not listed), or the rule
for the folder's own children. A folder whose children are all ours is deleted whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Union

from lesson import text_store
from lesson.catalogue import LANGS
from rendering.core.manifest import NAME as MANIFEST
from rendering.core.manifest import made_here, written_here
from rendering.run.workdirs import WORK, work_folders
from rendering.speech.narration import CACHE as SPEECH

PACKAGES = "packages"  # below the output root
# what `package` writes there: zips and worksheets named after their folder
PACKAGE_FILE = re.compile(
    r"^pe-explainer-[a-z]+-[^/]+\.(scorm12\.zip|scorm2004\.zip|worksheet\.pdf)$"
)
PREVIEW = "preview"  # `preview`'s own output root
_SPEECH_FILE = made_here(lambda name: bool(re.match(r"^[0-9a-f]+\.(wav|json)$", name)))
_TEXT_FILE = re.compile(r"^[0-9a-f]{64}(\.[a-z0-9_]+\.part|\.sealed|\.pickle)$")
_WRITE_TEST = re.compile(r"^\.write-test-[a-z0-9_]{8}$")

Verdict = Union[bool, None, "Rule"]
Rule = Callable[[Path], Verdict]


def sort_out(folder: Path, rule: Rule) -> tuple[list[Path], list[Path], bool]:
    """(ours, not ours, whether anything was left alone) among `folder`'s children."""
    mine: list[Path] = []
    foreign: list[Path] = []
    spared = False
    for child in sorted(folder.iterdir()):
        verdict = False if child.is_symlink() else rule(child)  # the project makes no links
        if callable(verdict):
            if not child.is_dir():
                foreign.append(child)
                continue
            inner, others, left = sort_out(child, verdict)
            if others or left:
                mine += inner
                foreign += others
                spared |= left
            else:
                mine.append(child)
        elif verdict is None:
            spared = True
        else:
            (mine if verdict else foreign).append(child)
    return mine, foreign, spared


def clean_targets(output: Path, all_: bool) -> tuple[list[Path], list[Path]]:
    """(what to delete, what stays inside the project's folders, to be listed)."""
    if not output.is_dir() or output.is_symlink():
        return [], []
    mine, foreign, _ = sort_out(output, _root_rule(all_, top=True))
    return mine, foreign


def _root_rule(all_: bool, top: bool) -> Rule:
    """An output root: caches and work folders; with `all_`, finished outputs too.
    Below the top, a folder is another output root only if it holds one."""

    def rule(path: Path) -> Verdict:
        name = path.name
        if name == SPEECH:
            return lambda p: p.is_file() and _SPEECH_FILE(p)
        if name == text_store.FOLDER:
            return lambda p: p.is_file() and bool(_TEXT_FILE.match(p.name))
        if name == WORK:
            return _work_rule(path)
        if _WRITE_TEST.match(name):
            return True
        if name == PREVIEW and top:
            return _root_rule(True, top=False)
        if not all_:
            return None
        if name == PACKAGES and top:
            return lambda p: bool(PACKAGE_FILE.match(p.name))
        if name in LANGS:
            return _lang_rule
        if top and path.is_dir() and _holds_outputs(path):  # a course's parameter set
            return _root_rule(True, top=False)
        return None if top else False

    return rule


def _lang_rule(path: Path) -> Verdict:
    """<lang>/: one folder per quality, each with its manifest."""
    if path.is_dir() and (path / MANIFEST).is_file():
        return written_here(path)
    return False


def _holds_outputs(folder: Path) -> bool:
    return any((folder / lang).is_dir() and not (folder / lang).is_symlink() for lang in LANGS)


def _work_rule(work: Path) -> Rule:
    live, stale = work_folders(work)

    def rule(path: Path) -> Verdict:
        if path in live:
            return None  # a running render's folder
        return path in stale

    return rule
