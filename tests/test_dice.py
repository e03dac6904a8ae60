"""Dice sources: given dice in order, reproducible seeds, exhaustive enumeration."""
from __future__ import annotations

from fractions import Fraction

import pytest

from referee.dice import (DiceError, DiceExhausted, DiceRoll, DiceSource, EnumeratedDice, EnumerationTooLarge,
                          GivenDice, Outcome, SeededDice, roll)
from referee.errors import RefereeError
from referee.odds import Distribution, at_least, difference, successes


def test_given_dice_are_consumed_in_order_and_logged() -> None:
    dice = GivenDice([5, 2, 6, 1, 4])
    assert dice.roll(2, "AP to-hit") == [5, 2]
    assert dice.roll_one("defensive dice") == 6
    assert roll(dice, 1, "morale check") == [1]
    assert dice.remaining == (4,)
    assert dice.log == [DiceRoll("AP to-hit", (5, 2)), DiceRoll("defensive dice", (6,)),
                        DiceRoll("morale check", (1,))]
    label, values = dice.log[0]
    assert (label, values) == ("AP to-hit", (5, 2))
    assert dice.roll(0, "no dice") == [] and dice.remaining == (4,)


def test_given_dice_exhaustion_names_the_roll() -> None:
    dice = GivenDice([3, 4, 5, 6])
    dice.roll(3, "AP to-hit")
    with pytest.raises(DiceExhausted) as caught:
        dice.roll(2, "defensive dice")
    error = caught.value
    assert str(error) == "roll 'defensive dice' wants 2 dice but only 1 of the given dice is left (3 already used)"
    assert (error.label, error.wanted, error.left, error.used) == ("defensive dice", 2, 1, 3)
    assert isinstance(error, RefereeError) and isinstance(error, ValueError)
    assert dice.remaining == (6,)                          # a failed roll takes nothing
    with pytest.raises(DiceExhausted, match=r"^roll 'scatter' wants 1 die but only 0 of the given dice are left"):
        GivenDice([]).roll_one("scatter")


def test_given_dice_must_show_faces_of_the_die() -> None:
    with pytest.raises(DiceError, match=r"roll 'AP to-hit': given die 2 is 7, not a face of a d6"):
        GivenDice([3, 7]).roll(2, "AP to-hit")
    assert GivenDice([7]).roll(1, "d10", sides=10) == [7]
    with pytest.raises(DiceError, match="given die 1 must be an int"):
        GivenDice(["4"])                                   # type: ignore[list-item]


def test_bad_requests() -> None:
    with pytest.raises(DiceError, match="number of dice must be a non-negative int"):
        GivenDice([1]).roll(-1, "x")
    with pytest.raises(DiceError, match="at least one side"):
        SeededDice(1).roll(1, "x", sides=0)
    with pytest.raises(DiceError, match="seed must be an int or a str"):
        SeededDice(1.5)                                    # type: ignore[arg-type]
    with pytest.raises(DiceError, match="DiceSource cannot roll dice"):
        DiceSource().roll(1, "x")


def test_seeded_dice_are_reproducible() -> None:
    dice = SeededDice(42)
    assert dice.roll(10, "AP to-hit") == [6, 1, 1, 6, 3, 2, 2, 2, 6, 1]
    assert dice.roll_one("scatter") == 6
    assert dice.roll(3, "d10", sides=10) == [9, 2, 10]
    assert dice.seed == 42 and repr(dice) == "SeededDice(seed=42)"
    again = SeededDice(42)
    assert [again.roll(4, "x"), again.roll(7, "y")] == [[6, 1, 1, 6], [3, 2, 2, 2, 6, 1, 6]]
    named = SeededDice("wawkit")
    assert named.roll(6, "a") == [6, 5, 6, 3, 2, 4] and repr(named) == "SeededDice(seed='wawkit')"
    assert named.log == [DiceRoll("a", (6, 5, 6, 3, 2, 4))]


def test_enumeration_of_a_fixed_procedure() -> None:
    outcomes = list(EnumeratedDice.outcomes(lambda dice: sum(dice.roll(2, "2d6"))))
    assert len(outcomes) == 36
    assert sum(o.probability for o in outcomes) == 1
    assert outcomes[0] == Outcome(Fraction(1, 36), 2, (DiceRoll("2d6", (1, 1)),))
    assert outcomes[-1].log == (DiceRoll("2d6", (6, 6)),)
    distribution = EnumeratedDice.distribution(lambda dice: sum(dice.roll(2, "2d6")))
    assert distribution[7] == Fraction(1, 6) and distribution[12] == Fraction(1, 36) and distribution[13] == 0


def test_enumeration_follows_branches() -> None:
    # An artillery mission: 1-5 on target, else a d6 picks one of six adjacent hexes.
    def mission(dice: DiceSource) -> str:
        if dice.roll_one("accuracy") <= 5:
            return "on target"
        return f"scatter {dice.roll_one('scatter direction')}"

    outcomes = list(EnumeratedDice.outcomes(mission))
    assert len(outcomes) == 5 + 6
    assert sum(o.probability for o in outcomes) == 1
    distribution = EnumeratedDice.distribution(mission)
    assert distribution["on target"] == Fraction(5, 6)
    assert distribution["scatter 3"] == Fraction(1, 36)
    assert outcomes[5].log == (DiceRoll("accuracy", (6,)), DiceRoll("scatter direction", (1,)))


def test_enumeration_agrees_with_the_odds_module() -> None:
    def fire(dice: DiceSource) -> int:
        hits = sum(1 for value in dice.roll(3, "to-hit") if value >= 4)
        saves = sum(1 for value in dice.roll(2, "saves") if value >= 5)
        return max(hits - saves, 0)

    enumerated = EnumeratedDice.distribution(fire)
    assert enumerated == difference(successes(3, at_least(4)), successes(2, at_least(5)))
    assert sum(enumerated[k] for k in range(4)) == 1
    assert enumerated[3] == Fraction(1, 8) * Fraction(4, 9)


def test_enumeration_limit() -> None:
    with pytest.raises(EnumerationTooLarge, match="more than 100 outcomes"):
        list(EnumeratedDice.outcomes(lambda dice: dice.roll(3, "3d6"), limit=100))
    assert isinstance(EnumeratedDice.distribution(lambda dice: 0), Distribution)
