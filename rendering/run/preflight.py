"""Before a run: the tools, fonts and folders it needs, each missing one named in one line."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path


class PipelineError(RuntimeError):
    """A problem that stops the whole run; its message says the cause and the fix."""


def preflight(output: Path, need_latex: bool = True) -> None:
    """Fail early, in one line, on what would make every job fail."""
    if need_latex:
        for tool in ("latex", "dvisvgm"):
            if shutil.which(tool) is None:
                raise PipelineError(
                    f"{tool} is not installed; run `make setup` or apt-get install "
                    "texlive-latex-base texlive-latex-extra dvisvgm"
                )
    if not _has_cjk_font():
        raise PipelineError(
            "the Noto Sans CJK font is missing; run `make setup` or apt-get install fonts-noto-cjk"
        )
    check_writable(output)


def check_writable(folder: Path) -> None:
    """Stop before rendering, not after, if an output folder cannot take files."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".write-test-"):
            pass
    except OSError as exc:
        raise PipelineError(
            f"cannot write to {folder} ({exc.strerror}); make it writable or pass --output "
            "to a writable folder"
        ) from None


def _has_cjk_font() -> bool:
    try:
        out = subprocess.run(
            ["fc-list", ":family"], capture_output=True, text=True, check=False
        ).stdout
    except FileNotFoundError:
        return True  # no fontconfig tools to ask; Pango will report for itself
    return "Noto Sans CJK" in out
