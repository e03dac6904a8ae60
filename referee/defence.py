"""The target's defence roll, once for every book: Armor dice plus Defensive Bonus dice,
the Defensive Bonus capped for armored targets, each die at or over the Save Number
ignoring one hit (EG/TUS §6.1, §6.1.5, §6.1.6; WaW85 §10.4, §10.6.8-§10.6.14).

What differs by book comes from the ruleset: the armor dice and save a target rolls
(``armor_and_save``), the terrain's Defensive Bonus (``terrain_db``), concealment
(``concealed``) and any further die (``extra_db``: a WaW85 ATGM at a target in blocking
terrain, an HE Strike on armor). An Improved Position's first-hit rule is here too.
"""
from __future__ import annotations

from dataclasses import dataclass

from referee.errors import NotStated
from referee.model import Unit, Weapon
from referee.ruleset import Ctx


@dataclass(frozen=True)
class Shot:
    """What is fired at the target: the firer (none for an off-board Strike), the
    Firepower's name and printed values, and the Strike type when it is indirect fire."""

    firer: Unit | None = None
    weapon_name: str | None = None
    weapon: Weapon | None = None
    mission: str | None = None
    kind: str | None = None
    """The action that fires it (``aa_fire``, ``opportunity_fire``...)."""

    @property
    def atgm(self) -> bool:
        """WaW85 green AP: an anti-tank guided missile (§1.9.1)."""
        return self.weapon_name == "ap" and self.weapon is not None and self.weapon.colour == "green"


@dataclass(frozen=True)
class DefenceRoll:
    armor_dice: int
    db_dice: int
    save_number: int
    concealed: bool

    @property
    def defense_dice(self) -> int:
        return self.armor_dice + self.db_dice


def defence(ctx: Ctx, target: Unit, shot: Shot = Shot()) -> DefenceRoll:
    """The defence roll ``target`` makes against ``shot``: the ruleset's armor, save and
    Defensive Bonus dice, capped at ``hard_db_cap`` for armored targets."""
    rules = ctx.rules
    try:
        armor, save = rules.armor_and_save(ctx, target, shot)
    except NotStated as missing:       # the Defensive Bonus is still known
        unknown: NotStated | None = missing
        armor = save = 0
    else:
        unknown = None
        ctx.answer.set("armor_dice", armor)
        ctx.answer.set("save_number", save)
    db, text = rules.terrain_db(ctx, target, shot)
    concealed = rules.concealed(ctx, target, shot)
    if concealed:
        db += 1
        text += " + 1 concealed"
    for dice, why in rules.extra_db(ctx, target, shot):
        db += dice
        text += f" + {dice} {why}"
    cap = ctx.params.hard_db_cap
    if db > cap and rules.is_armored(target):
        text += f", capped at {cap}"
        db = cap
    ctx.answer.because(rules.section("defensive_bonus"), f"{target.name}: {text}")
    if unknown is not None:
        ctx.answer.set("db_dice", db)
        ctx.answer.set("concealed", concealed)
        raise unknown
    return DefenceRoll(armor, db, save, concealed)


def put(ctx: Ctx, roll: DefenceRoll) -> None:
    """Report a defence roll's numbers in the answer."""
    for name in ("armor_dice", "db_dice", "defense_dice", "save_number", "concealed"):
        ctx.answer.set(name, getattr(roll, name))


def saves(dice: list[int], save_number: int) -> int:
    """Each die at or over the Save Number ignores one hit."""
    return sum(1 for d in dice if d >= save_number)


def roll_saves(ctx: Ctx, roll: DefenceRoll, hits: int | None) -> int:
    """Roll the defence dice and count the saves; none are rolled when no hit is left."""
    if hits == 0:
        return 0
    return saves(ctx.roll(roll.defense_dice, "save"), roll.save_number)


def improved_position(ctx: Ctx, target: Unit, hits: int) -> int:
    """An Improved Position nullifies the first hit of each attack, an assault included
    (TUS §12.1; WaW85 §16.1, never for helicopters)."""
    if not hits or not target.hex or "improved_position" not in ctx.game.hex(target.hex).markers:
        return hits
    section = ctx.rules.section("improved_positions")
    if target.type.target_type == "helicopter" and not ctx.params.helicopters_use_improved_positions:
        ctx.answer.because(section, "Helicopters do not benefit from Improved Positions")
        return hits
    ctx.params.require("improved_positions", section)
    ctx.answer.because(section, f"{target.name} in an Improved Position: the first hit is ignored")
    return hits - 1
