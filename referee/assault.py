"""Assault, once for every book (EG/TUS §6.3, WaW85 §13): the attackers move into the enemy
hex, both sides roll their Assault dice at once (no saves), the hits are spread one per unit
before any takes two, and then who holds the hex: an eliminated defender leaves it to the
attacker; a defender that took more hits than it inflicted retreats one hex and the
attacker enters; otherwise the attacker falls back to the hex it entered from. Every
participant is marked Ops Complete.

What a book words its own way is a hook of the ruleset: who may assault or counterattack
(``may_fight``), each unit's dice and To-Hit (``assault_numbers``), which hexes a
defender may retreat into (``retreat_hexes``), and the knock-ons of the hits
(``aftermath``). A retreat is finished here too: the hex the player names
(``Action.retreat``), the only legal hex, or, when the defender has none, its
elimination; when several are legal and none is named, the answer lists them.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Callable

from referee import damage, situation
from referee.defence import improved_position
from referee.errors import NotStated
from referee.events import PassengerUnloaded, StatusChanged, UnitEliminated, UnitMoved, move_with_riders, result_of
from referee.model import Unit, need
from referee.ruleset import Ctx

#: Units in an assaulted hex that are not attacked themselves (HQs, Leaders and Support
#: Weapons suffer only through the units they are with: EG/TUS §1.3.3.2, WaW85 §10.7.2).
NOT_ASSAULTED = frozenset({"hq", "leader", "support_weapon"})


@dataclass(frozen=True)
class Numbers:
    """One unit's Assault dice and To-Hit, and the most hits it may score (TUS §6.3.2)."""

    fp: int | None
    to_hit: int | None
    max_hits: int | None = None


def assault_targets(ctx: Ctx, exclude: frozenset[str] = NOT_ASSAULTED) -> list[Unit]:
    """The units an Assault attacks: the named unit(s), or the stack of the named hex less
    the units that are never attacked themselves."""
    target = ctx.action.target
    if isinstance(target, str) and target in ctx.game.units:
        return [ctx.game.unit(target)]
    if isinstance(target, tuple):
        return [ctx.game.unit(k) for k in target]
    if isinstance(target, str):
        # a Passenger aboard its Transport is no unit of the stack (WaW85 §9.2 "Passengers and
        # Towed units do not count for stacking until they are unloaded"; EG/TUS §5.2 a loaded
        # transport is one unit): it shares its Transport's fate (WaW85 §10.7.3)
        return [u for u in ctx.game.stack(target) if u.type.target_type not in exclude and u.carried_by is None]
    raise NotStated("query.target")


def target_hex(ctx: Ctx, defenders: list[Unit]) -> str | None:
    target = ctx.action.target
    if isinstance(target, str) and target not in ctx.game.units:
        return target
    return next((u.hex for u in defenders if u.hex), None)


def entry_hex(ctx: Ctx, unit: Unit) -> str | None:
    """The hex the attacker enters the assaulted hex from: the last of its route, or its own."""
    return ctx.action.path[-1] if ctx.action.path else unit.hex


def assault(ctx: Ctx) -> None:
    """The Assault of ``query.unit`` (one unit or a stack) into ``query.target``."""
    rules, ans = ctx.rules, ctx.answer
    attackers = [ctx.unit(k) for k in ctx.action.actors] or [ctx.unit(None)]
    attackers = rules.assault_attackers(ctx, attackers)
    defenders = rules.assault_defenders(ctx, assault_targets(ctx))
    if not defenders:
        raise NotStated("units in the target hex")
    hex_id = target_hex(ctx, defenders)
    if not (isinstance(ctx.action.target, str) and ctx.action.target in ctx.game.units):
        # the Assault of a hex is on the units it can reach: not a helicopter flying above them
        # (WaW85 §13.0, §9.7.1, §9.7.3); a hex of such units alone is refused below
        above = {d.key: rules.above_the_assault(ctx, d) for d in defenders}
        if any(above.values()) and not all(above.values()):
            for d in defenders:
                if above[d.key]:
                    ans.because(rules.section("assault"), f"{d.name} is not a defender: {above[d.key]}")
            defenders = [d for d in defenders if not above[d.key]]
    for defender in defenders:
        rules.may_be_assaulted(ctx, defender)
    participants = [u for u in attackers if _may_assault(ctx, u, defenders)]
    if not participants and ans.legal is not False:
        ans.illegal(rules.section("assault"), "no unit with an Assault value")
    if participants and len(participants) < len(attackers) and ans.legal is not False:
        ans.because(rules.section("assault"), "the stack splits: units without an Assault value halt outside")
    ans.set("participants", [u.key for u in participants])
    if ans.legal is None:
        ans.set("legal", True)
    for unit in (participants or attackers)[:1]:
        # the numbers are reported even when the Assault is refused: what it would roll
        ctx.stage(("fp", "to_hit", "max_hits"), lambda: _report(ctx, unit, defenders, hex_id, attacking=True))
    fighting = [d for d in defenders if rules.may_fight(ctx, d, participants or attackers, attacking=False)]
    for d in fighting:
        ctx.stage((f"units.{d.key}.fp", f"units.{d.key}.to_hit"),
                  lambda d=d: _report(ctx, d, participants or attackers, hex_id, attacking=False))
    if ans.legal is False:
        return
    retreat_to = ctx.stage(("legal",), lambda: _named_retreat(ctx, defenders, participants))
    if ans.legal is False:
        return
    # what entering the hex costs the attackers before they fight (WaW85 §16.2: its Minefield)
    entered = ctx.stage(("hits", "net_hits", "hit_allocation", "units", "hexes"),
                        lambda: rules.assault_entry(ctx, participants, hex_id))
    if entered is None:
        return
    if not entered:
        ans.because(rules.section("assault"), "no attacker entered the hex: the Assault does not take place")
        return
    participants = entered
    for unit in participants:
        now = ctx.after.unit(unit.key)          # one that entered a Minefield on the way is in already
        if hex_id is not None and now.hex != hex_id:
            if now.carried_by is not None:
                # a Passenger unloading straight into the Assault leaves its Transport (WaW85 §9.8.3)
                ctx.emit(PassengerUnloaded(unit.key))
            # the counters stacked on it go where it goes: its HQ, Leader and Support Weapon,
            # its Passengers (WaW85 §9.2, §9.8.1; EG/TUS §1.3.6, §5.2)
            ctx.emit(*move_with_riders(ctx.after, unit.key, hex_id, deployed_hqs=ctx.params.deployed_hq_rides))
    ans.because(rules.section("assault_resolution"), "the attackers enter the defenders' hex: the Assault is resolved")
    # the HQs and Leaders stacked on either side are part of the outcome too (§1.3.3.2 checks)
    sides = {hex_id, *(u.hex for u in participants)} - {None}
    involved = participants + defenders + [u for u in ctx.game.units.values() if u.hex in sides
                                           and u.type.target_type in ("hq", "leader")
                                           and u not in participants + defenders]
    fields = ("hits", "net_hits", "hit_allocation", *(f"units.{u.key}" for u in involved))
    ctx.stage(fields, lambda: _resolve(ctx, participants, defenders, fighting, hex_id, retreat_to))


def _may_assault(ctx: Ctx, unit: Unit, defenders: list[Unit]) -> bool:
    """An Assault is a move into the enemy hex: not for a unit marked Ops Complete or
    Disrupted (EG/TUS §5.0, §6.1.7; WaW85 §13.0), nor one that made Moving Fire (EG/TUS
    §6.1.3); then the book's own rules on who may assault whom."""
    rules, ans = ctx.rules, ctx.answer
    ok = True
    if unit.status.ops_complete:
        ans.illegal(rules.section("assault_ops_complete"), f"{unit.name} is Ops Complete and cannot assault")
        ok = False
    if unit.status.disrupted:
        ans.illegal(rules.section("assault_disrupted"), f"disrupted {unit.name} may not move into an enemy's hex")
        ok = False
    if unit.status.made_moving_fire:
        ans.illegal(rules.section("moving_fire"), f"{unit.name} made Moving Fire and cannot assault")
        ok = False
    return ok and rules.may_fight(ctx, unit, defenders, attacking=True)


def _report(ctx: Ctx, unit: Unit, foes: list[Unit], hex_id: str | None, *, attacking: bool) -> None:
    got = ctx.rules.assault_numbers(ctx, unit, foes, hex_id, attacking=attacking)
    if attacking:
        for name in ("fp", "to_hit", "max_hits"):
            value = getattr(got, name)
            if value is not None:
                ctx.answer.set(name, value)
            elif name != "max_hits":
                ctx.answer.gap(name, f"not stated: units.{unit.key}.assault.{name}")
    else:
        ctx.answer.unit(unit.key, **{n: getattr(got, n) for n in ("fp", "to_hit") if getattr(got, n) is not None})


def _given_hits(ctx: Ctx, attackers: list[Unit], defenders: list[Unit]) -> tuple[int, int] | None:
    given = ctx.rules.assault_stated_hits(ctx)
    if given is None:
        return None
    if isinstance(given, int):
        return given, 0
    return (sum(given.get(u.key, 0) for u in defenders), sum(given.get(u.key, 0) for u in attackers))


def _roll_side(ctx: Ctx, units: list[Unit], foes: list[Unit], hex_id: str | None, attacking: bool) -> int:
    """Each unit rolls its Assault dice; each die at or over its To-Hit is a hit."""
    hits = 0
    for unit in units:
        got = ctx.rules.assault_numbers(ctx, unit, foes, hex_id, attacking=attacking)
        fp = need(got.fp, f"units.{unit.key}.assault.fp")
        to_hit = need(got.to_hit, f"units.{unit.key}.assault.to_hit")
        scored = sum(1 for d in ctx.roll(fp, "attack" if attacking else "counter") if d >= to_hit)
        hits += scored if got.max_hits is None else min(scored, got.max_hits)
    return hits


def _resolve(ctx: Ctx, attackers: list[Unit], defenders: list[Unit], fighting: list[Unit],
             hex_id: str | None, retreat_to: str | None) -> None:
    ans = ctx.answer
    given = _given_hits(ctx, attackers, defenders)
    if given is None:
        on_defenders = _roll_side(ctx, attackers, defenders, hex_id, True)
        on_attackers = _roll_side(ctx, fighting, attackers, hex_id, False) if fighting else 0
    else:
        on_defenders, on_attackers = given
    ans.set("hits", on_defenders)
    ans.set("saves_allowed", False)     # no Armor or Defensive Bonus saves in an Assault
    net = improved_position(ctx, defenders[0], on_defenders)
    ans.set("net_hits", net)
    settle(ctx, attackers, defenders, net, on_attackers, hex_id, retreat_to)


def settle(ctx: Ctx, attackers: list[Unit], defenders: list[Unit], on_defenders: int, on_attackers: int,
           hex_id: str | None, retreat_to: str | None = None) -> None:
    """Apply both sides' hits, spread one per unit before any takes two, then who holds the
    hex, the retreat, and Ops Complete for every participant."""
    rules, ans = ctx.rules, ctx.answer
    allocation: dict[str, int] = {}
    for side, hits in ((defenders, on_defenders), (attackers, on_attackers)):
        for key, n in damage.spread(ctx, [u.key for u in side], hits).items():
            allocation[key] = n
            damage.take_hits(ctx, key, n)
    ans.set("hit_allocation", "spread")
    rules.aftermath(ctx, [u.key for u in defenders + attackers])
    for unit in defenders + attackers:
        ans.unit(unit.key, retreat=0)
    alive = [d for d in defenders if result_of(d.key, ans.events) != "eliminated"]
    section = rules.section("assault_resolution")
    # Passengers unloaded in the hex by their defending Transport's elimination (WaW85 §9.8,
    # §10.7.3) were no defenders: whether they now hold the hex, or must leave it, is not stated
    after, keys = ctx.after, {d.key for d in defenders}
    unloaded = [u for d in defenders for u in ctx.game.passengers(d.key)
                if u.key not in keys and after.unit(u.key).on_map and after.unit(u.key).carried_by is None]
    for unit in unloaded:
        ans.gap((f"units.{unit.key}.hex", f"units.{unit.key}.retreat"),
                f"not stated: {unit.name}, unloaded in the assaulted hex by its Transport's elimination (§9.8, "
                "§10.7.3): whether it is a defender still in the hex or leaves it")
    if not alive:
        ans.because(section, "the defender is eliminated: the attacker occupies the hex")
    elif on_defenders > on_attackers:
        ans.because(section, "the defender took more hits than it inflicted: it retreats one hex, "
                    "the attacker occupies the hex")
        for d in alive:
            ans.unit(d.key, retreat=1)
        for c in _commanders(ctx, alive):
            ans.unit(c.key, retreat=1)
        retreat(ctx, alive, attackers, retreat_to)
    else:
        ans.because(section, "the attacker did not inflict more hits than it received: it retreats to the "
                    "hex it entered from")
        for a in attackers:
            ans.unit(a.key, retreat=1)
            back = entry_hex(ctx, a)
            if back is None or back == hex_id:
                continue
            if result_of(a.key, ans.events) != "eliminated":
                ctx.emit(UnitMoved(a.key, back))
            # what came in with it goes back too, even from an eliminated Transport (its surviving
            # Passengers are unloaded in the hex, WaW85 §9.8, §10.7.3)
            after = ctx.after
            for rider in ctx.riders(a.key):
                now = after.unit(rider.key)
                if now.on_map and now.hex == hex_id:
                    ctx.emit(UnitMoved(rider.key, back))
    for unit in defenders + attackers:
        if result_of(unit.key, ans.events) != "eliminated" and ctx.after.unit(unit.key).on_map:
            ctx.emit(StatusChanged(unit.key, "ops_complete", True))
    ans.because(rules.section("assault_ops_complete_mark"), "every participant is marked Ops Complete")


# ---------------------------------------------------------------- retreats --------

#: A way to ask which hexes a group of retreating units may enter together.
Fits = Callable[[list[Unit]], list[str]]


def _fits(ctx: Ctx, defenders: list[Unit], attackers: list[Unit]) -> Fits | None:
    """Which hexes a group of the retreating ``defenders`` may enter together: from the map
    (the book's ``retreat_hexes`` hook, which needs the hex the attacker entered from), else
    from the hexes' stated retreat facts (``stated_retreat_hexes``), else ``None``."""
    here = situation.position(ctx.game, defenders[0].key)
    came_from = entry_hex(ctx, attackers[0]) if attackers else None
    if here is not None and came_from is not None and ctx.game.hex(came_from).at is not None:
        at = ctx.game.hex(came_from).at
        return lambda group: ctx.rules.retreat_hexes(ctx, group, attackers, at)
    if ctx.rules.stated_retreat_hexes(ctx, defenders) is None:
        return None
    return lambda group: ctx.rules.stated_retreat_hexes(ctx, group) or []


def retreat_hexes(ctx: Ctx, defenders: list[Unit], attackers: list[Unit]) -> list[str] | None:
    """The hexes the defenders may retreat into together, in the book's order of
    preference, or ``None`` when neither the map nor the stated facts say."""
    fits = _fits(ctx, defenders, attackers)
    return None if fits is None else fits(defenders)


#: Beyond this many retreating units the ways to split them are not enumerated.
MAX_SPLIT = 4


def retreat_plans(units: list[Unit], fits: Fits) -> list[dict[str, str | None]] | None:
    """Every way the ``units`` may retreat, each unit into a hex of its own choosing (WaW85
    §13.2.2 "A retreating unit must move into one of the three hexes ..." is said of each
    unit, so a stack may split): a hex per unit key, ``None`` for a unit left with none.
    A unit able to retreat must ("A unit unable to retreat is eliminated"), so only the plans
    that move the most units are kept; ``None`` when there are too many units to enumerate."""
    if len(units) > MAX_SPLIT:
        return None
    options = [[*fits([u]), None] for u in units]
    plans: list[dict[str, str | None]] = []
    for combo in product(*options):
        groups: dict[str, list[Unit]] = {}
        for unit, hex_id in zip(units, combo):
            if hex_id is not None:
                groups.setdefault(hex_id, []).append(unit)
        if all(hex_id in fits(group) for hex_id, group in groups.items()):
            plans.append({u.key: h for u, h in zip(units, combo)})
    most = max(sum(h is not None for h in p.values()) for p in plans)
    return [p for p in plans if sum(h is not None for h in p.values()) == most]


def _named_plan(ctx: Ctx, units: list[Unit], named: str) -> dict[str, str | None]:
    """The player's ``retreat=HEX`` (every unit into it) or ``retreat=HEX1,HEX2`` (one hex
    per retreating unit, in order)."""
    hexes = [h.strip() for h in named.split(",") if h.strip()]
    if len(hexes) == 1:
        hexes = hexes * len(units)
    if len(hexes) != len(units):
        raise NotStated(f"one retreat hex per retreating unit ({len(units)}), not {named}")
    return {u.key: h for u, h in zip(units, hexes)}


def _named_retreat(ctx: Ctx, defenders: list[Unit], attackers: list[Unit]) -> str | None:
    """A retreat the player named (``retreat=HEX`` or one hex per unit) must be one the
    defenders may take, which is known before the dice are rolled."""
    named = ctx.action.retreat
    if named is None:
        return None
    fits = _fits(ctx, defenders, attackers)
    if fits is None:
        return named
    plan = _named_plan(ctx, defenders, named)
    groups: dict[str, list[Unit]] = {}
    for unit in defenders:
        groups.setdefault(str(plan[unit.key]), []).append(unit)
    for hex_id, group in groups.items():
        legal = fits(group)
        if hex_id not in legal:
            who = "the defenders" if len(group) == len(defenders) else ", ".join(u.name for u in group)
            ctx.answer.illegal(ctx.rules.section("retreat"), f"{hex_id} is not a hex {who} may retreat into"
                               + (f" (legal: {', '.join(legal)})" if legal else " (they have none)"))
    return named


def retreat(ctx: Ctx, units: list[Unit], attackers: list[Unit], named: str | None) -> None:
    """Finish a defender's retreat: the named hex(es), else the only way the units may go:
    under WaW85 each unit on its own (§13.2.2: "A unit unable to retreat is eliminated" is said
    of each unit, ``retreat_unit_by_unit``), under EG/TUS §6.3 the defender into one hex; a
    unit with no hex is eliminated. Where the owner has a choice and none is named, the answer
    lists the hexes."""
    retreat_by(ctx, units, _fits(ctx, units, attackers), named)


def retreat_by(ctx: Ctx, units: list[Unit], fits: Fits | None, named: str | None) -> None:
    """A retreat "as if they had lost an Assault Action" into the hexes ``fits`` allows
    (``None``: neither the map nor the stated facts say): an Assault's defender
    (:func:`retreat`), the units of a hex a Fire is placed in (WaW85 §10.9, §2.3.4.4, §9.7)."""
    section = ctx.rules.section("retreat")
    if named is not None:
        plans: list[dict[str, str | None]] | None = [_named_plan(ctx, units, named)]
    elif fits is None and ctx.game.facts.get("retreat_possible") is False:
        plans = [{u.key: None for u in units}]       # stated: there is no hex to retreat into
    elif fits is None:
        for unit in units:
            ctx.answer.gap(f"units.{unit.key}.hex", f"not stated: retreat hex ({ctx.rules.cite(section)})")
        return
    elif ctx.params.retreat_unit_by_unit:
        plans = retreat_plans(units, fits)
    else:
        plans = [{u.key: h for u in units} for h in fits(units)]
        if not plans and len(units) > 1 and any(fits([u]) for u in units):
            for unit in units:
                ctx.answer.gap(f"units.{unit.key}.hex", f"not supported: {ctx.rules.cite(section)} (no hex takes the "
                               "whole retreating stack; whether its units may retreat into separate hexes is not "
                               "stated)")
            return
        plans = plans or [{u.key: None for u in units}]
    if plans is None:
        for unit in units:
            ctx.answer.gap(f"units.{unit.key}.hex", f"not supported: {ctx.rules.cite(section)} (the ways to split "
                           f"a retreating stack of {len(units)} are not enumerated)")
        return
    apply_retreat(ctx, units, plans)


def apply_retreat(ctx: Ctx, units: list[Unit], plans: list[dict[str, str | None]]) -> None:
    """Carry out what every plan agrees on: the units no plan moves are eliminated, a unit
    every plan sends to one hex goes there (its HQs and Leaders with it); what the plans
    leave to the owner is a gap naming the choices."""
    ans, section = ctx.answer, ctx.rules.section("retreat")
    stuck = {frozenset(k for k, h in p.items() if h is None) for p in plans}
    if len(stuck) > 1:
        able = len(units) - len(next(iter(stuck)))
        for unit in units:
            ans.gap((f"units.{unit.key}.hex", f"units.{unit.key}.result", f"units.{unit.key}.location"),
                    f"not stated: which units retreat ({ctx.rules.cite(section)}: only {able} of the "
                    f"{len(units)} can; the others are eliminated)")
        return
    for key in sorted(next(iter(stuck)), key=[u.key for u in units].index):
        ctx.emit(UnitEliminated(key))
        ans.because(section, f"{ctx.game.unit(key).name} has no hex to retreat into: eliminated")
    going = [u for u in units if plans[0][u.key] is not None]
    chosen: dict[str, str] = {}
    for unit in going:
        hexes = sorted({str(p[unit.key]) for p in plans})
        if len(hexes) == 1:
            chosen[unit.key] = hexes[0]
        else:
            ans.gap(f"units.{unit.key}.hex", f"not stated: retreat hex (name one with retreat=HEX: "
                    f"{', '.join(hexes)})")
    retreating = {u.key for u in units}
    for key, hex_id in chosen.items():
        ctx.emit(UnitMoved(key, hex_id))
        ans.unit(key, retreat=1)
        ans.because(section, f"{ctx.game.unit(key).name} retreats into {hex_id}")
        # its Support Weapon and Passengers go with it (WaW85 §9.2 "stacked immediately on top
        # of the owning unit", §9.8.1); HQs and Leaders follow below
        for rider in ctx.after.riders(key, deployed_hqs=ctx.params.deployed_hq_rides):
            if rider.key not in retreating and rider.type.target_type not in ("hq", "leader") \
                    and rider.hex != hex_id:
                ctx.emit(UnitMoved(rider.key, hex_id))
                ans.unit(rider.key, retreat=1)
    destinations = {chosen.get(u.key) for u in going}
    going_keys = {u.key for u in going}
    for unit in _commanders(ctx, going):
        # an HQ or Leader stays on the unit it is deployed or assigned to (WaW85 §9.2); one
        # with none of them goes with the survivors, which is a choice once they split
        host = unit.attached_to if unit.attached_to in going_keys else None
        hex_id = chosen.get(host) if host else (next(iter(destinations)) if len(destinations) == 1 else None)
        if hex_id is not None:
            ctx.emit(UnitMoved(unit.key, hex_id))
            ans.unit(unit.key, retreat=1)
        elif host:
            ans.gap(f"units.{unit.key}.hex", f"not stated: the retreat hex of {host}, which it goes with")
        else:
            ans.gap(f"units.{unit.key}.hex", "not stated: which of the retreating units the HQ or Leader goes with")


def _commanders(ctx: Ctx, units: list[Unit]) -> list[Unit]:
    """HQs and Leaders stay with their units: they retreat with the survivors (WaW85
    §13.1.1; EG/TUS §1.3.3.1 an HQ remains in a hex with units of its formation). Those of
    the hex before the Assault, still on the map: not the attacker's, which came in stacked
    on it (WaW85 §9.2)."""
    keys = {u.key for u in units}
    hexes = {u.hex for u in units if u.hex}
    after = ctx.after
    return [after.unit(u.key) for h in hexes for u in ctx.game.stack(h) if u.key not in keys
            and u.type.target_type in ("hq", "leader") and after.unit(u.key).on_map]


def retreat_action(ctx: Ctx) -> None:
    """The ``retreat`` procedure: may ``query.unit`` retreat into ``query.target``? (A unit
    that cannot retreat at all is eliminated.)"""
    ctx.rules.retreat_check(ctx)


def counterattack(ctx: Ctx) -> None:
    """May the assaulted ``query.unit`` counterattack ``query.target``, with which dice?"""
    rules = ctx.rules
    unit = ctx.unit(ctx.action.actor)
    target = ctx.unit(ctx.action.target if isinstance(ctx.action.target, str) else None, "target") \
        if isinstance(ctx.action.target, str) else None
    foes = [target] if target is not None else assault_targets(ctx)
    if not rules.may_fight(ctx, unit, foes, attacking=False):
        if ctx.answer.legal is None:
            ctx.answer.illegal(rules.section("assault"), f"{unit.name} has no Assault value and may not counterattack")
        return
    if ctx.answer.legal is None:
        ctx.answer.set("legal", True)
    got = ctx.stage(("fp", "to_hit"), lambda: rules.assault_numbers(ctx, unit, foes, unit.hex, attacking=False))
    if got is None:
        return
    for name in ("fp", "to_hit"):
        if getattr(got, name) is not None:
            ctx.answer.set(name, getattr(got, name))
    if ctx.action.hits is not None:
        ctx.answer.set("hits", ctx.action.hits if isinstance(ctx.action.hits, int) else sum(ctx.action.hits.values()))
    elif ctx.dice is not None and got.fp is not None and got.to_hit is not None:
        ctx.stage("hits", lambda: ctx.answer.set(
            "hits", sum(1 for d in ctx.roll(got.fp, "counter") if d >= got.to_hit)))
