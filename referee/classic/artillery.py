"""Artillery (§8): fire missions called by HQs, recon and leaders, mortars (§1.3.4.3),
on-map artillery (001 §8.6), HE / DPICM barrages, smoke, FASCAM, chemical, MLRS, and
the Mines marker's attack (§8.3, 001 §12.2)."""
from __future__ import annotations

from referee import damage
from referee.artillery import Strike, adjacent_hexes
from referee.errors import NotStated, NotSupported, RefereeError
from referee.events import MarkerPlaced, MarkerRemoved, MissionsSpent, StatusChanged, UnitDisrupted
from referee.classic.ranged import terrain_db
from referee.defence import improved_position
from referee.model import Unit, need
from referee.ruleset import Ctx

#: 001 §8.6: "HE (34)" for the Warsaw Pact, "DPICM (23)" for NATO.
MLRS = {"pact": ("he", 3, 4), "nato": ("dpicm", 2, 3)}
AREA_MISSIONS = {"chemical", "mlrs", "smoke", "fascam"}     # the hex and its six neighbours
MARKERS = {"smoke": "smoke_2", "fascam": "mines", "chemical": "chemical"}
CALLERS = ("hq", "leader")


def _spotter_ok(ctx: Ctx, spotter: Unit, firer: Unit | None, mission: bool = True) -> bool:
    """HQ, recon (§1.3.4.4) or leader (001 §1.3.6) of the firer's Formation, seeing the target.
    A fire mission (§8.0, and on-map artillery through it, 001 §8.6) is called by an HQ only
    in 002, and must be the caller's FIRST action; a mortar's spotter (§1.3.4.3) is not."""
    calls = spotter.type.target_type in CALLERS or "recon" in spotter.type.abilities
    if not calls:
        ctx.answer.illegal("§8.0", f"{spotter.name} cannot call artillery")
        return False
    if spotter.type.target_type == "leader":
        ctx.params.require("leaders", "001 §8.0")
    if mission and spotter.type.target_type not in CALLERS and not ctx.params.recon_calls_missions:
        ctx.answer.illegal("002 §8.0", f"{spotter.name} is not an HQ: only an HQ calls fire missions")
        return False
    if mission and spotter.status.out_of_command:
        # §4.4: "Conduct operations (move, fire, assault, and other actions as defined by the
        # rules) with units of the Formation that are in command"; calling is such an action
        ctx.answer.illegal("§4.4", f"{spotter.name} is Out of Command: only units in command conduct operations, "
                           "calling artillery among them")
        return False
    spent = spotter.status.mp_spent
    if mission and (spotter.status.ops_complete or spotter.status.moving or spotter.status.fired
                    or (isinstance(spent, int) and spent > 0)):
        ctx.answer.illegal("§8.0", f"calling artillery must be {spotter.name}'s FIRST action")
        return False
    if firer is not None and spotter.formation != firer.formation:
        ctx.answer.illegal("§1.3.4.3, 001 §8.6", f"{spotter.name} is not of {firer.name}'s Formation")
        return False
    blocked = _blocked_to_target(ctx, spotter)
    if ctx.game.facts.relation(spotter.key).los is False or blocked:
        ctx.answer.illegal("§8.0", f"{spotter.name} has no LOS to the target" + (f": {blocked}" if blocked else ""))
        return False
    if spotter.type.target_type not in CALLERS:
        ctx.answer.because("§1.3.4.4", f"{spotter.name} is a recon unit: it calls artillery just as an HQ can")
    ctx.answer.because("§8.0", f"{spotter.name} calls the fire")
    return True


def _blocked_to_target(ctx: Ctx, spotter: Unit) -> str | None:
    """Traced on the map: why the LOS from the caller to the target hex is blocked (§7), or None."""
    from dataclasses import replace
    from referee import los, situation
    target = ctx.action.target
    hex_id = ctx.game.unit(target).hex if isinstance(target, str) and target in ctx.game.units else target
    if not isinstance(hex_id, str) or situation.position(ctx.game, spotter.key) is None \
            or ctx.game.hex(hex_id).at is None or ctx.game.facts.relation(spotter.key).los is not None:
        return None
    if ctx.game.hex(hex_id).at.distance(situation.position(ctx.game, spotter.key)) <= 1:
        return None
    probe = ctx.game.with_unit(Unit("__target_hex__", hex=hex_id, side=None))
    blocked, why = los.unit_blocked(ctx.probe(replace(probe)), spotter, probe.unit("__target_hex__"))
    return f"{why} ({hex_id})" if blocked else None


def _on_map(ctx: Ctx, firer: Unit) -> bool:
    """Mortar or on-map artillery firing indirectly at a unit or hex: no accuracy roll when
    it sees the target (§1.3.4.3, TUS §8.6); returns whether one is needed."""
    ans = ctx.answer
    he = firer.current.he
    if he is not None:
        ans.set("bands", ["effective"] if he.underlined else ["point_blank", "effective", "long"])
    target = ctx.action.target
    # a unit target's ``los`` says whether the firer sees it; for a hex, the firer's own
    # ``los`` says whether it sees query.target (FORMAT.md "Relations")
    sees = ctx.game.facts.relation(target).los if isinstance(target, str) and target in ctx.game.units \
        else ctx.game.facts.relation(firer.key).los if isinstance(target, str) else None
    if firer.type.arty_type not in ("mrtr", "spm"):
        ctx.params.require("on_map_artillery", "001 §8.6")
    if firer.status.disrupted or firer.status.ops_complete:
        ans.illegal("§1.3.4.3, 001 §8.6", f"{firer.name} is {'Disrupted' if firer.status.disrupted else 'Ops Complete'}"
                    " and cannot fire")
    if firer.status.out_of_command:
        ans.illegal("§4.2", f"{firer.name} is Out of Command: OOC units cannot fire during the Formation's impulse")
    if firer.type.arty_type in ("mrtr", "spm"):
        ctx.stage("legal", lambda: _mortar_range(ctx, firer))
    if sees:
        ans.set("roll_required", False)
        ans.because("§1.3.4.3, 001 §8.6", f"{firer.name} sees the target: no accuracy roll")
        return False
    if ctx.action.spotter:
        if _spotter_ok(ctx, ctx.game.unit(ctx.action.spotter), firer, firer.type.arty_type != "mrtr"):
            ans.set("roll_required", True)
        return True
    if sees is False:
        ans.illegal("§1.3.4.3, 001 §8.6", "target outside the LOS and no spotter of the Formation")
        return True
    raise NotStated("units.<target>.los")


def _mortar_range(ctx: Ctx, firer: Unit) -> None:
    """§1.3.4.3: a mortar fires at hexes "in their Line of Sight" with its printed range, which
    "is underlined, so they cannot fire at extended range" (§6.1.1: no farther than an
    underlined range, twice a plain one); fire out of its LOS uses "the firepower and to-hit
    factors printed on the mortar's counter" and is held to the same range."""
    he = firer.current.he
    if he is None or he.range is None:
        return
    target = ctx.action.target
    if isinstance(target, str) and target in ctx.game.units:
        from referee import situation
        reach = situation.distance(ctx, firer.key, target)
        where = ctx.game.unit(target).name or target
    elif isinstance(target, str):
        reach = ctx.game.facts.hex_fact(target, "distance")
        if reach is None:
            from referee import situation
            here, there = situation.position(ctx.game, firer.key), ctx.game.hex(target).at
            if here is None or there is None:
                raise NotStated(f"hexes.{target}.distance (the mortar's range)")
            reach = here.distance(there)
        where = target
    else:
        return
    most = he.range if he.underlined else 2 * he.range
    if reach > most:
        ctx.answer.illegal("§1.3.4.3, §6.1.1", f"{where} is {reach} hexes from {firer.name}, beyond its "
                           + (f"underlined range of {most}" if he.underlined else f"extended range of {most}"))


def fire_mission(ctx: Ctx) -> Strike | None:
    """§8.0: a fire mission on a hex, called by an HQ, a recon unit (§1.3.4.4) or a leader
    (TUS §1.3.6), or fired by a mortar (§1.3.4.3) or on-map artillery (TUS §8.6): who may,
    how many, which mission and its numbers."""
    ans, action = ctx.answer, ctx.action
    firer = ctx.game.unit(action.actor) if action.actor else None
    caller = ctx.game.unit(action.spotter) if action.spotter else None
    roll_required = True
    if firer is not None:
        roll_required = _on_map(ctx, firer)
    elif caller is not None:
        if _spotter_ok(ctx, caller, None):
            ans.set("roll_required", True)
    if firer is None:
        ans.set("max_count", 2)
        if (action.count or 1) > 2:
            ans.illegal("§8.0", "up to two fire missions may be called at once")
        stated = ctx.game.facts.get("strikes_left")
        if stated is not None and stated < (action.count or 1):
            ans.illegal("§8.0", "no fire missions of this type are left" if stated == 0
                        else f"{stated} fire mission(s) left, {action.count or 1} called")
    mission = action.mission
    kind = mission.type if mission else ("he" if firer is not None else None)
    kind = need(kind, "query.mission.type")
    fp = mission.fp if mission else None
    to_hit = mission.to_hit if mission else None
    if firer is not None and firer.current.he is not None:
        fp = fp if fp is not None else firer.current.he.fp
        to_hit = to_hit if to_hit is not None else firer.current.he.to_hit
    side = (caller or firer).side if (caller or firer) is not None else action.side
    _mission_user(ctx, kind, side or action.side, (caller or firer).nation if (caller or firer) else None)
    allotment = side if firer is None and side in ctx.game.missions_left else kind
    left = ctx.game.missions_left.get(allotment)
    if left is not None and left < (action.count or 1):
        ans.illegal("§8.0", f"{allotment}: {left} fire mission(s) left, {action.count or 1} called")
    if kind == "mlrs" and not ctx.params.has("mlrs"):
        ans.illegal("§8.0", "this book's artillery has five types of fire mission (HE, Smoke, FASCAM, Chemical, "
                    "DPICM): the MLRS Strike is The Untold Stories' (001 §8.6)")
        return None
    if kind == "mlrs":
        side = need(action.side or (firer.side if firer else None), "query.side")
        kind, fp, to_hit = MLRS[side]
        ans.set("mission", {"type": kind, "fp": fp, "to_hit": to_hit})
        ans.because("001 §8.6", f"MLRS: {kind.upper()} {fp}/{to_hit}+ on the hex and its six neighbours")
        ans.set("hexes_affected", 7)
    else:
        ans.set("mission", {"type": kind, "fp": fp, "to_hit": to_hit})
        ans.set("hexes_affected", 7 if kind in AREA_MISSIONS else 1)
    if kind in MARKERS:
        ans.set("max_markers", 1)
    if ans.legal is False:
        return None
    if firer is not None:
        ctx.emit(StatusChanged(firer.key, "ops_complete", True))
        ans.because("§1.3.4.3, 001 §8.6", f"{firer.name} is marked Ops Complete")
    elif left is not None and allotment == side:
        ctx.emit(MissionsSpent(side, action.count or 1))
    if firer is None and stated is not None:
        # §8.0: the scenario's "1 x 4/5" states the number of fire missions; each call spends one.
        ans.set("situation", {"strikes_left": stated - (action.count or 1)})
    hex_id = action.target if isinstance(action.target, str) and action.target not in ctx.game.units \
        else (ctx.game.unit(action.target).hex if isinstance(action.target, str) else None)
    return Strike(hex_id, kind, fp, to_hit, firer, caller if firer is None else None, roll_required,
                  area=bool(mission and mission.type == "mlrs"))


#: Who a book's nation-only mission belongs to, as its text says it (002 §8.3, §8.4).
NATION_WORDS = {"fascam": "the Americans", "chemical": "the Soviets"}


def _mission_user(ctx: Ctx, kind: str, side: str | None, nation: str | None) -> None:
    """Chemical missions are the Warsaw Pact's (001 §8.4) or only the Soviets' (002 §8.4 "Only
    the Soviets have access"), FASCAM only the Americans' (002 §8.3; 001 §8.3 names no side).
    A side or nation not stated is the scenario's allotment to judge."""
    section = "§8.3" if kind == "fascam" else "§8.4"
    only = ctx.params.mission_sides.get(kind)
    nations = ctx.params.mission_nations.get(kind)
    if only is not None and side is not None and side != only:
        who = NATION_WORDS[kind] if nations is not None else ("the Warsaw Pact" if only == "pact" else "NATO")
        ctx.answer.illegal(section, f"only {who} may use {kind} fire missions")
    elif nations is not None and nation is not None and nation.strip().lower() not in nations:
        ctx.answer.illegal(section, f"only {NATION_WORDS[kind]} may use {kind} fire missions (the caller is {nation})")


def accuracy(ctx: Ctx, strike: Strike) -> str | None:
    """§8.0: 1d6, 1-5 the mission hits the target hex; 6 it strikes an adjacent hex the
    opponent designates (``scatter=HEX``; without it the answer lists the hexes)."""
    ans = ctx.answer
    if not ctx.has_dice("d6"):
        ans.set("scatter", [])
        ans.because("§8.0", "no accuracy roll given: the mission lands on the target hex")
        return strike.hex
    roll = ctx.roll(1, "d6")[0]
    ans.set("modified_roll", roll)
    if roll <= 5:
        ans.set("scatter", [])
        ans.because("§8.0", f"accuracy 1d6 = {roll}: the mission hits the target hex {strike.hex}")
        return strike.hex
    around = adjacent_hexes(ctx, strike.hex)
    named = ctx.action.scatter
    if named is None:
        # §8.0 "a hex designated by your opponent that is adjacent to the intended target hex": the
        # target hex itself is not struck, whichever neighbour the opponent picks; only what happens
        # in that neighbour waits for his choice. A barrage that also covers the impact hex's six
        # neighbours (Chemical §8.4, the MLRS Strike 001 §8.6) reaches the target hex all the same.
        ans.set("scatter", ["opponent_choice"])
        why = "not stated: the adjacent hex the opponent designates (scatter=HEX" + (
            f": one of {', '.join(around)})" if around else ")")
        ans.gap(("hits", "saves", "net_hits"), why)
        reaches_target = strike.kind == "chemical" or strike.area
        for unit in ctx.game.units.values():
            if unit.hex != strike.hex or reaches_target:
                ans.gap(f"units.{unit.key}", why)
        for hex_id in ctx.game.hexes:
            if hex_id != strike.hex:
                ans.gap(f"hexes.{hex_id}", why)
        ans.because("§8.0", f"accuracy 1d6 = {roll}: the opponent designates a hex adjacent to {strike.hex}; "
                    f"{strike.hex} is not struck")
        return None
    if around is not None and named not in around:
        raise RefereeError(f"scatter={named}: the mission lands in a hex adjacent to {strike.hex} "
                           f"(one of {', '.join(around)})")
    ans.set("scatter", [named])
    ans.because("§8.0", f"accuracy 1d6 = {roll}: the opponent designates {named}, next to {strike.hex}")
    return named


def strike(ctx: Ctx, strike: Strike, hex_id: str) -> None:
    """The mission where it landed: HE and DPICM are resolved (§8.1, §8.5); Smoke, FASCAM
    and Chemical place their marker (§8.2-§8.4), a Chemical barrage checks morale at once."""
    ans = ctx.answer
    if strike.kind in MARKERS:
        marker = MARKERS[strike.kind]
        ctx.emit(MarkerPlaced(hex_id, marker))
        ans.because("§8.2-§8.4", f"{marker.replace('_', ' ')} marker placed in {hex_id}")
        if strike.kind == "chemical":
            ctx.stage("units", lambda: chemical_barrage(ctx, hex_id))
        return
    if strike.fp is None or strike.to_hit is None:
        raise NotStated("query.mission.fp and to_hit")
    if strike.area:
        _area_beyond_the_hex(ctx, hex_id)
    barrage(ctx, hex_id, strike.kind, strike.fp, strike.to_hit)


def _area_beyond_the_hex(ctx: Ctx, hex_id: str) -> None:
    """001 §8.6: the MLRS Strike "covers the target hex plus its six adjacent hexes", but the
    book does not say whether one attack roll serves the seven hexes (its hits spread over
    every unit there) or each hex is rolled apart. With units around the impact hex (or
    neighbours not known) the results are a gap, never the impact hex resolved alone."""
    around = adjacent_hexes(ctx, hex_id)
    beyond = [u for u in ctx.game.units.values()
              if u.hex is not None and u.hex != hex_id and u.type.target_type not in ("hq", "leader", "support_weapon")
              and (around is None or u.hex in around)]
    if beyond:
        raise NotStated("unsettled: 001 §8.6 covers the six hexes around the impact hex but does not say whether "
                        "one attack roll serves all seven hexes or each is rolled apart ("
                        + ", ".join(u.key for u in beyond) + " beside the impact hex)")


def barrage(ctx: Ctx, hex_id: str, kind: str, fp: int, to_hit: int) -> None:
    """§8.1 HE and §8.5 DPICM: roll FP dice, infantry DB saves on 5+, spread the hits."""
    ans = ctx.answer
    units = [u for u in ctx.game.stack(hex_id) if u.type.target_type not in ("hq", "leader", "support_weapon")]
    if kind == "dpicm":
        spared = [u for u in units if not damage.is_armored(u)]
        units = [u for u in units if damage.is_armored(u)]
        for unit in spared:
            ans.unit(unit.key, hits=0)
        if spared:
            ans.because("§8.5", "DPICM only affects AFVs: " + ", ".join(u.name for u in spared) + " unaffected")
    ans.set("hit_allocation", "spread")     # §8.1: all target units take one hit before any takes two
    dice = ctx.roll(fp, "attack")
    hits = sum(1 for d in dice if d >= to_hit)
    db = terrain_db(ctx, hex_id, "infantry")
    ans.set("hits", hits)
    ans.set("defense_dice", db)
    ans.set("save_number", ctx.params.soft_save)
    # TUS §12.1: an Improved Position "nullifies the first hit of any attack"; the terrain dice
    # then save the rest (its example: the IP negates the first hit, the Woods die the second).
    left = improved_position(ctx, units[0], hits) if units else hits
    saves = sum(1 for d in ctx.roll(db, "save") if d >= ctx.params.soft_save) if left else 0
    net = max(0, left - saves)
    ans.set("saves", saves)
    ans.set("net_hits", net)
    ans.because("§8.1", f"{fp} dice at {to_hit}+: {hits} hit(s); {db} DB dice at 5+: {saves} saved; {net} net")
    for key, n in damage.spread(ctx, [u.key for u in units], net).items():
        damage.take_hits(ctx, key, n, barrage=kind == "he")
    damage.aftermath(ctx, [u.key for u in units])


def minefield_attack(ctx: Ctx) -> None:
    """Mines attack a unit entering the hex or its neighbours: one 1d6, parity by book. A unit
    entering a hex that is neither the Mines hex nor one of its six neighbours is not attacked,
    nor, in The Untold Stories, a helicopter that does not land (001 §12.2 "any unit that enters
    (or helicopter that lands in) the hex or the six adjacent hexes")."""
    unit = ctx.unit(ctx.action.actor)
    entered = ctx.action.target if isinstance(ctx.action.target, str) else None
    section = "001 §12.2" if ctx.params.mines_disrupt_on == "odd" else "002 §8.3"
    if unit.type.target_type == "helicopter" and ctx.params.mines_spare_flying_helicopters \
            and unit.mode in ("flying", "hovering"):
        ctx.answer.set("roll_required", False)
        ctx.answer.because(section, f"{unit.name} is {unit.mode}: mines attack only a helicopter that lands")
        return
    mined = _mined_hex(ctx, entered)
    if mined is None:
        ctx.answer.set("roll_required", False)
        ctx.answer.because(section, f"{entered} is neither a Mines hex nor next to one: no mines attack")
        return
    ctx.answer.set("roll_required", True)
    mines_attack(ctx, unit, mined)


def _mined_hex(ctx: Ctx, entered: str | None) -> str | None:
    """The hex whose Mines marker attacks a unit entering ``entered``: that hex, or the
    neighbour holding the marker (002 §8.3, TUS §12.2: the hex "or its six neighboring hexes");
    None when it is neither (its stated ``adjacent_to`` or the map says so)."""
    if entered is None or "mines" in ctx.game.hex(entered).markers:
        return entered
    stated = ctx.game.facts.hex_fact(entered, "adjacent_to")
    here = ctx.game.hex(entered).at
    fields = [h for h in ctx.game.hexes.values() if "mines" in h.markers]
    for h in fields:
        if h.id in (stated or ()) or (here is not None and h.at is not None and here.distance(h.at) == 1):
            return h.id
    if not fields:
        raise NotStated("the hex of the Mines marker")
    if stated is None and (here is None or any(h.at is None for h in fields)):
        raise NotStated(f"hexes.{entered}.adjacent_to (whether it is next to the Mines hex)")
    return None


def mines_attack(ctx: Ctx, unit: Unit, hex_id: str | None, label: str = "d6") -> bool:
    """One attack of the Mines marker in ``hex_id`` on ``unit`` (002 §8.3 even / 001 §12.2 odd
    disrupts; a 6 removes the marker). Returns whether the marker was removed."""
    roll = ctx.roll(1, label)[0]
    odd = roll % 2 == 1
    disrupts = odd if ctx.params.mines_disrupt_on == "odd" else not odd
    section = "001 §12.2" if ctx.params.mines_disrupt_on == "odd" else "002 §8.3"
    ctx.answer.because(section, f"mines 1d6 = {roll}: " + ("disrupted" if disrupts else "no effect"))
    already = unit.status.disrupted or any(
        isinstance(e, UnitDisrupted) and e.unit == unit.key for e in ctx.answer.events)
    if disrupts and not already:
        ctx.emit(UnitDisrupted(unit.key))
    if roll == 6 and hex_id is not None:
        ctx.emit(MarkerRemoved(hex_id, "mines"))
        ctx.answer.because(section, "a 6 removes the Mines marker")
        return True
    return False


def scatter(ctx: Ctx) -> None:
    """§8.0 accuracy: 1d6, 1-5 on the target hex, 6 on an adjacent hex the opponent picks;
    a classic mission is never cancelled by it (WaW85 §14.5 can be)."""
    roll = ctx.roll(1, "d6")[0]
    on_target = roll <= 5
    ctx.answer.set("modified_roll", roll)
    ctx.answer.set("passed", on_target)
    ctx.answer.set("cancelled", False)
    ctx.answer.set("scatter", [] if on_target else ["opponent_choice"])
    ctx.answer.set("outcome", "on_target" if on_target else "adjacent_hex_chosen_by_opponent")
    ctx.answer.because("§8.0", f"accuracy 1d6 = {roll}: " + (
        "the mission hits the target hex" if on_target else "the opponent picks an adjacent hex"))


def place_marker(ctx: Ctx) -> None:
    """Place a Smoke 2, Mines or Chemical marker (§8.2-§8.4) with its immediate effect:
    a Chemical marker makes every unit in the hex and its six neighbours check morale."""
    hex_id = ctx.action.target if isinstance(ctx.action.target, str) else None
    hex_id = need(hex_id, "query.target")
    marker = ctx.action.choice
    if marker not in ("smoke_2", "mines", "chemical", "improved_position"):
        raise NotSupported("§8", f"placing a {marker} marker")
    ctx.emit(MarkerPlaced(hex_id, marker))
    ctx.answer.set("legal", True)
    ctx.answer.because("§8.2-§8.4, 001 §12", f"{marker.replace('_', ' ')} marker placed in {hex_id}")
    if marker == "chemical":
        chemical_barrage(ctx, hex_id)


def chemical_barrage(ctx: Ctx, hex_id: str) -> None:
    """§8.4: the barrage "immediately affects all units in that hex and its six neighboring
    hexes": each checks morale (passengers share their carrier's result)."""
    from referee.classic.command import chemical_check
    around = adjacent_hexes(ctx, hex_id)
    hexes = [hex_id] + list(around or ())
    if around is None:
        for unit in ctx.game.units.values():
            if unit.hex is not None and unit.hex != hex_id:
                ctx.answer.gap(f"units.{unit.key}", f"not stated: hexes.{hex_id} position or neighbours "
                               "(its six neighbours are attacked too, §8.4)")
    for h in hexes:
        for unit in ctx.game.stack(h):
            if unit.carried_by is None and unit.type.target_type not in ("hq", "leader", "support_weapon"):
                chemical_check(ctx, unit)
