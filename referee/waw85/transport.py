"""Stacking (§9.2) and loading Passengers (§9.8.1, §9.8.4, §9.8.5)."""
from __future__ import annotations

from referee.errors import NotStated, NotSupported
from referee.events import PassengerLoaded, StatusChanged
from referee.headquarters import lone_hqs
from referee.model import Unit, need
from referee.ruleset import Ctx
from referee.waw85.common import because, illegal, may_act

STACKING_LIMIT = 2                                     # §9.2
NOT_COUNTED = frozenset({"support_weapon", "hq", "leader"})


def counts_for_stacking(unit: Unit) -> bool:
    """§9.2: markers, Support Weapons, HQs, Leaders, Passengers and Flying or Hovering
    Helicopters do not count."""
    if unit.type.target_type in NOT_COUNTED or unit.carried_by is not None:
        return False
    if unit.type.target_type == "helicopter":
        mode = need(unit.mode, f"units.{unit.key}.mode")
        return mode in ("landed", "nap_of_earth")
    return True


def stacking(ctx: Ctx) -> None:
    """Do the units in hex ``query.target`` respect two friendly units per hex (§9.2), each HQ
    stacked with a friendly unit (§7.2.2)?"""
    hex_id = ctx.action.target if isinstance(ctx.action.target, str) else None
    stack = ctx.game.stack(need(hex_id, "query.target"))
    by_side: dict[str | None, list[Unit]] = {}
    for unit in stack:
        if counts_for_stacking(unit):
            by_side.setdefault(unit.side, []).append(unit)
    for side, units in by_side.items():
        names = ", ".join(u.name for u in units)
        if len(units) > STACKING_LIMIT:
            illegal(ctx, "9.2", f"{len(units)} units count for stacking ({names}); the limit is 2")
        else:
            because(ctx, "9.2", f"{len(units)} unit(s) count for stacking ({names})")
    lone_hqs(ctx, stack)                                 # §7.2.2
    if ctx.answer.legal is None:
        ctx.answer.set("legal", True)


#: §9.8: "A Transport unit can be loaded with a unit, together with a Support Weapon and an HQ
#: counter": one of each place.
LOAD_PLACES = ("unit", "support_weapon", "hq")


def load_place(unit: Unit) -> str:
    """Which of a Transport's three places (§9.8) ``unit`` takes. A Leader is "assigned to a
    specific unit" and rides with it (§1.9.13, §9.2); the book gives it no place of its own."""
    kind = unit.type.target_type
    if kind == "leader":
        raise NotSupported("WaW85 §9.8", "a Leader loading on its own (a Transport is loaded with a unit, a "
                           "Support Weapon and an HQ; a Leader rides with the unit it is assigned to)")
    return kind if kind in LOAD_PLACES else "unit"


def aboard(ctx: Ctx, carrier: Unit) -> list[Unit]:
    """What ``carrier`` carries (§9.8): its Passengers and the Support Weapon, HQ or Leader
    riding with a Passenger unit; Leaders take no place (§9.2)."""
    carried = ctx.game.passengers(carrier.key)
    riding = [a for p in carried for a in ctx.game.attached(p.key) if a.carried_by is None]
    return [u for u in carried + riding if u.type.target_type != "leader"]


def mp_spent(unit: Unit) -> int | None:
    """MPs ``unit`` has spent this activation: stated, or its MPs less those stated as left."""
    if isinstance(unit.status.mp_spent, int):
        return unit.status.mp_spent
    if isinstance(unit.status.mp_left, int) and isinstance(unit.current.mp, int):
        return unit.current.mp - unit.status.mp_left
    return None


def load(ctx: Ctx) -> None:
    """§9.8: one Passenger unit per Transport, beside it one Support Weapon and one HQ; the
    Passenger goes aboard, "stacked immediately beneath the Transport unit"; §9.8.1: from
    the same hex the Passenger loads and the Transport may then move half
    its MPs; from different hexes the Transport moves up to half, the Passenger up to 1 MP,
    and the Transport is Ops Complete. Loading without having moved triggers Opportunity
    Fire, once per hex (§9.8.4)."""
    passenger = ctx.unit(ctx.action.actor)
    carrier = ctx.unit(ctx.action.target if isinstance(ctx.action.target, str) else None, "target")
    if passenger.side and carrier.side and passenger.side != carrier.side:
        illegal(ctx, "9.8", f"{carrier.name} is an enemy unit: you load your Passengers into your own Transport units")
    if passenger.carried_by is not None:
        illegal(ctx, "9.8", f"{passenger.name} is already a Passenger of {passenger.carried_by}: it loads again only "
                "once unloaded, and not in the activation it unloads (\"load or unload during an activation, but not "
                "both\")")
    if "transport" not in carrier.type.abilities:
        illegal(ctx, "9.8", f"{carrier.name} is no Transport unit: only a unit with a green or blue/green circle "
                "behind its Movement value (a Helicopter Transport: the green \"H\", §9.8.5) carries Passengers")
    if passenger.status.disrupted:
        illegal(ctx, "9.8", f"{passenger.name} is Disrupted and may not load")
    for unit in (passenger, carrier):       # loading is part of a Movement Action (§9.8)
        may_act(ctx, unit)
    place = load_place(passenger)
    if place == "unit" and "towed" not in passenger.type.abilities \
            and passenger.type.target_type not in (None, "troops"):
        # §1.9.8: a Transport "can load and Transport one Infantry unit and its Support Weapon
        # and HQ, or tow one Towed unit" (a unit of no stated type is not refused for it)
        illegal(ctx, "1.9.8", f"{passenger.name} is neither an Infantry unit nor a Towed unit: a Transport carries "
                "one Infantry unit or tows one Towed unit")
    taken = [u for u in aboard(ctx, carrier) if load_place(u) == place and u.key != passenger.key]
    if taken:
        illegal(ctx, "9.8", f"{carrier.name} already carries {taken[0].name}: a Transport is loaded with one "
                "unit, with a Support Weapon and an HQ")
    if carrier.type.target_type == "helicopter" and carrier.mode != "landed":
        illegal(ctx, "9.8.5", "Helicopter Transports load only in Landed mode")
    if "towed" in passenger.type.abilities and passenger.hex and carrier.hex and passenger.hex != carrier.hex:
        illegal(ctx, "9.8.1", f"{passenger.name} is Towed: it loads only in its Transport's hex")
    if ctx.answer.legal is None:
        ctx.answer.set("legal", True)
    if ctx.answer.legal is False:
        return
    if passenger.hex is None or carrier.hex is None:
        raise NotStated("units.<passenger and transport>.hex")
    if carrier.type.target_type == "helicopter":
        _helicopter_load(ctx, passenger, carrier)
        if ctx.answer.legal is not False:
            ctx.emit(PassengerLoaded(passenger.key, carrier.key))
        return
    half = need(carrier.current.mp, f"units.{carrier.key}.mp") // 2
    spent = {u.key: mp_spent(u) for u in (passenger, carrier)}
    # in one hex having moved already, they began the activation apart: the second method
    same_hex = passenger.hex == carrier.hex and not any(v for v in spent.values())
    already_fired_on = (ctx.game.facts.get("opfire_count") or 0) >= 1
    if not same_hex:
        if "towed" in passenger.type.abilities:
            illegal(ctx, "9.8.1", f"{passenger.name} is Towed: it may not use the second method to load")
        if spent[carrier.key] is not None and spent[carrier.key] > half:
            illegal(ctx, "9.8.1", f"{carrier.name} moved {spent[carrier.key]} MPs: a Transport moves at most half "
                    f"its MPs ({half}) to load a Passenger from another hex")
        if spent[passenger.key] is not None and spent[passenger.key] > 1:
            illegal(ctx, "9.8.1", f"{passenger.name} moved {spent[passenger.key]} MPs: a Passenger uses up to 1 MP "
                    "to reach its Transport")
        if ctx.answer.legal is False:
            return
    if same_hex:
        ctx.answer.unit(passenger.key, mp_max=0)
        ctx.answer.unit(carrier.key, mp_max=half, mp_after=half)
        triggers = not already_fired_on
        because(ctx, "9.8.1", f"same hex: load, then the Transport may move up to {half} MPs")
    else:
        ctx.answer.unit(passenger.key, mp_max=1)
        ctx.answer.unit(carrier.key, mp_max=half, mp_after=0)
        ctx.emit(StatusChanged(carrier.key, "ops_complete", True))
        # §9.8: loading triggers Opportunity Fire "if the Passenger expended no MPs before being loaded"
        triggers = spent[passenger.key] == 0 and not already_fired_on
        because(ctx, "9.8.1", f"different hexes: Transport up to {half} MPs, Passenger up to 1 MP, "
                "then the Transport is Ops Complete")
    ctx.answer.set("triggers_opportunity_fire", triggers)
    ctx.emit(PassengerLoaded(passenger.key, carrier.key))
    because(ctx, "9.8.4", "loading triggers Opportunity Fire" if triggers else
            "loading triggers no Opportunity Fire (the Passenger moved, or was already fired on here)")


def _helicopter_load(ctx: Ctx, passenger: Unit, carrier: Unit) -> None:
    """§9.8.5: the Landed Helicopter and its Passengers start the activation in the same hex;
    loading triggers Opportunity Fire as soon as it is announced. (A Helicopter does not
    move half its MPs with its load: it lifts off, §9.9.)"""
    if passenger.hex != carrier.hex:
        illegal(ctx, "9.8.5", f"{passenger.name} must start the activation in {carrier.name}'s hex to load")
        return
    ctx.answer.set("triggers_opportunity_fire", True)
    because(ctx, "9.8.5", "loading into a Helicopter Transport triggers Opportunity Fire as it is announced")
