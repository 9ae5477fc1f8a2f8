"""The support code every scene stands on: the base scene, components, catalogues,
text, theme and timing. It asks the registry (scenes) for a scene by slug, never a
chapter by its module."""
