"""Params: loading, overrides, hashing and one clear error per broken rule."""

import os
import tomllib

import numpy as np
import pytest

import pe_math as pm
from pe_math import ParamError, Params, parse_assignment
from pe_math.params import DEFAULT_TOML, lesson_file


def test_dataclass_defaults_equal_lesson_toml():
    assert Params.load() == Params()
    on_disk = tomllib.loads(DEFAULT_TOML.read_text(encoding="utf-8"))
    # [voice] and [lexicon]: the narration's tables; [theme] and [brand]: the look
    assert set(on_disk) - {"voice", "lexicon", "theme", "brand"} == set(Params().as_dict())


def test_a_lesson_toml_in_the_current_folder_is_read_instead_of_the_default(tmp_path, monkeypatch):
    from rendering.speech import voices

    monkeypatch.chdir(tmp_path)
    assert lesson_file() == DEFAULT_TOML and DEFAULT_TOML.parent.name == "pe_math"
    (tmp_path / "lesson.toml").write_text('base = 100\n[voice.en]\nengine = "espeak"\n')
    assert lesson_file().resolve() == tmp_path / "lesson.toml"
    assert (Params.load().base, Params.load().d_model) == (100.0, Params().d_model)
    assert voices.load_specs()["en"].engine == "espeak"
    assert Params.load(DEFAULT_TOML).base == Params().base  # a named file still wins
    (tmp_path / "lesson.toml").write_text("base = 1\n")
    with pytest.raises(ParamError, match=r"^base=1\.0: must be > 1$"):
        Params.load()


def test_string_overrides_are_converted_by_field_type():
    p = Params.load(
        overrides={
            "base": "500",
            "d_model": "16",
            "layout": "concat",
            "word_a": "[1, 2, 3]",
            "t5_bidirectional": "false",
        }
    )
    assert p.base == 500.0 and isinstance(p.base, float)
    assert p.d_model == 16 and p.layout == "concat"
    assert p.word_a == (1.0, 2.0, 3.0) and p.t5_bidirectional is False


def test_config_file_replaces_defaults(tmp_path):
    cfg = tmp_path / "alt.toml"
    cfg.write_text("base = 100\nd_model = 4\n")
    p = Params.load(cfg)
    assert (p.base, p.d_model, p.n_bits) == (100.0, 4, 4)


def test_a_config_file_saved_with_a_byte_order_mark_is_read(tmp_path):
    cfg = tmp_path / "lesson.toml"
    cfg.write_bytes(b"\xef\xbb\xbfbase = 100\n")
    assert Params.load(cfg).base == 100.0


def test_digest_is_stable_and_tracks_only_named_fields():
    a, b = Params(), Params.load(overrides={"base": "500"})
    assert a.digest(["n_bits"]) == b.digest(["n_bits"])
    assert a.digest(["base", "n_bits"]) != b.digest(["base", "n_bits"])
    assert a.digest(["n_bits", "base"]) == a.digest(["base", "n_bits"])
    assert len(a.digest()) == 16


@pytest.mark.parametrize(
    "override,message",
    [
        ({"d_model": "7"}, "d_model=7: must be even and >= 2"),
        ({"d_model": "0"}, "d_model=0: must be even and >= 2"),
        ({"base": "1"}, "base=1.0: must be > 1"),
        ({"n_bits": "17"}, "n_bits=17: must be from 1 to 16"),
        ({"n_bits": "0"}, "n_bits=0: must be from 1 to 16"),
        ({"int_position": "-3"}, "int_position=-3: positions and seeds must be >= 0"),
        ({"rope_m": "-1"}, "rope_m=-1: positions and seeds must be >= 0"),
        ({"shift_p": "-1"}, "shift_p=-1: positions and seeds must be >= 0"),
        ({"shift_k": "-4"}, "shift_k=-4: moves shift_p=3 below 0; positions must stay >= 0"),
        (
            {"shift_dot_positions": "[]"},
            "shift_dot_positions=[]: needs 1 to 6 positions",
        ),
        ({"X": "[[1, 2], [3]]"}, "X=[[1.0, 2.0], [3.0]]: rows must all have the same length"),
        ({"X": "[[1, 2], [3, 4]]"}, 'tokens=["猫", "咬", "狗"]: needs one token per row of X (2)'),
        ({"word_b": "[1, 2]"}, "word_b=[1.0, 2.0]: must have the same length as word_a (3)"),
        ({"layout": "spiral"}, 'layout=\'spiral\': must be "interleaved" or "concat"'),
        ({"d_model": "2.5"}, "d_model=2.5: must be a whole number"),
        ({"base": "ten"}, "base='ten': must be a number"),
        ({"rope_q": "[1, 2, 3]"}, "rope_q=[1.0, 2.0, 3.0]: must be a 2-d vector [x, y]"),
        ({"heat_dims": "[]"}, "heat_dims=[]: needs 1 to 4 dims, each below heat_d_model (64)"),
        (
            {"heat_dims": "[0, 64]"},
            "heat_dims=[0, 64]: needs 1 to 4 dims, each below heat_d_model (64)",
        ),
        ({"similarity_d_model": "7"}, "similarity_d_model=7: must be even and >= 2"),
        ({"learned_max_len": "0"}, "learned_max_len=0: must be >= 1"),
        ({"bsae": "10"}, "unknown parameter 'bsae'; did you mean 'base'?"),
    ],
)
def test_each_rule_names_key_value_and_rule(override, message):
    with pytest.raises(ParamError) as err:
        Params.load(overrides=override)
    assert str(err.value) == message


def test_bad_config_files_say_what_is_wrong(tmp_path):
    with pytest.raises(ParamError, match="does not exist"):
        Params.load(tmp_path / "missing.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text("base = = 3")
    with pytest.raises(ParamError, match="is not valid TOML"):
        Params.load(broken)


def test_parse_assignment():
    assert parse_assignment("base = 500") == ("base", "500")
    with pytest.raises(ParamError, match="is not KEY=VALUE"):
        parse_assignment("base")
    with pytest.raises(ParamError, match="did you mean 'd_model'"):
        parse_assignment("d_modle=4")


def test_params_are_frozen():
    with pytest.raises(AttributeError):
        Params().base = 3  # type: ignore[misc]


@pytest.mark.parametrize(
    "override,message",
    [
        ({"max_len": "1000000000"}, "max_len=1000000000: must be at most 4,096"),
        ({"clock_max_position": "1e7"}, "clock_max_position=10000000: must be at most 10,000"),
        ({"fourier_terms": "[100000]"}, "fourier_terms=[100000]: must be at most 999"),
        ({"d_model": "1e7"}, "d_model=10000000: must be at most 4,096"),
        ({"proj_seed": "4294967296"}, "proj_seed=4294967296: must be at most 4,294,967,295"),
        ({"base": "inf"}, "base=inf: must be a finite number"),
        ({"base": "nan"}, "base=nan: must be a finite number"),
        ({"proj_scale": "inf"}, "proj_scale=inf: must be a finite number"),
        ({"d_model": "inf"}, "d_model=inf: must be a whole number"),
        ({"word_a": "[nan, 1, 2]"}, "word_a=[NaN, 1.0, 2.0]: must be a finite number"),
        ({"rope_q": "[1e308, 0]"}, "rope_q=[1e+308, 0.0]: entries must lie within ±1000"),
        ({"word_a": "[" + ", ".join(["1"] * 17) + "]"}, "at most 16 entries"),
        ({"rope_shift": "-3"}, "rope_shift=-3: moves rope_m=2 below 0; positions must stay >= 0"),
        ({"shift_p": "20000"}, "shift_p=20000: must be at most 10,000"),
        ({"shift_dot_positions": "[0, 1, 2, 3, 4, 5, 6]"}, "needs 1 to 6 positions"),
        ({"tokens": '["", "a", "b"]'}, "each token must be 1 to 12 characters"),
        ({"tokens_en": '["' + "x" * 200 + '", "a", "b"]'}, "each token must be 1 to 12 characters"),
        ({"X": str([[0.1, 0.2]] * 7)}, "needs 2 to 6 token rows"),
    ],
)
def test_sizes_are_bounded_and_numbers_finite(override, message):
    with pytest.raises(ParamError) as err:
        Params.load(overrides=override)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_a_shift_that_keeps_positions_non_negative_is_accepted():
    assert Params.load(overrides={"rope_shift": "-2"}).rope_shift == -2
    moved_back = Params.load(overrides={"shift_k": "-3", "shift_dot_positions": "[3, 10]"})
    assert moved_back.shift_k == -3  # p = 3 moves to 0


def test_unreadable_config_files_get_one_line_each(tmp_path):
    binary = tmp_path / "binary.toml"
    binary.write_bytes(bytes(range(128, 256)) * 4)
    with pytest.raises(ParamError, match="is not UTF-8 text"):
        Params.load(binary)
    huge = tmp_path / "huge.toml"
    huge.write_bytes(b"# " + b"x" * 1_000_001)
    with pytest.raises(ParamError, match="is larger than 1,000,000 bytes"):
        Params.load(huge)
    with pytest.raises(ParamError, match="is a folder"):
        Params.load(tmp_path)
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)  # opening it for reading would wait for a writer forever
    with pytest.raises(ParamError, match=r"pipe.toml is not a regular file; pass a .toml file$"):
        Params.load(fifo)


def test_deeply_nested_values_are_one_line_not_a_recursion_error(tmp_path):
    deep = "[" * 500 + "]" * 500
    with pytest.raises(ParamError, match=r"^--set X: nests lists too deeply"):
        Params.load(overrides={"X": deep})
    nested = tmp_path / "nested.toml"
    nested.write_text(f"X = {deep}\n", encoding="utf-8")
    with pytest.raises(ParamError, match=r"nested.toml nests lists or tables too deeply"):
        Params.load(nested)
    assert Params.load(overrides={"word_a": "[0.1, 0.2, 0.3]"}).word_a == (0.1, 0.2, 0.3)


def test_errors_repeat_a_long_bad_value_shortened_to_one_readable_line():
    with pytest.raises(ParamError) as long_token:
        Params.load(overrides={"tokens_en": f'["{"a" * 100_000}", "b", "c"]'})
    assert str(long_token.value) == (
        f'tokens_en=["{"a" * 38}… (100,014 characters): each token must be 1 to 12 '
        "characters on one line, without outer spaces"
    )
    with pytest.raises(ParamError) as huge:
        Params.load(overrides={"shift_dot_positions": "[1e300]"})
    assert "… (303 characters): must be at most 10,000" in str(huge.value)
    assert len(str(huge.value)) < 120
    with pytest.raises(ParamError) as key:
        parse_assignment("x" * 1000 + "=3")
    assert str(key.value).startswith(f"unknown parameter '{'x' * 39}… (1,002 characters);")
    with pytest.raises(ParamError, match="on one line"):
        Params(tokens_en=("cat\nnip", "bites", "dog"))
    assert Params(tokens_en=("cat", "bites", "dog")).tokens_en[0] == "cat"


def test_every_upper_bound_declared_beside_its_knob_is_enforced():
    from dataclasses import fields

    bounded = [f for f in fields(Params) if f.metadata["most"] is not None]
    assert len(bounded) >= 20
    for f in bounded:
        default = getattr(Params(), f.name)
        over = int(f.metadata["most"]) * 2 + 2
        value = (over, over) if isinstance(default, tuple) else type(default)(over)
        with pytest.raises(ParamError, match=rf"^{f.name}=.*must be at most"):
            Params(**{f.name: value})


@pytest.mark.parametrize(
    ("buckets", "distance", "both_ways", "ok"),
    [(32, 9, True, True), (32, 8, True, False), (4, 2, False, False), (4, 3, False, True)],
)
def test_t5_max_distance_must_pass_the_exact_range_of_its_direction(
    buckets, distance, both_ways, ok
):
    # one way, half the buckets count single steps: a limit inside them divides by log 1
    changes = dict(t5_num_buckets=buckets, t5_max_distance=distance, t5_bidirectional=both_ways)
    if ok:
        assert np.isfinite(
            pm.t5_bucket(-np.arange(4 * distance), both_ways, buckets, distance)
        ).all()
        Params(**changes)
    else:
        with pytest.raises(ParamError, match="t5_max_distance=.*exact range"):
            Params(**changes)
