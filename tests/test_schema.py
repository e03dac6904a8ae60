"""Schemas: every sample file validates, and a bad document is refused with its path inside the document."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from converter.errors import SchemaError
from converter.schema import KINDS, SCHEMAS, document_path, load_document, parse_text, validate

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"


@pytest.mark.parametrize("name, kind", [
    ("units.yaml", "unit_table"), ("profile.yaml", "profile"), ("actions.yaml", "actions"),
    ("terrain.yaml", "terrain"), ("palette.yaml", "palette"),
])
def test_samples_validate(name: str, kind: str) -> None:
    data = load_document(SAMPLES / name, kind)
    assert isinstance(data, dict)


def test_longest_day_profile_validates() -> None:
    data = load_document(ROOT / "profiles" / "longest-day.yaml", "profile")
    assert data["main_map"] == "Normandy"
    assert data["board_aliases"]["Board F"] == {"board": "Normandy", "x": 886, "y": 3615}


def test_every_schema_file_is_a_valid_schema() -> None:
    import jsonschema
    for name in KINDS.values():
        schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
        jsonschema.validators.validator_for(schema).check_schema(schema)


def test_document_path_notation() -> None:
    assert document_path(["units", 3, "hex"]) == "units[3].hex"
    assert document_path([0, "a"]) == "[0].a"
    assert document_path([]) == ""


def test_scenario_error_names_the_unit_and_field() -> None:
    doc = {"scenario": 1, "units": [{"key": "a"}, {"key": "b"}, {"key": "c"}, {"key": "d", "hex": 7}]}
    with pytest.raises(SchemaError) as caught:
        validate(doc, "scenario", file="s.yaml")
    assert caught.value.path == "units[3].hex"
    assert str(caught.value) == "s.yaml: units[3].hex: 7 is not of type 'string', 'null' (scenario schema)"


def test_strength_must_be_full_or_reduced() -> None:
    doc = {"scenario": 1, "units": [{"key": "a", "strength": "half"}]}
    with pytest.raises(SchemaError) as caught:
        validate(doc, "scenario")
    assert caught.value.path == "units[0].strength"


def test_unit_table_entry_without_sources_is_refused() -> None:
    doc = {"table": "t", "units": {"t-64": {"name": "T-64", "armor": 3}}}
    with pytest.raises(SchemaError) as caught:
        validate(doc, "unit_table")
    assert caught.value.path == "units.t-64"
    assert "'sources' is a required property" in caught.value.message


def test_unit_table_sources_need_other() -> None:
    doc = {"table": "t", "units": {"t-64": {"name": "T-64", "sources": {"armor": "001 §6.1"}}}}
    with pytest.raises(SchemaError) as caught:
        validate(doc, "unit_table")
    assert caught.value.path == "units.t-64.sources"


def test_profile_error_names_the_rule() -> None:
    doc = {"profile": "p", "module": "m", "main_map": "Main Map",
           "units": [{"match": {"prototype": "Unit"}, "type": {"property": "UnitType"}},
                     {"match": {"level": 2}, "type": {"property": "UnitType"}}]}
    with pytest.raises(SchemaError) as caught:
        validate(doc, "profile", file="p.yaml")
    assert caught.value.path == "units[1].match"
    assert "'layer' is a dependency of 'level'" in caught.value.message


def test_value_rule_needs_exactly_one_source() -> None:
    doc = {"profile": "p", "module": "m", "main_map": "Main Map",
           "units": [{"match": {"prototype": "Unit"}, "type": {"property": "UnitType", "value": "x"}}]}
    with pytest.raises(SchemaError) as caught:
        validate(doc, "profile")
    assert caught.value.path == "units[0].type"


def test_actions_dice_must_be_d6() -> None:
    doc = {"actions": [{"action": "direct_fire", "unit": "a", "target": "b", "dice": {"attack": [4, 7]}}]}
    with pytest.raises(SchemaError) as caught:
        validate(doc, "actions")
    assert caught.value.path == "actions[0].dice.attack[1]"


def test_terrain_hexside_needs_two_hexes() -> None:
    doc = {"board": "B", "default": "clear", "hexes": {}, "hexsides": [{"between": ["A1"], "feature": "stream"}]}
    with pytest.raises(SchemaError) as caught:
        validate(doc, "terrain")
    assert caught.value.path == "hexsides[0].between"


def test_yaml_aliases_are_refused() -> None:
    text = "a: &x [1, 2]\nb: *x\n"
    with pytest.raises(SchemaError) as caught:
        parse_text(text, file="bomb.yaml")
    assert str(caught.value) == "bomb.yaml: offset 3: not valid YAML: anchors and aliases are not allowed (line 1, column 4)"


def test_yaml_syntax_error_gives_line_and_column() -> None:
    with pytest.raises(SchemaError) as caught:
        parse_text("units:\n  - key: a\n    hex: [B2\n", file="bad.yaml")
    assert str(caught.value).startswith("bad.yaml: ")
    assert "not valid YAML" in str(caught.value)
    assert "line 4" in str(caught.value)


def test_json_syntax_error_gives_offset() -> None:
    with pytest.raises(SchemaError) as caught:
        parse_text('{"scenario": 1,}', file="bad.json")
    assert caught.value.position == 15
    assert "line 1, column 16" in str(caught.value)


def test_unreadable_files_are_typed_errors(tmp_path: Path) -> None:
    binary = tmp_path / "x.yaml"
    binary.write_bytes(b"key: \xff\xfe\n")
    with pytest.raises(SchemaError) as caught:
        load_document(binary, "terrain")
    assert caught.value.position == 5
    with pytest.raises(SchemaError) as missing:
        load_document(tmp_path / "none.yaml", "terrain")
    assert "cannot read" in str(missing.value)


def test_size_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import converter.schema as schema
    big = tmp_path / "big.yaml"
    big.write_text("board: B\n" + "#" * 200 + "\n", encoding="utf-8")
    monkeypatch.setattr(schema, "MAX_DOCUMENT_SIZE", 100)
    with pytest.raises(SchemaError) as caught:
        load_document(big, "terrain")
    assert "over the 100-byte cap" in str(caught.value)


def test_unknown_kind() -> None:
    with pytest.raises(SchemaError):
        validate({}, "nonsense")


def test_actions_may_be_short_texts_or_use_kind() -> None:
    validate({"actions": ["fire leopard-c1 t-64 ap", {"kind": "rally", "unit": "t-64", "note": "n"}]}, "actions")
    with pytest.raises(SchemaError) as caught:
        validate({"actions": ["fire", {"unit": "t-64"}]}, "actions")
    assert caught.value.path == "actions[1]"
    assert "'action' is a required property" in caught.value.message
