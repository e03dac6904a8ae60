"""Import a save into a Game, write events back onto it, write a Game as a new save; the sample and The Longest Day."""
from __future__ import annotations

import csv
from dataclasses import replace
import re
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings, strategies as st

from converter.cli import main
from converter.errors import ProfileError
from converter.exporter import ResultNotWritable, apply_events, as_saved, events_between, export_game
from converter.importer import import_save, name_point, save_frames
from converter.profile import Profile, read_profile
from converter.scenario import read_scenario
from converter.terrain import read_terrain
from converter.unit_table import read_unit_table
from converter.vassal.commands import AddPiece
from converter.vassal.module import Module
from converter.vassal.save import SavedGame
from referee.events import (MarkerFlipped, MarkerPlaced, MarkerRemoved, StatusChanged, UnitDisrupted,
                            UnitEliminated, UnitMoved, UnitRallied, UnitReduced, UnitRestored, apply, apply_all)
from referee.hexes import Hex
from referee.model import Weapon

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
SAMPLES = ROOT / "samples"
DEMO = SAMPLES / "demo.vsav"
TLD = CORPUS / "tld-longest-day"
PIECES = {"leopard-c1": "1767225600000", "t-64": "1767225600001", "us-infantry": "1767225600002",
          "m113": "1767225600003", "us-hq": "1767225600006", "soviet-infantry": "1767225600007",
          "bmp-1": "1767225600008", "soviet-hq": "1767225600010"}


@pytest.fixture(scope="module")
def sample():
    module = Module.read(SAMPLES / "waw-sample.vmod")
    profile = read_profile(SAMPLES / "profile.yaml")
    return module, profile, read_unit_table(SAMPLES / "units.yaml"), read_terrain(SAMPLES / "terrain.yaml")


def load(sample, data: bytes | None = None):
    module, profile, table, terrain = sample
    save = SavedGame.read(DEMO) if data is None else SavedGame.from_bytes(data)
    return save, import_save(save, module, profile, table, terrain)


def add_pieces(save: SavedGame) -> dict[str, str]:
    return {c.id: c.encode() for c in save.commands() if isinstance(c, AddPiece)}


# -- the sample ------------------------------------------------------------------------------

def test_import_demo_position(sample) -> None:
    _, imported = load(sample)
    game = imported.game
    assert imported.pieces == PIECES
    assert {k: (u.hex, u.side, u.nation, u.formation, u.strength) for k, u in game.units.items()} == {
        "bmp-1": ("H4", "Warsaw Pact", "Soviet", "79 GTD", "full"),
        "leopard-c1": ("B7", "NATO", "Canada", "4 CMBG", "full"),
        "m113": ("B8", "NATO", "US", "2/11 ACR", "full"),
        "soviet-hq": ("H4", "Warsaw Pact", "Soviet", "79 GTD", "full"),
        "soviet-infantry": ("H4", "Warsaw Pact", "Soviet", "79 GTD", "full"),
        "t-64": ("F6", "Warsaw Pact", "Soviet", "79 GTD", "full"),
        "us-hq": ("B8", "NATO", "US", "2/11 ACR", "full"),
        "us-infantry": ("B8", "NATO", "US", "2/11 ACR", "full"),
    }
    t64, leopard = game.units["t-64"], game.units["leopard-c1"]
    assert (t64.type.armor, t64.type.save, t64.type.target_type) == (3, 5, "heavy_armor")
    assert (leopard.type.ap.fp, leopard.type.ap.to_hit) == (4, 4)
    assert [k for k, u in game.units.items() if u.status.ops_complete] == ["m113"]
    assert not any(u.status.disrupted for u in game.units.values())
    assert imported.unit_markers == {"m113": [("ops_complete", "1767225600005")]}
    assert imported.hex_markers == {"E4": [("smoke_2", "1767225600011")]}
    assert game.hexes["E4"].markers == frozenset({"smoke_2"})
    assert game.hexes["F6"].terrain == "woods" and game.hexes["B7"].terrain == "clear"
    assert game.hexes["F6"].at.distance(game.hexes["B7"].at) == 4       # effective range: To-Hit 4 as printed
    assert game.hexes["H4"].at == Hex(7, 0)
    assert len(game.hexes) == 154
    assert (game.turn, dict(game.missions_left)) == (1, {"NATO": 2, "Warsaw Pact": 2})
    assert imported.unrecognised == []


FIRE = [UnitDisrupted("t-64"), UnitReduced("t-64")]


def test_events_change_only_the_affected_pieces(sample) -> None:
    module, profile, _, _ = sample
    save, imported = load(sample)
    before = add_pieces(save)
    others = [c.encode() for c in save.commands() if not isinstance(c, AddPiece)]
    apply_events(save, module, profile, imported, FIRE)
    after = add_pieces(save)
    assert [c.encode() for c in save.commands() if not isinstance(c, AddPiece)] == others
    changed = {pid for pid in before if after.get(pid) != before[pid]}
    assert changed == {PIECES["t-64"]}                    # only the Step layer of the T-64
    new = sorted(set(after) - set(before))
    assert len(new) == 2                                  # the Disrupted marker and the stack it made
    assert all(after[pid] == text for pid, text in before.items() if pid != PIECES["t-64"])
    marker, stack = (save.piece(pid) for pid in new)
    assert marker.name == "Disrupted"
    assert save.stacks[new[1]] == [PIECES["t-64"], new[0]]
    assert save.piece(PIECES["t-64"]).layer("Step").current_level == 2


def test_reimport_after_events_is_exactly_the_applied_game(sample) -> None:
    module, profile, _, _ = sample
    save, imported = load(sample)
    events = [*FIRE, UnitEliminated("bmp-1"), MarkerPlaced("H4", "wrecks"),
              StatusChanged("leopard-c1", "ops_complete", True), StatusChanged("m113", "ops_complete", False),
              StatusChanged("us-infantry", "ammo", "depleted_1"), UnitMoved("us-hq", "A8"),
              MarkerFlipped("E4", "smoke_2", "smoke_1"), UnitDisrupted("soviet-hq"), UnitRallied("soviet-hq")]
    result = apply_events(save, module, profile, imported, events)
    assert result == as_saved(apply_all(imported.game, events))
    _, again = load(sample, save.to_bytes())
    assert again.game == result
    units = again.game.units
    assert (units["t-64"].strength, units["t-64"].status.disrupted) == ("reduced", True)
    assert (units["bmp-1"].location, units["bmp-1"].hex) == ("eliminated", None)
    assert units["us-infantry"].status.ammo == "depleted_1"
    assert (units["leopard-c1"].status.ops_complete, units["m113"].status.ops_complete) == (True, False)
    assert again.game.hexes["H4"].markers == frozenset({"wrecks"})
    assert again.game.hexes["E4"].markers == frozenset({"smoke_1"})
    assert save.position(PIECES["bmp-1"])[0] == "Destroyed"
    assert save.piece(again.hex_markers["E4"][0][1]).layer("Level").current_level == 2   # flipped, same piece
    assert again.hex_markers["E4"][0][1] == "1767225600011"
    assert again.unrecognised == []


def test_elimination_without_holding_map_removes_the_piece(sample) -> None:
    module, _, table, terrain = sample
    doc = yaml.safe_load((SAMPLES / "profile.yaml").read_text(encoding="utf-8"))
    del doc["eliminate"]
    doc["holding_maps"] = {}
    profile = Profile.from_document(doc)
    save = SavedGame.read(DEMO)
    imported = import_save(save, module, profile, table, terrain)
    result = apply_events(save, module, profile, imported, [UnitEliminated("m113")])
    assert PIECES["m113"] not in save.pieces and "1767225600005" not in save.pieces   # with its marker
    again = import_save(SavedGame.from_bytes(save.to_bytes()), module, profile, table, terrain)
    assert "m113" not in again.game.units and len(again.game.units) == 7
    assert again.game == result


def test_an_event_the_profile_cannot_write_is_a_typed_error(sample) -> None:
    module, _, table, terrain = sample
    doc = yaml.safe_load((SAMPLES / "profile.yaml").read_text(encoding="utf-8"))
    del doc["hex_markers"]["wrecks"]
    profile = Profile.from_document(doc)
    save = SavedGame.read(DEMO)
    imported = import_save(save, module, profile, table, terrain)
    with pytest.raises(ResultNotWritable) as caught:
        apply_events(save, module, profile, imported, [MarkerPlaced("F6", "wrecks")])
    assert caught.value.message == ("cannot write 'Wrecks marker placed in F6' into the save: the profile names no "
                                    "piece for the wrecks marker (hex_markers.wrecks)")
    with pytest.raises(ResultNotWritable) as caught:
        apply_events(save, module, profile, imported, [StatusChanged("t-64", "wounded", True)])
    assert caught.value.message == ("cannot write 'T-64 is Wounded' into the save: nothing in the profile shows "
                                    "Wounded: no marker piece (unit_markers.wounded), Layer level "
                                    "(units[0].status_layers) or Dynamic Property (units[0].status_properties)")


def test_a_state_that_lasts_only_while_a_unit_acts_is_not_written_without_its_marker(sample) -> None:
    """A unit still moving (for the Opportunity Fire of the same run, TUS §6.2) shows nothing
    on a module without a Moving marker: the save is written without it, byte for byte."""
    module, profile, table, terrain = sample
    save = SavedGame.read(DEMO)
    imported = import_save(save, module, profile, table, terrain)
    before = save.to_plaintext()
    apply_events(save, module, profile, imported, [StatusChanged("t-64", "moving", True)])
    assert save.to_plaintext() == before


def test_importing_the_export_gives_an_equal_game(sample) -> None:
    module, profile, table, _ = sample
    save, imported = load(sample)
    events = [*FIRE, UnitEliminated("bmp-1"), MarkerPlaced("H4", "wrecks"), StatusChanged("m113", "ammo", "depleted_2")]
    game = apply_events(save, module, profile, imported, events)
    new, pieces = export_game(game, module, profile, table)
    data = new.to_bytes()
    _, again = load(sample, data)
    assert again.game == game
    assert again.pieces == pieces
    assert export_game(game, module, profile, table)[0].to_bytes() == data      # deterministic


def test_events_between_two_positions(sample) -> None:
    _, imported = load(sample)
    events = [*FIRE, UnitEliminated("bmp-1"), MarkerPlaced("H4", "wrecks"), UnitMoved("us-hq", "A8"),
              StatusChanged("m113", "ops_complete", False)]
    wanted = apply_all(imported.game, events)
    assert events_between(imported.game, wanted) == [
        UnitEliminated("bmp-1"), StatusChanged("m113", "ops_complete", False), UnitReduced("t-64"),
        UnitDisrupted("t-64"), UnitMoved("us-hq", "A8"), MarkerPlaced("H4", "wrecks")]
    assert apply_all(imported.game, events_between(imported.game, wanted)) == wanted


def test_a_reduced_counter_fights_with_its_reduced_side(sample) -> None:
    module, profile, _, _ = sample
    save, imported = load(sample)
    assert imported.game.units["t-64"].current.ap == Weapon(5, 4, 6, colour="black")
    apply_events(save, module, profile, imported, [UnitReduced("t-64")])
    _, again = load(sample, save.to_bytes())
    t64 = again.game.units["t-64"]
    assert t64.strength == "reduced"
    assert (t64.current.ap, t64.current.he, t64.current.armor) == (Weapon(3, 4, 6, colour="black"), Weapon(2, 5, 6, colour="black"), 3)


def test_a_restored_step_is_written_onto_the_save(sample) -> None:
    """WaW85 §6.0: a Battlefield Event restores a step; the counter turns back to the very piece text it had."""
    module, profile, _, _ = sample
    save, imported = load(sample)
    original = add_pieces(save)
    apply_events(save, module, profile, imported, [UnitReduced("t-64")])
    reduced_save, reduced = load(sample, save.to_bytes())
    wanted = apply(reduced.game, UnitRestored("t-64"))
    assert events_between(reduced.game, wanted) == [UnitRestored("t-64")]
    result = apply_events(reduced_save, module, profile, reduced, [UnitRestored("t-64")])
    assert result == wanted == imported.game
    assert add_pieces(reduced_save) == original
    assert load(sample, reduced_save.to_bytes())[1].game == imported.game


def test_cli_export_onto_writes_a_restored_step(tmp_path: Path, sample) -> None:
    module, profile, _, _ = sample
    save, imported = load(sample)
    apply_events(save, module, profile, imported, [UnitReduced("t-64")])
    reduced = tmp_path / "reduced.vsav"
    reduced.write_bytes(save.to_bytes())
    runner = CliRunner()
    scenario = tmp_path / "reduced.yaml"
    base = ["--module", str(SAMPLES / "waw-sample.vmod"), "--profile", str(SAMPLES / "profile.yaml")]
    assert runner.invoke(main, ["import", str(reduced), *base, "-o", str(scenario)]).exit_code == 0
    doc = yaml.safe_load(scenario.read_text(encoding="utf-8"))
    t64 = next(u for u in doc["units"] if u["key"] == "t-64")
    assert t64["strength"] == "reduced"
    t64["strength"] = "full"
    scenario.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    out = tmp_path / "restored.vsav"
    result = runner.invoke(main, ["export", str(scenario), *base, "--onto", str(reduced), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output == f"1 change(s) written onto {reduced} -> {out}\n"
    assert load(sample, out.read_bytes())[1].game == imported.game


# -- the command line -------------------------------------------------------------------------

@pytest.mark.slow
def test_cli_import_edit_export_onto_the_save(tmp_path: Path, sample) -> None:
    runner = CliRunner()
    scenario = tmp_path / "demo.yaml"
    base = ["--module", str(SAMPLES / "waw-sample.vmod"), "--profile", str(SAMPLES / "profile.yaml")]
    result = runner.invoke(main, ["import", str(DEMO), *base, "-o", str(scenario)])
    assert result.exit_code == 0, result.output
    assert result.output == f"8 units, 1 unit markers, 1 hex markers -> {scenario}\n"
    loaded = read_scenario(scenario)
    assert loaded.game == load(sample)[1].game
    assert loaded.pieces == PIECES
    doc = yaml.safe_load(scenario.read_text(encoding="utf-8"))
    t64 = next(u for u in doc["units"] if u["key"] == "t-64")
    t64["strength"] = "reduced"
    t64["status"] = {"disrupted": True}
    scenario.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    out = tmp_path / "after.vsav"
    result = runner.invoke(main, ["export", str(scenario), *base, "--onto", str(DEMO), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output == f"2 change(s) written onto {DEMO} -> {out}\n"
    _, again = load(sample, out.read_bytes())
    assert again.game == read_scenario(scenario).game
    result = runner.invoke(main, ["export", str(scenario), *base, "--onto", str(DEMO), "-o", str(DEMO)])
    assert result.exit_code == 2 and "refusing to overwrite" in result.output
    fresh = tmp_path / "fresh.vsav"
    result = runner.invoke(main, ["export", str(scenario), *base, "-o", str(fresh)])
    assert result.exit_code == 0, result.output
    assert load(sample, fresh.read_bytes())[1].game == read_scenario(scenario).game


def test_cli_import_reports_unrecognised_pieces(tmp_path: Path) -> None:
    profile = tmp_path / "profile.yaml"
    doc = yaml.safe_load((SAMPLES / "profile.yaml").read_text(encoding="utf-8"))
    del doc["hex_markers"]
    doc["units_file"] = str(SAMPLES / "units.yaml")
    doc["terrain_file"] = str(SAMPLES / "terrain.yaml")
    profile.write_text(yaml.safe_dump(doc), encoding="utf-8")
    out = tmp_path / "s.json"
    result = CliRunner().invoke(main, ["import", str(DEMO), "--module", str(SAMPLES / "waw-sample.vmod"),
                                                       "--profile", str(profile), "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ("not recognised: piece 1767225600011 'Smoke 2' on Main Map E4: "
                             "no unit, marker or ignore rule of the profile matches\n")
    assert read_scenario(out).unrecognised == [{"piece": "1767225600011", "name": "Smoke 2", "map": "Main Map",
                                                "location": "E4",
                                                "reason": "no unit, marker or ignore rule of the profile matches"}]


def test_cli_a_counter_the_unit_table_lacks_is_not_recognised(tmp_path: Path) -> None:
    """A counter of another module version must not stop the import of the whole game: it is
    reported with the key the table lacks, and the rest is read."""
    table = yaml.safe_load((SAMPLES / "units.yaml").read_text(encoding="utf-8"))
    del table["units"]["bmp-1"]
    units = tmp_path / "units.yaml"
    units.write_text(yaml.safe_dump(table), encoding="utf-8")
    result = CliRunner().invoke(main, ["import", str(DEMO), "--module", str(SAMPLES / "waw-sample.vmod"),
                                       "--profile", str(SAMPLES / "profile.yaml"), "--units", str(units),
                                       "-o", str(tmp_path / "s.yaml")])
    assert result.exit_code == 0
    assert result.stderr == ("not recognised: piece 1767225600008 'BMP-1' on Main Map H4: unit-table key 'bmp-1' "
                             "of 'BMP-1' is not in the unit table 'World at War Sample' (units[0].type)\n")
    assert "bmp-1" not in read_scenario(tmp_path / "s.yaml").game.units


# -- The Longest Day ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tld():
    module = Module.read(TLD / "buildFile")
    profile = read_profile(ROOT / "profiles" / "longest-day.yaml")
    table = read_unit_table(TLD / "faces.csv", profile.unit_table)
    return module, profile, table


def faces_rows() -> dict[int, list[str]]:
    with open(TLD / "faces.csv", newline="", encoding="utf-8") as stream:
        rows = list(csv.reader(stream))[1:]
    return {int(r[20]): r for r in rows}


#: Boxes printed on the Normandy map (Zones of its grid), named instead of a hex.
ZONES = {"Cherbourg Alarm Units", "711 Infanterie Division"}
SAVES = {"scenarios/campaign.sav": 2233, "scenarios/scenario_1.sav": 45, "scenarios/scenario_2.sav": 12,
         "scenarios/scenario_3.sav": 7, "scenarios/scenario_4.sav": 207,
         "logs/0606-1.log": 2232, "logs/0608-3.log": 2163}      # a log's starting position


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SAVES))
def test_every_longest_day_unit_matches_its_faces_row_and_a_hex(tld, name: str) -> None:
    module, profile, table = tld
    save = SavedGame.read(TLD / name)
    imported = import_save(save, module, profile, table)
    assert len(imported.game.units) == SAVES[name]
    rows = faces_rows()
    frames = save_frames(save, profile)
    for key, unit in imported.game.units.items():
        piece = save.piece(imported.pieces[key])
        number = int(re.fullmatch(r"(\d+)\.svg", piece.inner.image).group(1))
        row = rows[number]
        assert imported.table_keys[key] == row[20]
        assert unit.nation == row[0] and unit.formation == row[1]
        assert table.get(row[20]).factors["o"] == (int(row[4]) if row[4].isdigit() else (row[4] or None))
        assert unit.type.mp == (int(row[6]) if row[6].isdigit() else None)      # "[30]" is not a number
        if unit.on_map:
            assert re.fullmatch(r"\d{4}", unit.hex), (key, unit.hex)
            x, y = name_point(module, "Normandy", unit.hex, frames)     # the counter lies on the centre of its hex
            _, px, py = save.position(imported.pieces[key])
            assert abs(px - x) <= 2 and abs(py - y) <= 2, (key, unit.hex)
        elif save.position(imported.pieces[key])[0] == "Normandy":
            assert unit.location in ZONES and unit.hex is None, (key, unit.location)    # a box, not a hex
    assert all(u.reason == "no unit, marker or ignore rule of the profile matches" for u in imported.unrecognised)


@pytest.mark.parametrize("name, key, expected", [
    ("scenario_2.sav", "1027", ("II FS", "German", "LW", "6964", {"o": None, "d": 2, "m": 8, "s": 1, "r": None})),
    ("scenario_2.sav", "1287", ("30", "Allied", "UK", "6059", {"o": None, "d": 1, "m": 8, "s": 1, "r": None})),
    ("scenario_4.sav", "1021", ("932 932/1", "German", "LW", "1808", {"o": 4, "d": 2, "m": 8, "s": 1, "r": 1})),
    ("scenario_4.sav", "0", ("101 I/101", "German", "GE", "1403", {"o": 7, "d": 1, "m": 8, "s": 1, "r": 2})),
    ("scenario_1.sav", "100", ("1ss", "German", "GE", "5459", {"o": 5, "d": 5, "m": 8, "s": 3, "r": None})),
    ("campaign.sav", "0", ("101 I/101", "German", "GE", "3315", {"o": 7, "d": 1, "m": 8, "s": 1, "r": 2})),
    ("campaign.sav", "198", ("272 III/272", "German", "GE", None, {"o": 3, "d": 2, "m": 4, "s": 1, "r": 6})),
])
def test_longest_day_sample_units(tld, name: str, key: str, expected: tuple) -> None:
    module, profile, table = tld
    imported = import_save(SavedGame.read(TLD / "scenarios" / name), module, profile, table)
    unit = imported.game.units[key]
    factors = table.get(imported.table_keys[key]).factors
    assert (unit.name, unit.side, unit.nation, unit.hex, {k: factors[k] for k in "odmsr"}) == expected


def test_longest_day_old_board_a_is_the_normandy_frame(tld) -> None:
    """Counters at the same pixel in the campaign (Normandy) and scenario 4 (Board A) get the same hex."""
    module, profile, table = tld
    campaign = import_save(SavedGame.read(TLD / "scenarios" / "campaign.sav"), module, profile, table)
    board_a = SavedGame.read(TLD / "scenarios" / "scenario_4.sav")
    scenario = import_save(board_a, module, profile, table)
    campaign_save = SavedGame.read(TLD / "scenarios" / "campaign.sav")
    shared = []
    for key, unit in scenario.game.units.items():
        other = campaign.game.units.get(key)
        if other is None or board_a.position(scenario.pieces[key])[0] != "Normandy":
            continue
        _, x1, y1 = board_a.position(scenario.pieces[key])
        _, x2, y2 = campaign_save.position(campaign.pieces[key])
        if abs(x1 - x2) <= 1 and y1 == y2:
            shared.append(unit.location)
            assert (unit.location, unit.hex) == (other.location, other.hex)
    assert (len(shared), shared.count("map"), shared.count("Cherbourg Alarm Units")) == (38, 34, 4)


def test_cli_import_longest_day(tmp_path: Path) -> None:
    out = tmp_path / "s2.yaml"
    result = CliRunner().invoke(main, [
        "import", str(TLD / "scenarios" / "scenario_2.sav"), "--module", str(TLD / "buildFile"),
        "--profile", str(ROOT / "profiles" / "longest-day.yaml"), "--units", str(TLD / "faces.csv"), "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    scenario = read_scenario(out)
    assert len(scenario.game.units) == 12
    assert scenario.game.units["652"].hex == "7068"
    save = SavedGame.read(TLD / "scenarios" / "scenario_2.sav")
    assert save.piece(scenario.pieces["652"]).inner.image == "0652.svg"


def _sample_builder():
    """samples/build.py, which writes the sample module's trait texts (its layer_type)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("waw_sample_build", SAMPLES / "build.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules[spec.name] = module          # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_status_shown_by_a_layer_of_the_unit_itself(sample, tmp_path: Path) -> None:
    """A module whose units carry their own Disrupted layer: import reads it, events set it, nothing is added."""
    from converter.exporter import empty_save
    from converter.vassal.sequence import join
    module, _, table, terrain = sample
    build = _sample_builder()
    slot = next(s for s in module.piece_slots if s.name == "T-72")
    layer = build.layer_type("Disrupted", ["disrupted.png"], [""], "Disrupted")
    save = empty_save(module)
    x, y = module.map("Main Map").geometry().locate("D5")
    piece_id = save.add_piece(join([layer, slot.type_text], "\t"), "Main Map", x, y,
                              state_text=join(["-1", slot.state_text], "\t"))
    doc = yaml.safe_load((SAMPLES / "profile.yaml").read_text(encoding="utf-8"))
    doc["units"][0]["status_layers"] = {"disrupted": {"layer": "Disrupted", "level": 1}}
    del doc["unit_markers"]["disrupted"]
    profile = Profile.from_document(doc)
    save = SavedGame.from_bytes(save.to_bytes())
    imported = import_save(save, module, profile, table, terrain)
    assert imported.game.units["t-72"].status.disrupted is False
    count = len(save.pieces)
    apply_events(save, module, profile, imported, [UnitDisrupted("t-72")])
    assert len(save.pieces) == count
    assert save.piece(piece_id).layer("Disrupted").active
    again = import_save(SavedGame.from_bytes(save.to_bytes()), module, profile, table, terrain)
    assert again.game.units["t-72"].status.disrupted is True
    apply_events(save, module, profile, again, [UnitRallied("t-72")])
    assert not save.piece(piece_id).layer("Disrupted").active
    doc["units"][0]["status_layers"] = {"disrupted": {"layer": "Shaken", "level": 1}}
    with pytest.raises(ProfileError) as caught:
        import_save(save, module, Profile.from_document(doc), table, terrain)
    assert caught.value.piece == piece_id
    assert "units[0].status_layers.disrupted: the piece has no layer 'Shaken'" in str(caught.value)


def test_cli_export_onto_a_different_save_is_refused(tmp_path: Path) -> None:
    scenario = tmp_path / "s.yaml"
    scenario.write_text("scenario: 1\nunits: []\nvassal: {pieces: {t-64: '42'}}\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["export", str(scenario), "--module", str(SAMPLES / "waw-sample.vmod"),
                                       "--profile", str(SAMPLES / "profile.yaml"), "--onto", str(DEMO),
                                       "-o", str(tmp_path / "out.vsav")])
    assert result.exit_code == 2
    assert result.output == (f"wawkit: {DEMO}: piece 42: unit 't-64' is piece 42 in the scenario but "
                             f"{PIECES['t-64']} in the save; is it the save the scenario came from?\n")
    assert not (tmp_path / "out.vsav").exists()


#: The 2007 scenario counters turned to their own back face (faces.csv bid) at the start.
REDUCED_2007 = {"scenario_1.sav": {"100": "reduced", "114": "reduced", "117": "reduced"},   # 1ss, 1ss, PzJg/1ss
                "scenario_2.sav": {}, "scenario_3.sav": {}}


@pytest.mark.parametrize("name", ["scenario_1.sav", "scenario_2.sav", "scenario_3.sav"])
def test_longest_day_2007_scenario_as_a_save_of_todays_module(tld, name: str) -> None:
    """The Game of a 2007 save, written with today's PieceSlots, imports back to the same units on the same hexes.

    A 2007 two-faced counter states its strength (its back face in a layer, turned over: reduced);
    a 2007 counter with a nationality back does not, and today's counter of it, two-faced, says full.
    """
    from dataclasses import replace
    module, profile, table = tld
    imported = import_save(SavedGame.read(TLD / "scenarios" / name), module, profile, table)
    new, pieces = export_game(imported.game, module, profile, table)
    again = import_save(SavedGame.from_bytes(new.to_bytes()), module, profile, table)
    assert again.pieces == pieces and again.unrecognised == []
    assert {k: replace(u, strength=imported.game.units[k].strength) for k, u in again.game.units.items()} == \
        dict(imported.game.units)
    assert {k: u.strength for k, u in again.game.units.items() if imported.game.units[k].strength is not None} == \
        {k: u.strength for k, u in imported.game.units.items() if u.strength is not None}
    assert {k: u.strength for k, u in imported.game.units.items() if u.strength == "reduced"} == \
        REDUCED_2007[name]
    two_faced = {k for k, u in again.game.units.items() if u.strength in ("full", "reduced")}
    assert two_faced == {k for k in again.game.units if table.get(again.table_keys[k]).factors["o#2"] is not None
                         or table.get(again.table_keys[k]).factors["d#2"] is not None}
    for key in two_faced:
        assert re.fullmatch(r"\d{4}\.f\.svg", new.piece(pieces[key]).inner.image)
        factors = table.get(again.table_keys[key]).factors      # the back face's Movement, faces.csv m#2
        assert again.game.units[key].type.reduced.mp == (factors["m#2"] if isinstance(factors["m#2"], int) else None)
    assert all(u.type.reduced is None for k, u in again.game.units.items() if k not in two_faced)


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.data())
def test_random_event_sequences_reimport_as_applied(sample, data) -> None:
    """Whatever legal sequence of events is written onto the demo save, importing it gives the applied Game."""
    module, profile, table, terrain = sample
    save, imported = load(sample)
    game = imported.game
    hexes = sorted(h for h in game.hexes if re.fullmatch(r"[A-N]([1-9]|10)", h))
    events = []
    for _ in range(data.draw(st.integers(1, 8), label="length")):
        on_map = sorted(k for k, u in game.units.items() if u.on_map)
        kind = data.draw(st.sampled_from(["disrupt", "rally", "reduce", "eliminate", "move", "ops", "ammo",
                                          "smoke", "wreck"]), label="kind")
        if kind in ("smoke", "wreck"):
            hex_id = data.draw(st.sampled_from(hexes), label="hex")
            marker = "wrecks" if kind == "wreck" else data.draw(st.sampled_from(["smoke_2", "smoke_1"]))
            present = marker in game.hex(hex_id).markers
            event = (MarkerRemoved if present else MarkerPlaced)(hex_id, marker)
        elif not on_map:
            continue
        else:
            key = data.draw(st.sampled_from(on_map), label="unit")
            unit = game.units[key]
            event = {"disrupt": lambda: UnitDisrupted(key), "rally": lambda: UnitRallied(key),
                     "reduce": lambda: UnitReduced(key), "eliminate": lambda: UnitEliminated(key),
                     "move": lambda: UnitMoved(key, data.draw(st.sampled_from(hexes), label="to")),
                     "ops": lambda: StatusChanged(key, "ops_complete", not unit.status.ops_complete),
                     "ammo": lambda: StatusChanged(key, "ammo", data.draw(
                         st.sampled_from(["none", "depleted_2", "depleted_1"]), label="ammo"))}[kind]()
        events.append(event)
        game = apply_all(game, [event])
    result = apply_events(save, module, profile, imported, events)
    assert result == as_saved(game)
    again = import_save(SavedGame.from_bytes(save.to_bytes()), module, profile, table, terrain)
    assert again.game == result
    assert again.unrecognised == []


def test_cli_import_without_a_unit_table(tmp_path: Path) -> None:
    profile = ROOT / "profiles" / "longest-day.yaml"
    result = CliRunner().invoke(main, ["import", str(TLD / "scenarios" / "scenario_3.sav"), "--module",
                                       str(TLD / "buildFile"), "--profile", str(profile), "-o", str(tmp_path / "s.yaml")])
    assert result.exit_code == 2
    assert result.output == f"wawkit: {profile}: no unit table: give --units or name units_file in the profile\n"


def test_units_in_places_the_profile_does_not_know_stay_where_they_were(tld, tmp_path: Path) -> None:
    """Scenario 4 has 22 units on 'German Remnants', a map today's module lacks: a new save puts
    them back where the save had them, with a note, and every unit comes back as it was (a
    2007 one-faced counter is today's two-faced one, front face up)."""
    module, profile, table = tld
    save = SavedGame.read(TLD / "scenarios" / "scenario_4.sav")
    imported = import_save(save, module, profile, table)
    notes: list[str] = []
    new, _ = export_game(imported.game, module, profile, table, positions=imported.positions, notes=notes)
    again = import_save(SavedGame.from_bytes(new.to_bytes()), module, profile, table)
    assert notes == ["22 unit(s) kept where the save had them in 'German Remnants', a place the profile does not "
                     "know (a map the module does not have): 148, 150, 152, 453, 454, 455, 456, 560 ..."]
    assert sorted(again.game.units) == sorted(imported.game.units)
    for key, unit in imported.game.units.items():
        back = again.game.units[key]
        assert (back.strength or "full") == (unit.strength or "full"), key
        assert replace(back, strength=unit.strength) == unit, key
        if not unit.on_map:
            assert again.positions[key] == imported.positions[key], key
    remnants = [k for k, u in imported.game.units.items() if u.location == "German Remnants"]
    assert len(remnants) == 22 and all(new.position(again.pieces[k])[0] == "German Remnants" for k in remnants)


def test_cli_import_then_export_of_a_longest_day_log(tmp_path: Path) -> None:
    scenario, out = tmp_path / "log.yaml", tmp_path / "new.vsav"
    args = ["--module", str(TLD / "buildFile"), "--profile", str(ROOT / "profiles" / "longest-day.yaml"),
            "--units", str(TLD / "faces.csv")]
    imported = CliRunner().invoke(main, ["import", str(TLD / "logs" / "0606-1.log"), *args, "-o", str(scenario)])
    assert imported.exit_code == 0, imported.output
    assert read_scenario(scenario).positions["1401"] == ("Allied Naval Gunfire Control Display", 471, 423)
    exported = CliRunner().invoke(main, ["export", str(scenario), *args, "-o", str(out)])
    assert exported.exit_code == 0, exported.output
    assert exported.stdout == f"2232 units -> new save {out}\n"
    assert exported.stderr.splitlines() == [
        "note: 8 unit(s) kept where the save had them in 'Allied Naval Gunfire Control Display', a place the "
        "profile does not know (a map the module does not have): 1401, 1402, 1403, 1404, 1962, 1963, 1964, 1965",
        "note: 67 unit(s) kept where the save had them in 'German Remnants', a place the profile does not know "
        "(a map the module does not have): 765, 766, 767, 768, 769, 770, 771, 772 ..."]
