"""Ranged combat, once for every book: Direct Fire, Opportunity Fire, Moving Fire / Move &
Fire, Anti-Aircraft Fire and a Close Air Support attack are one procedure (EG/TUS §6.1-§6.2,
WaW85 §10-§11, §4.3).

The steps are the books' own order: who may fire; with which Firepower; may it attack
that target; the modifiers; line of sight; the range band; the final To-Hit and FP; the
attacker is marked Ops Complete; then the attack dice, the target's defence roll
(:mod:`referee.defence`), the net hits and the combat results (:mod:`referee.damage`),
and, for Opportunity Fire, a mover that is hit stops. Each step that a book words its
own way is a hook of the ruleset (``choose_weapon``, ``may_attack``, ``fire_modifiers``,
``sight``, ``bands``, ``final_numbers``, ``after_attack_roll``, ``fire_results``...).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

from referee import defence as defence_roll
from referee import situation
from referee.defence import Shot
from referee.errors import NotStated
from referee.events import StatusChanged, UnitMoved, result_of
from referee.model import Unit
from referee.ranges import BAND_TO_HIT, OUT_OF_RANGE, Bands
from referee.ruleset import Ctx

#: Results that only the attack and defence rolls decide.
RESOLUTION_FIELDS = ("hits", "saves", "net_hits", "db_dice", "armor_dice", "defense_dice",
                     "save_number", "concealed", "units")
#: Results that depend on the weapon and the range.
ATTACK_FIELDS = ("legal", "to_hit", "fp", "band", "bands", "max_range")
OPPORTUNITY = frozenset({"opportunity_fire", "aa_fire"})


@dataclass
class Attack:
    """One attack before the dice: what is fired, and the modifiers gathered so far."""

    shot: Shot
    kind: str
    to_hit: int = 0
    """Modifiers to the printed To-Hit that may push it past 6 (range, Moving Fire)."""
    capped: int = 0
    """To-Hit modifiers that simply stop at 6 (classic Smoke, §8.2)."""
    fp: int = 0
    bonus: int = 0
    """Attack dice added by an HQ or a Leader."""
    range_bonus: int = 0
    aa_restricted: bool = False
    """WaW85 §10.6.1: black or orange dice at aircraft: printed range, FP -2, To-Hit 6."""
    printed_only: bool = False
    through_smoke: bool = False
    """Classic thermal sights firing through Smoke: no extended range (EG Moving Fire Table)."""
    partners: list[str] = field(default_factory=list)
    """Units that fire with the attacker and are marked Ops Complete with it (Volley Fire)."""

    @property
    def opportunity(self) -> bool:
        return self.kind in OPPORTUNITY

    @property
    def weapon_name(self) -> str | None:
        return self.shot.weapon_name


def fire(ctx: Ctx, kind: str) -> None:
    """One ranged attack by ``query.unit`` on ``query.target`` (``kind`` is the action)."""
    rules, ans, action = ctx.rules, ctx.answer, ctx.action
    actor = ctx.unit(action.actor)
    target = ctx.game.unit(action.target) if isinstance(action.target, str) else None
    status(ctx, actor, kind)
    name = ctx.stage(ATTACK_FIELDS + ("weapon", "hits"), lambda: rules.choose_weapon(ctx, actor, target, kind))
    weapon = actor.current.weapon(name) if name else None
    attack = Attack(Shot(actor, name, weapon, kind=kind), kind)
    ctx.stage(("legal", "to_hit", "fp", "modifiers"), lambda: rules.fire_restrictions(ctx, actor, attack))
    if name is None and "weapon" in ans.gaps:
        return
    if name is not None:
        ans.set("weapon", name)
        if weapon is None and any(actor.current.weapon(n) for n in ("ap", "he", "aa")):
            # said once: a weapon the player named is refused by the preconditions already
            if not any(r.text.startswith(f"{actor.name} prints no {name.upper()} Firepower") for r in ans.refusals):
                ans.illegal(rules.section("fire_factor"), f"{actor.name} has no {name.upper()} Firepower")
            return
        if weapon is None:                  # the counter's Firepower is not stated at all
            ans.gap(ATTACK_FIELDS, f"not stated: units.{actor.key}.{name}")
    if weapon is not None:
        _attack(ctx, actor, target, attack)
    elif name is None and target is not None and ans.legal is not False \
            and not set(ans.gaps) & {"weapon", "to_hit", "fp", "hits"}:
        # eligible to fire, but with which Firepower is the player's to say: no attack is
        # made without it, and no result is written as if it had been
        ans.gap(("to_hit", "fp", "hits"), "not stated: query.weapon (which Firepower fires: ap or he)")
    rules.after_fire_checks(ctx, actor, attack)
    if ans.legal is None and not ({"legal", "*"} & set(ans.gaps)):
        ans.set("legal", True)
    if ans.legal is False:
        return
    if ans.legal:
        rules.on_legal_fire(ctx, actor, attack)
        for key in [actor.key, *attack.partners]:
            ctx.emit(StatusChanged(key, "ops_complete", True))
        with_it = [ctx.game.unit(k).name or k for k in attack.partners]
        ans.because(rules.section("fire_ops_complete_mark"),
                    f"{actor.name} and {', '.join(with_it)}, firing with it, are marked Ops Complete" if with_it
                    else f"{actor.name} is marked Ops Complete")
        if action.hits is None and rules.attack_cancelled(ctx, actor, attack):
            return
    if target is None or (weapon is None and action.hits is None):
        return
    if ans.legal or action.hits is not None:      # given hits mean the attack was made
        ctx.stage(RESOLUTION_FIELDS, lambda: _resolve(ctx, actor, target, attack))
    else:                                          # legality unknown: the defence is still known
        ans.gap(("hits", "saves", "net_hits", "units"), ans.gaps.get("legal", "not stated: legality"))
        roll = ctx.stage(RESOLUTION_FIELDS, lambda: defence_roll.defence(ctx, target, attack.shot))
        if roll is not None:
            defence_roll.put(ctx, roll)


def status(ctx: Ctx, actor: Unit, kind: str) -> None:
    """Who may fire at all: not a Disrupted unit, not one marked Ops Complete, not one Out
    of Command except in Opportunity Fire, not a Passenger (EG/TUS §6.1, §6.1.7, §4.2,
    §5.2.3; WaW85 §10.0, §7.2.3, §9.8)."""
    rules, ans, unit_status = ctx.rules, ctx.answer, actor.status
    # Opportunity Fire states its own eligibility (WaW85 §10.11 "Units that are marked as being
    # Ops Complete or Disrupted may not use Opportunity Fire"; EG/TUS §6.2 a Good Order unit
    # not marked Ops Complete): that is the rule a refusal names
    opportunity = kind == "opportunity_fire"
    if unit_status.disrupted:
        ans.illegal(rules.section("opportunity_fire" if opportunity else "fire_disrupted"),
                    f"{actor.name} is Disrupted and cannot fire")
    if unit_status.ops_complete:
        ans.illegal(rules.section("opportunity_fire" if opportunity else "fire_ops_complete"),
                    f"{actor.name} is Ops Complete and cannot fire")
    if kind not in OPPORTUNITY and unit_status.out_of_command and ctx.rules.out_of_command(ctx, actor):
        ans.illegal(rules.section("out_of_command"), f"{actor.name} is Out of Command: Opportunity Fire only")
    if actor.carried_by is not None:
        ans.illegal(rules.section("passenger_fire"), f"{actor.name} is a Passenger and must unload to fire")


def _attack(ctx: Ctx, actor: Unit, target: Unit | None, attack: Attack) -> None:
    """May this Firepower attack that target, with which modifiers, in sight and in range,
    at what To-Hit and FP."""
    rules, ans = ctx.rules, ctx.answer
    if target is not None:
        ctx.stage("legal", lambda: rules.may_attack(ctx, actor, target, attack))
    ctx.stage(("legal", "to_hit", "fp", "modifiers"), lambda: rules.fire_modifiers(ctx, actor, target, attack))
    if target is not None and ans.legal is not False and attack.kind != "cas_attack":
        ctx.stage("legal", lambda: rules.sight(ctx, actor, target, attack))
    if attack.kind == "cas_attack":
        rules.cas_numbers(ctx, attack)
        return
    _range_and_numbers(ctx, actor, target, attack)


def _range_and_numbers(ctx: Ctx, actor: Unit, target: Unit | None, attack: Attack) -> None:
    """The range band (stated, else counted), the band's To-Hit modifier and the final
    To-Hit and FP; with no range known, the ruleset says what can still be given."""
    rules, ans = ctx.rules, ctx.answer
    bands = ctx.stage(("bands", "max_range"), lambda: rules.bands(ctx, actor, target, attack))
    if bands is not None:
        ans.set("bands", bands.names)
        ctx.stage("max_range", lambda: ans.set("max_range", bands.max_range))
    band = ctx.stage(("band", "legal", "to_hit", "fp", "hits"), lambda: _band(ctx, target, bands, attack))
    if band == OUT_OF_RANGE:
        return
    if band is not None:
        _numbers(ctx, attack, rules.band_to_hit(ctx, attack, band))
    elif ans.legal is not False:
        numbers_without_band(ctx, attack, bands)


def _band(ctx: Ctx, target: Unit | None, bands: Bands | None, attack: Attack) -> str | None:
    """The band: stated (when no distance is), else from the distance counted on the map."""
    rules, ans = ctx.rules, ctx.answer
    stated = ctx.game.facts.get("range_band")
    distance = None
    if target is not None:
        distance = ctx.game.facts.relation(target.key).distance
        if distance is None and stated is None and situation.position(ctx.game, ctx.action.actor) \
                and situation.position(ctx.game, target.key):
            distance = situation.distance(ctx, ctx.action.actor, target.key)
    kinds = (ctx.game.unit(ctx.action.actor).type.target_type, target.type.target_type) if target else ()
    if distance == 0 and "helicopter" in kinds:
        distance = 1
        ans.because(rules.section("helicopter_same_hex"), "a helicopter and a unit in its hex fire at each other "
                    "at a range of one hex")
    elif distance == 0 and "aircraft" in kinds and "aircraft_same_hex" in rules.SECTIONS:
        # WaW85 §4.1: the CAS counter "is considered to be at a target height as if it were a
        # Helicopter in Flying mode (See 9.7.1)", and Anti-Aircraft Fire at a Flying Helicopter
        # from ground units in its hex "is considered to be at a range of one hex" (§9.7.1)
        distance = 1
        ans.because(rules.section("aircraft_same_hex"), "a CAS counter is at the height of a Flying Helicopter: "
                    "fire between it and a unit in its hex is at a range of one hex")
    if distance is not None:
        rules.range_checks(ctx, attack, distance)
    if distance is None or (bands is None and stated is not None):
        if stated is None:
            return rules.band_not_stated(ctx, target)
        ans.set("band", stated)
        ans.because(rules.section("range"), f"range band {stated.replace('_', ' ')} (stated)")
        return stated
    if bands is None or bands.printed is None:
        raise NotStated(f"units.{ctx.action.actor}.{attack.weapon_name}.range")
    band = bands.band(distance)
    ans.set("band", band)
    ans.set("range", distance)
    section = rules.section("range") + (", " + rules.section("helicopters_as_targets") if bands.halved else "")
    if band == OUT_OF_RANGE:
        ans.illegal(rules.section("range_max") + (", " + rules.section("helicopters_as_targets") if bands.halved else ""),
                    f"range {distance} is beyond the maximum {bands.max_range}")
        return band
    ans.because(section, f"range {distance} = {band.replace('_', ' ')}"
                + (" (halved against a helicopter)" if bands.halved else ""))
    return band


def _numbers(ctx: Ctx, attack: Attack, band_mod: int) -> None:
    """The final To-Hit and FP at a known band (the ruleset's caps and trade-offs)."""
    rules, ans = ctx.rules, ctx.answer
    to_hit = ctx.stage(("to_hit", "hits"), lambda: rules.final_to_hit(ctx, attack, band_mod, explain=True))
    if to_hit is not None:
        ans.set("to_hit", to_hit)
    fp = ctx.stage(("fp", "hits"), lambda: rules.final_fp(ctx, attack, band_mod))
    if fp is not None:
        ans.set("fp", fp)


def numbers_without_band(ctx: Ctx, attack: Attack, bands: Bands | None) -> None:
    """No range stated, nor a band, nor hexes to count it on (``Ruleset.band_not_stated``): the
    To-Hit and FP with no range modifier, each given when its printed value is (EG/TUS
    §6.1.1-§6.1.2, WaW85 §10.3)."""
    ctx.answer.because(ctx.rules.section("range"), "no range stated: no range modifier applies to the To-Hit")
    _numbers(ctx, attack, 0)


def _resolve(ctx: Ctx, actor: Unit, target: Unit, attack: Attack) -> None:
    """Attack dice (or the stated hits), then the target's defence roll, then results. The
    defence is reported even when the attack's numbers are not known."""
    rules, ans = ctx.rules, ctx.answer
    defends = rules.rolls_defence(target, attack)
    roll = None
    if defends:
        roll = ctx.stage(RESOLUTION_FIELDS, lambda: defence_roll.defence(ctx, target, attack.shot))
        if roll is not None:
            defence_roll.put(ctx, roll)
    hits = ctx.stage(("hits", "net_hits", "units"), lambda: _hits(ctx, actor, target, attack))
    if hits is not None:
        ans.set("hits", hits)
        hits = defence_roll.improved_position(ctx, target, hits)
    if not defends:
        if hits is not None:
            _results(ctx, target, hits, attack)
        return
    if roll is None or (hits is None and ctx.dice is None):
        return
    saved = defence_roll.roll_saves(ctx, roll, hits)
    ans.set("saves", saved)
    if hits is None:
        return
    net = max(0, hits - saved)
    ans.set("net_hits", net)
    ans.because(rules.section("ranged_combat"),
                f"{roll.defense_dice} defence dice at {roll.save_number}+: {saved} save(s), {net} net hit(s)")
    _results(ctx, target, net, attack)


def _hits(ctx: Ctx, actor: Unit, target: Unit, attack: Attack) -> int:
    """The hits stated by the action, else the attack dice at the To-Hit."""
    rules, ans = ctx.rules, ctx.answer
    if ctx.action.hits is not None:
        return rules.stated_hits(ctx, target)
    fp, to_hit = ans.values.get("fp"), ans.values.get("to_hit")
    if fp is None or to_hit is None:
        raise NotStated(ans.gaps.get("fp" if fp is None else "to_hit", "attack numbers").replace("not stated: ", ""))
    hits = defence_roll.saves(ctx.roll(fp, "attack"), to_hit)
    ans.because(rules.section("ranged_combat"), f"{fp} dice at {to_hit}+: {hits} hit(s)")
    rules.after_attack_roll(ctx, actor, attack, hits)
    return hits


def _results(ctx: Ctx, target: Unit, hits: int, attack: Attack) -> None:
    """The ruleset's combat results; then every unit Opportunity Fire hurt stops moving."""
    attacked = ctx.rules.fire_results(ctx, target, hits, attack)
    if attack.opportunity:
        for key in attacked:
            stop_mover(ctx, ctx.game.unit(key))


def stop_mover(ctx: Ctx, target: Unit) -> None:
    """A moving unit Disrupted or Reduced by Opportunity Fire must stop moving, and its
    move ends there: it is marked Ops Complete (EG/TUS §6.2 with §5.0; WaW85 §10.8.2,
    §10.11; Anti-Aircraft Fire is a form of Opportunity Fire, WaW85 §4.2)."""
    result = result_of(target.key, ctx.answer.events)
    if result in ("none", "eliminated") or not ctx.after.unit(target.key).on_map:
        return
    ctx.emit(StatusChanged(target.key, "moving", False), StatusChanged(target.key, "ops_complete", True))
    ctx.answer.because(ctx.rules.section("opportunity_fire_stop"),
                       f"{target.name} is {result.replace('_', ' ')} by Opportunity Fire: it stops moving "
                       "and is marked Ops Complete")


def direct_fire(ctx: Ctx) -> None:
    fire(ctx, "direct_fire")


def opportunity_fire(ctx: Ctx) -> None:
    """Fire at a unit as it enters a hex in the firer's LOS and range, once per hex entered:
    a unit already attacked in its hex (``opportunity_fired``, or ``opfire_count`` stated) is
    refused by the ruleset's checks; a legal attack marks the target for the rest of the run."""
    ctx.rules.opportunity_checks(ctx)
    fire(ctx, "opportunity_fire")
    target = ctx.action.target
    if ctx.answer.legal and isinstance(target, str) and target in ctx.game.units \
            and not ctx.game.units[target].status.opportunity_fired:
        ctx.emit(StatusChanged(target, "opportunity_fired", True))


def move_and_fire(ctx: Ctx) -> None:
    """Fire after moving (EG/TUS §6.1.3; WaW85 §11.0). With a ``path`` the move is made
    first, by the book's own Movement procedure (its costs, stacking and limits), and the
    unit fires from the hex it reached having spent those MP; without one, the MP spent
    are a stated fact (``status.mp_spent``). The enemy units that may Opportunity Fire at the
    mover fire first, where the book says so (the ruleset's ``opportunity_before_moving_fire``)."""
    if not ctx.action.path:
        fire(ctx, "move_and_fire")
        moved: Ctx | None = ctx
    else:
        moved = _move_first(ctx)
        if moved is not None:
            fire(moved, "move_and_fire")
    if moved is not None and ctx.answer.legal is not False:
        ctx.stage("order", lambda: ctx.rules.opportunity_before_moving_fire(moved))


def _move_first(ctx: Ctx) -> Ctx | None:
    """The move of a move-and-fire, judged on its own; the Ctx to fire from, or None when the
    move is refused (its reasons become the action's) or cannot be judged (its gap)."""
    from referee.verdict import Answer
    move = replace(ctx.action, kind="move", target=None, weapon=None)
    judged = Answer("move", ctx.answer.book)
    ctx.rules.procedures["move"](Ctx(ctx.rules, ctx.game, move, None, judged))
    for reason in judged.reasons:
        ctx.answer.reasons.append(reason)
    if judged.legal is False:
        for reason in judged.refusals:
            ctx.answer.refusals.append(reason)
        ctx.answer.set("legal", False)
        ctx.answer.values.setdefault("reason_rule", judged.values.get("reason_rule"))
        return None
    if judged.gaps:
        raise NotStated(next(iter(judged.gaps.values())))
    arrived = [e for e in judged.events if isinstance(e, UnitMoved)]
    cost = judged.values.get("cost")
    if not arrived or not isinstance(cost, int):
        raise NotStated(f"units.{ctx.action.actor}.status.mp_spent")
    ctx.emit(*arrived)
    unit = ctx.game.unit(str(ctx.action.actor))
    there = replace(unit.with_status(mp_spent=cost, moving=True), hex=arrived[-1].hex)
    return Ctx(ctx.rules, ctx.game.with_unit(there), ctx.action, ctx.dice, ctx.answer)


def opportunity_first(ctx: Ctx, section: str, may_fire: Callable[..., bool | None], excluded: frozenset[str], *,
                      fire_name: str, first: str) -> None:
    """The ``order`` of a fire after moving (EG/TUS §6.2, WaW85 §10.11): Opportunity Fire first
    when an enemy unit may make it at the mover in the hex it fires from (once per hex: not when
    the mover was attacked there already), else the fire after moving alone. ``may_fire(ctx,
    unit, mover, los, distance)`` is the book's eligibility (None: not known), ``excluded`` the
    counters that never make Opportunity Fire. A unit's stated ``distance`` is from the mover
    (the reference unit); its LOS is known for the mover's target (LOS is the same both ways),
    for an adjacent unit and from the map."""
    mover = ctx.game.unit(ctx.action.actor)
    if ctx.game.facts.get("opfire_count") or mover.status.opportunity_fired:
        ctx.answer.set("order", ["move_and_fire"])
        ctx.answer.because(section, f"{mover.name} was attacked in this hex already: its {fire_name} alone")
        return
    eligible: list[Unit] = []
    unknown: list[str] = []
    for unit in ctx.game.units.values():
        if unit.key == mover.key or not unit.on_map or unit.carried_by is not None \
                or unit.type.target_type in excluded:
            continue
        if unit.key != ctx.action.target:
            if unit.side is None or mover.side is None:
                unknown.append(f"units.{unit.key if unit.side is None else mover.key}.side")
                continue
            if unit.side == mover.side:
                continue
        try:
            distance, los = _opportunity_sight(ctx, unit, mover)
        except NotStated as missing:
            unknown.append(str(missing).replace("not stated: ", ""))
            continue
        verdict = may_fire(ctx, unit, mover, los, distance)
        if verdict:
            eligible.append(unit)
        elif verdict is None:
            unknown.append(f"units.{unit.key} LOS to and range of the mover {mover.key}")
    if eligible:
        ctx.answer.set("order", ["opportunity_fire", "move_and_fire"])
        ctx.answer.because(section, f"{', '.join(u.name for u in eligible)} may Opportunity Fire at {mover.name} "
                           f"in the hex it entered: {first}")
        return
    if unknown:
        raise NotStated(f"{unknown[0]} (whether an enemy unit may Opportunity Fire first, {section})")
    ctx.answer.set("order", ["move_and_fire"])
    ctx.answer.because(section, f"no enemy unit may Opportunity Fire at {mover.name}: its {fire_name} alone")


def _opportunity_sight(ctx: Ctx, unit: Unit, mover: Unit) -> tuple[int, bool | None]:
    """The distance from the mover to ``unit`` and whether they see each other (None: not
    known), for the mover's fire after moving (see :func:`opportunity_first`)."""
    rel = ctx.game.facts.relation(unit.key)
    distance = rel.distance if rel.distance is not None else situation.distance(ctx, mover.key, unit.key)
    if distance <= 1:
        return distance, True
    if unit.key == ctx.action.target and rel.los is not None:
        return distance, rel.los
    if situation.position(ctx.game, unit.key) and situation.position(ctx.game, mover.key):
        return distance, ctx.rules.in_sight(ctx, unit, mover)
    return distance, None


def aa_fire(ctx: Ctx) -> None:
    fire(ctx, "aa_fire")


def cas_attack(ctx: Ctx) -> None:
    """A Close Air Support unit's attack on the units in its hex (WaW85 §4.3)."""
    fire(ctx, "cas_attack")


def concealment(ctx: Ctx) -> None:
    """Is the target concealed?"""
    target = ctx.unit(ctx.action.target if isinstance(ctx.action.target, str) else None, "target")
    firer = ctx.game.unit(ctx.action.actor) if ctx.action.actor else None
    ctx.answer.set("concealed", ctx.rules.concealed(ctx, target, Shot(firer)))


def band_modifier(ctx: Ctx, band: str, *, quiet: bool = False) -> int:
    """The To-Hit change of a range band: point blank -1, long +1 (EG/TUS §6.1.1-§6.1.2,
    WaW85 §10.6.4-§10.6.5), recorded as a modifier."""
    change = BAND_TO_HIT[band]
    if change and not quiet:
        ctx.answer.modify("to_hit", change, f"{band.replace('_', ' ')} range",
                          ctx.rules.section(f"band_{band}"), explain=False)
    return change
