"""Params: loading, overrides, hashing and one clear error per broken rule."""

import tomllib

import pytest

from pe_math import ParamError, Params, parse_assignment
from pe_math.params import DEFAULT_TOML


def test_dataclass_defaults_equal_lesson_toml():
    assert Params.load() == Params()
    on_disk = tomllib.loads(DEFAULT_TOML.read_text(encoding="utf-8"))
    assert set(on_disk) - {"voice"} == set(Params().as_dict())  # [voice]: the narration's table


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
        ({"X": "[[1, 2], [3]]"}, "X=[[1.0, 2.0], [3.0]]: rows must all have the same length"),
        ({"X": "[[1, 2], [3, 4]]"}, 'tokens=["猫", "咬", "狗"]: needs one token per row of X (2)'),
        ({"word_b": "[1, 2]"}, "word_b=[1.0, 2.0]: must have the same length as word_a (3)"),
        ({"layout": "spiral"}, 'layout=\'spiral\': must be "interleaved" or "concat"'),
        ({"d_model": "2.5"}, "d_model=2.5: must be a whole number"),
        ({"base": "ten"}, "base='ten': must be a number"),
        ({"rope_q": "[1, 2, 3]"}, "rope_q=[1.0, 2.0, 3.0]: must be a 2-d vector [x, y]"),
        ({"heat_dims": "[]"}, "heat_dims=[]: needs at least one dim (dims >= d_model are skipped)"),
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
