"""VASSAL's ``SquareGrid`` with ``SquareGridNumbering`` (spec section 1.5.4).

Columns use ``floor``; rows use Java's ``(int)`` cast, which truncates toward zero,
so a point above the origin row is numbered differently from a column left of the
origin column. That asymmetry is VASSAL's and is kept.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from converter.errors import GeometryError
from converter.vassal.grids.hexgrid import Point, Size, java_round
from converter.vassal.grids.numbering import GridNumbering

METRIC = "Metric"
MANHATTAN = "Manhattan"


@dataclass(frozen=True)
class SquareGrid:
    """A ``SquareGrid`` element's attributes (VASSAL defaults) and its optional numbering."""

    x0: int = 24
    y0: int = 24
    dx: float = 48.0
    dy: float = 48.0
    range_option: str = METRIC
    snap_to: bool = True
    edges_legal: bool = False
    corners_legal: bool = False
    visible: bool = False
    dots_visible: bool = False
    color: str = "0,0,0"
    snapscale: int = 0
    numbering: GridNumbering | None = field(default=None, compare=False)

    kind = "square"

    def _numbering(self) -> GridNumbering:
        if self.numbering is None:
            raise GeometryError("this SquareGrid has no SquareGridNumbering, so its cells have no names")
        return self.numbering

    def _max(self, size: Size | None) -> tuple[int, int]:
        if size is None:
            raise GeometryError("descending square numbering needs the board size, which is unknown "
                                "(board image missing)")
        return int(size[1] / self.dy + 0.5), int(size[0] / self.dx + 0.5)

    def numbered(self, x: int, y: int, size: Size | None = None) -> tuple[int, int]:
        """(column, row) as ``SquareGridNumbering.getColumn``/``getRow`` count them."""
        n = self._numbering()
        col = math.floor((x - self.x0) / self.dx + 0.5)
        row = int((y - self.y0) / self.dy + 0.5)
        if n.h_descend or n.v_descend:
            max_rows, max_cols = self._max(size)
            col = max_cols - col if n.h_descend else col
            row = max_rows - row if n.v_descend else row
        return col, row

    def location_name(self, x: int, y: int, size: Size | None = None) -> str | None:
        if self.numbering is None:
            return None
        return self.numbering.location_name(*self.numbered(x, y, size))

    def center_point(self, column: int, row: int, size: Size | None = None) -> Point:
        """``SquareGridNumbering.getCenterPoint``."""
        n = self._numbering()
        if n.h_descend or n.v_descend:
            max_rows, max_cols = self._max(size)
            row = max_rows - row if n.v_descend else row
            column = max_cols - column if n.h_descend else column
        return int(column * self.dx + self.x0), int(row * self.dy + self.y0)

    def snap(self, x: int, y: int) -> Point:
        """``SquareGrid.snapTo``: the nearest centre, or edge midpoint / corner where those are legal.

        The point is rounded to the half-cell lattice; (even, even) lattice points
        are centres, (odd, even) and (even, odd) edge midpoints, (odd, odd) corners.
        """
        if not self.snap_to:
            return x, y
        off_x, off_y = x - self.x0, y - self.y0
        nx = java_round(off_x / (0.5 * self.dx))
        ny = java_round(off_y / (0.5 * self.dy))
        if not (self.corners_legal and self.edges_legal):
            if self.corners_legal:
                nx = 2 * java_round(off_x / self.dx) if ny % 2 == 0 else 1 + 2 * java_round(off_x / self.dx - 0.5)
            elif self.edges_legal:
                if ny % 2 != 0 or nx % 2 == 0:
                    nx = 2 * java_round(off_x / self.dx)
            else:
                nx = 2 * java_round(off_x / self.dx)
                ny = 2 * java_round(off_y / self.dy)
                if self.snapscale > 0:
                    return (self.x0 + java_round(nx * self.dx / 2 + self._sub_snap(off_x, nx, self.dx)),
                            self.y0 + java_round(ny * self.dy / 2 + self._sub_snap(off_y, ny, self.dy)))
        return self.x0 + java_round(nx * self.dx / 2), self.y0 + java_round(ny * self.dy / 2)

    def _sub_snap(self, offset: int, n: int, step: float) -> int:
        """The extra offset of ``snapscale`` sub-cell snapping along one axis."""
        scale = self.snapscale
        delta = offset - java_round(n * step / 2)
        delta = java_round(delta / (0.5 * step / scale))
        delta = min(max(delta, 1 - scale), scale - 1)
        return java_round(delta * 0.5 * step / scale)

    def location(self, name: str, size: Size | None = None) -> Point:
        """The pixel a piece placed in the named cell snaps to.

        Rows use Java's truncating ``(int)`` cast, so above the origin row VASSAL's
        own ``getCenterPoint`` lands one row below the cell it names (row -1's
        centre is named row 0). There the cell one row up, which VASSAL does call
        ``name``, is returned instead.
        """
        column, row = self._numbering().parse(name)
        point = self.snap(*self.center_point(column, row, size))
        for shift in (0.0, -self.dy, self.dy):
            candidate = (point[0], int(point[1] + shift))
            if self.location_name(*candidate, size) == name:
                return candidate
        raise GeometryError(f"no cell near {point} is named {name!r}")

    def range(self, p1: Point, p2: Point) -> int:
        """Cells between two points: the larger axis step (Metric) or their sum (Manhattan)."""
        cols = abs(math.floor((p2[0] - p1[0]) / self.dx + 0.5))
        rows = abs(math.floor((p2[1] - p1[1]) / self.dy + 0.5))
        return cols + rows if self.range_option == MANHATTAN else max(cols, rows)
