"""The classic books' readings of close combat: Assault values (EG/TUS §6.3, §6.3.1, TUS
§6.3.2), retreat hexes (§6.3) and the Overrun (§6.4), a classic-only procedure that shares
the Assault's hit spreading and results (:mod:`referee.assault`, :mod:`referee.damage`).
"""
from __future__ import annotations

from referee import damage
from referee.assault import Numbers, assault_targets, target_hex
from referee.defence import improved_position
from referee.errors import NotStated
from referee.events import UnitEliminated, move_with_riders, result_of
from referee.hexes import Hex
from referee.model import Unit, need
from referee.ruleset import Ctx

UNCOUNTED = ("hq", "helicopter", "leader", "support_weapon", "aircraft")


def may_fight(ctx: Ctx, unit: Unit, foes: list[Unit], *, attacking: bool) -> bool:
    """Units without an Assault Factor cannot attack or counterattack (§6.3): an attacker's
    unstated factor is a gap; a defender that states none does not counterattack. An HQ
    "itself does not attack" (§6.3, §1.3.3.2): it adds its Leadership to one unit."""
    why = {"hq": ("§6.3, §1.3.3.2", f"{unit.name} does not attack itself: its Leadership adds to one unit's "
                  "Assault Factor"),
           "support_weapon": ("§1.3.5", f"{unit.name} is a Support Weapon: a ranged weapon, not used in an "
                              "Assault")}.get(unit.type.target_type)
    if attacking and unit.status.fired and not unit.status.made_moving_fire:
        # Moving Fire has its own refusal (§6.1.3); a unit that fired from where it stands is Ops Complete
        ctx.answer.illegal("§6.1, §4.4", f"{unit.name} fired this impulse: a unit making a ranged attack is "
                           "marked Ops Complete and cannot assault")
        return False
    if why is not None:
        if attacking and ctx.action.actors == (unit.key,):
            ctx.answer.illegal(*why)
        else:
            ctx.answer.because(*why)
        return False
    return attacking or unit.current.assault is not None


def assault_numbers(ctx: Ctx, unit: Unit, foes: list[Unit], hex_id: str | None, *, attacking: bool) -> Numbers:
    """Dice and To-Hit with §6.3 (Disrupted defenders at 6), §6.3.1, TUS §6.3.2 and the HQ's
    Leadership added to one unit of its side (§6.3, §1.3.3.2)."""
    from referee.classic.ranged import attack_bonus
    fp, to_hit = assault_values(ctx, unit, foes, hex_id, not attacking)
    if unit.key == ctx.action.actor and ctx.action.bonus_from:
        fp += attack_bonus(ctx, unit)              # the attacker, or the unit counterattacking
    elif not attacking and ctx.action.kind == "assault":
        fp += _defending_hq(ctx, unit, foes)
    augmented = attacking and unit.current.assault is not None and unit.current.assault.augmented
    return Numbers(fp, to_hit, fp - 1 if augmented else None)


def assault_values(ctx: Ctx, unit: Unit, foes: list[Unit], hex_id: str | None,
                   defending: bool) -> tuple[int, int]:
    """(dice, to-hit) of one unit in an assault, with §6.3.1 and TUS §6.3.2 applied."""
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


def _defending_hq(ctx: Ctx, unit: Unit, attackers: list[Unit]) -> int:
    """§6.3: "If an HQ takes part in Assault Combat (whether on the attacking or defending
    side), one of the units adds the HQ's Leadership": an HQ in the defenders' hex backs the
    first defender that counterattacks."""
    if unit.hex is None:
        return 0
    stack = ctx.game.stack(unit.hex)
    fighting = [u for u in stack if u.type.target_type not in UNCOUNTED and u.current.assault is not None]
    hq = next((u for u in stack if u.type.target_type == "hq"), None)
    if hq is None or not fighting or fighting[0].key != unit.key:
        return 0
    bonus = need(hq.leadership, f"units.{hq.key}.leadership")
    ctx.answer.because("§6.3", f"{hq.name} takes part in the Assault: {unit.name} adds its Leadership {bonus}")
    return bonus


def retreat_hexes(ctx: Ctx, defenders: list[Unit], attackers: list[Unit], came_from: Hex) -> list[str]:
    """§6.3: "directly away" from the hex the attackers entered from: the hex exactly opposite
    when it is open, else the two beside it that are also away (distance 2 from the entry
    hex); never an enemy-occupied hex, a hex next to an enemy other than the assaulting
    units, a hex over the stacking limit, or terrain the unit cannot enter."""
    from referee.classic.movement import entry_cost
    here_id = defenders[0].hex
    here = ctx.game.hex(here_id).at
    by_at = {h.at: h.id for h in ctx.game.hexes.values() if h.at is not None}
    attacking = {a.key for a in attackers}
    side = defenders[0].side
    opposite = Hex(2 * here.q - came_from.q, 2 * here.r - came_from.r)
    away = [opposite] + [n for n in here.neighbors() if n != opposite and n.distance(came_from) == 2]
    legal = []
    for cell in away:
        hex_id = by_at.get(cell)
        if hex_id is None:
            continue
        stack = ctx.game.stack(hex_id)
        if any(u.side and side and u.side != side for u in stack):
            continue
        near = [u for n in cell.neighbors() if n in by_at for u in ctx.game.stack(by_at[n])
                if u.side and side and u.side != side and u.key not in attacking and n != here]
        if near:
            continue
        friends = [u for u in stack if u.type.target_type not in UNCOUNTED and u.carried_by is None]
        moving = [d for d in defenders if d.type.target_type not in UNCOUNTED]
        if len(friends) + len(moving) > 2:
            continue
        if any(entry_cost(ctx.probe(), d, hex_id, here_id) is None for d in defenders):
            continue
        legal.append(hex_id)
    if legal and legal[0] == by_at.get(opposite):
        return legal[:1]
    return legal


def retreat_check(ctx: Ctx) -> None:
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
            # as any elimination: its Passengers and SW with it (§5.2.4, §1.3.5), its leader
            # dies (TUS §1.3.6), an HQ left with no unit goes too (§1.3.3.1, §1.3.3.2)
            ctx.rules.aftermath(ctx, [unit.key])
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
        # its Passengers, Support Weapon and Leader go with it (§5.2, §1.3.5 "they remain with
        # the platoon", TUS §1.3.6 "remain with, one platoon"); an HQ only when moved with it
        # (§1.3.3.1, Params.deployed_hq_rides)
        ctx.emit(*move_with_riders(ctx.game, unit.key, hex_state.id, deployed_hqs=ctx.params.deployed_hq_rides))


def _may_overrun(ctx: Ctx, unit: Unit) -> None:
    """An Overrun moves through the hex: not for a unit marked Ops Complete (§5.0) or one
    that made Moving Fire (§6.1.3); §6.4 states its own Good Order rule."""
    if unit.status.ops_complete:
        ctx.answer.illegal("§4.4", f"{unit.name} is Ops Complete and cannot overrun")
    if unit.status.made_moving_fire:
        ctx.answer.illegal("§6.1.3", f"{unit.name} made Moving Fire and cannot overrun")


def _hits_given(ctx: Ctx, attackers: list[Unit], defenders: list[Unit]) -> tuple[int, int] | None:
    given = ctx.action.hits
    if given is None:
        return None
    if isinstance(given, int):
        return given, 0
    return sum(given.get(u.key, 0) for u in defenders), sum(given.get(u.key, 0) for u in attackers)


def overrun(ctx: Ctx) -> None:
    """§6.4: AFVs triple their assault factor against infantry in open or hill terrain, pay the
    terrain + 1 MP, keep the MP to enter an enemy-free exit hex (``path``: the exit hex first),
    and never overrun the same hex twice in one impulse (001) or turn (002). "Each overrunning
    AFV (or stack of AFVs) triples its Assault Factor": a stack (``query.unit`` a list) rolls its
    units' tripled factors together, each at its own To-Hit, and shares the infantry's hits.
    An Improved Position nullifies the first hit on the infantry, as of any attack (001 §12.1)."""
    ans = ctx.answer
    actors = [ctx.unit(k) for k in ctx.action.actors] or [ctx.unit(None)]
    defenders = hex_defenders(ctx, assault_targets(ctx))
    hex_id = target_hex(ctx, defenders)
    hex_state = ctx.game.hex(hex_id)
    if hex_state.terrain is not None and hex_state.terrain not in ("clear", "hill"):
        ans.illegal("§6.4", f"overrun only in open or Hill terrain, not {hex_state.terrain}")
    for d in defenders:
        if d.type.is_vehicle:
            ans.illegal("§6.4", f"AFVs overrun enemy infantry: {d.name} is a vehicle")
    entry = hex_state.mp_cost
    if entry is None:
        row = ctx.tec.terrain(hex_state.terrain)
        entry = need((row.mp or {}).get("vehicle"), f"hexes.{hex_state.id}.mp_cost")
    cost = entry + 1
    ans.set("cost", cost)
    ans.because("§6.4", f"overrun costs terrain {entry} + 1 = {cost} MP")
    exit_hex = ctx.action.path[0] if ctx.action.path else None
    for actor in actors:
        _may_overrun_through(ctx, actor, hex_state.id, cost, exit_hex)
    if "legal" in ans.gaps:
        return
    if ans.legal is None:
        ans.set("legal", True)
    factors = [need(a.current.assault and a.current.assault.fp, f"units.{a.key}.assault.fp") * 3 for a in actors]
    fp = sum(factors)
    ans.set("fp", fp)
    if len(actors) > 1:
        ans.because("§6.4", f"the stack of AFVs triples its Assault Factors: {' + '.join(map(str, factors))} = {fp} dice")
    for d in defenders:
        if d.current.assault is not None:
            ctx.stage(f"units.{d.key}.fp", lambda d=d: ctx.answer.unit(
                d.key, fp=d.current.assault.fp, to_hit=6 if d.status.disrupted else d.current.assault.to_hit))
    if ans.legal is False:
        return
    given = _hits_given(ctx, actors, defenders)
    if given is None:
        on_defenders = 0
        for actor, dice in zip(actors, factors):
            to_hit = need(actor.current.assault.to_hit, f"units.{actor.key}.assault.to_hit")
            on_defenders += sum(1 for d in ctx.roll(dice, "attack") if d >= to_hit)
        on_actors = 0
        for d in defenders:
            if d.current.assault is None:
                continue
            d_hit = 6 if d.status.disrupted else need(d.current.assault.to_hit, f"units.{d.key}.assault.to_hit")
            counter = ctx.roll(need(d.current.assault.fp, f"units.{d.key}.assault.fp"), "counter")
            on_actors += sum(1 for x in counter if x >= d_hit)
    else:
        on_defenders, on_actors = given
    ans.set("hits", on_defenders)
    for actor in actors:             # the AFVs fight in the hex they move through (§6.4)
        if hex_id is not None and actor.hex != hex_id:
            ctx.emit(*move_with_riders(ctx.game, actor.key, hex_id, deployed_hqs=ctx.params.deployed_hq_rides))
    net = improved_position(ctx, defenders[0], on_defenders) if defenders else on_defenders
    ans.set("net_hits", net)
    for key, n in damage.spread(ctx, [d.key for d in defenders], net).items():
        damage.take_hits(ctx, key, n)
    for key, n in damage.spread(ctx, [a.key for a in actors], on_actors).items():
        damage.take_hits(ctx, key, n)
    damage.aftermath(ctx, [d.key for d in defenders] + [a.key for a in actors])
    for actor in actors:
        result = result_of(actor.key, ctx.answer.events)
        if result in ("disrupted", "reduced", "disrupted_and_reduced"):
            ans.because("§6.4", f"{actor.name} was hurt: back to the hex it entered from")
            ctx.emit(*move_with_riders(ctx.after, actor.key, actor.hex, deployed_hqs=ctx.params.deployed_hq_rides))
        elif result == "none":
            if exit_hex is None:
                ans.gap(f"units.{actor.key}.hex", "not stated: exit hex (§6.4)")
            else:
                ans.because("§6.4", f"{actor.name} passes through and exits into {exit_hex}")
                ctx.emit(*move_with_riders(ctx.after, actor.key, exit_hex, deployed_hqs=ctx.params.deployed_hq_rides))


def hex_defenders(ctx: Ctx, named: list[Unit]) -> list[Unit]:
    """The defenders of an Assault or Overrun named at one unit: every unit of its side in its
    hex (§6.3 "Units Assault enemy units by moving into their hex ... units occupying the hex
    are called the defenders"; §6.4 "All defending units in the Overrun hex must take one Hit
    before any takes a second"), not a helicopter above it (§9.1), an HQ, a leader or a
    Support Weapon, nor a passenger aboard its transport."""
    if len(named) != 1 or named[0].hex is None:
        return named
    target = named[0]
    return [target] + [u for u in ctx.game.stack(target.hex)
                       if u.key != target.key and u.side == target.side and u.carried_by is None
                       and u.type.target_type not in ("hq", "leader", "support_weapon", "helicopter")]


def _may_overrun_through(ctx: Ctx, actor: Unit, hex_id: str, cost: int, exit_hex: str | None) -> None:
    """One AFV of the overrun: an AFV in Good Order (§6.4) that may move through the hex
    (§4.4, §6.1.3), has not overrun it already, and keeps the MP to exit after paying ``cost``."""
    ans = ctx.answer
    if not actor.type.is_vehicle:
        ans.illegal("§6.4", "only AFVs can overrun")
    elif not damage.is_armored(actor):
        # TUS §6.4 "AFVs can attempt to overrun"; EG §6.4 "Combat vehicles", which §8.1 tells
        # apart from "UNARMORED vehicles": an AFV prints an Armor Factor and Save Number (§1.3.4.1)
        if actor.type.target_type == "vehicle":
            raise NotStated(f"units.{actor.key}.target_type (armored or not)")
        ans.illegal("§6.4", f"only AFVs can overrun: {actor.name} is an unarmored vehicle (§1.3.4.1)")
    if actor.status.disrupted:
        ans.illegal("§6.4", "only Good Order AFVs can overrun")
    _may_overrun(ctx, actor)
    ctx.stage("same_hex_twice", lambda: _overrun_once(ctx, actor, hex_id))
    if actor.status.mp_left is not None:
        left = actor.status.mp_left
    else:
        spent = actor.status.mp_spent if isinstance(actor.status.mp_spent, int) else 0
        left = need(actor.current.mp, f"units.{actor.key}.mp") - spent
    if exit_hex is None:
        if left - cost < 1:
            ans.illegal("§6.4", f"{actor.name}: {left} MP left, after paying {cost} none remain to exit")
    else:
        ctx.stage(("exit_cost", "legal"), lambda: _exit(ctx, actor, hex_id, exit_hex, left - cost))


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
    from referee.classic.movement import check_stacking, entry_cost
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


