"""WaW85 Line of Sight by heights (§10.2): unit heights, obstacle heights, blocking and
obscuring terrain, hexsides, Blind Spots, Smoke (§14.8) and the night limit (§16.6.1).

A line is given as the intervening hexes in order from the firer, each with its LOS
effect (``los``: blocking, obscuring or none), its ``obstacle_height`` and its
``distance`` from the firer, plus the hexsides the line runs along; or, when the units
stand on a mapped board, it is traced there (:func:`map_line`: the string of hexes
between the two hex centres, as the classic LOS procedure draws it). Terrain heights come
from the WaW85 Terrain Effects Chart, which is not in the rulebook text, so they must be
stated: by the case, or by the chart a module maker transcribes (a profile's ``tec_file``).
"""
from __future__ import annotations

from typing import Any, Mapping

from referee.errors import NotStated, NotSupported
from referee.los_lines import map_view
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
    mapped = hex_state is not None and hex_state.at is not None
    ground = need(stated.get("unit_height"), f"hexes.{unit.hex}.unit_height (the WaW85 TEC: give the profile a tec_file)"
                  if mapped else f"units.{unit.key}.level")
    if unit.type.target_type != "helicopter" or unit.mode == "landed":
        return ground
    mode = need(unit.mode, f"units.{unit.key}.mode")
    if mode == "hovering":
        return ground + 1
    obstacle = need(stated.get("obstacle_height"), f"hexes.{unit.hex}.obstacle_height")
    return obstacle + 2 if mode == "flying" else max(ground, obstacle)


def _adjacent(ctx: Ctx, target: Unit, firer: Unit | None = None) -> bool | None:
    """Stated adjacency or range, else counted on the map when both hexes are on it."""
    relation = ctx.game.facts.relation(target.key)
    if relation.adjacent is not None:
        return relation.adjacent
    if relation.distance is not None:
        return relation.distance <= 1
    if firer is not None and firer.hex and target.hex:
        a, b = ctx.game.hexes.get(firer.hex), ctx.game.hexes.get(target.hex)
        if a is not None and b is not None and a.at is not None and b.at is not None:
            return a.at.distance(b.at) <= 1
    return None


def _effect(raw: Mapping[str, Any]) -> str:
    if has_smoke(raw.get("markers") or ()):
        return "smoke"
    effect = raw.get("los")
    if effect is None:
        where = f"hexes.{raw['hex']}.los" if raw.get("hex") else "situation.intervening[].los"
        raise NotStated(f"{where} (the WaW85 TEC LOS effect)")
    return effect


Traced = tuple[list[dict[str, Any]], list[dict[str, Any]], "int | None"]


def map_line(ctx: Ctx, viewer_hex: str | None, far_hex: str | None) -> Traced | None:
    """The line between two hexes of the mapped board, as §10.2 draws it ("from the center of
    the attacking unit's hex to the center of the target hex"): the intervening hexes in
    order (LOS effect, obstacle height, distance from the viewer, markers), the hexsides it
    runs directly along, and the range. ``None`` when either hex is not on a mapped board.

    A hexside run counts as a Blocking hexside when the hexes on both sides of it are
    Blocking terrain, the reading the classic books state for a LOS along a hexside
    (TUS §7.3); §10.2.2 names no other source of blocking hexsides the map records.
    """
    hexes = ctx.game.hexes
    a, b = hexes.get(viewer_hex or ""), hexes.get(far_hex or "")
    if a is None or b is None or a.at is None or b.at is None:
        return None
    view = map_view(ctx.game, ctx.tec)
    ln = view.line(a.at, b.at)
    states = view.board.states
    intervening: list[dict[str, Any]] = []
    for distance, cell in enumerate(ln.between, start=1):
        state = states[cell]
        if state is None:
            raise NotStated(f"terrain of a hex off the board between {a.id} and {b.id}")
        intervening.append({"hex": state.id, "los": state.los, "markers": state.markers,
                            "obstacle_height": state.stated.get("obstacle_height"), "distance": distance})
    sides: list[dict[str, Any]] = []
    for first, second, _ in ln.runs:
        pair = [states[first], states[second]]
        if any(state is None or state.los is None for state in pair):
            continue                 # beside the board's edge or an unstated hex: not two blocking hexes
        both = all(state.los == "blocking" for state in pair)      # type: ignore[union-attr]
        sides.append({"los": "blocking" if both else "none", "between": [p.id for p in pair],  # type: ignore[union-attr]
                      "markers": sorted(set().union(*(p.markers for p in pair)))})          # type: ignore[union-attr]
    return intervening, sides, a.at.distance(b.at)


def blocked(ctx: Ctx, firer: Unit, target: Unit) -> bool:
    """Is the LOS from ``firer`` to ``target`` blocked? Records ``blind_spot`` when one applies."""
    adjacent = _adjacent(ctx, target, firer)
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
    facts = ctx.game.facts
    intervening = list(facts.get("intervening") or ())
    hexsides = list(facts.get("along_hexsides") or ())
    if facts.get("intervening") is None and facts.get("along_hexsides") is None:
        traced = map_line(ctx, firer.hex, target.hex)
        if traced is None:
            raise NotStated("situation.intervening")
        intervening, hexsides, distance = traced
    return _judge(ctx, intervening, hexsides, distance, unit_height(ctx, firer), unit_height(ctx, target))


def in_sight(ctx: Ctx, viewer: Unit, target: Unit) -> bool:
    """§10.2: is the LOS from ``viewer`` to ``target`` clear? (WaW85's
    :meth:`referee.ruleset.Ruleset.in_sight`.)"""
    return not blocked(ctx, viewer, target)


def hex_blocked(ctx: Ctx, viewer: Unit, hex_id: str, distance: int | None = None) -> bool | None:
    """Is the LOS from ``viewer`` to the centre of ``hex_id`` blocked (a Spotter's LOS to the
    intended target hex, §10.2, §14.3)? Traced on the map, else judged from the stated facts
    (``distance``, the viewer's range to the hex if the caller knows it; adjacency stated on
    either hex; ``situation.intervening``). ``None`` when neither says. The far end is seen at
    the hex's ground unit height.

    §14.8: Smoke "blocks LOS for units at any elevation, whether that be into or through the
    screen"; "Units adjacent to a Smoke filled hex, however, have LOS into it, but not through
    it, for the purposes of both Direct Fire and Spotting. Units in a Smoke filled hex only have
    LOS to adjacent non-Smoke filled hexes"."""
    traced = map_line(ctx, viewer.hex, hex_id)
    facts = ctx.game.facts
    if traced is not None:
        intervening, hexsides, distance = traced
    else:
        intervening, hexsides = facts.get("intervening"), facts.get("along_hexsides")
        if distance is None and viewer.hex is not None and _stated_adjacent(ctx, viewer.hex, hex_id):
            distance = 1
    in_smoke = bool(viewer.hex) and has_smoke(ctx.game.hex(viewer.hex).markers)
    into_smoke = has_smoke(ctx.game.hex(hex_id).markers)
    if distance is not None and distance <= 1:
        if in_smoke and into_smoke and distance == 1:
            because(ctx, "14.8", f"{viewer.name} is in Smoke: it sees only adjacent hexes without Smoke")
            return True
        because(ctx, "10.2", "the LOS is never blocked between adjacent hexes"
                + (" (an adjacent unit sees into a Smoke hex, §14.8)" if into_smoke else ""))
        return False
    if in_smoke or into_smoke:
        if distance is None:
            return None
        because(ctx, "14.8", f"{viewer.name} is in Smoke: it sees only adjacent hexes" if in_smoke
                else f"Smoke in {hex_id} blocks the LOS into it from beyond the adjacent hexes")
        return True
    if traced is None:
        if intervening is None and hexsides is None:
            return None
        if any(has_smoke(h.get("markers") or ()) for h in intervening or ()):
            because(ctx, "14.8", "Smoke blocks LOS through its hex")
            return True
        far = ctx.game.hex(hex_id).stated.get("unit_height")
        try:
            return _judge(ctx, list(intervening or ()), list(hexsides or ()), distance, unit_height(ctx, viewer),
                          need(far, f"hexes.{hex_id}.unit_height"))
        except NotStated:
            return None                 # the stated line leaves the heights open
    far = ctx.game.hex(hex_id).stated.get("unit_height")
    return _judge(ctx, intervening, hexsides, distance, unit_height(ctx, viewer),
                  need(far, f"hexes.{hex_id}.unit_height"))


def _stated_adjacent(ctx: Ctx, a: str, b: str) -> bool:
    """Adjacency stated on either hex (``adjacent_to``)."""
    facts = ctx.game.facts
    return b in (facts.hex_fact(a, "adjacent_to") or ()) or a in (facts.hex_fact(b, "adjacent_to") or ())


def _judge(ctx: Ctx, intervening: list[Mapping[str, Any]], hexsides: list[Mapping[str, Any]],
           distance: int | None, firer_height: int, target_height: int) -> bool:
    """§10.2.2-§10.2.3 (and §14.8, §16.6.1) on a line: its intervening hexes, the hexsides
    it runs along, its range and the two ends' unit heights."""
    if ctx.game.facts.get("night") and distance is not None and distance > tables()["night_max_los"]:
        because(ctx, "16.6.1", "the maximum LOS at night is 7 hexes")
        return True
    effects = [_effect(h) for h in intervening]
    if "smoke" in effects:
        because(ctx, "14.8", "Smoke blocks LOS through its hex")
        return True
    blocking = sum(1 for h in hexsides if h.get("los") == "blocking")
    if blocking >= 2:
        because(ctx, "10.2.2", "the LOS runs along two or more blocking hexsides")
        return True
    smoky = sum(1 for h in hexsides if h.get("los") != "blocking" and has_smoke(h.get("markers") or ()))
    if smoky and blocking + smoky >= 2:
        # §14.8 blocks a LOS "into or through the screen (see the TEC)", and §10.2.2 a LOS "along the
        # edge of TWO or MORE hex sides containing Blocking terrain": whether a Smoke hex beside the
        # line makes its hexside one of them is not stated (one such hexside never blocks either way)
        raise NotSupported("WaW85 §14.8", "a LOS along the hexsides of Smoke hexes: the book says Smoke blocks a LOS "
                           "into or through its hex, not whether it blocks one running along its edge (§10.2.2)")
    if firer_height == target_height:
        if "blocking" in effects:
            where = next((h.get("hex") for h, e in zip(intervening, effects) if e == "blocking"), None)
            because(ctx, "10.2.2", "a blocking hex" + (f" ({where})" if where else "")
                    + " between units at the same height")
            return True
        if effects.count("obscuring") >= 2:
            because(ctx, "10.2.2", "two or more obscuring hexes between units at the same height")
            return True
        because(ctx, "10.2.2", f"no blocking hex and {effects.count('obscuring')} obscuring hex(es) between: LOS clear")
        return False
    for raw, effect in zip(intervening, effects):
        if effect == "blocking" and _blocks_across_heights(ctx, raw, firer_height, target_height, distance):
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
