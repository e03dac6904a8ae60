"""The legality of a whole position, rule by rule, as the referee judges it.

A position read from a save is not an action, but most of its rules are the ones an
action would meet: every occupied hex is asked of the ruleset's own Stacking procedure
(§1.4 stacking limits, §1.3.3 one HQ per hex); every unit on the map is checked against
its own counter: an Ammo Depleted marker only on a missile-firing unit (§6.1.4), a
reduced side only on a counter with two steps, and terrain the unit may be in at all
(the Terrain Effects Chart, "none" in its movement column).

Each broken rule is a :class:`Problem`; a rule the ruleset does not answer, or a fact the
position does not state, is a Problem too (``legal`` None), never silently legal.
Callers translate Problems into their own reports; nothing here knows about files.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from referee.actions import make_action
from referee.errors import RefereeError
from referee.model import Game, Unit
from referee.ruleset import Ruleset
from referee.verdict import Answer


@dataclass(frozen=True)
class Problem:
    """One rule a position breaks (``legal`` False) or that could not be judged (``legal`` None).

    ``rule`` names the family (``stacking``, ``markers``, ``terrain``, ``move``); ``units``
    are the keys of the units concerned, ``hex`` where it happens."""

    rule: str
    text: str
    section: str | None = None
    legal: bool | None = False
    hex: str | None = None
    units: tuple[str, ...] = ()


def answer_problems(answer: Answer, *, rule: str, hex_id: str | None = None,
                    units: tuple[str, ...] = ()) -> list[Problem]:
    """An Answer as Problems: each rule that forbids an illegal answer (every reason, where the
    procedure names none as forbidding); each gap as not answered."""
    found = []
    if answer.legal is False:
        found += [Problem(rule, reason.text, reason.section, False, hex_id, units)
                  for reason in answer.refusals or answer.reasons]
    found += [Problem(rule, f"{name}: {why}", None, None, hex_id, units) for name, why in sorted(answer.gaps.items())]
    return found


def hex_problems(game: Game, ruleset: Ruleset, hex_id: str, stack: list[Unit] | None = None) -> list[Problem]:
    """Stacking and HQs in one hex, asked of the ruleset (§1.4, §1.3.3); ``stack`` is the
    hex's units when the caller knows them (``game.stack(hex_id)``)."""
    answer = ruleset.check(game, make_action("stacking", target=hex_id))
    units = game.stack(hex_id) if stack is None else stack
    return answer_problems(answer, rule="stacking", hex_id=hex_id, units=tuple(u.key for u in units))


def unit_problems(game: Game, ruleset: Ruleset, unit: Unit) -> list[Problem]:
    """Markers or sides that contradict the counter, and terrain the unit may not be in."""
    where = {"hex": unit.hex, "units": (unit.key,)}
    found = []
    if unit.strength == "reduced" and unit.type.steps == 1:
        found.append(Problem("markers", "shows a reduced side, but the counter has one step", **where))
    if unit.status.ammo != "none":
        found.extend(_ammo_problems(ruleset, unit))
    if unit.hex is not None:
        terrain = game.hex(unit.hex).terrain
        if terrain is not None:
            found.extend(_terrain_problems(ruleset, unit, terrain))
    return found


def _terrain_problems(ruleset: Ruleset, unit: Unit, terrain: str) -> list[Problem]:
    """Terrain whose movement cost for the unit's kind is "none" on the Terrain Effects Chart:
    the unit could never have entered it (amphibious units and helicopters excepted)."""
    where = {"hex": unit.hex, "units": (unit.key,)}
    try:
        row = ruleset.tec.terrain(terrain)
    except (KeyError, RefereeError) as error:
        return [Problem("terrain", f"terrain {terrain!r}: {error}", legal=None, **where)]
    mover = "vehicle" if unit.type.is_vehicle else "infantry"
    if (row.mp or {}).get(mover) == "none" and "amphibious" not in unit.type.abilities \
            and unit.type.target_type != "helicopter":
        return [Problem("terrain", f"{mover} units may not be in {row.name}", ruleset.cite("002 TEC"), **where)]
    return []


#: Where each ruleset says which units fire missiles and so take ammo markers.
AMMO_SECTIONS = {"classic": "6.1.4", "waw85": "10.10"}


def _fires_missiles(ruleset: Ruleset, unit: Unit) -> bool | None:
    """Whether a counter fires missiles: a missile ability; classic §6.1.4 an underlined range
    (EG: of its AP or AA); WaW85 §10.10 a green AP value or a blue range. None when the
    counter's values do not say."""
    weapons = [w for w in (unit.type.ap, unit.type.he, unit.type.aa) if w is not None]
    if "missile" in unit.type.abilities:
        return True
    if ruleset.params.ruleset == "waw85":
        if any(w.range_colour == "blue" for w in weapons) or (unit.type.ap and unit.type.ap.colour == "green"):
            return True
        return None if any(w.colour is None for w in weapons) else False
    # the Firepower whose underlined range makes a missile unit: TUS any, EG AP or AA (§6.1.4)
    named = [w for n, w in (("ap", unit.type.ap), ("he", unit.type.he), ("aa", unit.type.aa))
             if w is not None and n in ruleset.params.missile_range_weapons]
    if any(w.underlined for w in named):
        return True
    return None if any(w.underlined is None for w in named) else False


def _ammo_problems(ruleset: Ruleset, unit: Unit) -> list[Problem]:
    """Ammo Depleted (classic §6.1.4) or missile ammo (WaW85 §10.10) markers go only on
    missile-firing units."""
    where = {"hex": unit.hex, "units": (unit.key,)}
    section = ruleset.cite(AMMO_SECTIONS.get(ruleset.params.ruleset, "6.1.4"))
    missiles = _fires_missiles(ruleset, unit)
    if missiles:
        return []
    if missiles is None:
        return [Problem("markers", "Ammo Depleted marker: whether the unit fires missiles is not stated "
                        "(underlined range)", section, None, **where)]
    return [Problem("markers", "Ammo Depleted marker on a unit that fires no missiles", section, **where)]


def occupied_hexes(game: Game) -> list[str]:
    """The hexes units on the map stand in, sorted."""
    return sorted({u.hex for u in game.units.values() if u.on_map and u.hex})


def position_problems(game: Game, ruleset: Ruleset, *, hexes: Iterable[str] | None = None,
                      units: Iterable[str] | None = None,
                      stack: Callable[[str], list[Unit]] | None = None) -> list[Problem]:
    """Every Problem of the position, or only of the ``hexes`` and ``units`` named (a log
    replay asks only about what a step changed). Hexes first, then units, each sorted.
    ``stack`` gives a hex's units as ``game.stack`` does, when the caller keeps them indexed."""
    found = []
    if hexes is None:
        stacks: dict[str, list[Unit]] = {}
        for unit in game.units.values():
            if unit.on_map and unit.hex:
                stacks.setdefault(unit.hex, []).append(unit)
        for hex_id in sorted(stacks):
            ordered = sorted(stacks[hex_id], key=lambda u: (u.stack_order or 99, u.key))    # as Game.stack orders
            found.extend(hex_problems(game, ruleset, hex_id, ordered))
    else:
        for hex_id in sorted(set(hexes)):
            here = stack(hex_id) if stack is not None else game.stack(hex_id)
            if here:
                found.extend(hex_problems(game, ruleset, hex_id, here))
    keys = sorted(game.units) if units is None else sorted(set(units))
    for key in keys:
        unit = game.units.get(key)
        if unit is not None and unit.on_map:
            found.extend(unit_problems(game, ruleset, unit))
    return found


__all__ = ["Problem", "answer_problems", "hex_problems", "occupied_hexes", "position_problems", "unit_problems"]
