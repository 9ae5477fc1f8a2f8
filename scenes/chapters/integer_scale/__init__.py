"""The chapter integer-scale (declared in chapter.toml)."""
