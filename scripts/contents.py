"""Write the README's table of the lesson from each chapter's chapter.toml (`shows`)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lesson.contents import with_table  # noqa: E402

readme = ROOT / "README.md"
readme.write_text(with_table(readme.read_text(encoding="utf-8")), encoding="utf-8")
print(f"wrote {readme.relative_to(ROOT)}")
