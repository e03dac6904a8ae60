"""make demo: the whole run on the samples, and what it leaves in the output folder.

The corrected save re-imports to a Game in which the T-64 carries exactly the result
the report states (Disrupted and Reduced), and every piece the resolution did not
touch keeps its AddPiece command byte for byte.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from converter.demo import ACTION, SEED, main
from converter.resolve import read_position
from converter.vassal.save import SavedGame

SAMPLES = Path(__file__).resolve().parents[1] / "samples"


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("demo-out")
    import contextlib
    import io
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        code = main([str(SAMPLES), str(out)])
    assert code == 0
    return out, printed.getvalue()


def test_demo_writes_save_audit_and_pictures(demo_run: tuple[Path, str]) -> None:
    out, _printed = demo_run
    assert sorted(p.name for p in out.iterdir()) == [
        "demo-before.png", "demo-resolved.audit.json", "demo-resolved.png", "demo-resolved.vsav"]
    assert (out / "demo-before.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_demo_report_states_the_result(demo_run: tuple[Path, str]) -> None:
    _out, printed = demo_run
    assert f"resolve: {ACTION} (seed {SEED})" in printed
    game = read_position(SAMPLES / "demo.vsav", SAMPLES / "waw-sample.vmod", SAMPLES / "profile.yaml").game
    leopard = game.unit("leopard-c1").hex
    assert f"direct fire AP: Leopard C1 ({leopard}) -> T-64 (F6)" in printed
    assert "  roll attack: 5 1 4 4\n" in printed and "  roll save: 5 1 2 4 4\n" in printed
    assert "  totals: to hit 4, fp 4, hits 3, defense dice 5, db dice 2, saves 1, net hits 2\n" in printed
    assert "T-64 is Disrupted; T-64 is Reduced" in printed
    assert "verified, identical rolls, events and output" in printed
    assert printed.count(": clean\n") == 2          # the sample save, and the corrected one


def test_resolved_save_reimports_with_the_reported_result(demo_run: tuple[Path, str]) -> None:
    out, _printed = demo_run
    record = json.loads((out / "demo-resolved.audit.json").read_text(encoding="utf-8"))
    assert record["results"] == [{"unit": "t-64", "result": "disrupted_and_reduced"}]
    after = read_position(out / "demo-resolved.vsav", SAMPLES / "waw-sample.vmod", SAMPLES / "profile.yaml").game
    before = read_position(SAMPLES / "demo.vsav", SAMPLES / "waw-sample.vmod", SAMPLES / "profile.yaml").game
    t64 = after.unit("t-64")
    assert (t64.hex, t64.strength, t64.status.disrupted) == ("F6", "reduced", True)
    assert after.unit("leopard-c1").status.ops_complete is True
    changed = {key for key in before.units if before.units[key] != after.units[key]}
    assert changed == {"t-64", "leopard-c1"}


def test_unaffected_pieces_are_byte_identical(demo_run: tuple[Path, str]) -> None:
    out, _printed = demo_run
    before, after = SavedGame.read(SAMPLES / "demo.vsav"), SavedGame.read(out / "demo-resolved.vsav")
    position = read_position(SAMPLES / "demo.vsav", SAMPLES / "waw-sample.vmod", SAMPLES / "profile.yaml")
    t64 = position.piece_of["t-64"]
    for piece_id, entry in before.pieces.items():
        if piece_id == t64:
            assert after.pieces[piece_id].command.text != entry.command.text   # its Step layer turned
            assert after.piece(piece_id).layer("Step").state_text() != entry.piece.layer("Step").state_text()
        else:
            assert after.pieces[piece_id].command.text == entry.command.text, piece_id
    added = sorted(after.piece(p).name for p in after.pieces if p not in before.pieces and not after.pieces[p].is_stack)
    assert added == ["Disrupted", "Ops Complete"]
    assert after.stack_of(position.piece_of["leopard-c1"]) is not None
    assert [after.piece(m).name for m in after.stacks[after.stack_of(t64)]] == ["T-64 (reduced)", "Disrupted"]


def test_demo_runs_again_to_the_same_bytes(demo_run: tuple[Path, str], tmp_path: Path) -> None:
    out, _printed = demo_run
    import contextlib
    import io
    with contextlib.redirect_stdout(io.StringIO()):
        assert main([str(SAMPLES), str(tmp_path)]) == 0
    for name in ("demo-resolved.vsav", "demo-before.png", "demo-resolved.png"):
        assert (tmp_path / name).read_bytes() == (out / name).read_bytes(), name


def test_demo_missing_samples_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "nowhere"), str(tmp_path / "out")]) == 2
    assert "demo:" in capsys.readouterr().err
