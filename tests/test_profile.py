"""Module profiles: selectors, value rules, and mismatches reported with the profile path and the piece id."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from converter.errors import ProfileError, SchemaError
from converter.exporter import empty_save, export_game
from converter.importer import import_save
from converter.profile import Profile, SeenPiece, Selector, prototype_texts, read_profile, seen
from converter.unit_table import read_unit_table, table_from_document
from converter.vassal.module import PROTOTYPE, Module
from converter.vassal.save import SavedGame
from converter.vassal.sequence import join

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
T64 = "1767225600001"
SMOKE = "1767225600011"


@pytest.fixture(scope="module")
def module() -> Module:
    return Module.read(SAMPLES / "waw-sample.vmod")


def profile_doc() -> dict:
    return yaml.safe_load((SAMPLES / "profile.yaml").read_text(encoding="utf-8"))


def slot_piece(module: Module, name: str):
    return next(s for s in module.piece_slots if s.name == name).piece()


def test_sample_profile_reads() -> None:
    profile = read_profile(SAMPLES / "profile.yaml")
    assert profile.main_map == "Main Map"
    assert (profile.units[0].reduced.layer, profile.units[0].reduced.level) == ("Step", 2)
    assert sorted(profile.unit_markers) == ["ammo:depleted_1", "ammo:depleted_2", "disrupted", "ops_complete",
                                            "out_of_command"]
    assert profile.holding_maps == {"Destroyed": "eliminated"}
    assert profile.eliminate_to == "Destroyed"
    assert profile.units_file == str(SAMPLES / "units.yaml")
    assert profile.terrain_file == str(SAMPLES / "terrain.yaml")
    assert profile.location_of_map("Main Map") == "map"
    assert profile.location_of_map("Destroyed") == "eliminated"
    assert profile.location_of_map("Combat") == "Combat"
    assert profile.map_of_location("eliminated") == "Destroyed"


def test_selectors_on_module_pieces(module: Module) -> None:
    profile = read_profile(SAMPLES / "profile.yaml")
    leopard, smoke, ammo = (slot_piece(module, n) for n in ("Leopard C1", "Smoke", "Ammo Depleted"))
    assert profile.unit_rule(leopard) is profile.units[0]
    assert profile.unit_rule(smoke) is None
    assert profile.hex_marker(smoke) == "smoke_2"            # the slot shows level 1: Smoke 2
    assert profile.unit_marker(ammo) == "ammo:depleted_2"
    assert Selector.of({"image": r"^leopard-c1\.png$"}, "x").matches(leopard)
    assert Selector.of({"property": {"Side": "NATO", "Nation": "Canada"}}, "x").matches(leopard)
    assert not Selector.of({"property": {"Side": "Warsaw Pact"}}, "x").matches(leopard)
    assert Selector.of({"layer": "Step", "level": 1}, "x").matches(leopard)
    assert not Selector.of({"layer": "Step", "level": 2}, "x").matches(leopard)
    assert Selector.of({"name": "^Leo"}, "x").matches(leopard)


def test_value_rules_read_properties_groups_numbers_and_maps(module: Module) -> None:
    doc = profile_doc()
    doc["units"][0]["match"] = {"image": r"^([a-z0-9-]+?)(-reduced)?\.png$"}
    doc["units"][0]["type"] = {"image_group": 1}
    doc["units"][0]["side"] = {"property": "Side", "map": {"NATO": "Blue", "Warsaw Pact": "Red"}}
    doc["units"][0]["nation"] = {"value": "Somewhere"}
    profile = Profile.from_document(doc)
    rule = profile.units[0]
    piece = slot_piece(module, "T-64")
    assert rule.type.read(piece, rule) == "t-64"
    assert rule.side.read(piece, rule) == "Red"
    assert rule.nation.read(piece, rule) == "Somewhere"
    numbered = Profile.from_document({**doc, "units": [{"match": {"name": r"^M(\d+)"},
                                                        "type": {"name_group": 1, "number": True}}]})
    rule = numbered.units[0]
    assert rule.type.read(slot_piece(module, "M113"), rule) == "113"


def test_bad_regex_names_its_path() -> None:
    doc = profile_doc()
    doc["units"][0]["match"] = {"image": "(unclosed"}
    with pytest.raises(ProfileError) as caught:
        Profile.from_document(doc, file="p.yaml")
    assert "units[0].match.image: not a regular expression" in str(caught.value)


def test_eliminate_to_must_be_a_holding_map() -> None:
    doc = profile_doc()
    doc["eliminate"] = {"move_to": "Graveyard"}
    with pytest.raises(ProfileError) as caught:
        Profile.from_document(doc, file="p.yaml")
    assert str(caught.value) == "p.yaml: eliminate.move_to: 'Graveyard' is not one of the holding_maps ['Destroyed']"


def test_unit_without_table_entry_is_reported_with_rule_and_key(module: Module) -> None:
    table = yaml.safe_load((SAMPLES / "units.yaml").read_text(encoding="utf-8"))
    del table["units"]["t-64"]
    save = SavedGame.read(SAMPLES / "demo.vsav")
    imported = import_save(save, module, read_profile(SAMPLES / "profile.yaml"), table_from_document(table))
    assert "t-64" not in imported.game.units and len(imported.game.units) == 7
    assert [u.to_dict() for u in imported.unrecognised] == [
        {"piece": T64, "name": "T-64", "map": "Main Map", "location": "F6",
         "reason": "unit-table key 't-64' of 'T-64' is not in the unit table 'World at War Sample' (units[0].type)"}]


def test_missing_reduced_layer_names_rule_and_piece(module: Module) -> None:
    doc = profile_doc()
    doc["units"][0]["reduced"] = {"layer": "Flip", "level": 2}
    save = SavedGame.read(SAMPLES / "demo.vsav")
    with pytest.raises(ProfileError) as caught:
        import_save(save, module, Profile.from_document(doc), read_unit_table(SAMPLES / "units.yaml"))
    assert "units[0].reduced: the piece has no layer 'Flip'" in str(caught.value)
    assert caught.value.piece is not None and caught.value.piece.startswith("17672256000")


def test_unrecognised_pieces_are_reported_not_dropped(module: Module) -> None:
    doc = profile_doc()
    del doc["hex_markers"]
    save = SavedGame.read(SAMPLES / "demo.vsav")
    imported = import_save(save, module, Profile.from_document(doc), read_unit_table(SAMPLES / "units.yaml"))
    assert len(imported.game.units) == 8
    assert [u.to_dict() for u in imported.unrecognised] == [
        {"piece": SMOKE, "name": "Smoke 2", "map": "Main Map", "location": "E4",
         "reason": "no unit, marker or ignore rule of the profile matches"}]
    doc["ignore"] = [{"piece": "Smoke"}]
    imported = import_save(save, module, Profile.from_document(doc), read_unit_table(SAMPLES / "units.yaml"))
    assert imported.unrecognised == []


def _build(module: Module, stacks: list[tuple[str, list[str]]]) -> SavedGame:
    save = empty_save(module)
    slots = {s.name: s for s in module.piece_slots}
    geometry = module.map("Main Map").geometry()
    for hex_name, names in stacks:
        x, y = geometry.locate(hex_name)
        below = None
        for name in names:
            below = save.add_piece(slots[name].type_text, "Main Map", x, y, state_text=slots[name].state_text,
                                   join=below)
    return SavedGame.from_bytes(save.to_bytes())


def test_marker_applies_below_else_above_and_lone_markers_are_reported(module: Module) -> None:
    save = _build(module, [("A1", ["Disrupted", "T-72", "T-80", "Ops Complete"]), ("B1", ["Out of Command"])])
    imported = import_save(save, module, read_profile(SAMPLES / "profile.yaml"),
                           read_unit_table(SAMPLES / "units.yaml"))
    t72, t80 = imported.game.units["t-72"], imported.game.units["t-80"]
    assert (t72.status.disrupted, t72.status.ops_complete) == (True, False)     # bottom marker: unit above
    assert (t80.status.disrupted, t80.status.ops_complete) == (False, True)     # marker on top: unit below
    assert [(u.name, u.location, u.reason) for u in imported.unrecognised] == [
        ("Out of Command", "B1", "out_of_command marker with no unit in its stack")]


def test_unit_keys_number_repeated_types_in_piece_id_order(module: Module) -> None:
    save = _build(module, [("A1", ["T-72"]), ("B1", ["T-72"]), ("C1", ["T-72"])])
    imported = import_save(save, module, read_profile(SAMPLES / "profile.yaml"),
                           read_unit_table(SAMPLES / "units.yaml"))
    assert {k: u.hex for k, u in imported.game.units.items()} == {"t-72": "A1", "t-72-2": "B1", "t-72-3": "C1"}
    assert imported.table_keys == {"t-72": "t-72", "t-72-2": "t-72", "t-72-3": "t-72"}


def test_table_where_skips_entries(module: Module) -> None:
    doc = profile_doc()
    doc["units"][0]["table_where"] = {"side": ["nobody"]}
    save = SavedGame.read(SAMPLES / "demo.vsav")
    table = yaml.safe_load((SAMPLES / "units.yaml").read_text(encoding="utf-8"))
    for entry in table["units"].values():
        entry["side"] = "somebody"
    imported = import_save(save, module, Profile.from_document(doc), table_from_document(table))
    assert imported.game.units == {}
    assert sorted(u.name for u in imported.unrecognised) == [
        "BMP-1", "Leopard C1", "M113", "Ops Complete", "Soviet HQ", "Soviet Infantry", "T-64", "US HQ", "US Infantry"]


CSV_SPEC = {"key": "fid", "name": ["dname", "name"], "nation": "nat", "formation": "group", "mp": "m",
            "factors": ["o", "d", "o#2"], "side": {"column": "nat", "map": {"GE": "German"}}, "source": "t.csv"}


def test_csv_unit_table_repeated_columns_and_sources() -> None:
    from converter.unit_table import table_from_csv
    text = "nat,group,dname,name,o,d,m,o,fid\nGE,272 Inf Div,272,III/272,3,2,4,,198\nUS,Corps,VII,,,1,[30],2,1832\n"
    table = table_from_csv(text, CSV_SPEC, file="t.csv")
    entry = table.get("198")
    assert (entry.type.name, entry.type.mp, entry.side, entry.nation, entry.formation) == \
        ("272 III/272", 4, "German", "GE", "272 Inf Div")
    assert entry.factors == {"o": 3, "d": 2, "o#2": None}
    assert entry.sources == {"other": "t.csv row 2"}
    us = table.get("1832")
    assert (us.type.name, us.type.mp, us.side, us.factors["o#2"]) == ("VII", None, "US", 2)


def test_csv_unit_table_errors() -> None:
    from converter.errors import SchemaError
    from converter.unit_table import table_from_csv
    with pytest.raises(SchemaError) as caught:
        table_from_csv("nat,group,fid\nGE,x,1\n", CSV_SPEC, file="t.csv")
    assert caught.value.path == "unit_table"
    assert "no column(s) ['dname', 'name', 'o', 'd', 'o#2', 'm']" in str(caught.value)
    header = "nat,group,dname,name,o,d,m,o,fid\n"
    with pytest.raises(SchemaError) as caught:
        table_from_csv(header + "GE,a,1,,1,1,1,1,7\nGE,b,2,,1,1,1,1,7\n", CSV_SPEC, file="t.csv")
    assert "key '7' appears twice (row 3)" in str(caught.value)
    with pytest.raises(SchemaError):
        table_from_csv("", CSV_SPEC, file="t.csv")
    with pytest.raises(SchemaError) as caught:
        read_unit_table(Path("x.csv"))
    assert "needs a profile with a unit_table section" in str(caught.value)


def test_value_rule_from_the_table_entry(module: Module) -> None:
    doc = profile_doc()
    doc["units"][0]["side"] = {"table": "name", "map": {"T-64": "T-64 side"}}
    profile = Profile.from_document(doc)
    table = read_unit_table(SAMPLES / "units.yaml")
    rule = profile.units[0]
    assert rule.side.read(slot_piece(module, "T-64"), rule, table.get("t-64")) == "T-64 side"
    assert rule.side.read(slot_piece(module, "T-64"), rule, None) is None


def module_with_prototype_property() -> Module:
    """The sample module whose "WaW Unit" prototype also carries the property Echelon = Battalion."""
    original = Module.read(SAMPLES / "waw-sample.vmod").prototypes["WaW Unit"]
    changed = Module.read(SAMPLES / "waw-sample.vmod")
    element = next(e for e in changed.root.iter(PROTOTYPE) if e.get("name") == "WaW Unit")
    type_text = join(["mark;Echelon", original.type_text], "\t")
    state_text = join(["Battalion", original.state_text], "\t")
    element.text = "+/" + join(["null", type_text, state_text], "/")
    return changed


def test_properties_defined_only_in_a_prototype_are_seen() -> None:
    changed = module_with_prototype_property()
    slot = next(s for s in changed.piece_slots if s.name == "T-64").piece()
    assert "Echelon" not in slot.properties()                # the palette piece names its prototype only
    view = seen(slot, prototype_texts(changed))
    assert isinstance(view, SeenPiece)
    assert (view.properties()["Echelon"], view.properties()["UnitType"]) == ("Battalion", "t-64")
    assert view.prototypes() == ["WaW Unit"]                 # match.prototype still sees the name
    assert Selector.of({"prototype": "WaW Unit", "property": {"Echelon": "Battalion"}}, "x").matches(view)
    marker = next(s for s in changed.piece_slots if s.name == "Smoke").piece()
    assert seen(marker, prototype_texts(changed)).properties().get("Echelon") is None


def test_import_and_export_select_units_by_a_prototype_property() -> None:
    doc = profile_doc()
    doc["units"][0]["match"] = {"property": {"Echelon": "Battalion"}}
    doc["units"][0]["nation"] = {"property": "Echelon"}
    profile = Profile.from_document(doc)
    table = read_unit_table(SAMPLES / "units.yaml")
    changed = module_with_prototype_property()
    imported = import_save(SavedGame.read(SAMPLES / "demo.vsav"), changed, profile, table)
    assert sorted(imported.game.units) == ["bmp-1", "leopard-c1", "m113", "soviet-hq", "soviet-infantry", "t-64",
                                           "us-hq", "us-infantry"]
    assert {u.nation for u in imported.game.units.values()} == {"Battalion"}
    assert imported.unrecognised == []
    save, pieces = export_game(imported.game, changed, profile, table)
    assert import_save(SavedGame.from_bytes(save.to_bytes()), changed, profile, table).game == imported.game
    plain = import_save(SavedGame.read(SAMPLES / "demo.vsav"), Module.read(SAMPLES / "waw-sample.vmod"),
                        profile, table)
    assert plain.game.units == {}
    assert sorted((u.name, u.reason) for u in plain.unrecognised)[:2] == [
        ("BMP-1", "no unit, marker or ignore rule of the profile matches"),
        ("Leopard C1", "no unit, marker or ignore rule of the profile matches")]
    assert sum(u.reason == "no unit, marker or ignore rule of the profile matches" for u in plain.unrecognised) == 8
    assert [u.name for u in plain.unrecognised if u.reason == "ops_complete marker with no unit in its stack"] == [
        "Ops Complete"]


def test_formation_cards_of_a_profile_reach_the_position(module: Module) -> None:
    """WaW85 §7.2.4: "The Morale/Training value can be located on the activated Formation's Formation
    card"; the Command Ranges too. A profile states the cards, and every position read through it
    has them: a Morale/Training or Command Check needs no card in the save."""
    from referee.model import Formation
    profile = read_profile(SAMPLES / "profile-waw85.yaml")
    assert profile.formations["79 GTD"] == Formation("79 GTD", "Warsaw Pact", None, 7, False, {"full": 3, "reduced": 2})
    assert sorted(profile.formations) == ["2/11 ACR", "4 CMBG", "79 GTD"]
    save = SavedGame.read(SAMPLES / "demo.vsav")
    game = import_save(save, module, profile, read_unit_table(SAMPLES / "units.yaml")).game
    assert dict(game.formations) == profile.formations
    assert read_profile(SAMPLES / "profile.yaml").formations == {}
    doc = yaml.safe_load((SAMPLES / "profile-waw85.yaml").read_text(encoding="utf-8"))
    doc["formations"]["79 GTD"]["morale"] = 13
    with pytest.raises(SchemaError, match="formations.79 GTD.morale: 13 is greater than the maximum of 12"):
        Profile.from_document(doc)
