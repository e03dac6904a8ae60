"""``wawkit profile init``: a profile drafted from a module a player brings.

On the sample module the draft finds what its hand-written profile says; on every module of
the corpus the draft is valid against the schemas as written, and ``import`` with it reads
every save of that module; an import then export of every corpus save and log gives back the
same units.
"""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from converter.cli import main
from converter.exporter import export_game
from converter.importer import import_save, read_inputs
from converter.piece_state import counter_states
from converter.profile import read_profile
from converter.profile_draft import draft, write_draft
from converter.schema import validate
from converter.unit_table import read_unit_table
from converter.vassal.module import Module
from converter.vassal.save import SavedGame

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
CORPUS = ROOT.parent / "shared" / "corpus"

#: Every module of the corpus, and the saves and logs that are its own (the VASL saves are read
#: through the BFP extension: VASL itself is not in the corpus).
MODULES: dict[str, list[str]] = {
    "tld-longest-day/buildFile": ["tld-longest-day/scenarios/*.sav", "tld-longest-day/logs/*"],
    "vassal-tour/tour.mod": ["vassal-tour/tour.log"],
    "ccn-napoleonics/buildFile.xml": ["ccn-napoleonics/vsav/*.vsav", "ccn-napoleonics/*.vlog"],
    "ragnarok-spi/buildFile.xml": ["ragnarok-spi/*.vsav"],
    "hexncounters-template/jzhex-n-counters-template-v12-379.vmod": [],
    "hexncounters-template/template-src/buildFile.xml": [],
    "dreadball/buildFile": [],
    "vasl-saves-logs/vmdx/BFP_v403.vmdx": ["vasl-saves-logs/examples/*.vsav", "vasl-saves-logs/fixtures/*/*"],
    "asl-pbs-extension/buildFile.xml": [],
    "paths-of-glory/buildFile.xml": ["paths-of-glory/*.vsav"],
    "fields-of-normandy-2/buildFile.xml": [],
    "zxvt-capture-territory/buildFile": ["zxvt-capture-territory/*.vlog"],
}


def saves_of(module: str) -> list[Path]:
    return sorted(p for pattern in MODULES[module] for p in CORPUS.glob(pattern))


def test_every_corpus_module_is_listed() -> None:
    found = {p.relative_to(CORPUS).as_posix() for p in CORPUS.rglob("*")
             if p.name in ("buildFile", "buildFile.xml") or p.suffix in (".vmod", ".mod", ".vmdx")}
    assert found == set(MODULES)
    every = {p for p in CORPUS.rglob("*") if p.is_file() and p.suffix in (".sav", ".vsav", ".log", ".vlog")}
    every |= set((CORPUS / "tld-longest-day" / "logs").iterdir())
    assert every == {p for m in MODULES for p in saves_of(m)}


def test_the_sample_modules_draft_says_what_its_profile_says(tmp_path: Path) -> None:
    module = Module.read(SAMPLES / "waw-sample.vmod")
    found = draft(module)
    assert (found.main_map.value, found.main_map.why) == ("Main Map", "the only map with a hex grid")
    assert {k: g.value for k, g in found.unit_markers.items()} == {
        "disrupted": {"piece": "Disrupted"}, "ops_complete": {"piece": "Ops Complete"},
        "out_of_command": {"piece": "Out of Command"},
        "ammo:depleted_2": {"piece": "Ammo Depleted", "layer": "Level", "level": 1},
        "ammo:depleted_1": {"piece": "Ammo Depleted", "layer": "Level", "level": 2}}
    assert {k: g.value for k, g in found.hex_markers.items()} == {
        "wrecks": {"piece": "Wreck"}, "smoke_2": {"piece": "Smoke", "layer": "Level", "level": 1},
        "smoke_1": {"piece": "Smoke", "layer": "Level", "level": 2}, "improved_position": {"piece": "Improved Position"}}
    assert found.reduced is not None and found.reduced.value == {"layer": "Step", "level": 2}
    assert {k: g.value for k, g in found.values.items()} == {
        "side": {"property": "Side"}, "nation": {"property": "Nation"}, "formation": {"property": "Formation"}}
    assert {k: g.value for k, g in found.holding.items()} == {"Destroyed": "eliminated", "Combat": "combat"}
    assert found.eliminate_to == "Destroyed"
    assert found.missing == ["fired", "moving", "wounded"]
    assert [(g.label, g.units, len(g.slots)) for g in found.groups] == [
        ("prototype 'WaW Unit'", True, 15), ("prototype 'WaW Marker'", False, 7)]
    # The draft reads the demo position as the hand-written profile does, unit by unit.
    written = write_draft(module, tmp_path / "sample.yaml")
    inputs = read_inputs(written.profile)
    drafted = inputs.reader(module).read(SavedGame.read(SAMPLES / "demo.vsav"))
    hand = import_save(SavedGame.read(SAMPLES / "demo.vsav"), module, read_profile(SAMPLES / "profile.yaml"),
                       read_unit_table(SAMPLES / "units.yaml"))

    def facts(imported):
        return {imported.pieces[k]: (u.name, u.hex, u.side, u.nation, u.formation, u.strength, u.status)
                for k, u in imported.game.units.items()}
    assert facts(drafted) == facts(hand)
    assert drafted.unrecognised == [] and len(drafted.game.units) == 8
    assert drafted.game.hexes["E4"].markers == frozenset({"smoke_2"})


def test_cli_profile_init_writes_the_profile_and_its_unit_table(tmp_path: Path) -> None:
    out = tmp_path / "ragnarok.yaml"
    args = ["profile", "init", str(CORPUS / "ragnarok-spi" / "buildFile.xml"), "-o", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    units = tmp_path / "ragnarok.units.yaml"
    assert result.stdout.splitlines() == [
        f"drafted {out} and {units} from 'Ragnarok (SPI) 1981' 1.2 release (v3.7.9):",
        "  main map 'Main Map': the only map with a hex grid",
        "  31 unit type(s) in 4 group(s): prototype 'Unit-Side1' 1, prototype 'Unit-Side2' 1, prototype "
        "'Counter-Aesir' 15, prototype 'Counter-Jotun' 14",
        "  statuses: none found; not found: disrupted, ops_complete, out_of_command, fired, moving, wounded, ammo states",
        "  holding maps: deployment (deployment), DeadPile (eliminated)",
        "  nation of each unit type: palette folder level 2 (Aesir, Jotun, Side1, Side2), written in the unit table",
        f"next: check each '# why' in {out}; fill in the factors in {units}"]
    profile = yaml.safe_load(out.read_text(encoding="utf-8"))
    validate(profile, "profile")
    assert (profile["main_map"], profile["rules"], profile["units_file"]) == ("Main Map", "none", "ragnarok.units.yaml")
    assert profile["units"][0] == {"match": {"layer": "Flip"}, "type": {"property": "BasicName"},
                                   "side": {"property": "Side"}, "reduced": {"layer": "Flip", "level": 1}}
    assert "# why: the only map with a hex grid" in out.read_text(encoding="utf-8")
    table = yaml.safe_load(units.read_text(encoding="utf-8"))
    assert table["units"]["en-odin"] == {
        "name": "en-odin", "nation": "Aesir", "steps": 2,
        "sources": {"other": "drafted by wawkit profile init from PieceSlot 'Pieces/pieces/Aesir': its factors are "
                             "not filled in yet"}}
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 2 and not again.stdout
    assert "exists" in again.stderr and "--force" in again.stderr
    # import with the draft, no hand editing
    scenario = tmp_path / "start.yaml"
    imported = CliRunner().invoke(main, ["import", str(CORPUS / "ragnarok-spi" / "ragnarok-start.vsav"), "--module",
                                         str(CORPUS / "ragnarok-spi" / "buildFile.xml"), "--profile", str(out),
                                         "-o", str(scenario)])
    assert imported.exit_code == 0, imported.output
    assert imported.stdout == f"97 units, 0 unit markers, 0 hex markers -> {scenario}\n"


def test_an_unnumbered_hex_grid_and_an_extension_are_said_so() -> None:
    dreadball = draft(Module.read(CORPUS / "dreadball" / "buildFile"))
    assert dreadball.notes[-1] == ("hex names on 'Main Map': the grid has no numbering, so VASSAL shows no names "
                                   "there; wawkit names its cells column then row, from 0101 at the grid's origin "
                                   "(VASSAL's default numbering)")
    assert dreadball.notes[-1] in dreadball.profile_text("d.units.yaml")
    bfp = draft(Module.read(CORPUS / "vasl-saves-logs" / "vmdx" / "BFP_v403.vmdx"))
    assert bfp.main_map.value == "Main Map"
    assert bfp.main_map.why.startswith("the module (an extension?) has no map of its own")


def same_units(before, after) -> list[str]:
    """Unit keys whose unit differs after an export and import; a strength the profile could
    not read (an older counter whose faces its rules do not know) is read on the new counter,
    which shows the same face (see ``looks``)."""
    differ = []
    for key, unit in before.game.units.items():
        back = after.game.units.get(key)
        if back is None or (unit.strength is not None and back.strength != unit.strength) or \
                (back.location, back.hex, back.side, back.nation, back.formation, back.status, back.type) != \
                (unit.location, unit.hex, unit.side, unit.nation, unit.formation, unit.status, unit.type):
            differ.append(key)
        elif not unit.on_map and after.positions[key] != before.positions[key]:
            differ.append(key)
    return differ


def looks(piece) -> tuple[str, list[tuple[str, int]]]:
    """What a counter shows: its name and the level of each active layer (by name: the images
    of an older module version have other file names)."""
    return piece.name, sorted((layer.name, layer.level) for layer in piece.layers() if layer.active)


#: Counters that come back looking otherwise, and why. 0608-3.log: 12 counters turned in 2007 to a
#: nationality back that today's one-faced counter no longer has. The tutorial log was made with
#: version 4.1.2, whose layer "Marker" (a unit's blocks, a leader's name) is "unitMkr" or "ldrMkr"
#: in 4.2: a layer renamed is a layer VASSAL's Refresh counters does not carry either. The VASL
#: saves' counters are VASL's own (VASL is not in the corpus): the BFP extension's PieceSlot of
#: the same name is another counter.
LOOK_OTHERWISE = {"0608-3.log": 12, "CCNv4 Tutorial.vlog": 28, "Hill 621 (Scenario E) (online).vsav": 3,
                  "Hube's Pocket (Scenario G) (online).vsav": 2,
                  "The Streets Of Stalingrad (Scenario C) (online).vsav": 9, "hill621-legacy.vsav": 3}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MODULES))
def test_a_draft_of_every_corpus_module_reads_every_save_of_it_and_round_trips(name: str, tmp_path: Path) -> None:
    """Import then export gives back the same units, each counter looking as it did (its name,
    the faces its layers show), also on saves of older versions of the module."""
    module = Module.read(CORPUS / name)
    written = write_draft(module, tmp_path / "profile.yaml")           # validated against the schemas
    inputs = read_inputs(written.profile)
    reader = inputs.reader(module)
    for path in saves_of(name):
        save = SavedGame.read(path)
        imported = reader.read(save)
        states = counter_states(save, imported.pieces, imported.game.units, module, inputs.profile, inputs.table)
        new, created = export_game(imported.game, module, inputs.profile, inputs.table, positions=imported.positions,
                                   layouts=imported.layouts, states=states)
        again = reader.read(SavedGame.from_bytes(new.to_bytes()))
        assert sorted(again.game.units) == sorted(imported.game.units), path
        assert same_units(imported, again) == [], path
        otherwise = [k for k, pid in imported.pieces.items() if looks(save.piece(pid)) != looks(new.piece(created[k]))]
        assert len(otherwise) == LOOK_OTHERWISE.get(path.name, 0), (path, otherwise[:5])


#: The Longest Day with its shipped profile (board aliases: hexes on the 2007 boards).
@pytest.mark.slow
@pytest.mark.parametrize("path", saves_of("tld-longest-day/buildFile"), ids=lambda p: p.name)
def test_every_longest_day_save_round_trips_with_the_shipped_profile(path: Path) -> None:
    module = Module.read(CORPUS / "tld-longest-day" / "buildFile")
    inputs = read_inputs(ROOT / "profiles" / "longest-day.yaml", CORPUS / "tld-longest-day" / "faces.csv")
    reader = inputs.reader(module)
    imported = reader.read(SavedGame.read(path))
    new, _ = export_game(imported.game, module, inputs.profile, inputs.table, positions=imported.positions,
                         layouts=imported.layouts)
    again = reader.read(SavedGame.from_bytes(new.to_bytes()))
    assert sorted(again.game.units) == sorted(imported.game.units)
    assert same_units(imported, again) == []
    assert sum(u.on_map for u in again.game.units.values()) == sum(u.on_map for u in imported.game.units.values())


def test_counters_a_deck_starts_with_are_units_unless_the_deck_says_cards(tmp_path: Path) -> None:
    """VASSAL Tour keeps its aircraft and ships in the DrawPiles "Airplane Reserves" and "Ship
    Reserves" (CardSlots, no PieceSlot), its manoeuvre cards in "Cards"."""
    tour = CORPUS / "vassal-tour"
    found = draft(Module.read(tour / "tour.mod"))
    assert [(g.label, g.units, sorted({s.name for s in g.slots})) for g in found.groups if g.label.startswith("DrawPile")] \
        == [("DrawPile 'Airplane Reserves'", True, ["Dauntless"]), ("DrawPile 'Ship Reserves'", True, ["DD"]),
            ("DrawPile 'Cards'", False, ["Loop", "Turn Left", "Turn Right"])]
    profile, scenario, out = tmp_path / "tour.yaml", tmp_path / "tour-log.yaml", tmp_path / "tour.vsav"
    assert CliRunner().invoke(main, ["profile", "init", str(tour / "tour.mod"), "-o", str(profile)]).exit_code == 0
    args = ["--module", str(tour / "tour.mod"), "--profile", str(profile)]
    imported = CliRunner().invoke(main, ["import", str(tour / "tour.log"), *args, "-o", str(scenario)])
    assert (imported.exit_code, imported.stdout, imported.stderr) == (
        0, f"8 units, 0 unit markers, 0 hex markers -> {scenario}\n", "")       # the cards are ignored, not unknown
    game = yaml.safe_load(scenario.read_text(encoding="utf-8"))
    assert [(u["key"], u["location"]) for u in game["units"]] == [
        (key, "force_pool") for key in ("DD", "DD-2", "DD-3", "DD-4", "Dauntless", "Dauntless-2", "Dauntless-3",
                                        "Dauntless-4")]
    exported = CliRunner().invoke(main, ["export", str(scenario), *args, "-o", str(out)])
    assert (exported.exit_code, exported.stdout) == (0, f"8 units -> new save {out}\n")
    again = read_inputs(str(profile)).reader(Module.read(tour / "tour.mod")).read(SavedGame.read(out))
    before = SavedGame.read(tour / "tour.log")
    assert sorted((u.key, again.positions[u.key]) for u in again.game.units.values()) == sorted(
        (k, before.position(pid)) for k, pid in read_scenario_pieces(scenario).items())


def read_scenario_pieces(path: Path) -> dict[str, str]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))["vassal"]["pieces"]


def test_a_track_drawn_on_a_hex_board_is_a_place_not_hexes(tmp_path: Path) -> None:
    """Ragnarok's main map is a hex grid with the Endurance track beside it, a zone with a
    square grid ("Endurance 017"): a god's counter on the track is in a place, not a hex."""
    module = Module.read(CORPUS / "ragnarok-spi" / "buildFile.xml")
    written = write_draft(module, tmp_path / "ragnarok.yaml")
    imported = read_inputs(written.profile).reader(module).read(SavedGame.read(CORPUS / "ragnarok-spi" /
                                                                               "ragnarok-start.vsav"))
    units = imported.game.units
    assert (units["en-odin"].location, units["en-odin"].hex) == ("Endurance 019", None)
    assert sorted(u.location for u in units.values() if u.location.startswith("Endurance")) == [
        "Endurance 015", "Endurance 016", "Endurance 016", "Endurance 017", "Endurance 017", "Endurance 017",
        "Endurance 018", "Endurance 018", "Endurance 019", "Endurance 019", "Endurance 019", "Endurance 020"]
    assert [(k, u.hex) for k, u in units.items() if u.on_map] == [("hero-heimdall", "0101")]
    assert sorted(imported.game.hexes) == ["0101"]
