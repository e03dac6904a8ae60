"""The card-driven turn outside the Formation Impulse: the end of the Operations Phase
(§3.0), the EW and event side rolls and the EW marker (§5.1, §6.2), the Marker Removal Phase (§2.3) with
its Fire rolls (§2.3.4), and the Rubble/Fire check after heavy fire (§10.9)."""
from __future__ import annotations

from referee.artillery import adjacent_hexes
from referee.errors import NotStated, NotSupported
from referee.events import MarkerPlaced, MarkerRemoved, StatusChanged, UnitEliminated, UnitRemoved, result_of
from referee.model import HexState, Unit, need
from referee.ruleset import Ctx
from referee.waw85.command import Check, roll
from referee.waw85.common import because, illegal, morale_value, tables, whole


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

def _command_markers(ctx: Ctx, unit: Unit) -> None:
    """§2.3.1: "Remove all Ops Complete and Out of Command markers from the map"."""
    for name in ("ops_complete", "out_of_command"):
        if getattr(unit.status, name):
            ctx.emit(StatusChanged(unit.key, name, False))
            because(ctx, "2.3.1", f"{unit.name}: {name.replace('_', ' ')} marker removed")


def _ew_markers(ctx: Ctx, unit: Unit) -> None:
    """§2.3.3, §5.3: EW Reducing markers removed, then an EW marker flipped to EW Reducing on
    a passed Morale/Training Check (an HQ on the map or in a Holding Box, §5.1)."""
    if unit.status.ew_marker == "ew_reducing":
        ctx.emit(StatusChanged(unit.key, "ew_marker", "none"))
        because(ctx, "2.3.3", f"{unit.name}: EW Reducing marker removed")
    elif unit.status.ew_marker == "ew":
        if roll(ctx, Check(morale_value(ctx, unit)), section="2.3.3"):
            ctx.emit(StatusChanged(unit.key, "ew_marker", "ew_reducing"))
            because(ctx, "2.3.3", f"{unit.name}: EW marker flipped to EW Reducing")


def _unsuppress(ctx: Ctx, unit: Unit) -> None:
    """§2.3.5: "Move all Suppressed HQs to their respective HQ/SW Holding Boxes"."""
    if unit.type.target_type == "hq" and unit.location in ("suppressed", "suppressed_box"):
        ctx.emit(UnitRemoved(unit.key, "holding_box"))
        because(ctx, "2.3.5", f"{unit.name}: Suppressed HQ to the HQ/SW Holding Box")


def _smoke(ctx: Ctx, hex_state: HexState) -> None:
    """§2.3.2: Smoke Thinning markers removed, THEN Smoke flipped to Smoke Thinning."""
    markers = hex_state.markers
    if "smoke_thinning" in markers:
        ctx.emit(MarkerRemoved(hex_state.id, "smoke_thinning"))
        because(ctx, "2.3.2", "Smoke Thinning removed")
    if "smoke" in markers:
        ctx.emit(MarkerRemoved(hex_state.id, "smoke"), MarkerPlaced(hex_state.id, "smoke_thinning"))
        because(ctx, "2.3.2", "Smoke flipped to Smoke Thinning")


def _fire_burn_out_step(ctx: Ctx, hex_state: HexState) -> None:
    if "fire" in hex_state.markers:
        _burn_out(ctx, hex_state)


def _bridge_step(ctx: Ctx, hex_state: HexState) -> None:
    """§2.3.4.2 for a Fire hex with a Bridge still standing."""
    if "fire" in hex_state.markers and "bridge" in hex_state.features and "bridge_destroyed" not in hex_state.markers:
        if _d6_at_least(ctx, tables()["bridge_collapse_on"], "2.3.4.2", f"the Bridge in {hex_state.id} collapses"):
            ctx.emit(MarkerPlaced(hex_state.id, "bridge_destroyed"))


def _minefield_step(ctx: Ctx, hex_state: HexState) -> None:
    """§2.3.4.3 for each Minefield marker still in a Fire hex."""
    if "fire" not in hex_state.markers:
        return
    for marker in sorted(m for m in hex_state.markers if m.startswith("minefield")):
        if _d6_at_least(ctx, tables()["fire_minefield_depleted_on"], "2.3.4.3",
                        f"the Minefield in {hex_state.id} is depleted"):
            ctx.emit(MarkerRemoved(hex_state.id, marker))


def _spreading_step(ctx: Ctx, hex_state: HexState) -> None:
    """§2.3.4.4 for a burnable hex without Fire next to a Fire marker (the Fires left by
    §2.3.4.1: one that burned out spreads no more)."""
    if "fire" in hex_state.markers or hex_state.terrain not in tables()["burnable_terrain"]:
        return
    fires = [h.id for h in ctx.game.hexes.values() if "fire" in h.markers]
    if not fires:
        return
    around = adjacent_hexes(ctx, hex_state.id)
    if around is None:
        ctx.answer.gap(("hexes", "units"), f"not stated: the hexes adjacent to {hex_state.id} (§2.3.4.4)")
        return
    if not set(around) & set(fires):
        return
    if _d6_at_least(ctx, tables()["fire_spread_on"], "2.3.4.4", f"the Fire spreads to {hex_state.id}"):
        _ignite(ctx, hex_state, "2.3.4.4")


def _chemical(ctx: Ctx, hex_state: HexState) -> None:
    """§2.3.9: "Remove all Chemical Strike markers from the map"."""
    if "chemical" in hex_state.markers:
        ctx.emit(MarkerRemoved(hex_state.id, "chemical"))
        because(ctx, "2.3.9", "Chemical Strike marker removed")


#: §2.3 "Perform these steps in order": each step, for the units ("unit") or the hexes ("hex")
#: it concerns. §2.3.6 (Support Weapon transfers, the owner's choice), §2.3.7 (the deck) and
#: §2.3.8 (the Squall Box) touch no counter or marker of the position.
MARKER_REMOVAL_STEPS = (
    ("unit", _command_markers),                 # §2.3.1
    ("hex", _smoke),                            # §2.3.2
    ("unit", _ew_markers),                      # §2.3.3
    ("hex", _fire_burn_out_step),               # §2.3.4.1
    ("hex", _bridge_step),                      # §2.3.4.2
    ("hex", _minefield_step),                   # §2.3.4.3
    ("hex", _spreading_step),                   # §2.3.4.4
    ("unit", _unsuppress),                      # §2.3.5
    ("hex", _chemical),                         # §2.3.9
)



def _phase_unit(unit: Unit, step) -> bool:
    """The units a step concerns: those on the map; §2.3.3 and §2.3.5 also HQs off it (an EW
    marker may be on an HQ in its Holding Box, §5.1; Suppressed HQs are in their box)."""
    if unit.on_map:
        return True
    return step in (_ew_markers, _unsuppress) and unit.type.target_type == "hq" and unit.location != "eliminated"


def _whole_phase(ctx: Ctx) -> None:
    """§2.3 on the whole position: each step for every unit or hex it concerns, in key order,
    on the position the earlier steps left."""
    for kind, step in MARKER_REMOVAL_STEPS:
        game = ctx.after
        here = Ctx(ctx.rules, game, ctx.action, ctx.dice, ctx.answer)
        if kind == "unit":
            for key in sorted(game.units):
                if _phase_unit(game.units[key], step):
                    step(here, game.units[key])
        else:
            for hex_id in sorted(game.hexes):
                step(here, game.hexes[hex_id])
    if not ctx.answer.events and not ctx.answer.reasons:
        because(ctx, "2.3", "no marker to remove")


def marker_removal(ctx: Ctx) -> None:
    """§2.3 on one unit or one hex, its steps in rulebook order; with no target, the whole
    position step by step."""
    target = ctx.action.target
    if target is None:
        _whole_phase(ctx)
        return
    if not isinstance(target, str):
        raise NotStated("query.target")
    before = len(ctx.answer.events)
    if target in ctx.game.units:
        unit = ctx.game.unit(target)
        for kind, step in MARKER_REMOVAL_STEPS:
            if kind == "unit":
                step(ctx, unit)
    else:
        hex_id = ctx.game.hex(target).id
        for kind, step in MARKER_REMOVAL_STEPS:
            if kind == "hex":
                game = ctx.after
                step(Ctx(ctx.rules, game, ctx.action, ctx.dice, ctx.answer), game.hex(hex_id))
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
    # the units still in the hex: not those the attack that lit the Fire eliminated (§10.9
    # "immediately" after its hits), nor a CAS counter over its target hex, an aircraft that
    # returns to its Holding Box or leaves after its attack (§4.4), not a ground unit or Helicopter
    alive = {u.key for u in ctx.after.stack(hex_state.id)}
    stack = [u for u in ctx.game.stack(hex_state.id) if u.key in alive and u.type.target_type != "aircraft"]
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
    hex (§14.10); Smoke and others simply go down. An EW marker goes on an enemy HQ, the unit
    ``query.target``, for the player ``query.side`` who won the EW card (§5.1)."""
    marker = need(ctx.action.choice if isinstance(ctx.action.choice, str) else None, "query.choice")
    if marker == "ew":
        _place_ew_marker(ctx)
        return
    hex_state = ctx.game.hex(ctx.action.target if isinstance(ctx.action.target, str) else None)
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


def _place_ew_marker(ctx: Ctx) -> None:
    """§5.1: "The player who wins the card (``query.side``) may place an Electronic Warfare
    marker on an enemy HQ unit on the map or in the enemy HQ/SW Holding Box" (``query.target``,
    the HQ)."""
    target = ctx.action.target
    if not isinstance(target, str) or target not in ctx.game.units:
        raise NotStated("query.target (the HQ that takes the EW marker)")
    hq = ctx.game.unit(target)
    winner = need(ctx.action.side, "query.side (the player who won the EW card)")
    if hq.type.target_type != "hq":
        illegal(ctx, "5.1", f"{hq.name} is not an HQ: the EW marker goes on an enemy HQ unit")
    elif need(hq.side, f"units.{hq.key}.side") == winner:
        illegal(ctx, "5.1", f"{hq.name} is a friendly HQ: the EW marker goes on an enemy HQ unit")
    elif hq.location not in ("map", "holding_box"):
        illegal(ctx, "5.1", f"{hq.name} is in the {hq.location.replace('_', ' ')}: the EW marker goes on an HQ on the "
                "map or in the HQ/SW Holding Box")
    elif hq.status.ew_marker in ("ew", "ew_reducing"):
        raise NotSupported("WaW85 §5.1", "an EW marker on an HQ that already has an EW or EW Reducing marker")
    if ctx.answer.legal is False:
        return
    ctx.answer.set("legal", True)
    ctx.emit(StatusChanged(hq.key, "ew_marker", "ew"))
    because(ctx, "5.1", f"an EW marker is placed on {hq.name}")


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
