"""The chapter clock-hands (declared in chapter.toml)."""
