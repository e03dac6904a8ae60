"""A module map's board drawn from its geometry, for a module that comes without board images.

A bare buildFile, or a module whose images are elsewhere, still says where every board lies
and what its grid is; that is enough to draw the board a player would recognise: the cells
of its hex or square grid with their names (VASSAL's, or wawkit's on a grid without
numbering), the boxes drawn on it (the zones of a ZonedGrid that are named for themselves),
and each board's outline. The part drawn is the boards when their size is known and small
enough, else the part around the points asked for (the units), with a margin of cells.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable

from converter.vassal.grids.assigned import unnumbered
from converter.vassal.grids.hexgrid import Hex
from converter.vassal.grids.placement import MapGeometry, Placement

Point = tuple[float, float]
Box = tuple[float, float, float, float]

#: A board drawn whole only up to this many map pixels a side; a larger one (or one of unknown
#: size) is drawn around the points shown.
MAX_SIDE = 2400
#: Cells of margin around the points shown.
MARGIN_CELLS = 2
#: Cells drawn at most (a safety bound for huge crops).
MAX_CELLS = 20_000


@dataclass
class DrawnBoard:
    """What to draw, in map pixels: cells (name, corners), boxes (name, polygon), board outlines,
    the part of the map drawn, and whether the cell names are wawkit's."""

    area: Box
    cells: list[tuple[str, list[Point]]] = field(default_factory=list)
    boxes: list[tuple[str, list[Point]]] = field(default_factory=list)
    outlines: list[tuple[str, list[Point]]] = field(default_factory=list)
    cell_size: float = 64.0
    assigned: bool = False


def _grids(placement: Placement) -> tuple[list[object], list[object]]:
    """A board's cell grids (hex or square: its own; in a ZonedGrid, the background and the grids of
    the zones that name their cells) and its zones."""
    grid = placement.board.grid
    if getattr(grid, "kind", None) == "zoned":
        zones = list(getattr(grid, "zones", ()))
        cells = [getattr(grid, "background", None)]
        for zone in zones:
            if "$gridLocation$" in zone.location_format:
                cells.append(grid.background if zone.use_parent_grid else zone.grid)
        return [g for g in dict.fromkeys(cells) if getattr(g, "kind", None) in ("hex", "square")], zones
    return ([grid] if getattr(grid, "kind", None) in ("hex", "square") else []), []


def _hex_corners(grid: object, centre: Point) -> list[Point]:
    """The six corners of a hex of ``grid`` around its centre (board-local), swapped when sideways."""
    dx, dy, sideways = grid.dx, grid.dy, grid.sideways  # type: ignore[attr-defined]
    cx, cy = (centre[1], centre[0]) if sideways else centre
    r = dx * 2 / 3
    points = [(cx + r, cy), (cx + r / 2, cy + dy / 2), (cx - r / 2, cy + dy / 2), (cx - r, cy),
              (cx - r / 2, cy - dy / 2), (cx + r / 2, cy - dy / 2)]
    return [(y, x) for x, y in points] if sideways else points


def _cells(grid: object, placement: Placement, area: Box) -> Iterable[tuple[Point, list[Point]]]:
    """(centre, corners) in map pixels of the grid's cells whose centre lies in ``area``."""
    left, top, right, bottom = area
    corners_local = [placement.local(int(left), int(top)), placement.local(int(right), int(bottom))]
    lx0, lx1 = sorted(p[0] for p in corners_local)
    ly0, ly1 = sorted(p[1] for p in corners_local)
    kind = getattr(grid, "kind", None)
    if kind == "hex":
        sideways = grid.sideways  # type: ignore[attr-defined]
        gx0, gx1, gy0, gy1 = (ly0, ly1, lx0, lx1) if sideways else (lx0, lx1, ly0, ly1)
        dx, dy, x0, y0 = grid.dx, grid.dy, grid.x0, grid.y0  # type: ignore[attr-defined]
        cols = range(math.floor((gx0 - x0) / dx) - 1, math.ceil((gx1 - x0) / dx) + 2)
        rows = range(math.floor((gy0 - y0) / dy) - 1, math.ceil((gy1 - y0) / dy) + 2)
        for col in cols:
            for row in rows:
                centre = grid.cell_center(Hex(col, row))  # type: ignore[attr-defined]
                mx, my = placement.to_map(*centre)
                if left <= mx <= right and top <= my <= bottom:
                    yield (mx, my), [placement.to_map(int(round(x)), int(round(y)))
                                     for x, y in _hex_corners(grid, centre)]
    elif kind == "square":
        dx, dy, x0, y0 = grid.dx, grid.dy, grid.x0, grid.y0  # type: ignore[attr-defined]
        for col in range(math.floor((lx0 - x0) / dx) - 1, math.ceil((lx1 - x0) / dx) + 2):
            for row in range(math.floor((ly0 - y0) / dy) - 1, math.ceil((ly1 - y0) / dy) + 2):
                cx, cy = x0 + col * dx, y0 + row * dy
                mx, my = placement.to_map(int(cx), int(cy))
                if left <= mx <= right and top <= my <= bottom:
                    yield (mx, my), [placement.to_map(int(cx + sx * dx / 2), int(cy + sy * dy / 2))
                                     for sx, sy in ((1, -1), (1, 1), (-1, 1), (-1, -1))]


def _area(geometry: MapGeometry, points: list[Point], cell: float) -> Box:
    """The part of the map to draw: the boards when all are known and small, else around ``points``."""
    placements = geometry.placements
    known = placements and all(p.board.size is not None for p in placements)
    if known:
        left = min(p.x for p in placements)
        top = min(p.y for p in placements)
        right = max(p.x + p.width for p in placements)
        bottom = max(p.y + p.height for p in placements)
        if right - left <= MAX_SIDE and bottom - top <= MAX_SIDE:
            return (left, top, right, bottom)
    margin = cell * (MARGIN_CELLS + 0.5)
    if points:
        box = (min(p[0] for p in points) - margin, min(p[1] for p in points) - margin,
               max(p[0] for p in points) + margin, max(p[1] for p in points) + margin)
    else:
        first = placements[0] if placements else None
        x, y = (first.x, first.y) if first is not None else (0, 0)
        box = (x, y, x + 10 * cell, y + 8 * cell)
    if known:
        left = min(p.x for p in placements)
        top = min(p.y for p in placements)
        right = max(p.x + p.width for p in placements)
        bottom = max(p.y + p.height for p in placements)
        box = (max(box[0], left), max(box[1], top), min(box[2], right), min(box[3], bottom))
    return box


def draw_board(geometry: MapGeometry, points: list[Point]) -> DrawnBoard:
    """The board of ``geometry`` (its names as :func:`MapDef.geometry` with ``assign_names`` gives
    them) to draw around ``points`` (map pixels)."""
    cell = next((min(g.dx, g.dy) for p in geometry.placements for g in _grids(p)[0]), 64.0)
    area = _area(geometry, points, cell)
    drawn = DrawnBoard(area, cell_size=cell)
    seen: set[str] = set()
    for placement in geometry.placements:
        grids, zones = _grids(placement)
        drawn.assigned |= unnumbered(placement.board.grid)
        width, height = placement.width, placement.height
        if placement.board.size is not None:
            outline = [(placement.x, placement.y), (placement.x + width, placement.y),
                       (placement.x + width, placement.y + height), (placement.x, placement.y + height)]
            drawn.outlines.append((placement.board.name, outline))
        for grid in grids:
            for centre, corners in _cells(grid, placement, area):
                if len(drawn.cells) >= MAX_CELLS:
                    break
                found = geometry.cell_grid(int(centre[0]), int(centre[1]))
                if found is None or found[0] is not grid:
                    continue                      # inside a box drawn on the board, or another grid's cell
                name = geometry.location_name(int(centre[0]), int(centre[1]))
                if name is not None and name not in seen:
                    seen.add(name)
                    drawn.cells.append((name, corners))
        for zone in zones:
            if "$gridLocation$" in zone.location_format or not zone.polygon:
                continue
            polygon = [placement.to_map(x, y) for x, y in zone.polygon]
            drawn.boxes.append((zone.name, [(float(x), float(y)) for x, y in polygon]))
    return drawn


__all__ = ["DrawnBoard", "MAX_SIDE", "draw_board"]
