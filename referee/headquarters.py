"""Where an HQ may stand: one mechanic for every book (EG/TUS §1.3.3.1, WaW85 §7.2.2).

The classic books: "Headquarters must remain in a hex with a unit or units of its
formation" (§1.3.3.1). WaW85 §7.2.2: "HQs must always be either: On the map, stacked
with a friendly unit; or" off the map in one of its boxes. So an HQ on the map needs a
unit beside it in its hex: one of its own Formation in the classic books, any friendly
unit in WaW85 (``Params.hq_needs_own_formation``). HQs, Leaders and Support Weapons are
not such units: none of them is a unit an HQ is deployed to or moves with.

A companion whose Formation (or the HQ's) is not stated is taken as one: the stacking
question does not turn on it, and the rule is only broken where the position says so.
"""
from __future__ import annotations

from referee.model import Unit
from referee.ruleset import Ctx

#: Counters that are not a unit an HQ can stand with (§1.3.3, WaW85 §7.2.2).
NOT_COMPANIONS = frozenset({"hq", "leader", "support_weapon"})


def hqs_alone(ctx: Ctx, stack: list[Unit]) -> list[Unit]:
    """The HQs of ``stack`` without a unit they may stand with (§1.3.3.1, WaW85 §7.2.2)."""
    own_formation = ctx.params.hq_needs_own_formation
    alone = []
    for hq in stack:
        if hq.type.target_type != "hq" or hq.carried_by is not None:
            continue
        friends = [u for u in stack if u is not hq and u.type.target_type not in NOT_COMPANIONS
                   and (u.side is None or hq.side is None or u.side == hq.side)]
        if own_formation:
            friends = [u for u in friends if u.formation is None or hq.formation is None
                       or u.formation == hq.formation]
        if not friends:
            alone.append(hq)
    return alone


def companion_text(ctx: Ctx, hq: Unit) -> str:
    """Whom ``hq`` must stand with, in words."""
    own_formation = ctx.params.hq_needs_own_formation
    return f"a unit of its Formation ({hq.formation})" if own_formation and hq.formation \
        else "a unit of its Formation" if own_formation else "a friendly unit"


def lone_hqs(ctx: Ctx, stack: list[Unit]) -> None:
    """Mark the stacking answer illegal for every HQ of ``stack`` without a unit it may stand with."""
    section = ctx.rules.section("hq_companions")
    for hq in hqs_alone(ctx, stack):
        ctx.answer.illegal(section, f"{hq.name} is alone in {hq.hex}: an HQ on the map stands with "
                           f"{companion_text(ctx, hq)}")
