"""The facts layer: relations between units, stated first, computed from the map second.

Rulebook examples state relations instead of positions ("six hexes away", "the LOS
crosses one woods hex"); a game read from VASSAL has positions instead. Procedures
ask this module, which answers from the stated facts when the situation gives them,
from hex geometry (:mod:`referee.hexes`, :mod:`referee.los_lines`) when both units
have map positions, and otherwise raises ``NotStated`` naming the missing fact.
"""
from __future__ import annotations

from typing import Any

from referee.errors import NotStated
from referee.hexes import Hex
from referee.model import Game, HexState, Unit
from referee.ruleset import Ctx


HILLS = ("hill", "wooded_hill")


def reference(ctx: Ctx) -> str | None:
    """The unit stated relations are measured from: the actor, else the target unit."""
    if ctx.action.actor:
        return ctx.action.actor
    target = ctx.action.target
    return target if isinstance(target, str) and target in ctx.game.units else None


def position(game: Game, key: str) -> Hex | None:
    unit = game.units.get(key)
    if unit is None or unit.hex is None:
        return None
    hex_state = game.hexes.get(unit.hex)
    return hex_state.at if hex_state is not None else None


def hexes_apart(game: Game, one: str | None, other: str | None) -> int | None:
    """Hexes between two hexes counted on the map; ``None`` when either has no map position
    (a rule case's hexes are names with stated relations, not places)."""
    here = game.hexes.get(one) if one is not None else None
    there = game.hexes.get(other) if other is not None else None
    if here is None or there is None or here.at is None or there.at is None:
        return None
    return here.at.distance(there.at)


def distance(ctx: Ctx, a: str, b: str) -> int:
    """Range from ``a`` to ``b``: stated, else counted on the map, else not stated."""
    ref = reference(ctx)
    other = b if ref == a else a if ref == b else None
    if other is not None:
        stated = ctx.game.facts.relation(other).distance
        if stated is not None:
            return stated
    game = ctx.game
    if a in game.units and b in game.units and game.units[a].hex is not None \
            and game.units[a].hex == game.units[b].hex:
        return 0
    pa, pb = position(game, a), position(game, b)
    if pa is not None and pb is not None:
        return pa.distance(pb)
    raise NotStated(f"units.{other or b}.distance")


def within_reach(ctx: Ctx, a: str, b: str, reach: int) -> tuple[bool, str]:
    """Whether ``b`` is at most ``reach`` hexes from ``a`` (a Command Range, EG/TUS §4.2,
    WaW85 §7.2.4), and that distance in words: the stated distance; else a stated bound
    that settles it (``within``, ``adjacent``); else the distance counted on the map."""
    ref = reference(ctx)
    other = b if ref == a else a if ref == b else None
    rel = ctx.game.facts.relation(other) if other is not None else None
    if rel is not None and rel.distance is None:
        if rel.within is not None and rel.within <= reach:
            return True, f"at most {rel.within}"
        if rel.adjacent and reach >= 1:
            return True, "1 (adjacent)"
    counted = distance(ctx, a, b)
    return counted <= reach, str(counted)


def adjacent(ctx: Ctx, a: str, b: str) -> bool:
    ref = reference(ctx)
    other = b if ref == a else a if ref == b else None
    if other is not None and ctx.game.facts.relation(other).adjacent is not None:
        return bool(ctx.game.facts.relation(other).adjacent)
    return distance(ctx, a, b) <= 1


def line(ctx: Ctx, a: str, b: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(intervening hexes, hexsides run along) between two units, in order from ``a``, as
    facts (``id``, ``terrain``, ``markers``, ``to_target``; ``terrain`` of both hexes beside
    each run): stated by the situation, else traced on the map (:mod:`referee.los_lines`)."""
    facts = ctx.game.facts
    stated = facts.get("intervening")
    described = any(facts.get(k) is not None for k in ("crest_crossed", "along_hexsides"))
    if stated is not None or described:
        if a != ctx.action.actor:      # seen from the other end: order reverses, distances unknown
            return ([{k: v for k, v in h.items() if k != "to_target"} for h in reversed(stated or [])],
                    list(facts.get("along_hexsides") or []))
        return list(stated or []), list(facts.get("along_hexsides") or [])
    traced = _traced(ctx, a, b)
    if traced is None:
        raise NotStated("situation.intervening")
    view, ln = traced
    states = view.board.states
    intervening = []
    own_hill = bool(states[ln.origin] and states[ln.origin].terrain in HILLS)
    for cell, to_target in zip(ln.between, ln.to_target):
        state = states[cell]
        if state is None:
            raise NotStated(ln.unknown(cell))
        fact: dict[str, Any] = {"id": state.id, "terrain": state.terrain, "markers": sorted(state.markers),
                                "to_target": to_target}
        own_hill = own_hill and state.terrain in HILLS
        if own_hill:            # the attacker's own hill, up to its crest (§7.2 crest lines)
            fact["own_hill"] = True
        intervening.append(fact)
    sides = [{"terrain": [s.terrain for s in (states[f], states[t]) if s is not None and s.terrain]}
             for f, t, _ in ln.runs]
    return intervening, sides


def _traced(ctx: Ctx, a: str, b: str) -> tuple[Any, Any] | None:
    """The map view and the traced line between two units on the map, else ``None``."""
    from referee.los_lines import map_view
    game = ctx.game
    here = game.hexes.get(game.units[a].hex) if a in game.units and game.units[a].hex else None
    there = game.hexes.get(game.units[b].hex) if b in game.units and game.units[b].hex else None
    if here is None or there is None or here.at is None or there.at is None:
        return None
    view = map_view(game, ctx.tec)
    return view, view.line(here.at, there.at)


def side_features(game: Game, a: HexState, b: HexState) -> frozenset[str]:
    """Features of the hexside between two adjacent hexes, from either side's record."""
    if a.at is None or b.at is None or a.at.distance(b.at) != 1:
        return frozenset()
    return frozenset(a.hexsides.get(a.at.direction_to(b.at), frozenset())) | \
        frozenset(b.hexsides.get(b.at.direction_to(a.at), frozenset()))


def road_between(game: Game, previous: HexState, here: HexState, kind: str = "road") -> bool:
    """Does a move from ``previous`` into ``here`` follow a road (the TEC's Road row, classic
    §5.0; WaW85 §9.4 "A unit following a Road or Trail")? It does when the road runs from one
    hex to the other (a terrain map's road lists give each hex ``road:<next hex>``), or is
    drawn on the hexside crossed. Hexes stated only as ``road``, with no direction (a
    hand-written position), are read as one road when both are road hexes."""
    toward = f"{kind}:"
    if f"{toward}{here.id}" in previous.features or f"{toward}{previous.id}" in here.features:
        return True
    if kind in side_features(game, previous, here):
        return True
    directed = any(f.startswith(toward) for f in previous.features | here.features)
    return not directed and kind in previous.features and kind in here.features


def crest(ctx: Ctx, a: str, b: str) -> tuple[bool | None, bool | None]:
    """(the LOS crosses a crest line, the attacker or target is adjacent to it): stated,
    else from the crest hexsides the traced line crosses (§7.2)."""
    facts = ctx.game.facts
    crossed, adjacent = facts.get("crest_crossed"), facts.get("crest_adjacent")
    if crossed is not None or facts.get("intervening") is not None:
        return crossed, adjacent
    traced = _traced(ctx, a, b)
    if traced is None:
        return None, None
    return traced[1].crest()


def formation_hq(ctx: Ctx, unit: Unit) -> Unit | None:
    """The HQ of the unit's Formation (EG/TUS §1.3.3; WaW85 §7.2), on the map or not: the
    Formation's own HQ when the position lists Formations, else an HQ counter of the same
    Formation and side. A unit whose Formation is not stated takes the HQ the situation
    shows (a rule case with one HQ states no Formations). An HQ is its own Formation's HQ
    (one HQ a Formation, EG/TUS §1.3.3, WaW85 §7.2): it stands at distance 0 from itself,
    so it is always within its own Command Range."""
    game = ctx.game
    formation = game.formations.get(unit.formation or "")
    if formation is not None and formation.hq in game.units:
        return game.units[formation.hq]
    if unit.type.target_type == "hq":
        return unit
    for other in game.units.values():
        if other.type.target_type != "hq" or other.key == unit.key:
            continue
        if unit.formation is not None and other.formation != unit.formation:
            continue
        if unit.side is not None and other.side is not None and other.side != unit.side:
            continue
        return other
    return None
