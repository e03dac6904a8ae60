"""Scenario files: a Game written as YAML or JSON reads back equal, and bad scenarios are refused by path."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

import pytest
from hypothesis import given, settings, strategies as st

from converter.errors import ContainerError, SchemaError
from converter.scenario import Scenario, dumps, loads, read_scenario, to_document, write_scenario
from referee.hexes import Hex
from referee.model import (AssaultValue, Facts, Formation, Game, HexState, Relation, Status, Unit, UnitType,
                           Weapon)

LEOPARD = UnitType(name="Leopard C1", target_type="heavy_armor", steps=2, ap=Weapon(4, 4, 6), he=Weapon(2, 5, 6),
                   armor=3, save=5, mp=4, abilities=frozenset({"moving_fire", "advanced_imaging"}))
LEOPARD = replace(LEOPARD, reduced=LEOPARD.reduced_side(ap=Weapon(2, 4, 6), armor=3, save=5, mp=4))
INFANTRY = UnitType(name="Soviet Infantry", target_type="troops", steps=2, assault=AssaultValue(2, 5, True), mp=1)
INFANTRY = replace(INFANTRY, reduced=INFANTRY.reduced_side())     # a reduced side whose values are not stated


def full_game() -> Game:
    """A game using every kind of value the model has: sets, mappings, nested types, None, Hex."""
    units = {
        "leopard-c1": Unit("leopard-c1", LEOPARD, side="NATO", nation="Canada", formation="4 CMBG", hex="C7",
                           strength="full", status=Status(ops_complete=True, ammo="depleted_2", mp_spent="up_to_half")),
        "leopard-c1-2": Unit("leopard-c1-2", LEOPARD, side="NATO", hex=None, strength="reduced", location="eliminated"),
        "inf": Unit("inf", INFANTRY, side="Warsaw Pact", hex="F6", status=Status(disrupted=True, concealed=True),
                    carried_by="leopard-c1", command_range=MappingProxyType({"full": 3}), morale=4, level=1,
                    stack_order=2),
        "bare": Unit("bare"),
    }
    hexes = {
        "F6": HexState("F6", terrain="woods", terrain_db=MappingProxyType({"infantry": 1, "vehicle": 1}),
                       markers=frozenset({"smoke_2", "wrecks"}), features=frozenset({"road", "stream:E7"}),
                       at=Hex(5, 3)),
        "C7": HexState("C7", terrain="clear", terrain_db=0, at=Hex(2, 5), owner="NATO", los="clear"),
    }
    facts = Facts(MappingProxyType({"inf": Relation(distance=3, los=True)}),
                  MappingProxyType({"range_band": "effective", "intervening": [{"id": "D7", "terrain": "clear"}]}))
    formations = {"79 GTD": Formation("79 GTD", side="Warsaw Pact", hq="inf", morale=3, conditional=True,
                                      command_range=MappingProxyType({"full": 4, "reduced": 2}), markers=2)}
    return Game(units=MappingProxyType(units), hexes=MappingProxyType(hexes), facts=facts,
                formations=MappingProxyType(formations), turn=3, phase="operations",
                missions_left=MappingProxyType({"NATO": 1}))


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_game_round_trips_unchanged(fmt: str) -> None:
    game = full_game()
    scenario = Scenario(game, "every field", {"leopard-c1": "1700000000001"}, "World at War Sample", "demo.vsav",
                        [{"piece": "9", "name": "Turn", "map": "Main Map", "location": "A1", "reason": "r"}])
    back = loads(dumps(scenario, fmt), fmt=fmt)
    assert back.game == game
    assert back.pieces == {"leopard-c1": "1700000000001"}
    assert (back.name, back.module, back.save) == ("every field", "World at War Sample", "demo.vsav")
    assert back.unrecognised == scenario.unrecognised
    assert dumps(back, fmt) == dumps(scenario, fmt)


def test_both_printed_sides_are_written_and_read_back() -> None:
    doc = to_document(Scenario(full_game()))
    assert doc["unit_types"]["leopard-c1"]["reduced"] == {
        "name": "Leopard C1", "target_type": "heavy_armor", "steps": 2, "ap": {"fp": 2, "to_hit": 4, "range": 6},
        "armor": 3, "save": 5, "mp": 4, "abilities": ["advanced_imaging", "moving_fire"]}
    assert doc["unit_types"]["soviet-infantry"]["reduced"] == {"name": "Soviet Infantry", "target_type": "troops",
                                                               "steps": 2}
    game = loads(dumps(Scenario(full_game()))).game
    assert game.units["leopard-c1-2"].current.ap == Weapon(2, 4, 6)
    assert game.units["leopard-c1"].current.ap == Weapon(4, 4, 6)
    assert game.units["inf"].type.reduced.assault is None


def test_a_reduced_side_has_no_reduced_side_of_its_own() -> None:
    text = "scenario: 1\nunit_types:\n  a: {name: A, reduced: {name: A, reduced: {name: A}}}\nunits:\n  - {key: u, type: a}\n"
    with pytest.raises(SchemaError) as caught:
        loads(text, file="s.yaml")
    assert str(caught.value).startswith("s.yaml: unit_types.a.reduced: ")


def test_unit_types_are_written_once_and_named_by_slug() -> None:
    doc = to_document(Scenario(full_game()))
    assert sorted(doc["unit_types"]) == ["bare", "leopard-c1", "soviet-infantry"]
    assert doc["unit_types"]["leopard-c1"]["abilities"] == ["advanced_imaging", "moving_fire"]
    units = {u["key"]: u for u in doc["units"]}
    assert units["leopard-c1"]["type"] == units["leopard-c1-2"]["type"] == "leopard-c1"
    assert units["leopard-c1"]["status"] == {"ops_complete": True, "ammo": "depleted_2", "mp_spent": "up_to_half"}
    assert "status" not in units["bare"]                       # defaults are left out
    hexes = {h["id"]: h for h in doc["hexes"]}
    assert hexes["F6"]["at"] == {"q": 5, "r": 3}
    assert hexes["F6"]["markers"] == ["smoke_2", "wrecks"]


def test_two_types_of_one_name_get_distinct_keys() -> None:
    other = UnitType(name="Leopard C1", armor=4)
    game = Game(units=MappingProxyType({"a": Unit("a", LEOPARD), "b": Unit("b", other)}))
    doc = to_document(Scenario(game))
    assert sorted(doc["unit_types"]) == ["leopard-c1", "leopard-c1-2"]
    assert loads(dumps(Scenario(game))).game == game


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans(), st.sampled_from(["none", "depleted_2", "depleted_1"]),
                          st.sampled_from([None, "full", "reduced"]), st.one_of(st.none(), st.text(min_size=1)),
                          st.integers(-3, 40)), min_size=1, max_size=6))
def test_random_units_round_trip(rows: list) -> None:
    units = {}
    for n, (disrupted, ops, ammo, strength, nation, fp) in enumerate(rows):
        utype = UnitType(name=f"Type {n % 2}", ap=Weapon(fp=fp))
        if fp % 3:       # a reduced side printing a weaker weapon, or (fp % 3 == 2) no values at all
            utype = replace(utype, reduced=utype.reduced_side(**({"ap": Weapon(fp=fp // 2)} if fp % 3 == 1 else {})))
        units[f"u{n}"] = Unit(f"u{n}", utype, nation=nation, strength=strength,
                              status=Status(disrupted=disrupted, ops_complete=ops, ammo=ammo))
    game = Game(units=MappingProxyType(units))
    back = loads(dumps(Scenario(game))).game
    assert back == game
    assert all(back.units[k].current == u.current for k, u in units.items())
    assert loads(dumps(Scenario(game), "json"), fmt="json").game == game


def test_duplicate_unit_key_is_refused() -> None:
    text = "scenario: 1\nunits:\n  - {key: a}\n  - {key: a}\n"
    with pytest.raises(SchemaError) as caught:
        loads(text, file="dup.yaml")
    assert caught.value.path == "units[1].key"


def test_unknown_unit_type_is_refused() -> None:
    text = "scenario: 1\nunit_types: {t-64: {name: T-64}}\nunits:\n  - {key: a, type: t-64}\n  - {key: b, type: t-72}\n"
    with pytest.raises(SchemaError) as caught:
        loads(text, file="s.yaml")
    assert caught.value.path == "units[1].type"
    assert "'t-72' is not in unit_types" in str(caught.value)


def test_schema_error_in_a_scenario_file(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("scenario: 1\nunits:\n  - {key: a, hex: B2}\n  - {key: b, status: {disrupted: maybe}}\n",
                    encoding="utf-8")
    with pytest.raises(SchemaError) as caught:
        read_scenario(path)
    assert caught.value.path == "units[1].status.disrupted"
    assert caught.value.file == str(path)


def test_write_is_atomic_and_refuses_to_clobber(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    write_scenario(Scenario(full_game()), path)
    assert read_scenario(path).game == full_game()
    with pytest.raises(ContainerError):
        write_scenario(Scenario(Game()), path)
    assert read_scenario(path).game == full_game()
    write_scenario(Scenario(Game()), path, overwrite=True)
    assert read_scenario(path).game == Game()
    assert [p.name for p in tmp_path.iterdir()] == ["s.json"]


def test_a_unit_attacked_by_opportunity_fire_round_trips() -> None:
    """The once-per-hex mark of Opportunity Fire (EG/TUS §6.2, WaW85 §10.11) is part of a
    position written mid-turn, and reads back equal."""
    from dataclasses import replace as _replace

    from converter.scenario import Scenario, dumps, loads
    from referee.model import Game, Status, Unit, UnitType
    game = Game(units={"m": Unit("m", UnitType("M113", target_type="light_armor"), hex="C8",
                                 status=Status(moving=True, opportunity_fired=True))})
    text = dumps(Scenario(game), "yaml")
    assert "opportunity_fired: true" in text
    assert loads(text).game.units["m"].status == _replace(Status(), moving=True, opportunity_fired=True)


def test_a_whole_board_is_kept_in_the_document() -> None:
    """A position holding every hex of its board says so (``whole_board``), and a scenario
    document keeps it, so a hex not listed stays off the map after a round trip (WaW85 §16.7.2)."""
    from referee.model import Game
    from converter.scenario import Scenario, from_document, to_document
    doc = to_document(Scenario(Game(whole_board=True)))
    assert doc["whole_board"] is True
    assert from_document(doc).game.whole_board is True
    assert "whole_board" not in to_document(Scenario(Game()))
    assert from_document(to_document(Scenario(Game()))).game.whole_board is False
