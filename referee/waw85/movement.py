"""Movement Actions: River crossings (§9.5), the Chemical Strike surcharge (§14.12),
Helicopter modes (§9.7) and Combat Lift-Off (§9.9), unloading Passengers (§9.8.2),
Clearing Rubble (§10.9.1) and the Vehicle Assault free move (§13.1.5).

Terrain movement costs come from the WaW85 Terrain Effects Chart (a player aid card,
not in the rulebook text): a move is judged on a board whose chart a profile transcribes,
or with each hex's cost stated (``mp_cost``); else it answers "not supported: WaW85 §9.1".
"""
from __future__ import annotations

from referee.errors import NotStated, NotSupported
from referee.events import (MarkerPlaced, MarkerRemoved, ModeChanged, PassengerUnloaded, StatusChanged,
                            UnitEliminated)
from referee.model import Unit, need
from referee.ruleset import Ctx
from referee.disrupted import disrupted_move
from referee.situation import hexes_apart, road_between
from referee.waw85.artillery import (MINES, chemical_move_cost, chemical_near, depletion_roll, enter_minefield,
                                     mine_attack, moved_in)
from referee.waw85.command import Check, check_for, roll
from referee.waw85.common import because, illegal, may_act, modify, morale_value, movement_action_only, tables
from referee.waw85.transport import STACKING_LIMIT, counts_for_stacking, mp_spent

HELICOPTER_MODES = ("flying", "nap_of_earth", "hovering", "landed")
#: Water hexes (§1.9.8, §9.5): only amphibious units (and Helicopters, §9.7) enter them.
WATER = frozenset({"water", "lake"})


def river_crossing(ctx: Ctx, unit: Unit) -> int | None:
    """§9.5: across an unbridged, unforded River only amphibious units, starting adjacent
    (no MP spent yet) and spending all their MPs; then they are Ops Complete. Returns the MP
    cost of the crossing (all the unit's MPs), or ``None`` when the move crosses no such
    River or may not cross it (then the answer says why). A Bridge marker on its reverse
    "represents a destroyed bridge" (§16.4): crossing there is crossing the River."""
    side = ctx.game.facts.get("hexside")
    if side == "bridge" and any("bridge_destroyed" in ctx.game.hex(h).markers
                                for h in (unit.hex, _target_hex(ctx)) if h is not None):
        because(ctx, "16.4", "the Bridge is destroyed (its marker's reverse): no crossing there")
        side = "river"
    if side != "river":
        return None
    if unit.type.target_type == "helicopter":
        because(ctx, "9.7", "Helicopters are not affected by hex side terrain")
        return None
    if "amphibious" not in unit.type.abilities:
        illegal(ctx, "9.5", f"{unit.name} is not amphibious: Rivers only at a Bridge or Ford")
        return None
    if isinstance(unit.status.mp_spent, int) and unit.status.mp_spent > 0:
        illegal(ctx, "9.5", "an amphibious River crossing starts the Movement Action adjacent to the River")
        return None
    cost = need(unit.current.mp, f"units.{unit.key}.mp")
    because(ctx, "9.5", f"amphibious River crossing: all {cost} MPs, then Ops Complete")
    return cost


#: Hex terrain that is Water: only amphibious units enter it (§1.9.8, §9.5).
WATER_TERRAIN = frozenset({"water", "all_water", "lake"})


def barred_by_water(ctx: Ctx, unit: Unit, hex_id: str) -> bool:
    """§1.9.8 "A green circle behind the MP value indicates a non-amphibious unit that can only
    move into non-water hexes"; §9.5 amphibious units "may enter all Water hexes". Helicopters
    and Aircraft fly; a Passenger goes where its Transport goes."""
    if unit.type.target_type in ("helicopter", "aircraft") or unit.carried_by is not None:
        return False
    return ctx.game.hex(hex_id).terrain in WATER_TERRAIN and "amphibious" not in unit.type.abilities


def move(ctx: Ctx) -> None:
    """A Passenger does not move on its own (§9.8), nor a Towed unit (§9.6); a River crossing
    (§9.5); a move along ``path`` on a board whose Terrain Effects Chart a module maker transcribed
    (:func:`_charted_move`); else the Chemical Strike surcharge (§14.12) and "not
    supported": the chart is printed only on PAC03."""
    unit = ctx.unit(ctx.action.actor)
    if unit.carried_by is not None:
        illegal(ctx, "9.8", f"{unit.name} is a Passenger of {unit.carried_by}: Passengers must be unloaded to move "
                "on their own")
        return
    if "towed" in unit.type.abilities:
        illegal(ctx, "9.6", f"{unit.name} is a Towed unit: it moves only loaded in a Transport")
        return
    if unit.type.target_type == "aircraft":
        # §9.3 Design Note: "Close Air Support units are placed on any hex on the map, rather
        # than moved across the hex grid, so also have no movement category on the TEC" (§4.1)
        illegal(ctx, "9.3", f"{unit.name} is a Close Air Support unit: it is placed on its target hex (§4.1), "
                "never moved across the hex grid")
        return
    if "bridge" in unit.type.abilities and unit.mode == "deployed":
        illegal(ctx, "16.3.3", f"{unit.name} has its Bridge deployed: unless the Bridge marker is removed, it may "
                "not move at all")
        return
    crossing = river_crossing(ctx, unit)
    if ctx.answer.legal is False:
        return
    if crossing is not None:
        # the crossing is a move like any other into the hex across the River: who may act,
        # no enemy hex, the stacking limit, Minefields, and "An amphibious unit crossing Water
        # is still subject to Opportunity Fire in its destination hex, if not Assaulting"
        _stated_move(ctx, unit, [need(_target_hex(ctx), "query.target")], crossing=crossing)
        return
    route = list(ctx.action.path or ())
    ahead = [*route, *([ctx.action.target] if isinstance(ctx.action.target, str)
                       and ctx.action.target not in ctx.game.units else [])]
    wet = next((h for h in ahead if barred_by_water(ctx, unit, h)), None)
    if wet is not None:
        illegal(ctx, "9.5", f"{unit.name} is not amphibious: it may only move into non-water hexes, and {wet} is "
                f"{ctx.game.hex(wet).terrain} (§1.9.8)")
        return
    if route and unit.hex and all("tec_mp" in ctx.game.hex(h).stated for h in route):
        _charted_move(ctx, unit, route)
        return
    hex_id = ctx.action.target if isinstance(ctx.action.target, str) else (route[-1] if route else None)
    if hex_id in ctx.game.units:               # "into hex (or onto unit) query.target"
        hex_id = need(ctx.game.unit(hex_id).hex, f"units.{hex_id}.hex")
    if not route and hex_id is not None:
        route = [hex_id]
    if ctx.action.cause == "assault":
        _free_move(ctx, unit, need(hex_id, "query.target"))
        return
    if route and unit.type.target_type == "helicopter":
        on_map = all(ctx.game.hex(h).at is not None for h in [*route, unit.hex] if h is not None)
        (_helicopter_move if on_map and unit.hex else _stated_helicopter_move)(ctx, unit, route)
        return
    if route and all(ctx.game.hex(h).mp_cost is not None for h in route):
        # a stack moves together (§7.6 "Stacks may move together"), each unit paying its own way
        movers = [ctx.unit(k) for k in ctx.action.actors] or [unit]
        arriving = max(1, sum(1 for m in movers if counts_for_stacking(m)))
        costs = []
        for mover in movers:
            _stated_move(ctx, mover, route, arriving)
            costs.append(ctx.answer.values.get("cost"))
        if len(movers) > 1 and all(isinstance(c, int) for c in costs):
            ctx.answer.set("cost", max(costs))
        return
    extra = chemical_move_cost(ctx, need(hex_id, "query.target"))
    if extra:
        ctx.answer.set("modifiers", {"cost": extra})
    raise NotSupported("WaW85 §9.1", "movement costs from the WaW85 Terrain Effects Chart")


def _target_hex(ctx: Ctx) -> str | None:
    """The hex ``query.target`` names: a hex id, or the hex of the unit it names."""
    target = ctx.action.target if isinstance(ctx.action.target, str) else None
    if target in ctx.game.units:
        return ctx.game.unit(target).hex
    return target


def _enemies(ctx: Ctx, unit: Unit) -> list[Unit]:
    """The enemy units of the position: those of a stated side other than the mover's (a
    unit of no stated side is not taken for an enemy; a mover of no stated side is the
    side of the units with none)."""
    return [u for u in ctx.game.units.values()
            if u.key != unit.key and u.on_map and u.side is not None and u.side != unit.side
            and u.type.target_type not in ("hq", "leader", "support_weapon")]


def _in_hex(ctx: Ctx, unit: Unit, hex_id: str, enemy: bool) -> int:
    """Enemy (or friendly, counting for stacking) units in ``hex_id``: the stated count, else
    the units placed there."""
    stated = ctx.game.hex(hex_id).stated.get("enemy_units" if enemy else "friendly_units")
    if stated is not None:
        return int(stated)
    if enemy:
        return sum(1 for u in _enemies(ctx, unit) if u.hex == hex_id and not _above(ctx, u, unit))
    return _friends(ctx, unit, hex_id)


def _above(ctx: Ctx, enemy: Unit, mover: Unit) -> bool:
    """An enemy Helicopter a ground unit may share a hex with: Flying or Hovering (§9.7.1,
    §9.7.3), or Nap-of-Earth over an obstacle higher than the hex's unit height (§9.7.2)."""
    if enemy.type.target_type != "helicopter" or mover.type.target_type == "helicopter":
        return False
    if enemy.mode in ("flying", "hovering"):
        return True
    if enemy.mode == "nap_of_earth":
        here = ctx.game.hex(enemy.hex).stated
        obstacle, height = here.get("obstacle_height"), here.get("unit_height")
        if obstacle is None or height is None:
            raise NotStated(f"hexes.{enemy.hex}.obstacle_height and unit_height (a NOE Helicopter is there)")
        return obstacle > height
    return False


def _opportunity_trigger(ctx: Ctx, unit: Unit) -> None:
    """§10.11: "When an activated unit moves in the LOS of an eligible inactive unit, the
    Opportunity Fire is declared": eligible = not Ops Complete, not Disrupted. Answered
    when the enemies are stated."""
    enemies = _enemies(ctx, unit)
    if not enemies:
        return
    eligible = [e for e in enemies if not e.status.ops_complete and not e.status.disrupted
                and ctx.game.facts.relation(e.key).los is not False]
    ctx.answer.set("triggers_opportunity_fire", bool(eligible))
    because(ctx, "10.11", "the move is in the LOS of " + (", ".join(e.name for e in eligible) if eligible else
                                                           "no eligible inactive enemy unit")
            + (": Opportunity Fire may be declared" if eligible else ""))


def _stated_move(ctx: Ctx, unit: Unit, route: list[str], arriving: int = 1, crossing: int | None = None) -> None:
    """§9.0 with the hexes' MP costs stated (the TEC is PAC03, not in the text): the cost of
    each hex entered, with the Minefield exit (§16.2) and Chemical (§14.12) surcharges, never
    more than the printed MPs, from hex to contiguous hex, never into a Water hex unless
    amphibious (§9.5); not into an enemy hex (an Assault, §13.0), nor over the stacking limit
    (§9.2); Out of Command units do not act (§7.2.3); a Disrupted unit by
    §10.8.2. All MPs spent: Ops Complete (§9.0). An amphibious River crossing (§9.5) costs
    ``crossing`` MPs, all the unit's, whatever the hex's cost."""
    may_act(ctx, unit)
    total, previous, extras = 0, unit.hex, 0
    for index, hex_id in enumerate(route):
        if not _stated_contiguous(ctx, previous, hex_id, first=index == 0):
            return
        if ctx.game.hex(hex_id).terrain in WATER and "amphibious" not in unit.type.abilities:
            # §1.9.8: a green circle "indicates a non-amphibious unit that can only move into
            # non-water hexes"; §9.5: amphibious units "may enter all Water hexes"
            illegal(ctx, "9.5", f"{hex_id} is a Water hex: only amphibious units enter it")
            return
        if _in_hex(ctx, unit, hex_id, enemy=True):
            illegal(ctx, "13.0", f"{hex_id} holds enemy units: a unit enters it only by Assault")
            return
        if counts_for_stacking(unit) and _in_hex(ctx, unit, hex_id, enemy=False) + arriving > STACKING_LIMIT:
            illegal(ctx, "9.2", f"{hex_id} already holds {STACKING_LIMIT} friendly units"
                    + (": the move must be made around the hex" if index < len(route) - 1 else ""))
            return
        cost = crossing if crossing is not None else int(ctx.game.hex(hex_id).mp_cost)
        if previous is not None and minefield_in(ctx, previous) is not None:
            extra = tables()["minefield_exit_mp"]
            modify(ctx, "cost", extra, f"leaving the Minefield of {previous}", "16.2")
            extras += extra
            cost += extra
        chemical = chemical_move_cost(ctx, hex_id)
        extras += chemical
        total += cost + chemical
        previous = hex_id
    if extras:
        ctx.answer.set("modifiers", {"cost": extras})
    ctx.answer.set("cost", total)
    allowed = need(unit.current.mp, f"units.{unit.key}.mp")
    spent = unit.status.mp_spent
    if spent is None and unit.status.mp_left is not None:
        spent = allowed - unit.status.mp_left
    if spent is None and not unit.status.moving:
        spent = 0
        because(ctx, "9.0", f"{unit.name} has not begun moving: no MPs spent yet")
    spent = need(spent, f"units.{unit.key}.status.mp_spent")
    if not isinstance(spent, int):
        raise NotStated(f"units.{unit.key}.status.mp_spent (a number)")
    because(ctx, "9.0", f"{total} MP to enter {', '.join(route)} after {spent} MP spent, of {allowed}")
    if spent + total > allowed:
        illegal(ctx, "9.0", f"{spent + total} MP is more than {unit.name}'s {allowed} MPs: a unit may not enter "
                "a hex if it would expend more than its printed MPs")
    stops = False
    if unit.status.disrupted:
        stops = _stated_disrupted(ctx, unit, route[-1])
    if ctx.answer.legal is False:
        return
    ctx.answer.set("legal", True)
    left = allowed - spent - total
    ctx.answer.unit(unit.key, mp_before=allowed - spent, mp_after=left)
    _opportunity_trigger(ctx, unit)
    # a stack's units enter one after the other: a Minefield an earlier unit's depletion roll
    # removed (§16.2.2) attacks no later one
    now = Ctx(ctx.rules, ctx.after, ctx.action, ctx.dice, ctx.answer) if ctx.answer.events else ctx
    mined = [(index, hex_id) for index, hex_id in enumerate(route) if minefield_attacks(now, unit, hex_id)]
    if mined:                                # §16.2: each unit entering a Minefield hex rolls 1d6
        ctx.answer.set("mines_attacks", [hex_id for _, hex_id in mined])
        if not ctx.has_dice("d6"):
            ctx.answer.gap(("units", "hexes"), "not stated: dice.d6 (the §16.2 Minefield attack)")
            return
        if minefield_attacks_on_route(now, unit, route, mined):
            return
    ctx.emit(*moved_in(ctx, unit.key, route[-1]), StatusChanged(unit.key, "moving", not stops))
    if left == 0:
        because(ctx, "9.0", f"{unit.name} has spent all its MPs: Ops Complete")
        ctx.emit(StatusChanged(unit.key, "ops_complete", True))


def _stated_contiguous(ctx: Ctx, previous: str | None, hex_id: str, *, first: bool) -> bool:
    """§9.0 "from hex to contiguous hex" by stated facts: the first hex of a move stated
    farther than 1 from the mover is refused. (A hex's ``adjacent_to`` lists only the
    neighbours that matter to a case, so a hex it leaves out may still be next to it.)"""
    far = ctx.game.hex(hex_id).stated.get("distance") if first else None
    if isinstance(far, int) and far > 1:
        illegal(ctx, "9.0", f"{hex_id} is {far} hexes from {previous}: a unit moves from hex to contiguous hex")
        return False
    return True


def _stated_disrupted(ctx: Ctx, unit: Unit, hex_id: str) -> bool:
    """§10.8.2 by stated facts: never into a hex adjacent to an enemy unit; staying put when
    already adjacent; stopping on entering a hex in an enemy's LOS (a stated ``los`` of an
    enemy is whether it sees the hex entered). Returns whether the unit must stop there."""
    enemies = _enemies(ctx, unit)
    beside = [e for e in enemies if ctx.game.facts.relation(e.key).adjacent
              or ctx.game.facts.relation(e.key).distance == 1]
    if beside:
        illegal(ctx, "10.8.2", f"disrupted {unit.name} is adjacent to {beside[0].name}: it must remain where it is")
        return True
    if ctx.game.hex(hex_id).stated.get("adjacent_to_enemy"):
        illegal(ctx, "10.8.2", f"disrupted {unit.name} may not move into {hex_id}, adjacent to an enemy unit")
        return True
    seeing = [e for e in enemies if ctx.game.facts.relation(e.key).los]
    if seeing:
        because(ctx, "10.8.2", f"disrupted {unit.name} enters {hex_id} in the LOS of {seeing[0].name}: it stops there")
        return True
    return False


def _free_move(ctx: Ctx, unit: Unit, hex_id: str) -> None:
    """§13.1.5: a vehicle (or stack of two) that won an Assault and is not Disrupted may move
    free into an adjacent empty or friendly-occupied hex, within the stacking limit; "This
    move is NOT subject to enemy Opportunity Fire"."""
    movers = [ctx.unit(k) for k in ctx.action.actors] or [unit]
    for mover in movers:                     # "your vehicle or stack of two vehicles"
        if not mover.type.is_vehicle:
            illegal(ctx, "13.1.5", f"{mover.name} is not a vehicle: only vehicles make the free move")
        if mover.status.disrupted:
            illegal(ctx, "13.1.5", f"{mover.name} is Disrupted: no free move")
    near = ctx.game.hex(hex_id).stated.get("adjacent_to")
    if near is not None and unit.hex is not None and unit.hex not in near:
        illegal(ctx, "13.1.5", f"{hex_id} is not adjacent to {unit.hex}")
    if _in_hex(ctx, unit, hex_id, enemy=True):
        illegal(ctx, "13.1.5", f"{hex_id} holds enemy units: the free move is into an empty or friendly hex")
    if _in_hex(ctx, unit, hex_id, enemy=False) + len(movers) > STACKING_LIMIT:
        illegal(ctx, "9.2", f"{hex_id} holds {_in_hex(ctx, unit, hex_id, enemy=False)} friendly unit(s): "
                f"{len(movers)} more would pass the limit of {STACKING_LIMIT}")
    if ctx.answer.legal is False:
        return
    ctx.answer.set("legal", True)
    ctx.answer.set("cost", 0)
    ctx.answer.set("triggers_opportunity_fire", False)
    for mover in movers:
        because(ctx, "13.1.5", f"{mover.name} makes its free move into {hex_id}, not subject to Opportunity Fire")
        ctx.emit(*ctx.moves(mover.key, hex_id), StatusChanged(mover.key, "ops_complete", True))


def _stated_helicopter_move(ctx: Ctx, unit: Unit, route: list[str]) -> None:
    """§9.7 without a map: Flying has unlimited MPs (§9.7.1), Nap-of-Earth 12, 1 per hex
    whatever the terrain, hex to adjacent hex, and Ops Complete once all 12 are spent
    (§9.7.2, §9.0); Hovering and Landed are stationary; never into Fire; a Helicopter that has
    completed its Action does not move again (§7.6)."""
    mode = need(unit.mode, f"units.{unit.key}.mode")
    may_act(ctx, unit)
    if mode in ("hovering", "landed"):
        illegal(ctx, "9.7.3" if mode == "hovering" else "9.7.4",
                f"{unit.name} is {mode}: stationary in its hex")
    if ctx.answer.legal is False:
        return
    previous = unit.hex
    for index, hex_id in enumerate(route):
        if mode == "nap_of_earth" and not _stated_contiguous(ctx, previous, hex_id, first=index == 0):
            return          # "the unit moves like a ground unit, from hex to adjacent hex" (§9.7.2)
        previous = hex_id
        if "fire" in ctx.game.hex(hex_id).markers:
            illegal(ctx, "9.7", f"{hex_id} holds a Fire marker: Helicopters may not enter it")
            return
        if mode == "nap_of_earth" and _in_hex(ctx, unit, hex_id, enemy=True):
            here = ctx.game.hex(hex_id).stated
            obstacle, height = here.get("obstacle_height"), here.get("unit_height")
            if obstacle is None or height is None:
                raise NotStated(f"hexes.{hex_id}.obstacle_height and unit_height (enemy units are there)")
            if obstacle <= height:
                illegal(ctx, "9.7.2", f"{hex_id} holds enemy units and no obstacle to fly over: a NOE Helicopter "
                        "there is a ground unit, and Helicopters do not assault")
                return
    spent = unit.status.mp_spent if isinstance(unit.status.mp_spent, int) else 0
    if unit.status.mp_spent is None and isinstance(unit.status.mp_left, int) and mode == "nap_of_earth":
        spent = tables()["helicopter_noe_mp"] - unit.status.mp_left     # of its 12 MPs (§9.7.2)
    cost = len(route)
    if mode == "nap_of_earth":
        limit = tables()["helicopter_noe_mp"]
        ctx.answer.set("cost", cost)
        because(ctx, "9.7.2", f"Nap-of-Earth: {cost} MP, 1 per hex whatever the terrain, after {spent}")
        if spent + cost > limit:
            illegal(ctx, "9.7.2", f"{spent + cost} MP is more than a Nap-of-Earth Helicopter's {limit}")
            return
        if _in_hex(ctx, unit, route[-1], enemy=False) + 1 > STACKING_LIMIT:
            illegal(ctx, "9.2", f"{route[-1]} already holds {STACKING_LIMIT} friendly units")
            return
    else:
        ctx.answer.set("cost", 0)
        because(ctx, "9.7.1", "Flying: an unlimited number of Movement Points"
                + ("; more than 12 MPs: it may not fire this activation" if spent + cost > 12 else ""))
    ctx.answer.set("legal", True)
    _opportunity_trigger(ctx, unit)
    ctx.emit(*ctx.moves(unit.key, route[-1]), StatusChanged(unit.key, "moving", True))
    if mode == "nap_of_earth" and spent + cost == tables()["helicopter_noe_mp"]:
        because(ctx, "9.0", f"{unit.name} has spent all its MPs: Ops Complete")
        ctx.emit(StatusChanged(unit.key, "ops_complete", True))


def _crossing(ctx: Ctx, mover: str, previous: str, hex_id: str) -> tuple[int, list[str]]:
    """MP a hexside adds (§9.1): its features on the chart, and a Hill contour crossed Up Hill."""
    before, here = ctx.game.hex(previous), ctx.game.hex(hex_id)
    sides = here.stated.get("tec_hexsides") or {}
    if not _next_to(ctx, previous, hex_id):
        return 0, []
    added, why = 0, []
    features = {f.partition(":")[0] for f in before.features if f.partition(":")[2] == hex_id} \
        | {f.partition(":")[0] for f in here.features if f.partition(":")[2] == previous}
    bridged = "bridge" in features
    for feature in sorted(features - {"bridge", "road"}):
        if bridged:
            why.append(f"bridged {feature}")
            continue
        cost = need((sides.get(feature) or {}).get(mover), f"TEC hexside {feature} cost for {mover}")
        added += cost
        why.append(f"{feature} +{cost}")
    if (here.stated.get("elevation") or 0) > (before.stated.get("elevation") or 0):
        cost = need((sides.get("up_hill") or {}).get(mover), f"TEC Up Hill cost for {mover}")
        added += cost
        why.append(f"Up Hill +{cost}")
    return added, why


def _next_to(ctx: Ctx, previous: str, hex_id: str) -> bool:
    """§9.0: "from hex to contiguous hex"."""
    if hexes_apart(ctx.game, previous, hex_id) != 1:
        illegal(ctx, "9.0", f"{hex_id} is not next to {previous}: a unit moves from hex to contiguous hex")
        return False
    return True


def _helicopter_move(ctx: Ctx, unit: Unit, route: list[str]) -> None:
    """§9.7: a Helicopter moves by its mode, never by the ground columns of the chart:
    Flying "has an unlimited number of Movement Points" (§9.7.1); Nap-of-Earth "has 12
    Movement Points, but only pays 1 movement point per hex regardless of the terrain ... no
    hex side cost" (§9.7.2); Hovering and Landed are stationary (§9.7.3, §9.7.4); never into
    a Fire hex (§9.7)."""
    mode = need(unit.mode, f"units.{unit.key}.mode")
    if mode in ("hovering", "landed"):
        illegal(ctx, "9.7.3" if mode == "hovering" else "9.7.4",
                f"{unit.name} is {mode.replace('_', ' ')}: stationary in its hex")
        return
    previous = str(unit.hex)
    for hex_id in route:
        if not _next_to(ctx, previous, hex_id):
            return
        here = ctx.game.hex(hex_id)
        if "fire" in here.markers:
            illegal(ctx, "9.7", f"{hex_id} holds a Fire marker: Helicopters may not enter it")
            return
        enemy = any(u.side != unit.side and u.side is not None for u in ctx.game.stack(hex_id))
        if mode == "nap_of_earth" and enemy:
            obstacle = need(here.stated.get("obstacle_height"), f"hexes.{hex_id}.obstacle_height")
            if obstacle <= need(here.stated.get("unit_height"), f"hexes.{hex_id}.unit_height"):
                illegal(ctx, "9.7.2", f"{hex_id} holds enemy units and no obstacle to fly over: a NOE Helicopter "
                        "there is a ground unit, and Helicopters do not assault")
                return
        previous = hex_id
    cost = len(route)
    ctx.answer.set("cost", cost)
    if mode == "nap_of_earth":
        limit = tables()["helicopter_noe_mp"]
        because(ctx, "9.7.2", f"Nap-of-Earth: {cost} MP, 1 per hex, no hexside costs")
        if cost > limit:
            illegal(ctx, "9.7.2", f"{cost} MP is more than a Nap-of-Earth Helicopter's {limit}")
            return
        friends = [u for u in ctx.game.stack(route[-1]) if u.side == unit.side and counts_for_stacking(u)]
        if len(friends) + 1 > STACKING_LIMIT:
            illegal(ctx, "9.2", f"{route[-1]} would hold {len(friends) + 1} units; the limit is {STACKING_LIMIT}")
            return
    else:
        because(ctx, "9.7.1", f"Flying: {cost} hexes, no MP limit"
                + ("; more than 12 MPs: it may not fire this activation" if cost > 12 else ""))
    ctx.answer.set("legal", True)
    ctx.emit(*ctx.moves(unit.key, route[-1]), StatusChanged(unit.key, "ops_complete", True),
             StatusChanged(unit.key, "moving", True))


def _charted_move(ctx: Ctx, unit: Unit, route: list[str]) -> None:
    """§9.0: from hex to contiguous hex, paying each hex's TEC cost (or its Road's, §9.4) and
    its hexside's; never more than the printed MPs; then Ops Complete. Into an enemy hex only
    by Assault or Overrun (§13.0); never through a friendly hex already holding two units
    (§9.2), nor ending in one; a Disrupted unit by §10.8.2; leaving a Minefield hex costs 2
    MPs more and entering one is attacked (§16.2)."""
    may_act(ctx, unit)
    if unit.type.target_type == "helicopter":
        _helicopter_move(ctx, unit, route)
        return
    mover = "vehicle" if unit.type.is_vehicle else "infantry"
    allowed = need(unit.current.mp, f"units.{unit.key}.mp")
    total, previous, steps, mined = 0, str(unit.hex), [], []
    for index, hex_id in enumerate(route):
        cost, step = step_cost(ctx, mover, previous, hex_id)
        if ctx.answer.legal is False:
            return
        total += cost
        steps.append(step)
        if any(u.side != unit.side and u.side is not None and not _above(ctx, u, unit)
               for u in ctx.game.stack(hex_id)):
            illegal(ctx, "13.0", f"{hex_id} holds enemy units: a unit enters it only by Assault or Overrun")
            return
        if counts_for_stacking(unit) and index < len(route) - 1 and _friends(ctx, unit, hex_id) + 1 > STACKING_LIMIT:
            illegal(ctx, "9.2", f"{hex_id} already holds {STACKING_LIMIT} friendly units: the move must be made "
                    "around the hex rather than through it")
            return
        if minefield_attacks(ctx, unit, hex_id):
            mined.append((index, hex_id))
        previous = hex_id
    because(ctx, "9.0", f"{total} MP: " + "; ".join(steps))
    ctx.answer.set("cost", total)
    if total > allowed:
        illegal(ctx, "9.0", f"{total} MP is more than {unit.name}'s {allowed} MPs")
        return
    if counts_for_stacking(unit) and _friends(ctx, unit, route[-1]) + 1 > STACKING_LIMIT:
        illegal(ctx, "9.2", f"{route[-1]} would hold {_friends(ctx, unit, route[-1]) + 1} units; "
                f"the limit is {STACKING_LIMIT}")
        return
    if unit.status.disrupted:
        disrupted_move(ctx, unit, route)
        if ctx.answer.legal is False:
            return
    ctx.answer.set("legal", True)
    ctx.answer.unit(unit.key, mp_after=allowed - total)
    if mined:
        ctx.answer.set("mines_attacks", [hex_id for _, hex_id in mined])
        if ctx.dice is not None and minefield_attacks_on_route(ctx, unit, route, mined):
            return
    ctx.emit(*moved_in(ctx, unit.key, route[-1]), StatusChanged(unit.key, "ops_complete", True),
             StatusChanged(unit.key, "moving", True))


def step_cost(ctx: Ctx, mover: str, previous: str, hex_id: str) -> tuple[int, str]:
    """MP to move from ``previous`` into ``hex_id`` on the chart, and how it adds up: the
    hex's (or its Road's) cost, its hexside's, and 2 more to leave a Minefield (§16.2)."""
    enter, what = _entry(ctx, mover, previous, hex_id)
    added, why = _crossing(ctx, mover, previous, hex_id)
    leaving = minefield_in(ctx, previous)
    if leaving is not None:
        extra = tables()["minefield_exit_mp"]
        added += extra
        why.append(f"leaving the Minefield of {previous} +{extra}")
    if chemical_near(ctx, hex_id):
        # §14.12 "Units entering a hex adjacent to or containing a Chemical Strike marker during
        # the current turn must pay an additional 2 Movement Points" (the marker goes at the next
        # Marker Removal Phase, so one on the map is of the current turn)
        extra = tables()["chemical_move_cost"]
        added += extra
        why.append(f"a Chemical Strike marker in or next to {hex_id} +{extra}")
    return enter + added, f"{hex_id} {what} {enter}" + "".join(f", {w}" for w in why)


def _entry(ctx: Ctx, mover: str, previous: str, hex_id: str) -> tuple[int, str]:
    """MP to enter ``hex_id`` from ``previous`` and what it is paid for: along a Road or
    Trail, the Road's cost instead of the terrain's (§9.4), unless Rubble lies in either hex
    ("A Rubble marker eliminates all Roads and Trails in its hex")."""
    here, before = ctx.game.hex(hex_id), ctx.game.hex(previous)
    rubble = "rubble" in here.markers or "rubble" in before.markers
    for kind in ("road", "trail"):
        if road_between(ctx.game, before, here, kind):
            if rubble:
                because(ctx, "9.4", f"Rubble eliminates the {kind} between {previous} and {hex_id}")
                break
            cost = need(((here.stated.get("tec_roads") or {}).get(kind) or {}).get(mover),
                        f"TEC {kind} cost for {mover}")
            return cost, kind
    cost = need((here.stated["tec_mp"] or {}).get(mover), f"TEC {here.terrain} cost for {mover}")
    return cost, str(here.terrain)


def _friends(ctx: Ctx, unit: Unit, hex_id: str) -> int:
    """Friendly units counting for stacking in ``hex_id`` (§9.2), the mover aside."""
    return sum(1 for u in ctx.game.stack(hex_id, exclude=unit.key) if u.side == unit.side and counts_for_stacking(u))


def minefield_in(ctx: Ctx, hex_id: str) -> str | None:
    """The Minefield marker in ``hex_id``, if any (§16.2)."""
    return next((m for m in MINES if m in ctx.game.hex(hex_id).markers), None)


def minefield_attacks(ctx: Ctx, unit: Unit, hex_id: str) -> bool:
    """§16.2: does the Minefield of ``hex_id`` attack ``unit`` entering it? Every unit entering
    is attacked, "except units entering a Minefield-Placed hex belonging to their own side"."""
    marker = minefield_in(ctx, hex_id)
    if marker is None:
        return False
    if marker == "minefield_placed":
        owner = need(ctx.game.hex(hex_id).owner, f"hexes.{hex_id}.owner")
        if owner == need(unit.side, f"units.{unit.key}.side"):
            because(ctx, "16.2", f"the Placed Minefield in {hex_id} does not attack its own side")
            return False
    return True


def minefield_attacks_on_route(ctx: Ctx, unit: Unit, route: list[str], mined: list[tuple[int, str]]) -> bool:
    """§16.2: each Minefield entered attacks (1d6: 4-5 one hit, 6 two, no saves); then its
    §16.2.2 depletion roll (a 6 removes it). A unit hit "immediately retreats to the hex it
    entered the Minefield from, and is marked Ops Complete": its move ends there. Returns
    whether a Minefield stopped the move."""
    for index, hex_id in mined:
        hits, eliminated = enter_minefield(ctx, unit, hex_id)     # attacked in the Minefield hex
        back = route[index - 1] if index > 0 else str(unit.hex)
        if hits and not eliminated:
            because(ctx, "16.2", f"{unit.name} is hit in {hex_id}: it retreats to {back}, the hex it entered "
                    "the Minefield from, and is Ops Complete")
        depletion_roll(ctx, hex_id)
        if eliminated:
            return True
        if hits:
            ctx.emit(*moved_in(ctx, unit.key, back))
            ctx.emit(StatusChanged(unit.key, "ops_complete", True))
            return True
    return False


def mode_change(ctx: Ctx) -> None:
    """§9.7: a Helicopter picks its mode when activated and keeps it for the activation
    (§9.9 Combat Lift-Off excepted); changing mode triggers Opportunity Fire (§10.11); landing
    in a Minefield hex is attacked by it (§9.7, §16.2)."""
    unit = ctx.unit(ctx.action.actor)
    mode = ctx.action.choice
    if "bridge" in unit.type.abilities and unit.type.target_type != "helicopter":
        _bridge_mode(ctx, unit)
        return
    if unit.type.target_type != "helicopter":
        raise NotSupported("WaW85 §16.3.3", "mode changes of units other than Helicopters and Bridge-laying units")
    if mode not in HELICOPTER_MODES:
        raise NotStated("query.choice (flying, nap_of_earth, hovering or landed)")
    spent = unit.status.mp_spent
    if unit.status.moving or (isinstance(spent, int) and spent > 0) or unit.status.ops_complete \
            or unit.status.fired:
        illegal(ctx, "9.7", "the mode is chosen at the start of the activation, not after acting")
        return
    ctx.answer.set("legal", True)
    ctx.answer.set("triggers_opportunity_fire", True)
    if mode != unit.mode:
        ctx.emit(ModeChanged(unit.key, mode))
    because(ctx, "9.7", f"{unit.name} takes {mode.replace('_', '-')} mode for this activation")
    if mode == "landed" and unit.mode != "landed" and unit.hex is not None and minefield_attacks(ctx, unit, unit.hex):
        _landing_in_a_minefield(ctx, unit, unit.hex)


def _landing_in_a_minefield(ctx: Ctx, unit: Unit, hex_id: str) -> None:
    """§9.7: Helicopters "are only affected by minefields if they land in them": landing there
    is entering the Minefield, attacked as §16.2 says (1d6, 4-5 one hit, 6 two, no saves),
    then the §16.2.2 depletion roll. A hit unit "retreats to the hex it entered the Minefield
    from, and is marked Ops Complete"; a Helicopter landing entered from no hex, so where it
    goes is not stated."""
    ctx.answer.set("mines_attacks", [hex_id])
    if not ctx.has_dice("d6"):
        ctx.answer.gap(("units", "hexes"), "not stated: dice.d6 (the §16.2 Minefield attack on landing)")
        return
    hits = mine_attack(ctx, unit, "16.2")
    eliminated = any(isinstance(e, UnitEliminated) and e.unit == unit.key for e in ctx.answer.events)
    depletion_roll(ctx, hex_id)
    if hits and not eliminated:
        ctx.emit(StatusChanged(unit.key, "ops_complete", True))
        ctx.answer.gap((f"units.{unit.key}.hex", f"units.{unit.key}.retreat"),
                       "not stated: where a Helicopter hit on landing retreats (§16.2 \"the hex it entered the "
                       "Minefield from\")")


def _bridge_mode(ctx: Ctx, unit: Unit) -> None:
    """§16.3.3: a Bridge-laying unit "begins a Movement Action (not Move and Direct Fire, or
    Assault) adjacent to that river hexside and, as its Action, spends all its movement
    points to flip itself" and place a Bridge marker across a River hexside of its hex; it
    retrieves the Bridge the same way. Either way it has completed its Action."""
    mode = ctx.action.choice
    if mode not in ("deployed", "retracted"):
        raise NotStated("query.choice (deployed or retracted)")
    may_act(ctx, unit)
    movement_action_only(ctx, unit, "16.3.3", "flips")
    spent = unit.status.mp_spent
    if unit.status.moving or (isinstance(spent, int) and spent > 0):
        illegal(ctx, "16.3.3", f"{unit.name} has already moved: it flips by beginning a Movement Action and "
                "spending all its MPs")
    deployed = unit.mode == "deployed"
    if mode == "deployed":
        if deployed:
            illegal(ctx, "16.3.3", f"{unit.name} has a Bridge deployed: only one Bridge marker at a time")
        hex_state = ctx.game.hex(unit.hex)
        river = ctx.game.facts.get("hexside") == "river" or any(
            f.partition(":")[0] == "river" for f in hex_state.features)
        if not river:
            if ctx.game.facts.get("hexside") is None and not hex_state.features:
                raise NotStated("situation.hexside (is the unit adjacent to a River hexside?)")
            illegal(ctx, "16.3.3", f"{unit.name} places a Bridge only across a River hexside of its hex")
    elif not deployed:
        illegal(ctx, "16.3.3", f"{unit.name} has no Bridge deployed to retrieve")
    if ctx.answer.legal is False:
        return
    cost = need(unit.current.mp, f"units.{unit.key}.mp")
    ctx.answer.set("legal", True)
    ctx.answer.set("cost", cost)
    ctx.answer.unit(unit.key, mp_after=0)
    ctx.emit(ModeChanged(unit.key, mode), StatusChanged(unit.key, "ops_complete", True))
    because(ctx, "16.3.3", f"{unit.name} spends all {cost} MPs to "
            + ("deploy its Bridge marker" if mode == "deployed" else "retrieve its Bridge marker") + "; Ops Complete")


#: §9.9: "the unit may change its mode to Hovering, Nap-of Earth, or Flying".
LIFT_OFF_MODES = ("hovering", "nap_of_earth", "flying")


def lift_off(ctx: Ctx) -> None:
    """§9.9 Combat Lift-Off: after loading or unloading, 2d6 at or under Morale/Training
    lets a Landed Helicopter Transport change to Hovering, Nap-of-Earth or Flying, and move
    in the latter two; a fail leaves it Landed. (The text also calls a roll equal to the
    value a failure; the at-or-under rule of every other check wins.)"""
    unit = ctx.unit(ctx.action.actor)
    if unit.type.target_type != "helicopter" or unit.mode != "landed":
        illegal(ctx, "9.9", "only a Landed Helicopter may attempt a Combat Lift-Off")
        return
    if "transport" not in unit.type.abilities:
        # "Roll 2d6 immediately after the Helicopter Transport unit loads or unloads": only a
        # Helicopter Transport loads or unloads (§9.8.5), so only it lifts off
        illegal(ctx, "9.9", f"{unit.name} is no Helicopter Transport: a Combat Lift-Off follows loading or unloading "
                "Passengers")
        return
    mode = ctx.action.choice
    if mode is not None and mode not in LIFT_OFF_MODES:
        illegal(ctx, "9.9", f"a Combat Lift-Off changes the mode to Hovering, Nap-of-Earth or Flying, not {mode}")
        return
    ctx.answer.set("legal", True)
    passed = ctx.action.passed
    if passed is None:
        check = check_for(ctx, unit)      # any Morale/Training check (§1.9.11, §1.9.13)
        value = check.target_number
        passed = roll(ctx, check, section="9.9")
        if ctx.answer.values.get("modified_roll") == value:
            because(ctx, "9.9", f"a roll equal to the Morale/Training value {value} passes, as in every 2d6 "
                    "check (the section's second sentence also calls it a fail)")
    else:
        ctx.answer.set("passed", passed)
    if passed and mode in LIFT_OFF_MODES:
        ctx.emit(ModeChanged(unit.key, mode))
        # a mode change triggers Opportunity Fire (§10.11; the §9.9 Design Note: "change to
        # Flying mode (again subject to Opportunity Fire for changing mode)")
        ctx.answer.set("triggers_opportunity_fire", True)
        # "If successful in switching to one of the latter two modes, the Helicopter unit may
        # then move": Hovering stays in the hex; Nap-of-Earth has its 12 MPs (§9.7.2; Flying's
        # are unlimited, §9.7.1)
        if mode == "hovering":
            ctx.answer.unit(unit.key, mp_after=0)
        elif mode == "nap_of_earth":
            ctx.answer.unit(unit.key, mp_after=tables()["helicopter_noe_mp"])
    elif not passed:
        ctx.answer.unit(unit.key, mp_after=0)         # "the unit remains Landed" (stationary, §9.7.4)
    because(ctx, "9.9", "Combat Lift-Off " + ("succeeds" if passed else "fails: Landed until its next activation"))


def _within_one_hex(ctx: Ctx, carrier: Unit, target: str) -> None:
    """§9.8.2: "into the Transport unit's hex; or directly into a hex adjacent to the
    Transport unit" - a hex farther away (by its stated distance, else on the map) is refused."""
    hex_state = ctx.game.hex(target)
    far = hex_state.stated.get("distance")
    if far is None and carrier.hex is not None:
        here = ctx.game.hex(carrier.hex)
        if here.at is not None and hex_state.at is not None:
            far = here.at.distance(hex_state.at)
    if isinstance(far, int) and far > 1:
        illegal(ctx, "9.8.2", f"{target} is {far} hexes away: a Passenger unloads into its Transport's hex or an "
                "adjacent hex")


def unload(ctx: Ctx) -> None:
    """§9.8.2: the Passenger unloads into its Transport's hex or an adjacent hex and is
    Ops Complete (unless unloading into an Assault, §9.8.3); unloading always triggers
    Opportunity Fire (§9.8.4). A Transport that had not moved may still move half its MPs; a
    Landed Helicopter Transport stays in its hex, a Combat Lift-Off aside (§9.7.4, §9.9)."""
    passenger = ctx.unit(ctx.action.actor)
    carrier = ctx.game.unit(need(passenger.carried_by, f"units.{passenger.key}.carried_by"))
    may_act(ctx, carrier)                   # the Transport's Movement Action (§7.6, §11.0, §7.2.3)
    may_act(ctx, passenger)
    helicopter = carrier.type.target_type == "helicopter"
    if helicopter and carrier.mode != "landed":
        illegal(ctx, "9.8.5", "Helicopter Transports unload only in Landed mode")
    target = ctx.action.target if isinstance(ctx.action.target, str) else None
    # enemy units in the hex, stated or placed (not an enemy Helicopter flying above, §9.7.1-§9.7.3)
    enemy = target is not None and _in_hex(ctx, passenger, target, enemy=True)
    if enemy and helicopter:
        illegal(ctx, "9.8.5", "no unloading from Helicopters into an enemy-occupied hex")
    elif enemy:
        illegal(ctx, "9.8.3", "unloading into an enemy hex is an Assault Action")
    if target is not None and target != carrier.hex:
        _within_one_hex(ctx, carrier, target)
    into = target or carrier.hex
    if into is not None and not enemy and _in_hex(ctx, passenger, into, enemy=False) + 1 > STACKING_LIMIT:
        illegal(ctx, "9.2", f"{into} already holds {STACKING_LIMIT} friendly units: Passengers count for stacking "
                "once unloaded, and stacking restrictions apply at all times")
    spent = mp_spent(carrier)
    if not helicopter and isinstance(spent, int) and carrier.current.mp is not None and spent > carrier.current.mp // 2:
        illegal(ctx, "9.8.2", f"{carrier.name} moved {spent} MPs: a Transport moves at most half its MPs "
                f"({carrier.current.mp // 2}) before its Passengers unload")
    if ctx.answer.legal is False:
        return
    ctx.answer.set("legal", True)
    ctx.answer.set("triggers_opportunity_fire", True)
    ctx.emit(PassengerUnloaded(passenger.key), StatusChanged(passenger.key, "ops_complete", True))
    if into is not None and into != passenger.hex:     # "or directly into a hex adjacent to the Transport unit"
        ctx.emit(*ctx.moves(passenger.key, into))
    if helicopter:
        # "A Helicopter in Landed mode is stationary in its hex. If it is a Transport unit,
        # Passengers can load or unload, then it may attempt a Combat Lift-Off" (§9.7.4, §9.9)
        ctx.answer.unit(carrier.key, mp_after=0)
        because(ctx, "9.8.5", f"{passenger.name} unloads and is Ops Complete; {carrier.name} stays Landed in its hex "
                "and may attempt a Combat Lift-Off (§9.9)")
        return
    spent = mp_spent(carrier)
    if spent is None and carrier.status.moving is False:
        spent = 0                           # it has not begun moving (as for a move, §9.0)
    half = need(carrier.current.mp, f"units.{carrier.key}.mp") // 2
    moved = need(spent, f"units.{carrier.key}.status.mp_spent")
    ctx.answer.unit(carrier.key, mp_after=0 if isinstance(moved, int) and moved > 0 else half)
    if isinstance(moved, int) and moved > 0:
        # "if it did move before unloading, it may not move further ... Once the Transport unit
        # has moved ... after unloading, it, too, is marked Ops Complete" (§9.8.2)
        ctx.emit(StatusChanged(carrier.key, "ops_complete", True))
    because(ctx, "9.8.2", f"{passenger.name} unloads and is Ops Complete; the Transport may move "
            + ("no further" if moved else f"up to {half} MPs") + ", then is Ops Complete")


def clear_rubble(ctx: Ctx) -> None:
    """§10.9.1: an Engineer or CEV that began its impulse in the Rubble hex spends all its
    MPs: 2d6 - 3 at or under Morale/Training replaces Rubble with Cleared. Not while a
    Minefield is in the hex. Ops Complete either way."""
    unit = ctx.unit(ctx.action.actor)
    hex_id = ctx.action.target if isinstance(ctx.action.target, str) else unit.hex
    hex_state = ctx.game.hex(need(hex_id, "query.target"))
    if not {"engineer", "cev"} & unit.type.abilities:
        illegal(ctx, "10.9.1", f"{unit.name} is not an Engineer or CEV")
    if "rubble" not in hex_state.markers:
        illegal(ctx, "10.9.1", "there is no Rubble marker to clear")
    if any(m in hex_state.markers for m in MINES):
        illegal(ctx, "10.9.1", "Rubble with a Minefield in it cannot be cleared")
    if unit.hex is not None and unit.hex != hex_state.id:
        illegal(ctx, "10.9.1", f"{unit.name} is not in {hex_state.id}: it clears the Rubble hex it began its impulse in")
    if unit.status.moving or (isinstance(unit.status.mp_spent, int) and unit.status.mp_spent > 0):
        illegal(ctx, "10.9.1", f"{unit.name} has moved: it begins its impulse in the Rubble hex and spends all its "
                "MPs on the Clearing Roll")
    may_act(ctx, unit)                    # a Movement Action (§7.6, §11.0, §7.2.3)
    movement_action_only(ctx, unit, "16.3.2", "makes a Clearing Roll")
    if ctx.answer.legal is False:
        return
    ctx.answer.set("legal", True)
    if not ctx.has_dice("2d6") and ctx.action.passed is None:
        ctx.answer.gap(("passed", "hexes", "units"), "not stated: dice.2d6 (the Clearing Roll)")
        return
    check = check_for(ctx, unit)
    penalty = tables()["clear_rubble_modifier"]
    modify(ctx, "roll", penalty, "the Clearing Roll's \"penalty of -3 to the die roll\", read as written "
           "(subtracted from the 2d6)", "10.9.1")
    if roll(ctx, Check(check.target_number, check.modifier + penalty), section="10.9.1"):
        ctx.emit(MarkerRemoved(hex_state.id, "rubble"), MarkerPlaced(hex_state.id, "cleared"))
        because(ctx, "10.9.1", "the hex is Cleared")
    ctx.emit(StatusChanged(unit.key, "ops_complete", True))


def bonus_formation_entry(ctx: Ctx) -> None:
    """§17.4.3.4: from Turn 3, 1d6 1-3 shuffles a bonus Formation into the deck; 4-6 rolls
    again next turn. Before Turn 3 (a stated turn) there is no roll."""
    defender = ctx.game.facts.get("defender")
    if defender is not None and ctx.action.side is not None and ctx.action.side != defender:
        ctx.answer.set("roll_required", False)
        illegal(ctx, "17.4.3.4", "only the defender has bonus Formations and rolls to bring them on")
        return
    turn = ctx.game.facts.get("turn")
    if turn is not None:
        first = tables()["bonus_entry_first_turn"]
        ctx.answer.set("roll_required", turn >= first)
        if turn < first:
            because(ctx, "17.4.3.4", f"turn {turn}: the defender first rolls at the start of Turn {first}")
            return
    die = ctx.roll(1, "d6")[0]
    enters = die <= tables()["bonus_entry_max"]
    ctx.answer.set("passed", enters)
    because(ctx, "17.4.3.4", f"1d6 {die}: " + ("the bonus Formation enters" if enters else "roll again next turn"))
