"""The lesson without its pictures: the registry of chapters, their catalogues of words,
how lines are chosen, split and said, and the checkpoint questions. No Manim import."""
