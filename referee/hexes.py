"""Hex geometry: cube coordinates, offset numbering, range and board pixels.

A hex is named by cube coordinates ``(q, r, s)`` with ``q + r + s == 0``; range,
neighbours and lines are simplest there. Boards number hexes by *offset*
coordinates ``(col, row)`` and draw them at pixel positions; :class:`HexLayout`
converts between the three, with the same parameters a VASSAL ``HexGrid`` has.

Range is counted as the rulebooks count it: "do not count the attacker's hex; do
count the target's hex" (classic 6.1, WaW85 10.3), which is the cube distance.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator, Literal

from referee.errors import RefereeError

Orientation = Literal["flat", "pointy"]


class HexError(RefereeError):
    """A hex or a hex layout that does not make sense (bad coordinates, zero-size hexes)."""


@dataclass(frozen=True, slots=True)
class Hex:
    """One hex in cube coordinates; ``s`` may be left out and is then ``-q - r``.

    Hexes are values: equal coordinates are the same hex, and they hash, so they
    key terrain tables and unit positions directly.
    """

    q: int
    r: int
    s: int = None  # type: ignore[assignment]  # filled in by __post_init__

    def __post_init__(self) -> None:
        if self.s is None:
            object.__setattr__(self, "s", -self.q - self.r)
        for name in ("q", "r", "s"):
            if type(getattr(self, name)) is not int:
                raise HexError(f"hex coordinate {name} must be an int, not {getattr(self, name)!r}")
        if self.q + self.r + self.s != 0:
            raise HexError(f"cube coordinates must sum to 0: ({self.q}, {self.r}, {self.s})")

    def __add__(self, other: Hex) -> Hex:
        return Hex(self.q + other.q, self.r + other.r)

    def __sub__(self, other: Hex) -> Hex:
        return Hex(self.q - other.q, self.r - other.r)

    def __repr__(self) -> str:
        return f"Hex({self.q}, {self.r}, {self.s})"

    def length(self) -> int:
        """Steps from the origin hex ``Hex(0, 0, 0)`` to this one."""
        return max(abs(self.q), abs(self.r), abs(self.s))

    def distance(self, other: Hex) -> int:
        """Range from this hex to ``other``: the target hex counts, this one does not.

        Adjacent hexes are at range 1, a hex is at range 0 from itself.
        """
        return max(abs(self.q - other.q), abs(self.r - other.r), abs(self.s - other.s))

    def neighbor(self, direction: int) -> Hex:
        """The adjacent hex in ``DIRECTIONS[direction]`` (0..5)."""
        dq, dr, _ = DIRECTIONS[direction % 6]
        return Hex(self.q + dq, self.r + dr)

    def neighbors(self) -> list[Hex]:
        """The six adjacent hexes, in the order of :data:`DIRECTIONS`."""
        return [Hex(self.q + dq, self.r + dr) for dq, dr, _ in DIRECTIONS]

    def direction_to(self, other: Hex) -> int:
        """Index into :data:`DIRECTIONS` of the direction that points most nearly at ``other``.

        For an adjacent hex this is exact (``self.neighbor(d) == other``). For a hex
        further away it is the direction whose 60-degree sector holds ``other``. A hex
        exactly between two sectors (on a hexside spine) gets the earlier of the two in
        the cyclic order 0, 1, ..., 5, 0 (so the border of 5 and 0 goes to 5).
        """
        if other == self:
            raise HexError(f"no direction from {self!r} to itself")
        dq, dr, ds = other.q - self.q, other.r - self.r, other.s - self.s
        # Dot products in the cube metric: larger means a smaller angle.
        scores = [dq * eq + dr * er + ds * es for eq, er, es in DIRECTIONS]
        best = max(scores)
        ties = [index for index, score in enumerate(scores) if score == best]
        return 5 if ties == [0, 5] else ties[0]

    def ring(self, radius: int) -> list[Hex]:
        """The hexes at exactly ``radius`` from this one (``[self]`` for radius 0)."""
        if radius < 0:
            raise HexError(f"ring radius must not be negative: {radius}")
        if radius == 0:
            return [self]
        results: list[Hex] = []
        dq, dr, _ = DIRECTIONS[4]
        hex_ = Hex(self.q + dq * radius, self.r + dr * radius)
        for side in range(6):
            for _ in range(radius):
                results.append(hex_)
                hex_ = hex_.neighbor(side)
        return results

    def within(self, radius: int) -> Iterator[Hex]:
        """Every hex at range ``radius`` or less, this one included."""
        if radius < 0:
            raise HexError(f"radius must not be negative: {radius}")
        for dq in range(-radius, radius + 1):
            for dr in range(max(-radius, -dq - radius), min(radius, -dq + radius) + 1):
                yield Hex(self.q + dq, self.r + dr)

    @classmethod
    def from_offset(cls, col: int, row: int, layout: HexLayout) -> Hex:
        """The hex numbered ``(col, row)`` on ``layout`` (see :class:`HexLayout`)."""
        return layout.from_offset(col, row)

    def to_offset(self, layout: HexLayout) -> tuple[int, int]:
        """This hex's ``(col, row)`` on ``layout``."""
        return layout.to_offset(self)


# The six neighbour directions as cube vectors. On a 'flat' layout they point
# N, NE, SE, S, SW, NW (clockwise from north); on a 'pointy' layout, which is the
# flat one mirrored across the diagonal, the same vectors point W, SW, SE, E, NE, NW.
DIRECTIONS: tuple[tuple[int, int, int], ...] = (
    (0, -1, 1),
    (1, -1, 0),
    (1, 0, -1),
    (0, 1, -1),
    (-1, 1, 0),
    (-1, 0, 1),
)

FLAT_DIRECTION_NAMES = ("N", "NE", "SE", "S", "SW", "NW")
POINTY_DIRECTION_NAMES = ("W", "SW", "SE", "E", "NE", "NW")


def cube_round(fq: float, fr: float) -> Hex:
    """The hex holding the fractional cube point ``(fq, fr, -fq - fr)``."""
    fs = -fq - fr
    q, r, s = round(fq), round(fr), round(fs)
    dq, dr, ds = abs(q - fq), abs(r - fr), abs(s - fs)
    if dq > dr and dq > ds:
        q = -r - s
    elif dr > ds:
        r = -q - s
    return Hex(int(q), int(r))


@dataclass(frozen=True, slots=True)
class HexLayout:
    """How a board numbers and draws its hexes; the parameters of a VASSAL ``HexGrid``.

    ``orientation``
        ``'flat'``: flat-topped hexes standing in vertical columns (VASSAL
        ``sideways="false"``); ``'pointy'``: pointy-topped hexes in horizontal rows
        (VASSAL ``sideways="true"``, the same grid turned on its side).
    ``dx``, ``dy``
        As VASSAL measures them in the hex's own frame: ``dx`` is the distance between
        neighbouring lines of hexes (columns for 'flat', rows for 'pointy'), ``dy`` the
        distance between neighbouring centres along a line (the height across the flats
        for 'flat', the width for 'pointy'). Regular hexes have ``dx = dy * sqrt(3) / 2``
        but a board's grid may be stretched to fit its artwork; every hex is then the
        regular hexagon stretched the same way, which is also how VASSAL draws it.
    ``origin``
        Pixel ``(x, y)`` of the centre of the hex numbered ``(0, 0)``. (A sideways VASSAL
        grid stores it swapped: pass ``(y0, x0)`` there.)
    ``stagger``
        VASSAL ``HexGridNumbering.stagger``. Offset ``(col, row)`` counts columns along x
        and rows along y in both orientations. In a 'flat' layout the odd columns sit half
        a hex higher than the even column with the same row number when ``stagger`` is true
        (VASSAL's default numbering) and half a hex lower when it is false (VASSAL's raw
        grid). In a 'pointy' layout the odd rows sit half a hex to the left when it is
        true and to the right when it is false.

    With ascending numbering, VASSAL's ``HexGridNumbering`` column and row are ``(col, row)``
    on a flat grid and ``(row, col)`` on a sideways grid, which numbers its rows of hexes as
    columns (the interop tests check this against VASSAL's own classes).
    """

    orientation: Orientation = "flat"
    dx: float = 64 * math.sqrt(3) / 2
    dy: float = 64.0
    origin: tuple[float, float] = (0.0, 0.0)
    stagger: bool = True

    def __post_init__(self) -> None:
        if self.orientation not in ("flat", "pointy"):
            raise HexError(f"hex orientation must be 'flat' or 'pointy', not {self.orientation!r}")
        for name in ("dx", "dy"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
                raise HexError(f"hex {name} must be a positive number, not {value!r}")
        origin = tuple(self.origin) if isinstance(self.origin, (tuple, list)) else ()
        if len(origin) != 2 or not all(isinstance(v, (int, float)) and math.isfinite(v) for v in origin):
            raise HexError(f"hex layout origin must be a pair of numbers, not {self.origin!r}")
        object.__setattr__(self, "origin", (float(origin[0]), float(origin[1])))

    @classmethod
    def regular(cls, size: float, orientation: Orientation = "flat", *,
                origin: tuple[float, float] = (0.0, 0.0), stagger: bool = True) -> HexLayout:
        """A layout of regular hexes ``size`` pixels across the flats."""
        return cls(orientation, size * math.sqrt(3) / 2, float(size), origin, stagger)

    # -- offset numbering -------------------------------------------------------
    # Internally the 'pointy' grid is the 'flat' one mirrored across the diagonal:
    # a "line" is a column (flat) or a row (pointy); q counts lines, and
    # r + q/2 counts centres along a line.

    def _line_and_place(self, col: int, row: int) -> tuple[int, int]:
        return (col, row) if self.orientation == "flat" else (row, col)

    def from_offset(self, col: int, row: int) -> Hex:
        """The hex numbered ``(col, row)``."""
        if type(col) is not int or type(row) is not int:
            raise HexError(f"offset coordinates must be ints, not ({col!r}, {row!r})")
        line, place = self._line_and_place(col, row)
        odd = line & 1
        shift = (line + odd) // 2 if self.stagger else (line - odd) // 2
        return Hex(line, place - shift)

    def to_offset(self, hex_: Hex) -> tuple[int, int]:
        """The ``(col, row)`` number of ``hex_``."""
        line = hex_.q
        odd = line & 1
        shift = (line + odd) // 2 if self.stagger else (line - odd) // 2
        place = hex_.r + shift
        return (line, place) if self.orientation == "flat" else (place, line)

    # -- pixels -----------------------------------------------------------------

    def _to_pixel(self, u: float, v: float) -> tuple[float, float]:
        """Pixel of the frame point (u across lines, v along a line), origin added."""
        if self.orientation == "flat":
            return (self.origin[0] + u, self.origin[1] + v)
        return (self.origin[0] + v, self.origin[1] + u)

    def _from_pixel(self, x: float, y: float) -> tuple[float, float]:
        x, y = x - self.origin[0], y - self.origin[1]
        return (x, y) if self.orientation == "flat" else (y, x)

    def center(self, hex_: Hex) -> tuple[float, float]:
        """Pixel ``(x, y)`` of the centre of ``hex_`` (floats; VASSAL truncates to ints)."""
        return self._to_pixel(hex_.q * self.dx, (hex_.r + hex_.q / 2) * self.dy)

    def hex_at(self, x: float, y: float) -> Hex:
        """The hex whose outline holds pixel ``(x, y)``; points on an edge go to either side."""
        u, v = self._from_pixel(x, y)
        fq = u / self.dx
        return cube_round(fq, v / self.dy - fq / 2)

    def corners(self, hex_: Hex) -> list[tuple[float, float]]:
        """The six corners of ``hex_`` in pixels, going round the outline.

        The outline is VASSAL's: corners ``2*dx/3`` either side of the centre across the
        lines, and ``dx/3`` across by ``dy/2`` along for the other four.
        """
        cu, cv = hex_.q * self.dx, (hex_.r + hex_.q / 2) * self.dy
        far, near, half = 2 * self.dx / 3, self.dx / 3, self.dy / 2
        frame = [(far, 0.0), (near, half), (-near, half), (-far, 0.0), (-near, -half), (near, -half)]
        return [self._to_pixel(cu + du, cv + dv) for du, dv in frame]
