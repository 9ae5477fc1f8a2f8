"""The chapter attention-shuffle (declared in chapter.toml)."""
