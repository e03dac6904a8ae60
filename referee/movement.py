"""Movement (§5): terrain costs, chemical markers, road bonuses, loading and unloading
(§5.2), and stacking (§1.4)."""
from __future__ import annotations

from referee.errors import NotStated
from referee.model import Unit, need
from referee.ruleset import Ctx

UNCOUNTED = ("helicopter", "hq", "support_weapon", "leader", "aircraft")


def _destination(ctx: Ctx) -> str | None:
    if ctx.action.path:
        return ctx.action.path[-1]
    target = ctx.action.target
    if isinstance(target, str):
        return ctx.game.unit(target).hex if target in ctx.game.units else target
    return None


def _leader_movement(ctx: Ctx, unit: Unit) -> int:
    bonus = 0
    for key in ctx.action.bonus_from or ():
        giver = ctx.game.unit(key)
        if giver.type.target_type == "leader" and ctx.action.choice in (None, "movement"):
            ctx.params.require("leaders", "001 §1.3.6")
            bonus += need(giver.leadership, f"units.{key}.leadership")
    if bonus:
        ctx.answer.modify("mp", bonus, "leader adds to movement", "001 §1.3.6")
    return bonus


def move(ctx: Ctx) -> None:
    ans = ctx.answer
    unit = ctx.unit(ctx.action.actor)
    bonus = _leader_movement(ctx, unit)
    if unit.type.mp is not None:
        ans.unit(unit.key, mp_max=unit.type.mp + bonus)
    if unit.name in ctx.params.road_bonus_units and ctx.game.facts.get("road"):
        spent = need(unit.status.mp_spent, f"units.{unit.key}.status.mp_spent")
        if not isinstance(spent, int):
            raise NotStated(f"units.{unit.key}.status.mp_spent (a number)")
        extra = spent // 2
        ans.set("modifiers", {"mp": extra})
        ans.because("001 §1.3.1.1", f"{spent} MP on connecting roads: +{extra} MP")
    destination = _destination(ctx)
    if destination is None:
        return
    hex_state = ctx.game.hex(destination)
    extra_cost = 0
    if "chemical" in hex_state.markers:
        extra_cost = 2
        ans.modify("cost", 2, "Chemical marker", "§8.4")
    mover = "vehicle" if unit.type.is_vehicle else "infantry"
    if hex_state.mp_cost is not None:
        base = hex_state.mp_cost
    else:
        row = ctx.tec.terrain(hex_state.terrain) if hex_state.terrain else None
        if row is None:
            ans.gap("cost", f"not stated: hexes.{destination}.terrain")
            return
        base = need((row.mp or {}).get(mover), f"TEC {row.name} cost for {mover}")
        if base == "none":
            ans.illegal("TEC", f"{unit.name} cannot enter {row.name}")
            return
        if ctx.game.facts.get("road") and "road" in hex_state.features:
            base = 1
    ans.set("cost", base + extra_cost)


def load(ctx: Ctx) -> None:
    ans = ctx.answer
    passenger = ctx.unit(ctx.action.actor)
    transport = ctx.unit(ctx.action.target if isinstance(ctx.action.target, str) else None, "target")
    if passenger.name in ctx.params.no_transport_units:
        ans.illegal("001 §1.3.1.1", f"{passenger.name} cannot load on a transport")
    if "transport" not in transport.type.abilities:
        ans.illegal("§5.2", f"{transport.name} is not a transport")
    if passenger.status.disrupted:
        ans.illegal("§5.2.1", "disrupted infantry cannot load")
    towed = "towed" in passenger.type.abilities
    if towed:
        ctx.params.require("towed_transport", "001 §5.2.5")
    if ans.legal is False:
        return
    ans.set("legal", True)
    half = need(transport.type.mp, f"units.{transport.key}.mp") // 2
    if towed:
        ans.because("001 §5.2.5", f"loading a T unit costs the transport {half} MP")
        ans.gap(f"units.{transport.key}.mp_max", "not stated: MF left after loading a T unit (001 §5.2.5)")
        return
    ans.unit(transport.key, mp_max=half)
    same = passenger.hex is not None and passenger.hex == transport.hex
    if passenger.hex is None or transport.hex is None:
        raise NotStated("hex of passenger and transport")
    ans.unit(passenger.key, mp_before=0 if same else 1)
    ans.because("§5.2.1", f"transport moves at most half its MF ({half})"
                + ("" if same else "; infantry may move 1 MF to meet it, then neither moves further"))


def unload(ctx: Ctx) -> None:
    ans = ctx.answer
    passenger = ctx.unit(ctx.action.actor)
    transport = ctx.unit(passenger.carried_by, "carried_by")
    ans.set("legal", True)
    half = need(transport.type.mp, f"units.{transport.key}.mp") // 2
    ans.unit(transport.key, mp_max=half)
    ans.unit(passenger.key, hexes_after=1)
    ans.because("§5.2.2", f"unloaded infantry may move one more hex; the transport up to {half} MP")


def stacking(ctx: Ctx) -> None:
    """§1.4: two combat units; HQs, helicopters, SWs, leaders, Wrecks do not count;
    a transport with its passengers is one unit; one HQ per hex (§1.3.3)."""
    hex_id = ctx.action.target if isinstance(ctx.action.target, str) else None
    stack = ctx.game.stack(need(hex_id, "query.target"))
    counted = [u for u in stack if u.type.target_type not in UNCOUNTED and u.carried_by is None]
    hqs = [u for u in stack if u.type.target_type == "hq"]
    legal = True
    if len(counted) > 2:
        legal = False
        ctx.answer.because("§1.4", f"{len(counted)} combat units in {hex_id}, at most 2")
    if len(hqs) > 1:
        legal = False
        ctx.answer.because("§1.3.3", "no more than one HQ in a hex")
    ctx.answer.set("legal", legal)
    ctx.answer.set("count", len(counted))
