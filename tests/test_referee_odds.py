"""Exact odds of an attack: they add up to 1, match the referee's own resolve path by
enumeration, and agree with 100,000 seeded rolls within one percentage point."""
from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.actions import DirectFire
from referee.classic import classic
from referee.combat_odds import assault_odds, fire_odds, net_hits_distribution, result_ladder
from referee.dice import EnumeratedDice
from referee.events import result_of
from referee.model import Game, HexState, Status, Unit, UnitType, Weapon

FIRER = UnitType(name="firer", target_type="heavy_armor", armor=2, save=6,
                 ap=Weapon(fp=2, to_hit=4, range=6), he=Weapon(fp=3, to_hit=5, range=6))


def _duel(target: UnitType, terrain: str = "clear", strength: str = "full", disrupted: bool = False,
          fp: int = 2, to_hit: int = 4) -> Game:
    firer = UnitType(name="firer", ap=Weapon(fp=fp, to_hit=to_hit, range=6), he=Weapon(fp=fp, to_hit=to_hit, range=6))
    return Game(units={"A": Unit("A", firer, side="nato", hex="a"),
                       "T": Unit("T", target, side="pact", hex="t", strength=strength,
                                 status=Status(disrupted=disrupted, concealed=False))},
                hexes={"a": HexState("a", terrain="clear"), "t": HexState("t", terrain=terrain)},
                facts=_facts(4))


def _facts(distance: int):
    from referee.model import Facts, Relation
    return Facts(relations={"T": Relation(distance=distance)})


def test_leopard_example_odds_are_exact() -> None:
    t64 = UnitType(name="T-64", target_type="heavy_armor", armor=3, save=5)
    game = _duel(t64, terrain="woods", fp=4, to_hit=4)
    game = game.with_unit(game.units["T"].with_status(concealed=True))
    odds = fire_odds(classic("untold"), game, DirectFire(unit="A", target="T", weapon="ap"))
    assert (odds.fp, odds.to_hit, odds.defense_dice, odds.save_number) == (4, 4, 5, 5)
    assert dict(odds.hits.items()) == {0: Fraction(1, 16), 1: Fraction(1, 4), 2: Fraction(3, 8),
                                       3: Fraction(1, 4), 4: Fraction(1, 16)}
    assert dict(odds.results.items()) == {"none": Fraction(29, 54), "disrupted": Fraction(121, 486),
                                          "disrupted_and_reduced": Fraction(37, 243),
                                          "eliminated": Fraction(5, 81)}


@pytest.mark.parametrize("target, terrain, weapon", [
    (UnitType(target_type="heavy_armor", armor=1, save=5), "woods", "ap"),
    (UnitType(target_type="troops"), "city", "he"),
    (UnitType(target_type="soft_vehicle"), "woods", "ap"),
])
def test_odds_equal_enumeration_of_resolve(target: UnitType, terrain: str, weapon: str) -> None:
    """Every dice path of the real ``resolve`` gives the same distribution of results."""
    game = _duel(target, terrain=terrain)
    ruleset = classic("untold")
    action = DirectFire(unit="A", target="T", weapon=weapon)
    exact = fire_odds(ruleset, game, action).results
    enumerated = EnumeratedDice.distribution(
        lambda dice: result_of("T", ruleset.resolve(game, action, dice).events))
    assert dict(enumerated.items()) == dict(exact.items())


@settings(max_examples=60, deadline=None)
@given(fp=st.integers(0, 8), to_hit=st.integers(1, 6), dd=st.integers(0, 6), save=st.integers(1, 6),
       ip=st.booleans())
def test_distributions_sum_to_one(fp: int, to_hit: int, dd: int, save: int, ip: bool) -> None:
    hits, saves, net = net_hits_distribution(fp, to_hit, dd, save, ip)
    for dist in (hits, saves, net):
        assert sum(p for _, p in dist.items()) == 1
    assert max(net) <= fp
    assert net.mean <= hits.mean


def _simulate(fp: int, to_hit: int, dd: int, save: int, ladder: dict[int, str], trials: int,
              seed: int) -> dict[str, float]:
    """A plain loop of seeded rolls (no vectors): count each result."""
    rng = random.Random(seed)
    randint = rng.randint
    counts: dict[str, int] = {}
    for _ in range(trials):
        hits = 0
        for _ in range(fp):
            hits += randint(1, 6) >= to_hit
        saves = 0
        if hits:
            for _ in range(dd):
                saves += randint(1, 6) >= save
        result = ladder[max(hits - saves, 0)]
        counts[result] = counts.get(result, 0) + 1
    return {k: v / trials for k, v in counts.items()}


@pytest.mark.parametrize("target, fp, to_hit, terrain, strength", [
    (UnitType(target_type="heavy_armor", armor=3, save=5), 4, 4, "woods", "full"),
    (UnitType(target_type="troops"), 5, 5, "city", "reduced"),
])
@pytest.mark.slow
def test_exact_odds_agree_with_100000_seeded_rolls(target: UnitType, fp: int, to_hit: int,
                                                   terrain: str, strength: str) -> None:
    game = _duel(target, terrain=terrain, strength=strength, fp=fp, to_hit=to_hit)
    ruleset = classic("untold")
    odds = fire_odds(ruleset, game, DirectFire(unit="A", target="T", weapon="ap" if target.armor else "he"))
    ladder = result_ladder(ruleset, game, "T", None, fp)
    seen = _simulate(fp, to_hit, odds.defense_dice, odds.save_number, ladder, 100_000, seed=20261130)
    for result, p in odds.results.items():
        assert abs(seen.get(result, 0.0) - float(p)) < 0.01, (result, seen, p)


def test_assault_odds_outcomes() -> None:
    odds = assault_odds(3, 4, 2, 6, defender_steps_left=3)
    assert sum(p for _, p in odds.outcome.items()) == 1
    # the defender needs 3 hits to be gone: (1/2)^3
    assert odds.outcome["attacker_holds"] == Fraction(1, 8)
    capped = assault_odds(4, 4, 0, 6, defender_steps_left=4, max_hits=3)
    assert capped.outcome["attacker_holds"] == 0
    assert max(capped.on_defender) == 3


@pytest.mark.slow
def test_assault_odds_equal_enumeration_of_resolve() -> None:
    from referee.actions import Assault
    from referee.combat_odds import odds_for
    from referee.model import AssaultValue
    game = Game(units={
        "A": Unit("A", UnitType(name="infantry", target_type="troops", assault=AssaultValue(3, 4)),
                  side="nato", hex="a", strength="full"),
        "T": Unit("T", UnitType(name="infantry", target_type="troops", assault=AssaultValue(2, 4)),
                  side="pact", hex="t", strength="full")},
        hexes={"a": HexState("a", terrain="clear"), "t": HexState("t", terrain="woods")})
    ruleset = classic("untold")
    action = Assault(unit="A", target="T")
    odds = odds_for(ruleset, game, action)

    def outcome(dice) -> str:
        answer = ruleset.resolve(game, action, dice)
        if result_of("T", answer.events) == "eliminated":
            return "attacker_holds"
        return "defender_retreats" if answer.unit_values["T"]["retreat"] else "attacker_retreats"
    assert dict(EnumeratedDice.distribution(outcome).items()) == dict(odds.outcome.items())
    defender = EnumeratedDice.distribution(lambda dice: result_of("T", ruleset.resolve(game, action, dice).events))
    assert dict(defender.items()) == dict(odds.defender_results.items())
    assert odds.outcome["defender_retreats"] == Fraction(3, 8)
