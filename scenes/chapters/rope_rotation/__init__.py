"""The chapter rope-rotation (declared in chapter.toml)."""
