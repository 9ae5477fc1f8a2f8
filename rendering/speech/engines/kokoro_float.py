"""The int8 Kokoro model's convolutions in float: the first step of the model it speaks with
(`kokoro_fast` takes it from here).

The int8 model's 87 convolutions are most of its time. On one thread onnxruntime's
ConvInteger (uint8 weights) is no faster than a float convolution, and a 1-D convolution
is slower than the same one written as 2-D (height 1), which onnxruntime runs with its
blocked NCHWc kernels. So each `DynamicQuantizeLinear → ConvInteger → [Add bias] → Cast →
Mul scale` chain becomes `Unsqueeze → Conv (2-D, the weights dequantized, the float bias)
→ Squeeze`: the model then takes about three quarters of the CPU time, and its
convolutions no longer round their inputs to 8 bits. The matrix products stay int8: as
float they were no faster.
"""

from __future__ import annotations

import numpy as np

from rendering.speech.base import VoiceError

_HEIGHT = "kokoro_float_height_axis"  # the initializer naming axis 2, the added height


class NotKokoro(ValueError):
    """The graph is not laid out as the int8 Kokoro model this rewrite knows."""


def derived(data: bytes) -> bytes:
    """The int8 model's bytes with every ConvInteger chain a float 2-D convolution."""
    try:
        import onnx
        from onnx import numpy_helper
    except ImportError:
        raise VoiceError("the kokoro voice needs the onnx package; run `make setup`") from None
    model = onnx.load_from_string(data)
    graph = model.graph
    inits = {t.name: t for t in graph.initializer}
    producer = {out: node for node in graph.node for out in node.output}
    users: dict[str, list] = {}
    for node in graph.node:
        for name in node.input:
            users.setdefault(name, []).append(node)

    def made_by(name: str, op: str):
        node = producer.get(name)
        if node is None or node.op_type != op:
            raise NotKokoro(f"{name!r} is not made by {op}")
        return node

    def only_user(name: str, *ops: str):
        found = users.get(name, [])
        if len(found) != 1 or found[0].op_type not in ops:
            raise NotKokoro(f"{name!r} is not used by one {' or '.join(ops)}")
        return found[0]

    def array(name: str) -> np.ndarray:
        if name not in inits:
            raise NotKokoro(f"{name!r} is not a constant")
        return numpy_helper.to_array(inits[name])

    added: dict[str, object] = {}
    gone: set[int] = set()
    instead: dict[int, list] = {}
    for conv in [n for n in graph.node if n.op_type == "ConvInteger"]:
        x = made_by(conv.input[0], "DynamicQuantizeLinear").input[0]
        after = only_user(conv.output[0], "Add", "Cast")
        add, cast = (
            (after, only_user(after.output[0], "Cast")) if after.op_type == "Add" else (None, after)
        )
        scaled = only_user(cast.output[0], "Mul")
        scales = made_by(scaled.input[1], "Mul")
        weights = (array(conv.input[1]).astype(np.float32) - array(conv.input[3])) * array(
            scales.input[1]
        )
        if weights.ndim != 3:
            raise NotKokoro(f"{conv.input[1]!r} is not a 1-D convolution's weights")
        name = f"{conv.input[1]}_float2d"
        added.setdefault(name, numpy_helper.from_array(weights[:, :, None, :], name))
        inputs = [f"{x}_2d", name]
        if add is not None:
            bias = _float_bias(add.input[1], inits, producer, conv.name)
            inputs.append(bias)
        instead[id(scaled)] = _conv_2d(conv, x, inputs, weights, scaled.output[0])
        gone |= {id(conv), id(cast)} | ({id(add)} if add is not None else set())
    if not instead:
        raise NotKokoro("it has no ConvInteger")
    _splice(graph, instead, gone, list(added.values()))
    return model.SerializeToString()


def _float_bias(name: str, inits: dict, producer: dict, conv: str) -> str:
    """The float bias a quantized convolution's bias `name` was computed from."""
    bias = name  # Reshape ← Cast ← Floor ← Div(the float bias, its scale)
    while bias not in inits:
        if bias not in producer:
            raise NotKokoro(f"the bias of {conv!r} is not a constant")
        bias = producer[bias].input[0]
    return bias


def _conv_2d(conv, x: str, inputs: list[str], weights: np.ndarray, output: str) -> list:
    """The nodes that compute `output` as a float 2-D convolution: `x` given a height of 1,
    convolved as `conv` did it, and the height taken off again."""
    from onnx import helper

    attrs = {a.name: helper.get_attribute_value(a) for a in conv.attribute}
    (k,) = attrs.get("kernel_shape", [weights.shape[2]])
    pads = attrs.get("pads", [0, 0])
    flat = f"{output}_2d"
    return [
        helper.make_node("Unsqueeze", [x, _HEIGHT], [f"{x}_2d"]),
        helper.make_node(
            "Conv",
            inputs,
            [flat],
            name=f"{conv.name or conv.output[0]}_float2d",
            kernel_shape=[1, k],
            dilations=[1, *attrs.get("dilations", [1])],
            strides=[1, *attrs.get("strides", [1])],
            pads=[0, pads[0], 0, pads[1]],
            group=attrs.get("group", 1),
        ),
        helper.make_node("Squeeze", [flat, _HEIGHT], [output]),
    ]


def _splice(graph, instead: dict[int, list], gone: set[int], added: list) -> None:
    """Rewrite `graph`: each node keyed in `instead` replaced by its new nodes, those in `gone`
    (and whatever is then left unused) dropped, and the `added` initializers and the height
    axis put in."""
    from onnx import numpy_helper

    nodes, seen = [], set()
    for node in graph.node:
        for new in instead.get(id(node), [node] if id(node) not in gone else []):
            if new.op_type == "Unsqueeze" and new.output[0] in seen:
                continue  # one input feeds several convolutions
            seen.update(new.output)
            nodes.append(new)
    nodes = live(nodes, {out.name for out in graph.output})
    used = {name for node in nodes for name in node.input}
    kept = [t for t in graph.initializer if t.name in used] + added
    kept.append(numpy_helper.from_array(np.array([2], np.int64), _HEIGHT))
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.initializer[:]
    graph.initializer.extend(kept)


def live(nodes: list, outputs: set[str]) -> list:
    """`nodes` without those whose results nothing uses (what a rewrite left behind: the
    quantizing of the convolutions' inputs, their scales), in their order."""
    while True:
        used = outputs | {name for node in nodes for name in node.input}
        kept = [node for node in nodes if any(out in used for out in node.output)]
        if len(kept) == len(nodes):
            return kept
        nodes = kept
