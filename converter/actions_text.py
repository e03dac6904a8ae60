"""The short action syntax a player types, and the YAML form of an actions file.

A short action is one line: a verb, the units or hexes it names, then options::

    fire C5 F8 ap          direct fire from the unit in C5 at the unit in F8 with AP
    opfire C5 F8 he        opportunity fire
    assault D4 E4          assault from D4 into E4
    overrun D4 E4
    move C5 D5 E5          move the unit in C5 along D5, E5
    rally C5               rally a Disrupted unit
    los C5 F8              line of sight only
    artillery us-hq F6 he fp=4 to_hit=5   a fire mission called by the HQ on hex F6
    artillery mortar F6 he spotter=us-hq  an on-map mortar firing on F6, spotted by the HQ
    airstrike a-10 F6      an airstrike counter attacking hex F6
    markers                the Marker Removal Phase on the whole map (or ``markers F6``: one hex)
    fire leopard-c1 t-64   units may be named by key instead of hex

An Assault that makes the defender retreat takes ``retreat=HEX`` (or ``retreat=HEX1,HEX2``,
one hex per unit of the retreating stack); a classic fire mission
that strays (a 6) takes ``scatter=HEX``, the adjacent hex the opponent chooses.

``key=value`` words set any other action field (``hits=2``, ``mission=he``).
Numbers are bounded by what the rules allow (:func:`check_fields`): an action file
from a stranger cannot ask the referee for a billion hits or a die showing 7.
A reference is a unit key of the game, or a hex holding the unit meant: the actor
must be the only unit of its hex that can act, the target the only enemy one.
Anything ambiguous is refused with the candidates named, never guessed.

An actions file (YAML) is a list, or a mapping with ``actions:``; each item is a
short action string, or a mapping ``{kind: direct_fire, unit: ..., target: ...}``
with any :class:`referee.actions.Action` field.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Mapping

from converter.errors import SchemaError, WawkitError
from converter.schema import parse_text, read_text
from referee.actions import Action, Mission, make_action
from referee.errors import RefereeError
from referee.model import Game, Unit

#: Verb typed -> action kind of the referee.
VERBS: dict[str, str] = {
    "fire": "direct_fire", "df": "direct_fire", "direct_fire": "direct_fire",
    "opfire": "opportunity_fire", "opportunity_fire": "opportunity_fire",
    "movefire": "move_and_fire", "move_and_fire": "move_and_fire",
    "assault": "assault", "overrun": "overrun",
    "move": "move", "rally": "rally", "los": "los",
    "command": "command_check", "command_check": "command_check",
    "morale": "morale_check", "morale_check": "morale_check",
    "stacking": "stacking",
    "artillery": "indirect_fire", "indirect_fire": "indirect_fire",
    "airstrike": "airstrike",
    "markers": "marker_removal", "marker_removal": "marker_removal",
}
#: Kinds that may name nothing: the Marker Removal Phase sweeps the whole map.
WHOLE_MAP = frozenset({"marker_removal"})
#: The mission types a short ``artillery`` action may name (EG/TUS §8.1-§8.6, WaW85 §14.6).
MISSIONS = ("he", "smoke", "fascam", "chemical", "dpicm", "mlrs", "adm")
WEAPONS = ("ap", "he", "aa")
#: The short forms whose words are not the plain ``UNIT TARGET`` (``wawkit actions`` prints them).
SYNTAX: dict[str, str] = {
    "indirect_fire": "CALLER HEX [" + "|".join(MISSIONS) + "] fp=N to_hit=N [spotter=UNIT] [scatter=HEX]",
    "airstrike": "UNIT HEX",
    "marker_removal": "[HEX]",
    "assault": "UNIT TARGET [retreat=HEX] [field=value ...]",
    "overrun": "UNIT TARGET [path=HEX,...] [field=value ...]",
    "move_and_fire": "UNIT TARGET [ap|he|aa] [path=HEX,...] [field=value ...]",
}
#: Kinds whose second reference is a hex (not a unit), and kinds with a path of hexes.
HEX_TARGET = frozenset({"stacking", "indirect_fire", "airstrike"})
PATH_KINDS = frozenset({"move"})
#: Kinds that act on a target unit: without one the referee could only answer "not stated".
TARGET_KINDS = frozenset({"direct_fire", "opportunity_fire", "move_and_fire", "assault", "overrun", "los",
                          "indirect_fire", "airstrike"})
TUPLE_FIELDS = frozenset({"bonus_from", "supporting", "path"})
INT_FIELDS = frozenset({"hits", "count"})
#: Fields of the ``mission`` of an ``artillery`` action, given as words (``fp=4 to_hit=5``).
MISSION_INT_FIELDS = frozenset({"fp", "to_hit"})
_WHOLE = re.compile(r"[+-]?[0-9]+")

# -- what the rules allow ---------------------------------------------------------------
#: Faces of the die: every roll of the three rulebooks is of six-sided dice ("dice (d6)",
#: TUS §6.1; WaW85 §1.6.1).
DIE_FACES = 6
#: Most dice one roll can call for. The largest roll of the rules is an overrun by a full
#: stack: two combat units (stacking limit, TUS §1.4; WaW85 §9.2) and the hex's one HQ adding
#: its leadership (TUS §1.3.3.2), each a one-digit factor, trebled (TUS §6.4): 3 x 27 = 81.
MAX_DICE = 81
#: Most hits one attack scores: one per die rolled (TUS §6.1, §6.3, §8.1).
MAX_HITS = MAX_DICE
#: Largest ``count`` (fire missions called at once, formations or maps of a scenario):
#: the rules speak of a handful (§8.0: two missions); two digits leave room for any scenario.
MAX_COUNT = 99
#: Longest move path, in hexes (MP are spent one hex at a time, TUS §5; even a helicopter's
#: unlimited movement crosses a World at War map in far fewer).
MAX_PATH = 200
#: Most units named in one list (``supporting``, ``bonus_from``): a stack holds two combat
#: units and an HQ, and an assault brings in the adjacent stacks (TUS §1.4, §6.3).
MAX_UNITS_LISTED = 24
#: Most dice given for one labelled roll of an action, and on the command line in all.
MAX_GIVEN_DICE = 1000
#: Most actions in one actions file.
MAX_ACTIONS = 10_000


class ActionSyntaxError(WawkitError):
    """An action that cannot be read or whose units cannot be identified."""


@dataclass(frozen=True)
class ActionSpec:
    """An action as written, before its references are bound to units of a game."""

    kind: str
    refs: tuple[str, ...]
    weapon: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    text: str = ""
    dice: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    """Values for named rolls of this action (``attack``, ``save``), used before the run's dice."""

    def bind(self, game: Game) -> Action:
        """The referee action, with each hex or name replaced by the unit key it means."""
        if not self.refs and self.kind in WHOLE_MAP:
            return _make(self)
        if not self.refs:
            raise ActionSyntaxError(f"{self.text or self.kind!r}: names no unit")
        if self.kind in WHOLE_MAP:
            return _make(self, target=self.refs[0] if self.refs[0] in game.hexes
                         else resolve_actor(game, self.refs[0], self.text).key)
        if self.kind == "stacking":
            return _make(self, target=self.refs[0])
        if self.kind == "indirect_fire":
            return self._bind_mission(game)
        actor = resolve_actor(game, self.refs[0], self.text)
        if self.kind in HEX_TARGET:
            if len(self.refs) != 2:
                raise ActionSyntaxError(f"{self.text!r}: give the unit, then the target hex")
            return _make(self, unit=actor.key, target=_hex_of(game, self.refs[1]))
        values: dict[str, Any] = {"unit": actor.key}
        rest = self.refs[1:]
        if self.kind in PATH_KINDS:
            if rest and self.options.get("path"):
                raise ActionSyntaxError(f"{self.text!r}: give the hexes entered once: after the unit, or as path=HEX,...")
            if not rest and not self.options.get("path"):
                raise ActionSyntaxError(f"{self.text!r}: a move needs at least one hex to enter")
            if rest:
                values["path"] = tuple(rest)
        elif rest:
            values["target"] = resolve_target(game, actor, rest[0], self.text)
            if len(rest) > 1:
                raise ActionSyntaxError(f"{self.text!r}: unexpected {' '.join(rest[1:])!r}")
        elif self.kind in TARGET_KINDS and "target" not in self.options:
            raise ActionSyntaxError(f"{self.text or self.kind!r}: names no target; give the unit "
                                    f"(key, counter name or hex) after {self.refs[0]!r}")
        if self.weapon:
            values["weapon"] = self.weapon
        _check_path(game, self.options.get("path", values.get("path")), self.text or self.kind)
        return _make(self, **values)

    def _bind_mission(self, game: Game) -> Action:
        """``artillery CALLER HEX [MISSION]``: the first unit calls the mission (an HQ, recon
        unit or leader) or fires it (a mortar or on-map artillery, ``spotter=`` naming its
        spotter when it does not see the hex); the second word is the target hex."""
        if len(self.refs) != 2:
            raise ActionSyntaxError(f"{self.text!r}: give the calling (or firing) unit, then the target hex, "
                                    "e.g. 'artillery us-hq F6 he fp=4 to_hit=5'")
        first = resolve_actor(game, self.refs[0], self.text)
        values: dict[str, Any] = {"target": _hex_of(game, self.refs[1])}
        fires = "indirect_fire" in first.type.abilities or first.type.arty_type is not None
        if fires:
            values["unit"] = first.key
        else:
            values["spotter"] = first.key
        if "spotter" in self.options:
            values["spotter"] = resolve_actor(game, str(self.options["spotter"]), self.text).key
        return _make(self, **values)


def _make(spec: ActionSpec, **values: Any) -> Action:
    values.update(spec.options)
    try:
        return make_action(spec.kind, **values)
    except (RefereeError, TypeError) as error:
        raise ActionSyntaxError(f"{spec.text or spec.kind!r}: {error}") from None


def _shown(text: str) -> str:
    """An action as an error quotes it: in full, or its start when it is long."""
    return repr(text) if len(text) <= 120 else repr(text[:100]) + f"... ({len(text)} characters)"


def parse(text: str) -> ActionSpec:
    """Read one short action (``fire C5 F8 ap``) into an :class:`ActionSpec`."""
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise ActionSyntaxError(f"{_shown(text)}: {error}") from None
    if not words:
        raise ActionSyntaxError("empty action")
    verb = words[0].lower()
    kind = VERBS.get(verb)
    if kind is None:
        raise ActionSyntaxError(f"{_shown(text)}: unknown verb {words[0]!r} (known: {', '.join(sorted(VERBS))})")
    refs: list[str] = []
    weapon: str | None = None
    options: dict[str, Any] = {}
    mission: dict[str, Any] = {}
    for index, word in enumerate(words[1:], start=1):
        if "=" in word:
            key, _, value = word.partition("=")
            if kind == "indirect_fire" and key in MISSION_INT_FIELDS:
                mission[key] = _whole(f"mission.{key}", value, text)
            else:
                options[key] = _option(key, value, text)
        elif kind == "indirect_fire" and word.lower() in MISSIONS and index > 1:
            mission["type"] = word.lower()
        elif word.lower() in WEAPONS and index > 1 and kind != "indirect_fire":
            weapon = word.lower()
        else:
            refs.append(word)
    if kind == "indirect_fire":
        given = options.pop("mission", None)
        mission = {"type": given.type, **mission} if isinstance(given, Mission) else mission
        if "type" not in mission:
            raise ActionSyntaxError(f"{text!r}: name the mission ({', '.join(MISSIONS)}), e.g. "
                                    "'artillery us-hq F6 he fp=4 to_hit=5'")
        options["mission"] = Mission(**mission)
    check_fields({**options, **({"path": refs[1:]} if kind in PATH_KINDS and refs[1:] else {})}, {}, _shown(text))
    return ActionSpec(kind, tuple(refs), weapon, options, text.strip())


def _whole(name: str, value: str, text: str) -> int:
    """A whole number typed as ``name=value``, refused by name when it is not one."""
    if not (_WHOLE.fullmatch(value) and len(value) <= 4000):  # int() itself refuses longer strings
        raise ActionSyntaxError(f"{_shown(text)}: {name} must be a whole number, not {value[:40]!r}")
    return int(value)


def _option(key: str, value: str, text: str) -> Any:
    if key == "mission":
        return Mission(type=value)
    if key in INT_FIELDS:
        number = _whole(key, value, text)
        check_fields({key: number}, {}, _shown(text))
        return number
    if key in TUPLE_FIELDS:
        return tuple(v for v in value.split(",") if v)
    if key == "passed":
        if value.lower() not in ("true", "false"):
            raise ActionSyntaxError(f"{_shown(text)}: passed must be true or false, not {value!r}")
        return value.lower() == "true"
    return value


def from_mapping(item: Mapping[str, Any], where: str = "") -> ActionSpec:
    """An action given as a YAML mapping: ``kind`` (or ``action``), ``unit``, ``target``, fields."""
    data = dict(item)
    for note in ("source", "note"):
        data.pop(note, None)
    label = data.pop("id", None)
    dice = data.pop("dice", None) or {}
    _check_dice_types(dice, where)
    kind = data.pop("kind", None) or data.pop("action", None)
    if not isinstance(kind, str):
        raise ActionSyntaxError(f"{where}: an action needs a 'kind' (e.g. direct_fire)")
    kind = VERBS.get(kind, kind)
    unit = data.pop("unit", None)
    target = data.pop("target", None)
    path = data.pop("path", None) or []
    weapon = data.pop("weapon", None)
    for name, value in (("unit", unit), ("target", target), ("weapon", weapon)):
        if value is not None and not isinstance(value, (str, int)):
            raise ActionSyntaxError(f"{where}: {name} must be one unit key, hex or name")
    if not isinstance(path, list):
        raise ActionSyntaxError(f"{where}: path must be a list of hexes")
    refs = tuple(str(r) for r in ([unit] if unit is not None else []) + path
                 + ([target] if target is not None else []))
    _check_fields(data, where)
    check_fields({**data, "path": path}, dice, where)
    if "mission" in data:
        data["mission"] = Mission(**data["mission"])
    for name in TUPLE_FIELDS & set(data):
        data[name] = tuple(data[name])
    text = str(label) if label is not None else " ".join((kind, *refs, *([weapon] if weapon else [])))
    return ActionSpec(kind, refs, weapon, data, text, {str(k): tuple(v) for k, v in dice.items()})


#: The YAML type each other action field must have.
FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "hits": (int,), "count": (int,), "passed": (bool,), "result": (str,), "cause": (str,), "side": (str,),
    "spotter": (str,), "choice": (str, list), "bonus_from": (list,), "supporting": (list,), "mission": (dict,)}
MISSION_FIELDS = {"type": str, "fp": int, "to_hit": int}


#: How an error names each YAML type (as the short form's errors do: "a whole number").
TYPE_WORDS = {int: "a whole number", bool: "true or false", str: "text", list: "a list", dict: "a mapping"}


def _given(value: Any) -> str:
    """A value from the file as an error shows it: its YAML text, cut to 40 characters."""
    if isinstance(value, (list, dict)):
        return f"a {'list' if isinstance(value, list) else 'mapping'}"
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "null"}[value]
    return repr(value if not isinstance(value, str) else value[:40])


def _check_dice_types(dice: Any, where: str) -> None:
    """Given dice map a roll label to a list of whole numbers (their faces are checked with the
    other bounds, :func:`check_fields`)."""
    if not isinstance(dice, Mapping):
        raise ActionSyntaxError(f"{where}: dice must map a roll label to a list of dice, not {_given(dice)}")
    for label, values in dice.items():
        if not isinstance(values, list):
            raise ActionSyntaxError(f"{where}: dice.{label} must be a list of dice, not {_given(values)}")
        for index, value in enumerate(values, 1):
            if type(value) is not int:
                raise ActionSyntaxError(f"{where}: dice.{label}: die {index} is {_given(value)}, not a whole number")


def _check_fields(data: Mapping[str, Any], where: str) -> None:
    """Refuse fields of the wrong type before they reach the referee."""
    for name, value in data.items():
        kinds = FIELD_TYPES.get(name)
        if kinds is not None and (not isinstance(value, kinds) or (bool in kinds) != isinstance(value, bool)):
            raise ActionSyntaxError(f"{where}: {name} must be {' or '.join(TYPE_WORDS[k] for k in kinds)}, "
                                    f"not {_given(value)}")
        if isinstance(value, list) and not all(isinstance(v, str) for v in value):
            raise ActionSyntaxError(f"{where}: {name} must list unit keys")
    mission = data.get("mission")
    if isinstance(mission, dict):
        for key, value in mission.items():
            if key not in MISSION_FIELDS or type(value) is not MISSION_FIELDS[key]:
                raise ActionSyntaxError(f"{where}: mission.{key} is not a mission field "
                                        f"({', '.join(MISSION_FIELDS)}) of the right type")


def check_fields(options: Mapping[str, Any], dice: Mapping[str, Any], where: str) -> None:
    """Refuse numbers the rules cannot produce: hits, counts, mission FP and To Hit, dice, path lengths.

    The referee trusts the numbers it is given (a given ``hits`` is applied hit by hit),
    so the bounds are checked here, where actions are read, and name the field.
    """
    def whole(name: str, value: Any, low: int, high: int, why: str) -> None:
        if type(value) is int and not low <= value <= high:
            shown = value if abs(value) < 10**20 else f"(a {len(str(abs(value)))}-digit number)"
            raise ActionSyntaxError(f"{where}: {name}={shown} is outside {low}..{high} ({why})")
    hits = options.get("hits")
    if isinstance(hits, Mapping):
        for unit, value in hits.items():
            whole(f"hits.{unit}", value, 0, MAX_HITS, "one hit per die rolled, TUS §6.1")
    else:
        whole("hits", hits, 0, MAX_HITS, "one hit per die rolled, TUS §6.1")
    whole("count", options.get("count"), 0, MAX_COUNT, "a handful of missions, formations or maps")
    mission = options.get("mission")
    fields_of = mission if isinstance(mission, Mapping) else getattr(mission, "__dict__", {})
    whole("mission.fp", fields_of.get("fp"), 0, MAX_DICE, f"at most {MAX_DICE} dice in one roll")
    whole("mission.to_hit", fields_of.get("to_hit"), 1, DIE_FACES, "a face of the d6, TUS §8.1")
    for name, limit in (("path", MAX_PATH), ("supporting", MAX_UNITS_LISTED), ("bonus_from", MAX_UNITS_LISTED)):
        value = options.get(name)
        if isinstance(value, (list, tuple)) and len(value) > limit:
            raise ActionSyntaxError(f"{where}: {name} lists {len(value)} entries, over the {limit} allowed")
    for label, values in dice.items():
        check_dice(values, f"{where}: dice.{label}")


def check_dice(values: Iterable[Any], what: str) -> None:
    """Given dice: at most :data:`MAX_GIVEN_DICE`, each a face of the d6 (TUS §6.1)."""
    values = list(values)
    if len(values) > MAX_GIVEN_DICE:
        raise ActionSyntaxError(f"{what}: {len(values)} dice given, over the {MAX_GIVEN_DICE} allowed")
    for index, value in enumerate(values):
        if type(value) is int and not 1 <= value <= DIE_FACES:
            raise ActionSyntaxError(f"{what}: die {index + 1} is {value}, not a face of a d{DIE_FACES} (TUS §6.1)")


def actions_from_text(text: str, *, file: str = "actions") -> list[ActionSpec]:
    """The actions of an actions file's text (YAML, or JSON for a ``.json`` name), read with the
    hardened loader of :mod:`converter.documents`."""
    try:
        data = parse_text(text, file=file)
    except SchemaError as error:
        raise ActionSyntaxError(error.message, file=file, position=error.position) from None
    return _specs(data, file)


def load_actions(source: str | Path | Iterable[Any]) -> list[ActionSpec]:
    """Read an actions file (or an already-loaded list): strings and mappings, in order.

    A file goes through the bounded reader and the hardened loader (no aliases, no tags,
    bounded size, depth and integers), like every document wawkit reads.
    """
    if isinstance(source, (str, Path)):
        name = str(source)
        try:
            text = read_text(source)
        except SchemaError as error:
            raise ActionSyntaxError(error.message, file=name, position=error.position) from None
        return actions_from_text(text, file=name)
    return _specs(list(source), "actions")


def _specs(data: Any, name: str) -> list[ActionSpec]:
    if isinstance(data, Mapping):
        data = data.get("actions")
    if not isinstance(data, list) or not data:
        raise ActionSyntaxError("expected a non-empty list of actions (or 'actions:')", file=name)
    if len(data) > MAX_ACTIONS:
        raise ActionSyntaxError(f"lists {len(data)} actions, over the {MAX_ACTIONS} allowed", file=name)
    specs = []
    for index, item in enumerate(data):
        where = f"{name}: actions[{index}]"
        if isinstance(item, str):
            try:
                specs.append(parse(item))
            except ActionSyntaxError as error:
                raise ActionSyntaxError(f"{where}: {error.message}") from None
        elif isinstance(item, Mapping):
            specs.append(from_mapping(item, where))
        else:
            raise ActionSyntaxError(f"{where}: expected a string or a mapping, not {type(item).__name__}")
    return specs


# -- binding references ----------------------------------------------------------------

def _hex_of(game: Game, ref: str) -> str:
    """A target hex: a hex of the position, or the hex of the unit named."""
    if ref in game.hexes:
        return ref
    if ref in game.units and game.units[ref].hex:
        return str(game.units[ref].hex)
    named = _by_name(game, ref)
    if len(named) == 1 and named[0].hex:
        return str(named[0].hex)
    raise ActionSyntaxError(f"{ref!r} is not a hex of the map (nor a unit on it)")


def _check_path(game: Game, path: Any, text: str) -> None:
    """Every hex of a path is a hex of the map, when the position has one (a save read through
    its module does; a stated situation may list only the hexes it needs)."""
    if not path or not game.hexes or isinstance(path, str):
        return
    unknown = [str(h) for h in path if str(h) not in game.hexes]
    if unknown:
        raise ActionSyntaxError(f"{_shown(text)}: {', '.join(map(repr, unknown))} "
                                f"{'is not a hex' if len(unknown) == 1 else 'are not hexes'} of the map")


def _on_map(game: Game, hex_id: str) -> list[Unit]:
    return [u for u in game.stack(hex_id) if u.type.target_type not in ("marker",)]


def _by_name(game: Game, ref: str) -> list[Unit]:
    folded = ref.casefold()
    return [u for u in game.units.values() if u.name.casefold() == folded and u.on_map]


def resolve_actor(game: Game, ref: str, text: str = "") -> Unit:
    """The acting unit named by a key, a counter name or a hex holding exactly one unit."""
    if ref in game.units:
        return game.units[ref]
    named = _by_name(game, ref)
    candidates = named or _on_map(game, ref)
    return _one(candidates, ref, text, "unit")


def resolve_target(game: Game, actor: Unit, ref: str, text: str = "") -> str:
    """The target's unit key: a key, a name, or the only enemy unit in the hex named."""
    if ref in game.units:
        return ref
    named = _by_name(game, ref)
    if named:
        return _one(named, ref, text, "target").key
    stack = _on_map(game, ref)
    enemies = [u for u in stack if actor.side is None or u.side is None or u.side != actor.side]
    return _one(enemies or stack, ref, text, "target").key


def _one(candidates: list[Unit], ref: str, text: str, what: str) -> Unit:
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        raise ActionSyntaxError(f"{text!r}: no {what} at or named {ref!r}")
    names = ", ".join(f"{u.key} ({u.name})" for u in candidates)
    raise ActionSyntaxError(f"{text!r}: {ref!r} is ambiguous ({names}); name the unit by key")


def with_options(spec: ActionSpec, **options: Any) -> ActionSpec:
    """The same action with more fields set (the caller's choices override the text's)."""
    return replace(spec, options={**spec.options, **options})


__all__ = ["ActionSpec", "ActionSyntaxError", "VERBS", "parse", "from_mapping", "load_actions", "actions_from_text",
           "check_fields", "check_dice", "MAX_DICE", "MAX_HITS", "MAX_COUNT", "MAX_PATH", "MAX_GIVEN_DICE", "DIE_FACES",
           "resolve_actor", "resolve_target", "with_options"]
