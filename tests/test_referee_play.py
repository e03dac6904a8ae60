"""The referee on positions with map coordinates: check, resolve, reasons, events, dice."""
from __future__ import annotations

from fractions import Fraction

import pytest

from referee.actions import (ApplyDamage, DirectFire, LineOfSight, Move, MoraleCheck, make_action)
from referee.classic import classic
from referee.dice import EnumeratedDice, GivenDice, SeededDice
from referee.errors import RefereeError
from referee.events import StatusChanged, UnitDisrupted, UnitReduced, apply_all, result_of
from referee.hexes import Hex
from referee.model import AssaultValue, Game, HexState, Unit, UnitType, Weapon

LEOPARD = UnitType(name="Leopard C1", target_type="heavy_armor", armor=3, save=5,
                   ap=Weapon(fp=4, to_hit=4, range=5))
T64 = UnitType(name="T-64", target_type="heavy_armor", armor=3, save=5, ap=Weapon(fp=4, to_hit=4, range=8))
INFANTRY = UnitType(name="infantry", target_type="troops", he=Weapon(fp=2, to_hit=5, range=3),
                    assault=AssaultValue(3, 4))


def board(terrain: dict[int, str], **units: tuple[UnitType, int, str]) -> Game:
    """A straight row of hexes q = 0..12 (r = 0); units as (type, q, side)."""
    hexes = {f"h{q}": HexState(f"h{q}", terrain=terrain.get(q, "clear"), at=Hex(q, 0)) for q in range(13)}
    placed = {key: Unit(key, utype, side=side, hex=f"h{q}", strength="full")
              for key, (utype, q, side) in units.items()}
    return Game(units=placed, hexes=hexes)


def test_leopard_example_resolved_with_given_dice() -> None:
    game = board({7: "woods"}, A=(LEOPARD, 3, "nato"), T=(T64, 7, "pact"))
    answer = classic("untold").resolve(game, DirectFire(unit="A", target="T", weapon="ap"),
                                       GivenDice([4, 1, 5, 4, 1, 3, 4, 4, 6]))
    assert answer.legal is True
    assert (answer.values["range"], answer.values["band"], answer.values["to_hit"]) == (4, "effective", 4)
    assert (answer.values["hits"], answer.values["saves"], answer.values["net_hits"]) == (3, 1, 2)
    assert (answer.values["db_dice"], answer.values["defense_dice"]) == (2, 5)
    assert answer.rolls == [("attack", [4, 1, 5, 4]), ("save", [1, 3, 4, 4, 6])]
    assert [e for e in answer.events if e in (UnitDisrupted("T"), UnitReduced("T"))] == \
        [UnitDisrupted("T"), UnitReduced("T")]
    after = apply_all(game, answer.events)
    assert after.units["T"].strength == "reduced" and after.units["T"].status.disrupted
    assert after.units["A"].status.ops_complete
    text = answer.narrative()
    assert "roll attack: 4 1 5 4" in text
    assert "4 dice at 4+: 3 hit(s) (TUS §6.1)" in text
    assert "T-64: DB 1 woods + 1 concealed (TUS §6.1.5, §6.1.6)" in text
    assert "to-hit 4 (TUS §6.1)" in text


def test_check_needs_no_dice_and_reports_what_dice_would_decide() -> None:
    game = board({}, A=(LEOPARD, 0, "nato"), T=(T64, 7, "pact"))
    verdict = classic("untold").check(game, DirectFire(unit="A", target="T", weapon="ap"))
    assert verdict.legal is True
    assert (verdict.values["band"], verdict.values["to_hit"], verdict.values["fp"]) == ("long", 5, 4)
    assert verdict.values["defense_dice"] == 3 and verdict.values["save_number"] == 5
    assert verdict.modifier_totals() == {"to_hit": 1}
    assert verdict.gaps["hits"] == "not stated: dice.attack"
    assert verdict.events[0].field == "ops_complete"


@pytest.mark.parametrize("q, legal, band, to_hit", [
    (1, True, "point_blank", 3), (2, True, "point_blank", 3), (3, True, "effective", 4),
    (5, True, "effective", 4), (6, True, "long", 5), (10, True, "long", 5), (11, False, "out_of_range", None)])
def test_range_counted_on_the_map(q: int, legal: bool, band: str | None, to_hit: int | None) -> None:
    game = board({}, A=(LEOPARD, 0, "nato"), T=(T64, q, "pact"))
    verdict = classic("eisenbach").check(game, DirectFire(unit="A", target="T", weapon="ap"))
    assert verdict.legal is legal
    assert verdict.values.get("band") == band and verdict.values.get("to_hit") == to_hit
    if not legal:
        assert "range 11 is beyond the maximum 10 (EG §6.1.1)" in map(str, verdict.reasons)


@pytest.mark.parametrize("terrain, blocked", [
    ({}, False), ({2: "woods"}, True), ({2: "city"}, True), ({2: "rough"}, False),
    ({2: "rough", 3: "rough"}, True), ({2: "cultivated", 3: "cultivated"}, False),
    ({4: "woods"}, False),          # the target's own hex never blocks (§7.1)
])
def test_line_of_sight_traced_on_the_map(terrain: dict[int, str], blocked: bool) -> None:
    game = board(terrain, A=(LEOPARD, 0, "nato"), T=(T64, 4, "pact"))
    answer = classic("untold").check(game, LineOfSight(unit="A", target="T"))
    assert answer.values["blocked"] is blocked


def test_wreck_and_rough_block_together() -> None:
    game = board({2: "rough"}, A=(LEOPARD, 0, "nato"), T=(T64, 4, "pact"))
    game = game.with_hex(HexState("h3", terrain="clear", markers=frozenset({"wrecks"}), at=Hex(3, 0)))
    assert classic("eisenbach").check(game, LineOfSight(unit="A", target="T")).values["blocked"] is True


def test_concealment_is_derived_from_positions() -> None:
    far = board({5: "woods"}, A=(INFANTRY, 0, "nato"), T=(INFANTRY, 5, "pact"))
    near = board({5: "woods"}, A=(INFANTRY, 4, "nato"), T=(INFANTRY, 5, "pact"))
    ruleset = classic("untold")
    assert ruleset.check(far, DirectFire(unit="A", target="T", weapon="he")).values["db_dice"] == 2
    assert ruleset.check(near, DirectFire(unit="A", target="T", weapon="he")).values["db_dice"] == 1


def test_seeded_dice_reproduce_the_same_resolution() -> None:
    game = board({}, A=(LEOPARD, 0, "nato"), T=(T64, 4, "pact"))
    first = classic("untold").resolve(game, DirectFire(unit="A", target="T", weapon="ap"), SeededDice(7))
    again = classic("untold").resolve(game, DirectFire(unit="A", target="T", weapon="ap"), SeededDice(7))
    assert first.rolls == again.rolls and first.events == again.events
    assert len(first.rolls[0][1]) == 4


def test_too_few_given_dice_is_an_error_not_a_guess() -> None:
    game = board({}, A=(LEOPARD, 0, "nato"), T=(T64, 4, "pact"))
    with pytest.raises(RefereeError, match="roll 'attack' wants 4 dice"):
        classic("untold").resolve(game, DirectFire(unit="A", target="T", weapon="ap"), GivenDice([6, 6]))


def test_disrupted_unit_may_not_fire_and_says_why() -> None:
    game = board({}, A=(LEOPARD, 0, "nato"), T=(T64, 4, "pact"))
    game = game.with_unit(game.units["A"].with_status(disrupted=True))
    verdict = classic("untold").check(game, DirectFire(unit="A", target="T", weapon="ap"))
    assert verdict.legal is False
    assert str(verdict.reasons[0]) == "Leopard C1 is Disrupted and cannot fire (TUS §6.1.7)"
    assert verdict.events == []


def test_not_supported_and_book_specific_rules() -> None:
    game = board({}, A=(LEOPARD, 0, "nato"))
    answer = classic("untold").check(game, make_action("victory_points", side="nato"))
    assert answer.gaps == {"*": "not supported: classic (victory_points is a WaW85 procedure with no classic rule)"}
    answer = classic("untold").check(game, make_action("teleport", unit="A"))
    assert answer.gaps == {"*": "not supported: teleport is not a procedure of untold"}
    answer = classic("eisenbach").check(game, make_action("conditional_morale", unit="A"))
    assert answer.gaps["*"].startswith("not supported: TUS §1.6.1")


def test_movement_cost_from_the_terrain_chart() -> None:
    game = board({1: "woods"}, A=(LEOPARD, 0, "nato"), I=(INFANTRY, 0, "nato"))
    ruleset = classic("eisenbach")
    assert ruleset.check(game, Move(unit="A", path=("h1",))).values["cost"] == 2
    assert ruleset.check(game, Move(unit="I", path=("h1",))).values["cost"] == 1


def test_hq_check_odds_enumerated_over_the_real_procedure() -> None:
    """§1.3.3.2: 1 in 6 when a stacked unit is hurt, 3 in 6 when one is eliminated."""
    hq = UnitType(name="HQ", target_type="hq")
    game = board({}, T=(T64, 0, "pact"), U=(T64, 0, "pact"), H=(hq, 0, "pact"))
    ruleset = classic("untold")

    def hq_fate(result: str):
        return lambda dice: result_of("H", ruleset.resolve(game, ApplyDamage(target="T", result=result), dice).events)
    assert EnumeratedDice.distribution(hq_fate("disrupted"))["reduced"] == Fraction(1, 6)
    assert EnumeratedDice.distribution(hq_fate("eliminated"))["reduced"] == Fraction(1, 2)


def test_morale_check_with_seeded_2d6_sums_two_dice() -> None:
    game = Game(units={"A": Unit("A", UnitType(name="T-72"), morale=7)})
    answer = classic("eisenbach").resolve(game, MoraleCheck(unit="A"), GivenDice([3, 4]))
    assert answer.values["passed"] is True and answer.values["modified_roll"] == 7
    answer = classic("eisenbach").resolve(game, MoraleCheck(unit="A"), GivenDice([3, 5]))
    assert answer.values["passed"] is False


@pytest.mark.parametrize("ruleset, profile, section, text", [
    ("classic", "profile.yaml", "TUS §6.2", "a moving unit can be attacked only once per hex it enters"),
    ("classic:eisenbach", "profile.yaml", "EG §6.2", "a moving unit can be attacked only once per hex it enters"),
    ("waw85", "profile-waw85.yaml", "WaW85 §10.11", "only one Opportunity Fire attack per hex of movement")],
    ids=["TUS", "EG", "WaW85"])
def test_opportunity_fire_attacks_a_mover_once_per_hex(ruleset: str, profile: str, section: str, text: str) -> None:
    """EG/TUS §6.2: "the moving unit can be attacked only once per hex it enters"; WaW85
    §10.11: "Only one Opportunity Fire attack is allowed per hex of movement". In one run the
    Leopard C1 moves to D6 and the BMP-1 fires at it there: the T-64 may not fire at it in
    that hex as well."""
    from pathlib import Path

    from converter.actions_text import parse
    from converter.resolve import read_position, resolve_actions, ruleset_named
    from referee.dice import GivenDice
    samples = Path(__file__).resolve().parents[1] / "samples"
    game = read_position(samples / "demo.vsav", samples / "waw-sample.vmod", samples / profile).game
    actions = [parse(a) for a in ("move leopard-c1 C7 D6", "opfire bmp-1 leopard-c1 ap", "opfire t-64 leopard-c1 ap")]
    outcome = resolve_actions(game, actions, ruleset_named(ruleset), GivenDice([1] * 20))
    assert [step.answer.action for step in outcome.steps] == ["move", "opportunity_fire"]
    assert (outcome.refused.index, outcome.refused.reasons) == (2, [(section, text)])
    assert outcome.steps[1].answer.events[-1] == StatusChanged("leopard-c1", "opportunity_fired", True)


@pytest.mark.parametrize("name, section, assault", [
    ("classic:untold", "TUS §5.1", "TUS §6.3"), ("classic:eisenbach", "EG §5.1", "EG §6.3"),
    ("waw85", "WaW85 §9.0", "WaW85 §13.0")])
def test_a_route_goes_from_hex_to_adjacent_hex_under_each_book(name: str, section: str, assault: str) -> None:
    """EG §5.1 "Units moving into an adjacent hex", TUS §5.1 "Units move to adjacent hexes",
    WaW85 §9.0 "from hex to contiguous hex": a path that jumps is refused whatever the action,
    and an Assault's route ends next to the hex it enters (§6.3, §13.0)."""
    from referee.rulesets import get_ruleset
    ruleset = get_ruleset(*name.split(":"))
    game = board({}, A=(INFANTRY, 0, "nato"), T=(T64, 6, "pact"))
    jump = ruleset.check(game, make_action("move", unit="A", path=("h1", "h3")))
    assert jump.legal is False and jump.values["reason_rule"] == section.split(" ")[-1].lstrip("§")
    assert [(r.section, r.text) for r in jump.refusals] == \
        [(section, "h3 is not next to h1: a unit moves from hex to contiguous hex")]
    far = ruleset.check(game, make_action("assault", unit="A", target="T", path=("h4",)))
    assert [(r.section, r.text) for r in far.refusals][:1] == \
        [(section, "h4 is not next to h0: a unit moves from hex to contiguous hex")]
    short = ruleset.check(game, make_action("assault", unit="A", target="T", path=("h1", "h2", "h3")))
    assert (short.legal, [(r.section, r.text) for r in short.refusals][:1]) == (False, [(
        assault, "the route ends in h3, 3 hexes from h6: a unit assaults by moving into the target hex from an "
                 "adjacent hex")])
    step = ruleset.check(game, make_action("move", unit="A", path=("h1",)))
    assert not any("next to" in r.text for r in step.refusals)


@pytest.mark.parametrize("book, section", [("untold", "TUS §6.4"), ("eisenbach", "EG §6.4")])
def test_an_overrun_starts_next_to_the_hex_whatever_its_exit(book: str, section: str) -> None:
    """§6.4: the AFV moves into the infantry's hex and through it; ``path`` names the hex it
    exits into, so an exit named does not excuse starting six hexes away."""
    game = board({}, A=(LEOPARD, 0, "nato"), I=(INFANTRY, 6, "pact"))
    answer = classic(book).check(game, make_action("overrun", unit="A", target="I", path=("h7",)))
    assert answer.legal is False
    assert (section, "Leopard C1 is 6 hexes from infantry: an AFV overruns by moving through the target hex from "
            "an adjacent hex; move it next to h6 first (path=HEX names the hex it exits into)") in \
        [(r.section, r.text) for r in answer.refusals]


def test_an_afv_shrugging_off_an_he_barrage_is_told_once() -> None:
    """TUS §8.1: AFVs are only disrupted by an HE barrage: four hits Disrupt the Leopard, once,
    and the report says why once, not once a hit."""
    from dataclasses import replace as replaced
    from referee.actions import Mission
    hq = UnitType(name="HQ", target_type="hq", mp=6)
    game = board({}, H=(hq, 0, "pact"), A=(LEOPARD, 3, "nato"))
    game = replaced(game, missions_left={"pact": 2})
    answer = classic("untold").resolve(game, make_action("indirect_fire", target="h3", spotter="H",
                                                         mission=Mission("he", 4, 5)), GivenDice([4, 6, 6, 6, 6]))
    assert answer.legal is True and answer.values["net_hits"] == 4
    assert [e for e in answer.events if isinstance(e, (UnitDisrupted, UnitReduced))] == [UnitDisrupted("A")]
    assert answer.narrative().count("Leopard C1: AFVs are only disrupted by an HE barrage (TUS §8.1)") == 1
