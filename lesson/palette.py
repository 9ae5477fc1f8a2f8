"""The lesson's colours as hex strings, with no Manim import: scenes/theme.py makes them
Manim colours, and the published pages (rendering/publish/web.py) use them in their CSS."""

from __future__ import annotations

PALETTE: dict[str, str] = {
    "background": "#0f1117",
    "foreground": "#e8e6e3",
    "muted": "#8b93a1",
    "accent": "#ffcc4d",  # the thing to look at now
    "word_a": "#58c4dd",  # first token / "cat" / q
    "word_b": "#fc6255",  # second token / "dog" / k
    "word_c": "#83c167",  # third token
    "positive": "#f39c5a",
    "negative": "#5a9cf3",
    "neutral": "#2a2f3a",
    "violet": "#c792ea",
    "pink": "#f7a8d8",
}
