"""The chapter long-context (declared in chapter.toml)."""
