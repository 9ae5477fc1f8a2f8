"""pe-explainer: render the positional-encoding lesson.

python render.py list
python render.py render --all
python render.py numbers clock-hands --set base=100
python render.py preview clock-hands
python render.py slides --format pdf
python render.py say "每个位置有一组时钟指针。" --lang zh --out line.wav
python render.py listen --all --lang zh
"""


def __getattr__(name: str):
    """`cli` and `main`, imported when asked for: a worker process imports this file again
    as its parent's main module, and needs none of the command line."""
    if name in ("cli", "main"):
        import rendering.cli

        return getattr(rendering.cli, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if __name__ == "__main__":
    from rendering.cli import main

    main()
