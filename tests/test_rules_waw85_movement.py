"""WaW85 movement rules from the rule text: what the colour and letter of a unit's Movement
Points allow (§1.9.8), Towed units (§9.6), one Passenger per Transport (§9.8, §9.8.5), and
moves on the sample board whose Terrain Effects Chart a profile transcribes (§9.0-§9.2; the
chart itself is PAC03, not in the rulebook text)."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

import pytest

from converter.actions_text import ActionSpec, parse
from converter.resolve import read_position, resolve_actions, ruleset_named
from referee.dice import GivenDice
from referee.events import (MarkerRemoved, PassengerLoaded, PassengerUnloaded, StatusChanged, UnitDisrupted, UnitMoved,
                            UnitReduced,
                            describe)
from tests.case_support import answer, reasons

RULEBOOKS = ("WaW85",)
SAMPLES = Path(__file__).resolve().parents[1] / "samples"


def waw85(given: dict, dice: dict | None = None):
    return answer("waw85", None, given, dice)


def test_the_movement_point_colours() -> None:
    """§1.9.8: a blue circle is an amphibious unit that crosses Rivers "at a penalty in MPs"
    (§9.5: all its MPs, then Ops Complete); a green circle "may only cross a River using a
    Bridge or Ford"; a green circle is a Transport; a "T" is Towed and may not otherwise move;
    a plain move needs the Terrain Effects Chart (PAC03): not supported."""
    across = {"situation": {"hexside": "river"}, "query": {"action": "move", "unit": "A", "target": "y"}}
    result, after = waw85({**across, "units": {"A": {"mp": 6, "abilities": ["amphibious"], "status": {"mp_spent": 0}}}})
    assert result.values == {"cost": 6, "legal": True}
    # the crossing is a move into the hex across the River, paid with all its MPs (§9.5, §9.0)
    assert result.events == [UnitMoved("A", "y"), StatusChanged("A", "moving", True),
                             StatusChanged("A", "ops_complete", True)]
    assert reasons(result) == [("WaW85 §9.5", "amphibious River crossing: all 6 MPs, then Ops Complete"),
                               ("WaW85 §9.0", "6 MP to enter y after 0 MP spent, of 6"),
                               ("WaW85 §9.0", "A has spent all its MPs: Ops Complete")]
    result, _ = waw85({**across, "units": {"A": {"mp": 6, "status": {"mp_spent": 0}}}})
    assert (result.values["legal"], result.values["reason_rule"]) == (False, "9.5")
    assert reasons(result) == [("WaW85 §9.5", "A is not amphibious: Rivers only at a Bridge or Ford")]
    result, _ = waw85({"units": {"G": {"name": "122MM ARTY", "abilities": ["towed"], "hex": "a"}},
                       "query": {"action": "move", "unit": "G", "target": "b"}})
    assert (result.values["legal"], result.values["reason_rule"]) == (False, "9.6")
    assert reasons(result) == [("WaW85 §9.6", "122MM ARTY is a Towed unit: it moves only loaded in a Transport")]
    result, _ = waw85({"units": {"A": {"mp": 6}}, "hexes": [{"id": "b"}],
                       "query": {"action": "move", "unit": "A", "target": "b"}})
    assert result.gaps == {"*": "not supported: WaW85 §9.1 (movement costs from the WaW85 Terrain Effects Chart)"}
    result, _ = waw85({"units": {"P": {"target_type": "troops", "hex": "a"},
                                 "TR": {"mp": 7, "abilities": ["transport"], "hex": "a"}},
                       "query": {"action": "load", "unit": "P", "target": "TR"}})
    assert result.values == {"legal": True, "triggers_opportunity_fire": True}
    assert result.unit_values == {"P": {"mp_max": 0}, "TR": {"mp_max": 3, "mp_after": 3}}


def test_a_towed_unit_loads_only_in_its_transports_hex() -> None:
    """§9.6: "It cannot move when not loaded in, or on, a Transport unit"; §9.8.1: the
    same-hex load "is the only way that Towed units may be loaded"."""
    towed = {"name": "T-12 ATG", "abilities": ["towed"], "hex": "a"}
    truck = {"mp": 6, "abilities": ["transport"]}
    result, _ = waw85({"units": {"G": towed, "TR": {**truck, "hex": "b"}},
                       "query": {"action": "load", "unit": "G", "target": "TR"}})
    assert (result.values["legal"], result.values["reason_rule"]) == (False, "9.8.1")
    assert reasons(result) == [("WaW85 §9.8.1", "T-12 ATG is Towed: it loads only in its Transport's hex")]
    result, _ = waw85({"units": {"G": towed, "TR": {**truck, "hex": "a"}},
                       "query": {"action": "load", "unit": "G", "target": "TR"}})
    assert result.values == {"legal": True, "triggers_opportunity_fire": True}
    result, _ = waw85({"units": {"G": {**towed, "carried_by": "TR"}, "TR": {**truck, "hex": "a"}},
                       "query": {"action": "move", "unit": "G", "target": "b"}})
    # loaded, it moves with its Transport: "Passengers must be unloaded to move ... on their own" (§9.8)
    assert (result.values["legal"], result.values["reason_rule"]) == (False, "9.8")
    assert reasons(result) == [("WaW85 §9.8", "T-12 ATG is a Passenger of TR: Passengers must be unloaded to move "
                                              "on their own")]


def test_a_transport_carries_one_passenger() -> None:
    """§9.8: "A Transport unit can be loaded with a unit, together with a Support Weapon and an
    HQ counter": a second unit may not load, a Support Weapon and an HQ ride along; "If a unit
    has a green or blue/green circle behind its Movement value, it is a Transport unit": no
    other unit carries Passengers."""
    units = {"P": {"name": "Infantry", "target_type": "troops", "hex": "a"},
             "TR": {"name": "BMP-2", "mp": 6, "abilities": ["transport"], "hex": "a"},
             "P2": {"name": "Infantry 2", "target_type": "troops", "carried_by": "TR", "hex": "a"}}
    result, _ = waw85({"units": units, "query": {"action": "load", "unit": "P", "target": "TR"}})
    assert (result.values["legal"], result.values["reason_rule"]) == (False, "9.8")
    assert reasons(result) == [("WaW85 §9.8", "BMP-2 already carries Infantry 2: a Transport is loaded with one unit, "
                                              "with a Support Weapon and an HQ")]
    riding = {**units, "P2": {"target_type": "support_weapon", "carried_by": "TR", "hex": "a"},
              "H": {"target_type": "hq", "carried_by": "TR", "hex": "a"}}
    result, _ = waw85({"units": riding, "query": {"action": "load", "unit": "P", "target": "TR"}})
    assert result.values["legal"] is True
    tank = {**units, "TR": {"name": "Leopard", "mp": 6, "hex": "a"}, "P2": {"target_type": "troops", "hex": "b"}}
    result, _ = waw85({"units": tank, "query": {"action": "load", "unit": "P", "target": "TR"}})
    assert (result.values["legal"], result.values["reason_rule"]) == (False, "9.8")


def test_a_passenger_goes_aboard_and_rides_with_its_transport() -> None:
    """§9.8.1: "The Passenger unit counter is stacked immediately beneath the Transport unit to
    indicate it is being transported by that Transport unit"; a moving Transport takes it, and
    the Support Weapon deployed with it, along (§9.2, §9.8); §9.8.2: unloaded, it leaves it."""
    units = {"TR": {"name": "BMP-2", "side": "pact", "target_type": "light_armor", "abilities": ["transport"], "mp": 6,
                    "hex": "a", "status": {"mp_spent": 0}},
             "P": {"name": "Infantry", "side": "pact", "target_type": "troops", "mp": 3, "hex": "a",
                   "status": {"mp_spent": 0}},
             "SW": {"name": "RPG", "side": "pact", "target_type": "support_weapon", "attached_to": "P", "hex": "a"}}
    result, after = waw85({"units": units, "query": {"action": "load", "unit": "P", "target": "TR"}})
    assert PassengerLoaded("P", "TR") in result.events
    assert after.units["P"].carried_by == "TR"
    assert describe(PassengerLoaded("P", "TR"), after) == "Infantry loads into BMP-2"
    aboard = {**units, "P": {**units["P"], "carried_by": "TR"}}
    result, after = waw85({"units": aboard, "hexes": [{"id": "b", "distance": 1, "mp_cost": 2}],
                           "query": {"action": "move", "unit": "TR", "target": "b"}})
    assert result.events[:3] == [UnitMoved("TR", "b"), UnitMoved("P", "b"), UnitMoved("SW", "b")]
    result, after = waw85({"units": aboard, "hexes": [{"id": "b", "distance": 1}],
                           "query": {"action": "unload", "unit": "P", "target": "b"}})
    assert result.events[:3] == [PassengerUnloaded("P"), StatusChanged("P", "ops_complete", True), UnitMoved("P", "b")]
    assert after.units["P"].carried_by is None and after.units["SW"].hex == "b" and after.units["TR"].hex == "a"


def test_an_hq_and_a_leader_ride_with_the_unit_they_are_with() -> None:
    """§9.2: HQs and Leaders "are stacked immediately on top of the unit to which they are
    deployed (HQs) or assigned (Leaders)": they go where it goes, as its Passenger and the
    Passenger's Support Weapon do (the classic §1.3.3.1 HQ does not: ``Params.deployed_hq_rides``).
    The order is the book's: the Passenger, its SW and Leader, then the HQ on the Transport."""
    units = {"H": {"name": "HQ", "side": "pact", "target_type": "hq", "attached_to": "TR", "hex": "a"},
             "L": {"name": "Leader", "side": "pact", "target_type": "leader", "attached_to": "P", "hex": "a"},
             "TR": {"name": "BMP-2", "side": "pact", "target_type": "light_armor", "abilities": ["transport"], "mp": 6,
                    "hex": "a", "status": {"mp_spent": 0}},
             "SW": {"name": "RPG", "side": "pact", "target_type": "support_weapon", "attached_to": "P", "hex": "a"},
             "P": {"name": "Infantry", "side": "pact", "target_type": "troops", "mp": 3, "hex": "a", "carried_by": "TR"}}
    result, after = waw85({"units": units, "hexes": [{"id": "b", "distance": 1, "mp_cost": 2}],
                           "query": {"action": "move", "unit": "TR", "target": "b"}})
    assert [e for e in result.events if isinstance(e, UnitMoved)] == [
        UnitMoved("TR", "b"), UnitMoved("P", "b"), UnitMoved("SW", "b"), UnitMoved("L", "b"), UnitMoved("H", "b")]
    assert {after.units[k].hex for k in units} == {"b"}


def test_loading_into_a_landed_helicopter_transport() -> None:
    """§9.8.5: only a Landed Helicopter Transport loads, "The Helicopter in Landed mode and any
    Passengers it will be loading must start the activation in the same hex", and "Passengers
    that are being loaded trigger Opportunity Fire immediately after announcing they are
    attempting to load"."""
    helicopter = {"name": "UH-60", "target_type": "helicopter", "mode": "landed", "abilities": ["transport"], "hex": "a"}
    infantry = {"name": "Infantry", "target_type": "troops", "mp": 3, "hex": "a", "status": {"mp_spent": 0}}
    result, _ = waw85({"units": {"TR": helicopter, "P": infantry}, "query": {"action": "load", "unit": "P", "target": "TR"}})
    assert result.values == {"legal": True, "triggers_opportunity_fire": True}
    assert reasons(result) == [("WaW85 §9.8.5", "loading into a Helicopter Transport triggers Opportunity Fire as it "
                                                "is announced")]
    result, _ = waw85({"units": {"TR": helicopter, "P": {**infantry, "hex": "b"}},
                       "query": {"action": "load", "unit": "P", "target": "TR"}})
    assert (result.values["legal"], result.values["reason_rule"]) == (False, "9.8.5")
    assert reasons(result) == [("WaW85 §9.8.5", "Infantry must start the activation in UH-60's hex to load")]
    result, _ = waw85({"units": {"TR": {**helicopter, "mode": "hovering"}, "P": infantry},
                       "query": {"action": "load", "unit": "P", "target": "TR"}})
    assert reasons(result) == [("WaW85 §9.8.5", "Helicopter Transports load only in Landed mode")]


@pytest.fixture(scope="module")
def sample():
    """The sample position with the transcribed WaW85 chart (samples/tec-waw85.yaml: Clear 1,
    Woods 2 for vehicles, a stream hexside +2, Up Hill +1)."""
    return read_position(SAMPLES / "demo.vsav", SAMPLES / "waw-sample.vmod", SAMPLES / "profile-waw85.yaml").game


def _move(game, text: str):
    return resolve_actions(game, [parse(text)], ruleset_named("waw85"), GivenDice([]))


def test_a_move_pays_each_hex_and_hexside_within_the_printed_mps(sample) -> None:
    """§9.0: "the Active unit moves from hex to contiguous hex on the map, paying a cost in
    Movement Points ... to enter the terrain and/or cross hex sides into each new hex";
    "A unit may not enter a hex if it would expend more than its printed MPs"; "Once a unit
    has spent its MPs, place an Ops Complete marker on it". §9.1: hexside terrain adds to the
    cost of entering the hex."""
    outcome = _move(sample, "move t-64 E6 E7")
    [step] = outcome.steps
    assert step.answer.values == {"cost": 4, "legal": True}
    assert [(r.section, r.text) for r in step.answer.reasons] == [
        ("WaW85 §9.0", "4 MP: E6 clear 1; E7 clear 1, stream +2")]
    assert step.answer.unit_values == {"t-64": {"mp_after": 0}}
    assert outcome.after.units["t-64"].hex == "E7" and outcome.after.units["t-64"].status.ops_complete is True
    outcome = _move(sample, "move leopard-c1 C7 D7 E7 F7")
    assert outcome.refused.reasons == [("WaW85 §9.0", "5 MP is more than Leopard C1's 4 MPs")]
    outcome = _move(sample, "move leopard-c1 C6 D6")
    assert outcome.refused.reasons == [("WaW85 §9.0", "C6 is not next to B7: a unit moves from hex to contiguous hex")]


def test_a_move_ends_within_the_stacking_limit(sample) -> None:
    """§9.2: "Two friendly units may stack in the same hex": B8 holds the M113 and the US
    Infantry, so the Leopard may not end its move there."""
    outcome = _move(sample, "move leopard-c1 B8")
    assert outcome.refused.reasons == [("WaW85 §9.2", "B8 would hold 3 units; the limit is 2")]
    assert outcome.steps == []


def _helicopter(game, mode: str):
    """The sample T-64 recast as an Mi-24 in ``mode`` (the sample module has no helicopter)."""
    t64 = game.units["t-64"]
    return game.with_unit(replace(t64, type=replace(t64.type, target_type="helicopter"), mode=mode))


def test_helicopters_move_by_their_mode_not_by_the_ground_chart(sample) -> None:
    """§9.3: Troops, Vehicles, Nap-of-Earth and Flying Helicopters are the four movement
    categories. §9.7.2: Nap-of-Earth "has 12 Movement Points, but only pays 1 movement point per hex
    regardless of the terrain in each hex entered. They pay no hex side cost of any kind"
    (the T-64's own route E6-E7 across the stream costs it 4); §9.7.1 Flying "has an unlimited
    number of Movement Points"; §9.7.3 Hovering "is stationary in its hex"."""
    [step] = _move(_helicopter(sample, "nap_of_earth"), "move t-64 E6 E7").steps
    assert step.answer.values == {"cost": 2, "legal": True}
    assert [(r.section, r.text) for r in step.answer.reasons] == [
        ("WaW85 §9.7.2", "Nap-of-Earth: 2 MP, 1 per hex, no hexside costs")]
    [step] = _move(_helicopter(sample, "flying"), "move t-64 G7 H7 I7").steps
    assert step.answer.values == {"cost": 3, "legal": True}
    assert [(r.section, r.text) for r in step.answer.reasons] == [("WaW85 §9.7.1", "Flying: 3 hexes, no MP limit")]
    outcome = _move(_helicopter(sample, "hovering"), "move t-64 E6")
    assert outcome.refused.reasons == [("WaW85 §9.7.3", "T-64 is hovering: stationary in its hex")]


def test_a_ground_unit_moves_into_the_hex_of_an_enemy_helicopter_above_it(sample) -> None:
    """§9.7.1: a Flying Helicopter is "flying 2 levels above any Terrain obstacle height ...,
    so enemy ground units may move into its hex"; §9.7.4: "Enemy units may not enter its hex
    unless they Assault the Landed Helicopter unit" (the T-64 recast as an Mi-24 in C7)."""
    def above(mode):
        game = _helicopter(sample, mode)
        return game.with_unit(replace(game.units["t-64"], hex="C7"))
    [step] = _move(above("flying"), "move leopard-c1 C7").steps
    assert step.answer.values["legal"] is True
    outcome = _move(above("landed"), "move leopard-c1 C7")
    assert outcome.refused.reasons == [("WaW85 §13.0", "C7 holds enemy units: a unit enters it only by Assault "
                                                       "or Overrun")]


def _hex(game, hex_id: str, **changes):
    return game.with_hex(replace(game.hex(hex_id), **changes))


def _woods_at_g5(game):
    """G5 (on the sample's first road, F5-G5-H4) recast as Woods: 2 MPs for a vehicle off the road."""
    woods = game.hex("F6").stated["tec_mp"]
    return _hex(game, "G5", terrain="woods", stated={**game.hex("G5").stated, "tec_mp": woods})


def test_a_unit_following_a_road_pays_the_road(sample) -> None:
    """§9.4: "A unit following a Road or Trail ignores the other terrain type(s) in the hex,
    and instead pays the cost of the Road" (samples/tec-waw85.yaml: Road 1); "A Rubble
    marker eliminates all Roads and Trails in its hex"."""
    game = _woods_at_g5(sample)
    [step] = _move(game, "move t-64 F5 G5").steps
    assert step.answer.values == {"cost": 2, "legal": True}
    assert [(r.section, r.text) for r in step.answer.reasons] == [("WaW85 §9.0", "2 MP: F5 clear 1; G5 road 1")]
    [step] = _move(_hex(game, "G5", markers=frozenset({"rubble"})), "move t-64 F5 G5").steps
    assert step.answer.values == {"cost": 3, "legal": True}
    assert [(r.section, r.text) for r in step.answer.reasons] == [
        ("WaW85 §9.4", "Rubble eliminates the road between F5 and G5"), ("WaW85 §9.0", "3 MP: F5 clear 1; G5 woods 2")]
    # G6 has no road: entering G5 from it pays the Woods, though G5 is a road hex
    [step] = _move(game.with_unit(replace(game.units["t-64"], hex="G6")), "move t-64 G5").steps
    assert [(r.section, r.text) for r in step.answer.reasons] == [("WaW85 §9.0", "2 MP: G5 woods 2")]


def test_a_move_goes_around_a_full_friendly_hex(sample) -> None:
    """§9.2: "If moving through a friendly hex would result in there being more than two units
    present at the same time, the move must be made around the hex rather than through it"
    (B8 holds the M113 and the US Infantry)."""
    outcome = _move(sample, "move leopard-c1 B8 B9")
    assert outcome.refused.reasons == [("WaW85 §9.2", "B8 already holds 2 friendly units: the move must be made "
                                                      "around the hex rather than through it")]
    assert outcome.steps == []


def test_leaving_a_minefield_costs_two_more_mps(sample) -> None:
    """§16.2: "Units voluntarily exiting any Minefield hex ... are not affected by the Minefield
    at that time, but it costs 2 extra Movement Points to do so"."""
    [step] = _move(_hex(sample, "F6", markers=frozenset({"minefield_random"})), "move t-64 E6").steps
    assert step.answer.values == {"cost": 3, "legal": True}
    assert [(r.section, r.text) for r in step.answer.reasons] == [
        ("WaW85 §9.0", "3 MP: E6 clear 1, leaving the Minefield of F6 +2")]
    outcome = _move(_hex(sample, "F6", markers=frozenset({"minefield_random"})), "move t-64 E6 E7")
    assert outcome.refused.reasons == [("WaW85 §9.0", "6 MP is more than T-64's 4 MPs")]


def test_entering_a_hex_next_to_a_chemical_marker_costs_two_more_mps(sample) -> None:
    """§14.12: "Units entering a hex adjacent to or containing a Chemical Strike marker during
    the current turn must pay an additional 2 Movement Points to enter the hex": E6 is next to
    the T-64's own hex F6, found on the map (no adjacency is stated)."""
    [step] = _move(_hex(sample, "F6", markers=frozenset({"chemical"})), "move t-64 E6").steps
    assert step.answer.values == {"cost": 3, "legal": True}
    assert [(r.section, r.text) for r in step.answer.reasons] == [
        ("WaW85 §9.0", "3 MP: E6 clear 1, a Chemical Strike marker in or next to E6 +2")]


def test_a_minefield_attacks_each_unit_entering_it(sample) -> None:
    """§16.2: "Each unit entering a Minefield hex rolls 1d6": 1-3 no effect, 4-5 one hit, 6 two
    hits, no saves; "A unit that takes a hit immediately retreats to the hex it entered the
    Minefield from, and is marked Ops Complete"; §16.2.2: then 1d6, a 6 removes the marker.
    A unit not hit moves on (paying 2 more MPs to leave, §16.2)."""
    mined = _hex(sample, "E6", markers=frozenset({"minefield_random"}))
    outcome = resolve_actions(mined, [parse("move t-64 E6 D6")], ruleset_named("waw85"), GivenDice([3, 2]))
    [step] = outcome.steps
    assert step.answer.values == {"cost": 4, "legal": True, "mines_attacks": ["E6"], "hits": 0, "saves": 0,
                                  "net_hits": 0}
    assert [(r.section, r.text) for r in step.answer.reasons] == [
        ("WaW85 §9.0", "4 MP: E6 clear 1; D6 clear 1, leaving the Minefield of E6 +2"),
        ("WaW85 §16.2", "T-64: 1d6 3, 0 hit(s), no saves"),
        ("WaW85 §16.2.2", "depletion 1d6 2: the Minefield of E6 remains")]
    assert outcome.after.units["t-64"].hex == "D6"
    # it is in the Minefield hex when attacked, then moves on
    assert step.answer.events == [UnitMoved("t-64", "E6"), UnitMoved("t-64", "D6"),
                                  StatusChanged("t-64", "ops_complete", True), StatusChanged("t-64", "moving", True)]
    outcome = resolve_actions(mined, [parse("move t-64 E6 D6")], ruleset_named("waw85"), GivenDice([4, 6]))
    [step] = outcome.steps
    assert [(r.section, r.text) for r in step.answer.reasons][1:] == [
        ("WaW85 §16.2", "T-64: 1d6 4, 1 hit(s), no saves"),
        ("WaW85 §16.2", "T-64 is hit in E6: it retreats to F6, the hex it entered the Minefield from, "
                        "and is Ops Complete"),
        ("WaW85 §16.2.2", "depletion 1d6 6: the Minefield of E6 is removed")]
    # entered, attacked there, the marker depleted, back to the hex it entered from, Ops Complete
    assert step.answer.events == [UnitMoved("t-64", "E6"), UnitDisrupted("t-64"),
                                  MarkerRemoved("E6", "minefield_random"), UnitMoved("t-64", "F6"),
                                  StatusChanged("t-64", "ops_complete", True)]
    after = outcome.after.units["t-64"]
    assert (after.hex, after.status.disrupted, after.status.ops_complete) == ("F6", True, True)
    assert "minefield_random" not in outcome.after.hex("E6").markers


def test_a_placed_minefield_spares_its_own_side(sample) -> None:
    """§16.2: "units entering a Minefield-Placed hex belonging to their own side are not attacked"."""
    own = _hex(sample, "E6", markers=frozenset({"minefield_placed"}), owner="Warsaw Pact")
    outcome = resolve_actions(own, [parse("move t-64 E6 D6")], ruleset_named("waw85"), GivenDice([]))
    [step] = outcome.steps
    assert "mines_attacks" not in step.answer.values and step.answer.rolls == []
    assert ("WaW85 §16.2", "the Placed Minefield in E6 does not attack its own side") in [
        (r.section, r.text) for r in step.answer.reasons]
    assert outcome.after.units["t-64"].hex == "D6"


def test_a_disrupted_unit_moves_by_10_8_2(sample) -> None:
    """§10.8.2: a Disrupted unit "may not move closer to an enemy unit in LOS. If not currently
    in an enemy unit's LOS, it must stop immediately upon entering a hex in LOS of an enemy
    unit. They may also not move into a hex adjacent to an enemy unit, and if already adjacent
    it must remain where it is." On the sample map the Woods of F6-G6 hide G6 and G7 from the
    NATO units in B7-B8."""
    game = sample.with_unit(sample.units["t-64"].with_status(disrupted=True))
    outcome = _move(game, "move t-64 E6")
    assert outcome.refused.reasons == [
        ("WaW85 §10.8.2", "disrupted T-64 may not move closer to Leopard C1 in its LOS (E6: 4 -> 3 hexes)")]
    [step] = _move(game, "move t-64 G7").steps          # out of every enemy's LOS
    assert step.answer.values == {"cost": 1, "legal": True}
    hidden = game.with_unit(replace(game.units["t-64"], hex="G6"))
    outcome = _move(hidden, "move t-64 G5 H5")
    assert outcome.refused.reasons == [
        ("WaW85 §10.8.2", "disrupted T-64 was in no enemy's LOS: it stops on entering G5, in the LOS of Leopard C1")]
    [step] = _move(hidden, "move t-64 G5").steps        # it may end its move there
    assert step.answer.values == {"cost": 1, "legal": True}
    beside = game.with_unit(replace(game.units["t-64"], hex="C7"))
    outcome = _move(beside, "move t-64 D7")
    assert outcome.refused.reasons == [
        ("WaW85 §10.8.2", "disrupted T-64 is adjacent to Leopard C1: it must remain where it is")]


def test_a_move_never_enters_an_enemy_hex(sample) -> None:
    """§13.0 (and §9.7.1: "Normally, enemy and friendly units may not occupy the same hex UNLESS
    one side is Assaulting the other"): C7 holds the BMP-1 once it moved there."""
    game = sample.with_unit(replace(sample.units["bmp-1"], hex="C7"))
    outcome = _move(game, "move leopard-c1 C7 D7")
    assert outcome.refused.reasons == [("WaW85 §13.0", "C7 holds enemy units: a unit enters it only by Assault "
                                                       "or Overrun")]


def test_a_move_with_stated_hex_costs() -> None:
    """§9.0 with each hex's cost stated (the Terrain Effects Chart is PAC03): "A unit may not
    enter a hex if it would expend more than its printed MPs"; §14.12 adds 2 MPs next to a
    Chemical Strike marker; "Once a unit has spent its MPs, place an Ops Complete marker"."""
    given = {"units": {"A": {"side": "nato", "target_type": "troops", "mp": 3, "hex": "a", "status": {"mp_spent": 1}},
                       "E": {"side": "pact", "los": True}},
             "hexes": [{"id": "b", "mp_cost": 1, "adjacent_to": ["c"]}, {"id": "c", "markers": ["chemical"]}],
             "query": {"action": "move", "unit": "A", "target": "b"}}
    result, _ = waw85(given)
    assert result.values == {"modifiers": {"cost": 2}, "cost": 3, "reason_rule": "9.0", "legal": False}
    assert reasons(result) == [
        ("WaW85 §14.12", "entering a hex with or next to a Chemical Strike marker: cost +2"),
        ("WaW85 §9.0", "3 MP to enter b after 1 MP spent, of 3"),
        ("WaW85 §9.0", "4 MP is more than A's 3 MPs: a unit may not enter a hex if it would expend more than its "
                       "printed MPs")]
    result, after = waw85({**given, "hexes": [{"id": "b", "mp_cost": 2}]})
    assert result.values == {"cost": 2, "legal": True, "triggers_opportunity_fire": True}
    assert result.unit_values == {"A": {"mp_before": 2, "mp_after": 0}}
    assert after.units["A"].hex == "b" and after.units["A"].status.ops_complete is True


def test_a_unit_that_fired_or_is_out_of_command_does_not_move_on_the_board(sample) -> None:
    """§11.0: "A unit may not fire, then move"; §7.2.3: Out of Command units "may not execute
    any Action"; §7.6: an Ops Complete unit has completed its Action (the T-64 on the sample)."""
    def marked(**status):
        unit = sample.units["t-64"]
        return sample.with_unit(replace(unit, status=replace(unit.status, **status)))
    assert _move(marked(fired=True), "move t-64 E6").refused.reasons == [
        ("WaW85 §11.0", "T-64 has fired: a unit may not fire, then move")]
    assert _move(marked(out_of_command=True), "move t-64 E6").refused.reasons == [
        ("WaW85 §7.2.3", "T-64 is Out of Command: it may not execute any Action")]
    assert _move(marked(ops_complete=True), "move t-64 E6").refused.reasons == [
        ("WaW85 §7.6", "T-64 is Ops Complete: it has completed its Action")]


def test_a_parachute_drift_is_followed_on_the_map(sample) -> None:
    """§16.7.2: a drift moves the unit hex by hex in the rolled direction; "A parachuting unit
    is eliminated if its final location after drifting is: Off the playable area, or In a hex
    containing an enemy unit, or In a hex containing blocking or Rough terrain" (the T-64 in
    F6 stands in for a parachuting unit)."""
    def drift(game, dice):
        return resolve_actions(game, [ActionSpec("parachute_drift", ("t-64",))], ruleset_named("waw85"),
                               GivenDice(dice))
    outcome = drift(sample, [4, 1, 1])                 # 4: drifts; 1: N; 1: no further hex
    assert outcome.steps[0].answer.values == {"scatter": ["N"]}
    assert (outcome.after.units["t-64"].hex, outcome.after.units["t-64"].location) == ("F5", "map")
    outcome = drift(sample, [6, 1, 6])                 # wild: N, 6 + 1 hexes, off the board
    assert [(r.section, r.text) for r in outcome.steps[0].answer.reasons] == [
        ("WaW85 §16.7.2", "1d6 6: drifts wildly 7 hexes N"),
        ("WaW85 §16.7.2", "T-64 drifts off the playable area: eliminated")]
    assert outcome.after.units["t-64"].location == "eliminated"
    outcome = drift(_hex(sample, "F7", stated={**sample.hex("F7").stated}, los="blocking"), [4, 4, 1])
    assert [(r.section, r.text) for r in outcome.steps[0].answer.reasons][1:] == [
        ("WaW85 §16.7.2", "T-64 lands in F7, a hex of blocking terrain: eliminated")]


def test_a_drift_beyond_the_hexes_listed_is_not_stated(sample) -> None:
    """§16.7.2 "Off the playable area": only a position holding the whole board (read with its
    terrain map) says a hex is off the map; where only some hexes are listed, a drift beyond
    them lands in a hex not stated, and the unit is not eliminated."""
    assert sample.whole_board
    listed = sample.but(whole_board=False,
                        hexes=MappingProxyType({k: v for k, v in sample.hexes.items() if k in ("F6", "F5")}))
    outcome = resolve_actions(listed, [ActionSpec("parachute_drift", ("t-64",))], ruleset_named("waw85"),
                              GivenDice([4, 4, 1]))              # 4: drifts; 4: S, into F7, not listed
    assert outcome.steps == [] and outcome.refused.verdict == "cannot be resolved"
    assert outcome.refused.reasons == [("", "units: not stated: the playable area (whether the hex T-64 drifts to, "
                                            "1 from F6, is on it, §16.7.2)")]
    assert outcome.after.units["t-64"].location == "map"
    outcome = resolve_actions(listed, [ActionSpec("parachute_drift", ("t-64",))], ruleset_named("waw85"),
                              GivenDice([4, 1, 1]))              # N into F5, listed: it lands there
    assert outcome.steps[0].answer.events == [UnitMoved("t-64", "F5")] and not outcome.steps[0].answer.gaps


def test_loading_and_unloading_need_a_unit_that_may_still_act() -> None:
    """§9.8: loading and unloading happen "During a Movement Action"; §7.6: an Ops Complete
    unit has completed its Action; §7.2.3: Out of Command units "may not execute any Action";
    §11.0: "A unit may not fire, then move"."""
    def load(**transport):
        return waw85({"units": {"P": {"target_type": "troops", "hex": "a", "status": {"mp_spent": 0}},
                                "TR": {"mp": 6, "abilities": ["transport"], "hex": "a",
                                       "status": {"mp_spent": 0, **transport}}},
                      "query": {"action": "load", "unit": "P", "target": "TR"}})[0]
    assert reasons(load(ops_complete=True)) == [("WaW85 §7.6", "TR is Ops Complete: it has completed its Action")]
    assert reasons(load(fired=True)) == [("WaW85 §11.0", "TR has fired: a unit may not fire, then move")]
    result, _ = waw85({"units": {"P": {"target_type": "troops", "carried_by": "TR"},
                                 "TR": {"mp": 6, "hex": "a", "status": {"mp_spent": 0, "out_of_command": True}}},
                       "query": {"action": "unload", "unit": "P", "target": "a"}})
    assert (result.values["legal"], result.values["reason_rule"]) == (False, "7.2.3")
    assert reasons(result) == [("WaW85 §7.2.3", "TR is Out of Command: it may not execute any Action")]


def test_a_stack_that_fits_no_retreat_hex_whole_retreats_unit_by_unit(sample) -> None:
    """§13.2.2 "A retreating unit must move into one of the three hexes opposite the hex side
    the attacker entered from ... A unit unable to retreat is eliminated" is said of each unit:
    a defending stack of two whose three retreat hexes (E4, F4, F5) each hold one friend
    retreats unit by unit into separate hexes, none eliminated; where each goes is the
    owner's choice (``retreat=E4,F4``, one hex per unit in stack order). With room for only one of them, one
    is eliminated, and which is not stated."""
    from referee.cases import build_action
    from referee.events import UnitEliminated, UnitMoved
    from referee.rulesets import get_ruleset

    def put(game, key, hex_id, new=None):
        return game.with_unit(replace(game.units[key], key=new or key, hex=hex_id))

    def assault(game, **named):
        action = build_action({"action": "assault", "unit": "us-infantry", "target": "E5"})
        action = replace(action, **named)
        return get_ruleset("waw85").resolve(game, action, GivenDice([4, 4, 4, 1, 1, 1, 1, 1]))

    def moved(result):
        return {e.unit: e.hex for e in result.events if isinstance(e, UnitMoved)
                and e.unit in ("si2", "soviet-infantry")}

    game = put(put(put(sample, "soviet-infantry", "E5"), "soviet-infantry", "E5", "si2"), "us-infantry", "D5")
    for key, hex_id in (("b1", "E4"), ("b2", "F4"), ("b3", "F5")):
        game = put(game, "bmp-1", hex_id, key)
    result = assault(game)
    assert result.values["hits"] == 3 and not any(isinstance(e, UnitEliminated) for e in result.events)
    assert set(result.gaps) == {"units.si2.hex", "units.soviet-infantry.hex"}
    assert result.gaps["units.si2.hex"] == "not stated: retreat hex (name one with retreat=HEX: E4, F4, F5)"
    assert moved(assault(game, retreat="E4,F4")) == {"si2": "E4", "soviet-infantry": "F4"}    # in stack order
    refused = assault(game, retreat="E4")
    assert refused.legal is False and refused.reasons[-1].text.startswith("E4 is not a hex the defenders may retreat")
    alone = put(game, "b3", "H8")                 # F5 empty: the whole stack may go there, or split
    assert moved(assault(alone, retreat="F5")) == {"soviet-infantry": "F5", "si2": "F5"}
    full = put(put(game, "bmp-1", "F4", "b4"), "bmp-1", "F5", "b5")     # room for one, in E4
    result = assault(full)
    assert not any(isinstance(e, UnitEliminated) for e in result.events)
    assert result.gaps["units.si2.result"].startswith("not stated: which units retreat (WaW85 §13.2.2: only 1 of the 2")


def test_an_assault_route_is_paid_within_the_mps(sample) -> None:
    """§13.0: the attacker "may Move up to its full MP allowance to reach and enter its
    intended target hex" and "must have enough Movement Points remaining to pay the full cost
    of entering the target hex, or the Assault does not take place ... the unit is marked Ops
    Complete in the last hex before it entered the target hex". US Infantry has 1 MP: from F4
    through G4 (Clear, 1) it has none left to enter H4 (City, 1)."""
    game = sample.with_unit(replace(sample.units["us-infantry"], hex="F4"))
    outcome = resolve_actions(game, [parse("assault us-infantry soviet-infantry path=G4")], ruleset_named("waw85"),
                              GivenDice([4, 4, 4, 1, 1]))
    assert outcome.refused is not None
    assert ("WaW85 §13.0", "US Infantry has 0 MP left at G4, entering H4 costs 1: the Assault does not take "
                           "place, and it is Ops Complete in G4") in outcome.refused.reasons
    far = sample.with_unit(replace(sample.units["us-infantry"], hex="E4"))
    outcome = resolve_actions(far, [parse("assault us-infantry soviet-infantry path=F4,G4")], ruleset_named("waw85"),
                              GivenDice([4, 4, 4, 1, 1]))
    assert ("WaW85 §13.0", "US Infantry has 1 MP: the route to G4 costs 2, so it cannot reach the target hex "
                           "(§9.0)") in outcome.refused.reasons


def test_a_breach_on_the_map_starts_adjacent_to_the_minefield(sample) -> None:
    """§16.3.1: "To breach a Minefield marker, the unit must start its activation adjacent to the
    Minefield marker": on the map the distance is counted, not taken as stated. The T-64 in F6,
    recast as an Engineer unit, may breach E6 next to it, not D6 two hexes away."""
    from referee.actions import Action
    from referee.rulesets import get_ruleset
    t64 = sample.units["t-64"]
    engineer = sample.with_unit(replace(t64, type=replace(t64.type, abilities=t64.type.abilities | {"engineer"})))
    for hex_id in ("E6", "D6"):
        engineer = _hex(engineer, hex_id, markers=frozenset({"minefield_random"}))
    rules = get_ruleset("waw85")
    near = rules.check(engineer, Action(kind="minefield_breach", unit="t-64", target="E6"))
    assert near.values["legal"] is True and near.values["triggers_opportunity_fire"] is True
    far = rules.check(engineer, Action(kind="minefield_breach", unit="t-64", target="D6"))
    assert (far.values["legal"], far.values["reason_rule"]) == (False, "16.3.1")


def test_an_assaulting_unit_takes_the_counters_stacked_on_it(sample) -> None:
    """§13.2.1 "The attacker now occupies the vacated hex": the unit enters with what §9.2
    stacks "immediately on top of" it (its HQ, its Support Weapon) and what it carries
    (§9.8.1); an attacker that falls back takes them back to the hex it came from. Other
    counters of its old hex stay, and the defender's HQ retreats with the defender, not the
    attacker's."""
    from referee.events import UnitEliminated
    from referee.rulesets import get_ruleset
    from referee.cases import build_action

    game = sample.with_unit(replace(sample.units["us-infantry"], hex="G4"))
    game = game.with_unit(replace(game.units["us-hq"], hex="G4", attached_to="us-infantry"))
    game = game.with_unit(replace(game.units["m113"], hex="G4"))
    for key in ("bmp-1", "t-64"):
        game = game.with_unit(replace(game.units[key], hex="A1" if key == "bmp-1" else "F6"))

    def assault(hits, **named):
        action = replace(build_action({"action": "assault", "unit": "us-infantry", "target": "H4"}), hits=hits, **named)
        result = get_ruleset("waw85").resolve(game, action, GivenDice([1, 1, 1, 1, 1, 1]))
        return result, {e.unit: e.hex for e in result.events if isinstance(e, UnitMoved)}

    won, moved = assault({"soviet-infantry": 3, "us-infantry": 0})
    assert any(isinstance(e, UnitEliminated) and e.unit == "soviet-infantry" for e in won.events)
    assert moved["us-infantry"] == "H4" and moved["us-hq"] == "H4" and "m113" not in moved
    lost, moved = assault({"soviet-infantry": 1, "us-infantry": 1})
    assert moved["us-infantry"] == "G4" and moved["us-hq"] == "G4"
    pushed, moved = assault({"soviet-infantry": 2, "us-infantry": 0}, retreat="H5")
    assert moved == {"us-infantry": "H4", "us-hq": "H4", "soviet-infantry": "H5", "soviet-hq": "H5"}


def test_a_passenger_unloading_into_an_assault_leaves_its_transport() -> None:
    """§9.8.3: the Passenger "may enter its intended target hex and immediately proceed with
    the Assault": it is no longer carried, and the Leader and Support Weapon on it go with
    it, while an HQ riding in the Transport (§9.8) stays aboard."""
    given = {
        "units": {
            "P": {"side": "nato", "target_type": "troops", "assault": {"fp": 3, "to_hit": 4}, "steps": 2,
                  "strength": "full", "carried_by": "TR", "hex": "a",
                  "status": {"disrupted": False, "ops_complete": False, "out_of_command": False}},
            "L": {"side": "nato", "target_type": "leader", "attached_to": "P", "hex": "a"},
            "HC": {"side": "nato", "target_type": "hq", "strength": "full", "carried_by": "TR", "hex": "a"},
            "TR": {"side": "nato", "target_type": "light_armor", "mp": 6, "abilities": ["transport"], "hex": "a",
                   "status": {"disrupted": False, "ops_complete": False, "out_of_command": False, "mp_spent": 0}},
            "E": {"side": "pact", "target_type": "troops", "steps": 1, "strength": "full", "hex": "t",
                  "status": {"disrupted": False}},
        },
        "hexes": [{"id": "a", "terrain": "clear"}, {"id": "t", "terrain": "clear", "mp_cost": 1, "distance": 1}],
        "query": {"action": "assault", "unit": "P", "target": "t", "cause": "unload", "hits": {"E": 2, "P": 0}},
    }
    result, after = answer("waw85", None, given)
    assert result.legal is True
    assert after.units["P"].hex == "t" and after.units["P"].carried_by is None
    assert after.units["L"].hex == "t"
    assert after.units["HC"].hex == "a" and after.units["HC"].carried_by == "TR"


def test_a_cross_river_assault_does_not_depend_on_the_order_of_the_defending_stack() -> None:
    """§13.1.3 "An Assault against an Undisrupted enemy unit across a Bridge or River hex side
    suffers a +1 to the attackers' To-Hit number and -1 Assault FP dice": the attacker's
    numbers are the same whichever of a Disrupted and an Undisrupted defender is on top."""
    def numbers(top_disrupted: bool) -> tuple[int, int]:
        given = {
            "units": {
                "A": {"side": "nato", "target_type": "troops", "assault": {"fp": 3, "to_hit": 4}, "hex": "a",
                      "status": {"disrupted": False, "ops_complete": False}},
                "T1": {"side": "pact", "target_type": "troops", "assault": {"fp": 2, "to_hit": 4}, "hex": "t",
                       "stack_order": 1, "status": {"disrupted": top_disrupted}},
                "T2": {"side": "pact", "target_type": "troops", "assault": {"fp": 2, "to_hit": 4}, "hex": "t",
                       "stack_order": 2, "status": {"disrupted": not top_disrupted}},
            },
            "hexes": [{"id": "a", "terrain": "clear"}, {"id": "t", "terrain": "clear"}],
            "situation": {"hexside": "bridge"},
            "query": {"action": "assault", "unit": "A", "target": "t"},
        }
        result, _ = answer("waw85", None, given)
        return result.values["fp"], result.values["to_hit"]

    assert numbers(True) == numbers(False) == (2, 5)


def test_the_passengers_of_an_eliminated_ground_transport_are_unloaded() -> None:
    """§9.8 "Passengers may be forced to be unloaded if their Transport unit is eliminated in
    transit"; §10.7.3 "If a ground Transport unit is eliminated, roll 1d6. On a result of 1-3,
    the Passengers are reduced and Disrupted": the survivors stand in the hex, no longer carried."""
    given = {
        "units": {
            "A": {"side": "nato", "ap": {"fp": 4, "to_hit": 4, "range": 8, "color": "black"},
                  "status": {"disrupted": False, "ops_complete": False, "out_of_command": False}},
            "TR": {"side": "pact", "target_type": "light_armor", "armor": 1, "save": 6, "abilities": ["transport"],
                   "steps": 1, "strength": "full", "hex": "t", "distance": 4, "los": True,
                   "status": {"disrupted": False, "concealed": False}},
            "P": {"side": "pact", "target_type": "troops", "steps": 2, "strength": "full", "carried_by": "TR",
                  "hex": "t", "status": {"disrupted": False}},
        },
        "hexes": [{"id": "t", "terrain": "clear", "terrain_db": 0, "markers": []}],
        "query": {"action": "direct_fire", "unit": "A", "target": "TR", "weapon": "ap"},
    }
    result, after = answer("waw85", None, given, {"attack": [6, 6, 1, 1], "save": [1], "d6": [3]})
    assert after.units["TR"].location == "eliminated"
    assert after.units["P"].on_map and after.units["P"].hex == "t" and after.units["P"].carried_by is None
    assert after.units["P"].strength == "reduced" and after.units["P"].status.disrupted


def test_units_retreat_out_of_a_new_fire_on_the_map_with_their_counters(sample) -> None:
    """§10.9: a Fire placed in a hex drives its units out "as if they had lost an Assault
    Action" (§13.2.2: not into an enemy-occupied hex), by the one retreat of the Assault:
    into the only neighbour without an enemy, its Leader stacked on it going too, not Ops
    Complete; with every neighbour held by the enemy, eliminated."""
    from referee.cases import build_action
    from referee.events import UnitEliminated
    from referee.rulesets import get_ruleset

    def put(game, key, hex_id, new=None, **fields):
        return game.with_unit(replace(game.units[key], key=new or key, hex=hex_id, **fields))

    def ignite(game):
        action = build_action({"action": "place_marker", "target": "E5", "choice": "fire"})
        return get_ruleset("waw85").resolve(game, action, GivenDice([]))

    game = put(sample, "soviet-infantry", "E5")
    game = put(game, "soviet-infantry", "E5", "leader", attached_to="soviet-infantry")
    game = game.with_unit(replace(game.units["leader"], type=replace(game.units["leader"].type, target_type="leader")))
    by_at = {h.at: h.id for h in game.hexes.values() if h.at is not None}
    around = sorted(by_at[c] for c in game.hexes["E5"].at.neighbors() if c in by_at)
    open_hex, *held = around
    for n, hex_id in enumerate(held):
        game = put(game, "us-infantry", hex_id, f"us{n}")
    result = ignite(game)
    moved = {e.unit: e.hex for e in result.events if isinstance(e, UnitMoved)}
    assert moved == {"soviet-infantry": open_hex, "leader": open_hex}
    assert not any(isinstance(e, StatusChanged) and e.field == "ops_complete" for e in result.events)
    assert result.values["triggers_opportunity_fire"] is False
    surrounded = put(game, "us-infantry", open_hex, "us-last")
    result = ignite(surrounded)
    assert [e.unit for e in result.events if isinstance(e, UnitEliminated)] == ["soviet-infantry", "leader"]


def test_a_unit_hit_in_a_minefield_leaves_the_hq_of_its_old_hex_alone(sample) -> None:
    """§16.2: "The usual rules apply when units are reduced or eliminated and HQs & Leaders
    (10.7.2) ... are present in the Minefield hex": the BMP-1 leaves H4, where the Soviet HQ
    stays with the infantry, and is reduced in the Minefield of H5; no HQ is in H5, so the
    HQ rolls no die (§10.7.2), and the BMP-1 goes back to H4, Ops Complete."""
    mined = _hex(sample, "H5", markers=frozenset({"minefield_random"}))
    assert sample.units["soviet-hq"].hex == "H4" and sample.units["soviet-hq"].attached_to is None
    outcome = resolve_actions(mined, [parse("move bmp-1 H5")], ruleset_named("waw85"), GivenDice([6, 1]))
    [step] = outcome.steps
    assert step.answer.events == [UnitMoved("bmp-1", "H5"), UnitDisrupted("bmp-1"), UnitReduced("bmp-1"),
                                  UnitMoved("bmp-1", "H4"), StatusChanged("bmp-1", "ops_complete", True)]
    assert [r for r in step.answer.rolls] == [("d6", [6]), ("d6", [1])]        # the Minefield, its depletion
    assert outcome.after.units["soviet-hq"].strength == "full"


def test_a_close_air_support_counter_is_never_moved() -> None:
    """§9.3 Design Note: "Close Air Support units are placed on any hex on the map, rather than
    moved across the hex grid, so also have no movement category on the TEC"."""
    result, _ = answer("waw85", None, {
        "units": {"C": {"side": "nato", "target_type": "aircraft", "hex": "a"}},
        "hexes": [{"id": "a"}, {"id": "b", "mp_cost": 1, "adjacent_to": ["a"]}],
        "query": {"action": "move", "unit": "C", "target": "b"}})
    assert result.legal is False
    assert reasons(result) == [("WaW85 §9.3", "C is a Close Air Support unit: it is placed on its target hex "
                                "(§4.1), never moved across the hex grid")]
