"""Grid arithmetic: numbering names, hex and square cells, regions, zones, attribute defaults,
and name -> pixel -> name identity over whole boards for every sideways/stagger/descending mix."""
from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from converter.errors import GeometryError, ModuleError
from converter.vassal.grids import (HEX_GRID, HEX_NUMBERING, REGION, REGION_GRID, SQUARE_GRID, SQUARE_NUMBERING,
                                    ZONE, ZONED_GRID, Hex, HexGrid, Region, RegionGrid, SquareGrid, grid_from_element)
from converter.vassal.grids.hexgrid import DEFAULT_WIDTH, java_round
from converter.vassal.grids.numbering import GridNumbering, axis_name, format_message, parse_axis
from converter.vassal.grids.region import java_hashmap_order, point_hash
from converter.vassal.grids.zoned import Zone, ZonedGrid, parse_path, polygon_contains


# -- numbering ----------------------------------------------------------------------
@pytest.mark.parametrize("value, kind, leading, name", [
    (0, "A", 1, "A"), (25, "A", 1, "Z"), (26, "A", 1, "AA"), (27, "A", 1, "BB"), (52, "A", 1, "AAA"),
    (-1, "A", 1, "-B"), (5, "N", 1, "05"), (12, "N", 1, "12"), (5, "N", 2, "005"), (12, "N", 2, "012"),
    (5, "N", 0, "5"), (-7, "N", 1, "-07"), (0, "N", 1, "00"), (100, "N", 2, "100"),
])
def test_axis_names_follow_vassal(value: int, kind: str, leading: int, name: str) -> None:
    assert axis_name(value, kind, leading) == name
    assert parse_axis(name, kind) == value


def test_format_message_substitutes_known_properties_only() -> None:
    assert format_message("$gridLocation$", {"gridLocation": "G7"}) == "G7"
    assert format_message("Hex $row$-$column$!", {"row": "7", "column": "G"}) == "Hex 7-G!"
    assert format_message("$name$ $gridLocation$", {"name": "Zone", "gridLocation": None}) == "Zone "
    assert format_message("cost $5", {}) == "cost 5"


def test_numbering_defaults_and_parse() -> None:
    numbering = GridNumbering()
    assert (numbering.first, numbering.sep, numbering.h_type, numbering.v_type) == ("H", "", "N", "N")
    assert (numbering.h_leading, numbering.v_leading, numbering.h_off, numbering.v_off) == (1, 1, 1, 1)
    assert numbering.stagger is True and numbering.location_format == "$gridLocation$"
    assert numbering.location_name(3, 9) == "0410"
    assert numbering.parse("0410") == (3, 9)
    alpha = GridNumbering(first="V", sep="-", v_type="A", h_leading=0, h_off=0, v_off=0)
    assert alpha.location_name(12, 27) == "BB-12"
    assert alpha.parse("BB-12") == (12, 27)
    with pytest.raises(GeometryError, match="not a location of this grid"):
        alpha.parse("12-BB")
    with pytest.raises(GeometryError, match="names no column and row"):
        GridNumbering(location_format="dungeon").parse("dungeon")
    with pytest.raises(GeometryError, match="BeanShell"):
        GridNumbering(location_format="{GridLocation}").location_name(0, 0)


# -- attributes from XML --------------------------------------------------------------
def _element(tag: str, children: tuple = (), **attrib: str) -> etree._Element:
    element = etree.Element(tag, attrib)
    for child in children:
        element.append(child)
    return element


def test_grid_missing_attributes_takes_vassal_defaults() -> None:
    hexgrid = grid_from_element(_element(HEX_GRID))
    assert (hexgrid.x0, hexgrid.y0, hexgrid.dy, hexgrid.dx, hexgrid.sideways) == (0, 32, 64.0, DEFAULT_WIDTH, False)
    assert hexgrid.numbering is None and hexgrid.location_name(10, 10) is None
    square = grid_from_element(_element(SQUARE_GRID, (_element(SQUARE_NUMBERING),)))
    assert (square.x0, square.y0, square.dx, square.dy, square.range_option) == (24, 24, 48.0, 48.0, "Metric")
    assert square.location_name(24, 24) == "0101"
    with pytest.raises(GeometryError, match="no HexGridNumbering"):
        hexgrid.location("0101")


def test_setting_dy_resets_a_default_dx_as_vassal_does() -> None:
    assert grid_from_element(_element(HEX_GRID, dy="100.0")).dx == pytest.approx(86.60254037844386)
    assert grid_from_element(_element(HEX_GRID, dy="100.0", dx=repr(DEFAULT_WIDTH))).dx == pytest.approx(
        86.60254037844386)
    assert grid_from_element(_element(HEX_GRID, dy="100.0", dx="70.0")).dx == 70.0


@pytest.mark.parametrize("attrib, message", [
    ({"x0": "1.5"}, "x0='1.5' is not an integer"),
    ({"dy": "wide"}, "dy='wide' is not a number"),
    ({"dx": "0"}, "hex size dx=0.0 dy=64.0 must be positive and finite"),
    # Java's Double.valueOf reads NaN and Infinity; no hex can be named with them (they raised ValueError
    # and OverflowError, with a traceback)
    ({"dx": "NaN"}, "hex size dx=nan dy=64.0 must be positive and finite"),
    ({"dy": "Infinity", "dx": "56"}, "hex size dx=56.0 dy=inf must be positive and finite"),
    # Integer.valueOf refuses what does not fit Java's int; int() refused 5,000 digits with a ValueError
    ({"x0": "2147483648"}, r"x0='2147483648' is outside Java's int range \(-2147483648\.\.2147483647\)"),
    ({"x0": "-0002147483648"}, None),
    ({"y0": "9" * 5000}, r"y0='99999999999999999999'\.\.\. \(5000 characters\) is outside Java's int range"),
])
def test_bad_grid_attribute_is_a_module_error(attrib: dict[str, str], message: str | None) -> None:
    root = etree.fromstring(b"<b>\n\n" + etree.tostring(_element(HEX_GRID, **attrib)) + b"</b>")
    if message is None:  # at the edge: read as Java reads it
        assert grid_from_element(root[0], "m.vmod").x0 == -2147483648
        return
    with pytest.raises(ModuleError, match=message) as caught:
        grid_from_element(root[0], "m.vmod")
    assert "HexGrid (line 3)" in str(caught.value) and caught.value.file == "m.vmod"


def test_bad_numbering_attribute_is_a_module_error() -> None:
    element = _element(HEX_GRID, (_element(HEX_NUMBERING, hOff="one"),))
    with pytest.raises(ModuleError, match="hOff='one' is not an integer"):
        grid_from_element(element)
    with pytest.raises(ModuleError, match="first is empty"):
        grid_from_element(_element(HEX_GRID, (_element(HEX_NUMBERING, first=""),)))


def test_unknown_grid_class_is_kept_unnamed() -> None:
    assert grid_from_element(_element("VASL.build.module.map.boardPicker.ASLHexGrid")) is None


# -- hex cells ------------------------------------------------------------------------
def test_hex_offset_cube_distance_and_neighbours() -> None:
    origin = Hex(4, 4)
    assert origin.cube() == (4, 2, -6)
    assert Hex.from_cube(*origin.cube()) == origin
    assert origin.neighbours() == [Hex(4, 3), Hex(5, 3), Hex(5, 4), Hex(4, 5), Hex(3, 4), Hex(3, 3)]
    assert Hex(5, 4).neighbours() == [Hex(5, 3), Hex(6, 4), Hex(6, 5), Hex(5, 5), Hex(4, 5), Hex(4, 4)]
    assert all(origin.distance(n) == 1 for n in origin.neighbours())
    assert Hex(0, 0).distance(Hex(6, 0)) == 6 and Hex(0, 0).distance(Hex(0, 5)) == 5
    assert Hex(-1, 0).cube() == (-1, 1, 0)


def test_hex_distance_agrees_with_vassal_range_on_a_regular_grid() -> None:
    grid = HexGrid(x0=-19, y0=32, dy=64.0, numbering=GridNumbering())
    cells = [Hex(c, r) for c in range(-2, 9) for r in range(-2, 8)]
    for a, b in itertools.product(cells[::3], cells):
        assert grid.range(grid.cell_center(a), grid.cell_center(b)) == a.distance(b), (a, b)


def test_hex_at_and_cell_center_are_inverse() -> None:
    for sideways in (False, True):
        grid = HexGrid(x0=7, y0=40, dx=55.0, dy=63.0, sideways=sideways)
        for col, row in itertools.product(range(-1, 12), range(-1, 10)):
            assert grid.hex_at(*grid.cell_center(Hex(col, row))) == Hex(col, row)


def test_java_round_rounds_halves_up() -> None:
    assert [java_round(v) for v in (-2.5, -1.5, -0.5, 0.5, 1.5, 2.49999)] == [-2, -1, 0, 1, 2, 2]


# -- name -> pixel -> name over whole boards -------------------------------------------
def _board_names(grid: HexGrid | SquareGrid, size: tuple[int, int]) -> list[str]:
    names = []
    if isinstance(grid, HexGrid):
        for cell in grid.cells(size):
            names.append(grid.location_name(*grid.cell_center(cell), size))
    else:
        for x in range(grid.x0 % int(grid.dx), size[0], int(grid.dx)):
            for y in range(grid.y0 % int(grid.dy), size[1], int(grid.dy)):
                names.append(grid.location_name(*grid.snap(x, y), size))
    return names


_STYLES = [dict(), dict(h_type="A", h_off=0, v_leading=0), dict(first="V", sep="-", v_type="A", h_leading=2),
           dict(location_format="Hex $row$/$column$", h_off=-3, v_off=5), dict(sep=".", v_leading=3, h_off=0)]


@pytest.mark.parametrize("sideways, stagger, v_descend, h_descend", list(itertools.product((False, True), repeat=4)))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dy=st.floats(30.0, 90.0), stretch=st.floats(0.8, 1.2), x0=st.integers(-40, 40), y0=st.integers(-40, 40),
       style=st.sampled_from(_STYLES), width=st.integers(300, 700), height=st.integers(300, 700))
def test_hex_name_pixel_name_identity(sideways: bool, stagger: bool, v_descend: bool, h_descend: bool, dy: float,
                                      stretch: float, x0: int, y0: int, style: dict, width: int, height: int) -> None:
    numbering = GridNumbering(stagger=stagger, v_descend=v_descend, h_descend=h_descend, **style)
    grid = HexGrid(x0=x0, y0=y0, dy=dy, dx=dy * 0.8660254037844386 * stretch, sideways=sideways,
                   numbering=numbering)
    size = (width, height)
    names = _board_names(grid, size)
    assert len(names) == len(set(names)) >= 6
    for name in names:
        assert grid.location_name(*grid.location(name, size), size) == name


@pytest.mark.parametrize("v_descend, h_descend", list(itertools.product((False, True), repeat=2)))
@settings(max_examples=15, deadline=None)
@given(dx=st.floats(20.0, 80.0), dy=st.floats(20.0, 80.0), x0=st.integers(0, 40), y0=st.integers(0, 40),
       style=st.sampled_from(_STYLES), width=st.integers(200, 600), height=st.integers(200, 600))
def test_square_name_pixel_name_identity(v_descend: bool, h_descend: bool, dx: float, dy: float, x0: int, y0: int,
                                         style: dict, width: int, height: int) -> None:
    grid = SquareGrid(x0=x0, y0=y0, dx=dx, dy=dy,
                      numbering=GridNumbering(v_descend=v_descend, h_descend=h_descend, **style))
    size = (width, height)
    for name in _board_names(grid, size):
        assert grid.location_name(*grid.location(name, size), size) == name


def test_descending_numbering_needs_the_board_size() -> None:
    grid = HexGrid(numbering=GridNumbering(v_descend=True))
    with pytest.raises(GeometryError, match="needs the board size"):
        grid.location_name(100, 100)
    assert grid.location_name(100, 100, (1000, 800)) == "0314"  # maxRows = floor(800/dx + 0.5) = 14


def test_sideways_hex_swaps_axes() -> None:
    upright = HexGrid(x0=10, y0=40, dx=50.0, dy=58.0, numbering=GridNumbering())
    sideways = HexGrid(x0=10, y0=40, dx=50.0, dy=58.0, sideways=True, numbering=GridNumbering())
    for x, y in [(10, 40), (60, 69), (161, 300), (333, 222)]:
        assert sideways.location_name(y, x) == upright.location_name(x, y)
        assert sideways.snap(y, x) == upright.snap(x, y)[::-1]


def test_square_rows_truncate_toward_zero_like_java() -> None:
    grid = SquareGrid(x0=24, y0=24, numbering=GridNumbering(h_off=0, v_off=0, h_leading=0, v_leading=0))
    # (y - y0)/dy + 0.5 = -0.25 truncates to row 0, while x uses floor and gives column -1.
    assert grid.location_name(-12, -12) == "-10"
    assert grid.snap(30, 50) == (24, 72)
    edges = SquareGrid(x0=24, y0=24, edges_legal=True)
    assert edges.snap(47, 26) == (48, 24)
    corners = SquareGrid(x0=24, y0=24, corners_legal=True)
    assert corners.snap(46, 47) == (48, 48)


# -- regions and zones -------------------------------------------------------------------
def test_java_point_hash_and_hashmap_order() -> None:
    # Reference values printed by java.awt.Point.hashCode and a java.util.HashMap on JDK 17.
    assert [point_hash(1, 0), point_hash(-3, 7), point_hash(1341, 452)] == [1072693248, 57409536, -1885391872]
    tour = [(1341, 452), (82, 662), (1125, 623), (67, 623), (297, 373), (449, 371), (601, 374), (754, 374),
            (298, 519), (449, 522), (600, 519), (750, 518), (2069, 49)]
    assert java_hashmap_order(tour) == [(297, 373), (750, 518), (600, 519), (82, 662), (2069, 49), (449, 371),
                                        (754, 374), (298, 519), (449, 522), (601, 374), (1125, 623), (67, 623),
                                        (1341, 452)]
    many = [(i * 37 % 101, i * 53 % 97) for i in range(40)]
    assert java_hashmap_order(many)[:8] == [(0, 0), (16, 64), (36, 91), (100, 38), (19, 65), (53, 20), (37, 53),
                                            (70, 46)]


def test_region_grid_nearest_ties_and_duplicates() -> None:
    grid = RegionGrid((Region("West", 0, 0), Region("East", 100, 0), Region("Old", 50, 50), Region("New", 50, 50)))
    assert grid.location_name(10, 5) == "West"
    assert grid.location_name(90, 5) == "East"
    assert grid.location_name(50, 45) == "New"  # the later region at one origin replaces the earlier
    assert grid.location_name(50, 0) == {(0, 0): "West", (100, 0): "East"}[java_hashmap_order(
        [(0, 0), (100, 0), (50, 50)])[0]]
    assert grid.snap(95, 3) == (100, 0)
    assert grid.location("East") == (100, 0)
    with pytest.raises(GeometryError, match="not a region"):
        grid.location("North")


def test_polygon_contains_matches_java_edge_rules() -> None:
    square = ((0, 0), (10, 0), (10, 10), (0, 10))
    assert polygon_contains(square, 0, 0) and polygon_contains(square, 0, 9)
    assert not polygon_contains(square, 10, 5) and not polygon_contains(square, 5, 10)
    assert polygon_contains(square, 9.99, 9.99)
    ell = ((0, 0), (20, 0), (20, 10), (10, 10), (10, 20), (0, 20))
    assert polygon_contains(ell, 5, 15) and not polygon_contains(ell, 15, 15)
    assert not polygon_contains(((0, 0), (5, 5)), 1, 1)
    assert parse_path("1,2;3,4") == ((1, 2), (3, 4))
    with pytest.raises(GeometryError, match="not 'x,y'"):
        parse_path("1,2;3")


def test_zoned_grid_first_zone_then_background() -> None:
    inner = SquareGrid(x0=5, y0=5, dx=10.0, dy=10.0, numbering=GridNumbering(h_leading=0, v_leading=0))
    background = HexGrid(numbering=GridNumbering())
    zones = (Zone("Box", ((0, 0), (100, 0), (100, 50), (0, 50)), "$name$ $gridLocation$", grid=inner),
             Zone("Later", ((0, 0), (200, 0), (200, 200), (0, 200)), "$name$"),
             Zone("Shared", ((300, 0), (400, 0), (400, 100), (300, 100)), "in $gridLocation$", use_parent_grid=True))
    grid = ZonedGrid(zones, background)
    assert grid.location_name(15, 25) == "Box 23"
    assert grid.location_name(150, 150) == "Later"
    assert grid.location_name(350, 50) == "in " + background.location_name(350, 50)
    assert grid.location_name(600, 600) == background.location_name(600, 600)
    assert grid.location("Box 23") == (15, 25)
    assert grid.location("Later") == (100, 100)
    ell = Zone("Ell", ((0, 0), (100, 0), (100, 10), (10, 10), (10, 100), (0, 100)))
    assert ell.interior_point() == (6, 6)
    assert grid.location(background.location_name(600, 600)) == background.snap(600, 600)
    assert Zone("Box", ((10, 20), (60, 20), (60, 50))).size == (50, 30)


def test_zoned_grid_from_xml() -> None:
    element = _element(ZONED_GRID, (
        _element(ZONE, (_element(SQUARE_GRID, (_element(SQUARE_NUMBERING),), x0="0", y0="0", dx="10.0", dy="10.0"),),
                 name="Z", path="0,0;50,0;50,50;0,50", locationFormat="$name$:$gridLocation$"),
        _element(REGION_GRID, (_element(REGION, name="R", originx="500", originy="500"),)),
    ))
    grid = grid_from_element(element)
    assert grid.location_name(12, 21) == "Z:0203"
    assert grid.location_name(400, 400) == "R"
    with pytest.raises(ModuleError, match="not two integers"):
        grid_from_element(_element(ZONED_GRID, (_element(ZONE, path="a,b"),)))


def test_square_cell_above_the_origin_row_is_located_where_vassal_names_it() -> None:
    # Rows truncate toward zero: the centre VASSAL computes for this cell (0, 20)
    # is named "1111"; the cell named "1112" is the one a row further up.
    grid = SquareGrid(x0=0, y0=40, dx=20.0, dy=20.0, numbering=GridNumbering(v_descend=True, h_descend=True))
    assert grid.location_name(0, 0, (200, 200)) == "1112"
    assert grid.center_point(*grid.numbering.parse("1112"), (200, 200)) == (0, 20)
    assert grid.location_name(0, 20, (200, 200)) == "1111"
    assert grid.location("1112", (200, 200)) == (0, 0)
