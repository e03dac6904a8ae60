"""The line of sight as the classic rules read it: one integer code per hex on the line.

A line comes from the map (the hexes the string crosses, :mod:`referee.los_board`) or
from a rule case's stated facts (``situation.intervening``, ``along_hexsides``: only the
hexes that matter are listed). Both become a :class:`Line`, so the rules in
:mod:`referee.los` are written once. A hex's code packs what the rules ask of it: its
LOS effect at ground level (EG/TUS §7.1) and between hill-level units (§7.2) from the
Terrain Effects Chart, what it is (hill, woods, city), Wrecks, and Smoke (§8.2: "the hex,
and the six adjacent hexes"). A board's codes are computed once per position and kept
with its :class:`~referee.los_board.LosBoard`.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, NamedTuple, Sequence

from referee.hexes import Hex
from referee.los_board import LosBoard, Offsets, board_of, gatherer
from referee.los_geometry import LineShape
from referee.model import Game, Unit
from referee.tec import Tec

SMOKE = frozenset({"smoke_2", "smoke_1", "smoke"})
HILLS = ("hill", "wooded_hill")

# The TEC's LOS column at ground level (§7.1) and between hill-level units (§7.2):
# 1 = counts (two or more block), 2 = one blocks.
GROUND_COUNT, GROUND_BLOCK = 1, 2
HILL_COUNT, HILL_BLOCK = 4, 8
IS_HILL = 16                 # hill or wooded hill
IS_WOODED_HILL = 32
IS_WOODS = 64
IS_CITY = 128                # city or city ruins
HAS_WRECKS = 256
HAS_SMOKE = 512
SCREENED = 1024              # Smoke in this hex or one of its six neighbours (§8.2)
UNKNOWN = 2048               # the hex's terrain is not stated (or there is no hex)
#: A stated hexside run lists the markers of its two hexes together: a Wreck there is in
#: one of them, and which one may decide the answer.
WRECK_BESIDE = 4096
OFF_BOARD = 8192             # no hex here: nothing stands beside a run there

_EFFECT = {"none": 0, "count": 1, "block": 2}


def terrain_code(tec: Tec, terrain: str | None, markers: Any = ()) -> int:
    """The code of a hex with ``terrain`` (``None``: not stated) and ``markers``."""
    if terrain is None:
        code = UNKNOWN
    else:
        row = tec.terrain(terrain)
        code = _EFFECT[row.los] | _EFFECT[row.los_hill] << 2
        if terrain in HILLS:
            code |= IS_HILL | (IS_WOODED_HILL if terrain == "wooded_hill" else 0)
        elif terrain == "woods":
            code |= IS_WOODS
        elif terrain in ("city", "city_ruins"):
            code |= IS_CITY
    if markers:
        if "wrecks" in markers:
            code |= HAS_WRECKS | wreck_effect(code)
        if not SMOKE.isdisjoint(markers):
            code |= HAS_SMOKE | SCREENED
    return code


def classes(codes: Sequence[int], shift: int) -> list[int]:
    """Each hex's LOS class at ground level (``shift`` 0, §7.1) or between hill-level units
    (``shift`` 2, §7.2): 0 none, 1 counts, 2 blocks, 4 not stated. The rules read a line's
    classes as a list (``2 in``, ``count(1)``), a few C-level passes per check."""
    return [4 if code & UNKNOWN else code >> shift & 3 for code in codes]


def wreck_effect(code: int) -> int:
    """What a Wreck adds to a hex: it counts (§7.1, §7.2 "wreck hexes") where the terrain
    itself neither blocks nor counts."""
    return (GROUND_COUNT if not code & 3 else 0) | (HILL_COUNT if not code & 12 else 0)


class Sight(NamedTuple):
    """A LOS answer: blocked or not, the deciding rule's section (in the active book's
    numbering) and why."""

    blocked: bool
    section: str
    text: str


def blocks_text(terrain: str, where: str, between_hill_units: bool) -> str:
    """Why one hex blocks by itself: "woods hex 0312 blocks" (§7.1, §7.2)."""
    return f"{terrain or 'blocking'} hex{' ' + where if where else ''} blocks" + \
        (" between hill-level units" if between_hill_units else "")


class Line(NamedTuple):
    """The string from the viewer's hex to the far hex, as cell indices.

    ``source`` holds the cells' ``codes`` and their :func:`classes` (``ground``,
    ``hill``, as bytes), names them for the reasons and answers the rarer questions
    (crest lines, which Smoke). ``base`` is the viewer's cell; ``shape`` the string from
    there as offsets (:class:`~referee.los_board.Offsets` on the map, :class:`StatedShape`
    for stated facts): the intervening hexes in order, the far hex, the hexside runs
    along (``(first, second, position)``, position being the number of hexes passed
    before it), each intervening hex's range to the far hex (``None``: not stated) and
    the same for the two hexes beside each run, the range between the ends (``None``:
    not known).
    """

    source: Any
    base: int
    shape: Any
    start: Hex | None = None

    def classes(self, hill: bool) -> tuple[int, ...]:
        """The intervening hexes' classes at ground level or between hill-level units."""
        shape = self.shape
        return shape.gather((self.source.hill_view if hill else self.source.ground_view)[self.base + shape.low:])

    @property
    def codes(self) -> Sequence[int]:
        return self.source.codes

    @property
    def smoky(self) -> bool:
        return self.source.smoky

    @property
    def between(self) -> list[int]:
        return list(map(self.base.__add__, self.shape.between))

    @property
    def origin(self) -> int:
        return self.base

    @property
    def target(self) -> int:
        return self.base + self.shape.target

    @property
    def runs(self) -> Sequence[tuple[int, int, int]]:
        base = self.base
        return [(base + f, base + s, p) for f, s, p in self.shape.runs]

    @property
    def to_target(self) -> Sequence[int | None]:
        return self.shape.to_target

    @property
    def run_to_target(self) -> Sequence[tuple[int | None, int | None]]:
        return self.shape.run_to_target

    @property
    def distance(self) -> int | None:
        return self.shape.distance

    def name(self, index: int) -> str:
        return self.source.name(index)

    def terrain(self, index: int) -> str:
        return self.source.terrain(index)

    def smoke_near(self, index: int) -> str | None:
        return self.source.smoke_near(index)

    def unknown(self, index: int) -> str:
        return self.source.unknown(self, index)

    def crest(self) -> tuple[bool | None, bool | None]:
        return self.source.crest(self)


class StatedShape(NamedTuple):
    """A stated line's :attr:`Line.shape`: offsets from the viewer's cell, which is cell 0."""

    between: tuple[int, ...]
    target: int
    runs: Sequence[tuple[int, int, int]]
    to_target: Sequence[int | None]
    run_to_target: Sequence[tuple[int | None, int | None]]
    distance: int | None
    low: int
    gather: Callable[[Sequence[int]], tuple[int, ...]]
    shape: LineShape | None = None      # the traced shape, for a line on a dictionary-indexed board


def _arrays(source: Any, codes: list[int]) -> None:
    """Give a line source its codes and their classes (bytes, and memoryviews to slice)."""
    source.codes = codes
    source.ground, source.hill = bytes(classes(codes, 0)), bytes(classes(codes, 2))
    source.ground_view, source.hill_view = memoryview(source.ground), memoryview(source.hill)


_LINE = tuple.__new__          # a Line built from a ready tuple, without NamedTuple's argument handling


class MapView:
    """A board seen by the classic rules: every cell's code, and names for the reasons."""

    def __init__(self, board: LosBoard, tec: Tec) -> None:
        self.board, self.tec = board, tec
        codes = [UNKNOWN | OFF_BOARD] * len(board.states)
        smoke = []
        for i, state in enumerate(board.states):
            if state is not None:
                codes[i] = terrain_code(tec, state.terrain, state.markers)
                if codes[i] & HAS_SMOKE:
                    smoke.append(i)
        for i in smoke:
            for n in board.neighbours(i):
                codes[n] |= SCREENED
        _arrays(self, codes)
        self.smoky = bool(smoke)
        self._blocks: dict[tuple[int, bool], Sight] = {}
        #: The cell of each hex id (see :attr:`LosBoard.cells`) and the board's vectors.
        self.cells = board.cells
        self._offsets = board.vectors
        self._crest_sides: list[int] | None | bool = False

    def line(self, a: Hex, b: Hex, base: int | None = None) -> Line:
        """The line from the centre of ``a`` to the centre of ``b``; ``base`` may give the
        cell of ``a`` when the caller knows it (see :attr:`LosBoard.cells`)."""
        vector = (b.q - a.q, b.r - a.r)
        offsets = self._offsets.get(vector) or self.board.offsets(vector)
        if base is None:
            base = self.board.base(a)
            if base is None or self.board.base(b) is None:
                return self._sparse_line(a, b, offsets)
        return _LINE(Line, (self, base, offsets, a))

    def _sparse_line(self, a: Hex, b: Hex, offsets: Offsets) -> Line:
        """A line on a board indexed by a dictionary, or with an end off the board."""
        cell = self.board.cell_at(a)
        shape = offsets.shape
        origin = cell((0, 0))
        between = tuple(cell(s) - origin for s in shape.steps[:-1])
        runs = [(cell(f) - origin, cell(s) - origin, p) for f, s, p in shape.runs]
        stated = StatedShape(between, cell((b.q - a.q, b.r - a.r)) - origin, runs, offsets.to_target,
                             offsets.run_to_target, offsets.distance, *gatherer(between), shape)
        return Line(self, origin, stated, a)

    def blocks(self, index: int, section: str, between_hill_units: bool) -> Sight:
        """The answer "cell ``index`` blocks by itself" (§7.1, §7.2), made once per cell."""
        try:
            return self._blocks[index, between_hill_units]
        except KeyError:
            found = self._blocks[index, between_hill_units] = Sight(
                True, section, blocks_text(self.terrain(index), self.name(index), between_hill_units))
            return found

    @staticmethod
    def _shape(line: Line) -> LineShape:
        """The geometric shape of a line of this board."""
        return line.shape.shape

    def name(self, index: int) -> str:
        state = self.board.states[index]
        return state.id if state is not None else "a hex off the board"

    def terrain(self, index: int) -> str:
        state = self.board.states[index]
        terrain = state.terrain if state is not None else None
        if terrain in (None, "clear") and self.codes[index] & HAS_WRECKS:
            return "wrecks"
        return (terrain or "unknown").replace("_", " ")

    def unknown(self, line: Line, index: int) -> str:
        """The fact missing about cell ``index``: its terrain, or the hex itself."""
        state = self.board.states[index]
        if state is not None:
            return f"hexes.{state.id}.terrain"
        assert line.start is not None
        for step, cell in zip(self._shape(line).steps, line.between):
            if cell == index:
                return f"terrain of the hex at {Hex(line.start.q + step[0], line.start.r + step[1])!r}"
        return "terrain of a hex on the line"

    def smoke_near(self, index: int) -> str | None:
        """The Smoke hex next to cell ``index`` (``None`` when the Smoke is in it)."""
        if self.codes[index] & HAS_SMOKE:
            return None
        for n in self.board.neighbours(index):
            if self.codes[n] & HAS_SMOKE:
                return self.name(n)
        return None

    def crest_sides(self) -> list[int] | None:
        """Per cell, a bit per direction whose hexside is a crest line (either hex may record it)."""
        if self._crest_sides is False:
            board = self.board
            sides = [0] * len(board.states)
            found = False
            for i, state in enumerate(board.states):
                if state is None:
                    continue
                for direction, features in state.hexsides.items():
                    if "crest" in features and 0 <= direction < 6:
                        found = True
                        sides[i] |= 1 << direction
                        other = board.index(state.at.neighbor(direction))
                        if other != board.missing:
                            sides[other] |= 1 << ((direction + 3) % 6)
            self._crest_sides = sides if found else None
        return self._crest_sides      # type: ignore[return-value]

    def crest(self, line: Line) -> tuple[bool, bool]:
        """(the line crosses a crest line, the viewer's or the far hex has one on a side) (§7.2)."""
        sides = self.crest_sides()
        if sides is None:
            return False, False
        assert line.start is not None
        adjacent = bool(sides[line.origin] or sides[line.target])
        cell = self.board.cell_at(line.start)
        for alternatives in self._shape(line).crossings:
            for needed in alternatives:
                if all(sides[cell(step)] >> direction & 1 for step, direction in needed):
                    return True, adjacent
        return False, adjacent


_LAST: list[Any] = [None, None, None]


def map_view(game: Game, tec: Tec) -> MapView:
    """The classic view of a position's board, built once per hexes mapping and TEC (the
    last one asked for is at hand: one position's checks ask for it over and over)."""
    if _LAST[0] is game.hexes and _LAST[1] is tec:
        return _LAST[2]
    board = board_of(game.hexes)
    view = board.derived.get(("classic", id(tec)))
    if view is None or view.tec is not tec:
        view = board.derived[("classic", id(tec))] = MapView(board, tec)
    _LAST[:] = [game.hexes, tec, view]
    return view


# -- lines stated as facts ----------------------------------------------------------------------

class _Stated:
    """Names of the cells of a stated line."""

    def __init__(self) -> None:
        self.codes: list[int] = []
        self.smoky = False
        self.names: list[str] = []
        self.terrains: list[str] = []
        self.near: list[str | None] = []
        self.crest_facts: tuple[bool | None, bool | None] = (None, None)

    def name(self, index: int) -> str:
        return self.names[index]

    def terrain(self, index: int) -> str:
        return self.terrains[index]

    def blocks(self, index: int, section: str, between_hill_units: bool) -> Sight:
        return Sight(True, section, blocks_text(self.terrains[index], self.names[index], between_hill_units))

    def smoke_near(self, index: int) -> str | None:
        return self.near[index]

    def unknown(self, line: Line, index: int) -> str:
        return f"situation.along_hexsides: the terrain of {self.names[index]}"

    def crest(self, line: Line) -> tuple[bool | None, bool | None]:
        return self.crest_facts


def fact_line(game: Game, tec: Tec, entries: Sequence[Mapping[str, Any]], sides: Sequence[Mapping[str, Any]],
              crest: tuple[bool | None, bool | None], viewer: Unit | None, far: Unit | None) -> Line:
    """A line stated as facts: ``entries`` are the intervening hexes from the viewer,
    ``sides`` the hexsides it runs along (``terrain`` of the two hexes beside, their
    ``markers`` together). A hex named by ``id`` adds what the situation states about it
    (terrain, markers, the hexes it is ``adjacent_to``); a hex without a stated terrain
    has no LOS effect of its own, as a case lists only the hexes that matter."""
    smoke_ids = {h.id for h in game.hexes.values() if h.markers & SMOKE}
    screens = _stated_screens(game, smoke_ids)
    source = _Stated()
    source.crest_facts = crest
    codes: list[int] = []

    def cell(code: int, label: str, near: str | None = None, terrain: str | None = None) -> int:
        codes.append(code | (SCREENED if near is not None else 0))
        source.names.append(label)
        source.terrains.append(("wrecks" if terrain in (None, "clear") and code & HAS_WRECKS else terrain or "")
                               .replace("_", " "))
        source.near.append(near if near is not None and near != label else None)
        return len(codes) - 1

    def stated(terrain: str | None, markers: Any) -> int:
        return terrain_code(tec, terrain, frozenset(markers or ())) & ~UNKNOWN

    def end(unit: Unit | None) -> int:
        hex_id = unit.hex if unit is not None else None
        state = game.hexes.get(hex_id) if hex_id else None
        code = stated(state.terrain, state.markers) if state is not None else 0
        return cell(code, hex_id or (unit.name if unit else "the end hex"),
                    screens.get(hex_id) if hex_id else None, state.terrain if state is not None else None)
    end(viewer)                                   # cell 0: the viewer's hex
    between: list[int] = []
    to_target = []
    for number, entry in enumerate(entries, 1):
        hex_id = entry.get("id")
        state = game.hexes.get(hex_id) if hex_id else None
        terrain = entry.get("terrain") or (state.terrain if state else None)
        markers = set(entry.get("markers") or ()) | set(state.markers if state else ())
        beside = sorted(set(entry.get("adjacent_to") or ()) & smoke_ids)
        near = (screens.get(hex_id) if hex_id else None) or (beside[0] if beside else None)
        between.append(cell(stated(terrain, markers), hex_id or entry.get("coord") or "", near, terrain))
        to_target.append(entry.get("to_target"))
    runs = []
    for number, side in enumerate(sides, 1):
        terrains = list(side.get("terrain") or ())[:2]
        markers = set(side.get("markers") or ())
        pair = [cell(stated(terrains[k], ()), f"the {terrains[k].replace('_', ' ')} hex beside hexside {number}",
                     None, terrains[k]) if k < len(terrains)
                else cell(UNKNOWN, f"the other hex beside hexside {number}") for k in range(2)]
        if markers & SMOKE:
            codes[pair[0]] |= HAS_SMOKE | SCREENED
            source.names[pair[0]] = f"a hex beside hexside {number}"
        if "wrecks" in markers:
            codes[pair[0]] |= WRECK_BESIDE
        runs.append((pair[0], pair[1], len(entries)))
    target = end(far)
    _arrays(source, codes)
    source.smoky = any(code & (SCREENED | HAS_SMOKE) for code in codes)
    shape = StatedShape(tuple(between), target, runs, to_target, [(None, None)] * len(runs), None,
                        *gatherer(between))
    return Line(source, 0, shape)


def _stated_screens(game: Game, smoke_ids: set[str]) -> dict[str, str]:
    """Stated hexes in or next to a Smoke hex (``adjacent_to`` facts, either way), with that Smoke hex."""
    found = {s: s for s in smoke_ids}
    for hex_id, facts in game.facts.hexes.items():
        for other in facts.get("adjacent_to") or ():
            if other in smoke_ids:
                found.setdefault(hex_id, other)
            if hex_id in smoke_ids:
                found.setdefault(other, hex_id)
    return found
