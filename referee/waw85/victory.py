"""Battle Generator scoring and set-up (§17.4, §17.7).

§17.4.1 states its Objectives-minus-Casualties total twice and the two disagree: the
prose subtracts half the cost of reduced units, the printed formula adds it back. The
referee follows the prose and says so in its reasons.
"""
from __future__ import annotations

import math
from fractions import Fraction

from referee.damage import is_one_step
from referee.errors import NotSupported
from referee.model import need
from referee.ruleset import Ctx
from referee.waw85.common import because, illegal

OBJECTIVE_POINTS = 200            # §17.4.1
TWO_CARD_FACTOR = Fraction(5, 4)  # §17.4.4, §17.6
DEFENDER_OBJECTIVE_REACH = 3      # §17.7
DEFENDER_EDGE_REACH = 12
ATTACKER_EDGE_REACH = 6
RESERVES_TURN = 3
ATTACKER_RESERVES_TURN = 1


def victory_points(ctx: Ctx) -> None:
    """§17.4.1: 200 per Objective held, less the cost of own units eliminated and half
    the cost of own two-step units reduced (prose reading). Only those costs are needed:
    the cost of a unit neither eliminated nor reduced takes no part."""
    side = need(ctx.action.side, "query.side")
    objectives = need(ctx.game.facts.get("objectives"), "situation.objectives")
    total = Fraction(OBJECTIVE_POINTS * objectives)
    for unit in ctx.game.units.values():
        if unit.side != side:
            continue
        if unit.location == "eliminated":
            total -= need(unit.type.cost, f"units.{unit.key}.cost")
        elif unit.strength == "reduced" and not is_one_step(unit):
            cost = need(unit.type.cost, f"units.{unit.key}.cost")
            # a counter on its reduced side is a two-step unit: "A one step unit ... is
            # eliminated if flipped" (§1.6.5), so its steps need not be stated
            total -= Fraction(cost, 2)
    because(ctx, "17.4.1", "the prose reading: half the cost of reduced units is subtracted")
    ctx.answer.set("value", math.floor(total))


def degree_of_victory(ctx: Ctx) -> None:
    """§17.4.1: (low score / high score) x 100, rounded down. The quotient reads only a
    winner with a positive total: with the higher total 0 there is none (§17.4.1, unlike
    §17.4.2, says nothing of ties), and a negative total (losses beyond 200 per Objective)
    gives a degree the Degree of Victory Chart (PA12, not in the text) would have to read."""
    points = need(ctx.game.facts.get("points"), "situation.points")
    low, high = min(points.values()), max(points.values())
    if high <= 0:
        raise NotSupported("WaW85 §17.4.1", f"a Degree of Victory with the higher total {high}: "
                           "(low score / high score) x 100 has no winner's points to divide by")
    if low < 0:
        raise NotSupported("WaW85 §17.4.1", f"a Degree of Victory for a negative total ({low}): the "
                           "Degree of Victory Chart that reads it is on PA12, not in the text")
    ctx.answer.set("value", math.floor(Fraction(low * 100, high)))
    because(ctx, "17.4.1", f"{low} / {high} x 100, rounded down")


def objective_value(ctx: Ctx) -> None:
    """§17.4.4: an Objective is worth its Objective Points times two."""
    points = need(ctx.game.facts.get("objective_points"), "situation.objective_points")
    ctx.answer.set("value", 2 * points)


def casualty_points(ctx: Ctx) -> None:
    """§17.4.4: the cost of an eliminated unit, half (rounded up) of a reduced one, times
    1.25 (rounded up) for a Formation with two Formation cards. A one-step unit that is
    reduced is eliminated (§1.6.5), so it scores its full cost."""
    unit = ctx.unit(ctx.action.actor)
    cost = Fraction(need(unit.type.cost, f"units.{unit.key}.cost"))
    result = need(ctx.action.result, "query.result")
    if result in ("none", "disrupted"):
        because(ctx, "2.4", f"a {result} unit scores no points: only eliminated and reduced units do")
        ctx.answer.set("value", 0)
        return
    if result == "reduced" and is_one_step(unit):
        # §1.6.5 "A one step unit ... is eliminated if flipped": its reduction is its elimination
        because(ctx, "1.6.5", f"{unit.name} is a one-step unit: reduced, it is eliminated and scores its full cost")
        result = "eliminated"
    if result != "eliminated":
        cost = Fraction(math.ceil(cost / 2))
    cards = need(unit.formation_cards, f"units.{unit.key}.formation_cards")
    if cards >= 2:
        cost = Fraction(math.ceil(cost * TWO_CARD_FACTOR))
        because(ctx, "17.4.4", "two Formation cards: x 1.25, rounded up")
    ctx.answer.set("value", int(cost))


def setup(ctx: Ctx) -> None:
    """§17.7: the defender sets up all but one Formation, within 3 hexes of an Objective or
    12 of its home edge; the attacker, with two or more maps, as many Formations as maps
    within 6 hexes of its edge; defender reserves enter from Turn 3."""
    ans = ctx.answer
    defender = need(ctx.game.facts.get("defender"), "situation.defender")
    unit = ctx.game.unit(ctx.action.actor) if ctx.action.actor else None
    side = unit.side if unit is not None else need(ctx.action.side, "query.side")
    if ctx.action.choice == "reserves":
        if side == defender:
            ans.set("situation", {"turn": RESERVES_TURN})
            because(ctx, "17.7", "defending Formations not on the map enter from Turn 3")
        else:
            # "Each attacking Formation which does not start the game on map may enter on
            # Turn 1 or later at the attacker's discretion."
            ans.set("situation", {"turn": ATTACKER_RESERVES_TURN})
            because(ctx, "17.7", "attacking Formations not on the map may enter from Turn 1")
        return
    if side == defender:
        if unit is not None:
            stated = ctx.game.hex(need(unit.hex, f"units.{unit.key}.hex")).stated
            near = need(stated.get("to_objective"), f"hexes.{unit.hex}.to_objective")
            edge = need(stated.get("to_home_edge"), f"hexes.{unit.hex}.to_home_edge")
            if near > DEFENDER_OBJECTIVE_REACH and edge > DEFENDER_EDGE_REACH:
                illegal(ctx, "17.7", "defenders set up within 3 hexes of an Objective or 12 of their edge")
        else:
            formations = need(ctx.game.facts.get("formations"), "situation.formations")
            ans.set("max_count", formations - 1)
            if ctx.action.count is not None and ctx.action.count > formations - 1:
                illegal(ctx, "17.7", "the defender sets up all but one Formation at most")
    else:
        maps = need(ctx.game.facts.get("maps"), "situation.maps")
        allowed = maps if maps >= 2 else 0
        if unit is None:
            ans.set("max_count", allowed)
            if allowed and ctx.action.count is not None and ctx.action.count > allowed:
                illegal(ctx, "17.7", f"the attacker sets up at most as many Formations as maps ({allowed})")
        if not allowed:
            illegal(ctx, "17.7", "with one map the attacker starts no units on the map")
        elif unit is not None:
            stated = ctx.game.hex(need(unit.hex, f"units.{unit.key}.hex")).stated
            edge = need(stated.get("to_home_edge"), f"hexes.{unit.hex}.to_home_edge")
            if edge > ATTACKER_EDGE_REACH:
                illegal(ctx, "17.7", "attackers set up within 6 hexes of their home edge")
    if ans.legal is None:
        ans.set("legal", True)
