"""The WaW85 Assault Action (§13): who may assault or counterattack, the §13.1 modifiers,
hits with no saves spread one per unit (an odd hit by 1d6: 1-3 top, 4-6 bottom), who
retreats (§13.2.1), retreat hexes (§13.2.2) and Ops Complete for all (§13.2.3)."""
from __future__ import annotations

from dataclasses import dataclass

from referee import damage
from referee.assault import assault_targets
from referee.errors import NotStated
from referee.events import StatusChanged, UnitEliminated, UnitMoved, result_of
from referee.model import Unit, need
from referee.ruleset import Ctx
from referee.waw85 import results
from referee.waw85.common import VEHICLES, because, illegal, stated_hits
from referee.waw85.movement import river_crossing
from referee.waw85.transport import STACKING_LIMIT

RIVER_HEXSIDES = frozenset({"bridge", "river"})
INFANTRY_BONUS_TERRAIN = frozenset({"city", "town"})


@dataclass(frozen=True)
class AssaultNumbers:
    fp: int | None
    to_hit: int | None


#: Units in an assaulted hex that are not attacked themselves.
NOT_ASSAULTED = frozenset({"hq", "leader", "support_weapon"})


def _defenders(ctx: Ctx) -> list[Unit]:
    return assault_targets(ctx, NOT_ASSAULTED)


def may_fight(ctx: Ctx, unit: Unit, foes: list[Unit], *, attacking: bool) -> bool:
    """§13.0: an Assault value is needed, and a unit without AP FP or High Rate of Fire HE
    may not assault, nor counterattack, Heavy Armor."""
    verb = "assault" if attacking else "counterattack"
    stated = [u for u in ctx.action.actors if ctx.game.unit(u).current.assault is not None]
    if unit.current.assault is None and (ctx.action.hits is not None or (attacking and not stated)):
        because(ctx, "13.0", f"{unit.name}: Assault value not stated; the situation has it fight")
    elif unit.current.assault is None:
        because(ctx, "13.0", f"{unit.name} has no Assault value and may not {verb}")
        return False
    if any(f.type.target_type == "heavy_armor" for f in foes) and unit.current.ap is None \
            and "high_rate_of_fire_he" not in unit.type.abilities:
        illegal(ctx, "13.0", f"{unit.name} has no AP FP nor High Rate of Fire HE: may not "
                f"{verb} Heavy Armor")
        return False
    return True


def numbers(ctx: Ctx, unit: Unit, foes: list[Unit], hex_id: str | None, *, attacking: bool) -> AssaultNumbers:
    """Assault FP dice and To-Hit with §13.0 (Disrupted counterattack at 6) and §13.1."""
    value = unit.current.assault
    if value is None:
        raise NotStated(f"units.{unit.key}.assault")
    fp, to_hit = value.fp, value.to_hit
    disrupted = unit.status.disrupted
    if not attacking and disrupted:
        because(ctx, "13.0", f"{unit.name} is Disrupted: counterattacks at To-Hit 6")
        return AssaultNumbers(fp, 6)
    fp_mod, hit_mod = 0, 0
    if attacking:
        for key in ctx.action.bonus_from or ():
            giver = ctx.game.unit(key)
            bonus = need(giver.leadership, f"units.{key}.leadership")
            fp_mod += bonus
            because(ctx, "13.1.1", f"{giver.name} Command Bonus: Assault FP +{bonus}")
    if unit.type.target_type == "troops" and not disrupted and foes:
        kinds = [f.type.target_type for f in foes]
        if None in kinds:
            raise NotStated("units.<defender>.target_type")
        if all(k in VEHICLES for k in kinds):
            hit_mod -= 1
            because(ctx, "13.1.2", f"{unit.name}: Infantry against vehicles alone, To-Hit -1")
            terrain = need(ctx.game.hex(hex_id).terrain if hex_id else None, "hexes.<assault hex>.terrain")
            if terrain in INFANTRY_BONUS_TERRAIN:
                fp_mod += 1
                because(ctx, "13.1.2", f"{unit.name}: and in a {terrain.title()} hex, Assault FP +1")
    if ctx.game.facts.get("hexside") in RIVER_HEXSIDES:
        defender = foes[0] if attacking else unit
        if not defender.status.disrupted:
            if attacking:
                fp_mod -= 1
                hit_mod += 1
                because(ctx, "13.1.3", f"{unit.name}: Assault across a Bridge or River, FP -1, To-Hit +1")
            else:
                hit_mod -= 1
                because(ctx, "13.1.3", f"{unit.name}: defending a Bridge or River hexside, To-Hit -1")
    if ctx.game.facts.get("night") and not disrupted:
        hit_mod -= 1
        because(ctx, "13.1.4", f"{unit.name}: Undisrupted in a night Assault, To-Hit -1")
    return AssaultNumbers(None if fp is None else max(fp + fp_mod, 0),
                          None if to_hit is None else min(to_hit + hit_mod, 6))


def _report(ctx: Ctx, unit: Unit, foes: list[Unit], hex_id: str | None, *, attacking: bool) -> None:
    got = numbers(ctx, unit, foes, hex_id, attacking=attacking)
    for name in ("fp", "to_hit"):
        value = getattr(got, name)
        if attacking:
            if value is None:
                ctx.answer.gap(name, f"not stated: units.{unit.key}.assault.{name}")
            else:
                ctx.answer.set(name, value)
        elif value is not None:
            ctx.answer.unit(unit.key, **{name: value})


def _movement(ctx: Ctx, unit: Unit, hex_id: str | None) -> None:
    """§13.0 note: MPs enough to enter the target hex, or Ops Complete one hex short;
    §9.5: an amphibious River crossing spends every MP."""
    if river_crossing(ctx, unit):
        return
    if hex_id is None or unit.status.mp_left is None:
        return
    cost = ctx.game.hex(hex_id).mp_cost
    if cost is None:
        return
    if unit.status.mp_left < cost:
        illegal(ctx, "13.0", f"{unit.name} has {unit.status.mp_left} MP left, entering costs {cost}")
        ctx.emit(StatusChanged(unit.key, "ops_complete", True))


def assault(ctx: Ctx) -> None:
    ans = ctx.answer
    attackers = [ctx.unit(k) for k in ctx.action.actors] or [ctx.unit(None)]
    if ctx.action.cause == "unload":
        attackers = _unload_into_assault(ctx, attackers)
    defenders = _defenders(ctx)
    hex_id = next((d.hex for d in defenders if d.hex), None)
    if isinstance(ctx.action.target, str) and ctx.action.target not in ctx.game.units:
        hex_id = ctx.action.target
    for d in defenders:
        if d.type.target_type == "helicopter" and d.mode in ("flying", "hovering"):
            illegal(ctx, "13.0", f"a {d.mode} Helicopter may not be the target of an Assault")
    participants = []
    for unit in attackers:
        if unit.status.disrupted or unit.status.ops_complete:
            illegal(ctx, "13.0", f"{unit.name} is Disrupted or Ops Complete and may not assault")
        elif unit.type.target_type == "aircraft":
            illegal(ctx, "13.0", "Aircraft may not assault")
        elif may_fight(ctx, unit, defenders, attacking=True):
            participants.append(unit)
            _movement(ctx, unit, hex_id)
    if not participants and ans.legal is not False:
        illegal(ctx, "13.0", "no unit with an Assault value")
    if len(participants) < len(attackers) and ans.legal is not False:
        because(ctx, "13.0", "the stack splits: units without an Assault value halt outside")
    ans.set("participants", [u.key for u in participants])
    if ans.legal is None:
        ans.set("legal", True)
    for unit in participants[:1] or attackers[:1]:
        # the numbers are reported even when the Assault is refused: what it would roll
        ctx.stage(("fp", "to_hit"), lambda: _report(ctx, unit, defenders, hex_id, attacking=True))
    if ans.legal is False:
        return
    fighting = [d for d in defenders if may_fight(ctx, d, participants, attacking=False)]
    for d in fighting:
        ctx.stage((f"units.{d.key}.fp", f"units.{d.key}.to_hit"),
                  lambda d=d: _report(ctx, d, participants, hex_id, attacking=False))
    for unit in participants:
        if hex_id is not None and unit.hex != hex_id:
            ctx.emit(UnitMoved(unit.key, hex_id))
    because(ctx, "13.0", "the assaulting units enter the target hex and execute the Assault")
    fields = ("hits", "hit_allocation", *(f"units.{u.key}" for u in participants + defenders))
    ctx.stage(fields, lambda: _resolve(ctx, participants, defenders, fighting, hex_id))


def _resolve(ctx: Ctx, participants: list[Unit], defenders: list[Unit], fighting: list[Unit],
             hex_id: str | None) -> None:
    ans = ctx.answer
    given = stated_hits(ctx)
    if given is None:
        on_defenders = _roll_side(ctx, participants, defenders, hex_id, True, "attack")
        on_attackers = _roll_side(ctx, fighting, participants, hex_id, False, "counter")
    elif isinstance(given, int):
        on_defenders, on_attackers = given, 0
    else:
        on_defenders = sum(given.get(u.key, 0) for u in defenders)
        on_attackers = sum(given.get(u.key, 0) for u in participants)
    ans.set("hits", on_defenders)
    _settle(ctx, participants, defenders, on_defenders, on_attackers, hex_id)


def _unload_into_assault(ctx: Ctx, passengers: list[Unit]) -> list[Unit]:
    """§9.8.3: Passengers unload from ground Transports straight into the Assault; one
    Disrupted by the Opportunity Fire this triggers stays in its Transport's hex, and if
    that hex is then over the stacking limit, Passengers are eliminated first."""
    going, staying = [], []
    for unit in passengers:
        carrier = ctx.game.unit(need(unit.carried_by, f"units.{unit.key}.carried_by"))
        if carrier.type.target_type == "helicopter":
            illegal(ctx, "9.8.5", "Passengers may not unload from Helicopters into an enemy hex")
        (staying if unit.status.disrupted else going).append(unit)
    for unit in staying:
        because(ctx, "9.8.3", f"{unit.name} was Disrupted unloading: it stays in its Transport's hex")
    by_hex: dict[str, list[Unit]] = {}
    for unit in staying:
        by_hex.setdefault(need(unit.hex, f"units.{unit.key}.hex"), []).append(unit)
    for hex_id, left in by_hex.items():
        others = [u for u in ctx.game.stack(hex_id) if u.carried_by is None
                  and u.type.target_type not in ("hq", "leader", "support_weapon")]
        excess = len(others) + len(left) - STACKING_LIMIT
        for unit in left[:max(excess, 0)]:
            ctx.emit(UnitEliminated(unit.key))
            because(ctx, "9.8.3", f"{hex_id} is over the stacking limit: {unit.name} is eliminated first")
    return going


def _roll_side(ctx: Ctx, units: list[Unit], foes: list[Unit], hex_id: str | None,
               attacking: bool, label: str) -> int:
    hits = 0
    for unit in units:
        got = numbers(ctx, unit, foes, hex_id, attacking=attacking)
        fp = need(got.fp, f"units.{unit.key}.assault.fp")
        to_hit = need(got.to_hit, f"units.{unit.key}.assault.to_hit")
        hits += sum(1 for d in ctx.roll(fp, label) if d >= to_hit)
    return hits


def spread(ctx: Ctx, units: list[Unit], hits: int) -> dict[str, int]:
    """§13.2.1: one hit each before any takes two; an odd hit by 1d6, 1-3 top, 4-6 bottom."""
    if not units:
        return {}
    share, odd = divmod(hits, len(units))
    allocation = {u.key: share for u in units}
    if odd:
        if len(units) != 2:
            raise NotStated("hit allocation in a stack of more than two units")
        die = ctx.roll(1, "d6")[0]
        top = sorted(units, key=lambda u: (u.stack_order or 99, u.key))
        pick = top[0] if die <= 3 else top[-1]
        allocation[pick.key] += 1
        because(ctx, "13.2.1", f"odd hit, 1d6 {die}: {pick.name} takes it")
    return allocation


def _settle(ctx: Ctx, attackers: list[Unit], defenders: list[Unit], on_defenders: int,
            on_attackers: int, hex_id: str | None) -> None:
    allocation: dict[str, int] = {}
    for side, hits in ((defenders, on_defenders), (attackers, on_attackers)):
        for key, n in spread(ctx, side, hits).items():
            allocation[key] = n
            damage.take_hits(ctx, key, n)
    ctx.answer.set("hit_allocation", {k: n for k, n in allocation.items() if n})
    results.aftermath(ctx, [u.key for u in defenders + attackers])
    for unit in defenders + attackers:
        ctx.answer.unit(unit.key, retreat=0)
    held = all(result_of(d.key, ctx.answer.events) == "eliminated" for d in defenders)
    if held:
        because(ctx, "13.2.1", "the defender is eliminated: the attacker occupies the hex")
    elif on_defenders > on_attackers:
        because(ctx, "13.2.1", "the defender took more hits than it inflicted: it retreats one hex")
        for d in defenders:
            if result_of(d.key, ctx.answer.events) != "eliminated":
                ctx.answer.unit(d.key, retreat=1)
                ctx.answer.gap(f"units.{d.key}.hex", "not stated: the retreat hex (§13.2.2)")
    else:
        because(ctx, "13.2.1", "the attacker did not inflict more hits than it received: it "
                "retreats to the hex it entered from")
        for a in attackers:
            ctx.answer.unit(a.key, retreat=1)
            if a.hex is not None and a.hex != hex_id and result_of(a.key, ctx.answer.events) != "eliminated":
                ctx.emit(UnitMoved(a.key, a.hex))
    for unit in defenders + attackers:
        if result_of(unit.key, ctx.answer.events) != "eliminated":
            ctx.emit(StatusChanged(unit.key, "ops_complete", True))
    because(ctx, "13.2.3", "every participant is marked Ops Complete")


def counterattack(ctx: Ctx) -> None:
    """Whether the assaulted ``query.unit`` may counterattack ``query.target`` (§13.0, §13.2)."""
    unit = ctx.unit(ctx.action.actor)
    target = ctx.unit(ctx.action.target if isinstance(ctx.action.target, str) else None, "target")
    if may_fight(ctx, unit, [target], attacking=False):
        ctx.answer.set("legal", True)
        ctx.stage(("fp", "to_hit"), lambda: _report(ctx, unit, [target], unit.hex, attacking=True))
    elif ctx.answer.legal is None:
        illegal(ctx, "13.0", f"{unit.name} has no Assault value and may not counterattack")


def retreat(ctx: Ctx) -> None:
    """§13.2.2: into one of the three hexes opposite the attacker's entry hexside, not
    enemy-occupied, not full of friends, not Prohibited; no Opportunity Fire. A unit with
    nowhere to go is eliminated."""
    unit = ctx.unit(ctx.action.actor)
    if ctx.game.facts.get("retreat_possible") is False:
        ctx.emit(UnitEliminated(unit.key))
        because(ctx, "13.2.2", f"{unit.name} cannot retreat and is eliminated")
        return
    hex_id = ctx.action.target if isinstance(ctx.action.target, str) else None
    stated = ctx.game.hex(need(hex_id, "query.target")).stated
    away = need(stated.get("away_from_attacker"), f"hexes.{hex_id}.away_from_attacker")
    enemies = need(stated.get("enemy_units"), f"hexes.{hex_id}.enemy_units")
    friends = need(stated.get("friendly_units"), f"hexes.{hex_id}.friendly_units")
    if not away:
        illegal(ctx, "13.2.2", "a retreat goes into one of the three hexes opposite the attacker")
    if enemies:
        illegal(ctx, "13.2.2", "a retreat may not enter an enemy-occupied hex")
    if friends + 1 > STACKING_LIMIT:
        illegal(ctx, "13.2.2", "a retreat may not overstack a friendly hex")
    if ctx.game.hex(hex_id).stated.get("prohibited"):
        illegal(ctx, "13.2.2", "a retreat may not enter Prohibited terrain")
    if ctx.answer.legal is None:
        ctx.answer.set("legal", True)
    ctx.answer.set("triggers_opportunity_fire", False)
    because(ctx, "13.2.2", "units retreating from an Assault do not trigger Opportunity Fire")
