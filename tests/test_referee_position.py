"""The referee's judgement of whole positions (referee.position), of moves whose route a log does
not give (referee.routes), and the events between two positions (referee.diff)."""
from __future__ import annotations

import pytest

from referee.diff import NoEvent, events_between
from referee.events import (MarkerPlaced, MarkerRemoved, StatusChanged, UnitDisrupted, UnitEliminated, UnitMoved,
                            UnitPlaced, UnitRallied, UnitReduced, UnitRemoved, UnitRestored, apply_all)
from referee.model import Game, HexState, Status, Unit, UnitType, Weapon
from referee.position import Problem, position_problems, unit_problems
from referee.routes import Route, RouteUnknown, cheapest_route, judge_move
from referee.ruleset import Params, Ruleset
from tests.test_classic_map_positions import EISENBACH, TANK, UNTOLD, board, disrupted, enemy


def test_overstacking_and_two_hqs_are_problems_with_their_sections() -> None:
    hq = UnitType(name="HQ", target_type="hq")
    units = [Unit("a", TANK, side="nato", hex="1,0"), Unit("b", TANK, side="nato", hex="1,0"),
             Unit("c", TANK, side="nato", hex="1,0"), Unit("h1", hq, side="nato", hex="2,0"),
             Unit("h2", hq, side="nato", hex="2,0"), Unit("d", TANK, side="nato", hex="2,0")]
    found = position_problems(board(*units), UNTOLD)
    assert found == [Problem("stacking", "3 combat units in 1,0, at most 2", "TUS §1.4", False, "1,0", ("a", "b", "c")),
                     Problem("stacking", "no more than one HQ in a hex", "TUS §1.3.3", False, "2,0",
                             ("d", "h1", "h2"))]


def test_an_hq_stands_with_a_unit_of_its_formation_or_a_friendly_unit_by_the_book() -> None:
    """EG/TUS §1.3.3.1: "Headquarters must remain in a hex with a unit or units of its formation";
    WaW85 §7.2.2: "HQs must always be either: On the map, stacked with a friendly unit; or" off it.
    A Leader or Support Weapon beside it is not such a unit; an unstated Formation is not a breach."""
    from referee.rulesets import get_ruleset
    hq = UnitType(name="HQ", target_type="hq")
    leader = UnitType(name="Leader", target_type="leader")
    units = [Unit("h1", hq, side="nato", formation="1st", hex="1,0"),
             Unit("l1", leader, side="nato", formation="1st", hex="1,0"),            # 1,0: HQ and a Leader
             Unit("h2", hq, side="nato", formation="1st", hex="2,0"),
             Unit("a", TANK, side="nato", formation="2nd", hex="2,0"),               # 2,0: another Formation
             Unit("h3", hq, side="nato", formation="1st", hex="3,0"),
             Unit("b", TANK, side="nato", formation="1st", hex="3,0"),               # 3,0: its own Formation
             Unit("h4", hq, side="nato", formation="1st", hex="4,0"),
             Unit("c", TANK, side="nato", hex="4,0"),                                # 4,0: Formation not stated
             Unit("h5", hq, side="nato", formation="1st", hex="5,0"),
             Unit("e", TANK, side="pact", formation="1st", hex="5,0")]               # 5,0: only an enemy
    game = board(*units)
    assert [(p.hex, p.text, p.section) for p in position_problems(game, UNTOLD, units=[])] == [
        ("1,0", "HQ is alone in 1,0: an HQ on the map stands with a unit of its Formation (1st)", "TUS §1.3.3.1"),
        ("2,0", "HQ is alone in 2,0: an HQ on the map stands with a unit of its Formation (1st)", "TUS §1.3.3.1"),
        ("5,0", "HQ is alone in 5,0: an HQ on the map stands with a unit of its Formation (1st)", "TUS §1.3.3.1")]
    assert [(p.hex, p.section) for p in position_problems(game, EISENBACH, units=[])] == [
        ("1,0", "EG §1.3.3.1"), ("2,0", "EG §1.3.3.1"), ("5,0", "EG §1.3.3.1")]
    assert [(p.hex, p.text, p.section) for p in position_problems(game, get_ruleset("waw85"), units=[])] == [
        ("1,0", "HQ is alone in 1,0: an HQ on the map stands with a friendly unit", "WaW85 §7.2.2"),
        ("5,0", "HQ is alone in 5,0: an HQ on the map stands with a friendly unit", "WaW85 §7.2.2")]


def test_only_the_hexes_and_units_asked_about_are_judged() -> None:
    units = [Unit(k, TANK, side="nato", hex="1,0") for k in "abc"] + [
        Unit("j", UnitType(name="Jeep", steps=1), side="nato", hex="3,0", strength="reduced")]
    game = board(*units)
    assert [p.rule for p in position_problems(game, UNTOLD)] == ["stacking", "markers"]
    assert [p.rule for p in position_problems(game, UNTOLD, hexes=["3,0"], units=[])] == []
    assert [p.text for p in position_problems(game, UNTOLD, hexes=[], units=["j"])] == [
        "shows a reduced side, but the counter has one step"]


def test_a_ruleset_without_stacking_answers_not_supported() -> None:
    game = Game(units={"a": Unit("a", UnitType(name="A"), hex="C3")})
    assert position_problems(game, Ruleset(Params(ruleset="none"), {})) == [
        Problem("stacking", "*: not supported: stacking is not a procedure of none", None, None, "C3", ("a",))]


def test_ammo_markers_on_units_that_fire_no_missiles_are_illegal_or_unanswered() -> None:
    """§6.1.4: Ammo Depleted markers go only on missile-firing units."""
    gun = Unit("gun", UnitType(name="Tank", ap=Weapon(fp=4, underlined=False)), hex="A2",
               status=Status(ammo="depleted_2"))
    atgm = Unit("atgm", UnitType(name="ATGM", ap=Weapon(fp=4, underlined=True)), hex="A3",
                status=Status(ammo="depleted_1"))
    unknown = Unit("bmp", UnitType(name="BMP", ap=Weapon(fp=2)), hex="A4", status=Status(ammo="depleted_2"))
    game = Game(units={u.key: u for u in (gun, atgm, unknown)})
    assert unit_problems(game, UNTOLD, gun) == [
        Problem("markers", "Ammo Depleted marker on a unit that fires no missiles", "TUS §6.1.4", False, "A2", ("gun",))]
    assert unit_problems(game, UNTOLD, atgm) == []
    assert unit_problems(game, UNTOLD, unknown) == [
        Problem("markers", "Ammo Depleted marker: whether the unit fires missiles is not stated (underlined range)",
                "TUS §6.1.4", None, "A4", ("bmp",))]


def test_terrain_a_unit_may_not_be_in_and_terrain_the_chart_lacks() -> None:
    game = board(Unit("a", TANK, hex="1,0"), Unit("b", TANK, hex="2,0"), terrain={"1,0": "lake", "2,0": "lava"})
    found = position_problems(game, UNTOLD, hexes=[])
    assert [(p.units, p.section, p.legal) for p in found] == [(("a",), "EG TEC", False), (("b",), None, None)]
    assert found[0].text == "vehicle units may not be in lake"
    assert found[1].text == "terrain 'lava': terrain 'lava' is not on the Terrain Effects Chart"


def test_the_cheapest_route_is_priced_by_the_move_procedure() -> None:
    game = board(Unit("a", TANK, side="nato", hex="0,0"), terrain={"1,0": "woods"})
    assert cheapest_route(game, UNTOLD, "a", "2,-1", 6) == Route(2, ("1,-1", "2,-1"))    # beside the woods
    assert cheapest_route(game, UNTOLD, "a", "1,0", 6) == Route(2, ("1,0",))             # woods cost 2 (TEC)
    assert cheapest_route(game, UNTOLD, "a", "8,0", 4) is None


def test_a_route_without_map_positions_is_unknown() -> None:
    unit = Unit("a", UnitType(name="A", mp=4, target_type="heavy_armor"), hex="0101")
    game = Game(units={"a": unit}, hexes={"0101": HexState("0101"), "0102": HexState("0102")})
    with pytest.raises(RouteUnknown, match="the positions of 0101 and 0102 on the map are not known"):
        cheapest_route(game, UNTOLD, "a", "0102", 4)
    assert judge_move(game, UNTOLD, unit, "0102") == [
        Problem("move", "0101 -> 0102: movement cost not checked: the positions of 0101 and 0102 on the map are "
                "not known", "TUS §5.0", None, "0101", ("a",))]


def test_a_move_beyond_the_movement_factor_is_judged_along_its_cheapest_route() -> None:
    game = board(Unit("a", TANK, side="nato", hex="0,0"))
    [problem] = judge_move(game, UNTOLD, game.unit("a"), "7,0")
    assert problem.text == "0,0 -> 7,0 (cheapest route 1,0 2,0 3,0 4,0 5,0 6,0 7,0, 7 MP): " \
                           "7 MP is more than the Movement Factor 6"
    assert (problem.section, problem.legal, problem.units) == ("TUS §5.0", False, ("a",))
    assert judge_move(game, UNTOLD, game.unit("a"), "6,0") == []


def test_a_disrupted_unit_moving_closer_is_judged_by_the_referee() -> None:
    """§6.1.7 along the cheapest route."""
    closer = board(disrupted("A", "2,0"), enemy("E", "8,0"))
    assert [(p.section, p.legal) for p in judge_move(closer, UNTOLD, closer.unit("A"), "3,0")
            if p.section == "TUS §6.1.7"] == [("TUS §6.1.7", False)]


def test_events_between_two_positions_lead_from_one_to_the_other() -> None:
    t64 = UnitType(name="T-64", steps=2)
    before = board(Unit("a", t64, hex="1,0", strength="full"), Unit("b", t64, hex="2,0", strength="reduced"),
                   Unit("c", t64, hex="3,0"), Unit("d", t64, location="eliminated"), Unit("e", t64, hex="4,0"),
                   Unit("f", t64, hex="5,0", status=Status(disrupted=True, ammo="depleted_1")),
                   markers={"6,0": {"smoke_2"}})
    after = board(Unit("a", t64, hex="1,1", strength="reduced"), Unit("b", t64, hex="2,0", strength="full"),
                  Unit("c", t64, hex="3,0", location="eliminated"), Unit("d", t64, hex="7,0", strength="full"),
                  Unit("e", t64, hex="4,0", location="cup"), Unit("f", t64, hex="5,0", status=Status(ops_complete=True)),
                  markers={"6,0": {"smoke_1"}})
    events = events_between(before, after)
    assert events == [UnitMoved("a", "1,1"), UnitReduced("a"), UnitRestored("b"), UnitEliminated("c"),
                      UnitPlaced("d", "7,0", "full"), UnitRemoved("e", "cup"), UnitRallied("f"),
                      StatusChanged("f", "ops_complete", True), StatusChanged("f", "ammo", "none"),
                      MarkerRemoved("6,0", "smoke_2"), MarkerPlaced("6,0", "smoke_1")]
    assert apply_all(before, events).units == after.units
    assert events_between(after, after) == []
    assert events_between(before, after, statuses=()) == events[:6] + events[-2:]
    assert events_between(board(after.units["f"]), board(before.units["f"])) == [
        UnitDisrupted("f"), StatusChanged("f", "ops_complete", False), StatusChanged("f", "ammo", "depleted_1")]


def test_a_change_no_event_describes_is_refused() -> None:
    with pytest.raises(NoEvent, match=r"unit 'a': full -> None is no event"):
        events_between(board(Unit("a", TANK, hex="1,0", strength="full")), board(Unit("a", TANK, hex="1,0")))
    with pytest.raises(NoEvent, match=r"only in the new one: \['b'\]; only in the old one: \['a'\]"):
        events_between(board(Unit("a", TANK, hex="1,0")), board(Unit("b", TANK, hex="1,0")))


def test_a_read_only_positions_stacks_are_indexed_and_a_new_position_sees_its_moves() -> None:
    from types import MappingProxyType
    units = {k: Unit(k, TANK, hex=h, stack_order=o) for k, h, o in (("b", "1,0", 2), ("a", "1,0", 1),
                                                                       ("c", "2,0", None))}
    units["d"] = Unit("d", TANK, hex="1,0", location="eliminated")
    plain, frozen = Game(units=dict(units)), Game(units=MappingProxyType(dict(units)))
    assert [u.key for u in frozen.stack("1,0")] == [u.key for u in plain.stack("1,0")] == ["a", "b"]
    assert [u.key for u in frozen.stack("1,0", exclude="a")] == ["b"] and frozen.stack("9,9") == []
    moved = frozen.with_unit(Unit("c", TANK, hex="1,0"))
    assert [u.key for u in moved.stack("1,0")] == ["a", "b", "c"] and moved.stack("2,0") == []
    assert [u.key for u in frozen.stack("2,0")] == ["c"]             # the old position is unchanged
