"""The chapter recap (declared in chapter.toml)."""
