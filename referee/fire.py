"""Ranged combat (§6.1): weapon, range band, to-hit and FP, concealment, defence, results.

Opportunity fire (§6.2) and moving fire (§6.1.3) are the same procedure with a flag;
missile depletion (§6.1.4) follows every shot.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from referee import damage, los, situation
from referee.errors import NotStated, RefereeError
from referee.events import StatusChanged, UnitRemoved
from referee.model import HARD_TYPES, Unit, Weapon, need
from referee.ruleset import Ctx

BAND_MODIFIER = {"point_blank": -1, "effective": 0, "long": 1}


# ---------------------------------------------------------------- range ------------

@dataclass(frozen=True)
class RangeRule:
    """How a weapon's printed range works against this target (§6.1.1, §6.1.2, §9.3)."""

    printed: int | None
    underlined: bool
    halved: bool            # non-AA weapon against a helicopter
    label: str = "weapon"   # names the printed value in "not stated: units.A.ap.range"

    @property
    def bands(self) -> list[str]:
        if self.underlined or self.halved:
            return ["effective"]
        return ["point_blank", "effective", "long"]

    def max_range(self) -> int:
        printed = need(self.printed, f"{self.label}.range")
        reach = printed // 2 if self.halved else printed
        return reach if (self.underlined or self.halved) else 2 * reach

    def band(self, distance: int) -> str | None:
        """The band at ``distance``, or ``None`` when out of range."""
        if self.halved and distance <= 1:
            return "effective"                     # an adjacent helicopter can always be fired on
        if distance > self.max_range():
            return None
        printed = need(self.printed, f"{self.label}.range")
        if self.underlined or self.halved:
            return "effective"
        if distance <= printed // 2:
            return "point_blank"
        return "effective" if distance <= printed else "long"


def range_rule(weapon_name: str, weapon: Weapon, target: Unit | None, label: str = "weapon") -> RangeRule:
    """The range rule of ``weapon`` against ``target``; ``label`` names it in gaps."""
    vs_helicopter = target is not None and target.type.target_type == "helicopter"
    return RangeRule(weapon.range, bool(weapon.underlined), vs_helicopter and weapon_name != "aa", label)


def choose_weapon(ctx: Ctx, actor: Unit, target: Unit | None) -> str:
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


# ---------------------------------------------------------------- defence ----------

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


@dataclass(frozen=True)
class DefenceRoll:
    db_dice: int
    armor_dice: int
    save_number: int
    concealed: bool

    @property
    def defense_dice(self) -> int:
        return self.db_dice + self.armor_dice


def armor_and_save(ctx: Ctx, target: Unit) -> tuple[int, int]:
    """Armor dice and save number: the counter's for hard targets, none and 5+ for soft (§6.1)."""
    if not is_hard(target):
        return 0, ctx.params.soft_save
    armor = need(target.current.armor, f"units.{target.key}.armor")
    save = need(target.current.save, f"units.{target.key}.save")
    return _leader_defence(ctx, target, armor, save)


def db_dice(ctx: Ctx, target: Unit, firer: Unit | None = None) -> tuple[int, bool]:
    """Defensive Bonus dice with concealment, capped at 2 for hard targets (§6.1.5, §6.1.6)."""
    db, source = terrain_cover(ctx, target.hex, target_class(target))
    concealed = is_concealed(ctx, target, firer)
    total = db + (1 if concealed else 0)
    text = f"DB {db} {source}" + (" + 1 concealed" if concealed else "")
    if is_hard(target) and total > ctx.params.hard_db_cap:
        text += f", capped at {ctx.params.hard_db_cap}"
        total = ctx.params.hard_db_cap
    ctx.answer.because("§6.1.5, §6.1.6", f"{target.name}: {text}")
    return total, concealed


def defence(ctx: Ctx, target: Unit, *, mission: str | None = None,
            firer: Unit | None = None) -> DefenceRoll:
    """The target's defensive roll: armor dice plus DB dice, and the save number."""
    soft_save = ctx.params.soft_save
    if mission in ("he", "dpicm"):
        db = terrain_db(ctx, target.hex, "infantry")
        ctx.answer.because("§8.1", f"fire mission: infantry DB of the terrain {db}, no concealment, saves on {soft_save}+")
        return DefenceRoll(db, 0, soft_save, False)
    armor, save = armor_and_save(ctx, target)
    db, concealed = db_dice(ctx, target, firer)
    return DefenceRoll(db, armor, save, concealed)


def _leader_defence(ctx: Ctx, target: Unit, armor: int, save: int) -> tuple[int, int]:
    """001 §1.3.6: a leader may raise the armor value or lower the save number, one per roll."""
    leaders = [ctx.game.unit(k) for k in ctx.action.bonus_from or ()
               if ctx.game.unit(k).type.target_type == "leader"]
    if not leaders:
        return armor, save
    ctx.params.require("leaders", "001 §1.3.6")
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


def roll_saves(ctx: Ctx, roll: DefenceRoll, hits: int) -> int:
    """Roll the defence dice (none when no hit is left) and count the saves."""
    if hits == 0 and roll.defense_dice:
        return 0
    dice = ctx.roll(roll.defense_dice, "save")
    return sum(1 for d in dice if d >= roll.save_number)


def put_defence(ctx: Ctx, roll: DefenceRoll) -> None:
    """Report a defence roll's numbers in the answer."""
    ctx.answer.set("db_dice", roll.db_dice)
    ctx.answer.set("armor_dice", roll.armor_dice)
    ctx.answer.set("defense_dice", roll.defense_dice)
    ctx.answer.set("save_number", roll.save_number)
    ctx.answer.set("concealed", roll.concealed)


def improved_position(ctx: Ctx, target: Unit, hits: int) -> int:
    """001 §12.1: an Improved Position nullifies the first hit of any attack."""
    if hits and target.hex and "improved_position" in ctx.game.hex(target.hex).markers:
        ctx.params.require("improved_positions", "001 §12.1")
        ctx.answer.because("001 §12.1", "Improved Position negates the first hit")
        return hits - 1
    return hits


# ---------------------------------------------------------------- firing -----------

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
        if giver.type.target_type != "leader" or giver.attached_to != actor.key:
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
        return 0, 0
    level = next((a for a in actor.type.abilities if a in ctx.params.moving_fire), None)
    level = level or ctx.params.moving_fire_units.get(actor.name)
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


#: Results that only the attack and defence rolls decide.
RESOLUTION_FIELDS = ("hits", "saves", "net_hits", "db_dice", "armor_dice", "defense_dice",
                     "save_number", "concealed", "units")
#: Results that depend on the weapon and the range.
ATTACK_FIELDS = ("legal", "to_hit", "fp", "band", "bands", "max_range")


def fire(ctx: Ctx, *, opportunity: bool = False, moving: bool = False) -> None:
    """Direct, opportunity or moving fire by the actor on one target unit: who may fire
    (§6.1), with what (weapon, range band, to-hit, FP), then the rolls and results."""
    a, ans = ctx.action, ctx.answer
    actor = ctx.unit(a.actor)
    target = ctx.game.unit(a.target) if isinstance(a.target, str) else None
    _fire_status(ctx, actor, opportunity)
    mods = (0, 0)
    if moving:
        mods = ctx.stage(("legal", "to_hit", "fp"), lambda: moving_fire(ctx, actor)) or (0, 0)
        ans.set("modifiers", {"to_hit": mods[0], "fp": mods[1]})
    weapon_name = ctx.stage(ATTACK_FIELDS + ("weapon", "hits"), lambda: choose_weapon(ctx, actor, target))
    if weapon_name is None:
        return
    ans.set("weapon", weapon_name)
    weapon = actor.current.weapon(weapon_name)
    if weapon is None and any(actor.current.weapon(n) for n in ("ap", "he", "aa")):
        ans.illegal("§6.1", f"{actor.name} has no {weapon_name.upper()} firepower")
        return
    if weapon is None:                  # the counter's firepower is not stated at all
        ans.gap(ATTACK_FIELDS, f"not stated: units.{actor.key}.{weapon_name}")
    else:
        _attack(ctx, actor, target, weapon_name, weapon, mods)
    _hallowed_ground(ctx, actor)
    if ans.legal is None and "legal" not in ans.gaps:
        ans.set("legal", True)
    if ans.legal:
        ctx.emit(StatusChanged(actor.key, "ops_complete", True))
        ans.because("§6.1", f"{actor.name} is marked Ops Complete")
    if target is None or ans.legal is False:
        return
    if ans.legal or a.hits is not None:      # given hits mean the attack was made
        ctx.stage(RESOLUTION_FIELDS, lambda: _resolve_fire(ctx, actor, target, weapon_name, weapon))
    else:                                      # legality unknown: the defence is still known
        ans.gap(("hits", "saves", "net_hits", "units"), ans.gaps["legal"])
        roll = ctx.stage(RESOLUTION_FIELDS, lambda: defence(ctx, target, firer=actor))
        if roll is not None:
            put_defence(ctx, roll)


def _attack(ctx: Ctx, actor: Unit, target: Unit | None, weapon_name: str, weapon: Weapon,
            mods: tuple[int, int]) -> None:
    """Legality of this weapon at this target, the range band, to-hit and FP."""
    ans = ctx.answer
    _weapon_legality(ctx, actor, target, weapon_name, weapon)
    smoke = ctx.stage(("legal", "to_hit"), lambda: _smoke(ctx, actor, target)) or 0
    label = f"units.{actor.key}.{weapon_name}"
    leader_to_hit, leader_range = ctx.stage(("to_hit", "legal"), lambda: leader_weapon_bonus(ctx, actor)) or (0, 0)
    if leader_range and weapon.range is not None:
        weapon = replace(weapon, range=weapon.range + leader_range)
    mods = (mods[0] + leader_to_hit, mods[1])
    rule = range_rule(weapon_name, weapon, target, label)
    ans.set("bands", rule.bands)
    ctx.stage("max_range", lambda: ans.set("max_range", rule.max_range()))
    band = ctx.stage(("band", "legal", "to_hit", "fp", "hits"), lambda: _band(ctx, rule, target))
    bonus = ctx.stage(("fp", "modifiers"), lambda: attack_bonus(ctx, actor)) or 0
    if ctx.action.bonus_from:
        ans.values.setdefault("modifiers", {})["fp"] = bonus
    if band is not None:
        ctx.stage(("to_hit", "fp", "hits"), lambda: _to_hit_and_fp(ctx, label, weapon, band, mods, bonus, smoke))
    elif "band" in ans.gaps and ans.legal is not False:
        ctx.stage(("to_hit", "fp"), lambda: _band_independent(ctx, label, weapon, rule, mods, bonus, smoke))
    for sw in ctx.game.attached(actor.key):
        if sw.type.target_type == "support_weapon" and actor.type.is_infantry:
            _support_weapon(ctx, sw, bonus)


def _hallowed_ground(ctx: Ctx, actor: Unit) -> None:
    """001 §1.3.6.1: units of the fallen leader's nationality may reroll one die there."""
    if not (actor.hex and ctx.params.has("leaders")):
        return
    hex_state = ctx.game.hex(actor.hex)
    if "hallowed_ground" not in hex_state.markers:
        return
    if hex_state.owner is None or actor.nation is None:
        ctx.answer.gap("rerolls", "not stated: nationality of the unit or of the Hallowed Ground")
        return
    same = hex_state.owner == actor.nation
    ctx.answer.set("rerolls", 1 if same else 0)
    if same:
        ctx.answer.because("001 §1.3.6.1", "Hallowed Ground: one die may be rerolled")


def _fire_status(ctx: Ctx, actor: Unit, opportunity: bool) -> None:
    ans, status = ctx.answer, actor.status
    if status.disrupted:
        ans.illegal("§6.1.7", f"{actor.name} is Disrupted and cannot fire")
    if status.ops_complete:
        ans.illegal("§6.1", f"{actor.name} is Ops Complete")
    if status.out_of_command and not opportunity:
        ans.illegal("§4.2", f"{actor.name} is Out of Command: only opportunity fire")
    for sw in ctx.game.attached(actor.key):
        if sw.type.target_type == "support_weapon" and sw.status.fired and not actor.type.is_infantry:
            ans.illegal("001 §1.3.5.1", f"{actor.name} fired its gun-launched ATGM this impulse")


def _weapon_legality(ctx: Ctx, actor: Unit, target: Unit | None, name: str, weapon: Weapon) -> None:
    ans = ctx.answer
    if name == "ap" and weapon.underlined and actor.status.ammo.startswith("depleted"):
        ans.illegal("§6.1.4", f"{actor.name} is under an Ammo Depleted marker")
    if target is None:
        return
    kind = target.type.target_type
    if name == "aa" and kind not in (None, "helicopter", "aircraft"):
        ans.illegal("§1.3.4.5", "AA firepower only targets helicopters and aircraft")
    if kind == "helicopter" and name != "aa" and weapon.underlined and target.mode == "flying":
        ans.illegal("§9.3", "non-AA weapons with an underlined range cannot fire at flying helicopters")
    rel = ctx.game.facts.relation(target.key)
    if rel.los is False and not (rel.distance is not None and rel.distance <= 1):
        ans.illegal("§7", f"no line of sight to {target.name}")
    elif rel.los is None and situation.position(ctx.game, actor.key) and situation.position(ctx.game, target.key):
        ctx.stage("legal", lambda: _traced_los(ctx, actor, target))


def _traced_los(ctx: Ctx, actor: Unit, target: Unit) -> None:
    """Both units are on the map: trace the line and apply §7 (adjacent units always see)."""
    if situation.distance(ctx, actor.key, target.key) <= 1:
        return
    blocked, why = los.unit_blocked(ctx, actor, target)
    if blocked:
        ctx.answer.illegal("§7", f"no line of sight to {target.name}: {why}")


def _band(ctx: Ctx, rule: RangeRule, target: Unit | None) -> str:
    stated = ctx.game.facts.get("range_band")
    ans = ctx.answer
    if stated is not None and (target is None or ctx.game.facts.relation(target.key).distance is None):
        # a stated band wins over a computed distance only when no distance is stated
        ans.set("band", stated)
        ans.because("§6.1.1, §6.1.2", f"range band {stated} (stated)")
        return stated
    if target is None:
        raise NotStated("query.target")
    distance = situation.distance(ctx, ctx.action.actor, target.key)
    band = rule.band(distance)
    if band is None:
        ans.illegal("§6.1.1", f"range {distance} is beyond the maximum {rule.max_range()}")
        raise NotStated(f"band (out of range at {distance})")
    ans.set("band", band)
    ans.set("range", distance)
    ans.because("§6.1.1, §6.1.2, §9.3", f"range {distance} = {band.replace('_', ' ')}"
                + (" (halved against a helicopter)" if rule.halved else ""))
    return band


def modified_to_hit(weapon: Weapon, band: str, mods: tuple[int, int], capped: int = 0,
                    label: str = "weapon") -> tuple[int, int]:
    """(to-hit, points past 6): range and Moving Fire past 6 cost FP instead (§6.1.3 names
    only §6.1.1 and §6.1.3); ``capped`` modifiers (smoke) simply stop at 6."""
    to_hit = need(weapon.to_hit, f"{label}.to_hit") + BAND_MODIFIER[band] + mods[0]
    past_six = max(0, to_hit - 6)
    return min(min(to_hit, 6) + capped, 6), past_six


def modified_fp(weapon: Weapon, band: str, mods: tuple[int, int], bonus: int,
                label: str = "weapon") -> int:
    """Attack dice: printed FP, HQ/leader bonus, Moving Fire, less the points past 6."""
    _, past_six = modified_to_hit(weapon, band, mods, 0, label)
    return max(need(weapon.fp, f"{label}.fp") + bonus + mods[1] - past_six, 0)


def _to_hit_and_fp(ctx: Ctx, label: str, weapon: Weapon, band: str,
                   mods: tuple[int, int], bonus: int, capped: int = 0) -> None:
    ans = ctx.answer
    band_mod = BAND_MODIFIER[band]
    if band_mod:
        ans.modify("to_hit", band_mod, f"{band.replace('_', ' ')} range", "§6.1.1, §6.1.2", explain=False)
    to_hit, past_six = modified_to_hit(weapon, band, mods, capped, label)
    parts = [m for m in (band_mod, mods[0], capped) if m]
    ans.because("§6.1.1-§6.1.3" if parts else "§6.1", f"to-hit {weapon.to_hit}" + "".join(f"{m:+d}" for m in parts)
                + (f" = {weapon.to_hit + sum(parts)}" if parts else "")
                + (f", held at {to_hit}" if to_hit != weapon.to_hit + sum(parts) else ""))
    if past_six:
        ans.because("§6.1.3", f"to-hit past 6 by {past_six}: -{past_six} FP, to-hit stays 6")
    ans.set("to_hit", to_hit)
    ctx.stage(("fp", "hits"), lambda: ans.set("fp", modified_fp(weapon, band, mods, bonus, label)))


def _band_independent(ctx: Ctx, label: str, weapon: Weapon, rule: RangeRule,
                      mods: tuple[int, int], bonus: int, capped: int = 0) -> None:
    """The range is not stated: answer to-hit or FP when every possible band gives the same."""
    for name, value in (("to_hit", lambda b: modified_to_hit(weapon, b, mods, capped, label)[0]),
                        ("fp", lambda b: modified_fp(weapon, b, mods, bonus, label))):
        values = ctx.stage(name, lambda value=value: {value(band) for band in rule.bands})
        if values is not None and len(values) == 1:
            ctx.answer.set(name, values.pop())
            ctx.answer.because("§6.1.1-§6.1.3", f"{name} is the same in every range band")


SMOKE = frozenset({"smoke_2", "smoke_1", "smoke"})


def _smoke(ctx: Ctx, actor: Unit, target: Unit | None) -> int:
    """§8.2: Smoke blocks LOS into and out of its hex except for adjacent units, which fire
    into it at +1 to hit; thermal sights (002 §8.2) see through it at +1."""
    if target is None:
        return 0
    if not any(h is not None and ctx.game.hex(h).markers & SMOKE for h in (actor.hex, target.hex)):
        return 0
    if situation.distance(ctx, actor.key, target.key) <= 1:
        ctx.answer.modify("to_hit", 1, "firing into Smoke from an adjacent hex", "§8.2")
        return 1
    if actor.name in ctx.params.thermal_units or "thermal" in actor.type.abilities:
        ctx.answer.modify("to_hit", 1, "thermal sights through Smoke", "002 §8.2")
        return 1
    ctx.answer.illegal("§8.2", "Smoke blocks the line of sight")
    return 0


def _support_weapon(ctx: Ctx, sw: Unit, bonus: int) -> None:
    """§1.3.3.2 exception: the HQ's leadership also backs the platoon's Support Weapon."""
    printed = [w for w in (sw.current.ap, sw.current.he) if w is not None]
    if len(printed) == 1 and printed[0].fp is not None:
        ctx.answer.unit(sw.key, fp=printed[0].fp + bonus)


def _resolve_fire(ctx: Ctx, actor: Unit, target: Unit, name: str, weapon: Weapon | None) -> None:
    """Attack dice, then the target's defence roll, then results (§6.1, §6.1.7)."""
    ans = ctx.answer
    roll = ctx.stage(("db_dice", "armor_dice", "defense_dice", "save_number", "concealed",
                      "saves", "net_hits", "units"), lambda: defence(ctx, target, firer=actor))
    if roll is not None:
        put_defence(ctx, roll)
    if ctx.action.hits is not None:
        hits = ctx.given_hits(target.key)
    else:
        fp = ans.values.get("fp")
        to_hit = ans.values.get("to_hit")
        if fp is None or to_hit is None:
            raise NotStated(ans.gaps.get("fp" if fp is None else "to_hit", "attack numbers")
                            .replace("not stated: ", ""))
        dice = ctx.roll(fp, "attack")
        hits = sum(1 for d in dice if d >= to_hit)
        ans.because("§6.1", f"{fp} dice at {to_hit}+: {hits} hit(s)")
        missile_check(ctx, actor, name, weapon, hits)
    ans.set("hits", hits)
    if roll is None:
        return
    negated = improved_position(ctx, target, hits)
    saves = roll_saves(ctx, roll, negated)
    net = max(0, negated - saves)
    ans.set("saves", saves)
    ans.set("net_hits", net)
    ans.because("§6.1", f"{roll.defense_dice} defence dice at {roll.save_number}+: {saves} save(s), {net} net hit(s)")
    damage.take_hits(ctx, target.key, net, weapon=name)
    damage.aftermath(ctx, [target.key])


def missile_check(ctx: Ctx, actor: Unit, name: str, weapon: Weapon | None, hits: int) -> None:
    """§6.1.4 missile depletion; 001 §1.3.5.1 the gun-launched ATGM is used up on a miss."""
    if actor.type.target_type == "support_weapon":
        if hits == 0:
            ctx.emit(UnitRemoved(actor.key, "removed"))
            ctx.answer.because("001 §1.3.5.1", f"no hits: {actor.name} runs out and is removed")
        return
    if actor.type.arty_type in ("mrtr", "spm"):
        ctx.answer.because("§1.3.4.3, §6.1.4", "mortars are exempt from missile depletion")
        return
    missile = "missile" in actor.type.abilities or bool(weapon and weapon.underlined)
    if missile and hits == 0 and "indirect_fire" not in actor.type.abilities:
        ctx.emit(StatusChanged(actor.key, "ammo", "depleted_2"))
        ctx.answer.because("§6.1.4", f"missile unit rolled no hits: Ammo Depleted 2 on {actor.name}")


def missile_ammo_check(ctx: Ctx) -> None:
    """The ``missile_ammo_check`` procedure: depletion after a shot of ``query.hits`` hits."""
    actor = ctx.unit(ctx.action.actor)
    name = ctx.action.weapon or "ap"
    hits = need(ctx.action.hits, "query.hits")
    if not isinstance(hits, int):
        raise RefereeError("missile_ammo_check: query.hits must be an integer")
    missile_check(ctx, actor, name, actor.current.weapon(name), hits)


def direct_fire(ctx: Ctx) -> None:
    """§6.1 Ranged Combat."""
    fire(ctx)


def opportunity_fire(ctx: Ctx) -> None:
    """§6.2: at a unit moving in LOS and range, once per hex it enters."""
    actor = ctx.unit(ctx.action.actor)
    target = ctx.game.unit(ctx.action.target) if isinstance(ctx.action.target, str) else None
    if target is not None and not target.status.moving:
        ctx.answer.illegal("§6.2", f"{target.name} is not moving")
    if (ctx.game.facts.get("opfire_count") or 0) >= 1:
        ctx.answer.illegal("§6.2", "a moving unit can be attacked only once per hex it enters")
    if actor.type.arty_type in ("mrtr", "spm") and target is not None \
            and ctx.game.facts.relation(target.key).los is False:
        ctx.answer.illegal("§1.3.4.3", "mortars cannot opportunity fire at units outside their LOS")
    fire(ctx, opportunity=True)


def move_and_fire(ctx: Ctx) -> None:
    """§6.1.3 Moving Fire (§6.1.3.1 for helicopters)."""
    fire(ctx, moving=True)


def concealment(ctx: Ctx) -> None:
    """§6.1.5: is the target concealed?"""
    target = ctx.unit(ctx.action.target if isinstance(ctx.action.target, str) else None, "target")
    firer = ctx.game.unit(ctx.action.actor) if ctx.action.actor else None
    ctx.answer.set("concealed", is_concealed(ctx, target, firer))


def defense(ctx: Ctx) -> None:
    """The target's defensive roll alone: armor dice, DB dice, save number, saves."""
    target = ctx.unit(ctx.action.target if isinstance(ctx.action.target, str) else None, "target")
    firer = ctx.game.unit(ctx.action.actor) if ctx.action.actor else None
    mission = ctx.action.mission.type if ctx.action.mission else None
    ans = ctx.answer
    if mission in ("he", "dpicm"):
        roll = defence(ctx, target, mission=mission)
    else:
        armor, save = armor_and_save(ctx, target)
        if ans.legal is False:
            return
        ans.set("armor_dice", armor)
        ans.set("save_number", save)
        if ctx.action.bonus_from and ans.legal is None:
            ans.set("legal", True)
        pieces = ctx.stage(("db_dice", "defense_dice", "concealed", "saves"),
                           lambda: db_dice(ctx, target, firer))
        if pieces is None:
            return
        roll = DefenceRoll(pieces[0], armor, save, pieces[1])
    put_defence(ctx, roll)
    if ctx.dice is not None:
        ctx.stage("saves", lambda: ans.set("saves", roll_saves(ctx, roll, 1)))
