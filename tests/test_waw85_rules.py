"""WaW85 procedures beyond the rule cases: full resolutions with given dice, the edges of
the tables, and every action of the case vocabulary answered or refused with a section."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from referee.cases import CaseDice, build_action, build_game
from referee.events import apply_all, result_of
from referee.rulesets import get_ruleset
from referee.verdict import Answer
from referee.waw85 import EXTRA_ACTIONS, NOT_SUPPORTED, NOT_WAW85, PROCEDURES
from referee.ranges import Bands

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CASES = SHARED / "cases"
WAW85 = get_ruleset("waw85")
#: The book a bare section cited here belongs to (tests/test_rules_coverage.py).
RULEBOOKS = ("WaW85",)


def run(given: dict[str, Any], dice: dict[str, list[int]] | None = None) -> tuple[Answer, Any]:
    game = build_game(given)
    answer = WAW85.resolve(game, build_action(given["query"]), CaseDice(dice))
    return answer, apply_all(game, answer.events)


def test_every_action_of_the_vocabulary_is_answered_or_refused_with_a_section() -> None:
    schema = json.loads((CASES / "rule-case.schema.json").read_text(encoding="utf-8"))
    actions = schema["$defs"]["given"]["properties"]["query"]["properties"]["action"]["enum"]
    assert set(actions) == set(PROCEDURES) - EXTRA_ACTIONS
    refused = set(NOT_SUPPORTED) | set(NOT_WAW85)
    assert refused == {"battlegen", "airstrike", "overrun", "conditional_morale",
                       "hq_replacement", "sw_loss_check"}
    answer, _ = run({"query": {"action": "overrun", "unit": "A"}, "units": {"A": {}}})
    assert answer.gaps == {"*": "not supported: WaW85 §13.0 (overrun is not a WaW85 rule)"}


def test_range_bands_of_the_rulebook_example() -> None:
    """§10.3.4: printed 4 -> 1-2 Point Blank, 3-4 Effective, 5-8 Long, 8 maximum."""
    reach = Bands(4)
    assert [reach.band(d) for d in range(1, 10)] == [
        "point_blank", "point_blank", "effective", "effective", "long", "long", "long", "long",
        "out_of_range"]
    assert reach.max_range == 8
    assert reach.names == ["point_blank", "effective", "long"]
    assert Bands(4, near=False, far=False).names == ["effective"]        # AA by black dice, HROF HE
    assert Bands(1).names == ["effective", "long"]                        # half of 1 is no Point Blank


def _atgm_shot(dice: dict[str, list[int]]) -> tuple[Answer, Any]:
    return run({
        "units": {
            "A": {"side": "nato", "ap": {"fp": 3, "to_hit": 4, "range": 6, "color": "green"}},
            "T": {"side": "pact", "target_type": "heavy_armor", "armor": 3, "save": 5,
                  "abilities": ["composite_armor"], "steps": 2, "strength": "full", "hex": "t",
                  "distance": 4},
        },
        "hexes": [{"id": "t", "terrain": "woods", "terrain_db": 1}],
        "query": {"action": "direct_fire", "unit": "A", "target": "T", "weapon": "ap"},
    }, dice)


def test_an_atgm_shot_at_a_concealed_t72_in_woods() -> None:
    """Concealed (+1), ATGM into blocking terrain (+1), capped at 2 (§10.6.12-14);
    Reactive armor saves on 4 against green AP (§10.6.9); a Wreck is not left by a
    two-step tank that survives."""
    answer, after = _atgm_shot({"attack": [6, 5, 4], "save": [1, 2, 3, 4, 1]})
    v = answer.values
    assert (v["band"], v["to_hit"], v["fp"]) == ("effective", 4, 3)
    assert (v["concealed"], v["db_dice"], v["armor_dice"], v["defense_dice"]) == (True, 2, 3, 5)
    assert (v["save_number"], v["hits"], v["saves"], v["net_hits"]) == (4, 3, 1, 2)
    assert result_of("T", answer.events) == "disrupted_and_reduced"
    assert after.units["A"].status.ops_complete is True
    assert after.hexes["t"].markers == frozenset()
    assert answer.rolls == [("attack", [6, 5, 4]), ("save", [1, 2, 3, 4, 1])]


def test_three_net_hits_eliminate_and_leave_a_wreck() -> None:
    answer, after = _atgm_shot({"attack": [6, 6, 6], "save": [1, 1, 1, 1, 1]})
    assert answer.values["net_hits"] == 3
    assert after.units["T"].location == "eliminated"
    assert after.hexes["t"].markers == frozenset({"wrecks"})


@pytest.mark.parametrize(("distance", "legal", "fp", "to_hit"), [(5, True, 2, 6), (6, True, 2, 6),
                                                                   (7, False, None, None)])
def test_black_dice_at_a_flying_helicopter(distance: int, legal: bool, fp: int, to_hit: int | None) -> None:
    """§10.6.1: printed range only, FP -2, To-Hit 6."""
    answer, _ = run({"units": {"A": {"ap": {"fp": 4, "to_hit": 4, "range": 6, "color": "black"}},
                               "T": {"target_type": "helicopter", "mode": "flying", "distance": distance}},
                     "query": {"action": "direct_fire", "unit": "A", "target": "T", "weapon": "ap"}})
    assert answer.values["legal"] is legal
    assert answer.values["bands"] == ["effective"]
    assert answer.values["max_range"] == 6
    assert answer.values.get("fp") == fp
    assert answer.values.get("to_hit") == to_hit


@pytest.mark.parametrize(("distance", "legal"), [(3, True), (4, False)])
def test_high_rate_of_fire_he_at_heavy_armor_has_no_long_range(distance: int, legal: bool) -> None:
    answer, _ = run({"units": {"A": {"abilities": ["high_rate_of_fire_he"],
                                     "he": {"fp": 3, "to_hit": 5, "range": 3}},
                               "T": {"target_type": "heavy_armor", "distance": distance}},
                     "query": {"action": "direct_fire", "unit": "A", "target": "T", "weapon": "he"}})
    assert answer.values["legal"] is legal


@pytest.mark.parametrize(("spent", "fp"), [(1, 4), (3, 4), (4, 3), (6, 3)])
def test_nato_orange_move_and_fire(spent: int, fp: int) -> None:
    """§11.0: NATO orange FP: no effect up to half MPs, -1 beyond."""
    answer, _ = run({"units": {"A": {"side": "nato", "mp": 6, "status": {"mp_spent": spent},
                                     "ap": {"fp": 4, "to_hit": 4, "color": "orange"}},
                               "T": {"target_type": "light_armor"}},
                     "query": {"action": "move_and_fire", "unit": "A", "target": "T", "weapon": "ap"}})
    assert (answer.values["legal"], answer.values["fp"], answer.values["to_hit"]) == (True, fp, 4)


def test_an_assault_with_an_odd_hit_and_a_defender_retreat() -> None:
    """§13.2.1: one hit each, the odd hit by 1d6 (2: the top unit); the defender took more
    hits than it gave and retreats; the attacker holds the hex; everyone Ops Complete."""
    answer, after = run({
        "units": {
            "A": {"target_type": "troops", "assault": {"fp": 3, "to_hit": 4}, "hex": "a"},
            "T": {"target_type": "troops", "assault": {"fp": 1, "to_hit": 5}, "hex": "t",
                  "stack_order": 1, "steps": 2, "strength": "full"},
            "T2": {"target_type": "troops", "hex": "t", "stack_order": 2, "steps": 2,
                   "strength": "full"},
        },
        "query": {"action": "assault", "unit": "A", "target": "t"},
    }, {"attack": [6, 6, 5], "counter": [1], "d6": [2]})
    assert answer.values["hit_allocation"] == "spread"
    assert (answer.unit_values["T"]["hits"], answer.unit_values["T2"]["hits"]) == (2, 1)
    assert (result_of("T", answer.events), result_of("T2", answer.events)) == (
        "disrupted_and_reduced", "disrupted")
    assert answer.unit_values["T"]["retreat"] == 1 and answer.unit_values["A"]["retreat"] == 0
    assert after.units["A"].hex == "t"
    assert all(after.units[k].status.ops_complete for k in ("A", "T", "T2"))


def test_an_attacker_that_does_not_win_falls_back() -> None:
    answer, after = run({
        "units": {"A": {"target_type": "troops", "assault": {"fp": 2, "to_hit": 6}, "hex": "a"},
                  "T": {"target_type": "troops", "assault": {"fp": 2, "to_hit": 4}, "hex": "t",
                        "steps": 2, "strength": "full"}},
        "query": {"action": "assault", "unit": "A", "target": "T"},
    }, {"attack": [5, 1], "counter": [4, 2]})
    assert (answer.values["hits"], answer.unit_values["A"]["retreat"]) == (0, 1)
    assert after.units["A"].hex == "a"
    assert result_of("A", answer.events) == "disrupted"


def test_scatter_two_hexes_and_cancelled() -> None:
    answer, _ = run({"query": {"action": "scatter", "target": "x"}}, {"d6": [6, 3, 4, 1]})
    assert (answer.values["scatter"], answer.values["cancelled"]) == (["SE", "N"], False)
    answer, _ = run({"query": {"action": "scatter", "target": "x"}, "situation": {"strikes_left": 1}},
                    {"d6": [6, 2, 6]})
    assert answer.values["cancelled"] is True
    assert answer.values["situation"] == {"strikes_left": 0}


@pytest.mark.parametrize(("range_colour", "rolls", "ammo"), [("blue", True, "reloading"),
                                                             ("white", False, "none")])
def test_only_missile_aa_checks_its_ammo(range_colour: str, rolls: bool, ammo: str) -> None:
    answer, after = run({"units": {"A": {"morale": 7, "aa": {"color": "blue", "range_color": range_colour}}},
                         "query": {"action": "missile_ammo_check", "unit": "A", "weapon": "aa"}},
                        {"2d6": [9]})
    assert answer.values["roll_required"] is rolls
    assert after.units["A"].status.ammo == ammo


def test_ew_makes_units_in_range_roll_for_command() -> None:
    given = {"units": {"A": {"formation": "F", "morale": 7, "hex": "a"},
                       "H": {"target_type": "hq", "formation": "F", "strength": "full", "hex": "h",
                             "command_range": {"full": 5}, "distance": 2,
                             "status": {"ew_marker": "ew"}}},
             "query": {"action": "command_check", "unit": "A"}}
    answer, after = run(given, {"2d6": [8]})
    assert (answer.values["roll_required"], answer.values["passed"]) == (True, False)
    assert after.units["A"].status.out_of_command is True
    given["units"]["H"]["status"] = {}
    answer, after = run(given, {"2d6": [8]})
    assert answer.values["roll_required"] is False
    assert after.units["A"].status.out_of_command is False


@pytest.mark.parametrize(("terrain", "die", "markers"), [
    ("city", 6, {"rubble"}), ("woods", 6, {"burnt_out"}), ("woods", 5, {"fire"})])
def test_fire_burn_out(terrain: str, die: int, markers: set[str]) -> None:
    _, after = run({"hexes": [{"id": "x", "terrain": terrain, "markers": ["fire"]}],
                    "query": {"action": "marker_removal", "target": "x"}}, {"d6": [die]})
    assert after.hexes["x"].markers == frozenset(markers)


def test_a_failed_night_targeting_check_ends_the_unit() -> None:
    answer, after = run({"units": {"A": {"morale": 8}, "T": {"distance": 3}},
                         "situation": {"night": True},
                         "query": {"action": "night_targeting_check", "unit": "A", "target": "T"}},
                        {"2d6": [5]})
    assert (answer.values["target_number"], answer.values["passed"]) == (4, False)
    assert after.units["A"].status.ops_complete is True


def test_a_wild_parachute_drift() -> None:
    answer, _ = run({"units": {"A": {}}, "query": {"action": "parachute_drift", "unit": "A"}},
                    {"d6": [6, 6, 1]})
    assert answer.values["scatter"] == ["NW", "NW"]


def test_a_reduced_transport_may_reduce_its_passenger() -> None:
    answer, after = run({"units": {"TR": {"target_type": "light_armor", "steps": 2, "strength": "full",
                                          "abilities": ["transport"], "hex": "x"},
                                   "P": {"target_type": "troops", "steps": 2, "strength": "full",
                                         "carried_by": "TR"}},
                         "query": {"action": "apply_damage", "target": "TR", "hits": 2}},
                        {"d6": [5]})
    assert result_of("TR", answer.events) == "disrupted_and_reduced"
    assert result_of("P", answer.events) == "disrupted_and_reduced"
    assert after.units["P"].strength == "reduced"


def test_victory_points_follow_the_prose() -> None:
    answer, _ = run({"units": {"E": {"side": "nato", "cost": 150, "location": "eliminated"},
                               "R": {"side": "nato", "cost": 40, "steps": 2, "strength": "reduced"},
                               "X": {"side": "pact", "cost": 99, "location": "eliminated"}},
                     "situation": {"objectives": 2},
                     "query": {"action": "victory_points", "side": "nato"}})
    assert answer.values["value"] == 230


def test_combat_lift_off_and_mode_choice() -> None:
    helicopter = {"target_type": "helicopter", "abilities": ["transport"], "mode": "landed", "morale": 7}
    answer, after = run({"units": {"A": helicopter},
                         "query": {"action": "lift_off", "unit": "A", "choice": "flying"}}, {"2d6": [7]})
    assert answer.values["passed"] is True and after.units["A"].mode == "flying"
    answer, after = run({"units": {"A": helicopter},
                         "query": {"action": "lift_off", "unit": "A", "choice": "flying"}}, {"2d6": [8]})
    assert answer.values["passed"] is False and after.units["A"].mode == "landed"
    answer, _ = run({"units": {"A": {**helicopter, "status": {"mp_spent": 3}}},
                     "query": {"action": "mode_change", "unit": "A", "choice": "hovering"}})
    assert answer.values["legal"] is False and answer.values["reason_rule"] == "9.7"


def test_unloading_triggers_opportunity_fire_and_lets_an_unmoved_transport_move() -> None:
    answer, after = run({"units": {"TR": {"mp": 6, "status": {"mp_spent": 0}, "hex": "a"},
                                   "P": {"carried_by": "TR"}},
                         "query": {"action": "unload", "unit": "P", "target": "a"}})
    assert answer.values["triggers_opportunity_fire"] is True
    assert answer.unit_values["TR"]["mp_after"] == 3
    assert after.units["P"].status.ops_complete is True


def test_reasons_cite_waw85_sections() -> None:
    answer, _ = _atgm_shot({"attack": [6, 5, 4], "save": [1, 2, 3, 4, 1]})
    sections = {r.section for r in answer.reasons}
    assert {"WaW85 §10.3", "WaW85 §10.6.13", "WaW85 §10.6.8", "WaW85 §10.4"} <= sections


@pytest.mark.slow
def test_the_cases_command_runs_the_waw85_cases() -> None:
    from converter.cli import main
    result = CliRunner().invoke(main, ["cases", str(CASES / "rule-cases.yaml"), "--ruleset", "waw85"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == "296 passed, 0 failed, 1 gap"


SHAPES = [{}, {"units": {"A": {}, "T": {}}},
          {"units": {"A": {"hex": "a"}, "T": {"hex": "t"}}, "hexes": [{"id": "t"}]},
          {"units": {"A": {"target_type": "helicopter", "hex": "a"},
                     "T": {"target_type": "heavy_armor", "hex": "t", "carried_by": "A"}}}]
QUERIES = [{}, {"unit": "A"}, {"unit": "A", "target": "T"}, {"unit": "A", "target": "t"},
           {"target": "T"}, {"target": "t"}, {"unit": "A", "target": "T", "weapon": "ap", "hits": 3},
           {"unit": ["A", "T"], "target": "t", "hits": {"A": 1}}, {"unit": "A", "target": "T", "hits": {"T": 2}},
           {"unit": "A", "target": "T", "hits": "x", "choice": "fire"},
           {"unit": "A", "target": "T", "weapon": "he", "mission": {"type": "mlrs", "fp": "x"}}]
DICE = [None, {"d6": [6, 6, 6, 6], "2d6": [12, 12], "attack": [6] * 9, "save": [1] * 9, "counter": [6] * 9}]


@pytest.mark.parametrize("kind", sorted(PROCEDURES))
def test_partial_and_malformed_positions_give_answers_or_referee_errors(kind: str) -> None:
    """Every procedure, on positions missing most facts or with ill-typed ones, answers
    with gaps or raises a RefereeError: never another exception."""
    from referee.errors import RefereeError
    for shape in SHAPES:
        for query in QUERIES:
            for dice in DICE:
                given = {**shape, "query": {"action": kind, **query}}
                try:
                    answer, _ = run(given, dice)
                except RefereeError:
                    continue
                # an answer says something: a result, an event, a ruling, or why it has none
                # (a gap naming the missing fact or the unsupported rule, never a bare exception text)
                assert answer.values or answer.gaps or answer.events or answer.unit_values or answer.reasons, \
                    (kind, given)
                assert all(r.startswith(("not stated: ", "not supported: ")) for r in answer.gaps.values()), \
                    (kind, given, answer.gaps)


def test_ill_typed_hits_are_refused_by_name() -> None:
    from referee.errors import RefereeError
    with pytest.raises(RefereeError, match=r"query.hits must be a whole number or hits by unit, not 'x'"):
        run({"units": {"A": {"assault": {"fp": 1, "to_hit": 4}}, "T": {}},
             "query": {"action": "assault", "unit": "A", "target": "T", "hits": "x"}})


def test_an_off_board_he_strike_attacks_each_unit_in_the_hex() -> None:
    """§14.7.2: armor rolls no Armor dice but 1d6 more DB; troops their terrain DB; the
    Strike is used up on the Artillery Track."""
    answer, after = run({
        "units": {"T": {"target_type": "heavy_armor", "armor": 4, "save": 5, "hex": "t", "stack_order": 1,
                        "steps": 2, "strength": "full", "status": {"concealed": False}},
                  "I": {"target_type": "troops", "hex": "t", "stack_order": 2, "steps": 2,
                        "strength": "full", "status": {"concealed": False}}},
        "hexes": [{"id": "t", "terrain_db": 1}],
        "situation": {"strikes_left": 2},
        "query": {"action": "indirect_fire", "target": "t", "mission": {"type": "he", "fp": 3, "to_hit": 4}},
    }, {"attack": [6, 5, 1, 4, 4, 4], "save": [5, 1, 6]})
    assert (answer.values["hits"], answer.values["saves"], answer.values["net_hits"]) == (5, 2, 3)
    assert result_of("T", answer.events) == "disrupted"
    assert result_of("I", answer.events) == "disrupted_and_reduced"
    assert answer.values["situation"] == {"strikes_left": 1}
    assert answer.rolls == [("attack", [6, 5, 1]), ("save", [5, 1]), ("attack", [4, 4, 4]), ("save", [6])]


def test_an_on_board_mortar_strike_at_long_range_on_heavy_armor() -> None:
    """§14.7.2: Long Range +1, no Point Blank bonus; a mortar meets Heavy Armor's own
    Armor and Save; the firer is Ops Complete."""
    answer, after = run({
        "units": {"M": {"arty_type": "mrtr", "caliber_mm": 81, "abilities": ["indirect_fire"],
                        "he": {"fp": 2, "to_hit": 4, "range": 8}},
                  "T": {"target_type": "heavy_armor", "armor": 3, "save": 6, "hex": "t", "steps": 2,
                        "strength": "full", "status": {"concealed": False}}},
        "hexes": [{"id": "t", "terrain_db": 0, "distance": 10}],
        "query": {"action": "indirect_fire", "unit": "M", "target": "t", "weapon": "he"},
    }, {"attack": [5, 6], "save": [6, 1, 1]})
    assert (answer.values["to_hit"], answer.values["armor_dice"], answer.values["net_hits"]) == (5, 3, 1)
    assert after.units["M"].status.ops_complete is True
    assert result_of("T", answer.events) == "disrupted"


def test_dpicm_reduction_and_adm_mines() -> None:
    answer, _ = run({"query": {"action": "indirect_fire", "target": "t",
                               "mission": {"type": "dpicm", "fp": 4, "to_hit": 5}},
                     "units": {"I": {"target_type": "troops", "hex": "t", "status": {"concealed": False}}},
                     "hexes": [{"id": "t", "terrain_db": 0}]},
                    {"2d6": [3], "attack": [5, 5, 5]})
    assert (answer.values["fp"], answer.values["hits"]) == (3, 3)
    answer, after = run({"query": {"action": "indirect_fire", "target": "t", "mission": {"type": "adm"}},
                         "units": {"I": {"target_type": "troops", "hex": "t", "steps": 2, "strength": "full"}}},
                        {"d6": [1, 6]})            # the Scatter Check (1: on target), then the mine roll
    assert answer.values["scatter"] == [] and answer.rolls[0] == ("d6", [1])
    assert after.hexes["t"].markers == frozenset({"minefield_random"})
    assert (answer.values["hits"], result_of("I", answer.events)) == (2, "disrupted_and_reduced")


@pytest.mark.parametrize(("unit", "rule"), [
    ({"carried_by": "TR"}, "9.8"),
    ({"status": {"ammo": "reloading"}}, "7.3"),
    ({"status": {"ammo": "out"}}, "7.3"),
    ({"hex": "w"}, "10.6.17"),
])
def test_who_may_not_fire_missiles(unit: dict[str, Any], rule: str) -> None:
    answer, _ = run({"units": {"A": {"ap": {"fp": 2, "to_hit": 5, "color": "green"}, **unit},
                               "TR": {}, "T": {"target_type": "heavy_armor"}},
                     "hexes": [{"id": "w", "terrain": "water"}],
                     "query": {"action": "direct_fire", "unit": "A", "target": "T", "weapon": "ap"}})
    assert (answer.values["legal"], answer.values["reason_rule"]) == (False, rule)


def test_off_board_strikes_need_an_hq_or_recon_spotter() -> None:
    given = {"units": {"S": {"target_type": "troops"}},
             "query": {"action": "indirect_fire", "target": "t", "spotter": "S", "mission": {"type": "smoke"}}}
    answer, _ = run(given)
    assert (answer.values["legal"], answer.values["reason_rule"]) == (False, "14.3")
    given["units"]["S"]["abilities"] = ["recon"]
    answer, after = run(given)
    assert answer.values["legal"] is True and answer.values["max_markers"] == 3
    assert after.hexes["t"].markers == frozenset({"smoke"})


def _deploy(path: list[str], enemy: dict[str, Any]) -> Answer:
    return run({"units": {"H": {"target_type": "hq", "side": "nato", "formation": "F", "hex": "a"},
                          "U": {"side": "nato", "formation": "F", "hex": "c"},
                          "E": {"side": "pact", "hex": "b", **enemy}},
                "query": {"action": "hq_deployment", "unit": "H", "target": "c", "path": path}})[0]


def test_hq_deployment_needs_a_path_clear_of_armed_enemies() -> None:
    """§7.2.2: an enemy with AP, HE or Assault FP on the path blocks the deployment."""
    assert _deploy(["b", "c"], {"he": {"fp": 2}}).values["reason_rule"] == "7.2.2"
    assert _deploy(["b", "c"], {}).values["legal"] is True
    assert _deploy(["d", "c"], {"he": {"fp": 2}}).values["legal"] is True


def test_a_suppressed_hq_does_not_deploy_and_leaders_stay_in_their_stack() -> None:
    answer, _ = run({"units": {"H": {"target_type": "hq", "formation": "F", "location": "suppressed"},
                               "U": {"formation": "F", "hex": "c"}},
                     "query": {"action": "hq_deployment", "unit": "H", "target": "c"}})
    assert answer.values["legal"] is False
    answer, _ = run({"units": {"L": {"target_type": "leader", "nation": "US", "hex": "a"},
                               "U": {"nation": "US", "hex": "b"}},
                     "query": {"action": "leader_transfer", "unit": "L", "target": "U"}})
    assert (answer.values["legal"], answer.values["reason_rule"]) == (False, "7.2.1")


def test_refresh_clears_ops_complete_and_out_of_command() -> None:
    _, after = run({"units": {"A": {"status": {"ops_complete": True, "out_of_command": True}}},
                    "query": {"action": "refresh", "unit": ["A"]}})
    assert (after.units["A"].status.ops_complete, after.units["A"].status.out_of_command) == (False, False)


def test_a_cas_counter_flies_two_levels_above_its_hex() -> None:
    """§4.1 and §10.2.3: the CAS counter is two levels above the obstacle height of its hex,
    so a blocking hex of height 0 two hexes from the firer casts a one-hex Blind Spot;
    height 1 makes it one level higher, and the firer falls in a two-hex Blind Spot."""
    def los(obstacle: int) -> Answer:
        return run({"units": {"A": {"level": 0}, "C": {"target_type": "aircraft", "hex": "c", "distance": 4}},
                    "hexes": [{"id": "c", "obstacle_height": 0}],
                    "situation": {"intervening": [{"los": "blocking", "obstacle_height": obstacle, "distance": 2}]},
                    "query": {"action": "los", "unit": "A", "target": "C"}})[0]
    assert (los(0).values["blocked"], los(0).values["blind_spot"]) == (False, 1)
    assert (los(1).values["blocked"], los(1).values["blind_spot"]) == (True, 2)


def test_ranges_and_concealment_come_from_map_positions_when_not_stated() -> None:
    """A position read from a map states no distances: WaW85 counts them on the hexes."""
    from types import MappingProxyType

    from referee.actions import DirectFire
    from referee.hexes import Hex
    from referee.model import Game, HexState, Status, Unit, UnitType, Weapon

    hexes = {"a": HexState("a", terrain_db=0, at=Hex(0, 0)), "t": HexState("t", terrain_db=1, at=Hex(3, 0))}
    units = {
        "A": Unit("A", UnitType(ap=Weapon(fp=3, to_hit=4, range=2, colour="black")), side="nato", hex="a"),
        "T": Unit("T", UnitType(target_type="light_armor", save=5), side="pact", hex="t", status=Status()),
    }
    game = Game(units=MappingProxyType(units), hexes=MappingProxyType(hexes))
    answer = WAW85.check(game, DirectFire(unit="A", target="T", weapon="ap"))
    assert (answer.values["range"], answer.values["band"], answer.values["to_hit"]) == (3, "long", 5)
    defended = WAW85.check(game, build_action({"action": "concealment", "unit": "A", "target": "T"}))
    assert defended.values["concealed"] is True
    units["A"] = Unit("A", units["A"].type, side="nato", hex="n")
    near = Game(units=MappingProxyType(units),
                hexes=MappingProxyType({**hexes, "n": HexState("n", at=Hex(2, 0))}))
    assert WAW85.check(near, build_action({"action": "concealment", "unit": "A", "target": "T"})).values[
        "concealed"] is False


@pytest.mark.parametrize(("firer", "target", "legal", "modifier"), [
    ([], ["smoke"], True, 1), (["smoke"], [], True, 1), (["smoke"], ["smoke"], False, 0)])
def test_smoke_at_an_adjacent_hex(firer: list[str], target: list[str], legal: bool, modifier: int) -> None:
    """§14.8: +1 into or out of Smoke; from Smoke into Smoke there is no LOS."""
    answer, _ = run({"units": {"A": {"hex": "a", "ap": {"to_hit": 4, "range": 1}}, "T": {"hex": "t", "distance": 1}},
                     "hexes": [{"id": "a", "markers": firer}, {"id": "t", "markers": target}],
                     "query": {"action": "direct_fire", "unit": "A", "target": "T", "weapon": "ap"}})
    assert (answer.values["legal"], answer.values["blocked"]) == (legal, not legal)
    assert answer.modifier_totals().get("to_hit", 0) == modifier
    assert answer.values["to_hit"] == 4 + modifier


def test_smoke_thinning_is_not_judged() -> None:
    answer, _ = run({"units": {"A": {"level": 0}, "T": {"level": 0, "adjacent": False}},
                     "situation": {"intervening": [{"los": "none", "markers": ["smoke_thinning"]}]},
                     "query": {"action": "los", "unit": "A", "target": "T"}})
    assert answer.gaps == {"*": "not supported: WaW85 §2.3.2 (the effect of Smoke Thinning is on the TEC)"}


def test_blue_missile_he_and_unlabelled_blue_values_against_ground_targets() -> None:
    """§1.9.2: blue HE with a blue range fires at non-Heavy-Armor ground targets; a blue
    value not said to be AP or HE is not judged against Troops or Heavy Armor."""
    def shot(weapon: str, target_type: str) -> Answer:
        return run({"units": {"A": {weapon: {"fp": 2, "to_hit": 5, "color": "blue", "range_color": "blue"}},
                              "T": {"target_type": target_type}},
                    "query": {"action": "direct_fire", "unit": "A", "target": "T", "weapon": weapon}})[0]
    assert shot("he", "troops").values["legal"] is True
    assert shot("he", "heavy_armor").values["reason_rule"] == "10.1"
    assert shot("ap", "troops").values["reason_rule"] == "1.9.1"
    assert shot("aa", "light_armor").values["reason_rule"] == "1.9.1"
    gun, _ = run({"units": {"A": {"aa": {"fp": 2, "to_hit": 5, "color": "blue", "range_color": "white"}},
                            "T": {"target_type": "troops"}},
                  "query": {"action": "direct_fire", "unit": "A", "target": "T", "weapon": "aa"}})
    assert "legal" not in gun.values
    assert gun.gaps["legal"] == "not stated: units.A.aa (whether the blue value is AP or HE, §10.1)"
