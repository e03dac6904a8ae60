"""Turn structure: the Operations Phase draw (§3.1), the Marker Removal Phase (§3.2)
and HQ replacement (§1.3.3.3)."""
from __future__ import annotations

from dataclasses import replace

from referee.errors import NotStated
from referee.events import (MarkerFlipped, MarkerRemoved, StatusChanged, UnitEliminated, UnitPlaced,
                            UnitRemoved)
from referee.model import need
from referee.phases import each_unit_and_hex
from referee.ruleset import Ctx, answers_not_supported

FLIPS = {"smoke_2": "smoke_1"}
REMOVED = ("smoke_1", "chemical")


def operations_phase(ctx: Ctx) -> None:
    """The phase ends on the second End Turn marker or when no Formation marker is left."""
    draws = need(ctx.game.facts.get("draws"), "situation.draws")
    left = ctx.game.facts.get("formation_markers_left")
    ends = 0
    for number, draw in enumerate(draws, start=1):
        ends += draw == "end"
        if ends >= 2 or (number == len(draws) and left == 0):
            ctx.answer.set("ends_after_draw", number)
            ctx.answer.because("§3.1", f"draw {number}: the Operations Phase ends")
            return
    raise NotStated("situation.draws (the phase has not ended)")


@answers_not_supported
def chaos_roll(ctx: Ctx) -> None:
    """The Battlefield Event or Friction roll (WaW85 §6.1) or the Chaos marker's roll (TUS
    Battlefield Chaos): their tables are on the player aid cards, not in the rulebook texts,
    so it answers "not supported".

    001 Battlefield Chaos: the drawn Chaos marker calls for a 2d6 roll on the Battlefield
    Chaos Table, printed on the player aid card: the roll is required, its result is not
    supported."""
    ctx.params.require("battlefield_chaos", "001 Battlefield Chaos")
    ctx.answer.set("roll_required", True)
    ctx.answer.because("001 Battlefield Chaos", "the Chaos marker drawn: roll 2d6 on the Battlefield Chaos Table")
    ctx.answer.gap(("outcome", "value", "side"), "not supported: TUS Battlefield Chaos (the Battlefield Chaos Table "
                   "is on the player aid card, not in the rulebook text)")


def marker_removal(ctx: Ctx) -> None:
    """§3.2: the Marker Removal Phase for one unit or hex, or (no target) the whole map."""
    target = ctx.action.target
    if isinstance(target, str) and target in ctx.game.units:
        _unit_markers(ctx, target)
    elif isinstance(target, str):
        hex_state = ctx.game.hex(target)
        for marker in sorted(hex_state.markers):
            if marker in FLIPS:
                ctx.emit(MarkerFlipped(target, marker, FLIPS[marker]))
            elif marker in REMOVED:
                ctx.emit(MarkerRemoved(target, marker))
    else:
        each_unit_and_hex(ctx, marker_removal)          # the whole phase (§3.2)
        # "replace any eliminated Headquarters units" (§3.2): they are off the map, so the
        # sweep of the map's counters does not reach them
        for key in sorted(ctx.game.units):
            hq = ctx.game.units[key]
            if hq.type.target_type == "hq" and hq.location == "eliminated":
                hq_replacement(Ctx(ctx.rules, ctx.game, replace(ctx.action, target=key), ctx.dice, ctx.answer))


def _unit_markers(ctx: Ctx, key: str) -> None:
    unit = ctx.game.unit(key)
    if unit.status.ammo == "depleted_2":
        ctx.emit(StatusChanged(key, "ammo", "depleted_1"))
        ctx.answer.because("§6.1.4", "Ammo Depleted 2 flips to Ammo Depleted 1")
    elif unit.status.ammo == "depleted_1":
        ctx.emit(StatusChanged(key, "ammo", "none"))
        ctx.answer.because("§6.1.4", "Ammo Depleted 1 is removed")
    if unit.status.ops_complete:
        ctx.emit(StatusChanged(key, "ops_complete", False))
    if "air_cover" in unit.type.abilities and unit.location == "held" and not unit.status.fired:
        ctx.params.require("air_cover", "001 §9.6")
        ctx.emit(UnitRemoved(key, "cup"))
        ctx.answer.because("001 §9.6", "unused air cover returns to the cup")
    if unit.status.ew_marker in ("jammed", "resolving") and ctx.params.has("jamming"):
        roll = ctx.roll(1, "d6")[0]
        if roll % 2 == 0:
            flipped = "resolving" if unit.status.ew_marker == "jammed" else "none"
            ctx.emit(StatusChanged(key, "ew_marker", flipped))
        ctx.answer.because("001 Jamming d", f"1d6 = {roll}: " + (
            "the Jammed marker flips to Resolving" if roll % 2 == 0 and unit.status.ew_marker == "jammed"
            else "the Resolving marker is removed" if roll % 2 == 0 else "the marker stays"))
    if unit.type.target_type == "hq" and unit.location == "eliminated":
        hq_replacement(ctx)


def hq_replacement(ctx: Ctx) -> None:
    """Reduced side up, in a hex with a unit of the HQ's type and Formation; else never."""
    hq = ctx.unit(ctx.action.actor or (ctx.action.target if isinstance(ctx.action.target, str) else None))
    if hq.location != "eliminated":
        return
    for unit in ctx.game.units.values():
        if unit.key == hq.key or not unit.on_map or unit.formation != hq.formation:
            continue
        if unit.type.target_type in ("hq", "leader", "support_weapon"):
            continue
        if hq.type.name is not None and unit.type.name != hq.type.name:
            if unit.type.name is None:
                raise NotStated(f"units.{unit.key}.name")
            continue
        ctx.emit(UnitPlaced(hq.key, unit.hex, "reduced"))
        ctx.answer.because("§1.3.3.3", f"{hq.name} returns reduced with {unit.name}")
        return
    ctx.answer.because("§1.3.3.3", "no unit of the HQ's type and Formation: the HQ cannot be replaced")


def sw_loss_check(ctx: Ctx) -> None:
    """001 §1.3.5: an infantry platoon lost before all SWs are placed may cost one SW:
    1d6, less one per eliminated platoon after the first; on 1 the opponent removes one."""
    side = need(ctx.action.side, "query.side")
    lost = [u for u in ctx.game.units.values() if u.side == side and u.location == "eliminated"
            and u.type.target_type == "troops"]
    unplaced = [u for u in ctx.game.units.values() if u.side == side and u.location == "unplaced"
                and u.type.target_type == "support_weapon"]
    if not lost or not unplaced:
        ctx.answer.set("roll_required", False)
        return
    ctx.answer.set("roll_required", True)
    if ctx.params.book == "eisenbach":
        ctx.answer.because("001 §1.3.5", "Eisenbach Gap §1.3.5 rolls when \"any friendly platoon\" is destroyed; "
                           "the referee counts infantry platoons, as The Untold Stories words it")
    roll = ctx.roll(1, "d6")[0]
    modifier = -(len(lost) - 1)
    modified = roll + modifier
    ctx.answer.set("modified_roll", modified)
    if modifier:
        ctx.answer.modify("roll", modifier, "each eliminated platoon after the first", "001 §1.3.5")
    loses = modified <= 1
    ctx.answer.set("passed", not loses)
    ctx.answer.because("001 §1.3.5", f"1d6 = {roll}{modifier:+d} = {modified}: "
                       + ("the opponent eliminates one unplaced SW" if loses else "no loss"))
    if loses and len(unplaced) == 1:
        ctx.emit(UnitEliminated(unplaced[0].key))
