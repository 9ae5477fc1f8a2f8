"""Measure the ranges of Kokoro's 8-bit convolutions on the lesson's speech and write
rendering/speech/engines/kokoro_ranges.py (see kokoro_fast.py for why these convolutions).

Each voice below reads every third line of three chapters (relative-shift, where the
recogniser checks the result in bench/, is left out); the fused float model runs with
a minimum and a maximum of each convolution's input and output as extra outputs. Each
range is written with four digits, so the derived model's bytes do not depend on the
machine that measured it. Another voice's rare peak beyond a range is clipped there.

    .venv/bin/python scripts/kokoro_ranges.py    # then update FAST_SHA256 (tests say how)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from lesson import registry  # noqa: E402,F401  (registers the chapters)
from rendering.speech import narration  # noqa: E402
from rendering.speech.base import VoiceSpec  # noqa: E402
from rendering.speech.engines import kokoro, kokoro_fast  # noqa: E402
from rendering.speech.engines.kokoro_float import derived  # noqa: E402

CHAPTERS = ("attention-shuffle", "rope-rotation", "recap")
VOICES = {  # voice, speed, every n-th line
    "en": [("af_bella", 1.0, 3), ("am_fenrir", 1.0, 6)],
    "zh": [("zf_xiaobei", 1.1, 3), ("zm_yunxi", 1.0, 6)],
}
PATTERN = "/convs1."  # the first convolution of each vocoder block
OUT = ROOT / "rendering" / "speech" / "engines" / "kokoro_ranges.py"


def feeds(lang: str, voice: str, speed: float, every: int):
    engine = kokoro.Kokoro(VoiceSpec("kokoro", voice, speed))
    vocab = kokoro._vocab(engine.vocab)
    for slug in CHAPTERS:
        for line in list(narration.beat_lines(slug, lang).values())[::every]:
            phonemes = engine.phonemes(narration.spoken(line, lang))
            for part in kokoro.chunks(phonemes, vocab):
                yield {
                    "tokens": np.array([[0, *part, 0]], np.int64),
                    "style": kokoro._styles(engine.pack)[len(part)].astype(np.float32),
                    "speed": np.array([speed], np.float32),
                }


def measuring(data: bytes, ends: dict[str, tuple[str, str]]) -> bytes:
    """The model with a ReduceMin and a ReduceMax of each tensor in `ends` as outputs."""
    import onnx
    from onnx import TensorProto, helper

    model = onnx.load_from_string(data)
    graph = model.graph
    for name in sorted({t for pair in ends.values() for t in pair}):
        for op in ("ReduceMin", "ReduceMax"):
            graph.node.append(helper.make_node(op, [name], [f"{name}_{op}"], keepdims=0))
            graph.output.append(
                helper.make_tensor_value_info(f"{name}_{op}", TensorProto.FLOAT, [])
            )
    return model.SerializeToString()


def main() -> None:
    import onnxruntime as ort

    floats = derived(kokoro.model_file().read_bytes())
    ends = kokoro_fast.conv_ends(floats, PATTERN)
    fused = kokoro_fast.fused_only(floats, set(ends))
    session = ort.InferenceSession(measuring(fused, ends), providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    low: dict[str, float] = {}
    high: dict[str, float] = {}
    calls = 0
    for lang, voices in VOICES.items():
        for voice, speed, every in voices:
            for feed in feeds(lang, voice, speed, every):
                values = dict(zip(names, session.run(None, feed), strict=True))
                for tensor in {t for pair in ends.values() for t in pair}:
                    low[tensor] = min(low.get(tensor, 0.0), float(values[f"{tensor}_ReduceMin"]))
                    high[tensor] = max(high.get(tensor, 0.0), float(values[f"{tensor}_ReduceMax"]))
                calls += 1
            print(f"{voice}: {calls} calls so far", flush=True)
    lines = [
        '"""Written by scripts/kokoro_ranges.py: the ranges of the 8-bit convolutions\' inputs',
        "and outputs (low, high, low, high), measured on the lesson's speech.",
        '"""',
        "",
        "# fmt: off",
        "RANGES: dict[str, tuple[float, float, float, float]] = {",
    ]
    for conv, (x, y) in sorted(ends.items()):
        bounds = (low[x], high[x], low[y], high[y])
        lines.append(f"    {json.dumps(conv)}: ({', '.join(f'{b:.4g}' for b in bounds)}),")
    lines += ["}", "# fmt: on"]
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}: {len(ends)} convolutions over {calls} calls")


if __name__ == "__main__":
    main()
