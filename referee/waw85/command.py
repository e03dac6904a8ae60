"""Morale/Training checks of the Formation Impulse: Command (§7.2.3-§7.2.5), Disruption
Removal (§7.4), plain checks with HQ and Leader help (§1.9.11, §1.9.13), the Night
Targeting Check (§16.6.1) and the Missile Ammo Check (§10.10).

Every check is 2d6 against a Morale/Training value: at or under it passes. An HQ
deployed to the unit subtracts its Command Bonus from the roll; a Leader assigned to it
lends its own Morale/Training value instead.
"""
from __future__ import annotations

from dataclasses import dataclass

from referee import situation
from referee.errors import NotStated
from referee.events import StatusChanged, UnitAttached, UnitMoved, UnitPlaced, UnitRallied
from referee.model import Unit, need
from referee.ruleset import Ctx
from referee.waw85.common import because, illegal, modify, morale_value

ALWAYS_IN_COMMAND = frozenset({"recon", "elite"})
SUPPRESSED = frozenset({"suppressed", "suppressed_box"})
EW_MARKERS = frozenset({"ew", "ew_reducing"})


@dataclass(frozen=True)
class Check:
    """One 2d6 Morale/Training check: the value rolled against and the roll modifier."""

    target_number: int
    modifier: int = 0


def helpers(ctx: Ctx, unit: Unit) -> tuple[list[Unit], list[Unit]]:
    """(HQs deployed to the unit, Leaders assigned to it)."""
    attached = ctx.game.attached(unit.key)
    return ([u for u in attached if u.type.target_type == "hq"],
            [u for u in attached if u.type.target_type == "leader"])


def check_for(ctx: Ctx, unit: Unit) -> Check:
    """The unit's value and modifier for any Morale/Training check (§1.9.11, §1.9.13)."""
    hqs, leaders = helpers(ctx, unit)
    modifier = 0
    for hq in hqs:
        if hq.leadership is None:
            continue
        if hq.formation and unit.formation and hq.formation != unit.formation:
            # §1.9.11: "HQs can be deployed to (stacked with) a unit of their Formation"
            because(ctx, "1.9.11", f"{hq.name} is not an HQ of {unit.name}'s Formation: no Command Bonus")
            continue
        modifier -= hq.leadership
        modify(ctx, "roll", -hq.leadership, f"{hq.name} Command Bonus", "1.9.11")
    if leaders:
        value = need(leaders[0].morale, f"units.{leaders[0].key}.morale")
        because(ctx, "1.9.13", f"{leaders[0].name} lends its Morale/Training {value}")
    else:
        value = morale_value(ctx, unit)
    return Check(value, modifier)


def roll(ctx: Ctx, check: Check, label: str = "2d6", section: str = "7.2.4") -> bool:
    """Roll the check; records modified_roll, target_number and passed. ``section`` is the
    rule that calls for the check (§7.2.4 states the Morale/Training Check itself)."""
    passed = ctx.check_2d6(check.target_number, check.modifier, section, "Morale/Training check", label)
    ctx.answer.set("passed", passed)
    return passed


formation_hq = situation.formation_hq     # one lookup for both rulesets


def ew_on(hq: Unit | None) -> bool:
    """§5.2: an EW or EW Reducing marker on the Formation's HQ."""
    return hq is not None and hq.status.ew_marker in EW_MARKERS


# ---------------------------------------------------------------- command -------------

def always_in_command(ctx: Ctx, unit: Unit, hq: Unit | None) -> str | None:
    """§7.2.5: why the unit is always In Command, or None."""
    if ALWAYS_IN_COMMAND & unit.type.abilities:
        return "a Recon unit"
    if unit.type.target_type == "helicopter" and "attachment" not in unit.type.abilities:
        return "a Helicopter that is not an attachment"
    if unit.status.entering:
        return "entering from off-map in its first activation"
    stack = ctx.game.stack(unit.hex) if unit.hex else [unit, *ctx.game.attached(unit.key)]
    if any(u.type.target_type == "leader" for u in stack) or helpers(ctx, unit)[1]:
        return "in a hex with a Leader"
    if hq is not None and hq.on_map and (
            (unit.hex is not None and hq.hex == unit.hex) or hq.attached_to == unit.key
            or ctx.game.facts.relation(hq.key).distance == 0):
        return "in a hex with its Formation HQ"
    return None


def bound_by_out_of_command(ctx: Ctx, unit: Unit) -> bool:
    """§7.2.3, §7.2.5: an Out of Command marker stops the unit's Actions, unless the unit is
    always In Command: "An Out of Command marker has no effect on them, and they may move
    out of any such hex normally"."""
    if not unit.status.out_of_command:
        return False
    why = always_in_command(ctx, unit, formation_hq(ctx, unit))
    if why is not None:
        because(ctx, "7.2.5", f"{unit.name} is always In Command ({why}): the Out of Command marker has no effect")
        return False
    return True


def in_range(ctx: Ctx, hq: Unit) -> bool:
    """§7.2.4: the distance to the HQ against its full or reduced Command Range."""
    if hq.location in SUPPRESSED:
        because(ctx, "7.2.4", f"{hq.name} is Suppressed: every hex must roll")
        return False
    if not hq.on_map:
        # the distance is counted "starting from the HQ counter's hex" (§7.2.4): an HQ left in
        # its HQ/SW Holding Box (not deployed, §7.2.2) has none, so no hex is within its range
        because(ctx, "7.2.4", f"{hq.name} is not on the map but in the {hq.location.replace('_', ' ')}: no hex is "
                "within its Command Range, every hex must roll")
        return False
    strength = need(hq.strength, f"units.{hq.key}.strength")
    ranges = dict(hq.command_range)
    formation = ctx.game.formations.get(hq.formation or "")
    if not ranges and formation is not None:
        ranges = dict(formation.command_range)
    limit = need(ranges.get(strength), f"units.{hq.key}.command_range.{strength}")
    inside, distance = situation.within_reach(ctx, need(ctx.action.actor, "query.unit"), hq.key, limit)
    because(ctx, "7.2.4", f"{distance} hexes from {hq.name}, {strength} Command Range {limit}: "
            + ("In Command" if inside else "must roll"))
    return inside


#: Counters that are not checked for Command: HQs, Leaders and Support Weapons (§7.2.3 checks
#: the hexes of the Formation's units).
COMMAND_COUNTERS = frozenset({"hq", "leader", "support_weapon"})


def command_check(ctx: Ctx) -> None:
    """§7.2.3-§7.2.5 for one unit or the units of one hex: one roll covers the hex."""
    units = [ctx.unit(k) for k in ctx.action.actors] or [ctx.unit(None)]
    if len(units) == 1 and units[0].hex is not None and units[0].formation is not None:
        # "Command is checked by hexes" (§7.2.5): the roll is the hex's, and a failure marks
        # "the unit(s) in the hex" of the Formation (§7.2.4)
        units += [u for u in ctx.game.stack(units[0].hex, exclude=units[0].key)
                  if u.formation == units[0].formation and u.type.target_type not in COMMAND_COUNTERS]
    hq = formation_hq(ctx, units[0])
    if hq is None:
        raise NotStated(f"formations.{units[0].formation or units[0].key}.hq")   # no HQ counter of the Formation
    exempt = {u.key: always_in_command(ctx, u, hq) for u in units}
    for key, why in exempt.items():
        if why:
            because(ctx, "7.2.5", f"{ctx.game.unit(key).name} is always In Command: {why}")
    checking = [u for u in units if not exempt[u.key]]
    if not checking:
        ctx.answer.set("roll_required", False)
        return
    if ew_on(hq):
        because(ctx, "5.2", f"EW on {hq.name}: every unit of the Formation rolls for Command")
        required = True
    else:
        required = not in_range(ctx, hq)
    ctx.answer.set("roll_required", required)
    if not required:
        for unit in checking:
            if unit.status.out_of_command:
                ctx.emit(StatusChanged(unit.key, "out_of_command", False))
        return
    value = morale_value(ctx, checking[0])
    passed = roll(ctx, Check(value))
    for unit in checking:
        if passed != (not unit.status.out_of_command):
            ctx.emit(StatusChanged(unit.key, "out_of_command", not passed))


# ---------------------------------------------------------------- other checks --------

def rally(ctx: Ctx) -> None:
    """§7.4 Disruption Removal: Helicopters automatically; others 2d6, +1 Out of Command
    (§10.8.2), +1 EW on the HQ (§5.2)."""
    unit = ctx.unit(ctx.action.actor)
    if not unit.status.disrupted:
        ctx.answer.set("roll_required", False)
        because(ctx, "7.4", f"{unit.name} is not Disrupted")
        return
    if unit.type.target_type == "helicopter":
        ctx.answer.set("roll_required", False)
        ctx.emit(UnitRallied(unit.key))
        because(ctx, "7.4", "Active Helicopters are automatically Undisrupted")
        _passengers_rally(ctx, unit)
        return
    ctx.answer.set("roll_required", True)
    if ctx.action.passed is not None:
        ctx.answer.set("passed", ctx.action.passed)
        because(ctx, "7.4", f"the Disruption removal check {'passes' if ctx.action.passed else 'fails'} (stated)")
        if ctx.action.passed:
            ctx.emit(UnitRallied(unit.key))
            _passengers_rally(ctx, unit)
        return
    modifier = 0
    if unit.status.out_of_command:
        modify(ctx, "roll", 1, "Out of Command", "7.4")
        modifier += 1
    if ew_on(formation_hq(ctx, unit)):
        modify(ctx, "roll", 1, "EW on the Formation's HQ", "5.2")
        modifier += 1
    check = check_for(ctx, unit)
    if roll(ctx, Check(check.target_number, check.modifier + modifier), section="7.4"):
        ctx.emit(UnitRallied(unit.key))
        _passengers_rally(ctx, unit)


def _passengers_rally(ctx: Ctx, transport: Unit) -> None:
    """§10.7.3: "If a Transport unit removes its Disruption marker, so do the Passengers"."""
    for passenger in ctx.game.passengers(transport.key):
        if passenger.status.disrupted:
            ctx.emit(UnitRallied(passenger.key))
            because(ctx, "10.7.3", f"{transport.name} removes its Disruption marker: so does {passenger.name}")


def morale_check(ctx: Ctx) -> None:
    """A plain Morale/Training check with HQ and Leader help."""
    unit = ctx.unit(ctx.action.actor)
    roll(ctx, check_for(ctx, unit))


def night_targeting_check(ctx: Ctx) -> None:
    """§16.6.1: against Morale/Training, halved (round up) for a non-adjacent target unless
    the unit fights at night; a failure cancels the attack and the unit is Ops Complete."""
    unit = ctx.unit(ctx.action.actor)
    if ctx.game.facts.get("night") is False:
        ctx.answer.set("roll_required", False)
        because(ctx, "16.6.1", "not a night scenario: no Night Targeting Check")
        return
    ctx.answer.set("roll_required", True)
    if not _night_check(ctx, unit, ctx.action.target if isinstance(ctx.action.target, str) else None):
        ctx.emit(StatusChanged(unit.key, "ops_complete", True))
        because(ctx, "16.6.1", "Night Targeting Check failed: attack cancelled, Ops Complete")


def _night_check(ctx: Ctx, unit: Unit, target: str | None) -> bool:
    """The Night Targeting Check roll of ``unit`` firing at ``target`` (§16.6.1)."""
    relation = ctx.game.facts.relation(need(target, "query.target"))
    adjacent = relation.adjacent
    if adjacent is None and relation.distance is not None:
        adjacent = relation.distance <= 1
    if adjacent is None:
        raise NotStated(f"units.{target}.distance")
    value = check_for(ctx, unit)
    number = value.target_number
    if not adjacent and "night_fighting" not in unit.type.abilities:
        number = -(-number // 2)
        because(ctx, "16.6.1", f"target not adjacent: Morale/Training halved to {number}")
    return roll(ctx, Check(number, value.modifier), section="16.6.1")


#: The attacks a unit makes "when firing" at night, after a Night Targeting Check (§16.6.1).
NIGHT_CHECKED = frozenset({"direct_fire", "opportunity_fire", "move_and_fire", "aa_fire"})


def night_attack_cancelled(ctx: Ctx, actor: Unit, attack) -> bool:
    """§16.6.1: "When firing or Spotting, and immediately after the LOS has been verified, an
    attacker ... must then make a successful Night Targeting Check"; "If the NTC is failed, the
    attack ... is canceled". The check is rolled when the case gives its 2d6 first (the
    stand-alone ``night_targeting_check`` asks it alone); the firer is Ops Complete either way."""
    if not ctx.game.facts.get("night") or attack.kind not in NIGHT_CHECKED:
        return False
    if not ctx.has_dice("2d6"):
        because(ctx, "16.6.1", "at night the attack follows a successful Night Targeting Check (not rolled here)")
        return False
    if _night_check(ctx, actor, ctx.action.target if isinstance(ctx.action.target, str) else None):
        return False
    because(ctx, "16.6.1", "Night Targeting Check failed: the attack is cancelled")
    target = ctx.action.target if isinstance(ctx.action.target, str) else None
    if target in ctx.game.units:
        ctx.answer.unit(target, hits=0)
    return True


def uses_missiles(ctx: Ctx, unit: Unit, name: str) -> bool:
    """§10.10: green AP (ATGM), or blue AP with a blue range (SAM)."""
    weapon = unit.current.weapon(name)
    if weapon is None:
        raise NotStated(f"units.{unit.key}.{name}")
    colour = need(weapon.colour, f"units.{unit.key}.{name}.color")
    if name == "ap" and colour == "green":
        return True
    return colour == "blue" and weapon.range_colour == "blue"


def missile_ammo_check(ctx: Ctx) -> None:
    """§10.10: after firing missiles, 2d6 over the Formation's Morale/Training: Reloading;
    a unit already Low goes to No Missile Ammo without a roll."""
    unit = ctx.unit(ctx.action.actor)
    if not uses_missiles(ctx, unit, ctx.action.weapon or "ap"):
        ctx.answer.set("roll_required", False)
        because(ctx, "10.10", f"{unit.name} fired no missiles: no Missile Ammo Check")
        return
    if unit.status.ammo == "low":
        ctx.answer.set("roll_required", False)
        ctx.emit(StatusChanged(unit.key, "ammo", "out"))
        because(ctx, "10.10", "Low Missile Ammo: replaced by No Missile Ammo, no roll")
        return
    ctx.answer.set("roll_required", True)
    if not roll(ctx, check_for(ctx, unit), section="10.10"):     # any Morale/Training check (§1.9.11, §1.9.13)
        ctx.emit(StatusChanged(unit.key, "ammo", "reloading"))
        because(ctx, "10.10", f"{unit.name}: Missile Reloading marker")


def missile_reload(ctx: Ctx) -> None:
    """§7.3: an Undisrupted unit under a Missile Reloading marker rolls 2d6 against its
    Formation's Morale/Training; at or under removes the marker. What a failure does is on
    the Missile Ammo Usage Chart (PAC05), which the rulebook text does not give."""
    unit = ctx.unit(ctx.action.actor)
    if unit.status.ammo != "reloading":
        ctx.answer.set("roll_required", False)
        because(ctx, "7.3", f"{unit.name} has no Missile Reloading marker")
        return
    if unit.status.disrupted:
        ctx.answer.set("roll_required", False)
        illegal(ctx, "7.3", "only Undisrupted units attempt a Missile Reload")
        return
    ctx.answer.set("roll_required", True)
    if roll(ctx, check_for(ctx, unit), section="7.3"):           # any Morale/Training check (§1.9.11, §1.9.13)
        ctx.emit(StatusChanged(unit.key, "ammo", "none"))
        because(ctx, "7.3", "the Missile Reloading marker is removed")
    else:
        ctx.answer.gap(f"units.{unit.key}.status.ammo",
                       "not supported: WaW85 §7.3 (the Missile Ammo Usage Chart is on PAC05)")


# ---------------------------------------------------------------- Command Step --------

def leader_transfer(ctx: Ctx) -> None:
    """§7.2.1: a Leader moves to another unit of its nationality in the same stack; this
    is not an Action, so nobody is marked Ops Complete."""
    leader = ctx.unit(ctx.action.actor)
    unit = ctx.unit(ctx.action.target if isinstance(ctx.action.target, str) else None, "target")
    if leader.type.target_type != "leader":
        illegal(ctx, "7.2.1", f"{leader.name} is not a Leader")
    if need(leader.hex, f"units.{leader.key}.hex") != need(unit.hex, f"units.{unit.key}.hex"):
        illegal(ctx, "7.2.1", "Leaders transfer only within their stack")
    if need(leader.nation, f"units.{leader.key}.nation") != need(unit.nation, f"units.{unit.key}.nation"):
        illegal(ctx, "7.2.1", "Leaders transfer only to units of their nationality")
    if ctx.answer.legal is None:
        ctx.answer.set("legal", True)
        because(ctx, "7.2.1", f"{leader.name} is assigned to {unit.name}; not an Action")
        if leader.attached_to != unit.key:
            ctx.emit(UnitAttached(leader.key, unit.key))


def hq_deployment(ctx: Ctx) -> None:
    """§7.2.2: an HQ in the Holding Box deploys to any hex with a unit of its Formation; one
    on the map needs an eligible path (``query.path``, the hexes from its own to the new
    one) free of enemy units with AP, HE or Assault FP and of hexes Prohibited to ground
    units; a Suppressed HQ does not deploy."""
    hq = ctx.unit(ctx.action.actor)
    target = need(ctx.action.target if isinstance(ctx.action.target, str) else None, "query.target")
    if hq.location in SUPPRESSED:
        illegal(ctx, "7.2.2", f"{hq.name} is Suppressed and may not deploy this turn")
        return
    formation = need(hq.formation, f"units.{hq.key}.formation")
    if not any(u.formation == formation and u.key != hq.key and u.type.target_type != "hq"
               for u in ctx.game.stack(target)):
        illegal(ctx, "7.2.2", f"no unit of {formation} in {target}")
        return
    if hq.on_map:
        for hex_id in ctx.action.path or ():
            _eligible_path_hex(ctx, hq, hex_id)
        if not ctx.action.path:
            raise NotStated("query.path")
    if ctx.answer.legal is False:
        return
    ctx.answer.set("legal", True)
    ctx.emit(UnitPlaced(hq.key, target) if not hq.on_map else UnitMoved(hq.key, target))
    because(ctx, "7.2.2", f"{hq.name} deploys to {target}")


def _eligible_path_hex(ctx: Ctx, hq: Unit, hex_id: str) -> None:
    hex_state = ctx.game.hex(hex_id)
    if hex_state.stated.get("prohibited"):
        illegal(ctx, "7.2.2", f"the path crosses {hex_id}, Prohibited to ground units")
    side = need(hq.side, f"units.{hq.key}.side")
    for unit in ctx.game.stack(hex_id):
        armed = any(w is not None for w in (unit.current.ap, unit.current.he, unit.current.assault))
        if armed and need(unit.side, f"units.{unit.key}.side") != side:
            illegal(ctx, "7.2.2", f"the path crosses {hex_id}, held by armed enemy {unit.name}")


def refresh(ctx: Ctx) -> None:
    """§7.1 Refresh Step: the activated units lose their Ops Complete and Out of Command
    markers."""
    if not ctx.action.actors:
        raise NotStated("query.unit")
    for key in ctx.action.actors:
        unit = ctx.unit(key)
        for name in ("ops_complete", "out_of_command"):
            if getattr(unit.status, name):
                ctx.emit(StatusChanged(unit.key, name, False))
        because(ctx, "7.1", f"{unit.name} is refreshed")
