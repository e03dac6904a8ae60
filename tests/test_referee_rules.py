"""Classic rules beyond the rule-case file: smoke, traced LOS in fire, opportunity fire,
movement along a path, helicopter mode change, artillery accuracy, SW loss."""
from __future__ import annotations

import pytest

from referee.actions import (DirectFire, ModeChange, Move, OpportunityFire, make_action)
from referee.classic import classic
from referee.dice import GivenDice
from referee.events import ModeChanged, StatusChanged, UnitEliminated, UnitMoved
from referee.hexes import Hex
from referee.model import Facts, Game, HexState, Status, Unit, UnitType, Weapon

ABRAMS = UnitType(name="Abrams", target_type="heavy_armor", armor=4, save=5, mp=5,
                  ap=Weapon(fp=4, to_hit=4, range=6))
T72 = UnitType(name="T-72", target_type="heavy_armor", armor=4, save=6, mp=4,
               ap=Weapon(fp=4, to_hit=5, range=6))


def row(terrain: dict[int, str] | None = None, markers: dict[int, frozenset[str]] | None = None,
        **units: tuple[UnitType, int, str]) -> Game:
    terrain, markers = terrain or {}, markers or {}
    hexes = {f"h{q}": HexState(f"h{q}", terrain=terrain.get(q, "clear"), at=Hex(q, 0),
                               markers=markers.get(q, frozenset())) for q in range(10)}
    return Game(units={k: Unit(k, t, side=s, hex=f"h{q}", strength="full") for k, (t, q, s) in units.items()},
                hexes=hexes)


def test_smoke_adjacent_fire_is_plus_one_and_blocks_from_afar() -> None:
    smoke = {3: frozenset({"smoke_2"})}
    near = row(markers=smoke, A=(T72, 2, "pact"), T=(ABRAMS, 3, "nato"))
    verdict = classic("untold").check(near, DirectFire(unit="A", target="T", weapon="ap"))
    assert verdict.legal is True and verdict.values["to_hit"] == 5     # 5 - 1 point blank + 1 smoke
    far = row(markers=smoke, A=(T72, 0, "pact"), T=(ABRAMS, 3, "nato"))
    verdict = classic("untold").check(far, DirectFire(unit="A", target="T", weapon="ap"))
    assert verdict.legal is False
    assert "no line of sight to Abrams: Smoke blocks the LOS through h2, next to the Smoke in h3 (TUS §8.2)" in \
        map(str, verdict.reasons)


def test_thermal_sights_see_through_smoke_in_eisenbach_gap() -> None:
    game = row(markers={3: frozenset({"smoke_1"})}, A=(ABRAMS, 0, "nato"), T=(T72, 3, "pact"))
    verdict = classic("eisenbach").check(game, DirectFire(unit="A", target="T", weapon="ap"))
    assert verdict.legal is True and verdict.values["to_hit"] == 4     # 4 - 1 point blank + 1 thermal
    assert any(m.why == "thermal sights through Smoke" for m in verdict.modifiers)
    assert classic("untold").check(game, DirectFire(unit="A", target="T", weapon="ap")).legal is False


def test_fire_traces_the_line_of_sight_on_the_map() -> None:
    blocked = row({2: "woods"}, A=(T72, 0, "pact"), T=(ABRAMS, 4, "nato"))
    verdict = classic("untold").check(blocked, DirectFire(unit="A", target="T", weapon="ap"))
    assert verdict.legal is False
    assert "no line of sight to Abrams: woods hex h2 blocks (TUS §7.1)" in map(str, verdict.reasons)
    adjacent = row({1: "woods"}, A=(T72, 0, "pact"), T=(ABRAMS, 1, "nato"))
    assert classic("untold").check(adjacent, DirectFire(unit="A", target="T", weapon="ap")).legal is True


def test_opportunity_fire_needs_a_moving_target_once_per_hex() -> None:
    game = row(A=(T72, 0, "pact"), T=(ABRAMS, 3, "nato"))
    assert classic("untold").check(game, OpportunityFire(unit="A", target="T", weapon="ap")).legal is False
    moving = game.with_unit(game.units["T"].with_status(moving=True))
    assert classic("untold").check(moving, OpportunityFire(unit="A", target="T", weapon="ap")).legal is True
    ooc = moving.with_unit(moving.units["A"].with_status(out_of_command=True))
    assert classic("untold").check(ooc, OpportunityFire(unit="A", target="T", weapon="ap")).legal is True
    assert classic("untold").check(ooc, DirectFire(unit="A", target="T", weapon="ap")).legal is False
    again = Game(units=moving.units, hexes=moving.hexes, facts=Facts(situation={"opfire_count": 1}))
    assert classic("untold").check(again, OpportunityFire(unit="A", target="T", weapon="ap")).legal is False


def test_move_along_a_path_pays_the_terrain_chart() -> None:
    game = row({1: "woods", 2: "rough", 3: "clear"}, A=(ABRAMS, 0, "nato"))
    answer = classic("eisenbach").check(game, Move(unit="A", path=("h1", "h2", "h3")))
    assert answer.values["cost"] == 5 and answer.legal is True
    assert answer.events == [UnitMoved("A", "h3"), StatusChanged("A", "ops_complete", True),
                             StatusChanged("A", "moving", True)]     # open to Opportunity Fire in this run (§6.2)
    assert answer.unit_values["A"]["mp_after"] == 0
    too_far = classic("eisenbach").check(game, Move(unit="A", path=("h1", "h2", "h3", "h4")))
    assert too_far.legal is False and too_far.events == []
    lake = row({1: "lake"}, A=(ABRAMS, 0, "nato"))
    assert classic("eisenbach").check(lake, Move(unit="A", path=("h1",))).legal is False


def test_helicopter_mode_change_is_the_first_action() -> None:
    hind = UnitType(name="Hind", target_type="helicopter")
    game = Game(units={"A": Unit("A", hind, mode="flying")})
    answer = classic("untold").check(game, ModeChange(unit="A", choice="hovering"))
    assert answer.legal is True and answer.events == [ModeChanged("A", "hovering")]
    moved = Game(units={"A": Unit("A", hind, mode="flying", status=Status(mp_spent=3))})
    assert classic("untold").check(moved, ModeChange(unit="A", choice="hovering")).legal is False
    assert classic("untold").check(game, ModeChange(unit="A", choice="flying")).legal is False


def test_artillery_accuracy_roll() -> None:
    ruleset = classic("eisenbach")
    hit = ruleset.resolve(Game(), make_action("scatter", target="x"), GivenDice([5]))
    assert hit.values["outcome"] == "on_target" and hit.values["passed"] is True
    miss = ruleset.resolve(Game(), make_action("scatter", target="x"), GivenDice([6]))
    assert miss.values["outcome"] == "adjacent_hex_chosen_by_opponent"


def test_support_weapon_loss_after_the_second_platoon() -> None:
    infantry = UnitType(name="Soviet infantry", target_type="troops")
    sagger = UnitType(name="Sagger", target_type="support_weapon")
    game = Game(units={"P1": Unit("P1", infantry, side="pact", location="eliminated"),
                       "P2": Unit("P2", infantry, side="pact", location="eliminated"),
                       "SW": Unit("SW", sagger, side="pact", location="unplaced")})
    answer = classic("untold").resolve(game, make_action("sw_loss_check", side="pact"), GivenDice([2]))
    assert answer.values["modified_roll"] == 1 and answer.values["passed"] is False
    assert answer.events == [UnitEliminated("SW")]
    answer = classic("untold").resolve(game, make_action("sw_loss_check", side="pact"), GivenDice([3]))
    assert answer.values["passed"] is True and answer.events == []


HIND = UnitType(name="Hind", target_type="helicopter", armor=2, save=5, he=Weapon(fp=4, to_hit=5, range=4))


def _los(game: Game, a: str, t: str, book: str = "eisenbach") -> bool:
    from referee.actions import LineOfSight
    return classic(book).check(game, LineOfSight(unit=a, target=t)).values["blocked"]


def test_helicopter_line_of_sight_table() -> None:
    assert _los(row({2: "woods"}, A=(HIND, 0, "pact"), T=(ABRAMS, 3, "nato")), "A", "T") is True
    assert _los(row({2: "woods"}, A=(HIND, 0, "pact"), T=(ABRAMS, 4, "nato")), "A", "T") is False
    assert _los(row({2: "city"}, A=(HIND, 0, "pact"), T=(ABRAMS, 4, "nato")), "A", "T") is True
    assert _los(row({2: "city"}, A=(HIND, 0, "pact"), T=(ABRAMS, 5, "nato")), "A", "T") is False
    assert _los(row({2: "hill"}, A=(HIND, 0, "pact"), T=(ABRAMS, 5, "nato")), "A", "T") is True
    assert _los(row({2: "wooded_hill", 5: "hill"}, A=(HIND, 0, "pact"), T=(ABRAMS, 5, "nato")), "A", "T") is True
    assert _los(row({2: "rough", 3: "rough"}, A=(HIND, 0, "pact"), T=(ABRAMS, 5, "nato")), "A", "T") is False


def test_line_of_sight_to_a_helicopter_is_read_from_the_helicopter() -> None:
    hidden = row({2: "woods"}, A=(ABRAMS, 3, "nato"), T=(HIND, 0, "pact"))
    assert _los(hidden, "A", "T") is True
    seen = row({2: "woods"}, A=(ABRAMS, 4, "nato"), T=(HIND, 0, "pact"))
    assert _los(seen, "A", "T") is False


def test_apply_damage_without_hits_or_result_is_a_gap() -> None:
    from referee.actions import ApplyDamage
    game = Game(units={"T": Unit("T", ABRAMS, strength="full")})
    answer = classic("untold").check(game, ApplyDamage(target="T"))
    assert answer.gaps == {"*": "not stated: query.hits or query.result"}
    answer = classic("untold").check(game, ApplyDamage(target="T", hits=2))
    assert [type(e).__name__ for e in answer.events] == ["UnitDisrupted", "UnitReduced"]
    assert answer.unit_values["T"] == {"hits": 2}


def test_aa_fire_at_an_airstrike() -> None:
    """TUS §9.5: "in-range, on-map" AA units of the defending player shoot at the airstrike
    counter in its target hex (no LOS needed): one hit aborts it, two shoot it down."""
    from referee.actions import AaFire
    shilka = UnitType(name="ZSU-23-4 Shilka", target_type="light_armor", aa=Weapon(fp=3, to_hit=4, range=4))
    strike = UnitType(name="Airstrike", target_type="aircraft", armor=1, save=6)
    game = row(S=(shilka, 0, "pact"), X=(strike, 4, "nato"))
    ruleset = classic("untold")
    assert ruleset.check(game, AaFire(unit="S", target="X")).legal is True        # at the AA range 4
    far = row(S=(shilka, 0, "pact"), X=(strike, 5, "nato"))
    refused = ruleset.check(far, AaFire(unit="S", target="X"))
    assert refused.legal is False and str(refused.reasons[-1]).startswith("ZSU-23-4 Shilka is 5 hexes")
    own = row(S=(shilka, 0, "nato"), X=(strike, 3, "nato"))
    assert ruleset.check(own, AaFire(unit="S", target="X")).legal is False
    nowhere = Game(units={"S": Unit("S", shilka, side="pact", hex="a"),
                          "X": Unit("X", strike, side="nato", location="map")})
    assert ruleset.check(nowhere, AaFire(unit="S", target="X")).legal is None   # not stated: distance
    game = row(S=(shilka, 0, "pact"), X=(strike, 3, "nato"))
    aborted = ruleset.resolve(game, AaFire(unit="S", target="X"), GivenDice([4, 1, 2, 3, 5]))
    assert (aborted.values["hits"], aborted.values["saves"], aborted.values["net_hits"]) == (1, 0, 1)
    assert aborted.events[-1].location == "cup"            # 1d6 = 5: circles back
    shot_down = ruleset.resolve(game, AaFire(unit="S", target="X"), GivenDice([4, 6, 2, 1]))
    assert shot_down.values["net_hits"] == 2
    assert type(shot_down.events[-1]).__name__ == "UnitEliminated"
    assert shot_down.events[0] == StatusChanged("S", "ops_complete", True)


def test_disrupted_units_may_not_close_on_an_enemy_in_los() -> None:
    game = row(A=(ABRAMS, 2, "nato"), E=(T72, 6, "pact"))
    game = game.with_unit(game.units["A"].with_status(disrupted=True))
    ruleset = classic("eisenbach")
    closer = ruleset.check(game, Move(unit="A", path=("h3",)))
    assert closer.legal is False and "§6.1.7" in str(closer.reasons[-1])
    away = ruleset.check(game, Move(unit="A", path=("h1",)))
    assert away.legal is True
    hidden = row({4: "woods"}, A=(ABRAMS, 2, "nato"), E=(T72, 6, "pact"))
    hidden = hidden.with_unit(hidden.units["A"].with_status(disrupted=True))
    assert ruleset.check(hidden, Move(unit="A", path=("h3",))).legal is True


def test_stacking_applies_during_movement() -> None:
    game = row(A=(ABRAMS, 0, "nato"), B=(ABRAMS, 1, "nato"), C=(ABRAMS, 1, "nato"))
    answer = classic("untold").check(game, Move(unit="A", path=("h1",)))
    assert answer.legal is False
    assert str(answer.reasons[-1]) == "h1 already holds two combat units (TUS §1.4)"


def test_at_most_two_fire_missions_at_once() -> None:
    from referee.actions import Artillery, Mission
    hq = UnitType(name="HQ", target_type="hq")
    game = Game(units={"H": Unit("H", hq, formation="F", hex="h")}, hexes={"x": HexState("x", terrain="clear")})
    ruleset = classic("eisenbach")
    two = ruleset.check(game, Artillery(target="x", spotter="H", count=2, mission=Mission("he", 4, 5)))
    assert two.legal is True and two.values["roll_required"] is True
    three = ruleset.check(game, Artillery(target="x", spotter="H", count=3, mission=Mission("he", 4, 5)))
    assert three.legal is False


def test_counterattack_of_a_disrupted_defender_hits_on_six() -> None:
    from referee.model import AssaultValue
    infantry = UnitType(name="infantry", target_type="troops", assault=AssaultValue(2, 4))
    game = row(D=(infantry, 1, "pact"), A=(ABRAMS, 1, "nato"))
    game = game.with_unit(game.units["D"].with_status(disrupted=True))
    answer = classic("untold").resolve(game, make_action("counterattack", unit="D", target="A"), GivenDice([6, 5]))
    assert (answer.values["fp"], answer.values["to_hit"], answer.values["hits"]) == (2, 6, 1)


def test_a_chemical_marker_checks_every_unit_in_the_hex() -> None:
    infantry = UnitType(name="infantry", target_type="troops")
    game = row(I=(infantry, 2, "nato"), K=(ABRAMS, 2, "nato"))
    game = Game(units={k: Unit(k, u.type, side="nato", hex="h2", strength="full", morale=6)
                       for k, u in game.units.items()}, hexes=game.hexes)
    answer = classic("eisenbach").resolve(game, make_action("place_marker", target="h2", choice="chemical"),
                                          GivenDice([4, 4, 1, 2]))
    assert [type(e).__name__ for e in answer.events] == ["MarkerPlaced", "UnitDisrupted", "UnitReduced"]
    assert {e.unit for e in answer.events[1:]} == {"I"}      # I rolls 8 and fails, K rolls 3


def test_hard_target_db_cap_reason_reads_like_the_book() -> None:
    t64 = UnitType(name="T-64", target_type="heavy_armor", armor=3, save=5)
    game = row({5: "city"}, {5: frozenset({"wrecks"})}, A=(ABRAMS, 0, "nato"), T=(t64, 5, "pact"))
    verdict = classic("eisenbach").check(game, DirectFire(unit="A", target="T", weapon="ap"))
    assert verdict.values["db_dice"] == 2
    # the Wreck gives vehicles 2 (TEC: "1; +1 for Vehicles"), more than the city's 1
    assert "T-64: DB 2 Wreck + 1 concealed, capped at 2 (EG §6.1.5, §6.1.6)" in map(str, verdict.reasons)
    soft = game.with_unit(Unit("T", UnitType(name="infantry", target_type="troops"), side="pact", hex="h5"))
    verdict = classic("eisenbach").check(soft, DirectFire(unit="A", target="T", weapon="ap"))
    assert verdict.values["db_dice"] == 3        # city 2 for infantry + 1 concealed, no cap (§6.1.6)


def test_check_reports_the_defence_even_when_the_line_is_unknown() -> None:
    t64 = UnitType(name="T-64", target_type="heavy_armor", armor=3, save=5)
    game = Game(units={"A": Unit("A", ABRAMS, side="nato", hex="a"),
                       "T": Unit("T", t64, side="pact", hex="t", strength="full")},
                hexes={"a": HexState("a", terrain="clear", at=Hex(0, 0)),
                       "t": HexState("t", terrain="woods", at=Hex(5, 0))})
    verdict = classic("untold").check(game, DirectFire(unit="A", target="T", weapon="ap"))
    assert verdict.gaps["legal"] == "not stated: terrain of the hex at Hex(1, 0, -1)"
    assert (verdict.values["defense_dice"], verdict.values["save_number"]) == (5, 5)


def test_damage_ladder_properties() -> None:
    """More hits never give a milder result; a two-step unit in Good Order is disrupted by
    the first hit, reduced by the second, eliminated by the third (§6.1.7)."""
    from referee.combat_odds import RESULT_ORDER, result_ladder
    rank = {r: i for i, r in enumerate(RESULT_ORDER)}
    rank["reduced"] = rank["disrupted"]       # reduced-only (already disrupted) ranks with a single step
    ruleset = classic("untold")
    for kind in ("heavy_armor", "troops", "soft_vehicle", "helicopter"):
        for strength in ("full", "reduced"):
            for disrupted in (False, True):
                game = Game(units={"T": Unit("T", UnitType(target_type=kind), strength=strength,
                                             status=Status(disrupted=disrupted))})
                ladder = result_ladder(ruleset, game, "T", "ap", 6)
                ranks = [rank[ladder[n]] for n in range(7)]
                assert ranks == sorted(ranks), (kind, strength, disrupted, ladder)
                assert ladder[0] == "none" and ladder[6] == "eliminated"
    fresh = Game(units={"T": Unit("T", UnitType(target_type="troops"), strength="full")})
    assert result_ladder(ruleset, fresh, "T", "he", 3) == {
        0: "none", 1: "disrupted", 2: "disrupted_and_reduced", 3: "eliminated"}


def _hill_row(crest_between: tuple[int, int]) -> dict[str, HexState]:
    """Hexes q = 0..9; 0-2 are a hill whose crest line runs between ``crest_between``."""
    hexes = {}
    for q in range(10):
        sides = {}
        if q == crest_between[0]:
            sides = {Hex(q, 0).direction_to(Hex(q + 1, 0)): frozenset({"crest"})}
        hexes[f"h{q}"] = HexState(f"h{q}", terrain="hill" if q <= 2 else "clear", at=Hex(q, 0),
                                  hexsides=sides)
    return hexes


def test_crest_lines_traced_on_the_map() -> None:
    hexes = _hill_row((2, 3))
    def sees(a: int, t: int) -> bool:
        game = Game(units={"A": Unit("A", ABRAMS, side="nato", hex=f"h{a}"),
                           "T": Unit("T", T72, side="pact", hex=f"h{t}")}, hexes=hexes)
        return not _los(game, "A", "T")
    assert sees(2, 6) is True          # the attacker is adjacent to the crest line
    assert sees(1, 6) is False         # the LOS crosses a crest line neither unit touches
    assert sees(1, 3) is True          # the target is adjacent to the crest line
    assert sees(0, 2) is True          # hill to hill


def test_rivers_are_crossed_at_bridges_and_fords_only() -> None:
    east = Hex(0, 0).direction_to(Hex(1, 0))
    def game(feature: frozenset[str], mover: UnitType) -> Game:
        hexes = {"h0": HexState("h0", terrain="clear", at=Hex(0, 0), hexsides={east: feature}),
                 "h1": HexState("h1", terrain="clear", at=Hex(1, 0))}
        return Game(units={"A": Unit("A", mover, side="nato", hex="h0")}, hexes=hexes)
    ruleset = classic("untold")
    assert ruleset.check(game(frozenset({"river"}), ABRAMS), Move(unit="A", path=("h1",))).legal is False
    assert ruleset.check(game(frozenset({"river", "bridge"}), ABRAMS), Move(unit="A", path=("h1",))).legal is True
    swimmer = UnitType(name="BMP", target_type="light_armor", mp=5, abilities=frozenset({"amphibious"}))
    answer = ruleset.check(game(frozenset({"river"}), swimmer), Move(unit="A", path=("h1",)))
    assert answer.legal is True and answer.values["cost"] == 5


@pytest.mark.slow
def test_any_procedure_on_any_case_situation_answers_or_reports_a_gap() -> None:
    """Robustness: every action kind of the case vocabulary, run on every situation of the
    shared case file under both books, gives an answer or a typed referee error."""
    import json
    from pathlib import Path

    from referee.cases import CaseDice, build_action, build_game, load_cases, merge
    from referee.errors import RefereeError
    shared = Path(__file__).resolve().parents[1].parent / "shared" / "cases"
    schema = json.loads((shared / "rule-case.schema.json").read_text(encoding="utf-8"))
    kinds = schema["$defs"]["given"]["properties"]["query"]["properties"]["action"]["enum"]
    rulesets = [classic("eisenbach"), classic("untold")]
    runs = 0
    for case in load_cases(shared / "rule-cases.yaml"):
        for row in case.get("rows") or [{}]:
            given = merge(case.get("given") or {}, row.get("given") or {})
            for kind in kinds:
                query = {**(given.get("query") or {}), "action": kind}
                for ruleset in rulesets:
                    try:
                        ruleset.resolve(build_game(given), build_action(query), CaseDice(given.get("dice")))
                    except RefereeError:
                        pass
                    runs += 1
    assert runs > 50_000


def test_formations_supply_morale_hq_and_command_range() -> None:
    from referee.actions import CommandCheck
    from referee.model import Formation, Relation
    hq = UnitType(name="HQ", target_type="hq")
    units = {"A": Unit("A", T72, formation="53rd", hex="a"),
             "H": Unit("H", hq, formation="53rd", hex="h", strength="reduced")}
    formations = {"53rd": Formation("53rd", side="pact", hq="H", morale=7,
                                    command_range={"full": 4, "reduced": 2})}
    near = Game(units=units, formations=formations, facts=Facts(relations={"H": Relation(distance=2)}))
    assert classic("untold").check(near, CommandCheck(unit="A")).values["roll_required"] is False
    far = Game(units=units, formations=formations, facts=Facts(relations={"H": Relation(distance=3)}))
    answer = classic("untold").resolve(far, CommandCheck(unit="A"), GivenDice([3, 5]))
    assert answer.values["roll_required"] is True and answer.values["passed"] is False   # 8 > morale 7


def test_no_missions_left_is_illegal() -> None:
    from referee.actions import Artillery, Mission
    game = Game(units={"H": Unit("H", UnitType(name="HQ", target_type="hq"), formation="F", hex="h")},
                hexes={"x": HexState("x", terrain="clear")}, missions_left={"he": 0, "smoke": 1})
    ruleset = classic("eisenbach")
    assert ruleset.check(game, Artillery(target="x", spotter="H", mission=Mission("he", 4, 5))).legal is False
    assert ruleset.check(game, Artillery(target="x", spotter="H", mission=Mission("smoke"))).legal is True


def test_leader_alters_one_attack_value_and_hqs_back_units_in_their_hex() -> None:
    wolf = UnitType(name="Wolf", target_type="leader")
    hq = UnitType(name="HQ", target_type="hq")
    game = row(A=(T72, 0, "pact"), T=(ABRAMS, 7, "nato"))
    game = game.with_unit(Unit("L", wolf, side="pact", hex="h0", attached_to="A", leadership=1))
    ruleset = classic("untold")
    plain = ruleset.check(game, DirectFire(unit="A", target="T", weapon="ap"))
    assert (plain.values["band"], plain.values["to_hit"], plain.values["fp"]) == ("long", 6, 4)
    sharper = ruleset.check(game, DirectFire(unit="A", target="T", weapon="ap", bonus_from=("L",), choice="to_hit"))
    assert (sharper.values["to_hit"], sharper.values["fp"]) == (5, 4)
    longer = ruleset.check(game, DirectFire(unit="A", target="T", weapon="ap", bonus_from=("L",), choice="range"))
    assert (longer.values["band"], longer.values["to_hit"]) == ("effective", 5)
    harder = ruleset.check(game, DirectFire(unit="A", target="T", weapon="ap", bonus_from=("L",)))
    assert harder.values["fp"] == 5
    away = game.with_unit(Unit("H", hq, side="pact", hex="h1", leadership=2))
    verdict = ruleset.check(away, DirectFire(unit="A", target="T", weapon="ap", bonus_from=("H",)))
    assert verdict.legal is False and "HQ is not in T-72's hex (TUS §1.3.3.2)" in map(str, verdict.reasons)
    assert classic("eisenbach").check(game, DirectFire(unit="A", target="T", weapon="ap", bonus_from=("L",))) \
        .gaps["fp"].startswith("not supported: TUS §1.3.6")


def test_conditional_morale_formations_check_with_it() -> None:
    from referee.actions import Rally
    from referee.model import Formation
    podhale = {"21st": Formation("21st", side="pact", morale=2, conditional=True)}
    units = {"A": Unit("A", T72, side="pact", formation="21st", hex="h0", status=Status(disrupted=True)),
             "B": Unit("B", T72, side="pact", formation="21st", hex="h1"),
             "C": Unit("C", T72, side="pact", formation="21st", hex="h2"),
             "D": Unit("D", T72, side="pact", formation="21st", hex="h5")}
    game = Game(units=units, hexes=row().hexes, formations=podhale)
    answer = classic("untold").resolve(game, Rally(unit="A"), GivenDice([2, 2]))
    assert answer.values["modified_roll"] == 4 and answer.values["passed"] is True   # morale 2 + 2 near
    answer = classic("untold").resolve(game, Rally(unit="A"), GivenDice([3, 2]))
    assert answer.values["passed"] is False
    assert "conditional morale 2 + 2 = 4 (TUS §1.6.1)" in map(str, answer.reasons)


def test_an_hq_checking_command_is_in_command_of_itself_under_each_book() -> None:
    """An HQ is its own Formation's HQ: at distance 0 it is within its Command Range (EG/TUS
    §4.2: "Units within the Command range of their HQ are considered In Command"), and WaW85
    §7.2.5 lists "All units in a hex with their Formation HQ" as always In Command. Before, the
    HQ looked for another HQ and answered "not on the map" (classic) or "not stated" (WaW85)."""
    from referee.cases import run_one
    from referee.rulesets import get_ruleset
    given = {"units": {"H": {"target_type": "hq", "side": "nato", "formation": "1st", "hex": "h", "strength": "full",
                             "command_range": {"full": 4, "reduced": 2}, "morale": 8},
                       "B": {"target_type": "heavy_armor", "side": "nato", "formation": "1st", "hex": "h"}},
             "hexes": [{"id": "h", "terrain": "clear"}],
             "query": {"action": "command_check", "unit": "H"}}
    for name, flag in (("classic", "untold"), ("classic", "eisenbach"), ("waw85", None)):
        answer, comparison = run_one(get_ruleset(name, flag), given, {"roll_required": False})
        assert (comparison.failures, comparison.gaps) == ([], []), name
        assert not any(getattr(e, "field", None) == "out_of_command" for e in answer.events), name
    untold, _ = run_one(get_ruleset("classic", "untold"), given, {})
    assert [r.text for r in untold.reasons] == ["H is 0 hex(es) from H, command range 4: in command"]
    waw85, _ = run_one(get_ruleset("waw85"), given, {})
    assert [(r.section, r.text) for r in waw85.reasons] == [      # the hex is checked (§7.2.5)
        ("WaW85 §7.2.5", "H is always In Command: in a hex with its Formation HQ"),
        ("WaW85 §7.2.5", "B is always In Command: in a hex with its Formation HQ")]


def test_rallying_a_unit_that_is_not_disrupted_rolls_nothing_and_says_why_under_each_book() -> None:
    """EG/TUS §4.3 and WaW85 §7.4 rally a Disrupted unit; one that is not has nothing to rally
    from: no roll, no event, and the answer names the section."""
    from referee.cases import run_one
    from referee.rulesets import get_ruleset
    given = {"units": {"A": {"target_type": "heavy_armor", "side": "nato", "morale": 8,
                             "status": {"disrupted": False}}},
             "query": {"action": "rally", "unit": "A"}}
    expected = {("classic", "untold"): ("TUS §4.3", "A is not Disrupted: there is nothing to rally from"),
                ("classic", "eisenbach"): ("EG §4.3", "A is not Disrupted: there is nothing to rally from"),
                ("waw85", None): ("WaW85 §7.4", "A is not Disrupted")}
    for (name, flag), reason in expected.items():
        answer, comparison = run_one(get_ruleset(name, flag), given, {"roll_required": False})
        assert (comparison.failures, comparison.gaps) == ([], []), name
        assert [(r.section, r.text) for r in answer.reasons] == [reason], (name, flag)
        assert answer.events == [], (name, flag)


def test_fire_with_a_firepower_the_counter_lacks_is_refused_once_naming_what_it_prints(tmp_path) -> None:
    """EG/TUS §6.1, WaW85 §10.1: a unit fires a Firepower it prints. Naming another is one
    refusal: on a counter read from the unit table it says what the counter prints (the sample
    save below), on a stated situation that the Firepower is not there."""
    from referee.cases import run_one
    from referee.rulesets import get_ruleset
    given = {"units": {"A": {"side": "nato", "ap": {"fp": 4, "to_hit": 4}, "he": {"fp": 2, "to_hit": 5}},
                       "T": {"side": "pact", "target_type": "heavy_armor", "armor": 3, "save": 5}},
             "situation": {"range_band": "effective"},
             "query": {"action": "direct_fire", "unit": "A", "target": "T", "weapon": "aa"}}
    for (name, flag), section in {("classic", "untold"): "TUS §6.1", ("classic", "eisenbach"): "EG §6.1",
                                  ("waw85", None): "WaW85 §10.1"}.items():
        answer, _ = run_one(get_ruleset(name, flag), given, {})
        assert answer.legal is False
        assert [(r.section, r.text) for r in answer.refusals] == [
            (section, "A has no AA Firepower")], (name, flag)
    from pathlib import Path
    from click.testing import CliRunner
    from converter.cli import main
    samples = Path(__file__).resolve().parents[1] / "samples"
    for profile, section in (("profile.yaml", "TUS §6.1"), ("profile-waw85.yaml", "WaW85 §10.1")):
        result = CliRunner().invoke(main, ["resolve", str(samples / "demo.vsav"), "--module", str(samples / "waw-sample.vmod"),
                                           "--profile", str(samples / profile), "--action", "fire leopard-c1 t-64 aa",
                                           "-o", str(tmp_path / "out.vsav")])
        assert result.exit_code == 1
        assert result.output.splitlines()[:2] == [
            "REFUSED: fire leopard-c1 t-64 aa", f"  Leopard C1 prints no AA Firepower (it has AP and HE) ({section})"]
        assert result.output.splitlines()[2] == "Nothing was written."
        assert not (tmp_path / "out.vsav").exists()
