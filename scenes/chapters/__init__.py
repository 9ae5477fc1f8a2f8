"""The lesson's chapters: one folder each (scene.py, en.toml, zh.toml, chapter.toml); their
order is order.toml here. lesson.registry finds them."""
