"""Boards placed on a map, and the full pipeline from map pixels to location names.

A save records each map's board layout as a BoardPicker command
(``<map>BoardPicker<TAB><board>[/rev]<TAB><col><TAB><row>...``). Boards sit in a
table of slots: a board's left edge is the map's edge buffer plus the widths of
the boards before it in its row, its top edge the buffer plus the heights of the
boards above it in its column (spec section 1.6). A point belongs to the first
board, in layout order, that contains it; on a reversed board the local point is
mirrored through the board's centre.

A board whose image is missing from the module has no known size. Such a board
is treated as unbounded to the right and below -- the documented default that
lets a bare buildFile (no images) still name locations -- and any board laid out
after it in its row or column, or descending numbering on it, is a
:class:`~converter.errors.GeometryError` instead of a guess.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

from converter.errors import GeometryError
from converter.vassal.grids.hexgrid import Point, Size
from converter.vassal.grids.zoned import Grid
from converter.vassal.sequence import split

UNBOUNDED = 1 << 40
BOARD_PICKER = "BoardPicker"


@dataclass(frozen=True)
class Board:
    """A ``Board`` element: name, image, size (None when unknown), reversibility and grid."""

    name: str
    image: str | None = None
    reversible: bool = False
    size: Size | None = None
    grid: Grid | None = field(default=None, compare=False)
    color: str | None = None


@dataclass(frozen=True)
class Deck:
    """A ``DrawPile``: its name and position, relative to its owning board (or to the map edge)."""

    name: str
    x: int
    y: int
    owning_board: str | None = None


@dataclass(frozen=True)
class PlacedBoard:
    """One entry of a board layout: which board, mirrored or not, in which slot."""

    name: str
    reversed: bool = False
    column: int = 0
    row: int = 0


def parse_board_picker(text: str) -> tuple[str, list[PlacedBoard]]:
    """Split a ``<map>BoardPicker`` command into its map identifier and board layout."""
    fields = split(text, "\t")
    head = fields[0] if fields else ""
    if not head.endswith(BOARD_PICKER):
        raise GeometryError(f"not a BoardPicker command: {text[:60]!r}")
    layout = []
    values = fields[1:]
    for index in range(0, len(values) - 2, 3):
        parts = split(values[index], "/")
        try:
            column, row = int(values[index + 1]), int(values[index + 2])
        except ValueError:
            raise GeometryError(f"BoardPicker slot {values[index + 1]!r},{values[index + 2]!r} "
                                f"of board {parts[0]!r} is not two integers") from None
        layout.append(PlacedBoard(parts[0], len(parts) > 1 and parts[1] == "rev", column, row))
    return head[: -len(BOARD_PICKER)], layout


def as_layout(layout: Iterable[PlacedBoard | tuple[str, bool, int, int]]) -> list[PlacedBoard]:
    """Accept plain (board name, reversed, col, row) tuples as well as :class:`PlacedBoard`."""
    return [entry if isinstance(entry, PlacedBoard) else PlacedBoard(*entry) for entry in layout]


@dataclass(frozen=True)
class Placement:
    """A board at its place on the map: top-left corner and extent in map pixels."""

    board: Board
    reversed: bool
    x: int
    y: int
    width: int
    height: int

    def contains(self, x: int, y: int) -> bool:
        return self.x <= x < self.x + self.width and self.y <= y < self.y + self.height

    def local(self, x: int, y: int) -> Point:
        """Map pixels -> board-local pixels (``Board.localCoordinates``)."""
        lx, ly = x - self.x, y - self.y
        if self.reversed:
            lx, ly = self._size()[0] - lx, self._size()[1] - ly
        return lx, ly

    def to_map(self, lx: int, ly: int) -> Point:
        """Board-local pixels -> map pixels (``Board.globalCoordinates``)."""
        if self.reversed:
            lx, ly = self._size()[0] - lx, self._size()[1] - ly
        return lx + self.x, ly + self.y

    def _size(self) -> Size:
        if self.board.size is None:
            raise GeometryError(f"board {self.board.name!r} is reversed but its size is unknown "
                                f"(image {self.board.image!r} missing)")
        return self.board.size


class MapGeometry:
    """Where each board of one map lies, and the location names of map pixels."""

    def __init__(self, map_name: str, boards: Sequence[Board], layout: Iterable[PlacedBoard | tuple],
                 edge: Size = (0, 0), decks: Sequence[Deck] = ()) -> None:
        self.map_name = map_name
        self.edge = edge
        self.decks = list(decks)
        by_name = {board.name: board for board in boards}
        self.placements: list[Placement] = []
        entries = as_layout(layout)
        for entry in entries:
            board = by_name.get(entry.name)
            if board is None:
                known = ", ".join(sorted(by_name)) or "none"
                raise GeometryError(f"map {map_name!r} has no board {entry.name!r} (boards: {known})")
            x = edge[0] + self._extent(entries, by_name, entry, along_row=True)
            y = edge[1] + self._extent(entries, by_name, entry, along_row=False)
            width, height = board.size if board.size is not None else (UNBOUNDED, UNBOUNDED)
            self.placements.append(Placement(board, entry.reversed, x, y, width, height))

    def _extent(self, entries: list[PlacedBoard], by_name: dict[str, Board], entry: PlacedBoard,
                along_row: bool) -> int:
        total = 0
        for other in entries:
            before = (other.row == entry.row and other.column < entry.column) if along_row else \
                (other.column == entry.column and other.row < entry.row)
            if not before:
                continue
            size = by_name[other.name].size if other.name in by_name else (0, 0)
            if size is None:
                raise GeometryError(f"board {entry.name!r} on map {self.map_name!r} lies after board "
                                    f"{other.name!r}, whose size is unknown (image missing)")
            total += size[0] if along_row else size[1]
        return total

    def board_at(self, x: int, y: int) -> Placement | None:
        """``Map.findBoard``: the first placed board containing the point."""
        return next((p for p in self.placements if p.contains(x, y)), None)

    def deck_position(self, deck: Deck) -> Point:
        """``DrawPile.getPosition``: offset by its owning board's corner, else by the map edge."""
        owner = next((p for p in self.placements if p.board.name == deck.owning_board), None)
        if owner is not None:
            return deck.x + owner.x, deck.y + owner.y
        return deck.x + self.edge[0], deck.y + self.edge[1]

    def location_name(self, x: int, y: int) -> str | None:
        """The location name VASSAL reports for a map point (None: off every board, or no grid).

        A point exactly at a deck's position is named after the deck, as ``Map.locationName``
        asks ``getDeckNameAt`` first.
        """
        for deck in self.decks:
            if self.deck_position(deck) == (x, y):
                return deck.name
        placement = self.board_at(x, y)
        if placement is None or placement.board.grid is None:
            return None
        lx, ly = placement.local(x, y)
        return placement.board.grid.location_name(lx, ly, placement.board.size)

    def cell_grid(self, x: int, y: int) -> tuple[Grid, Placement] | None:
        """The hex or square grid whose cell names a map point, and the board it lies on;
        None when a zone's or region's own name, a deck, or nothing names the point (a
        holding box drawn on the map is a place, not a cell)."""
        placement = self.board_at(x, y)
        grid = placement.board.grid if placement is not None else None
        if grid is None or placement is None:
            return None
        if grid.kind == "zoned":
            lx, ly = placement.local(x, y)
            zone = grid.zone_at(lx, ly)
            if zone is not None and "$gridLocation$" not in zone.location_format:
                return None
            grid = grid.zone_grid(zone)[0] if zone is not None else grid.background
        if grid is None or grid.kind not in ("hex", "square"):
            return None
        return grid, placement

    def placement(self, board: str | None = None) -> list[Placement]:
        if board is None:
            return list(self.placements)
        chosen = [p for p in self.placements if p.board.name == board]
        if not chosen:
            raise GeometryError(f"board {board!r} is not laid out on map {self.map_name!r}")
        return chosen

    def locate(self, name: str, board: str | None = None) -> Point:
        """The map pixel where VASSAL snaps a piece placed in location ``name``.

        With several boards on the map the name is looked up board by board in
        layout order; give ``board`` when the same name exists on several.
        """
        errors = []
        matches = []
        for placement in self.placement(board):
            grid = placement.board.grid
            if grid is None:
                continue
            try:
                lx, ly = grid.location(name, placement.board.size)
            except GeometryError as error:
                errors.append(f"{placement.board.name}: {error.message}")
                continue
            point = placement.to_map(lx, ly)
            if self.board_at(*point) is placement:
                matches.append(point)
            else:
                errors.append(f"{placement.board.name}: {name!r} lies outside the board")
        if len(matches) > 1 and board is None:
            raise GeometryError(f"location {name!r} exists on several boards of map {self.map_name!r}; "
                                "choose one with board=")
        if matches:
            return matches[0]
        detail = "; ".join(errors) if errors else "no board of the map has a grid"
        raise GeometryError(f"no location {name!r} on map {self.map_name!r} ({detail})")
