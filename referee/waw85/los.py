"""WaW85 Line of Sight by heights (§10.2): unit heights, obstacle heights, blocking and
obscuring terrain, hexsides, Blind Spots, Smoke (§14.8) and the night limit (§16.6.1).

A line is given as the intervening hexes in order from the firer, each with its LOS
effect (``los``: blocking, obscuring or none), its ``obstacle_height`` and its
``distance`` from the firer, plus the hexsides the line runs along. Terrain heights come
from the WaW85 Terrain Effects Chart, which is not in the rulebook text, so they must be
stated.
"""
from __future__ import annotations

from typing import Any, Mapping

from referee.errors import NotStated
from referee.model import Unit, need
from referee.ruleset import Ctx
from referee.waw85.common import because, tables
from referee.waw85.smoke import has_smoke

def unit_height(ctx: Ctx, unit: Unit) -> int:
    """§10.2.1 and §9.7: the unit's LOS height; Helicopters by mode (Flying two levels above
    the obstacle height, NOE at least at it, Hovering one above the unit height)."""
    if unit.level is not None:
        return unit.level
    hex_state = ctx.game.hex(unit.hex) if unit.hex else None
    stated = hex_state.stated if hex_state is not None else {}
    if unit.type.target_type == "aircraft":          # a CAS counter flies like a Helicopter (§4.1)
        return need(stated.get("obstacle_height"), f"hexes.{unit.hex}.obstacle_height") + 2
    ground = need(stated.get("unit_height"), f"units.{unit.key}.level")
    if unit.type.target_type != "helicopter" or unit.mode == "landed":
        return ground
    mode = need(unit.mode, f"units.{unit.key}.mode")
    if mode == "hovering":
        return ground + 1
    obstacle = need(stated.get("obstacle_height"), f"hexes.{unit.hex}.obstacle_height")
    return obstacle + 2 if mode == "flying" else max(ground, obstacle)


def _adjacent(ctx: Ctx, target: Unit) -> bool | None:
    relation = ctx.game.facts.relation(target.key)
    if relation.adjacent is not None:
        return relation.adjacent
    if relation.distance is not None:
        return relation.distance <= 1
    return None


def _effect(raw: Mapping[str, Any]) -> str:
    if has_smoke(raw.get("markers") or ()):
        return "smoke"
    effect = raw.get("los")
    if effect is None:
        raise NotStated("situation.intervening[].los (the WaW85 TEC LOS effect)")
    return effect


def blocked(ctx: Ctx, firer: Unit, target: Unit) -> bool:
    """Is the LOS from ``firer`` to ``target`` blocked? Records ``blind_spot`` when one applies."""
    adjacent = _adjacent(ctx, target)
    in_smoke = [u for u in (firer, target) if u.hex and has_smoke(ctx.game.hex(u.hex).markers)]
    if adjacent and len(in_smoke) == 2:
        because(ctx, "14.8", "units in Smoke see only adjacent hexes without Smoke")
        return True
    if adjacent:
        because(ctx, "10.2", "the LOS is never blocked between adjacent hexes")
        return False
    if in_smoke:
        if adjacent is None:
            raise NotStated(f"units.{target.key}.distance")
        because(ctx, "14.8", f"{in_smoke[0].name} is in Smoke: it sees only adjacent hexes")
        return True
    distance = ctx.game.facts.relation(target.key).distance
    if ctx.game.facts.get("night") and distance is not None and distance > tables()["night_max_los"]:
        because(ctx, "16.6.1", "the maximum LOS at night is 7 hexes")
        return True
    facts = ctx.game.facts
    intervening = list(facts.get("intervening") or ())
    hexsides = list(facts.get("along_hexsides") or ())
    if facts.get("intervening") is None and facts.get("along_hexsides") is None:
        raise NotStated("situation.intervening")
    effects = [_effect(h) for h in intervening]
    if "smoke" in effects:
        because(ctx, "14.8", "Smoke blocks LOS through its hex")
        return True
    if sum(1 for h in hexsides if h.get("los") == "blocking") >= 2:
        because(ctx, "10.2.2", "the LOS runs along two or more blocking hexsides")
        return True
    low, high = unit_height(ctx, firer), unit_height(ctx, target)
    if low == high:
        if "blocking" in effects:
            because(ctx, "10.2.2", "a blocking hex between units at the same height")
            return True
        if effects.count("obscuring") >= 2:
            because(ctx, "10.2.2", "two or more obscuring hexes between units at the same height")
            return True
        because(ctx, "10.2.2", f"{effects.count('obscuring')} obscuring hex(es): LOS clear")
        return False
    for raw, effect in zip(intervening, effects):
        if effect == "blocking" and _blocks_across_heights(ctx, raw, low, high, distance):
            return True
    because(ctx, "10.2.3", "no blocking hex rises to the higher unit or hides the lower one")
    return False


def _blocks_across_heights(ctx: Ctx, raw: Mapping[str, Any], firer_height: int,
                           target_height: int, distance: int | None) -> bool:
    """§10.2.3 for one blocking hex between units at different heights."""
    obstacle = need(raw.get("obstacle_height"), "situation.intervening[].obstacle_height")
    higher, lower = max(firer_height, target_height), min(firer_height, target_height)
    if obstacle >= higher:
        because(ctx, "10.2.3", f"obstacle height {obstacle} reaches the higher unit ({higher})")
        return True
    if lower > obstacle:
        return False
    at = need(raw.get("distance"), "situation.intervening[].distance")
    total = need(distance, "units.<target>.distance")
    from_higher = at if firer_height > target_height else total - at
    beyond = total - from_higher
    spot = from_higher if higher - obstacle == 1 else 1
    ctx.answer.set("blind_spot", spot)
    hidden = beyond <= spot
    because(ctx, "10.2.3", f"Blind Spot of {spot} hex(es) behind the obstacle; the lower unit is "
            f"{beyond} beyond it: " + ("blocked" if hidden else "visible"))
    return hidden


def line_of_sight(ctx: Ctx) -> None:
    firer = ctx.unit(ctx.action.actor)
    target = ctx.unit(ctx.action.target if isinstance(ctx.action.target, str) else None, "target")
    ctx.answer.set("blocked", blocked(ctx, firer, target))


def los_height(ctx: Ctx) -> None:
    unit = ctx.unit(ctx.action.actor)
    ctx.answer.unit(unit.key, level=unit_height(ctx, unit))
