"""Import: a VASSAL save, read through a module profile, becomes a canonical :class:`~referee.model.Game`.

Every unit keeps the id of the piece it came from (``Imported.pieces``), so events can
be written back onto the same save. Unit keys are the unit-table key, with ``-2``,
``-3``... for further counters of the same key in piece-id order: they are readable in
an actions file and survive moves and re-saves.

Markers on a unit are separate pieces in its stack; a marker applies to the nearest
unit below it, or, at the bottom of a stack, to the nearest one above (the way players
put a Disrupted marker on top of the unit it concerns). Pieces the profile does not
recognise are reported in ``Imported.unrecognised``, never silently dropped; a piece
the profile claims but cannot read (no table entry for its key) is a
:class:`~converter.errors.ProfileError` naming the profile path and the piece id.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from converter.errors import GeometryError, ProfileError
from converter.profile import Profile, UnitRule, prototype_texts, seen
from converter.terrain import TerrainMap, board_hexes, hex_states
from converter.unit_table import TableEntry, UnitTable
from converter.vassal.grids.placement import PlacedBoard
from converter.vassal.module import Module
from converter.vassal.pieces import Piece
from converter.vassal.save import SavedGame
from referee.hexes import Hex
from referee.model import Game, HexState, Status, Unit


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


@dataclass
class Imported:
    """The result of an import: the Game and its links back to the save."""

    game: Game
    pieces: dict[str, str]                         # unit key -> piece id
    table_keys: dict[str, str]                     # unit key -> unit-table key
    unit_markers: dict[str, list[tuple[str, str]]]  # unit key -> [(marker name, piece id)], bottom first
    hex_markers: dict[str, list[tuple[str, str]]]   # hex -> [(marker name, piece id)]
    unrecognised: list[Unrecognised] = field(default_factory=list)

    def piece_of(self, unit_key: str) -> str:
        try:
            return self.pieces[unit_key]
        except KeyError:
            raise ProfileError(f"unit {unit_key!r} has no piece in the save") from None


def _id_order(piece_id: str) -> tuple[int, int, str]:
    return (0, int(piece_id), "") if piece_id.isdigit() else (1, 0, piece_id)


def _hex_of(module: Module, map_name: str, x: int, y: int,
            layout: list[PlacedBoard] | None) -> tuple[str | None, Hex | None]:
    """A map of the save that the module lacks (an older version's) names no location."""
    if not any(map_name in (m.name, m.id) for m in module.maps):
        return None, None
    try:
        geometry = module.map(map_name).geometry(layout)
        name = geometry.location_name(x, y)
    except GeometryError as error:
        named = f"map {map_name!r}"
        where = "" if error.message.startswith(named) else f"{named}: "
        raise ProfileError(f"{where}{error.message} (a board of an older module version? "
                           "see board_aliases in the profile)", file=module.file) from None
    placement = geometry.board_at(x, y)
    at = None
    grid = placement.board.grid if placement is not None else None
    if grid is not None and hasattr(grid, "hex_at"):
        q, r, _ = grid.hex_at(*placement.local(x, y)).cube()
        at = Hex(q, r)
    return name, at


@dataclass(frozen=True)
class Frame:
    """How a map of a save lies on the module: its board layout and the shift of an aliased board."""

    layout: list[PlacedBoard] | None
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
            frames[map_id] = Frame([PlacedBoard(board)], dx, dy)
        else:
            frames[map_id] = Frame(layout)
    return frames


def point_name(module: Module, map_name: str, x: int, y: int,
               frames: dict[str, Frame]) -> tuple[str | None, Hex | None]:
    """Location name and cube coordinates of a save's map point (None where no grid names it)."""
    frame = frames.get(map_name, Frame(None))
    return _hex_of(module, map_name, x + frame.dx, y + frame.dy, frame.layout)


def name_point(module: Module, map_name: str, name: str, frames: dict[str, Frame]) -> tuple[int, int]:
    """The save's pixel for a location name of a map (inverse of :func:`point_name`)."""
    frame = frames.get(map_name, Frame(None))
    x, y = module.map(map_name).geometry(frame.layout).locate(name)
    return x - frame.dx, y - frame.dy


class _Reader:
    """One import run: classify the pieces, then build units, markers and hexes."""

    def __init__(self, save: SavedGame, module: Module, profile: Profile, table: UnitTable,
                 terrain: TerrainMap | None) -> None:
        self.save, self.module, self.profile, self.table, self.terrain = save, module, profile, table, terrain
        self.frames = save_frames(save, profile)
        self.unrecognised: list[Unrecognised] = []
        self.holders = {**save.stacks, **save.decks}
        self.prototypes = prototype_texts(module)
        self.seen: dict[str, Piece] = {}

    def piece(self, piece_id: str) -> Piece:
        """The save's piece as the profile reads it (through the module's prototypes)."""
        if piece_id not in self.seen:
            self.seen[piece_id] = seen(self.save.piece(piece_id), self.prototypes)
        return self.seen[piece_id]

    def where(self, piece_id: str) -> tuple[str | None, str | None, Hex | None]:
        map_name, x, y = self.save.position(piece_id)
        if map_name is None:
            return None, None, None
        name, at = point_name(self.module, map_name, x, y, self.frames)
        return map_name, name, at

    def report(self, piece_id: str, piece: Piece, reason: str) -> None:
        map_name, name, _ = self.where(piece_id)
        self.unrecognised.append(Unrecognised(piece_id, piece.name, map_name, name, reason))

    def entry(self, piece_id: str, piece: Piece) -> tuple[UnitRule, TableEntry] | None:
        for rule in self.profile.units:
            if not rule.match.matches(piece):
                continue
            key = rule.type.read(piece, rule)
            if key is None:
                raise ProfileError(f"{rule.type.path}: the piece gives no unit-table key", file=self.profile.file,
                                   piece=piece_id)
            entry = self.table.get(key)
            if entry is None:
                raise ProfileError(f"{rule.type.path}: unit-table key {key!r} of {piece.name!r} is not in the "
                                   f"unit table {self.table.name!r}", file=self.profile.file, piece=piece_id)
            if rule.accepts(entry):
                return rule, entry
        return None

    def run(self) -> Imported:
        units, marker_of, hex_marker_of = self.classify()
        keys = self.keys(units)
        found_of = {piece_id: (rule, entry) for piece_id, rule, entry in units}
        statuses, unit_markers = self.statuses(marker_of, set(found_of), {pid: key for key, pid in keys.items()})
        built: dict[str, Unit] = {}
        occupied: dict[str, HexState] = {}
        for key, piece_id in keys.items():
            rule, entry = found_of[piece_id]
            built[key], hex_state = self.unit(key, piece_id, rule, entry, statuses.get(key, {}))
            if hex_state is not None:
                occupied.setdefault(hex_state.id, hex_state)
        hexes, hex_markers = self.hexes(occupied, hex_marker_of)
        game = Game(units=MappingProxyType(dict(sorted(built.items()))), hexes=MappingProxyType(hexes),
                    turn=self.turn(), missions_left=MappingProxyType(self.missions()))
        table_keys = {key: found_of[pid][1].key for key, pid in keys.items()}
        return Imported(game, dict(keys), table_keys, unit_markers, hex_markers, self.unrecognised)

    def classify(self) -> tuple[list[tuple[str, UnitRule, TableEntry]], dict[str, str], dict[str, str]]:
        """Units (piece id, rule, table entry), unit markers and hex markers by piece id; the rest reported."""
        units: list[tuple[str, UnitRule, TableEntry]] = []
        marker_of: dict[str, str] = {}
        hex_marker_of: dict[str, str] = {}
        for piece_id in sorted(self.save.pieces, key=_id_order):
            entry = self.save.pieces[piece_id]
            if entry.is_stack or entry.is_deck:
                continue
            piece = self.piece(piece_id)
            found = self.entry(piece_id, piece)
            if found is not None:
                units.append((piece_id, *found))
            elif (name := self.profile.unit_marker(piece)) is not None:
                marker_of[piece_id] = name
            elif (name := self.profile.hex_marker(piece)) is not None:
                hex_marker_of[piece_id] = name
            elif not self.profile.ignored(piece):
                self.report(piece_id, piece, "no unit, marker or ignore rule of the profile matches")
        return units, marker_of, hex_marker_of

    def hexes(self, occupied: dict[str, HexState], hex_marker_of: dict[str, str]
              ) -> tuple[dict[str, HexState], dict[str, list[tuple[str, str]]]]:
        """The board's hexes (with terrain when given), occupied hexes, and the hex markers on them."""
        hex_markers: dict[str, list[tuple[str, str]]] = {}
        states = self.board_states()
        for hex_name, state in occupied.items():
            states.setdefault(hex_name, state)
        for piece_id, name in hex_marker_of.items():
            map_name, hex_name, at = self.where(piece_id)
            if map_name != self.profile.main_map or hex_name is None:
                self.report(piece_id, self.piece(piece_id), f"{name} marker off the main map's hexes")
                continue
            hex_markers.setdefault(hex_name, []).append((name, piece_id))
            state = states.setdefault(hex_name, HexState(hex_name, at=at))
            states[hex_name] = replace(state, markers=state.markers | {name})
        return dict(sorted(states.items())), hex_markers

    def keys(self, units: list[tuple[str, UnitRule, TableEntry]]) -> dict[str, str]:
        """Unit key -> piece id: the table key, then key-2, key-3... in piece-id order."""
        counts: dict[str, int] = {}
        keys: dict[str, str] = {}
        for piece_id, _, entry in units:
            counts[entry.key] = counts.get(entry.key, 0) + 1
            key = entry.key if counts[entry.key] == 1 else f"{entry.key}-{counts[entry.key]}"
            while key in keys:
                counts[entry.key] += 1
                key = f"{entry.key}-{counts[entry.key]}"
            keys[key] = piece_id
        return keys

    def statuses(self, marker_of: dict[str, str], unit_ids: set[str],
                 by_piece: dict[str, str]) -> tuple[dict[str, dict[str, Any]], dict[str, list[tuple[str, str]]]]:
        """Status fields set by marker pieces, per unit key, and the marker pieces of each unit."""
        statuses: dict[str, dict[str, Any]] = {}
        markers: dict[str, list[tuple[str, str]]] = {}
        for piece_id, name in marker_of.items():
            unit_id = self.owner(piece_id, unit_ids)
            if unit_id is None:
                self.report(piece_id, self.piece(piece_id), f"{name} marker with no unit in its stack")
                continue
            key = by_piece[unit_id]
            field_name, value = ("ammo", name.split(":", 1)[1]) if name.startswith("ammo:") else (name, True)
            statuses.setdefault(key, {})[field_name] = value
            markers.setdefault(key, []).append((name, piece_id))
        return statuses, markers

    def owner(self, marker_id: str, unit_ids: set[str]) -> str | None:
        """The unit a marker piece applies to: nearest below it in its stack, else nearest above."""
        stack = self.save.stack_of(marker_id)
        if stack is None:
            return None
        members = self.holders.get(stack, [])
        index = members.index(marker_id)
        below = [m for m in reversed(members[:index]) if m in unit_ids]
        above = [m for m in members[index + 1:] if m in unit_ids]
        return (below or above or [None])[0]

    def unit(self, key: str, piece_id: str, rule: UnitRule, entry: TableEntry,
             status: dict[str, Any]) -> tuple[Unit, HexState | None]:
        piece = self.piece(piece_id)

        def value(name: str) -> str | None:
            read = getattr(rule, name)
            return read.read(piece, rule, entry) if read is not None else getattr(entry, name)
        strength = None
        if rule.reduced is not None:
            try:
                strength = "reduced" if rule.reduced.shown(piece) else "full"
            except ProfileError as error:
                raise error.located(file=self.profile.file, piece=piece_id)
        elif entry.type.steps is not None:
            strength = "full"
        status = {**status, **self.layer_statuses(piece_id, piece, rule)}
        map_name, hex_name, at = self.where(piece_id)
        location = self.profile.location_of_map(map_name)
        unit = Unit(key=key, type=entry.type, side=value("side"), nation=value("nation"),
                    formation=value("formation"), hex=hex_name if location == "map" else None,
                    strength=strength, status=Status(**status), location=location)
        hex_state = HexState(hex_name, at=at) if location == "map" and hex_name is not None else None
        return unit, hex_state

    def layer_statuses(self, piece_id: str, piece: Piece, rule: UnitRule) -> dict[str, Any]:
        """Status fields shown by layers of the unit's own piece (the rule's ``status_layers``)."""
        found: dict[str, Any] = {}
        for name, (layer_name, level) in rule.status_layers.items():
            layer = piece.layer(layer_name)
            if layer is None:
                raise ProfileError(f"units[{rule.index}].status_layers.{name}: the piece has no layer "
                                   f"{layer_name!r}", file=self.profile.file, piece=piece_id)
            if layer.active and layer.current_level == level:
                field_name, value = ("ammo", name.split(":", 1)[1]) if name.startswith("ammo:") else (name, True)
                found[field_name] = value
        return found

    def board_states(self) -> dict[str, HexState]:
        if self.terrain is None:
            return {}
        map_name = self.terrain.map or self.profile.main_map
        frame = self.frames.get(map_name, Frame(None))
        cells = board_hexes(self.module, map_name, self.terrain.board, frame.layout)
        return hex_states(self.terrain, cells)

    def turn(self) -> int | None:
        if self.profile.turn_property is None:
            return None
        value = self.save.global_properties.get(self.profile.turn_property)
        return int(value) if value is not None and value.strip().lstrip("-").isdigit() else None

    def missions(self) -> dict[str, int]:
        found = {}
        for side, prop in self.profile.missions_properties.items():
            value = self.save.global_properties.get(prop)
            if value is not None and value.strip().isdigit():
                found[side] = int(value)
        return found


def import_save(save: SavedGame, module: Module, profile: Profile, table: UnitTable,
                terrain: TerrainMap | None = None) -> Imported:
    """Read ``save`` into a Game through ``profile``; see the module docstring for the rules."""
    return _Reader(save, module, profile, table, terrain).run()


__all__ = ["Frame", "Imported", "Unrecognised", "import_save", "name_point", "point_name", "save_frames"]
