"""The target's defence roll in WaW85 (§10.4, §10.6.8-§10.6.14).

Armor dice from the counter (Light Armor always one die, §1.9.6), Defensive Bonus dice
from the terrain, concealment and ATGM fire into blocking terrain, capped at two for
armored targets only; the save is the counter's, 5 for Soft Targets (§1.9.7), one
better for Composite/Reactive armor against green AP (§10.6.9).
"""
from __future__ import annotations

from dataclasses import dataclass

from referee import situation
from referee.errors import NotStated, NotSupported
from referee.model import Unit, Weapon, need
from referee.ruleset import Ctx
from referee.situation import reference
from referee.waw85.common import HARD, because, distance_to, tables

SOFT_SAVE = 5                     # §1.9.7
ARMOR_DB_CAP = 2                  # §10.6.14
MISSION_SECTIONS = {"smoke": "14.8", "mlrs": "14.9", "adm": "14.10", "dpicm": "14.11", "chemical": "14.12"}


@dataclass(frozen=True)
class DefenceRoll:
    armor_dice: int
    db_dice: int
    save_number: int
    concealed: bool

    @property
    def defense_dice(self) -> int:
        return self.armor_dice + self.db_dice


def terrain_db(ctx: Ctx, target: Unit) -> int:
    """§10.6.8: the TEC Defensive Bonus column for the target's type (stated by the case)."""
    hex_state = ctx.game.hex(target.hex)
    stated = hex_state.terrain_db
    if isinstance(stated, int):
        return stated
    column = "vehicle" if target.type.target_type in HARD | {"soft_vehicle"} else "infantry"
    if stated is not None:
        return need(stated.get(column), f"hexes.{hex_state.id}.terrain_db.{column}")
    raise NotStated(f"hexes.{hex_state.id}.terrain_db")


def is_concealed(ctx: Ctx, target: Unit) -> bool:
    """§10.6.13: not moving, not Ops Complete, in a hex with a Defensive Bonus, not adjacent
    to an enemy unit, not within 5 hexes of an enemy Recon unit. A stated fact wins."""
    if target.status.concealed is not None:
        return target.status.concealed
    if target.status.moving or target.status.ops_complete:
        because(ctx, "10.6.13", f"{target.name} is moving or Ops Complete: not concealed")
        return False
    if terrain_db(ctx, target) <= 0:
        because(ctx, "10.6.13", f"{target.name}'s hex has no Defensive Bonus: not concealed")
        return False
    reach = tables()["recon_concealment_range"]
    for other in ctx.game.units.values():
        if other.key == target.key or not other.on_map:
            continue
        if other.side is None or target.side is None:
            raise NotStated(f"units.{other.key}.side")
        if other.side == target.side:
            continue
        # relations are carried by the related unit; the reference unit's by the target
        carrier = target.key if other.key == reference(ctx) else other.key
        distance = distance_to(ctx, carrier)
        adjacent = ctx.game.facts.relation(carrier).adjacent
        if distance is None and adjacent is None and situation.position(ctx.game, other.key) \
                and situation.position(ctx.game, target.key):
            distance = situation.distance(ctx, other.key, target.key)
        if distance is None and adjacent is None:
            raise NotStated(f"units.{other.key}.distance")
        if adjacent or (distance is not None and distance <= 1):
            because(ctx, "10.6.13", f"{target.name} is adjacent to enemy {other.name}: not concealed")
            return False
        recon = {"recon", "elite"} & other.type.abilities
        if recon and distance is None:
            raise NotStated(f"units.{other.key}.distance")
        if recon and distance <= reach:
            because(ctx, "10.6.13", f"enemy Recon {other.name} within {reach} hexes: not concealed")
            return False
    because(ctx, "10.6.13", f"{target.name} is concealed")
    return True


def armor_and_save(ctx: Ctx, target: Unit) -> tuple[int, int]:
    kind = target.type.target_type
    if kind in ("troops", "soft_vehicle"):
        return 0, SOFT_SAVE
    if kind not in HARD:
        raise NotStated(f"units.{target.key}.target_type")
    save = need(target.current.save, f"units.{target.key}.save")
    if kind == "light_armor":
        return 1, save                                  # §1.9.6
    return need(target.current.armor, f"units.{target.key}.armor"), save


def defence(ctx: Ctx, target: Unit, firer: Unit | None, weapon_name: str | None,
            weapon: Weapon | None, *, mission: str | None = None) -> DefenceRoll:
    """Armor dice, DB dice and save. An HE Strike (§14.7.2) takes no Armor dice from
    armored targets but gives them 1d6 more DB; a MRTR or SPM Strike on Heavy Armor
    uses its Armor as usual."""
    armor, save = ctx.stage(("armor_dice", "save_number"), lambda: armor_and_save(ctx, target)) or (None, None)
    atgm = weapon is not None and weapon_name == "ap" and weapon.colour == "green"
    if atgm and save is not None and "composite_armor" in target.type.abilities:
        save -= 1
        ctx.answer.modify("save", -1, "Composite/Reactive armor against an ATGM", "WaW85 §10.6.9")
    if save is not None:
        ctx.answer.set("save_number", save)
    kind = target.type.target_type
    db = terrain_db(ctx, target)
    concealed = is_concealed(ctx, target)
    text = f"DB {db} terrain"
    if concealed:
        db += 1
        text += " + 1 concealed"
    if atgm:
        terrain = ctx.game.hex(target.hex).terrain
        if terrain is None:
            raise NotStated(f"hexes.{target.hex}.terrain")
        if terrain in tables()["atgm_blocking_terrain"]:
            db += 1
            text += " + 1 ATGM at a target in blocking terrain (§10.6.12)"
    if mission == "he" and kind in HARD and not (kind == "heavy_armor" and firer is not None
                                                  and firer.type.arty_type in ("mrtr", "spm")):
        armor = 0
        db += 1
        text += " + 1 armored target of an HE Strike, no Armor dice (§14.7.2)"
    if db > ARMOR_DB_CAP:
        if kind is None:
            raise NotStated(f"units.{target.key}.target_type")
        if kind in HARD:
            text += f", capped at {ARMOR_DB_CAP} (§10.6.14)"
            db = ARMOR_DB_CAP
    because(ctx, "10.6.8", f"{target.name}: {text}")
    if armor is None or save is None:
        ctx.answer.set("db_dice", db)
        ctx.answer.set("concealed", concealed)
        raise NotStated(f"units.{target.key}.target_type")
    return DefenceRoll(armor, db, save, concealed)


def put(ctx: Ctx, roll: DefenceRoll) -> None:
    for name in ("armor_dice", "db_dice", "defense_dice", "save_number", "concealed"):
        ctx.answer.set(name, getattr(roll, name))


def roll_saves(ctx: Ctx, roll: DefenceRoll, hits: int | None) -> int:
    """Saves among the defence dice; none are rolled against no hits."""
    if hits == 0:
        return 0
    dice = ctx.roll(roll.defense_dice, "save")
    return sum(1 for d in dice if d >= roll.save_number)


def defense(ctx: Ctx) -> None:
    """The ``defense`` procedure: the defence roll alone, against the actor's weapon or a
    Strike (``query.mission``)."""
    key = ctx.action.target
    target = ctx.unit(key if isinstance(key, str) else None, "target")
    firer = ctx.game.unit(ctx.action.actor) if ctx.action.actor else None
    name = ctx.action.weapon
    weapon = firer.current.weapon(name) if firer is not None and name else None
    mission = ctx.action.mission.type if ctx.action.mission else None
    if mission in ("adm", "chemical"):
        ctx.answer.set("saves_allowed", False)
        because(ctx, MISSION_SECTIONS[mission], "no defensive Save rolls against this Strike")
        return
    if mission in ("dpicm", "mlrs"):
        because(ctx, MISSION_SECTIONS[mission], "resolved as an HE Strike (§14.7.2)")
        mission = "he"
    if mission not in (None, "he"):
        raise NotSupported(f"WaW85 §{MISSION_SECTIONS.get(mission, '14.6')}", f"{mission} Strike defence")
    put(ctx, defence(ctx, target, firer, name, weapon, mission=mission))


def concealment(ctx: Ctx) -> None:
    key = ctx.action.target
    target = ctx.unit(key if isinstance(key, str) else None, "target")
    ctx.answer.set("concealed", is_concealed(ctx, target))
