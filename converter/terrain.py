"""Terrain maps: per board, the terrain of each hex by its VASSAL name, plus elevation, roads and hexsides.

A terrain file (``schemas/terrain.schema.json``) is what the board image shows, in
words the Terrain Effects Chart knows (clear, woods, city...). :func:`draft` proposes
one from the board image itself: it samples the pixels around each hex centre and
takes the terrain of the nearest palette colour by majority, so that a user only
corrects what the drawing got wrong (roads and labels cross hex centres, so one pixel
is not enough).

On import the map becomes :class:`~referee.model.HexState` values: terrain, features
(``road``, ``level_1``, ``stream:E7`` for a stream on the hexside towards E7,
``bridge:H9``) and the hex's cube coordinates on the grid (``at``) so that the
referee can count ranges and trace lines of sight.
"""
from __future__ import annotations

import math
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

from converter.errors import GeometryError, SchemaError
from converter.schema import load_document, validate
from converter.vassal.module import Module
from referee.hexes import Hex
from referee.model import CHART_LINE_MARKERS, HexState

#: A pixel counts for a terrain only when it lies this close (RGB distance) to its colour.
COLOUR_TOLERANCE = 40.0
#: Sampling rings around a hex centre, as fractions of the smaller grid step.
RINGS = ((0.0, 1), (0.18, 8), (0.3, 12))


@dataclass(frozen=True)
class Hexside:
    between: tuple[str, str]
    feature: str
    bridge: bool = False


@dataclass
class TerrainMap:
    """One board's terrain. ``hexes`` holds only hexes whose terrain is not ``default``."""

    board: str
    default: str
    hexes: dict[str, str] = field(default_factory=dict)
    elevation: dict[str, int] = field(default_factory=dict)
    roads: list[list[str]] = field(default_factory=list)
    hexsides: list[Hexside] = field(default_factory=list)
    map: str | None = None
    #: The Terrain Effects Chart a profile gives for these terrain names (``tec_file``), for a
    #: ruleset whose chart is not in its rulebook's text (WaW85 PAC03): see :func:`read_tec`.
    effects: Mapping[str, Any] | None = None

    def terrain(self, hex_name: str) -> str:
        return self.hexes.get(hex_name, self.default)

    def features(self, hex_name: str) -> frozenset[str]:
        return self.feature_index().get(hex_name, frozenset())

    def feature_index(self) -> dict[str, frozenset[str]]:
        """The features of every hex that has any (``road`` and ``road:E6`` towards each next
        hex of its road, ``level_N``, ``stream:E7``, ``bridge:E7``), in one pass over the roads, elevations and hexsides: a whole board's
        hexes are looked up in it, so its cost does not grow with hexes x hexsides."""
        found: dict[str, set[str]] = {}
        for road in self.roads:
            for index, hex_name in enumerate(road):
                here = found.setdefault(hex_name, set())
                here.add("road")
                # which way the road runs: a move follows it only between consecutive hexes
                # of one road (TEC Road; WaW85 §9.4), never across to another road beside it
                here.update(f"road:{road[j]}" for j in (index - 1, index + 1) if 0 <= j < len(road))
        for hex_name, level in self.elevation.items():
            if level:
                found.setdefault(hex_name, set()).add(f"level_{level}")
        for side in self.hexsides:
            for hex_name, other in ((side.between[0], side.between[1]), (side.between[1], side.between[0])):
                found.setdefault(hex_name, set()).add(f"{side.feature}:{other}")
                if side.bridge:
                    found[hex_name].add(f"bridge:{other}")
        return {hex_name: frozenset(features) for hex_name, features in found.items()}

    # -- documents ---------------------------------------------------------------
    @classmethod
    def from_document(cls, data: Mapping[str, Any], *, file: str | None = None) -> "TerrainMap":
        validate(data, "terrain", file=file)
        hexes: dict[str, str] = {}
        for terrain, names in data["hexes"].items():
            for index, name in enumerate(names):
                if name in hexes and hexes[name] != terrain:
                    raise SchemaError(f"hex {name} is both {hexes[name]} and {terrain}",
                                      path=f"hexes.{terrain}[{index}]", file=file)
                if terrain != data["default"]:
                    hexes[name] = terrain
        elevation = {name: int(level) for level, names in (data.get("elevation") or {}).items() for name in names}
        sides = [Hexside(tuple(s["between"]), s["feature"], bool(s.get("bridge"))) for s in data.get("hexsides") or ()]
        return cls(data["board"], data["default"], hexes, elevation, [list(r) for r in data.get("roads") or ()],
                   sides, data.get("map"))

    def to_document(self) -> dict[str, Any]:
        by_terrain: dict[str, list[str]] = {}
        for name, terrain in self.hexes.items():
            by_terrain.setdefault(terrain, []).append(name)
        doc: dict[str, Any] = {"board": self.board}
        if self.map is not None:
            doc["map"] = self.map
        doc["default"] = self.default
        doc["hexes"] = {t: by_terrain[t] for t in sorted(by_terrain)}
        levels: dict[int, list[str]] = {}
        for name, level in self.elevation.items():
            levels.setdefault(level, []).append(name)
        if levels:
            doc["elevation"] = {str(level): levels[level] for level in sorted(levels)}
        if self.roads:
            doc["roads"] = [list(r) for r in self.roads]
        if self.hexsides:
            doc["hexsides"] = [{"between": list(s.between), "feature": s.feature, **({"bridge": True} if s.bridge else {})}
                               for s in self.hexsides]
        return doc


def read_terrain(path: str | os.PathLike[str]) -> TerrainMap:
    return TerrainMap.from_document(load_document(path, "terrain"), file=str(path))


@dataclass(frozen=True)
class TecRow:
    """One row of a transcribed Terrain Effects Chart (``schemas/tec.schema.json``)."""

    db: Mapping[str, int]
    los: str
    obstacle_height: int
    unit_height: int
    mp: Mapping[str, int] | None = None


#: The key of a chart's hexside costs among its rows (see :func:`read_tec`).
HEXSIDES = "hexsides"
#: The key of a chart's Road and Trail costs among its rows (WaW85 §9.4).
ROADS = "roads"


def read_tec(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A Terrain Effects Chart file: terrain name -> its row, under :data:`HEXSIDES` the MP
    its hexside features (and ``up_hill``) add, and under :data:`ROADS` the MP of a hex
    entered along a Road or Trail, by mover."""
    data = load_document(path, "tec")
    chart: dict[str, Any] = {name: TecRow(dict(row["db"]), row["los"], row["obstacle_height"], row["unit_height"],
                                          dict(row["mp"]) if "mp" in row else None)
                             for name, row in data["terrain"].items()}
    chart[HEXSIDES] = {name: dict(costs) for name, costs in (data.get("hexsides") or {}).items()}
    chart[ROADS] = {name: dict(costs) for name, costs in (data.get("roads") or {}).items()}
    return chart


def _hex_state(terrain: TerrainMap, cell: "BoardHex", features: frozenset[str]) -> HexState:
    """A hex with its terrain and ``features`` (from :meth:`TerrainMap.feature_index`, built once
    for the board); with a chart, what the chart says of its terrain (the Defensive Bonus
    columns, the LOS effect, heights above the hex's elevation)."""
    name = terrain.terrain(cell.name)
    row = terrain.effects.get(name) if terrain.effects is not None and name not in (HEXSIDES, ROADS) else None
    if row is None:
        return HexState(cell.name, terrain=name, features=features, at=cell.at)
    level = terrain.elevation.get(cell.name, 0)

    def line(chart_row: TecRow) -> dict[str, Any]:
        return {"db": chart_row.db, "los": chart_row.los, "obstacle_height": level + chart_row.obstacle_height,
                "unit_height": level + chart_row.unit_height}

    # the lines a Rubble or Cleared marker sends the hex to (WaW85 §10.9, §10.9.1), if the chart has them
    lines = {"": line(row), **{marker: line(terrain.effects[marker]) for marker in CHART_LINE_MARKERS  # type: ignore[index]
                               if isinstance(terrain.effects.get(marker), TecRow)}}  # type: ignore[union-attr]
    return HexState(cell.name, terrain=name, features=features, at=cell.at,
                    terrain_db=row.db, los=row.los,
                    stated={"obstacle_height": level + row.obstacle_height, "unit_height": level + row.unit_height,
                            "tec_lines": lines,
                            "elevation": level, "tec_hexsides": terrain.effects.get(HEXSIDES, {}),   # type: ignore[union-attr]
                            "tec_roads": terrain.effects.get(ROADS, {}),   # type: ignore[union-attr]
                            **({"tec_mp": row.mp} if row.mp is not None else {})})


# -- the board's hexes ---------------------------------------------------------------

#: Most hexes of one board that are enumerated (named, placed, given a HexState: about 45 µs and
#: 1 KB each). Real boards hold a few hundred to a few thousand hexes (a WaW map about 1,500, a
#: VASL board 330); the board and grid sizes come from a stranger's module, and a PNG header of a
#: few bytes claiming 65,535 x 32,767 pixels, or a HexGrid one pixel wide, would otherwise ask for
#: hundreds of thousands or billions of hexes.
MAX_BOARD_HEXES = 100_000


def _hexes_at_most(grid: Any, size: tuple[int, int]) -> int:
    """An upper bound of the hexes of ``grid`` on a board of ``size``, as ``cells`` walks them."""
    width, height = (size[1], size[0]) if grid.sideways else size
    return math.ceil(width / grid.dx + 3) * math.ceil(height / grid.dy + 3)

@dataclass(frozen=True)
class BoardHex:
    """A hex of a board: its VASSAL name, its snap point on the map, and its cube coordinates."""

    name: str
    x: int
    y: int
    at: Hex


def board_hexes(module: Module, map_name: str, board: str,
                layout: Any = None) -> Iterator[BoardHex]:
    """Every hex whose centre lies on ``board`` (as laid out on ``map_name``), by its name:
    VASSAL's, or wawkit's on a grid without numbering (:mod:`converter.vassal.grids.assigned`).
    On a board whose grid is zoned, the hexes of its background grid outside the boxes
    (zones named for themselves) drawn on it."""
    geometry = module.map(map_name).geometry(layout, assign_names=True)
    for placement in geometry.placement(board):
        grid = placement.board.grid
        cells = getattr(grid, "background", None) if getattr(grid, "kind", None) == "zoned" else grid
        size = placement.board.size
        problem = getattr(module, "image_problems", {}).get(placement.board.name)
        if size is None and grid is not None and problem:
            raise GeometryError(f"board {placement.board.name!r} has no size to enumerate its hexes: its image "
                                f"cannot be read ({problem})", file=module.file)
        if cells is None or getattr(cells, "kind", None) != "hex" or size is None:
            raise GeometryError(f"board {board!r} has no hex grid wawkit can enumerate (or no image size)",
                                file=module.file)
        count = _hexes_at_most(cells, size)
        if count > MAX_BOARD_HEXES:
            raise GeometryError(f"board {placement.board.name!r} would have about {count} hexes ({size[0]} x "
                                f"{size[1]} pixels in hexes of {cells.dx:g} x {cells.dy:g}), over the "
                                f"{MAX_BOARD_HEXES}-hex cap for a board; refused", file=module.file)
        for cell in cells.cells(size):
            x, y = placement.to_map(*cells.cell_center(cell))
            name = geometry.location_name(x, y)
            if name is None or geometry.cell_grid(x, y) is None:
                continue
            q, r, _ = cell.cube()
            yield BoardHex(name, x, y, Hex(q, r))


def hex_states(terrain: TerrainMap | None, hexes: Iterator[BoardHex] | list[BoardHex]) -> dict[str, HexState]:
    """HexStates for the board's hexes: terrain and features when a terrain map is given."""
    states = {}
    features = terrain.feature_index() if terrain is not None else {}
    for cell in hexes:
        if terrain is None:
            states[cell.name] = HexState(cell.name, at=cell.at)
        else:
            states[cell.name] = _hex_state(terrain, cell, features.get(cell.name, frozenset()))
    return states


# -- drafting from the board image --------------------------------------------------------

def read_palette(path: str | os.PathLike[str]) -> dict[str, list[tuple[int, int, int]]]:
    """Terrain -> RGB colours, from a palette file (``schemas/palette.schema.json``)."""
    data = load_document(path, "palette")
    palette: dict[str, list[tuple[int, int, int]]] = {}
    for terrain, value in data["colours"].items():
        values = value if isinstance(value, list) and value and not isinstance(value[0], int) else [value]
        palette[terrain] = [_rgb(v) for v in values]
    return palette


def _rgb(value: str | list[int]) -> tuple[int, int, int]:
    if isinstance(value, str):
        return int(value[1:3], 16), int(value[3:5], 16), int(value[5:7], 16)
    return int(value[0]), int(value[1]), int(value[2])


def nearest_terrain(pixel: tuple[int, int, int], palette: Mapping[str, list[tuple[int, int, int]]]) -> str | None:
    """The terrain whose colour is nearest ``pixel``, or None when none is within the tolerance."""
    best, best_distance = None, COLOUR_TOLERANCE
    for terrain, colours in palette.items():
        for colour in colours:
            distance = math.dist(pixel, colour)
            if distance <= best_distance:
                best, best_distance = terrain, distance
    return best


@dataclass
class Draft:
    """A proposed terrain map, and the hexes whose pixels matched no palette colour."""

    terrain: TerrainMap
    unmatched: list[str]


def board_image(module: Module, map_name: str, board: str) -> Any:
    """The board's image as RGB pixels, decoded under the picture pixel cap (``converter.vassal.images``)."""
    from converter.vassal.images import decode_image
    board_def = module.map(map_name).board(board)
    entry = module.archive.image_entry(board_def.image) if module.archive and board_def.image else None
    if entry is None:
        raise GeometryError(f"board {board!r} has no image in the module", file=module.file)
    return decode_image(module.archive.read(entry), file=module.file, entry=entry)


def draft(module: Module, board: str, palette: Mapping[str, list[tuple[int, int, int]]], *,
          map_name: str | None = None, default: str | None = None) -> Draft:
    """Propose a terrain per hex of ``board`` from its image and a colour palette.

    Each hex gets the terrain most of its sample pixels are nearest to; a hex none of
    whose pixels is near a palette colour is listed in ``unmatched``. The default
    terrain is ``default`` or the commonest one.
    """
    map_name = map_name or _map_of(module, board)
    image = board_image(module, map_name, board)
    grid = module.map(map_name).board(board).grid
    step = min(getattr(grid, "dx", 64.0), getattr(grid, "dy", 64.0))
    geometry = module.map(map_name).geometry()
    placement = geometry.placement(board)[0]
    chosen: dict[str, str] = {}
    unmatched: list[str] = []
    for cell in board_hexes(module, map_name, board):
        cx, cy = placement.local(cell.x, cell.y)
        votes: Counter[str] = Counter()
        for radius, count in RINGS:
            for k in range(count):
                angle = 2 * math.pi * k / count
                px, py = int(round(cx + radius * step * math.cos(angle))), int(round(cy + radius * step * math.sin(angle)))
                if 0 <= px < image.width and 0 <= py < image.height:
                    terrain = nearest_terrain(image.getpixel((px, py)), palette)
                    if terrain is not None:
                        votes[terrain] += 1
        if votes:
            chosen[cell.name] = sorted(votes.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
        else:
            unmatched.append(cell.name)
    if not chosen and not unmatched:
        raise GeometryError(f"board {board!r}: no hex of its grid lies on the board image", file=module.file)
    default = default or (Counter(chosen.values()).most_common(1)[0][0] if chosen else next(iter(palette)))
    hexes = {name: terrain for name, terrain in chosen.items() if terrain != default}
    return Draft(TerrainMap(board, default, hexes, map=map_name), unmatched)


def _map_of(module: Module, board: str) -> str:
    for map_def in module.maps:
        if any(b.name == board for b in map_def.boards):
            return map_def.name
    raise GeometryError(f"no map of the module has a board {board!r}", file=module.file)


__all__ = ["BoardHex", "Draft", "Hexside", "TerrainMap", "board_hexes", "draft", "hex_states", "nearest_terrain",
           "read_palette", "read_tec", "read_terrain", "TecRow"]
