"""The facts layer: relations between units, stated first, computed from the map second.

Rulebook examples state relations instead of positions ("six hexes away", "the LOS
crosses one woods hex"); a game read from VASSAL has positions instead. Procedures
ask this module, which answers from the stated facts when the situation gives them,
from hex geometry (:mod:`referee.hexes`, :mod:`referee.los_geometry`) when both units
have map positions, and otherwise raises ``NotStated`` naming the missing fact.
"""
from __future__ import annotations

from typing import Any, Mapping

from referee.errors import NotStated
from referee.hexes import Hex
from referee.los_geometry import trace_line
from referee.model import Game, HexState
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


def adjacent(ctx: Ctx, a: str, b: str) -> bool:
    ref = reference(ctx)
    other = b if ref == a else a if ref == b else None
    if other is not None and ctx.game.facts.relation(other).adjacent is not None:
        return bool(ctx.game.facts.relation(other).adjacent)
    return distance(ctx, a, b) <= 1


_POSITION_INDEX: tuple[Mapping[str, HexState], dict[Hex, HexState]] | None = None


def _by_position(game: Game) -> dict[Hex, HexState]:
    """Hexes by map position. A Game's hexes mapping is never changed in place (events
    build a new one, ``Game.with_hex`` copies), so the index of the last mapping seen is
    reused while the same mapping object comes back: one LOS check asks for it several
    times, and positions that differ only in units share their hexes."""
    global _POSITION_INDEX
    cached = _POSITION_INDEX
    if cached is not None and cached[0] is game.hexes:
        return cached[1]
    index = {h.at: h for h in game.hexes.values() if h.at is not None}
    _POSITION_INDEX = (game.hexes, index)
    return index


def _as_fact(hex_state: HexState, to_target: int) -> dict[str, Any]:
    return {"id": hex_state.id, "terrain": hex_state.terrain, "markers": sorted(hex_state.markers),
            "to_target": to_target}


def line(ctx: Ctx, a: str, b: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(intervening hexes, hexsides run along) between two units, in order from ``a``."""
    facts = ctx.game.facts
    stated = facts.get("intervening")
    described = any(facts.get(k) is not None for k in ("crest_crossed", "along_hexsides"))
    if stated is not None or described:
        if a != ctx.action.actor:      # seen from the other end: order reverses, distances unknown
            return ([{k: v for k, v in h.items() if k != "to_target"} for h in reversed(stated or [])],
                    list(facts.get("along_hexsides") or []))
        return list(stated or []), list(facts.get("along_hexsides") or [])
    pa, pb = position(ctx.game, a), position(ctx.game, b)
    if pa is None or pb is None:
        raise NotStated("situation.intervening")
    hexes = _by_position(ctx.game)
    trace = trace_line(pa, pb)
    intervening = []
    own_hill = hexes[pa].terrain in HILLS if pa in hexes else False
    for cell in trace.between:
        if cell not in hexes:
            raise NotStated(f"terrain of the hex at {cell!r}")
        fact = _as_fact(hexes[cell], cell.distance(pb))
        own_hill = own_hill and fact["terrain"] in HILLS
        if own_hill:            # the attacker's own hill, up to its crest (§7.2 crest lines)
            fact["own_hill"] = True
        intervening.append(fact)
    sides = []
    for run in trace.hexside_runs:
        pair = [hexes.get(run.first), hexes.get(run.second)]
        sides.append({"terrain": [h.terrain for h in pair if h is not None and h.terrain]})
    return intervening, sides


def side_features(game: Game, a: HexState, b: HexState) -> frozenset[str]:
    """Features of the hexside between two adjacent hexes, from either side's record."""
    if a.at is None or b.at is None or a.at.distance(b.at) != 1:
        return frozenset()
    return frozenset(a.hexsides.get(a.at.direction_to(b.at), frozenset())) | \
        frozenset(b.hexsides.get(b.at.direction_to(a.at), frozenset()))


def crest(ctx: Ctx, a: str, b: str) -> tuple[bool | None, bool | None]:
    """(the LOS crosses a crest line, the attacker or target is adjacent to it): stated,
    else from the crest hexsides the traced line crosses (§7.2)."""
    facts = ctx.game.facts
    crossed, adjacent = facts.get("crest_crossed"), facts.get("crest_adjacent")
    if crossed is not None or facts.get("intervening") is not None:
        return crossed, adjacent
    pa, pb = position(ctx.game, a), position(ctx.game, b)
    if pa is None or pb is None:
        return None, None
    cells = _by_position(ctx.game)
    path = [pa, *trace_line(pa, pb).hexes]
    if any(p not in cells for p in path):
        return None, None
    crossed = any("crest" in side_features(ctx.game, cells[p], cells[n]) for p, n in zip(path, path[1:]))
    adjacent = any("crest" in side_features(ctx.game, cells[end], cells[n])
                   for end in (pa, pb) for n in end.neighbors() if n in cells)
    return crossed, adjacent
