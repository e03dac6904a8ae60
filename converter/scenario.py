"""Scenario files: a whole :class:`~referee.model.Game` as YAML or JSON, and back, unchanged.

The writer walks the model's dataclasses field by field, so a field added to the model
is written without code here; values equal to the field's default are left out to keep
files short. Unit types are written once under ``unit_types`` and named by the units
that print them. The reader validates against ``schemas/scenario.schema.json`` and
rebuilds exactly the objects the writer saw: reading what was written gives an equal
Game. A scenario may also carry the VASSAL piece id of each unit (``vassal.pieces``), where
its piece lay (``vassal.positions``) and what its counter showed (``vassal.states``).
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from types import MappingProxyType
from typing import Any, Mapping

import yaml

from converter.errors import SchemaError
from converter.piece_state import CounterState
from converter.schema import parse_text, read_text, validate
from converter.vassal.container import write_atomic
from converter.vassal.grids.placement import PlacedBoard
from referee.hexes import Hex
from referee.model import (AssaultValue, Facts, Formation, Game, HexState, Relation, Status, Unit, UnitType,
                           Weapon)

FORMAT = 1


@dataclass
class Scenario:
    """A Game plus what ties it to files: its name and the VASSAL piece of each unit."""

    game: Game
    name: str | None = None
    pieces: dict[str, str] = field(default_factory=dict)
    module: str | None = None
    save: str | None = None
    unrecognised: list[dict[str, Any]] = field(default_factory=list)
    positions: dict[str, tuple[str | None, int, int]] = field(default_factory=dict)
    """Unit key -> (map, x, y) of its piece in the save it came from."""
    layouts: dict[str, tuple[PlacedBoard, ...]] = field(default_factory=dict)
    """Map id -> the boards that save laid out on it."""
    states: dict[str, CounterState] = field(default_factory=dict)
    """Unit key -> what its counter in that save showed beyond a fresh one (:mod:`converter.piece_state`)."""


# -- writing ------------------------------------------------------------------------------

def _default(f: Any) -> Any:
    if f.default is not MISSING:
        return f.default
    if f.default_factory is not MISSING:  # type: ignore[misc]
        return f.default_factory()  # type: ignore[misc]
    return MISSING


def _plain(value: Any) -> Any:
    """A model value as YAML/JSON data: dataclasses as mappings without defaults, sets sorted."""
    if isinstance(value, Hex):
        return {"q": value.q, "r": value.r}
    if is_dataclass(value):
        out = {}
        for f in fields(value):
            item = getattr(value, f.name)
            if item == _default(f) and not (f.name in ("key", "id", "name")):
                continue
            out[f.name] = _plain(item)
        return out
    if isinstance(value, (frozenset, set)):
        return sorted(value)
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "type"


def to_document(scenario: Scenario) -> dict[str, Any]:
    game = scenario.game
    doc: dict[str, Any] = {"scenario": FORMAT}
    if scenario.name is not None:
        doc["name"] = scenario.name
    if game.turn is not None:
        doc["turn"] = game.turn
    if game.phase is not None:
        doc["phase"] = game.phase
    if game.missions_left:
        doc["missions_left"] = dict(game.missions_left)
    if game.whole_board:
        doc["whole_board"] = True
    type_keys: dict[UnitType, str] = {}
    types: dict[str, Any] = {}
    for unit in game.units.values():
        if unit.type not in type_keys:
            base = _slug(unit.type.name or unit.key)
            key, n = base, 1
            while key in types:
                n += 1
                key = f"{base}-{n}"
            type_keys[unit.type] = key
            types[key] = _plain(unit.type)
    doc["unit_types"] = types
    units = []
    for unit in game.units.values():
        raw = _plain(unit)
        raw["type"] = type_keys[unit.type]
        units.append({"key": raw.pop("key"), **raw})
    doc["units"] = units
    doc["hexes"] = [_plain(h) for h in game.hexes.values()]
    if game.formations:
        doc["formations"] = [_plain(f) for f in game.formations.values()]
    if game.facts != Facts():
        doc["facts"] = _plain(game.facts)
    positions = {key: _Flow(where) for key, where in scenario.positions.items()}
    layouts = {map_id: [_Flow([b.name, b.reversed, b.column, b.row]) for b in boards]
               for map_id, boards in scenario.layouts.items()}
    states = {key: _FlowMap({"piece": kept.piece, "traits": dict(kept.traits),
                             **({"slot": kept.slot} if kept.slot is not None else {})})
              for key, kept in scenario.states.items()}
    vassal = {k: v for k, v in (("module", scenario.module), ("save", scenario.save),
                                ("pieces", scenario.pieces), ("unrecognised", scenario.unrecognised),
                                ("layouts", layouts), ("positions", positions), ("states", states)) if v}
    if vassal:
        doc["vassal"] = vassal
    return doc


class _Flow(list):  # type: ignore[type-arg]
    """A short list written on one line in YAML (a piece's [map, x, y])."""


class _FlowMap(dict):  # type: ignore[type-arg]
    """A short mapping written on one line in YAML (a counter's trait states)."""


class _Dumper(yaml.SafeDumper):
    """YAML as ``safe_dump`` writes it, with :class:`_Flow` lists on one line."""


_Dumper.add_representer(_Flow, lambda dumper, data: dumper.represent_sequence("tag:yaml.org,2002:seq", data,
                                                                              flow_style=True))
_Dumper.add_representer(_FlowMap, lambda dumper, data: dumper.represent_mapping("tag:yaml.org,2002:map", data,
                                                                                flow_style=True))


def dumps(scenario: Scenario, fmt: str = "yaml") -> str:
    doc = to_document(scenario)
    if fmt == "json":
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    return yaml.dump(doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110)


def write_scenario(scenario: Scenario, path: str | os.PathLike[str], *, overwrite: bool = False) -> None:
    """Write YAML (or JSON for a ``.json`` name) atomically; refuses to clobber unless asked."""
    fmt = "json" if str(path).lower().endswith(".json") else "yaml"
    write_atomic(path, dumps(scenario, fmt).encode("utf-8"), overwrite=overwrite)


# -- reading ------------------------------------------------------------------------------

def _build(cls: type, raw: Mapping[str, Any], nested: Mapping[str, Any] | None = None) -> Any:
    """A model dataclass from a mapping; ``nested`` gives converters for some fields."""
    values = {}
    for f in fields(cls):
        if f.name not in raw:
            continue
        convert = (nested or {}).get(f.name)
        values[f.name] = convert(raw[f.name]) if convert else raw[f.name]
    return cls(**values)


def _weapon(raw: Mapping[str, Any]) -> Weapon:
    return _build(Weapon, raw)


def _unit_type(raw: Mapping[str, Any]) -> UnitType:
    """A unit type and, nested the same way, its reduced side."""
    return _build(UnitType, raw, {"ap": _weapon, "he": _weapon, "aa": _weapon, "reduced": _unit_type,
                                  "assault": lambda r: _build(AssaultValue, r), "abilities": frozenset})


def _mapping(raw: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(raw))


def _hex(raw: Mapping[str, Any]) -> HexState:
    return _build(HexState, raw, {"markers": frozenset, "features": frozenset,
                                  "at": lambda r: Hex(r["q"], r["r"]),
                                  "terrain_db": lambda v: _mapping(v) if isinstance(v, Mapping) else v})


def from_document(doc: Mapping[str, Any], *, file: str | None = None) -> Scenario:
    validate(doc, "scenario", file=file)
    types = {key: _unit_type(raw) for key, raw in (doc.get("unit_types") or {}).items()}
    units: dict[str, Unit] = {}
    for index, raw in enumerate(doc["units"]):
        path = f"units[{index}]"
        if raw["key"] in units:
            raise SchemaError(f"unit key {raw['key']!r} appears twice", path=f"{path}.key", file=file)
        type_key = raw.get("type")
        if type_key is not None and type_key not in types:
            raise SchemaError(f"unit type {type_key!r} is not in unit_types", path=f"{path}.type", file=file)
        units[raw["key"]] = _build(Unit, raw, {"type": lambda k: types[k], "status": lambda r: _build(Status, r),
                                               "command_range": _mapping})
    hexes: dict[str, HexState] = {}
    for index, raw in enumerate(doc.get("hexes") or ()):
        if raw["id"] in hexes:
            raise SchemaError(f"hex {raw['id']!r} appears twice", path=f"hexes[{index}].id", file=file)
        hexes[raw["id"]] = _hex(raw)
    formations = {raw["name"]: _build(Formation, raw, {"command_range": _mapping})
                  for raw in doc.get("formations") or ()}
    facts_raw = doc.get("facts") or {}
    facts = Facts(_mapping({k: _build(Relation, v) for k, v in (facts_raw.get("relations") or {}).items()}),
                  _mapping(facts_raw.get("situation") or {}))
    game = Game(units=_mapping(units), hexes=_mapping(hexes), facts=facts, formations=_mapping(formations),
                turn=doc.get("turn"), phase=doc.get("phase"), whole_board=bool(doc.get("whole_board")),
                missions_left=_mapping(doc.get("missions_left") or {}))
    vassal = doc.get("vassal") or {}
    positions = {key: (where[0], where[1], where[2]) for key, where in (vassal.get("positions") or {}).items()}
    layouts = {map_id: tuple(PlacedBoard(*board) for board in boards)
               for map_id, boards in (vassal.get("layouts") or {}).items()}
    states = {key: CounterState(kept["piece"], dict(kept["traits"]), kept.get("slot"))
              for key, kept in (vassal.get("states") or {}).items()}
    return Scenario(game, doc.get("name"), dict(vassal.get("pieces") or {}), vassal.get("module"), vassal.get("save"),
                    list(vassal.get("unrecognised") or ()), positions, layouts, states)


def loads(text: str, *, file: str | None = None, fmt: str | None = None) -> Scenario:
    return from_document(parse_text(text, file=file, fmt=fmt), file=file)


def read_scenario(path: str | os.PathLike[str]) -> Scenario:
    return loads(read_text(path), file=str(path))


__all__ = ["FORMAT", "Scenario", "dumps", "from_document", "loads", "read_scenario", "to_document",
           "write_scenario"]
