"""Range bands of a printed range, the same in every book: point blank up to half the
printed range (fractions dropped), effective up to the printed range, long up to twice
it (EG/TUS §6.1.1, §6.1.2; WaW85 §10.3.1-§10.3.4).

What a ruleset changes is which bands a weapon has against a target: no long range and
no point-blank bonus for an underlined (classic) or AA-restricted / High Rate of Fire
(WaW85) value, half the reach against a helicopter for non-AA weapons (classic §9.3).
Each ruleset builds the :class:`Bands` it means; the arithmetic lives here once.
"""
from __future__ import annotations

from dataclasses import dataclass

from referee.errors import NotStated

BAND_TO_HIT = {"point_blank": -1, "effective": 0, "long": 1}
OUT_OF_RANGE = "out_of_range"


@dataclass(frozen=True)
class Bands:
    """The bands of one printed range against one target.

    ``near``: the point-blank band exists (its to-hit bonus applies); ``far``: fire may go
    beyond the printed range, to twice it; ``halved``: the reach is half the printed range
    (fractions dropped); ``adjacent_always``: an adjacent target is always in reach."""

    printed: int | None
    """The printed range; ``None`` when not stated (the bands a weapon has are still known)."""
    near: bool = True
    far: bool = True
    halved: bool = False
    adjacent_always: bool = False

    label: str = "weapon.range"

    @property
    def reach(self) -> int:
        """The range at which the effective band ends."""
        if self.printed is None:
            raise NotStated(self.label)
        return self.printed // 2 if self.halved else self.printed

    @property
    def names(self) -> list[str]:
        """The bands this weapon has, nearest first (a point-blank band when half the
        reach is at least 1; assumed so when the printed range is not stated)."""
        out = ["point_blank"] if self.near and (self.printed is None or self.reach // 2 >= 1) else []
        return out + ["effective"] + (["long"] if self.far else [])

    @property
    def max_range(self) -> int:
        return 2 * self.reach if self.far else self.reach

    def band(self, distance: int) -> str:
        """The band at ``distance``: ``point_blank``, ``effective``, ``long`` or ``out_of_range``."""
        if distance <= 1 and self.adjacent_always:
            return "effective" if not (self.near and distance <= self.reach // 2) else "point_blank"
        if distance > self.max_range:
            return OUT_OF_RANGE
        if self.near and distance <= self.reach // 2:
            return "point_blank"
        return "effective" if distance <= self.reach else "long"
