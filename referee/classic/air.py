"""Airstrikes (001 §9.5), air cover (001 §9.6) and AA fire at aircraft."""
from __future__ import annotations

from referee import damage
from referee.errors import NotStated, NotSupported
from referee.events import ModeChanged, StatusChanged, UnitEliminated, UnitRemoved
from referee.classic.ranged import is_hard, terrain_db
from referee.model import Unit, need
from referee.ruleset import Ctx


def airstrike(ctx: Ctx) -> None:
    """001 §9.5: first the defender's AA units and air cover (``supporting``) fire at the
    strike; if it is not hit, AP against hard targets, HE when only soft ones are present, or
    the striker's choice of one unit; terrain DB saves on 5+ without concealment; then the
    status roll."""
    ctx.params.require("airstrikes", "001 §9.5")
    ans = ctx.answer
    plane = ctx.unit(ctx.action.actor)
    if plane.location in ("cup", "removed", "eliminated"):
        ans.illegal("001 §9.5", f"{plane.name} is {'in the cup' if plane.location == 'cup' else 'out of play'}: "
                    "an airstrike attacks when its counter is pulled")
        return
    hex_id = ctx.action.target if isinstance(ctx.action.target, str) else None
    chosen = ctx.game.unit(hex_id) if hex_id in ctx.game.units else None
    if chosen is not None:
        hex_id = chosen.hex
    if not _defended(ctx, plane, need(hex_id, "query.target")):
        return
    units = [u for u in ctx.game.stack(need(hex_id, "query.target"))
             if u.type.target_type not in ("hq", "leader", "support_weapon")]
    hard = [u for u in units if is_hard(u)]
    soft = [u for u in units if not is_hard(u)]
    if hard and soft and chosen is not None and chosen in units:
        ans.set("hit_allocation", "chosen")
        ans.set("weapon", "ap" if is_hard(chosen) else "he")
        ans.because("001 §9.5", f"hard and soft targets: the striker chose {chosen.name}; the hits are assessed "
                    f"against it alone, with the {'AP' if is_hard(chosen) else 'HE'} firepower")
        units = [chosen]
    elif hard and soft:
        ans.set("hit_allocation", "chosen")
        ans.because("001 §9.5", "hard and soft targets: the striker picks one unit and its FP")
    else:
        ans.set("hit_allocation", "spread")
        ans.set("weapon", "ap" if hard else "he")
        ans.because("001 §9.5", "AP against hard targets, HE when only soft targets are present")
    ans.set("concealed", False)
    ans.set("save_number", ctx.params.soft_save)
    if ctx.action.hits is not None:
        hits = ctx.given_hits(plane.key if isinstance(ctx.action.hits, dict) else None)
    else:
        weapon = plane.current.weapon(ans.values.get("weapon") or "")
        if weapon is None:
            raise NotStated("query.target unit chosen by the striker")
        label = f"units.{plane.key}.{ans.values.get('weapon')}"
        fp = need(weapon.fp, f"{label}.fp")
        to_hit = need(weapon.to_hit, f"{label}.to_hit")
        hits = sum(1 for d in ctx.roll(fp, "attack") if d >= to_hit)
    ans.set("hits", hits)
    ctx.stage("ordnance_remaining", lambda: _status_roll(ctx, plane.key, hits))
    if (ans.values.get("hit_allocation") == "spread" or len(units) == 1) and ctx.dice is not None:
        ctx.stage(("saves", "net_hits"), lambda: _strike(ctx, hex_id, [u.key for u in units], hits))


def _status_roll(ctx: Ctx, key: str, hits: int) -> None:
    roll = ctx.roll(1, "d6")[0]
    back = roll > hits
    ctx.answer.set("ordnance_remaining", back)
    ctx.emit(UnitRemoved(key, "cup" if back else "removed"))
    ctx.answer.because("001 §9.5", f"status 1d6 = {roll} vs {hits} hits: "
                       + ("back to the cup" if back else "out of ammo, removed"))


def _strike(ctx: Ctx, hex_id: str, keys: list[str], hits: int) -> None:
    db = terrain_db(ctx, hex_id, "infantry")
    saves = sum(1 for d in ctx.roll(db, "save") if d >= ctx.params.soft_save) if hits else 0
    net = max(0, hits - saves)
    ctx.answer.set("saves", saves)
    ctx.answer.set("net_hits", net)
    for key, n in damage.spread(ctx, keys, net).items():
        damage.take_hits(ctx, key, n)
    damage.aftermath(ctx, keys)


def _defended(ctx: Ctx, plane: Unit, hex_id: str) -> bool:
    """001 §9.5 second step: "in-range, on-map AA units" not Ops Complete (no LOS needed) and
    pulled air cover (001 §9.6) fire at the airstrike counter in its target hex; their hits are
    summed, the counter rolls its armor once. False when the strike does not go on."""
    ans = ctx.answer
    ctx.stage("aa_eligible", lambda: ans.set("aa_eligible", _eligible(ctx, plane, hex_id)))
    shooters = [ctx.game.unit(key) for key in ctx.action.supporting]
    for shooter in shooters:
        _aa_may_fire(ctx, shooter, plane)
        if "air_cover" not in shooter.type.abilities:
            ctx.stage("legal", lambda s=shooter: _aa_in_range(ctx, s, hex_id))
    if ans.legal is False or "legal" in ans.gaps:
        return False
    ans.set("legal", True)
    for shooter in shooters:
        _aa_spent(ctx, shooter)
    if not shooters:
        return True
    if ctx.dice is None and not isinstance(ctx.action.hits, dict):
        ans.gap(("aa_hits", "hits", "ordnance_remaining", "saves", "net_hits"),
                "not stated: dice.aa (the AA fire decides whether the strike goes on, 001 §9.5)")
        return False
    given = ctx.action.hits if isinstance(ctx.action.hits, dict) else {}
    aa_hits = sum(_aa_roll(ctx, shooter, "aa", given.get(shooter.key)) for shooter in shooters)
    ans.set("aa_hits", aa_hits)
    net = _aircraft_takes(ctx, plane, aa_hits, "aa_save", "abort_d6")
    if net:
        ans.set("aborted", True)
        return False
    ans.set("aborted", False)
    return True


def _eligible(ctx: Ctx, plane: Unit, hex_id: str) -> list[str]:
    """Keys of the enemy on-map AA units not Ops Complete with the target hex in AA range."""
    target = need(ctx.game.hex(hex_id).at, f"hexes.{hex_id} position")
    side = need(plane.side, f"units.{plane.key}.side")
    found = []
    for unit in ctx.game.units.values():
        if unit.current.aa is None or not unit.on_map or unit.status.ops_complete \
                or "air_cover" in unit.type.abilities or unit.side is None or unit.side == side:
            continue
        at = need(ctx.game.hex(unit.hex).at if unit.hex else None, f"units.{unit.key} position")
        if at.distance(target) <= need(unit.current.aa.range, f"units.{unit.key}.aa.range"):
            found.append(unit.key)
    return sorted(found)


def _aa_in_range(ctx: Ctx, shooter: Unit, hex_id: str) -> None:
    """001 §9.5: the AA unit reaches the airstrike counter in its target hex."""
    _aa_reaches(ctx, shooter, ctx.game.unit(ctx.action.actor), hex_id)


def aa_fire(ctx: Ctx) -> None:
    """AA fire at an airstrike (001 §9.5: no LOS needed; one hit aborts it, two shoot it
    down) or air cover attacking (001 §9.6); hits on a helicopter apply normally (§9.3)."""
    ans = ctx.answer
    shooter = ctx.unit(ctx.action.actor)
    target = ctx.unit(ctx.action.target if isinstance(ctx.action.target, str) else None, "target")
    _aa_may_fire(ctx, shooter, target)
    if target.type.target_type == "aircraft" and shooter.current.aa is not None \
            and "air_cover" not in shooter.type.abilities:
        if not shooter.on_map:
            ans.illegal("001 §9.5", f"{shooter.name} is not on the map: on-map AA units shoot at the airstrike")
        else:
            ctx.stage("legal", lambda: _aa_reaches(ctx, shooter, target))
    if ans.legal is False or "legal" in ans.gaps:
        return
    ans.set("legal", True)
    _aa_spent(ctx, shooter)
    if ctx.action.hits is not None or ctx.dice is not None:
        ctx.stage(("hits", "saves", "net_hits", "units"), lambda: _aa_attack(ctx, shooter, target))


def _aa_attack(ctx: Ctx, shooter: Unit, target: Unit) -> None:
    hits = _aa_roll(ctx, shooter, "attack", ctx.given_hits(target.key))
    ctx.answer.set("hits", hits)
    _aircraft_takes(ctx, target, hits, "save", "d6")


def _aa_may_fire(ctx: Ctx, shooter: Unit, target: Unit) -> None:
    """§1.3.4.5: AA firepower, at helicopters and aircraft; air cover once pulled (001 §9.6),
    other AA units not Ops Complete (001 §9.5)."""
    ans = ctx.answer
    if shooter.current.aa is None:
        ans.illegal("§1.3.4.5", f"{shooter.name} has no AA firepower")
    if target.type.target_type not in ("aircraft", "helicopter"):
        ans.illegal("§1.3.4.5", "AA fire targets helicopters and aircraft")
    cover = "air_cover" in shooter.type.abilities
    if shooter.side is not None and target.side is not None and shooter.side == target.side:
        ans.illegal("001 §9.6" if cover else "001 §9.5",
                    f"{target.name} is {shooter.name}'s own side's: "
                    + ("air cover counters enemy airstrikes and helicopters" if cover
                       else "the defending player's AA units shoot at the airstrike"))
    if cover:
        ctx.params.require("air_cover", "001 §9.6")
        if shooter.location != "held":
            ans.illegal("001 §9.6", "air cover not yet pulled from the cup cannot counter")
        return
    if shooter.status.ops_complete:
        ans.illegal("001 §9.5", f"{shooter.name} is Ops Complete")


def _aa_longest(unit: Unit) -> int:
    """001 §9.5 "in-range" AA units: within the printed AA range (an AA unit never halves its
    range, §1.3.4.5). Whether extended range (§6.1.1) counts as in range is not stated: the
    referee reads the printed range, and says so."""
    aa = unit.current.aa
    return need(aa.range if aa else None, f"units.{unit.key}.aa.range")


def _aa_reaches(ctx: Ctx, shooter: Unit, plane: Unit, hex_id: str | None = None) -> None:
    """001 §9.5 "in-range, on-map anti-aircraft (AA) units": the airstrike counter in its target
    hex within the AA range: a stated distance, else counted on the map to the target hex."""
    from referee import situation
    if shooter.current.aa is None:
        return                                  # refused already: no AA firepower (§1.3.4.5)
    reach = _aa_longest(shooter)
    distance = ctx.game.facts.relation(plane.key).distance
    if distance is None:
        distance = ctx.game.facts.relation(shooter.key).distance   # stated on the shooter, to the strike
    if distance is None and hex_id is not None and ctx.game.hex(hex_id).at is not None:
        where = ctx.game.hex(shooter.hex).at if shooter.hex else None
        distance = need(where, f"units.{shooter.key} position").distance(ctx.game.hex(hex_id).at)
    if distance is None:
        distance = situation.distance(ctx, shooter.key, plane.key)
    if distance > reach:
        ctx.answer.illegal("001 §9.5", f"{shooter.name} is {distance} hexes from "
                           f"{hex_id or plane.hex or plane.name}: AA range {reach}")
    else:
        ctx.answer.because("001 §9.5", f"{shooter.name} is {distance} hexes from the airstrike: within its "
                           f"AA range {reach} (read as the printed range)")


def _aa_spent(ctx: Ctx, shooter: Unit) -> None:
    """Firing AA marks the unit Ops Complete (001 §9.5); air cover is removed (001 §9.6)."""
    if "air_cover" in shooter.type.abilities:
        ctx.emit(UnitRemoved(shooter.key, "removed"))
        ctx.answer.because("001 §9.6", f"{shooter.name} (air cover) attacks, then is removed from play")
    else:
        ctx.emit(StatusChanged(shooter.key, "ops_complete", True))


def _aa_roll(ctx: Ctx, shooter: Unit, label: str, given: int | None = None) -> int:
    """One AA attack: its hits, ``given`` instead of dice, or rolled."""
    if given is not None:
        return given
    aa = shooter.current.aa
    fp, to_hit = need(aa.fp, f"units.{shooter.key}.aa.fp"), need(aa.to_hit, f"units.{shooter.key}.aa.to_hit")
    hits = sum(1 for d in ctx.roll(fp, label) if d >= to_hit)
    ctx.answer.because("001 §9.5", f"{shooter.name} AA {fp} dice at {to_hit}+: {hits} hit(s)")
    return hits


def _aircraft_takes(ctx: Ctx, target: Unit, hits: int, save_label: str, d6_label: str) -> int:
    """The aircraft's armor roll on the summed hits (001 §9.5), then: a helicopter takes them
    normally (§9.3); an airstrike aborts on one (1d6: 1-3 to base, 4-6 back to the cup) and is
    shot down on two. Returns the net hits."""
    ans = ctx.answer
    armor = need(target.current.armor, f"units.{target.key}.armor")
    save = need(target.current.save, f"units.{target.key}.save")
    saves = sum(1 for d in ctx.roll(armor, save_label) if d >= save) if hits else 0
    net = max(0, hits - saves)
    ans.set("armor_dice", armor)
    ans.set("save_number", save)
    ans.set("saves", saves)
    ans.set("net_hits", net)
    ans.because("001 §9.5", f"{armor} armor dice at {save}+: {saves} saved, {net} net hit(s)")
    if target.type.target_type == "helicopter":
        damage.take_hits(ctx, target.key, net)
        damage.aftermath(ctx, [target.key])
        return net
    aircraft_results(ctx, target, net, d6_label)
    return net


def aircraft_results(ctx: Ctx, target: Unit, net: int, label: str = "d6") -> None:
    """TUS §9.5: one hit aborts an airstrike (1d6: 1-3 it returns to base, removed; 4-6 it
    goes back in the cup, to circle back); two hits shoot it down."""
    ans = ctx.answer
    ans.unit(target.key, hits=net)
    if net >= 2:
        ans.set("roll_required", False)
        ctx.emit(UnitEliminated(target.key))
        ans.because("001 §9.5", "two hits: the aircraft is shot down")
    elif net == 1:
        ans.set("roll_required", True)
        roll = ctx.roll(1, label)[0]
        back = roll >= 4
        ctx.emit(UnitRemoved(target.key, "cup" if back else "removed",
                             result="circles_back" if back else "returns_to_base"))
        ans.because("001 §9.5", f"one hit aborts the strike; 1d6 = {roll}: "
                    + ("it circles back to the cup" if back else "it returns to base"))
    else:
        ans.set("roll_required", False)


def mode_change(ctx: Ctx) -> None:
    """§9.1: a helicopter changes mode once per activation, as its first action; a Bridge
    unit deploys or retracts (001 §1.3.4.6)."""
    unit = ctx.unit(ctx.action.actor)
    ans = ctx.answer
    if "bridge" in unit.type.abilities:
        bridge_mode(ctx, unit)
        return
    if unit.type.target_type != "helicopter":
        raise NotSupported("§9.1, 001 §1.3.4.6", f"{unit.name} has no modes (neither helicopter nor Bridge)")
    mode = ctx.action.choice
    if mode not in ("flying", "hovering"):
        raise NotStated("query.choice (flying or hovering)")
    if unit.mode == mode:
        ans.illegal("§9.1", f"{unit.name} is already {mode}")
    spent = unit.status.mp_spent
    # §9.1 "this must be its FIRST action": not after moving, firing or finishing its operations
    if unit.status.moving or unit.status.ops_complete or unit.status.fired or (isinstance(spent, int) and spent > 0):
        ans.illegal("§9.1", "a mode change must be the helicopter's first action")
    if ans.legal is False:
        return
    ans.set("legal", True)
    ctx.emit(ModeChanged(unit.key, mode))
    ans.because("§9.1", f"{unit.name} flips to {mode}")


BRIDGE_MODE_COST = 2    # 001 §1.3.4.6: "to deploy or retract a bridge costs 2 MPs"


def bridge_mode(ctx: Ctx, unit: Unit) -> None:
    """001 §1.3.4.6: the MTU-54 deploys in a River/Stream hex, or retracts, for 2 MP."""
    ctx.params.require("bridge_units", "001 §1.3.4.6")
    ans = ctx.answer
    mode = ctx.action.choice
    if mode not in ("deployed", "retracted"):
        raise NotStated("query.choice (deployed or retracted)")
    verb = "deploy" if mode == "deployed" else "retract"
    if (unit.mode or "retracted") == mode:
        ans.illegal("001 §1.3.4.6", f"{unit.name} is already {mode}")
    terrain = need(ctx.game.hex(unit.hex).terrain, f"hexes.{unit.hex}.terrain")
    if mode == "deployed" and terrain not in ("river", "stream"):
        ans.illegal("001 §1.3.4.6", f"a bridge deploys in a River/Stream hex, not {terrain}")
    if unit.status.ops_complete:
        ans.illegal("§4.4", f"{unit.name} is Ops Complete")
    if unit.status.out_of_command:
        ans.illegal("§4.4", f"{unit.name} is Out of Command: only units in command conduct operations")
    mp = need(unit.current.mp, f"units.{unit.key}.mp")
    spent = unit.status.mp_spent if isinstance(unit.status.mp_spent, int) else 0
    if spent + BRIDGE_MODE_COST > mp:
        ans.illegal("001 §1.3.4.6", f"{mp - spent} MP left: {verb}ing costs {BRIDGE_MODE_COST}")
    if ans.legal is False:
        return
    ans.set("legal", True)
    ans.set("cost", BRIDGE_MODE_COST)
    ans.unit(unit.key, mp_after=mp - spent - BRIDGE_MODE_COST)
    ctx.emit(ModeChanged(unit.key, mode))
    ans.because("001 §1.3.4.6", f"{unit.name} {verb}s the bridge for {BRIDGE_MODE_COST} MP")
