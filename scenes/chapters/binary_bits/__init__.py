"""The chapter binary-bits (declared in chapter.toml)."""
