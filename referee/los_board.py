"""A position's hexes laid out for line-of-sight questions: one lookup per hex crossed.

A LOS check asks, for every hex the string crosses (:mod:`referee.los_geometry`), what
stands there. Looking each hex up by name or by :class:`~referee.hexes.Hex` costs a hash
per hex and an object per step; here the hexes of a position are put once into a flat
array indexed by ``(q - q0) * stride + (r - r0)``. A string's cells are then the start
hex's index plus offsets that depend only on the cube vector from start to end, computed
once per vector and board (the shape is shared by every board). The rules keep their
own per-hex codes in arrays of the same layout (:attr:`LosBoard.derived`), so a check
is a few integer reads per hex crossed.

Every hex a string between two hexes of the board crosses lies within the bounding box
of its two ends (a hex's cube coordinates are within 2/3 of any of its points), so the
offsets never leave the array. A board whose hexes are spread so far apart that the box
would be mostly empty (a hostile scenario placing two hexes a thousand columns apart) is
indexed by a dictionary instead: the same answers, a little slower, and memory bounded by
the number of hexes.

A :class:`~referee.model.Game`'s hexes mapping is never changed in place (events build a
new one, ``Game.with_hex`` copies), so the board of the last few mappings seen is kept
and reused while the same mapping object comes back: every check of one position, and
positions that differ only in their units, share one board.
"""
from __future__ import annotations

from operator import itemgetter
from typing import Any, Callable, Mapping, NamedTuple, Sequence

from referee.hexes import Hex
from referee.los_geometry import LineShape, line_shape
from referee.model import HexState

#: A board is one flat array when its bounding box has at most this many cells per hex
#: (a board's box is about 1.5 cells per hex), plus a little, and at most MAX_DENSE_CELLS.
DENSE_CELLS_PER_HEX = 16
MAX_DENSE_CELLS = 1 << 22
#: Boards kept for reuse (the last positions' hexes mappings).
KEPT_BOARDS = 4


class Offsets(NamedTuple):
    """One cube vector's string on one board, as offsets from the start hex's cell.

    ``between``: the intervening hexes in order; ``target``: the far hex; ``runs``:
    ``(first, second, position)`` per hexside run. ``to_target`` gives each intervening
    hex's range to the far hex, ``run_to_target`` the two ranges of each run's hexes;
    ``distance`` is the range from start to end.
    """

    between: tuple[int, ...]
    target: int
    runs: tuple[tuple[int, int, int], ...]
    to_target: tuple[int, ...]
    run_to_target: tuple[tuple[int, int], ...]
    shape: LineShape
    distance: int
    low: int
    gather: Callable[[Sequence[int]], tuple[int, ...]]


def gatherer(between: Sequence[int]) -> tuple[int, Callable[[Sequence[int]], tuple[int, ...]]]:
    """``(low, gather)`` such that ``gather(array[base + low:])`` is the tuple of
    ``array[base + o]`` for each offset ``o`` of ``between``: the values of a string's
    intervening cells read in one C-level call (``operator.itemgetter``), from a
    memoryview slice that copies nothing."""
    low = min((0, *between))
    shifted = [o - low for o in between]
    if len(shifted) > 1:
        return low, itemgetter(*shifted)
    if shifted:
        only = shifted[0]
        return low, lambda cells: (cells[only],)
    return low, lambda cells: ()


def _range(dq: int, dr: int) -> int:
    return max(abs(dq), abs(dr), abs(dq + dr))


class LosBoard:
    """The hexes of one position with a map place (``HexState.at``), by cell index.

    ``states[i]`` is the hex in cell ``i`` (``None`` where the board has no hex);
    ``missing`` is a cell index that never holds a hex. Two hexes at the same place:
    the later one in the mapping's order counts, as everywhere else.
    """

    def __init__(self, hexes: Mapping[str, HexState]) -> None:
        placed: dict[tuple[int, int], HexState] = {}
        for state in hexes.values():
            if state.at is not None:
                placed[state.at.q, state.at.r] = state
        #: What the rules compute once from this board (their per-cell codes), by key.
        self.derived: dict[Any, Any] = {}
        #: The strings prepared so far, by cube vector (:meth:`offsets`).
        self.vectors: dict[tuple[int, int], Offsets] = {}
        qs = [q for q, _ in placed] or [0]
        rs = [r for _, r in placed] or [0]
        self.q0, self.r0 = min(qs), min(rs)
        self.stride = max(rs) - self.r0 + 1
        size = (max(qs) - self.q0 + 1) * self.stride
        self.dense = size <= min(MAX_DENSE_CELLS, DENSE_CELLS_PER_HEX * len(placed) + 4096)
        if self.dense:
            self._where: dict[tuple[int, int], int] | None = None
            self.states: list[HexState | None] = [None] * (size + 1)
            for (q, r), state in placed.items():
                self.states[(q - self.q0) * self.stride + (r - self.r0)] = state
        else:
            self._where = {qr: i for i, qr in enumerate(placed)}
            self.states = [*placed.values(), None]
        self.missing = len(self.states) - 1
        #: The flat-array cell of each hex id of the mapping (empty for a dictionary-indexed
        #: board): a hex of the position is on the array, so every string from it stays there.
        self.cells: dict[str, int] = {} if not self.dense else \
            {s.id: self.index(s.at) for s in hexes.values() if s.at is not None}

    def index(self, at: Hex) -> int:
        """The cell of the hex at ``at`` (``missing`` when the board has no hex there)."""
        if self._where is not None:
            return self._where.get((at.q, at.r), self.missing)
        q, r = at.q - self.q0, at.r - self.r0
        if 0 <= q and 0 <= r < self.stride:
            i = q * self.stride + r
            if i < self.missing:
                return i
        return self.missing

    def place(self, index: int) -> Hex | None:
        """The map place of cell ``index``."""
        state = self.states[index]
        return state.at if state is not None else None

    def neighbours(self, index: int) -> list[int]:
        """The cells of the six hexes around cell ``index`` that the board has."""
        at = self.place(index)
        if at is None:
            return []
        found = (self.index(n) for n in at.neighbors())
        return [i for i in found if i != self.missing]

    def base(self, at: Hex) -> int | None:
        """The flat-array cell of ``at`` when the board is one flat array and ``at`` is a
        hex of it (so every offset from it stays on the array); else ``None``."""
        if self._where is not None:
            return None
        q, r = at.q - self.q0, at.r - self.r0
        if q < 0 or r < 0 or r >= self.stride:
            return None
        i = q * self.stride + r
        return i if i < self.missing and self.states[i] is not None else None

    def cell_at(self, a: Hex) -> Callable[[tuple[int, int]], int]:
        """The cell of a ``(dq, dr)`` step from ``a`` (any board, any step)."""
        def cell(step: tuple[int, int]) -> int:
            return self.index(Hex(a.q + step[0], a.r + step[1]))
        return cell

    def offsets(self, vector: tuple[int, int]) -> Offsets:
        """The string of one cube vector on this board (computed once per vector)."""
        try:
            return self.vectors[vector]
        except KeyError:
            found = self.vectors[vector] = self._prepare(*vector)
            return found

    def _prepare(self, dq: int, dr: int) -> Offsets:
        shape = line_shape(dq, dr)
        stride = self.stride

        def offset(step: tuple[int, int]) -> int:
            return step[0] * stride + step[1]
        between = tuple(offset(s) for s in shape.steps[:-1])
        return Offsets(between, offset((dq, dr)), tuple((offset(f), offset(s), p) for f, s, p in shape.runs),
                       tuple(_range(dq - q, dr - r) for q, r in shape.steps[:-1]),
                       tuple((_range(dq - f[0], dr - f[1]), _range(dq - s[0], dr - s[1])) for f, s, _ in shape.runs),
                       shape, _range(dq, dr), *gatherer(between))


_KEPT: list[tuple[Mapping[str, HexState], LosBoard]] = []


def board_of(hexes: Mapping[str, HexState]) -> LosBoard:
    """The board of a position's hexes mapping, built once while the mapping is in use."""
    for i, (mapping, board) in enumerate(_KEPT):
        if mapping is hexes:
            if i:
                _KEPT.insert(0, _KEPT.pop(i))
            return board
    board = LosBoard(hexes)
    _KEPT.insert(0, (hexes, board))
    del _KEPT[KEPT_BOARDS:]
    return board
