"""What a run did: one outcome per job."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rendering.core.jobs import Job


@dataclass
class Outcome:
    job: Job
    status: str  # rendered | cached | failed
    seconds: float = 0.0
    path: Path | None = None
    message: str = ""
    detail: str | None = None
    note: str = ""  # something to know about a job that did render (e.g. it was retried)
    where: str = ""  # the job's output folder, named in a run that writes to several
    beats: str = ""  # e.g. "drew 1 of 8 beats, kept the rest"


@dataclass
class RunReport:
    outcomes: list[Outcome] = field(default_factory=list)
    interrupted: bool = False

    @property
    def failed(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status == "failed"]
