"""What every chapter stands on, in Manim: the base scene and its timing, components,
theme, and the copy and skip helpers. The words and the registry are lesson's."""
