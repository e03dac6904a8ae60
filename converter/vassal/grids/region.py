"""VASSAL's ``RegionGrid``: named points; a location is the region whose origin is nearest.

VASSAL keeps the regions in a ``HashMap<Point, Region>`` and takes the first
strictly nearest one while iterating it, so two regions at the same distance are
decided by Java's hash order, and two regions at the same origin keep only the
last one defined. Both are reproduced (:func:`java_hashmap_order`).
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

from converter.errors import GeometryError
from converter.vassal.grids.hexgrid import Point, Size


@dataclass(frozen=True)
class Region:
    """A ``Region`` element: a name at an origin point (board pixels)."""

    name: str
    x: int
    y: int


def _double_bits(value: float) -> int:
    return struct.unpack(">q", struct.pack(">d", value))[0]


def _to_int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def point_hash(x: int, y: int) -> int:
    """``java.awt.geom.Point2D.hashCode`` of an integer point."""
    bits = _double_bits(float(x)) ^ ((_double_bits(float(y)) * 31) & 0xFFFFFFFFFFFFFFFF)
    bits &= 0xFFFFFFFFFFFFFFFF
    return _to_int32(bits ^ (bits >> 32))


def java_hashmap_order(keys: list[Point]) -> list[Point]:
    """Distinct keys in the order a ``java.util.HashMap`` filled in this order iterates them."""
    distinct = list(dict.fromkeys(keys))
    capacity = 16
    while len(distinct) > capacity * 0.75:
        capacity *= 2

    def bucket(key: Point) -> int:
        h = point_hash(*key) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & (capacity - 1)

    return sorted(distinct, key=bucket)  # sorted() is stable: insertion order within a bucket


@dataclass(frozen=True)
class RegionGrid:
    """A ``RegionGrid`` element: its regions in document order plus display attributes."""

    regions: tuple[Region, ...] = ()
    snap_to: bool = True
    visible: bool = False
    font_size: int = 9

    kind = "region"

    def _lookup(self) -> list[Region]:
        by_origin: dict[Point, Region] = {}
        for region in self.regions:
            by_origin[(region.x, region.y)] = region
        return [by_origin[key] for key in java_hashmap_order([(r.x, r.y) for r in self.regions])]

    def nearest(self, x: int, y: int) -> Region | None:
        best: Region | None = None
        best_distance = 0
        for region in self._lookup():
            distance = (region.x - x) ** 2 + (region.y - y) ** 2
            if best is None or distance < best_distance:
                best, best_distance = region, distance
        return best

    def location_name(self, x: int, y: int, size: Size | None = None) -> str | None:
        region = self.nearest(x, y)
        return None if region is None else region.name

    def snap(self, x: int, y: int) -> Point:
        region = self.nearest(x, y) if self.snap_to else None
        return (x, y) if region is None else (region.x, region.y)

    def location(self, name: str, size: Size | None = None) -> Point:
        for region in reversed(self.regions):
            if region.name == name:
                return region.x, region.y
        raise GeometryError(f"{name!r} is not a region of this RegionGrid")
