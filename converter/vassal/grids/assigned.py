"""Names for the cells of a grid that has no numbering.

A HexGrid or SquareGrid without a HexGridNumbering/SquareGridNumbering has cells but no
names: VASSAL shows none and reports no location for a piece there. To place terrain,
trace lines of sight and judge moves on such a board wawkit needs names, so it gives
each cell the name VASSAL's own numbering would show with its default settings, had the
module maker added one: column then row, each a two-digit number counted from 01 at the
grid's origin cell (``0101``, ``0102``, ... down the first column, ``0201`` in the next),
odd columns of a hex grid staggered one row as VASSAL staggers them. These names are
wawkit's, not the module's: every place that shows them says so.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from converter.vassal.grids.numbering import GridNumbering
from converter.vassal.grids.zoned import ZonedGrid

#: Shown beside names of this scheme, so a player knows VASSAL will not show them.
NOTE = ("the grid has no numbering, so VASSAL shows no names there; wawkit names its cells column then row, "
        "from 0101 at the grid's origin (VASSAL's default numbering)")


@dataclass(frozen=True)
class AssignedNumbering(GridNumbering):
    """VASSAL's default numbering, given by wawkit to a grid that has none."""


ASSIGNED = AssignedNumbering()


def with_assigned_names(grid: Any) -> Any:
    """``grid`` with :data:`ASSIGNED` numbering on every hex or square grid that lacks one
    (inside zones too); a grid that has numbering, or no cells, is returned as it is."""
    if grid is None:
        return None
    if isinstance(grid, ZonedGrid):
        zones = tuple(replace(zone, grid=with_assigned_names(zone.grid)) for zone in grid.zones)
        return ZonedGrid(zones, with_assigned_names(grid.background))
    if getattr(grid, "kind", None) in ("hex", "square") and grid.numbering is None:
        return replace(grid, numbering=ASSIGNED)
    return grid


def naming_grids(grid: Any) -> list[Any]:
    """The hex and square grids that name cells of a board's grid: itself, or in a ZonedGrid its
    background and the grids of the zones whose names include the cell's."""
    if grid is None:
        return []
    if isinstance(grid, ZonedGrid):
        found = naming_grids(grid.background)
        for zone in grid.zones:
            if "$gridLocation$" in zone.location_format:
                found += naming_grids(grid.background if zone.use_parent_grid else zone.grid)
        return found
    return [grid] if getattr(grid, "kind", None) in ("hex", "square") else []


def unnumbered(grid: Any) -> bool:
    """Whether some cells of a board's grid have no names of the module's (wawkit names them)."""
    return any(g.numbering is None or isinstance(g.numbering, AssignedNumbering) for g in naming_grids(grid))


def is_assigned(grid: Any) -> bool:
    """Whether a grid's names are wawkit's (:data:`ASSIGNED`), not the module's."""
    return isinstance(getattr(grid, "numbering", None), AssignedNumbering)


__all__ = ["ASSIGNED", "AssignedNumbering", "NOTE", "is_assigned", "naming_grids", "unnumbered",
           "with_assigned_names"]
