"""Exact odds: binomial dice pools, sums, hits less saves, and a seeded sampling check."""
from __future__ import annotations

from fractions import Fraction as F

import pytest

from referee.dice import SeededDice
from referee.errors import RefereeError
from referee.odds import Distribution, OddsError, at_least, convolve, difference, successes

D6 = Distribution.from_weights({face: 1 for face in range(1, 7)})


def test_at_least() -> None:
    assert [at_least(n) for n in range(0, 8)] == [F(1), F(1), F(5, 6), F(2, 3), F(1, 2), F(1, 3), F(1, 6), F(0)]
    assert at_least(9, sides=10) == F(1, 5)


def test_exact_binomials() -> None:
    assert successes(3, F(1, 2)).items() == [(0, F(1, 8)), (1, F(3, 8)), (2, F(3, 8)), (3, F(1, 8))]
    four = successes(4, at_least(5))
    assert [four[k] for k in range(5)] == [F(16, 81), F(32, 81), F(8, 27), F(8, 81), F(1, 81)]
    ten = successes(10, at_least(4))
    assert ten[0] == F(1, 1024) and ten[5] == F(63, 256) and ten[10] == F(1, 1024)
    assert ten.mean == 5 and four.mean == F(4, 3)
    assert successes(0, F(1, 3)).items() == [(0, F(1))]
    assert successes(5, 1).items() == [(5, F(1))] and successes(5, 0).items() == [(0, F(1))]


@pytest.mark.parametrize("n", [1, 2, 5, 10, 17])
@pytest.mark.parametrize("p", [F(1, 6), F(1, 3), F(1, 2), F(5, 6), F(2, 7)])
def test_binomials_add_up_to_one(n: int, p: F) -> None:
    distribution = successes(n, p)
    assert sum(probability for _, probability in distribution.items()) == 1
    assert list(distribution) == list(range(n + 1))
    assert distribution.mean == n * p


def test_hits_less_saves() -> None:
    hits, saves = successes(2, F(1, 2)), successes(1, F(1, 3))
    assert difference(hits, saves).items() == [(0, F(5, 12)), (1, F(5, 12)), (2, F(1, 6))]
    assert difference(hits, saves, floor=None).items() == [(-1, F(1, 12)), (0, F(1, 3)), (1, F(5, 12)),
                                                           (2, F(1, 6))]
    net = difference(successes(10, at_least(4)), successes(10, at_least(5)))
    assert sum(p for _, p in net.items()) == 1
    assert net[10] == F(1, 1024) * F(2, 3) ** 10
    assert net.probability(lambda k: k >= 1) == 1 - net[0]


def test_convolve_and_map() -> None:
    two = convolve(D6, D6)
    assert two[7] == F(1, 6) and two[2] == F(1, 36) and len(two) == 11
    assert convolve(successes(3, F(1, 3)), successes(2, F(1, 3))) == successes(5, F(1, 3))
    parity = two.map(lambda total: total % 2)
    assert parity.items() == [(0, F(1, 2)), (1, F(1, 2))]
    assert D6.probability(lambda face: face >= 5) == F(1, 3) and D6.mean == F(7, 2)
    assert Distribution.certain("hit").items() == [("hit", F(1))]
    mixed = Distribution({"miss": F(2, 3), 1: F(1, 3)})
    assert set(mixed.items()) == {("miss", F(2, 3)), (1, F(1, 3))}
    assert repr(successes(1, F(1, 3))) == "Distribution({0: 2/3, 1: 1/3})"
    assert hash(successes(2, F(1, 2))) == hash(Distribution({0: F(1, 4), 1: F(1, 2), 2: F(1, 4)}))


def test_bad_distributions() -> None:
    with pytest.raises(OddsError, match="add up to 1/2, not 1"):
        Distribution({0: F(1, 2)})
    with pytest.raises(OddsError, match="outside 0..1"):
        Distribution({0: F(3, 2), 1: F(-1, 2)})
    with pytest.raises(OddsError, match="chance of success is 3/2"):
        successes(2, F(3, 2))
    with pytest.raises(OddsError, match="number of dice"):
        successes(-1, F(1, 2))
    with pytest.raises(OddsError, match="positive weight"):
        Distribution.from_weights({1: 0})
    with pytest.raises(OddsError, match="non-negative int"):
        Distribution.from_weights({1: -2})
    with pytest.raises(OddsError, match="chance of success must be an exact Fraction or int, not 0.5"):
        successes(2, 0.5)                                 # type: ignore[arg-type]
    with pytest.raises(OddsError, match="probability of 'hit' must be an exact Fraction"):
        Distribution({"hit": 0.25, "miss": 0.75})         # type: ignore[dict-item]
    assert issubclass(OddsError, RefereeError)


@pytest.mark.slow
def test_exact_odds_agree_with_100000_seeded_rolls() -> None:
    exact = difference(successes(10, at_least(4)), successes(10, at_least(5)))
    dice = SeededDice(20261130)
    counts = [0] * 11
    trials = 100_000
    for _ in range(trials):
        hits = sum(value >= 4 for value in dice.roll(10, "to-hit"))
        saves = sum(value >= 5 for value in dice.roll(10, "saves"))
        counts[max(hits - saves, 0)] += 1
    worst = max(abs(counts[k] / trials - float(exact[k])) for k in range(11))
    assert worst < 0.01
