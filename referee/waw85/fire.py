"""WaW85 Direct Fire (§10), Opportunity Fire (§10.11) and Move & Fire (§11).

The shape is the classic one (status, weapon, range band, to-hit and FP, defence roll,
results), but WaW85 decides who may fire at what by firepower colour and target type,
has four range bands, and lists its modifiers and caps in §10.6.1-§10.6.17; the
defence roll and the step ladder come from :mod:`referee.waw85.defence` and
:mod:`referee.waw85.results`.
"""
from __future__ import annotations

from dataclasses import dataclass

from referee.errors import NotStated
from referee.events import StatusChanged
from referee.model import Unit, Weapon, need
from referee.ruleset import Ctx
from referee.waw85 import defence, los, results
from referee.waw85.common import (VEHICLES, air_class, because, illegal, modify, side_group,
                                  distance_to, stated_hits, tables, target_kind, whole)
from referee.waw85.smoke import smoke_to_hit

BAND_TO_HIT = {"point_blank": -1, "effective": 0, "long": 1}
BAND_SECTION = {"point_blank": "10.6.4", "effective": "10.3.2", "long": "10.6.5"}


# ---------------------------------------------------------------- who may fire at what ----

def is_missile_aa(weapon: Weapon) -> bool:
    """Blue firepower with a blue range: a missile-armed Anti-Aircraft unit (§1.9.1, §1.9.2)."""
    return weapon.colour == "blue" and weapon.range_colour == "blue"


def may_attack(ctx: Ctx, name: str, weapon: Weapon, target: Unit) -> None:
    """§10.1 with §1.9.1, §1.9.2 and the §10.6.1 exceptions: which firepower hits which target."""
    if target.type.target_type is None:
        because(ctx, "10.1", f"{target.name}: target type not stated, FP eligibility not at issue")
        return
    kind = target_kind(target)
    colour = weapon.colour
    noe = target.type.target_type == "helicopter" and target.mode == "nap_of_earth"
    if is_missile_aa(weapon):
        if noe:
            illegal(ctx, "10.6.1", "NOE Helicopters may not be attacked by missile-armed AA units")
            return
        if kind != "aircraft" and name != "he":
            illegal(ctx, "1.9.1", "blue AP with a blue range may only fire at aircraft")
            return
    if name == "aa" and kind in ("troops", "heavy_armor"):
        raise NotStated(f"units.{ctx.action.actor}.aa (whether the blue value is AP or HE, §10.1)")
    if name == "ap":
        if colour == "green":
            if kind == "aircraft" or noe:
                illegal(ctx, "10.6.1", "a green AP value may not fire at Flying, Hovering or NOE "
                        "Helicopters or CAS")
            elif kind not in VEHICLES and kind != "helicopter_ground":
                illegal(ctx, "1.9.1", "green AP may only attack vehicles or Landed Helicopters")
        elif kind == "troops":
            illegal(ctx, "10.1", "AP may attack vehicles or aircraft, not Troops")
        return
    if name in ("he", "aa") and kind == "heavy_armor":
        if "high_rate_of_fire_he" not in ctx.unit(ctx.action.actor).type.abilities:
            illegal(ctx, "10.1", "HE may attack Heavy Armor only with High Rate of Fire HE")


# ---------------------------------------------------------------- range ---------------

@dataclass(frozen=True)
class Reach:
    """The bands of one printed range (§10.3): point blank to half, effective to printed,
    long to double; AA fire by black or orange dice (§10.6.1) and High Rate of Fire HE at
    Heavy Armor (§10.1) stop at the printed range."""

    printed: int
    printed_only: bool

    @property
    def bands(self) -> list[str]:
        if self.printed_only:
            return ["effective"]
        return (["point_blank"] if self.printed // 2 >= 1 else []) + ["effective", "long"]

    @property
    def max_range(self) -> int:
        return self.printed if self.printed_only else 2 * self.printed

    def band(self, distance: int) -> str:
        if distance > self.max_range:
            return "out_of_range"
        if self.printed_only:
            return "effective"
        if distance <= self.printed // 2:
            return "point_blank"
        return "effective" if distance <= self.printed else "long"


def _distance(ctx: Ctx, target: Unit | None) -> int | None:
    return None if target is None else distance_to(ctx, target.key)


# ---------------------------------------------------------------- the shot ------------

@dataclass
class Shot:
    """What one attack adds up to before the dice: to-hit and FP modifiers by section."""

    to_hit: int = 0
    fp: int = 0
    aa_restricted: bool = False


def _status(ctx: Ctx, actor: Unit, opportunity: bool) -> None:
    if actor.status.disrupted:
        illegal(ctx, "10.0", f"{actor.name} is Disrupted and cannot fire")
    if actor.status.ops_complete:
        illegal(ctx, "10.0", f"{actor.name} is Ops Complete and cannot fire")
    if actor.status.out_of_command and not opportunity:
        illegal(ctx, "7.2.3", f"{actor.name} is Out of Command: Opportunity Fire only")
    if opportunity and (ctx.game.facts.get("opfire_count") or 0) >= 1:
        illegal(ctx, "10.11", "only one Opportunity Fire attack per hex of movement")


def _firer_restrictions(ctx: Ctx, actor: Unit, weapon: Weapon | None) -> None:
    """Passengers do not fire (§9.8); amphibious units in all-water hexes do not fire
    (§10.6.17); missiles wait while Reloading or with No Missile Ammo (§7.3)."""
    if actor.carried_by is not None:
        illegal(ctx, "9.8", f"{actor.name} is a Passenger and must unload to fire")
    if actor.hex is not None and ctx.game.hex(actor.hex).terrain in ("water", "all_water"):
        illegal(ctx, "10.6.17", f"{actor.name} is in an all-water hex")
    missile = weapon is not None and (weapon.colour == "green" or is_missile_aa(weapon))
    if missile and actor.status.ammo in ("reloading", "out"):
        illegal(ctx, "7.3", f"{actor.name} is {'Reloading' if actor.status.ammo == 'reloading' else 'out of'} "
                "missiles: no green or blue missile fire")


def _helicopter(ctx: Ctx, actor: Unit, weapon_name: str | None) -> None:
    """§9.7: NOE Helicopters do not fire, Landed ones not their green AP, Flying ones not
    after more than 12 MPs."""
    if actor.type.target_type != "helicopter":
        return
    mode = need(actor.mode, f"units.{actor.key}.mode")
    weapon = actor.current.weapon(weapon_name) if weapon_name else None
    if mode == "nap_of_earth":
        illegal(ctx, "9.7.2", "a NOE Helicopter may not fire its weapons")
    elif mode == "landed" and weapon is not None and weapon.colour == "green":
        illegal(ctx, "9.7.4", "a Landed Helicopter may not fire a green AP value")
    elif mode == "flying":
        spent = actor.status.mp_spent
        limit = tables()["helicopter_move_and_fire_mp"]
        if isinstance(spent, int) and spent > limit:
            illegal(ctx, "9.7.1", f"a Flying Helicopter that expends more than {limit} MPs may not fire")


def _support_weapons(ctx: Ctx, actor: Unit, kind: str) -> None:
    """§10.5, §10.11: a deployed Support Weapon fires before or after its unit in Direct
    Fire; in Opportunity Fire it fires in place of the unit's own FP."""
    weapons = [sw for sw in ctx.game.attached(actor.key) if sw.type.target_type == "support_weapon"
               and (sw.current.ap is not None or sw.current.he is not None)]
    if not weapons:
        return
    keys = [sw.key for sw in weapons]
    if kind == "opportunity_fire":
        ctx.answer.set("participants", keys)
        because(ctx, "10.11", "in Opportunity Fire the Support Weapon fires in place of its unit")
    else:
        ctx.answer.set("participants", [*keys, actor.key])
        because(ctx, "10.5", "the Support Weapon may fire just before or after its unit")


def _sight(ctx: Ctx, actor: Unit, target: Unit) -> None:
    """§10.2: a stated LOS, or the LOS traced through the stated intervening hexes."""
    relation = ctx.game.facts.relation(target.key)
    adjacent = relation.adjacent or (relation.distance is not None and relation.distance <= 1)
    if relation.los is False and not adjacent:
        illegal(ctx, "10.2", f"no LOS to {target.name}")
    elif relation.los is None and (ctx.game.facts.get("intervening") is not None
                                   or ctx.game.facts.get("along_hexsides") is not None):
        if los.blocked(ctx, actor, target):
            ctx.answer.set("blocked", True)
            illegal(ctx, "10.2", f"the LOS to {target.name} is blocked")


def _move_and_fire(ctx: Ctx, actor: Unit, weapon: Weapon, shot: Shot) -> None:
    """§11.0 Move & Fire Summary Chart: the FP change by colour, side and MPs expended."""
    spent = need(actor.status.mp_spent, f"units.{actor.key}.status.mp_spent")
    if ctx.answer.legal is False:
        return
    if actor.type.target_type == "helicopter":
        because(ctx, "11.0", "Move & Fire does not change a Flying Helicopter's FP or To-Hit")
        return
    colour = need(weapon.colour, f"units.{actor.key}.{ctx.answer.values.get('weapon')}.color")
    row = tables()["move_and_fire"][colour]
    if "up_to_half" not in row:
        row = row[side_group(actor)]
    if isinstance(spent, int):
        over = spent > need(actor.current.mp, f"units.{actor.key}.mp") // 2
    else:
        over = spent == "more_than_half"
    change = row["over_half" if over else "up_to_half"]
    if change is None:
        illegal(ctx, "11.0", f"{colour} FP may not fire after more than half its MPs")
        return
    shot.fp += change
    ctx.answer.set("modifiers", {"to_hit": 0, "fp": change})
    because(ctx, "11.0", f"Move & Fire, {colour} FP, {'more' if over else 'up to'} half MPs: FP {change:+d}")


def _may_move_and_fire(ctx: Ctx, actor: Unit) -> None:
    """§11.0: at least 1 MP before firing; §9.5: an unbridged River crossing is a Movement
    or Assault Action, never Move & Fire."""
    if "amphibious" in actor.type.abilities and ctx.game.facts.get("hexside") == "river":
        illegal(ctx, "9.5", "an unbridged River crossing must be a Movement or Assault Action, "
                "not Move & Fire")
    if actor.status.mp_spent == 0:
        illegal(ctx, "11.0", "a Move & Fire Action must expend at least 1 MP")


def _command_bonus(ctx: Ctx, shot: Shot) -> None:
    """§10.6.2: one HQ or one Leader Command Bonus, never both."""
    givers = [ctx.game.unit(k) for k in ctx.action.bonus_from or ()]
    kinds = {g.type.target_type for g in givers}
    if {"hq", "leader"} <= kinds:
        illegal(ctx, "10.6.2", "a unit may use the HQ or the Leader Command Bonus, not both")
        return
    for giver in givers:
        bonus = need(giver.leadership, f"units.{giver.key}.leadership")
        shot.fp += bonus
        modify(ctx, "fp", bonus, f"{giver.name} Command Bonus", "10.6.2")


def _volley(ctx: Ctx, actor: Unit, shot: Shot, kind: str) -> list[str]:
    """§10.6.10: Pact Heavy Armor stacked with Heavy Armor of its nation, Direct Fire only."""
    partners = [ctx.game.unit(k) for k in ctx.action.supporting]
    if not partners:
        return []
    if kind != "direct_fire":
        because(ctx, "10.6.10", "no Volley Fire in Opportunity Fire or Move & Fire")
        return []
    ok = [p for p in partners if actor.type.target_type == "heavy_armor"
          and p.type.target_type == "heavy_armor" and side_group(actor) == "pact"
          and p.nation == actor.nation and p.hex == actor.hex
          and not (p.status.disrupted or p.status.ops_complete)]
    if not ok:
        because(ctx, "10.6.10", "Volley Fire is for Pact Heavy Armor stacked with its own nation's")
        return []
    shot.fp += 1
    modify(ctx, "fp", 1, "Volley Fire", "10.6.10")
    return [p.key for p in ok]


def is_parachute(unit: Unit) -> bool:
    """A landing parachute unit: a ground unit under Anti-Aircraft Fire (§16.7.3)."""
    return unit.type.target_type not in ("aircraft", "helicopter")


def _parachute_target(ctx: Ctx, name: str, weapon: Weapon) -> None:
    """§16.7.3: only HE values, and no missile-armed AA, fire at landing parachutes."""
    if is_missile_aa(weapon):
        illegal(ctx, "16.7.3", "missile-armed Anti-Aircraft units may not fire at parachute units")
    elif name != "he":
        illegal(ctx, "16.7.3", "only HE values may fire at landing parachute units")


def _contributions(ctx: Ctx, shot: Shot) -> None:
    """§4.2, §16.7.3: +1 FP die per contributing unit, at most +2."""
    count = len(ctx.action.supporting)
    if count:
        bonus = min(count, 2)
        shot.fp += bonus
        modify(ctx, "fp", bonus, f"{count} contributing unit(s), at most +2", "4.2")


def cas_weapon(ctx: Ctx, actor: Unit, target: Unit) -> str:
    """§4.3: a CAS uses AP or HE, whichever may affect the target unit (§10.1)."""
    kind = target_kind(target)
    usable = [n for n in ("ap", "he") if actor.current.weapon(n) is not None
              and (n != "ap" or kind != "troops") and (n != "he" or kind != "heavy_armor")]
    if len(usable) != 1:
        raise NotStated("query.weapon")
    because(ctx, "4.3", f"the CAS uses its {usable[0].upper()} FP against {target.name}")
    return usable[0]


def _cas_numbers(ctx: Ctx, weapon: Weapon, shot: Shot) -> None:
    """§4.3: a CAS attack takes no Point Blank or Long Range modifier."""
    because(ctx, "4.3", "CAS attacks take no Point Blank or Long Range modifiers")
    ctx.answer.set("modifiers", {"to_hit": shot.to_hit, "fp": shot.fp})
    if weapon.fp is not None:
        ctx.answer.set("fp", final_fp(weapon.fp, shot))
    if weapon.to_hit is not None:
        ctx.answer.set("to_hit", final_to_hit(weapon.to_hit, shot.to_hit, shot))


def _aa_fire(ctx: Ctx, weapon: Weapon, target: Unit | None, shot: Shot) -> None:
    """§10.6.1: black or orange dice at aircraft (parachutes count as flying, §16.7.3):
    printed range, FP -2, To-Hit 6."""
    if target is None or weapon.colour == "blue":
        return
    if not air_class(target) and not (ctx.action.kind == "aa_fire" and is_parachute(target)):
        return
    need(weapon.colour, "weapon.color")
    shot.aa_restricted = True
    shot.fp -= 2
    modify(ctx, "fp", -2, "Anti-Aircraft Fire with black or orange dice", "10.6.1")


def _landed_target(ctx: Ctx, target: Unit | None, shot: Shot) -> None:
    if target is not None and target.type.target_type == "helicopter" and target.mode == "landed":
        shot.fp += 1
        shot.to_hit -= 1
        modify(ctx, "fp", 1, "target is a Landed Helicopter", "10.6.11")
        modify(ctx, "to_hit", -1, "target is a Landed Helicopter", "10.6.11")


def band_to_hit(ctx: Ctx, band: str, distance: int | None) -> int:
    """§10.6.4, §10.6.5 and the night rule of §16.6.1 (point blank only when adjacent,
    always long beyond)."""
    if ctx.game.facts.get("night") and distance is not None:
        if distance <= 1:
            return BAND_TO_HIT[band]
        because(ctx, "16.6.1", "night: non-adjacent targets always take the Long Range penalty")
        return BAND_TO_HIT["long"]
    return BAND_TO_HIT[band]


def final_to_hit(base: int, modifiers: int, shot: Shot) -> int:
    if shot.aa_restricted:
        return 6                                     # §10.6.1
    return min(base + modifiers, 6)                  # §10.6.15


def final_fp(base: int, shot: Shot) -> int:
    return max(base + shot.fp, 1)                    # §10.6.16


def fire(ctx: Ctx, kind: str) -> None:
    """One Direct Fire, Opportunity Fire or Move & Fire attack (``kind`` is the action)."""
    a, ans = ctx.action, ctx.answer
    actor = ctx.unit(a.actor)
    target = ctx.game.unit(a.target) if isinstance(a.target, str) else None
    _status(ctx, actor, kind in ("opportunity_fire", "aa_fire"))
    name = a.weapon
    if kind == "cas_attack" and name is None and target is not None:
        name = ctx.stage(("weapon", "legal", "to_hit", "fp"), lambda: cas_weapon(ctx, actor, target))
    _helicopter(ctx, actor, name)
    if kind == "move_and_fire":
        _may_move_and_fire(ctx, actor)
    shot = Shot()
    weapon = actor.current.weapon(name) if name else None
    if name is not None:
        ans.set("weapon", name)
    if name is not None and weapon is None:
        printed = any(actor.current.weapon(n) for n in ("ap", "he", "aa"))
        if printed:
            illegal(ctx, "10.0", f"{actor.name} has no {name.upper()} firepower")
    _firer_restrictions(ctx, actor, weapon)
    if weapon is not None:
        if kind == "move_and_fire":
            ctx.stage(("legal", "fp", "modifiers"), lambda: _move_and_fire(ctx, actor, weapon, shot))
        if target is not None and kind == "aa_fire" and is_parachute(target):
            _parachute_target(ctx, name, weapon)
        elif target is not None:
            ctx.stage("legal", lambda: may_attack(ctx, name, weapon, target))
        if kind == "aa_fire":
            _contributions(ctx, shot)
        _command_bonus(ctx, shot)
        volley = _volley(ctx, actor, shot, kind)
        ctx.stage(("to_hit", "fp"), lambda: _aa_fire(ctx, weapon, target, shot))
        _landed_target(ctx, target, shot)
        smoke = ctx.stage(("legal", "to_hit"), lambda: smoke_to_hit(ctx, actor, target)) or 0
        shot.to_hit += smoke
        if target is not None and kind != "cas_attack" and ans.legal is not False:
            ctx.stage("legal", lambda: _sight(ctx, actor, target))
        if kind == "cas_attack":
            _cas_numbers(ctx, weapon, shot)
        else:
            _range_and_numbers(ctx, actor, target, weapon, shot)
    else:
        volley = []
    if ans.legal is None and not (set(ans.gaps) & {"legal", "*"}):
        ans.set("legal", True)
    if not ans.legal:
        return
    _support_weapons(ctx, actor, kind)
    for key in [actor.key, *volley]:
        ctx.emit(StatusChanged(key, "ops_complete", True))
    because(ctx, "10.4", "the attacker is marked Ops Complete")
    if target is not None and (a.hits is not None or ctx.dice is not None) and weapon is not None:
        ctx.stage(("hits", "saves", "net_hits", "db_dice", "armor_dice", "defense_dice",
                   "save_number", "concealed", "units"),
                  lambda: _resolve(ctx, actor, target, name, weapon, kind))


def _range_and_numbers(ctx: Ctx, actor: Unit, target: Unit | None, weapon: Weapon, shot: Shot) -> None:
    ans = ctx.answer
    stated_band = ctx.game.facts.get("range_band")
    distance = _distance(ctx, target)
    hrof = (target is not None and target.type.target_type == "heavy_armor"
            and ans.values.get("weapon") == "he")
    band: str | None = None
    if weapon.range is not None:
        reach = Reach(weapon.range, shot.aa_restricted or hrof)
        ans.set("bands", reach.bands)
        ans.set("max_range", reach.max_range)
        if distance is not None:
            band = reach.band(distance)
            ans.set("band", band)
            ans.set("range", distance)
            because(ctx, "10.3", f"range {distance}: {band.replace('_', ' ')}")
            if band == "out_of_range":
                illegal(ctx, "10.3", f"range {distance} is beyond the maximum range {reach.max_range}")
                return
    if band is None and stated_band is not None:
        band = stated_band
        ans.set("band", band)
    if distance is not None:
        _minimum_range(ctx, actor, weapon, distance)
        if ctx.game.facts.get("night") and distance > tables()["night_max_los"]:
            illegal(ctx, "16.6.1", "the maximum LOS at night is 7 hexes")
    if weapon.fp is not None:
        ans.set("fp", final_fp(weapon.fp, shot))
    if weapon.to_hit is None:
        return
    if band is not None:
        mod = band_to_hit(ctx, band, distance)
        if mod and not shot.aa_restricted:
            modify(ctx, "to_hit", mod, f"{band.replace('_', ' ')} range", BAND_SECTION[band])
        ans.set("to_hit", final_to_hit(weapon.to_hit, mod + shot.to_hit, shot))
    else:
        because(ctx, "10.3", "no range stated: no range modifier applies to the To-Hit")
        ans.set("to_hit", final_to_hit(weapon.to_hit, shot.to_hit, shot))


def _minimum_range(ctx: Ctx, actor: Unit, weapon: Weapon, distance: int) -> None:
    """§10.3.5, §10.6.3: a black triangle's green AP does not fire under 3 hexes."""
    if weapon.colour == "green" and "atgm_min_range" in actor.type.abilities and distance < 3:
        illegal(ctx, "10.6.3", f"ATGM minimum range 3 (target at {distance})")


def _resolve(ctx: Ctx, actor: Unit, target: Unit, name: str, weapon: Weapon, kind: str) -> None:
    """§10.4: attack dice, the target's defence roll, then §10.7 results."""
    ans = ctx.answer
    hits = ctx.stage(("hits", "net_hits", "units"), lambda: _attack(ctx))
    if hits is not None:
        hits = results.improved_position(ctx, target, hits)
    if target.type.target_type == "aircraft":
        if hits is not None:
            results.fire_results(ctx, target.key, hits, name, opportunity=False)
        return
    roll = ctx.stage(("db_dice", "armor_dice", "defense_dice", "save_number", "concealed", "saves",
                      "net_hits", "units"), lambda: _defence(ctx, actor, target, name, weapon, kind))
    if roll is None:
        return
    defence.put(ctx, roll)
    saves = defence.roll_saves(ctx, roll, hits)
    ans.set("saves", saves)
    if hits is None:
        return
    net = max(0, hits - saves)
    ans.set("net_hits", net)
    because(ctx, "10.4", f"{roll.defense_dice} dice at {roll.save_number}+: {saves} save(s), {net} net hit(s)")
    results.fire_results(ctx, target.key, net, name, opportunity=kind in ("opportunity_fire", "aa_fire"))


def _attack(ctx: Ctx) -> int:
    ans = ctx.answer
    given = stated_hits(ctx)
    if given is not None:
        hits = whole(given, "query.hits")
    else:
        fp, to_hit = ans.values.get("fp"), ans.values.get("to_hit")
        if fp is None or to_hit is None:
            raise NotStated("weapon.fp" if fp is None else "weapon.to_hit")
        dice = ctx.roll(fp, "attack")
        hits = sum(1 for d in dice if d >= to_hit)
        because(ctx, "10.4", f"{fp} dice at {to_hit}+: {hits} hit(s)")
    ans.set("hits", hits)
    return hits


def _defence(ctx: Ctx, actor: Unit, target: Unit, name: str, weapon: Weapon,
             kind: str) -> defence.DefenceRoll:
    """The target's defence: one die saving on 5-6 for a landing parachute unit
    (§16.7.3), else §10.6. (A CAS counter rolls none: §10.7.4 counts hits scored.)"""
    if kind == "aa_fire" and is_parachute(target):
        because(ctx, "16.7.3", "a landing parachute unit rolls one defensive die, saving on 5-6")
        return defence.DefenceRoll(0, 1, defence.SOFT_SAVE, False)
    return defence.defence(ctx, target, actor, name, weapon)


def direct_fire(ctx: Ctx) -> None:
    fire(ctx, "direct_fire")


def opportunity_fire(ctx: Ctx) -> None:
    fire(ctx, "opportunity_fire")


def move_and_fire(ctx: Ctx) -> None:
    fire(ctx, "move_and_fire")


def aa_fire(ctx: Ctx) -> None:
    """Anti-Aircraft Fire at a CAS counter (§4.2) or landing parachutes (§16.7.3)."""
    fire(ctx, "aa_fire")


def cas_attack(ctx: Ctx) -> None:
    """A Close Air Support attack on one unit in its target hex (§4.3)."""
    fire(ctx, "cas_attack")
