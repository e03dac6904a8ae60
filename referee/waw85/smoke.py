"""Smoke and direct fire (§14.8, §10.6.6, §10.6.7): LOS into an adjacent Smoke hex but
not through it, and +1 To-Hit into or out of a Smoke hex at an adjacent target."""
from __future__ import annotations

from referee.errors import NotStated
from referee.model import Unit
from referee.ruleset import Ctx
from referee.waw85.common import because, illegal, modify

SMOKE = frozenset({"smoke", "smoke_thinning"})


def smoke_to_hit(ctx: Ctx, actor: Unit, target: Unit | None) -> int:
    """The To-Hit change for Smoke, or an illegal shot when Smoke blocks the LOS."""
    if target is None:
        return 0
    into = bool(target.hex and ctx.game.hex(target.hex).markers & SMOKE)
    out_of = bool(actor.hex and ctx.game.hex(actor.hex).markers & SMOKE)
    between = any(set(h.get("markers") or ()) & SMOKE
                  for h in ctx.game.facts.get("intervening") or ())
    if between:
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
    ctx.answer.set("blocked", False)
    total = 0
    if into:
        modify(ctx, "to_hit", 1, "firing into an adjacent Smoke hex", "10.6.6")
        total += 1
    if out_of:
        modify(ctx, "to_hit", 1, "firing out of a Smoke hex into an adjacent hex", "10.6.7")
        total += 1
    because(ctx, "14.8", "adjacent units see into and out of Smoke")
    return total
