"""The model Kokoro speaks with, derived once from the float model (`kokoro_float`).

Most of the float model's time goes to its vocoder's 48 blocks of `AdaIN → Snake → Conv`
over 4,800 frames a second of speech. Two rewrites make them cheaper:

- **Fused activations.** AdaIN's seven passes (two means, a variance, the affine) become one
  InstanceNormalization, and Snake, x + sin²(αx)/α, becomes z + sin²(z) with z = αx: α goes
  into the normalisation's scale and shift, 1/α into the next convolution's weights (or,
  before an 8-bit one, a last multiplication: one input scale cannot span the channels'
  different α). The same function in fewer passes over the frames.
- **8-bit convolutions where 8 bits are not heard.** The first convolution of each block
  (`convs1`) runs as QLinearConv (uint8 inputs, int8 weights per channel): its output is
  normalised again at once. Its inputs' and outputs' ranges were measured on the lesson's
  speech (`scripts/kokoro_ranges.py`) and ship in `kokoro_ranges.py`, so the model's bytes
  follow from the checked int8 file alone. The second convolution stays float: its output
  joins the residual stream, and at 8 bits the recogniser missed more Mandarin syllables.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import numpy as np

from rendering.speech.base import VoiceError, cache_folder, holds, install_bytes
from rendering.speech.engines.kokoro_float import NotKokoro, derived, live
from rendering.speech.engines.kokoro_ranges import RANGES

# sha256 of `fast(derived(int8 model))` (onnx 1.23): the model in the cache is used only
# when it hashes to this, and derived again otherwise
FAST_SHA256 = "fd4be914f4c884a2b043eeceb1f648c4b7a46f8feec0027a640e779aa79c975c"
_FLAT = "kokoro_fast_flat_shape"


# models this module derived before (the float one of 0.1, other fast ones), and what a
# write cut short leaves: ".<name>.<8 characters>" beside it
_SUPERSEDED = re.compile(r"kokoro-v1\.0-(?:float|fast)-[0-9a-f]{16}\.onnx")
_UNFINISHED = re.compile(r"\.kokoro-v1\.0-[a-z0-9]+-[0-9a-f]{16}\.onnx\.[a-z0-9_]{8}")
STALE = 600.0  # seconds: a write older than this was cut short (a derive takes seconds)


def tidy(folder: Path, keep: str) -> None:
    """Remove the models of earlier versions and the unfinished writes from `folder`."""
    try:
        found = list(os.scandir(folder))
    except OSError:
        return
    for entry in found:
        superseded = _SUPERSEDED.fullmatch(entry.name) and entry.name != keep
        try:
            stale = (
                _UNFINISHED.fullmatch(entry.name)
                and time.time() - entry.stat(follow_symlinks=False).st_mtime > STALE
            )
            if (superseded or stale) and entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)
        except OSError:
            continue  # another process's, or gone already


class UnknownConvolution(NotKokoro):
    """The ranges name a convolution the model lacks."""


def speaking_model(int8_model) -> Path:
    """The derived model in `cache_folder()`, derived again (from `int8_model()`, the
    checked int8 file) when missing or not whole."""
    folder = cache_folder()
    target = folder / f"kokoro-v1.0-fast-{FAST_SHA256[:16]}.onnx"
    tidy(folder, target.name)
    if holds(target, FAST_SHA256):
        return target
    source = int8_model()
    try:
        blob = fast(derived(source.read_bytes()))
    except UnknownConvolution as exc:  # the model passed its hash check: the ranges are wrong
        raise VoiceError(
            f"the 8-bit ranges (kokoro_ranges.py) do not fit the Kokoro model ({exc}); "
            "reinstall pe-explainer, or measure them again with scripts/kokoro_ranges.py"
        ) from None
    except NotKokoro as exc:
        raise VoiceError(
            f"{source} is not the Kokoro model this voice rewrites ({exc}); delete it and try again"
        ) from None
    # Another onnx may lay the same graph out in other bytes: it is still derived from the
    # checked file, only again on each run, as its bytes do not match FAST_SHA256.
    try:
        install_bytes(target, blob)
    except OSError as exc:
        raise VoiceError(
            f"cannot keep the Kokoro model in {folder} ({exc.strerror}); "
            "set PE_MODEL_CACHE to a writable folder with 300 MB free"
        ) from None
    return target


def fast(data: bytes, ranges: dict | None = None) -> bytes:
    """The float model's bytes with its activations fused and the convolutions named in
    `ranges` (by default `RANGES`) 8-bit."""
    import onnx

    model = onnx.load_from_string(data)
    ranges = RANGES if ranges is None else ranges
    _Graph(model.graph).fuse(unscaled=set(ranges)).quantize(ranges).commit()
    return model.SerializeToString()


def fused_only(data: bytes, unscaled: set[str]) -> bytes:
    """The float model's bytes with its activations fused, every convolution float, those
    named in `unscaled` fed as `fast` feeds them: what `scripts/kokoro_ranges.py` measures
    the ranges on."""
    import onnx

    model = onnx.load_from_string(data)
    _Graph(model.graph).fuse(unscaled).commit()
    return model.SerializeToString()


def conv_ends(data: bytes, pattern: str) -> dict[str, tuple[str, str]]:
    """For each float convolution whose name holds `pattern`: its input and output names."""
    import onnx

    graph = onnx.load_from_string(data).graph
    return {
        n.name: (n.input[0], n.output[0])
        for n in graph.node
        if n.op_type == "Conv" and pattern in n.name
    }


class _Graph:
    """A graph being rewritten: its nodes, who makes and who uses each tensor, and the
    constants added; `commit` writes the result back."""

    def __init__(self, graph) -> None:
        from onnx import numpy_helper

        self.graph = graph
        self.to_array = numpy_helper.to_array
        self.from_array = numpy_helper.from_array
        self.inits = {t.name: t for t in graph.initializer}
        self.nodes = list(graph.node)
        self.producer = {out: node for node in self.nodes for out in node.output}
        self.users: dict[str, list] = {}
        for node in self.nodes:
            for name in node.input:
                self.users.setdefault(name, []).append(node)
        self.instead: dict[int, list] = {}
        self.gone: set[int] = set()
        self.added: dict[str, object] = {}

    # ---------------------------------------------------------------- reading
    def made_by(self, name: str, op: str):
        node = self.producer.get(name)
        if node is None or node.op_type != op:
            raise NotKokoro(f"{name!r} is not made by {op}")
        return node

    def only_user(self, name: str, op: str):
        found = self.users.get(name, [])
        if len(found) != 1 or found[0].op_type != op:
            raise NotKokoro(f"{name!r} is not used by one {op}")
        return found[0]

    def array(self, name: str) -> np.ndarray:
        found = self.added.get(name, self.inits.get(name))
        if found is None:
            raise NotKokoro(f"{name!r} is not a constant")
        return self.to_array(found)

    def constant(self, name: str, value: np.ndarray) -> str:
        self.added[name] = self.from_array(value, name)
        return name

    # ---------------------------------------------------------------- rewrites
    def fuse(self, unscaled: set[str]) -> _Graph:
        """Every `AdaIN → Snake` before a convolution as InstanceNormalization, z + sin²(z),
        with 1/α in the convolution's weights; a convolution named in `unscaled` (one that
        will be 8-bit) is fed (z + sin²(z))/α instead, as its one scale for every channel
        would otherwise span the channels' different α."""
        from onnx import helper

        sites = [
            n
            for n in self.nodes
            if n.op_type == "Sin"
            and self.producer.get(n.input[0]) is not None
            and self.producer[n.input[0]].op_type == "Mul"
            and self.producer[n.input[0]].input[0] in self.inits
        ]
        if not sites:
            raise NotKokoro("it has no Snake activation")
        self.constant(_FLAT, np.array([-1], np.int64))
        for sin in sites:
            scale = self.producer[sin.input[0]]
            alpha_name, x = scale.input
            alpha = self.array(alpha_name).reshape(-1).astype(np.float32)
            square = self.only_user(sin.output[0], "Pow")
            over = self.only_user(square.output[0], "Mul")
            out = self.only_user(over.output[0], "Add")
            if x not in out.input or len(self.users[x]) != 2:
                raise NotKokoro(f"{out.name!r} is not a Snake activation")
            shift = self.made_by(x, "Add")
            affine = self.made_by(shift.input[0], "Mul")
            gain, normed = affine.input
            source, eps = self._normalised(normed)
            convs = []
            for user in self.users[out.output[0]]:
                if user.op_type != "Unsqueeze":
                    raise NotKokoro(f"{out.output[0]!r} does not feed a convolution")
                convs += self.users[user.output[0]]
            divided = not {conv.name for conv in convs} & unscaled
            for conv in convs if divided else []:
                self._divide_inputs(conv, alpha)
            p = out.output[0]
            a = self.constant(f"{p}_alpha", alpha.reshape(1, -1, 1))
            ends = [p] if divided else [f"{p}_scaled"]
            self.instead[id(out)] = [
                helper.make_node("Mul", [gain, a], [f"{p}_gain"]),
                helper.make_node("Reshape", [f"{p}_gain", _FLAT], [f"{p}_gain_flat"]),
                helper.make_node("Mul", [shift.input[1], a], [f"{p}_shift"]),
                helper.make_node("Reshape", [f"{p}_shift", _FLAT], [f"{p}_shift_flat"]),
                helper.make_node(
                    "InstanceNormalization",
                    [source, f"{p}_gain_flat", f"{p}_shift_flat"],
                    [f"{p}_z"],
                    name=f"{p}_norm",
                    epsilon=eps,
                ),
                helper.make_node("Sin", [f"{p}_z"], [f"{p}_sin"]),
                helper.make_node("Mul", [f"{p}_sin", f"{p}_sin"], [f"{p}_sin2"]),
                helper.make_node("Add", [f"{p}_z", f"{p}_sin2"], ends),
            ]
            if not divided:
                inverse = self.constant(f"{p}_over_alpha", (1 / alpha).reshape(1, -1, 1))
                self.instead[id(out)].append(helper.make_node("Mul", [ends[0], inverse], [p]))
            self.gone |= {id(n) for n in (scale, sin, square, over, shift, affine)}
        return self

    def _normalised(self, name: str) -> tuple[str, float]:
        """The tensor that `name` is the instance normalisation of (over time), and its ε."""
        div = self.made_by(name, "Div")
        centred = div.input[0]
        add = self.made_by(self.made_by(div.input[1], "Sqrt").input[0], "Add")
        square = self.made_by(self.made_by(add.input[0], "ReduceMean").input[0], "Mul")
        sub = self.made_by(centred, "Sub")
        mean = self.made_by(sub.input[1], "ReduceMean")
        if list(square.input) != [centred, centred] or mean.input[0] != sub.input[0]:
            raise NotKokoro(f"{name!r} is not an instance normalisation")
        return sub.input[0], float(self.array(add.input[1]))

    def _divide_inputs(self, conv, alpha: np.ndarray) -> None:
        if conv.op_type != "Conv" or len(self.users[conv.input[1]]) != 1:
            raise NotKokoro(f"{conv.name!r} is not a convolution with weights of its own")
        weights = self.array(conv.input[1])
        name = f"{conv.input[1]}_over_alpha"
        self.constant(name, (weights / alpha[None, :, None, None]).astype(np.float32))
        conv.input[1] = name

    def quantize(self, ranges: dict) -> _Graph:
        """Each convolution named in `ranges` (input low, high, output low, high) between
        QuantizeLinear and DequantizeLinear, which onnxruntime runs as one QLinearConv."""
        from onnx import helper

        convs = {n.name: n for n in self.nodes if n.op_type == "Conv"}
        for name, (in_lo, in_hi, out_lo, out_hi) in ranges.items():
            conv = convs.get(name)
            if conv is None:
                raise UnknownConvolution(f"it has no convolution {name!r}")
            x, w, *bias = conv.input
            y = conv.output[0]
            weights = self.array(w)
            per_channel = np.abs(weights).reshape(len(weights), -1).max(axis=1) / 127
            per_channel = np.where(per_channel > 0, per_channel, 1).astype(np.float32)
            in_scale, in_zero = _uint8(in_lo, in_hi)
            out_scale, out_zero = _uint8(out_lo, out_hi)
            q, c, zeros = f"{name}_q", self.constant, np.zeros(len(weights))
            qw = np.clip(np.rint(weights / per_channel[:, None, None, None]), -127, 127)
            steps = {f"{q}_w": (qw.astype(np.int8), per_channel, zeros.astype(np.int8))}
            if bias:  # int32, in steps of the input's scale times the weights'
                scale = (in_scale * per_channel).astype(np.float32)
                qb = np.rint(self.array(bias[0]) / scale).astype(np.int32)
                steps[f"{q}_b"] = (qb, scale, zeros.astype(np.int32))
            node = helper.make_node
            self.instead[id(conv)] = [
                node(
                    "QuantizeLinear",
                    [x, c(f"{q}_xs", in_scale), c(f"{q}_xz", in_zero)],
                    [f"{q}_x8"],
                ),
                node("DequantizeLinear", [f"{q}_x8", f"{q}_xs", f"{q}_xz"], [f"{q}_x"]),
                *(
                    node(
                        "DequantizeLinear",
                        [c(f"{out}_int", ints), c(f"{out}_scale", scales), c(f"{out}_zero", zero)],
                        [out],
                        axis=0,
                    )
                    for out, (ints, scales, zero) in steps.items()
                ),
                node(
                    "Conv",
                    [f"{q}_x", *steps],
                    [f"{q}_y"],
                    name=name,
                    **{a.name: helper.get_attribute_value(a) for a in conv.attribute},
                ),
                node(
                    "QuantizeLinear",
                    [f"{q}_y", c(f"{q}_ys", out_scale), c(f"{q}_yz", out_zero)],
                    [f"{q}_y8"],
                ),
                node("DequantizeLinear", [f"{q}_y8", f"{q}_ys", f"{q}_yz"], [y]),
            ]
        return self

    def commit(self) -> None:
        nodes = []
        for node in self.nodes:
            nodes += self.instead.get(id(node), [node] if id(node) not in self.gone else [])
        nodes = live(nodes, {out.name for out in self.graph.output})
        used = {name for node in nodes for name in node.input}
        kept = [t for t in self.graph.initializer if t.name in used]
        kept += [t for name, t in self.added.items() if name in used]
        del self.graph.node[:]
        self.graph.node.extend(nodes)
        del self.graph.initializer[:]
        self.graph.initializer.extend(kept)


def _uint8(low: float, high: float) -> tuple[np.ndarray, np.ndarray]:
    """The scale and zero point that map [low, high] (widened to hold 0) onto 0…255."""
    low, high = min(low, 0.0), max(high, 0.0)
    scale = np.float32((high - low) / 255 if high > low else 1.0)
    zero = np.uint8(np.clip(np.rint(-low / scale), 0, 255))
    return np.array(scale, np.float32), np.array(zero, np.uint8)
