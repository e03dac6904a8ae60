"""Classic unit-type rules from the rule text: infantry (EG/TUS §1.3.1), Hallowed Ground
(TUS §1.3.6.1), helicopter Formations (TUS §9.0 Air Support, EG §9.0 Helicopters), which
vehicles overrun (EG/TUS §6.4, §1.3.4.1), who defends in an Assault or Overrun (EG/TUS §6.3, §6.4)
and who takes a chemical Morale check (EG/TUS §8.4)."""
from __future__ import annotations

import pytest

from referee.events import MarkerPlaced, StatusChanged, UnitDisrupted, UnitEliminated, UnitRallied
from tests.case_support import answer, reasons

BOOKS = pytest.mark.parametrize("book, short", [("eisenbach", "EG"), ("untold", "TUS")], ids=["EG", "TUS"])


@BOOKS
def test_infantry_is_a_soft_target_and_rides_a_transport(book: str, short: str) -> None:
    """EG/TUS §1.3.1: "Infantry is a soft target" and can be transported: fired on with HE in
    Woods it rolls the terrain's one Defensive Bonus die, saving on 5+, no armor (§6.1); it
    loads into a transport (§5.2.1)."""
    given = {"units": {"A": {"side": "pact", "he": {"fp": 3, "to_hit": 4, "range": 6}},
                       "T": {"side": "nato", "target_type": "troops", "hex": "t", "distance": 4,
                             "status": {"concealed": False}}},
             "hexes": [{"id": "t", "terrain": "woods"}],
             "query": {"action": "direct_fire", "unit": "A", "target": "T", "weapon": "he"}}
    result, _ = answer("classic", book, given, {"attack": [4, 5, 1], "save": [5]})
    v = result.values
    assert (v["armor_dice"], v["db_dice"], v["defense_dice"], v["save_number"]) == (0, 1, 1, 5)
    assert (v["hits"], v["saves"], v["net_hits"]) == (2, 1, 1)
    assert result.events[-1] == UnitDisrupted("T")
    assert (f"{short} §6.1.5, §6.1.6", "T: DB 1 woods") in reasons(result)
    result, _ = answer("classic", book, {
        "units": {"I": {"target_type": "troops", "mp": 3, "hex": "a"},
                  "TR": {"abilities": ["transport"], "mp": 6, "hex": "a"}},
        "query": {"action": "load", "unit": "I", "target": "TR"}})
    assert result.values == {"legal": True}
    assert reasons(result) == [(f"{short} §5.2.1",
                                "loaded where they began together, the transport moves up to half its MF (3)")]


def test_the_cdo_mc_is_infantry_that_never_rides() -> None:
    """TUS §1.3.1: "With the exception of the CDO MC, all infantry units can be transported";
    §1.3.1.1: "CDO MC cannot load on a transport"."""
    result, _ = answer("classic", "untold", {
        "units": {"I": {"name": "CDO MC", "target_type": "troops", "mp": 5, "hex": "a"},
                  "TR": {"abilities": ["transport"], "mp": 6, "hex": "a"}},
        "query": {"action": "load", "unit": "I", "target": "TR"}})
    assert (result.values["legal"], result.values["reason_rule"]) == (False, "1.3.1.1")
    assert reasons(result) == [("TUS §1.3.1.1", "CDO MC cannot load on a transport")]


def _hallowed_fire(owner: str, book: str = "untold"):
    return answer("classic", book, {
        "units": {"A": {"name": "T-72", "side": "nato", "nation": "gdr", "ap": {"fp": 4, "to_hit": 4, "range": 8},
                        "hex": "x"},
                  "T": {"side": "pact", "target_type": "heavy_armor", "armor": 3, "save": 5, "hex": "t", "distance": 5}},
        "hexes": [{"id": "x", "markers": ["hallowed_ground"], "owner": owner}, {"id": "t", "terrain": "clear"}],
        "query": {"action": "direct_fire", "unit": "A", "target": "T", "weapon": "ap"}})


def test_hallowed_ground_lets_the_leaders_countrymen_reroll_one_die() -> None:
    """TUS §1.3.6.1: "units of the leader's nationality may reroll one die whenever they are
    required to roll die/dice in the Hallowed Ground hex" (the book's example: an East German
    T-72 fires from it); units of another nationality may not; Eisenbach Gap has no leaders."""
    result, _ = _hallowed_fire("gdr")
    assert result.values["rerolls"] == 1
    assert ("TUS §1.3.6.1", "Hallowed Ground: one die may be rerolled") in reasons(result)
    result, _ = _hallowed_fire("pol")
    assert result.values["rerolls"] == 0
    assert not any(r[0] == "TUS §1.3.6.1" for r in reasons(result))
    result, _ = _hallowed_fire("gdr", "eisenbach")
    assert "rerolls" not in result.values


def test_a_fallen_leader_leaves_hallowed_ground() -> None:
    """TUS §1.3.6: "If the platoon is eliminated, the leader dies"; §1.3.6.1: "flip his
    counter to the Hallowed Ground side in the hex of his demise"."""
    result, after = answer("classic", "untold", {
        "units": {"A": {"name": "T-55", "side": "nato", "target_type": "heavy_armor", "armor": 2, "save": 5,
                        "strength": "reduced", "hex": "x", "status": {"disrupted": True}},
                  "L": {"name": "Wolf", "target_type": "leader", "attached_to": "A", "hex": "x", "side": "nato"}},
        "hexes": [{"id": "x", "terrain": "clear"}],
        "query": {"action": "apply_damage", "target": "A", "hits": 1}})
    assert result.events == [UnitEliminated("A"), MarkerPlaced("x", "wrecks"), UnitEliminated("L"),
                             MarkerPlaced("x", "hallowed_ground")]
    assert reasons(result) == [("TUS §6.1.7", "T-55 eliminated: Wreck placed in x"),
                               ("TUS §1.3.6.1", "Wolf dies: Hallowed Ground")]
    assert after.hexes["x"].markers == frozenset({"wrecks", "hallowed_ground"})


@BOOKS
def test_helicopters_are_in_command_and_rally_when_their_formation_is_drawn(book: str, short: str) -> None:
    """TUS §9.0 / EG §9.0: "When the helicopter's Formation marker is pulled from the cup, all
    helicopters of the Formation ... are activated, considered in command and automatically
    undisrupted" (with §1.6 and §9.3): no morale roll for either."""
    helicopter = {"target_type": "helicopter", "formation": "hel", "status": {"disrupted": True}}
    result, after = answer("classic", book, {"units": {"H": helicopter}, "query": {"action": "rally", "unit": "H"}})
    assert result.values == {"roll_required": False}
    assert result.events == [UnitRallied("H")] and result.rolls == []
    assert reasons(result) == [(f"{short} §9.3", "helicopters rally automatically when activated")]
    assert after.units["H"].status.disrupted is False
    result, after = answer("classic", book, {"units": {"H": {**helicopter, "status": {"out_of_command": True}}},
                                             "query": {"action": "command_check", "unit": "H"}})
    assert result.values == {"roll_required": False, "passed": True}
    assert reasons(result) == [(f"{short} §1.6", "helicopters are never out of command")]
    assert not any(isinstance(e, StatusChanged) and e.value is True for e in result.events)

    result, _ = answer("classic", book, {"units": {"H": {**helicopter, "status": {"disrupted": False}}},
                                         "query": {"action": "morale_check", "unit": "H"}}, {"2d6": [12]})
    assert result.values == {"roll_required": False} and result.rolls == []
    assert reasons(result) == [(f"{short} §1.6", "H is a helicopter: helicopters have no morale and make no morale "
                                "check")]

def test_a_leaders_platoon_and_its_carrier_stay_in_command_when_their_hex_fails() -> None:
    """TUS §1.3.6: "A leader is always in command, as is the platoon to which he is assigned.
    Leaders assigned to a loaded infantry platoon place both the infantry platoon and its
    carrier in command until the infantry platoon unloads"; §4.2 marks the rest of a hex that
    fails its check Out of Command (the tank B here). In Eisenbach Gap the whole hex is."""
    units = {"TR": {"name": "BMP", "abilities": ["transport"], "formation": "f", "hex": "x", "side": "nato"},
             "P": {"name": "Infantry", "target_type": "troops", "carried_by": "TR", "formation": "f", "hex": "x",
                   "side": "nato"},
             "L": {"name": "Wolf", "target_type": "leader", "attached_to": "P", "hex": "x", "side": "nato"},
             "B": {"name": "T-72", "target_type": "heavy_armor", "formation": "f", "hex": "x", "side": "nato"},
             "H": {"target_type": "hq", "formation": "f", "hex": "h", "command_range": {"full": 3},
                   "strength": "full", "morale": 6, "distance": 10}}
    result, after = answer("classic", "untold", {"units": units, "query": {"action": "command_check", "unit": "B"}},
                           {"2d6": [12]})
    assert result.values == {"roll_required": True, "modified_roll": 12, "target_number": 6, "passed": False}
    assert result.events == [StatusChanged("B", "out_of_command", True)]
    assert ("TUS §1.3.6", "BMP carries Infantry, which has a leader: in command until it unloads") in reasons(result)
    assert not after.units["TR"].status.out_of_command and not after.units["P"].status.out_of_command
    result, _ = answer("classic", "untold", {"units": units, "query": {"action": "command_check", "unit": "TR"}})
    assert result.values == {"roll_required": False, "passed": True} and result.rolls == []
    result, after = answer("classic", "eisenbach", {"units": units, "query": {"action": "command_check", "unit": "B"}},
                           {"2d6": [12]})
    assert {e.unit for e in result.events} == {"B", "TR", "P"}


@pytest.mark.parametrize("book, short", [("eisenbach", "EG"), ("untold", "TUS")], ids=["EG", "TUS"])
def test_an_infantry_unit_holds_one_support_weapon(book: str, short: str) -> None:
    """TUS §1.3.1: "An infantry unit can only possess one SW"; EG §1.3.1: "Infantry units may
    use only one SW". SWs do not count for stacking (§1.4)."""
    given = {"units": {"I": {"name": "Motor Rifle", "target_type": "troops", "hex": "a"},
                       "S1": {"name": "RPG-16", "target_type": "support_weapon", "hex": "a", "attached_to": "I"},
                       "S2": {"name": "AGS-17", "target_type": "support_weapon", "hex": "a", "attached_to": "I"}},
             "hexes": [{"id": "a", "terrain": "clear"}], "query": {"action": "stacking", "target": "a"}}
    result, _ = answer("classic", book, given)
    assert result.values == {"legal": False, "reason_rule": "1.3.1", "count": 1}
    assert reasons(result) == [(f"{short} §1.3.1", "Motor Rifle holds 2 Support Weapons (RPG-16, AGS-17): an infantry "
                                                   "unit possesses only one SW")]
    one = {**given, "units": {k: v for k, v in given["units"].items() if k != "S2"}}
    result, _ = answer("classic", book, one)
    assert result.values == {"legal": True, "count": 1} and reasons(result) == []


def test_hallowed_ground_in_a_defensive_and_a_rally_roll() -> None:
    """TUS §1.3.6.1 "whenever they are required to roll die/dice in the Hallowed Ground hex":
    the defensive roll of a target in the hex and a rally roll there offer the reroll too;
    outside the hex, none."""
    unit = {"name": "T-72", "side": "pact", "nation": "gdr", "target_type": "heavy_armor", "armor": 2, "save": 5,
            "morale": 7, "hex": "x", "status": {"disrupted": True}}
    hexes = [{"id": "x", "terrain": "clear", "terrain_db": 0, "markers": ["hallowed_ground"], "owner": "gdr"},
             {"id": "y", "terrain": "clear", "terrain_db": 0}]
    result, _ = answer("classic", "untold", {"units": {"A": unit}, "hexes": hexes,
                                             "query": {"action": "defense", "target": "A"}})
    assert result.values["rerolls"] == 1
    result, _ = answer("classic", "untold", {"units": {"A": unit}, "hexes": hexes,
                                             "query": {"action": "rally", "unit": "A"}}, {"2d6": [8]})
    assert result.values["rerolls"] == 1
    assert ("TUS §1.3.6.1", "Hallowed Ground: one die may be rerolled") in reasons(result)
    result, _ = answer("classic", "untold", {"units": {"A": {**unit, "hex": "y"}}, "hexes": hexes,
                                             "query": {"action": "rally", "unit": "A"}}, {"2d6": [8]})
    assert result.values["rerolls"] == 0


def test_no_songster_after_the_tank_fired_its_gun() -> None:
    """TUS §1.3.5.1: "the units shooting the ATGM cannot fire with their inherent firepower in
    the impulse": a T-80 that fired its gun this impulse does not fire its Songster."""
    given = {"units": {"A": {"name": "T-80", "side": "pact", "target_type": "heavy_armor",
                             "ap": {"fp": 4, "to_hit": 4, "range": 8}, "hex": "a",
                             "status": {"fired": True, "disrupted": False, "ops_complete": False}},
                       "SW": {"name": "Songster", "side": "pact", "target_type": "support_weapon",
                              "ap": {"fp": 4, "to_hit": 4, "range": 10, "range_underlined": True},
                              "attached_to": "A", "hex": "a"},
                       "T": {"side": "nato", "target_type": "heavy_armor", "armor": 3, "save": 5, "distance": 6,
                             "los": True}},
             "query": {"action": "direct_fire", "unit": "SW", "target": "T", "weapon": "ap"}}
    result, _ = answer("classic", "untold", given)
    assert result.legal is False
    assert any(r[0] == "TUS §1.3.5.1, §1.3.5.2" and "in lieu" in r[1] for r in reasons(result))


@BOOKS
def test_an_anti_aircraft_unit_does_not_halve_its_he_range_at_a_helicopter(book: str, short: str) -> None:
    """§1.3.4.5 "An anti-aircraft unit's range is NOT halved when firing at helicopters"; §9.3
    halves the range of "Non-anti-aircraft units (units without a blue firepower factor)": the
    Shilka's HE of range 4 reaches a helicopter 3 hexes away, a BTR-70's does not."""
    def fire(unit: dict) -> object:
        result, _ = answer("classic", book, {
            "units": {"A": {"side": "pact", "target_type": "light_armor", "armor": 1, "save": 6,
                            "he": {"fp": 2, "to_hit": 4, "range": 4}, **unit,
                            "status": {"disrupted": False, "ops_complete": False, "out_of_command": False}},
                      "T": {"side": "nato", "target_type": "helicopter", "mode": "flying", "armor": 3, "save": 5,
                            "distance": 3, "los": True}},
            "query": {"action": "direct_fire", "unit": "A", "target": "T", "weapon": "he"}})
        return result
    assert fire({"name": "ZSU-23-4", "aa": {"fp": 3, "to_hit": 4, "range": 6}}).legal is True
    assert fire({"name": "BTR-70"}).legal is False


@BOOKS
def test_a_mortar_fires_no_farther_than_its_underlined_range(book: str, short: str) -> None:
    """§1.3.4.3: mortars fire "normally at hexes in their Line of Sight"; "their range is
    underlined, so they cannot fire at extended range": 8 hexes yes, 9 no."""
    def fire(distance: int) -> object:
        result, _ = answer("classic", book, {
            "units": {"M": {"name": "60mm Mortar", "side": "nato", "arty_type": "mrtr", "abilities": ["indirect_fire"],
                            "he": {"fp": 3, "to_hit": 5, "range": 8, "range_underlined": True}, "los": True,
                            "status": {"disrupted": False, "ops_complete": False, "out_of_command": False}}},
            "hexes": [{"id": "x", "distance": distance}],
            "query": {"action": "indirect_fire", "unit": "M", "target": "x", "mission": {"type": "he"}}})
        return result
    assert fire(8).legal is True
    result = fire(9)
    assert result.legal is False
    assert (f"{short} §1.3.4.3, §6.1.1", "x is 9 hexes from 60mm Mortar, beyond its underlined range of 8") \
        in reasons(result)


def test_a_gun_fired_support_weapon_is_its_holders_ranged_attack() -> None:
    """TUS §1.3.5.1 "the units shooting the ATGM cannot fire with their inherent firepower in
    the impulse", §1.3.5.2 "in lieu of": the T-80 firing its Songster is marked Ops Complete
    (§6.1), the Songster removed after a miss; the 2S1's HEAT-FS is not removed after a miss."""
    def fire(holder: dict, sw: dict) -> tuple:
        return answer("classic", "untold", {
            "units": {"A": {"side": "pact", "hex": "a", **holder,
                            "status": {"disrupted": False, "ops_complete": False, "out_of_command": False,
                                       "fired": False, "moving": False, "mp_spent": 0}},
                      "SW": {"side": "pact", "target_type": "support_weapon", "attached_to": "A", "hex": "a", **sw},
                      "T": {"side": "nato", "target_type": "heavy_armor", "armor": 3, "save": 5, "distance": 4,
                            "los": True, "status": {"concealed": False}}},
            "hexes": [{"id": "a", "terrain": "clear"}],
            "query": {"action": "direct_fire", "unit": "SW", "target": "T", "weapon": "ap"}},
            {"attack": [1, 1, 1, 1], "save": []})
    result, after = fire({"name": "T-80", "target_type": "heavy_armor", "ap": {"fp": 4, "to_hit": 4, "range": 8}},
                         {"name": "Songster", "ap": {"fp": 4, "to_hit": 4, "range": 10, "range_underlined": True}})
    assert after.units["A"].status.ops_complete and after.units["SW"].location == "removed"
    assert ("TUS §6.1", "Songster and T-80, firing with it, are marked Ops Complete") in reasons(result)
    result, after = fire({"name": "2S1", "target_type": "light_armor", "armor": 1, "save": 6,
                          "he": {"fp": 3, "to_hit": 4, "range": 6}},
                         {"name": "HEAT-FS", "ap": {"fp": 2, "to_hit": 4, "range": 6}})
    assert after.units["A"].status.ops_complete and after.units["SW"].location != "removed"


@BOOKS
def test_a_retreating_platoon_takes_its_support_weapon_not_the_hq(book: str, short: str) -> None:
    """§1.3.5: SWs "remain with the platoon"; §1.3.3.1: an HQ moves only when moved with its
    units (Params.deployed_hq_rides): the platoon retreats with its Dragon, the HQ stays
    with the Formation's other unit."""
    result, after = answer("classic", book, {
        "units": {"T": {"name": "infantry", "side": "nato", "target_type": "troops", "formation": "F", "hex": "t",
                        "status": {"disrupted": True}},
                  "SW": {"name": "Dragon", "side": "nato", "target_type": "support_weapon", "attached_to": "T",
                         "hex": "t"},
                  "H": {"name": "HQ", "side": "nato", "target_type": "hq", "formation": "F", "hex": "t",
                        "attached_to": "T"},
                  "T2": {"name": "infantry", "side": "nato", "target_type": "troops", "formation": "F", "hex": "t"}},
        "hexes": [{"id": "t", "terrain": "clear"},
                  {"id": "r", "away_from_attacker": True, "enemy_units": 0, "friendly_units": 0,
                   "adjacent_to_enemy": False}],
        "query": {"action": "retreat", "unit": "T", "target": "r"}})
    assert result.legal is True
    assert (after.units["T"].hex, after.units["SW"].hex, after.units["H"].hex) == ("r", "r", "t")


def test_a_unit_that_cannot_retreat_is_eliminated_with_its_counters() -> None:
    """§6.3 "If a defender cannot retreat it is eliminated", with every knock-on of an
    elimination: its SW removed with it (§1.3.5), its leader dead on his Hallowed Ground
    (TUS §1.3.6), the HQ left alone eliminated (§1.3.3.1)."""
    result, after = answer("classic", "untold", {
        "units": {"T": {"name": "infantry", "side": "nato", "target_type": "troops", "formation": "F", "hex": "t",
                        "status": {"disrupted": True}},
                  "SW": {"name": "Dragon", "side": "nato", "target_type": "support_weapon", "attached_to": "T",
                         "hex": "t"},
                  "L": {"name": "Wolf", "side": "nato", "target_type": "leader", "attached_to": "T", "hex": "t"},
                  "H": {"name": "HQ", "side": "nato", "target_type": "hq", "formation": "F", "hex": "t"}},
        "hexes": [{"id": "t", "terrain": "clear"}],
        "situation": {"retreat_possible": False},
        "query": {"action": "retreat", "unit": "T"}})
    assert UnitEliminated("L") in result.events and UnitEliminated("H") in result.events
    assert after.units["SW"].location == "eliminated"
    assert after.hexes["t"].markers == frozenset({"wrecks", "hallowed_ground"})


@pytest.mark.parametrize("hq_hex, roll, modified, passed", [("x", 7, 5, True), ("x", 8, 6, False), ("y", 7, 7, False)])
def test_a_conditional_morale_check_subtracts_the_stacked_hqs_leadership(hq_hex: str, roll: int, modified: int,
                                                                          passed: bool) -> None:
    """TUS §1.6.1: base 2 + 3 units of the Formation within 2 hexes = 5 (the HQ not counted);
    "Units stacked with a HQ can subtract the HQ's leadership from the die roll"."""
    units = {"A": {"name": "T-72", "side": "pact", "formation": "F", "morale": 2, "hex": "x"},
             "B1": {"side": "pact", "formation": "F", "hex": "x", "distance": 0},
             "B2": {"side": "pact", "formation": "F", "within": 2},
             "B3": {"side": "pact", "formation": "F", "within": 2},
             "H": {"name": "HQ", "side": "pact", "target_type": "hq", "formation": "F", "leadership": 2,
                   "hex": hq_hex, "distance": 0 if hq_hex == "x" else 1}}
    result, _ = answer("classic", "untold", {"units": units, "query": {"action": "conditional_morale", "unit": "A"}},
                       {"2d6": [roll]})
    v = result.values
    assert (v["target_number"], v["modified_roll"], v["passed"]) == (5, modified, passed)
    stacked = ("TUS §1.6.1", "stacked with HQ: roll -2") in [(r.section, r.text) for r in result.reasons]
    assert stacked is (hq_hex == "x")


def test_a_jammed_formation_rolls_even_within_its_command_range() -> None:
    """TUS Jamming a: the jammed Formation "must roll for each hex containing its units", even
    one stated to be within its HQ's command range (EG has no Jamming: no roll); b: the HQ's
    hex is in command."""
    given = {"units": {"H": {"target_type": "hq", "formation": "F", "strength": "full", "morale": 6,
                             "command_range": {"full": 4}, "hex": "h", "status": {"ew_marker": "jammed"}},
                       "A": {"formation": "F", "morale": 6, "hex": "s"}},
             "situation": {"in_command_range": True},
             "query": {"action": "command_check", "unit": "A"}}
    result, after = answer("classic", "untold", given, {"2d6": [7]})
    assert (result.values["roll_required"], result.values["passed"]) == (True, False)
    assert ("TUS Jamming a", "jammed Formation: every hex rolls for command") in reasons(result)
    assert after.units["A"].status.out_of_command is True
    result, _ = answer("classic", "eisenbach", given, {"2d6": [7]})
    assert (result.values["roll_required"], result.values["passed"]) == (False, True)
    result, _ = answer("classic", "untold", {**given, "units": {**given["units"], "A": {"formation": "F", "hex": "h"}}})
    assert result.values["roll_required"] is False
    assert ("TUS Jamming b", "A is in H's hex: in command") in reasons(result)


@BOOKS
def test_units_entering_from_off_board_are_in_command_in_their_first_activation(book: str, short: str) -> None:
    """EG/TUS §4.2: "All units of a formation entering play are considered In Command during
    their first activation" (TUS: "entering from off-board"): no roll, ten hexes from an HQ of
    command range 3; on a later activation the hex rolls."""
    given = {"units": {"A": {"name": "A", "formation": "F", "morale": 6, "hex": "s", "status": {"entering": True}},
                       "H": {"target_type": "hq", "formation": "F", "strength": "full", "command_range": {"full": 3},
                             "distance": 10}},
             "query": {"action": "command_check", "unit": "A"}}
    result, after = answer("classic", book, given)
    assert (result.values["roll_required"], result.values["passed"]) == (False, True)
    assert (f"{short} §4.2", "A enters from off-board: in command in its first activation") in reasons(result)
    assert after.units["A"].status.out_of_command is False
    later = {**given, "units": {**given["units"], "A": {**given["units"]["A"], "status": {"entering": False}}}}
    result, after = answer("classic", book, later, {"2d6": [7]})
    assert (result.values["roll_required"], result.values["passed"]) == (True, False)
    assert after.units["A"].status.out_of_command is True
@BOOKS
@pytest.mark.parametrize("target_type, armor, legal", [("soft_vehicle", None, False), ("light_armor", 1, True),
                                                       ("vehicle", None, None)])
def test_only_an_afv_overruns(book: str, short: str, target_type: str, armor: int | None, legal: bool | None) -> None:
    """EG/TUS §6.4: "Combat vehicles may attempt to Overrun" (EG; §8.1 sets "Combat vehicles
    (even thin-skinned ones)" apart from "UNARMORED vehicles"), "AFVs can attempt to overrun"
    (TUS); an AFV prints an Armor Factor and Save Number (§1.3.4.1). A thin-skinned AFV
    triples its Assault Factor of 1; a vehicle not said to be armored or not is a gap."""
    actor = {"name": "carrier", "side": "nato", "target_type": target_type, "assault": {"fp": 1, "to_hit": 5},
             "mp": 8, "hex": "a", "status": {"mp_left": 6, "disrupted": False, "ops_complete": False,
                                            "out_of_command": False}}
    if armor is not None:
        actor.update(armor=armor, save=6)
    result, _ = answer("classic", book, {
        "units": {"A": actor, "T": {"side": "pact", "target_type": "troops", "assault": {"fp": 2, "to_hit": 4},
                                    "hex": "t", "distance": 1}},
        "hexes": [{"id": "t", "terrain": "clear", "mp_cost": 1}],
        "query": {"action": "overrun", "unit": "A", "target": "T"}})
    assert result.legal is legal
    if legal:
        assert (result.values["cost"], result.values["fp"]) == (2, 3)
    elif legal is False:
        assert [(r.section, r.text) for r in result.refusals] == [
            (f"{short} §6.4", "only AFVs can overrun: carrier is an unarmored vehicle (§1.3.4.1)")]
    else:
        assert "units.A.target_type (armored or not)" in str(result.gaps)


@BOOKS
@pytest.mark.parametrize("target_type, why", [
    ("helicopter", ("§1.6, §8.4", "Hind is a helicopter: helicopters have no Morale, so it makes no chemical "
                    "Morale check")),
    ("hq", ("§1.3.3.2, §8.4", "Hind is an HQ: an HQ cannot be directly attacked nor Disrupted, so it makes no "
            "chemical Morale check"))])
def test_a_helicopter_or_an_hq_makes_no_chemical_check(book: str, short: str, target_type: str,
                                                      why: tuple[str, str]) -> None:
    """EG/TUS §8.4 "every affected unit must check Morale", but EG/TUS §1.6 "Helicopters have no
    Morale" and §1.3.3.2 "An HQ cannot be directly attacked ... An HQ cannot be Disrupted": no
    roll, no Disrupted and Reduced result as for infantry on foot (the 2d6 of 11 is not used)."""
    unit = {"name": "Hind", "side": "pact", "target_type": target_type, "morale": 6, "steps": 2, "strength": "full",
            "status": {"disrupted": False}}
    if target_type == "helicopter":
        unit["mode"] = "flying"
    result, after = answer("classic", book, {"units": {"A": unit}, "query": {"action": "chemical_attack", "unit": "A"}},
                           {"2d6": [11]})
    assert result.values == {"roll_required": False}
    assert result.events == []
    assert reasons(result) == [(f"{short} {why[0]}", why[1])]
    assert after.units["A"].status.disrupted is False


@BOOKS
def test_an_overrun_of_a_unit_is_one_of_its_hex(book: str, short: str) -> None:
    """EG/TUS §6.4 "All defending units in the Overrun hex must take one Hit before any takes
    a second": the Overrun named at one platoon hits the other platoon of its hex too (two
    hits, one each), and both counterattack (2 + 1 dice, all misses); a helicopter hovering
    above the hex takes no part (§9.1)."""
    platoon = {"side": "nato", "target_type": "troops", "hex": "t", "steps": 2, "strength": "full",
               "status": {"disrupted": False}}
    given = {"units": {"A": {"name": "T-72", "side": "pact", "target_type": "heavy_armor", "armor": 4, "save": 6,
                             "assault": {"fp": 1, "to_hit": 5}, "mp": 8, "hex": "a", "steps": 2, "strength": "full",
                             "status": {"mp_left": 6, "disrupted": False, "ops_complete": False,
                                        "out_of_command": False}},
                       "T": {**platoon, "name": "first", "assault": {"fp": 2, "to_hit": 4}},
                       "T2": {**platoon, "name": "second", "assault": {"fp": 1, "to_hit": 4}},
                       "C": {"name": "Cobra", "side": "nato", "target_type": "helicopter", "mode": "hovering",
                             "hex": "t", "status": {"disrupted": False}}},
             "hexes": [{"id": "a", "terrain": "clear"}, {"id": "t", "terrain": "clear", "mp_cost": 1}],
             "query": {"action": "overrun", "unit": "A", "target": "T"}}
    result, after = answer("classic", book, given, {"attack": [5, 6, 1], "counter": [1, 1, 1]})
    assert result.legal is True and result.values["hits"] == 2
    assert result.events[1:] == [UnitDisrupted("T"), UnitDisrupted("T2")]
    assert after.units["C"].status.disrupted is False


@BOOKS
def test_an_assault_on_a_unit_is_one_on_its_hex(book: str, short: str) -> None:
    """EG/TUS §6.3 "Units Assault enemy units by moving into their hex ... units occupying the
    hex are called the defenders": an Assault named at one platoon finds the second platoon of
    its hex defending too; the two hits go one to each (all must take one before any takes a
    second) and the second platoon's die (the 4) counterattacks."""
    platoon = {"side": "nato", "target_type": "troops", "hex": "t", "steps": 2, "strength": "full",
               "status": {"disrupted": False}}
    given = {"units": {"A": {"name": "motor rifles", "side": "pact", "target_type": "troops",
                             "assault": {"fp": 3, "to_hit": 4}, "hex": "a", "steps": 2, "strength": "full",
                             "status": {"disrupted": False, "ops_complete": False}},
                       "T": {**platoon, "name": "first", "assault": {"fp": 2, "to_hit": 4}},
                       "T2": {**platoon, "name": "second", "assault": {"fp": 1, "to_hit": 4}}},
             "hexes": [{"id": "a", "terrain": "clear"}, {"id": "t", "terrain": "clear", "mp_cost": 1}],
             "query": {"action": "assault", "unit": "A", "target": "T"}}
    result, after = answer("classic", book, given, {"attack": [4, 5, 1], "counter": [1, 1, 4]})
    assert result.values["hits"] == 2
    assert [e for e in result.events if isinstance(e, UnitDisrupted)] == [
        UnitDisrupted("T"), UnitDisrupted("T2"), UnitDisrupted("A")]
    assert after.units["T2"].status.ops_complete is True
