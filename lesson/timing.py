"""Narration timing shared by the scenes and the pipeline (no Manim import)."""

BREATH = 0.3  # seconds of quiet after a beat's speech before the next beat starts
