"""Events: the only way the model changes.

A procedure never edits the game; it returns events, and :func:`apply` folds them into
a new :class:`~referee.model.Game`. Exporters (a corrected VASSAL save, a report)
translate the same events, so what the referee decided is exactly what gets written.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable, Union

from referee.model import Game


@dataclass(frozen=True)
class UnitDisrupted:
    unit: str


@dataclass(frozen=True)
class UnitRallied:
    unit: str


@dataclass(frozen=True)
class UnitReduced:
    unit: str


@dataclass(frozen=True)
class UnitRestored:
    """A Reduced unit flips back to its full-strength side: a strength step restored
    (WaW85 §6.0, a Battlefield Event; the classic rules restore no steps)."""

    unit: str


@dataclass(frozen=True)
class UnitEliminated:
    unit: str


@dataclass(frozen=True)
class UnitRemoved:
    """Out of play without being eliminated (to the cup, removed, held).

    ``result`` names it as a combat result when the rules do (WaW85 §10.7.2 an HQ
    ``suppressed``, §10.7.4 a CAS that ``circles_back`` or ``returns_to_base``)."""

    unit: str
    location: str
    result: str | None = None


@dataclass(frozen=True)
class UnitPlaced:
    """An eliminated or held counter comes back onto the map (HQ replacement)."""

    unit: str
    hex: str | None
    strength: str | None = None


@dataclass(frozen=True)
class UnitMoved:
    unit: str
    hex: str | None


@dataclass(frozen=True)
class StatusChanged:
    unit: str
    field: str
    value: Any


@dataclass(frozen=True)
class ModeChanged:
    """A helicopter flips to its other side (flying / hovering), §9.1."""

    unit: str
    mode: str


@dataclass(frozen=True)
class MarkerPlaced:
    hex: str
    marker: str


@dataclass(frozen=True)
class MarkerRemoved:
    hex: str
    marker: str


@dataclass(frozen=True)
class MarkerFlipped:
    """A two-sided marker turned over (Smoke 2 -> Smoke 1)."""

    hex: str
    old: str
    new: str


@dataclass(frozen=True)
class UnitAttached:
    """A Leader is assigned to another unit of its stack (WaW85 §7.2.1 "Simply stack the
    Leader counter on the other unit in the stack. It is now assigned to that new unit")."""

    unit: str
    to: str


@dataclass(frozen=True)
class PassengerLoaded:
    """A Passenger goes aboard a Transport: its counter "is stacked immediately beneath the
    Transport unit to indicate it is being transported by that Transport unit" (WaW85 §9.8.1;
    EG/TUS §5.2.1), and from then on it moves, and counts for stacking, only with it (WaW85
    §9.2, §9.8)."""

    unit: str
    transport: str


@dataclass(frozen=True)
class PassengerUnloaded:
    """A Passenger leaves its Transport (WaW85 §9.8.2; EG/TUS §5.2.2); where it goes is a
    :class:`UnitMoved`."""

    unit: str


@dataclass(frozen=True)
class MissionsSpent:
    """Fire missions used from a side's allotment (EG/TUS §8.0 "1 x 4/5", WaW85 §14.2)."""

    side: str
    count: int = 1


Event = Union[UnitDisrupted, UnitRallied, UnitReduced, UnitRestored, UnitEliminated, UnitRemoved, UnitPlaced,
              UnitMoved, StatusChanged, ModeChanged, MarkerPlaced, MarkerRemoved, MarkerFlipped, MissionsSpent,
              UnitAttached, PassengerLoaded, PassengerUnloaded]

#: Events that count as a combat result on a unit, in the order they are reported.
RESULT_EVENTS = (UnitDisrupted, UnitReduced, UnitEliminated)


def apply(game: Game, event: Event) -> Game:
    """Return ``game`` with one event applied."""
    if isinstance(event, MissionsSpent):
        left = dict(game.missions_left)
        left[event.side] = max(0, left.get(event.side, 0) - event.count)
        from types import MappingProxyType
        return game.but(missions_left=MappingProxyType(left))
    if isinstance(event, (MarkerPlaced, MarkerRemoved, MarkerFlipped)):
        hex_state = game.hex(event.hex)
        markers = set(hex_state.markers)
        if isinstance(event, MarkerPlaced):
            markers.add(event.marker)
        elif isinstance(event, MarkerRemoved):
            markers.discard(event.marker)
        else:
            markers.discard(event.old)
            markers.add(event.new)
        return game.with_hex(hex_state.with_markers(markers))
    unit = game.unit(event.unit)
    if isinstance(event, UnitDisrupted):
        unit = unit.with_status(disrupted=True)
    elif isinstance(event, UnitRallied):
        unit = unit.with_status(disrupted=False)
    elif isinstance(event, UnitReduced):
        unit = replace(unit, strength="reduced")
    elif isinstance(event, UnitRestored):
        unit = replace(unit, strength="full")
    elif isinstance(event, UnitEliminated):
        unit = replace(unit, location="eliminated")
    elif isinstance(event, UnitRemoved):
        unit = replace(unit, location=event.location)
    elif isinstance(event, UnitPlaced):
        unit = replace(unit, location="map", hex=event.hex or unit.hex,
                       strength=event.strength or unit.strength)
    elif isinstance(event, UnitMoved):
        unit = replace(unit, hex=event.hex)
        if unit.status.opportunity_fired:           # a new hex: Opportunity Fire may attack it again
            unit = unit.with_status(opportunity_fired=False)
    elif isinstance(event, StatusChanged):
        unit = unit.with_status(**{event.field: event.value})
    elif isinstance(event, ModeChanged):
        unit = replace(unit, mode=event.mode)
    elif isinstance(event, UnitAttached):
        unit = replace(unit, attached_to=event.to)
    elif isinstance(event, PassengerLoaded):
        transport = game.unit(event.transport)
        unit = replace(unit, carried_by=event.transport, hex=transport.hex if transport.hex is not None else unit.hex)
    elif isinstance(event, PassengerUnloaded):
        unit = replace(unit, carried_by=None)
    return game.with_unit(unit)


def move_with_riders(game: Game, key: str, hex_id: str | None, *, deployed_hqs: bool = True) -> list[UnitMoved]:
    """``key`` moves to ``hex_id``, and with it every counter riding on it, in the order of
    :meth:`Game.riders` (its Passengers, then the Support Weapon, Leader and HQ stacked on
    it; ``deployed_hqs=False``: not an HQ deployed with it, EG/TUS §1.3.3.1)."""
    return [UnitMoved(key, hex_id)] + [UnitMoved(r.key, hex_id) for r in game.riders(key, deployed_hqs=deployed_hqs)
                                       if r.hex != hex_id]


def apply_all(game: Game, events: Iterable[Event]) -> Game:
    for event in events:
        game = apply(game, event)
    return game


def result_of(unit: str, events: Iterable[Event]) -> str:
    """The combat result a unit suffered, in the case vocabulary (none, disrupted, ...)."""
    kinds = {type(e) for e in events if isinstance(e, RESULT_EVENTS) and e.unit == unit}
    if UnitEliminated in kinds:
        return "eliminated"
    removed = [e.result for e in events if isinstance(e, UnitRemoved) and e.unit == unit and e.result]
    if removed:
        return ("reduced_and_" if UnitReduced in kinds else "") + removed[-1]
    if UnitDisrupted in kinds and UnitReduced in kinds:
        return "disrupted_and_reduced"
    if UnitReduced in kinds:
        return "reduced"
    if UnitDisrupted in kinds:
        return "disrupted"
    if any(isinstance(e, StatusChanged) and e.unit == unit and e.field == "wounded" and e.value
           for e in events):
        return "wounded"
    return "none"


#: The rulebooks' names for the statuses a StatusChanged event sets.
STATUS_NAMES = {"ops_complete": "Ops Complete", "out_of_command": "Out of Command", "disrupted": "Disrupted",
                "fired": "marked as having fired", "moving": "moving", "wounded": "Wounded",
                "entering": "entering", "ammo": "ammo",
                "opportunity_fired": "attacked by Opportunity Fire in this hex"}


def describe(event: Event, game: Game) -> str:
    """One line a player can read, naming counters by their printed name."""
    def name(key: str) -> str:
        unit = game.units.get(key)
        return unit.name if unit else key
    if isinstance(event, UnitDisrupted):
        return f"{name(event.unit)} is Disrupted"
    if isinstance(event, UnitRallied):
        return f"{name(event.unit)} rallies"
    if isinstance(event, UnitReduced):
        return f"{name(event.unit)} is Reduced"
    if isinstance(event, UnitRestored):
        return f"{name(event.unit)} is restored to full strength"
    if isinstance(event, UnitEliminated):
        return f"{name(event.unit)} is eliminated"
    if isinstance(event, UnitRemoved):
        return f"{name(event.unit)} goes to {event.location}"
    if isinstance(event, UnitPlaced):
        return f"{name(event.unit)} returns to the map" + (f" in {event.hex}" if event.hex else "")
    if isinstance(event, UnitMoved):
        return f"{name(event.unit)} moves to {event.hex}"
    if isinstance(event, StatusChanged):
        status = STATUS_NAMES.get(event.field, event.field.replace("_", " "))
        if event.value is True:
            return f"{name(event.unit)} is {status}"
        if event.value is False:
            return f"{name(event.unit)} is no longer {status}"
        return f"{name(event.unit)}: {status} {event.value}"
    if isinstance(event, ModeChanged):
        return f"{name(event.unit)} changes to {event.mode}"
    if isinstance(event, UnitAttached):
        return f"{name(event.unit)} is assigned to {name(event.to)}"
    if isinstance(event, PassengerLoaded):
        return f"{name(event.unit)} loads into {name(event.transport)}"
    if isinstance(event, PassengerUnloaded):
        return f"{name(event.unit)} unloads"
    if isinstance(event, MarkerPlaced):
        return f"{event.marker.replace('_', ' ').title()} marker placed in {event.hex}"
    if isinstance(event, MarkerRemoved):
        return f"{event.marker.replace('_', ' ').title()} marker removed from {event.hex}"
    if isinstance(event, MissionsSpent):
        left = game.missions_left.get(event.side)
        return f"{event.side}: {event.count} fire mission(s) used" + (
            f", {max(0, left - event.count)} left" if left is not None else "")
    return f"{event.old} flipped to {event.new} in {event.hex}"
