"""The chapter similarity (declared in chapter.toml)."""
