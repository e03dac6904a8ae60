"""World At War 85's readings of Direct Fire (§10), Opportunity Fire (§10.11), Move & Fire
(§11), Anti-Aircraft Fire (§10.6.1, §4.2, §16.7.3) and Close Air Support (§4.3): the hooks
:class:`~referee.waw85.Waw85Ruleset` gives the shared procedure of :mod:`referee.fire`.

WaW85 decides who may fire at what by firepower colour and target type (§1.9.1, §10.1),
caps the To-Hit at 6 and the FP dice at 1 (§10.6.15, §10.6.16) instead of trading one
for the other, and lists its modifiers in §10.6.1-§10.6.17.
"""
from __future__ import annotations

from referee.errors import NotStated, NotSupported
from referee.events import StatusChanged
from referee.defence import Shot
from referee.fire import Attack, band_modifier, opportunity_first, status
from referee.model import Unit, Weapon, need
from referee.ranges import BAND_TO_HIT, Bands
from referee.ruleset import Ctx
from referee.situation import hexes_apart
from referee.waw85 import los
from referee.waw85.common import (VEHICLES, air_class, because, illegal, in_all_water, modify, off_the_board,
                                  side_group, stated_hits, tables, target_kind, whole)
from referee.waw85.smoke import smoke_to_hit

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


#: The attacks whose Firepower is AP or HE, chosen by the target (§10.1).
GROUND_FIRE = frozenset({"direct_fire", "opportunity_fire", "move_and_fire"})


def choose_weapon(ctx: Ctx, actor: Unit, target: Unit | None, kind: str) -> str | None:
    """The query's Firepower; else, by §10.1, the one printed Firepower that may affect the
    target ("your unit must choose the FP dice value that can affect its intended target
    unit"); a CAS picks whichever may affect its target (§4.3). When both may, the firing
    player chooses ("you get to choose which to use"): ``None``, and the attack waits for it."""
    if ctx.action.weapon is not None or target is None:
        return ctx.action.weapon
    if kind == "cas_attack":
        return cas_weapon(ctx, actor, target)
    if kind not in GROUND_FIRE:
        return None
    try:
        usable = usable_weapons(actor, target)
    except NotStated:
        return None
    if len(usable) == 1:
        because(ctx, "10.1", f"{actor.name} fires its {usable[0].upper()} FP, the one that may affect {target.name}")
        return usable[0]
    if not usable and any(actor.current.weapon(n) is not None for n in ("ap", "he")):
        illegal(ctx, "10.1", f"{actor.name} has no Firepower that may affect {target.name}: AP attacks vehicles "
                "and aircraft, HE Light Armor, Soft Targets and aircraft")
    return None


def usable_weapons(actor: Unit, target: Unit) -> list[str]:
    """§10.1: the printed AP and HE of ``actor`` that may affect ``target``: AP "any type of
    vehicle or aircraft, but not anything else"; HE not Heavy Armor (Module rules aside)."""
    kind = target_kind(target)
    return [n for n in ("ap", "he") if actor.current.weapon(n) is not None
            and (n != "ap" or kind != "troops") and (n != "he" or kind != "heavy_armor")]


def opportunity_checks(ctx: Ctx) -> None:
    """§10.11: "Opportunity Fire is a form of Direct Fire triggered by enemy movement, or enemy
    loading or unloading of Passengers in the LOS of an inactive unit, or a helicopter changing
    mode": a target doing none of these (not ``moving``, no ``trigger`` stated) is refused.
    Asked of a unit on the map (a position read from a save, where a move earlier in the run
    marks its unit moving), or one stated not ``moving``; otherwise a stated situation says
    what the unit is doing where it matters."""
    target = ctx.game.unit(ctx.action.target) if isinstance(ctx.action.target, str) else None
    mapped = target is not None and target.hex is not None and ctx.game.hex(target.hex).at is not None
    stated = target is not None and "moving" in target.status.stated
    if (mapped or stated) and not target.status.moving and not ctx.game.facts.get("trigger"):
        illegal(ctx, "10.11", f"{target.name} is not moving, loading, unloading or changing mode: nothing "
                "triggers Opportunity Fire")


def fire_restrictions(ctx: Ctx, actor: Unit, attack: Attack) -> None:
    """One Opportunity Fire per hex of movement (§10.11); Helicopter modes (§9.7); Move &
    Fire's first MP and River crossings (§11.0, §9.5); all-water hexes (§10.6.17); missiles
    while Reloading or out (§7.3)."""
    target = ctx.game.units.get(ctx.action.target) if isinstance(ctx.action.target, str) else None
    if actor.type.target_type in ("hq", "leader"):
        # an HQ prints a Command Bonus (§1.9.11), a Leader a Command Bonus and a Morale/Training
        # value (§1.9.13): no AP or HE Firepower of their own, only dice added to the unit they are with
        illegal(ctx, "1.9.11" if actor.type.target_type == "hq" else "1.9.13",
                f"{actor.name} is {'an HQ' if actor.type.target_type == 'hq' else 'a Leader'}: it has no Firepower "
                "of its own and adds its Command Bonus to the unit it is deployed or assigned to (§10.6.2)")
    off_the_board(ctx, actor, "10.0", "firer")
    off_the_board(ctx, target, "10.0", "target")
    _support_weapon_holder(ctx, actor, attack)
    if attack.opportunity and ((ctx.game.facts.get("opfire_count") or 0) >= 1
                               or (target is not None and target.status.opportunity_fired)):
        if target is not None and target.type.target_type == "aircraft":
            illegal(ctx, "4.2", "the enemy makes one Anti-Aircraft attack on the CAS counter")
        else:
            illegal(ctx, "10.11", "only one Opportunity Fire attack per hex of movement")
    _helicopter(ctx, actor, attack.weapon_name)
    if attack.kind == "move_and_fire":
        _may_move_and_fire(ctx, actor)
    if attack.kind == "cas_attack":
        _cas_target_hex(ctx, actor, target)
    weapon = attack.shot.weapon
    if in_all_water(ctx, actor):
        illegal(ctx, "10.6.17", f"{actor.name} is in an all-water hex")
    missile = weapon is not None and (weapon.colour == "green" or is_missile_aa(weapon))
    if missile and actor.status.ammo in ("reloading", "out"):
        illegal(ctx, "7.3", f"{actor.name} is {'Reloading' if actor.status.ammo == 'reloading' else 'out of'} "
                "missiles: no green or blue missile fire")


def _not_a_support_weapon_holder(holder: Unit) -> str | None:
    """§10.5: Support Weapons "may only be deployed and used by the specific unit type indicated
    on the counter, either Infantry units, or Heavy Armor units and some Towed guns"; Infantry
    ones "may not be deployed to any Towed units or any Mortar units", Alternative Armament
    ones go to "specific Heavy Armor vehicles and some Towed Artillery and Anti-Tank Gun units".
    Which of these a counter is (INF or ARM) is not stated here; a unit neither kind may take
    (another vehicle, a Helicopter, a Mortar) is named, else ``None``."""
    kind = holder.type.target_type
    if kind is None:
        return None
    if holder.type.arty_type in ("mrtr", "spm"):
        return "no Support Weapon is deployed to a Mortar unit"
    if kind not in ("troops", "heavy_armor"):
        return (f"a {kind.replace('_', ' ')} unit takes no Support Weapon (only Infantry, Heavy Armor and some Towed "
                "guns do)")
    return None


def _support_weapon_holder(ctx: Ctx, actor: Unit, attack: Attack) -> None:
    """§10.5: Support Weapons "are additional Direct Fire weapons" of the unit they are deployed
    to, which fire "immediately before or after the unit to which it is deployed fires", and in
    Opportunity Fire in place of its FP, "because the unit will be Ops Complete as soon as the
    Support Weapon fires" (§10.11): so they fire only when that unit may (§10.0 not Disrupted
    nor Ops Complete, §7.2.3 Out of Command only in Opportunity Fire, §9.8 not a Passenger)."""
    if actor.type.target_type != "support_weapon":
        return
    if "mine_plow" in actor.type.abilities and actor.current.ap is None and actor.current.he is None:
        illegal(ctx, "10.5", f"{actor.name} is a Mine Plow: \"Some Support Weapons — like Mine Plows — are not used "
                "for Direct Fire\" (it breaches Minefields, §16.3.1)")
        return
    holder = ctx.game.units.get(actor.attached_to) if actor.attached_to else None
    if holder is None or not holder.on_map:
        return
    if attack.kind == "direct_fire" and holder.status.fired and holder.status.ops_complete \
            and not holder.status.disrupted:
        # "a Support Weapon may fire either immediately before or after the unit to which it is
        # deployed fires": the Ops Complete of the unit's own Direct Fire does not stop it
        because(ctx, "10.5", f"{actor.name} fires immediately after {holder.name}, which has fired")
        holder = holder.with_status(ops_complete=False)
    why = _not_a_support_weapon_holder(holder)
    if why is not None:
        illegal(ctx, "10.5", f"{actor.name} is deployed to {holder.name}: {why}")
    refused = len(ctx.answer.refusals)
    status(ctx, holder, attack.kind)
    if len(ctx.answer.refusals) > refused:
        because(ctx, "10.5", f"{actor.name} is a Support Weapon deployed to {holder.name}: it fires as that unit's "
                "weapon, only when the unit may fire")


def may_attack_target(ctx: Ctx, actor: Unit, target: Unit, attack: Attack) -> None:
    """§10.1 (or §16.7.3 for landing parachutes under Anti-Aircraft Fire)."""
    if attack.kind == "aa_fire" and is_parachute(target):
        _parachute_target(ctx, attack.weapon_name, attack.shot.weapon)
    else:
        may_attack(ctx, attack.weapon_name, attack.shot.weapon, target)


def fire_modifiers(ctx: Ctx, actor: Unit, target: Unit | None, attack: Attack) -> None:
    """Move & Fire (§11.0), contributing units (§4.2, §16.7.3), the Command Bonus
    (§10.6.2), Volley Fire (§10.6.10), Anti-Aircraft Fire (§10.6.1), a Landed Helicopter
    (§10.6.11) and Smoke (§10.6.6, §10.6.7)."""
    weapon = attack.shot.weapon
    if attack.kind == "move_and_fire":
        ctx.stage(("legal", "fp", "modifiers"), lambda: _move_and_fire(ctx, actor, weapon, attack))
    contributors = _contributions(ctx, attack) if attack.kind == "aa_fire" else []
    _command_bonus(ctx, attack)
    # the units that fire with the actor and are marked Ops Complete with it: Volley Fire
    # partners (§10.6.10), or the units contributing their fire to Anti-Aircraft Fire (§4.2,
    # §16.7.3, which "is a form of Opportunity Fire"; §16.7.4 "the Anti-Aircraft firing units
    # are marked with Ops Complete markers")
    attack.partners = contributors if attack.kind == "aa_fire" else _volley(ctx, actor, attack)
    ctx.stage(("to_hit", "fp"), lambda: _aa_fire(ctx, weapon, target, attack))
    _landed_target(ctx, target, attack)
    attack.to_hit += ctx.stage(("legal", "to_hit"), lambda: smoke_to_hit(ctx, actor, target)) or 0


def sight(ctx: Ctx, actor: Unit, target: Unit, attack: Attack) -> None:
    _sight(ctx, actor, target)


def bands(ctx: Ctx, actor: Unit, target: Unit | None, attack: Attack) -> Bands | None:
    """§10.3; Anti-Aircraft Fire by black or orange dice (§10.6.1) and High Rate of Fire HE
    at Heavy Armor (§10.1) reach the printed range only, with no band modifier."""
    weapon = attack.shot.weapon
    if weapon.range is None:
        return None
    hrof = target is not None and target.type.target_type == "heavy_armor" and attack.weapon_name == "he"
    only = attack.aa_restricted or hrof or not white_range(weapon)
    if not white_range(weapon):
        because(ctx, "1.9.4", f"a {weapon.range_colour} Range: no Point Blank bonus and no Long Range Fire "
                "(only a WHITE Range has them)")
    return Bands(weapon.range, near=not only, far=not only, label=f"units.{actor.key}.{attack.weapon_name}.range")


def white_range(weapon: Weapon) -> bool:
    """§1.9.4: a WHITE Range value receives the Point Blank bonus (§10.6.4) and may fire to
    twice its printed range at Long Range (§10.6.5); the book gives no other colour either
    (a blue Range, §1.9.1, is a missile Anti-Aircraft weapon). A Range whose colour is not
    stated is read as the ordinary white one."""
    return weapon.range_colour in (None, "white")


def range_checks(ctx: Ctx, attack: Attack, distance: int) -> None:
    """The ATGM minimum range (§10.3.5, §10.6.3) and the night limit of 7 hexes (§16.6.1)."""
    _minimum_range(ctx, attack.shot.firer, attack.shot.weapon, distance)
    if ctx.game.facts.get("night") and distance > tables()["night_max_los"]:
        illegal(ctx, "16.6.1", "the maximum LOS at night is 7 hexes")


def band_to_hit(ctx: Ctx, attack: Attack, band: str, *, quiet: bool = False) -> int:
    """§10.6.4, §10.6.5 and the night rule of §16.6.1 (point blank only when adjacent,
    always long beyond); none for restricted Anti-Aircraft Fire (§10.6.1)."""
    if attack.aa_restricted:
        return 0
    weapon = attack.shot.weapon
    night_band = ctx.game.facts.get("night") and (ctx.answer.values.get("range") or 0) > 1
    if not white_range(weapon) and band != "effective" and not night_band:
        if band == "long":
            illegal(ctx, "1.9.4", f"a {weapon.range_colour} Range has no Long Range Fire (only a WHITE Range does)")
        elif not quiet:
            because(ctx, "1.9.4", f"a {weapon.range_colour} Range takes no Point Blank bonus")
        return 0
    distance = ctx.answer.values.get("range")
    if ctx.game.facts.get("night") and distance is not None and distance > 1:
        if not quiet:
            because(ctx, "16.6.1", "night: non-adjacent targets always take the Long Range penalty")
        band = "long"
    return band_modifier(ctx, band, quiet=quiet)


def final_to_hit(ctx: Ctx, attack: Attack, band_mod: int, *, explain: bool = False) -> int:
    """§10.6.15: never more than 6; restricted Anti-Aircraft Fire is at 6 (§10.6.1)."""
    printed = need(attack.shot.weapon.to_hit, "weapon.to_hit")
    if attack.aa_restricted:
        return 6
    return min(printed + band_mod + attack.to_hit, 6)


def final_fp(ctx: Ctx, attack: Attack, band_mod: int) -> int:
    """§10.6.16: never fewer than 1 FP die."""
    return max(need(attack.shot.weapon.fp, "weapon.fp") + attack.fp, 1)


def cas_numbers(ctx: Ctx, attack: Attack) -> None:
    """§4.3: a CAS attack takes no Point Blank or Long Range modifier."""
    weapon = attack.shot.weapon
    target = ctx.game.units.get(ctx.action.target) if isinstance(ctx.action.target, str) else None
    if target is not None and target.hex is not None and target.hex == attack.shot.firer.hex:
        # §4.1: the CAS counter is at the height of a Flying Helicopter (§9.7.1), whose fire "to
        # the ground units in its hex" is "considered to be at a range of one hex"
        ctx.answer.set("range", 1)
        because(ctx, "9.7.1", f"{target.name} is in the CAS counter's hex: a range of one hex")
    because(ctx, "4.3", "CAS attacks take no Point Blank or Long Range modifiers")
    ctx.answer.set("modifiers", {"to_hit": attack.to_hit, "fp": attack.fp})
    if weapon.fp is not None:
        ctx.answer.set("fp", final_fp(ctx, attack, 0))
    if weapon.to_hit is not None:
        ctx.answer.set("to_hit", final_to_hit(ctx, attack, 0))


def on_legal_fire(ctx: Ctx, actor: Unit, attack: Attack) -> None:
    _support_weapons(ctx, actor, attack.kind)
    holder = ctx.game.units.get(actor.attached_to) if actor.type.target_type == "support_weapon" \
        and actor.attached_to else None
    if attack.opportunity and holder is not None and holder.on_map:
        # "during Opportunity Fire a Support Weapon deployed in this manner is used in place of any
        # FP of the unit ... (because the unit will be Ops Complete as soon as the Support Weapon
        # fires)"; "an attacking unit which deployed a SW to attack, is marked Ops Complete" (§10.11)
        ctx.emit(StatusChanged(holder.key, "ops_complete", True))
        because(ctx, "10.11", f"{holder.name}, whose Support Weapon fired Opportunity Fire, is marked Ops Complete")
    if actor.type.target_type == "helicopter" and actor.mode == "flying" and actor.status.moving \
            and not attack.opportunity:
        ctx.emit(StatusChanged(actor.key, "moving", False))
        because(ctx, "9.7.1", f"{actor.name} is Flying: it must stop moving immediately after resolving the fire")


def fire_stated_hits(ctx: Ctx) -> int:
    return whole(stated_hits(ctx), "query.hits")


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
               and (sw.current.ap is not None or sw.current.he is not None)
               and _not_a_support_weapon_holder(actor) is None]
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
    """§10.2: a stated LOS, or the LOS traced through the stated intervening hexes or on the map."""
    relation = ctx.game.facts.relation(target.key)
    adjacent = relation.adjacent or (relation.distance is not None and relation.distance <= 1)
    # stated on the target (whether the firer sees it) or on the firer (whether it sees the target)
    seen = relation.los if relation.los is not None else ctx.game.facts.relation(actor.key).los
    if seen is False and not adjacent:
        illegal(ctx, "10.2", f"no LOS to {target.name}")
    elif seen is None and (ctx.game.facts.get("intervening") is not None
                                   or ctx.game.facts.get("along_hexsides") is not None
                                   or los.map_line(ctx, actor.hex, target.hex) is not None):
        if los.blocked(ctx, actor, target):
            ctx.answer.set("blocked", True)
            illegal(ctx, "10.2", f"the LOS to {target.name} is blocked")
        else:
            ctx.answer.set("blocked", False)


def _move_and_fire(ctx: Ctx, actor: Unit, weapon: Weapon, shot: Attack) -> None:
    """§11.0 Move & Fire Summary Chart: the FP change by colour, side and MPs expended."""
    spent = need(actor.status.mp_spent, f"units.{actor.key}.status.mp_spent")
    if ctx.answer.legal is False:
        return
    if isinstance(spent, int) and spent >= 1 or spent == "more_than_half":
        ctx.answer.set("triggers_opportunity_fire", True)
        because(ctx, "10.11", "Opportunity Fire may be triggered during the movement portion of a Move & Fire Action")
    if actor.type.target_type == "helicopter":
        because(ctx, "11.0", "Move & Fire does not change a Flying Helicopter's FP or To-Hit")
        return
    if isinstance(spent, int) and actor.current.mp is not None and spent > actor.current.mp:
        illegal(ctx, "9.0", f"{actor.name} cannot have spent {spent} MPs: a unit may not expend more than its "
                f"printed {actor.current.mp} MPs")
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
    """§11.0: at least 1 MP before firing (so never by a Hovering or Landed Helicopter, which
    is stationary, §9.7.3, §9.7.4); §9.5: an unbridged River crossing is a Movement or
    Assault Action, never Move & Fire."""
    if "amphibious" in actor.type.abilities and ctx.game.facts.get("hexside") == "river":
        illegal(ctx, "9.5", "an unbridged River crossing must be a Movement or Assault Action, "
                "not Move & Fire")
    if actor.status.mp_spent == 0:
        illegal(ctx, "11.0", "a Move & Fire Action must expend at least 1 MP")
    if actor.type.target_type == "helicopter" and actor.mode in ("hovering", "landed"):
        # §9.7.3 "stationary in its hex for that turn", §9.7.4 "stationary in its hex"
        illegal(ctx, "9.7.3" if actor.mode == "hovering" else "9.7.4",
                f"{actor.name} is {actor.mode}: stationary in its hex, it expends no MP for a Move & Fire Action")


def _command_bonus(ctx: Ctx, attack: Attack) -> None:
    """§10.6.2: one HQ or one Leader Command Bonus, never both, named by the player
    (``bonus_from``: §1.9.11 "The HQ may use that Command Bonus"); only a friendly HQ or Leader
    on the map, deployed or assigned to the firing unit, gives it."""
    actor = ctx.action.actor
    givers = [ctx.game.unit(k) for k in ctx.action.bonus_from or ()]
    kinds = {g.type.target_type for g in givers}
    if {"hq", "leader"} <= kinds:
        illegal(ctx, "10.6.2", "a unit may use the HQ or the Leader Command Bonus, not both")
        return
    firer = ctx.game.units.get(actor) if actor else None
    for giver in givers:
        if firer is not None and giver.side and firer.side and giver.side != firer.side:
            illegal(ctx, "10.6.2", f"{giver.name} is an enemy HQ or Leader: it gives no Command Bonus to {firer.name}")
            continue
        if not giver.on_map:
            because(ctx, "10.6.2", f"{giver.name} is in the {giver.location.replace('_', ' ')}, not deployed or "
                    "assigned to the firing unit: no Command Bonus")
            continue
        if giver.attached_to is not None and giver.attached_to != actor:
            # "an HQ or Leader deployed or assigned to the firing unit": not one with another unit
            because(ctx, "10.6.2", f"{giver.name} is deployed to {ctx.game.unit(giver.attached_to).name}, not to "
                    "the firing unit: no Command Bonus")
            continue
        if giver.attached_to is None and firer is not None and giver.hex and firer.hex and giver.hex != firer.hex:
            # §1.9.11: an HQ is "deployed to (stacked with)" the unit; §1.9.13: a Leader sticks with it
            because(ctx, "1.9.11", f"{giver.name} is not stacked with {firer.name}: no Command Bonus")
            continue
        if (giver.type.target_type == "hq" and firer is not None and giver.formation and firer.formation
                and giver.formation != firer.formation):
            # §1.9.11: "HQs can be deployed to (stacked with) a unit of their Formation"
            because(ctx, "1.9.11", f"{giver.name} is not an HQ of {firer.name}'s Formation: no Command Bonus")
            continue
        bonus = need(giver.leadership, f"units.{giver.key}.leadership")
        attack.fp += bonus
        modify(ctx, "fp", bonus, f"{giver.name} Command Bonus", "10.6.2")


def _volley(ctx: Ctx, actor: Unit, shot: Attack) -> list[str]:
    kind = shot.kind
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


def _cas_target_hex(ctx: Ctx, actor: Unit, target: Unit | None) -> None:
    """§4.3: "If the CAS counter remains in play, it can attack each unit in the target hex"
    (the hex the CAS counter was moved to, §4.1): a CAS back in the Holding Box (circled back,
    §10.7.4) or out of the scenario (intercepted §4.1, returned to base or eliminated §10.7.4)
    makes no attack, and a unit in another hex is refused."""
    if actor.location != "map":
        where = "back in the Holding Box" if actor.location == "holding_box" else "out of the scenario"
        illegal(ctx, "4.3", f"{actor.name} is {where}: only a CAS counter that remains in play attacks")
    if target is not None and actor.hex is not None and target.hex is not None and actor.hex != target.hex:
        illegal(ctx, "4.3", f"{target.name} is not in the CAS counter's target hex {actor.hex}: "
                "a CAS attacks only the units in its target hex")


def cas_weapon(ctx: Ctx, actor: Unit, target: Unit) -> str | None:
    """§4.3: a CAS uses AP or HE, whichever may affect the target unit (§10.1)."""
    usable = usable_weapons(actor, target)
    if not usable and any(actor.current.weapon(n) is not None for n in ("ap", "he")):
        # "If your unit does not have the appropriate Firepower available, it may not use Direct
        # Fire against that enemy unit" (§10.1), and the CAS attack is Direct Fire (§4.3)
        illegal(ctx, "10.1", f"{actor.name} has no Firepower that may affect {target.name}: AP attacks vehicles "
                "and aircraft, HE Light Armor, Soft Targets and aircraft")
        return "ap" if actor.current.weapon("ap") is not None else "he"
    if len(usable) > 1:
        # "The CAS may use either type of FP dice (AP or HE) against an individual target unit"
        # (§4.3); "If both AP or HE Firepower may affect the target, you get to choose which to
        # use" (§10.1): the attack is legal, and which Firepower it rolls is the player's to say
        because(ctx, "4.3", f"both the AP and HE FP of {actor.name} may affect {target.name}: the player chooses")
        return None
    if not usable:
        raise NotStated("query.weapon")
    because(ctx, "4.3", f"the CAS uses its {usable[0].upper()} FP against {target.name}")
    return usable[0]


def _contributions(ctx: Ctx, attack: Attack) -> list[str]:
    """§4.2, §16.7.3: "Additional eligible enemy units within Range and LOS may contribute
    their fire to the attack, but by adding one FP dice for each contributing unit to a maximum
    of +2 FP dice"; a unit stated not eligible, out of LOS or out of range adds nothing. The
    contributing units, who fire with the attack."""
    target = ctx.game.units.get(ctx.action.target) if isinstance(ctx.action.target, str) else None
    if ctx.action.supporting and target is not None and target.type.target_type == "helicopter":
        # the contributions are §4.2's (at a CAS counter) and §16.7.3's (at a landing parachute
        # stack); Anti-Aircraft Fire at a Helicopter is Direct Fire by one unit (§10.6.1)
        because(ctx, "10.6.1", f"{target.name} is a Helicopter: other units do not contribute their fire (only at a "
                "CAS counter, §4.2, or a landing parachute stack, §16.7.3)")
        return []
    contributing = []
    for key in ctx.action.supporting:
        unit = ctx.game.unit(key)
        why = _not_contributing(ctx, unit, target)
        if why:
            because(ctx, "4.2", f"{unit.name} {why}: it does not contribute")
        elif len(contributing) == MAX_CONTRIBUTORS:
            # each contributing unit adds "one FP dice ... to a maximum of +2 FP dice": a unit
            # past the second adds no die, so it does not contribute its fire (nor is it spent)
            because(ctx, "4.2", f"{unit.name}: two units already contribute, the maximum of +2 FP dice; it does "
                    "not contribute")
        else:
            contributing.append(key)
    count = len(contributing)
    if count:
        attack.fp += count
        modify(ctx, "fp", count, f"{count} contributing unit(s), at most +2", "4.2")
    return contributing


#: §4.2, §16.7.3: "one FP dice for each contributing unit to a maximum of +2 FP dice".
MAX_CONTRIBUTORS = 2


def _not_contributing(ctx: Ctx, unit: Unit, target: Unit | None) -> str | None:
    """Why ``unit`` may not contribute to an Anti-Aircraft attack, by what the situation
    states: AA Fire at a CAS counter "is a form of Opportunity Fire" (§4.2), which Ops Complete
    or Disrupted units may not use (§10.11); only the enemy's units; LOS to the target; its
    Range (a black or orange value at aircraft reaches the printed Range only, §10.6.1)."""
    if unit.key == ctx.action.actor:
        return "is the unit making the attack, not an additional unit"
    if unit.status.ops_complete or unit.status.disrupted:
        return "is Ops Complete or Disrupted, so it may not use Opportunity Fire (§10.11)"
    if target is not None and unit.side and target.side and unit.side == target.side:
        return "is not an enemy of the target"
    if ctx.game.facts.relation(unit.key).los is False:
        return "has no LOS to the target"
    printed = [w for w in (unit.current.aa, unit.current.ap, unit.current.he) if w is not None]
    usable = [w for w in printed if target is None or _may_fire_at_aircraft(unit, w, target)]
    if printed and not usable:
        # "eligible" units (§4.2, §16.7.3): ones that could make the attack themselves
        return ("has no HE value that may fire at landing parachute units (only HE values, and no missile-armed "
                "Anti-Aircraft unit, §16.7.3)" if target is not None and is_parachute(target)
                else "has no Firepower that may fire at aircraft (a green AP value may not, §1.9.1)")
    reach = _contributor_range(ctx, unit, target)
    weapons = [w for w in usable if w.range is not None]
    if reach is not None and weapons:
        most = max(Bands(w.range).max_range if w.colour == "blue" else w.range for w in weapons)
        if reach > most:
            return f"is {reach} hexes from the target, beyond its Range ({most})"
    return None


def _may_fire_at_aircraft(unit: Unit, weapon: Weapon, target: Unit) -> bool:
    """Whether ``weapon`` of ``unit`` may fire at the Anti-Aircraft target: a green AP value
    never at a CAS counter or a Flying Helicopter (§1.9.1); at landing parachute units only
    HE values, and no missile-armed Anti-Aircraft unit (§16.7.3)."""
    if is_parachute(target):
        return weapon is unit.current.he and not is_missile_aa(weapon)
    return not (weapon is unit.current.ap and weapon.colour == "green")


def _contributor_range(ctx: Ctx, unit: Unit, target: Unit | None) -> int | None:
    """A contributor's range to the target: on the map, or the firer's when it shares the
    firer's hex (stated distances are the firer's); else not known."""
    if target is None:
        return None
    actor = ctx.game.units.get(ctx.action.actor) if ctx.action.actor else None
    if actor is not None and unit.hex is not None and unit.hex == actor.hex \
            or ctx.game.facts.relation(unit.key).distance == 0:
        return ctx.game.facts.relation(target.key).distance
    return hexes_apart(ctx.game, unit.hex, target.hex)


def _aa_fire(ctx: Ctx, weapon: Weapon, target: Unit | None, attack: Attack) -> None:
    """§10.6.1: black or orange dice at aircraft (parachutes count as flying, §16.7.3):
    printed range, FP -2, To-Hit 6."""
    if target is None or weapon.colour == "blue":
        return
    if not air_class(target) and not (ctx.action.kind == "aa_fire" and is_parachute(target)):
        return
    need(weapon.colour, "weapon.color")
    attack.aa_restricted = True
    attack.fp -= 2
    modify(ctx, "fp", -2, "Anti-Aircraft Fire with black or orange dice", "10.6.1")


def _landed_target(ctx: Ctx, target: Unit | None, attack: Attack) -> None:
    if target is not None and target.type.target_type == "helicopter" and target.mode == "landed":
        attack.fp += 1
        attack.to_hit -= 1
        modify(ctx, "fp", 1, "target is a Landed Helicopter", "10.6.11")
        modify(ctx, "to_hit", -1, "target is a Landed Helicopter", "10.6.11")


def _minimum_range(ctx: Ctx, actor: Unit, weapon: Weapon, distance: int) -> None:
    """§10.3.5, §10.6.3: a black triangle's green AP does not fire under 3 hexes."""
    if weapon.colour == "green" and "atgm_min_range" in actor.type.abilities and distance < 3:
        illegal(ctx, "10.6.3", f"ATGM minimum range 3 (target at {distance})")


#: Counters that never make Opportunity Fire themselves: HQs and Leaders (no Firepower,
#: §1.9.11, §1.9.13), Support Weapons (they fire in place of their unit, §10.11), CAS counters.
NO_OPPORTUNITY_FIRE = frozenset({"hq", "leader", "support_weapon", "aircraft"})


def opportunity_before_moving_fire(ctx: Ctx) -> None:
    """§10.11: "Opportunity Fire may be triggered during an enemy Movement, Move & Fire, or
    Assault Action. When an activated unit moves in the LOS of an eligible inactive unit, the
    Opportunity Fire is declared and movement stops until the attack is resolved": the ``order``
    of a Move & Fire Action, its fire coming after its move (§11.0)."""
    mover = ctx.game.unit(ctx.action.actor)
    if mover.type.target_type == "helicopter":
        raise NotSupported("WaW85 §10.11", "which enemy units may Opportunity Fire at a Helicopter's Move & Fire "
                           "(Anti-Aircraft Fire by mode, §10.6.1)")
    opportunity_first(ctx, "WaW85 §10.11", may_opportunity_fire, NO_OPPORTUNITY_FIRE, fire_name="Move & Fire",
                      first="movement stops until the Opportunity Fire is resolved, before the unit fires")


def may_opportunity_fire(ctx: Ctx, enemy: Unit, mover: Unit, los: bool | None, distance: int | None) -> bool | None:
    """§10.11: whether ``enemy`` may Opportunity Fire at the ground unit ``mover`` (None: not
    known): not Ops Complete nor Disrupted ("Units that are Out of Command may still use
    Opportunity Fire"), not a NOE Helicopter (§9.7.2), with a Firepower that may affect the
    mover (§10.1, §1.9.1: a green AP value only at vehicles) and reaches it (§10.3.4), in LOS."""
    if enemy.status.disrupted or enemy.status.ops_complete:
        return False
    if enemy.type.target_type == "helicopter" and enemy.mode == "nap_of_earth":
        return False
    if los is False:
        return False
    try:
        names = usable_weapons(enemy, mover)
    except NotStated:
        return None
    reaches: list[int | None] = []
    for name in names:
        weapon = enemy.current.weapon(name)
        if name == "ap" and weapon.colour == "green" and target_kind(mover) not in VEHICLES:
            continue
        if (weapon.colour == "green" or is_missile_aa(weapon)) and enemy.status.ammo in ("reloading", "out"):
            continue
        if name == "ap" and is_missile_aa(weapon):
            continue            # §1.9.1: a blue AP value with a blue Range fires at aircraft only
        found = ctx.stage((), lambda: ctx.rules.bands(ctx, enemy, mover, Attack(
            Shot(enemy, name, weapon, kind="opportunity_fire"), "opportunity_fire")))
        try:
            reaches.append(None if found is None else max(found.max_range, 1))
        except NotStated:
            reaches.append(None)
    if enemy.current.aa is not None:
        reaches.append(None)    # a blue value not stated as AP or HE: whether it fires at the mover is not known
    if not reaches:
        return False
    if distance is None:
        return None
    if los is True and any(r is not None and r >= distance for r in reaches):
        return True
    if all(r is not None and r < distance for r in reaches):
        return False
    return None
