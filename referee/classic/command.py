"""Morale (§1.6), conditional morale (001 §1.6.1), command (§4.2), rally (§4.3) and the
chemical strike's morale check (§8.4)."""
from __future__ import annotations

from referee import damage, situation
from referee.errors import NotStated
from referee.events import StatusChanged, UnitDisrupted, UnitRallied
from referee.model import Unit, need
from referee.ruleset import Ctx

NOT_COUNTED = ("hq", "leader", "support_weapon", "aircraft")


formation_hq = situation.formation_hq     # one lookup for both rulesets


def leader_of(ctx: Ctx, unit: Unit) -> Unit | None:
    """The leader assigned to the unit (001 §1.3.6), if any."""
    for other in ctx.game.attached(unit.key):
        if other.type.target_type == "leader" and other.on_map:
            return other
    return None


def morale_of(ctx: Ctx, unit: Unit) -> int:
    """A leader's morale (001 §1.6), else the unit's (its Formation's) morale."""
    leader = leader_of(ctx, unit) if ctx.params.has("leaders") else None
    if leader is not None:
        ctx.answer.because("001 §1.3.6", f"{unit.name} assumes {leader.name}'s morale")
        return need(leader.morale, f"units.{leader.key}.morale")
    formation = ctx.game.formations.get(unit.formation or "")
    if formation is not None and formation.conditional and ctx.params.has("conditional_morale"):
        return conditional_value(ctx, unit)
    if unit.morale is not None:
        return unit.morale
    if formation is not None and formation.morale is not None:
        return formation.morale
    hq = formation_hq(ctx, unit)
    if hq is not None and hq.morale is not None:
        return hq.morale
    raise NotStated(f"units.{unit.key}.morale")


def morale_check(ctx: Ctx) -> None:
    """§1.6: 2d6 at or under the morale passes. "Helicopters have no morale" (§1.6): a
    helicopter makes no morale check, so no roll is made."""
    unit = ctx.unit(ctx.action.actor)
    if unit.type.target_type == "helicopter":
        ctx.answer.set("roll_required", False)
        ctx.answer.because("§1.6", f"{unit.name} is a helicopter: helicopters have no morale and make no "
                           "morale check")
        return
    target = morale_of(ctx, unit)
    ctx.answer.set("target_number", target)
    passed = _passes(ctx, target, 0)
    ctx.answer.set("passed", passed)


def _passes(ctx: Ctx, target: int, modifier: int) -> bool:
    if ctx.action.passed is not None:
        return ctx.action.passed
    return ctx.check_2d6(target, modifier, "§1.6")


def conditional_morale(ctx: Ctx) -> None:
    """The ``conditional_morale`` procedure (001 §1.6.1)."""
    ctx.params.require("conditional_morale", "001 §1.6.1")
    unit = ctx.unit(ctx.action.actor)
    value = conditional_value(ctx, unit)
    ctx.answer.set("target_number", value)
    if ctx.dice is None and ctx.action.passed is None:
        return
    # the check itself, given its roll: "Units stacked with a HQ can subtract the HQ's
    # leadership from the die roll" (001 §1.6.1), then at or under the morale passes (§1.6)
    modifier = 0
    hq = formation_hq(ctx, unit)
    if hq is not None and hq.on_map and hq.hex is not None and hq.hex == unit.hex:
        bonus = need(hq.leadership, f"units.{hq.key}.leadership")
        ctx.answer.modify("roll", -bonus, f"stacked with {hq.name}", "001 §1.6.1")
        modifier -= bonus
    ctx.answer.set("passed", _passes(ctx, value, modifier))


def conditional_value(ctx: Ctx, unit: Unit) -> int:
    """001 §1.6.1: base + 1 per Formation unit within 2 hexes (not HQs, leaders, itself),
    at most 8; a platoon with a leader uses the leader's morale instead."""
    leader = leader_of(ctx, unit)
    if leader is not None:
        ctx.answer.because("001 §1.6.1", "a platoon with a leader uses the leader's morale")
        return need(leader.morale, f"units.{leader.key}.morale")
    formation = ctx.game.formations.get(unit.formation or "")
    base = unit.morale if unit.morale is not None else getattr(formation, "morale", None)
    base = need(base, f"units.{unit.key}.morale")
    near = 0
    for other in ctx.game.units.values():
        if other.key == unit.key or other.formation != unit.formation or not other.on_map:
            continue
        if other.type.target_type in NOT_COUNTED:
            continue
        rel = ctx.game.facts.relation(other.key)
        if rel.within is not None and rel.within <= 2:
            near += 1
        elif rel.adjacent:
            near += 1
        else:
            near += situation.distance(ctx, unit.key, other.key) <= 2
    value = min(8, base + near)
    ctx.answer.because("001 §1.6.1", f"conditional morale {base} + {near} = {base + near}"
                       + (", capped at 8" if base + near > 8 else ""))
    return value


def _exempt(ctx: Ctx, unit: Unit) -> tuple[str, str] | None:
    """(section, why) a unit is in command whatever its hex rolls: a helicopter (§1.6), a
    unit entering from off-board in its first activation (§4.2), a platoon with a leader, and the carrier of a loaded platoon with a leader "until the
    infantry platoon unloads" (001 §1.3.6)."""
    if unit.type.target_type == "helicopter":
        return "§1.6", "helicopters are never out of command"
    if unit.status.entering:
        # §4.2: "All units of a Formation entering from off-board are considered in command in
        # their first activation" (EG: "entering play ... during their first activation")
        return "§4.2", f"{unit.name} enters from off-board: in command in its first activation"
    if not ctx.params.has("leaders"):
        return None
    if leader_of(ctx, unit) is not None:
        return "001 §1.3.6", "a platoon with a leader is always in command"
    riding = next((p for p in ctx.game.passengers(unit.key) if leader_of(ctx, p) is not None), None)
    if riding is not None:
        return "001 §1.3.6", f"{unit.name} carries {riding.name}, which has a leader: in command until it unloads"
    return None


def _in_command(ctx: Ctx, unit: Unit) -> bool:
    """§4.2 / §1.3.4.4: within the HQ's command range (twice for recon), or with a leader."""
    exempt = _exempt(ctx, unit)
    if exempt is not None:
        ctx.answer.because(*exempt)
        return True
    hq = formation_hq(ctx, unit)
    if hq is not None and ctx.params.has("jamming") and hq.status.ew_marker == "jammed":
        # 001 Jamming a: the jammed Formation "must roll for each hex containing its units",
        # within its HQ's command range or not; b: the HQ's hex is in command
        if hq.on_map and hq.hex is not None and hq.hex == unit.hex:
            ctx.answer.because("001 Jamming b", f"{unit.name} is in {hq.name}'s hex: in command")
            return True
        ctx.answer.because("001 Jamming a", "jammed Formation: every hex rolls for command")
        return False
    stated = ctx.game.facts.get("in_command_range")
    if stated is not None:
        return bool(stated)
    if hq is None or not hq.on_map:
        ctx.answer.because("§1.3.3.3, §4.2", "the Formation's HQ is not on the map")
        return False
    side = need(hq.strength, f"units.{hq.key}.strength")
    ranges = dict(hq.command_range) or dict(getattr(ctx.game.formations.get(unit.formation or ""),
                                                    "command_range", {}) or {})
    reach = need(ranges.get(side), f"units.{hq.key}.command_range.{side}")
    if "recon" in unit.type.abilities:
        reach *= 2
        ctx.answer.because("§1.3.4.4", f"recon: command range doubled to {reach}")
    stated = ctx.game.facts.relation(hq.key).distance
    if stated is not None:
        inside, distance = stated <= reach, str(stated)
    else:                           # a stated bound, else counted on the map, else not stated
        inside, distance = situation.within_reach(ctx, unit.key, hq.key, reach)
    ctx.answer.because("§4.2", f"{unit.name} is {distance} hex(es) from {hq.name}, command range {reach}: "
                       + ("in command" if inside else "out of command range"))
    return inside


def command_check(ctx: Ctx) -> None:
    """§4.2: units out of their HQ's command range check morale, once per hex; a failed
    hex is marked Out of Command."""
    keys = ctx.action.actors
    if not keys:
        raise NotStated("query.unit")
    units = [ctx.game.unit(k) for k in keys]
    if all(_in_command(ctx, u) for u in units):
        ctx.answer.set("roll_required", False)
        ctx.answer.set("passed", True)
        return
    ctx.answer.set("roll_required", True)
    target = min(morale_of(ctx, u) for u in units)
    passed = _passes(ctx, target, 0)
    ctx.answer.set("passed", passed)
    if not passed:
        for unit in units:                          # the check is per hex (§4.2)
            for member in [unit, *ctx.game.stack(unit.hex, exclude=unit.key)] if unit.hex else [unit]:
                if member.status.out_of_command or member.formation != unit.formation:
                    continue
                if _exempt(ctx, member) is not None:
                    ctx.answer.because(*_exempt(ctx, member))
                    continue
                ctx.emit(StatusChanged(member.key, "out_of_command", True))
        ctx.answer.because("§4.2", "failed: the hex is marked Out of Command")


def rally(ctx: Ctx) -> None:
    """§4.3: 2d6 under morale, +1 out of command, - the HQ's leadership in its hex (and a
    leader's, 001 §1.3.6), +1 if jammed; helicopters rally automatically (§9.3)."""
    unit = ctx.unit(ctx.action.actor)
    if not unit.status.disrupted and unit.type.target_type != "helicopter":
        ctx.answer.set("roll_required", False)
        ctx.answer.because("§4.3", f"{unit.name} is not Disrupted: there is nothing to rally from")
        return
    if unit.type.target_type == "helicopter":
        ctx.answer.set("roll_required", False)
        ctx.answer.because("§9.3", "helicopters rally automatically when activated")
        if unit.status.disrupted:
            ctx.emit(UnitRallied(unit.key))
        return
    ctx.answer.set("roll_required", True)
    from referee.classic.ranged import hallowed_ground
    ctx.stage("rerolls", lambda: hallowed_ground(ctx, unit))       # 001 §1.3.6.1
    modifier = 0
    if unit.status.out_of_command:
        ctx.answer.modify("roll", 1, "out of command", "§4.3")
        modifier += 1
    hq = formation_hq(ctx, unit)
    if hq is not None and hq.on_map and hq.hex is not None and hq.hex == unit.hex:
        bonus = need(hq.leadership, f"units.{hq.key}.leadership")
        ctx.answer.modify("roll", -bonus, f"stacked with {hq.name}", "§1.3.3.4")
        modifier -= bonus
    if hq is not None and ctx.params.has("jamming") and hq.status.ew_marker == "jammed":
        ctx.answer.modify("roll", 1, "Formation is jammed", "001 Jamming c")
        modifier += 1
    leader = leader_of(ctx, unit) if ctx.params.has("leaders") else None
    if leader is not None:
        bonus = need(leader.leadership, f"units.{leader.key}.leadership")
        ctx.answer.modify("roll", -bonus, f"leader {leader.name}", "001 §1.3.6")
        modifier -= bonus
    target = morale_of(ctx, unit)
    passed = _passes(ctx, target, modifier)
    ctx.answer.set("passed", passed)
    if passed:
        ctx.emit(UnitRallied(unit.key))
        for passenger in ctx.game.passengers(unit.key):
            if passenger.status.disrupted:
                ctx.emit(UnitRallied(passenger.key))


def chemical_attack(ctx: Ctx) -> None:
    """§8.4: the chemical strike's morale check for one unit."""
    unit = ctx.unit(ctx.action.actor)
    passed = chemical_check(ctx, unit, ctx.action.passed)
    if passed is not None:
        ctx.answer.set("passed", passed)


def chemical_check(ctx: Ctx, unit: Unit, passed: bool | None = None) -> bool | None:
    """§8.4: vehicles failing are disrupted; infantry on foot disrupted and reduced;
    passengers share their carrier's result and do not check. A helicopter has no Morale
    (§1.6) and an HQ is neither attacked directly nor Disrupted (§1.3.3.2): neither checks
    (None: no check made)."""
    if unit.type.target_type == "helicopter":
        ctx.answer.set("roll_required", False)
        ctx.answer.because("§1.6, §8.4", f"{unit.name} is a helicopter: helicopters have no Morale, "
                           "so it makes no chemical Morale check")
        return None
    if unit.type.target_type in ctx.params.undisruptable:
        ctx.answer.set("roll_required", False)
        ctx.answer.because("§1.3.3.2, §8.4", f"{unit.name} is an HQ: an HQ cannot be directly attacked nor "
                           "Disrupted, so it makes no chemical Morale check")
        return None
    if passed is None:
        roll = ctx.roll_2d6()
        target = morale_of(ctx, unit)
        passed = roll <= target
        ctx.answer.because("§8.4", f"{unit.name}: chemical morale check 2d6 = {roll} vs {target}: "
                           + ("passed" if passed else "failed"))
    if passed:
        return True
    if unit.type.is_vehicle:
        if not unit.status.disrupted:
            ctx.emit(UnitDisrupted(unit.key))
            for rider in ctx.game.passengers(unit.key):
                damage.impose(ctx, rider.key, "disrupted")
        ctx.answer.because("§8.4", "a vehicle failing the check is disrupted (no further effect if already)")
    else:
        damage.impose(ctx, unit.key, "disrupted_and_reduced")
        ctx.answer.because("§8.4", "infantry on foot failing the check is disrupted and reduced")
    return False
