"""WaW85 Combat Results (§10.7) and their knock-ons: excess hits, HQs and Leaders,
Transports and Passengers, Close Air Support, Wrecks and Opportunity Fire stops.

The step ladder of §10.7.1 is the classic one, so hits go through the shared
:func:`referee.damage.take_hits`; what differs is everything after it.
"""
from __future__ import annotations

from referee import damage
from referee.defence import improved_position
from referee.errors import NotStated
from referee.events import (MarkerPlaced, PassengerUnloaded, StatusChanged, UnitEliminated, UnitReduced,
                            UnitRemoved, result_of)
from referee.model import Unit
from referee.ruleset import Ctx
from referee.waw85.common import VEHICLES, because, tables, target_kind, whole

COMMAND = frozenset({"hq", "leader"})
NOT_FIGHTING = frozenset({"hq", "leader", "support_weapon"})
WATER = frozenset({"water", "all_water"})


def affected_by(weapon: str | None, unit: Unit) -> bool:
    """§10.7.1 with §10.1: may this firepower affect that unit (for excess hits)?"""
    if weapon is None:
        return True
    kind = target_kind(unit)
    if weapon == "ap":
        return kind != "troops"
    return kind != "heavy_armor" or "high_rate_of_fire_he" in unit.type.abilities


def fire_results(ctx: Ctx, key: str, hits: int, weapon: str | None, *, opportunity: bool) -> list[str]:
    """Net hits on the named target, excess hits on the other unit of its stack, then every
    knock-on of the attack; returns the units attacked."""
    target = ctx.game.unit(key)
    if target.type.target_type == "aircraft":
        cas_results(ctx, target, hits)
        return [key]
    attacked = [key]
    excess = damage.take_hits(ctx, key, hits, weapon=weapon)
    if excess:
        ctx.answer.set("excess_hits", excess)
        # "the other unit in a stack": the target's own, not an enemy sharing the hex (a CAS
        # counter placed in its target hex to attack it, §4.3, or a unit across the altitudes,
        # §9.7.1-§9.7.3)
        others = [u for u in ctx.game.stack(target.hex, exclude=key)
                  if u.type.target_type not in NOT_FIGHTING and u.carried_by is None
                  and u.type.target_type != "aircraft" and not (u.side and target.side and u.side != target.side)]
        if others:
            other = others[0]
            if affected_by(weapon, other):
                because(ctx, "10.7.1", f"{excess} excess hit(s) go to {other.name}")
                damage.take_hits(ctx, other.key, excess, weapon=weapon)
                attacked.append(other.key)
            else:
                because(ctx, "10.7.1", f"excess {str(weapon).upper()} hits cannot affect {other.name}")
                ctx.answer.unit(other.key, hits=0)
    aftermath(ctx, attacked, opportunity=opportunity)
    return attacked


def aftermath(ctx: Ctx, attacked: list[str], *, opportunity: bool = False) -> None:
    """The knock-ons of one attack, in the hexes ``ctx.game`` has the attacked units in (a unit
    entering a Minefield is attacked in it, §16.2)."""
    results = {k: result_of(k, ctx.answer.events) for k in attacked}
    for key in attacked:
        unit = ctx.game.unit(key)
        if results[key] == "eliminated":
            wreck(ctx, unit)
        transport(ctx, unit, results[key])
        if opportunity and results[key] != "none" and results[key] != "eliminated":
            ctx.emit(StatusChanged(key, "moving", False), StatusChanged(key, "ops_complete", True))
            because(ctx, "10.8.2", f"{unit.name}: hit by Opportunity Fire, stops and is Ops Complete")
    command_checks(ctx, attacked, results)
    _rubble_after_fire(ctx, attacked)


#: The attacks whose net hits may rubble or ignite a hex (§10.9: "one Direct or Indirect Fire attack");
#: a CAS attack is one, resolved by "the Direct Fire procedures" (§4.3).
FIRE_ATTACKS = ("direct_fire", "opportunity_fire", "move_and_fire", "cas_attack")


def _rubble_after_fire(ctx: Ctx, attacked: list[str]) -> None:
    """§10.9 after a Direct, Opportunity, Move & Fire or CAS (§4.3) attack: its net hits on the
    target's hex."""
    net = ctx.answer.values.get("net_hits")
    if ctx.action.kind not in FIRE_ATTACKS or not isinstance(net, int):
        return
    for hex_id in sorted({ctx.game.unit(k).hex for k in attacked} - {None}):
        rubble_and_fire(ctx, hex_id, net)


def rubble_and_fire(ctx: Ctx, hex_id: str, net: int) -> None:
    """§10.9: "If a net result of 3 or more hits are inflicted in one Direct or Indirect Fire
    attack on a unit or stack ... in any City, Town, Woods, Light Woods, Light Jungle or Jungle
    hex ... immediately roll 1d6"; without that die the hex's fate is a gap. Used after Direct
    Fire (:func:`_rubble_after_fire`) and after a Strike's stack is resolved (artillery)."""
    hex_state = ctx.after.hex(hex_id)
    if net < tables()["rubble_min_hits"] or hex_state.terrain not in tables()["burnable_terrain"]:
        return
    because(ctx, "10.9", f"{net} net hits in {hex_state.terrain} {hex_id}: roll for Rubble and Fire")
    if not ctx.has_dice("d6"):
        ctx.answer.gap("hexes", "not stated: dice.d6 (the §10.9 Rubble and Fire roll)")
        return
    from referee.waw85.phases import rubble_roll
    try:
        rubble_roll(ctx, hex_state)
    except NotStated as missing:          # the case lists no die for it: the hex's fate is unknown
        ctx.answer.gap("hexes", f"not stated: {missing.field} (the §10.9 Rubble and Fire roll)")


def wreck(ctx: Ctx, unit: Unit) -> None:
    """§10.8.1: an eliminated vehicle leaves a Wreck "in the hex" it is eliminated in
    (:func:`referee.damage.eliminated_in`: an attacker eliminated in an Assault, in the hex it
    assaulted, §13.0, §13.2.1; a unit eliminated entering a Minefield, in the Minefield hex,
    §16.2); one per hex, none in all-water hexes."""
    where = damage.eliminated_in(ctx, unit.key)
    if unit.type.target_type not in VEHICLES | {"vehicle"} or where is None:
        return
    hex_state = ctx.after.hex(where)
    if "wrecks" in hex_state.markers:
        because(ctx, "10.8.1", "only one Wrecks marker per hex")
    elif hex_state.terrain in WATER:
        because(ctx, "10.8.1", "no Wrecks in all-water hexes")
    else:
        ctx.emit(MarkerPlaced(where, "wrecks"))
        because(ctx, "10.8.1", f"{unit.name} eliminated: Wrecks placed in {where}")


# ---------------------------------------------------------------- HQs and Leaders -----

def hit_hq(ctx: Ctx, hq: Unit) -> None:
    """An HQ is reduced; one already reduced stays reduced and is Suppressed (§10.7.2)."""
    if hq.strength == "reduced":
        ctx.emit(UnitRemoved(hq.key, "suppressed_box", result="suppressed"))
        because(ctx, "10.7.2", f"{hq.name} already reduced: to the Suppressed Holding Box")
    else:
        if hq.strength is None:
            raise NotStated(f"units.{hq.key}.strength")
        ctx.emit(UnitReduced(hq.key))
        because(ctx, "10.7.2", f"{hq.name} is reduced")


def hit_leader(ctx: Ctx, leader: Unit) -> None:
    """A Leader is wounded; one already wounded is eliminated (§10.7.2)."""
    if leader.status.wounded:
        ctx.emit(UnitEliminated(leader.key))
        because(ctx, "10.7.2", f"{leader.name} already wounded: eliminated")
    else:
        ctx.emit(StatusChanged(leader.key, "wounded", True))
        because(ctx, "10.7.2", f"{leader.name} is wounded")


def hit_command(ctx: Ctx, unit: Unit) -> None:
    (hit_hq if unit.type.target_type == "hq" else hit_leader)(ctx, unit)


def command_roll(ctx: Ctx, unit: Unit, modifier: int) -> None:
    """§10.7.2: 1d6 (+2 when a stacked unit was eliminated): 4-6 reduces or wounds."""
    roll = ctx.roll(1, "d6")[0]
    modified = roll + modifier
    ctx.answer.set("roll_required", True)
    ctx.answer.set("modified_roll", modified)
    if modifier:
        ctx.answer.modify("roll", modifier, "a unit stacked with it was eliminated", "WaW85 §10.7.2")
    because(ctx, "10.7.2", f"{unit.name}: 1d6 {roll}{modifier:+d} = {modified}")
    if modified >= 4:
        hit_command(ctx, ctx.after.unit(unit.key))
    else:
        ctx.answer.unit(unit.key, hits=0)


def command_checks(ctx: Ctx, attacked: list[str], results: dict[str, str]) -> None:
    """§10.7.2: HQs and Leaders stacked with units that were reduced or eliminated."""
    hexes = {ctx.game.unit(k).hex for k in attacked if results[k] not in ("none", "disrupted")}
    spared = {ctx.game.unit(k).hex for k in attacked} - hexes - {None}
    if any(u.type.target_type in COMMAND and u.key not in attacked and u.carried_by is None
           for h in spared for u in ctx.game.stack(h)):
        ctx.answer.set("roll_required", False)
        because(ctx, "10.7.2", "no unit stacked with the HQ or Leader is reduced or eliminated: no roll")
    for hex_id in sorted(hexes - {None}):
        stack = ctx.game.stack(hex_id)
        # "stacked with": of the same side; an enemy in the hex (an attacker entering a mined
        # defender's hex, §16.2) is no unit of its stack
        hit = [ctx.game.unit(k) for k in attacked if ctx.game.unit(k).hex == hex_id
               and results[k] not in ("none", "disrupted")]
        commanders = [u for u in stack if u.type.target_type in COMMAND
                      and u.key not in attacked and u.carried_by is None and any(_allies(u, h) for h in hit)]
        if not commanders:
            continue
        fighters = [u for u in stack if u.type.target_type not in NOT_FIGHTING and _allies(u, commanders[0])]
        fates = [result_of(u.key, ctx.answer.events) for u in fighters]
        if fighters and all(f == "eliminated" for f in fates):
            ctx.answer.set("roll_required", False)
            because(ctx, "10.7.2", "every unit stacked with the HQ or Leader is eliminated")
            for unit in commanders:
                if unit.type.target_type == "hq":
                    if unit.strength != "reduced":
                        ctx.emit(UnitReduced(unit.key))
                    ctx.emit(UnitRemoved(unit.key, "suppressed_box", result="suppressed"))
                else:
                    ctx.emit(UnitEliminated(unit.key))
            continue
        modifier = 2 if "eliminated" in fates else 0
        for unit in commanders:
            command_roll(ctx, unit, modifier)


def _allies(one: Unit, other: Unit) -> bool:
    """Not stated to be of opposing sides."""
    return not (one.side and other.side and one.side != other.side)


# ---------------------------------------------------------------- Transports ----------

def transport(ctx: Ctx, carrier: Unit, result: str) -> None:
    """§10.7.3: Passengers (and an HQ or Leader with them) share their Transport's fate."""
    aboard = ctx.game.passengers(carrier.key)
    if not aboard or result == "none":
        return
    passengers = [u for u in aboard if u.type.target_type not in COMMAND]
    commanders = [u for u in aboard if u.type.target_type in COMMAND]
    if result == "disrupted":
        for unit in passengers:
            damage.impose(ctx, unit.key, "disrupted")
        because(ctx, "10.7.3", "Transport Disrupted: its Passengers are Disrupted")
        return
    helicopter = carrier.type.target_type == "helicopter"
    if result == "eliminated" and helicopter:
        if carrier.mode is None:
            raise NotStated(f"units.{carrier.key}.mode")
        if carrier.mode in ("flying", "hovering"):
            because(ctx, "10.7.3", f"{carrier.mode} Helicopter Transport eliminated: all aboard eliminated")
            for unit in aboard:
                ctx.emit(UnitEliminated(unit.key))
            return
        for unit in passengers:
            roll = ctx.roll(1, "d6")[0]
            because(ctx, "10.7.3", f"Landed/NOE Helicopter Transport eliminated, 1d6 = {roll}")
            if roll >= 4:
                for gone in [unit, *commanders]:
                    ctx.emit(UnitEliminated(gone.key))
            else:
                damage.impose(ctx, unit.key, "disrupted_and_reduced")
                for commander in commanders:
                    hit_command(ctx, commander)
        _unloaded(ctx, carrier, aboard)
        return
    if result == "eliminated":
        roll = ctx.roll(1, "d6")[0]
        because(ctx, "10.7.3", f"ground Transport eliminated, 1d6 = {roll}")
        if roll >= 4:
            for unit in aboard:
                ctx.emit(UnitEliminated(unit.key))
            return
        for unit in passengers:
            damage.impose(ctx, unit.key, "disrupted_and_reduced")
        for commander in commanders:
            command_roll(ctx, commander, 0)
        _unloaded(ctx, carrier, aboard)
        return
    if "reduced" in result:
        if "disrupted" in result:
            for unit in passengers:
                damage.impose(ctx, unit.key, "disrupted")
        roll = ctx.roll(1, "d6")[0]
        because(ctx, "10.7.3", f"Transport reduced, 1d6 = {roll}: "
                + ("Passengers reduced" if roll >= 4 else "Passengers unaffected"))
        if roll >= 4:
            for unit in passengers:
                damage.impose(ctx, unit.key, "reduced")
            for commander in commanders:
                command_roll(ctx, commander, 0)


def _unloaded(ctx: Ctx, carrier: Unit, aboard: list[Unit]) -> None:
    """§9.8 "Passengers may be forced to be unloaded if their Transport unit is eliminated in
    transit": those that survive its elimination are unloaded in its hex."""
    survivors = [u for u in aboard if ctx.after.unit(u.key).on_map]
    for unit in survivors:
        ctx.emit(PassengerUnloaded(unit.key))
    if survivors:
        because(ctx, "9.8", f"{carrier.name} is eliminated: {', '.join(u.name for u in survivors)} "
                f"{'is' if len(survivors) == 1 else 'are'} unloaded in its hex")


# ---------------------------------------------------------------- Close Air Support ---

def cas_results(ctx: Ctx, cas: Unit, hits: int) -> None:
    """§10.7.4: two hits eliminate a CAS; one hit and 1d6: 1-3 circles back, 4-6 returns to base."""
    ctx.answer.unit(cas.key, hits=hits)
    if hits >= 2:
        ctx.emit(UnitEliminated(cas.key))
        because(ctx, "10.7.4", f"{hits} hits: {cas.name} eliminated with its card")
    elif hits == 1:
        roll = ctx.roll(1, "d6")[0]
        if roll <= 3:
            ctx.emit(UnitRemoved(cas.key, "holding_box", result="circles_back"))
            because(ctx, "10.7.4", f"one hit, 1d6 = {roll}: circles back to the Holding Box")
        else:
            ctx.emit(UnitRemoved(cas.key, "removed", result="returns_to_base"))
            because(ctx, "10.7.4", f"one hit, 1d6 = {roll}: calls off its run and returns to base")


def apply_damage(ctx: Ctx) -> None:
    """Given net hits or a result on one unit, with every §10.7 knock-on."""
    key = ctx.action.target
    if not isinstance(key, str):
        raise NotStated("query.target")
    opportunity = ctx.action.cause == "opportunity_fire"
    if ctx.action.hits is not None:
        net = improved_position(ctx, ctx.game.unit(key), whole(ctx.action.hits, "query.hits"))
        ctx.answer.set("net_hits", net)
        fire_results(ctx, key, net, ctx.action.weapon, opportunity=opportunity)
        return
    if ctx.action.result is None:
        raise NotStated("query.hits or query.result")
    damage.impose(ctx, key, ctx.action.result)
    aftermath(ctx, [key], opportunity=opportunity)
