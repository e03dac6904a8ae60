"""Small pieces every WaW85 procedure uses: the rules tables, rulings with their section,
unit classes by the WaW85 target types, and the 2d6 Morale/Training check.

WaW85 cites sections as bare numbers ("10.6.3"); a ruling records the section both as a
reason and, for the first rule that forbids an action, as ``reason_rule``.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

import yaml

from referee.errors import NotStated, RefereeError
from referee.model import HexState, Unit
from referee.ruleset import Ctx
from referee.situation import distance as situation_distance, reference
from referee.tec import DATA

HARD = frozenset({"heavy_armor", "light_armor"})
VEHICLES = frozenset({"heavy_armor", "light_armor", "soft_vehicle"})
PACT_SIDES = frozenset({"pact"})


@lru_cache(maxsize=None)
def tables() -> dict[str, Any]:
    """``referee/data/waw85_tables.yaml``: every WaW85 chart the procedures consult."""
    return yaml.safe_load((DATA / "waw85_tables.yaml").read_text(encoding="utf-8"))


def because(ctx: Ctx, section: str, text: str) -> None:
    ctx.answer.because(f"WaW85 §{section}", text)


def illegal(ctx: Ctx, section: str, text: str) -> None:
    """Forbid the action; the first forbidding rule is the answer's ``reason_rule``."""
    if ctx.answer.legal is not False:
        ctx.answer.set("reason_rule", section)
    ctx.answer.illegal(f"WaW85 §{section}", text)


def off_the_board(ctx: Ctx, unit: Unit | None, section: str, role: str) -> None:
    """A counter in a Holding Box (or any place but the map) has no hex: no Range or LOS to
    fire or be fired at (§10.0, §10.2 "from the center of the attacking unit's hex"), no hex
    to assault from or in (§13.0). Refused; an eliminated unit is refused as out of play,
    a Support Weapon in the Holding Box is deployed as it fires (§10.5, not judged), and a
    Close Air Support counter's place is judged by §4.3 (it attacks only while in play, in
    its target hex: ``referee.waw85.fire._cas_target_hex``)."""
    if unit is None or unit.location in ("map", "eliminated") or unit.type.target_type == "support_weapon":
        return
    if role == "firer" and unit.type.target_type == "aircraft":
        return
    illegal(ctx, section, f"{unit.name} ({role}) is not on the map but in the {unit.location.replace('_', ' ')}: "
            "it has no hex to act from or in")


def in_all_water(ctx: Ctx, unit: Unit) -> bool:
    """§10.6.17: "amphibious ground units in all-water hexes may not themselves execute any
    form of direct (or indirect) fire": whether ``unit`` stands in such a hex."""
    return unit.hex is not None and ctx.game.hex(unit.hex).terrain in ("water", "all_water")


def may_act(ctx: Ctx, unit: Unit, *, done: bool = True, fired: bool = True, command: bool = True) -> None:
    """Who may start a Movement Action (a move, loading, unloading, the move into an Assault):
    not a unit that has completed its Action (Ops Complete, §7.6: ``done``), nor one that has
    fired ("A unit may not fire, then move", §11.0: ``fired``), nor one Out of Command, which
    "may not execute any Action" (§7.2.3: ``command``). A caller that judges one of them
    elsewhere leaves it out."""
    if done and unit.status.ops_complete:
        illegal(ctx, "7.6", f"{unit.name} is Ops Complete: it has completed its Action")
    elif fired and unit.status.fired:
        illegal(ctx, "11.0", f"{unit.name} has fired: a unit may not fire, then move")
    if command and ctx.rules.out_of_command(ctx, unit):
        illegal(ctx, "7.2.3", f"{unit.name} is Out of Command: it may not execute any Action")


#: The Actions of another kind that a procedure may be part of (``query.cause``), by name.
NOT_A_MOVEMENT_ACTION = {"move_and_fire": "Move and Direct Fire", "assault": "Assault"}


def movement_action_only(ctx: Ctx, unit: Unit, section: str, what: str) -> None:
    """Refuse ``what`` as part of a Move and Direct Fire or an Assault: it is a Movement Action
    of its own (§16.3.2 "declares a Movement Action"; §16.3.3 "a Movement Action (not Move and
    Direct Fire, or Assault)")."""
    other = NOT_A_MOVEMENT_ACTION.get(ctx.action.cause or "")
    if other is not None:
        illegal(ctx, section, f"{unit.name} {what} in a Movement Action of its own, not in a {other} Action")


def modify(ctx: Ctx, applies_to: str, value: int, why: str, section: str) -> None:
    ctx.answer.modify(applies_to, value, why, f"WaW85 §{section}")


def air_class(unit: Unit) -> bool:
    """Aircraft targets (§10.1): CAS counters and Flying or Hovering Helicopters."""
    kind = unit.type.target_type
    if kind == "aircraft":
        return True
    if kind == "helicopter":
        if unit.mode is None:
            raise NotStated(f"units.{unit.key}.mode")
        return unit.mode in ("flying", "hovering")
    return False


def target_kind(unit: Unit) -> str:
    """The §10.1 target class: heavy_armor, light_armor, soft_vehicle, troops or aircraft.

    A Nap-of-Earth or Landed Helicopter is a ground vehicle (§9.7.2, §9.7.4)."""
    if air_class(unit):
        return "aircraft"
    kind = unit.type.target_type
    if kind == "helicopter":
        return "helicopter_ground"
    if kind is None:
        raise NotStated(f"units.{unit.key}.target_type")
    return kind


def side_group(unit: Unit) -> str:
    """Soviet, Pact and Pact-allied units against NATO and NATO-allied ones (§10.6.10, §11.0)."""
    if unit.side is None:
        raise NotStated(f"units.{unit.key}.side")
    return "pact" if unit.side in PACT_SIDES else "nato"


def morale_value(ctx: Ctx, unit: Unit) -> int:
    """The unit's Morale/Training value: its Formation's (the case states it on the unit)."""
    if unit.morale is not None:
        return unit.morale
    formation = ctx.game.formations.get(unit.formation or "")
    if formation is not None and formation.morale is not None:
        return formation.morale
    raise NotStated(f"units.{unit.key}.morale")


def whole(value: object, name: str) -> int:
    """A stated count (hits, FP dice) must be a whole number; anything else is refused."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise RefereeError(f"{name} must be a whole number, not {value!r}")
    return value


def tec_line(hex_state: HexState) -> str | None:
    """The TEC line a hex uses: a Rubble hex "now uses the Rubble line on the TEC for all
    purposes" (§10.9), a Cleared hex the Cleared line (§10.9.1); otherwise its terrain."""
    for marker in ("rubble", "cleared"):
        if marker in hex_state.markers:
            return marker
    return hex_state.terrain


def stated_hits(ctx: Ctx) -> int | dict[str, int] | None:
    """``query.hits``: a number, or hits by unit key; checked before any use."""
    hits = ctx.action.hits
    if hits is None or isinstance(hits, int) and not isinstance(hits, bool):
        return hits
    if isinstance(hits, dict):
        return {str(k): whole(v, f"query.hits.{k}") for k, v in hits.items()}
    raise RefereeError(f"query.hits must be a whole number or hits by unit, not {hits!r}")


def distance_to(ctx: Ctx, key: str) -> int | None:
    """Range from the reference unit to ``key``: stated, else counted on the map when both
    have map positions, else ``None`` (not stated)."""
    stated = ctx.game.facts.relation(key).distance
    if stated is not None:
        return stated
    ref = reference(ctx)
    if ref is None or ref == key:
        return None
    try:
        return situation_distance(ctx, ref, key)
    except NotStated:
        return None
