"""The card-driven turn outside the Formation Impulse: the end of the Operations Phase
(§3.0), the EW and event side rolls (§5.1, §6.2), the Marker Removal Phase (§2.3) with
its Fire rolls (§2.3.4), and the Rubble/Fire check after heavy fire (§10.9)."""
from __future__ import annotations

from referee.errors import NotStated, NotSupported
from referee.events import MarkerPlaced, MarkerRemoved, StatusChanged, UnitEliminated, UnitRemoved, result_of
from referee.model import HexState, Unit, need
from referee.ruleset import Ctx
from referee.phases import each_unit_and_hex
from referee.waw85.command import Check, roll
from referee.waw85.common import because, morale_value, tables, whole


def operations_phase(ctx: Ctx) -> None:
    """§3.0: the SECOND End Operations card drawn ends the Operations Phase."""
    draws = need(ctx.game.facts.get("draws"), "situation.draws")
    ends = [i for i, card in enumerate(draws, start=1) if card == "end"]
    if len(ends) < 2:
        raise NotStated("situation.draws (a second End Operations card)")
    ctx.answer.set("ends_after_draw", ends[1])
    because(ctx, "3.0", f"the second End Operations card is draw {ends[1]}")


def _side_roll(ctx: Ctx, section: str, modifier: int) -> None:
    die = ctx.roll(1, "d6")[0]
    total = die + modifier
    if modifier:
        ctx.answer.modify("roll", modifier, "EW Advantage", f"WaW85 §{section}")
    side = "nato" if total <= tables()["side_roll_nato_max"] else "pact"
    ctx.answer.set("modified_roll", total)
    ctx.answer.set("side", side)
    because(ctx, section, f"1d6 {die}{modifier:+d} = {total}: {side.upper()}")


def ew_side_roll(ctx: Ctx) -> None:
    """§5.1: who plays the Electronic Warfare card."""
    advantage = ctx.game.facts.get("ew_advantage") or "none"
    modifiers = tables()["ew_advantage_modifier"]
    if advantage not in modifiers:
        raise NotStated("situation.ew_advantage (nato, pact or none)")
    _side_roll(ctx, "5.1", modifiers[advantage])


def event_roll(ctx: Ctx) -> None:
    """§6.1: the Battlefield Event card's 2d6: 2-6 or 8-12 the Battlefield Event Table, a 7 the
    Battlefield Friction Table; what the tables say is on PAC04, not in the text (not supported)."""
    total = ctx.roll_2d6("2d6")
    friction = total in tables()["battlefield_friction_on"]
    outcome = "battlefield_friction" if friction else "battlefield_event"
    ctx.answer.set("outcome", outcome)
    ctx.answer.set("modified_roll", total)
    because(ctx, "6.1", f"2d6 {total}: " + ("roll another 2d6 on the Battlefield Friction Table" if friction
                                            else "something has happened: the Battlefield Event Table"))
    ctx.answer.gap(("value", "side", "units", "hexes", "situation"),
                   "not supported: WaW85 §6.1 (the Battlefield Event and Friction Tables are on PAC04, "
                   "not in the rulebook text)")


def event_side_roll(ctx: Ctx) -> None:
    """§6.2: which side executes a one-sided Battlefield Event or Friction."""
    _side_roll(ctx, "6.2", 0)


# ---------------------------------------------------------------- Marker Removal ------

def _unit_markers(ctx: Ctx, unit: Unit) -> None:
    """§2.3.1 Ops Complete and Out of Command, §2.3.3 EW, §2.3.5 Suppressed HQs."""
    for name in ("ops_complete", "out_of_command"):
        if getattr(unit.status, name):
            ctx.emit(StatusChanged(unit.key, name, False))
            because(ctx, "2.3.1", f"{unit.name}: {name.replace('_', ' ')} marker removed")
    if unit.status.ew_marker == "ew_reducing":
        ctx.emit(StatusChanged(unit.key, "ew_marker", "none"))
        because(ctx, "2.3.3", f"{unit.name}: EW Reducing marker removed")
    elif unit.status.ew_marker == "ew":
        if roll(ctx, Check(morale_value(ctx, unit)), section="2.3.3"):
            ctx.emit(StatusChanged(unit.key, "ew_marker", "ew_reducing"))
            because(ctx, "2.3.3", f"{unit.name}: EW marker flipped to EW Reducing")
    if unit.type.target_type == "hq" and unit.location in ("suppressed", "suppressed_box"):
        ctx.emit(UnitRemoved(unit.key, "holding_box"))
        because(ctx, "2.3.5", f"{unit.name}: Suppressed HQ to the HQ/SW Holding Box")


def _hex_markers(ctx: Ctx, hex_state: HexState) -> None:
    """§2.3.2 Smoke, §2.3.4.1 Fire burn out, §2.3.9 Chemical Strike markers."""
    markers = hex_state.markers
    if "smoke_thinning" in markers:
        ctx.emit(MarkerRemoved(hex_state.id, "smoke_thinning"))
        because(ctx, "2.3.2", "Smoke Thinning removed")
    if "smoke" in markers:
        ctx.emit(MarkerRemoved(hex_state.id, "smoke"), MarkerPlaced(hex_state.id, "smoke_thinning"))
        because(ctx, "2.3.2", "Smoke flipped to Smoke Thinning")
    if "fire" in markers:
        _burn_out(ctx, hex_state)
    if "chemical" in markers:
        ctx.emit(MarkerRemoved(hex_state.id, "chemical"))
        because(ctx, "2.3.9", "Chemical Strike marker removed")


def marker_removal(ctx: Ctx) -> None:
    """§2.3 on one unit or one hex, steps in rulebook order; with no target, the whole map."""
    target = ctx.action.target
    if target is None:
        each_unit_and_hex(ctx, marker_removal)
        return
    if not isinstance(target, str):
        raise NotStated("query.target")
    before = len(ctx.answer.events)
    if target in ctx.game.units:
        _unit_markers(ctx, ctx.game.unit(target))
    else:
        _hex_markers(ctx, ctx.game.hex(target))
    if len(ctx.answer.events) == before and not ctx.answer.reasons:
        named = ctx.game.units[target].name if target in ctx.game.units else target
        because(ctx, "2.3", f"{named}: no marker to remove")


def _d6_at_least(ctx: Ctx, threshold: int, section: str, what: str) -> bool:
    die = ctx.roll(1, "d6")[0]
    happens = die >= threshold
    because(ctx, section, f"1d6 {die}: {what if happens else 'no effect'}")
    return happens


def _burn_out(ctx: Ctx, hex_state: HexState) -> None:
    """§2.3.4.1: on a 6 the Fire goes out, leaving Rubble in City or Town, else Burnt Out."""
    if _d6_at_least(ctx, tables()["fire_burn_out_on"], "2.3.4.1", "the Fire burns out"):
        terrain = need(hex_state.terrain, f"hexes.{hex_state.id}.terrain")
        left = "rubble" if terrain in tables()["fire_burn_out_rubble_terrain"] else "burnt_out"
        ctx.emit(MarkerRemoved(hex_state.id, "fire"), MarkerPlaced(hex_state.id, left))


def _fire_hex(ctx: Ctx) -> HexState:
    hex_state = ctx.game.hex(ctx.action.target if isinstance(ctx.action.target, str) else None)
    if "fire" not in hex_state.markers:
        raise NotStated(f"hexes.{hex_state.id}.markers (a Fire marker)")
    return hex_state


def fire_burn_out(ctx: Ctx) -> None:
    """§2.3.4.1: each Fire marker's burn-out roll (a 6 puts it out: Rubble in City or Town, else Burnt Out)."""
    _burn_out(ctx, _fire_hex(ctx))


def bridge_collapse(ctx: Ctx) -> None:
    """§2.3.4.2: a Bridge in a Fire hex collapses on 4-6; a Ford cannot be destroyed (§16.4),
    so it rolls nothing."""
    hex_state = _fire_hex(ctx)
    if "bridge" not in hex_state.features:
        if "ford" in hex_state.features:
            ctx.answer.set("roll_required", False)
            because(ctx, "16.4", "a Ford cannot be destroyed: no Bridge Collapse roll")
            return
        raise NotStated(f"hexes.{hex_state.id}.features (a Bridge)")
    ctx.answer.set("roll_required", True)
    if _d6_at_least(ctx, tables()["bridge_collapse_on"], "2.3.4.2", "the Bridge collapses"):
        ctx.emit(MarkerPlaced(hex_state.id, "bridge_destroyed"))


def fire_minefield(ctx: Ctx) -> None:
    """§2.3.4.3: a Minefield in a Fire hex is depleted on a 6."""
    hex_state = _fire_hex(ctx)
    mines = sorted(m for m in hex_state.markers if m.startswith("minefield"))
    if not mines:
        raise NotStated(f"hexes.{hex_state.id}.markers (a Minefield marker)")
    for marker in mines:
        if _d6_at_least(ctx, tables()["fire_minefield_depleted_on"], "2.3.4.3", "the Minefield is depleted"):
            ctx.emit(MarkerRemoved(hex_state.id, marker))


def _ignite(ctx: Ctx, hex_state: HexState, section: str) -> None:
    """Place a Fire (removing Wrecks, Improved Positions and Cleared markers, §10.9); the units
    in the hex retreat "as if they had lost an Assault Action" (§10.9, §2.3.4.4, §9.7 with
    §13.2.2), by the one retreat of :func:`referee.assault.retreat_by`: each unit into a hex
    it may enter (:func:`referee.waw85.assault.fire_retreat_fits`), its Support Weapon, Leader,
    HQ and Passengers with it, a unit with nowhere to go eliminated; no Opportunity Fire and
    no Ops Complete ("Unlike an Assault retreat", §10.9)."""
    from referee.assault import retreat_by
    from referee.waw85.assault import fire_retreat_fits
    from referee.waw85.results import command_checks
    ctx.emit(MarkerPlaced(hex_state.id, "fire"))
    for marker in tables()["fire_removes"]:
        if marker in hex_state.markers:
            ctx.emit(MarkerRemoved(hex_state.id, marker))
    stack = ctx.game.stack(hex_state.id)
    if not stack:
        return
    ctx.answer.set("triggers_opportunity_fire", False)
    keys = {u.key for u in stack}
    # the units that retreat on their own: not a Passenger aboard nor a counter stacked on a
    # unit of the hex (they go with it, §9.2, §9.8.1); an HQ or Leader with no unit of its
    # own goes with the survivors (§13.1.1), and retreats itself only from a hex of its own
    movers = [u for u in stack if u.carried_by is None and u.attached_to not in keys]
    fighting = [u for u in movers if u.type.target_type not in ("hq", "leader")]
    units = fighting or movers
    for unit in units:
        ctx.answer.unit(unit.key, retreat=1)
    because(ctx, section, "the units in the hex retreat out of the Fire as if they had lost an Assault, "
            "without Opportunity Fire and without being marked Ops Complete")
    # each side retreats on its own (a Flying or Hovering Helicopter may share the hex with
    # enemy ground units, §9.7.1, §9.7.3): neither goes where the other's units are counted friends
    sides = sorted({u.side or "" for u in units})
    for side in sides:
        group = [u for u in units if (u.side or "") == side]
        named = ctx.action.retreat if len(sides) == 1 else None
        ctx.stage(tuple(f"units.{u.key}" for u in stack),
                  lambda group=group, named=named: retreat_by(ctx, group, fire_retreat_fits(ctx, hex_state.id), named))
    results = {u.key: result_of(u.key, ctx.answer.events) for u in units}
    after = ctx.after
    for unit in stack:
        if unit.carried_by in results and results[unit.carried_by] == "eliminated" and after.unit(unit.key).on_map:
            ctx.answer.gap((f"units.{unit.key}.result", f"units.{unit.key}.location", f"units.{unit.key}.hex"),
                           f"not stated: {unit.name}, aboard a Transport the Fire eliminates (§10.7.3 is for "
                           "combat results; §10.9 eliminates a unit that cannot retreat)")
    if "eliminated" in results.values():
        # §10.7.2 for the HQs and Leaders whose units the Fire eliminated
        ctx.stage(tuple(f"units.{u.key}" for u in stack if u.type.target_type in ("hq", "leader")),
                  lambda: command_checks(ctx, list(results), results))


def place_marker(ctx: Ctx) -> None:
    """Place marker ``query.choice`` in hex ``query.target`` with its immediate effect:
    a Fire drives units out (§10.9, §9.7); a Minefield-Random marker attacks every unit in the
    hex (§14.10); Smoke and others simply go down."""
    hex_state = ctx.game.hex(ctx.action.target if isinstance(ctx.action.target, str) else None)
    marker = need(ctx.action.choice if isinstance(ctx.action.choice, str) else None, "query.choice")
    if marker == "fire":
        _ignite(ctx, hex_state, "10.9")
    elif marker in ("smoke", "smoke_thinning", "chemical", "rubble", "wrecks"):
        ctx.emit(MarkerPlaced(hex_state.id, marker))
    elif marker == "minefield_random":
        # §14.10: an ADM Strike's marker (its further ones too): every unit in the hex rolls 1d6
        from referee.waw85.artillery import scattered_mines
        ctx.emit(MarkerPlaced(hex_state.id, marker))
        because(ctx, "14.10", f"a Minefield-Random marker is placed in {hex_state.id}")
        scattered_mines(ctx, [u for u in ctx.game.stack(hex_state.id) if u.carried_by is None
                              and u.type.target_type not in ("hq", "leader", "support_weapon", "aircraft")])
    else:
        raise NotSupported("WaW85 §1.7", f"the effect of placing a {marker} marker")


def fire_spread(ctx: Ctx) -> None:
    """§2.3.4.4: a burnable hex adjacent to a Fire catches fire on 4-6."""
    hex_state = ctx.game.hex(ctx.action.target if isinstance(ctx.action.target, str) else None)
    terrain = need(hex_state.terrain, f"hexes.{hex_state.id}.terrain")
    if terrain not in tables()["burnable_terrain"]:
        ctx.answer.set("roll_required", False)
        because(ctx, "2.3.4.4", f"{terrain} does not catch fire")
        return
    ctx.answer.set("roll_required", True)
    if _d6_at_least(ctx, tables()["fire_spread_on"], "2.3.4.4", "the Fire spreads"):
        _ignite(ctx, hex_state, "2.3.4.4")


def rubble_check(ctx: Ctx) -> None:
    """§10.9: 3+ net hits from one Direct or Indirect Fire attack in burnable terrain:
    1d6, 4 Rubble, 5 Fire (not in a Burnt Out hex), 6 both."""
    hex_state = ctx.game.hex(ctx.action.target if isinstance(ctx.action.target, str) else None)
    hits = whole(need(ctx.action.hits, "query.hits"), "query.hits")
    cause = need(ctx.action.cause, "query.cause")
    terrain = need(hex_state.terrain, f"hexes.{hex_state.id}.terrain")
    required = (hits >= tables()["rubble_min_hits"]
                and cause in ("direct_fire", "opportunity_fire", "move_and_fire", "indirect_fire")
                and terrain in tables()["burnable_terrain"])
    ctx.answer.set("roll_required", required)
    because(ctx, "10.9", f"{hits} net hits from {cause} in {terrain}: "
            + ("roll for Rubble and Fire" if required else "no roll"))
    if not required:
        return
    rubble_roll(ctx, hex_state)


def rubble_roll(ctx: Ctx, hex_state: HexState) -> None:
    """§10.9's 1d6 for a hex: 4 Rubble, 5 Fire (not in a Burnt Out hex), 6 both."""
    die = ctx.roll(1, "d6")[0]
    for marker in tables()["rubble_fire_table"][die]:
        if marker in hex_state.markers:
            continue
        if marker == "fire":
            if "burnt_out" in hex_state.markers:
                because(ctx, "10.9", "a Burnt Out hex does not catch fire again")
                continue
            _ignite(ctx, hex_state, "10.9")
        else:
            ctx.emit(MarkerPlaced(hex_state.id, marker))
    because(ctx, "10.9", f"1d6 {die}: {tables()['rubble_fire_table'][die] or 'no effect'}")
