"""Classic line of sight (§7) from the hexes the line crosses, and helicopter LOS levels (§9.4).

The line itself (which hexes, which hexsides it runs along) comes from geometry
(``referee.los_geometry``) or, in a partial situation, from the stated
``situation.intervening`` / ``along_hexsides``; this module only applies the rules.
"""
from __future__ import annotations

from typing import Any, Mapping

from referee.errors import NotStated
from referee.model import Unit, need
from referee import situation
from referee.ruleset import Ctx

SMOKE = frozenset({"smoke_2", "smoke_1", "smoke"})
HELICOPTER_HEIGHT = {"clear": 1, "hill": 2, "woods": 2, "city": 2, "city_ruins": 2, "wooded_hill": 3}


def level_of(ctx: Ctx, unit: Unit) -> int:
    """Classic LOS level (§7): stated, else 1 on a hill or wooded hill, 0 elsewhere;
    helicopters per the Helicopter LOS Table."""
    if unit.level is not None and unit.type.target_type != "helicopter":
        return unit.level
    if unit.type.target_type == "helicopter":
        return helicopter_level(ctx, unit)
    hex_state = ctx.game.hex(unit.hex) if unit.hex else None
    if hex_state is not None and hex_state.level is not None:
        return hex_state.level
    if hex_state is None or hex_state.terrain is None:
        raise NotStated(f"units.{unit.key}.level")
    return 1 if hex_state.terrain in ("hill", "wooded_hill") else 0


def helicopter_level(ctx: Ctx, unit: Unit) -> int:
    """§9.4 Helicopter LOS Table: one level above the terrain below."""
    if unit.level is not None:
        height = unit.level
    else:
        terrain = ctx.game.hex(unit.hex).terrain if unit.hex else None
        terrain = need(terrain, f"hexes.{unit.hex}.terrain")
        height = HELICOPTER_HEIGHT.get(terrain, 1)
    if ctx.action.choice == "pop_up" and unit.mode == "hovering":
        ctx.params.require("popup", "001 §9.2.1")
        height += 1
    return height


def los_height(ctx: Ctx) -> None:
    """The ``los_height`` procedure: the unit's LOS level."""
    unit = ctx.unit(ctx.action.actor)
    ctx.answer.unit(unit.key, level=level_of(ctx, unit))


def _effect(ctx: Ctx, hex_raw: Mapping[str, Any], hill: bool) -> str:
    terrain = hex_raw.get("terrain")
    markers = set(hex_raw.get("markers") or ())
    if markers & {"smoke_2", "smoke_1", "smoke"}:
        return "block"
    effect = "none"
    if terrain is not None:
        row = ctx.tec.terrain(terrain)
        effect = row.los_hill if hill else row.los
    if effect == "none" and "wrecks" in markers:
        effect = "count"
    return effect


def blocked(ctx: Ctx, attacker_level: int, target_level: int, intervening: list[Mapping[str, Any]],
            crest: tuple[bool | None, bool | None] = (None, None)) -> tuple[bool, str]:
    """Apply §7.1/§7.2 to the hexes between attacker and target; ``crest`` is (a crest line
    is crossed, the attacker or target is adjacent to it). Returns (blocked, why)."""
    if attacker_level == 0:
        counted = 0
        for h in intervening:
            effect = _effect(ctx, h, hill=False)
            if effect == "block":
                return True, f"{h.get('terrain') or 'smoke'} hex blocks (§7.1)"
            counted += effect == "count"
        if counted >= 2:
            return True, f"{counted} rough/wreck hexes block (§7.1)"
        return False, "no blocking terrain (§7.1)"
    if target_level >= 1:
        counted = 0
        for h in intervening:
            effect = _effect(ctx, h, hill=True)
            if effect == "block":
                return True, f"{h.get('terrain') or 'smoke'} blocks between hill-level units (§7.2)"
            counted += effect == "count"
        if counted >= 2:
            return True, "two or more hill-level rough/wreck hexes block (§7.2)"
        return False, "hill to hill: crest lines ignored (§7.2)"
    crossed, adjacent = crest
    if crossed and not adjacent:
        if adjacent is None:
            raise NotStated("situation.crest_adjacent")
        return True, "the LOS crosses a crest line not adjacent to either unit (§7.2)"
    for h in intervening:
        terrain = h.get("terrain")
        if set(h.get("markers") or ()) & {"smoke_2", "smoke_1", "smoke"}:
            return True, "smoke blocks (§8.2)"
        if terrain in ("hill", "wooded_hill") and not h.get("own_hill"):
            return True, f"a {terrain.replace('_', ' ')} hex lies between (§7.2)"
        if terrain == "woods":
            if need(h.get("to_target"), "situation.intervening.to_target") <= 1:
                return True, "target directly behind woods (§7.2)"
        if terrain in ("city", "city_ruins"):
            if ctx.params.hill_los_any_city_blocks:
                return True, "a city lies between a hill-level attacker and a ground target (002 §7.2)"
            if need(h.get("to_target"), "situation.intervening.to_target") <= 2:
                return True, "target one or two hexes behind a city (§7.2)"
    return False, "hill to ground: nothing hides the target (§7.2)"


def helicopter_blocked(ctx: Ctx, height: int, over: str | None, target_level: int,
                       intervening: list[Mapping[str, Any]]) -> tuple[bool, str]:
    """The Helicopter LOS Table (002, §9.4), read from the helicopter at ``height``."""
    for h in intervening:
        terrain = h.get("terrain")
        if set(h.get("markers") or ()) & {"smoke_2", "smoke_1", "smoke"}:
            return True, "smoke blocks (§8.2)"
        if terrain == "wooded_hill":
            return True, "a wooded hill lies between (Helicopter LOS Table)"
    if target_level >= 1:
        wrecks = sum(1 for h in intervening if h.get("terrain") in ("hill", "wooded_hill")
                     and "wrecks" in (h.get("markers") or ()))
        if height == 1 and wrecks > 1:
            return True, "more than one Wreck on a hill between (Helicopter LOS Table)"
        return False, f"helicopter at level {height} sees the hill-level target"
    for h in intervening:
        terrain = h.get("terrain")
        if terrain == "woods" and need(h.get("to_target"), "situation.intervening.to_target") <= 1:
            return True, "target directly behind woods (Helicopter LOS Table)"
        if terrain in ("city", "city_ruins") and need(h.get("to_target"), "situation.intervening.to_target") <= 2:
            return True, "target 1-2 hexes behind a city (Helicopter LOS Table)"
        if terrain == "hill":
            if over in ("hill", "wooded_hill"):
                raise NotStated("whether the hill between is the hill the helicopter is over")
            return True, "a hill lies between (Helicopter LOS Table)"
    return False, f"helicopter at level {height}: nothing hides the ground target"


def unit_blocked(ctx: Ctx, attacker: Unit, target: Unit) -> tuple[bool, str]:
    """LOS between two units: the Helicopter LOS Table when one of them flies (read from
    the helicopter, as LOS is reciprocal), §7.1/§7.2 otherwise; then Smoke's screen over
    its six neighbouring hexes (§8.2)."""
    for flier, other in ((attacker, target), (target, attacker)):
        if flier.type.target_type == "helicopter" and other.type.target_type != "helicopter":
            intervening, _ = situation.line(ctx, flier.key, other.key)
            over = ctx.game.hex(flier.hex).terrain if flier.hex else None
            found = helicopter_blocked(ctx, helicopter_level(ctx, flier), over, level_of(ctx, other), intervening)
            break
    else:
        intervening, _ = situation.line(ctx, attacker.key, target.key)
        found = blocked(ctx, level_of(ctx, attacker), level_of(ctx, target), intervening,
                        situation.crest(ctx, attacker.key, target.key))
    if found[0]:
        return found
    screen = smoke_screen(ctx, attacker, target, intervening)
    return (True, screen) if screen else found


def smoke_screen(ctx: Ctx, attacker: Unit, target: Unit, intervening: list[Mapping[str, Any]]) -> str | None:
    """§8.2: a Smoke marker blocks LOS, from any elevation, into and through its hex and its
    six neighbouring hexes (and out of them, 001) for units not adjacent to each other;
    thermal sights (002 §8.2, the Advanced Imaging column) see through it. Returns why the
    LOS is screened, or None. Needs map positions; stated lines carry their own markers."""
    smoke = [h for h in ctx.game.hexes.values() if h.markers & SMOKE and h.at is not None]
    ends = [ctx.game.hex(u.hex).at if u.hex else None for u in (attacker, target)]
    if not smoke or None in ends or ends[0].distance(ends[1]) <= 1:
        return None
    if attacker.name in ctx.params.thermal_units or "thermal" in attacker.type.abilities:
        return None
    looked = [(h["id"], "through") for h in intervening if h.get("id")] + [(target.hex, "into")]
    if ctx.params.smoke_blocks_out_of:
        looked.append((attacker.hex, "out of"))
    for hex_id, how in looked:
        at = ctx.game.hex(hex_id).at
        for cloud in smoke:
            if at is not None and at.distance(cloud.at) <= 1:
                where = "" if cloud.id == hex_id else f", next to the Smoke in {cloud.id}"
                return f"Smoke blocks the LOS {how} {hex_id}{where} (§8.2)"
    return None


def line_of_sight(ctx: Ctx) -> None:
    """§7: is the line of sight from the actor to the target blocked?"""
    attacker = ctx.unit(ctx.action.actor)
    target = ctx.unit(ctx.action.target if isinstance(ctx.action.target, str) else None, "target")
    _, sides = situation.line(ctx, attacker.key, target.key)
    is_blocked, why = unit_blocked(ctx, attacker, target)
    if not is_blocked:
        for side in sides:
            terrains = side.get("terrain") or []
            if len(terrains) >= 2 and all(ctx.tec.terrain(t).los == "block" for t in terrains):
                is_blocked, why = True, "the LOS runs between two blocking hexes (§7.3)"
    ctx.answer.set("blocked", is_blocked)
    ctx.answer.because("§7", why)
