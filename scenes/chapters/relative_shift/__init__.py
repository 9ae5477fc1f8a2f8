"""The chapter relative-shift (declared in chapter.toml)."""
