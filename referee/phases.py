"""Phases that sweep the whole map, the same in every book: the ruleset's procedure for one
unit or hex, run for each in turn.

The Marker Removal Phase takes every unit's and every hex's markers (EG/TUS §3.2; WaW85
§2.3); a player ending the turn asks for it once, not counter by counter.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable

from referee.ruleset import Ctx


def each_unit_and_hex(ctx: Ctx, one: Callable[[Ctx], None]) -> None:
    """``one`` for every unit on the map, then every hex holding a marker, in key order, all
    into the one answer. Each reads the position as the phase found it: one counter's or
    hex's markers never depend on another's."""
    game = ctx.game
    targets = [key for key in sorted(game.units) if game.units[key].on_map]
    targets += [hex_id for hex_id in sorted(game.hexes) if game.hexes[hex_id].markers]
    if not targets:
        ctx.answer.because(ctx.rules.section("marker_removal"), "no unit and no marker on the map")
    for target in targets:
        one(Ctx(ctx.rules, game, replace(ctx.action, target=target), ctx.dice, ctx.answer))
