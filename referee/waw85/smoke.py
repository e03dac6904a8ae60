"""Smoke and direct fire (§14.8, §10.6.6, §10.6.7): units adjacent to a Smoke hex see into
it but not through it, units in Smoke see only adjacent hexes without Smoke, and fire
into or out of Smoke at an adjacent hex is +1 To-Hit.

What a Smoke Thinning marker does is on the Terrain Effects Chart, which the rulebook
text does not give, so a line that meets one is not judged.
"""
from __future__ import annotations

from typing import Iterable

from referee.errors import NotStated, NotSupported
from referee.model import Unit
from referee.ruleset import Ctx
from referee.waw85.common import because, illegal, modify

SMOKE = "smoke"
THINNING = "smoke_thinning"


def has_smoke(markers: Iterable[str]) -> bool:
    """Smoke in a hex; Smoke Thinning is refused as not stated by the rulebook."""
    markers = set(markers)
    if THINNING in markers:
        raise NotSupported("WaW85 §2.3.2", "the effect of Smoke Thinning is on the TEC")
    return SMOKE in markers


def smoke_to_hit(ctx: Ctx, actor: Unit, target: Unit | None) -> int:
    """The To-Hit change for Smoke, or an illegal shot when Smoke blocks the LOS."""
    if target is None:
        return 0
    into = bool(target.hex) and has_smoke(ctx.game.hex(target.hex).markers)
    out_of = bool(actor.hex) and has_smoke(ctx.game.hex(actor.hex).markers)
    if any(has_smoke(h.get("markers") or ()) for h in ctx.game.facts.get("intervening") or ()):
        ctx.answer.set("blocked", True)
        illegal(ctx, "14.8", "Smoke blocks LOS through its hex")
        return 0
    if not (into or out_of):
        return 0
    relation = ctx.game.facts.relation(target.key)
    adjacent = relation.adjacent
    if adjacent is None and relation.distance is not None:
        adjacent = relation.distance <= 1
    if adjacent is None:
        raise NotStated(f"units.{target.key}.distance")
    if not adjacent:
        ctx.answer.set("blocked", True)
        illegal(ctx, "14.8", "Smoke: only adjacent hexes see into or out of a Smoke hex")
        return 0
    if into and out_of:
        ctx.answer.set("blocked", True)
        illegal(ctx, "14.8", "units in Smoke see only adjacent hexes without Smoke")
        return 0
    ctx.answer.set("blocked", False)
    if into:
        modify(ctx, "to_hit", 1, "firing into an adjacent Smoke hex", "10.6.6")
    else:
        modify(ctx, "to_hit", 1, "firing out of a Smoke hex into an adjacent hex", "10.6.7")
    because(ctx, "14.8", "adjacent units see into and out of Smoke")
    return 1
