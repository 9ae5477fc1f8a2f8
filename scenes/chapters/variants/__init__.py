"""The chapter variants (declared in chapter.toml)."""
