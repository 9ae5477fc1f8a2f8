"""pe-explainer: render the positional-encoding lesson.

python render.py list
python render.py render --all
python render.py numbers clock-hands --set base=100
python render.py preview clock-hands
python render.py slides --format pdf
python render.py say "每个位置有一组时钟指针。" --lang zh --out line.wav
python render.py listen --all --lang zh
"""

from rendering.cli import cli, main

__all__ = ["cli", "main"]

if __name__ == "__main__":
    main()
