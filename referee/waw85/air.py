"""Close Air Support steps (§4.1 Interception, §4.4 Ordnance Expenditure) and parachute
Drops (§16.7.2 Drift, §16.7.4 Landing). Anti-Aircraft Fire and the CAS attack are Direct
Fire (:mod:`referee.waw85.fire`)."""
from __future__ import annotations

from referee import damage
from referee.errors import NotStated
from referee.events import StatusChanged, UnitEliminated, UnitMoved, UnitPlaced, UnitRemoved
from referee.hexes import FLAT_DIRECTION_NAMES
from referee.model import Unit
from referee.ruleset import Ctx
from referee.waw85.command import check_for, roll
from referee.waw85.common import because, illegal, tables

#: Where a CAS counter is out of the scenario: intercepted (§4.1), its ordnance expended
#: (§4.4), returned to base or eliminated by Anti-Aircraft Fire (§10.7.4).
OUT_OF_THE_SCENARIO = frozenset({"removed", "eliminated"})


def _out_of_the_scenario(ctx: Ctx, cas: Unit, section: str) -> bool:
    """A CAS removed from the game "for the remainder of the scenario" (§4.1, §4.4, §10.7.4)
    has no card left to draw: nothing of its own is resolved."""
    if cas.location not in OUT_OF_THE_SCENARIO:
        return False
    illegal(ctx, section, f"{cas.name} and its card are removed from the game for the remainder of the "
            "scenario")
    return True


def cas_interception(ctx: Ctx) -> None:
    """§4.1: on a 6 the CAS is intercepted and removed for the rest of the scenario; else its
    counter goes from the Holding Box to the chosen target hex (``query.target``, when a hex
    is named)."""
    cas = ctx.unit(ctx.action.actor)
    if _out_of_the_scenario(ctx, cas, "4.1"):
        ctx.answer.set("roll_required", False)
        return
    ctx.answer.set("roll_required", True)
    die = ctx.roll(1, "d6")[0]
    if die >= tables()["cas_intercepted_on"]:
        ctx.emit(UnitRemoved(cas.key, "removed", result="intercepted"))
        because(ctx, "4.1", f"1d6 {die}: {cas.name} intercepted, card and counter removed")
        return
    ctx.answer.unit(cas.key, hits=0)
    target = ctx.action.target
    if isinstance(target, str) and target not in ctx.game.units:
        hex_id = ctx.game.hex(target).id
        ctx.emit(UnitPlaced(cas.key, hex_id) if not cas.on_map else UnitMoved(cas.key, hex_id))
        because(ctx, "4.1", f"1d6 {die}: not intercepted, {cas.name} moves to its target hex {hex_id}")
    else:
        because(ctx, "4.1", f"1d6 {die}: {cas.name} reaches its target hex")


def cas_ordnance(ctx: Ctx) -> None:
    """§4.4: "Once the CAS attack is resolved", 2d6 at or under 7 keeps ordnance (back to the
    Holding Box), over 7 removes the CAS and its card (not eliminated). A CAS that did not
    remain in play to attack (removed, or circled back to the Holding Box, §4.3, §10.7.4)
    makes no roll."""
    cas = ctx.unit(ctx.action.actor)
    if _out_of_the_scenario(ctx, cas, "4.4"):
        ctx.answer.set("roll_required", False)
        return
    if cas.location == "holding_box":
        ctx.answer.set("roll_required", False)
        because(ctx, "4.4", f"{cas.name} is in the Holding Box: it made no CAS attack, so no ordnance check")
        return
    ctx.answer.set("roll_required", True)
    total = ctx.roll_2d6("2d6")
    ctx.answer.set("modified_roll", total)
    remaining = total <= tables()["cas_ordnance_max"]
    ctx.answer.set("ordnance_remaining", remaining)
    ctx.emit(UnitRemoved(cas.key, "holding_box" if remaining else "removed"))
    because(ctx, "4.4", f"2d6 {total}: " + ("ordnance remains" if remaining else "ordnance expended"))


def parachute_drift(ctx: Ctx) -> None:
    """§16.7.2: the directions the unit drifts, one entry per hex."""
    ctx.unit(ctx.action.actor)
    t = tables()
    directions = t["drift_direction"]
    first = ctx.roll(1, "d6")[0]
    path: list[str] = []
    if first <= t["drift_none_max"]:
        because(ctx, "16.7.2", f"1d6 {first}: lands in its intended hex")
    elif first >= t["drift_wild_on"]:
        heading = directions[ctx.roll(1, "d6")[0]]
        distance = ctx.roll(1, "d6")[0] + 1
        path = [heading] * distance
        because(ctx, "16.7.2", f"1d6 {first}: drifts wildly {distance} hexes {heading}")
    else:
        path.append(directions[ctx.roll(1, "d6")[0]])
        if ctx.roll(1, "d6")[0] >= t["drift_again_on"]:
            path.append(directions[ctx.roll(1, "d6")[0]])
        because(ctx, "16.7.2", f"1d6 {first}: drifts {' then '.join(path)}")
    ctx.answer.set("scatter", path)
    _landing_hex(ctx, ctx.unit(ctx.action.actor), path)


def _landing_hex(ctx: Ctx, unit: Unit, path: list[str]) -> None:
    """§16.7.2: "A parachuting unit is eliminated if its final location after drifting is: Off
    the playable area, or In a hex containing an enemy unit, or In a hex containing blocking or
    Rough terrain." The unit's stated hex is its intended landing hex; a drift is followed on
    the map (a hex without a position leaves the final hex unknown). Off the playable area is
    off the board, known only when the position holds the whole board (``Game.whole_board``);
    where only some hexes are listed, a drift beyond them is not stated."""
    if unit.hex is None:
        return
    landed: str | None = unit.hex
    if path:
        at = ctx.game.hex(unit.hex).at
        if at is None:
            ctx.answer.gap("units", f"not stated: hexes.{unit.hex} position (the hex {unit.name} drifts to)")
            return
        by_at = {h.at: h.id for h in ctx.game.hexes.values() if h.at is not None}
        for direction in path:
            at = at.neighbor(FLAT_DIRECTION_NAMES.index(direction))
        landed = by_at.get(at)
        if landed is None and not ctx.game.whole_board:
            ctx.answer.gap("units", f"not stated: the playable area (whether the hex {unit.name} drifts to, "
                           f"{len(path)} from {unit.hex}, is on it, §16.7.2)")
            return
        if landed is None:
            ctx.emit(UnitEliminated(unit.key))
            because(ctx, "16.7.2", f"{unit.name} drifts off the playable area: eliminated")
            return
        ctx.emit(UnitMoved(unit.key, landed))
    hex_state = ctx.game.hex(landed)
    enemies = [u for u in ctx.game.stack(landed, exclude=unit.key)
               if u.side is not None and unit.side is not None and u.side != unit.side]
    if enemies or (hex_state.stated.get("enemy_units") or 0) > 0:
        why = "a hex containing an enemy unit"
    elif hex_state.terrain == "rough" or hex_state.los == "blocking":
        why = f"a hex of {'Rough' if hex_state.terrain == 'rough' else 'blocking'} terrain"
    else:
        return
    ctx.emit(UnitEliminated(unit.key))
    because(ctx, "16.7.2", f"{unit.name} lands in {landed}, {why}: eliminated")


def landing_check(ctx: Ctx) -> None:
    """§16.7.4: a failed Morale Check Disrupts a landed parachute unit, or reduces it if
    already Disrupted; every dropped unit ends Ops Complete."""
    unit = ctx.unit(ctx.action.actor)
    passed = ctx.action.passed
    if passed is None:
        passed = roll(ctx, check_for(ctx, unit), section="16.7.4")
    else:
        ctx.answer.set("passed", passed)
    if not passed:
        damage.impose(ctx, unit.key, "reduced" if unit.status.disrupted else "disrupted")
        because(ctx, "16.7.4", f"{unit.name} fails its landing Morale Check")
    if unit.status.disrupted is None:
        raise NotStated(f"units.{unit.key}.status.disrupted")
    ctx.emit(StatusChanged(unit.key, "ops_complete", True))
