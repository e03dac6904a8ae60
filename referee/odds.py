"""Exact odds: probability distributions over small outcomes, as fractions.

The referee reports chances exactly ("the attack disrupts with probability
2,401/6,561"), never as rounded floats. A :class:`Distribution` keeps integer
weights over one common denominator, so convolving two dice pools costs integer
multiplications only; :class:`fractions.Fraction` objects are made when asked for.
"""
from __future__ import annotations

import operator
from fractions import Fraction
from math import comb, lcm
from typing import Any, Callable, Hashable, Iterator, Mapping

from referee.errors import RefereeError


class OddsError(RefereeError):
    """A probability outside 0..1 or a distribution whose chances do not add up to 1."""


class Distribution:
    """Outcomes with exact probabilities that add up to 1.

    Build one from probabilities (``Distribution({0: Fraction(1, 2), 1: Fraction(1, 2)})``)
    or from integer weights (:meth:`from_weights`). Outcomes with probability 0 are
    dropped. Items come out ordered by outcome when the outcomes can be ordered.
    """

    __slots__ = ("_weights", "_total")

    def __init__(self, probabilities: Mapping[Hashable, Fraction | int]) -> None:
        chances = {value: _exact(p, f"probability of {value!r}") for value, p in probabilities.items()}
        for value, p in chances.items():
            if p < 0 or p > 1:
                raise OddsError(f"probability of {value!r} is {p}, outside 0..1")
        if sum(chances.values()) != 1:
            raise OddsError(f"probabilities add up to {sum(chances.values())}, not 1")
        total = lcm(*(p.denominator for p in chances.values()))
        self._weights = _ordered({value: p.numerator * (total // p.denominator) for value, p in chances.items()})
        self._total = total

    @classmethod
    def from_weights(cls, weights: Mapping[Hashable, int]) -> Distribution:
        """Outcomes in proportion to non-negative integer ``weights`` (e.g. counts of die faces)."""
        total = 0
        for value, weight in weights.items():
            if type(weight) is not int or weight < 0:
                raise OddsError(f"weight of {value!r} must be a non-negative int, not {weight!r}")
            total += weight
        if total == 0:
            raise OddsError("a distribution needs at least one outcome with positive weight")
        return cls._make(dict(weights), total)

    @classmethod
    def certain(cls, value: Hashable) -> Distribution:
        """The distribution that always gives ``value``."""
        return cls._make({value: 1}, 1)

    @classmethod
    def _make(cls, weights: dict[Hashable, int], total: int) -> Distribution:
        self = object.__new__(cls)
        self._weights = _ordered(weights)
        self._total = total
        return self

    # -- reading ----------------------------------------------------------------

    def __getitem__(self, value: Hashable) -> Fraction:
        """Probability of ``value`` (0 for an outcome that cannot happen)."""
        return Fraction(self._weights.get(value, 0), self._total)

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self._weights)

    def __len__(self) -> int:
        return len(self._weights)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Distribution):
            return NotImplemented
        return dict(self.items()) == dict(other.items())

    def __hash__(self) -> int:
        return hash(frozenset(self.items()))

    def __repr__(self) -> str:
        inner = ", ".join(f"{value!r}: {p}" for value, p in self.items())
        return f"Distribution({{{inner}}})"

    def items(self) -> list[tuple[Hashable, Fraction]]:
        """``(outcome, probability)`` pairs."""
        return [(value, Fraction(weight, self._total)) for value, weight in self._weights.items()]

    def probability(self, predicate: Callable[[Any], bool]) -> Fraction:
        """Probability that the outcome satisfies ``predicate``."""
        return Fraction(sum(w for value, w in self._weights.items() if predicate(value)), self._total)

    @property
    def mean(self) -> Fraction:
        """Expected value (outcomes must be numbers)."""
        return Fraction(sum(value * w for value, w in self._weights.items()), self._total)

    # -- transforming -----------------------------------------------------------

    def map(self, function: Callable[[Any], Hashable]) -> Distribution:
        """The distribution of ``function(outcome)``; outcomes that map together add up."""
        weights: dict[Hashable, int] = {}
        for value, weight in self._weights.items():
            key = function(value)
            weights[key] = weights.get(key, 0) + weight
        return Distribution._make(weights, self._total)

    def combine(self, other: Distribution, function: Callable[[Any, Any], Hashable]) -> Distribution:
        """The distribution of ``function(x, y)`` for independent ``x`` from self, ``y`` from other."""
        weights: dict[Hashable, int] = {}
        get = weights.get
        for x, wx in self._weights.items():
            for y, wy in other._weights.items():
                key = function(x, y)
                weights[key] = get(key, 0) + wx * wy
        return Distribution._make(weights, self._total * other._total)


def _ordered(weights: dict[Hashable, int]) -> dict[Hashable, int]:
    """Drop zero weights; sort by outcome when outcomes can be compared."""
    kept = {value: weight for value, weight in weights.items() if weight}
    try:
        return dict(sorted(kept.items(), key=operator.itemgetter(0)))
    except TypeError:
        return kept


def _exact(value: Fraction | int, what: str) -> Fraction:
    """``value`` as a Fraction; floats are refused, as 1/3 has no exact float."""
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        raise OddsError(f"{what} must be an exact Fraction or int, not {value!r}")
    return Fraction(value)


def at_least(number: int, sides: int = 6) -> Fraction:
    """Chance that one die with ``sides`` faces (1..sides) rolls ``number`` or more.

    A to-hit of 5 on a d6 is ``at_least(5) == 1/3``; numbers above ``sides`` never
    succeed and numbers of 1 or less always do.
    """
    if sides < 1:
        raise OddsError(f"a die needs at least one side, not {sides}")
    return Fraction(min(max(sides - number + 1, 0), sides), sides)


def successes(n: int, p: Fraction | int) -> Distribution:
    """How many of ``n`` independent dice succeed, each with chance ``p`` (binomial)."""
    if type(n) is not int or n < 0:
        raise OddsError(f"number of dice must be a non-negative int, not {n!r}")
    p = _exact(p, "chance of success")
    if p < 0 or p > 1:
        raise OddsError(f"chance of success is {p}, outside 0..1")
    a, b = p.numerator, p.denominator
    fail = b - a
    weights = {k: comb(n, k) * a ** k * fail ** (n - k) for k in range(n + 1)}
    return Distribution._make(weights, b ** n)


def convolve(a: Distribution, b: Distribution) -> Distribution:
    """Distribution of the sum of independent outcomes of ``a`` and ``b``."""
    return a.combine(b, operator.add)


def difference(a: Distribution, b: Distribution, *, floor: int | None = 0) -> Distribution:
    """Distribution of ``a - b`` for independent outcomes, not below ``floor``.

    With the default ``floor=0`` this is hits less saves: each save cancels one hit
    and surplus saves are lost. ``floor=None`` keeps negative differences.
    """
    if floor is None:
        return a.combine(b, operator.sub)
    return a.combine(b, lambda x, y: max(x - y, floor))
