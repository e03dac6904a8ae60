"""The classic books' readings of ranged combat (EG/TUS §6.1-§6.2, §8.2, §9.3): the hooks
:class:`~referee.classic.ClassicRuleset` gives the shared procedure of :mod:`referee.fire`
and the defence roll of :mod:`referee.defence`.

Which Firepower a unit uses (AP at hard targets, HE otherwise, helicopters with HE,
§6.1, §9.2), the AA-only and underlined-range rules against helicopters (§1.3.4.5,
§9.3), Moving Fire (§6.1.3), HQ and leader bonuses (§1.3.3.2, TUS §1.3.6), Smoke (§8.2),
the to-hit past 6 costing FP (§6.1.3), missile depletion (§6.1.4), the Terrain Effects
Chart's Defensive Bonus, concealment (§6.1.5) and the fire-mission defence (§8.1).
"""
from __future__ import annotations

import re

from referee import damage, los, situation
from referee.defence import Shot
from referee.errors import NotStated, RefereeError
from referee.events import StatusChanged, UnitPlaced, UnitRemoved
from referee.fire import Attack, band_modifier, opportunity_first
from referee.model import HARD_TYPES, Unit, Weapon, need
from referee.ranges import Bands
from referee.ruleset import Ctx

#: Missions whose defence is the terrain's infantry Defensive Bonus, saving on 5+ (§8.1, §8.5).
MISSION_DEFENCE = frozenset({"he", "dpicm"})


# ---------------------------------------------------------------- weapon ----------

def choose_weapon(ctx: Ctx, actor: Unit, target: Unit | None, kind: str) -> str:
    """The query's weapon, else AP against hard targets and HE otherwise (§6.1)."""
    if ctx.action.weapon:
        return ctx.action.weapon
    if actor.type.target_type == "helicopter" and (target is None or target.type.target_type != "aircraft"):
        ctx.answer.because("§9.2", "helicopters attack soft and hard targets with their HE firepower")
        return "he"
    printed = [n for n in ("ap", "he", "aa") if actor.current.weapon(n) is not None]
    if len(printed) == 1:
        return printed[0]
    if target is None or target.type.target_type is None:
        raise NotStated("query.weapon")
    if target.type.target_type in ("helicopter", "aircraft") and actor.current.aa is not None:
        return "aa"
    return "ap" if target.type.target_type in HARD_TYPES else "he"


def fire_restrictions(ctx: Ctx, actor: Unit, attack: Attack) -> None:
    """A tank that fired its gun-launched ATGM this impulse fires nothing else (TUS
    §1.3.5.1); Moving Fire is for the eligible units, after at most half their MF (§6.1.3)."""
    for sw in ctx.game.attached(actor.key):
        if sw.type.target_type == "support_weapon" and sw.status.fired and not _infantry_platoon(actor):
            ctx.answer.illegal("001 §1.3.5.1, §1.3.5.2", f"{actor.name} fired its {sw.name} this impulse, in lieu of "
                               "its own Firepower")
    if actor.type.target_type == "hq":
        ctx.answer.illegal("§1.3.3.2", "an HQ cannot attack on its own: it adds its Leadership to one attacking "
                           "unit in its hex")
    if actor.type.target_type == "leader" and ctx.params.has("leaders"):
        ctx.answer.illegal("001 §1.3.6", f"{actor.name} is a leader: he does not attack on his own, he alters "
                           "one value of his platoon's attack")
    _holder_may_fire(ctx, actor, attack)
    if ctx.action.choice == "pop_up":
        ctx.params.require("popup", "001 §9.2.1")
        if actor.type.target_type != "helicopter" or actor.mode != "hovering":
            ctx.answer.illegal("001 §9.2.1", "only a Hovering helicopter conducts a pop-up attack")
        else:
            ctx.answer.set("triggers_opportunity_fire", True)
            ctx.answer.set("max_count", 1)
            ctx.answer.because("001 §9.2.1", "any ONE eligible unit may Opportunity Fire at the helicopter "
                               "before the damage is assessed")
    if _on_map_battery(ctx, actor) and attack.weapon_name == "he":
        attack.printed_only = True
        ctx.answer.because("001 §8.6", f"{actor.name} is on-map artillery: it direct fires up to its fixed range; "
                           "beyond it, it fires as per §8.1")
    moved = attack.kind == "direct_fire" and actor.status.has_moved
    if moved:
        ctx.answer.because("§5.0", f"{actor.name} has moved this activation: units that move cannot fire except "
                           "by Moving Fire (§6.1.3)")
    if attack.kind == "move_and_fire" or moved:
        to_hit, fp = moving_fire(ctx, actor)
        attack.to_hit += to_hit
        attack.fp += fp
        ctx.answer.set("modifiers", {"to_hit": to_hit, "fp": fp})


def _on_map_battery(ctx: Ctx, actor: Unit) -> bool:
    """An on-map artillery unit (001 §8.6 On Map Artillery Units: a fixed HE range and an
    infinity range), not a mortar (§1.3.4.3)."""
    return (ctx.params.has("on_map_artillery") and actor.type.arty_type not in (None, "mrtr", "spm")
            and "indirect_fire" in actor.type.abilities)


def _holder_may_fire(ctx: Ctx, actor: Unit, attack: Attack) -> None:
    """A Support Weapon fires as part of its platoon (§1.3.5, §6.1): not when the platoon may
    not fire (Disrupted, Ops Complete, Out of Command outside Opportunity Fire), and not after
    the platoon fired its own Firepower without it ("or lose the opportunity to attack with
    the SW")."""
    if actor.type.target_type != "support_weapon" or actor.attached_to is None:
        return
    holder = ctx.game.units.get(actor.attached_to)
    if holder is None:
        return
    rules, ans, held = ctx.rules, ctx.answer, holder.status
    _may_use_support_weapon(ctx, actor, holder)
    if holder.carried_by is not None:
        ans.illegal(rules.section("passenger_fire"), f"{holder.name} is loaded in a transport: infantry cannot fire "
                    f"from transports, nor its {actor.name} with it")
    if held.has_moved and attack.kind == "direct_fire":
        if _tank_support_weapon(ctx, actor):
            ans.illegal("001 §1.3.5.1", f"{holder.name} has moved this impulse: to fire the {actor.name} ATGM a unit "
                        "must not be moving (or using Moving Fire)")
        elif not _moving_fire_level(ctx, holder):
            ans.illegal("§5.0, §6.1.3", f"{holder.name} has moved this impulse: its SW fires with it, and units "
                        "that move cannot fire except those eligible for Moving Fire")
    if held.disrupted:
        ans.illegal(rules.section("fire_disrupted"), f"{actor.name}'s platoon {holder.name} is Disrupted and cannot fire")
    if held.fired and _infantry_platoon(holder) and not actor.status.fired:
        ans.illegal("§6.1, §1.3.5", f"{holder.name} fired its own Firepower without its SW: the SW lost the "
                    "opportunity to attack")
    elif held.fired and not actor.status.fired and not _infantry_platoon(holder):
        ans.illegal("001 §1.3.5.1, §1.3.5.2", f"{holder.name} fired its own Firepower this impulse: its "
                    f"{actor.name} is fired in lieu of it, not beside it (the units shooting the ATGM cannot fire "
                    "with their inherent firepower in the impulse)")
    elif held.ops_complete:
        ans.illegal(rules.section("fire_ops_complete"), f"{actor.name}'s platoon {holder.name} is Ops Complete")
    if held.out_of_command and attack.kind != "opportunity_fire":
        ans.illegal(rules.section("out_of_command"), f"{actor.name}'s platoon {holder.name} is Out of Command: "
                    "Opportunity Fire only")


def on_legal_fire(ctx: Ctx, actor: Unit, attack: Attack) -> None:
    """§1.3.5: "Place SW counters on the map the first time they open fire; they then stay
    with the platoon": an unplaced Support Weapon that fires is placed in its platoon's hex.
    A vehicle's or gun's Support Weapon is fired in lieu of its own Firepower (TUS §1.3.5.1
    "the units shooting the ATGM cannot fire with their inherent firepower in the impulse",
    TUS §1.3.5.2 "in lieu of"): its holder has made the impulse's ranged attack and is marked Ops
    Complete with it (§6.1); an infantry platoon still fires its own Firepower (§1.3.5)."""
    if actor.type.target_type != "support_weapon":
        return
    holder = ctx.game.units.get(actor.attached_to) if actor.attached_to else None
    if holder is not None and not _infantry_platoon(holder) and holder.key not in attack.partners:
        attack.partners.append(holder.key)
    if actor.location != "unplaced":
        return
    ctx.emit(UnitPlaced(actor.key, holder.hex if holder is not None else actor.hex))
    ctx.answer.because("§1.3.5", f"{actor.name} opens fire for the first time: it is placed on the map with "
                       + (holder.name if holder is not None else "its platoon"))


def _may_use_support_weapon(ctx: Ctx, sw: Unit, holder: Unit) -> None:
    """Who may use which Support Weapon. TUS §1.3.4.2: "The Kastet SW may only be used by the
    T-12 ATG, and the Heat-FS support weapon can only be used by the 2S1", and the Songster
    is the T-80's and T-64's (TUS §1.3.5.1); the tank or infantry symbol of its other SWs is not
    in the text. EG §1.3.5: "SW are special weapons that grant extra capability to an
    infantry unit" (tanks gain SWs only in later modules, §1.3.1)."""
    users = ctx.params.support_weapon_users.get((sw.name or "").upper())
    if users is not None:
        if holder.name is None:
            raise NotStated(f"units.{holder.key}.name (only the {' or the '.join(sorted(users))} uses {sw.name})")
        if holder.name.upper() not in users:
            ctx.answer.illegal("001 §1.3.4.2, §1.3.5.2", f"{sw.name} may only be used by the "
                               f"{' or the '.join(sorted(users))}, not by {holder.name}")
    elif holder.type.target_type not in (None, "troops") and not ctx.params.has("tank_support_weapons"):
        ctx.answer.illegal("002 §1.3.5", f"{holder.name} is not infantry: Support Weapons grant extra capability "
                           "to an infantry unit")


def may_attack(ctx: Ctx, actor: Unit, target: Unit, attack: Attack) -> None:
    """Ammo Depleted missiles (§6.1.4), AA Firepower only at helicopters and aircraft
    (§1.3.4.5), no underlined non-AA weapon at a Flying helicopter (§9.3)."""
    ans, name, weapon = ctx.answer, attack.weapon_name, attack.shot.weapon
    if name == "ap" and weapon.underlined and actor.status.ammo.startswith("depleted"):
        ans.illegal("§6.1.4", f"{actor.name} is under an Ammo Depleted marker")
    kind = target.type.target_type
    if name == "aa" and kind not in (None, "helicopter", "aircraft"):
        ans.illegal("§1.3.4.5", "AA firepower only targets helicopters and aircraft")
    if kind == "helicopter" and name in ctx.params.flying_helicopter_underlined_bars and weapon.underlined \
            and target.mode == "flying":
        ans.illegal("§9.3", f"non-AA {name.upper()} Firepower with an underlined range cannot fire at flying helicopters")


def fire_modifiers(ctx: Ctx, actor: Unit, target: Unit | None, attack: Attack) -> None:
    """Smoke (§8.2), a leader's to-hit or range (TUS §1.3.6), HQ and leader attack dice
    (§1.3.3.2, TUS §1.3.6), and the HQ bonus for the platoon's Support Weapon."""
    attack.capped += ctx.stage(("legal", "to_hit"), lambda: _smoke(ctx, actor, target, attack)) or 0
    to_hit, extra_range = ctx.stage(("to_hit", "legal"), lambda: leader_weapon_bonus(ctx, actor)) or (0, 0)
    attack.to_hit += to_hit
    attack.range_bonus += extra_range
    attack.bonus = ctx.stage(("fp", "modifiers"), lambda: attack_bonus(ctx, actor)) or 0
    if ctx.action.bonus_from:
        ctx.answer.values.setdefault("modifiers", {})["fp"] = attack.bonus
    for sw in ctx.game.attached(actor.key):
        if sw.type.target_type == "support_weapon" and actor.type.is_infantry:
            _support_weapon(ctx, sw, attack.bonus)


def sight(ctx: Ctx, actor: Unit, target: Unit, attack: Attack) -> None:
    """§7: no fire through a blocked LOS (terrain, §8.2 Smoke), from the map or the stated
    line; an adjacent unit can always be fired at."""
    rel = ctx.game.facts.relation(target.key)
    facts = ctx.game.facts
    if rel.los is False and not (rel.distance is not None and rel.distance <= 1):
        ctx.answer.illegal("§7", f"no line of sight to {target.name}")
        return
    if rel.los is not None:
        return
    stated = facts.get("intervening") is not None or facts.get("along_hexsides") is not None
    mapped = situation.position(ctx.game, actor.key) and situation.position(ctx.game, target.key)
    if not (stated or mapped) or _adjacent(ctx, actor, target):
        return
    found = los.sight(ctx, actor, target)
    if found.blocked:
        ctx.answer.illegal(found.section, f"no line of sight to {target.name}: {found.text}")


def bands(ctx: Ctx, actor: Unit, target: Unit | None, attack: Attack) -> Bands:
    """§6.1.1, §6.1.2: bands to twice the printed range, none beyond it for an underlined
    range; §9.3: a non-anti-aircraft unit at a helicopter has half the range, no extended range
    and no reduced-range bonus, and may always fire at an adjacent helicopter. The halving is
    the unit's: "Non-anti-aircraft units (units without a blue firepower factor) attacking
    helicopters halve their range" (TUS §9.3; EG §9.3 "Units without anti-aircraft weaponry"),
    "An anti-aircraft unit's range is NOT halved when firing at helicopters" (§1.3.4.5), so
    the Shilka's HE is not halved either."""
    weapon = attack.shot.weapon
    printed = None if weapon.range is None else weapon.range + attack.range_bonus
    halved = (target is not None and target.type.target_type == "helicopter" and attack.weapon_name != "aa"
              and actor.current.aa is None)
    plain = not (weapon.underlined or halved)
    far = plain and not getattr(attack, "through_smoke", False) and not attack.printed_only
    return Bands(printed, near=plain, far=far, halved=halved, adjacent_always=halved,
                 label=f"units.{actor.key}.{attack.weapon_name}.range")


def band_to_hit(ctx: Ctx, attack: Attack, band: str, *, quiet: bool = False) -> int:
    """The band's To-Hit change (§6.1.1, §6.1.2), for a band the weapon has at that target.
    A band stated without the range may be one it lacks: an underlined range "cannot fire at
    extended range" and gets no reduced-range bonus (§6.1.1, §6.1.2), nor does a non-AA unit
    at a helicopter (§9.3), a thermal sight through Smoke (002 §8.2) fire at extended range,
    nor on-map artillery beyond its fixed range (001 §8.6)."""
    if band != "effective":
        target = ctx.game.unit(ctx.action.target) if isinstance(ctx.action.target, str) else None
        found = bands(ctx, attack.shot.firer, target, attack) if attack.shot.firer is not None else None
        if found is not None and band not in found.names:
            weapon = attack.shot.weapon
            if found.halved:
                section, why = "§9.3", "a non-anti-aircraft unit firing at a helicopter"
            elif weapon.underlined:
                section, why = ("§6.1.1" if band == "long" else "§6.1.2"), "a weapon with an underlined range"
            elif getattr(attack, "through_smoke", False):
                section, why = "002 §8.2", "a thermal sight firing through Smoke"
            else:
                section, why = "001 §8.6", "on-map artillery direct firing"
            if band == "long":
                ctx.answer.illegal(section, f"{why} cannot fire at extended range")
            elif not quiet:
                ctx.answer.because(section, f"{why} gets no reduced-range bonus")
            return 0
    return band_modifier(ctx, band, quiet=quiet)


def final_to_hit(ctx: Ctx, attack: Attack, band_mod: int, *, explain: bool) -> int:
    """§6.1.3: range and Moving Fire past 6 hold the to-hit at 6 and cost FP instead;
    Smoke's +1 (§8.2) simply stops at 6."""
    printed = need(attack.shot.weapon.to_hit, f"units.{ctx.action.actor}.{attack.weapon_name}.to_hit")
    raw = printed + band_mod + attack.to_hit
    to_hit = min(min(raw, 6) + attack.capped, 6)
    if explain:
        parts = [m for m in (band_mod, attack.to_hit, attack.capped) if m]
        text = f"to-hit {printed}" + "".join(f"{m:+d}" for m in parts) + (f" = {printed + sum(parts)}" if parts else "")
        if to_hit != printed + sum(parts):
            text += f", held at {to_hit}"
        ctx.answer.because("§6.1.1-§6.1.3" if parts else "§6.1", text)
        if raw > 6:
            ctx.answer.because("§6.1.3", f"to-hit past 6 by {raw - 6}: -{raw - 6} FP, to-hit stays 6")
    return to_hit


def final_fp(ctx: Ctx, attack: Attack, band_mod: int) -> int:
    """Attack dice: printed FP, HQ/leader bonus, Moving Fire, less the points past 6 (§6.1.3).
    A printed To-Hit is a number on a d6 (at most 6), so with no modifier raising it the FP is
    known without it: nothing can be past 6."""
    weapon = attack.shot.weapon
    if weapon.to_hit is None and band_mod + attack.to_hit <= 0:
        past_six = 0
    else:
        printed_to_hit = need(weapon.to_hit, f"units.{ctx.action.actor}.{attack.weapon_name}.to_hit")
        past_six = max(0, printed_to_hit + band_mod + attack.to_hit - 6)
    fp = need(weapon.fp, f"units.{ctx.action.actor}.{attack.weapon_name}.fp")
    return max(fp + attack.bonus + attack.fp - past_six, 0)


def after_fire_checks(ctx: Ctx, actor: Unit, attack: Attack) -> None:
    hallowed_ground(ctx, actor)


def opportunity_checks(ctx: Ctx) -> None:
    """§6.2: at a unit moving in LOS and range, once per hex it enters; mortars do not
    opportunity fire outside their LOS (§1.3.4.3)."""
    actor = ctx.unit(ctx.action.actor)
    target = ctx.game.unit(ctx.action.target) if isinstance(ctx.action.target, str) else None
    if target is not None and not target.status.moving:
        ctx.answer.illegal("§6.2", f"{target.name} is not moving")
    if actor.status.fired:
        ctx.answer.illegal("§6.1, §6.2", f"{actor.name} already fired in this impulse: units attack once per "
                           "Formation impulse, and a unit that Opportunity Fires is marked Ops Complete")
    if (ctx.game.facts.get("opfire_count") or 0) >= 1 or (target is not None and target.status.opportunity_fired):
        ctx.answer.illegal("§6.2", "a moving unit can be attacked only once per hex it enters")
    if actor.type.arty_type in ("mrtr", "spm") and target is not None \
            and ctx.game.facts.relation(target.key).los is False:
        ctx.answer.illegal("§1.3.4.3", "mortars cannot opportunity fire at units outside their LOS")


#: Counters that never Opportunity Fire on their own: an HQ and a leader do not attack
#: (§1.3.3.2, TUS §1.3.6), a SW fires with its platoon (§6.1), an airstrike is not a unit on the map.
NO_OPPORTUNITY_FIRE = frozenset({"hq", "leader", "support_weapon", "aircraft"})


def may_opportunity_fire(ctx: Ctx, enemy: Unit, mover: Unit, los: bool | None, distance: int | None,
                         slack: int = 0) -> bool | None:
    """§6.2: whether ``enemy`` may Opportunity Fire at ``mover`` (None: not known): a Good
    Order unit not marked Ops Complete (§6.1: nor one that fired), with a Firepower that may
    attack the mover (no AA at ground units, §1.3.4.5; no underlined non-AA weapon at a Flying
    helicopter, §9.3; no underlined AP under Ammo Depleted, §6.1.4), the mover in its LOS
    (``los``) and within its reach at ``distance`` give or take ``slack`` hexes (the hex a move
    enters, when the distance is stated to where it starts)."""
    if enemy.status.disrupted or enemy.status.ops_complete or enemy.status.fired:
        return False
    if los is False:
        return False
    flying = mover.type.target_type == "helicopter" and mover.mode == "flying"
    reaches: list[int | None] = []
    for name in ("ap", "he", "aa"):
        weapon = enemy.current.weapon(name)
        if weapon is None or (name == "aa" and mover.type.target_type not in ("helicopter", "aircraft")):
            continue
        if flying and name in ctx.params.flying_helicopter_underlined_bars and weapon.underlined:
            continue
        if name == "ap" and weapon.underlined and enemy.status.ammo.startswith("depleted"):
            continue
        found = ctx.stage((), lambda: ctx.rules.bands(ctx, enemy, mover, Attack(
            Shot(enemy, name, weapon, kind="opportunity_fire"), "opportunity_fire")))
        try:
            reaches.append(None if found is None else max(found.max_range, 1 if found.adjacent_always else 0))
        except NotStated:
            reaches.append(None)
    if not reaches:
        return False
    if distance is None:
        return None
    if los is True and any(r is not None and r >= distance + slack for r in reaches):
        return True
    if all(r is not None and r < distance - slack for r in reaches):
        return False
    return None


def opportunity_before_moving_fire(ctx: Ctx) -> None:
    """§6.2: "If an enemy unit moves within the LOS and range of a Good Order unit that is not
    marked with an Ops Complete marker, that unit can attack the moving unit after it enters a
    new hex ... Opportunity Fire occurs before Moving Fire (6.1.3)." The ``order`` of a fire after
    moving, by the shared :func:`referee.fire.opportunity_first` with this book's eligibility."""
    opportunity_first(ctx, "§6.2", may_opportunity_fire, NO_OPPORTUNITY_FIRE,
                      fire_name="Moving Fire", first="Opportunity Fire occurs before Moving Fire")


def after_attack_roll(ctx: Ctx, actor: Unit, attack: Attack, hits: int) -> None:
    missile_check(ctx, actor, attack.weapon_name, attack.shot.weapon, hits)


def fire_results(ctx: Ctx, target: Unit, hits: int, attack: Attack) -> list[str]:
    """§6.1.7: the hits on the target, then every knock-on of the attack; an airstrike
    counter aborts or is shot down instead (TUS §9.5)."""
    if target.type.target_type == "aircraft":
        from referee.classic.air import aircraft_results
        aircraft_results(ctx, target, hits)
        return [target.key]
    damage.take_hits(ctx, target.key, hits, weapon=attack.weapon_name)
    ctx.rules.aftermath(ctx, [target.key])
    return [target.key]


def _leader_choice(ctx: Ctx) -> str:
    """What an attached leader alters on an attack (001 §1.3.6): fp, to_hit or range."""
    choice = ctx.action.choice
    if choice is None:
        return "fp"
    if isinstance(choice, tuple):
        if len(choice) != 1:
            ctx.answer.illegal("001 §1.3.6", "a leader alters one value per roll")
            return "fp"
        choice = choice[0]
    return {"firepower": "fp"}.get(choice, choice)


def attack_bonus(ctx: Ctx, actor: Unit) -> int:
    """Attack dice added by an HQ in the firer's hex (§1.3.3.2) and by the firer's leader
    when he adds firepower (001 §1.3.6); a platoon adds at most two dice (001 §1.3.6)."""
    total = 0
    for key in ctx.action.bonus_from or ():
        giver = ctx.game.unit(key)
        if giver.type.target_type == "leader":
            ctx.params.require("leaders", "001 §1.3.6")
            if giver.attached_to != actor.key:
                ctx.answer.illegal("001 §1.3.6", f"{giver.name} is not assigned to {actor.name}")
                continue
            if not giver.on_map:
                ctx.answer.illegal("001 §1.3.6, §1.3.6.1", f"{giver.name} has fallen (Hallowed Ground): he alters "
                                   "nothing")
                continue
            if _leader_choice(ctx) != "fp":
                continue
        elif giver.type.target_type == "hq":
            if need(giver.hex, f"units.{key}.hex") != need(actor.hex, f"units.{actor.key}.hex"):
                ctx.answer.illegal("§1.3.3.2", f"{giver.name} is not in {actor.name}'s hex")
                continue
        bonus = need(giver.leadership, f"units.{key}.leadership")
        total += bonus
        ctx.answer.because("§1.3.3.2" if giver.type.target_type == "hq" else "001 §1.3.6",
                           f"{giver.name} adds {bonus} attack dice")
    cap = ctx.params.max_bonus_attack_dice
    if cap is not None and total > cap:
        ctx.answer.because("001 §1.3.6", f"a platoon adds at most {cap} attack dice ({total} offered)")
        total = cap
    return total


def leader_weapon_bonus(ctx: Ctx, actor: Unit) -> tuple[int, int]:
    """(to-hit change, range change) from an attached leader's choice (001 §1.3.6)."""
    for key in ctx.action.bonus_from or ():
        giver = ctx.game.unit(key)
        if giver.type.target_type != "leader" or giver.attached_to != actor.key or not giver.on_map:
            continue
        choice = _leader_choice(ctx)
        bonus = need(giver.leadership, f"units.{key}.leadership")
        if choice == "to_hit":
            ctx.answer.because("001 §1.3.6", f"{giver.name} lowers the to-hit number by {bonus}")
            return -bonus, 0
        if choice == "range":
            ctx.answer.because("001 §1.3.6", f"{giver.name} adds 1 to the range")
            return 0, 1
    return 0, 0


def _moving_fire_level(ctx: Ctx, unit: Unit) -> str | None:
    """The unit's Moving Fire level (L1, L2; §6.1.3 and the Moving Fire Table), None if it has none."""
    level = next((a for a in unit.type.abilities if a in ctx.params.moving_fire), None)
    return level or ctx.params.moving_fire_units.get(unit.name)


def moving_fire(ctx: Ctx, actor: Unit) -> tuple[int, int]:
    """§6.1.3 / §6.1.3.1: may the unit fire after moving, and at what (to-hit, FP) cost?"""
    spent = actor.status.mp_spent
    if actor.type.target_type == "helicopter":
        hexes = need(spent, f"units.{actor.key}.status.mp_spent")
        limit = ctx.params.helicopter_moving_fire_hexes
        if not isinstance(hexes, int):
            raise NotStated(f"units.{actor.key}.status.mp_spent (hexes moved)")
        if hexes > limit:
            ctx.answer.illegal("§6.1.3.1", f"helicopter moved {hexes} hexes, more than {limit}")
        if hexes > 0 and actor.mode not in (None, "flying"):
            # §6.1.3.1 "Helicopters can only move when in flying mode", and a mode change is
            # the FIRST action of an activation (§9.1): a helicopter in another mode has not moved
            ctx.answer.illegal("§6.1.3.1, §9.1", f"{actor.name} is {actor.mode}: helicopters can only move in "
                               "Flying mode, so only a Flying helicopter fires after moving")
        allowed = ctx.params.moving_fire_helicopters
        named = actor.type.name      # a counter whose name is not stated is not refused
        if allowed is not None and named and not any(
                re.search(rf"(?<![a-z0-9]){re.escape(w)}(?![a-z0-9])", named.lower()) for w in allowed):
            ctx.answer.illegal("002 §6.1.3, §9.2", f"{actor.name}: only the Hind and the Cobra may fire after moving")
        return 0, 0
    level = _moving_fire_level(ctx, actor)
    if level is None:
        ctx.answer.illegal("§6.1.3", f"{actor.name} is not eligible for Moving Fire")
        return 0, 0
    spent = need(spent, f"units.{actor.key}.status.mp_spent")
    if isinstance(spent, int):
        half = need(actor.current.mp, f"units.{actor.key}.mp") // 2
        over = spent > half
    else:
        over = spent == "more_than_half"
    if over:
        ctx.answer.illegal("§6.1.3", "Moving Fire allows at most half the Movement Factor")
    return ctx.params.moving_fire[level]


def hallowed_ground(ctx: Ctx, actor: Unit) -> None:
    """001 §1.3.6.1: "units of the leader's nationality may reroll one die whenever they are
    required to roll die/dice in the Hallowed Ground hex": a firer's attack dice, a target's
    defensive roll (:func:`defense`), a rally roll (``command.rally``)."""
    if not (actor.hex and ctx.params.has("leaders")):
        return
    hex_state = ctx.game.hex(actor.hex)
    if "hallowed_ground" not in hex_state.markers:
        ctx.answer.set("rerolls", 0)
        return
    if hex_state.owner is None or actor.nation is None:
        ctx.answer.gap("rerolls", "not stated: nationality of the unit or of the Hallowed Ground")
        return
    same = hex_state.owner == actor.nation
    ctx.answer.set("rerolls", 1 if same else 0)
    if same:
        ctx.answer.because("001 §1.3.6.1", "Hallowed Ground: one die may be rerolled")


SMOKE = frozenset({"smoke_2", "smoke_1", "smoke"})


def _smoke(ctx: Ctx, actor: Unit, target: Unit | None, attack: Attack) -> int:
    """§8.2 on the attack's numbers (the LOS procedure decides whether Smoke blocks): an
    adjacent unit fires into a Smoke hex at +1 to hit; thermal sights (EG §8.2, the Moving
    Fire Table's Advanced Imaging) fire through Smoke at +1, never at extended range, and
    the ITV not with its HE."""
    if target is None:
        return 0
    stated = any(set(raw.get("markers") or ()) & SMOKE for raw in ctx.game.facts.get("intervening") or ())
    if not stated and not any(h.markers & SMOKE for h in ctx.game.hexes.values()):
        return 0
    if _adjacent(ctx, actor, target):
        if target.hex and ctx.game.hex(target.hex).markers & SMOKE:
            ctx.answer.modify("to_hit", 1, "firing into Smoke from an adjacent hex", "§8.2")
            return 1
        return 0
    if not (actor.name in ctx.params.thermal_units or "thermal" in actor.type.abilities):
        return 0
    if los.smoke_screen(ctx, actor, target, thermal_sees=False) is None:
        return 0
    if attack.weapon_name == "he" and actor.name == "ITV":
        ctx.answer.illegal("002 §8.2", "the ITV cannot use its HE Firepower to fire through Smoke")
        return 0
    attack.through_smoke = True
    ctx.answer.modify("to_hit", 1, "thermal sights through Smoke", "002 §8.2")
    return 1


def _adjacent(ctx: Ctx, actor: Unit, target: Unit) -> bool:
    rel = ctx.game.facts.relation(target.key)
    if rel.adjacent is not None:
        return rel.adjacent
    if rel.distance is not None:
        return rel.distance <= 1
    return situation.distance(ctx, actor.key, target.key) <= 1


def _support_weapon(ctx: Ctx, sw: Unit, bonus: int) -> None:
    """§1.3.3.2 exception: the HQ's leadership also backs the platoon's Support Weapon."""
    printed = [w for w in (sw.current.ap, sw.current.he) if w is not None]
    if len(printed) == 1 and printed[0].fp is not None:
        ctx.answer.unit(sw.key, fp=printed[0].fp + bonus)


def missile_check(ctx: Ctx, actor: Unit, name: str, weapon: Weapon | None, hits: int) -> None:
    """§6.1.4 missile depletion; 001 §1.3.5.1 the gun-launched ATGM is used up on a miss."""
    if actor.type.target_type == "support_weapon" and actor.name in ctx.params.single_shot_units:
        ctx.emit(UnitRemoved(actor.key, "removed"))
        ctx.answer.because("001 §1.3.5.2", f"{actor.name} is removed after it is fired")
        return
    if actor.type.target_type == "support_weapon" and _tank_support_weapon(ctx, actor):
        if hits == 0:
            ctx.emit(UnitRemoved(actor.key, "removed"))
            ctx.answer.because("001 §1.3.5.1", f"no hits: {actor.name} runs out and is removed")
        return
    if actor.type.arty_type in ("mrtr", "spm"):
        ctx.answer.because("§1.3.4.3, §6.1.4", "mortars are exempt from missile depletion")
        return
    # an underlined range of a Firepower the book names makes it missile-firing (TUS any, EG AP
    # or AA: an underlined HE range alone does not, "Missile-firing units are any units with an
    # underlined AP or AA (9.3) range value", 002 §6.1.4)
    missile = "missile" in actor.type.abilities or bool(
        weapon and weapon.underlined and name in ctx.params.missile_range_weapons)
    if missile and hits == 0 and "indirect_fire" not in actor.type.abilities:
        ctx.emit(StatusChanged(actor.key, "ammo", "depleted_2"))
        ctx.answer.because("§6.1.4", f"missile unit rolled no hits: Ammo Depleted 2 on {actor.name}")


def _infantry_platoon(unit: Unit) -> bool:
    """An infantry platoon, which fires its Support Weapon beside its own Firepower (§1.3.5);
    a towed gun is a soft target too (TUS §1.3.7) but fires its KASTET in lieu of its gun."""
    return unit.type.is_infantry and "towed" not in unit.type.abilities


def _tank_support_weapon(ctx: Ctx, sw: Unit) -> bool:
    """A gun-launched ATGM held by a tank (001 §1.3.5.1 the Songster), used up on a miss; an
    infantry platoon's missile SW (Sagger, Dragon...) is depleted like any missile unit
    (§6.1.4), and the HEAT-FS round (TUS §1.3.5.2) is neither."""
    holder = ctx.game.units.get(sw.attached_to) if sw.attached_to else None
    return holder is not None and not _infantry_platoon(holder) \
        and (sw.name or "").upper() in ctx.params.gun_launched_atgms


def missile_ammo_check(ctx: Ctx) -> None:
    """The ``missile_ammo_check`` procedure: depletion after a shot of ``query.hits`` hits."""
    actor = ctx.unit(ctx.action.actor)
    name = ctx.action.weapon or "ap"
    hits = need(ctx.action.hits, "query.hits")
    if not isinstance(hits, int):
        raise RefereeError("missile_ammo_check: query.hits must be an integer")
    missile_check(ctx, actor, name, actor.current.weapon(name), hits)


# ---------------------------------------------------------------- defence ---------

def terrain_cover(ctx: Ctx, hex_id: str | None, target_class: str) -> tuple[int, str]:
    """Defensive Bonus dice of the hex for ``infantry`` or ``vehicle`` targets (TEC), and
    what gives them: the terrain, or a Wreck where it gives more (TEC Wrecks row)."""
    hex_state = ctx.game.hex(hex_id)
    stated = hex_state.terrain_db
    if isinstance(stated, int):
        db = stated
    elif stated is not None:
        db = need(stated.get(target_class), f"hexes.{hex_state.id}.terrain_db.{target_class}")
    else:
        row = ctx.tec.terrain(hex_state.terrain)
        db = need((row.db or {}).get(target_class), f"hexes.{hex_state.id}.terrain_db")
    source = (hex_state.terrain or "terrain").replace("_", " ")
    if "wrecks" in hex_state.markers:
        wreck = ctx.tec.marker("wrecks")
        wreck_db = (wreck.db or {}).get(target_class, 0) if wreck else 0
        if wreck_db > db:
            db, source = wreck_db, "Wreck"
    return db, source


def terrain_db(ctx: Ctx, hex_id: str | None, target_class: str) -> int:
    """The Defensive Bonus dice alone (see :func:`terrain_cover`)."""
    return terrain_cover(ctx, hex_id, target_class)[0]


def target_class(unit: Unit) -> str:
    """The TEC column a target uses: ``vehicle`` or ``infantry`` (soft targets)."""
    return "vehicle" if unit.type.is_vehicle else "infantry"


def is_hard(unit: Unit) -> bool:
    """Hard targets print an Armor Factor and Save Number (§6.1); helicopters use theirs (§9.3)."""
    if unit.type.target_type in ("troops", "soft_vehicle"):
        return False
    if unit.current.armor is not None or unit.type.target_type in HARD_TYPES:
        return True
    if unit.type.target_type in ("vehicle", None):
        raise NotStated(f"units.{unit.key}.target_type (armored or not)")
    return False


def is_concealed(ctx: Ctx, target: Unit, firer: Unit | None = None) -> bool:
    """§6.1.5: concealing terrain or a Wreck, not Ops Complete, not moving, no Good Order
    enemy adjacent, not in the LOS of Good Order enemy recon. A stated fact wins."""
    if target.status.concealed is not None:
        return target.status.concealed
    hex_state = ctx.game.hex(target.hex)
    row = ctx.tec.terrain(hex_state.terrain) if hex_state.terrain else None
    covers = "wrecks" in hex_state.markers or (row is not None and (
        row.conceals == "all" or (row.conceals == "infantry" and target.type.is_infantry)))
    if hex_state.terrain is None and "wrecks" not in hex_state.markers:
        raise NotStated(f"hexes.{hex_state.id}.terrain")
    if not covers:
        ctx.answer.because("§6.1.5", f"{target.name}: terrain gives no concealment")
        return False
    if target.status.ops_complete or target.status.moving:
        ctx.answer.because("§6.1.5", f"{target.name}: Ops Complete or moving, not concealed")
        return False
    if target.status.has_moved:
        # EG §6.1.5 "b) it did not move"; TUS §5.0 marks a unit that moves Ops Complete (a)
        ctx.answer.because("§6.1.5, §5.0", f"{target.name} has moved this activation: not concealed")
        return False
    reference = situation.reference(ctx)
    for other in ctx.game.units.values():
        if other.key == target.key or not other.on_map or other.status.disrupted:
            continue
        if other.type.target_type in ("hq", "leader", "support_weapon", "aircraft"):
            continue
        if firer is None or other.key != firer.key:
            if other.side is None or target.side is None:
                raise NotStated(f"units.{other.key}.side")
            if other.side == target.side:
                continue
        if reference == target.key:
            sees = ctx.game.facts.relation(other.key).los
        elif reference == other.key:
            sees = ctx.game.facts.relation(target.key).los
        else:
            sees = None
        if "recon" in other.type.abilities and sees:
            ctx.answer.because("§1.3.4.4", f"{target.name}: seen by enemy recon {other.name}")
            return False
        if situation.adjacent(ctx, target.key, other.key):
            ctx.answer.because("§6.1.5", f"{target.name}: adjacent to Good Order enemy {other.name}")
            return False
        if "recon" in other.type.abilities and sees is None:
            raise NotStated(f"units.{other.key}.los")
    ctx.answer.because("§6.1.5", f"{target.name} is concealed")
    return True


def concealed(ctx: Ctx, target: Unit, shot: Shot) -> bool:
    """§6.1.5, except against a fire mission, which ignores concealment (§8.1)."""
    if shot.mission in MISSION_DEFENCE:
        return False
    return is_concealed(ctx, target, shot.firer)


def defence_terrain(ctx: Ctx, target: Unit, shot: Shot) -> tuple[int, str]:
    """The TEC's Defensive Bonus for the target's column (a fire mission: the infantry
    column for every unit, §8.1, §8.5), as dice and what gives them."""
    column = "infantry" if shot.mission in MISSION_DEFENCE else target_class(target)
    db, source = terrain_cover(ctx, target.hex, column)
    hex_state = ctx.game.hex(target.hex)
    if hex_state.terrain_db is None and hex_state.terrain is not None:
        row = ctx.tec.terrain(hex_state.terrain)
        if row.db_from_ground is not None and shot.firer is not None and shot.mission is None \
                and los.level_of(ctx, shot.firer) == 0 and row.db_from_ground > db:
            ctx.answer.because("002 TEC", f"{row.name.replace('_', ' ')} attacked from ground level: "
                               f"DB {row.db_from_ground}")
            db = row.db_from_ground
    if shot.mission in MISSION_DEFENCE:
        ctx.answer.because("§8.1", f"fire mission: infantry DB of the terrain {db}, no concealment, "
                           f"saves on {ctx.params.soft_save}+")
    return db, f"DB {db} {source}"


def armor_and_save(ctx: Ctx, target: Unit, shot: Shot) -> tuple[int, int]:
    """Armor dice and save: the counter's for hard targets, none and 5+ for soft (§6.1) and
    against a fire mission (§8.1); a leader may raise one or lower the other (TUS §1.3.6)."""
    if shot.mission in MISSION_DEFENCE or not is_hard(target):
        return 0, ctx.params.soft_save
    armor = need(target.current.armor, f"units.{target.key}.armor")
    save = need(target.current.save, f"units.{target.key}.save")
    return _leader_defence(ctx, target, armor, save)


def _leader_defence(ctx: Ctx, target: Unit, armor: int, save: int) -> tuple[int, int]:
    """001 §1.3.6: a leader may raise the armor value or lower the save number, one per roll."""
    leaders = [ctx.game.unit(k) for k in ctx.action.bonus_from or ()
               if ctx.game.unit(k).type.target_type == "leader"]
    if not leaders:
        return armor, save
    ctx.params.require("leaders", "001 §1.3.6")
    if ctx.action.kind != "defense":            # the firer's leaders (bonus_from of an attack)
        leaders = [l for l in leaders if l.attached_to == target.key and l.on_map]
        if not leaders:
            return armor, save
    for leader in leaders:
        if leader.attached_to != target.key or not leader.on_map:
            ctx.answer.illegal("001 §1.3.6", f"{leader.name} is not with {target.name}: a leader alters only his "
                               "own platoon's values")
            return armor, save
    choice = ctx.action.choice
    choices = [choice] if isinstance(choice, str) else list(choice or ())
    if len(choices) != 1:
        ctx.answer.illegal("001 §1.3.6", "a leader alters one value per roll")
        return armor, save
    bonus = sum(need(l.leadership, f"units.{l.key}.leadership") for l in leaders)
    if choices[0] == "save":
        ctx.answer.modify("save", -bonus, "leader lowers the save number", "001 §1.3.6")
        return armor, max(1, save - bonus)
    if choices[0] == "armor":
        ctx.answer.modify("armor", bonus, "leader raises the armor value", "001 §1.3.6")
        return armor + bonus, save
    return armor, save


def defense(ctx: Ctx) -> None:
    """The target's defensive roll alone: armor dice, DB dice, save number, saves."""
    from referee.defence import defence, put, roll_saves
    target = ctx.unit(ctx.action.target if isinstance(ctx.action.target, str) else None, "target")
    firer = ctx.game.unit(ctx.action.actor) if ctx.action.actor else None
    mission = ctx.action.mission.type if ctx.action.mission else None
    shot = Shot(firer, ctx.action.weapon, firer.current.weapon(ctx.action.weapon) if firer and ctx.action.weapon
                else None, mission)
    ans = ctx.answer
    ctx.stage("rerolls", lambda: hallowed_ground(ctx, target))
    if mission not in MISSION_DEFENCE:
        armor, save = armor_and_save(ctx, target, shot)
        if ans.legal is False:
            return
        ans.set("armor_dice", armor)
        ans.set("save_number", save)
        if ctx.action.bonus_from and ans.legal is None:
            ans.set("legal", True)
    roll = ctx.stage(("db_dice", "defense_dice", "concealed", "saves"), lambda: defence(ctx, target, shot))
    if roll is None:
        return
    put(ctx, roll)
    if ctx.dice is not None:
        ctx.stage("saves", lambda: ans.set("saves", roll_saves(ctx, roll, 1)))
