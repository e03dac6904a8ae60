"""Map grids of VASSAL boards and the pixel <-> location-name mapping.

``grid_from_element`` builds a typed grid from a board's grid element in the
buildFile; each grid answers ``location_name(x, y, size)`` for a board-local
point, ``location(name, size)`` for the point a piece named to that location
snaps to, and ``snap(x, y)``. :mod:`converter.vassal.grids.placement` places
boards on a map and runs the whole pipeline from map pixels.
"""
from __future__ import annotations

import math
from typing import Any

from converter.errors import ModuleError
from converter.vassal.grids.attributes import configure, java_int, where
from converter.vassal.grids.hexgrid import SQRT3_2, DEFAULT_WIDTH, Hex, HexGrid
from converter.vassal.grids.numbering import NUMBERING_ATTRIBUTES, GridNumbering
from converter.vassal.grids.region import Region, RegionGrid
from converter.vassal.grids.squaregrid import SquareGrid
from converter.vassal.grids.zoned import Grid, Zone, ZonedGrid, parse_path

BOARD = "VASSAL.build.module.map.boardPicker.board."
HEX_GRID = BOARD + "HexGrid"
SQUARE_GRID = BOARD + "SquareGrid"
REGION_GRID = BOARD + "RegionGrid"
REGION = BOARD + "Region"
ZONED_GRID = BOARD + "ZonedGrid"
ZONE = BOARD + "mapgrid.Zone"
HEX_NUMBERING = BOARD + "mapgrid.HexGridNumbering"
SQUARE_NUMBERING = BOARD + "mapgrid.SquareGridNumbering"
GRID_TAGS = (HEX_GRID, SQUARE_GRID, REGION_GRID, ZONED_GRID)

_HEX_ATTRIBUTES = {"x0": "x0", "y0": "y0", "dy": "dy", "dx": "dx", "sideways": "sideways", "snapTo": "snap_to",
                   "edgesLegal": "edges_legal", "cornersLegal": "corners_legal", "visible": "visible",
                   "dotsVisible": "dots_visible", "color": "color", "snapscale": "snapscale"}
_SQUARE_ATTRIBUTES = {"x0": "x0", "y0": "y0", "dx": "dx", "dy": "dy", "range": "range_option",
                      "snapTo": "snap_to", "edgesLegal": "edges_legal", "cornersLegal": "corners_legal",
                      "visible": "visible", "dotsVisible": "dots_visible", "color": "color"}
# SquareGrid has a sub-cell snap scale too, but (unlike HexGrid) no attribute sets it from the buildFile.

__all__ = ["Grid", "GridNumbering", "Hex", "HexGrid", "Region", "RegionGrid", "SquareGrid", "Zone", "ZonedGrid",
           "GRID_TAGS", "grid_from_element", "numbering_from_element"]


def _children(element: Any, tag: str) -> list[Any]:
    return [child for child in element if child.tag == tag]


def numbering_from_element(element: Any, file: str | None = None) -> GridNumbering:
    """A ``HexGridNumbering``/``SquareGridNumbering`` element with VASSAL's defaults for what it omits."""
    return configure(GridNumbering, element.attrib, NUMBERING_ATTRIBUTES, element, file)


def _positive(*sizes: float) -> bool:
    """A cell size wawkit can compute with: Java reads ``NaN`` and ``Infinity`` as doubles, and a
    grid of such cells names no hex (every pixel -> column arithmetic fails)."""
    return all(math.isfinite(size) and size > 0 for size in sizes)


def _hex(element: Any, file: str | None) -> HexGrid:
    numbering = next((numbering_from_element(c, file) for c in _children(element, HEX_NUMBERING)), None)
    grid = configure(HexGrid, element.attrib, _HEX_ATTRIBUTES, element, file, numbering=numbering)
    attrib = element.attrib
    if "dy" in attrib and ("dx" not in attrib or grid.dx == DEFAULT_WIDTH):
        # HexGrid.setAttribute(dy) resets dx to the regular width while dx is still the default.
        grid = configure(HexGrid, {**attrib, "dx": repr(SQRT3_2 * grid.dy)}, _HEX_ATTRIBUTES, element, file,
                         numbering=numbering)
    if not _positive(grid.dx, grid.dy):
        raise ModuleError(f"{where(element)}: hex size dx={grid.dx} dy={grid.dy} must be positive and finite",
                          file=file)
    return grid


def _square(element: Any, file: str | None) -> SquareGrid:
    numbering = next((numbering_from_element(c, file) for c in _children(element, SQUARE_NUMBERING)), None)
    grid = configure(SquareGrid, element.attrib, _SQUARE_ATTRIBUTES, element, file, numbering=numbering)
    if not _positive(grid.dx, grid.dy):
        raise ModuleError(f"{where(element)}: cell size dx={grid.dx} dy={grid.dy} must be positive and finite",
                          file=file)
    return grid


def _region(element: Any, file: str | None) -> RegionGrid:
    regions = []
    for child in _children(element, REGION):
        attrib = child.attrib
        regions.append(Region(attrib.get("name", ""), java_int(attrib.get("originx", "0"), "originx", child, file),
                              java_int(attrib.get("originy", "0"), "originy", child, file)))
    attrib = element.attrib
    return RegionGrid(tuple(regions), attrib.get("snapto", "true").lower() == "true",
                      attrib.get("visible", "false").lower() == "true",
                      java_int(attrib.get("fontsize", "9"), "fontsize", element, file))


def _zoned(element: Any, file: str | None) -> ZonedGrid:
    background = None
    zones = []
    for child in element:
        if child.tag in (HEX_GRID, SQUARE_GRID, REGION_GRID):
            background = grid_from_element(child, file)
        elif child.tag == ZONE:
            attrib = child.attrib
            inner = next((grid_from_element(c, file) for c in child if c.tag in (HEX_GRID, SQUARE_GRID,
                                                                                   REGION_GRID)), None)
            try:
                polygon = parse_path(attrib.get("path", ""))
            except ValueError as error:
                raise ModuleError(f"{where(child)}: {error}", file=file) from None
            zones.append(Zone(attrib.get("name", ""), polygon, attrib.get("locationFormat", "$name$"),
                              attrib.get("useParentGrid", "false") == "true", inner,
                              attrib.get("useHighlight", "false") == "true", attrib.get("highlightProperty", "")))
    return ZonedGrid(tuple(zones), background)


_BUILDERS = {HEX_GRID: _hex, SQUARE_GRID: _square, REGION_GRID: _region, ZONED_GRID: _zoned}


def grid_from_element(element: Any, file: str | None = None) -> Grid | None:
    """The typed grid of a grid element, or None for a grid class wawkit does not know (kept, unnamed)."""
    builder = _BUILDERS.get(element.tag)
    return None if builder is None else builder(element, file)
