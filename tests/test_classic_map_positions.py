"""Classic rules on small map positions:
Disrupted movement (§6.1.7), stacking during a move (§1.4), Overrun limits (§6.4), AA fire
inside an airstrike (001 §9.5, §9.6) and Smoke's six neighbouring hexes (§8.2)."""
from __future__ import annotations

from referee.actions import Mission, make_action
from referee.classic import classic
from referee.dice import GivenDice
from referee.hexes import Hex
from referee.model import AssaultValue, Facts, Game, HexState, Relation, Status, Unit, UnitType, Weapon

UNTOLD, EISENBACH = classic("untold"), classic("eisenbach")

TANK = UnitType(name="M1", target_type="heavy_armor", steps=2, armor=4, save=5, mp=6,
                ap=Weapon(fp=4, to_hit=4, range=8), assault=AssaultValue(2, 5))
T72 = UnitType(name="T-72", target_type="heavy_armor", steps=2, armor=4, save=6, mp=5,
               ap=Weapon(fp=4, to_hit=5, range=6), assault=AssaultValue(2, 5))
INFANTRY = UnitType(name="MR", target_type="troops", steps=2, mp=1, he=Weapon(fp=2, to_hit=5, range=3),
                    assault=AssaultValue(3, 4))


def board(*units: Unit, terrain: dict[str, str] | None = None, markers: dict[str, set[str]] | None = None,
          situation: dict | None = None) -> Game:
    """Clear hexes "q,r" for q in 0..8 and r in -3..3 (cube coordinates), with the given units."""
    hexes = {}
    for q in range(9):
        for r in range(-3, 4):
            name = f"{q},{r}"
            hexes[name] = HexState(name, terrain=(terrain or {}).get(name, "clear"), at=Hex(q, r),
                                   markers=frozenset((markers or {}).get(name, ())))
    return Game(units={u.key: u for u in units}, hexes=hexes, facts=Facts(situation=situation or {}))


def move(game: Game, key: str, *path: str, ruleset=UNTOLD):
    return ruleset.check(game, make_action("move", unit=key, path=path))


def disrupted(key: str, hex_id: str, utype: UnitType = TANK) -> Unit:
    return Unit(key, utype, side="nato", hex=hex_id, status=Status(disrupted=True))


def enemy(key: str, hex_id: str, utype: UnitType = T72) -> Unit:
    return Unit(key, utype, side="pact", hex=hex_id)


# -- §6.1.7 Disrupted movement ----------------------------------------------------------------

def test_disrupted_unit_may_move_away_from_an_enemy_in_its_los() -> None:
    game = board(disrupted("A", "4,0"), enemy("E", "8,0"))
    answer = move(game, "A", "3,0", "2,0")
    assert answer.legal is True and answer.values["cost"] == 2


def test_disrupted_unit_may_not_move_closer_to_an_enemy_in_its_los() -> None:
    game = board(disrupted("A", "2,0"), enemy("E", "8,0"))
    answer = move(game, "A", "3,0")
    assert answer.legal is False
    assert [(r.section, r.text) for r in answer.reasons if r.section == "TUS §6.1.7"] == [
        ("TUS §6.1.7", "disrupted M1 may not move closer to T-72 in its LOS (3,0: 6 -> 5 hexes)")]


def test_every_hex_entered_counts_not_only_the_last() -> None:
    """Away and back again ends no closer than it started, but the second hex comes closer."""
    game = board(disrupted("A", "2,0"), enemy("E", "8,0"))
    back = move(game, "A", "1,0", "2,0")
    assert back.legal is False
    assert "disrupted M1 may not move closer to T-72 in its LOS (2,0: 7 -> 6 hexes)" in [r.text for r in back.reasons]
    assert move(game, "A", "3,-1").legal is True        # sideways: 6 hexes before and after


def test_disrupted_unit_may_not_enter_a_hex_adjacent_to_an_enemy() -> None:
    game = board(disrupted("A", "6,0"), enemy("E", "7,0"))
    answer = move(game, "A", "7,-1")                     # sideways, still adjacent
    assert answer.legal is False
    assert "disrupted M1 may not enter 7,-1, adjacent to T-72 in its LOS" in [r.text for r in answer.reasons]
    assert move(board(disrupted("A", "5,0"), enemy("E", "7,0")), "A", "5,1").legal is True   # 2 -> 2 hexes


def test_closer_is_allowed_out_of_the_enemy_los() -> None:
    """Woods between: the enemy does not see 3,0, so the unit may come closer there."""
    game = board(disrupted("A", "2,0"), enemy("E", "8,0"), terrain={"5,0": "woods"})
    assert move(game, "A", "3,0").legal is True
    open_ground = board(disrupted("A", "2,0"), enemy("E", "8,0"))
    assert move(open_ground, "A", "3,0").legal is False


def test_good_order_unit_is_not_restricted() -> None:
    game = board(Unit("A", TANK, side="nato", hex="2,0"), enemy("E", "8,0"))
    assert move(game, "A", "3,0", "4,0", "5,0", "6,0").legal is True


def test_retreat_from_adjacent_enemy_books_differ() -> None:
    """A starts next to E1 and retreats west, towards E2 (in LOS): 001 forbids coming closer
    to E2; 002 lets the retreat from E1 go on while A is in E1's LOS."""
    game = board(disrupted("A", "4,0"), enemy("E1", "5,0"), enemy("E2", "0,0"))
    untold = move(game, "A", "3,0", ruleset=UNTOLD)
    assert untold.legal is False
    assert "disrupted M1 may not move closer to T-72 in its LOS (3,0: 4 -> 3 hexes)" in \
        [r.text for r in untold.reasons]
    eisenbach = move(game, "A", "3,0", ruleset=EISENBACH)
    assert eisenbach.legal is True
    # a retreat must still lead away from the enemy retreated from: sideways stays adjacent
    assert move(game, "A", "4,1", ruleset=EISENBACH).legal is False


def test_eisenbach_retreat_ends_when_out_of_the_enemy_los() -> None:
    """A retreats from E1 through 3,0 to 2,0, towards E2. In the open E1 still sees 2,0, so the
    002 retreat goes on; with woods in 3,0 the unit has left E1's LOS at 2,0 and the usual
    restriction holds again: 2,0 is closer to E2, who sees it."""
    units = (disrupted("A", "4,0"), enemy("E1", "5,0"), enemy("E2", "0,0"))
    assert move(board(*units), "A", "3,0", "2,0", ruleset=EISENBACH).legal is True
    hidden = move(board(*units, terrain={"3,0": "woods"}), "A", "3,0", "2,0", ruleset=EISENBACH)
    assert hidden.legal is False
    assert [r.text for r in hidden.reasons if r.section.endswith("§6.1.7")][-2:] == [
        "M1 leaves the LOS of the enemy it retreats from in 2,0: the retreat ends",
        "disrupted M1 may not move closer to T-72 in its LOS (2,0: 3 -> 2 hexes)"]
    assert move(board(*units), "A", "3,0", "2,0", ruleset=UNTOLD).legal is False


# -- §1.4 stacking during a move, TEC costs, 001 §1.3.4.6 Bridge units ------------------------

def friend(key: str, hex_id: str, utype: UnitType = TANK, **changes) -> Unit:
    return Unit(key, utype, side="nato", hex=hex_id, **changes)


def test_a_move_may_not_pass_through_a_full_hex() -> None:
    game = board(friend("A", "1,0"), friend("B", "2,0"), friend("C", "2,0"))
    answer = move(game, "A", "2,0", "3,0")
    assert answer.legal is False
    assert [(r.section, r.text) for r in answer.reasons] == [
        ("TUS §1.4", "2,0 already holds two combat units: the move may not pass through it")]
    # one unit there: passing through is fine; an HQ does not count
    hq = UnitType(name="HQ", target_type="hq", mp=6)
    assert move(board(friend("A", "1,0"), friend("B", "2,0"), friend("H", "2,0", hq)), "A", "2,0", "3,0").legal


def test_hill_costs_one_more_from_ground_level() -> None:
    game = board(friend("A", "1,0"), terrain={"2,0": "hill", "3,0": "hill", "4,0": "wooded_hill"})
    answer = move(game, "A", "2,0", "3,0", "4,0")
    # 2,0 from clear: 1 + 1; 3,0 from the hill: 1; 4,0 wooded hill from a hill: 2 (vehicle)
    assert answer.values["cost"] == 5 and answer.legal is True
    assert "2,0 (hill) entered from ground level: +1 MP" in [r.text for r in answer.reasons]
    woods_climb = move(board(friend("A", "1,0"), terrain={"2,0": "wooded_hill"}), "A", "2,0")
    assert woods_climb.values["cost"] == 3
    infantry = move(board(friend("I", "1,0", INFANTRY), terrain={"2,0": "wooded_hill"}), "I", "2,0")
    assert infantry.values["cost"] == 2 and infantry.legal is False      # MF 1


def test_a_bridge_hex_is_entered_from_a_road_hex() -> None:
    game = board(friend("A", "1,0"), terrain={"2,0": "bridge"})
    refused = move(game, "A", "2,0")
    assert refused.legal is False
    assert ("EG TEC Bridge", "2,0 is a bridge: it must be entered from an adjacent road hex") in \
        [(r.section, r.text) for r in refused.reasons]
    road = game.with_hex(HexState("1,0", terrain="clear", at=Hex(1, 0), features=frozenset({"road"})))
    assert move(road, "A", "2,0").values["cost"] == 1 and move(road, "A", "2,0").legal is True


MTU = UnitType(name="MTU-54", target_type="light_armor", steps=1, armor=1, save=6, mp=4,
               abilities=frozenset({"bridge"}))


def test_deployed_bridge_costs_two_or_three_when_disrupted() -> None:
    river = {"2,0": "river"}
    bare = board(friend("A", "1,0"), terrain=river)
    assert move(bare, "A", "2,0").legal is False                      # no movement into a river
    deployed = board(friend("A", "1,0"), friend("M", "2,0", MTU, mode="deployed"), terrain=river)
    assert move(deployed, "A", "2,0").values["cost"] == 2
    hit = deployed.with_unit(friend("M", "2,0", MTU, mode="deployed", status=Status(disrupted=True)))
    answer = move(hit, "A", "2,0")
    assert answer.values["cost"] == 3
    assert "onto the deployed MTU-54 in 2,0: 3 MP (the bridge is disrupted)" in [r.text for r in answer.reasons]
    # the deployed bridge does not count against stacking: two more units may stand on it
    full = deployed.with_unit(friend("B", "2,0"))
    assert move(full, "A", "2,0").legal is True
    # Eisenbach Gap has no Bridge units
    assert "not supported: TUS §1.3.4.6" in move(deployed, "A", "2,0", ruleset=EISENBACH).gaps["cost"]


def test_bridge_unit_enters_the_river_and_deploys_for_two_mp() -> None:
    game = board(friend("M", "1,0", MTU), terrain={"2,0": "river"})
    entered = move(game, "M", "2,0")
    assert entered.legal is True and entered.values["cost"] == 2
    there = game.with_unit(friend("M", "2,0", MTU, status=Status(mp_spent=2)))
    deploy = UNTOLD.check(there, make_action("mode_change", unit="M", choice="deployed"))
    assert deploy.legal is True and deploy.values["cost"] == 2 and deploy.unit_values["M"]["mp_after"] == 0
    assert [(type(e).__name__, e.mode) for e in deploy.events] == [("ModeChanged", "deployed")]
    tired = game.with_unit(friend("M", "2,0", MTU, status=Status(mp_spent=3)))
    late = UNTOLD.check(tired, make_action("mode_change", unit="M", choice="deployed"))
    assert late.legal is False and "1 MP left: deploying costs 2" in [r.text for r in late.reasons]
    dry = UNTOLD.check(game, make_action("mode_change", unit="M", choice="deployed"))
    assert dry.legal is False and "a bridge deploys in a River/Stream hex, not clear" in [r.text for r in dry.reasons]


# -- §6.4 Overrun -------------------------------------------------------------------------------

def overrun_board(**situation) -> Game:
    return board(friend("A", "1,0"), enemy("I", "2,0", INFANTRY), situation=situation)


def overrun(game: Game, *path: str, ruleset=UNTOLD, dice=None):
    return ruleset.resolve(game, make_action("overrun", unit="A", target="I", path=path), dice)


def test_overrun_same_hex_twice_by_book() -> None:
    """001: "in the same impulse"; 002: "in the same turn"; the fact names its scope."""
    again = overrun_board(overrun_hexes_this_impulse={"A": ["2,0"]}, overrun_hexes_this_turn={"A": ["2,0"]})
    untold = overrun(again, "3,0")
    assert untold.legal is False and untold.values["same_hex_twice"] is True
    assert ("TUS §6.4", "M1 already overran 2,0 this impulse") in [(r.section, r.text) for r in untold.reasons]
    eisenbach = overrun(again, "3,0", ruleset=EISENBACH)
    assert ("EG §6.4", "M1 already overran 2,0 this turn") in [(r.section, r.text) for r in eisenbach.reasons]
    # an earlier impulse of the same turn: legal under 001, not under 002
    earlier = overrun_board(overrun_hexes_this_impulse={"A": []}, overrun_hexes_this_turn={"A": ["2,0"]})
    assert overrun(earlier, "3,0").legal is True
    assert overrun(earlier, "3,0", ruleset=EISENBACH).legal is False
    unstated = overrun(overrun_board(), "3,0")
    assert unstated.legal is True
    assert unstated.gaps["same_hex_twice"] == "not stated: situation.overrun_hexes_this_impulse"


def test_overrun_exit_hex_must_be_free_of_enemies_and_affordable() -> None:
    ok = overrun_board(overrun_hexes_this_impulse={})
    answer = overrun(ok, "3,0")
    assert answer.legal is True and answer.values["cost"] == 2 and answer.values["exit_cost"] == 1
    blocked = ok.with_unit(enemy("E", "3,0"))
    refused = overrun(blocked, "3,0")
    assert refused.legal is False
    assert ("TUS §6.4", "the exit hex 3,0 holds enemy units") in [(r.section, r.text) for r in refused.reasons]
    crowded = overrun(ok.with_unit(friend("B", "3,0")).with_unit(friend("C", "3,0")), "3,0")
    assert crowded.legal is False and ("TUS §1.4", "3,0 already holds two combat units") in \
        [(r.section, r.text) for r in crowded.reasons]
    far = overrun(ok, "4,0")
    assert far.legal is False and "the exit hex 4,0 is not adjacent to 2,0" in [r.text for r in far.reasons]
    # 4 MP left: 2 for the overrun, woods to exit cost a vehicle 2 -> exactly enough; 3 left is not
    woods = board(friend("A", "1,0", status=Status(mp_left=4)), enemy("I", "2,0", INFANTRY),
                  terrain={"3,0": "woods"}, situation={"overrun_hexes_this_impulse": {}})
    assert overrun(woods, "3,0").legal is True
    short = woods.with_unit(friend("A", "1,0", status=Status(mp_left=3)))
    assert "1 MP left after the overrun: entering 3,0 costs 2" in [r.text for r in overrun(short, "3,0").reasons]


def test_overrun_targets_infantry_only() -> None:
    game = board(friend("A", "1,0"), enemy("I", "2,0", T72), situation={"overrun_hexes_this_impulse": {}})
    answer = overrun(game, "3,0")
    assert answer.legal is False
    assert ("TUS §6.4", "AFVs overrun enemy infantry: T-72 is a vehicle") in [(r.section, r.text) for r in answer.reasons]


def test_unhurt_overrunner_exits_into_the_exit_hex() -> None:
    game = overrun_board(overrun_hexes_this_impulse={})
    # 6 attack dice at 5+: three hits; the infantry counters with 3 dice at 4+: none; no saves rolled
    answer = overrun(game, "3,0", dice=GivenDice([5, 6, 5, 1, 1, 1, 1, 2, 3]))
    assert answer.values["hits"] == 3
    assert answer.rolls == [("attack", [5, 6, 5, 1, 1, 1]), ("counter", [1, 2, 3])]
    # TUS §6.4: the AFV "moves ... through the hex" and fights there, then exits
    assert [(type(e).__name__, e.unit) for e in answer.events] == [
        ("UnitMoved", "A"), ("UnitDisrupted", "I"), ("UnitReduced", "I"), ("UnitEliminated", "I"), ("UnitMoved", "A")]
    assert answer.events[0].hex == "2,0"
    assert answer.events[-1].hex == "3,0"


# -- 001 §9.5 AA fire inside the airstrike, 001 §9.6 air cover ---------------------------------

PLANE = UnitType(name="A-10", target_type="aircraft", armor=1, save=5, ap=Weapon(fp=4, to_hit=4), he=Weapon(fp=4, to_hit=4))
ZSU = UnitType(name="ZSU-23-4", target_type="light_armor", steps=1, armor=1, save=6, mp=5,
               aa=Weapon(fp=3, to_hit=4, range=3))
COVER = UnitType(name="MiG-29", target_type="aircraft", aa=Weapon(fp=2, to_hit=4), abilities=frozenset({"air_cover"}))


def strike_board(*extra: Unit) -> Game:
    plane = Unit("P", PLANE, side="nato", location="held")
    return board(plane, enemy("T", "4,0"), enemy("Z", "6,0", ZSU), enemy("Y", "8,-2", ZSU), *extra)


def strike(game: Game, *aa: str, dice=None, ruleset=UNTOLD):
    return ruleset.resolve(game, make_action("airstrike", unit="P", target="4,0", supporting=aa), dice)


def test_airstrike_lists_the_aa_units_in_range() -> None:
    answer = strike(strike_board(), dice=GivenDice([4, 4, 1, 1, 5]))
    assert answer.values["aa_eligible"] == ["Z"]            # Y is 4 hexes away, AA range 3
    assert "aa_hits" not in answer.values and answer.values["hits"] == 2


def test_one_aa_hit_aborts_the_strike() -> None:
    # Z: 3 AA dice at 4+ -> 2 hits; A-10 armor 1 at 5+ saves one; 1 net hit: abort, 1d6 = 2: to base
    answer = strike(strike_board(), "Z", dice=GivenDice([4, 5, 1, 6, 2]))
    assert (answer.values["aa_hits"], answer.values["saves"], answer.values["net_hits"]) == (2, 1, 1)
    assert answer.values["aborted"] is True and "hits" not in answer.values
    assert answer.rolls == [("aa", [4, 5, 1]), ("aa_save", [6]), ("abort_d6", [2])]
    assert [(type(e).__name__, e.unit) for e in answer.events] == [("StatusChanged", "Z"), ("UnitRemoved", "P")]
    assert answer.events[1].location == "removed"


def test_two_aa_hits_shoot_the_strike_down() -> None:
    answer = strike(strike_board(), "Z", dice=GivenDice([4, 5, 6, 2]))
    assert answer.values["net_hits"] == 3 and answer.values["aborted"] is True
    assert [type(e).__name__ for e in answer.events] == ["StatusChanged", "UnitEliminated"]


def test_a_missed_strike_goes_on_against_the_hex() -> None:
    # AA misses (no armor roll); AP 4 dice at 4+ -> 2 hits; status 1d6 = 5 > 2: back to the cup;
    # clear terrain rolls no DB dice; the T-72 is disrupted and reduced
    answer = strike(strike_board(), "Z", dice=GivenDice([1, 2, 3, 4, 4, 1, 1, 5]))
    assert answer.values["aa_hits"] == 0 and answer.values["aborted"] is False
    assert (answer.values["hits"], answer.values["net_hits"], answer.values["ordnance_remaining"]) == (2, 2, True)
    assert [(type(e).__name__, e.unit) for e in answer.events] == [
        ("StatusChanged", "Z"), ("UnitRemoved", "P"), ("UnitDisrupted", "T"), ("UnitReduced", "T")]


def test_aa_out_of_range_or_spent_may_not_fire() -> None:
    far = strike(strike_board(), "Y", dice=GivenDice([6] * 10))
    assert far.legal is False and "ZSU-23-4 is 4 hexes from 4,0: AA range 3" in [r.text for r in far.reasons]
    spent = strike_board().with_unit(Unit("Z", ZSU, side="pact", hex="6,0", status=Status(ops_complete=True)))
    answer = strike(spent, "Z", dice=GivenDice([6] * 10))
    assert answer.legal is False and answer.rolls == []


def test_air_cover_counters_the_strike_and_leaves_play() -> None:
    held = strike(strike_board(Unit("C", COVER, side="pact", location="held")), "C", dice=GivenDice([4, 4, 1, 3]))
    assert held.values["net_hits"] == 2
    assert [(type(e).__name__, e.unit) for e in held.events] == [("UnitRemoved", "C"), ("UnitEliminated", "P")]
    in_cup = strike(strike_board(Unit("C", COVER, side="pact", location="cup")), "C", dice=GivenDice([6] * 9))
    assert in_cup.legal is False
    assert "air cover not yet pulled from the cup cannot counter" in [r.text for r in in_cup.reasons]


def test_checking_a_defended_strike_leaves_its_outcome_open() -> None:
    answer = UNTOLD.check(strike_board(), make_action("airstrike", unit="P", target="4,0", supporting=("Z",)))
    assert [(type(e).__name__, e.unit) for e in answer.events] == [("StatusChanged", "Z")]
    assert answer.gaps["hits"] == "not stated: dice.aa (the AA fire decides whether the strike goes on, 001 §9.5)"
    given = UNTOLD.check(strike_board(), make_action("airstrike", unit="P", target="4,0", supporting=("Z",),
                                                     hits={"Z": 0, "P": 3}))
    assert given.values["aa_hits"] == 0 and given.values["hits"] == 3
    assert "not supported: TUS §9.5" in strike(strike_board(), ruleset=EISENBACH).gaps["*"]


# -- §8.2 Smoke screens its six neighbouring hexes -----------------------------------------------

ABRAMS = UnitType(name="Abrams", target_type="heavy_armor", armor=4, save=5, mp=5, ap=Weapon(fp=4, to_hit=4, range=8))


def los(game: Game, ruleset=UNTOLD):
    answer = ruleset.check(game, make_action("los", unit="A", target="T"))
    return answer.values["blocked"], [str(r) for r in answer.reasons]


def smoke_board(attacker: str, target: str, smoke: str, utype: UnitType = T72) -> Game:
    return board(Unit("A", utype, side="pact", hex=attacker), friend("T", target), markers={smoke: {"smoke_2"}})


def test_smoke_blocks_through_its_neighbours() -> None:
    # the line 0,0 -> 6,0 passes 3,0 and 4,0, both next to the Smoke in 4,-1
    assert los(smoke_board("0,0", "6,0", "4,-1")) == (True, ["Smoke blocks the LOS through 3,0, next to the Smoke in 4,-1 (TUS §8.2)"])
    assert los(smoke_board("0,0", "6,0", "4,-2")) == (False, ["no blocking terrain (TUS §7.1)"])


def test_smoke_blocks_into_a_neighbouring_hex_in_both_books() -> None:
    game = smoke_board("8,3", "8,-2", "8,-3")
    for ruleset in (UNTOLD, EISENBACH):
        assert los(game, ruleset) == (True, [f"Smoke blocks the LOS into 8,-2, next to the Smoke in 8,-3 "
                                             f"({ruleset.book.short} §8.2)"])
    fire = UNTOLD.check(game, make_action("direct_fire", unit="A", target="T", weapon="ap"))
    assert fire.legal is False
    assert "no line of sight to M1: Smoke blocks the LOS into 8,-2, next to the Smoke in 8,-3 (TUS §8.2)" in \
        [str(r) for r in fire.reasons]


def test_seeing_out_of_a_neighbouring_hex_differs_by_book() -> None:
    """001: "out of, into and through"; 002: "into and through" only."""
    game = smoke_board("8,-2", "8,3", "8,-3")
    assert los(game, UNTOLD) == (True, ["Smoke blocks the LOS out of 8,-2, next to the Smoke in 8,-3 (TUS §8.2)"])
    assert los(game, EISENBACH) == (False, ["no blocking terrain (EG §7.1)"])


def test_adjacent_units_and_thermal_sights_see_past_the_screen() -> None:
    assert los(smoke_board("8,-1", "8,-2", "8,-3"))[0] is False
    thermal = smoke_board("8,3", "8,-2", "8,-3", ABRAMS)
    assert los(thermal, EISENBACH)[0] is False
    assert los(thermal, UNTOLD)[0] is True            # no Advanced Imaging list in The Untold Stories text


# -- §8.0 who calls artillery ----------------------------------------------------------------------

RECON = UnitType(name="BRDM-2", target_type="light_armor", armor=1, save=6, mp=6, abilities=frozenset({"recon"}))
HQ = UnitType(name="HQ", target_type="hq", mp=6)
MORTAR = UnitType(name="120mm", target_type="soft_vehicle", arty_type="mrtr", he=Weapon(fp=3, to_hit=5, range=12))


def call(caller: Unit, ruleset, *extra: Unit, unit: str | None = None):
    game = board(caller, enemy("T", "6,0"), *extra)
    game = Game(units=game.units, hexes=game.hexes, facts=Facts(relations={"T": Relation(los=False)}))
    mission = None if unit else Mission("he", 4, 5)
    return ruleset.check(game, make_action("indirect_fire", unit=unit, target="T" if unit else "6,0",
                                           spotter=caller.key, mission=mission))


def test_recon_calls_fire_missions_in_both_books() -> None:
    """§1.3.4.4 (both books): "Recon platoons may call for artillery fire just as an HQ can";
    EG §8.0 names only the HQ, read with its own §1.3.4.4 it does not exclude recon."""
    recon = friend("R", "2,0", RECON, formation="F")
    assert call(recon, UNTOLD).legal is True
    eisenbach = call(recon, EISENBACH)
    assert eisenbach.legal is True
    assert ("EG §8.0", "BRDM-2 calls the fire") in [(r.section, r.text) for r in eisenbach.reasons]
    # a mortar's spotter may be recon in both books (§1.3.4.3)
    mortar = friend("M", "0,0", MORTAR, formation="F")
    assert call(recon, EISENBACH, mortar, unit="M").legal is True


def test_calling_a_mission_is_the_first_action() -> None:
    moved = friend("H", "2,0", HQ, formation="F", status=Status(mp_spent=2))
    answer = call(moved, EISENBACH)
    assert answer.legal is False and "calling artillery must be HQ's FIRST action" in [r.text for r in answer.reasons]
    assert call(friend("H", "2,0", HQ, formation="F"), EISENBACH).legal is True


def test_a_called_mission_spends_one_of_the_scenario_missions() -> None:
    """§8.0 (both books): the scenario's "1 x 4/5" gives the number of fire missions; a call
    spends one and a call beyond those left is refused."""
    hq = friend("H", "2,0", HQ, formation="F")

    def called(left: int, count: int = 1):
        game = board(hq, enemy("T", "6,0"))
        game = Game(units=game.units, hexes=game.hexes,
                    facts=Facts(relations={"T": Relation(los=False)}, situation={"strikes_left": left}))
        return EISENBACH.check(game, make_action("indirect_fire", target="6,0", spotter="H",
                                                  mission=Mission("he", 4, 5), count=count))
    assert called(2).values["situation"] == {"strikes_left": 1}
    assert called(2, count=2).values["situation"] == {"strikes_left": 0}
    short = called(1, count=2)
    assert short.legal is False and ("EG §8.0", "1 fire mission(s) left, 2 called") in \
        [(r.section, r.text) for r in short.reasons]
    none = called(0)
    assert none.legal is False and "no fire missions of this type are left" in [r.text for r in none.reasons]


# -- Mines attack a moving unit (002 §8.3, 001 §12.2); roads along hexsides ------------------------

def test_a_move_lists_and_rolls_the_mines_attacks() -> None:
    game = board(friend("A", "1,0"), enemy("E", "0,3"), markers={"3,-1": {"mines"}})
    checked = move(game, "A", "2,0", "3,0", "4,0")
    assert checked.legal is True and checked.values["mines_attacks"] == ["3,-1", "3,-1"]   # 2,0 and 3,0
    # 001: odd disrupts. 2 = no effect, then 3 = disrupted in 3,0; 4,0 is farther from E: the move stands
    rolled = UNTOLD.resolve(game, make_action("move", unit="A", path=("2,0", "3,0", "4,0")), GivenDice([2, 3]))
    assert rolled.legal is True and rolled.rolls == [("mines", [2]), ("mines", [3])]
    assert [(type(e).__name__, e.unit) for e in rolled.events] == [
        ("UnitDisrupted", "A"), ("UnitMoved", "A"), ("StatusChanged", "A"), ("StatusChanged", "A")]
    # 002: even disrupts, and a 6 also removes the marker: no second attack
    removed = EISENBACH.resolve(game, make_action("move", unit="A", path=("2,0", "3,0", "4,0")), GivenDice([6]))
    assert removed.rolls == [("mines", [6])]
    assert [type(e).__name__ for e in removed.events] == ["UnitDisrupted", "MarkerRemoved", "UnitMoved", "StatusChanged",
                                                               "StatusChanged"]   # Ops Complete, still moving (§6.2)


def test_disrupted_by_mines_the_rest_of_the_move_is_disrupted_movement() -> None:
    game = board(friend("A", "1,0"), enemy("E", "8,0"), markers={"2,-1": {"mines"}})
    answer = UNTOLD.resolve(game, make_action("move", unit="A", path=("2,0", "3,0")), GivenDice([1, 2]))
    assert answer.legal is False
    assert [r.text for r in answer.reasons][-2:] == [
        "disrupted by the Mines in 2,-1: the rest of the move is Disrupted movement",
        "disrupted M1 may not move closer to T-72 in its LOS (3,0: 6 -> 5 hexes)"]
    assert [type(e).__name__ for e in answer.events] == ["UnitDisrupted"]


def test_road_on_the_hexside_costs_one() -> None:
    woods = board(friend("A", "1,0"), terrain={"2,0": "woods"})
    assert move(woods, "A", "2,0").values["cost"] == 2
    toward = Hex(2, 0).direction_to(Hex(1, 0))
    side = woods.with_hex(HexState("2,0", terrain="woods", at=Hex(2, 0), hexsides={toward: frozenset({"road"})}))
    assert move(side, "A", "2,0").values["cost"] == 1


# -- §8.4 Chemical: the marker's six neighbours ------------------------------------------------------

def test_entering_a_hex_next_to_a_chemical_marker_costs_two_more() -> None:
    game = board(friend("A", "1,0"), markers={"3,-1": {"chemical"}})
    answer = move(game, "A", "2,0", "2,1")
    # 2,0 is next to the marker (+2), 2,1 is not
    assert answer.values["cost"] == 4
    assert [(m.applies_to, m.value, m.why) for m in answer.modifiers] == [
        ("cost", 2, "Chemical marker in 3,-1, next to 2,0")]


def test_a_chemical_barrage_checks_the_six_neighbours_too() -> None:
    foot = UnitType(name="MR", target_type="troops", steps=2)
    units = [Unit("I", foot, side="nato", hex="4,0", strength="full", morale=6),
             Unit("J", foot, side="nato", hex="5,0", strength="full", morale=6),
             Unit("K", foot, side="nato", hex="6,0", strength="full", morale=6)]
    game = board(*units)
    # I (in the hex) rolls 2+1 = 3 and passes; J (neighbour) rolls 4+4 = 8 and fails; K is two hexes away
    answer = EISENBACH.resolve(game, make_action("place_marker", target="4,0", choice="chemical"),
                               GivenDice([2, 1, 4, 4]))
    assert [(type(e).__name__, getattr(e, "unit", None)) for e in answer.events] == [
        ("MarkerPlaced", None), ("UnitDisrupted", "J"), ("UnitReduced", "J")]
    mission = make_action("indirect_fire", target="4,0", mission=Mission("chemical"))
    fired = UNTOLD.resolve(game, mission, GivenDice([3, 2, 1, 4, 4]))   # the accuracy roll (3) comes first
    assert fired.rolls[0] == ("d6", [3]) and fired.values["scatter"] == []
    assert [type(e).__name__ for e in fired.events] == ["MarkerPlaced", "UnitDisrupted", "UnitReduced"]


def test_who_may_assault_or_overrun() -> None:
    def assault(attacker: Unit):
        game = board(attacker, enemy("I", "2,0", INFANTRY), situation={"overrun_hexes_this_impulse": {}})
        return UNTOLD.check(game, make_action("assault", unit="A", target="I"))
    assert assault(friend("A", "1,0")).legal is True
    tired = assault(friend("A", "1,0", status=Status(ops_complete=True)))
    assert tired.legal is False and ("TUS §4.4", "M1 is Ops Complete and cannot assault") in \
        [(r.section, r.text) for r in tired.reasons]
    shaken = assault(friend("A", "1,0", status=Status(disrupted=True)))
    assert ("TUS §6.1.7", "disrupted M1 may not move into an enemy's hex") in [(r.section, r.text) for r in shaken.reasons]
    fired = friend("A", "1,0", status=Status(moving=True, fired=True))
    assert ("TUS §6.1.3", "M1 made Moving Fire and cannot assault") in [(r.section, r.text) for r in assault(fired).reasons]
    game = board(fired, enemy("I", "2,0", INFANTRY), situation={"overrun_hexes_this_impulse": {}})
    over = UNTOLD.check(game, make_action("overrun", unit="A", target="I", path=("3,0",)))
    assert over.legal is False and "M1 made Moving Fire and cannot overrun" in [r.text for r in over.reasons]


# -- §9.1 helicopters on the move ----------------------------------------------------------------------

HIND = UnitType(name="Mi-24", target_type="helicopter", steps=1, armor=1, save=5, he=Weapon(fp=4, to_hit=5, range=4))


def test_helicopters_ignore_terrain_and_fly_only() -> None:
    hind = Unit("H", HIND, side="pact", hex="0,0", mode="flying")
    game = board(hind, friend("A", "2,0"), terrain={"1,0": "river", "2,0": "woods"})
    answer = move(game, "H", "1,0", "2,0", "3,0")
    assert answer.legal is True and (answer.values["cost"], answer.values["hexes"], answer.values["may_fire"]) == (0, 3, True)
    far = game.with_unit(Unit("H", HIND, side="pact", hex="0,0", mode="flying", status=Status(mp_spent=11)))
    late = move(far, "H", "1,0", "2,0")
    assert late.values["may_fire"] is False and "more than 12 hexes: Mi-24 may not fire this impulse" in \
        [r.text for r in late.reasons]
    hovering = move(game.with_unit(Unit("H", HIND, side="pact", hex="0,0", mode="hovering")), "H", "1,0")
    assert hovering.legal is False
    assert "Mi-24 is hovering: helicopters move only in Flying mode" in [r.text for r in hovering.reasons]
    cobra = Unit("C", UnitType(name="AH-1", target_type="helicopter"), side="nato", hex="3,0", mode="flying")
    blocked = move(game.with_unit(cobra), "H", "1,0", "2,0", "3,0")
    assert blocked.legal is False and "3,0 holds an enemy helicopter" in [r.text for r in blocked.reasons]


# -- §6.2 Opportunity Fire occurs before Moving Fire, judged on the map ----------------------

MOVER = UnitType(name="Leopard 2", target_type="heavy_armor", steps=2, armor=4, save=5, mp=6,
                 ap=Weapon(fp=4, to_hit=4, range=8), abilities=frozenset({"moving_fire_l2"}))


def _move_and_fire(*terrain: str):
    """The mover fired after moving 1,0 <- 0,0 at a T-72 that is Ops Complete; another T-72
    at 5,0 sees the mover unless a Woods hex stands between."""
    game = board(Unit("M", MOVER, side="nato", hex="1,0", status=Status(moving=True, mp_spent=1)),
                 Unit("T", T72, side="pact", hex="4,3", status=Status(ops_complete=True)),
                 enemy("E", "5,0"), terrain={h: "woods" for h in terrain})
    return UNTOLD.check(game, make_action("move_and_fire", unit="M", target="T", weapon="ap"))


def test_opportunity_fire_before_moving_fire_by_the_maps_line_of_sight() -> None:
    """TUS §6.2: "Opportunity Fire occurs before Moving Fire (6.1.3)": the T-72 at 5,0 has the
    mover in its LOS and range, so it fires first; with Woods at 3,0 it does not see it."""
    seen = _move_and_fire()
    assert seen.legal is True and seen.values["order"] == ["opportunity_fire", "move_and_fire"]
    assert any(r.section == "TUS §6.2" and r.text.startswith("T-72 may Opportunity Fire") for r in seen.reasons)
    hidden = _move_and_fire("3,0")
    assert hidden.legal is True and hidden.values["order"] == ["move_and_fire"]
