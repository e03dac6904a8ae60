"""Import: a VASSAL save, read through a module profile, becomes a canonical :class:`~referee.model.Game`.

Every unit keeps the id of the piece it came from (``Imported.pieces``), so events can
be written back onto the same save. Unit keys are the unit-table key, with ``-2``,
``-3``... for further counters of the same key in piece-id order: they are readable in
an actions file and survive moves and re-saves.

Markers on a unit are separate pieces in its stack; a marker applies to the nearest
unit below it, or, at the bottom of a stack, to the nearest one above (the way players
put a Disrupted marker on top of the unit it concerns). A status may also be shown by
the unit's own piece: a Layer level (``status_layers``) or a Marker or Dynamic Property
value (``status_properties``).

Only a unit in a cell of the main map's hex (or, on a square board, square) grid is *on the
map* with a hex; a square cell drawn on a hex board is a track's box, a place.
A map whose board layout the module cannot place (a board of another module version the
profile has no ``board_aliases`` for; a board of unknown size before another) names no
hex: its pieces are in a place, the map, and ``Imported.unplaced`` says why.
A unit in a holding box drawn on the map (a zone or region named for itself), on a
holding map, or on a map the module lacks is in a *place*: its ``location`` names it and
it has no hex, so no rule of the board applies to it. Each unit's position in the save is
kept (``Imported.positions``), so that a new save can put it back where it was.

Pieces the profile does not recognise -- a unit whose table key the unit table lacks
(a counter of another module version), or that gives no key, included -- are reported
in ``Imported.unrecognised``, never silently dropped; a piece the profile claims but
cannot read (a reduced or status layer the piece lacks) is a
:class:`~converter.errors.ProfileError` naming the profile path and the piece id.

:class:`PositionReader` reads the module, profile, unit table and terrain once for many
positions; :class:`LogPosition` keeps a log's position up to date step by step, reading
again only the pieces a step touches.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from functools import cached_property
from types import MappingProxyType
from typing import Any, Callable, Iterable, Protocol

from converter.errors import GeometryError, ProfileError, WawkitError
from converter.profile import Profile, UnitRule, prototype_texts, read_profile, seen
from converter.terrain import TerrainMap, board_hexes, hex_states, read_tec, read_terrain
from converter.unit_table import TableEntry, UnitTable, read_unit_table
from converter.vassal.grids.assigned import naming_grids
from converter.vassal.grids.placement import MapGeometry, PlacedBoard
from converter.vassal.commands import AddPiece, ChangePiece, MovePiece, RemovePiece
from converter.vassal.log import Replay, Step
from converter.vassal.module import Module
from converter.vassal.pieces import Piece, decode_piece
from converter.vassal.save import DECK_PREFIX, STACK_TYPE, SavedGame, inner_of
from referee.hexes import Hex
from referee.model import Game, HexState, Status, Unit

#: Decoded pieces kept per reader, by their (type, state) text; a long log's replay clears it when full.
SEEN_CACHE = 50_000


@dataclass(frozen=True)
class Unrecognised:
    """A piece the profile does not describe, and where it lies."""

    piece: str
    name: str
    map: str | None
    location: str | None
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"piece": self.piece, "name": self.name, "map": self.map, "location": self.location,
                "reason": self.reason}


Position = tuple[str | None, int, int]
#: A piece as text: (quoting, type, state) -- what decoding it depends on.
Texts = tuple[str, str, str]


@dataclass
class Imported:
    """The result of an import: the Game and its links back to the save."""

    game: Game
    pieces: dict[str, str]                         # unit key -> piece id
    table_keys: dict[str, str]                     # unit key -> unit-table key
    unit_markers: dict[str, list[tuple[str, str]]]  # unit key -> [(marker name, piece id)], bottom first
    hex_markers: dict[str, list[tuple[str, str]]]   # hex -> [(marker name, piece id)]
    unrecognised: list[Unrecognised] = field(default_factory=list)
    positions: dict[str, Position] = field(default_factory=dict)
    """Unit key -> (map, x, y) of its piece, in the save's own board layout (``layouts``)."""
    layouts: dict[str, tuple[PlacedBoard, ...]] = field(default_factory=dict)
    """The save's board layout of each map (its BoardPicker commands), by map id."""
    unplaced: dict[str, str] = field(default_factory=dict)
    """Maps whose board layout the module cannot place, and why: their pieces are in places."""

    def piece_of(self, unit_key: str) -> str:
        try:
            return self.pieces[unit_key]
        except KeyError:
            raise ProfileError(f"unit {unit_key!r} has no piece in the save") from None


def _id_order(piece_id: str) -> tuple[int, int, str]:
    return (0, int(piece_id), "") if piece_id.isdigit() else (1, 0, piece_id)


# -- where a piece lies ------------------------------------------------------------------------

@dataclass(frozen=True)
class Frame:
    """How a map of a save lies on the module: its board layout and the shift of an aliased board."""

    layout: tuple[PlacedBoard, ...] | None
    dx: int = 0
    dy: int = 0


def save_frames(save: SavedGame, profile: Profile | None = None) -> dict[str, Frame]:
    """Board layout per map from the save's BoardPicker commands.

    A save of an older module version may name a board the module no longer has
    (The Longest Day's "Board F" is a crop of today's "Normandy"); the profile's
    ``board_aliases`` say which board it is part of and where it lies on it.
    """
    aliases = profile.board_aliases if profile is not None else {}
    frames = {}
    for map_id, layout in save.board_layouts().items():
        if len(layout) == 1 and layout[0].name in aliases:
            board, dx, dy = aliases[layout[0].name]
            frames[map_id] = Frame((PlacedBoard(board),), dx, dy)
        else:
            frames[map_id] = Frame(tuple(layout))
    return frames


@dataclass(frozen=True)
class Place:
    """Where a point of a save lies: its map, the location name there, and whether that name is
    a cell of a hex or square grid (a hex of the game, with its cube coordinates when hex)."""

    map: str | None
    name: str | None = None
    cell: bool = False
    at: Hex | None = None


def _has_map(module: Module, map_name: str) -> bool:
    return any(map_name in (m.name, m.id) for m in module.maps)


def map_geometry(module: Module, map_name: str, frame: Frame) -> MapGeometry:
    """The map's geometry as a save lays it out, with wawkit's names on unnumbered grids."""
    try:
        return module.map(map_name).geometry(frame.layout, assign_names=True)
    except GeometryError as error:
        raise _frame_error(module, map_name, error) from None


def _frame_error(module: Module, map_name: str, error: GeometryError) -> ProfileError:
    named = f"map {map_name!r}"
    where = "" if error.message.startswith(named) else f"{named}: "
    return ProfileError(f"{where}{error.message} (a board of an older module version? "
                        "see board_aliases in the profile)", file=module.file)


def place_of(geometry: MapGeometry, x: int, y: int) -> Place:
    """The Place of a map point: VASSAL's location name, and the cell it is when a grid names it."""
    name = geometry.location_name(x, y)
    cell = geometry.cell_grid(x, y)
    at = None
    if cell is not None and cell[0].kind == "hex":
        grid, placement = cell
        q, r, _ = grid.hex_at(*placement.local(x, y)).cube()
        at = Hex(q, r)
    return Place(geometry.map_name, name, cell is not None and name is not None, at)


def point_name(module: Module, map_name: str, x: int, y: int,
               frames: dict[str, Frame]) -> tuple[str | None, Hex | None]:
    """Location name and cube coordinates of a save's map point (None where no grid names it)."""
    if not _has_map(module, map_name):
        return None, None
    frame = frames.get(map_name, Frame(None))
    try:
        found = place_of(map_geometry(module, map_name, frame), x + frame.dx, y + frame.dy)
    except GeometryError as error:
        raise _frame_error(module, map_name, error) from None
    return found.name, found.at


def name_point(module: Module, map_name: str, name: str, frames: dict[str, Frame]) -> tuple[int, int]:
    """The save's pixel for a location name of a map (inverse of :func:`point_name`)."""
    frame = frames.get(map_name, Frame(None))
    x, y = map_geometry(module, map_name, frame).locate(name)
    return x - frame.dx, y - frame.dy


# -- the pieces of a position ---------------------------------------------------------------------

class PieceSource(Protocol):
    """What a reader needs of a position: a save, or a log's replay at some step."""

    quoting: str

    def ids(self) -> Iterable[str]: ...

    def texts(self, piece_id: str) -> tuple[str, str] | None: ...

    def position(self, piece_id: str) -> Position: ...

    def holder(self, piece_id: str) -> str | None: ...

    def members(self, holder_id: str) -> list[str]: ...


def _is_holder(type_text: str) -> bool:
    return type_text == STACK_TYPE or type_text.startswith(DECK_PREFIX)


class SaveSource:
    """The pieces of a save."""

    def __init__(self, save: SavedGame) -> None:
        self.save = save
        self.quoting = save.quoting
        self._holders = {**save.stacks, **save.decks}

    def ids(self) -> Iterable[str]:
        return [pid for pid, entry in self.save.pieces.items() if not (entry.is_stack or entry.is_deck)]

    def texts(self, piece_id: str) -> tuple[str, str] | None:
        entry = self.save.pieces.get(piece_id)
        return None if entry is None else (entry.type_text, entry.state_text)

    def position(self, piece_id: str) -> Position:
        return self.save.position(piece_id)

    def holder(self, piece_id: str) -> str | None:
        return self.save.stack_of(piece_id)

    def members(self, holder_id: str) -> list[str]:
        return self._holders.get(holder_id, [])


class ReplaySource:
    """The pieces of a log's replay, as they stand after the steps applied so far."""

    def __init__(self, replay: Replay) -> None:
        self.replay = replay
        self.quoting = replay.game.quoting
        self._holder_at: dict[str, tuple[tuple[str, str], Position]] = {}

    def ids(self) -> Iterable[str]:
        return [pid for pid, (type_text, _) in self.replay.pieces.items() if not _is_holder(type_text)]

    def texts(self, piece_id: str) -> tuple[str, str] | None:
        return self.replay.pieces.get(piece_id)

    def position(self, piece_id: str) -> Position:
        """Where a piece lies; a stacked piece is where its stack is, read once per state of the stack."""
        holder = self.replay.stack_of(piece_id)
        if holder is None or self.replay.pieces[holder][0] != STACK_TYPE:
            holder = piece_id
        texts = self.replay.pieces[holder]
        cached = self._holder_at.get(holder)
        if cached is None or cached[0] is not texts:
            cached = self._holder_at[holder] = (texts, self.replay.position(piece_id))
        return cached[1]

    def holder(self, piece_id: str) -> str | None:
        return self.replay.stack_of(piece_id)

    def members(self, holder_id: str) -> list[str]:
        return self.replay.members(holder_id)


@dataclass(frozen=True)
class Kind:
    """What the profile makes of a piece: a unit (rule and table entry), a unit or hex marker
    (its name), ignored, or not recognised (why)."""

    what: str
    name: str | None = None
    rule: UnitRule | None = None
    entry: TableEntry | None = None


@dataclass(frozen=True)
class UnitFacts:
    """What a unit's piece says of itself, wherever it lies."""

    type: Any
    side: str | None
    nation: str | None
    formation: str | None
    strength: str | None
    statuses: dict[str, Any]
    command: Mapping[str, Any] = field(default_factory=dict)   # an HQ's morale, leadership, command range


# -- reading positions ---------------------------------------------------------------------------

class PositionReader:
    """Reads positions of one module through one profile, unit table and terrain.

    Everything that does not depend on the position is read once: the module's prototypes,
    the map geometries of each board layout, the terrain's hexes; pieces are decoded and
    classified once per distinct (type, state) text, so a log's thousands of positions cost
    little more than the pieces their steps change.
    """

    def __init__(self, module: Module, profile: Profile, table: UnitTable, terrain: TerrainMap | None = None) -> None:
        self.module, self.profile, self.table, self.terrain = module, profile, table, terrain
        self.prototypes = prototype_texts(module)
        self._seen: dict[Texts, Piece] = {}
        self._kinds: dict[Texts, Kind] = {}
        self._facts: dict[Texts, UnitFacts] = {}
        # The same, by the piece's texts without where it lies (``Piece.placeless_state``): a
        # counter VASSAL moved has a new state text, and so does every counter of a kind set
        # out in another hex; neither is classified again.
        self._looks: dict[Texts, tuple[Any, ...] | None] = {}
        self._kinds_placeless: dict[tuple[Any, ...], Kind] = {}
        self._facts_placeless: dict[tuple[Any, ...], UnitFacts] = {}
        self._geometries: dict[tuple[str, Frame], MapGeometry] = {}
        self._places: dict[tuple[str, int, int, Frame], Place] = {}
        self._boards: dict[Frame, dict[str, HexState]] = {}
        self._unplaced: dict[tuple[str, Frame], str] = {}

    # -- pieces ------------------------------------------------------------------------------
    def piece(self, texts: Texts, piece_id: str) -> Piece:
        """The piece as the profile reads it (through the module's prototypes)."""
        found = self._seen.get(texts)
        if found is None:
            if len(self._seen) >= SEEN_CACHE:
                self._forget_pieces()
            raw = decode_piece(texts[1], texts[2], quoting=texts[0], piece_id=piece_id)
            inner_of(raw, piece_id)
            found = self._seen[texts] = seen(raw, self.prototypes)
        return found

    def _forget_pieces(self) -> None:
        for cache in (self._seen, self._kinds, self._facts, self._looks, self._kinds_placeless,
                      self._facts_placeless):
            cache.clear()

    def _placeless(self, texts: Texts, piece_id: str) -> tuple[Any, ...] | None:
        """The piece's texts without the BasicPiece's map, x and y (None: not a BasicPiece's)."""
        if texts in self._looks:
            return self._looks[texts]
        if len(self._looks) >= SEEN_CACHE:
            self._forget_pieces()
        try:
            look = decode_piece(texts[1], texts[2], quoting=texts[0], piece_id=piece_id).placeless_state()
        except WawkitError:
            look = None                      # the full read reports it
        found = self._looks[texts] = None if look is None else (texts[0], texts[1], look)
        return found

    def kind(self, texts: Texts, piece_id: str) -> Kind:
        """Unit, marker, hex marker, ignored or unknown (with why), cached by the piece's texts
        and by its texts without where it lies."""
        found = self._kinds.get(texts)
        if found is None:
            look = self._placeless(texts, piece_id)
            found = self._kinds_placeless.get(look) if look is not None else None
            if found is None:
                found = self._classify(self.piece(texts, piece_id), piece_id)
                if look is not None:
                    self._kinds_placeless[look] = found
            self._kinds[texts] = found
        return found

    def _classify(self, piece: Piece, piece_id: str) -> Kind:
        refused: str | None = None
        # The displayed name applies every trait: read once, and only when a rule tests it (a
        # profile's unit rules mostly test images; its marker and ignore rules, names).
        shown: str | None = None
        for rule in self.profile.units:
            if shown is None and rule.match.reads_name:
                shown = piece.name
            if not rule.match.matches(piece, shown):
                continue
            key = rule.type.read(piece, rule)
            if key is None:
                refused = refused or f"{rule.type.path}: the piece gives no unit-table key"
                continue
            entry = self.table.get(key)
            if entry is None:
                refused = refused or (f"unit-table key {key!r} of {piece.name!r} is not in the unit table "
                                      f"{self.table.name!r} ({rule.type.path})")
                continue
            if rule.accepts(entry):
                return Kind("unit", rule=rule, entry=entry)
        if shown is None:
            shown = piece.name
        if (name := self.profile.unit_marker(piece, shown)) is not None:
            return Kind("marker", name)
        if (name := self.profile.hex_marker(piece, shown)) is not None:
            return Kind("hex_marker", name)
        if self.profile.ignored(piece, shown):
            return Kind("ignored")
        return Kind("unknown", refused or "no unit, marker or ignore rule of the profile matches")

    def facts(self, texts: Texts, piece_id: str, kind: Kind) -> "UnitFacts":
        """What a unit piece says of itself (side, nation, formation, strength, the statuses its
        own layers and properties show), cached by the piece's texts like its kind."""
        found = self._facts.get(texts)
        if found is None:
            look = self._placeless(texts, piece_id)
            found = self._facts_placeless.get(look) if look is not None else None
            if found is None:
                found = self._unit_facts(self.piece(texts, piece_id), piece_id, kind)
                if look is not None:
                    self._facts_placeless[look] = found  # the kind follows from the look too
            self._facts[texts] = found
        return found

    def _unit_facts(self, piece: Piece, piece_id: str, kind: Kind) -> "UnitFacts":
        rule, entry = kind.rule, kind.entry
        assert rule is not None and entry is not None

        def value(name: str) -> str | None:
            read = getattr(rule, name)
            return read.read(piece, rule, entry) if read is not None else getattr(entry, name)
        strength = None
        if rule.reduced is not None:
            try:
                strength = "reduced" if rule.reduced.shown(piece) else "full"
            except ProfileError as error:
                raise error.located(file=self.profile.file, piece=piece_id)
        elif entry.type.steps == 1:
            strength = "full"           # a one-step counter has no other side; of two, the rule reads neither
        return UnitFacts(entry.type, value("side"), value("nation"), value("formation"), strength,
                         _own_statuses(self.profile, piece_id, piece, rule), getattr(entry, "command", {}))

    # -- places ------------------------------------------------------------------------------
    def geometry(self, map_name: str, frame: Frame) -> MapGeometry:
        key = (map_name, frame)
        if key not in self._geometries:
            self._geometries[key] = map_geometry(self.module, map_name, frame)
        return self._geometries[key]

    def place(self, position: Position, frames: dict[str, Frame]) -> Place:
        map_name, x, y = position
        if map_name is None:
            return Place(None)
        frame = frames.get(map_name, Frame(None))
        key = (map_name, x, y, frame)
        found = self._places.get(key)
        if found is None:
            if not _has_map(self.module, map_name):
                found = Place(map_name)
            else:
                try:
                    found = replace(place_of(self.geometry(map_name, frame), x + frame.dx, y + frame.dy), map=map_name)
                except (GeometryError, ProfileError) as error:
                    # A layout the module cannot place (a board of another version, a board of unknown
                    # size before another): the point has no name; its pieces are in a place, the map.
                    problem = error if isinstance(error, ProfileError) else _frame_error(self.module, map_name, error)
                    self._unplaced.setdefault((map_name, frame), problem.message)
                    found = Place(map_name)
            self._places[key] = found
        return found

    def unplaced(self, frames: dict[str, Frame]) -> dict[str, str]:
        """Maps of a position whose board layout the module cannot place, and why."""
        return {map_name: why for (map_name, frame), why in self._unplaced.items()
                if frames.get(map_name, Frame(None)) == frame}

    @cached_property
    def hex_board(self) -> bool:
        """Whether the main map is a hex board: then a square cell drawn on it (Ragnarok's
        Endurance track) is a track's box, a place, not a hex of the game."""
        if not _has_map(self.module, self.profile.main_map):
            return False
        return any(g.kind == "hex" for board in self.module.map(self.profile.main_map).boards
                   for g in naming_grids(board.grid))

    def on_board(self, place: Place) -> bool:
        """Whether a place is a hex (or square) of the game: a cell of the main map's board grid."""
        return place.map == self.profile.main_map and place.cell and (place.at is not None or not self.hex_board)

    def location(self, place: Place) -> tuple[str, str | None]:
        """A unit's ``location`` and ``hex`` at a place: on the map only in a cell of the main
        map's board grid (:meth:`on_board`)."""
        if place.map is None:
            return "offmap", None
        if place.map == self.profile.main_map:
            if self.on_board(place):
                return "map", place.name
            return place.name or place.map, None
        return self.profile.location_of_map(place.map), None

    def board_states(self, frames: dict[str, Frame]) -> dict[str, HexState]:
        """The terrain's hexes on the main map's board, as this layout places them."""
        if self.terrain is None:
            return {}
        map_name = self.terrain.map or self.profile.main_map
        frame = frames.get(map_name, Frame(None))
        if frame not in self._boards:
            try:
                self.geometry(map_name, frame)
            except ProfileError as error:         # a layout the module cannot place: no terrain there
                self._unplaced.setdefault((map_name, frame), error.message)
                return {}
            cells = list(board_hexes(self.module, map_name, self.terrain.board, frame.layout))
            self._boards[frame] = hex_states(self.terrain, cells)
        return dict(self._boards[frame])

    # -- whole positions -------------------------------------------------------------------------
    def read(self, save: SavedGame) -> Imported:
        """Read ``save`` into a Game; see the module docstring for the rules."""
        state = _State(self, SaveSource(save), save_frames(save, self.profile),
                       {k: tuple(v) for k, v in save.board_layouts().items()})
        state.refresh(set(state.source.ids()))
        return state.imported(turn=self.turn(save), missions=self.missions(save))

    def log(self, save: SavedGame) -> "LogPosition":
        """A log's position, to be advanced step by step (see :class:`LogPosition`)."""
        return LogPosition(self, save)

    def turn(self, save: SavedGame) -> int | None:
        if self.profile.turn_property is None:
            return None
        value = save.global_properties.get(self.profile.turn_property)
        return int(value) if value is not None and value.strip().lstrip("-").isdigit() else None

    def missions(self, save: SavedGame) -> dict[str, int]:
        found = {}
        for side, prop in self.profile.missions_properties.items():
            value = save.global_properties.get(prop)
            if value is not None and value.strip().isdigit():
                found[side] = int(value)
        return found


class _UnitIndex:
    """Units by one of their fields (the hex a unit on the map is in, the unit it is attached
    to or carried by), kept up to date unit by unit, as the read-only indexes a Game would
    build from every unit when first asked. A replay judges step after step, and building
    them afresh for each step's Game was a fifth of a judged replay. The index a Game got is
    never changed: the entries changed since are copied into a new one."""

    def __init__(self, field_of: Callable[[Unit], str | None]) -> None:
        self.field_of = field_of
        self.members: dict[str, dict[str, Unit]] = {}      # value -> its units, in the order they were set
        self._snapshot: dict[str, list[Unit]] = {}
        self._dirty: set[str] = set()

    def remove(self, unit: Unit) -> None:
        value = self.field_of(unit)
        if value is not None:
            self.members[value].pop(unit.key, None)
            self._dirty.add(value)

    def add(self, unit: Unit) -> None:
        value = self.field_of(unit)
        if value is not None:
            self.members.setdefault(value, {})[unit.key] = unit
            self._dirty.add(value)

    def snapshot(self) -> dict[str, list[Unit]]:
        if self._dirty:
            index = dict(self._snapshot)
            for value in self._dirty:
                here = self.members.get(value)
                if here:
                    index[value] = list(here.values())
                else:
                    index.pop(value, None)
            self._snapshot = index
            self._dirty = set()
        return self._snapshot


class _State:
    """The units, markers and hexes of one position, kept up to date piece by piece."""

    def __init__(self, reader: PositionReader, source: PieceSource, frames: dict[str, Frame],
                 layouts: dict[str, tuple[PlacedBoard, ...]] | None = None) -> None:
        self.reader, self.source, self.frames = reader, source, frames
        self.layouts = layouts or {}
        self.profile = reader.profile
        self.kinds: dict[str, Kind] = {}
        self.key_of: dict[str, str] = {}                 # piece id -> unit key (kept while the piece lives)
        self.piece_of: dict[str, str] = {}               # unit key -> piece id, for the units there are now
        self.facts_of: dict[str, UnitFacts] = {}         # unit piece -> what it says of itself
        self.counts: dict[str, int] = {}                 # table key -> counters numbered so far
        self.keys_taken: set[str] = set()
        self.units: dict[str, Unit] = {}
        self.positions: dict[str, Position] = {}
        self.markers: dict[str, tuple[str, str | None]] = {}       # marker piece -> (name, owner piece)
        self.hex_markers: dict[str, tuple[str, str]] = {}          # hex marker piece -> (name, hex)
        self.unknown: dict[str, Unrecognised] = {}
        # The indexes a Game builds from every unit when first asked, kept up to date here
        # unit by unit (see :class:`_UnitIndex`): the hex of the units on the map, the unit
        # they are attached to, the one carrying them.
        self._by_hex = _UnitIndex(lambda u: u.hex if u.location == "map" else None)
        self._by_attached = _UnitIndex(lambda u: u.attached_to)
        self._by_carrier = _UnitIndex(lambda u: u.carried_by)
        self._indexes = (self._by_hex, self._by_attached, self._by_carrier)
        self._made: dict[str, tuple[Any, ...]] = {}                 # unit key -> what its Unit was made from
        # unit piece -> its texts, where it lies and the statuses its markers gave, when last read:
        # a step re-reads whole stacks, and most of their units have not changed at all.
        self._read_as: dict[str, tuple[Any, ...]] = {}
        self.hexes: dict[str, HexState] = reader.board_states(frames)
        self.whole_board = bool(self.hexes)          # the terrain's board: every hex of the map
        self._hexes_view: MappingProxyType[str, HexState] | None = None    # ``hexes`` as the last Game got them

    def refresh(self, ids: set[str], moved: frozenset[str] = frozenset()) -> None:
        """Read the pieces ``ids`` again (present or gone). Callers give whole stacks: a
        unit's markers are the marker pieces of its own stack. ``moved`` are pieces whose
        only change is where they lie: what they are is not read again."""
        source = self.source
        live: dict[str, Texts] = {}
        for pid in sorted(ids, key=_id_order):
            raw = source.texts(pid)
            if raw is None or _is_holder(raw[0]):
                self._forget(pid)
                continue
            texts = live[pid] = (source.quoting, *raw)
            if pid not in moved or pid not in self.kinds:
                self.kinds[pid] = self.reader.kind(texts, pid)
                self.facts_of.pop(pid, None)
        for pid in live:
            self._number(pid)
        hexes_touched: set[str] = set()
        for pid, texts in live.items():
            kind = self.kinds[pid]
            self.unknown.pop(pid, None)
            if kind.what != "unit" and pid in self.key_of:
                self._read_as.pop(pid, None)
                self._set_unit(self.key_of[pid], None)
                self.piece_of.pop(self.key_of[pid], None)
            if kind.what != "marker":
                self.markers.pop(pid, None)
            if kind.what != "hex_marker" and pid in self.hex_markers:
                hexes_touched.add(self.hex_markers.pop(pid)[1])
            if kind.what == "marker":
                self.markers[pid] = (kind.name or "", self._owner(pid))
                if self.markers[pid][1] is None:
                    self._report(pid, texts, f"{kind.name} marker with no unit in its stack")
            elif kind.what == "hex_marker":
                hexes_touched |= self._hex_marker(pid, texts, kind)
            elif kind.what == "unknown":
                self._report(pid, texts, kind.name or "")
        statuses = self._marker_statuses(live)
        for pid, texts in live.items():
            if self.kinds[pid].what == "unit":
                self._unit(pid, texts, statuses.get(pid, {}))
        for hex_id in hexes_touched:
            self._mark_hex(hex_id)

    # -- pieces ------------------------------------------------------------------------------
    def _forget(self, pid: str) -> None:
        self.facts_of.pop(pid, None)
        self._read_as.pop(pid, None)
        kind = self.kinds.pop(pid, None)
        if kind is None:
            return
        if pid in self.key_of:
            self._set_unit(self.key_of[pid], None)
            self.piece_of.pop(self.key_of[pid], None)
            self.positions.pop(self.key_of[pid], None)
        self.markers.pop(pid, None)
        self.unknown.pop(pid, None)
        if pid in self.hex_markers:
            self._mark_hex(self.hex_markers.pop(pid)[1])

    def _number(self, pid: str) -> None:
        """A unit key for a new unit piece: the table key, then key-2, key-3... in piece-id order."""
        kind = self.kinds[pid]
        if kind.what != "unit" or pid in self.key_of:
            return
        assert kind.entry is not None
        base = kind.entry.key
        count = self.counts.get(base, 0) + 1
        key = base if count == 1 else f"{base}-{count}"
        while key in self.keys_taken:
            count += 1
            key = f"{base}-{count}"
        self.counts[base] = count
        self.key_of[pid] = key
        self.keys_taken.add(key)

    def _report(self, pid: str, texts: Texts, reason: str) -> None:
        place = self.reader.place(self.source.position(pid), self.frames)
        self.unknown[pid] = Unrecognised(pid, self.reader.piece(texts, pid).name, place.map, place.name, reason)

    def _owner(self, marker_id: str) -> str | None:
        """The unit piece a marker applies to: nearest below it in its stack, else nearest above."""
        holder = self.source.holder(marker_id)
        if holder is None:
            return None
        members = self.source.members(holder)
        index = members.index(marker_id)

        def is_unit(pid: str) -> bool:
            kind = self.kinds.get(pid)
            if kind is None:
                raw = self.source.texts(pid)
                if raw is None or _is_holder(raw[0]):
                    return False
                kind = self.kinds[pid] = self.reader.kind((self.source.quoting, *raw), pid)
            return kind.what == "unit"
        below = [m for m in reversed(members[:index]) if is_unit(m)]
        above = [m for m in members[index + 1:] if is_unit(m)]
        return (below or above or [None])[0]

    def _marker_statuses(self, live: dict[str, Texts]) -> dict[str, dict[str, Any]]:
        """Status fields set by marker pieces, per unit piece, for the units being read again."""
        statuses: dict[str, dict[str, Any]] = {}
        owners = {pid for pid in live if self.kinds[pid].what == "unit"}
        for pid in sorted(self.markers, key=_id_order):
            name, owner = self.markers[pid]
            if owner is None or owner not in owners:
                continue
            field_name, value = _status_field(name)
            statuses.setdefault(owner, {})[field_name] = value
        return statuses

    def _hex_marker(self, pid: str, texts: Texts, kind: Kind) -> set[str]:
        touched = {self.hex_markers.pop(pid)[1]} if pid in self.hex_markers else set()
        place = self.reader.place(self.source.position(pid), self.frames)
        if not self.reader.on_board(place) or place.name is None:
            self._report(pid, texts, f"{kind.name} marker off the main map's hexes")
            return touched
        self.hex_markers[pid] = (kind.name or "", place.name)
        self._add_hex(place.name, place.at)
        return touched | {place.name}

    def _mark_hex(self, hex_id: str) -> None:
        names = frozenset(name for name, where in self.hex_markers.values() if where == hex_id)
        state = self.hexes.get(hex_id)
        if state is not None and state.markers != names:
            self.hexes[hex_id] = state.with_markers(names)
            self._hexes_view = None

    def _add_hex(self, hex_id: str, at: Hex | None) -> None:
        """A hex of the board not seen before (no terrain map lists the board's hexes)."""
        if hex_id not in self.hexes:
            self.hexes[hex_id] = HexState(hex_id, at=at)
            self._hexes_view = None

    def _unit(self, pid: str, texts: Texts, status: dict[str, Any]) -> None:
        key = self.key_of[pid]
        raw = self.source.position(pid)
        read_as = (texts, raw, status)
        if self._read_as.get(pid) == read_as and self.piece_of.get(key) == pid and key in self.units:
            return                           # the same texts, in the same place, with the same markers
        self._read_as[pid] = read_as
        facts = self.facts_of.get(pid)
        if facts is None:
            facts = self.facts_of[pid] = self.reader.facts(texts, pid, self.kinds[pid])
        place = self.reader.place(raw, self.frames)
        location, hex_name = self.reader.location(place)
        self.positions[key] = raw
        self.piece_of[key] = pid
        statuses = {**status, **facts.statuses}
        made = (facts, hex_name, location, statuses)
        if key not in self.units or self._made.get(key) != made:
            # A step re-reads whole stacks: most of their units come out as they were, and are kept.
            self._set_unit(key, Unit(key=key, type=facts.type, side=facts.side, nation=facts.nation,
                                     formation=facts.formation, hex=hex_name, strength=facts.strength,
                                     status=Status(**statuses), location=location, **facts.command))
            self._made[key] = made
        if hex_name is not None:
            self._add_hex(hex_name, place.at)

    def _set_unit(self, key: str, unit: Unit | None) -> None:
        """Put a unit in place (None: it is gone), keeping the unit indexes up to date."""
        if unit is None:
            self._made.pop(key, None)
        old = self.units.pop(key, None)
        if old is not None:
            for index in self._indexes:
                index.remove(old)
        if unit is not None:
            self.units[key] = unit           # last, as in each index: both keep one order
            for index in self._indexes:
                index.add(unit)

    def stack(self, hex_id: str) -> list[Unit]:
        """The units on the map in a hex, as ``Game.stack`` orders them."""
        return sorted(self._by_hex.members.get(hex_id, {}).values(), key=lambda u: (u.stack_order or 99, u.key))

    # -- results -----------------------------------------------------------------------------
    def game(self, turn: int | None = None, missions: dict[str, int] | None = None, *, ordered: bool = True) -> Game:
        """The position as a Game; ``ordered`` sorts units and hexes by key (a log's replay
        takes them as they come: only the result of an import is written out)."""
        if ordered:
            units, hexes = dict(sorted(self.units.items())), MappingProxyType(dict(sorted(self.hexes.items())))
        else:
            units = dict(self.units)
            if self._hexes_view is None:   # the board changes seldom: its Games share one view
                self._hexes_view = MappingProxyType(dict(self.hexes))
            hexes = self._hexes_view
        game = Game(units=MappingProxyType(units), hexes=hexes, turn=turn, whole_board=self.whole_board,
                    missions_left=MappingProxyType(missions or {}),
                    formations=MappingProxyType(dict(self.profile.formations)))
        game.__dict__["_on_map_by_hex"] = self._by_hex.snapshot()
        if not ordered:                      # lists in the order of ``units``, as the Game's own
            game.__dict__["_attached_by_key"] = self._by_attached.snapshot()
            game.__dict__["_carried_by_key"] = self._by_carrier.snapshot()
        return game

    def imported(self, turn: int | None = None, missions: dict[str, int] | None = None) -> Imported:
        pieces = {key: pid for pid, key in sorted(self.key_of.items(), key=lambda item: _id_order(item[0]))
                  if key in self.units}
        table_keys = {key: self.kinds[pid].entry.key for key, pid in pieces.items()}  # type: ignore[union-attr]
        unit_markers: dict[str, list[tuple[str, str]]] = {}
        for pid in sorted(self.markers, key=_id_order):
            name, owner = self.markers[pid]
            if owner is not None and owner in self.key_of:
                unit_markers.setdefault(self.key_of[owner], []).append((name, pid))
        hex_markers: dict[str, list[tuple[str, str]]] = {}
        for pid in sorted(self.hex_markers, key=_id_order):
            name, hex_id = self.hex_markers[pid]
            hex_markers.setdefault(hex_id, []).append((name, pid))
        unrecognised = [self.unknown[pid] for pid in sorted(self.unknown, key=_id_order)]
        positions = {key: self.positions[key] for key in sorted(self.units) if key in self.positions}
        return Imported(self.game(turn, missions), pieces, table_keys, unit_markers, hex_markers, unrecognised,
                        positions, self.layouts, self.reader.unplaced(self.frames))


def _status_field(name: str) -> tuple[str, Any]:
    """A status name of a profile (``disrupted``, ``ammo:depleted_1``) as a Status field and value."""
    return ("ammo", name.split(":", 1)[1]) if name.startswith("ammo:") else (name, True)


def _own_statuses(profile: Profile, piece_id: str, piece: Piece, rule: UnitRule) -> dict[str, Any]:
    """Status fields the unit's own piece shows: Layer levels (``status_layers``) and Marker or
    Dynamic Property values (``status_properties``)."""
    found: dict[str, Any] = {}
    for name, (layer_name, level) in rule.status_layers.items():
        layer = piece.layer(layer_name)
        if layer is None:
            raise ProfileError(f"units[{rule.index}].status_layers.{name}: the piece has no layer "
                               f"{layer_name!r}", file=profile.file, piece=piece_id)
        if layer.active and layer.current_level == level:
            field_name, value = _status_field(name)
            found[field_name] = value
    if rule.status_properties:
        props = piece.properties()
        for name, shown in rule.status_properties.items():
            if props.get(shown.property) == shown.value:      # a piece without the property does not show it
                field_name, value = _status_field(name)
                found[field_name] = value
    return found


# -- a log, step by step -----------------------------------------------------------------------

@dataclass(frozen=True)
class StepChange:
    """What one log step changed: the units read again (their keys before and after), the units
    that appeared or went, and the hexes whose markers changed."""

    before: Game
    after: Game
    changed: frozenset[str]
    added: frozenset[str]
    removed: frozenset[str]


class LogPosition:
    """A log's position kept up to date step by step: each step's commands are applied to one
    replay, and only the pieces they touch (with the stacks those pieces leave or join) are
    read again through the profile."""

    def __init__(self, reader: PositionReader, save: SavedGame) -> None:
        self.reader = reader
        self.replay = Replay(save)
        self.state = _State(reader, ReplaySource(self.replay), save_frames(save, reader.profile))
        self.state.refresh(set(self.state.source.ids()))
        self._turn, self._missions = reader.turn(save), reader.missions(save)
        self.start = self.state.imported(self._turn, self._missions)
        self.game = self.start.game

    @property
    def steps(self) -> list[Step]:
        return self.replay.steps

    @property
    def pieces(self) -> dict[str, str]:
        """Unit key -> piece id, now (kept up to date by each step)."""
        return self.state.piece_of

    def stack(self, hex_id: str) -> list[Unit]:
        """The units on the map in a hex, now (``Game.stack`` without looking at every unit)."""
        return self.state.stack(hex_id)

    def _stacks_of(self, ids: set[str]) -> set[str]:
        """The pieces ``ids`` with every member of the stacks or decks they lie in or are."""
        replay = self.replay
        found = set(ids)
        for pid in ids:
            holder = replay.stack_of(pid)
            if holder is not None:
                found.update(replay.members(holder))
            found.update(replay.members(pid))
        return found

    def apply(self, step: Step) -> StepChange:
        """Execute one step and read again what it touched (with the stacks they leave or join)."""
        touched = {c.id for c in step.commands if isinstance(c, (AddPiece, ChangePiece, MovePiece, RemovePiece))}
        before = self.game
        if not touched:
            self.replay.apply(step)
            return StepChange(before, before, frozenset(), frozenset(), frozenset())
        scope = self._stacks_of(touched)
        replay = self.replay
        moves = {m.id for m in step.moves}
        moved = moves | {member for pid in moves for member in replay.members(pid)}
        moved -= {c.id for c in step.commands if isinstance(c, (AddPiece, ChangePiece, RemovePiece))}
        replay.apply(step)
        scope |= self._stacks_of(touched)
        state = self.state
        keys = {state.key_of[pid] for pid in scope if pid in state.key_of}
        old = {key: state.units.get(key) for key in keys}
        hex_marked = {pid: state.hex_markers.get(pid) for pid in scope}
        state.refresh(scope, frozenset(moved))
        keys |= {state.key_of[pid] for pid in scope if pid in state.key_of}
        changed = frozenset(k for k in keys if old.get(k) is not None and k in state.units
                            and state.units[k] != old[k])
        added = frozenset(k for k in keys if old.get(k) is None and k in state.units)
        removed = frozenset(k for k in keys if old.get(k) is not None and k not in state.units)
        if changed or added or removed or any(state.hex_markers.get(pid) != mark for pid, mark in hex_marked.items()):
            self.game = state.game(self._turn, self._missions, ordered=False)
        return StepChange(before, self.game, changed, added, removed)


@dataclass(frozen=True)
class Inputs:
    """What a profile reads positions with: the profile, its unit table and terrain, and their files."""

    profile: Profile
    table: UnitTable
    terrain: TerrainMap | None
    files: dict[str, str]            # role (profile, units, terrain) -> file

    def reader(self, module: Module) -> PositionReader:
        return PositionReader(module, self.profile, self.table, self.terrain)


def read_inputs(profile_path: str | os.PathLike[str], units: str | os.PathLike[str] | None = None,
                terrain: str | os.PathLike[str] | None = None) -> Inputs:
    """Read a profile, and the unit table and terrain it names unless ``units`` / ``terrain`` are given."""
    profile = read_profile(profile_path)
    units_file = units or profile.units_file
    if units_file is None:
        raise ProfileError("no unit table: give --units or name units_file in the profile", file=str(profile_path))
    terrain_file = terrain or profile.terrain_file
    table = read_unit_table(units_file, profile.unit_table)
    files = {"profile": str(profile_path), "units": str(units_file)}
    if terrain_file:
        files["terrain"] = str(terrain_file)
    board = read_terrain(terrain_file) if terrain_file else None
    if board is not None and profile.tec_file:
        files["tec"] = str(profile.tec_file)
        board.effects = read_tec(profile.tec_file)
    return Inputs(profile, table, board, files)


def import_save(save: SavedGame, module: Module, profile: Profile, table: UnitTable,
                terrain: TerrainMap | None = None) -> Imported:
    """Read ``save`` into a Game through ``profile``; see the module docstring for the rules."""
    return PositionReader(module, profile, table, terrain).read(save)


__all__ = ["Frame", "Imported", "Inputs", "LogPosition", "read_inputs", "Place", "PositionReader", "ReplaySource", "SaveSource", "StepChange",
           "Unrecognised", "import_save", "map_geometry", "name_point", "place_of", "point_name", "save_frames"]
