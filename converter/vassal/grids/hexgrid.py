"""VASSAL's ``HexGrid``: which hex a pixel is in, what VASSAL calls it, and where it snaps.

All arithmetic follows ``HexGrid`` and ``HexGridNumbering`` step by step, with
Java's integer truncation and ``Math.round`` (spec section 1.5.3). A sideways grid
swaps x and y before and after every computation (the origin is *not* swapped);
raw columns with an odd index sit half a hex lower. The container size (board or
zone) only matters for descending numbering, whose "maximum row" uses VASSAL's
crossed divisors (height / dx, width / dy).

:class:`Hex` gives the raw cell as offset and cube coordinates, for distances and
neighbours that agree with VASSAL's pixel-based ``range``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Iterator

from converter.errors import GeometryError
from converter.vassal.grids.numbering import GridNumbering

SQRT3_2 = math.sqrt(3) / 2.0
DEFAULT_HEIGHT = 64.0
DEFAULT_WIDTH = SQRT3_2 * DEFAULT_HEIGHT

Point = tuple[int, int]
Size = tuple[int, int]


def _distance2(a: Point, b: Point) -> int:
    return (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2


def java_round(value: float) -> int:
    """``Math.round(double)``: the nearest integer, halves rounded up."""
    low = math.floor(value)
    return low + 1 if value - low >= 0.5 else low


@dataclass(frozen=True, order=True)
class Hex:
    """A raw hex cell: ``col`` along the grid's x axis, ``row`` along y (odd columns half a hex lower).

    This is the "odd-q" offset layout; :meth:`cube` converts it for distances.
    For a sideways grid the axes are the swapped ones, exactly as VASSAL counts.
    """

    col: int
    row: int

    def cube(self) -> tuple[int, int, int]:
        """Cube coordinates (q, r, s) with q + r + s == 0."""
        q = self.col
        r = self.row - (self.col - (self.col & 1)) // 2
        return q, r, -q - r

    @classmethod
    def from_cube(cls, q: int, r: int, s: int = 0) -> "Hex":
        return cls(q, r + (q - (q & 1)) // 2)

    def distance(self, other: "Hex") -> int:
        """Number of hex steps between two cells."""
        a, b = self.cube(), other.cube()
        return max(abs(a[0] - b[0]), abs(a[1] - b[1]), abs(a[2] - b[2]))

    def neighbours(self) -> list["Hex"]:
        """The six adjacent cells, clockwise from the one above (in the grid's own frame)."""
        q, r, s = self.cube()
        steps = ((0, -1, 1), (1, -1, 0), (1, 0, -1), (0, 1, -1), (-1, 1, 0), (-1, 0, 1))
        return [Hex.from_cube(q + dq, r + dr, s + ds) for dq, dr, ds in steps]


@dataclass(frozen=True)
class HexGrid:
    """A ``HexGrid`` element's attributes (VASSAL defaults) and its optional numbering."""

    x0: int = 0
    y0: int = 32
    dy: float = DEFAULT_HEIGHT
    dx: float = DEFAULT_WIDTH
    sideways: bool = False
    snap_to: bool = True
    edges_legal: bool = False
    corners_legal: bool = False
    visible: bool = False
    dots_visible: bool = False
    color: str = "0,0,0"
    snapscale: int = 0
    numbering: GridNumbering | None = field(default=None, compare=False)

    kind = "hex"

    def _swap(self, x: int, y: int) -> Point:
        return (y, x) if self.sideways else (x, y)

    # -- raw cells ---------------------------------------------------------------
    def raw_column(self, x: int, y: int) -> int:
        gx, _ = self._swap(x, y)
        return math.floor((gx - self.x0) / self.dx + 0.5)

    def raw_row(self, x: int, y: int) -> int:
        gx, gy = self._swap(x, y)
        nx = java_round((gx - self.x0) / self.dx)
        if nx % 2 == 0:
            return java_round((gy - self.y0) / self.dy)
        return java_round((gy - self.y0 - self.dy / 2) / self.dy)

    def hex_at(self, x: int, y: int) -> Hex:
        """The raw cell VASSAL's numbering assigns to a board-local point."""
        return Hex(self.raw_column(x, y), self.raw_row(x, y))

    def cell_center(self, cell: Hex) -> Point:
        """The pixel a piece snaps to in ``cell`` (``hexX``/``hexY`` of the cell)."""
        x = int(self.dx * cell.col + self.x0)
        if cell.col % 2 == 0:
            y = int(self.dy * cell.row + self.y0)
        else:
            y = int(self.dy * cell.row + int(self.dy / 2) + self.y0)
        return self._swap(x, y)

    def snap(self, x: int, y: int) -> Point:
        """``HexGrid.snapTo``: the nearest hex centre, or hexside / vertex where those are legal."""
        if not self.snap_to:
            return x, y
        center = self._snap_with(x, y, self._hex_xy)
        if not (self.edges_legal or self.corners_legal):
            return center
        if self.edges_legal and self.corners_legal:
            edge = self._snap_with(x, y, self._side_xy)
            vertex = self._snap_with(x, y, self._vertex_xy)
            target = edge if _distance2((x, y), edge) < _distance2((x, y), vertex) else vertex
        elif self.edges_legal:
            target = self._snap_with(x, y, self._side_xy)
        else:
            target = self._snap_with(x, y, self._vertex_xy)
        # VASSAL's vertex arithmetic can land a pixel off a centre; it then prefers the centre.
        return center if _distance2(center, target) <= 2 else target

    def _snap_with(self, x: int, y: int, rule: Callable[[int, int], Point]) -> Point:
        gx, gy = self._swap(x, y)
        sx, sy = rule(gx, gy)
        if self.snapscale > 0 and rule != self._hex_xy:
            hx, hy = self._hex_xy(gx, gy)
            if abs(gx - hx) + abs(gy - hy) <= abs(gx - sx) + abs(gy - sy):
                sx, sy = hx, hy
        return self._swap(sx, sy)

    def _sub_snap(self, loc: int, value: int, step: float) -> int:
        scale = self.snapscale
        delta = java_round((value - loc) / (0.5 * step / scale))
        delta = min(max(delta, 1 - scale), scale - 1)
        return loc + java_round(delta * 0.5 * step / scale)

    def _hex_xy(self, x: int, y: int) -> Point:
        """``hexX``/``hexY`` in the grid's own (unswapped) frame."""
        dx, dy = self.dx, self.dy
        nx = math.floor((x - self.x0 + dx / 2) / dx)
        sx = int(dx * nx + self.x0)
        if nx % 2 == 0:
            sy = int(dy * math.floor((y - self.y0 + dy / 2) / dy) + self.y0)
        else:
            sy = int(dy * math.floor((y - self.y0) / dy) + int(dy / 2) + self.y0)
        if self.snapscale > 0:
            sx, sy = self._sub_snap(sx, x, dx), self._sub_snap(sy, y, dy)
        return sx, sy

    def _side_xy(self, x: int, y: int) -> Point:
        """``sideX``/``sideY``: the nearest hexside midpoint (or centre) on the half-hex lattice."""
        dx, dy = self.dx, self.dy
        nx = math.floor((x - self.x0 + dx / 4) * 2 / dx)
        sx = int(dx / 2 * nx + self.x0)
        if nx % 2 == 0:
            sy = int(dy / 2 * math.floor((y - self.y0 + dy / 4) * 2 / dy) + self.y0)
        else:
            sy = int((dy / 2) * math.floor((y - self.y0) * 2 / dy) + int(dy / 4) + self.y0)
        return sx, sy

    def _vertex_xy(self, x: int, y: int) -> Point:
        """``vertexX``/``vertexY``: the nearest hex corner."""
        dx, dy = self.dx, self.dy
        ny = math.floor((y - self.y0 + dy / 4) * 2 / dy)
        if ny % 2 == 0:
            sx = int(2 * dx / 3 * int(math.floor(x - self.x0 + dx / 3) * 3 / (2 * dx)) + self.x0)
        else:
            sx = int(2 * dx / 3 * int(math.floor(x - self.x0 + dx / 3 + dx / 3) * 3 / (2 * dx))
                     - int(dx / 3) + self.x0)
        sy = int(dy / 2 * ny + self.y0)
        return sx, sy

    def range(self, p1: Point, p2: Point) -> int:
        """``HexGrid.range``: hexes between two points, from their pixel distance."""
        a, b = self._swap(*p1), self._swap(*p2)
        x, y = b[0] - a[0], b[1] - a[1]
        theta = math.atan2(-x, -y) + math.pi
        while theta > math.pi / 3.0:
            theta -= math.pi / 3.0
        theta = math.pi / 6.0 - theta
        r = math.sqrt(x * x + y * y) * math.cos(theta)
        return int(r / (self.dy * SQRT3_2) + 0.5)

    # -- numbering ---------------------------------------------------------------
    def _numbering(self) -> GridNumbering:
        if self.numbering is None:
            raise GeometryError("this HexGrid has no HexGridNumbering, so its hexes have no names")
        return self.numbering

    def _max_rows_cols(self, size: Size | None) -> tuple[int, int]:
        if size is None:
            raise GeometryError("descending hex numbering needs the board size, which is unknown "
                                "(board image missing)")
        width, height = size
        return math.floor(height / self.dx + 0.5), math.floor(width / self.dy + 0.5)

    def numbered(self, x: int, y: int, size: Size | None = None) -> tuple[int, int]:
        """(column, row) as ``HexGridNumbering.getColumn``/``getRow`` count them."""
        n = self._numbering()
        col = self.raw_column(x, y)
        row = self.raw_row(x, y)
        c, r = col, row
        if n.v_descend or n.h_descend:
            max_rows, max_cols = self._max_rows_cols(size)
            if n.v_descend and self.sideways:
                c = max_rows - c
            if n.h_descend and not self.sideways:
                c = max_cols - c
            if n.v_descend and not self.sideways:
                r = max_rows - r
            if n.h_descend and self.sideways:
                r = max_cols - r
        if n.stagger and col % 2 != 0:
            descending = n.h_descend if self.sideways else n.v_descend
            r += -1 if descending else 1
        return c, r

    def location_name(self, x: int, y: int, size: Size | None = None) -> str | None:
        """The name VASSAL gives a board-local point, or None without numbering."""
        if self.numbering is None:
            return None
        return self.numbering.location_name(*self.numbered(x, y, size))

    def center_point(self, column: int, row: int, size: Size | None = None) -> Point:
        """``HexGridNumbering.getCenterPoint``: the pixel of a numbered (column, row)."""
        n = self._numbering()
        if n.stagger and column % 2 != 0:
            descending = n.h_descend if self.sideways else n.v_descend
            row += 1 if descending else -1
        if n.v_descend or n.h_descend:
            max_rows, max_cols = self._max_rows_cols(size)
            if self.sideways:
                column = max_rows - column if n.v_descend else column
                row = max_cols - row if n.h_descend else row
            else:
                column = max_cols - column if n.h_descend else column
                row = max_rows - row if n.v_descend else row
        x = int(column * self.dx) + self.x0
        if column % 2 == 0:
            y = int(row * self.dy) + self.y0
        else:
            y = int(row * self.dy + self.dy / 2) + self.y0
        return self._swap(x, y)

    def location(self, name: str, size: Size | None = None) -> Point:
        """The board-local pixel of the named hex's centre, where a piece placed "in" it snaps to.

        This starts from VASSAL's ``getLocation`` (:meth:`center_point`). With
        stagger and descending columns on a board with an odd number of columns,
        VASSAL's ``getCenterPoint`` tests the parity of the flipped column while
        ``getRow`` tests the raw one, so its point lies one hex off the hex it names;
        the hex next to it that VASSAL does call ``name`` is returned instead.
        """
        column, row = self._numbering().parse(name)
        point = self.snap(*self.center_point(column, row, size))
        if self.location_name(*point, size) == name:
            return point
        start = self.hex_at(*point)
        for cell in [*start.neighbours(), *(n for near in start.neighbours() for n in near.neighbours())]:
            candidate = self.cell_center(cell)
            if self.location_name(*candidate, size) == name:
                return candidate
        raise GeometryError(f"no hex near {point} is named {name!r}")

    def cells(self, size: Size) -> Iterator[Hex]:
        """Every raw cell whose centre lies on a board of ``size`` (in board pixels)."""
        width, height = self._swap(*size)
        col = math.floor(-self.x0 / self.dx) - 1
        while self.dx * col + self.x0 < width + self.dx:
            row = math.floor(-self.y0 / self.dy) - 1
            while self.dy * row + self.y0 < height + self.dy:
                x, y = self.cell_center(Hex(col, row))
                if 0 <= x < size[0] and 0 <= y < size[1]:
                    yield Hex(col, row)
                row += 1
            col += 1
