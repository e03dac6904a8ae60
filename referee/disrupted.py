"""A Disrupted unit's move: one mechanic for every book (EG/TUS §6.1.7, WaW85 §10.8.2).

Every book says a Disrupted unit may move, but "may not move closer to an enemy unit in
LOS" and may not move "into a hex adjacent to an enemy unit". Where the books part, a
parameter of :class:`referee.ruleset.Params` says which reading applies:

- a unit that starts adjacent to an enemy: the classic books let it retreat away from it
  (§6.1.7); WaW85 §10.8.2: "if already adjacent it must remain where it is"
  (``disrupted_adjacent_stays``);
- that retreat: TUS bounds it by every enemy in LOS, EG only by the enemies it retreats
  from until it leaves their LOS (``disrupted_retreat_any_enemy``);
- WaW85 §10.8.2: "If not currently in an enemy unit's LOS, it must stop immediately upon
  entering a hex in LOS of an enemy unit" (``disrupted_stops_in_los``).

Whether an enemy is in the unit's LOS is the ruleset's own line of sight
(:meth:`referee.ruleset.Ruleset.in_sight`), traced on the map with the unit standing in
each hex it enters.
"""
from __future__ import annotations

from dataclasses import replace

from referee import situation
from referee.errors import NotStated
from referee.hexes import Hex
from referee.model import Facts, Unit
from referee.ruleset import Ctx
from referee.verdict import Answer


def disrupted_move(ctx: Ctx, unit: Unit, route: list[str]) -> None:
    """Refuse the first hex of ``route`` a Disrupted ``unit`` may not enter, naming the rule."""
    section = ctx.rules.section("disrupted_movement")
    start = situation.position(ctx.game, unit.key)
    if start is None:
        if _stated_adjacent(ctx, unit, route, section):
            return
        raise NotStated(f"units.{unit.key} position (disrupted movement, {ctx.rules.cite(section)})")
    enemies = _enemies(ctx, unit, section)
    fled = {enemy.key for enemy, at in enemies if start.distance(at) <= 1}
    beside = ", ".join(sorted(ctx.game.unit(key).name for key in fled))
    if fled and ctx.params.disrupted_adjacent_stays:
        ctx.answer.illegal(section, f"disrupted {unit.name} is adjacent to {beside}: it must remain where it is")
        return
    retreating = bool(fled) and not ctx.params.disrupted_retreat_any_enemy
    if fled:
        ctx.answer.because(section, f"disrupted {unit.name} starts adjacent to {beside}: it may only retreat away")
    seen = not ctx.params.disrupted_stops_in_los or any(
        in_los(ctx, unit, enemy, str(unit.hex), start.distance(at)) for enemy, at in enemies)
    previous = start
    for index, hex_id in enumerate(route):
        here = ctx.game.hex(hex_id).at
        if here is None:
            raise NotStated(f"hexes.{hex_id} position")
        if retreating and not any(in_los(ctx, unit, enemy, hex_id, here.distance(at))
                                  for enemy, at in enemies if enemy.key in fled):
            retreating = False
            ctx.answer.because("002 §6.1.7", f"{unit.name} leaves the LOS of the enemy it retreats from "
                               f"in {hex_id}: the retreat ends")
        for enemy, at in enemies:
            if retreating and enemy.key not in fled:
                continue
            after, before = here.distance(at), previous.distance(at)
            if (after > 1 and after >= before) or not in_los(ctx, unit, enemy, hex_id, after):
                continue
            if after <= 1:
                ctx.answer.illegal(section, f"disrupted {unit.name} may not enter {hex_id}, adjacent to "
                                   f"{enemy.name}" + ("" if ctx.params.disrupted_stops_in_los else " in its LOS"))
                return
            ctx.answer.illegal(section, f"disrupted {unit.name} may not move closer to {enemy.name} "
                               f"in its LOS ({hex_id}: {before} -> {after} hexes)")
            return
        if not seen:
            spotter = next((enemy for enemy, at in enemies if in_los(ctx, unit, enemy, hex_id, here.distance(at))),
                           None)
            if spotter is not None:
                seen = True
                if index < len(route) - 1:
                    ctx.answer.illegal(section, f"disrupted {unit.name} was in no enemy's LOS: it stops on "
                                       f"entering {hex_id}, in the LOS of {spotter.name}")
                    return
        previous = here


def _stated_adjacent(ctx: Ctx, unit: Unit, route: list[str], section: str) -> bool:
    """Without map positions, the stated ``adjacent_to_enemy`` of the hexes entered: a hex
    next to an enemy is one a Disrupted unit may not enter ("or into a hex adjacent to the
    enemy", EG/TUS §6.1.7; WaW85 §10.8.2), since an adjacent enemy always sees it. The one
    exception is EG's retreat from an adjacent enemy, bounded only by the enemy it retreats
    from (``disrupted_retreat_any_enemy`` off): then the start hex must be stated not adjacent
    to an enemy. Refuses and returns True, or returns False when the facts do not settle it."""
    facts = ctx.game.facts
    retreat_may_pass = not ctx.params.disrupted_retreat_any_enemy and not ctx.params.disrupted_adjacent_stays
    if retreat_may_pass and (unit.hex is None or facts.hex_fact(unit.hex, "adjacent_to_enemy") is not False):
        return False
    for hex_id in route:
        if facts.hex_fact(hex_id, "adjacent_to_enemy") is True:
            ctx.answer.illegal(section, f"disrupted {unit.name} may not enter {hex_id}, adjacent to an enemy unit "
                               "(an adjacent enemy always has it in LOS)")
            return True
    return False


def _enemies(ctx: Ctx, unit: Unit, section: str) -> list[tuple[Unit, Hex]]:
    """The enemy units on the map, each with its position."""
    found = []
    for enemy in ctx.game.units.values():
        if not enemy.on_map or enemy.side is None or unit.side is None or enemy.side == unit.side:
            continue
        at = situation.position(ctx.game, enemy.key)
        if at is None:
            raise NotStated(f"units.{enemy.key} position (disrupted movement, {ctx.rules.cite(section)})")
        found.append((enemy, at))
    return found


def in_los(ctx: Ctx, unit: Unit, enemy: Unit, hex_id: str, distance: int) -> bool:
    """Is ``enemy`` in the LOS of ``unit`` standing in ``hex_id``? Adjacent units always are.
    Asked on a quiet copy of the run: the LOS's own reasons are not the move's."""
    if distance <= 1:
        return True
    moved = ctx.game.with_unit(replace(unit, hex=hex_id)).but(facts=Facts())
    quiet = Ctx(ctx.rules, moved, ctx.action, None, Answer(ctx.answer.action, ctx.answer.book))
    return ctx.rules.in_sight(quiet, enemy, moved.unit(unit.key))
