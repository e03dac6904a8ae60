"""Classic turn and movement rules from the rule text: End Turn markers (EG/TUS §1.7.2,
§3.1), moving through terrain and into an enemy hex (§5.1, the EG TEC) and transports
(§5.2, §5.2.2, §1.4)."""
from __future__ import annotations

import pytest

from referee.events import StatusChanged, UnitMoved
from tests.case_support import answer, reasons

BOOKS = pytest.mark.parametrize("book, short", [("eisenbach", "EG"), ("untold", "TUS")], ids=["EG", "TUS"])


@BOOKS
def test_the_second_end_turn_marker_ends_the_turn(book: str, short: str) -> None:
    """EG/TUS §1.7.2: "When the second End Turn marker is drawn, the turn ends"; §3.1: "(or if
    there are no more Formation markers left in the cup)"."""
    result, _ = answer("classic", book, {"situation": {"draws": ["formation", "end", "formation", "formation", "end",
                                                                  "formation"]},
                                         "query": {"action": "operations_phase"}})
    assert result.values == {"ends_after_draw": 5}
    assert reasons(result) == [(f"{short} §3.1", "draw 5: the Operations Phase ends")]
    result, _ = answer("classic", book, {"situation": {"draws": ["end", "formation", "formation"],
                                                       "formation_markers_left": 0},
                                         "query": {"action": "operations_phase"}})
    assert result.values == {"ends_after_draw": 3}
    result, _ = answer("classic", book, {"situation": {"draws": ["end", "formation"]},
                                         "query": {"action": "operations_phase"}})
    assert result.gaps == {"*": "not stated: situation.draws (the phase has not ended)"}


MAP = [{"id": "a", "terrain": "clear"}, {"id": "b", "terrain": "woods"}, {"id": "c", "terrain": "clear"}]


@BOOKS
def test_units_pay_the_tec_cost_of_each_hex_entered(book: str, short: str) -> None:
    """EG/TUS §5.1: "Units move to adjacent hexes, paying the MF cost to enter the hex as shown
    on the Terrain Effects Chart" (EG TEC: Woods 1 for Infantry, 2 for Vehicles; Clear 1);
    units that began stacked may split off (each moves on its own); moving units are marked
    Ops Complete (§5.0)."""
    units = {"A": {"name": "Leopard 2", "target_type": "heavy_armor", "mp": 5, "hex": "a", "side": "nato"},
             "B": {"name": "Infantry", "target_type": "troops", "mp": 3, "hex": "a", "side": "nato"}}
    result, after = answer("classic", book, {"units": units, "hexes": MAP,
                                             "query": {"action": "move", "unit": "A", "path": ["b", "c"]}})
    assert result.values == {"cost": 3, "legal": True}
    assert result.unit_values == {"A": {"mp_max": 5, "mp_after": 2}}
    assert result.events == [UnitMoved("A", "c"), StatusChanged("A", "ops_complete", True),
                             StatusChanged("A", "moving", True)]
    assert after.units["B"].hex == "a"
    result, _ = answer("classic", book, {"units": units, "hexes": MAP,
                                         "query": {"action": "move", "unit": "B", "path": ["b", "c"]}})
    assert result.values == {"cost": 2, "legal": True}
    slow = {**units, "A": {**units["A"], "mp": 2}}
    result, _ = answer("classic", book, {"units": slow, "hexes": MAP,
                                         "query": {"action": "move", "unit": "A", "path": ["b", "c"]}})
    assert (result.values["legal"], result.values["reason_rule"]) == (False, "5.0")
    assert reasons(result) == [(f"{short} §5.0", "3 MP is more than the Movement Factor 2")]


@BOOKS
def test_entering_an_enemy_hex_is_an_assault_or_overrun(book: str, short: str) -> None:
    """EG/TUS §5.1: "Units can enter an enemy-occupied hex ..., but in doing so initiate
    Assault or Overrun combat": a plain move into (or through) one is refused, naming the
    rule, and moves nothing; the Assault or Overrun is declared as such."""
    for path in (["b"], ["b", "c"]):
        result, _ = answer("classic", book, {
            "units": {"A": {"target_type": "heavy_armor", "mp": 5, "hex": "a", "side": "nato"},
                      "E": {"target_type": "troops", "hex": "b", "side": "pact"}},
            "hexes": [{"id": "a", "terrain": "clear"}, {"id": "b", "terrain": "clear"},
                      {"id": "c", "terrain": "clear"}],
            "query": {"action": "move", "unit": "A", "path": path}})
        assert (result.values["legal"], result.values["reason_rule"]) == (False, "5.1")
        assert reasons(result) == [(f"{short} §5.1", "b holds enemy units: entering it is an Assault or an "
                                    "Overrun, declared as one (action assault or overrun)")]
        assert result.events == []


TRANSPORT = {"name": "M113", "abilities": ["transport"], "mp": 6, "hex": "a", "side": "nato", "strength": "reduced"}


@BOOKS
def test_a_transport_carries_one_infantry_unit_and_its_sw(book: str, short: str) -> None:
    """EG/TUS §5.2: "Each transport unit can carry one infantry unit and SW (even if the
    transport is reduced)"; a second infantry unit or a vehicle may not load; §1.4: "APCs with
    embarked passengers count as one unit"."""
    units = {"TR": TRANSPORT,
             "P": {"name": "Infantry", "target_type": "troops", "carried_by": "TR", "hex": "a", "side": "nato"},
             "SW": {"target_type": "support_weapon", "carried_by": "TR", "hex": "a", "side": "nato"},
             "B": {"target_type": "heavy_armor", "hex": "a", "side": "nato"}}
    result, _ = answer("classic", book, {"units": units, "query": {"action": "stacking", "target": "a"}})
    assert result.values == {"legal": True, "count": 2}
    crowded = {**units, "C": {"target_type": "heavy_armor", "hex": "a", "side": "nato"}}
    result, _ = answer("classic", book, {"units": crowded, "query": {"action": "stacking", "target": "a"}})
    assert result.values == {"legal": False, "reason_rule": "1.4", "count": 3}
    assert reasons(result) == [(f"{short} §1.4", "3 combat units in a, at most 2")]
    second = {**units, "I": {"name": "Infantry 2", "target_type": "troops", "mp": 3, "hex": "a", "side": "nato"}}
    result, _ = answer("classic", book, {"units": second, "query": {"action": "load", "unit": "I", "target": "TR"}})
    assert (result.values["legal"], result.values["reason_rule"]) == (False, "5.2")
    if book == "untold":
        assert reasons(result) == [("TUS §5.2", "M113 already carries Infantry: each transport carries one infantry "
                                                "unit and its SW")]
    else:       # EG §5.2 states no number: the refusal says so and cites TUS (the case is unsettled)
        assert reasons(result) == [("TUS §5.2", "M113 already carries Infantry: Eisenbach Gap §5.2 states no number "
                                                "of infantry units per transport; read as The Untold Stories' \"Each "
                                                "transport unit can carry one infantry unit and SW\"")]
    result, _ = answer("classic", book, {"units": {"TR": TRANSPORT, "V": {"name": "Jeep", "target_type": "soft_vehicle",
                                                                          "mp": 8, "hex": "a"}},
                                         "query": {"action": "load", "unit": "V", "target": "TR"}})
    assert reasons(result) == [(f"{short} §5.2", "Jeep is a vehicle: transports carry infantry and SWs")]


@BOOKS
def test_a_transport_unloads_after_at_most_half_its_mf(book: str, short: str) -> None:
    """EG/TUS §5.2.2: "A transporter and loaded infantry can move up to ½ (drop fractions) of
    the transporters MF and then unload ... The infantry unit can then move one additional
    hex": after 3 of 6 MF it unloads; after 4 it may not."""
    rider = {"target_type": "troops", "carried_by": "TR", "hex": "a", "mp": 3}
    result, _ = answer("classic", book, {"units": {"TR": {**TRANSPORT, "status": {"mp_spent": 3}}, "P": rider},
                                         "query": {"action": "unload", "unit": "P"}})
    assert result.values == {"legal": True}
    assert result.unit_values == {"TR": {"mp_max": 3}, "P": {"hexes_after": 1}}
    assert reasons(result) == [(f"{short} §5.2.2", "unloaded infantry may move one more hex; the transport up to 3 MP")]
    result, _ = answer("classic", book, {"units": {"TR": {**TRANSPORT, "status": {"mp_spent": 4}}, "P": rider},
                                         "query": {"action": "unload", "unit": "P"}})
    assert (result.values["legal"], result.values["reason_rule"]) == (False, "5.2.2")
    assert reasons(result) == [(f"{short} §5.2.2", "M113 has moved 4 MP: a transport moves at most half its MF (3) "
                                                   "and then unloads")]


@BOOKS
def test_a_road_is_followed_only_along_its_own_hexes(book: str, short: str) -> None:
    """The TEC's Road row (1 MP) applies to a move along the road: on the sample board the
    BMP-1 in H4 (first road) and H5 (second road, H5-H10) are both City road hexes, yet no
    road runs from H4 into H5, so entering H5 from H4 pays City's 2 MP (vehicle); from H6,
    along the second road, it pays 1."""
    from dataclasses import replace
    from pathlib import Path

    from converter.actions_text import parse
    from converter.resolve import read_position, resolve_actions, ruleset_named
    from referee.dice import GivenDice
    samples = Path(__file__).resolve().parents[1] / "samples"
    game = read_position(samples / "demo.vsav", samples / "waw-sample.vmod", samples / "profile.yaml").game
    rules = ruleset_named(f"classic:{book}")
    [step] = resolve_actions(game, [parse("move bmp-1 H5")], rules, GivenDice([])).steps
    assert step.answer.values == {"cost": 2, "legal": True}
    south = game.with_unit(replace(game.units["bmp-1"], hex="H6"))
    [step] = resolve_actions(south, [parse("move bmp-1 H5")], rules, GivenDice([])).steps
    assert step.answer.values == {"cost": 1, "legal": True}


HQ_STACK = {"units": {"H": {"name": "2nd Bn HQ", "target_type": "hq", "formation": "F", "hex": "a", "mp": 5},
                      "A": {"name": "T-55", "target_type": "heavy_armor", "formation": "F", "mp": 5, "hex": "a"},
                      "B": {"name": "BMP", "target_type": "light_armor", "formation": "G", "mp": 5, "hex": "a"}},
            "hexes": [{"id": "a", "terrain": "clear"}, {"id": "b", "terrain": "clear"},
                      {"id": "c", "terrain": "clear"}]}


@BOOKS
def test_an_hq_moves_only_with_a_unit_of_its_formation(book: str, short: str) -> None:
    """§1.3.3.1: an HQ "may only move when accompanied by a unit or units of its formation";
    "HQs NOT marked with an Ops Complete marker can move normally with the units with which
    they are stacked". The unit pays the move; the HQ goes with it, and both are Ops Complete."""
    result, _ = answer("classic", book, {**HQ_STACK, "query": {"action": "move", "unit": "H", "path": ["b"]}})
    assert (result.values["legal"], result.values["reason_rule"], result.values["cost"]) == (False, "1.3.3.1", 1)
    assert reasons(result) == [(f"{short} §1.3.3.1", "2nd Bn HQ may move only accompanied by a unit of its "
                                                     "Formation stacked with it")]
    assert result.events == []
    result, _ = answer("classic", book, {**HQ_STACK, "query": {"action": "move", "unit": ["H", "B"], "path": ["b"]}})
    assert (result.values["legal"], result.values["reason_rule"]) == (False, "1.3.3.1")      # B is of Formation G
    result, _ = answer("classic", book, {**HQ_STACK, "query": {"action": "move", "unit": ["H", "A"], "path": ["b"]}})
    assert result.values == {"cost": 1, "legal": True}
    assert result.unit_values == {"A": {"mp_max": 5, "mp_after": 4, "cost": 1}}
    assert reasons(result) == [(f"{short} §1.3.3.1", "2nd Bn HQ moves with its Formation's units to b")]
    assert result.events == [UnitMoved("A", "b"), StatusChanged("A", "ops_complete", True),
                             StatusChanged("A", "moving", True), UnitMoved("H", "b"),
                             StatusChanged("H", "ops_complete", True), StatusChanged("H", "moving", True)]
    spent = {**HQ_STACK, "units": {**HQ_STACK["units"], "H": {**HQ_STACK["units"]["H"], "status": {"ops_complete": True}}}}
    result, _ = answer("classic", book, {**spent, "query": {"action": "move", "unit": ["H", "A"], "path": ["b"]}})
    assert reasons(result) == [(f"{short} §1.3.3.1", "2nd Bn HQ is Ops Complete: an HQ moves with its units only "
                                                     "when not marked Ops Complete")]
    apart = {**HQ_STACK, "units": {**HQ_STACK["units"], "A": {**HQ_STACK["units"]["A"], "hex": "c"}}}
    result, _ = answer("classic", book, {**apart, "query": {"action": "move", "unit": ["H", "A"], "path": ["b"]}})
    assert (result.values["legal"], result.values["reason_rule"]) == (False, "1.3.3.1")


@BOOKS
def test_a_move_may_not_leave_an_hq_alone(book: str, short: str) -> None:
    """§1.3.3.1: "Headquarters must remain in a hex with a unit or units of its formation": A,
    the HQ's only unit of Formation F, may not leave it behind with B of Formation G; with the
    HQ it may. Nothing moves when the move is refused."""
    result, _ = answer("classic", book, {**HQ_STACK, "query": {"action": "move", "unit": "A", "path": ["b"]}})
    assert (result.values["legal"], result.values["reason_rule"]) == (False, "1.3.3.1")
    assert reasons(result) == [(f"{short} §1.3.3.1", "2nd Bn HQ would be left alone in a: an HQ must remain in a "
                                                     "hex with a unit of its Formation (F)")]
    assert result.events == []
    result, _ = answer("classic", book, {**HQ_STACK, "query": {"action": "move", "unit": "B", "path": ["b"]}})
    assert result.values["legal"] is True


@BOOKS
def test_passengers_and_support_weapons_go_with_their_unit(book: str, short: str) -> None:
    """§5.2: loaded infantry rides under its transport; §1.3.5: a placed SW remains with its
    platoon. Each moves with an event of its own, so a save moves its counter too."""
    position = {"units": {"TR": {"name": "BTR-70", "target_type": "light_armor", "abilities": ["transport"], "mp": 6,
                                 "hex": "a"},
                          "P": {"name": "infantry", "target_type": "troops", "hex": "a", "carried_by": "TR"},
                          "SW": {"name": "Sagger", "target_type": "support_weapon", "hex": "a", "attached_to": "P"}},
                "hexes": [{"id": "a", "terrain": "clear"}, {"id": "b", "terrain": "clear"}]}
    result, _ = answer("classic", book, {**position, "query": {"action": "move", "unit": "TR", "path": ["b"]}})
    assert result.values["legal"] is True
    assert [e for e in result.events if isinstance(e, UnitMoved)] == [UnitMoved("TR", "b"), UnitMoved("P", "b"),
                                                                     UnitMoved("SW", "b")]


@BOOKS
def test_an_hq_deployed_with_a_transport_does_not_ride_with_it(book: str, short: str) -> None:
    """§1.3.3.1: HQs "can move normally with the units with which they are stacked": an HQ
    stacked with a moving transport goes only when it is moved with it (WaW85 §9.2 differs:
    ``Params.deployed_hq_rides``). The riders move right after their transport, before its
    Ops Complete: the transport, its Passenger, the Passenger's SW."""
    position = {"units": {"TR": {"name": "BTR-70", "target_type": "light_armor", "abilities": ["transport"], "mp": 6,
                                 "hex": "a", "formation": "F"},
                          "P": {"name": "infantry", "target_type": "troops", "hex": "a", "carried_by": "TR"},
                          "SW": {"name": "Sagger", "target_type": "support_weapon", "hex": "a", "attached_to": "P"},
                          "H": {"name": "2nd Bn HQ", "target_type": "hq", "hex": "a", "attached_to": "TR",
                                "formation": "F"},
                          "B": {"name": "T-72", "target_type": "heavy_armor", "mp": 5, "hex": "a", "formation": "F"}},
                "hexes": [{"id": "a", "terrain": "clear"}, {"id": "b", "terrain": "clear"}]}
    result, after = answer("classic", book, {**position, "query": {"action": "move", "unit": "TR", "path": ["b"]}})
    assert result.values["legal"] is True
    assert result.events == [UnitMoved("TR", "b"), UnitMoved("P", "b"), UnitMoved("SW", "b"),
                             StatusChanged("TR", "ops_complete", True), StatusChanged("TR", "moving", True)]
    assert after.units["H"].hex == "a"


@BOOKS
def test_a_stack_moves_together_within_the_stacking_limit(book: str, short: str) -> None:
    """§5.1: "Units that begin the Formation impulse stacked together can move together"; each
    pays its own way; §1.4 counts the units already arrived (b holds one combat unit). (The HQ
    is left out: A and B leaving it alone would break §1.3.3.1.)"""
    units = {key: unit for key, unit in HQ_STACK["units"].items() if key != "H"}
    stack = {**HQ_STACK, "units": {**units, "C": {"name": "T-72", "target_type": "heavy_armor", "mp": 5, "hex": "b"}}}
    result, _ = answer("classic", book, {**stack, "query": {"action": "move", "unit": ["A", "B"], "path": ["c"]}})
    assert result.values == {"cost": 1, "legal": True}
    assert [type(e).__name__ for e in result.events] == ["UnitMoved", "StatusChanged", "StatusChanged"] * 2
    result, _ = answer("classic", book, {**stack, "query": {"action": "move", "unit": ["A", "B"], "path": ["b"]}})
    assert (result.values["legal"], result.values["reason_rule"]) == (False, "1.4")
    assert reasons(result) == [(f"{short} §1.4", "b already holds two combat units")]
    assert result.events == []


@BOOKS
def test_a_disrupted_unit_may_not_enter_a_hex_stated_next_to_an_enemy(book: str, short: str) -> None:
    """EG/TUS §6.1.7: Disrupted units "may not move closer to an enemy unit (or into a hex
    adjacent to the enemy) while within its LOS"; EG §5.2.2: unloaded Disrupted infantry may not
    "violate the movement rules for Disrupted units". Without map positions, a hex stated
    ``adjacent_to_enemy`` is refused (an adjacent enemy always sees it), when the unit is not
    retreating from an adjacent enemy: TUS bounds a retreat by every enemy in LOS, so its start
    need not be stated; EG's retreat is bounded only by the enemy it retreats from, so there the
    start hex must be stated not next to an enemy."""
    mover = {"name": "Infantry", "side": "nato", "target_type": "troops", "mp": 3, "hex": "a",
             "status": {"disrupted": True, "mp_spent": 0}}
    hexes = [{"id": "a", "terrain": "clear", "adjacent_to_enemy": False},
             {"id": "b", "terrain": "clear", "mp_cost": 1, "adjacent_to_enemy": True}]
    given = {"units": {"P": mover}, "hexes": hexes, "query": {"action": "move", "unit": "P", "target": "b"}}
    result, _ = answer("classic", book, given)
    assert (result.values["legal"], result.values["reason_rule"]) == (False, "6.1.7")
    assert (f"{short} §6.1.7", "disrupted Infantry may not enter b, adjacent to an enemy unit (an adjacent enemy "
                               "always has it in LOS)") in reasons(result)
    unstated = {**given, "hexes": [{"id": "a", "terrain": "clear"}, hexes[1]]}
    result, _ = answer("classic", book, unstated)
    if book == "untold":
        assert result.values["legal"] is False
    else:
        assert result.gaps == {"legal": "not stated: units.P position (disrupted movement, EG §6.1.7)"}
    away = {**given, "hexes": [hexes[0], {**hexes[1], "adjacent_to_enemy": False}]}
    result, _ = answer("classic", book, away)
    assert result.gaps == {"legal": f"not stated: units.P position (disrupted movement, {short} §6.1.7)"}
