"""The events that turn one position into another.

A player who edits a position by hand (a scenario file imported from a save) describes the
result, not how it came about; :func:`events_between` finds the events of
:mod:`referee.events` that lead from the old position to the new one, so that the change
can be written the same way a resolved action is. Applying the events to ``before`` gives
``after`` in every field the events cover.
"""
from __future__ import annotations

from typing import Sequence

from referee.errors import RefereeError
from referee.events import (Event, MarkerPlaced, MarkerRemoved, StatusChanged, UnitDisrupted, UnitEliminated,
                            UnitMoved, UnitPlaced, UnitRallied, UnitReduced, UnitRemoved, UnitRestored)
from referee.model import Game

#: Status fields compared by default: the markers a counter carries (Disrupted has events of its own).
MARKER_STATUSES = ("disrupted", "ops_complete", "out_of_command", "moving", "fired", "wounded", "ammo")


class NoEvent(RefereeError):
    """A change between two positions that no event describes (a unit appearing from nowhere,
    a strength that is neither full nor reduced)."""


def events_between(before: Game, after: Game, statuses: Sequence[str] = MARKER_STATUSES) -> list[Event]:
    """The events that turn ``before`` into ``after``, comparing the ``statuses`` named.

    Both positions hold the same units. A Reduced unit back at full strength is a step
    restored (WaW85 §6.0); a unit returning to the map is placed (HQ replacement,
    §1.3.3.3), with its strength when that changes too.
    """
    if set(before.units) != set(after.units):
        added, gone = sorted(set(after.units) - set(before.units)), sorted(set(before.units) - set(after.units))
        raise NoEvent(f"the positions hold different units (only in the new one: {added}; "
                      f"only in the old one: {gone})")
    events: list[Event] = []
    for key, new in after.units.items():
        old = before.units[key]
        placed = new.location != old.location and new.location == "map"
        if new.location != old.location:
            if new.location == "eliminated":
                events.append(UnitEliminated(key))
            elif placed:
                events.append(UnitPlaced(key, new.hex, new.strength))
            else:
                events.append(UnitRemoved(key, new.location))
        elif new.on_map and new.hex != old.hex:
            events.append(UnitMoved(key, new.hex))
        if new.strength != old.strength and not placed:
            if (old.strength, new.strength) == ("reduced", "full"):
                events.append(UnitRestored(key))
            elif new.strength == "reduced":
                events.append(UnitReduced(key))
            else:
                raise NoEvent(f"unit {key!r}: {old.strength} -> {new.strength} is no event")
        if "disrupted" in statuses and new.status.disrupted != old.status.disrupted:
            events.append(UnitDisrupted(key) if new.status.disrupted else UnitRallied(key))
        for name in statuses:
            if name != "disrupted" and getattr(new.status, name) != getattr(old.status, name):
                events.append(StatusChanged(key, name, getattr(new.status, name)))
    for hex_id in sorted(set(before.hexes) | set(after.hexes)):
        old_markers = before.hexes[hex_id].markers if hex_id in before.hexes else frozenset()
        new_markers = after.hexes[hex_id].markers if hex_id in after.hexes else frozenset()
        events += [MarkerRemoved(hex_id, m) for m in sorted(old_markers - new_markers)]
        events += [MarkerPlaced(hex_id, m) for m in sorted(new_markers - old_markers)]
    return events


__all__ = ["MARKER_STATUSES", "NoEvent", "events_between"]
