"""How a person runs this program, for the hints in messages and pages: `python render.py`
in a checkout, `pe-explainer` where the package is installed."""

from __future__ import annotations

import importlib.metadata
import tomllib

from rendering.core.keys import ROOT

INSTALLED = "pe-explainer"  # the console script pyproject.toml names


def command() -> str:
    return "python render.py" if (ROOT / "render.py").exists() else INSTALLED


def version() -> str:
    """This program's version: the checkout's pyproject.toml where there is one (an
    editable install's metadata keeps the version it was installed at), else the
    installed package's."""
    try:
        project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
        return str(project["project"]["version"])
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError):  # installed, or mid-edit
        try:
            return importlib.metadata.version(INSTALLED)
        except importlib.metadata.PackageNotFoundError:
            return "unknown"
