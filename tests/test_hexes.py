"""Hex geometry: offset numbering, pixels, range, neighbours, and VASSAL's HexGrid."""
from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections import deque
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.errors import RefereeError
from referee.hexes import (DIRECTIONS, FLAT_DIRECTION_NAMES, POINTY_DIRECTION_NAMES, Hex, HexError,
                           HexLayout)

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
GRID_TAG = "VASSAL.build.module.map.boardPicker.board.HexGrid"
NUMBERING_TAG = "VASSAL.build.module.map.boardPicker.board.mapgrid.HexGridNumbering"
CORPUS_BUILDFILES = ["tld-longest-day/buildFile", "hexncounters-template/template-src/buildFile.xml",
                     "ccn-napoleonics/buildFile.xml", "ragnarok-spi/buildFile.xml", "dreadball/buildFile"]

LAYOUTS = [HexLayout.regular(64, orientation, stagger=stagger)
           for orientation in ("flat", "pointy") for stagger in (True, False)]


# -- VASSAL's HexGrid, as the corpus modules configure it ---------------------------

@dataclass(frozen=True)
class VassalGrid:
    """A HexGrid element's attributes (VASSAL's rotated frame for sideways grids)."""

    source: str
    sideways: bool
    dx: float
    dy: float
    x0: int
    y0: int
    stagger: bool

    def layout(self) -> HexLayout:
        origin = (self.y0, self.x0) if self.sideways else (self.x0, self.y0)
        return HexLayout("pointy" if self.sideways else "flat", self.dx, self.dy, origin, self.stagger)

    def raw_center(self, line: int, place: int) -> tuple[int, int]:
        """Pixel centre of raw grid hex (line, place) as VASSAL computes it: truncated to ints.

        VASSAL's raw grid shifts odd lines half a hex down (right when sideways), which
        is the numbering with ``stagger="false"``.
        """
        u = int(line * self.dx) + self.x0
        v = int(place * self.dy + (self.dy / 2 if line % 2 else 0)) + self.y0
        return (v, u) if self.sideways else (u, v)

    def range(self, p1: tuple[int, int], p2: tuple[int, int]) -> int:
        """VASSAL's HexGrid.range between two pixels, restated: project the offset on the
        nearest of the six directions 30 degrees off the line of hexes and divide by the
        distance between centres of a regular hex of height dy."""
        (x1, y1), (x2, y2) = p1, p2
        if self.sideways:
            x1, y1, x2, y2 = y1, x1, y2, x2
        x, y = x2 - x1, y2 - y1
        theta = math.atan2(-x, -y) + math.pi
        while theta > math.pi / 3:
            theta -= math.pi / 3
        theta = math.pi / 6 - theta
        length = math.sqrt(x * x + y * y) * math.cos(theta)
        return int(length / (self.dy * math.sqrt(3) / 2) + 0.5)


def corpus_grids() -> list[VassalGrid]:
    """Every HexGrid in the corpus modules, with its numbering's stagger (default true)."""
    grids = []
    for name in CORPUS_BUILDFILES:
        root = ET.parse(CORPUS / name).getroot()
        for element in root.iter(GRID_TAG):
            numbering = element.find(NUMBERING_TAG)
            stagger = numbering is None or numbering.get("stagger", "true") == "true"
            grids.append(VassalGrid(name, element.get("sideways") == "true", float(element.get("dx")),
                                    float(element.get("dy")), int(element.get("x0")), int(element.get("y0")),
                                    stagger))
    return grids


def test_corpus_holds_the_expected_grids() -> None:
    grids = corpus_grids()
    assert len(grids) == 10
    assert grids[0] == VassalGrid("tld-longest-day/buildFile", False, 55.42562584220407, 64.0, -19, 32, False)
    assert sum(g.sideways for g in grids) == 8
    assert sorted({(g.dx, g.dy) for g in grids if g.source == "dreadball/buildFile"}) == [
        (115.0, 132.0), (121.0, 142.0), (124.0, 140.0), (124.0, 142.0), (126.0, 144.0), (127.0, 144.0)]


def _raw_hex(layout: HexLayout, grid: VassalGrid, line: int, place: int) -> Hex:
    """Our hex for VASSAL's raw grid position (numbering with stagger false)."""
    raw = HexLayout(layout.orientation, layout.dx, layout.dy, layout.origin, stagger=False)
    col, row = (place, line) if grid.sideways else (line, place)
    return raw.from_offset(col, row)


@pytest.mark.parametrize("grid", corpus_grids(), ids=lambda g: f"{g.source}:{g.dx}x{g.dy}")
def test_range_agrees_with_vassal_hexgrid_on_corpus_grids(grid: VassalGrid) -> None:
    layout = grid.layout()
    cells = [(line, place) for line in range(16) for place in range(16)]
    starts = cells[::7]
    disagreements = []
    for line1, place1 in starts:
        a = _raw_hex(layout, grid, line1, place1)
        p1 = grid.raw_center(line1, place1)
        cx, cy = layout.center(a)
        assert abs(cx - p1[0]) < 1 and abs(cy - p1[1]) < 1      # same centre, up to VASSAL's truncation
        for line2, place2 in cells:
            b = _raw_hex(layout, grid, line2, place2)
            if a.distance(b) != grid.range(p1, grid.raw_center(line2, place2)):
                disagreements.append((line1, place1, line2, place2))
    assert disagreements == []


def test_vassal_range_departs_from_the_hex_count_on_a_square_stretched_grid() -> None:
    # dx == dy (hexes 15% wider than regular): VASSAL measures pixels against a regular
    # hex of height dy and overcounts along the rows; the rules count hexes.
    grid = VassalGrid("constructed", False, 64.0, 64.0, 0, 0, False)
    layout = grid.layout()
    origin = grid.raw_center(0, 0)
    assert [grid.range(origin, grid.raw_center(line, 0)) for line in range(1, 7)] == [1, 2, 3, 5, 6, 7]
    assert [_raw_hex(layout, grid, 0, 0).distance(_raw_hex(layout, grid, line, 0)) for line in range(1, 7)] == [
        1, 2, 3, 4, 5, 6]


# -- offset numbering ---------------------------------------------------------------

@settings(max_examples=300, deadline=None)
@given(st.sampled_from(LAYOUTS), st.integers(-500, 500), st.integers(-500, 500))
def test_offset_round_trip(layout: HexLayout, col: int, row: int) -> None:
    hex_ = Hex.from_offset(col, row, layout)
    assert hex_.to_offset(layout) == (col, row)
    assert hex_.q + hex_.r + hex_.s == 0


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(LAYOUTS), st.integers(-500, 500), st.integers(-500, 500))
def test_cube_round_trip(layout: HexLayout, q: int, r: int) -> None:
    hex_ = Hex(q, r)
    assert Hex.from_offset(*hex_.to_offset(layout), layout) == hex_


def test_offsets_of_a_flat_staggered_layout() -> None:
    # VASSAL's default numbering: odd columns half a hex higher than even ones.
    layout = HexLayout.regular(64)
    assert [Hex.from_offset(1, row, layout) for row in (0, 1)] == [Hex(1, -1, 0), Hex(1, 0, -1)]
    assert Hex.from_offset(1, 0, layout) in Hex(0, 0).neighbors()
    assert layout.center(Hex.from_offset(1, 0, layout))[1] == -32.0
    raw = HexLayout.regular(64, stagger=False)
    assert Hex.from_offset(1, 0, raw) == Hex(1, 0, -1)
    assert raw.center(Hex.from_offset(1, 0, raw))[1] == 32.0


def test_offsets_of_a_pointy_layout_count_columns_along_x() -> None:
    layout = HexLayout.regular(64, "pointy")
    x, y = layout.center(Hex.from_offset(3, 0, layout))
    assert (round(x, 9), y) == (192.0, 0.0)
    x, y = layout.center(Hex.from_offset(0, 1, layout))
    assert (round(x, 9), round(y, 9)) == (-32.0, round(64 * math.sqrt(3) / 2, 9))
    raw = HexLayout.regular(64, "pointy", stagger=False)
    assert raw.center(Hex.from_offset(0, 1, raw))[0] == 32.0


# -- pixels ---------------------------------------------------------------------------

stretched_layouts = st.builds(
    HexLayout, st.sampled_from(["flat", "pointy"]), st.floats(20, 200), st.floats(20, 200),
    st.tuples(st.floats(-500, 500), st.floats(-500, 500)), st.booleans())


@settings(max_examples=300, deadline=None)
@given(stretched_layouts, st.integers(-60, 60), st.integers(-60, 60), st.floats(-0.3, 0.3), st.floats(-0.3, 0.3))
def test_hex_at_finds_the_hex_around_a_point(layout: HexLayout, q: int, r: int, fu: float, fv: float) -> None:
    hex_ = Hex(q, r)
    x, y = layout.center(hex_)
    # Within 0.3 dx across and 0.3 dy along of the centre is well inside the outline.
    du, dv = fu * layout.dx, fv * layout.dy
    point = (x + du, y + dv) if layout.orientation == "flat" else (x + dv, y + du)
    assert layout.hex_at(*point) == hex_


@pytest.mark.parametrize("layout", [*LAYOUTS, HexLayout("pointy", 126.0, 144.0, (109, 77)),
                                    HexLayout("flat", 100.0, 40.0, (3.5, -7.25), False)])
def test_corners_are_shared_with_the_neighbours(layout: HexLayout) -> None:
    def rounded(points: list[tuple[float, float]]) -> set[tuple[float, float]]:
        return {(round(x, 6), round(y, 6)) for x, y in points}

    centre = Hex(2, -1)
    corners = rounded(layout.corners(centre))
    assert len(corners) == 6
    for neighbour in centre.neighbors():
        assert len(corners & rounded(layout.corners(neighbour))) == 2     # one shared hexside
    for hex_ in centre.ring(2):
        assert len(corners & rounded(layout.corners(hex_))) <= 1          # at most a shared corner
    # Points a little inside each corner, towards the centre, belong to the hex.
    cx, cy = layout.center(centre)
    for x, y in layout.corners(centre):
        assert layout.hex_at(cx + 0.98 * (x - cx), cy + 0.98 * (y - cy)) == centre


def test_vassal_outline_of_a_flat_hex() -> None:
    layout = HexLayout("flat", 60.0, 64.0, (100.0, 200.0))
    assert layout.corners(Hex(0, 0)) == [(140.0, 200.0), (120.0, 232.0), (80.0, 232.0), (60.0, 200.0),
                                          (80.0, 168.0), (120.0, 168.0)]


# -- range and neighbours --------------------------------------------------------------

def test_known_ranges_on_a_flat_staggered_board() -> None:
    layout = HexLayout.regular(64)
    start = Hex.from_offset(0, 0, layout)
    expected = {(1, 0): 1, (1, 1): 1, (2, 0): 2, (2, 1): 2, (0, 5): 5, (5, 0): 5, (4, 4): 6, (3, 7): 8, (10, 0): 10}
    got = {offset: start.distance(Hex.from_offset(*offset, layout)) for offset in expected}
    assert got == expected
    assert start.distance(start) == 0


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda l: f"{l.orientation}-stagger{l.stagger}")
def test_range_is_the_number_of_steps_on_a_board(layout: HexLayout) -> None:
    board = {Hex.from_offset(col, row, layout) for col in range(14) for row in range(11)}
    for source in [Hex.from_offset(0, 0, layout), Hex.from_offset(7, 5, layout), Hex.from_offset(13, 10, layout),
                   Hex.from_offset(13, 0, layout), Hex.from_offset(6, 10, layout)]:
        steps = {source: 0}
        queue = deque([source])
        while queue:
            here = queue.popleft()
            for neighbour in here.neighbors():
                if neighbour in board and neighbour not in steps:
                    steps[neighbour] = steps[here] + 1
                    queue.append(neighbour)
        assert len(steps) == len(board)
        assert all(source.distance(hex_) == count for hex_, count in steps.items())


def test_neighbours_in_documented_order_and_compass_directions() -> None:
    assert Hex(0, 0).neighbors() == [Hex(0, -1, 1), Hex(1, -1, 0), Hex(1, 0, -1), Hex(0, 1, -1), Hex(-1, 1, 0),
                                     Hex(-1, 0, 1)]
    compass = {"N": (0, -1), "NE": (1, -1), "SE": (1, 1), "S": (0, 1), "SW": (-1, 1), "NW": (-1, -1),
               "E": (1, 0), "W": (-1, 0)}

    def sign(value: float) -> int:
        return 0 if abs(value) < 1e-9 else (1 if value > 0 else -1)

    for orientation, names in (("flat", FLAT_DIRECTION_NAMES), ("pointy", POINTY_DIRECTION_NAMES)):
        layout = HexLayout.regular(64, orientation)
        for neighbour, name in zip(Hex(0, 0).neighbors(), names):
            x, y = layout.center(neighbour)
            assert (sign(x), sign(y)) == compass[name], (orientation, name)
            assert math.isclose(math.hypot(x, y), 64.0)


def test_direction_to() -> None:
    origin = Hex(0, 0)
    assert [origin.direction_to(n) for n in origin.neighbors()] == [0, 1, 2, 3, 4, 5]
    assert origin.direction_to(Hex(0, -5)) == 0
    assert origin.direction_to(Hex(3, -4)) == 1
    assert origin.direction_to(Hex(2, -1)) == 1       # spine between 1 and 2
    assert origin.direction_to(Hex(-1, -1)) == 5      # spine between 5 and 0
    assert origin.direction_to(Hex(-2, 1)) == 4       # spine between 4 and 5
    with pytest.raises(HexError, match="no direction"):
        origin.direction_to(origin)


def test_rings_and_areas() -> None:
    assert [len(Hex(4, -2).ring(radius)) for radius in range(5)] == [1, 6, 12, 18, 24]
    assert all(Hex(4, -2).distance(h) == 3 for h in Hex(4, -2).ring(3))
    area = list(Hex(4, -2).within(3))
    assert len(area) == 37 == len(set(area))
    assert Hex(1, 2) + Hex(-3, 1) == Hex(-2, 3)
    assert Hex(1, 2) - Hex(-3, 1) == Hex(4, 1)
    assert Hex(3, -5).length() == 5


def test_bad_hexes_and_layouts_raise_typed_errors() -> None:
    with pytest.raises(HexError, match=r"sum to 0: \(1, 1, 1\)"):
        Hex(1, 1, 1)
    with pytest.raises(HexError, match="must be an int"):
        Hex(1.5, 0)                                       # type: ignore[arg-type]
    with pytest.raises(HexError, match="'flat' or 'pointy'"):
        HexLayout("diagonal")                             # type: ignore[arg-type]
    with pytest.raises(HexError, match="dx must be a positive number"):
        HexLayout("flat", 0.0, 64.0)
    with pytest.raises(HexError, match="dy must be a positive number"):
        HexLayout("flat", 55.0, float("nan"))
    with pytest.raises(HexError, match="origin"):
        HexLayout("flat", 55.0, 64.0, (0.0, float("inf")))
    with pytest.raises(HexError, match="offset coordinates must be ints"):
        HexLayout().from_offset(1, "2")                   # type: ignore[arg-type]
    with pytest.raises(HexError, match="radius"):
        Hex(0, 0).ring(-1)
    assert issubclass(HexError, RefereeError) and issubclass(HexError, ValueError)
    assert len(DIRECTIONS) == 6


def test_layouts_are_values() -> None:
    layout = HexLayout("flat", 55.0, 64.0, [10, 20])      # type: ignore[arg-type]
    assert layout.origin == (10.0, 20.0)
    assert layout == HexLayout("flat", 55.0, 64.0, (10.0, 20.0))
    assert hash(layout) == hash(HexLayout("flat", 55.0, 64.0, (10, 20)))
    with pytest.raises(HexError, match="origin must be a pair"):
        HexLayout("flat", 55.0, 64.0, 5)                  # type: ignore[arg-type]
