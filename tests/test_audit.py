"""Audit records: written by resolve, replayed by verify to the identical result, or not."""
from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from converter.audit import AuditError, AuditRecord, event_record, verify
from converter.cli import main
from converter.errors import SchemaError
from referee.events import StatusChanged, UnitReduced

SAMPLES = Path(__file__).resolve().parents[1] / "samples"
INPUTS = ("demo.vsav", "waw-sample.vmod", "profile.yaml", "units.yaml", "terrain.yaml", "actions.yaml")


@pytest.fixture()
def resolved(tmp_path: Path) -> Path:
    """A copy of the samples, resolved with a seed; returns the audit record's path."""
    samples = tmp_path / "samples"
    samples.mkdir()
    for name in INPUTS:
        shutil.copy(SAMPLES / name, samples / name)
    out = tmp_path / "out"
    out.mkdir()
    result = CliRunner().invoke(main, [
        "resolve", str(samples / "demo.vsav"), "--module", str(samples / "waw-sample.vmod"),
        "--profile", str(samples / "profile.yaml"), "--action", "fire leopard-c1 t-64 ap", "--seed", "10",
        "-o", str(out / "r.vsav")])
    assert result.exit_code == 0, result.output
    return out / "r.audit.json"


def test_record_holds_inputs_seed_rolls_events(resolved: Path) -> None:
    data = json.loads(resolved.read_text(encoding="utf-8"))
    assert data["format"] == "wawkit-audit/1"
    assert data["inputs"]["save"]["path"] == "../samples/demo.vsav"
    assert data["inputs"]["save"]["sha256"] == __import__("hashlib").sha256(
        (SAMPLES / "demo.vsav").read_bytes()).hexdigest()
    assert data["dice"] == {"seed": 10}
    assert [r["label"] for r in data["rolls"]] == ["attack", "save"]
    assert [len(r["values"]) for r in data["rolls"]] == [4, 5]
    assert data["events"] == [
        {"type": "StatusChanged", "unit": "leopard-c1", "field": "ops_complete", "value": True},
        {"type": "UnitDisrupted", "unit": "t-64"}, {"type": "UnitReduced", "unit": "t-64"}]
    assert data["results"] == [{"unit": "t-64", "result": "disrupted_and_reduced"}]
    assert data["refused"] is None
    assert "direct fire AP: Leopard C1 (B7) -> T-64 (F6)" in data["report"]


def test_verify_replays_to_the_identical_result(resolved: Path) -> None:
    result = verify(resolved)
    assert result.identical
    assert CliRunner().invoke(main, ["verify", str(resolved)]).exit_code == 0


def test_record_and_inputs_can_move_together(resolved: Path, tmp_path: Path) -> None:
    moved = tmp_path / "elsewhere"
    shutil.copytree(tmp_path / "samples", moved / "samples")
    shutil.copytree(tmp_path / "out", moved / "out")
    assert verify(moved / "out" / "r.audit.json").identical


def test_changed_input_is_refused(resolved: Path, tmp_path: Path) -> None:
    (tmp_path / "samples" / "terrain.yaml").write_text("board: x\n", encoding="utf-8")
    with pytest.raises(AuditError, match=r"input terrain '\.\./samples/terrain\.yaml' changed"):
        verify(resolved)
    result = CliRunner().invoke(main, ["verify", str(resolved)])
    assert result.exit_code == 2
    assert "changed: sha256" in result.stderr


def test_tampered_record_is_not_identical(resolved: Path) -> None:
    data = json.loads(resolved.read_text(encoding="utf-8"))
    data["rolls"][0]["values"][0] = 7 - data["rolls"][0]["values"][0]
    data["results"] = [{"unit": "t-64", "result": "eliminated"}]
    resolved.write_text(json.dumps(data), encoding="utf-8")
    result = verify(resolved)
    assert not result.identical
    assert [d.split(" ")[0] for d in result.differences] == ["rolls", "results"]
    assert CliRunner().invoke(main, ["verify", str(resolved)]).exit_code == 1


def test_output_changed_after_writing_is_reported(resolved: Path) -> None:
    output = resolved.parent / "r.vsav"
    written = hashlib.sha256(output.read_bytes()).hexdigest()
    shutil.copy(SAMPLES / "demo.vsav", output)
    now = hashlib.sha256(output.read_bytes()).hexdigest()
    result = verify(resolved)
    assert result.differences == [f"output 'r.vsav' was changed after it was written (sha256 {now[:12]}..., "
                                  f"recorded {written[:12]}...)"]


def test_unreadable_records_are_typed_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(AuditError, match=r"bad.json: offset 1: not valid JSON: Expecting property name enclosed in "
                                         r"double quotes \(line 1, column 2\)$"):
        AuditRecord.read(bad)
    bad.write_text('{"format": "other"}', encoding="utf-8")
    with pytest.raises(AuditError, match="not a wawkit audit record"):
        AuditRecord.read(bad)
    bad.write_text('{"format": "wawkit-audit/1", "inputs": {}}', encoding="utf-8")
    with pytest.raises(SchemaError, match="missing actions, ruleset, book, dice"):
        AuditRecord.read(bad)


def test_event_records_are_plain_data() -> None:
    assert event_record(UnitReduced("t-64")) == {"type": "UnitReduced", "unit": "t-64"}
    assert event_record(StatusChanged("a", "mp_spent", 3)) == {"type": "StatusChanged", "unit": "a",
                                                               "field": "mp_spent", "value": 3}


@pytest.mark.parametrize("change, where", [
    ({"inputs": "save.vsav"}, "/inputs: must be an object"),
    ({"inputs": {"save": {"path": 3}}}, "/inputs/save: must be {path: string, sha256: string}"),
    ({"actions": [{"kind": "direct_fire", "refs": [1]}]}, "/actions/0: must be {kind: string, refs: [string], ...}"),
    ({"dice": {"seed": "7"}}, "/dice: seed must be an integer"),
    ({"book": 3}, "/book: must be a string or null"),
])
def test_records_with_wrong_shapes_are_refused(resolved: Path, change: dict, where: str) -> None:
    data = json.loads(resolved.read_text(encoding="utf-8"))
    data.update(change)
    resolved.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(SchemaError, match=re.escape(where)):
        verify(resolved)
    assert CliRunner().invoke(main, ["verify", str(resolved)]).exit_code == 2
