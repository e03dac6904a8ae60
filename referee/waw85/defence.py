"""The target's defence in WaW85 (§10.4, §10.6.8-§10.6.14, §14.7.2, §16.7.3): the hooks
:class:`~referee.waw85.Waw85Ruleset` gives the shared defence roll of :mod:`referee.defence`.

Armor dice from the counter (Light Armor always one die, §1.9.6), Defensive Bonus dice
from the terrain, concealment, ATGM fire into blocking terrain and an HE Strike on armor,
capped at two for armored targets only; the save is the counter's, 5 for Soft Targets
(§1.9.7), one better for Composite/Reactive armor against green AP (§10.6.9). A landing
parachute unit rolls one die saving on 5-6 (§16.7.3).
"""
from __future__ import annotations

from referee import situation
from referee.defence import Shot, defence, put, saves
from referee.errors import NotStated, NotSupported
from referee.model import Unit, need
from referee.ruleset import Ctx
from referee.situation import reference
from referee.waw85.common import HARD, because, distance_to, tables, tec_line

SOFT_SAVE = 5                     # §1.9.7
MISSION_SECTIONS = {"smoke": "14.8", "mlrs": "14.9", "adm": "14.10", "dpicm": "14.11", "chemical": "14.12"}


def landing_parachute(target: Unit, shot: Shot) -> bool:
    """A ground unit under Anti-Aircraft Fire is a landing parachute unit (§16.7.3)."""
    return shot.kind == "aa_fire" and target.type.target_type not in ("aircraft", "helicopter")


def terrain_db(ctx: Ctx, target: Unit) -> int:
    """§10.6.8: the TEC Defensive Bonus column for the target's type (stated by the case)."""
    hex_state = ctx.game.hex(target.hex)
    stated = hex_state.terrain_db
    if target.type.target_type == "helicopter":
        return _helicopter_db(ctx, target)
    if isinstance(stated, int):
        return stated
    column = "vehicle" if target.type.target_type in HARD | {"soft_vehicle"} else "infantry"
    if stated is not None:
        return need(stated.get(column), f"hexes.{hex_state.id}.terrain_db.{column}")
    raise NotStated(f"hexes.{hex_state.id}.terrain_db")


def _helicopter_db(ctx: Ctx, target: Unit) -> int:
    """A Helicopter without Armor rolls "its Defensive Bonus, based on the terrain it occupies"
    (§10.4): "the Defensive Bonus column for its type (Troops or Vehicles)" (§10.6.8). The
    text names neither column for a Helicopter, and says nothing of the terrain's bonus for
    one above it: Flying "2 levels above any Terrain obstacle height" (§9.7.1), Hovering "one
    level Higher" (§9.7.3), Nap-of-Earth over a higher obstacle "flying above them" (§9.7.2).
    So the stated bonus counts for a Landed Helicopter and one Nap-of-Earth at the ground's
    height, "treated as a ground unit" (§9.7.4, §9.7.2, §10.2.1), when both columns agree; a
    hex with no bonus in any column gives none in any mode; the rest is not supported."""
    hex_state = ctx.game.hex(target.hex)
    stated = hex_state.terrain_db
    if stated is None:
        raise NotStated(f"hexes.{hex_state.id}.terrain_db")
    values = {stated} if isinstance(stated, int) else set(stated.values())
    if values == {0}:
        because(ctx, "10.6.8", f"{hex_state.id} gives no Defensive Bonus in any column: none for {target.name}")
        return 0
    if target.mode is None:
        raise NotStated(f"units.{target.key}.mode")
    from referee.waw85.assault import above_the_assault
    if above_the_assault(ctx, target):
        raise NotSupported("WaW85 §10.6.8", f"the Defensive Bonus of a {target.mode.replace('_', '-')} Helicopter "
                           "above the terrain of its hex (§9.7.1-§9.7.3; the TEC, PAC03, is not in the text)")
    if len(values) > 1:
        raise NotSupported("WaW85 §10.6.8", "which Defensive Bonus column, Troops or Vehicles, a Helicopter uses "
                           "(the TEC, PAC03, is not in the text)")
    because(ctx, "10.6.8", f"{target.name}: {target.mode.replace('_', '-')}, a ground unit in its hex's terrain")
    return next(iter(values))


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
    if target.hex is not None and ctx.game.facts.hex_fact(target.hex, "adjacent_to_enemy"):
        because(ctx, "10.6.13", f"{target.name}'s hex is adjacent to an enemy unit: not concealed")
        return False
    reach = tables()["recon_concealment_range"]
    for other in ctx.game.units.values():
        if other.key == target.key or not other.on_map:
            continue
        if other.side is None or target.side is None:
            raise NotStated(f"units.{other.key}.side")
        if other.side == target.side:
            continue
        there, here = situation.position(ctx.game, other.key), situation.position(ctx.game, target.key)
        if there is not None and here is not None:
            # on the map the two units' own hexes say it, whoever the reference unit is
            distance, adjacent = there.distance(here), None
        elif reference(ctx) in (other.key, target.key):
            # relations are carried by the related unit; the reference unit's by the target
            carrier = target.key if other.key == reference(ctx) else other.key
            distance = distance_to(ctx, carrier)
            adjacent = ctx.game.facts.relation(carrier).adjacent
        else:
            # a third unit's stated relations are measured from the reference unit (the firer),
            # not from the target: they do not say how far it is from the target (§10.6.13)
            recon = {"recon", "elite"} & other.type.abilities
            if recon or (target.hex is None
                         or ctx.game.facts.hex_fact(target.hex, "adjacent_to_enemy") is None):
                raise NotStated(f"units.{other.key}: its distance to {target.key} (the hexes of both)")
            continue
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


def armor_and_save(ctx: Ctx, target: Unit, shot: Shot) -> tuple[int, int]:
    """Soft Targets none and 5 (§1.9.7), Light Armor one die (§1.9.6), Heavy Armor the
    counter's; an HE Strike takes no Armor dice from armored targets unless a mortar's hits
    Heavy Armor (§14.7.2); Composite/Reactive armor saves one better against an ATGM (§10.6.9)."""
    if landing_parachute(target, shot):
        because(ctx, "16.7.3", "a landing parachute unit rolls one defensive die, saving on 5-6")
        return 0, SOFT_SAVE
    kind = target.type.target_type
    if kind in ("troops", "soft_vehicle"):
        return 0, SOFT_SAVE
    if kind == "helicopter":
        # §10.4: "a number of dice equal to its Armor value, if it has one", its Armor save;
        # "if it does not", its Defensive Bonus dice, saving on 5 or 6 (whatever its mode)
        armor = target.current.armor
        if armor is None:
            raise NotStated(f"units.{target.key}.armor (whether the Helicopter's counter has an Armor value, §10.4)")
        if armor == 0:
            return 0, SOFT_SAVE
        if shot.mission in ("he", "dpicm", "mlrs"):
            # §14.7.2 gives the Strike's saves of "Infantry and unarmored targets" and of "Light &
            # Heavy Armor" only; a Helicopter with an Armor value is neither
            raise NotSupported("WaW85 §14.7.2", f"the save of {target.name}, a Helicopter with an Armor value, "
                               "against a Strike (the book gives those of unarmored targets and of Light & Heavy "
                               "Armor only)")
        return armor, need(target.current.save, f"units.{target.key}.save")
    if kind not in HARD:
        raise NotStated(f"units.{target.key}.target_type")
    save = need(target.current.save, f"units.{target.key}.save")
    armor = 1 if kind == "light_armor" else need(target.current.armor, f"units.{target.key}.armor")
    if _he_strike_on_armor(target, shot):
        armor = 0
    if shot.atgm and "composite_armor" in target.type.abilities:
        save -= 1
        ctx.answer.modify("save", -1, "Composite/Reactive armor against an ATGM", "WaW85 §10.6.9")
    return armor, save


def _he_strike_on_armor(target: Unit, shot: Shot) -> bool:
    return shot.mission == "he" and target.type.target_type in HARD and not (
        target.type.target_type == "heavy_armor" and shot.firer is not None
        and shot.firer.type.arty_type in ("mrtr", "spm"))


def defence_terrain(ctx: Ctx, target: Unit, shot: Shot) -> tuple[int, str]:
    if landing_parachute(target, shot):
        return 1, "one die for a landing parachute unit"
    db = terrain_db(ctx, target)
    return db, f"DB {db} terrain"


def concealed(ctx: Ctx, target: Unit, shot: Shot) -> bool:
    if landing_parachute(target, shot):
        return False
    return is_concealed(ctx, target)


def extra_db(ctx: Ctx, target: Unit, shot: Shot) -> list[tuple[int, str]]:
    """§10.6.12: +1 for an ATGM at a target in blocking terrain; §14.7.2: +1 for an armored
    target of an HE Strike (which rolls no Armor dice)."""
    extra = []
    if shot.atgm:
        # a rubbled City or Town uses the Rubble line (§10.9): no longer blocking terrain
        terrain = tec_line(ctx.game.hex(target.hex))
        if terrain is None:
            raise NotStated(f"hexes.{target.hex}.terrain")
        if terrain == "wooded_hill":
            # §10.2.3 names "Hill-Woods" hexes beside Woods ones; §10.6.12's list has no Hill terrain
            raise NotSupported("WaW85 §10.6.12", "whether a Hill-Woods hex is one of the Woods hexes whose targets "
                               "gain +1d6 against a Green AP FP is not stated (the TEC is not in the text)")
        if terrain in tables()["atgm_blocking_terrain"]:
            extra.append((1, "ATGM at a target in blocking terrain (§10.6.12)"))
    if _he_strike_on_armor(target, shot):
        extra.append((1, "armored target of an HE Strike, no Armor dice (§14.7.2)"))
    return extra


def is_armored(unit: Unit) -> bool:
    """§10.6.14: the cap is for Heavy and Light Armor only."""
    if unit.type.target_type is None:
        raise NotStated(f"units.{unit.key}.target_type")
    return unit.type.target_type in HARD


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
    roll = defence(ctx, target, Shot(firer, name, weapon, mission))
    put(ctx, roll)
    if ctx.has_dice("save"):
        # §10.4: "each d6 the target unit rolls which is equal to or greater than its modified
        # Armor save value, saves"; a Soft Target's Defensive Bonus dice save on 5 or 6 (§1.9.7)
        count = saves(ctx.roll(roll.defense_dice, "save"), roll.save_number)
        ctx.answer.set("saves", count)
        because(ctx, "10.4", f"{roll.defense_dice} defence dice at {roll.save_number}+: {count} saved")


def concealment(ctx: Ctx) -> None:
    key = ctx.action.target
    target = ctx.unit(key if isinstance(key, str) else None, "target")
    ctx.answer.set("concealed", is_concealed(ctx, target))
