"""Writing positions into VASSAL saves: referee events onto an existing save, or a Game into a new one.

Events are translated through the module profile into the codec's surgical edits
(:class:`~converter.vassal.save.SavedGame`): a Disrupted marker is a copy of the
module's marker PieceSlot joined to the unit's stack, a reduction sets the Step layer,
an elimination moves the counter (with its markers) to the Destroyed map or removes it,
and the referee's ``MarkerPlaced(hex, "wrecks")`` adds the Wreck piece (the rules
place one only for vehicles). Every piece the events do not touch keeps its AddPiece
command byte for byte.
"""
from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType
from typing import Any, Iterable, Mapping, Sequence

from converter.errors import GeometryError, ProfileError, WawkitError
from converter.importer import Imported, PositionReader, name_point, save_frames
from converter.palette import Palette, placed_texts
from converter.piece_state import CounterState, counter_states, restored
from converter.profile import FLAG_MARKERS, Profile, Selector, StatusProperty, UnitRule, prototype_texts, seen
from converter.scenario import Scenario
from converter.unit_table import UnitTable
from converter.vassal.container import Container, Entry
from converter.vassal.grids.placement import PlacedBoard
from converter.vassal.metadata import parse_metadata
from converter.vassal.module import Module, PieceSlot
from converter.vassal.obfuscation import VCSK, Obfuscation
from converter.vassal.save import SavedGame
from converter.vassal.sequence import join
from referee.events import (MissionsSpent, Event, MarkerFlipped, MarkerPlaced, MarkerRemoved, PassengerLoaded,
                            PassengerUnloaded, StatusChanged, UnitDisrupted, UnitAttached, UnitEliminated, UnitMoved,
                            UnitPlaced, UnitRallied, UnitReduced, UnitRemoved, UnitRestored)
from referee.diff import NoEvent
from referee.diff import events_between as diff_events
from referee.events import apply as apply_event
from referee.events import STATUS_NAMES, describe
from referee.model import Game, Status, Unit

ESC = "\x1b"
#: dateSaved of files written by wawkit: fixed, so that the same Game gives the same bytes.
DATE_SAVED = 1767225600000


def _savedata(module: Module) -> bytes:
    """The ``savedata`` entry VASSAL 3.x writes beside ``savedGame``."""
    from xml.sax.saxutils import escape
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<data version="1">\n'
        f"  <version>{escape(module.version)}</version>\n  <extra1/>\n  <extra2/>\n"
        f"  <VassalVersion>{escape(module.vassal_version or '3.7.9')}</VassalVersion>\n"
        f"  <dateSaved>{DATE_SAVED}</dateSaved>\n  <description/>\n"
        f"  <name>{escape(module.name)}</name>\n</data>\n").encode("utf-8")


def empty_save(module: Module, *, key: int = 0x5A, clock_start: int = DATE_SAVED,
               layouts: Mapping[str, Sequence[PlacedBoard]] | None = None) -> SavedGame:
    """A save of ``module`` with its maps' default boards (or the ``layouts`` given, by map
    id: those of the save a scenario came from), module global properties and no pieces.

    The obfuscation key and the piece-id clock are fixed so that the same position
    always gives the same file.
    """
    chosen: dict[str, Sequence[PlacedBoard]] = {m.id: m.default_layout for m in module.maps if m.default_layout}
    for map_id, layout in (layouts or {}).items():
        known = next((m.id for m in module.maps if map_id in (m.id, m.name)), map_id)
        chosen[known] = layout
    restores = []
    for map_id, layout in chosen.items():
        boards = []
        for placed in layout:
            name = join([placed.name, "rev"], "/") if placed.reversed else placed.name
            boards += [name, str(placed.column), str(placed.row)]
        restores.append(f"{map_id}BoardPicker\t" + "\t".join(boards))
    for prop in module.global_properties:
        if prop.container == "Module":
            restores.append("GlobalProperty\t" + join(["", prop.name, prop.initial_value, "Module"], ";"))
    text = ESC.join(["begin_save", "", *restores, "end_save"])
    savedata = _savedata(module)
    entries = [Entry("savedGame", b""), Entry("savedata", savedata)]
    container = Container(entries, text.encode("utf-8"), Obfuscation(VCSK, key),
                          {"savedata": parse_metadata(savedata, "savedata")})
    counter = iter(range(clock_start, clock_start + 10**9))
    return SavedGame(container, clock=lambda: next(counter))


# -- events onto a save ----------------------------------------------------------------------

class ResultNotWritable(ProfileError):
    """A result of the referee that the profile has no way to show in a save (no marker piece,
    Layer level or property for a status; no reduced side)."""


class _Writer:
    """Applies referee events to a save through a profile, keeping ``imported`` in step."""

    def __init__(self, save: SavedGame, module: Module, profile: Profile, imported: Imported) -> None:
        self.save, self.module, self.profile = save, module, profile
        self.prototypes = prototype_texts(module)
        self.imported = imported
        self.pieces = dict(imported.pieces)
        self.unit_markers = {k: list(v) for k, v in imported.unit_markers.items()}
        self.hex_markers = {k: list(v) for k, v in imported.hex_markers.items()}
        self.game = imported.game
        self.frames = save_frames(save, profile)
        self.removed: set[str] = set()          # units whose piece left the save
        self._spots: dict[tuple[str | None, int, int], str] | None = None
        self._holding: dict[str, tuple[int, int]] = {}

    # -- helpers ---------------------------------------------------------------------
    def slot_for(self, selector: Selector, what: str) -> PieceSlot:
        """The module's PieceSlot whose piece the selector (without its layer level) matches."""
        for slot in self.module.piece_slots:
            if selector.base.matches(seen(slot.piece(), self.prototypes)):
                return slot
        raise ProfileError(f"{selector.path} names the {what} marker, but no PieceSlot of the module is such a "
                           "piece to copy", file=self.profile.file)

    def unit_piece(self, key: str) -> str:
        try:
            return self.pieces[key]
        except KeyError:
            raise ProfileError(f"unit {key!r} has no piece in the save", file=self.save.path) from None

    def hex_point(self, hex_name: str) -> tuple[int, int]:
        return name_point(self.module, self.profile.main_map, hex_name, self.frames)

    def add_marker(self, selector: Selector, what: str, map_name: str | None, x: int, y: int,
                   join: str | None, index: int | None) -> str:
        type_text, state_text = placed_texts(self.module, self.slot_for(selector, what))
        piece_id = self.save.add_piece(type_text, map_name, x, y, state_text=state_text, join=join, index=index)
        if selector.layer is not None and selector.level is not None:
            self.save.set_layer(piece_id, selector.layer, selector.level)
        self._placed(piece_id)
        return piece_id

    def _shown_by(self, key: str, name: str) -> tuple[str, Any] | None:
        """How the profile shows status ``name`` on unit ``key``: a Layer level of its piece, a
        property value of its piece, or a marker piece; None when nothing does."""
        rule = self._rule(key)
        if name in rule.status_layers:
            return "layer", rule.status_layers[name]
        if name in rule.status_properties:
            return "property", rule.status_properties[name]
        if name in self.profile.unit_markers:
            return "marker", self.profile.unit_markers[name]
        return None

    def add_unit_marker(self, key: str, name: str) -> None:
        """Show a status on a unit: its Layer level, its property value, or a marker piece copied
        from its PieceSlot right above the unit."""
        shown = self._shown_by(key, name)
        unit_id = self.unit_piece(key)
        if shown is None:
            rule = self._rule(key)
            shown_as = STATUS_NAMES.get(name, name) if not name.startswith("ammo:") else f"ammo {name[5:]}"
            raise ProfileError(f"nothing in the profile shows {shown_as}: no marker piece (unit_markers.{name}), "
                               f"Layer level (units[{rule.index}].status_layers) or Dynamic Property "
                               f"(units[{rule.index}].status_properties)", file=self.profile.file)
        how, what = shown
        if how == "layer":
            self.save.set_layer(unit_id, *what)
            return
        if how == "property":
            self._set_status_property(unit_id, what, on=True)
            return
        map_name, x, y = self.save.position(unit_id)
        stack = self.save.stack_of(unit_id)
        index = self.save.stacks[stack].index(unit_id) + 1 if stack is not None else None
        marker_id = self.add_marker(what, name, map_name, x, y, unit_id, index)
        self.unit_markers.setdefault(key, []).append((name, marker_id))

    def _set_status_property(self, unit_id: str, shown: StatusProperty, on: bool) -> None:
        try:
            self.save.set_property(unit_id, shown.property, shown.value if on else shown.off)
        except WawkitError:
            raise ProfileError(f"the piece has no Marker or Dynamic Property {shown.property!r} to show the status",
                               file=self.profile.file, piece=unit_id) from None

    def remove_unit_marker(self, key: str, name: str) -> None:
        shown = self._shown_by(key, name)
        unit_id = self.unit_piece(key)
        if shown is not None and shown[0] == "layer":
            layer_name, level = shown[1]
            layer = self.save.piece(unit_id).layer(layer_name)
            if layer is not None and layer.active and layer.current_level == level:
                self.save.set_layer(unit_id, layer_name, -level)
            return
        if shown is not None and shown[0] == "property":
            if self.save.piece(unit_id).properties().get(shown[1].property) == shown[1].value:
                self._set_status_property(unit_id, shown[1], on=False)
            return
        for entry in [e for e in self.unit_markers.get(key, []) if e[0] == name]:
            self.save.remove_piece(entry[1])
            self.unit_markers[key].remove(entry)

    def move_unit(self, key: str, map_name: str, x: int, y: int) -> None:
        """Move a unit and the markers it carries, in their order, onto (x, y) of ``map_name``."""
        unit_id = self.unit_piece(key)
        carried = [unit_id] + [pid for _, pid in self.unit_markers.get(key, [])]
        target = self._stack_at(map_name, x, y, exclude=set(carried))
        for piece_id in carried:
            if target is None:
                self.save.move(piece_id, map_name, x, y)
                target = piece_id
            else:
                self.save.move(piece_id, map_name, x, y, join=target)
        self._placed(unit_id)

    def _index(self) -> dict[tuple[str | None, int, int], str]:
        """(map, x, y) -> the stack or loose piece lying there (built once, kept up to date by the writer)."""
        if self._spots is None:
            self._spots = {}
            for piece_id, entry in self.save.pieces.items():
                if not entry.is_deck and self.save.stack_of(piece_id) is None:
                    self._spots.setdefault(self.save.position(piece_id), piece_id)
        return self._spots

    def _placed(self, piece_id: str) -> None:
        holder = self.save.stack_of(piece_id) or piece_id
        self._index()[self.save.position(holder)] = holder

    def _stack_at(self, map_name: str, x: int, y: int, exclude: set[str]) -> str | None:
        """The stack or loose piece already lying at exactly (x, y) of the map, to stack onto."""
        spot = (map_name, x, y)
        piece_id = self._index().get(spot)
        if piece_id is None or piece_id in exclude or piece_id not in self.save.pieces:
            return None
        if self.save.stack_of(piece_id) is not None or self.save.position(piece_id) != spot:
            return None          # it has moved on since
        return piece_id

    def holding_point(self, map_name: str) -> tuple[int, int]:
        """Where units go on a holding map: onto its first stack, else the middle of its board."""
        if map_name not in self._holding:
            spots = [spot for spot in self._index() if spot[0] == map_name]
            if spots:
                self._holding[map_name] = spots[0][1], spots[0][2]
            else:
                board = self.module.map(map_name).boards[0]
                width, height = board.size or (200, 200)
                self._holding[map_name] = width // 2, height // 2
        return self._holding[map_name]

    def set_strength(self, key: str, strength: str | None) -> None:
        rule = self._rule(key)
        if rule.reduced is None:
            raise ProfileError(f"units[{rule.index}].reduced: the profile says nothing of the reduced side",
                               file=self.profile.file, piece=self.unit_piece(key))
        entry = self.save.entry(self.unit_piece(key))
        rule.reduced.show(entry.piece, strength == "reduced")
        entry.commit()

    def set_values(self, key: str, unit: Unit, rule: UnitRule) -> None:
        """Side, nation and formation that the profile reads from a property of the piece,
        written into that property (a new piece from the palette shows the palette's values)."""
        unit_id = self.unit_piece(key)
        props = self.save.piece(unit_id).properties()
        for name in ("side", "nation", "formation"):
            read, wanted = getattr(rule, name), getattr(unit, name)
            if read is None or "property" not in read.raw or wanted is None or read.raw["property"] not in props:
                continue
            mapping = read.raw.get("map") or {}
            value = next((raw for raw, shown in mapping.items() if shown == wanted), wanted)
            if props[read.raw["property"]] != value:
                self.save.set_property(unit_id, read.raw["property"], value)

    def _rule(self, key: str) -> UnitRule:
        piece = self.save.piece(self.unit_piece(key))
        rule = self.profile.unit_rule(seen(piece, self.prototypes))
        if rule is None:
            raise ProfileError(f"no unit rule of the profile matches unit {key!r}", file=self.profile.file,
                               piece=self.unit_piece(key))
        return rule

    # -- events ----------------------------------------------------------------------
    def apply(self, event: Event) -> None:
        """Write one event; an event the profile cannot show is a :class:`ResultNotWritable`
        naming the result ("T-64 is Disrupted") and why."""
        before = self.game
        try:
            self._apply(event)
        except ResultNotWritable:
            raise
        except ProfileError as error:
            raise ResultNotWritable(f"cannot write {describe(event, before)!r} into the save: {error.message}",
                                    file=error.file, piece=error.piece) from None

    def _apply(self, event: Event) -> None:
        before = self.game
        self.game = apply_event(self.game, event)
        if isinstance(event, MissionsSpent):
            prop = self.profile.missions_properties.get(event.side)
            if prop is None:
                raise ProfileError(f"the profile names no property for {event.side}'s fire missions "
                                   "(missions_properties)", file=self.profile.file)
            self.save.set_global_property(prop, str(self.game.missions_left.get(event.side, 0)))
            return
        if isinstance(event, (MarkerPlaced, MarkerRemoved, MarkerFlipped)):
            self.hex_event(event)
            return
        key = event.unit
        unit = self.game.unit(key)
        if isinstance(event, UnitDisrupted):
            if not before.unit(key).status.disrupted:
                self.add_unit_marker(key, "disrupted")
        elif isinstance(event, UnitRallied):
            self.remove_unit_marker(key, "disrupted")
        elif isinstance(event, (UnitReduced, UnitRestored)):
            self.set_strength(key, unit.strength)
        elif isinstance(event, (UnitEliminated, UnitRemoved)):
            self.leave_map(key, unit.location)
        elif isinstance(event, UnitPlaced):
            if unit.hex is None:
                raise ProfileError(f"unit {key!r} is placed without a hex", piece=self.unit_piece(key))
            self.move_unit(key, self.profile.main_map, *self.hex_point(unit.hex))
            if event.strength is not None:
                self.set_strength(key, event.strength)
        elif isinstance(event, UnitMoved):
            if event.hex is None:
                raise ProfileError(f"unit {key!r} moves to no hex", piece=self.unit_piece(key))
            self.move_unit(key, self.profile.main_map, *self.hex_point(event.hex))
        elif isinstance(event, StatusChanged):
            self.status_event(key, event.field, event.value, before.unit(key).status)
        elif isinstance(event, UnitAttached):
            pass        # WaW85 §7.2.1: the Leader stays in its hex; a save shows no assignment but the stack
        elif isinstance(event, (PassengerLoaded, PassengerUnloaded)):
            pass        # WaW85 §9.8.1: a Passenger shares its Transport's hex; a save shows the load only by the stack
        else:
            raise ProfileError(f"the profile cannot write a {type(event).__name__} event into a save",
                               file=self.profile.file, piece=self.pieces.get(key))

    def map_for(self, location: str) -> str | None:
        """The map a unit off the board lies on: the profile's holding map, or a map named like the location."""
        if location == "eliminated" and self.profile.eliminate_to is not None:
            return self.profile.eliminate_to
        found = self.profile.map_of_location(location)
        if found is None and any(location in (m.name, m.id) for m in self.module.maps):
            found = location
        return found

    def place_point(self, location: str) -> tuple[str, int, int] | None:
        """Where a unit goes in a place that is not a hex: a holding map (onto its first stack,
        else its middle), or a box drawn on the main map (a zone or region named so)."""
        map_name = self.map_for(location)
        if map_name is not None:
            return (map_name, *self.holding_point(map_name))
        try:
            return (self.profile.main_map, *self.hex_point(location))
        except GeometryError:
            return None

    def leave_map(self, key: str, location: str) -> None:
        if location == "eliminated" and self.map_for(location) is None:
            for _, marker_id in self.unit_markers.pop(key, []):     # no Destroyed map: the counter goes
                self.save.remove_piece(marker_id)
            self.save.remove_piece(self.pieces.pop(key))
            self.removed.add(key)
            return
        where = self.place_point(location)
        if where is None:
            raise ProfileError(f"unit {key!r} goes to {location!r}, which is neither a holding map of the profile "
                               "nor a place on its main map", file=self.profile.file, piece=self.pieces.get(key))
        self.move_unit(key, *where)

    def status_event(self, key: str, field_name: str, value: Any, old: Status) -> None:
        if field_name == "ammo":
            rule = self._rule(key)
            held = [name for name, _ in self.unit_markers.get(key, [])]
            for name in [*held, *rule.status_layers, *rule.status_properties]:
                if name.startswith("ammo:"):
                    self.remove_unit_marker(key, name)
            if value != "none":
                self.add_unit_marker(key, f"ammo:{value}")
            return
        rule = self._rule(key)
        known = field_name in self.profile.unit_markers or field_name in rule.status_layers \
            or field_name in rule.status_properties
        if field_name in ACTIVATION_STATES and not known:
            return          # lasts only while the unit acts; a module without its marker does not show it
        if field_name not in FLAG_MARKERS:
            raise ProfileError(f"a save shows no status {field_name!r}: no marker of the profile stands for it",
                               file=self.profile.file, piece=self.unit_piece(key))
        if bool(value) and not getattr(old, field_name):
            self.add_unit_marker(key, field_name)
        elif not value:
            self.remove_unit_marker(key, field_name)

    def hex_event(self, event: MarkerPlaced | MarkerRemoved | MarkerFlipped) -> None:
        names = [event.marker] if not isinstance(event, MarkerFlipped) else [event.old, event.new]
        for name in names:
            if name not in self.profile.hex_markers:
                raise ProfileError(f"the profile names no piece for the {name} marker (hex_markers.{name})",
                                   file=self.profile.file)
        if isinstance(event, MarkerFlipped) and self._flip_in_place(event):
            return
        if isinstance(event, (MarkerRemoved, MarkerFlipped)):
            old = event.marker if isinstance(event, MarkerRemoved) else event.old
            for entry in [e for e in self.hex_markers.get(event.hex, []) if e[0] == old]:
                self.save.remove_piece(entry[1])
                self.hex_markers[event.hex].remove(entry)
        if isinstance(event, (MarkerPlaced, MarkerFlipped)):
            new = event.marker if isinstance(event, MarkerPlaced) else event.new
            if any(name == new for name, _ in self.hex_markers.get(event.hex, [])):
                return
            x, y = self.hex_point(event.hex)
            target = self._stack_at(self.profile.main_map, x, y, exclude=set())
            marker_id = self.add_marker(self.profile.hex_markers[new], new, self.profile.main_map, x, y, target, None)
            self.hex_markers.setdefault(event.hex, []).append((new, marker_id))

    def _flip_in_place(self, event: MarkerFlipped) -> bool:
        """Turn a two-level marker over (Smoke 2 -> Smoke 1) by its layer when both sides are one piece."""
        old, new = self.profile.hex_markers[event.old], self.profile.hex_markers[event.new]
        if old.base != new.base or new.layer is None or new.level is None:
            return False
        entries = [e for e in self.hex_markers.get(event.hex, []) if e[0] == event.old]
        if not entries:
            return False
        name, piece_id = entries[0]
        self.save.set_layer(piece_id, new.layer, new.level)
        markers = self.hex_markers[event.hex]
        markers[markers.index((name, piece_id))] = (event.new, piece_id)
        return True


def as_saved(game: Game, removed: Iterable[str] = ()) -> Game:
    """``game`` as a save can hold it: a unit off the main map has no hex; removed units are gone.

    The model remembers the last hex of an eliminated unit (HQ replacement uses it);
    a VASSAL save has only the counter on the Destroyed map, so an import cannot
    give that hex back. A profile without a Destroyed map removes eliminated counters.
    """
    gone = set(removed)
    units = {key: unit if unit.on_map or unit.hex is None else replace(unit, hex=None)
             for key, unit in game.units.items() if key not in gone}
    return replace(game, units=MappingProxyType(units))


def apply_events(save: SavedGame, module: Module, profile: Profile, imported: Imported,
                 events: Iterable[Event]) -> Game:
    """Write ``events`` into ``save`` (edited in place) and return the Game they lead to (:func:`as_saved`).

    ``imported`` must be the import of this same save; only the pieces the events
    concern (and the stacks they leave or join) change.
    """
    writer = _Writer(save, module, profile, imported)
    for event in events:
        writer.apply(event)
    return as_saved(writer.game, writer.removed)


# -- a Game into a new save ------------------------------------------------------------------

def _ordinal(key: str, table_key: str) -> int:
    """1 for ``t-64``, 2 for ``t-64-2``...: the numbering the import gives."""
    suffix = key[len(table_key) + 1:] if key.startswith(table_key + "-") else ""
    return int(suffix) if suffix.isdigit() else 1


def export_game(game: Game, module: Module, profile: Profile, table: UnitTable, *,
                positions: Mapping[str, tuple[str | None, int, int]] | None = None,
                layouts: Mapping[str, Sequence[PlacedBoard]] | None = None,
                states: Mapping[str, CounterState] | None = None,
                notes: list[str] | None = None) -> tuple[SavedGame, dict[str, str]]:
    """A new save of ``module`` showing ``game``; returns it and the piece id of each unit.

    Units are created from the module's PieceSlots in the order of their keys'
    numbers, so importing the save gives the same keys back; markers are copied from
    the marker PieceSlots the profile names, each right above its unit. A unit on the
    map goes to its hex; a unit in a place goes back where the save it was imported from
    had it (``positions``) while it is still in that place -- a place the profile does not
    know (a display, a map of another module version) included, each noted in ``notes`` --
    else to its holding map or the box of that name on the main map. ``layouts`` lays the
    maps' boards out as the save the scenario came from did (positions are in its frame).
    A unit's counter shows what ``states`` kept of its counter in that save (its layers,
    labels, properties: :mod:`converter.piece_state`), then what the scenario says of it.
    """
    positions = positions or {}
    reader = PositionReader(module, profile, table)
    kept: dict[str, list[str]] = {}
    save = empty_save(module, layouts=layouts)
    if profile.turn_property is not None and game.turn is not None:
        save.set_global_property(profile.turn_property, str(game.turn))
    for side, prop in profile.missions_properties.items():
        if side in game.missions_left:
            save.set_global_property(prop, str(game.missions_left[side]))
    palette = Palette(module, profile, table)
    writer = _Writer(save, module, profile, Imported(Game(), {}, {}, {}, {}))
    entries = {key: palette.entry_of(unit) for key, unit in game.units.items()}
    order = sorted(game.units, key=lambda k: (entries[k].key, _ordinal(k, entries[k].key), k))
    placed_order = sorted(order, key=lambda k: (game.units[k].stack_order or 99, order.index(k)))
    created: dict[str, str] = {}
    for key in order:     # ids rise in key order; stacking follows in a second pass
        unit = game.units[key]
        shown = (states or {}).get(key)
        slot, rule = palette.slot_of(unit, entries[key], shown.slot if shown is not None else None)
        type_text, state_text = placed_texts(module, slot)
        state_text = restored(type_text, state_text, shown)
        created[key] = save.add_piece(type_text, None, 0, 0, state_text=state_text)
        writer.pieces[key] = created[key]
        if unit.strength is not None and rule.reduced is not None:
            writer.set_strength(key, unit.strength)
        writer.set_values(key, unit, rule)
    for key in placed_order:
        unit = game.units[key]
        if unit.on_map:
            if unit.hex is None:
                raise ProfileError(f"unit {key!r} is on the map without a hex")
            writer.move_unit(key, profile.main_map, *writer.hex_point(unit.hex))
        else:
            writer.move_unit(key, *_place_of(writer, reader, unit, positions.get(key), kept))
        status = unit.status
        for name in FLAG_MARKERS:
            if getattr(status, name):
                writer.add_unit_marker(key, name)
        if status.ammo != "none":
            writer.add_unit_marker(key, f"ammo:{status.ammo}")
    for hex_state in game.hexes.values():
        for marker in sorted(hex_state.markers):
            writer.hex_event(MarkerPlaced(hex_state.id, marker))
    if notes is not None:
        for place, keys in sorted(kept.items()):
            why = "no holding map of the profile" if any(place in (m.name, m.id) for m in module.maps) else \
                "a map the module does not have"
            notes.append(f"{len(keys)} unit(s) kept where the save had them in {place!r}, a place the profile does "
                         f"not know ({why}): {', '.join(keys[:8])}{' ...' if len(keys) > 8 else ''}")
    return save, created





def scenario_of(save: SavedGame, imported: Imported, module: Module, profile: Profile, table: UnitTable, *,
                name: str | None = None, save_path: str | None = None) -> Scenario:
    """An imported save as a scenario: the Game, and what ties it to the save so that
    :func:`export_scenario` makes the same counters (each unit's piece id, where it lay, the
    board layouts, what its counter showed beyond what the profile reads)."""
    return Scenario(imported.game, name, imported.pieces, module.name, save_path,
                    [u.to_dict() for u in imported.unrecognised], imported.positions, imported.layouts,
                    counter_states(save, imported.pieces, imported.game.units, module, profile, table))


def export_scenario(scenario: Scenario, module: Module, profile: Profile, table: UnitTable,
                    notes: list[str] | None = None) -> SavedGame:
    """A new save of ``module`` showing ``scenario`` (see :func:`export_game`)."""
    save, _ = export_game(scenario.game, module, profile, table, positions=scenario.positions,
                          layouts=scenario.layouts, states=scenario.states, notes=notes)
    return save


def _place_of(writer: _Writer, reader: PositionReader, unit: Unit, recorded: tuple[str | None, int, int] | None,
              kept: dict[str, list[str]]) -> tuple[str, int, int]:
    """Where a unit that is not in a hex goes in a new save (see :func:`export_game`); a unit
    kept in a place the profile does not know is added to ``kept`` (place -> unit keys)."""
    if recorded is not None and recorded[0] is not None:
        location, _ = reader.location(reader.place(recorded, writer.frames))
        if location == unit.location:
            if writer.map_for(unit.location) is None and recorded[0] != writer.profile.main_map:
                kept.setdefault(unit.location, []).append(unit.key)
            return recorded[0], recorded[1], recorded[2]
    where = writer.place_point(unit.location)
    if where is None:
        raise ProfileError(f"unit {unit.key!r} is in {unit.location!r}, which is neither a holding map of the profile "
                           "nor a place on its main map, and the scenario does not say where its piece lay "
                           "(vassal.positions)", file=writer.profile.file)
    return where


# -- the events between two positions --------------------------------------------------------

#: States that last only while a unit acts (a move under Opportunity Fire, EG/TUS §6.2; a
#: unit that has fired this activation): written where the profile names a marker for them,
#: left out of the save where the module has none (they are not results of an action).
ACTIVATION_STATES = frozenset({"moving", "fired", "opportunity_fired"})


def events_between(before: Game, after: Game) -> list[Event]:
    """The events that turn ``before`` into ``after`` as far as a save can show them: the
    referee's diff (:func:`referee.diff.events_between`) over the statuses a profile can mark.

    Used to write an edited scenario back onto the save it was imported from; other model
    fields are not written to saves.
    """
    if set(before.units) != set(after.units):
        added, gone = sorted(set(after.units) - set(before.units)), sorted(set(before.units) - set(after.units))
        raise ProfileError(f"the scenario's units differ from the save's (only in the scenario: {added}; "
                           f"only in the save: {gone})")
    try:
        return diff_events(before, after, (*FLAG_MARKERS, "ammo"))
    except NoEvent as error:
        raise ProfileError(f"{error} a save can show") from None


__all__ = ["DATE_SAVED", "ResultNotWritable", "apply_events", "as_saved", "empty_save", "events_between", "export_game",
           "export_scenario", "scenario_of"]
