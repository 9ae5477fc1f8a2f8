"""A render job: what to draw, in which language, quality and frame. Its cache key is
made where clips are drawn, from the code that draws them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lesson import registry
from pe_math import Params
from rendering.core import formats, settings

if TYPE_CHECKING:
    from rendering.speech.narration import Narration


@dataclass(frozen=True)
class Job:
    slug: str
    params: Params
    lang: str = "en"
    quality: str = "l"
    fmt: str = formats.MAIN
    aspect: str = "16:9"
    transparent: bool = False
    burn_captions: bool = False
    narration: Narration | None = None  # the speech of every beat; None renders silent
    # the colours drawn with, as (role, "#rrggbb") pairs; none: the default dark theme's
    palette: tuple[tuple[str, str], ...] = ()
    # the brand and font drawn with (lesson.brand.Look); none: the lesson's own
    look: tuple[tuple[str, str], ...] = ()

    @property
    def info(self) -> registry.SceneInfo:
        return registry.get(self.slug)

    @property
    def format(self) -> formats.Format:
        return formats.get(self.fmt)

    @property
    def variant(self) -> str:
        """The manifest slot of this output: format plus the options that change the pixels."""
        return (
            self.fmt
            + (".alpha" if self.transparent else "")
            + (".captioned" if self.burn_captions else "")
        )

    @property
    def filename(self) -> str:
        """e.g. `clock-hands.mp4`, `clock-hands.alpha.webm`."""
        middle = self.variant.removeprefix(self.fmt)
        return f"{self.info.stem}{middle}.{self.fmt}"

    def out_dir(self, root: Path) -> Path:
        return root / self.lang / settings.folder_name(self.quality, self.aspect)


def by_folder(jobs: list[Job], root: Path) -> dict[Path, list[Job]]:
    """Jobs grouped by the output folder they write into, in order."""
    folders: dict[Path, list[Job]] = {}
    for job in jobs:
        folders.setdefault(job.out_dir(root), []).append(job)
    return folders
