"""The rule-case runner: executes ``rule-cases.yaml`` by the FORMAT.md algorithm.

Generic by construction: ``given`` becomes a :class:`~referee.model.Game` plus stated
facts, ``query.action`` is dispatched to the ruleset's procedure table, and ``expect``
is compared field by field. A new case that validates against the schema runs
without code changes; what the referee cannot answer is reported as a gap with its
reason, never as a pass.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Iterable, Iterator, Mapping

import yaml

from referee.actions import Action, Mission, make_action
from referee.errors import CaseError, RefereeError
from referee.events import apply_all, result_of
from referee.model import (AssaultValue, Facts, Game, HexState, Relation, Status, Unit,
                           UnitType, Weapon)
from referee.ruleset import Ruleset
from referee.verdict import Answer

SET_FIELDS = {"markers", "participants", "bands", "abilities"}
#: Per-unit results the procedures report (the rest of ``units.<key>`` is state afterwards).
#: Hex fields that are stated relations rather than the hex's own properties.
HEX_FACTS = {"distance", "adjacent_to", "to_objective", "to_home_edge", "enemy_units",
             "friendly_units", "adjacent_to_enemy", "away_from_attacker"}
UNIT_RESULTS = {"result", "hits", "fp", "to_hit", "retreat", "mp_before", "mp_after", "mp_max",
                "hexes_after", "excess_hits"}


# ---------------------------------------------------------------- dice -------------

class CaseDice:
    """Dice given by a case: one list per label, consumed in the order the procedure rolls."""

    def __init__(self, given: Mapping[str, list[int]] | None) -> None:
        self.pools = {label: list(values) for label, values in (given or {}).items()}
        self.log: list[tuple[str, list[int]]] = []

    def roll(self, n: int, label: str) -> list[int]:
        pool = self.pools.get(label)
        if pool is None or len(pool) < n:
            from referee.errors import NotStated
            raise NotStated(f"dice.{label}")
        values, self.pools[label] = pool[:n], pool[n:]
        self.log.append((label, values))
        return values

    def lacks(self, label: str) -> bool:
        """A roll the case does not list is not part of the case (FORMAT.md)."""
        return label not in self.pools

    def roll_total(self, n: int, label: str) -> int:
        return self.roll(1, f"{n}d6")[0]


# ---------------------------------------------------------------- building ---------

def _weapon(raw: Mapping[str, Any] | None) -> Weapon | None:
    if raw is None:
        return None
    return Weapon(fp=raw.get("fp"), to_hit=raw.get("to_hit"), range=raw.get("range"),
                  underlined=raw.get("range_underlined"),
                  colour=raw.get("color") or raw.get("range_color"),
                  range_colour=raw.get("range_color"))


def _unit(key: str, raw: Mapping[str, Any]) -> tuple[Unit, Relation]:
    """A case unit states the values of the side it shows, with its ``strength``: its type
    has no ``reduced`` side, so :attr:`Unit.current` is that type at either strength."""
    assault = raw.get("assault")
    utype = UnitType(
        name=raw.get("name"), target_type=raw.get("target_type"), steps=raw.get("steps"),
        ap=_weapon(raw.get("ap")), he=_weapon(raw.get("he")), aa=_weapon(raw.get("aa")),
        assault=AssaultValue(assault.get("fp"), assault.get("to_hit"), bool(assault.get("augmented")))
        if assault is not None else None,
        armor=raw.get("armor"), save=raw.get("save"), mp=raw.get("mp"),
        abilities=frozenset(raw.get("abilities") or ()), arty_type=raw.get("arty_type"),
        caliber_mm=raw.get("caliber_mm"), cost=raw.get("cost"))
    status_raw = dict(raw.get("status") or {})
    known = set(Status.__dataclass_fields__) - {"stated"}
    given_status = {k: v for k, v in status_raw.items() if k in known and v is not None}
    status = Status(**given_status, stated=frozenset(given_status))
    unit = Unit(key=key, type=utype, side=raw.get("side"), nation=raw.get("nation"),
                formation=raw.get("formation"), hex=raw.get("hex"), strength=raw.get("strength"),
                status=status, mode=raw.get("mode"), level=raw.get("level"),
                location=raw.get("location") or "map", attached_to=raw.get("attached_to"),
                carried_by=raw.get("carried_by"), morale=raw.get("morale"),
                leadership=raw.get("leadership"),
                command_range=MappingProxyType(dict(raw.get("command_range") or {})),
                stack_order=raw.get("stack_order"), formation_cards=raw.get("formation_cards"))
    relation = Relation(distance=raw.get("distance"), adjacent=raw.get("adjacent"),
                        within=raw.get("within"), los=raw.get("los"))
    return unit, relation


def _hex(raw: Mapping[str, Any]) -> HexState:
    return HexState(id=raw["id"], terrain=raw.get("terrain"), terrain_db=raw.get("terrain_db"),
                    markers=frozenset(raw.get("markers") or ()),
                    features=frozenset(raw.get("features") or ()), owner=raw.get("owner"),
                    mp_cost=raw.get("mp_cost"), to_target=raw.get("to_target"),
                    los=raw.get("los"), coord=raw.get("coord"),
                    stated=MappingProxyType({k: v for k, v in raw.items() if k not in _HEX_FIELDS}))


_HEX_FIELDS = frozenset({"id", "terrain", "terrain_db", "markers", "features", "owner", "mp_cost",
                         "to_target", "los", "coord"})


def build_game(given: Mapping[str, Any]) -> Game:
    """Translate a case's ``given`` into a game and its stated facts."""
    units: dict[str, Unit] = {}
    relations: dict[str, Relation] = {}
    for key, raw in (given.get("units") or {}).items():
        units[key], relations[key] = _unit(key, raw or {})
    for key, unit in list(units.items()):      # carried and attached counters share the hex
        host = unit.carried_by or unit.attached_to
        if unit.hex is None and host in units and units[host].hex is not None:
            units[key] = Unit(**{**unit.__dict__, "hex": units[host].hex})
    hexes = {h["id"]: _hex(h) for h in given.get("hexes") or ()}
    hex_facts = {h["id"]: {k: v for k, v in h.items() if k in HEX_FACTS}
                 for h in given.get("hexes") or ()}
    situation = dict(given.get("situation") or {})
    return Game(units=MappingProxyType(units), hexes=MappingProxyType(hexes),
                facts=Facts(MappingProxyType(relations), MappingProxyType(situation),
                            MappingProxyType(hex_facts)),
                turn=situation.get("turn"))


def build_action(query: Mapping[str, Any]) -> Action:
    """Translate a case's ``query`` into an action."""
    values = {k: v for k, v in query.items() if k != "action"}
    for name in ("unit", "target", "bonus_from", "supporting", "choice"):
        if isinstance(values.get(name), list):
            values[name] = tuple(values[name])
    if "mission" in values:
        values["mission"] = Mission(**values["mission"])
    if "action" not in query:
        raise CaseError("query.action is missing", position="given.query")
    return make_action(query["action"], **values)


# ---------------------------------------------------------------- comparing --------

@dataclass
class Outcome:
    """One case-run: passed, failed (with the differences) or gap (with the reason)."""

    case: str
    row: int | None
    flag: str | None
    status: str
    details: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        where = self.case + (f"[{self.row}]" if self.row is not None else "")
        return where + (f"@{self.flag}" if self.flag else "")

    def line(self) -> str:
        return f"{self.status.upper():6} {self.label}" + (": " + "; ".join(self.details) if self.details else "")


class Comparison:
    """Compare an expectation with an answer: collects mismatches and gaps by path."""

    def __init__(self, answer: Answer, before: Game, after: Game) -> None:
        self.answer, self.before, self.after = answer, before, after
        self.failures: list[str] = []
        self.gaps: list[str] = []

    def _gap_for(self, path: str) -> str | None:
        gaps = self.answer.gaps
        for candidate in (path, path.split(".")[0], "*"):
            if candidate in gaps:
                return gaps[candidate]
        parts = path.split(".")
        for i in range(len(parts), 1, -1):
            if ".".join(parts[:i]) in gaps:
                return gaps[".".join(parts[:i])]
        return None

    def check(self, path: str, expected: Any, actual: Any, missing: bool) -> None:
        gap = self._gap_for(path)
        if missing:
            self.gaps.append(f"{path}: {gap or 'not answered by ' + self.answer.action}")
            return
        name = path.split(".")[-1]
        if name in SET_FIELDS and isinstance(expected, list):
            ok = isinstance(actual, (list, set, frozenset, tuple)) and set(expected) == set(actual)
        else:
            ok = expected == actual
        if not ok:
            if gap is not None:
                self.gaps.append(f"{path}: {gap}")
            else:
                self.failures.append(f"{path}: expected {expected!r}, got {actual!r}")

    def compare(self, expect: Mapping[str, Any]) -> None:
        for name, expected in expect.items():
            if name == "units":
                for key, fields in expected.items():
                    self._unit(key, fields)
            elif name == "hexes":
                for hex_expect in expected:
                    self._hex(hex_expect)
            elif name == "situation":
                actual = self.answer.values.get("situation", {})
                for k, v in expected.items():
                    self.check(f"situation.{k}", v, actual.get(k), k not in actual)
            elif name == "modifiers":
                actual = dict(self.answer.modifier_totals())
                actual.update(self.answer.values.get("modifiers", {}))
                for k, v in expected.items():
                    self.check(f"modifiers.{k}", v, actual.get(k, 0),
                               not actual and "modifiers" not in self.answer.values
                               and not self.answer.modifiers)
            elif name == "mission":
                actual = self.answer.values.get("mission") or {}
                for k, v in expected.items():
                    self.check(f"mission.{k}", v, actual.get(k), k not in actual)
            else:
                present = name in self.answer.values
                self.check(name, expected, self.answer.values.get(name), not present)

    def _unit(self, key: str, fields: Mapping[str, Any]) -> None:
        values = self.answer.unit_values.get(key, {})
        unit = self.after.units.get(key)
        for name, expected in fields.items():
            path = f"units.{key}.{name}"
            if name == "result":
                # no event for the unit is "none" unless the procedure stopped short of it
                touched = any(getattr(e, "unit", None) == key for e in self.answer.events)
                stopped = "*" in self.answer.gaps or self._gap_for(path) is not None
                self.check(path, expected, result_of(key, self.answer.events), stopped and not touched)
            elif name in UNIT_RESULTS or (name == "level" and "level" in values):
                self.check(path, expected, values.get(name), name not in values)
            elif name == "status":
                for k, v in expected.items():
                    actual = getattr(unit.status, k, None) if unit else None
                    self.check(f"{path}.{k}", v, actual, unit is None or "*" in self.answer.gaps)
            else:
                actual = getattr(unit, name, None) if unit else None
                if name in ("abilities",) and unit:
                    actual = unit.type.abilities
                self.check(path, expected, actual, unit is None or "*" in self.answer.gaps)

    def _hex(self, hex_expect: Mapping[str, Any]) -> None:
        hex_state = self.after.hexes.get(hex_expect["id"])
        for name, expected in hex_expect.items():
            if name == "id":
                continue
            actual = getattr(hex_state, name, None) if hex_state else None
            if isinstance(actual, frozenset):
                actual = sorted(actual)
            self.check(f"hexes.{hex_expect['id']}.{name}", expected, actual,
                       hex_state is None or "*" in self.answer.gaps)


# ---------------------------------------------------------------- running ----------

def merge(base: Any, over: Any) -> Any:
    """FORMAT.md merge: mappings key by key, recursively; lists and scalars replace."""
    if isinstance(base, Mapping) and isinstance(over, Mapping):
        merged = dict(base)
        for key, value in over.items():
            merged[key] = merge(base[key], value) if key in base else value
        return merged
    return over


RulesetFactory = Callable[[str, "str | None"], Ruleset]


def run_one(ruleset: Ruleset, given: Mapping[str, Any],
            expect: Mapping[str, Any]) -> tuple[Answer, Comparison]:
    """Run one situation and compare it with one expectation."""
    game = build_game(given)
    action = build_action(given.get("query") or {})
    answer = ruleset.resolve(game, action, CaseDice(given.get("dice")))
    comparison = Comparison(answer, game, apply_all(game, answer.events))
    comparison.compare(expect)
    return answer, comparison


def run_case(case: Mapping[str, Any], factory: RulesetFactory,
             only_flag: str | None = None) -> Iterator[Outcome]:
    """Every run of one case: its rows, under each book flag that applies."""
    rows = case.get("rows") or []
    runs = [(merge(case.get("given") or {}, r.get("given") or {}),
             merge(case.get("expect") or {}, r.get("expect") or {}), r, i)
            for i, r in enumerate(rows)] if rows else [(case.get("given") or {}, case.get("expect") or {}, case, None)]
    for given, expect, row, index in runs:
        variant = row.get("variant") or case.get("variant")
        if case["ruleset"] == "waw85":
            flags: list[str | None] = [None]
        else:
            flags = [variant] if variant else ["eisenbach", "untold"]
        if only_flag is not None:
            flags = [f for f in flags if f == only_flag or f is None]
        for flag in flags:
            yield _run(case, factory, given, expect, row, index, flag)


def _run(case: Mapping[str, Any], factory: RulesetFactory, given: Mapping[str, Any],
         expect: Mapping[str, Any], row: Mapping[str, Any], index: int | None,
         flag: str | None) -> Outcome:
    outcome = Outcome(case["id"], index, flag, "passed")
    try:
        ruleset = factory(case["ruleset"], flag)
        answer, comparison = run_one(ruleset, given, expect)
    except CaseError:
        raise
    except RefereeError as error:
        outcome.status, outcome.details = "gap", [str(error)]
        return outcome
    unsettled = row.get("unsettled") or case.get("unsettled")
    if unsettled:
        matched = [r["label"] for r in unsettled.get("readings") or ()
                   if not _differs(answer, given, r.get("expect") or {})]
        outcome.status = "failed" if comparison.failures else "gap"
        outcome.details = comparison.failures or [
            f"unsettled: {unsettled['reason']}" + (f" (engine matches: {', '.join(matched)})" if matched else "")]
        return outcome
    if comparison.failures:
        outcome.status, outcome.details = "failed", comparison.failures + comparison.gaps
    elif comparison.gaps:
        outcome.status, outcome.details = "gap", comparison.gaps
    return outcome


def _differs(answer: Answer, given: Mapping[str, Any], expect: Mapping[str, Any]) -> bool:
    game = build_game(given)
    comparison = Comparison(answer, game, apply_all(game, answer.events))
    comparison.compare(expect)
    return bool(comparison.failures or comparison.gaps)


def load_cases(path: str | Path) -> list[dict[str, Any]]:
    """Read and shape-check a case file (a YAML list of mappings with id and ruleset)."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        raise CaseError(f"not valid YAML: {getattr(error, 'problem', error)}", file=str(path),
                        position=f"line {mark.line + 1}" if mark else None) from None
    except UnicodeDecodeError as error:
        raise CaseError("not UTF-8 text", file=str(path), position=f"byte {error.start}") from None
    return check_cases(data, str(path))


def check_cases(data: Any, file: str | None = None) -> list[dict[str, Any]]:
    """Shape-check parsed case data (a list of mappings with id and ruleset); the command
    line parses a stranger's file with its own hardened reader and checks it here."""
    if not isinstance(data, list):
        raise CaseError("a case file is a YAML list of cases", file=file)
    for i, case in enumerate(data):
        if not isinstance(case, dict) or "id" not in case or case.get("ruleset") not in ("classic", "waw85"):
            raise CaseError("each case needs an id and a ruleset (classic or waw85)", file=file,
                            position=f"item {i}")
    return data


def run_cases(cases: Iterable[Mapping[str, Any]], factory: RulesetFactory, *,
              ruleset: str | None = None, flag: str | None = None,
              prefix: str | None = None) -> list[Outcome]:
    """Run every case (optionally one ruleset, one book, one id prefix)."""
    outcomes: list[Outcome] = []
    for case in cases:
        if ruleset and case["ruleset"] != ruleset:
            continue
        if prefix and not case["id"].startswith(prefix):
            continue
        try:
            outcomes.extend(run_case(case, factory, flag))
        except CaseError as error:
            raise CaseError(str(error), case=case["id"]) from None
        except (TypeError, KeyError, AttributeError) as error:
            raise CaseError(f"malformed case: {error}", case=case["id"]) from None
    return outcomes


def summary(outcomes: list[Outcome]) -> str:
    """The closing line: ``N passed, N failed, N gaps``."""
    counts = {s: sum(1 for o in outcomes if o.status == s) for s in ("passed", "failed", "gap")}
    gaps = "gap" if counts["gap"] == 1 else "gaps"
    return f"{counts['passed']} passed, {counts['failed']} failed, {counts['gap']} {gaps}"
