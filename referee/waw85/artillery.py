"""WaW85 Indirect Fire (§14): who may fire what at which range, Spotter Checks, the
Scatter Check and its direction table, Strike Reduction Checks, Chemical Strikes, and
Minefields (§16.2, §16.3.1), which attack like ADM (§14.10)."""
from __future__ import annotations

from referee.errors import NotStated, NotSupported
from referee import damage
from referee.events import (MarkerPlaced, MarkerRemoved, PassengerUnloaded, StatusChanged, UnitMoved,
                            move_with_riders, result_of)
from referee.model import Unit, need
from referee.ruleset import Ctx
from referee.situation import hexes_apart
from referee.waw85 import los, results
from referee.waw85.command import Check, check_for, ew_on, formation_hq, helpers, roll
from referee.waw85.common import HARD, because, illegal, in_all_water, may_act, modify, morale_value, tables, whole
from referee.artillery import Strike, adjacent_hexes
from referee.hexes import FLAT_DIRECTION_NAMES, Hex
from referee.defence import DefenceRoll, Shot, defence as defence_roll, improved_position, put, roll_saves
from referee.ranges import BAND_TO_HIT, OUT_OF_RANGE, Bands
from referee.waw85.fire import BAND_SECTION


def _mission(ctx: Ctx) -> str | None:
    """The Strike type: stated, HE when the query fires the HE value, else not stated."""
    if ctx.action.mission is not None and ctx.action.mission.type is not None:
        return ctx.action.mission.type
    if ctx.action.weapon == "he":
        return "he"
    return None


def _target_distance(ctx: Ctx) -> int | None:
    """The firer's range to the target: stated (the unit's ``distance``, the hex's), else
    counted on the map between the firer's hex and the target's."""
    target = ctx.action.target
    if not isinstance(target, str):
        return None
    if target in ctx.game.units:
        stated, hex_id = ctx.game.facts.relation(target).distance, ctx.game.unit(target).hex
    else:
        stated, hex_id = ctx.game.hex(target).stated.get("distance"), target
    if stated is not None:
        return stated
    firer = ctx.game.units.get(ctx.action.actor) if ctx.action.actor else None
    return hexes_apart(ctx.game, firer.hex, hex_id) if firer is not None else None


def minimum_range(unit: Unit) -> int:
    """§14.4: towed ARTY and SPA 7 hexes; MRTR and SPM of 120 mm or more 2; lighter none."""
    t = tables()
    kind = need(unit.type.arty_type, f"units.{unit.key}.arty_type")
    if kind in ("mrtr", "spm"):
        calibre = need(unit.type.caliber_mm, f"units.{unit.key}.caliber_mm")
        return t["indirect_minimum_range"]["heavy_mortar"] if calibre >= t["heavy_mortar_mm"] else 0
    return t["indirect_minimum_range"].get(kind, 0)


def fire_mission(ctx: Ctx) -> Strike | None:
    """§14.1-§14.6: who fires and spots a Strike, its markers and hexes, and the On-Board
    To-Hit (Long Range penalty, never the Point Blank bonus, §14.7.2)."""
    ans = ctx.answer
    mission = _mission(ctx)
    t = tables()
    if mission is not None:
        ans.set("hexes_affected", t["strike_hexes"].get(mission, 1))
    unit = ctx.game.unit(ctx.action.actor) if ctx.action.actor else None
    spotter = ctx.game.unit(ctx.action.spotter) if ctx.action.spotter is not None else None
    if unit is not None:
        _on_board(ctx, unit, mission)
        _needs_a_spotter(ctx, unit, spotter)
    if spotter is not None:
        _spotter(ctx, spotter, on_board=unit is not None)
    if ctx.action.bonus_from:
        because(ctx, "1.9.11", "an HQ's or Leader's Command Bonus adds no dice to Indirect Fire (§1.9.13)")
    if unit is None:
        ans.set("max_count", 2)        # §7.5: at most two Off-Board Strikes per Formation Impulse
        left = ctx.game.facts.get("strikes_left")
        if left == 0:
            illegal(ctx, "14.2", "no Strike of this type is left on the Artillery Track: "
                    "an Off-Board Artillery Strike can only be used once in a scenario")
        elif ctx.action.count is not None and ctx.action.count > 2:
            illegal(ctx, "7.5", f"{ctx.action.count} Strikes asked: a Formation may attempt "
                    "a maximum of two Off-Board Artillery Strikes")
        elif ctx.action.count is not None and left is not None and ctx.action.count > left:
            illegal(ctx, "14.2", f"{ctx.action.count} Strikes asked, {left} left on the Artillery Track: "
                    "each Off-Board Artillery Strike can only be used once in a scenario")
    if mission in ("he", "dpicm", "mlrs"):
        ans.set("hit_allocation", "each")   # §14.7.2: units in the hex are attacked individually
    markers = t["strike_markers"].get(mission or "")
    if markers is not None:
        where = "off_board" if unit is None else need(unit.type.arty_type, f"units.{unit.key}.arty_type")
        if where in markers:
            ans.set("max_markers", markers[where])
    if ans.legal is False or mission is None:
        return None
    if unit is not None and spotter is not None and ctx.action.passed is None and not _spots_freely(spotter) \
            and ctx.dice is not None:
        # §14.5 "If needed, make a Spotter Check", the Strike's first roll; §14.3 "If the result
        # is > Morale/Training value, the on-board asset is marked Ops Complete. No attack takes place."
        if not ctx.has_dice("2d6"):
            ans.gap(("passed", "hits", "saves", "net_hits", "units", "hexes", "scatter"),
                    f"not stated: dice.2d6 (the Spotter Check of {spotter.key}, WaW85 §14.3, §14.5)")
            return None
        if not _spotter_check(ctx, spotter, []):
            _spotter_failed(ctx, spotter)
            return None
    if spotter is not None and ctx.stage(("passed", "cancelled", "units"),
                                         lambda: _spotter_night_check(ctx, spotter, unit is not None)) is False:
        return None
    target = ctx.action.target
    if isinstance(target, str) and target in ctx.game.units:
        target = ctx.game.unit(target).hex
    if ctx.action.choice and isinstance(target, str):
        ctx.stage(("legal",), lambda: further_hexes(ctx, mission, unit, target))     # the choice, before any die
        if ans.legal is False:
            return None
    return Strike(target if isinstance(target, str) else None, mission, firer=unit, caller=spotter)


def accuracy(ctx: Ctx, strike: Strike) -> str | None:
    """§14.5 Scatter Check, before anything else is rolled: on target, scattered one or two
    hexes in the rolled directions, or cancelled (the Strike is used up; an on-board firer
    is Ops Complete)."""
    ans = ctx.answer
    if not ctx.has_dice("d6"):
        ans.set("scatter", [])
        because(ctx, "14.5", "no Scatter Check given: the Strike lands on the target hex")
        return strike.hex
    path, cancelled = _scatter_check(ctx)
    if cancelled:
        _cancelled(ctx, strike.firer)
        return None
    if not path:
        return strike.hex
    return _moved(ctx, strike.hex, path)


#: The id of the hex a Strike scattered to when the position does not place the hex aimed at
#: (a rule case states no map positions): "?" (no hex id starts with it), the hex aimed at,
#: and the directions it moved. How far it is from the hex aimed at is known (:func:`_offset`).
UNPLACED = "?"


def _offset(path: list[str] | tuple[str, ...]) -> Hex:
    """Where ``path`` (directions N, NE, SE, S, SW, NW) leads from the hex it starts in, as a
    cube offset; ``Hex(0, 0)`` when it comes back (N then S)."""
    at = Hex(0, 0)
    for direction in path:
        at = at.neighbor(FLAT_DIRECTION_NAMES.index(direction))
    return at


def _moved(ctx: Ctx, hex_id: str, path: list[str]) -> str:
    """The hex ``path`` (directions N, NE, SE, S, SW, NW, with the map's north up) leads to.
    §14.5 "Move the marker one hex in the rolled direction" and, on a second roll of 4-5,
    "scatters another hex": two opposite directions (N then S) bring it back to the hex aimed
    at, wherever that is. Without a map position the hex it lands in is unplaced (``UNPLACED``):
    only its distance from the hex aimed at is known."""
    offset = _offset(path)
    if offset == Hex(0, 0):
        because(ctx, "14.5", f"the FFE marker scatters {' then '.join(path)}: back on {hex_id}")
        return hex_id
    at = ctx.game.hex(hex_id).at
    if at is None:
        away = offset.distance(Hex(0, 0))
        because(ctx, "14.5", f"the FFE marker scatters {away} hex(es) from {hex_id}: the Strike proceeds "
                "against the units in its new location")
        return UNPLACED + hex_id + "+" + "+".join(path)
    by_at = {h.at: h.id for h in ctx.game.hexes.values() if h.at is not None}
    for direction in path:
        at = at.neighbor(FLAT_DIRECTION_NAMES.index(direction))
    landed = by_at.get(at)
    if landed is None:
        raise NotStated("the hex the Strike scatters to is off the map")
    because(ctx, "14.5", f"the FFE marker scatters to {landed}")
    return landed


def strike(ctx: Ctx, strike: Strike, hex_id: str) -> None:
    _strike(ctx, strike.kind, strike.firer, hex_id)


def _spotter(ctx: Ctx, spotter: Unit, *, on_board: bool) -> None:
    """§14.3: the Formation's HQ or a Recon unit spots; for On-Board Strikes any unit
    allowed by its table after a Spotter Check. Disrupted units do not spot (§10.8.2); no
    unit of a Formation whose HQ carries an EW marker takes part in Indirect Fire (§5.2)."""
    if not spotter.on_map:
        # §12.0 "does need a Spotter on the map which has a clear LOS to the target hex"; an
        # Off-Board Strike goes "onto any hex the Spotter can observe" (§14.4), and LOS is traced
        # from the center of the Spotter's hex (§10.2): a counter in a Holding Box has none
        illegal(ctx, "12.0" if on_board else "10.2", f"{spotter.name} is not on the map ({spotter.location}): "
                "a Spotter traces its LOS to the target hex from its own hex")
    if spotter.status.disrupted:
        illegal(ctx, "10.8.2", f"{spotter.name} is Disrupted and may not spot")
    firer = ctx.game.units.get(ctx.action.actor) if ctx.action.actor else None
    if firer is not None and firer.side and spotter.side and firer.side != spotter.side:
        illegal(ctx, "14.3", f"{spotter.name} is an enemy unit: it spots only for friendly Indirect Fire (§1.9.12)")
    if firer is not None and firer.key != spotter.key and firer.formation and spotter.formation \
            and firer.formation != spotter.formation:
        # "The activated Formation's HQ; or Any Active unit": the firer's Formation is the active one
        illegal(ctx, "14.3", f"{spotter.name} is of {spotter.formation}, not of the activated Formation "
                f"{firer.formation}: it may not spot")
    hq = spotter if spotter.type.target_type == "hq" else formation_hq(ctx, spotter)
    if ew_on(hq):
        illegal(ctx, "5.2", "no unit of a Formation whose HQ has an EW marker may take part in Indirect Fire")
    free = _spots_freely(spotter)
    if not free and not on_board:
        illegal(ctx, "14.3", "Off-Board Strikes are spotted by the HQ or a Recon unit only")
    elif not free:
        because(ctx, "14.3", f"{spotter.name} must pass a Spotter Check")
        if ctx.action.passed is False:
            _spotter_failed(ctx, spotter)
    target = ctx.action.target if isinstance(ctx.action.target, str) else None
    if target in ctx.game.units:
        target = ctx.game.unit(target).hex
    if ctx.game.facts.get("night") and target is not None:
        # §16.6.1 "The maximum LOS for Direct Fire and Indirect Fire Spotting becomes 7 hexes":
        # the Spotter's LOS to the target hex, for Off-Board and On-Board Strikes alike
        reach = _spotting_reach(ctx, spotter, target, on_board=on_board)
        if reach is None:
            ctx.answer.gap("legal", f"not stated: the distance from {spotter.key} to {target} (WaW85 §16.6.1: "
                           f"the maximum LOS for Spotting at night is 7 hexes; units.{spotter.key}.hex with its "
                           "to_target, or map positions)")
        elif reach > tables()["night_max_los"]:
            illegal(ctx, "16.6.1", f"{spotter.name} is {reach} hexes from {target}: the maximum LOS for "
                    "Spotting at night is 7 hexes")
    sees = ctx.game.facts.relation(spotter.key).los
    if sees is None and target is not None:
        reach = _spotting_reach(ctx, spotter, target, on_board=on_board)
        blocked = los.hex_blocked(ctx, spotter, target, reach)
        sees = None if blocked is None else not blocked
    if sees is False:
        why = ctx.answer.reasons[-1].text if ctx.game.facts.relation(spotter.key).los is None else ""
        illegal(ctx, "14.3", f"{spotter.name} has no LOS to the target hex" + (f": {why}" if why else ""))


def _spots_freely(spotter: Unit) -> bool:
    """§14.3: the activated Formation's HQ and a Recon unit spot without a Spotter Check."""
    return spotter.type.target_type == "hq" or bool({"recon", "elite"} & spotter.type.abilities)


def _spotter_failed(ctx: Ctx, spotter: Unit) -> None:
    """§14.3 "If the result is > Morale/Training value, the on-board asset is marked Ops
    Complete. No attack takes place." The Spotter is not marked."""
    illegal(ctx, "14.3", f"{spotter.name} failed its Spotter Check: no attack takes place")
    if ctx.action.actor:
        ctx.emit(StatusChanged(ctx.action.actor, "ops_complete", True))
        because(ctx, "14.3", "the on-board asset is marked Ops Complete; the Spotter is not")


def _spotter_night_check(ctx: Ctx, spotter: Unit, on_board: bool) -> bool:
    """§16.6.1 "When firing or Spotting, and immediately after the LOS has been verified, an
    attacker or Spotter must then make a successful Night Targeting Check": the Spotter's 2d6,
    against its Morale/Training halved (rounded up) unless the target hex is adjacent or it has
    Advanced Night-Fighting. "If the NTC is failed, the attack or Spotting attempt is canceled,
    and the unit which attempted it is marked with an Ops Complete marker." Rolled when the dice
    give a 2d6 (the first of the Strike's); returns whether the Spotting goes ahead."""
    if not ctx.game.facts.get("night"):
        return True
    if not ctx.has_dice("2d6"):
        because(ctx, "16.6.1", f"at night {spotter.name} spots after a successful Night Targeting Check "
                "(not rolled here)")
        return True
    target = ctx.action.target if isinstance(ctx.action.target, str) else None
    target = ctx.game.unit(target).hex if target in ctx.game.units else target
    reach = _spotting_reach(ctx, spotter, need(target, "query.target"), on_board=on_board)
    if reach is None:
        raise NotStated(f"the distance from {spotter.key} to {target} (its Night Targeting Check)")
    value = check_for(ctx, spotter)
    number = value.target_number
    if reach > 1 and "night_fighting" not in spotter.type.abilities:
        number = -(-number // 2)
        because(ctx, "16.6.1", f"{spotter.name}: the target hex is not adjacent, Morale/Training halved to {number}")
    if roll(ctx, Check(number, value.modifier), section="16.6.1"):
        return True
    ctx.answer.set("cancelled", True)
    ctx.emit(StatusChanged(spotter.key, "ops_complete", True))
    because(ctx, "16.6.1", f"{spotter.name} failed its Night Targeting Check: the Spotting attempt is cancelled, "
            "and it is marked Ops Complete")
    return False


def _spotting_reach(ctx: Ctx, spotter: Unit, target: str, *, on_board: bool) -> int | None:
    """The Spotter's range to the target hex: on the map; else its hex's stated ``to_target``;
    for an Off-Board Strike (no firing unit) its stated ``distance`` or the target hex's; for
    an On-Board Strike the target hex's distance from the firer when the Spotter shares its hex
    (stated distances are the firer's, not the Spotter's). ``None`` when nothing says."""
    here = ctx.game.hex(spotter.hex).at if spotter.hex in ctx.game.hexes else None
    there = ctx.game.hex(target).at
    if here is not None and there is not None:
        return here.distance(there)
    if spotter.hex is not None and spotter.hex == target:
        return 0
    stated = ctx.game.hex(spotter.hex).to_target if spotter.hex in ctx.game.hexes else None
    if stated is not None:
        return stated
    relation = ctx.game.facts.relation(spotter.key).distance
    firer = ctx.game.units.get(ctx.action.actor) if ctx.action.actor else None
    if not on_board:
        return relation if relation is not None else ctx.game.facts.hex_fact(target, "distance")
    together = relation == 0 or (firer is not None and firer.hex is not None and firer.hex == spotter.hex) \
        or (firer is not None and firer.key == spotter.key)
    return ctx.game.facts.hex_fact(target, "distance") if together else None


def _strike_hexes(ctx: Ctx, mission: str, target: str) -> list[str]:
    """The hex the Strike landed in, and for a seven-hex Strike its neighbours."""
    hexes = [target]
    if tables()["strike_hexes"].get(mission, 1) > 1:
        hexes += [h for h in adjacent_hexes(ctx, target) or () if h != target]
    return hexes


def _strike(ctx: Ctx, mission: str, firer: Unit | None, landed: str) -> None:
    """Resolve a Strike where it landed (§14.7-§14.12): every unit in the affected hexes is
    attacked on its own; the on-board firer is Ops Complete, an off-board Strike used up."""
    if landed.startswith(UNPLACED):
        _unplaced_strike(ctx, mission, firer, landed)
        return
    hexes = _strike_hexes(ctx, mission, landed)
    target = hexes[0]
    if mission in ("smoke", "adm", "chemical"):
        marker = {"smoke": "smoke", "adm": "minefield_random", "chemical": "chemical"}[mission]
        aimed = ctx.action.target if isinstance(ctx.action.target, str) else None
        aimed = ctx.game.unit(aimed).hex if aimed in ctx.game.units else aimed
        further = further_hexes(ctx, mission, firer, landed, aimed=aimed) if aimed != landed \
            else _chosen(ctx)       # checked before the dice (fire_mission)
        for hex_id in [target, *further]:
            ctx.emit(MarkerPlaced(hex_id, marker))
            because(ctx, "14.6", f"{marker.replace('_', ' ')} marker placed in {hex_id}")
        if mission == "adm":
            hexes = [target, *further]      # §14.10 "Each unit in a hex that receives a Minefield-Random marker"
    units = [u for h in hexes for u in ctx.game.stack(h)
             if u.carried_by is None and u.type.target_type not in ("hq", "leader", "support_weapon", "aircraft")]
    if mission in ("he", "dpicm", "mlrs", "chemical"):
        for unit in units:
            if unit.type.target_type == "helicopter":
                _helicopter_in_a_strike_hex(ctx, unit)
    if mission in ("he", "dpicm", "mlrs") and units:
        aimed = ctx.action.target if isinstance(ctx.action.target, str) else None
        aimed = ctx.game.unit(aimed).hex if aimed in ctx.game.units else aimed
        if firer is not None and mission == "he" and aimed is not None and landed != aimed:
            _landed_to_hit(ctx, firer, aimed, landed)
        fp, to_hit = _strike_numbers(ctx, mission, firer)
        for hex_id in hexes:
            before = ctx.answer.values.get("net_hits", 0)
            stack = [u for u in units if u.hex == hex_id]
            for unit in stack:
                _he_attack(ctx, unit, fp, to_hit, firer)
            if stack:
                results.rubble_and_fire(ctx, hex_id, ctx.answer.values.get("net_hits", 0) - before)  # §10.9
    elif mission == "adm":
        scattered_mines(ctx, units)
    elif mission == "chemical":
        for unit in units:
            _chemical_attack(ctx, unit)
    _used(ctx, firer)


def _hex_distance(ctx: Ctx, firer: Unit, hex_id: str) -> int:
    """The firer's range to a hex: stated (the hex's ``distance``), else counted on the map."""
    stated = ctx.game.hex(hex_id).stated.get("distance")
    if stated is not None:
        return stated
    here = ctx.game.hex(firer.hex).at if firer.hex is not None else None
    there = ctx.game.hex(hex_id).at
    if here is None or there is None:
        raise NotStated(f"hexes.{hex_id}.distance (the range from {firer.key} to the hex the Strike scattered to)")
    return here.distance(there)


def _landed_to_hit(ctx: Ctx, firer: Unit, aimed: str, landed: str) -> None:
    """§14.5: the Strike that scattered "proceeds against the units in its new location", so
    the On-Board Strike's To-Hit is that of the hex it landed in: the Long Range penalty
    (§10.6.5, §14.7.2) by the firer's range to that hex, not to the hex aimed at. A hex beyond
    the maximum range still takes the Strike (§14.5); the Long Range penalty is the only range
    penalty the book gives (§10.6.5)."""
    he = need(firer.current.he, f"units.{firer.key}.he")
    if he.range is None or he.to_hit is None:
        return
    reach = Bands(he.range)
    was_far = reach.band(_hex_distance(ctx, firer, aimed)) in ("long", OUT_OF_RANGE)
    now_far = reach.band(_hex_distance(ctx, firer, landed)) in ("long", OUT_OF_RANGE)
    if was_far == now_far:
        return
    mod = BAND_TO_HIT["long"]
    if now_far:
        modify(ctx, "to_hit", mod, f"Long Range to {landed}, the hex the Strike scattered to", "14.5")
    else:
        modify(ctx, "to_hit", -mod, f"{landed}, the hex the Strike scattered to, is within the printed range: "
               "no Long Range penalty", "14.5")
    ctx.answer.set("to_hit", min(he.to_hit + (mod if now_far else 0), 6))


def _used(ctx: Ctx, firer: Unit | None) -> None:
    """Once the Strike has been resolved, "the firing unit is marked Ops Complete" or the
    number of Strikes of its type is reduced by one on the Artillery Track (§14.7.2-§14.12)."""
    if firer is not None:
        ctx.emit(StatusChanged(firer.key, "ops_complete", True))
        because(ctx, "14.7.2", f"{firer.name} fired: Ops Complete")
    elif ctx.game.facts.get("strikes_left") is not None:
        ctx.answer.set("situation", {"strikes_left": ctx.game.facts.get("strikes_left") - 1})


def _unplaced_strike(ctx: Ctx, mission: str, firer: Unit | None, landed: str) -> None:
    """A Strike that scattered away from the hex aimed at, to a hex the position does not place
    (§14.5 "the resolution of the Strike proceeds against the units in its new location"). What
    is known: the hex aimed at is ``away`` hexes from it, so its units are attacked only by a
    seven-hex Strike (MLRS, Chemical: "the hex it is in and the six adjacent hexes", §14.9,
    §14.12) one hex away; a Smoke, ADM or Chemical marker goes in the new hex, not the one aimed
    at (§14.8, §14.10, §14.12); and the Strike is used up as any resolved Strike. Every other
    listed hex and unit may or may not be where it landed: those are gaps, and so are the totals."""
    aimed, path = landed[len(UNPLACED):].split("+", 1)
    away = _offset(path.split("+")).distance(Hex(0, 0))
    area = tables()["strike_hexes"].get(mission, 1) > 1
    why = (f"not stated: where the Strike that scattered {away} hex(es) from {aimed} lands (WaW85 §14.5: "
           "the hexes' map positions)")
    further = mission in ("smoke", "adm") and bool(_chosen(ctx))
    if further:
        ctx.answer.gap("hexes", why + f"; the further markers (§{FURTHER_SECTION[mission]}) go next to it")
    reached = [aimed] if area and away == 1 else []
    for unit in ctx.game.units.values():
        # a further Minefield-Random marker may fall in the hex aimed at too (§14.10)
        if unit.on_map and (unit.hex != aimed or (further and mission == "adm")):
            ctx.answer.gap(f"units.{unit.key}", why)
    for hex_id in ctx.game.hexes:
        if hex_id != aimed:
            ctx.answer.gap(f"hexes.{hex_id}", why)
    because(ctx, "14.5", f"{aimed} is {away} hex(es) from the Strike's hex: " +
            ("inside" if reached else "outside") + " the area it attacks")
    units = [u for u in ctx.game.stack(aimed) if reached and u.carried_by is None
             and u.type.target_type not in ("hq", "leader", "support_weapon", "aircraft")]
    for unit in units:
        if mission in ("mlrs", "chemical") and unit.type.target_type == "helicopter":
            _helicopter_in_a_strike_hex(ctx, unit)
    if mission == "mlrs" and units:
        fp, to_hit = _strike_numbers(ctx, mission, firer)
        for unit in units:
            _he_attack(ctx, unit, fp, to_hit, firer)
        results.rubble_and_fire(ctx, aimed, ctx.answer.values.get("net_hits", 0))  # §10.9
    elif mission == "chemical":
        for unit in units:
            _chemical_attack(ctx, unit)
    for name in ("hits", "saves", "net_hits"):
        ctx.answer.values.pop(name, None)
    ctx.answer.gap(("hits", "saves", "net_hits"), why + ": the units attacked there")
    _used(ctx, firer)


#: Where the further markers of a Smoke or ADM Strike are told apart in the book.
FURTHER_SECTION = {"smoke": "14.8", "adm": "14.10"}


def _adjacent(ctx: Ctx, a: str, b: str) -> bool:
    """Whether hexes ``a`` and ``b`` are adjacent: on the map, else by a stated ``adjacent_to``."""
    apart = hexes_apart(ctx.game, a, b)
    if apart is not None:
        return apart == 1
    near = {h: set(ctx.game.facts.hex_fact(h, "adjacent_to") or ()) for h in (a, b)}
    if b in near[a] or a in near[b]:
        return True
    if near[a] or near[b]:
        return False
    raise NotStated(f"hexes.{b}.adjacent_to")


def _chosen(ctx: Ctx) -> list[str]:
    choice = ctx.action.choice
    return [choice] if isinstance(choice, str) else list(choice or ())


def further_hexes(ctx: Ctx, mission: str, firer: Unit | None, landed: str, *, aimed: str | None = None) -> list[str]:
    """The hexes the player chose (``query.choice``) for a Smoke or ADM Strike's further
    markers: "Two further ... markers are then placed; the first in any hex adjacent to the
    target hex, the second adjacent to either. You do NOT have to place either or both"
    (§14.8, §14.10); a mortar's Smoke places one marker only (§14.6 chart). Checked against
    the hex aimed at before the dice; a choice that no longer fits once the Strike scattered
    (``landed`` is not ``aimed``) is a gap: the player chooses where it landed."""
    chosen = _chosen(ctx)
    scattered = aimed is not None and aimed != landed

    def refuse(section: str, why: str) -> list[str]:
        if scattered:
            ctx.answer.gap("hexes", f"not stated: the further markers' hexes once the Strike scattered to {landed} "
                           f"(§{section}: {why})")
        else:
            illegal(ctx, section, why)
        return []

    if not chosen:
        return []
    section = FURTHER_SECTION.get(mission)
    if section is None:
        raise NotStated(f"query.choice: a {mission.upper()} Strike places no further markers")
    where = "off_board" if firer is None else need(firer.type.arty_type, f"units.{firer.key}.arty_type")
    most = tables()["strike_markers"][mission].get(where, 1) - 1
    if len(chosen) > most:
        return refuse("14.6", f"a {mission.upper()} Strike from {where.replace('_', '-')} places "
                      f"{most} further marker(s), not {len(chosen)}")
    placed = [landed]
    for hex_id in chosen:
        if hex_id in placed:
            return refuse(section, f"{hex_id} already receives a marker of this Strike")
        if not any(_adjacent(ctx, h, hex_id) for h in placed):
            return refuse(section, f"{hex_id} is not adjacent to " + ("the target hex" if len(placed) == 1
                                                                      else "the target hex or the first further marker"))
        placed.append(hex_id)
    because(ctx, section, f"further marker(s) in {', '.join(placed[1:])}, the player's choice")
    return placed[1:]


def _strike_numbers(ctx: Ctx, mission: str, firer: Unit | None) -> tuple[int, int]:
    """FP dice and To-Hit: the firing unit's HE values (§14.7.1, with the Long Range
    penalty already in ``to_hit``) or the Strike's; MLRS and DPICM after their Strike
    Reduction Check (§14.9.1, §14.11.1)."""
    ans = ctx.answer
    if firer is not None:
        he = need(firer.current.he, f"units.{firer.key}.he")
        fp = whole(need(he.fp, f"units.{firer.key}.he.fp"), "he.fp")
        to_hit = ans.values.get("to_hit", he.to_hit)
        to_hit = need(to_hit, f"units.{firer.key}.he.to_hit")
    else:
        mission_values = ctx.action.mission
        fp = whole(need(mission_values.fp if mission_values else None, "query.mission.fp"), "query.mission.fp")
        to_hit = whole(need(mission_values.to_hit if mission_values else None, "query.mission.to_hit"),
                       "query.mission.to_hit")
    if mission in tables()["strike_reduction"]:
        total = ctx.roll_2d6("2d6")
        if total in tables()["strike_reduction"][mission]:
            fp -= 1
            because(ctx, "14.9.1" if mission == "mlrs" else "14.11.1", f"2d6 {total}: Strike FP -1")
    ans.set("fp", fp)
    ans.set("to_hit", to_hit)
    return fp, to_hit


def _helicopter_in_a_strike_hex(ctx: Ctx, unit: Unit) -> None:
    """§14.7.2: "all such units in a hex are attacked by the Strike", by "the Direct Fire
    procedures". A Landed Helicopter is no aircraft ("Aircraft — flying or hovering
    Helicopters", §10.1) but a unit in the hex, and the Direct Fire Modifiers name it (§10.6.11);
    a Nap-of-Earth Helicopter where the unit and obstacle heights are equal "is treated as a
    ground unit" (§9.7.2): both are attacked as the hex's other units. Above the terrain
    (Flying, Hovering, Nap-of-Earth over a higher obstacle, §9.7.1-§9.7.3) the book says neither
    whether a Strike reaches it nor how it would defend: not supported."""
    if unit.mode is None:
        raise NotStated(f"units.{unit.key}.mode")
    from referee.waw85.assault import above_the_assault
    above = above_the_assault(ctx, unit)
    if above is not None:
        raise NotSupported("WaW85 §14.7.2", f"a Strike on {unit.name}, a {unit.mode.replace('_', '-')} Helicopter "
                           "above the terrain of a Strike hex: the book says neither whether a Strike attacks it nor "
                           "how it defends against one (§9.7.1-§9.7.3; §9.7 spares Helicopters only from Minefields)")
    because(ctx, "14.7.2", f"{unit.name} is {unit.mode.replace('_', '-')}: a unit in the Strike hex, attacked with "
            "the others" + (" (§9.7.2: treated as a ground unit)" if unit.mode == "nap_of_earth" else ""))


def _he_attack(ctx: Ctx, unit: Unit, fp: int, to_hit: int, firer: Unit | None) -> None:
    """§14.7.2: Direct Fire procedures with the HE Strike defence roll; a Landed Helicopter
    target gives "+1 FP dice and -1 to To-Hit for the attacker" (§10.6.11, one of the Direct
    Fire Restrictions and Modifiers §14.7.2 applies), for its own attack only."""
    if unit.type.target_type == "helicopter" and unit.mode == "landed":
        # the To-Hit is "never more than 6" after all modifiers (§10.6.15): from the uncapped number
        raw = to_hit
        if firer is not None and firer.current.he is not None and firer.current.he.to_hit is not None:
            raw = firer.current.he.to_hit + ctx.answer.modifier_totals().get("to_hit", 0)
        fp, to_hit = fp + 1, min(raw - 1, 6)
        because(ctx, "10.6.11", f"{unit.name} is a Landed Helicopter: +1 FP dice and -1 To-Hit, "
                f"{fp} dice at {to_hit} against it")
        ctx.answer.unit(unit.key, fp=fp, to_hit=to_hit)
    hits = sum(1 for d in ctx.roll(fp, "attack") if d >= to_hit)
    roll_ = defence_roll(ctx, unit, Shot(firer, "he", firer.current.he if firer else None, "he"))
    saves = roll_saves(ctx, roll_, hits)
    net = max(0, improved_position(ctx, unit, hits) - saves)
    ctx.answer.unit(unit.key, hits=0)
    because(ctx, "14.7.2", f"{unit.name}: {hits} hit(s), {saves} save(s), {net} net")
    _record(ctx, hits, saves, net, roll_)
    damage.take_hits(ctx, unit.key, net)
    # §10.11: "Opportunity Fire may include both Direct Fire or On-Board Indirect Fire"; a mover
    # Disrupted or reduced by it stops and is Ops Complete (§10.8.2)
    results.aftermath(ctx, [unit.key], opportunity=firer is not None and ctx.action.cause == "opportunity_fire")


def _record(ctx: Ctx, hits: int, saves: int, net: int, roll_: "DefenceRoll | None") -> None:
    """Top-level hits, saves and net hits add up over the units a Strike attacks."""
    values = ctx.answer.values
    for name, value in (("hits", hits), ("saves", saves), ("net_hits", net)):
        values[name] = values.get(name, 0) + value
    if roll_ is not None:
        put(ctx, roll_)


def scattered_mines(ctx: Ctx, units: list[Unit]) -> None:
    """§14.10 "Each unit in a hex that receives a Minefield-Random marker rolls 1d6", in the
    order given; a Helicopter only if Landed (§9.7: "only affected by minefields if they land
    in them")."""
    for unit in units:
        if unit.type.target_type == "helicopter" and unit.mode != "landed":
            because(ctx, "9.7", f"{unit.name}: Helicopters are only affected by minefields if they land in them")
            continue
        mine_attack(ctx, unit, "14.10")


def mine_attack(ctx: Ctx, unit: Unit, section: str) -> int:
    """§16.2, §14.10: 1d6, 4-5 one hit, 6 two; no saves. The unit is attacked where ``ctx``
    has it (a unit entering a Minefield: in the Minefield hex, :func:`enter_minefield`)."""
    die = ctx.roll(1, "d6")[0]
    hits = tables()["mine_hits"][die]
    because(ctx, section, f"{unit.name}: 1d6 {die}, {hits} hit(s), no saves")
    return _unsaved_hits(ctx, unit, hits)


def moved_in(ctx: Ctx, key: str, hex_id: str) -> list[UnitMoved]:
    """``key`` and the counters riding on it that are still on the map (§9.2, §9.8.1) moving
    to ``hex_id`` from where this answer's events have put them; none already there."""
    after = ctx.after
    return [e for e in move_with_riders(after, key, hex_id, deployed_hqs=ctx.params.deployed_hq_rides)
            if after.unit(e.unit).on_map and after.unit(e.unit).hex != hex_id]


def enter_minefield(ctx: Ctx, unit: Unit, hex_id: str) -> tuple[int, bool]:
    """§16.2 "Each unit entering a Minefield hex rolls 1d6": the unit (with its Passengers,
    Support Weapon, Leader and HQ) enters ``hex_id`` and is attacked there, so "The usual rules
    apply when units are reduced or eliminated and HQs & Leaders (10.7.2), and/or Passengers
    (10.7.3) are present in the Minefield hex": the §10.7.2 rolls are for the HQs and Leaders in
    that hex, not in the hex it left, and a vehicle eliminated there leaves its Wreck there
    (§10.8.1). Returns the net hits and whether the unit was eliminated; a unit hit "immediately
    retreats to the hex it entered the Minefield from" (the caller moves it back)."""
    if unit.carried_by is not None and ctx.after.unit(unit.key).carried_by is not None:
        ctx.emit(PassengerUnloaded(unit.key))       # leaving its Transport to enter (§9.8.3)
    ctx.emit(*moved_in(ctx, unit.key, hex_id))
    inside = Ctx(ctx.rules, ctx.after, ctx.action, ctx.dice, ctx.answer)   # the unit in the Minefield hex
    hits = mine_attack(inside, inside.game.unit(unit.key), "16.2")
    eliminated = result_of(unit.key, ctx.answer.events) == "eliminated"
    return hits, eliminated


def _unsaved_hits(ctx: Ctx, unit: Unit, hits: int) -> int:
    """Hits no save reduces (Mines, Chemical): recorded, taken, and their aftermath. An
    Improved Position is no save: its unit "ignores the first hit it receives each time it
    is attacked" (§16.1), by mines and Chemical Strikes too."""
    ctx.answer.unit(unit.key, hits=0)
    net = improved_position(ctx, unit, hits)
    _record(ctx, hits, 0, net, None)
    if net:
        damage.take_hits(ctx, unit.key, net)
        results.aftermath(ctx, [unit.key])
    return net


def _chemical_attack(ctx: Ctx, unit: Unit) -> int:
    """§14.12: 2d6 over Morale/Training: armor takes 1 hit, anything else 2; no saves."""
    passed = roll(ctx, check_for(ctx, unit), section="14.12")     # any Morale/Training check (§1.9.11, §1.9.13)
    kind = need(unit.type.target_type, f"units.{unit.key}.target_type")
    hits = 0 if passed else tables()["chemical_hits"]["armored" if kind in HARD else "other"]
    because(ctx, "14.12", f"{unit.name}: {hits} hit(s), no saves")
    return _unsaved_hits(ctx, unit, hits)


def _needs_a_spotter(ctx: Ctx, unit: Unit, spotter: Unit | None) -> None:
    """§14.1: "If a unit which is capable of Indirect Fire has a clear LOS to its target, it
    does not need a Spotter, and so uses Direct Fire to attack that target" (no Scatter);
    §12.0: without that LOS it "does need a Spotter on the map which has a clear LOS"."""
    sees = ctx.game.facts.relation(unit.key).los
    target = ctx.action.target if isinstance(ctx.action.target, str) else None
    target = ctx.game.unit(target).hex if target in ctx.game.units else target
    if sees is None and target is not None and unit.hex is not None and ctx.game.hex(unit.hex).at is not None \
            and ctx.game.hex(target).at is not None:
        # on the map: the firer's own line to the target hex decides (§10.2 traced as for a Spotter)
        try:
            blocked = los.hex_blocked(ctx, unit, target)
        except NotStated:
            blocked = None
        sees = None if blocked is None else not blocked
    if sees is True and (spotter is None or spotter.key != unit.key):
        illegal(ctx, "14.1", f"{unit.name} has a clear LOS to its target: it uses Direct Fire with its HE FP "
                "(direct_fire), not Indirect Fire")
    elif sees is False and spotter is None:
        illegal(ctx, "12.0", f"{unit.name} has no LOS to its target and no Spotter is named: On-Board Indirect "
                "Fire needs a Spotter on the map with a clear LOS to the target hex")


def _on_board(ctx: Ctx, unit: Unit, mission: str | None) -> None:
    ans = ctx.answer
    if unit.type.target_type in ("helicopter", "aircraft"):
        illegal(ctx, "12.0", "Aircraft, including Helicopters, may not take the On-Board Indirect Fire Action")
    if "indirect_fire" not in unit.type.abilities:
        illegal(ctx, "12.0", f"{unit.name} has no gray Special Ability triangle")
    if unit.status.disrupted or unit.status.ops_complete:
        illegal(ctx, "14.1", f"{unit.name} is Disrupted or Ops Complete")
    if in_all_water(ctx, unit):
        illegal(ctx, "10.6.17", f"{unit.name} is in an all-water hex: no Direct or Indirect Fire")
    if ctx.action.cause != "opportunity_fire" and ctx.rules.out_of_command(ctx, unit):
        illegal(ctx, "7.2.3", f"{unit.name} is Out of Command: no Action, only Opportunity Fire (§10.11)")
    if ew_on(formation_hq(ctx, unit)):
        illegal(ctx, "5.2", "no unit of a Formation whose HQ has an EW marker may fire Indirect Fire")
    allowed = tables()["on_board_strikes"].get(mission or "he")
    kind = unit.type.arty_type
    if mission is None:
        because(ctx, "14.6", "Strike type not stated: the Strike chart is not at issue")
    elif allowed is None or (kind is not None and kind not in allowed):
        illegal(ctx, "14.6", f"{mission.upper()} is not an On-Board Strike for {kind or unit.name}")
    distance = _target_distance(ctx)
    if distance is not None and unit.type.arty_type is not None:
        least = ctx.stage("legal", lambda: minimum_range(unit))
        if least is not None and distance < least:
            illegal(ctx, "14.4", f"minimum range {least}, target at {distance}")
    he = unit.current.he
    if he is not None and he.range is not None and distance is not None:
        reach = Bands(he.range)
        band = reach.band(distance)
        if band == OUT_OF_RANGE:
            illegal(ctx, "14.4", f"target beyond the HE range ({reach.max_range})")
        elif he.to_hit is not None and mission == "he":
            mod = BAND_TO_HIT["long"] if band == "long" else 0
            if mod:
                modify(ctx, "to_hit", mod, "Long Range", BAND_SECTION["long"])
            else:
                because(ctx, "14.7.2", "On-Board Indirect Fire takes no Point Blank bonus")
            ans.set("to_hit", min(he.to_hit + mod, 6))
    if ans.legal is None and he is not None and he.fp is not None and mission == "he":
        ans.set("fp", he.fp)


def scatter_direction(ctx: Ctx) -> str:
    return tables()["drift_direction"][ctx.roll(1, "d6")[0]]


def scatter_direction_table(ctx: Ctx) -> None:
    """§16.7.2: 1d6 for the direction a drifting drop (or scattering strike) goes: 1 N, 2 NE, 3 SE, 4 S, 5 SW, 6 NW."""
    ctx.answer.set("scatter", [scatter_direction(ctx)])


def _scatter_check(ctx: Ctx) -> tuple[list[str], bool]:
    """§14.5: 1d6, 1-5 on target; a 6 scatters one hex (direction 1d6), then 1d6: 1-3 it
    stays, 4-5 it scatters another hex, 6 the Strike is cancelled."""
    t = tables()
    ans = ctx.answer
    first = ctx.roll(1, "d6")[0]
    path: list[str] = []
    cancelled = False
    if first >= t["scatter_on"]:
        path.append(scatter_direction(ctx))
        again = ctx.roll(1, "d6")[0]
        if again >= t["scatter_cancel_on"]:
            cancelled = True
        elif again > t["scatter_stays_max"]:
            path.append(scatter_direction(ctx))
    ans.set("scatter", path)
    ans.set("cancelled", cancelled)
    because(ctx, "14.5", "Strike cancelled" if cancelled else
            (f"scatters {' then '.join(path)}" if path else "on target"))
    return path, cancelled


def _cancelled(ctx: Ctx, firer: Unit | None) -> None:
    """A cancelled Strike: the on-board firer is Ops Complete, an off-board Strike used up."""
    if firer is not None:
        ctx.emit(StatusChanged(firer.key, "ops_complete", True))
    else:
        left = need(ctx.game.facts.get("strikes_left"), "situation.strikes_left")
        ctx.answer.set("situation", {"strikes_left": left - 1})


def scatter(ctx: Ctx) -> None:
    """§14.5 Scatter Check on its own: the hexes the FFE marker moves, or a cancelled Strike."""
    _, cancelled = _scatter_check(ctx)
    if cancelled:
        _cancelled(ctx, ctx.game.unit(ctx.action.actor) if ctx.action.actor else None)


def spotter_check(ctx: Ctx) -> None:
    """§14.3: 2d6 less the HQ's or the Leader's Command Bonus (one only) against the
    unit's Morale/Training."""
    unit = ctx.unit(ctx.action.actor)
    _spotter_check(ctx, unit, [ctx.game.unit(k) for k in ctx.action.bonus_from or ()])


def _spotter_check(ctx: Ctx, unit: Unit, named: list[Unit]) -> bool | None:
    """The Spotter Check of ``unit`` with the bonus of ``named`` (the player's choice), else the
    better of its HQ's and its Leader's; whether it passed (``None``: the choice is refused)."""
    hqs, leaders = helpers(ctx, unit)
    if named:                              # the player's choice of whose bonus to subtract
        strangers = [g for g in named if g not in hqs + leaders]
        if strangers:
            illegal(ctx, "14.3", f"{strangers[0].name} is not an HQ deployed to {unit.name} nor a Leader "
                    "assigned to it")
        if len(named) > 1:
            illegal(ctx, "14.3", "Only the HQ's bonus or the Leader's bonus may be used — not both")
        if ctx.answer.legal is False:
            return None
        bonus, why = need(named[0].leadership, f"units.{named[0].key}.leadership"), f"{named[0].name} Command Bonus"
    else:
        bonuses = [need(u.leadership, f"units.{u.key}.leadership") for u in hqs + leaders]
        bonus, why = max(bonuses, default=0), "the better of the HQ or Leader Command Bonus"
    if bonus:
        modify(ctx, "roll", -bonus, why, "14.3")
    return roll(ctx, Check(morale_value(ctx, unit), -bonus), section="14.3")


def strike_reduction(ctx: Ctx) -> None:
    """§14.9.1 MLRS (2 or 12) and §14.11.1 DPICM (2, 3, 11, 12): one FP die less."""
    mission = need(_mission(ctx), "query.mission.type")
    totals = tables()["strike_reduction"].get(mission)
    if totals is None:
        raise NotSupported("WaW85 §14.6", f"no Strike Reduction Check for {mission}")
    fp = whole(need(ctx.action.mission.fp if ctx.action.mission else None, "query.mission.fp"),
               "query.mission.fp")
    ctx.answer.set("hexes_affected", tables()["strike_hexes"][mission])
    total = ctx.roll_2d6("2d6")
    ctx.answer.set("modified_roll", total)
    reduced = total in totals
    ctx.answer.set("fp", fp - 1 if reduced else fp)
    because(ctx, "14.9.1" if mission == "mlrs" else "14.11.1",
            f"2d6 {total}: " + ("FP dice -1" if reduced else "no reduction"))


def chemical_attack(ctx: Ctx) -> None:
    """§14.12 for one unit: 2d6 over Morale/Training, armor 1 hit, others 2; no saves."""
    unit = ctx.unit(ctx.action.actor)
    ctx.answer.set("saves_allowed", False)
    _chemical_attack(ctx, unit)


def chemical_near(ctx: Ctx, hex_id: str) -> bool:
    """§14.12: is there a Chemical Strike marker in ``hex_id`` or a hex adjacent to it (on the
    map, or adjacency stated on either hex)?"""
    near = [hex_id, *(adjacent_hexes(ctx, hex_id) or ())]
    return any("chemical" in ctx.game.hex(h).markers for h in near)


def chemical_move_cost(ctx: Ctx, hex_id: str) -> int:
    """§14.12: +2 MP to enter a hex with or next to a Chemical Strike marker."""
    if chemical_near(ctx, hex_id):
        extra = tables()["chemical_move_cost"]
        modify(ctx, "cost", extra, "entering a hex with or next to a Chemical Strike marker", "14.12")
        return extra
    return 0


# ---------------------------------------------------------------- Minefields ----------

MINES = ("minefield_random", "minefield_placed", "minefield")


def minefield_attack(ctx: Ctx) -> None:
    """§16.2: 1d6 per unit entering (4-5 one hit, 6 two, no saves); a Placed Minefield
    spares its own side; a hit unit retreats to the hex it came from, Ops Complete."""
    unit = ctx.unit(ctx.action.actor)
    hex_state = ctx.game.hex(ctx.action.target if isinstance(ctx.action.target, str) else None)
    marker = next((m for m in MINES if m in hex_state.markers), None)
    if marker is None:
        raise NotStated(f"hexes.{hex_state.id}.markers (a Minefield marker)")
    ctx.answer.unit(unit.key, retreat=0)
    if unit.type.target_type == "helicopter" and unit.mode != "landed":
        ctx.answer.set("roll_required", False)
        ctx.answer.set("hits", 0)
        because(ctx, "9.7", "Helicopters are only affected by minefields if they land in them")
        return
    if marker == "minefield_placed":
        owner = need(hex_state.owner, f"hexes.{hex_state.id}.owner")
        if owner == need(unit.side, f"units.{unit.key}.side"):
            ctx.answer.set("roll_required", False)
            ctx.answer.set("hits", 0)
            because(ctx, "16.2", "a Placed Minefield does not attack its own side")
            return
    ctx.answer.set("roll_required", True)
    hits, eliminated = enter_minefield(ctx, unit, hex_state.id)
    if hits and not eliminated:
        ctx.answer.unit(unit.key, retreat=1)
        back = unit.hex if unit.hex != hex_state.id else None
        if back is not None:
            ctx.emit(*moved_in(ctx, unit.key, back))
        else:
            ctx.answer.gap((f"units.{unit.key}.hex",), f"not stated: units.{unit.key}.hex (the hex "
                           f"{unit.name} entered the Minefield from, where it retreats, §16.2)")
        ctx.emit(StatusChanged(unit.key, "ops_complete", True))
        because(ctx, "16.2", f"{unit.name} retreats to the hex it entered from"
                + (f", {back}" if back else "") + ", Ops Complete (then a §16.2.2 depletion roll)")
    elif hits:
        ctx.answer.unit(unit.key, retreat=1)


def minefield_breach(ctx: Ctx) -> None:
    """§16.3.1: an Engineer, CEV or Mine Plow tank starting adjacent spends all its MPs to
    enter, then 2d6 at or under Morale/Training removes the Minefield; else it retreats,
    Ops Complete."""
    unit = ctx.unit(ctx.action.actor)
    hex_state = ctx.game.hex(ctx.action.target if isinstance(ctx.action.target, str) else None)
    plow = any("mine_plow" in u.type.abilities for u in ctx.game.attached(unit.key))
    if plow and unit.type.target_type != "heavy_armor" and not {"engineer", "cev"} & unit.type.abilities:
        # "Engineers, CEVs, or Heavy Armor with a Mine Plow SW": a Mine Plow makes only Heavy Armor a breacher
        kind = need(unit.type.target_type, f"units.{unit.key}.target_type")
        illegal(ctx, "16.3.1", f"{unit.name} is {kind.replace('_', ' ')}, not Heavy Armor: its Mine Plow SW does "
                "not let it breach Minefields")
    elif not ({"engineer", "cev"} & unit.type.abilities or plow):
        illegal(ctx, "16.3.1", f"{unit.name} cannot breach Minefields")
    if unit.status.disrupted:
        illegal(ctx, "16.3.1", f"{unit.name} is Disrupted")
    distance = hex_state.stated.get("distance")
    here = ctx.game.hex(unit.hex).at if unit.hex is not None else None
    if distance is None and here is not None and hex_state.at is not None:
        distance = here.distance(hex_state.at)          # on the map
    if (distance is not None and distance != 1) or (isinstance(unit.status.mp_spent, int) and unit.status.mp_spent):
        illegal(ctx, "16.3.1", "the breaching unit starts its activation adjacent and spends all its MPs")
    may_act(ctx, unit)                    # a Movement Action (§7.6, §11.0, §7.2.3)
    if ctx.answer.legal is False:
        return
    ctx.answer.set("legal", True)
    # "Upon entering the hex the unit is subject to Opportunity Fire as usual. If it is not
    # Disrupted or Eliminated, it then may immediately roll 2D6 for a Breaching attempt"
    ctx.answer.set("triggers_opportunity_fire", True)
    because(ctx, "16.3.1", f"{unit.name} enters {hex_state.id}, subject to Opportunity Fire as usual")
    marker = next((m for m in MINES if m in hex_state.markers), None)
    if marker is None:
        raise NotStated(f"hexes.{hex_state.id}.markers (a Minefield marker)")
    ctx.answer.unit(unit.key, retreat=0)
    ctx.answer.set("roll_required", True)
    if not ctx.has_dice("2d6") and ctx.action.passed is None:
        ctx.answer.gap(("passed", "hexes", "units"), "not stated: dice.2d6 (the Breaching roll)")
        return
    if roll(ctx, check_for(ctx, unit), section="16.3.1"):        # any Morale/Training check (§1.9.11, §1.9.13)
        ctx.emit(MarkerRemoved(hex_state.id, marker))
        because(ctx, "16.3.1", "the Minefield is breached and removed")
        # it spent all its MPs "to enter the hex": it is there, and Ops Complete (§9.0)
        if unit.hex != hex_state.id:
            ctx.emit(UnitMoved(unit.key, hex_state.id))
        ctx.emit(StatusChanged(unit.key, "ops_complete", True))
        because(ctx, "9.0", f"{unit.name} has entered {hex_state.id} with all its MPs spent: Ops Complete")
    else:
        ctx.answer.unit(unit.key, retreat=1)
        ctx.emit(StatusChanged(unit.key, "ops_complete", True))
        because(ctx, "16.3.1", "breach failed: retreats to the hex it entered from, Ops Complete")


def depletion_roll(ctx: Ctx, hex_id: str) -> None:
    """§16.2.2: "After a unit has been attacked by a Minefield marker of either type, roll 1d6.
    If a 6 is rolled, the Minefield marker is removed." One roll for the Minefield of ``hex_id``.
    """
    die = ctx.roll(1, "d6")[0]
    depleted = die == tables()["mine_depleted_on"]
    because(ctx, "16.2.2", f"depletion 1d6 {die}: " + (f"the Minefield of {hex_id} is removed" if depleted
                                                      else f"the Minefield of {hex_id} remains"))
    if depleted:
        ctx.emit(MarkerRemoved(hex_id, str(next(m for m in MINES if m in ctx.game.hex(hex_id).markers))))


def minefield_depletion(ctx: Ctx) -> None:
    """§16.2.2: after a Minefield attack, 1d6 of 6 removes the marker."""
    hex_state = ctx.game.hex(ctx.action.target if isinstance(ctx.action.target, str) else None)
    marker = next((m for m in MINES if m in hex_state.markers), None)
    if marker is None:
        raise NotStated(f"hexes.{hex_state.id}.markers (a Minefield marker)")
    depletion_roll(ctx, hex_state.id)
