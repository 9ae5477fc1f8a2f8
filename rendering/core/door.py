"""How a person runs this program, for the hints in messages and pages: `python render.py`
in a checkout, `pe-explainer` where the package is installed."""

from __future__ import annotations

from rendering.core.keys import ROOT

INSTALLED = "pe-explainer"  # the console script pyproject.toml names


def command() -> str:
    return "python render.py" if (ROOT / "render.py").exists() else INSTALLED
