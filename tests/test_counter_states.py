"""Import -> export keeps each counter as it was: what a counter shows beyond what the profile
reads (Layer levels, Text Labels, Dynamic Properties, its Moved flag...) is kept by the
scenario (``vassal.states``) and put back on the counter a new save makes."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from converter.cli import main
from converter.exporter import export_game
from converter.importer import import_save, read_inputs
from converter.palette import Palette, placed_texts
from converter.piece_state import CounterState, counter_states, restore, restored, shown_states, trait_names
from converter.profile import read_profile
from converter.scenario import read_scenario
from converter.unit_table import read_unit_table
from converter.vassal.module import Module
from converter.vassal.pieces import decode_piece
from converter.vassal.save import SavedGame

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
CORPUS = ROOT.parent / "shared" / "corpus"
LEOPARD = "1767225600000"


def fresh_leopard(module: Module):
    slot = next(s for s in module.piece_slots if s.piece().basic_name == "Leopard C1")
    return decode_piece(*placed_texts(module, slot))


def moved_leopard_save(module: Module) -> SavedGame:
    """The demo position with the Leopard saved as VASSAL saves a counter (its prototype
    expanded), its Moved flag set: something the profile does not read."""
    save = SavedGame.read(SAMPLES / "demo.vsav")
    piece = fresh_leopard(module)
    piece.traits[1].set_state("true")
    entry = save.entry(LEOPARD)
    inner = save.piece(LEOPARD).inner
    piece.inner.set_state(inner.state_text())
    entry.command._set(1, piece.type_text())
    entry.command.state_text = piece.state_text() or ""
    entry._piece = None
    return SavedGame.from_bytes(save.to_bytes())


def test_trait_names_are_kind_and_name_numbered_when_repeated() -> None:
    module = Module.read(SAMPLES / "waw-sample.vmod")
    assert trait_names(fresh_leopard(module)) == ["Delete", "MovementMarkable", "Embellishment Step",
                                                  "Marker Side,Nation,Formation,UnitType"]
    doubled = decode_piece("label;;;10;;;t;0;c;0;c;0;;;0\tlabel;;;10;;;t;0;c;0;c;0;;;0\tpiece;;;a.png;A", "x\ty\tnull;0;0")
    assert trait_names(doubled) == ["Labeler", "Labeler #2"]


def test_a_state_the_profile_does_not_read_survives_import_and_export() -> None:
    module = Module.read(SAMPLES / "waw-sample.vmod")
    profile, table = read_profile(SAMPLES / "profile.yaml"), read_unit_table(SAMPLES / "units.yaml")
    save = moved_leopard_save(module)
    imported = import_save(save, module, profile, table)
    states = counter_states(save, imported.pieces, imported.game.units, module, profile, table)
    assert states == {"leopard-c1": CounterState("Leopard C1", {"MovementMarkable": "true"})}
    new, created = export_game(imported.game, module, profile, table, states=states)
    assert new.piece(created["leopard-c1"]).traits[1].state_text() == "true"
    # every trait of the new counter is in the state of the saved one
    assert [t.state_text() for t in new.piece(created["leopard-c1"]).decorators] == \
        [t.state_text() for t in save.piece(LEOPARD).decorators]
    without, made = export_game(imported.game, module, profile, table)
    assert without.piece(made["leopard-c1"]).traits[1].state_text() == "false"     # a fresh counter


def test_the_scenario_file_keeps_the_states_and_export_writes_them(tmp_path: Path) -> None:
    module_path, profile_path = SAMPLES / "waw-sample.vmod", SAMPLES / "profile.yaml"
    save_path = tmp_path / "moved.vsav"
    save_path.write_bytes(moved_leopard_save(Module.read(module_path)).to_bytes())
    args = ["--module", str(module_path), "--profile", str(profile_path)]
    scenario, out = tmp_path / "moved.yaml", tmp_path / "new.vsav"
    assert CliRunner().invoke(main, ["import", str(save_path), *args, "-o", str(scenario)]).exit_code == 0
    assert yaml.safe_load(scenario.read_text(encoding="utf-8"))["vassal"]["states"] == {
        "leopard-c1": {"piece": "Leopard C1", "traits": {"MovementMarkable": "true"}}}
    assert "    leopard-c1: {piece: Leopard C1, traits: {MovementMarkable: 'true'}}\n" in \
        scenario.read_text(encoding="utf-8")
    assert read_scenario(scenario).states == {"leopard-c1": CounterState("Leopard C1", {"MovementMarkable": "true"})}
    result = CliRunner().invoke(main, ["export", str(scenario), *args, "-o", str(out)])
    assert result.exit_code == 0, result.output
    new = SavedGame.read(out)
    leopard = next(pid for pid, e in new.pieces.items() if not e.is_stack and new.piece(pid).basic_name == "Leopard C1")
    assert new.piece(leopard).traits[1].state_text() == "true"


def test_states_go_only_onto_the_counter_they_came_from_and_only_levels_it_has() -> None:
    module = Module.read(SAMPLES / "waw-sample.vmod")
    slot = next(s for s in module.piece_slots if s.piece().basic_name == "Leopard C1")
    type_text, state_text = placed_texts(module, slot)
    assert restored(type_text, state_text, CounterState("T-64", {"MovementMarkable": "true"})) == state_text
    turned = restored(type_text, state_text, CounterState("Leopard C1", {"Embellishment Step": "2"}))
    assert decode_piece(type_text, turned).layer("Step").level == 2
    assert decode_piece(type_text, state_text).layer("Step").level == 1
    piece = decode_piece(type_text, state_text)
    assert restore(piece, {"Embellishment Step": "3", "Labeler": "x"}) == []      # the Step layer has 2 levels
    assert restore(piece, {"Embellishment Step": "-2"}) == ["Embellishment Step"]
    assert piece.layer("Step").level == -2
    # a saved counter that shows nothing more than a fresh one records nothing
    assert shown_states(decode_piece(type_text, state_text), decode_piece(type_text, state_text)) == {}


@pytest.mark.slow
def test_a_commands_and_colors_save_exports_the_same_counters(tmp_path: Path) -> None:
    """The blocks a unit has left (Layer unitMkr), a leader's name (Text Label), the hex it
    started in (Dynamic Properties): a module the profile knows nothing of, drafted."""
    ccn = CORPUS / "ccn-napoleonics"
    module_path, save_path = ccn / "buildFile.xml", ccn / "vsav" / "A301 - Wertingen.vsav"
    profile = tmp_path / "ccn.yaml"
    assert CliRunner().invoke(main, ["profile", "init", str(module_path), "-o", str(profile)]).exit_code == 0
    args = ["--module", str(module_path), "--profile", str(profile)]
    scenario, out = tmp_path / "a301.yaml", tmp_path / "a301.vsav"
    assert CliRunner().invoke(main, ["import", str(save_path), *args, "-o", str(scenario)]).exit_code == 0
    kept = read_scenario(scenario)
    assert kept.states["French Leader"] == CounterState("French Leader", {
        "Embellishment ldrMkr": "3", "Labeler": "Oudinot", "DynamicProperty origY": "585",
        "DynamicProperty origX": "1031", "DynamicProperty origLoc": "C12"})
    assert CliRunner().invoke(main, ["export", str(scenario), *args, "-o", str(out)]).exit_code == 0
    module = Module.read(module_path)
    inputs = read_inputs(str(profile))
    before, after = SavedGame.read(save_path), SavedGame.read(out)
    again = inputs.reader(module).read(after)
    assert sorted(again.pieces) == sorted(kept.pieces) and len(kept.pieces) == 36

    def shown(save: SavedGame, piece_id: str):
        piece = save.piece(piece_id)
        return piece.name, {layer.name: layer.level for layer in piece.layers()}, piece.properties()
    differ = [key for key, pid in kept.pieces.items() if shown(before, pid) != shown(after, again.pieces[key])]
    assert differ == []
    assert shown(after, again.pieces["French Leader"])[0] == "French Leader (Oudinot)"


@pytest.mark.slow
def test_a_2007_longest_day_counter_turned_to_its_back_is_reduced_and_exported_so() -> None:
    tld = CORPUS / "tld-longest-day"
    module = Module.read(tld / "buildFile")
    inputs = read_inputs(ROOT / "profiles" / "longest-day.yaml", tld / "faces.csv")
    save = SavedGame.read(tld / "logs" / "0608-3.log")
    imported = inputs.reader(module).read(save)
    reduced = sorted(k for k, u in imported.game.units.items() if u.strength == "reduced")
    assert len(reduced) == 58 and reduced[:3] == ["1104", "1107", "1111"]     # CSR, NNSH, RWR of 3 Can Inf Div
    assert imported.game.units["1308"].type.name == "1 L/30" and imported.game.units["1308"].strength == "reduced"
    # turned to a nationality back (pieces.csv 3059-3070): not reduced
    back = [k for k, pid in imported.pieces.items()
            if any(layer.active and layer.image in ("3059.svg", "3062.svg") for layer in save.piece(pid).layers())]
    assert len(back) == 5 and all(imported.game.units[k].strength != "reduced" for k in back)
    states = counter_states(save, imported.pieces, imported.game.units, module, inputs.profile, inputs.table)
    new, created = export_game(imported.game, module, inputs.profile, inputs.table, positions=imported.positions,
                               layouts=imported.layouts, states=states)
    layer = new.piece(created["1308"]).layers()[0]
    assert (layer.active, layer.image) == (True, "1308.b.svg")
    palette = Palette(module, inputs.profile, inputs.table)
    assert palette.entry_of(imported.game.units["1308"]).key == "1308"
