"""Worker processes that end with the command that started them.

A worker blocked on its task pipe never learns that its parent was killed (`kill -9`, a
crash, out of memory): it would wait for ever, holding its memory. `follow_parent` runs
in each worker and ends it once its parent is gone.
"""

from __future__ import annotations

import os
import threading
import time

POLL = 0.5  # seconds between looks at the parent


def follow_parent(parent: int | None = None, interval: float = POLL) -> None:
    """End this process soon after its parent ends (it is then another process's child).

    `parent` is the pid it was started by, when the parent knows it: a worker that starts
    slowly may first look after its parent has already gone."""
    parent = os.getppid() if parent is None else parent

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        os._exit(1)

    threading.Thread(target=watch, name="follow-parent", daemon=True).start()
