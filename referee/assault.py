"""Assault (§6.3) and Overrun (§6.4): both sides roll at once, hits are spread, the loser
retreats. Infantry against all-vehicle stacks gets the §6.3.1 bonus; augmented assault
(001 §6.3.2) rolls one extra die and keeps the best."""
from __future__ import annotations

from referee import damage
from referee.errors import NotStated
from referee.events import StatusChanged, UnitEliminated, UnitMoved, result_of
from referee.defence import improved_position
from referee.model import Unit, need
from referee.ruleset import Ctx


def attack_bonus(ctx: Ctx, actor: Unit) -> int:
    from referee.classic.ranged import attack_bonus as bonus
    return bonus(ctx, actor)


def assault_targets(ctx: Ctx, exclude: frozenset[str] = frozenset()) -> list[Unit]:
    """The units an Assault or Overrun attacks: the named unit(s), or the stack of the named
    hex less the target types ``exclude`` names (a ruleset whose HQs, leaders or support
    weapons in the hex are not attacked says so)."""
    target = ctx.action.target
    if isinstance(target, str) and target in ctx.game.units:
        return [ctx.game.unit(target)]
    if isinstance(target, tuple):
        return [ctx.game.unit(k) for k in target]
    if isinstance(target, str):
        return [u for u in ctx.game.stack(target) if u.type.target_type not in exclude]
    raise NotStated("query.target")


def _hex_of(units: list[Unit]) -> str | None:
    return next((u.hex for u in units if u.hex), None)


def assault_values(ctx: Ctx, unit: Unit, foes: list[Unit], hex_id: str | None,
                   defending: bool) -> tuple[int, int]:
    """(dice, to-hit) of one unit in an assault, with §6.3.1 and §6.3.2 applied."""
    value = unit.current.assault
    if value is None:
        raise NotStated(f"units.{unit.key}.assault")
    fp = need(value.fp, f"units.{unit.key}.assault.fp")
    to_hit = need(value.to_hit, f"units.{unit.key}.assault.to_hit")
    if defending and unit.status.disrupted:
        ctx.answer.because("§6.3", f"{unit.name} was disrupted: counterattacks at 6")
        return fp, 6
    kinds = [f.type.target_type for f in foes]
    if unit.type.is_infantry and kinds and all(k is not None for k in kinds) \
            and all(f.type.is_vehicle for f in foes):
        to_hit -= 1
        ctx.answer.because("§6.3.1", f"{unit.name}: infantry against vehicles only, to-hit -1")
        terrain = ctx.game.hex(hex_id).terrain if hex_id else None
        if terrain is None:
            raise NotStated("hexes.terrain")
        if terrain == "city":
            fp += 1
            ctx.answer.because("§6.3.1", f"{unit.name}: and in a City, assault factor +1")
    elif unit.type.is_infantry and any(k is None for k in kinds):
        raise NotStated("target_type of the opposing units")
    if value.augmented and not defending:
        ctx.params.require("augmented_assault", "001 §6.3.2")
        ctx.answer.because("001 §6.3.2", f"{unit.name}: augmented, rolls one extra die")
        fp += 1
    return fp, to_hit


def _roll(ctx: Ctx, units: list[Unit], foes: list[Unit], hex_id: str | None, defending: bool,
          label: str, bonus: int = 0) -> int:
    """Each unit rolls its assault dice; an HQ's leadership backs the first one (§6.3)."""
    hits = 0
    for index, unit in enumerate(units):
        fp, to_hit = assault_values(ctx, unit, foes, hex_id, defending)
        fp += bonus if index == 0 else 0
        dice = ctx.roll(fp, label)
        scored = sum(1 for d in dice if d >= to_hit)
        if unit.current.assault and unit.current.assault.augmented and not defending:
            scored = min(scored, fp - 1)
        hits += scored
    return hits


def _may_attack(ctx: Ctx, unit: Unit, how: str) -> None:
    """Assault and Overrun happen by moving into the enemy hex: an Ops Complete unit cannot
    (§4.4), a Disrupted one may not come closer to an enemy in its LOS (§6.1.7, assault only:
    §6.4 states its own Good Order rule), and a unit that made Moving Fire may not (§6.1.3)."""
    if unit.status.ops_complete:
        ctx.answer.illegal("§4.4", f"{unit.name} is Ops Complete and cannot {how}")
    if how == "assault" and unit.status.disrupted:
        ctx.answer.illegal("§6.1.7", f"disrupted {unit.name} may not move into an enemy's hex")
    if unit.status.fired and unit.status.moving:
        ctx.answer.illegal("§6.1.3", f"{unit.name} made Moving Fire and cannot {how}")


def _hits_given(ctx: Ctx, attackers: list[Unit], defenders: list[Unit]) -> tuple[int, int] | None:
    given = ctx.action.hits
    if given is None:
        return None
    if isinstance(given, int):
        return given, 0
    on_defenders = sum(given.get(u.key, 0) for u in defenders)
    on_attackers = sum(given.get(u.key, 0) for u in attackers)
    return on_defenders, on_attackers


def assault(ctx: Ctx) -> None:
    """§6.3: attackers and defenders roll at once, hits are spread, then the loser retreats."""
    ans = ctx.answer
    attackers = [ctx.game.unit(k) for k in ctx.action.actors]
    if not attackers:
        raise NotStated("query.unit")
    defenders = assault_targets(ctx)
    if not defenders:
        raise NotStated("units in the target hex")
    hex_id = _hex_of(defenders)
    actor = attackers[0]
    for unit in attackers:
        if unit.current.assault is not None and unit.current.assault.fp == 0:
            ans.illegal("§6.3", f"{unit.name} has no Assault Factor and cannot assault")
        _may_attack(ctx, unit, "assault")
    if ans.legal is None:
        ans.set("legal", True)
    first = defenders[0]
    ctx.stage(("fp", "to_hit", "max_hits"), lambda: _report(ctx, actor, defenders, hex_id, False))
    for d in defenders:
        if d.current.assault is not None:
            ctx.stage(f"units.{d.key}.fp", lambda d=d: _report_unit(ctx, d, attackers, hex_id))
    if ans.legal is False:
        return
    given = _hits_given(ctx, attackers, defenders)
    if given is None:
        fighting = [d for d in defenders if d.current.assault is not None]
        bonus = ctx.stage(("hits", "net_hits"), lambda: attack_bonus(ctx, actor)) or 0
        rolled = ctx.stage(("hits", "net_hits"), lambda: (
            _roll(ctx, attackers, defenders, hex_id, False, "attack", bonus),
            _roll(ctx, fighting, attackers, hex_id, True, "counter") if fighting else 0))
        if rolled is None:
            return
        on_defenders, on_attackers = rolled
    else:
        on_defenders, on_attackers = given
    ans.set("hits", on_defenders)
    net = improved_position(ctx, first, on_defenders)
    ans.set("net_hits", net)
    _settle(ctx, attackers, defenders, net, on_attackers, hex_id)


def _report(ctx: Ctx, actor: Unit, defenders: list[Unit], hex_id: str | None, defending: bool) -> None:
    fp, to_hit = assault_values(ctx, actor, defenders, hex_id, defending)
    fp += attack_bonus(ctx, actor) if ctx.action.bonus_from else 0
    ctx.answer.set("fp", fp)
    ctx.answer.set("to_hit", to_hit)
    if actor.current.assault and actor.current.assault.augmented:
        ctx.answer.set("max_hits", fp - 1)


def _report_unit(ctx: Ctx, unit: Unit, foes: list[Unit], hex_id: str | None) -> None:
    fp, to_hit = assault_values(ctx, unit, foes, hex_id, True)
    ctx.answer.unit(unit.key, fp=fp, to_hit=to_hit)


def _settle(ctx: Ctx, attackers: list[Unit], defenders: list[Unit], on_defenders: int,
            on_attackers: int, hex_id: str | None) -> None:
    """Apply both sides' hits, then who holds the hex (§6.3)."""
    for side, hits in ((defenders, on_defenders), (attackers, on_attackers)):
        for key, n in damage.spread(ctx, [u.key for u in side], hits).items():
            damage.take_hits(ctx, key, n)
    damage.aftermath(ctx, [u.key for u in defenders + attackers])
    all_gone = all(result_of(d.key, ctx.answer.events) == "eliminated" for d in defenders)
    for unit in defenders + attackers:
        ctx.answer.unit(unit.key, retreat=0)
    if all_gone:
        ctx.answer.because("§6.3", "defender eliminated: the attacker holds the hex")
        for a in attackers:
            ctx.emit(UnitMoved(a.key, hex_id))
    elif on_defenders > on_attackers:
        ctx.answer.because("§6.3", "defender took more hits: it retreats one hex, the attacker enters")
        for d in defenders:
            if result_of(d.key, ctx.answer.events) != "eliminated":
                ctx.answer.unit(d.key, retreat=1)
                ctx.answer.gap(f"units.{d.key}.hex", "not stated: retreat hex (§6.3)")
        for a in attackers:
            ctx.emit(UnitMoved(a.key, hex_id))
    else:
        ctx.answer.because("§6.3", "defender took no more hits than the attacker: the attacker falls back")
        for a in attackers:
            ctx.answer.unit(a.key, retreat=1)
    for unit in defenders + attackers:
        if result_of(unit.key, ctx.answer.events) != "eliminated":
            ctx.emit(StatusChanged(unit.key, "ops_complete", True))


def overrun(ctx: Ctx) -> None:
    """§6.4: AFVs triple their assault factor against infantry in open or hill terrain, pay the
    terrain + 1 MP, keep the MP to enter an enemy-free exit hex (``path``: the exit hex first),
    and never overrun the same hex twice in one impulse (001) or turn (002)."""
    ans = ctx.answer
    actor = ctx.unit(ctx.action.actor)
    defenders = assault_targets(ctx)
    hex_id = _hex_of(defenders)
    hex_state = ctx.game.hex(hex_id)
    if not actor.type.is_vehicle:
        ans.illegal("§6.4", "only AFVs can overrun")
    if hex_state.terrain is not None and hex_state.terrain not in ("clear", "hill"):
        ans.illegal("§6.4", f"overrun only in open or Hill terrain, not {hex_state.terrain}")
    if actor.status.disrupted:
        ans.illegal("§6.4", "only Good Order AFVs can overrun")
    _may_attack(ctx, actor, "overrun")
    for d in defenders:
        if d.type.is_vehicle:
            ans.illegal("§6.4", f"AFVs overrun enemy infantry: {d.name} is a vehicle")
    ctx.stage("same_hex_twice", lambda: _overrun_once(ctx, actor, hex_state.id))
    entry = hex_state.mp_cost
    if entry is None:
        row = ctx.tec.terrain(hex_state.terrain)
        entry = need((row.mp or {}).get("vehicle"), f"hexes.{hex_state.id}.mp_cost")
    cost = entry + 1
    ans.set("cost", cost)
    ans.because("§6.4", f"overrun costs terrain {entry} + 1 = {cost} MP")
    if actor.status.mp_left is not None:
        left = actor.status.mp_left
    else:
        spent = actor.status.mp_spent if isinstance(actor.status.mp_spent, int) else 0
        left = need(actor.current.mp, f"units.{actor.key}.mp") - spent
    exit_hex = ctx.action.path[0] if ctx.action.path else None
    if exit_hex is None:
        if left - cost < 1:
            ans.illegal("§6.4", f"{left} MP left: after paying {cost} none remain to exit")
    else:
        ctx.stage(("exit_cost", "legal"), lambda: _exit(ctx, actor, hex_state.id, exit_hex, left - cost))
    if "legal" in ans.gaps:
        return
    if ans.legal is None:
        ans.set("legal", True)
    fp = need(actor.current.assault and actor.current.assault.fp, f"units.{actor.key}.assault.fp") * 3
    ans.set("fp", fp)
    for d in defenders:
        if d.current.assault is not None:
            ctx.stage(f"units.{d.key}.fp", lambda d=d: ctx.answer.unit(
                d.key, fp=d.current.assault.fp, to_hit=6 if d.status.disrupted else d.current.assault.to_hit))
    if ans.legal is False:
        return
    given = _hits_given(ctx, [actor], defenders)
    if given is None:
        to_hit = need(actor.current.assault.to_hit, f"units.{actor.key}.assault.to_hit")
        dice = ctx.roll(fp, "attack")
        on_defenders = sum(1 for d in dice if d >= to_hit)
        on_actor = 0
        for d in defenders:
            if d.current.assault is None:
                continue
            d_hit = 6 if d.status.disrupted else need(d.current.assault.to_hit, f"units.{d.key}.assault.to_hit")
            counter = ctx.roll(need(d.current.assault.fp, f"units.{d.key}.assault.fp"), "counter")
            on_actor += sum(1 for x in counter if x >= d_hit)
    else:
        on_defenders, on_actor = given
    ans.set("hits", on_defenders)
    for key, n in damage.spread(ctx, [d.key for d in defenders], on_defenders).items():
        damage.take_hits(ctx, key, n)
    damage.take_hits(ctx, actor.key, on_actor)
    damage.aftermath(ctx, [d.key for d in defenders] + [actor.key])
    if result_of(actor.key, ctx.answer.events) in ("disrupted", "reduced", "disrupted_and_reduced"):
        ans.because("§6.4", f"{actor.name} was hurt: back to the hex it entered from")
        ctx.emit(UnitMoved(actor.key, actor.hex))
    elif result_of(actor.key, ctx.answer.events) == "none":
        if exit_hex is None:
            ans.gap(f"units.{actor.key}.hex", "not stated: exit hex (§6.4)")
        else:
            ans.because("§6.4", f"{actor.name} passes through and exits into {exit_hex}")
            ctx.emit(UnitMoved(actor.key, exit_hex))


def _overrun_once(ctx: Ctx, actor: Unit, hex_id: str) -> None:
    """§6.4: "it cannot overrun the same hex twice in the same impulse" (001) / "turn" (002);
    the hexes already overrun are the stated fact ``overrun_hexes_this_<scope>`` by unit."""
    scope = ctx.params.overrun_repeat_scope
    name = f"overrun_hexes_this_{scope}"
    done = ctx.game.facts.get(name)
    if done is None:
        raise NotStated(f"situation.{name}")
    if hex_id in (done.get(actor.key) or ()):
        ctx.answer.illegal("§6.4", f"{actor.name} already overran {hex_id} this {scope}")
    ctx.answer.set("same_hex_twice", hex_id in (done.get(actor.key) or ()))


def _exit(ctx: Ctx, actor: Unit, hex_id: str, exit_hex: str, left: int) -> None:
    """§6.4: after paying for the overrun the AFV keeps the MP to enter an adjacent hex
    that holds no enemy units (nor two friendly combat units: §1.4 always applies)."""
    from referee.movement import check_stacking, entry_cost
    ans = ctx.answer
    here, there = ctx.game.hex(hex_id).at, ctx.game.hex(exit_hex).at
    if here is not None and there is not None and here.distance(there) != 1:
        ans.illegal("§6.4", f"the exit hex {exit_hex} is not adjacent to {hex_id}")
        return
    if any(u.side and actor.side and u.side != actor.side for u in ctx.game.stack(exit_hex)):
        ans.illegal("§6.4", f"the exit hex {exit_hex} holds enemy units")
    check_stacking(ctx, actor, exit_hex)
    cost = entry_cost(ctx, actor, exit_hex, hex_id)
    if cost is None:
        ans.illegal("§6.4, TEC", f"{actor.name} cannot enter the exit hex {exit_hex}")
        return
    ans.set("exit_cost", cost)
    if left < cost:
        ans.illegal("§6.4", f"{left} MP left after the overrun: entering {exit_hex} costs {cost}")


def retreat(ctx: Ctx) -> None:
    """§6.3: retreat directly away from the attacker, never into or next to an enemy (other
    than the assaulting stack) or over the stacking limit; a defender who cannot is eliminated."""
    unit = ctx.unit(ctx.action.actor)
    ans = ctx.answer
    target = ctx.action.target
    if not isinstance(target, str):
        possible = ctx.game.facts.get("retreat_possible")
        if possible is None:
            raise NotStated("situation.retreat_possible")
        if not possible:
            ans.set("legal", False)
            ans.because("§6.3", f"{unit.name} cannot retreat and is eliminated")
            ctx.emit(UnitEliminated(unit.key))
        return
    hex_state = ctx.game.hex(target)
    facts = ctx.game.facts.hexes.get(target, {})
    enemies = [u for u in ctx.game.stack(target) if u.side and unit.side and u.side != unit.side]
    if enemies or facts.get("enemy_units"):
        ans.illegal("§6.3", "cannot retreat into an enemy-occupied hex")
    if facts.get("adjacent_to_enemy"):
        ans.illegal("§6.3", "cannot retreat next to an enemy unit other than the assaulting stack")
    if facts.get("away_from_attacker") is False:
        ans.illegal("§6.3", "the retreat must lead directly away from the attacker")
    friends = [u for u in ctx.game.stack(target) if u.type.target_type not in ("hq", "helicopter", "leader", "support_weapon")]
    if len(friends) + (facts.get("friendly_units") or 0) >= 2:
        ans.illegal("§1.4, §6.3", "the retreat would break the stacking limit")
    if ans.legal is None:
        ans.set("legal", True)
        ctx.emit(UnitMoved(unit.key, hex_state.id))


def counterattack(ctx: Ctx) -> None:
    """§6.3: the assaulted unit rolls its Assault Factor back (to-hit 6 if it was disrupted)."""
    unit = ctx.unit(ctx.action.actor)
    foes = assault_targets(ctx)
    fp, to_hit = assault_values(ctx, unit, foes, unit.hex, True)
    ctx.answer.set("fp", fp)
    ctx.answer.set("to_hit", to_hit)
    if ctx.action.hits is not None:
        hits = ctx.action.hits if isinstance(ctx.action.hits, int) else sum(ctx.action.hits.values())
    else:
        hits = sum(1 for d in ctx.roll(fp, "counter") if d >= to_hit)
    ctx.answer.set("hits", hits)
