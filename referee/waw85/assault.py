"""World At War 85's readings of the Assault Action (§13): who may assault or counterattack,
the §13.1 modifiers, Landed and NOE Helicopters in an Assault (§13.0, §13.2, §9.7),
Passengers unloading into an Assault (§9.8.3) and the retreat hexes (§13.2.2): the hooks
:class:`~referee.waw85.Waw85Ruleset` gives the shared procedure of :mod:`referee.assault`.
"""
from __future__ import annotations

from referee.assault import Numbers, entry_hex, target_hex
from referee.errors import NotStated, NotSupported
from referee.events import PassengerUnloaded, StatusChanged, UnitEliminated, UnitMoved, move_with_riders
from referee.hexes import Hex
from referee.model import AssaultValue, Unit, need
from referee.ruleset import Ctx
from referee.waw85.common import VEHICLES, because, illegal, may_act, off_the_board, tec_line
from referee.waw85.artillery import MINES
from referee.waw85.movement import (barred_by_water, minefield_attacks, minefield_attacks_on_route, minefield_in,
                                    river_crossing, step_cost)
from referee.waw85.transport import STACKING_LIMIT, mp_spent

RIVER_HEXSIDES = frozenset({"bridge", "river"})
INFANTRY_BONUS_TERRAIN = frozenset({"city", "town"})


def helicopter_counter(unit: Unit) -> AssaultValue | None:
    """§13.2: Landed and NOE Helicopters counterattack with their HE FP dice and To-Hit."""
    he = unit.current.he
    if unit.type.target_type == "helicopter" and unit.mode in ("landed", "nap_of_earth") and he is not None:
        return AssaultValue(he.fp, he.to_hit)
    return None


def above_the_assault(ctx: Ctx, unit: Unit) -> str | None:
    """§13.0: "Flying and Hovering Helicopters may not be the target of an Assault. NOE
    Helicopters may only be the target of an Assault if they are in a hex with terrain of
    obstacle height zero (0)" (§9.7.2: above that it flies over the ground units): why
    ``unit`` is out of an Assault's reach, or ``None``."""
    if unit.type.target_type != "helicopter":
        return None
    if unit.mode in ("flying", "hovering"):
        return f"a {unit.mode} Helicopter may not be the target of an Assault"
    if unit.mode == "nap_of_earth" and unit.hex is not None:
        stated = ctx.game.hex(unit.hex).stated
        obstacle, height = stated.get("obstacle_height"), stated.get("unit_height", 0)
        if obstacle is None:
            raise NotStated(f"hexes.{unit.hex}.obstacle_height")
        if obstacle > (height or 0):
            return (f"{unit.name} flies Nap-of-Earth above obstacle height {obstacle}: it may only be assaulted in "
                    "terrain of obstacle height 0 (§9.7.2)")
    return None


def may_be_assaulted(ctx: Ctx, defender: Unit) -> None:
    """§13.0: a unit out of the Assault's reach may not be its target."""
    why = above_the_assault(ctx, defender)
    if why is not None:
        illegal(ctx, "13.0", why)


def assault_entry(ctx: Ctx, attackers: list[Unit], hex_id: str | None) -> list[Unit]:
    """§16.2 "Each unit entering a Minefield hex rolls 1d6": an attacker entering a mined hex
    (not its own side's Placed Minefield; a Helicopter only if Landed, §9.7) is attacked, then
    the §16.2.2 depletion roll; a unit hit "immediately retreats to the hex it entered the
    Minefield from, and is marked Ops Complete", so it does not fight. The others assault."""
    if hex_id is None or minefield_in(ctx, hex_id) is None:
        return attackers
    entered = []
    for unit in attackers:
        if _minefield_gone(ctx, hex_id):
            entered.append(unit)
            continue
        if unit.type.target_type == "helicopter" and unit.mode != "landed":
            because(ctx, "9.7", f"{unit.name}: Helicopters are only affected by minefields if they land in them")
            entered.append(unit)
            continue
        if not minefield_attacks(ctx, unit, hex_id):
            entered.append(unit)
            continue
        back = entry_hex(ctx, unit) or str(unit.hex)
        because(ctx, "16.2", f"{unit.name} enters the Minefield of {hex_id} to assault it: 1d6 for the Minefield")
        # the answer's hits, saves and net hits are the Assault's: the Minefield's are the unit's own
        kept = {k: ctx.answer.values.pop(k) for k in ("hits", "saves", "net_hits") if k in ctx.answer.values}
        stopped = minefield_attacks_on_route(ctx, unit, [back, hex_id], [(1, hex_id)])
        for k in ("hits", "saves", "net_hits"):
            ctx.answer.values.pop(k, None)
        ctx.answer.values.update(kept)
        if not stopped:
            entered.append(unit)
    return entered


def _minefield_gone(ctx: Ctx, hex_id: str) -> bool:
    """A Minefield depleted by an earlier attacker's roll attacks no one after it (§16.2.2)."""
    return minefield_in(ctx, hex_id) is not None and not set(MINES) & set(ctx.after.hex(hex_id).markers)


def assault_attackers(ctx: Ctx, attackers: list[Unit]) -> list[Unit]:
    """Passengers unloading straight into the Assault (§9.8.3), else the attackers named;
    Aircraft may not choose this Action (§13.0)."""
    for unit in attackers:
        if unit.type.target_type == "aircraft":
            illegal(ctx, "13.0", "Aircraft may not assault")
    if ctx.action.cause == "unload":
        return _unload_into_assault(ctx, attackers)
    return attackers


def may_fight(ctx: Ctx, unit: Unit, foes: list[Unit], *, attacking: bool) -> bool:
    """§13.0: an Assault value is needed, and a unit without AP FP or High Rate of Fire HE
    may not assault, nor counterattack, Heavy Armor."""
    verb = "assault" if attacking else "counterattack"
    off_the_board(ctx, unit, "13.0", "attacker" if attacking else "defender")
    stated = [u for u in ctx.action.actors if ctx.game.unit(u).current.assault is not None]
    if unit.current.assault is None and helicopter_counter(unit) is not None and not attacking:
        because(ctx, "13.2", f"{unit.name}: a {unit.mode.replace('_', ' ')} Helicopter counterattacks with its HE FP")
    elif unit.current.assault is None and (ctx.action.hits is not None or (attacking and not stated)):
        because(ctx, "13.0", f"{unit.name}: Assault value not stated; the situation has it fight")
    elif unit.current.assault is None:
        because(ctx, "13.0", f"{unit.name} has no Assault value and may not {verb}")
        return False
    if any(f.type.target_type == "heavy_armor" for f in foes) and unit.current.ap is None \
            and "high_rate_of_fire_he" not in unit.type.abilities:
        illegal(ctx, "13.0", f"{unit.name} has no AP FP nor High Rate of Fire HE: may not "
                f"{verb} Heavy Armor")
        return False
    if attacking:
        may_act(ctx, unit, done=False, command=False)    # the move into the hex (§11.0); the rest in §13.0's checks
        if unit.carried_by is not None and not _may_unload_into(ctx, unit):
            return False
        _movement(ctx, unit, target_hex(ctx, foes))
    return True


def _may_unload_into(ctx: Ctx, passenger: Unit) -> bool:
    """§9.8: "Non-Towed Passengers may unload directly into an Assault"; §9.8.3: "Passengers
    not transported by Helicopter Transports may unload into an enemy occupied hex adjacent to
    their Transport unit", as part of the Transport's Movement Action (§9.8.2)."""
    carrier = ctx.game.unit(passenger.carried_by)
    if "towed" in passenger.type.abilities:
        illegal(ctx, "9.8", f"{passenger.name} is Towed: only Non-Towed Passengers unload directly into an Assault")
        return False
    if carrier.type.target_type == "helicopter":
        illegal(ctx, "9.8.3", f"{passenger.name} is carried by a Helicopter Transport: it may not unload into an "
                "enemy occupied hex")
        return False
    # the unloading is part of the Transport's Movement Action (§9.8): it may still act, and has
    # moved at most half its MPs (§9.8.2 "The Transport unit may remain in its hex, or it can move
    # up to half its Movement Points, and then the Passenger may unload")
    may_act(ctx, carrier)
    spent = mp_spent(carrier)
    if isinstance(spent, int) and isinstance(carrier.current.mp, int) and spent > carrier.current.mp // 2:
        illegal(ctx, "9.8.2", f"{carrier.name} moved {spent} MPs: a Transport moves at most half its MPs "
                f"({carrier.current.mp // 2}) before its Passengers unload")
    # "into an enemy occupied hex adjacent to their Transport unit" (§9.8.3)
    hex_id = ctx.action.target if isinstance(ctx.action.target, str) and ctx.action.target in ctx.game.hexes else None
    far = ctx.game.hex(hex_id).stated.get("distance") if hex_id is not None else None
    if isinstance(far, int) and far > 1:
        illegal(ctx, "9.8.3", f"{hex_id} is {far} hexes away: Passengers unload into an enemy hex adjacent to their "
                "Transport unit")
    return ctx.answer.legal is not False


def _assault_hqs(ctx: Ctx, unit: Unit, attacking: bool) -> list[Unit]:
    """§13.1.1 "Increase your unit's Assault FP dice by your HQ's Command Bonus": the HQ named
    for the attacker (``bonus_from``) or deployed to the unit (an HQ stacked on it), on either
    side of the Assault; a Leader's bonus is for fire only (§1.9.13)."""
    named = [ctx.game.unit(k) for k in ctx.action.bonus_from or ()] \
        if attacking or ctx.action.kind == "counterattack" else []
    for giver in [g for g in named if g.type.target_type == "leader"]:
        because(ctx, "13.1.1", f"{giver.name} is a Leader: its Command Bonus is for fire, not for an Assault (§1.9.13)")
    named = [g for g in named if g.type.target_type != "leader"]
    for giver in [g for g in named if g.side and unit.side and g.side != unit.side]:
        illegal(ctx, "13.1.1", f"{giver.name} is an enemy HQ: it gives no Command Bonus to {unit.name}")
    for giver in [g for g in named if not g.on_map]:
        because(ctx, "13.1.1", f"{giver.name} is in the {giver.location.replace('_', ' ')}: it is not {unit.name}'s "
                "HQ in the Assault, no Command Bonus")
    named = [g for g in named if g.on_map and not (g.side and unit.side and g.side != unit.side)]
    deployed = [u for u in ctx.game.units.values() if u.attached_to == unit.key and u.type.target_type == "hq"
                and u.on_map and u.key not in {g.key for g in named}]
    return named + deployed


def numbers(ctx: Ctx, unit: Unit, foes: list[Unit], hex_id: str | None, *, attacking: bool) -> Numbers:
    """Assault FP dice and To-Hit with §13.0 (Disrupted counterattack at 6) and §13.1."""
    value = unit.current.assault or (None if attacking else helicopter_counter(unit))
    if value is None:
        raise NotStated(f"units.{unit.key}.assault")
    fp, to_hit = value.fp, value.to_hit
    disrupted = unit.status.disrupted
    fp_mod, hit_mod = 0, 0
    for giver in _assault_hqs(ctx, unit, attacking):
        bonus = need(giver.leadership, f"units.{giver.key}.leadership")
        fp_mod += bonus
        because(ctx, "13.1.1", f"{giver.name} Command Bonus: Assault FP +{bonus}")
    if not attacking and disrupted:
        # §13.0 fixes the To-Hit at 6; §13.1.1's HQ dice are not limited to Undisrupted units
        # (§13.1.2-§13.1.4 are: they name Undisrupted units or an Undisrupted enemy)
        because(ctx, "13.0", f"{unit.name} is Disrupted: counterattacks at To-Hit 6")
        return Numbers(None if fp is None else max(fp + fp_mod, 0), 6)
    if unit.type.target_type == "troops" and not disrupted and foes:
        # "versus enemy vehicles either alone or in a stack with no Infantry of their side":
        # the whole enemy stack counts, not only the unit named
        sides = {f.side for f in foes}
        ours = set(ctx.action.actors) | {unit.key}
        stack = [u for h in {f.hex for f in foes} - {None} for u in ctx.game.stack(h)
                 if u.key not in ours and u.type.target_type not in ("hq", "leader", "support_weapon")
                 and u.carried_by is None and u.side in sides]
        kinds = [f.type.target_type for f in {u.key: u for u in [*foes, *stack]}.values()]
        if None in kinds:
            raise NotStated("units.<defender>.target_type")
        if all(k in VEHICLES for k in kinds):
            hit_mod -= 1
            because(ctx, "13.1.2", f"{unit.name}: Infantry against vehicles alone, To-Hit -1")
            # a rubbled City or Town uses the Rubble line of the TEC for all purposes (§10.9)
            terrain = need(tec_line(ctx.game.hex(hex_id)) if hex_id else None, "hexes.<assault hex>.terrain")
            if terrain in INFANTRY_BONUS_TERRAIN:
                fp_mod += 1
                because(ctx, "13.1.2", f"{unit.name}: and in a {terrain.title()} hex, Assault FP +1")
    if ctx.game.facts.get("hexside") in RIVER_HEXSIDES:
        # "An Assault against an Undisrupted enemy unit": any Undisrupted unit of the defending
        # stack, whatever its place in the stack (**Choice**: the text does not say whether a
        # stack with one Disrupted unit is such an Assault; any Undisrupted defender makes it one)
        undisrupted = any(not f.status.disrupted for f in foes) if attacking else not unit.status.disrupted
        if undisrupted:
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
    return Numbers(None if fp is None else max(fp + fp_mod, 0),
                   None if to_hit is None else min(to_hit + hit_mod, 6))


def _movement(ctx: Ctx, unit: Unit, hex_id: str | None) -> None:
    """§13.0 note: MPs enough to enter the target hex, or Ops Complete one hex short;
    §9.5: an amphibious River crossing spends every MP."""
    refused = ctx.answer.legal is False
    crossing = river_crossing(ctx, unit)
    if crossing is not None:            # "This must be a Movement Action, or Assault" (§9.5)
        ctx.answer.set("cost", crossing)
        ctx.emit(StatusChanged(unit.key, "ops_complete", True))
        return
    if ctx.answer.legal is False and not refused:
        return                          # a River it may not cross
    left = unit.status.mp_left
    if left is None and isinstance(unit.status.mp_spent, int) and unit.current.mp is not None:
        left = unit.current.mp - unit.status.mp_spent
    if _charted_route(ctx, unit, hex_id, left):
        return
    if hex_id is None or left is None:
        return
    cost = ctx.game.hex(hex_id).mp_cost
    if cost is None:
        return
    if left < cost:
        illegal(ctx, "13.0", f"{unit.name} has {left} MP left, entering costs {cost}")
        ctx.emit(StatusChanged(unit.key, "ops_complete", True))


def _charted_route(ctx: Ctx, unit: Unit, hex_id: str | None, left: int | None) -> bool:
    """§13.0 "A unit selecting this Action may Move up to its full MP allowance to reach and
    enter its intended target hex": along ``path`` on a charted board, the route and then the
    target hex are priced as a move (§9.0). A route beyond its MPs is refused; MPs for the
    route but not for the target hex: "the Assault does not take place ... the unit is marked
    Ops Complete in the last hex before it entered the target hex". Returns whether it priced it."""
    route = list(ctx.action.path or ())
    if not route or hex_id is None or unit.hex is None or unit.type.target_type == "helicopter" \
            or ctx.action.cause == "unload":
        return False
    if not all("tec_mp" in ctx.game.hex(h).stated for h in [*route, hex_id]):
        return False
    if left is None:
        left = need(unit.current.mp, f"units.{unit.key}.mp")
    mover = "vehicle" if unit.type.is_vehicle else "infantry"
    spent, steps, previous = 0, [], unit.hex
    for step in route:
        cost, text = step_cost(ctx, mover, previous, step)
        spent, previous = spent + cost, step
        steps.append(text)
    entering, text = step_cost(ctx, mover, previous, hex_id)
    because(ctx, "9.0", f"{spent} MP to {route[-1]}: " + "; ".join(steps) + f"; then {text}")
    if spent > left:
        illegal(ctx, "13.0", f"{unit.name} has {left} MP: the route to {route[-1]} costs {spent}, so it cannot "
                f"reach the target hex (§9.0)")
    elif spent + entering > left:
        illegal(ctx, "13.0", f"{unit.name} has {left - spent} MP left at {route[-1]}, entering {hex_id} costs "
                f"{entering}: the Assault does not take place, and it is Ops Complete in {route[-1]}")
        ctx.emit(*move_with_riders(ctx.game, unit.key, route[-1]), StatusChanged(unit.key, "ops_complete", True))
    return True


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
        if ctx.answer.legal is not False:
            ctx.emit(PassengerUnloaded(unit.key))       # "an unloaded Passenger ... remains in a Transport unit's hex"
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


def retreat_hexes(ctx: Ctx, defenders: list[Unit], attackers: list[Unit], came_from: Hex) -> list[str]:
    """§13.2.2: one of the three hexes opposite the hexside the attacker entered from; not
    enemy-occupied, not already full of friends, not Prohibited by the TEC (a stated fact)."""
    return _open_neighbours(ctx, defenders, lambda cell: cell.distance(came_from) == 2)


def _open_neighbours(ctx: Ctx, defenders: list[Unit], toward) -> list[str]:
    """The map hexes next to the defenders' that ``toward`` keeps and §13.2.2 lets them enter
    together: no enemy in it, not already full of friends, not Prohibited (a stated fact; a
    Fire hex for a Helicopter, §9.7)."""
    here = ctx.game.hex(defenders[0].hex).at
    by_at = {h.at: h.id for h in ctx.game.hexes.values() if h.at is not None}
    side = defenders[0].side
    legal = []
    for cell in here.neighbors():
        hex_id = by_at.get(cell)
        if hex_id is None or not toward(cell):
            continue
        stack = ctx.game.stack(hex_id)
        if any(u.side and side and u.side != side for u in stack):
            continue
        friends = [u for u in stack if u.carried_by is None and u.type.target_type not in ("hq", "leader", "support_weapon")]
        if len(friends) + len(defenders) > STACKING_LIMIT:
            continue
        if ctx.game.hex(hex_id).stated.get("prohibited") or _into_fire(ctx, defenders, hex_id):
            continue
        legal.append(hex_id)
    return legal


def _into_fire(ctx: Ctx, units: list[Unit], hex_id: str) -> list[str]:
    """§9.7: "Helicopters are prohibited from entering or remaining in hexes containing Fire
    markers": the Helicopters of ``units`` a Fire in ``hex_id`` bars."""
    if "fire" not in ctx.after.hex(hex_id).markers:
        return []
    return [u.name for u in units if u.type.target_type == "helicopter"]


def fire_retreat_fits(ctx: Ctx, fire_hex: str):
    """Where units retreat out of a new Fire hex "as if they had lost an Assault Action"
    (§10.9, §2.3.4.4, §9.7 with §13.2.2). There is no attacker, so no hexside it entered by:
    **choice**: any adjacent hex the other §13.2.2 limits allow (not enemy-occupied, not full
    of friends, not Prohibited, no Fire for a Helicopter). On the map its neighbours; else the
    hexes stated ``adjacent_to`` the Fire hex, by their stated facts; ``None`` when neither says."""
    if ctx.game.hex(fire_hex).at is not None:
        return lambda group: _open_neighbours(ctx, group, lambda cell: True)
    near = [h for h, hx in ctx.game.hexes.items() if h != fire_hex and fire_hex in (hx.stated.get("adjacent_to") or ())]
    if not near:
        return None
    return lambda group: [h for h in near if not _refusals(ctx, group, h, attacker=False)]


def _refusals(ctx: Ctx, units: list[Unit], hex_id: str, *, attacker: bool = True) -> list[str] | None:
    """Why ``units`` may not retreat together into ``hex_id`` by its stated facts (§13.2.2),
    or ``None`` when the hex does not state them: not a hex opposite the attacker, an enemy
    in it, friends already up to the stacking limit, Prohibited terrain."""
    stated = ctx.game.hex(hex_id).stated
    listed = [u for u in ctx.game.stack(hex_id) if u.key not in {m.key for m in units}]
    side = units[0].side
    away = need(stated.get("away_from_attacker"), f"hexes.{hex_id}.away_from_attacker") if attacker else True
    enemies = (stated.get("enemy_units") or 0) + sum(1 for u in listed if u.side and side and u.side != side)
    if "enemy_units" not in stated and not enemies:
        raise NotStated(f"hexes.{hex_id}.enemy_units")
    friends = [u for u in listed if not (u.side and side and u.side != side) and u.carried_by is None
               and u.type.target_type not in ("hq", "leader", "support_weapon")]
    if "friendly_units" not in stated and not friends and not enemies:
        raise NotStated(f"hexes.{hex_id}.friendly_units")
    moving = [u for u in units if u.type.target_type not in ("hq", "leader", "support_weapon")]
    why = []
    if not away:
        why.append("a retreat goes into one of the three hexes opposite the attacker")
    if enemies:
        why.append("a retreat may not enter an enemy-occupied hex")
    if (stated.get("friendly_units") or 0) + len(friends) + len(moving) > STACKING_LIMIT:
        why.append("a retreat may not overstack a friendly hex"
                   + (f" ({len(moving)} retreating units)" if len(moving) > 1 else ""))
    if stated.get("prohibited"):
        why.append("a retreat may not enter Prohibited terrain")
    burning = _into_fire(ctx, units, hex_id)
    if burning:
        why.append(f"Helicopters are prohibited from entering hexes containing Fire markers: {', '.join(burning)} "
                   "(§9.7)")
    wet = [u.name for u in units if barred_by_water(ctx, u, hex_id)]
    if wet:
        why.append(f"a retreat may not enter a hex it is Prohibited from entering: {', '.join(wet)} may not enter "
                   f"{ctx.game.hex(hex_id).terrain} (§1.9.8)")
    return why


def stated_retreat_hexes(ctx: Ctx, units: list[Unit]) -> list[str] | None:
    """§13.2.2 without a map: the hexes stated to lie opposite the attacker's entry hexside
    (``away_from_attacker``) that ``units`` may enter together; ``None`` when no hex says."""
    candidates = [h for h, hx in ctx.game.hexes.items() if hx.stated.get("away_from_attacker") is not None
                  and h not in {u.hex for u in units}]
    if not candidates:
        return None
    return [h for h in candidates if not _refusals(ctx, units, h)]


def retreat_check(ctx: Ctx) -> None:
    """§13.2.2: into one of the three hexes opposite the attacker's entry hexside, not
    enemy-occupied, not full of friends, not Prohibited; no Opportunity Fire. A unit with
    nowhere to go is eliminated. ``query.unit`` may be a stack: into one hex it must fit
    whole; with no hex named, each of its units retreats on its own where it can."""
    units = [ctx.unit(k) for k in ctx.action.actors] or [ctx.unit(None)]
    hex_id = ctx.action.target if isinstance(ctx.action.target, str) else None
    if hex_id is None:
        from referee.assault import apply_retreat, retreat_plans
        if ctx.game.facts.get("retreat_possible") is False:
            plans = [{u.key: None for u in units}]
        else:
            if stated_retreat_hexes(ctx, units) is None:
                raise NotStated("query.target (the retreat hex) or situation.retreat_possible")
            plans = retreat_plans(units, lambda group: stated_retreat_hexes(ctx, group) or [])
            if plans is None:
                raise NotSupported("WaW85 §13.2.2", f"splitting a retreating stack of {len(units)}")
        ctx.answer.set("triggers_opportunity_fire", False)
        apply_retreat(ctx, units, plans)
        return
    for why in _refusals(ctx, units, hex_id) or ():
        illegal(ctx, "13.2.2", why)
    if ctx.answer.legal is None:
        ctx.answer.set("legal", True)
        moved = {u.key for u in units}
        for unit in units:
            ctx.emit(UnitMoved(unit.key, hex_id))
            # what is stacked on it or carried by it retreats with it (§9.2, §9.8.1, §13.1.1)
            for rider in ctx.riders(unit.key):
                if rider.key not in moved and rider.hex != hex_id:
                    moved.add(rider.key)
                    ctx.emit(UnitMoved(rider.key, hex_id))
    ctx.answer.set("triggers_opportunity_fire", False)
    because(ctx, "13.2.2", "units retreating from an Assault do not trigger Opportunity Fire")
