"""The lesson's pictures, in Manim: a folder per chapter (chapters/) and the scene kit
(kit/). What the chapters are and in which order, and their words, are `lesson`'s."""
