"""VASSAL's ``ZonedGrid``: polygon zones, each optionally with its own grid, over a background grid.

A point takes the name of the first zone (document order) whose polygon contains
it, using ``java.awt.Polygon.contains`` exactly (even-odd crossings; left and top
edges inside, right and bottom edges outside). A zone's grid sees the board-local
point but uses the zone's bounding box as its container size. Points in no zone
are named by the background grid.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from converter.errors import GeometryError
from converter.vassal.grids.hexgrid import Point, Size
from converter.vassal.grids.numbering import GRID_LOCATION, format_message
from converter.vassal.sequence import split


class Grid(Protocol):
    """What every grid offers to boards and zones."""

    kind: str

    def location_name(self, x: int, y: int, size: Size | None = None) -> str | None: ...

    def location(self, name: str, size: Size | None = None) -> Point: ...

    def snap(self, x: int, y: int) -> Point: ...


def polygon_contains(points: tuple[Point, ...], x: float, y: float) -> bool:
    """``java.awt.Polygon.contains(double, double)``."""
    if len(points) <= 2:
        return False
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    min_x, min_y = min(xs), min(ys)
    if not (min_x <= x < max(xs) and min_y <= y < max(ys)):
        return False
    hits = 0
    last_x, last_y = points[-1]
    for cur_x, cur_y in points:
        prev_x, prev_y = last_x, last_y
        last_x, last_y = cur_x, cur_y
        if cur_y == prev_y:
            continue
        if cur_x < prev_x:
            if x >= prev_x:
                continue
            left_x = cur_x
        else:
            if x >= cur_x:
                continue
            left_x = prev_x
        if cur_y < prev_y:
            if y < cur_y or y >= prev_y:
                continue
            if x < left_x:
                hits += 1
                continue
            test1, test2 = x - cur_x, y - cur_y
        else:
            if y < prev_y or y >= cur_y:
                continue
            if x < left_x:
                hits += 1
                continue
            test1, test2 = x - prev_x, y - prev_y
        if test1 < test2 / (prev_y - cur_y) * (prev_x - cur_x):
            hits += 1
    return hits & 1 != 0


def parse_path(path: str) -> tuple[Point, ...]:
    """A Zone ``path`` attribute, ``x1,y1;x2,y2;...``, as integer points."""
    points = []
    for pair in split(path, ";") if path else []:
        xy = split(pair, ",")
        if len(xy) != 2:
            raise GeometryError(f"zone path point {pair!r} is not 'x,y'")
        try:
            points.append((int(xy[0]), int(xy[1])))
        except ValueError:
            raise GeometryError(f"zone path point {pair!r} is not two integers") from None
    return tuple(points)


@dataclass(frozen=True)
class Zone:
    """A ``Zone``: name, location format, polygon, and either its own grid or the parent's."""

    name: str
    polygon: tuple[Point, ...]
    location_format: str = "$name$"
    use_parent_grid: bool = False
    grid: Grid | None = None
    use_highlight: bool = False
    highlight_property: str = ""

    def contains(self, x: int, y: int) -> bool:
        return polygon_contains(self.polygon, x, y)

    @property
    def size(self) -> Size:
        """The polygon's bounding-box size (``Polygon.getBounds().getSize()``)."""
        if not self.polygon:
            return 0, 0
        xs = [p[0] for p in self.polygon]
        ys = [p[1] for p in self.polygon]
        return max(xs) - min(xs), max(ys) - min(ys)

    def interior_point(self) -> Point:
        """A point inside the polygon: its bounding-box centre when inside, else the first
        point of a regular scan of the box that is (zones may be concave)."""
        if not self.polygon:
            raise GeometryError(f"zone {self.name!r} has no polygon")
        xs = [p[0] for p in self.polygon]
        ys = [p[1] for p in self.polygon]
        left, top, width, height = min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)
        candidates = [(left + width // 2, top + height // 2)]
        steps = 16
        candidates += [(left + width * i // steps, top + height * j // steps)
                       for j in range(1, steps) for i in range(1, steps)]
        for x, y in candidates:
            if self.contains(x, y):
                return x, y
        raise GeometryError(f"zone {self.name!r} has no interior point")


@dataclass(frozen=True)
class ZonedGrid:
    """A ``ZonedGrid``: zones in document order and an optional background grid."""

    zones: tuple[Zone, ...] = ()
    background: Grid | None = None

    kind = "zoned"

    def zone_grid(self, zone: Zone) -> tuple[Grid | None, Size | None]:
        """The grid a zone names points with, and the container size that grid sees."""
        if zone.use_parent_grid:
            return self.background, None
        return zone.grid, zone.size

    def zone_at(self, x: int, y: int) -> Zone | None:
        return next((zone for zone in self.zones if zone.contains(x, y)), None)

    def location_name(self, x: int, y: int, size: Size | None = None) -> str | None:
        zone = self.zone_at(x, y)
        if zone is not None:
            grid, grid_size = self.zone_grid(zone)
            inner = None
            if grid is not None:
                inner = grid.location_name(x, y, size if zone.use_parent_grid else grid_size)
            return format_message(zone.location_format, {"name": zone.name, GRID_LOCATION: inner})
        if self.background is not None:
            return self.background.location_name(x, y, size)
        return None

    def snap(self, x: int, y: int) -> Point:
        zone = self.zone_at(x, y)
        grid = self.zone_grid(zone)[0] if zone is not None else self.background
        return (x, y) if grid is None else grid.snap(x, y)

    def location(self, name: str, size: Size | None = None) -> Point:
        """A point VASSAL names ``name``: in the first zone whose format matches it, else the background's."""
        for zone in self.zones:
            grid, grid_size = self.zone_grid(zone)
            point = _zone_location(zone, grid, size if zone.use_parent_grid else grid_size, name)
            if point is not None:
                return point
        if self.background is not None:
            return self.background.location(name, size)
        raise GeometryError(f"{name!r} is not a zone of this ZonedGrid")


def _zone_location(zone: Zone, grid: Grid | None, size: Size | None, name: str) -> Point | None:
    """Where in ``zone`` the location ``name`` lies, or None when the zone's format cannot produce it."""
    marker = "\x00"
    template = format_message(zone.location_format, {"name": zone.name, GRID_LOCATION: marker})
    if grid is None or marker not in template:
        plain = format_message(zone.location_format, {"name": zone.name})
        return zone.interior_point() if plain == name else None
    prefix, _, suffix = template.partition(marker)
    if not (name.startswith(prefix) and name.endswith(suffix) and len(name) > len(prefix) + len(suffix)):
        return None
    try:
        point = grid.location(name[len(prefix):len(name) - len(suffix)], size)
    except GeometryError:
        return None
    return point if zone.contains(*point) else None
