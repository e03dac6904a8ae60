"""Movement (§5): terrain costs (TEC: roads, hills from ground level, bridges, the MTU-54),
Chemical and Mines markers next to the route (§8.3, §8.4), road bonuses, Disrupted
movement (§6.1.7), helicopters (§9.1), loading and unloading (§5.2), and stacking (§1.4)
at every hex entered."""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

import yaml

from referee.classic.ranged import NO_OPPORTUNITY_FIRE, may_opportunity_fire
from referee.disrupted import disrupted_move
from referee.errors import NotStated
from referee.events import PassengerLoaded, PassengerUnloaded, StatusChanged, UnitDisrupted, UnitMoved
from referee.headquarters import companion_text, hqs_alone, lone_hqs
from referee.model import Unit, need
from referee.ruleset import Ctx
from referee import situation
from referee.verdict import Answer
from referee.tec import DATA

UNCOUNTED = ("helicopter", "hq", "support_weapon", "leader", "aircraft")
HILLS = ("hill", "wooded_hill")
#: The ability of a Bridge unit (MTU-54, 001 §1.3.4.6).
BRIDGE = "bridge"


def _route(ctx: Ctx) -> list[str]:
    """The hexes entered, in order: ``path`` (without the start hex), else ``target``."""
    if ctx.action.path:
        return list(ctx.action.path)
    target = ctx.action.target
    if isinstance(target, str):
        return [ctx.game.unit(target).hex if target in ctx.game.units else target]
    return []


def _leader_movement(ctx: Ctx, unit: Unit) -> int:
    bonus = 0
    for key in ctx.action.bonus_from or ():
        giver = ctx.game.unit(key)
        if giver.type.target_type == "leader" and ctx.action.choice in (None, "movement"):
            ctx.params.require("leaders", "001 §1.3.6")
            if giver.attached_to != unit.key or not giver.on_map:
                ctx.answer.illegal("001 §1.3.6", f"{giver.name} is not with {unit.name}: a leader alters only his "
                                   "own platoon's values")
                continue
            bonus += need(giver.leadership, f"units.{key}.leadership")
    if bonus:
        ctx.answer.modify("mp", bonus, "leader adds to movement", "001 §1.3.6")
    return bonus


@lru_cache(maxsize=None)
def _climb_costs(tec: str) -> dict[str, int]:
    """The TEC's "+1 when entering from ground level" (``mp_from_ground``) by terrain row."""
    raw = yaml.safe_load((DATA / f"{tec}_tec.yaml").read_text(encoding="utf-8"))
    return {name: int(row["mp_from_ground"]) for name, row in raw["rows"].items() if row.get("mp_from_ground")}


def _deployed_bridge(ctx: Ctx, hex_id: str) -> Unit | None:
    """A deployed Bridge unit (MTU-54, 001 §1.3.4.6) in the hex, if any."""
    return next((u for u in ctx.game.stack(hex_id) if BRIDGE in u.type.abilities and u.mode == "deployed"), None)


def _amphibious(ctx: Ctx, unit: Unit) -> bool:
    """TUS §5.3: "Units with a green movement factor are capable of moving into river and lake
    hexes". Eisenbach Gap has no such rule: its TEC reads "No movement" for Lake and River."""
    if "amphibious" not in unit.type.abilities:
        return False
    if not ctx.params.has("amphibious"):
        ctx.answer.because("002 TEC", f"{unit.name} is amphibious, but amphibious movement (TUS §5.3) is not a rule "
                           "of this book: Lake and River allow no movement")
        return False
    return True


def entry_cost(ctx: Ctx, unit: Unit, hex_id: str, previous: str | None) -> int | None:
    """MP to enter one hex (TEC), or ``None`` when the terrain forbids it."""
    hex_state = ctx.game.hex(hex_id)
    if hex_state.mp_cost is not None:
        return hex_state.mp_cost
    bridge = _deployed_bridge(ctx, hex_id)
    if bridge is not None and unit.key != bridge.key:
        ctx.params.require("bridge_units", "001 §1.3.4.6")
        cost = 3 if bridge.status.disrupted else 2
        ctx.answer.because("001 §1.3.4.6", f"onto the deployed {bridge.name} in {hex_id}: {cost} MP"
                           + (" (the bridge is disrupted)" if bridge.status.disrupted else ""))
        return cost
    row = ctx.tec.terrain(hex_state.terrain)
    if BRIDGE in unit.type.abilities and row.name in ("river", "stream"):
        ctx.params.require("bridge_units", "001 §1.3.4.6")
        ctx.answer.because("001 §1.3.4.6", f"{unit.name} moves onto the {row.name}: 2 MP")
        return 2
    if row.name == "bridge" and previous is not None and not ({"road", "bridge"} & (
            ctx.game.hex(previous).features | {ctx.game.hex(previous).terrain or ""})):
        ctx.answer.because("002 TEC Bridge", f"{hex_id} is a bridge: it must be entered from an adjacent road hex")
        return None
    mover = "vehicle" if unit.type.is_vehicle else "infantry"
    cost = need((row.mp or {}).get(mover), f"TEC {row.name} cost for {mover}")
    if cost == "none":
        if _amphibious(ctx, unit):
            ctx.answer.because("001 §5.3", "amphibious: entering water ends the move")
            return need(unit.current.mp, f"units.{unit.key}.mp")
        return None
    if previous is not None:
        from referee.situation import side_features
        side = side_features(ctx.game, ctx.game.hex(previous), hex_state)
        if "river" in side and not side & {"bridge", "ford"}:
            if not _amphibious(ctx, unit):
                return None
            ctx.answer.because("001 §5.3", "amphibious: crossing the river ends the move")
            return need(unit.current.mp, f"units.{unit.key}.mp")
    from referee.situation import road_between
    road = ("road" in hex_state.features and bool(ctx.game.facts.get("road"))) or (
        previous is not None and road_between(ctx.game, ctx.game.hex(previous), hex_state))
    if road:
        return 1
    climb = _climb_costs(ctx.params.tec).get(row.name, 0)
    if climb and previous is not None:
        below = ctx.game.hex(previous).terrain
        if below is None:
            raise NotStated(f"hexes.{previous}.terrain (is {hex_id} entered from ground level?)")
        if below not in HILLS:
            ctx.answer.because("002 TEC", f"{hex_id} ({row.name.replace('_', ' ')}) entered from ground "
                               f"level: +{climb} MP")
            return cost + climb
    return cost


def move(ctx: Ctx) -> None:
    """§5: pay the TEC cost of each hex entered, within the Movement Factor; moving
    units are marked Ops Complete. Several units named together move as a stack (§5.1),
    an HQ only with a unit of its Formation stacked with it (§1.3.3.1)."""
    units = [ctx.unit(key) for key in ctx.action.actors] or [ctx.unit(None)]
    leaders = [u for u in units if u.type.target_type == "leader"]
    if leaders:
        _leader_move(ctx, leaders, [u for u in units if u.type.target_type != "leader"])
        return
    _hqs_left_behind(ctx, units)
    hqs = [u for u in units if u.type.target_type == "hq"]
    if hqs:
        _hq_move(ctx, hqs, [u for u in units if u.type.target_type != "hq"])
    elif len(units) > 1:
        _stack_move(ctx, units)
    else:
        _unit_move(ctx)


def _hqs_left_behind(ctx: Ctx, movers: list[Unit]) -> None:
    """§1.3.3.1: "Headquarters must remain in a hex with a unit or units of its formation": a
    move may not leave an HQ (that stays behind) without such a unit in the hex it leaves.
    An HQ already alone before the move is the position's fault, not this move's."""
    moving = {u.key for u in movers} | {r.key for u in movers for r in ctx.riders(u.key)}
    for hex_id in sorted({u.hex for u in movers if u.hex is not None}):
        before = ctx.game.stack(hex_id)
        was_alone = {hq.key for hq in hqs_alone(ctx, before)}
        for hq in hqs_alone(ctx, [u for u in before if u.key not in moving]):
            if hq.key not in was_alone:
                ctx.answer.illegal(ctx.rules.section("hq_companions"),
                                   f"{hq.name} would be left alone in {hex_id}: an HQ must remain in a hex with "
                                   f"{companion_text(ctx, hq)}")


def _leader_move(ctx: Ctx, leaders: list[Unit], movers: list[Unit]) -> None:
    """001 §1.3.6: a leader is "assigned to, and remain[s] with, one platoon": he moves only
    with it, and goes where it goes."""
    ctx.params.require("leaders", "001 §1.3.6")
    ans = ctx.answer
    for leader in leaders:
        if not any(m.key == leader.attached_to for m in movers):
            ans.illegal("001 §1.3.6", f"{leader.name} remains with the platoon he is assigned to: he moves only "
                        "with it")
    if ans.legal is False or not movers:
        return
    rest = replace(ctx.action, unit=movers[0].key if len(movers) == 1 else tuple(m.key for m in movers))
    move(Ctx(ctx.rules, ctx.game, rest, ctx.dice, ans))
    if ans.legal:
        destination = _route(ctx)[-1]
        for leader in leaders:                  # his UnitMoved is his platoon's rider's
            ans.because("001 §1.3.6", f"{leader.name} goes with his platoon to {destination}")


def _hq_move(ctx: Ctx, hqs: list[Unit], movers: list[Unit]) -> None:
    """§1.3.3.1: "Headquarters must remain in a hex with a unit or units of its formation, may
    only move when accompanied by a unit or units of its formation"; "HQs NOT marked with an
    Ops Complete marker can move normally with the units with which they are stacked". The
    units pay the move (§5.0); each HQ goes with them. (EG §1.3.3.1 says "of its own type"
    where TUS says "of its formation"; EG's §6.3 example stacks a BTR-80 platoon with a T-55
    HQ, so both books are read as "of its Formation".) An HQ named alone is refused, its
    route still priced (what a log's cheapest route asks)."""
    ans = ctx.answer
    for hq in hqs:
        if hq.status.ops_complete:
            ans.illegal("§1.3.3.1", f"{hq.name} is Ops Complete: an HQ moves with its units only when not "
                        "marked Ops Complete")
        formation = need(hq.formation, f"units.{hq.key}.formation")
        if not any(m.formation == formation and m.hex == hq.hex for m in movers):
            ans.illegal("§1.3.3.1", f"{hq.name} may move only accompanied by a unit of its Formation "
                        "stacked with it")
    route = _route(ctx)
    if route:
        moving = {hq.key for hq in hqs}       # §1.3.3: "no more than one HQ can be in a hex"
        others = [u for u in ctx.game.stack(route[-1]) if u.type.target_type == "hq" and u.key not in moving]
        if others:
            ans.illegal("§1.3.3", f"{route[-1]} already holds {others[0].name}: no more than one HQ can be in a hex")
    if not movers:
        alone = Answer(ans.action, ans.book)
        _unit_move(Ctx(ctx.rules, ctx.game, replace(ctx.action, unit=hqs[0].key), None, alone))
        if isinstance(alone.values.get("cost"), int):
            ans.set("cost", alone.values["cost"])
        return
    _stack_move(ctx, movers)
    if ans.legal:
        destination = _route(ctx)[-1]
        for hq in hqs:
            ans.because("§1.3.3.1", f"{hq.name} moves with its Formation's units to {destination}")
            ctx.emit(UnitMoved(hq.key, destination), StatusChanged(hq.key, "ops_complete", True),
                     StatusChanged(hq.key, "moving", True))


def _stack_move(ctx: Ctx, movers: list[Unit]) -> None:
    """§5.1: "Units that begin the Formation impulse stacked together can move together":
    each pays its own way (§5.0), one after the other into the same hexes, so stacking
    (§1.4) counts the ones already there. Legal when every unit's move is; the ``cost`` is
    the dearest unit's, each unit's own in its unit values."""
    ans = ctx.answer
    if len({u.hex for u in movers}) > 1:
        ans.illegal("§5.1", "units move together only when they begin the impulse stacked together")
        return
    game, answers = ctx.game, []
    for mover in movers:
        own = Answer(ans.action, ans.book)
        _unit_move(Ctx(ctx.rules, game, replace(ctx.action, unit=mover.key), ctx.dice, own))
        answers.append(own)
        route = _route(ctx)
        if route:
            game = game.with_unit(replace(game.unit(mover.key), hex=route[-1]))
    for own in answers:
        for reason in own.reasons:
            (ans.illegal if reason in own.refusals else ans.because)(reason.section, reason.text)
        ans.modifiers.extend(own.modifiers)
        ans.rolls.extend(own.rolls)
        ans.gaps.update(own.gaps)
        for key, values in own.unit_values.items():
            ans.unit(key, **values)
    costs = {mover.key: own.values.get("cost") for mover, own in zip(movers, answers)}
    for key, cost in costs.items():
        if isinstance(cost, int):
            ans.unit(key, cost=cost)
    if all(isinstance(c, int) for c in costs.values()):
        ans.set("cost", max(costs.values()))
    if all(own.legal for own in answers) and ans.legal is None:
        ans.set("legal", True)
        for own in answers:
            ctx.emit(*own.events)


def may_move(ctx: Ctx, unit: Unit) -> None:
    """Refusals of a unit that may not move this impulse: Out of Command (§4.2), Ops Complete
    (§4.4), or having fired (§6.1, §5.0). Loading and unloading are movement too (§5.2)."""
    ans = ctx.answer
    if unit.status.out_of_command:
        ans.illegal("§4.2", f"{unit.name} is Out of Command and cannot move")
    if unit.status.ops_complete:
        ans.illegal("§4.4", f"{unit.name} is Ops Complete")
    elif unit.status.fired:
        ans.illegal("§6.1, §5.0", f"{unit.name} fired this impulse: a unit making a ranged attack is marked Ops "
                    "Complete, and fire comes after movement (Moving Fire, §6.1.3)")


def _unit_move(ctx: Ctx) -> None:
    """One unit's move (§5.0)."""
    ans = ctx.answer
    unit = ctx.unit(ctx.action.actor)
    may_move(ctx, unit)
    if unit.type.target_type == "helicopter":
        _helicopter_move(ctx, unit, _route(ctx))
        return
    if "towed" in unit.type.abilities and unit.carried_by is None:
        ctx.params.require("towed_transport", "001 §5.2.5")
        ans.illegal("001 §5.2.5", f"{unit.name} has a \"T\" Movement Factor: it cannot move, only be transported")
        return
    bonus = _leader_movement(ctx, unit)
    if unit.name in ctx.params.road_bonus_units and ctx.game.facts.get("road"):
        spent = need(unit.status.mp_spent, f"units.{unit.key}.status.mp_spent")
        if not isinstance(spent, int):
            raise NotStated(f"units.{unit.key}.status.mp_spent (a number)")
        bonus += spent // 2
        ans.set("modifiers", {"mp": spent // 2})
        ans.because("001 §1.3.1.1", f"{spent} MP on connecting roads: +{spent // 2} MP")
    if unit.current.mp is not None:
        ans.unit(unit.key, mp_max=unit.current.mp + bonus)
    route = _route(ctx)
    if not route:
        return
    total, previous = 0, unit.hex
    for index, hex_id in enumerate(route):
        if _enemies_in(ctx, unit, hex_id):
            # §5.1: "Units can enter an enemy-occupied hex ..., but in doing so initiate
            # Assault or Overrun combat": a plain move never ends in (or passes) one
            ans.illegal("§5.1", f"{hex_id} holds enemy units: entering it is an Assault or an Overrun, "
                        "declared as one (action assault or overrun)")
            return
        if index < len(route) - 1:
            check_stacking(ctx, unit, hex_id, passing=True)
        cloud = _chemical_near(ctx, hex_id)
        if cloud is not None:
            where = f"in {hex_id}" if cloud == hex_id else f"in {cloud}, next to {hex_id}"
            ans.modify("cost", 2, f"Chemical marker {where}", "§8.4")
            total += 2
        cost = ctx.stage("cost", lambda h=hex_id, p=previous: entry_cost(ctx, unit, h, p))
        if "cost" in ans.gaps:
            return
        if cost is None:
            ans.illegal("002 TEC", f"{unit.name} cannot enter {hex_id}")
            return
        total += cost
        previous = hex_id
    ans.set("cost", total)
    check_stacking(ctx, unit, route[-1])
    if unit.status.disrupted:
        ctx.stage("legal", lambda: disrupted_move(ctx, unit, route))
    bounds = _mp_left(unit, bonus)
    left = bounds[1] if bounds is not None else None
    if left is not None and total > left:
        if isinstance(unit.status.mp_left, int):
            ans.illegal("§5.0", f"{total} MP is more than the {left} MP left this impulse")
        else:
            mf = unit.current.mp + bonus
            ans.illegal("§5.0", f"{mf - left + total} MP is more than the Movement Factor {mf}")
    elif bounds is not None and total > bounds[0]:
        raise NotStated(f"units.{unit.key}.status.mp_spent (as a number: {total} MP may or may not exceed the MF)")
    if ans.legal is None and left is not None:
        ctx.stage("mines_attacks", lambda: _mines(ctx, unit, route))
    if ans.legal is None and left is not None:
        ans.set("legal", True)
        if bounds[0] == bounds[1]:
            ans.unit(unit.key, mp_after=left - total)
        opportunity_trigger(ctx, unit)
        # still moving for the rest of this run: the enemy may Opportunity Fire as it enters
        # the hex (§6.2); no marker shows it, so the save keeps only the move and Ops Complete
        # its Passengers, SWs and leader go with it; an HQ deployed with it only when moved
        # with it (§5.2, §1.3.5, 001 §1.3.6, §1.3.3.1: Game.riders)
        ctx.emit(*ctx.moves(unit.key, route[-1]),
                 StatusChanged(unit.key, "ops_complete", True), StatusChanged(unit.key, "moving", True))


def _mp_left(unit: Unit, bonus: int) -> tuple[int, int] | None:
    """§5.0 "units can move up to, but not exceed, their MF": the least and the most MPs
    still unspent this impulse, as stated (``mp_left``) or as the MF (with a leader's bonus)
    less the MPs spent, a number or the book's "up to half" / "more than half"; None when
    neither is known."""
    if isinstance(unit.status.mp_left, int):
        return unit.status.mp_left, unit.status.mp_left
    if unit.current.mp is None:
        return None
    mf, half = unit.current.mp + bonus, unit.current.mp // 2
    spent = unit.status.mp_spent
    if spent == "up_to_half":
        return mf - half, mf
    if spent == "more_than_half":
        return 0, mf - half - 1
    spent = spent if isinstance(spent, int) else 0
    return mf - spent, mf - spent


def _mines(ctx: Ctx, unit: Unit, route: list[str]) -> None:
    """002 §8.3, 001 §12.2: a Mines marker attacks every unit entering its hex or one of its six
    neighbours, at each such hex. ``mines_attacks`` lists the Mines hexes in order; with dice
    each attack is rolled, and a unit disrupted on the way moves on under §6.1.7."""
    from referee.classic.artillery import mines_attack
    fields = [h for h in ctx.game.hexes.values() if "mines" in h.markers]
    if not fields:
        return
    attacks: list[tuple[int, str]] = []
    for index, hex_id in enumerate(route):
        here = ctx.game.hex(hex_id).at
        for mined in fields:
            if mined.id != hex_id and (here is None or mined.at is None):
                raise NotStated(f"positions of {hex_id} and the Mines hex {mined.id}")
            if mined.id == hex_id or here.distance(mined.at) == 1:
                attacks.append((index, mined.id))
    ctx.answer.set("mines_attacks", [mined for _, mined in attacks])
    if ctx.dice is None or not attacks:
        return
    cleared: set[str] = set()
    for index, mined in attacks:
        if mined in cleared:
            continue
        was = ctx.answer.events[:]
        if mines_attack(ctx, unit, mined, "mines"):
            cleared.add(mined)
        hit = any(isinstance(e, UnitDisrupted) for e in ctx.answer.events[len(was):])
        if hit and index < len(route) - 1:
            moved = unit.with_status(disrupted=True)
            moved = replace(moved, hex=route[index])
            probe = ctx.probe(ctx.game.with_unit(moved))
            ctx.answer.because("§6.1.7", f"disrupted by the Mines in {mined}: the rest of the move is Disrupted movement")
            disrupted_move(probe, moved, route[index + 1:])
            if ctx.answer.legal is False:
                return


def _helicopter_move(ctx: Ctx, unit: Unit, route: list[str]) -> None:
    """§9.1: helicopters move hex by hex in Flying mode only, ignoring terrain costs, with no
    Movement Factor limit; past 12 hexes they may not fire this impulse (§6.1.3); they may
    enter an enemy hex, but not one holding an enemy helicopter; they do not stack (§1.4)."""
    ans = ctx.answer
    mode = need(unit.mode, f"units.{unit.key}.mode (flying or hovering)")
    if mode != "flying":
        ans.illegal("§9.1, §6.1.3", f"{unit.name} is {mode}: helicopters move only in Flying mode")
    if not route:
        return
    for hex_id in route:
        if any(u.type.target_type == "helicopter" for u in _enemies_in(ctx, unit, hex_id)):
            ans.illegal("§9.1", f"{hex_id} holds an enemy helicopter")
        unknown = [u for u in ctx.game.stack(hex_id, exclude=unit.key)
                   if u.type.target_type == "helicopter" and (u.side is None or unit.side is None)]
        if unknown:
            raise NotStated(f"units.{unknown[0].key}.side (a helicopter may not enter a hex holding an enemy one)")
    spent = unit.status.mp_spent if isinstance(unit.status.mp_spent, int) else 0
    hexes = spent + len(route)
    ans.set("cost", 0)
    ans.set("hexes", hexes)
    ans.because("§9.1", f"helicopters ignore the cost of entering a hex: {hexes} hex(es) moved")
    limit = ctx.params.helicopter_moving_fire_hexes
    ans.set("may_fire", hexes <= limit)
    if hexes > limit:
        ans.because("§6.1.3", f"more than {limit} hexes: {unit.name} may not fire this impulse")
    if ans.legal is None:
        ans.set("legal", True)
        opportunity_trigger(ctx, unit)
        ctx.emit(UnitMoved(unit.key, route[-1]), StatusChanged(unit.key, "ops_complete", True))


def _chemical_near(ctx: Ctx, hex_id: str) -> str | None:
    """§8.4: "an additional 2 MP to enter a hex with a Chemical Strike marker, or one of its six
    neighboring hexes": the marker's hex, found by map position or the stated ``adjacent_to``."""
    here = ctx.game.hex(hex_id)
    if "chemical" in here.markers:
        return hex_id
    stated = ctx.game.facts.hex_fact(hex_id, "adjacent_to") or ()
    for cloud in ctx.game.hexes.values():
        if "chemical" not in cloud.markers:
            continue
        if cloud.id in stated or situation.hexes_apart(ctx.game, hex_id, cloud.id) == 1:
            return cloud.id
    return None


def opportunity_trigger(ctx: Ctx, mover: Unit) -> None:
    """§6.2 "If an enemy unit moves within the LOS and range of a GO unit not marked with an
    Ops Complete marker, that unit may attack the moving unit"; helicopters move hex by hex
    for that very reason (§9.1). Answered only when the stated enemies settle it: an enemy
    that sees the hex entered (its ``los``) and reaches past the mover's stated ``distance``
    plus the hex moved may fire; one Disrupted, Ops Complete, blind or short of it may not."""
    enemies = [e for e in ctx.game.units.values()
               if e.side and mover.side and e.side != mover.side and e.on_map
               and e.type.target_type not in NO_OPPORTUNITY_FIRE]
    if not enemies:
        return
    verdicts = {e.key: _may_opportunity_fire(ctx, e, mover) for e in enemies}
    able = [ctx.game.unit(k).name for k, v in verdicts.items() if v]
    if able:
        ctx.answer.set("triggers_opportunity_fire", True)
        ctx.answer.because("§6.2", "the move is in the LOS and range of " + ", ".join(able)
                           + ": it may Opportunity Fire as the unit enters the hex")
    elif all(v is False for v in verdicts.values()):
        ctx.answer.set("triggers_opportunity_fire", False)
        ctx.answer.because("§6.2", "no Good Order enemy unit without Ops Complete has the mover in LOS and range")


def _may_opportunity_fire(ctx: Ctx, enemy: Unit, mover: Unit) -> bool | None:
    """Whether ``enemy`` may Opportunity Fire at ``mover`` in the hex it enters (None: not
    known): its stated ``los`` is to that hex, its ``distance`` to where the move starts, so the
    reach is judged one hex either way (:func:`referee.classic.ranged.may_opportunity_fire`)."""
    relation = ctx.game.facts.relation(enemy.key)
    return may_opportunity_fire(ctx, enemy, mover, relation.los, relation.distance, slack=1)


def _enemies_in(ctx: Ctx, unit: Unit, hex_id: str) -> list[Unit]:
    return [u for u in ctx.game.stack(hex_id) if u.side and unit.side and u.side != unit.side]


def check_stacking(ctx: Ctx, unit: Unit, hex_id: str, passing: bool = False) -> None:
    """§1.4: stacking limits apply at all times ("This limit always applies", 002 §1.4), so
    during movement too: a unit may neither end its move in nor pass through a hex that
    already holds two combat units. A deployed Bridge does not count (001 §1.3.4.6)."""
    if unit.type.target_type in UNCOUNTED or unit.carried_by is not None:
        return
    foes = {u.key for u in _enemies_in(ctx, unit, hex_id)}
    there = [u for u in ctx.game.stack(hex_id, exclude=unit.key)
             if u.type.target_type not in UNCOUNTED and u.carried_by is None and u.key not in foes
             and not (BRIDGE in u.type.abilities and u.mode == "deployed")]
    if len(there) >= 2:
        ctx.answer.illegal("§1.4", f"{hex_id} already holds two combat units"
                           + (": the move may not pass through it" if passing else ""))


#: What rides along with a transport's one infantry unit (§5.2, §1.3.3.1): not a second passenger.
CARRIED_WITH = frozenset({"support_weapon", "hq", "leader"})


def _spent(unit: Unit) -> int:
    """MP a unit has spent this impulse: as stated, else its MF less the MPs it has left,
    0 when neither is stated as a number."""
    if isinstance(unit.status.mp_spent, int):
        return unit.status.mp_spent
    if unit.status.mp_spent == "more_than_half" and unit.current.mp is not None:
        return unit.current.mp // 2 + 1             # the least "more than half" can be
    if isinstance(unit.status.mp_left, int) and unit.current.mp is not None:
        return max(0, unit.current.mp - unit.status.mp_left)
    return 0


def load(ctx: Ctx) -> None:
    """§5.2.1: same hex, or half the transport's MF and 1 of the infantry's to meet; disrupted
    infantry cannot load; "T" units per 001 §5.2.5. A transport carries one infantry unit
    and its SW (§5.2), never a vehicle. The MPs each may spend before and after the step are
    reported: loaded where they began together, the transport still moves half its MF; having
    met, neither moves any farther."""
    ans = ctx.answer
    passenger = ctx.unit(ctx.action.actor)
    transport = ctx.unit(ctx.action.target if isinstance(ctx.action.target, str) else None, "target")
    if passenger.name in ctx.params.no_transport_units:
        ans.illegal("001 §1.3.1.1", f"{passenger.name} cannot load on a transport")
    if "transport" not in transport.type.abilities:
        ans.illegal("§5.2", f"{transport.name} is not a transport")
    if passenger.status.disrupted:
        ans.illegal("§5.2.1", "disrupted infantry cannot load")
    for mover in (passenger, transport):
        may_move(ctx, mover)
    towed = "towed" in passenger.type.abilities
    aboard = [u for u in ctx.game.passengers(transport.key) if u.type.target_type not in CARRIED_WITH]
    if aboard:
        if ctx.params.book == "eisenbach":
            # EG §5.2 "may transport infantry and SW" and §1.4 "An APC and the passengers it is
            # carrying count as a single unit" state no number: the one infantry unit is TUS's
            ans.illegal("001 §5.2", f"{transport.name} already carries {aboard[0].name}: Eisenbach Gap §5.2 states "
                        "no number of infantry units per transport; read as The Untold Stories' \"Each transport "
                        "unit can carry one infantry unit and SW\"")
        else:
            ans.illegal("§5.2", f"{transport.name} already carries {aboard[0].name}: each transport carries "
                        "one infantry unit and its SW")
    if passenger.type.is_vehicle and not towed:
        ans.illegal("§5.2", f"{passenger.name} is a vehicle: transports carry infantry and SWs")
    if towed:
        ctx.params.require("towed_transport", "001 §5.2.5")
    half = need(transport.current.mp, f"units.{transport.key}.mp") // 2
    if not towed:
        if _spent(transport) > half:
            ans.illegal("§5.2.1", f"{transport.name} has spent {_spent(transport)} MP: it may move at most half "
                        f"its MF ({half}) to reach the infantry and load")
        if _spent(passenger) > 1:
            ans.illegal("§5.2.1", f"{passenger.name} has spent {_spent(passenger)} MP: infantry may spend 1 of its "
                        "MF to reach the transport and load")
    if ans.legal is False:
        return
    ans.set("legal", True)
    if towed:
        mp = transport.current.mp
        if _spent(transport) + half > mp:
            ans.illegal("001 §5.2.5", f"{transport.name} has {mp - _spent(transport)} MP left: loading a T unit "
                        f"costs half its MP ({half})")
            return
        ans.because("001 §5.2.5", f"loading a T unit costs the transport {half} MP")
        ctx.emit(PassengerLoaded(passenger.key, transport.key))
        ans.gap(f"units.{transport.key}.mp_max", "not stated: MF left after loading a T unit (001 §5.2.5)")
        return
    ans.unit(transport.key, mp_max=half)
    if passenger.hex is None or transport.hex is None:
        raise NotStated("hex of passenger and transport")
    together = passenger.hex == transport.hex and not _spent(passenger) and not _spent(transport) \
        and "up_to_half" not in (passenger.status.mp_spent, transport.status.mp_spent)
    if together:
        ans.unit(transport.key, mp_before=0, mp_after=half)
        ans.unit(passenger.key, mp_before=0)
        ans.because("§5.2.1", f"loaded where they began together, the transport moves up to half its MF ({half})")
        ctx.emit(PassengerLoaded(passenger.key, transport.key))
        return
    ans.unit(transport.key, mp_before=half, mp_after=0)
    ans.unit(passenger.key, mp_before=1, mp_after=0)
    ans.because("§5.2.1", f"the transport moves at most half its MF ({half}) and the infantry 1 MF to meet; "
                "having loaded, neither moves any farther this turn")
    ctx.emit(PassengerLoaded(passenger.key, transport.key))


def unload(ctx: Ctx) -> None:
    """§5.2.2: the transport moves at most half its MF, then the infantry unloads and may
    move one more hex; unloaded first, the transport may still move half its MF. A "T" unit
    (001 §5.2.5) costs the transport half its MP to unload, stays in the hex and is marked Ops
    Complete; the transport may leave with the MP it has left."""
    ans = ctx.answer
    passenger = ctx.unit(ctx.action.actor)
    transport = ctx.unit(passenger.carried_by, "carried_by")
    for mover in (passenger, transport):
        may_move(ctx, mover)
    if transport.hex is not None:
        # §1.4 "Stacking limitations apply at all times": unloaded, the infantry counts on its
        # own ("APCs with embarked passengers count as one unit" only while embarked)
        check_stacking(ctx, replace(passenger, carried_by=None, hex=transport.hex), transport.hex)
    if ans.legal is False:
        return
    mp = need(transport.current.mp, f"units.{transport.key}.mp")
    half = mp // 2
    spent = _spent(transport)
    if "towed" in passenger.type.abilities:
        ctx.params.require("towed_transport", "001 §5.2.5")
        if spent + half > mp:
            ans.illegal("001 §5.2.5", f"{transport.name} has {mp - spent} MP left: unloading a T unit costs "
                        f"half its MP ({half})")
            return
        ans.set("legal", True)
        ans.unit(transport.key, mp_after=mp - spent - half)
        ans.unit(passenger.key, hexes_after=0)
        ctx.emit(PassengerUnloaded(passenger.key), StatusChanged(passenger.key, "ops_complete", True))
        ans.because("001 §5.2.5", f"unloading costs the transport {half} MP; the T unit stays in the hex, "
                    "Ops Complete")
        return
    if spent > half:
        ans.illegal("§5.2.2", f"{transport.name} has moved {spent} MP: a transport moves at most half its MF "
                    f"({half}) and then unloads")
        return
    ans.set("legal", True)
    ctx.emit(PassengerUnloaded(passenger.key))
    ans.unit(transport.key, mp_max=half)
    ans.unit(passenger.key, hexes_after=1)
    if not spent and transport.status.mp_spent != "up_to_half":
        ans.unit(transport.key, mp_after=half)
        ans.because("§5.2.2", f"unloaded as the first action: the infantry may move one hex, the transport up "
                    f"to half its MF ({half})")
        return
    ans.because("§5.2.2", f"unloaded infantry may move one more hex; the transport up to {half} MP")


def stacking(ctx: Ctx) -> None:
    """§1.4: two combat units; HQs, helicopters, SWs, leaders, Wrecks and a deployed Bridge
    (001 §1.3.4.6) do not count; a transport with its passengers is one unit; one HQ per hex (§1.3.3),
    standing with a unit of its Formation (§1.3.3.1); one Support Weapon per infantry unit (§1.3.1)."""
    hex_id = ctx.action.target if isinstance(ctx.action.target, str) else None
    stack = ctx.game.stack(need(hex_id, "query.target"))
    counted = [u for u in stack if u.type.target_type not in UNCOUNTED and u.carried_by is None
               and not (BRIDGE in u.type.abilities and u.mode == "deployed")]
    hqs = [u for u in stack if u.type.target_type == "hq"]
    if len(counted) > 2:
        ctx.answer.illegal("§1.4", f"{len(counted)} combat units in {hex_id}, at most 2")
    if len(hqs) > 1:
        ctx.answer.illegal("§1.3.3", "no more than one HQ in a hex")
    for unit in stack:
        weapons = [sw.name for sw in ctx.game.attached(unit.key) if sw.type.target_type == "support_weapon"]
        if len(weapons) > 1:
            # TUS §1.3.1 "An infantry unit can only possess one SW"; EG "may use only one SW"
            ctx.answer.illegal("§1.3.1", f"{unit.name} holds {len(weapons)} Support Weapons ({', '.join(weapons)}): "
                               "an infantry unit possesses only one SW")
    lone_hqs(ctx, stack)                                 # §1.3.3.1
    if ctx.answer.legal is None:
        ctx.answer.set("legal", True)
    ctx.answer.set("count", len(counted))
