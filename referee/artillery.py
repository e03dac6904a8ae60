"""Indirect fire, once for every book: a fire mission or Strike is called on a hex, its
accuracy is rolled in the book's order, and it lands where that roll says before anything
else is rolled (EG/TUS §8.0, §1.3.4.3, TUS §8.6; WaW85 §14.1-§14.5).

    1. who fires and who calls or spots it, and with what (the ruleset's ``fire_mission``):
       legality, the mission's type and numbers, whether an accuracy roll is needed;
    2. the accuracy roll (``accuracy``): classic 1d6, 1-5 on the hex, 6 on an adjacent hex
       the opponent chooses; WaW85 the Scatter Check with its direction table;
    3. the Strike where it landed (``strike``): markers, attacks on every unit there.

A caller is never marked Ops Complete (EG/TUS §8.0, WaW85 §14.3); an on-map firer is.
"""
from __future__ import annotations

from dataclasses import dataclass

from referee.errors import NotStated
from referee.model import Unit
from referee.ruleset import Ctx


@dataclass(frozen=True)
class Strike:
    """One fire mission, once its legality is known: where it is aimed, what it is, who
    fires it (``None`` off the map) and calls it, and whether its accuracy is rolled."""

    hex: str | None
    kind: str
    fp: int | None = None
    to_hit: int | None = None
    firer: Unit | None = None
    caller: Unit | None = None
    roll_required: bool = True
    area: bool = False
    """The Strike covers its hex and the six around it (TUS §8.6 MLRS)."""


def indirect_fire(ctx: Ctx) -> None:
    """The ``indirect_fire`` procedure (the ``artillery`` action of the command line)."""
    rules, ans = ctx.rules, ctx.answer
    strike = rules.fire_mission(ctx)
    if ans.legal is None and not ({"legal", "*"} & set(ans.gaps)):
        ans.set("legal", True)
    if not ans.legal or strike is None:
        return
    if strike.caller is not None:
        ans.because(rules.section("artillery_caller"), f"{strike.caller.name} calls the mission: it is not "
                    "marked Ops Complete and may still act")
    if ctx.dice is None and ctx.action.hits is None:
        return
    landing = ctx.stage(("hits", "saves", "net_hits", "units", "hexes", "scatter"), lambda: land(ctx, strike))
    if landing is not None:
        ctx.stage(("hits", "saves", "net_hits", "units", "hexes", "situation"),
                  lambda: rules.strike(ctx, strike, landing))


def land(ctx: Ctx, strike: Strike) -> str | None:
    """The hex the Strike lands in: its target when no accuracy roll is needed, else what
    the book's accuracy roll says (``None`` when it is cancelled)."""
    if strike.hex is None:
        raise NotStated("query.target (the target hex)")
    if not strike.roll_required:
        ctx.answer.set("scatter", [])
        return strike.hex
    return ctx.rules.accuracy(ctx, strike)


def adjacent_hexes(ctx: Ctx, hex_id: str) -> list[str] | None:
    """The hexes next to ``hex_id`` on the map (or as stated), or ``None`` if not known."""
    at = ctx.game.hex(hex_id).at
    if at is None:
        # adjacency stated either way: "n: adjacent_to [x]" or "x: adjacent_to [n]"
        stated = {h for h, facts in ctx.game.facts.hexes.items() if hex_id in (facts.get("adjacent_to") or ())}
        stated |= set(ctx.game.facts.hex_fact(hex_id, "adjacent_to") or ())
        return sorted(stated - {hex_id}) or None
    return sorted(h.id for h in ctx.game.hexes.values() if h.at is not None and at.distance(h.at) == 1)
