"""WaW85 turn and Formation Impulse rules, from the rule text: the end of the Operations
Phase (§2.2, §3.0), the Marker Removal Phase (§2.3), Minefields in Fire hexes (§2.3.4.3),
the Refresh Step (§7.1), Leader transfers (§7.2.1), one Action per unit (§7.6),
Passengers rallying with their Transport (§10.7.3) and the Battle Generator scores
(§1.6.5, §17.4.1, §17.4.4)."""
from __future__ import annotations

from referee.events import MarkerPlaced, MarkerRemoved, StatusChanged, UnitAttached, UnitRallied, describe
from tests.case_support import answer, reasons

RULEBOOKS = ("WaW85",)


def waw85(given: dict, dice: dict | None = None):
    return answer("waw85", None, given, dice)


def test_the_operations_phase_ends_on_the_second_end_operations_card() -> None:
    """§2.2: cards are drawn "until the second End Operations card in the deck is drawn (even
    if three End Operations cards are present in the deck)"; §3.0 the same."""
    result, _ = waw85({"situation": {"draws": ["formation", "end", "cas", "formation", "end", "end"]},
                       "query": {"action": "operations_phase"}})
    assert result.values == {"ends_after_draw": 5}
    assert reasons(result) == [("WaW85 §3.0", "the second End Operations card is draw 5")]
    result, _ = waw85({"situation": {"draws": ["formation", "end", "formation"]},
                       "query": {"action": "operations_phase"}})
    assert result.gaps == {"*": "not stated: situation.draws (a second End Operations card)"}


def test_marker_removal_steps_on_a_hex_in_the_books_order() -> None:
    """§2.3: "Perform these steps in order": §2.3.2 Smoke Thinning removed, THEN Smoke flipped
    to Thinning; §2.3.9 Chemical Strike markers removed; a hex with none of them keeps all."""
    result, after = waw85({"hexes": [{"id": "x", "markers": ["smoke", "smoke_thinning", "chemical"]}],
                           "query": {"action": "marker_removal", "target": "x"}})
    assert result.events == [MarkerRemoved("x", "smoke_thinning"), MarkerRemoved("x", "smoke"),
                             MarkerPlaced("x", "smoke_thinning"), MarkerRemoved("x", "chemical")]
    assert reasons(result) == [("WaW85 §2.3.2", "Smoke Thinning removed"),
                               ("WaW85 §2.3.2", "Smoke flipped to Smoke Thinning"),
                               ("WaW85 §2.3.9", "Chemical Strike marker removed")]
    assert after.hexes["x"].markers == frozenset({"smoke_thinning"})
    result, after = waw85({"hexes": [{"id": "y", "markers": ["rubble", "wrecks"]}],
                           "query": {"action": "marker_removal", "target": "y"}})
    assert result.events == []
    assert reasons(result) == [("WaW85 §2.3", "y: no marker to remove")]
    assert after.hexes["y"].markers == frozenset({"rubble", "wrecks"})


def test_marker_removal_on_a_unit() -> None:
    """§2.3.1 Ops Complete and Out of Command markers go; §2.3.3 an EW Reducing marker goes
    without a roll, an EW marker flips on 2d6 at or under the Formation's Morale/Training."""
    unit = {"morale": 7, "status": {"ops_complete": True, "out_of_command": True, "ew_marker": "ew"}}
    result, after = waw85({"units": {"H": unit}, "query": {"action": "marker_removal", "target": "H"}},
                          {"2d6": [7]})
    assert result.events == [StatusChanged("H", "ops_complete", False), StatusChanged("H", "out_of_command", False),
                             StatusChanged("H", "ew_marker", "ew_reducing")]
    assert reasons(result) == [
        ("WaW85 §2.3.1", "H: ops complete marker removed"), ("WaW85 §2.3.1", "H: out of command marker removed"),
        ("WaW85 §2.3.3", "Morale/Training check 2d6 = 7+0 = 7 vs 7: passed"), ("WaW85 §2.3.3", "H: EW marker flipped to EW Reducing")]
    result, after = waw85({"units": {"H": {**unit, "status": {"ew_marker": "ew"}}},
                           "query": {"action": "marker_removal", "target": "H"}}, {"2d6": [8]})
    assert result.events == [] and after.units["H"].status.ew_marker == "ew"
    result, after = waw85({"units": {"H": {"status": {"ew_marker": "ew_reducing"}}},
                           "query": {"action": "marker_removal", "target": "H"}})
    assert result.rolls == [] and after.units["H"].status.ew_marker == "none"


def test_a_minefield_in_a_fire_hex_is_depleted_on_a_six() -> None:
    """§2.3.4.3: "Check each Minefield marker present in a Fire hex for Depletion: roll 1d6
    for each. If the result is a 6, the Minefield marker is removed. Otherwise it remains.\""""
    fire = {"query": {"action": "fire_minefield", "target": "x"}}
    result, after = waw85({**fire, "hexes": [{"id": "x", "markers": ["fire", "minefield_random"]}]}, {"d6": [6]})
    assert result.events == [MarkerRemoved("x", "minefield_random")]
    assert reasons(result) == [("WaW85 §2.3.4.3", "1d6 6: the Minefield is depleted")]
    assert after.hexes["x"].markers == frozenset({"fire"})
    result, after = waw85({**fire, "hexes": [{"id": "x", "markers": ["fire", "minefield_placed"]}]}, {"d6": [5]})
    assert result.events == [] and reasons(result) == [("WaW85 §2.3.4.3", "1d6 5: no effect")]
    assert after.hexes["x"].markers == frozenset({"fire", "minefield_placed"})
    result, _ = waw85({**fire, "hexes": [{"id": "x", "markers": ["minefield_random"]}]}, {"d6": [6]})
    assert result.gaps == {"*": "not stated: hexes.x.markers (a Fire marker)"} and result.rolls == []
    result, _ = waw85({**fire, "hexes": [{"id": "x", "markers": ["fire"]}]}, {"d6": [6]})
    assert result.gaps == {"*": "not stated: hexes.x.markers (a Minefield marker)"} and result.rolls == []


def test_the_refresh_step_clears_ops_complete_and_out_of_command() -> None:
    """§7.1: "Remove any Ops Complete and Out of Command markers from the activated Formation."""
    result, after = waw85({"units": {"A": {"status": {"ops_complete": True, "out_of_command": True}},
                                     "B": {"status": {"ops_complete": True}}, "C": {}},
                           "query": {"action": "refresh", "unit": ["A", "B", "C"]}})
    assert result.events == [StatusChanged("A", "ops_complete", False), StatusChanged("A", "out_of_command", False),
                             StatusChanged("B", "ops_complete", False)]
    assert reasons(result) == [("WaW85 §7.1", "A is refreshed"), ("WaW85 §7.1", "B is refreshed"),
                               ("WaW85 §7.1", "C is refreshed")]
    assert not any(u.status.ops_complete or u.status.out_of_command for u in after.units.values())


def test_a_leader_transfers_within_its_stack_to_its_own_nationality() -> None:
    """§7.2.1: "Leaders may be transferred between units of the same nationality in a stack
    ... This does not count as an Action ... do NOT place an Ops Complete marker"."""
    leader = {"target_type": "leader", "hex": "x", "nation": "ussr"}
    result, _ = waw85({"units": {"L": leader, "A": {"hex": "x", "nation": "ussr"}},
                       "query": {"action": "leader_transfer", "unit": "L", "target": "A"}})
    assert result.values == {"legal": True}
    assert reasons(result) == [("WaW85 §7.2.1", "L is assigned to A; not an Action")]
    assert not any(isinstance(e, StatusChanged) and e.field == "ops_complete" for e in result.events)
    # "It is now assigned to that new unit": a later action of the impulse sees it there
    result, after = waw85({"units": {"L": {**leader, "attached_to": "B"}, "A": {"hex": "x", "nation": "ussr"},
                                     "B": {"hex": "x", "nation": "ussr"}},
                           "query": {"action": "leader_transfer", "unit": "L", "target": "A"}})
    assert result.events == [UnitAttached("L", "A")]
    assert after.units["L"].attached_to == "A" and [u.key for u in after.attached("A")] == ["L"]
    assert describe(UnitAttached("L", "A"), after) == "L is assigned to A"
    for unit, why in (({"hex": "x", "nation": "gdr"}, "Leaders transfer only to units of their nationality"),
                      ({"hex": "y", "nation": "ussr"}, "Leaders transfer only within their stack")):
        result, _ = waw85({"units": {"L": leader, "A": unit},
                           "query": {"action": "leader_transfer", "unit": "L", "target": "A"}})
        assert (result.values["legal"], result.values["reason_rule"]) == (False, "7.2.1")
        assert reasons(result) == [("WaW85 §7.2.1", why)]
    result, _ = waw85({"units": {"L": {**leader, "target_type": "troops"}, "A": {"hex": "x", "nation": "ussr"}},
                       "query": {"action": "leader_transfer", "unit": "L", "target": "A"}})
    assert reasons(result) == [("WaW85 §7.2.1", "L is not a Leader")]


def test_a_unit_that_has_acted_does_not_fire_again() -> None:
    """§7.6: "Active units may each select one of the following five Actions"; a unit that
    has fired in this activation is refused a second Direct Fire, before any die is rolled."""
    given = {"units": {"A": {"side": "nato", "ap": {"fp": 3, "to_hit": 4, "range": 6, "color": "black"},
                             "status": {"fired": True}},
                       "T": {"side": "pact", "target_type": "heavy_armor", "armor": 3, "save": 5, "hex": "t",
                             "distance": 4}},
             "hexes": [{"id": "t", "terrain_db": 0}],
             "query": {"action": "direct_fire", "unit": "A", "target": "T", "weapon": "ap"}}
    result, _ = waw85(given, {"attack": [6, 6, 6], "save": [1, 1, 1]})
    assert (result.values["legal"], result.values["reason_rule"]) == (False, "7.6")
    assert result.refusals[0].section == "WaW85 §7.6"
    assert result.refusals[0].text == "A has already fired in this impulse"
    assert result.rolls == [] and result.events == []


def test_passengers_lose_their_disruption_with_their_transport() -> None:
    """§10.7.3: "If a Transport unit removes its Disruption marker, so do the Passengers"
    (§7.4 the Disruption Removal check, 2d6 at or under Morale/Training; an Active Helicopter
    Transport is automatically Undisrupted)."""
    units = {"TR": {"name": "BMP-2", "morale": 7, "hex": "a", "status": {"disrupted": True}},
             "P": {"name": "Infantry", "carried_by": "TR", "hex": "a", "status": {"disrupted": True}}}
    result, after = waw85({"units": units, "query": {"action": "rally", "unit": "TR"}}, {"2d6": [5]})
    assert result.events == [UnitRallied("TR"), UnitRallied("P")]
    assert reasons(result) == [("WaW85 §7.4", "Morale/Training check 2d6 = 5+0 = 5 vs 7: passed"),
                               ("WaW85 §10.7.3", "BMP-2 removes its Disruption marker: so does Infantry")]
    assert after.units["P"].status.disrupted is False
    result, after = waw85({"units": units, "query": {"action": "rally", "unit": "TR"}}, {"2d6": [8]})
    assert result.events == [] and after.units["P"].status.disrupted is True
    helicopter = {**units, "TR": {"name": "Mi-8", "target_type": "helicopter", "mode": "landed", "hex": "a",
                                  "status": {"disrupted": True}}}
    result, after = waw85({"units": helicopter, "query": {"action": "rally", "unit": "TR"}})
    assert result.events == [UnitRallied("TR"), UnitRallied("P")] and result.rolls == []


def test_a_one_step_unit_reduced_scores_its_full_cost() -> None:
    """§2.4 and §17.4.4 score half (rounded up) of a reduced unit, but §1.6.5: a one-step unit
    "is eliminated if flipped", so its reduction scores what its elimination does."""
    for steps, cards, points in ((1, 1, 20), (2, 1, 10), (1, 2, 25), (2, 2, 13)):
        result, _ = waw85({"units": {"A": {"side": "pact", "target_type": "troops", "steps": steps, "cost": 20,
                                           "formation_cards": cards}},
                           "query": {"action": "casualty_points", "unit": "A", "result": "reduced"}})
        assert result.values["value"] == points, (steps, cards)
    result, _ = waw85({"units": {"A": {"name": "BRDM", "steps": 1, "cost": 20, "formation_cards": 1}},
                       "query": {"action": "casualty_points", "unit": "A", "result": "reduced"}})
    assert ("WaW85 §1.6.5", "BRDM is a one-step unit: reduced, it is eliminated and scores its full cost") \
        in reasons(result)


def test_a_degree_of_victory_needs_a_winner_with_points() -> None:
    """§17.4.1: (low score / high score) x 100, rounded down; with the higher total 0, or a
    total below 0, the book gives nothing to read it with (the chart is on PA12)."""
    def degree(nato: int, pact: int):
        result, _ = waw85({"situation": {"points": {"nato": nato, "pact": pact}},
                           "query": {"action": "degree_of_victory"}})
        return result
    assert degree(250, 250).values["value"] == 100
    assert degree(1, 3).values["value"] == 33
    assert degree(0, 0).gaps["*"].startswith("not supported: WaW85 §17.4.1 (a Degree of Victory with the higher total 0")
    assert degree(-50, 200).gaps["*"].startswith("not supported: WaW85 §17.4.1 (a Degree of Victory for a negative total (-50)")


def test_a_reduced_counter_costs_half_without_its_steps_stated() -> None:
    """§17.4.1 (prose) subtracts "1/2 the points cost of any two step units which are reduced";
    a counter on its reduced side is one (§1.6.5: a one-step unit "is eliminated if flipped")."""
    result, _ = waw85({"units": {"E": {"side": "nato", "cost": 30, "location": "eliminated"},
                                 "R": {"side": "nato", "target_type": "troops", "strength": "reduced", "cost": 40}},
                       "situation": {"objectives": 2}, "query": {"action": "victory_points", "side": "nato"}})
    assert result.values["value"] == 400 - 30 - 20


def test_only_the_costs_of_casualties_are_needed() -> None:
    """§17.4.1 subtracts the costs of units eliminated and reduced: a full-strength unit or an
    HQ with no cost stated takes no part (and is not a gap)."""
    result, _ = waw85({"units": {"E": {"side": "nato", "cost": 30, "location": "eliminated"},
                                 "F": {"side": "nato", "target_type": "troops", "steps": 2, "strength": "full"},
                                 "H": {"side": "nato", "target_type": "hq", "strength": "full"}},
                       "situation": {"objectives": 1}, "query": {"action": "victory_points", "side": "nato"}})
    assert (result.gaps, result.values["value"]) == ({}, 170)


def test_a_formation_attempts_at_most_two_off_board_strikes() -> None:
    """§7.5: "A Formation may now attempt to use a maximum of two Off-Board Artillery Strikes";
    §14.2: each Strike is used once, so no more are asked than are left on the track."""
    given = {"units": {"T": {"target_type": "troops", "steps": 2, "strength": "full", "hex": "x",
                             "status": {"disrupted": False, "concealed": False}},
                       "S": {"target_type": "hq", "los": True}},
             "hexes": [{"id": "x", "terrain": "clear", "terrain_db": 0, "distance": 8}],
             "situation": {"strikes_left": 3},
             "query": {"action": "indirect_fire", "target": "x", "spotter": "S", "count": 3,
                       "mission": {"type": "he", "fp": 4, "to_hit": 5}}}
    result, _ = waw85(given)
    assert (result.legal, result.values["max_count"]) == (False, 2)
    assert ("WaW85 §7.5", "3 Strikes asked: a Formation may attempt a maximum of two Off-Board Artillery "
            "Strikes") in reasons(result)
    result, _ = waw85({**given, "situation": {"strikes_left": 1}, "query": {**given["query"], "count": 2}})
    assert result.legal is False
    assert ("WaW85 §14.2", "2 Strikes asked, 1 left on the Artillery Track: each Off-Board Artillery Strike can "
            "only be used once in a scenario") in reasons(result)


def test_the_attacker_sets_up_as_many_formations_as_maps_and_enters_from_turn_1() -> None:
    """§17.7: the attacker "may set up Formations equal to the number of maps"; its Formations not
    on the map "may enter on Turn 1 or later", the defender's "beginning on Turn 3"."""
    result, _ = waw85({"situation": {"defender": "nato", "maps": 3},
                       "query": {"action": "setup", "side": "pact", "count": 4}})
    assert (result.legal, result.values["max_count"]) == (False, 3)
    assert ("WaW85 §17.7", "the attacker sets up at most as many Formations as maps (3)") in reasons(result)
    result, _ = waw85({"situation": {"defender": "nato"},
                       "query": {"action": "setup", "side": "pact", "choice": "reserves"}})
    assert result.values["situation"] == {"turn": 1}
    result, _ = waw85({"situation": {"defender": "nato"},
                       "query": {"action": "setup", "side": "nato", "choice": "reserves"}})
    assert result.values["situation"] == {"turn": 3}


def test_only_the_defender_rolls_for_its_bonus_formations() -> None:
    """§17.4.3.4: "the defender rolls to bring on one of the bonus Formations"; the attacker has
    none (§17.4.3.3) and makes no roll."""
    result, _ = waw85({"situation": {"defender": "nato", "turn": 3},
                       "query": {"action": "bonus_formation_entry", "side": "pact"}}, {"d6": [2]})
    assert (result.legal, result.values["roll_required"]) == (False, False)
    assert reasons(result) == [("WaW85 §17.4.3.4", "only the defender has bonus Formations and rolls to bring "
                                "them on")]
    result, _ = waw85({"situation": {"defender": "nato", "turn": 3},
                       "query": {"action": "bonus_formation_entry", "side": "nato"}}, {"d6": [3]})
    assert (result.values["roll_required"], result.values["passed"]) == (True, True)
