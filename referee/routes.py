"""The cheapest legal route of a unit, and the judgement of a move whose route is not given.

A VASSAL log records where a counter was dropped, not the hexes it crossed. To judge such
a move the referee looks for the cheapest route the unit could have taken, pricing every
hex entered by the ruleset's own Move procedure (terrain costs, roads, hexside features,
enemy units), then checks the move along that route as a Move action: the Movement
Factor (§5.0), Ops Complete and Out of Command, a Disrupted unit's retreat (§6.1.7) and
stacking where it arrives (§1.4).

When the map does not say enough to price a route (hexes without map positions, a step
whose cost depends on a fact not stated), the answer says so and names why.
"""
from __future__ import annotations

import heapq
from types import MappingProxyType
from dataclasses import dataclass, replace

from referee.actions import make_action
from referee.errors import RefereeError
from referee.model import Game, Unit
from referee.position import Problem, answer_problems
from referee.ruleset import Ruleset

#: How far beyond its Movement Factor a route is searched, so that a move that costs too
#: much is judged along its real cheapest route (and refused for its cost, §5.0).
SEARCH_MARGIN = 12


class RouteUnknown(RefereeError):
    """The map does not say enough to price a route (hex positions or terrain costs missing)."""


@dataclass(frozen=True)
class Route:
    """A route: its cost in Movement Points and the hexes entered, in order."""

    cost: int
    hexes: tuple[str, ...]


_NAMES_AT: list[tuple[object, dict[object, str]]] = []


def _names_at(game: Game) -> dict[object, str]:
    """Hex name by map position, for the board of ``game`` (kept for the last board asked: a
    log's replay asks about one board thousands of times)."""
    if _NAMES_AT and _NAMES_AT[0][0] is game.hexes:
        return _NAMES_AT[0][1]
    names = {h.at: name for name, h in game.hexes.items() if h.at is not None}
    if isinstance(game.hexes, MappingProxyType):            # read-only: the same board until a new Game
        _NAMES_AT[:] = [(game.hexes, names)]
    return names


def cheapest_route(game: Game, ruleset: Ruleset, unit_key: str, goal: str, limit: int) -> Route | None:
    """The cheapest route from the unit's hex to ``goal``, each step priced by the referee's
    own Move check; None when no route within ``limit`` MP reaches it.

    Raises :class:`RouteUnknown` when the hexes have no map positions, or when no route was
    found but some step could not be priced (the referee named a missing fact).
    """
    unit = game.unit(unit_key)
    here_state, goal_state = game.hexes.get(unit.hex or ""), game.hexes.get(goal)
    if here_state is None or goal_state is None or here_state.at is None or goal_state.at is None:
        raise RouteUnknown(f"the positions of {unit.hex} and {goal} on the map are not known")
    name_at = _names_at(game)
    start = unit.hex
    assert start is not None
    best = {start: 0}
    queue: list[tuple[int, str, tuple[str, ...]]] = [(0, start, ())]
    free = unit.with_status(ops_complete=False, out_of_command=False, mp_spent=0)
    unpriced: str | None = None
    while queue:
        cost, here, path = heapq.heappop(queue)
        if here == goal:
            return Route(cost, path)
        if cost > best.get(here, limit + 1):
            continue
        mover = game.with_unit(replace(free, hex=here))
        for neighbour in game.hexes[here].at.neighbors():
            there = name_at.get(neighbour)
            if there is None:
                continue
            answer = ruleset.check(mover, make_action("move", unit=unit_key, path=(there,)))
            step = answer.values.get("cost")
            if not isinstance(step, int):
                if answer.gaps and unpriced is None:
                    unpriced = f"{here} -> {there}: {next(iter(answer.gaps.values()))}"
                continue
            total = cost + step
            if total <= limit + 1 and total < best.get(there, limit + 2):
                best[there] = total
                heapq.heappush(queue, (total, there, path + (there,)))
    if unpriced is not None:
        raise RouteUnknown(f"a step could not be priced ({unpriced})")
    return None


def movement_section(ruleset: Ruleset) -> str:
    """Where the ruleset's book states movement and its Movement Factor (classic §5.0)."""
    try:
        return ruleset.cite(ruleset.section("movement"))
    except RefereeError:
        return ruleset.cite("5.0")


def judge_move(game: Game, ruleset: Ruleset, unit: Unit, goal: str, with_it: tuple[str, ...] = ()) -> list[Problem]:
    """A move from the unit's hex to ``goal`` judged along its cheapest route (§5.0): the
    Problems the Move check finds there, each prefixed with the route; a move no route
    allows, or whose route cannot be priced, is a Problem of its own. ``with_it``: the units
    that moved the same way in the same step (a stack dragged as one): an HQ among them is
    judged as moving with them, along the route of the first that is not an HQ (§1.3.3.1)."""
    where = {"hex": unit.hex, "units": (unit.key,)}
    section = movement_section(ruleset)
    companions = tuple(k for k in with_it if game.unit(k).type.target_type != "hq") \
        if unit.type.target_type == "hq" else ()
    payer = game.unit(companions[0]) if companions else unit
    limit = payer.current.mp if payer.current.mp is not None else 0
    try:
        route = cheapest_route(game, ruleset, payer.key, goal, limit + SEARCH_MARGIN)
    except RouteUnknown as unknown:
        return [Problem("move", f"{unit.hex} -> {goal}: movement cost not checked: {unknown}", section, None,
                        **where)]
    if route is None:
        return [Problem("move", f"no route from {unit.hex} to {goal} that the unit may take", section, **where)]
    answer = ruleset.check(game, make_action("move", unit=(unit.key, *companions) if companions else unit.key,
                                             path=route.hexes))
    text = f"{unit.hex} -> {goal} (cheapest route {' '.join(route.hexes)}, {route.cost} MP)"
    problems = answer_problems(answer, rule="move", hex_id=unit.hex, units=(unit.key,))
    if companions:      # what the units it went with did wrong is found on their own moves
        problems = [p for p in problems if "1.3.3.1" in (p.section or "")]
    return [replace(p, text=f"{text}: {p.text}") for p in problems]


__all__ = ["Route", "RouteUnknown", "SEARCH_MARGIN", "cheapest_route", "judge_move"]
