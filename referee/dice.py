"""Dice: where the referee's chance comes from, always explicit and always recorded.

The rules are pure functions of (game, action, dice). A procedure asks its
:class:`DiceSource` for dice with a label saying what they are for ("AP to-hit",
"defensive dice", "artillery accuracy"); every answer is written to ``source.log``
so a resolution can show its rolls. Three sources:

* :class:`GivenDice`: the values the caller lists, consumed in order (a rulebook
  example, a VASSAL log being checked);
* :class:`SeededDice`: a pseudo-random stream whose seed is reported, so any result
  can be reproduced;
* :class:`EnumeratedDice`: every possible outcome of a small procedure, each with
  its exact probability, for odds that no sampling can get wrong.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Generic, Hashable, Iterator, NamedTuple, Sequence, TypeVar

from referee.errors import RefereeError
from referee.odds import Distribution

T = TypeVar("T")
H = TypeVar("H", bound=Hashable)


class DiceError(RefereeError):
    """A roll that cannot be made: a bad number of dice or sides, or a given value off the die."""


class DiceExhausted(DiceError):
    """Given dice ran out: names the roll that wanted more and how many were left."""

    def __init__(self, label: str, wanted: int, left: int, used: int) -> None:
        self.label, self.wanted, self.left, self.used = label, wanted, left, used
        super().__init__(f"roll {label!r} wants {wanted} {'die' if wanted == 1 else 'dice'} "
                         f"but only {left} of the given dice {'is' if left == 1 else 'are'} left "
                         f"({used} already used)")


class EnumerationTooLarge(DiceError):
    """Enumerating a procedure would visit more outcomes than the limit allows."""


class DiceRoll(NamedTuple):
    """One recorded roll: what it was for and the faces shown, in order."""

    label: str
    values: tuple[int, ...]


class DiceSource:
    """Base of every source of dice: validates the request and records the result."""

    def __init__(self) -> None:
        self.log: list[DiceRoll] = []

    def roll(self, n: int, label: str, sides: int = 6) -> list[int]:
        """Roll ``n`` dice with ``sides`` faces (1..sides) for the purpose ``label``."""
        if type(n) is not int or n < 0:
            raise DiceError(f"roll {label!r}: number of dice must be a non-negative int, not {n!r}")
        if type(sides) is not int or sides < 1:
            raise DiceError(f"roll {label!r}: a die needs at least one side, not {sides!r}")
        values = self._draw(n, label, sides)
        self.log.append(DiceRoll(label, tuple(values)))
        return values

    def roll_one(self, label: str, sides: int = 6) -> int:
        """Roll a single die."""
        return self.roll(1, label, sides)[0]

    def _draw(self, n: int, label: str, sides: int) -> list[int]:
        raise DiceError(f"{type(self).__name__} cannot roll dice")


def roll(source: DiceSource, n: int, label: str, sides: int = 6) -> list[int]:
    """Roll ``n`` dice from ``source``: the function form of :meth:`DiceSource.roll`."""
    return source.roll(n, label, sides)


class GivenDice(DiceSource):
    """Dice whose values the caller lists, handed out in order.

    Asking for more dice than remain raises :class:`DiceExhausted` naming the roll;
    a listed value that is not a face of the die asked for raises :class:`DiceError`.
    """

    def __init__(self, values: Sequence[int]) -> None:
        super().__init__()
        self._values = list(values)
        for index, value in enumerate(self._values):
            if type(value) is not int:
                raise DiceError(f"given die {index + 1} must be an int, not {value!r}")
        self._next = 0

    @property
    def remaining(self) -> tuple[int, ...]:
        """The given values not yet used."""
        return tuple(self._values[self._next:])

    def _draw(self, n: int, label: str, sides: int) -> list[int]:
        left = len(self._values) - self._next
        if n > left:
            raise DiceExhausted(label, n, left, self._next)
        values = self._values[self._next:self._next + n]
        for offset, value in enumerate(values):
            if not 1 <= value <= sides:
                raise DiceError(f"roll {label!r}: given die {self._next + offset + 1} is {value}, "
                                f"not a face of a d{sides}")
        self._next += n
        return values

    def __repr__(self) -> str:
        return f"GivenDice({self._values!r})"


class SeededDice(DiceSource):
    """Pseudo-random dice from ``random.Random(seed)``, one ``randrange(1, sides + 1)`` per die.

    The seed is kept (``.seed``) and shown by ``repr`` so a reported result can be
    replayed. The Mersenne Twister seeded with an int or str and ``randrange`` over an
    int range give the same stream on every CPython 3 since 3.2, so the same seed rolls
    the same dice on 3.10 and later.
    """

    def __init__(self, seed: int | str) -> None:
        super().__init__()
        if type(seed) not in (int, str):
            raise DiceError(f"dice seed must be an int or a str, not {seed!r}")
        self.seed = seed
        self._random = random.Random(seed)

    def _draw(self, n: int, label: str, sides: int) -> list[int]:
        randrange = self._random.randrange
        return [randrange(1, sides + 1) for _ in range(n)]

    def __repr__(self) -> str:
        return f"SeededDice(seed={self.seed!r})"


@dataclass(frozen=True)
class Outcome(Generic[T]):
    """One path through a procedure: its exact probability, its result and its rolls."""

    probability: Fraction
    result: T
    log: tuple[DiceRoll, ...]


class EnumeratedDice(DiceSource):
    """Every outcome of a procedure, for exact odds by exhaustive enumeration.

    Each die a procedure rolls is a chance node with ``sides`` equally likely faces.
    :meth:`outcomes` runs the procedure once per path through those nodes (depth
    first, faces in increasing order), replaying the faces already chosen and taking
    the next untried face at the first new die. A procedure may roll different dice
    depending on earlier faces; paths that stop early simply have fewer dice. The cost
    is the number of paths (``6 ** dice`` for a fixed procedure), so this suits small
    procedures such as a morale check or an artillery scatter; for pools of dice use
    :mod:`referee.odds`. The procedure must be deterministic apart from its dice.
    """

    def __init__(self, path: Sequence[int] = ()) -> None:
        super().__init__()
        self._path = list(path)
        self._sides: list[int] = []
        self._position = 0

    def _draw(self, n: int, label: str, sides: int) -> list[int]:
        values = []
        for _ in range(n):
            if self._position < len(self._path):
                value = self._path[self._position]
                if not 1 <= value <= sides:
                    raise DiceError(f"roll {label!r}: the procedure changed the dice it rolls between runs")
            else:
                value = 1
                self._path.append(value)
            self._sides.append(sides)
            self._position += 1
            values.append(value)
        return values

    @staticmethod
    def outcomes(procedure: Callable[[DiceSource], T], *, limit: int = 1_000_000) -> Iterator[Outcome[T]]:
        """Yield every outcome of ``procedure(dice)`` with its probability (they add up to 1)."""
        path: list[int] = []
        runs = 0
        while True:
            runs += 1
            if runs > limit:
                raise EnumerationTooLarge(f"procedure has more than {limit} outcomes")
            dice = EnumeratedDice(path)
            result = procedure(dice)
            used = dice._path[:dice._position]
            probability = Fraction(1)
            for sides in dice._sides:
                probability /= sides
            yield Outcome(probability, result, tuple(dice.log))
            # Advance to the next path: bump the deepest die that has an untried face.
            path = used
            sides = dice._sides
            while path and path[-1] == sides[len(path) - 1]:
                path.pop()
            if not path:
                return
            path[-1] += 1

    @staticmethod
    def distribution(procedure: Callable[[DiceSource], H], *, limit: int = 1_000_000) -> Distribution:
        """The exact distribution of ``procedure(dice)``'s result over all its outcomes."""
        weights: dict[Hashable, Fraction] = {}
        for outcome in EnumeratedDice.outcomes(procedure, limit=limit):
            weights[outcome.result] = weights.get(outcome.result, Fraction(0)) + outcome.probability
        return Distribution(weights)
