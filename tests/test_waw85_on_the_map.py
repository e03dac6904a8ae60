"""World At War 85 on a mapped board: the Terrain Effects Chart a profile transcribes
(``tec_file``, WaW85 PAC03 is not in the rulebook text) and the LOS of §10.2 traced on the map.

The sample board (samples/terrain.yaml) with samples/tec-waw85.yaml: H4, H5, I4 are City
(blocking, obstacle height 1), F6 Woods, J6/K5... Hill at elevation 1.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from converter.actions_text import parse
from converter.resolve import read_position, resolve_actions, ruleset_named
from converter.terrain import TecRow, read_tec
from referee.dice import GivenDice

SAMPLES = Path(__file__).resolve().parents[1] / "samples"
#: The book a bare section cited here belongs to (tests/test_rules_coverage.py).
RULEBOOKS = ("WaW85",)


@pytest.fixture(scope="module")
def game():
    return read_position(SAMPLES / "demo.vsav", SAMPLES / "waw-sample.vmod", SAMPLES / "profile-waw85.yaml").game


@pytest.fixture(scope="module")
def hq_at_j4(game):
    """The sample position with the Soviet HQ deployed to J4, two hexes beyond the City H5
    from the Leopard C1's B7 line (§7.2.2 deploys an HQ only to a hex of its Formation; the
    LOS and spotting rules asked here do not turn on that)."""
    from referee.events import UnitMoved, apply
    return apply(game, UnitMoved("soviet-hq", "J4"))


def run(game, text: str, dice: list[int]):
    return resolve_actions(game, [parse(text)], ruleset_named("waw85"), GivenDice(dice))


def test_the_chart_is_read_row_by_row() -> None:
    chart = read_tec(SAMPLES / "tec-waw85.yaml")
    assert chart["city"] == TecRow({"infantry": 3, "vehicle": 2}, "blocking", 1, 0, {"infantry": 1, "vehicle": 1})
    assert sorted(chart) == ["city", "clear", "cleared", "hexsides", "hill", "roads", "rough", "rubble", "woods"]
    assert chart["roads"] == {"road": {"infantry": 1, "vehicle": 1}}
    assert chart["hexsides"] == {"stream": {"infantry": 1, "vehicle": 2}, "up_hill": {"infantry": 1, "vehicle": 1}}


def test_each_hex_carries_its_chart_row_above_its_elevation(game) -> None:
    """§10.2.1: obstacle and unit heights; §10.6.8: the Defensive Bonus by column."""
    woods, hill, clear = game.hexes["F6"], game.hexes["J6"], game.hexes["B7"]
    assert (woods.terrain_db, woods.los, woods.stated["obstacle_height"], woods.stated["unit_height"]) == (
        {"infantry": 2, "vehicle": 1}, "blocking", 1, 0)
    assert (hill.stated["obstacle_height"], hill.stated["unit_height"]) == (1, 1)     # level 1 + 0
    assert (clear.terrain_db, clear.los) == ({"infantry": 0, "vehicle": 0}, "none")


def test_a_city_hex_between_units_at_the_same_height_blocks(hq_at_j4) -> None:
    """§10.2.2: "If a LOS runs through a hex containing Blocking terrain, the LOS is blocked"."""
    outcome = run(hq_at_j4, "los soviet-hq leopard-c1", [])
    answer = outcome.steps[0].answer
    assert answer.values["blocked"] is True
    assert [(r.section, r.text) for r in answer.reasons] == [
        ("WaW85 §10.2.2", "a blocking hex (H5) between units at the same height")]


def test_fire_across_clear_hexes_sees_and_resolves_with_the_charts_bonus(game) -> None:
    """§10.2.2 clear line; §10.6.8 Woods 1 die for a vehicle; §10.6.13 concealed (+1): T-64 is
    in a hex with a Defensive Bonus, not adjacent to an enemy (its enemies are 4+ hexes away)."""
    outcome = run(game, "fire leopard-c1 t-64 ap", [4, 1, 5, 4, 1, 3, 4, 6, 6])
    answer = outcome.steps[0].answer
    assert [(r.section, r.text) for r in answer.reasons] == [
        ("WaW85 §10.2.2", "no blocking hex and 0 obscuring hex(es) between: LOS clear"),
        ("WaW85 §10.3", "range 4 = effective"),
        ("WaW85 §10.4", "Leopard C1 is marked Ops Complete"),
        ("WaW85 §10.6.13", "T-64 is concealed"),
        ("WaW85 §10.6.8", "T-64: DB 1 terrain + 1 concealed"),
        ("WaW85 §10.0", "4 dice at 4+: 3 hit(s)"),
        ("WaW85 §10.0", "5 defence dice at 5+: 2 save(s), 1 net hit(s)")]
    assert outcome.results() == [{"unit": "t-64", "result": "disrupted"}]


def test_fire_through_a_city_hex_is_refused_and_writes_nothing(game) -> None:
    """§10.2: "If the unit's LOS is blocked by terrain in a hex it passes through ... the attack
    may not take place"; US Infantry (B8) to Soviet Infantry (H4) also lies beyond range."""
    outcome = run(game, "fire us-infantry soviet-infantry he", [6] * 10)
    assert outcome.refused is not None and outcome.steps == []
    assert outcome.refused.reasons == [("WaW85 §10.2", "the LOS to Soviet Infantry is blocked"),
                                       ("WaW85 §10.3.4", "range 7 is beyond the maximum 6")]


def test_a_spotter_without_a_line_to_the_hex_cannot_call_the_strike(hq_at_j4) -> None:
    """§14.3: the Spotter needs a LOS to the intended target hex; the line from J4 to B7
    crosses the City hex H5."""
    outcome = run(hq_at_j4, "artillery soviet-hq B7 he fp=4 to_hit=5", [3] + [6] * 10)
    assert outcome.refused is not None
    assert outcome.refused.reasons == [("WaW85 §14.3", "Soviet HQ has no LOS to the target hex: "
                                        "a blocking hex (H5) between units at the same height")]


def test_a_spotter_with_a_line_calls_the_strike_on_target(game) -> None:
    """§14.3 the HQ spots and is not marked Ops Complete; §14.5 a 3 is on target; §14.7.2 an HE
    Strike gives an armored target no Armor dice, its Defensive Bonus capped at 2 (§10.6.14)."""
    outcome = run(game, "artillery us-hq F6 he fp=4 to_hit=5", [3, 5, 5, 2, 3, 5, 4])
    answer = outcome.steps[0].answer
    assert ("WaW85 §14.5", "on target") in [(r.section, r.text) for r in answer.reasons]
    assert ("WaW85 §14.7.2", "T-64: 2 hit(s), 1 save(s), 1 net") in [(r.section, r.text) for r in answer.reasons]
    assert outcome.results() == [{"unit": "F6", "result": "none"}, {"unit": "t-64", "result": "disrupted"}]


def test_a_spotter_does_not_see_into_a_smoke_hex_beyond_the_adjacent_ones(game) -> None:
    """§14.8: Smoke "blocks LOS for units at any elevation, whether that be into or through the
    screen"; "Units adjacent to a Smoke filled hex, however, have LOS into it ... for the
    purposes of both Direct Fire and Spotting": the US HQ, several hexes from F6, may not spot
    the T-64's hex once Smoke is in it."""
    from dataclasses import replace
    smoky = game.with_hex(replace(game.hexes["F6"], markers=game.hexes["F6"].markers | {"smoke"}))
    outcome = run(smoky, "artillery us-hq F6 he fp=4 to_hit=5", [3, 5, 5, 2, 3, 5, 4])
    assert outcome.refused is not None and outcome.steps == []
    assert outcome.refused.reasons == [("WaW85 §14.3", "US HQ has no LOS to the target hex: Smoke in F6 blocks the "
                                        "LOS into it from beyond the adjacent hexes")]


def test_a_scattered_strike_attacks_the_units_where_it_lands(game) -> None:
    """§14.5: a Scatter Check of 6, direction 1 (N), then 2: the FFE marker "remains where it is
    and the Strike is resolved"; "the resolution of the Strike proceeds against the units in its
    new location": aimed at F6, it lands in F5, where the T-64 now stands."""
    from referee.events import UnitMoved, apply
    moved = apply(game, UnitMoved("t-64", "F5"))
    outcome = run(moved, "artillery us-hq F6 he fp=2 to_hit=5", [6, 1, 2, 5, 5, 1])
    answer = outcome.steps[0].answer
    assert answer.values["scatter"] == ["N"]
    assert ("WaW85 §14.5", "the FFE marker scatters to F5") in [(r.section, r.text) for r in answer.reasons]
    assert ("WaW85 §14.7.2", "T-64: 2 hit(s), 0 save(s), 2 net") in [(r.section, r.text) for r in answer.reasons]
    assert {"unit": "t-64", "result": "disrupted_and_reduced"} in outcome.results()


def test_an_on_board_strike_counts_its_range_and_the_firers_line_on_the_map(game) -> None:
    """§14.4: "Targets of On-Board Artillery Strikes must be within the firing unit's HE Range";
    "MRTR and SPM units indicated as 120MM or greater ... have a minimum range of 2 hexes";
    §14.7.2 "subject to Long Range penalties"; §14.1 "If a unit which is capable of Indirect
    Fire has a clear LOS to its target, it does not need a Spotter, and so uses Direct Fire".
    The BMP-1 in H4, recast as a 120MM mortar of HE Range 3, counts range and LOS on the map:
    H5 next to it is too near; B7 it sees itself (Direct Fire); F7, four hexes off behind the
    City, is Long Range, spotted by the Soviet HQ moved to E7 beside it."""
    from dataclasses import replace
    from referee.actions import Action, Mission
    from referee.events import UnitMoved, apply
    from referee.model import Weapon
    from referee.rulesets import get_ruleset
    bmp = game.units["bmp-1"]
    mortar = game.with_unit(replace(bmp, type=replace(bmp.type, name="120MM MRTR", arty_type="mrtr", caliber_mm=120,
                                                      abilities=bmp.type.abilities | {"indirect_fire"},
                                                      he=Weapon(fp=3, to_hit=4, range=3))))
    rules = get_ruleset("waw85")

    def strike(position, hex_id: str):
        return rules.check(position, Action(kind="indirect_fire", unit="bmp-1", target=hex_id, spotter="soviet-hq",
                                            mission=Mission(type="he")))
    near = strike(mortar, "H5")
    assert (near.values["legal"], near.values["reason_rule"]) == (False, "14.4")
    assert ("WaW85 §14.4", "minimum range 2, target at 1") in [(r.section, r.text) for r in near.reasons]
    seen = strike(mortar, "B7")
    assert (seen.values["legal"], seen.values["reason_rule"]) == (False, "14.1")
    far = strike(apply(mortar, UnitMoved("soviet-hq", "E7")), "F7")
    assert (far.values["legal"], far.values["to_hit"], far.values["fp"]) == (True, 5, 3)


def test_a_rubble_hex_uses_the_charts_rubble_line(game) -> None:
    """§10.9: a rubbled hex "now uses the Rubble line on the TEC for all purposes": the Woods hex
    F6 under a Rubble marker takes the sample chart's Rubble line (obscuring, not blocking), and
    the fire at the T-64 in it is resolved with that line's Defensive Bonus; without the marker
    it is Woods again. A chart without a Rubble line leaves the hex's values not stated, never
    the Woods' own."""
    from referee.events import MarkerPlaced, MarkerRemoved, apply
    from referee.model import HexState
    rubbled = apply(game, MarkerPlaced("F6", "rubble"))
    f6 = rubbled.hexes["F6"]
    assert (f6.terrain_db, f6.los, f6.stated["obstacle_height"]) == ({"infantry": 2, "vehicle": 1}, "obscuring", 0)
    outcome = run(rubbled, "fire leopard-c1 t-64 ap", [4, 1, 5, 4, 1, 3, 4, 6, 6])
    assert outcome.steps and not outcome.refused
    again = apply(rubbled, MarkerRemoved("F6", "rubble")).hexes["F6"]
    assert (again.terrain_db, again.los, again.stated["obstacle_height"]) == ({"infantry": 2, "vehicle": 1}, "blocking", 1)
    woods_only = {"": {"db": {"infantry": 2, "vehicle": 1}, "los": "blocking", "obstacle_height": 1, "unit_height": 0}}
    lone = HexState("W1", terrain="woods", terrain_db=woods_only[""]["db"], los="blocking",
                    stated={"obstacle_height": 1, "unit_height": 0, "tec_lines": woods_only}).with_markers({"rubble"})
    assert (lone.terrain_db, lone.los, "obstacle_height" in lone.stated) == (None, None, False)


def test_a_chart_with_rubble_and_cleared_lines_switches_the_hex_to_them() -> None:
    """§10.9, §10.9.1: the line's Defensive Bonus, LOS effect and heights (above the hex's elevation)."""
    from referee.model import HexState
    lines = {"": {"db": {"infantry": 3, "vehicle": 2}, "los": "blocking", "obstacle_height": 2, "unit_height": 1},
             "rubble": {"db": {"infantry": 2, "vehicle": 2}, "los": "obscuring", "obstacle_height": 1, "unit_height": 1},
             "cleared": {"db": {"infantry": 1, "vehicle": 0}, "los": "none", "obstacle_height": 1, "unit_height": 1}}
    town = HexState("T1", terrain="town", terrain_db=lines[""]["db"], los="blocking",
                    stated={"obstacle_height": 2, "unit_height": 1, "tec_lines": lines})
    rubble = town.with_markers({"rubble", "wrecks"})
    assert (rubble.terrain_db, rubble.los, rubble.stated["obstacle_height"]) == (lines["rubble"]["db"], "obscuring", 1)
    cleared = rubble.with_markers({"cleared"})
    assert (cleared.terrain_db, cleared.los) == (lines["cleared"]["db"], "none")
    assert cleared.with_markers(set()).terrain_db == lines[""]["db"]
    plain = HexState("x", terrain="town", terrain_db=2, markers=frozenset())
    assert plain.with_markers({"rubble"}).terrain_db == 2       # stated values (a rule case) stay as stated
