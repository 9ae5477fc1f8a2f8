"""The chapter pe-heatmap (declared in chapter.toml)."""
