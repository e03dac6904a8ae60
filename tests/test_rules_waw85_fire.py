"""WaW85 Direct Fire and Assault rules from the rule text: unit heights for the LOS
(§10.2.1), the range bands of a printed range (§10.3.1-§10.3.4), the To-Hit cap of the
Assault modifiers (§13.1) and a Disrupted counterattack's HQ dice (§13.0, §13.1.1); and an
Improved Position against Chemical hits (§16.1), Mine Plows (§16.3.1), who fires On-Board
Indirect Fire at all (§12.0, §14.1), who may contribute to Anti-Aircraft Fire (§4.2,
§16.7.3), the Rubble and Fire roll after a CAS attack (§4.3, §10.9) and Opportunity Fire
before the fire of a Move & Fire Action (§10.11, §11.0)."""
from __future__ import annotations

from dataclasses import replace

import pytest

from tests.case_support import answer, reasons

RULEBOOKS = ("WaW85",)


def waw85(given: dict, dice: dict | None = None):
    return answer("waw85", None, given, dice)


@pytest.mark.parametrize("unit, city, hill_city", [
    ({"target_type": "troops"}, 0, 1),
    ({"target_type": "helicopter", "mode": "landed"}, 0, 1),
    ({"target_type": "helicopter", "mode": "nap_of_earth"}, 1, 2),
    ({"target_type": "helicopter", "mode": "hovering"}, 1, 2),
    ({"target_type": "helicopter", "mode": "flying"}, 3, 4),
    ({"target_type": "aircraft"}, 3, 4),
], ids=["ground", "landed", "noe", "hovering", "flying", "cas"])
def test_unit_heights_by_unit_type(unit: dict, city: int, hill_city: int) -> None:
    """§10.2.1: "Unit heights are classified by unit type": ground units (Landed and NOE
    Helicopters with them) at the hex's unit height, a NOE Helicopter "has to stay above the
    obstacle" (§9.7.2: level 1 in a City), Hovering one level higher (§9.7.3), Flying and CAS
    2 levels above the obstacle height (§9.7.1, §4.1). A City: unit height 0, obstacle 1; a
    Hill-City one level up."""
    for hexes, level in (([{"id": "h", "unit_height": 0, "obstacle_height": 1}], city),
                         ([{"id": "h", "unit_height": 1, "obstacle_height": 2}], hill_city)):
        result, _ = waw85({"units": {"A": {**unit, "hex": "h"}}, "hexes": hexes,
                           "query": {"action": "los_height", "unit": "A"}})
        assert result.unit_values == {"A": {"level": level}}


def test_a_heights_table_not_stated_is_a_gap() -> None:
    """§10.2.1: the heights are the Terrain Effects Chart's (PAC03), which the rulebook does
    not print: a hex without them is not stated, never read as level 0."""
    result, _ = waw85({"units": {"A": {"target_type": "troops", "hex": "h"}}, "hexes": [{"id": "h"}],
                       "query": {"action": "los_height", "unit": "A"}})
    assert result.gaps == {"*": "not stated: units.A.level"}


@pytest.mark.parametrize("distance, band, to_hit", [
    (1, "point_blank", 3), (2, "point_blank", 3), (3, "effective", 4), (5, "effective", 4),
    (6, "long", 5), (10, "long", 5)])
def test_the_range_bands_of_a_printed_five(distance: int, band: str, to_hit: int) -> None:
    """§10.3.1 Point Blank "up to ½ of the printed Range value (rounded down)" (-1 To-Hit,
    §10.6.4); §10.3.2 Effective "greater than ½ ... and up to the printed Range value" (no
    change); §10.3.3 Long "greater than the printed Range value and up to double" (+1,
    §10.6.5); §10.3.4 the Maximum is exactly twice: 11 is out of range."""
    given = {"units": {"A": {"side": "nato", "he": {"fp": 3, "to_hit": 4, "range": 5, "color": "black"}},
                       "T": {"side": "pact", "target_type": "troops", "hex": "t", "distance": distance}},
             "hexes": [{"id": "t", "terrain_db": 0}],
             "query": {"action": "direct_fire", "unit": "A", "target": "T", "weapon": "he"}}
    result, _ = waw85(given)
    assert (result.values["band"], result.values["to_hit"], result.values["max_range"]) == (band, to_hit, 10)
    assert ("WaW85 §10.3", f"range {distance} = {band.replace('_', ' ')}") in reasons(result)
    sections = {m.section for m in result.modifiers}
    assert sections == {"point_blank": {"WaW85 §10.6.4"}, "effective": set(), "long": {"WaW85 §10.6.5"}}[band]


def test_beyond_twice_the_printed_range_is_refused() -> None:
    """§10.3.4: "Maximum Range is exactly twice the printed Range value on the counter"."""
    given = {"units": {"A": {"side": "nato", "he": {"fp": 3, "to_hit": 4, "range": 5, "color": "black"}},
                       "T": {"side": "pact", "target_type": "troops", "hex": "t", "distance": 11}},
             "hexes": [{"id": "t", "terrain_db": 0}],
             "query": {"action": "direct_fire", "unit": "A", "target": "T", "weapon": "he"}}
    result, _ = waw85(given, {"attack": [6, 6, 6]})
    assert (result.values["legal"], result.values["reason_rule"]) == (False, "10.3.4")
    assert reasons(result) == [("WaW85 §10.3.4", "range 11 is beyond the maximum 10")]
    assert result.rolls == []


def test_the_assault_to_hit_is_never_more_than_six() -> None:
    """§13.1: "The maximum To-Hit number of any unit after being affected by sections 13.1.2,
    13.1.3 or 13.1.4 is 6": infantry at To-Hit 6 assaulting across a Bridge (+1 To-Hit, -1 FP,
    the defender -1 To-Hit, §13.1.3) still hits on 6."""
    given = {"units": {"A": {"side": "nato", "target_type": "troops", "assault": {"fp": 3, "to_hit": 6}, "hex": "a"},
                       "T": {"side": "pact", "target_type": "troops", "assault": {"fp": 2, "to_hit": 5}, "hex": "t",
                             "strength": "full"}},
             "hexes": [{"id": "t", "terrain": "clear"}], "situation": {"hexside": "bridge"},
             "query": {"action": "assault", "unit": "A", "target": "T"}}
    result, after = waw85(given, {"attack": [6, 6], "counter": [6, 1]})
    assert (result.values["fp"], result.values["to_hit"]) == (2, 6)
    assert result.unit_values["T"]["to_hit"] == 4 and result.unit_values["T"]["fp"] == 2
    assert (result.values["hits"], result.unit_values["A"]["hits"]) == (2, 1)
    assert ("WaW85 §13.1.3", "A: Assault across a Bridge or River, FP -1, To-Hit +1") in reasons(result)
    assert ("WaW85 §13.1.3", "T: defending a Bridge or River hexside, To-Hit -1") in reasons(result)
    assert after.units["T"].strength == "reduced" and after.units["T"].status.disrupted is True
    assert after.units["A"].status.disrupted is True and after.units["A"].hex == "t"


@pytest.fixture(scope="module")
def sample():
    """The sample position judged by WaW85 on its mapped board (samples/profile-waw85.yaml)."""
    from pathlib import Path

    from converter.resolve import read_position
    samples = Path(__file__).resolve().parents[1] / "samples"
    return read_position(samples / "demo.vsav", samples / "waw-sample.vmod", samples / "profile-waw85.yaml").game


def _resolve(game, text: str, dice: list[int]):
    from converter.actions_text import parse
    from converter.resolve import resolve_actions, ruleset_named
    from referee.dice import GivenDice
    return resolve_actions(game, [parse(text)], ruleset_named("waw85"), GivenDice(dice))


def test_the_firepower_is_the_one_that_may_affect_the_target(sample) -> None:
    """§10.1: "your unit must choose the FP dice value that can affect its intended target
    unit": HE may not attack Heavy Armor, AP nothing but vehicles and aircraft; "If both AP or
    HE Firepower may affect the target, you get to choose which to use". No attack is made,
    and nothing written, before the firing player names it."""
    [step] = _resolve(sample, "fire leopard-c1 t-64", [3] * 9).steps          # T-64: Heavy Armor
    assert (step.answer.values["weapon"], step.answer.values["fp"]) == ("ap", 4)
    assert step.answer.reasons[0].text == "Leopard C1 fires its AP FP, the one that may affect T-64"
    [step] = _resolve(sample, "fire t-64 us-infantry", [3] * 9).steps         # Troops
    assert (step.answer.values["weapon"], step.answer.values["fp"]) == ("he", 2)
    outcome = _resolve(sample, "fire leopard-c1 bmp-1", [3] * 9)              # Light Armor: AP or HE
    assert outcome.steps == [] and outcome.refused.verdict == "cannot be resolved"
    assert outcome.refused.reasons == [("", "fp, hits, to_hit: not stated: query.weapon (which Firepower fires: "
                                            "ap or he)")]


def test_opportunity_fire_needs_a_trigger(sample) -> None:
    """§10.11: "Opportunity Fire is a form of Direct Fire triggered by enemy movement, or enemy
    loading or unloading of Passengers ..., or a helicopter changing mode": the T-64 sits in F6."""
    outcome = _resolve(sample, "opfire leopard-c1 t-64", [3] * 9)
    assert outcome.refused.reasons == [("WaW85 §10.11", "T-64 is not moving, loading, unloading or changing mode: "
                                                        "nothing triggers Opportunity Fire")]
    moving = sample.with_unit(sample.units["t-64"].with_status(moving=True))
    [step] = _resolve(moving, "opfire leopard-c1 t-64", [3] * 9).steps
    assert step.answer.values["legal"] is True and step.answer.values["weapon"] == "ap"


def test_the_command_range_is_counted_on_the_map(sample) -> None:
    """§7.2.4: a hex of the Formation beyond its HQ's Command Range makes a Morale/Training
    Check: on the sample board the T-64 (F6) is 3 hexes from the Soviet HQ (H4), whose full
    Command Range is 3 (samples/units.yaml): In Command. With the HQ deployed to J4 it is 4
    hexes away, so it rolls against its Formation's Morale/Training (7, as the Formation card
    would give it)."""
    from types import MappingProxyType

    from referee.events import UnitMoved, apply
    from referee.model import Formation
    game = replace(sample, formations=MappingProxyType({"79 GTD": Formation("79 GTD", morale=7)}))
    [step] = _resolve(game, "command_check t-64", []).steps
    assert [(r.section, r.text) for r in step.answer.reasons] == [
        ("WaW85 §7.2.4", "3 hexes from Soviet HQ, full Command Range 3: In Command")]
    assert step.answer.values["roll_required"] is False
    [step] = _resolve(apply(game, UnitMoved("soviet-hq", "J4")), "command_check t-64", [3, 3]).steps
    assert [(r.section, r.text) for r in step.answer.reasons] == [
        ("WaW85 §7.2.4", "4 hexes from Soviet HQ, full Command Range 3: must roll"),
        ("WaW85 §7.2.4", "Morale/Training check 2d6 = 6+0 = 6 vs 7: passed")]
    assert step.answer.rolls == [("2d6", [3, 3])]
    assert step.answer.values == {"roll_required": True, "modified_roll": 6, "target_number": 7, "passed": True}


def test_a_spotter_check_subtracts_the_chosen_bonus_only() -> None:
    """§14.3: "Subtract the Command Bonus of any HQ deployed to the unit; or subtract the
    Command Bonus of any Leader assigned to the unit. Important: Only the HQ's bonus or the
    Leader's bonus may be used — not both"."""
    units = {"S": {"name": "Scouts", "target_type": "troops", "morale": 6},
             "H": {"name": "HQ", "target_type": "hq", "leadership": 2, "attached_to": "S"},
             "L": {"name": "Lt", "target_type": "leader", "leadership": 1, "attached_to": "S"}}
    def check(*names, roll=8):
        return waw85({"units": units, "query": {"action": "spotter_check", "unit": "S", "bonus_from": list(names)}},
                     {"2d6": [roll]})[0]
    result = check("L")
    assert (result.values["modified_roll"], result.values["passed"]) == (7, False)
    assert reasons(result)[0] == ("WaW85 §14.3", "Lt Command Bonus: roll -1")
    result = check("H", "L")
    assert (result.values["legal"], result.values["reason_rule"]) == (False, "14.3")
    assert reasons(result) == [("WaW85 §14.3", "Only the HQ's bonus or the Leader's bonus may be used — not both")]
    assert check(roll=8).values["modified_roll"] == 6          # not named: the better bonus, the HQ's 2


def test_an_on_board_strikes_spotter_check_is_its_first_roll() -> None:
    """§14.5 "If needed, make a Spotter Check", then the Scatter Check; §14.3 "If the result is
    > Morale/Training value, the on-board asset is marked Ops Complete. No attack takes place."
    The Spotter is never marked; with the check passed, the Strike goes on."""
    given = {"units": {"A": {"side": "nato", "name": "81MM MRTR", "arty_type": "mrtr", "caliber_mm": 81,
                             "abilities": ["indirect_fire"], "he": {"fp": 2, "to_hit": 4, "range": 10}, "los": False,
                             "status": {"disrupted": False, "ops_complete": False}},
                       "S": {"side": "nato", "name": "Scouts", "target_type": "troops", "morale": 7, "los": True},
                       "T": {"side": "pact", "target_type": "troops", "steps": 2, "strength": "full", "hex": "x"}},
             "hexes": [{"id": "x", "terrain": "clear", "terrain_db": 0, "distance": 5}],
             "query": {"action": "indirect_fire", "unit": "A", "target": "x", "spotter": "S", "mission": {"type": "he"}}}
    result, after = waw85(given, {"2d6": [8]})
    assert (result.values["legal"], result.values["reason_rule"], result.values["passed"]) == (False, "14.3", False)
    assert ("WaW85 §14.3", "Scouts failed its Spotter Check: no attack takes place") in reasons(result)
    assert after.units["A"].status.ops_complete and not after.units["S"].status.ops_complete
    assert [label for label, _ in result.rolls] == ["2d6"]
    result, _ = waw85(given, {"d6": [2], "attack": [4, 1], "save": []})
    assert result.values["legal"] is True          # legal if the check passes; its roll is not given
    assert result.gaps["units"] == "not stated: dice.2d6 (the Spotter Check of S, WaW85 §14.3, §14.5)"
    result, after = waw85(given, {"2d6": [7], "d6": [2], "attack": [4, 1], "save": []})
    assert result.values["legal"] is True and result.values["passed"] is True
    assert [label for label, _ in result.rolls] == ["2d6", "d6", "attack"]
    assert after.units["T"].status.disrupted and not after.units["S"].status.ops_complete


@pytest.mark.parametrize("kind, section", [("hq", "WaW85 §1.9.11"), ("leader", "WaW85 §1.9.13")])
def test_an_hq_or_leader_has_no_firepower_of_its_own(kind: str, section: str) -> None:
    """§1.9.11, §1.9.13: an HQ prints a Command Bonus, a Leader a Command Bonus and a
    Morale/Training value; neither fires, it adds dice to its unit (§10.6.2). The refusal
    names the rule and writes nothing."""
    given = {"units": {"A": {"side": "nato", "target_type": kind, "leadership": 1,
                             "status": {"disrupted": False, "ops_complete": False}},
                       "T": {"side": "pact", "target_type": "troops", "distance": 2, "los": True}},
             "query": {"action": "direct_fire", "unit": "A", "target": "T", "weapon": "he"}}
    result, _ = waw85(given)
    assert result.legal is False
    assert any(s == section for s, _ in reasons(result))
    assert result.events == []


@pytest.mark.parametrize("status", ["disrupted", "ops_complete"])
def test_an_opportunity_fire_refusal_names_section_10_11(status: str) -> None:
    """§10.11: "Units that are marked as being Ops Complete or Disrupted may not use
    Opportunity Fire" (Direct Fire's own refusal is §10.0)."""
    base = {"units": {"A": {"side": "nato", "ap": {"fp": 3, "to_hit": 4, "range": 6, "color": "black"},
                            "status": {"disrupted": False, "ops_complete": False, status: True}},
                      "T": {"side": "pact", "target_type": "heavy_armor", "armor": 2, "save": 5, "distance": 3,
                            "los": True, "status": {"moving": True}}},
            "query": {"action": "opportunity_fire", "unit": "A", "target": "T", "weapon": "ap"}}
    result, _ = waw85(base)
    assert result.legal is False and result.events == []
    assert ("WaW85 §10.11" in [s for s, _ in reasons(result)])
    base["query"]["action"] = "direct_fire"
    result, _ = waw85(base)
    assert "WaW85 §10.0" in [s for s, _ in reasons(result)]
def test_a_disrupted_counterattack_keeps_its_hq_dice() -> None:
    """§13.0 fixes a Disrupted defender's To-Hit at 6, and §13.1.1 still adds its HQ's
    Command Bonus to its Assault FP dice: 2 + 1 dice at 6 against the rolls 6, 5, 6."""
    given = {"units": {"A": {"target_type": "troops", "assault": {"fp": 3, "to_hit": 4}, "hex": "a",
                             "steps": 2, "strength": "full"},
                       "T": {"target_type": "troops", "assault": {"fp": 2, "to_hit": 4}, "hex": "t",
                             "steps": 2, "strength": "full", "status": {"disrupted": True}},
                       "H": {"target_type": "hq", "leadership": 1, "attached_to": "T", "hex": "t"}},
             "hexes": [{"id": "t", "terrain": "clear"}],
             "query": {"action": "assault", "unit": "A", "target": "T"}}
    result, after = waw85(given, {"attack": [1, 1, 1], "counter": [6, 5, 6]})
    assert (result.unit_values["T"]["fp"], result.unit_values["T"]["to_hit"]) == (3, 6)
    assert result.unit_values["A"]["hits"] == 2
    assert ("WaW85 §13.1.1", "H Command Bonus: Assault FP +1") in reasons(result)
    assert ("WaW85 §13.0", "T is Disrupted: counterattacks at To-Hit 6") in reasons(result)
    assert after.units["A"].hex == "a" and after.units["A"].strength == "reduced"


def test_an_improved_position_ignores_the_first_chemical_hit() -> None:
    """§16.1 against a Chemical Strike's unsaved hits (§14.12): 2d6 9 over Morale 6, two hits,
    one ignored; the hits and net hits say so."""
    given = {"units": {"A": {"target_type": "troops", "morale": 6, "steps": 2, "strength": "full", "hex": "t"}},
             "hexes": [{"id": "t", "terrain": "clear", "markers": ["improved_position"]}],
             "query": {"action": "chemical_attack", "unit": "A"}}
    result, after = waw85(given, {"2d6": [9]})
    assert (result.values["hits"], result.values["net_hits"]) == (2, 1)
    assert after.units["A"].status.disrupted is True and after.units["A"].strength == "full"


def test_a_mine_plow_on_light_armor_breaches_nothing() -> None:
    """§16.3.1 "Heavy Armor with a Mine Plow SW": the refusal names the rule and writes nothing."""
    given = {"units": {"A": {"name": "M-113", "target_type": "light_armor", "morale": 7, "mp": 6, "hex": "a",
                             "status": {"mp_spent": 0}},
                       "SW": {"target_type": "support_weapon", "abilities": ["mine_plow"], "attached_to": "A",
                              "hex": "a"}},
             "hexes": [{"id": "m", "markers": ["minefield_random"], "distance": 1}],
             "query": {"action": "minefield_breach", "unit": "A", "target": "m"}}
    result, after = waw85(given, {"2d6": [5]})
    assert result.legal is False and result.events == []
    assert any(r[0] == "WaW85 §16.3.1" and "not Heavy Armor" in r[1] for r in reasons(result))
    assert "minefield_random" in after.hexes["m"].markers


def test_an_on_board_unit_with_its_own_line_fires_direct_fire() -> None:
    """§14.1: with a clear LOS to its target an Indirect Fire unit uses Direct Fire; §12.0:
    without one it needs a Spotter."""
    base = {"units": {"A": {"name": "81MM MRTR", "arty_type": "mrtr", "caliber_mm": 81,
                            "abilities": ["indirect_fire"], "he": {"fp": 3, "to_hit": 4, "range": 6}}},
            "hexes": [{"id": "x", "distance": 5}],
            "query": {"action": "indirect_fire", "unit": "A", "target": "x", "mission": {"type": "he"}}}
    seeing = replace_unit(base, los=True)
    result, _ = waw85(seeing, {"d6": [1]})
    assert result.legal is False and result.values["reason_rule"] == "14.1" and result.events == []
    blind = replace_unit(base, los=False)
    result, _ = waw85(blind, {"d6": [1]})
    assert result.legal is False and result.values["reason_rule"] == "12.0" and result.events == []


def replace_unit(given: dict, **fields) -> dict:
    units = dict(given["units"])
    units["A"] = {**units["A"], **fields}
    return {**given, "units": units}


def test_an_assault_into_a_minefield_rolls_for_each_attacker_first() -> None:
    """§16.2: each attacker entering the mined hex rolls 1d6, then the §16.2.2 depletion roll;
    the hit one falls back Ops Complete and the other assaults alone (§13.0, §13.2.1). The
    answer's hits are the Assault's."""
    given = {"units": {"A": {"side": "nato", "target_type": "troops", "assault": {"fp": 3, "to_hit": 4},
                             "hex": "a", "steps": 2, "strength": "full"},
                       "A2": {"side": "nato", "target_type": "troops", "assault": {"fp": 2, "to_hit": 4},
                              "hex": "a", "steps": 2, "strength": "full"},
                       "T": {"side": "pact", "target_type": "troops", "assault": {"fp": 2, "to_hit": 4},
                             "hex": "t", "steps": 2, "strength": "full"}},
             "hexes": [{"id": "t", "terrain": "clear", "markers": ["minefield_random"]}],
             "query": {"action": "assault", "unit": ["A", "A2"], "target": "T"}}
    result, after = waw85(given, {"d6": [5, 1, 1, 1], "attack": [4, 4], "counter": [1, 1]})
    assert ("WaW85 §16.2", "A: 1d6 5, 1 hit(s), no saves") in reasons(result)
    assert ("WaW85 §16.2", "A2: 1d6 1, 0 hit(s), no saves") in reasons(result)
    assert (result.values["hits"], result.values["net_hits"]) == (2, 2)
    assert after.units["A"].hex == "a" and after.units["A"].status.disrupted is True
    assert after.units["A"].status.ops_complete is True
    assert after.units["A2"].hex == "t" and after.units["T"].strength == "reduced"
    assert "minefield_random" in after.hex("t").markers


def test_contributing_units_are_ops_complete_with_the_aa_firer() -> None:
    """§16.7.3: eligible units "may contribute their fire" to the Anti-Aircraft attack on a
    landing stack; §16.7.4: "the Anti-Aircraft firing units are marked with Ops Complete
    markers" - the contributor too, while an ineligible (Disrupted) one adds nothing and is
    not marked."""
    given = {"units": {
        "A": {"side": "pact", "target_type": "troops", "he": {"fp": 3, "to_hit": 4, "range": 6, "color": "blue"},
              "status": {"disrupted": False, "ops_complete": False}},
        "B1": {"side": "pact", "target_type": "troops", "he": {"fp": 2, "to_hit": 4, "range": 4},
               "distance": 3, "los": True, "status": {"disrupted": False, "ops_complete": False}},
        "B2": {"side": "pact", "target_type": "troops", "he": {"fp": 2, "to_hit": 4, "range": 4},
               "distance": 3, "los": True, "status": {"disrupted": True, "ops_complete": False}},
        "P": {"side": "nato", "target_type": "troops", "steps": 2, "strength": "full", "distance": 4, "los": True,
              "status": {"disrupted": False}}},
        "query": {"action": "aa_fire", "unit": "A", "target": "P", "weapon": "he", "supporting": ["B1", "B2"]}}
    result, after = answer("waw85", None, given, {"attack": [1, 1, 1, 1], "save": []})
    assert result.legal is True
    assert after.units["A"].status.ops_complete and after.units["B1"].status.ops_complete
    assert not after.units["B2"].status.ops_complete
    assert any(r[1] == "A and B1, firing with it, are marked Ops Complete" for r in reasons(result))


def test_only_units_that_could_make_the_aa_attack_contribute() -> None:
    """§4.2, §16.7.3: "Additional eligible enemy units ... may contribute their fire": not the
    firer itself, not a green AP value at a CAS counter (§1.9.1), and at landing parachute
    units only an HE value of a unit that is not missile-armed Anti-Aircraft; at a Helicopter
    no unit contributes (§10.6.1: Direct Fire by the one unit)."""
    sam = {"fp": 3, "to_hit": 4, "range": 8, "color": "blue", "range_color": "blue"}
    ready = {"disrupted": False, "ops_complete": False}

    def fp(target: dict, b1: dict | None, *, weapon: str = "aa", supporting: list[str] | None = None) -> int:
        units = {"A": {"side": "pact", "aa": sam, "he": {"fp": 3, "to_hit": 4, "range": 6, "color": "black"},
                       "hex": "a", "status": {**ready, "out_of_command": False}},
                 "X": {"side": "nato", "distance": 4 if target.get("target_type") == "troops" else 5, "los": True,
                       **target}}
        if b1 is not None:
            units["B1"] = {"side": "pact", "hex": "a", "los": True, "status": ready, **b1}
        result, _ = waw85({"units": units, "query": {"action": "aa_fire", "unit": "A", "target": "X",
                                                     "weapon": weapon, "supporting": supporting or ["B1"]}})
        assert result.legal is True
        return result.values["fp"]

    cas = {"target_type": "aircraft"}
    atgm = {"target_type": "light_armor", "ap": {"fp": 2, "to_hit": 4, "range": 10, "color": "green"}}
    tank = {"target_type": "heavy_armor", "ap": {"fp": 3, "to_hit": 4, "range": 6, "color": "black"}}
    rifles = {"target_type": "troops", "he": {"fp": 2, "to_hit": 4, "range": 4, "color": "black"}}
    assert (fp(cas, atgm), fp(cas, tank), fp(cas, None, supporting=["A"])) == (3, 4, 3)
    parachutes = {"target_type": "troops"}
    assert fp(parachutes, {"aa": sam}, weapon="he") == 1
    assert fp(parachutes, tank, weapon="he") == 1
    assert fp(parachutes, rifles, weapon="he") == 2
    helicopter = {"target_type": "helicopter", "mode": "flying", "status": {"moving": True}}
    assert fp(helicopter, {"aa": sam}) == 3


def test_a_firer_stated_not_to_see_its_target_does_not_fire() -> None:
    """§10.2 "A unit must have a clear LOS to fire at a target"; a firer's own ``los`` says
    whether it sees the target (the cases' format): stated false on the firer alone, the
    Direct Fire is refused; stated on the target, the target's word counts."""
    firer = {"side": "nato", "target_type": "heavy_armor", "ap": {"fp": 4, "to_hit": 4, "range": 8},
             "status": {"disrupted": False, "ops_complete": False, "out_of_command": False}}
    target = {"side": "pact", "target_type": "heavy_armor", "armor": 3, "distance": 4}
    query = {"action": "direct_fire", "unit": "A", "target": "T", "weapon": "ap"}
    blind, _ = waw85({"units": {"A": {**firer, "los": False}, "T": target}, "query": query})
    assert (blind.values["legal"], blind.values["reason_rule"]) == (False, "10.2")
    assert ("WaW85 §10.2", "no LOS to T") in reasons(blind)
    seen, _ = waw85({"units": {"A": {**firer, "los": False}, "T": {**target, "los": True}}, "query": query})
    assert ("WaW85 §10.2", "no LOS to T") not in reasons(seen)


@pytest.mark.parametrize("range_colour, distance, band, to_hit, max_range", [
    ("white", 2, "point_blank", 3, 16), ("white", 12, "long", 5, 16),
    ("blue", 2, "effective", 4, 8), ("blue", 8, "effective", 4, 8)])
def test_only_a_white_range_has_point_blank_and_long_range(range_colour: str, distance: int, band: str,
                                                           to_hit: int, max_range: int) -> None:
    """§1.9.4: a WHITE Range "receives a bonus to its To-Hit number ... using the rules for
    Point Blank Fire" and "can fire up to twice its effective range using the rules for Long
    Range Fire"; a blue Range (a missile Anti-Aircraft weapon, §1.9.1) has neither."""
    given = {"units": {"A": {"side": "pact", "ap": {"fp": 3, "to_hit": 4, "range": 8, "color": "blue",
                                                    "range_color": range_colour}},
                       "T": {"side": "nato", "target_type": "helicopter", "mode": "hovering", "distance": distance}},
             "query": {"action": "direct_fire", "unit": "A", "target": "T", "weapon": "ap"}}
    result, _ = waw85(given)
    assert (result.values["band"], result.values["to_hit"], result.values["max_range"]) == (band, to_hit, max_range)
    if range_colour == "blue":
        assert ("WaW85 §1.9.4", "a blue Range: no Point Blank bonus and no Long Range Fire (only a WHITE Range "
                "has them)") in reasons(result)


def test_a_blue_range_beyond_its_printed_range_is_refused() -> None:
    """§1.9.4: Long Range Fire is a WHITE Range's; a blue Range reaches its printed range only,
    and a stated Long Range band is refused."""
    unit = {"side": "pact", "ap": {"fp": 3, "to_hit": 4, "range": 8, "color": "blue", "range_color": "blue"}}
    given = {"units": {"A": unit, "T": {"side": "nato", "target_type": "helicopter", "mode": "flying", "distance": 9}},
             "query": {"action": "direct_fire", "unit": "A", "target": "T", "weapon": "ap"}}
    result, _ = waw85(given)
    assert (result.values["legal"], result.values["band"]) == (False, "out_of_range")
    given = {"units": {"A": unit, "T": {"side": "nato", "target_type": "helicopter", "mode": "flying"}},
             "situation": {"range_band": "long"},
             "query": {"action": "direct_fire", "unit": "A", "target": "T", "weapon": "ap"}}
    result, _ = waw85(given)
    assert (result.values["legal"], result.values["reason_rule"]) == (False, "1.9.4")


def test_a_third_units_stated_distance_is_not_its_distance_to_the_target() -> None:
    """§10.6.13 "Not within 5 hexes of an enemy Recon unit": the distance is the Recon unit's
    to the target. A third unit's stated distance is measured from the firer (the reference
    unit), so it does not say it: not stated, never read as the distance to the target."""
    given = {"units": {"A": {"side": "nato", "ap": {"fp": 3, "to_hit": 4, "range": 8, "color": "black"}},
                       "R": {"side": "nato", "abilities": ["recon"], "distance": 2},
                       "T": {"side": "pact", "target_type": "light_armor", "armor": 1, "save": 5, "hex": "t",
                             "distance": 6, "status": {"moving": False, "ops_complete": False}}},
             "hexes": [{"id": "t", "terrain_db": 1, "adjacent_to_enemy": False}],
             "query": {"action": "concealment", "unit": "A", "target": "T"}}
    result, _ = waw85(given)
    assert "concealed" not in result.values
    assert any("units.R" in text for text in result.gaps.values())


@pytest.mark.parametrize("hq, why", [
    ({"formation": "F", "hex": "b"}, "HQ is not stacked with A: no Command Bonus"),
    ({"formation": "G", "hex": "a"}, "HQ is not an HQ of A's Formation: no Command Bonus")])
def test_a_command_bonus_comes_from_an_hq_of_the_formation_stacked_with_the_unit(hq: dict, why: str) -> None:
    """§1.9.11: "HQs can be deployed to (stacked with) a unit of their Formation"; an HQ in
    another hex, or of another Formation, adds no dice (§10.6.2)."""
    given = {"units": {"A": {"name": "A", "side": "nato", "formation": "F", "hex": "a",
                             "ap": {"fp": 3, "to_hit": 4, "range": 8, "color": "black"}},
                       "T": {"side": "pact", "target_type": "heavy_armor", "armor": 3, "save": 5, "distance": 6},
                       "H": {"name": "HQ", "side": "nato", "target_type": "hq", "leadership": 2, **hq}},
             "query": {"action": "direct_fire", "unit": "A", "target": "T", "weapon": "ap", "bonus_from": ["H"]}}
    result, _ = waw85(given)
    assert result.values["fp"] == 3
    assert ("WaW85 §1.9.11", why) in reasons(result)


def _strike_on_x(mission: dict, **target) -> dict:
    return {"units": {"S": {"side": "nato", "target_type": "hq", "los": True},
                      "T": {"side": "pact", "target_type": "troops", "steps": 2, "strength": "full", "hex": "x",
                            "morale": 7, **target},
                      "U": {"side": "pact", "target_type": "troops", "steps": 2, "strength": "full", "hex": "y"}},
            "hexes": [{"id": "x", "terrain": "clear", "terrain_db": 0, "distance": 8},
                      {"id": "y", "terrain": "clear", "terrain_db": 0}],
            "situation": {"strikes_left": 2},
            "query": {"action": "indirect_fire", "target": "x", "spotter": "S", "mission": mission}}


def test_a_strike_scattered_off_an_unplaced_hex_spares_the_hex_aimed_at() -> None:
    """§14.5 "the resolution of the Strike proceeds against the units in its new location": one
    hex north of a hex without a map position, the HE Strike attacks nobody in the hex aimed at,
    is used up (§14.7.2), and the other hex's units and the totals are gaps, not zeros."""
    result, after = waw85(_strike_on_x({"type": "he", "fp": 3, "to_hit": 4}), {"d6": [6, 1, 2], "attack": [6, 6, 6]})
    assert result.values["scatter"] == ["N"] and result.values["situation"] == {"strikes_left": 1}
    assert not [e for e in result.events if getattr(e, "unit", None) in ("T", "U")]
    assert {"hits", "net_hits", "units.U", "hexes.y"} <= set(result.gaps) and "units.T" not in result.gaps
    assert ("WaW85 §14.5", "x is 1 hex(es) from the Strike's hex: outside the area it attacks") in reasons(result)


def test_two_opposite_scatters_land_back_on_the_hex_aimed_at() -> None:
    """§14.5: north, then (second roll 4) south again is the hex aimed at, map or no map."""
    result, after = waw85(_strike_on_x({"type": "he", "fp": 3, "to_hit": 4}),
                          {"d6": [6, 1, 4, 4], "attack": [4, 3, 1], "save": []})
    assert result.values["scatter"] == ["N", "S"] and result.values["hits"] == 1
    assert after.units["T"].status.disrupted is True and not result.gaps
    assert ("WaW85 §14.5", "the FFE marker scatters N then S: back on x") in reasons(result)


@pytest.mark.parametrize("scatter, attacked", [([6, 1, 2], True), ([6, 1, 5, 3], True), ([6, 1, 4, 1], False)],
                         ids=["one-hex", "north-then-south-east", "two-hexes"])
def test_a_scattered_chemical_strike_reaches_the_hex_aimed_at_from_one_hex(scatter: list[int], attacked: bool) -> None:
    """§14.12 "all units in the hex it is in and the six adjacent hexes": landing one hex away
    (N, or N then SE) the hex aimed at is one of the six and its unit rolls (2d6 8 over 7: 2 hits);
    two hexes away it is outside. No Chemical marker goes in the hex aimed at."""
    result, after = waw85(_strike_on_x({"type": "chemical"}), {"d6": scatter, "2d6": [8]})
    assert (after.units["T"].strength == "reduced") is attacked
    assert "chemical" not in after.hexes["x"].markers
    assert result.values["situation"] == {"strikes_left": 1}


def test_a_scattered_adm_strikes_further_markers_leave_the_hex_aimed_at_open() -> None:
    """§14.10: the further Minefield-Random markers go next to the hex the Strike landed in, which
    may be the hex aimed at; without map positions its unit's fate is a gap, not "none"."""
    given = _strike_on_x({"type": "adm"})
    given["query"] = {**given["query"], "choice": ["y"]}
    given["hexes"] = [given["hexes"][0], {**given["hexes"][1], "adjacent_to": ["x"]}]
    result, _ = waw85(given, {"d6": [6, 1, 2, 5]})
    assert {"units.T", "units.U", "hexes"} <= set(result.gaps)
    assert not [e for e in result.events if getattr(e, "unit", None) in ("T", "U")]


@pytest.mark.parametrize("sides, supported", [
    ([{"los": "none", "markers": ["smoke"]}], True),
    ([{"los": "none", "markers": ["smoke"]}, {"los": "none", "markers": ["smoke"]}], False),
    ([{"los": "blocking"}, {"los": "none", "markers": ["smoke"]}], False),
    ([{"los": "blocking"}, {"los": "blocking"}, {"los": "none", "markers": ["smoke"]}], True)],
    ids=["one-smoke-side", "two-smoke-sides", "blocking-and-smoke", "two-blocking-anyway"])
def test_a_line_along_smoke_hexsides_is_not_judged(sides: list, supported: bool) -> None:
    """§14.8 blocks a LOS into or through Smoke; §10.2.2 one along two or more blocking hexsides.
    Along the edges of Smoke hexes the book does not say: "not supported", unless one hexside
    (never blocking) or two blocking ones settle it."""
    given = {"units": {"A": {"level": 0}, "T": {"level": 0, "distance": 4}},
             "situation": {"along_hexsides": sides}, "query": {"action": "los", "unit": "A", "target": "T"}}
    result, _ = waw85(given)
    if supported:
        assert "blocked" in result.values and not result.gaps
    else:
        assert "blocked" not in result.values
        assert any(g.startswith("not supported: WaW85 §14.8") for g in result.gaps.values())


def test_an_atgm_at_a_target_in_a_hill_woods_hex_is_not_judged() -> None:
    """§10.6.12's list (City, Town, Woods, Light Woods, Light Jungle, Jungle) has no Hill-Woods hex,
    which §10.2.3 names as terrain of its own: "not supported", never a silent zero."""
    given = {"units": {"A": {"side": "nato", "ap": {"fp": 3, "to_hit": 4, "range": 8, "color": "green"}},
                       "T": {"side": "pact", "target_type": "soft_vehicle", "hex": "t", "status": {"concealed": False}}},
             "hexes": [{"id": "t", "terrain": "wooded_hill", "terrain_db": 1}],
             "query": {"action": "defense", "unit": "A", "target": "T", "weapon": "ap"}}
    result, _ = waw85(given)
    assert "db_dice" not in result.values
    assert any(g.startswith("not supported: WaW85 §10.6.12") for g in result.gaps.values())
    woods = {**given, "hexes": [{"id": "t", "terrain": "woods", "terrain_db": 1}]}
    assert waw85(woods)[0].values["db_dice"] == 2
def test_a_cas_attack_can_rubble_or_ignite_its_target_hex() -> None:
    """§4.3 resolves a CAS attack by "the Direct Fire procedures", so §10.9's Rubble and Fire
    roll follows 3 net hits in Woods; a Fire drives out the units still in the hex: not the
    unit the attack eliminated, nor the CAS counter over it (an aircraft, §4.4)."""
    given = {"units": {"C": {"side": "nato", "target_type": "aircraft", "hex": "x", "he": {"fp": 4, "to_hit": 4}},
                       "T": {"side": "pact", "target_type": "troops", "steps": 2, "strength": "full", "hex": "x",
                             "status": {"disrupted": False, "concealed": False}}},
             "hexes": [{"id": "x", "terrain": "woods", "terrain_db": 1, "markers": []}],
             "query": {"action": "cas_attack", "unit": "C", "target": "T", "weapon": "he"}}
    result, after = waw85(given, {"attack": [4, 5, 6, 1], "save": [2], "d6": [5]})
    assert result.gaps == {} and result.values["net_hits"] == 3
    assert "fire" in after.hex("x").markers
    assert after.units["T"].location == "eliminated"
    assert (after.units["C"].location, after.units["C"].hex) == ("map", "x")
    assert ("WaW85 §10.9", "3 net hits in woods x: roll for Rubble and Fire") in reasons(result)


def test_opportunity_fire_comes_before_the_fire_of_a_move_and_fire() -> None:
    """§10.11: "When an activated unit moves in the LOS of an eligible inactive unit, the
    Opportunity Fire is declared and movement stops until the attack is resolved"; §11.0 the
    Move & Fire unit fires after its move. Eligible: not Ops Complete nor Disrupted (Out of
    Command may), a Firepower that affects the mover within its reach, once per hex."""
    ready = {"disrupted": False, "ops_complete": False, "out_of_command": False}
    black = {"fp": 3, "to_hit": 4, "range": 6, "color": "black", "range_color": "white"}

    def order(enemy: dict | None, *, target: dict | None = None, situation: dict | None = None):
        units = {"M": {"side": "nato", "target_type": "heavy_armor", "mp": 6, "hex": "m",
                       "ap": {"fp": 4, "to_hit": 4, "range": 8, "color": "orange", "range_color": "white"},
                       "status": {**ready, "moving": True, "mp_spent": 2}},
                 "T": {"side": "pact", "target_type": "heavy_armor", "armor": 3, "save": 5, "distance": 5, "los": True,
                       "ap": black, "status": {**ready, "ops_complete": True}, **(target or {})}}
        if enemy is not None:
            units["E"] = {"side": "pact", "target_type": "heavy_armor", "ap": black, "distance": 1,
                          "status": ready, **enemy}
        result, _ = waw85({"units": units, "hexes": [{"id": "m", "terrain": "clear"}], "situation": situation or {},
                           "query": {"action": "move_and_fire", "unit": "M", "target": "T", "weapon": "ap"}})
        return result.values.get("order"), result.gaps.get("order")

    first, alone = ["opportunity_fire", "move_and_fire"], ["move_and_fire"]
    assert order({}) == (first, None)
    assert order({"status": {**ready, "out_of_command": True}}) == (first, None)
    assert order({"status": {**ready, "ops_complete": True}}) == (alone, None)
    assert order({}, situation={"opfire_count": 1}) == (alone, None)
    assert order(None, target={"status": ready}) == (first, None)
    assert order(None, target={"status": ready, "distance": 13}) == (alone, None)
    # a unit at a distance whose LOS to the mover is not stated (its ``los`` is for the target)
    unknown = order({"distance": 4})
    assert unknown[0] is None and unknown[1].startswith("not stated: units.E LOS to and range of the mover M")
    helicopter, _ = waw85({"units": {"M": {"side": "nato", "target_type": "helicopter", "mode": "flying", "hex": "m",
                                           "ap": black, "status": {**ready, "mp_spent": 2}},
                                     "T": {"side": "pact", "target_type": "heavy_armor", "distance": 5, "los": True}},
                           "query": {"action": "move_and_fire", "unit": "M", "target": "T", "weapon": "ap"}})
    assert helicopter.gaps["order"].startswith("not supported: WaW85 §10.11")


def _on_board_strike_on_a_map(landing_unit_hex: str) -> tuple:
    """An 81mm mortar in m (HE range 4) fires an On-Board HE Strike at x, four hexes north-east
    along a column of placed hexes; y is one hex north of x (five from the mortar), w one hex
    south of x (three from it)."""
    from referee.cases import CaseDice, build_action, build_game
    from referee.hexes import Hex
    from referee.rulesets import get_ruleset
    given = {"units": {"A": {"side": "nato", "name": "81MM MRTR", "target_type": "troops", "arty_type": "mrtr",
                             "caliber_mm": 81, "abilities": ["indirect_fire"], "hex": "m", "los": False,
                             "he": {"fp": 3, "to_hit": 4, "range": 4},
                             "status": {"disrupted": False, "ops_complete": False}},
                       "S": {"side": "nato", "target_type": "hq", "los": True},
                       "T": {"side": "pact", "target_type": "troops", "steps": 2, "strength": "full",
                             "hex": landing_unit_hex, "status": {"disrupted": False, "concealed": False}}},
             "hexes": [{"id": h, "terrain": "clear", "terrain_db": 0} for h in ("m", "w", "x", "y")],
             "query": {"action": "indirect_fire", "unit": "A", "target": "x", "spotter": "S",
                       "mission": {"type": "he"}}}
    game = build_game(given)
    for hex_id, row in (("m", 0), ("w", -3), ("x", -4), ("y", -5)):    # N is r - 1 (flat-topped, q fixed)
        game = game.with_hex(replace(game.hexes[hex_id], at=Hex(0, row)))
    return get_ruleset("waw85", None), game, build_action(given["query"]), CaseDice


def test_a_scattered_on_board_strike_takes_the_to_hit_of_the_hex_it_lands_in() -> None:
    """§14.5: the Strike that scattered "proceeds against the units in its new location": aimed
    at x (range 4, Effective: To-Hit 4), it lands one hex north in y, at range 5 (Long Range,
    §10.6.5: To-Hit 5); back the other way, from a Long Range hex to one within the printed range,
    the penalty goes."""
    rules, game, action, dice = _on_board_strike_on_a_map("y")
    result = rules.resolve(game, action, dice({"d6": [6, 1, 2], "attack": [5, 4, 4], "save": []}))
    assert result.values["scatter"] == ["N"]
    assert (result.values["to_hit"], result.values["hits"]) == (5, 1)
    assert ("WaW85 §14.5", "Long Range to y, the hex the Strike scattered to: to_hit +1") in reasons(result)
    rules, game, action, dice = _on_board_strike_on_a_map("x")
    result = rules.resolve(game, action, dice({"d6": [3], "attack": [5, 4, 4], "save": []}))
    assert (result.values["to_hit"], result.values["hits"]) == (4, 3)
    aimed_far = action.__class__(**{**action.__dict__, "target": "y"})
    rules, game, _, dice = _on_board_strike_on_a_map("x")
    result = rules.resolve(game, aimed_far, dice({"d6": [6, 4, 2], "attack": [5, 4, 4], "save": []}))
    assert result.values["scatter"] == ["S"]
    assert (result.values["to_hit"], result.values["hits"]) == (4, 3)
    assert ("WaW85 §14.5", "x, the hex the Strike scattered to, is within the printed range: no Long Range "
            "penalty: to_hit -1") in reasons(result)


def _cas_over_x(target: dict) -> dict:
    return {"units": {"C": {"name": "CAS", "side": "nato", "target_type": "aircraft", "hex": "x", "location": "map",
                            "he": {"fp": 4, "to_hit": 4}, "ap": {"fp": 3, "to_hit": 5}},
                      "T": {"name": "T", "side": "pact", "steps": 2, "strength": "full", "hex": "x",
                            "status": {"disrupted": False, "ops_complete": False, "concealed": False}, **target}},
            "hexes": [{"id": "x", "terrain": "clear", "terrain_db": 0}]}


def test_a_cas_counter_and_a_unit_in_its_hex_are_one_hex_apart() -> None:
    """§4.1: the CAS counter is at the height of a Flying Helicopter; §9.7.1: AA Fire from ground
    units in its hex, and its fire at them, "is considered to be at a range of one hex"."""
    given = _cas_over_x({"target_type": "troops", "distance": 0})
    result, _ = waw85({**given, "query": {"action": "cas_attack", "unit": "C", "target": "T"}})
    assert (result.legal, result.values["range"], result.values["weapon"]) == (True, 1, "he")
    assert ("WaW85 §9.7.1", "T is in the CAS counter's hex: a range of one hex") in reasons(result)
    given = _cas_over_x({"target_type": "troops", "los": True, "he": {"fp": 2, "to_hit": 5, "range": 3,
                                                                     "color": "blue"}})
    given["units"]["C"]["distance"] = 0
    result, _ = waw85({**given, "query": {"action": "aa_fire", "unit": "T", "target": "C", "weapon": "he"}})
    assert (result.legal, result.values["range"], result.values["band"]) == (True, 1, "point_blank")
    assert ("WaW85 §4.1, §9.7.1", "a CAS counter is at the height of a Flying Helicopter: fire between it and a "
            "unit in its hex is at a range of one hex") in reasons(result)


def test_a_cas_attack_at_light_armor_is_legal_with_either_firepower() -> None:
    """§4.3 "The CAS may use either type of FP dice (AP or HE)"; §10.1 "If both AP or HE
    Firepower may affect the target, you get to choose which to use": legal, the numbers wait
    for the player's choice."""
    given = _cas_over_x({"target_type": "light_armor", "armor": 1, "save": 5})
    result, _ = waw85({**given, "query": {"action": "cas_attack", "unit": "C", "target": "T"}},
                      {"attack": [6, 6, 6, 6], "save": [1]})
    assert result.legal is True
    assert set(result.gaps) == {"to_hit", "fp", "hits"}
    assert result.gaps["hits"] == "not stated: query.weapon (which Firepower fires: ap or he)"
    assert ("WaW85 §4.3", "both the AP and HE FP of CAS may affect T: the player chooses") in reasons(result)


def test_no_more_than_two_units_contribute_to_aa_fire_at_a_cas_counter() -> None:
    """§4.2: "one FP dice for each contributing unit to a maximum of +2 FP dice": a third unit
    adds no die, so it does not contribute its fire and is not marked Ops Complete."""
    ready = {"side": "pact", "los": True, "status": {"disrupted": False, "ops_complete": False}}
    given = {"units": {"A": {**ready, "aa": {"fp": 3, "to_hit": 5, "range": 4}},
                       "C": {"side": "nato", "target_type": "aircraft", "location": "map", "distance": 3},
                       "B1": dict(ready, name="B1"), "B2": dict(ready, name="B2"), "B3": dict(ready, name="B3")},
             "query": {"action": "aa_fire", "unit": "A", "target": "C", "weapon": "aa",
                       "supporting": ["B1", "B2", "B3"]}}
    result, after = waw85(given)
    assert result.values["fp"] == 5
    assert [k for k in ("A", "B1", "B2", "B3") if after.units[k].status.ops_complete] == ["A", "B1", "B2"]
    assert ("WaW85 §4.2", "B3: two units already contribute, the maximum of +2 FP dice; it does not "
            "contribute") in reasons(result)
