"""Line-of-sight geometry: which hexes the string from centre to centre crosses.

The rulebooks trace LOS with a string stretched "from the center of the attacker's
hex to the center of the defender's hex" (classic 7.3, WaW85 10.2). A hex the string
passes through may block; where the string runs exactly along a hexside it touches
both hexes beside that side without entering either, and the rule is "If the string
passes only along the edge of a blocking hex, fire is not blocked; but if the string
runs along a boundary shared by two blocking hexes (i.e., between them), LOS IS
blocked" (002 7.3; WaW85 10.2.2 counts blocking hexsides the same way).
:func:`trace_line` reports both things and leaves terrain to the rules.

Exactness. The answer is computed with integers and fractions, never floats, so a
string lying exactly on a hexside or through a corner is recognised every time and
the trace from b to a is the trace from a to b reversed.

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
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

from referee.hexes import Hex, HexError, HexLayout, cube_round


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


class LineShape(NamedTuple):
    """A trace from the origin hex, as cube ``(dq, dr)`` steps: the same for every start hex.

    ``steps`` are the hexes passed through (ending with the target); ``runs`` are
    ``(first, second, position)`` with ``first`` and ``second`` as ``(dq, dr)``;
    ``touches`` are the hexes met at a corner only. Precomputing lookups from a shape
    is how many LOS checks are made quickly.
    """

    steps: tuple[tuple[int, int], ...]
    runs: tuple[tuple[tuple[int, int], tuple[int, int], int], ...]
    touches: tuple[tuple[int, int], ...] = ()


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
# |y| <= 1 and |x| + |y| <= 2 around its centre, corners at (+-2, 0) and (+-1, +-1).
# Each constraint is (nx, ny, limit): nx*x + ny*y <= limit.
_HEX_SIDES = ((0, 1, 1), (0, -1, 1), (1, 1, 2), (1, -1, 2), (-1, 1, 2), (-1, -1, 2))


def _clip(cx: int, cy: int, dx: int, dy: int) -> tuple[Fraction, Fraction, bool] | None:
    """Where the string ``t*(dx, dy)``, 0 <= t <= 1, lies in the hex centred at (cx, cy).

    Returns ``(t_in, t_out, on_side)``, ``on_side`` meaning the stretch lies on one of
    the hex's sides (``t_in == t_out`` when only a corner is touched), or None if the
    string misses the hex.
    """
    low, high = Fraction(0), Fraction(1)
    on_side = False
    for nx, ny, limit in _HEX_SIDES:
        start = -(nx * cx + ny * cy)        # n . (string start - centre)
        rate = nx * dx + ny * dy            # n . direction
        room = limit - start
        if rate == 0:
            if room < 0:
                return None
            if room == 0:
                on_side = True
        elif rate > 0:
            high = min(high, Fraction(room, rate))
        else:
            low = max(low, Fraction(room, rate))
        if low > high:
            return None
    return low, high, on_side


@lru_cache(maxsize=65536)
def line_shape(dq: int, dr: int) -> LineShape:
    """The trace from ``Hex(0, 0)`` to ``Hex(dq, dr)``, computed exactly and cached."""
    distance = max(abs(dq), abs(dr), abs(dq + dr))
    if distance == 0:
        return LineShape((), ())
    dx, dy = 3 * dq, 2 * dr + dq
    # Candidates: hexes under points sampled every half hex, and their neighbours;
    # any hex the string meets lies next to one of them.
    samples = 2 * distance
    candidates: set[Hex] = set()
    for i in range(samples + 1):
        under = cube_round(dq * i / samples, dr * i / samples)
        candidates.add(under)
        candidates.update(under.neighbors())
    candidates.discard(Hex(0, 0))
    passed: list[tuple[Fraction, tuple[int, int]]] = []
    beside: dict[tuple[Fraction, Fraction], list[tuple[int, int]]] = {}
    touched: list[tuple[Fraction, tuple[int, int]]] = []
    for hex_ in candidates:
        clipped = _clip(3 * hex_.q, 2 * hex_.r + hex_.q, dx, dy)
        if clipped is None:
            continue
        t_in, t_out, on_side = clipped
        if t_in == t_out:
            touched.append((t_in, (hex_.q, hex_.r)))
        elif on_side:
            beside.setdefault((t_in, t_out), []).append((hex_.q, hex_.r))
        else:
            passed.append((t_in, (hex_.q, hex_.r)))
    passed.sort()
    entries = [t for t, _ in passed]
    runs = []
    for (t_in, _), pair in sorted(beside.items()):
        first, second = sorted(pair, key=lambda qr: (qr[0], qr[1]))
        position = sum(1 for t in entries if t < t_in)
        runs.append((first, second, position))
    touched.sort()
    return LineShape(tuple(qr for _, qr in passed), tuple(runs), tuple(qr for _, qr in touched))
