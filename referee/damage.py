"""Combat results (§6.1.7) and every knock-on effect of an attack.

Shared by ranged fire, assault, overrun, artillery and airstrikes: the first hit
disrupts, each further hit removes a step, one-step units go straight to eliminated,
and then the aftermath of the attack: Wrecks, the HQ check (§1.3.3.2), passengers
(§5.2.4), leaders (001 §1.3.6) and a helicopter falling on an occupied hex (§9.3).
"""
from __future__ import annotations

from referee.errors import NotStated, NotSupported
from referee.events import (MarkerPlaced, UnitDisrupted, UnitEliminated, UnitReduced,
                            result_of)
from referee.model import HARD_TYPES, Unit
from referee.ruleset import Ctx

STEP_RESULTS = ("reduced", "disrupted_and_reduced", "eliminated")


def is_one_step(unit: Unit) -> bool:
    """Helicopters and AA vehicles are one-step units (§1.3.2, §1.3.4.5); a Bridge unit is
    disrupted by one hit and destroyed by the second (TUS §1.3.4.6)."""
    return unit.type.target_type == "helicopter" or unit.type.steps == 1 or "bridge" in unit.type.abilities


def is_armored(unit: Unit) -> bool:
    """An AFV: a vehicle with an Armor Factor and Save Number (§1.3.4.1)."""
    return unit.type.target_type in HARD_TYPES or (unit.type.is_vehicle and unit.current.armor is not None)


def random_pick(ctx: Ctx, keys: list[str], why: str) -> str:
    """Pick one unit at random with 1d6, in equal bands of the die over the units in stack
    order (two units: 1-3 the top one, 4-6 the bottom one, WaW85 §13.2.1)."""
    if len(keys) == 1:
        return keys[0]
    section = ctx.rules.section("odd_hit")
    if 6 % len(keys):
        raise NotSupported(ctx.rules.cite(section), f"random pick among {len(keys)} units with 1d6")
    roll = ctx.roll(1, "d6")[0]
    pick = keys[(roll - 1) // (6 // len(keys))]
    ctx.answer.because(section, f"{why}: 1d6 = {roll} picks {ctx.game.unit(pick).name}")
    return pick


def step_loss(ctx: Ctx, unit: Unit, already_lost: int = 0) -> bool:
    """Remove one step; returns True when the unit is eliminated."""
    strength = unit.strength
    if is_one_step(unit) or strength == "reduced" or already_lost:
        ctx.emit(UnitEliminated(unit.key))
        return True
    ctx.emit(UnitReduced(unit.key))
    if strength is None:
        ctx.answer.gap((f"units.{unit.key}.strength", f"units.{unit.key}.location"),
                       f"not stated: units.{unit.key}.strength (a reduced unit would be eliminated)")
    return False


def take_hits(ctx: Ctx, key: str, hits: int, *, weapon: str | None = None,
              barrage: bool = False) -> int:
    """Apply ``hits`` net hits to one unit (§6.1.7); returns the excess hits."""
    unit = ctx.after.unit(key)
    ctx.answer.unit(key, hits=ctx.answer.unit_values.get(key, {}).get("hits", 0) + hits)
    if unit.type.target_type == "leader" and ctx.params.has("leaders") and hits:
        ctx.answer.because("001 §1.3.6", f"{unit.name}: leaders don't disrupt; a leader dies only with his "
                           "platoon (or on a 1 when it is reduced)")
        return 0
    disrupted, lost, gone, excess = unit.status.disrupted, 0, not unit.on_map, 0
    shrugged = False
    unarmored = unit.type.target_type == "soft_vehicle"
    for _ in range(hits):
        if gone:
            excess += 1
            continue
        if not disrupted:
            disrupted = True
            ctx.emit(UnitDisrupted(key))
            if unarmored and weapon == "ap" and ctx.params.unarmored_ap_hit_reduces:
                ctx.answer.because("001 §1.3.3.2", f"{unit.name}: unarmored vehicle, AP hit also reduces")
                gone = step_loss(ctx, unit, lost)
                lost += 1
            elif unarmored and weapon == "ap" and ctx.params.ruleset == "classic":
                ctx.answer.because("002 §1.3.4.2", f"{unit.name}: unarmored vehicle, the first AP hit only "
                                   "disrupts, as in the section's Example 1 (its text says each hit reduces)")
            continue
        if barrage and is_armored(unit):
            excess += 1
            shrugged = True                  # said once below, however many hits it shrugs off
            continue
        gone = step_loss(ctx, unit, lost)
        lost += 1
    if shrugged:
        ctx.answer.because("§8.1", f"{unit.name}: AFVs are only disrupted by an HE barrage")
    if excess:
        ctx.answer.unit(key, excess_hits=excess)
    return excess


def impose(ctx: Ctx, key: str, result: str) -> None:
    """Impose a stated result (``disrupted``, ``reduced``, ``eliminated``) on a unit."""
    unit = ctx.after.unit(key)
    if result == "eliminated":
        ctx.emit(UnitEliminated(key))
    elif result == "reduced":
        step_loss(ctx, unit)
    elif result == "disrupted" and not unit.status.disrupted:
        ctx.emit(UnitDisrupted(key))
    elif result == "disrupted_and_reduced":
        if not unit.status.disrupted:
            ctx.emit(UnitDisrupted(key))
        step_loss(ctx, unit)


def aftermath(ctx: Ctx, attacked: list[str]) -> None:
    """Every knock-on of one attack on ``attacked`` units, in rulebook order."""
    results = {k: result_of(k, ctx.answer.events) for k in attacked}
    _wrecks(ctx, attacked, results)
    _passengers(ctx, attacked, results)
    _leaders(ctx, attacked, results)
    _support_weapons(ctx)
    _hq_checks(ctx, attacked, results)
    _falling_helicopters(ctx, attacked, results)


#: Where both classic books place a Wreck for an eliminated unit: a vehicle §6.1.7 (every
#: vehicle, thin-skinned and unarmored ones too), a helicopter §9.3, an HQ §1.3.3.2.
WRECK_SECTIONS = {"helicopter": "§9.3", "hq": "§1.3.3.2"}


def eliminated_in(ctx: Ctx, key: str) -> str | None:
    """The hex where ``key`` was eliminated, where its Wreck goes: where this answer's events
    have put it, which for an attacker in an Assault or an Overrun is the hex it entered and
    fought in (EG/TUS §6.3 "Assault combat is resolved the instant the attacking units enter
    the defender's hex", §6.4; WaW85 §13.0 "Upon successfully entering the target hex, it
    then immediately executes the Assault", "the Assault is resolved as soon as the attacker
    enters the hex"), else the hex it stood in."""
    return ctx.after.unit(key).hex or ctx.game.unit(key).hex


def _place_wreck(ctx: Ctx, hex_id: str | None, why: str, section: str) -> None:
    if hex_id is not None and "wrecks" not in ctx.after.hex(hex_id).markers:
        ctx.emit(MarkerPlaced(hex_id, "wrecks"))
        ctx.answer.because(section, f"{why}: Wreck placed in {hex_id}")


def _wrecks(ctx: Ctx, attacked: list[str], results: dict[str, str]) -> None:
    """§6.1.7: the first vehicle eliminated in a hex leaves a Wreck there: in the hex where it
    was eliminated, which for an attacker in an Assault or an Overrun is the hex it entered
    ("Assault combat is resolved the instant the attacking units enter the defender's hex",
    §6.3; the overrunning AFV "moves ... through the hex", §6.4)."""
    for key in attacked:
        unit = ctx.game.unit(key)
        if results[key] != "eliminated":
            continue
        if "bridge" in unit.type.abilities and unit.mode == "deployed":
            ctx.answer.because("001 §1.3.4.6", f"the deployed {unit.name} is destroyed and removed: no Wreck")
        elif unit.type.is_vehicle or unit.type.target_type in ("helicopter", "hq"):
            _place_wreck(ctx, eliminated_in(ctx, key), f"{unit.name} eliminated", WRECK_SECTIONS.get(unit.type.target_type, "§6.1.7"))


def _passengers(ctx: Ctx, attacked: list[str], results: dict[str, str]) -> None:
    """§5.2.4: passengers share their transport's fate, partly by an even/odd 1d6."""
    for key in attacked:
        result = results[key]
        for passenger in ctx.game.passengers(key):
            if result in ("disrupted", "disrupted_and_reduced"):
                impose(ctx, passenger.key, "disrupted")
            if result in ("reduced", "disrupted_and_reduced"):
                roll = ctx.roll(1, "d6")[0]
                ctx.answer.because("§5.2.4", f"transport reduced, 1d6 = {roll}: "
                                   + ("passenger reduced" if roll % 2 == 0 else "passenger unharmed"))
                if roll % 2 == 0:
                    impose(ctx, passenger.key, "reduced")
            elif result == "eliminated":
                roll = ctx.roll(1, "d6")[0]
                even = roll % 2 == 0
                ctx.answer.because("§5.2.4", f"transport eliminated, 1d6 = {roll}: passenger "
                                   + ("eliminated" if even else "disrupted and loses a step"))
                impose(ctx, passenger.key, "eliminated" if even else "disrupted_and_reduced")


def _leaders(ctx: Ctx, attacked: list[str], results: dict[str, str]) -> None:
    """001 §1.3.6: the leader dies with his platoon, or on a 1 when it is reduced."""
    if not ctx.params.has("leaders"):
        return
    for key in attacked:
        result = results[key]
        for leader in ctx.game.attached(key):
            if leader.type.target_type != "leader":
                continue
            dies = result == "eliminated"
            if result in ("reduced", "disrupted_and_reduced"):
                roll = ctx.roll(1, "d6")[0]
                dies = roll == 1
                ctx.answer.because("001 §1.3.6", f"platoon reduced, 1d6 = {roll}: leader "
                                   + ("dies" if dies else "survives"))
            if dies:
                ctx.emit(UnitEliminated(leader.key))
                hex_id = leader.hex or ctx.game.unit(key).hex
                if hex_id is not None:
                    ctx.emit(MarkerPlaced(hex_id, "hallowed_ground"))
                ctx.answer.because("001 §1.3.6.1", f"{leader.name} dies: Hallowed Ground")


def _support_weapons(ctx: Ctx) -> None:
    """Classic: a platoon's SW leaves the map with it: "If the platoon is destroyed, remove
    the SW from the map along with the infantry platoon" (EG §1.3.5; the same sentence in TUS
    §1.3.4.2)."""
    if ctx.params.ruleset != "classic":
        return
    gone = {e.unit for e in ctx.answer.events if isinstance(e, UnitEliminated)}
    for key in sorted(gone):
        for sw in ctx.game.attached(key):
            if sw.type.target_type == "support_weapon" and sw.on_map and sw.key not in gone:
                ctx.emit(UnitEliminated(sw.key))
                ctx.answer.because("002 §1.3.5; 001 §1.3.4.2", f"{sw.name} is removed with its platoon")


def _hq_checks(ctx: Ctx, attacked: list[str], results: dict[str, str]) -> None:
    """§1.3.3.2: an attack that hurts units stacked with an HQ may reduce or kill it."""
    hexes = {ctx.game.unit(k).hex for k in attacked if results[k] != "none"} - {None}
    for hex_id in sorted(hexes):
        stack = ctx.game.stack(hex_id)
        for hq in (u for u in stack if u.type.target_type == "hq" and u.key not in attacked):
            fighters = [u for u in stack if u.type.target_type not in ("hq", "leader", "support_weapon")]
            fates = [result_of(u.key, ctx.answer.events) for u in fighters]
            if fighters and all(f == "eliminated" for f in fates):
                ctx.answer.set("roll_required", False)
                ctx.answer.because("§1.3.3.2", "every unit stacked with the HQ is eliminated: HQ eliminated")
                ctx.emit(UnitEliminated(hq.key))
                _place_wreck(ctx, hex_id, f"{hq.name} eliminated", "§1.3.3.2")
                continue
            roll = ctx.roll(1, "d6")[0]
            modifier = -2 if "eliminated" in fates else 0
            modified = roll + modifier
            ctx.answer.set("roll_required", True)
            ctx.answer.set("modified_roll", modified)
            if modifier:
                ctx.answer.modify("roll", modifier, "a unit stacked with the HQ was eliminated", "§1.3.3.2")
            hurt = modified <= 1
            ctx.answer.because("§1.3.3.2", f"HQ check 1d6 = {roll}{modifier:+d} = {modified}: "
                               + ("HQ loses a step" if hurt else "HQ unaffected"))
            if hurt and step_loss(ctx, ctx.after.unit(hq.key)):
                _place_wreck(ctx, hex_id, f"{hq.name} eliminated", "§1.3.3.2")


def _falling_helicopters(ctx: Ctx, attacked: list[str], results: dict[str, str]) -> None:
    """§9.3: an eliminated helicopter over an occupied hex hits a random unit on a 1."""
    for key in attacked:
        unit = ctx.game.unit(key)
        if unit.type.target_type != "helicopter" or results[key] != "eliminated":
            continue
        below = [u.key for u in ctx.after.stack(unit.hex, exclude=key)]
        if not below:
            continue
        roll = ctx.roll(1, "d6")[0]
        for other in below:
            ctx.answer.unit(other, hits=0)
        ctx.answer.because("§9.3", f"helicopter falls on an occupied hex, 1d6 = {roll}")
        if roll == 1:
            victim = random_pick(ctx, below, "unit hit by the falling helicopter")
            take_hits(ctx, victim, 1)
            aftermath(ctx, [victim])


def spread(ctx: Ctx, keys: list[str], hits: int) -> dict[str, int]:
    """All units take one hit before any takes two; an odd hit goes to a unit picked by 1d6
    (EG/TUS §6.3, §8.1; WaW85 §13.2.1). ``keys`` in stack order, top first."""
    if not keys:
        return {}
    order = [u.key for u in sorted((ctx.game.unit(k) for k in keys), key=lambda u: (u.stack_order or 99, u.key))]
    share, extra = divmod(hits, len(order))
    allocation = {k: share for k in keys}
    pool = list(order)
    for _ in range(extra):
        pick = random_pick(ctx, pool, "odd hit")
        allocation[pick] += 1
        pool.remove(pick)
    return allocation


def apply_damage(ctx: Ctx) -> None:
    """The ``apply_damage`` procedure: given net hits or a result, with every knock-on."""
    target = ctx.action.target
    if not isinstance(target, str):
        raise NotStated("query.target")
    unit = ctx.game.unit(target)
    section = ctx.rules.section("hq_not_target")
    if ctx.action.hits and unit.type.target_type in ctx.params.untargetable:
        # EG/TUS §1.3.3.2 "Headquarters CANNOT be directly attacked" (WaW85 §10.7.2 "HQs and
        # Leaders may not be directly targeted"): no hits are scored on one
        ctx.answer.illegal(section, f"{unit.name} cannot be attacked directly: it suffers only with the units it "
                           "is stacked with")
        return
    if ctx.action.result == "disrupted" and unit.type.target_type in ctx.params.undisruptable:
        ctx.answer.because(section, f"{unit.name}: {unit.type.target_type.upper()}s cannot be disrupted")
        return
    if ctx.action.hits is not None:
        if not isinstance(ctx.action.hits, int):
            raise NotStated("query.hits (an integer)")
        if ctx.game.unit(target).type.target_type == "aircraft":
            from referee.classic.air import aircraft_results
            aircraft_results(ctx, ctx.game.unit(target), ctx.action.hits)
            return
        take_hits(ctx, target, ctx.action.hits, weapon=ctx.action.weapon)
    elif ctx.action.result is not None:
        impose(ctx, target, ctx.action.result)
    else:
        raise NotStated("query.hits or query.result")
    aftermath(ctx, [target])
