"""The hardened YAML/JSON loader: plain data only, within its caps, and the same values
PyYAML's safe loader gives for every document wawkit ships."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from converter import documents
from converter.documents import MAX_DEPTH, parse_json, parse_yaml
from converter.errors import SchemaError

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted([*ROOT.glob("samples/*.yaml"), *ROOT.glob("profiles/*.yaml"), *ROOT.glob("referee/data/*.yaml"),
                  ROOT.parent / "shared" / "cases" / "rule-cases.yaml"])


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_document_reads_as_the_safe_loader_reads_it(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert parse_yaml(text, file=path.name) == yaml.safe_load(text)


@pytest.mark.parametrize("text, value", [
    ("a: 1\nb: [x, 2.5, true, null, ~, 'q']\n", {"a": 1, "b": ["x", 2.5, True, None, None, "q"]}),
    ("when: 2001-02-30\nat: 2024-01-01 10:00:00\n", {"when": "2001-02-30", "at": "2024-01-01 10:00:00"}),
    ("n: 0x1F\no: 017\nu: 1_000\ns: '12'\ne: 1e400\n", {"n": 31, "o": 15, "u": 1000, "s": "12", "e": "1e400"}),
    ("big: 9223372036854775807\nsmall: -9223372036854775808\n",
     {"big": 9223372036854775807, "small": -9223372036854775808}),
    ("", None),
    ("---\n- a\n...\n", ["a"]),
    ("! 12\n", "12"),
])
def test_plain_data_reads_as_written(text: str, value: object) -> None:
    assert parse_yaml(text, file="d.yaml") == value


@pytest.mark.parametrize("text, message", [
    ("a: &x 1\n", "offset 3: not valid YAML: anchors and aliases are not allowed (line 1, column 4)"),
    ("a: *x\n", "offset 3: not valid YAML: anchors and aliases are not allowed (line 1, column 4)"),
    ("a: !!binary aGk=\n", "offset 3: not valid YAML: explicit tags (tag:yaml.org,2002:binary) are not allowed "
                           "(line 1, column 4)"),
    ("- !!python/object/apply:os.system [ls]\n", "offset 2: not valid YAML: explicit tags "
                                                 "(tag:yaml.org,2002:python/object/apply:os.system) are not allowed "
                                                 "(line 1, column 3)"),
    ("a: !custom {b: 1}\n", "offset 3: not valid YAML: explicit tags (!custom) are not allowed (line 1, column 4)"),
    ("<<: {a: 1}\n", "offset 0: not valid YAML: merge keys (<<) are not allowed (line 1, column 1)"),
    ("a: 1\na: 2\n", "offset 5: not valid YAML: duplicate key 'a' (line 2, column 1)"),
    ("? [a, b]\n: 1\n", "offset 7: not valid YAML: a mapping key must be a scalar (a string or a number) "
                        "(line 1, column 8)"),
    ("x: 9223372036854775808\n", "offset 3: not valid YAML: the integer 9223372036854775808 is outside the 64-bit "
                                 "range (line 1, column 4)"),
    ("x: " + "1" * 41 + "\n", "offset 3: not valid YAML: an integer of 41 characters, over the 40-character cap "
                              "(line 1, column 4)"),
    ("x: .inf\n", "offset 3: not valid YAML: '.inf' is not a finite number (line 1, column 4)"),
    ("x: .NaN\n", "offset 3: not valid YAML: '.NaN' is not a finite number (line 1, column 4)"),
    ("x: 1.0e+400\n", "offset 3: not valid YAML: '1.0e+400' is not a finite number (line 1, column 4)"),
    ("a: 1\n---\nb: 2\n", "offset 5: not valid YAML: holds more than one YAML document (a second '---') "
                          "(line 2, column 1)"),
])
def test_anything_but_plain_data_is_refused_with_its_place(text: str, message: str) -> None:
    with pytest.raises(SchemaError) as caught:
        parse_yaml(text, file="d.yaml")
    assert str(caught.value) == f"d.yaml: {message}"


def test_nesting_at_and_over_the_depth_cap() -> None:
    assert parse_yaml("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    with pytest.raises(SchemaError, match=r"^d.yaml: nested too deeply to read$"):
        parse_yaml("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), file="d.yaml")
    indented = "".join("  " * level + "- \n" for level in range(MAX_DEPTH + 1))
    with pytest.raises(SchemaError, match=r"^d.yaml: nested too deeply to read$"):
        parse_yaml(indented, file="d.yaml")


def test_values_at_and_over_the_node_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(documents, "MAX_NODES", 5)
    assert parse_yaml("[1, 2, 3, 4]") == [1, 2, 3, 4]            # the list and four scalars
    with pytest.raises(SchemaError, match=r"^d.yaml: offset 13: not valid YAML: more than 5 values in one document"):
        parse_yaml("[1, 2, 3, 4, 5]", file="d.yaml")
    assert parse_json("[1, 2, 3, 4]") == [1, 2, 3, 4]
    with pytest.raises(SchemaError, match=r"^d.json: not valid JSON: more than 5 values in one document$"):
        parse_json('{"a": 1, "b": 2, "c": 3}', file="d.json")    # the object, three keys, three values


@pytest.mark.parametrize("text, message", [
    ('{"a": 1, "a": 2}', "not valid JSON: duplicate key 'a'"),
    ("[NaN]", "not valid JSON: NaN is not a number JSON allows"),
    ("[-Infinity]", "not valid JSON: -Infinity is not a number JSON allows"),
    ("[1e400]", "not valid JSON: 1e400 is not a finite number"),
    ("[" + "9" * 5000 + "]", "not valid JSON: an integer of 5000 characters, over the 40-character cap"),
    ("[9223372036854775808]", "not valid JSON: the integer 9223372036854775808 is outside the 64-bit range"),
    ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "nested too deeply to read"),
    ("{not json", "offset 1: not valid JSON: Expecting property name enclosed in double quotes (line 1, column 2)"),
])
def test_json_follows_the_same_rules(text: str, message: str) -> None:
    with pytest.raises(SchemaError) as caught:
        parse_json(text, file="d.json")
    assert str(caught.value) == f"d.json: {message}"
    assert parse_json('{"a": [1, 2.5, true, null, "x"]}') == {"a": [1, 2.5, True, None, "x"]}


def test_a_large_flat_document_costs_values_not_a_node_tree() -> None:
    text = "".join(f"- {{a: {i}, b: x}}\n" for i in range(50_000))
    value = parse_yaml(text, file="big.yaml")
    assert len(value) == 50_000 and value[-1] == {"a": 49_999, "b": "x"}
