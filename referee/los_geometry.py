"""Line-of-sight geometry: which hexes the string from centre to centre crosses.

The rulebooks trace LOS with a string stretched "from the center of the attacker's
hex to the center of the defender's hex" (classic 7.3, WaW85 10.2). A hex the string
passes through may block; where the string runs exactly along a hexside it touches
both hexes beside that side without entering either, and the rule is "If the string
passes only along the edge of a blocking hex, fire is not blocked; but if the string
runs along a boundary shared by two blocking hexes (i.e., between them), LOS IS
blocked" (EG 7.3; WaW85 10.2.2 counts blocking hexsides the same way).
:func:`trace_line` reports both things and leaves terrain to the rules.

Exactness. The trace is computed with integers only, never floats, so a string lying
exactly on a hexside or through a corner is recognised every time and the trace from
b to a is the trace from a to b reversed. The string is walked hex by hex: in a fixed
integer frame (below) the signed side of each hex corner relative to the string is an
integer, and the string leaves a hex through the side whose two corners lie on opposite
sides of it, or through the corner lying exactly on it. The work is proportional to
the hexes crossed.

Proportions. A board's hexes need not be regular: VASSAL draws every hex as the
regular hexagon stretched by the board's ``dx`` and ``dy`` (and a 'pointy' board is
the 'flat' one mirrored across the diagonal). Stretching and mirroring map straight
lines to straight lines, hex outlines to hex outlines and centres to centres, so the
string crosses the same hexes, corners and hexsides on every layout. The trace is
therefore computed once in a fixed integer frame and holds for any :class:`HexLayout`;
the tests check this against lines drawn in pixels on stretched layouts. (What does
change on a stretched board is which centre a point is *nearest*: there the outline
is not the nearest-centre cell, and a string judged by nearest centres goes wrong.)

Degenerate strings. Where the string passes exactly through a corner it either runs
on along a hexside (a hexside run, reported) or enters a hex that shares a side with
the hex it left; the third hex at that corner is touched at a single point only and
is not reported, as a string "along the edge" of a hex does not enter it. Strings run
along hexsides only in the six spine directions (the cube multiples of (2, -1, -1)),
where they alternate: hex, hexside, hex, hexside ... target.

Sharing. A trace depends only on the cube vector from ``a`` to ``b``, so it is computed
once per vector (:func:`line_shape`) and shared by every start hex and every caller.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from referee.hexes import DIRECTIONS, Hex, HexError, HexLayout


class HexsideRun(NamedTuple):
    """A stretch of the string lying exactly on the side shared by ``first`` and ``second``.

    ``first``/``second`` are ordered by cube coordinates (the pair is the same whichever
    way the string is traced). ``position`` is how many entries of ``LineTrace.hexes``
    the string has passed through before it reaches this hexside.
    """

    first: Hex
    second: Hex
    position: int


@dataclass(frozen=True)
class LineTrace:
    """What the string from the centre of ``a`` to the centre of ``b`` crosses.

    ``hexes``: every hex the string passes through, in order from ``a``, without ``a``
    and ending with ``b`` (empty when ``a == b``). ``hexside_runs``: each hexside the
    string runs along, in order from ``a``. ``corner_touches``: hexes the string meets
    at one corner only, in order from ``a``; they are not passed through.
    """

    a: Hex
    b: Hex
    hexes: tuple[Hex, ...]
    hexside_runs: tuple[HexsideRun, ...]
    corner_touches: tuple[Hex, ...] = ()

    @property
    def between(self) -> tuple[Hex, ...]:
        """The intervening hexes: those passed through, without the target hex ``b``."""
        return self.hexes[:-1]


Step = tuple[int, int]
#: One hexside, as (hex, direction index into ``referee.hexes.DIRECTIONS``); the hex is
#: a ``(dq, dr)`` step of the shape, ``(0, 0)`` being the start hex.
Side = tuple[Step, int]


class LineShape(NamedTuple):
    """A trace from the origin hex, as cube ``(dq, dr)`` steps: the same for every start hex.

    ``steps`` are the hexes passed through (ending with the target); ``runs`` are
    ``(first, second, position)`` with ``first`` and ``second`` as ``(dq, dr)``;
    ``touches`` are the hexes met at a corner only. ``crossings`` say how the string
    gets from one hex to the next, one entry per step: the ways a line drawn on hexsides
    (a crest line) can lie across it there, each a tuple of hexsides that must all be on
    the line. Into a neighbour: the side between them. Through a hexside run: at either
    end corner, both sides of the hex there that meet at that corner (a line along the
    run itself is run along, not crossed). Precomputing lookups from a shape is how many
    LOS checks are made quickly.
    """

    steps: tuple[Step, ...]
    runs: tuple[tuple[Step, Step, int], ...]
    touches: tuple[Step, ...] = ()
    crossings: tuple[tuple[tuple[Side, ...], ...], ...] = ()


def trace_line(a: Hex, b: Hex, layout: HexLayout | None = None) -> LineTrace:
    """Trace the string from the centre of ``a`` to the centre of ``b``.

    ``layout`` may be given for clarity; as the module notes explain, stretching or
    turning a board does not change which hexes a centre-to-centre string crosses.
    """
    if not isinstance(a, Hex) or not isinstance(b, Hex):
        raise HexError(f"trace_line needs two hexes, not {a!r} and {b!r}")
    if layout is not None and not isinstance(layout, HexLayout):
        raise HexError(f"trace_line layout must be a HexLayout, not {layout!r}")
    shape = line_shape(b.q - a.q, b.r - a.r)
    q, r = a.q, a.r
    hexes = tuple(Hex(q + dq, r + dr) for dq, dr in shape.steps)
    runs = tuple(HexsideRun(Hex(q + f[0], r + f[1]), Hex(q + s[0], r + s[1]), position)
                 for f, s, position in shape.runs)
    touches = tuple(Hex(q + dq, r + dr) for dq, dr in shape.touches)
    return LineTrace(a, b, hexes, runs, touches)


# The integer frame: the centre of cube (q, r) sits at (3q, 2r + q); a hex is then
# |y| <= 1 and |x| + |y| <= 2 around its centre. Its corners, going round, and the
# neighbour across the side from corner i to corner i + 1, as a cube (dq, dr) step:
_CORNERS = ((2, 0), (1, 1), (-1, 1), (-2, 0), (-1, -1), (1, -1))
_ACROSS = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))
#: The outward normal of side i (from corner i to corner i + 1).
_NORMALS = ((1, 1), (0, 1), (-1, 1), (-1, -1), (0, -1), (1, -1))
#: The DIRECTIONS index of each side's neighbour.
_DIRECTION = tuple(next(d for d, (dq, dr, _) in enumerate(DIRECTIONS) if (dq, dr) == step) for step in _ACROSS)


@lru_cache(maxsize=65536)
def line_shape(dq: int, dr: int) -> LineShape:
    """The trace from ``Hex(0, 0)`` to ``Hex(dq, dr)``, computed exactly and cached.

    ``f(x, y) = dy*x - dx*y`` is zero on the string and has one sign on each side of it.
    The string leaves a hex through its forward sides (those whose outward normal points
    along the string); along them ``f`` at the corners changes sign once, and where it
    does the string leaves: across a side, or through a corner where ``f`` is zero.
    """
    if type(dq) is not int or type(dr) is not int:
        raise HexError(f"line_shape needs integer cube steps, not ({dq!r}, {dr!r})")
    if dq == 0 and dr == 0:
        return LineShape((), ())
    dx, dy = 3 * dq, 2 * dr + dq
    at_corner = [dy * x - dx * y for x, y in _CORNERS]                       # f(corner) - f(centre)
    to_next = [dy * 3 * sq - dx * (2 * sr + sq) for sq, sr in _ACROSS]       # f(neighbour) - f(centre)
    rate = [nx * dx + ny * dy for nx, ny in _NORMALS]
    first = next(i for i in range(6) if rate[i] > 0 and rate[i - 1] <= 0)
    forward = [first]
    while rate[(forward[-1] + 1) % 6] > 0:
        forward.append((forward[-1] + 1) % 6)
    chain = [*forward, (forward[-1] + 1) % 6]                                 # the corners along them
    q = r = f = 0
    steps: list[Step] = []
    runs: list[tuple[Step, Step, int]] = []
    touches: list[Step] = []
    crossings: list[tuple[tuple[Side, ...], ...]] = []
    while (q, r) != (dq, dr):
        values = [f + at_corner[c] for c in chain]
        for j, corner in enumerate(chain):
            if values[j] == 0:                       # through a corner
                left, right = (corner - 1) % 6, corner
                if at_corner[corner] == 0:           # the string runs on along the outward hexside
                    (lq, lr), (rq, rr) = _ACROSS[left], _ACROSS[right]
                    pair = sorted([(q + lq, r + lr), (q + rq, r + rr)])
                    runs.append((pair[0], pair[1], len(steps)))
                    here = (q, r)
                    q, r, f = q + lq + rq, r + lr + rr, f + to_next[left] + to_next[right]
                    # the far hex meets the run's hexes across its sides opposite theirs
                    crossings.append((((here, _DIRECTION[left]), (here, _DIRECTION[right])),
                                      (((q, r), _DIRECTION[(right + 3) % 6]), ((q, r), _DIRECTION[(left + 3) % 6]))))
                else:                                # into the neighbour the string crosses; the other is grazed
                    entered = left if _crossed(f + to_next[left], at_corner) else right
                    grazed = right if entered == left else left
                    touches.append((q + _ACROSS[grazed][0], r + _ACROSS[grazed][1]))
                    crossings.append(((((q, r), _DIRECTION[entered]),),))
                    q, r, f = q + _ACROSS[entered][0], r + _ACROSS[entered][1], f + to_next[entered]
                break
            if values[j] * values[j + 1] < 0:        # across the side between corners j and j + 1
                side = forward[j]
                crossings.append(((((q, r), _DIRECTION[side]),),))
                q, r, f = q + _ACROSS[side][0], r + _ACROSS[side][1], f + to_next[side]
                break
        steps.append((q, r))
    return LineShape(tuple(steps), tuple(runs), tuple(touches), tuple(crossings))


def _crossed(centre: int, at_corner: list[int]) -> bool:
    """Does the string pass through the inside of the hex whose centre has ``f == centre``?"""
    values = [centre + k for k in at_corner]
    return min(values) < 0 < max(values)
