"""The canonical game model: counters, hexes, markers and the facts a situation states.

Everything is a frozen dataclass; the model changes only by applying events
(:mod:`referee.events`), which return a new :class:`Game` sharing unchanged parts.

A value of ``None`` means "not stated": the rulebook example or the module did not
give it. Procedures that need such a value ask for it through :func:`need`, which
raises :class:`~referee.errors.NotStated` instead of guessing. Markers are the
exception: a status marker that is not listed is not on the counter.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from types import MappingProxyType
from typing import Any, Mapping, TypeVar

from referee.errors import NotStated

T = TypeVar("T")

HARD_TYPES = frozenset({"heavy_armor", "light_armor"})
VEHICLE_TYPES = frozenset({"heavy_armor", "light_armor", "soft_vehicle", "vehicle"})
NON_COMBAT_TYPES = frozenset({"hq", "leader", "support_weapon", "aircraft"})
#: The values a counter prints separately on each side; the rest belongs to the counter.
SIDE_VALUES = ("ap", "he", "aa", "assault", "armor", "save", "mp")


def need(value: T | None, name: str) -> T:
    """Return ``value`` or raise ``NotStated(name)``: the single place defaults are refused."""
    if value is None:
        raise NotStated(name)
    return value


@dataclass(frozen=True)
class Weapon:
    """One printed firepower value (AP, HE or AA): dice, to-hit, range and how it is drawn."""

    fp: int | None = None
    to_hit: int | None = None
    range: int | None = None
    underlined: bool | None = None     # classic: no extended range, no reduced-range bonus
    colour: str | None = None          # WaW85 firepower colour (black, green, orange, blue)
    range_colour: str | None = None    # WaW85 range colour (blue range = missile AA, §1.9.4)


@dataclass(frozen=True)
class AssaultValue:
    """The printed Assault Factor and its To-Hit; ``augmented`` is the Untold Stories "+"."""

    fp: int | None = None
    to_hit: int | None = None
    augmented: bool = False


@dataclass(frozen=True)
class UnitType:
    """What the counter prints: the same for every counter of one name and side."""

    name: str | None = None
    target_type: str | None = None     # heavy_armor light_armor soft_vehicle vehicle troops helicopter ...
    steps: int | None = None
    ap: Weapon | None = None
    he: Weapon | None = None
    aa: Weapon | None = None
    assault: AssaultValue | None = None
    armor: int | None = None
    save: int | None = None
    mp: int | None = None
    movement_type: str | None = None
    abilities: frozenset[str] = frozenset()
    arty_type: str | None = None
    caliber_mm: int | None = None
    cost: int | None = None
    #: The reduced side as printed: the same counter (name, target type, steps, abilities)
    #: with its own values. ``None`` when the counter prints one side, or when the source
    #: states only the values of the side the counter shows (a rule case does that).
    reduced: UnitType | None = None
    #: The type lists every value its counter prints (a unit table does): a value it lacks
    #: is not on the counter ("no Assault Factor"), where a rulebook example that leaves a
    #: value out has merely not stated it.
    printed: bool = False

    def side(self, strength: str | None) -> UnitType:
        """The printed side in effect at ``strength``: why a Reduced unit fires with its reduced values.

        Without a stated reduced side this type is the side shown, whatever the strength."""
        if strength == "reduced" and self.reduced is not None:
            return self.reduced
        return self

    def reduced_side(self, **printed: Any) -> UnitType:
        """This counter's reduced side printing ``printed`` (values it does not print are not stated)."""
        # a side whose values are not given states nothing: it is not known to lack them
        return replace(self, **{**dict.fromkeys(SIDE_VALUES), **printed, "reduced": None,
                                "printed": self.printed and bool(printed)})

    def lacks(self, value: str) -> bool:
        """Whether the counter is known to print no ``value`` (``assault``, ``ap``...)."""
        return self.printed and getattr(self, value) is None

    def weapon(self, name: str) -> Weapon | None:
        return {"ap": self.ap, "he": self.he, "aa": self.aa}.get(name)

    @property
    def is_vehicle(self) -> bool:
        return self.target_type in VEHICLE_TYPES

    @property
    def is_infantry(self) -> bool:
        return self.target_type == "troops"


@dataclass(frozen=True)
class Status:
    """Markers and transient state on a counter. Absent markers are simply not there."""

    disrupted: bool = False
    ops_complete: bool = False
    out_of_command: bool = False
    moving: bool = False
    fired: bool = False
    #: attacked by Opportunity Fire in the hex it stands in: "only once per hex it enters"
    #: (EG/TUS §6.2), "one Opportunity Fire attack ... per hex of movement" (WaW85 §10.11);
    #: entering the next hex clears it
    opportunity_fired: bool = False
    mp_spent: int | str | None = None  # an integer, or "up_to_half" / "more_than_half"
    mp_left: int | None = None
    ammo: str = "none"                 # none, depleted_2, depleted_1 (classic) or WaW85 values
    ew_marker: str | None = None       # jammed / resolving
    entering: bool = False
    wounded: bool = False
    concealed: bool | None = None      # a *stated* concealment fact; otherwise derived
    #: the fields a rule case states (a ``moving: false`` stated is a fact, an absent one is not)
    stated: frozenset[str] = field(default=frozenset(), compare=False)

    @property
    def has_moved(self) -> bool:
        """Moving now, or MPs already spent this activation."""
        return self.moving or self.mp_spent not in (None, 0)

    @property
    def made_moving_fire(self) -> bool:
        """Fired after moving this activation: Moving Fire (EG/TUS §6.1.3)."""
        return self.fired and self.has_moved


@dataclass(frozen=True)
class Unit:
    """A counter on (or off) the map: its type, allegiance, place and state."""

    key: str
    type: UnitType = field(default_factory=UnitType)
    side: str | None = None
    nation: str | None = None
    formation: str | None = None
    hex: str | None = None
    strength: str | None = None        # full / reduced
    status: Status = field(default_factory=Status)
    mode: str | None = None            # helicopter mode
    level: int | None = None           # stated LOS level
    location: str = "map"
    attached_to: str | None = None
    carried_by: str | None = None
    morale: int | None = None
    leadership: int | None = None
    command_range: Mapping[str, int] = field(default_factory=dict)
    stack_order: int | None = None
    formation_cards: int | None = None  # WaW85 §17.4.4: Formation cards of its Formation

    @property
    def current(self) -> UnitType:
        """The printed values in effect: the side its strength shows (full or reduced).

        Procedures read firepower, to-hit, range, armor, save, MP and assault values
        here, so a Reduced unit fights with its reduced side's values."""
        return self.type.side(self.strength)

    @property
    def name(self) -> str:
        return self.type.name or self.key

    @property
    def on_map(self) -> bool:
        return self.location == "map"

    def with_status(self, **changes: Any) -> "Unit":
        return replace(self, status=replace(self.status, **changes))


@dataclass(frozen=True)
class HexState:
    """A hex: terrain (a TEC row), markers, features, and stated facts about it."""

    id: str
    terrain: str | None = None
    terrain_db: int | Mapping[str, int] | None = None   # stated Defensive Bonus dice
    markers: frozenset[str] = frozenset()
    features: frozenset[str] = frozenset()
    owner: str | None = None
    mp_cost: int | None = None
    to_target: int | None = None
    los: str | None = None
    coord: str | None = None
    at: Any = None                     # map position (a referee.hexes.Hex) when known
    level: int | None = None           # hill level (classic) or elevation (WaW85)
    hexsides: Mapping[int, frozenset[str]] = field(default_factory=dict)
    """Features on each side, by direction (referee.hexes.DIRECTIONS): river, stream,
    bridge, ford, crest, road, trail. A side is shared: either hex may carry it."""
    #: Other stated facts about the hex (WaW85 obstacle_height and unit_height, retreat
    #: facts such as enemy_units or away_from_attacker), by their case-format names.
    stated: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def with_markers(self, markers: Any) -> "HexState":
        """The hex with ``markers``. A hex whose values come from a chart row (``stated``
        ``tec_lines``: its terrain's line under ``""``, and the chart's ``rubble`` and
        ``cleared`` lines if it has them) takes the values of the line its markers send it to:
        a Rubble hex "now uses the Rubble line on the TEC for all purposes", a Cleared hex the
        Cleared line (WaW85 §10.9, §10.9.1). A line the chart does not give leaves those values
        not stated (``None``), never the terrain's."""
        markers = frozenset(markers)
        lines = self.stated.get("tec_lines")
        if not lines:
            return replace(self, markers=markers)
        line = next((m for m in CHART_LINE_MARKERS if m in markers), "")
        row = lines.get(line)
        stated = {k: v for k, v in self.stated.items() if k not in ("obstacle_height", "unit_height")}
        if row is None:
            return replace(self, markers=markers, terrain_db=None, los=None, stated=MappingProxyType(stated))
        stated.update(obstacle_height=row["obstacle_height"], unit_height=row["unit_height"])
        return replace(self, markers=markers, terrain_db=row["db"], los=row["los"], stated=MappingProxyType(stated))


#: Markers that send a charted hex to another line of the chart, first found first (WaW85 §10.9, §10.9.1).
CHART_LINE_MARKERS = ("rubble", "cleared")


@dataclass(frozen=True)
class Formation:
    """A Formation (§1.5): its HQ, morale, command ranges and activation markers."""

    name: str
    side: str | None = None
    hq: str | None = None                       # unit key of the HQ
    morale: int | None = None
    conditional: bool = False                   # 001 §1.6.1 "2+" morale
    command_range: Mapping[str, int] = field(default_factory=dict)   # full / reduced
    markers: int = 1                            # Formation markers (activations) per turn


@dataclass(frozen=True)
class Relation:
    """What a situation states about a unit relative to the action's reference unit."""

    distance: int | None = None
    adjacent: bool | None = None
    within: int | None = None
    los: bool | None = None


@dataclass(frozen=True)
class Facts:
    """Whole-situation facts stated instead of computed from a map (rule examples are partial).

    ``relations`` hold per-unit distance/LOS to the reference unit; ``situation`` holds the
    rest (``range_band``, ``intervening``, ``crest_crossed``, ``road``, ``draws`` ...).
    """

    relations: Mapping[str, Relation] = field(default_factory=dict)
    situation: Mapping[str, Any] = field(default_factory=dict)
    hexes: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)   # stated per-hex facts

    def relation(self, key: str) -> Relation:
        return self.relations.get(key, Relation())

    def hex_fact(self, hex_id: str, name: str) -> Any:
        """A stated fact about a hex (``enemy_units``, ``adjacent_to_enemy``, ``distance``...)."""
        return self.hexes.get(hex_id, {}).get(name)

    def get(self, name: str) -> Any:
        return self.situation.get(name)


@dataclass(frozen=True)
class Game:
    """The whole position: units by key, hexes by id, stated facts, turn and phase."""

    units: Mapping[str, Unit] = field(default_factory=dict)
    hexes: Mapping[str, HexState] = field(default_factory=dict)
    facts: Facts = field(default_factory=Facts)
    formations: Mapping[str, Formation] = field(default_factory=dict)
    turn: int | None = None
    phase: str | None = None
    missions_left: Mapping[str, int] = field(default_factory=dict)
    #: ``hexes`` holds every hex of the board (a position read with its terrain map), so a hex
    #: not among them is off the map; otherwise (a rule case, a partial scenario) only the hexes
    #: that matter are listed and one not listed is not stated (WaW85 §16.7.2 "Off the playable area").
    whole_board: bool = False

    def unit(self, key: str) -> Unit:
        try:
            return self.units[key]
        except KeyError:
            raise NotStated(f"units.{key}") from None

    def hex(self, hex_id: str | None) -> HexState:
        if hex_id is None:
            raise NotStated("hex")
        return self.hexes.get(hex_id) or HexState(hex_id)

    def stack(self, hex_id: str | None, *, exclude: str | None = None) -> list[Unit]:
        """Units on the map in ``hex_id`` (stack order first, then key order)."""
        if hex_id is None:
            return []
        if isinstance(self.units, MappingProxyType):      # read-only: indexed once per Game
            found = [u for u in self._on_map_by_hex.get(hex_id, ()) if u.key != exclude]
        else:
            found = [u for u in self.units.values() if u.hex == hex_id and u.on_map and u.key != exclude]
        return sorted(found, key=lambda u: (u.stack_order or 99, u.key))

    @cached_property
    def _on_map_by_hex(self) -> dict[str, list[Unit]]:
        """The units on the map by hex. Built only over units held read-only (a Game changes by
        events, which make a new Game), so a position of thousands of units asks each hex once."""
        found: dict[str, list[Unit]] = {}
        for unit in self.units.values():
            hex_id = unit.hex
            if hex_id is not None and unit.location == "map":      # Unit.on_map, read directly
                if hex_id in found:
                    found[hex_id].append(unit)
                else:
                    found[hex_id] = [unit]
        return found

    def with_unit(self, unit: Unit) -> "Game":
        units = dict(self.units)
        before = units.get(unit.key)
        units[unit.key] = unit
        game = replace(self, units=MappingProxyType(units))
        # A replay applies one event after another, each making a new Game: carrying the
        # indexes over with the one unit replaced spares a scan of every unit per event.
        index = self.__dict__.get("_on_map_by_hex")
        if index is not None:
            game.__dict__["_on_map_by_hex"] = _index_moved(index, before, unit)
        attached = self.__dict__.get("_attached_by_key")
        if attached is not None and before is not None and before.attached_to == unit.attached_to:
            if unit.attached_to is not None:      # the same place in its list: the order of ``units``
                attached = dict(attached)
                attached[unit.attached_to] = [unit if u.key == unit.key else u for u in attached[unit.attached_to]]
            game.__dict__["_attached_by_key"] = attached
        carried = self.__dict__.get("_carried_by_key")
        if carried is not None and before is not None and before.carried_by == unit.carried_by:
            if unit.carried_by is not None:      # the same place in its list, as for attached units
                carried = dict(carried)
                carried[unit.carried_by] = [unit if u.key == unit.key else u for u in carried[unit.carried_by]]
            game.__dict__["_carried_by_key"] = carried
        return game

    def but(self, **changes: Any) -> "Game":
        """``dataclasses.replace`` of fields other than ``units``, keeping the unit indexes
        already built (they depend on the units only)."""
        if "units" in changes:
            raise ValueError("Game.but changes fields other than units; use with_unit")
        game = replace(self, **changes)
        for cached in ("_on_map_by_hex", "_attached_by_key", "_carried_by_key"):
            if cached in self.__dict__:
                game.__dict__[cached] = self.__dict__[cached]
        return game

    def with_hex(self, hex_state: HexState) -> "Game":
        hexes = dict(self.hexes)
        hexes[hex_state.id] = hex_state
        return self.but(hexes=MappingProxyType(hexes))

    def passengers(self, transport: str) -> list[Unit]:
        """The units on the map carried by ``transport``, in the order of :attr:`units`."""
        if isinstance(self.units, MappingProxyType):      # read-only: indexed once per Game
            return [u for u in self._carried_by_key.get(transport, ()) if u.on_map]
        return [u for u in self.units.values() if u.carried_by == transport and u.on_map]

    @cached_property
    def _carried_by_key(self) -> dict[str, list[Unit]]:
        """The units by the transport carrying them. Every classic move asks for the mover's
        Passengers (they go with it, §5.2): reading every unit for each cost about 6% of a
        judged replay of The Longest Day's logs."""
        found: dict[str, list[Unit]] = {}
        for unit in self.units.values():
            key = unit.carried_by
            if key is not None:
                found.setdefault(key, []).append(unit)
        return found

    def riders(self, key: str, *, deployed_hqs: bool = True) -> list[Unit]:
        """The counters that go wherever ``key`` goes, and theirs in turn: its Passengers (WaW85
        §9.8.1, EG/TUS §5.2 "Place loaded infantry and SW units under the transport"), then
        the Support Weapons, Leaders and HQs stacked on it (WaW85 §9.2; EG/TUS §1.3.5 SWs
        "remain with the platoon", 001 §1.3.6 a leader "must ... remain with, one platoon").
        ``deployed_hqs=False`` leaves out an HQ deployed with it, which goes only when it is
        moved with its units (EG/TUS §1.3.3.1: :attr:`Params.deployed_hq_rides`).

        Each rider is followed by its own riders (a Passenger's Support Weapon right after
        it), so a move reads transport, passenger, the passenger's SW and Leader, then the
        transport's own (:data:`_RIDER_ORDER`). Read from the indexes by transport and by host."""
        found: list[Unit] = []
        seen = {key}

        def visit(host: str) -> None:
            carried = sorted(self.passengers(host), key=_rider_order)
            stacked = sorted((u for u in self.attached(host) if u.on_map), key=_rider_order)
            for unit in (*carried, *stacked):
                kind = unit.type.target_type
                if unit.key in seen or kind == "aircraft" or (kind == "hq" and not deployed_hqs
                                                               and unit.carried_by != host):
                    continue
                seen.add(unit.key)
                found.append(unit)
                visit(unit.key)

        visit(key)
        return found

    def attached(self, key: str) -> list[Unit]:
        """The units attached to ``key`` (its leader, its Support Weapons), in the order of :attr:`units`."""
        if key is not None and isinstance(self.units, MappingProxyType):      # read-only: indexed once per Game
            return list(self._attached_by_key.get(key, ()))
        return [u for u in self.units.values() if u.attached_to == key]

    @cached_property
    def _attached_by_key(self) -> dict[str, list[Unit]]:
        """The units by the key they are attached to. The stacking check asks it of every unit in
        a hex (§1.3.1 one SW per infantry unit): reading every unit for each cost about 8% of a
        judged replay of The Longest Day's logs."""
        found: dict[str, list[Unit]] = {}
        for unit in self.units.values():
            key = unit.attached_to
            if key is not None:
                if key in found:
                    found[key].append(unit)
                else:
                    found[key] = [unit]
        return found


#: The order of the counters carried by or stacked on one unit among its riders: the book's
#: (WaW85 §9.2: units, Support Weapons, then HQs and Leaders; a Leader, who is assigned to one
#: unit, before an HQ deployed with it), each kind in the order of ``Game.units``.
_RIDER_ORDER = {"support_weapon": 1, "leader": 2, "hq": 3}


def _rider_order(unit: Unit) -> int:
    return _RIDER_ORDER.get(unit.type.target_type, 0)


def _index_moved(index: dict[str, list[Unit]], before: Unit | None, after: Unit) -> dict[str, list[Unit]]:
    """``Game._on_map_by_hex`` with one unit replaced (the lists it touches are new ones: the
    index of the earlier Game stays as it was)."""
    moved = dict(index)
    if before is not None and before.hex is not None and before.location == "map":
        rest = [u for u in moved.get(before.hex, ()) if u.key != before.key]
        if rest:
            moved[before.hex] = rest
        else:
            moved.pop(before.hex, None)
    if after.hex is not None and after.location == "map":
        moved[after.hex] = [*moved.get(after.hex, ()), after]
    return moved
