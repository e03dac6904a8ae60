"""What every action needs before any procedure runs, checked in one place for both rulesets.

An attack is made by a unit on an enemy (never on itself or a friend); the actor must
print the factor the action uses (a unit without an Assault Factor cannot assault); an
Assault or Overrun is made by moving into the target hex, so the attacker must stand
next to it or show the route it takes there. Each refusal cites the section of the
ruleset's book that states the rule (``Ruleset.section``). A fact that is not stated
(a rule case leaves sides out) is not a refusal: the check is simply not at issue.

The procedures still check what belongs to their own rule (range, LOS, the status a
particular fire needs); a refused action is worked out without dice and never rolls
(:meth:`referee.ruleset.Ruleset.resolve`).
"""
from __future__ import annotations

from referee import situation
from referee.model import Unit
from referee.ruleset import Ctx

#: Actions by a unit on an enemy unit (or on the enemy stack of a hex).
ATTACKS = frozenset({"direct_fire", "opportunity_fire", "move_and_fire", "aa_fire", "cas_attack",
                     "assault", "overrun", "counterattack"})
FIRE = frozenset({"direct_fire", "opportunity_fire", "move_and_fire", "aa_fire", "cas_attack"})
CLOSE_COMBAT = frozenset({"assault", "overrun"})
WEAPONS = ("ap", "he", "aa")


def check(ctx: Ctx) -> None:
    """Record every precondition the action breaks (the first one is its ``reason_rule``)."""
    kind = ctx.action.kind
    _in_play(ctx)
    _path(ctx)
    if kind not in ATTACKS:
        return
    actors = [ctx.game.units[k] for k in ctx.action.actors if k in ctx.game.units]
    targets = _targets(ctx)
    for actor in actors:
        _enemies(ctx, actor, targets)
        if kind in FIRE:
            _fire_factor(ctx, actor)
            _fire_once(ctx, actor)
        elif kind in ("counterattack", "overrun") or (kind == "assault" and len(actors) == 1):
            _assault_factor(ctx, actor, kind)
        if kind in CLOSE_COMBAT:
            _may_close(ctx, actor)
    if kind in FIRE:
        _targetable(ctx, targets)
        _fire_individually(ctx, actors)
    elif kind in CLOSE_COMBAT and not (isinstance(ctx.action.target, str) and ctx.action.target in ctx.game.hexes
                                       and ctx.action.target not in ctx.game.units):
        _targetable(ctx, targets)       # an HQ or Leader named as the target; a hex is assaulted whole
    if kind == "assault" and len(actors) > 1 and all(_lacks_assault(ctx, a) for a in actors):
        ctx.answer.illegal(ctx.rules.section("assault"), "no unit of the stack has an Assault Factor")
    if kind in CLOSE_COMBAT and actors:
        _side_stacking(ctx, actors)
        _reach(ctx, actors, targets)


#: Ranged attacks each unit makes on its own (an Anti-Aircraft Fire names its contributors in
#: ``query.supporting``, a Support Weapon fires with its platoon).
SINGLE_FIRERS = frozenset({"direct_fire", "opportunity_fire", "move_and_fire"})


def _fire_individually(ctx: Ctx, actors: list[Unit]) -> None:
    """A stack does not fire as one: "Stacks may move together, and Assault together, but
    perform any Direct Fire or the fire portion of Move & Direct Fire separately" (WaW85 §7.6);
    "Units attack individually with the exception of Support Weapons" (EG/TUS §6.1)."""
    firers = [a for a in actors if a.type.target_type != "support_weapon"]
    if ctx.action.kind in SINGLE_FIRERS and len(firers) > 1:
        ctx.answer.illegal(ctx.rules.section("fire_individually"),
                           f"{', '.join(a.name for a in firers)} fire one at a time: each unit of a stack attacks "
                           "on its own")


def _targets(ctx: Ctx) -> list[Unit]:
    """The units attacked: the named unit(s), or the units of the named hex."""
    target = ctx.action.target
    names = (target,) if isinstance(target, str) else tuple(target or ())
    units = [ctx.game.units[k] for k in names if k in ctx.game.units]
    if isinstance(target, str) and target not in ctx.game.units and target in ctx.game.hexes:
        units = ctx.game.stack(target)
    return units


def _enemies(ctx: Ctx, actor: Unit, targets: list[Unit]) -> None:
    """An attack is made on an enemy: never on the attacker itself, never on a friend."""
    topic = "assault" if ctx.action.kind in ("assault", "counterattack") else \
        "overrun" if ctx.action.kind == "overrun" else "ranged_combat"
    section = ctx.rules.section(topic)
    for target in targets:
        if target.key == actor.key:
            ctx.answer.illegal(section, f"{actor.name} cannot attack itself")
        elif actor.side is not None and target.side is not None and actor.side == target.side:
            ctx.answer.illegal(section, f"{target.name} is a friendly unit ({target.side}): "
                               f"{actor.name} attacks enemy units only")


def _fire_factor(ctx: Ctx, actor: Unit) -> None:
    """Fire uses a Firepower the counter prints: the weapon named, or any at all; a Firepower
    of 0 is none (as an Assault Factor of 0 is none)."""
    printed = actor.current
    weapon = ctx.action.weapon
    section = ctx.rules.section("fire_factor")
    stated = printed.weapon(weapon) if weapon in WEAPONS else None
    if stated is not None and stated.fp == 0:
        # EG/TUS §6.1 "rolls the number of dice (d6) equal to the appropriate firepower"; WaW85 §10.1
        ctx.answer.illegal(section, f"{actor.name} has a {weapon.upper()} Firepower of 0: it has no dice to fire with")
    elif weapon in WEAPONS and printed.lacks(weapon):
        have = [w.upper() for w in WEAPONS if printed.weapon(w) is not None]
        ctx.answer.illegal(section, f"{actor.name} prints no {weapon.upper()} Firepower"
                           + (f" (it has {' and '.join(have)})" if have else ""))
    elif weapon is None and all(printed.lacks(w) for w in WEAPONS):
        ctx.answer.illegal(section, f"{actor.name} prints no Firepower to fire with")


def _fire_once(ctx: Ctx, actor: Unit) -> None:
    """A unit attacks once per Formation impulse (EG/TUS §6.1); in WaW85 a unit acts once
    per activation (§7.6). Opportunity Fire is the enemy's impulse."""
    if actor.status.fired and ctx.action.kind not in ("opportunity_fire", "aa_fire"):
        ctx.answer.illegal(ctx.rules.section("fire_once"), f"{actor.name} has already fired in this impulse")


def _targetable(ctx: Ctx, targets: list[Unit]) -> None:
    """HQs cannot be directly attacked (EG/TUS §1.3.3.2); nor Leaders in WaW85 (§10.7.2)."""
    for target in targets:
        if target.type.target_type in ctx.params.untargetable:
            kind = "an HQ" if target.type.target_type == "hq" else "a Leader"
            ctx.answer.illegal(ctx.rules.section("hq_not_target"), f"{target.name} is {kind} and cannot be "
                               "attacked directly: it suffers only with the units it is stacked with")


def _may_close(ctx: Ctx, actor: Unit) -> None:
    """An Assault or Overrun is a move into the enemy hex: no unit Out of Command (EG/TUS
    §4.2, WaW85 §7.2.3), no helicopter or aircraft (EG/TUS §9.1, WaW85 §13.0)."""
    if ctx.rules.out_of_command(ctx, actor):
        ctx.answer.illegal(ctx.rules.section("out_of_command"),
                           f"{actor.name} is Out of Command and cannot move or attack in this impulse")
    if ctx.rules.cannot_assault(actor):
        ctx.answer.illegal(ctx.rules.section("helicopter_no_assault"), f"{actor.name} cannot assault: "
                           + ("helicopters do not assault" if actor.type.target_type == "helicopter"
                              else "aircraft do not assault"))


def _side_stacking(ctx: Ctx, actors: list[Unit]) -> None:
    """TUS §6.3: "Each side can stack up to the stacking limit" in the assaulted hex (EG §6.3
    lets each side exceed it for the combat)."""
    limit = ctx.params.assault_side_limit
    if limit is None:
        return
    counted = [u for u in actors if u.type.target_type not in ("hq", "leader", "support_weapon", "helicopter")]
    if len(counted) > limit:
        ctx.answer.illegal(ctx.rules.section("assault"), f"{len(counted)} attacking units: each side may "
                           f"stack only up to the limit of {limit} in the assaulted hex")


#: Where a unit is out of play: it takes no action there (a rule case states no location).
OUT_OF_PLAY = frozenset({"eliminated"})


def _in_play(ctx: Ctx) -> None:
    """An eliminated unit is out of play: it neither acts nor is acted upon (it was removed
    from play, EG/TUS §6.1.7 Combat Results; WaW85 §10.7.1 and the Wrecks marker, §1.8)."""
    keys = [*ctx.action.actors, *([ctx.action.target] if isinstance(ctx.action.target, str) else [])]
    for key in keys:
        unit = ctx.game.units.get(key)
        if unit is not None and unit.location in OUT_OF_PLAY:
            ctx.answer.illegal(ctx.rules.section("elimination"), f"{unit.name} is eliminated: it is out of play")


def _assault_factor(ctx: Ctx, actor: Unit, kind: str) -> None:
    """Units without an Assault Factor cannot attack or counterattack (EG/TUS §6.3, WaW85 §13.0),
    nor overrun: "Each overrunning AFV ... triples its Assault Factor" (EG/TUS §6.4).
    A unit-table counter that lists none has none; in a situation that states Assault
    values for other units, a unit stating none has none."""
    if _lacks_assault(ctx, actor):
        section = ctx.rules.section("overrun" if kind == "overrun" else "assault")
        ctx.answer.illegal(section, f"{actor.name} has no Assault Factor and cannot {kind}")


def _enough_mp(ctx: Ctx, actor: Unit, goal: Unit) -> None:
    """An Assault is made by moving into the hex: the attacker pays its entry cost within
    its Movement Factor (EG/TUS §5.0, §6.3; WaW85 §13.0 states it for itself)."""
    hex_id = goal.hex
    if hex_id is None:
        return
    cost = ctx.rules.assault_entry_cost(ctx, actor, hex_id)
    if cost is None:
        return
    left = actor.status.mp_left
    if left is None and actor.current.mp is not None and isinstance(actor.status.mp_spent, int):
        left = actor.current.mp - actor.status.mp_spent
    if left is not None and left < cost:
        ctx.answer.illegal(ctx.rules.section("movement"), f"{actor.name} has {left} MP left: entering "
                           f"{hex_id} to assault costs {cost}")


def _lacks_assault(ctx: Ctx, actor: Unit) -> bool:
    """The unit is known to have no Assault Factor (none printed, a zero, or none stated where
    the situation states the others')."""
    value = actor.current.assault
    if value is not None:
        return value.fp == 0
    if actor.current.lacks("assault"):
        return ctx.rules.counterattack_values(actor) is None
    others = any(u.current.assault is not None for u in ctx.game.units.values() if u.key != actor.key)
    return others and ctx.rules.counterattack_values(actor) is None


def _path(ctx: Ctx) -> None:
    """A unit moves from hex to adjacent hex (EG §5.1 "Units moving into an adjacent hex", TUS
    §5.1 "Units move to adjacent hexes", WaW85 §9.0 "from hex to contiguous hex"): the first
    hex of ``path`` next to the mover's, each next to the one before, whatever the action (a
    move, a Move and Fire, the approach of an Assault or Overrun, whose last hex is next to
    the target hex it enters from there; an Overrun's path is the hex it exits into, which its
    own procedure judges). Hexes without map positions (a rule case) leave it
    to the procedure and the facts the case states."""
    path, key = ctx.action.path, ctx.action.actor
    mover = ctx.game.units.get(key) if isinstance(key, str) else None
    if not path or mover is None or mover.hex is None or ctx.action.kind == "overrun":
        return                               # an Overrun's path is its exit beyond the hex (§6.4)
    previous = mover.hex
    if path[0] == previous:                  # a route written from the hex it starts in
        path = path[1:]
    for hex_id in path:
        if situation.hexes_apart(ctx.game, previous, hex_id) not in (None, 1):
            ctx.answer.illegal(ctx.rules.section("adjacent_hexes"),
                               f"{hex_id} is not next to {previous}: a unit moves from hex to contiguous hex")
            return
        previous = hex_id
    if ctx.action.kind == "assault" and path:
        goal = ctx.action.target
        goal_hex = ctx.game.units[goal].hex if isinstance(goal, str) and goal in ctx.game.units else goal
        apart = situation.hexes_apart(ctx.game, previous, goal_hex) if isinstance(goal_hex, str) else None
        if apart is not None and apart > 1:
            ctx.answer.illegal(ctx.rules.section("assault"),
                               f"the route ends in {previous}, {apart} hexes from {goal_hex}: a unit assaults by "
                               f"moving into the target hex from an adjacent hex")


def _reach(ctx: Ctx, actors: list[Unit], targets: list[Unit]) -> None:
    """An Assault or Overrun enters the target hex from an adjacent hex: the attacker stands
    next to it, or ``path`` lists the hexes it moves through first (the last one adjacent
    to the target hex). Positions not on a map (a rule case) leave this to the case."""
    overrun = ctx.action.kind == "overrun"
    if (ctx.action.path and not overrun) or not targets:
        return                               # an Overrun's path is where it exits (§6.4): it starts next to the hex
    section = ctx.rules.section("overrun" if overrun else "assault")
    goal = targets[0]
    for actor in actors:
        stated = ctx.game.facts.relation(goal.key).distance if actor.key == ctx.action.actor else None
        if stated is None:
            here, there = situation.position(ctx.game, actor.key), situation.position(ctx.game, goal.key)
            if here is None or there is None:
                continue
            stated = here.distance(there)
        if stated <= 1 and ctx.action.kind == "assault":
            _enough_mp(ctx, actor, goal)
        if stated > 1 and overrun:
            ctx.answer.illegal(section, f"{actor.name} is {stated} hexes from {goal.name}: an AFV overruns by "
                               f"moving through the target hex from an adjacent hex; move it next to "
                               f"{goal.hex or 'the target'} first (path=HEX names the hex it exits into)")
        elif stated > 1:
            ctx.answer.illegal(section, f"{actor.name} is {stated} hexes from {goal.name}: a unit assaults "
                               f"by moving into the target hex from an adjacent hex; give the route "
                               f"(path=HEX,...) that brings it next to {goal.hex or 'the target'}")
