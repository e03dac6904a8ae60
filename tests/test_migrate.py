"""wawkit migrate: the C&C Napoleonics tutorial log moved onto the corpus buildFile's module version.

The log was saved with "Commands & Colors: Napoleonics" 4.1.2; the corpus buildFile is
"... V4.2" 4.2.0a60. Every piece of the position is re-created from the new module's
PieceSlot (by gpid, else by name) keeping position, layers and properties; the result
reads cleanly with wawkit's codec and with VASSAL's own engine classes.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from converter.migrate import migrate, migrate_file
from converter.validate import Options, validate_path
from converter.vassal.commands import AddPiece
from converter.vassal.container import read_container
from converter.vassal.module import Module
from converter.vassal.save import SavedGame

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
CCN = CORPUS / "ccn-napoleonics"
LOG = CCN / "CCNv4 Tutorial.vlog"
BUILDFILE = CCN / "buildFile.xml"


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    out = tmp_path_factory.mktemp("migrate") / "tutorial-v42.vsav"
    report = migrate_file(LOG, BUILDFILE, out)
    return out, report


def test_every_piece_is_matched_or_reported(migrated: tuple[Path, object]) -> None:
    _out, report = migrated
    assert report.total == 401
    assert (len(report.by_gpid), len(report.by_name), len(report.unmatched)) == (398, 3, 0)
    assert report.module_from == "Commands & Colors: Napoleonics 4.1.2"
    assert report.module_to == "Commands & Colors: Napoleonics V4.2 4.2.0a60"


def test_positions_layers_and_properties_are_kept(migrated: tuple[Path, object]) -> None:
    out, _report = migrated
    before, after = SavedGame.read(LOG), SavedGame.read(out)
    assert sorted(before.pieces) == sorted(after.pieces)
    module = Module.read(BUILDFILE)
    slots = {s.gpid: s for s in [*module.piece_slots, *module.card_slots]}
    changed = 0
    for piece_id, entry in before.pieces.items():
        if entry.is_stack or entry.is_deck:
            assert after.pieces[piece_id].command.text == entry.command.text
            continue
        old, new = entry.piece, after.piece(piece_id)
        assert (new.inner.map, new.inner.x, new.inner.y) == (old.inner.map, old.inner.x, old.inner.y)
        assert new.inner.properties == old.inner.properties
        names = [layer.name for layer in old.layers()]
        old_layers = {layer.name: layer.state_text() for layer in old.layers()
                      if layer.name and names.count(layer.name) == 1}
        for layer in new.layers():
            if layer.name in old_layers:
                assert layer.state_text() == old_layers[layer.name], (piece_id, layer.name)
        if new.type_text() != old.type_text():
            changed += 1
            assert new.inner.gpid in slots
        assert not set(new.prototypes()) & set(module.prototypes)     # expanded, as VASSAL stores pieces
    assert changed == 401


def test_log_steps_and_other_commands_are_untouched(migrated: tuple[Path, object]) -> None:
    out, _report = migrated
    before, after = SavedGame.read(LOG), SavedGame.read(out)
    old = [c.text for c in before.commands() if not isinstance(c, AddPiece)]
    new = [c.text for c in after.commands() if not isinstance(c, AddPiece)]
    assert old == new
    assert len(after.log_steps) == len(before.log_steps) == 2236


def test_metadata_names_the_new_module(migrated: tuple[Path, object]) -> None:
    out, _report = migrated
    meta = read_container(out).metadata["moduledata"]
    assert (meta.name, meta.version) == ("Commands & Colors: Napoleonics V4.2", "4.2.0a60")


def test_migrated_save_validates_without_changed_definitions(migrated: tuple[Path, object]) -> None:
    out, _report = migrated
    report = validate_path(out, Options(module=str(BUILDFILE)))     # the log itself: see test_validate
    codes = {f.code for f in report.findings}
    assert not codes & {"definition-changed", "no-piece-slot", "module-name", "module-version", "duplicate-id",
                        "member-missing", "member-doubled"}


def test_unmatched_pieces_are_left_alone_and_reported(tmp_path: Path) -> None:
    save = SavedGame.read(CORPUS / "ragnarok-spi" / "ragnarok-start.vsav")
    texts = {pid: e.command.text for pid, e in save.pieces.items()}
    report = migrate(save, Module.read(CORPUS / "hexncounters-template" / "template-src" / "buildFile.xml"))
    assert report.matched == 0
    assert len(report.unmatched) == 99
    assert report.unmatched[0][2] == "no PieceSlot with its gpid or name"
    assert {pid: e.command.text for pid, e in save.pieces.items()} == texts


#: VASSAL builds GamePiece objects only inside a running GameModule (images, resources),
#: so the harness decodes each AddPiece the way those classes read it, with VASSAL's own
#: SequenceEncoder: id/type/state on '/', one trait level per TAB, BasicPiece fields on ';'.
def test_cli_migrate_reports_and_exit_codes(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from converter.cli import main
    samples = Path(__file__).resolve().parents[1] / "samples"
    runner = CliRunner()
    same = runner.invoke(main, ["migrate", str(samples / "demo.vsav"), "--to-module", str(samples / "waw-sample.vmod"),
                                "-o", str(tmp_path / "same.vsav")])
    assert same.exit_code == 0
    assert same.stdout.startswith("migrated World at War Sample 1.0 -> World at War Sample 1.0: 10 pieces, "
                                  "10 matched by gpid, 0 by name (10 already identical), 0 not matched")
    assert SavedGame.read(tmp_path / "same.vsav").to_text() == SavedGame.read(samples / "demo.vsav").to_text()
    other = runner.invoke(main, ["migrate", str(CORPUS / "ragnarok-spi" / "ragnarok-start.vsav"), "--to-module",
                                 str(CORPUS / "hexncounters-template" / "template-src" / "buildFile.xml"),
                                 "-o", str(tmp_path / "other.vsav"), "--json"])
    assert other.exit_code == 1
    data = json.loads(other.stdout)
    assert (data["pieces"], data["matched_by_gpid"], len(data["unmatched"])) == (99, 0, 99)
    assert (data["written"], data["refused"]) == (False, (
        "only 0 of 99 pieces (0%) match a PieceSlot of \"Hex'n'Counters template\", fewer than 50%: is it the save's "
        "module? Nothing was written (--allow-unmatched writes it anyway)"))
    assert not (tmp_path / "other.vsav").exists()
    text = runner.invoke(main, ["migrate", str(CORPUS / "ragnarok-spi" / "ragnarok-start.vsav"), "--to-module",
                                str(CORPUS / "hexncounters-template" / "template-src" / "buildFile.xml"),
                                "-o", str(tmp_path / "other.vsav")])
    assert text.exit_code == 1 and text.stdout.splitlines()[-1].startswith("REFUSED: only 0 of 99 pieces (0%)")
    anyway = runner.invoke(main, ["migrate", str(CORPUS / "ragnarok-spi" / "ragnarok-start.vsav"), "--to-module",
                                  str(CORPUS / "hexncounters-template" / "template-src" / "buildFile.xml"),
                                  "-o", str(tmp_path / "other.vsav"), "--allow-unmatched", "--json"])
    assert anyway.exit_code == 1 and json.loads(anyway.stdout)["written"] is True
    assert (tmp_path / "other.vsav").exists()
    bad = tmp_path / "bad.vsav"
    bad.write_bytes(b"nonsense")
    broken = runner.invoke(main, ["migrate", str(bad), "--to-module", str(samples / "waw-sample.vmod"),
                                  "-o", str(tmp_path / "x.vsav")])
    assert broken.exit_code == 2
    assert broken.stderr.startswith("wawkit: ")
    assert not (tmp_path / "x.vsav").exists()
