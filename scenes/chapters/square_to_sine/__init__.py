"""The chapter square-to-sine (declared in chapter.toml)."""
