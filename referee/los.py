"""Classic line of sight (EG/TUS §7, §8.2 Smoke, §9.4 helicopters) from the hexes the line crosses.

The line itself (which hexes, which hexsides it runs along) comes from geometry
(:mod:`referee.los_board` over :mod:`referee.los_geometry`) when both units stand on the
map, or from the stated ``situation.intervening`` / ``along_hexsides`` of a rule case.
Either way it becomes one :class:`Line`: an integer code per hex (its LOS effect at
ground and hill level, what it is, whether Smoke screens it), so the rules below are
written once and a check costs a few integer tests per hex crossed.

The rules, in the order they are applied (the first that blocks is the answer's reason):

1. The terrain between (§7.1 ground level; §7.2 hill level; the Helicopter LOS Table of
   §9.4). "Terrain in the attacker or defender's hex never affects LOS" (§7.1).
2. Hexsides the string runs along (§7.3): "If the thread passes exactly down the side of
   a blocking hex ... the fire is not blocked; but if the thread passes down the side of
   two blocking hexes (i.e. splitting them), the LOS is blocked. Note that, for purposes
   of this rule, the second Rough hex, or combination of Rough hexes and hexes
   containing Wrecks is considered blocking terrain." A hex beside the run blocks as it
   would if the string passed through it; a Rough, Shattered Forest or Wreck hex beside
   it blocks when it is the second such hex of the line (the other hex beside the run,
   or one the string passes through).
3. Smoke (§8.2): a Smoke marker "blocks LOS, from any elevation, out of, into and
   through the hex, and the six adjacent hexes, for all non-adjacent units" (TUS); EG
   says "into and through" only (``Params.smoke_blocks_out_of``). The exceptions are
   units adjacent to each other ("An attacker can always attack an adjacent unit", §7.0;
   "Any adjacent unit may fire into a Smoke hex") and, in EG, the Advanced Imaging units
   (thermal sights). TUS' "out of ... the six adjacent hexes, for all non-adjacent
   units" only means something if "non-adjacent" is about the two units, not about the
   Smoke hex, which is how both books are read here. A string running along a hexside
   beside a Smoke hex passes through hexes next to it, and a string between two screened
   hexes runs between two hexes that block (§7.3).
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from referee.errors import NotStated
from referee.los_lines import (HAS_SMOKE, HAS_WRECKS, HILLS, IS_CITY, IS_HILL, IS_WOODED_HILL, IS_WOODS,
                               OFF_BOARD, SCREENED, SMOKE, UNKNOWN, WRECK_BESIDE, Line, Sight, fact_line,
                               map_view, wreck_effect)
from referee.model import HexState, Unit, need
from referee.ruleset import Ctx
from referee import situation

__all__ = ["SMOKE", "HELICOPTER_HEIGHT", "Sight", "sight", "line", "level_of", "helicopter_level", "los_height",
           "unit_blocked", "line_of_sight", "blocked", "helicopter_blocked", "smoke_screen"]

HELICOPTER_HEIGHT = {"clear": 1, "hill": 2, "woods": 2, "city": 2, "city_ruins": 2, "wooded_hill": 3}


def _line_stated(facts: Any) -> bool:
    """Does the situation state the line (a rule case) instead of leaving it to the map?"""
    stated = facts.situation
    if not stated:
        return False
    return any(stated.get(k) is not None for k in ("intervening", "crest_crossed", "along_hexsides"))


def line(ctx: Ctx, viewer: Unit, far: Unit) -> Line:
    """The line from ``viewer`` to ``far``: stated by the situation, else traced on the map."""
    facts = ctx.game.facts
    if _line_stated(facts):
        entries = list(facts.get("intervening") or ())
        sides = list(facts.get("along_hexsides") or ())
        if viewer.key != ctx.action.actor:      # seen from the other end: order reverses, ranges unknown
            entries = [{k: v for k, v in h.items() if k != "to_target"} for h in reversed(entries)]
            sides.reverse()
        return fact_line(ctx.game, ctx.tec, entries, sides,
                         (facts.get("crest_crossed"), facts.get("crest_adjacent")), viewer, far)
    hexes = ctx.game.hexes
    a, b = hexes.get(viewer.hex), hexes.get(far.hex)           # type: ignore[arg-type]
    if a is None or b is None or a.at is None or b.at is None:
        raise NotStated("situation.intervening")
    return map_view(ctx.game, ctx.tec).line(a.at, b.at)


# -- the rules ---------------------------------------------------------------------------------



def _counting(ctx: Ctx, ln: Line, shift: int, section: str, between_hill_units: bool) -> tuple[Sight | None, int, int | None]:
    """§7.1 (``shift`` 0) and §7.2 between hill-level units (``shift`` 2): one blocking hex
    blocks, and two or more that count (rough, shattered forest, wrecks)."""
    found = ln.classes(shift != 0)
    if shift and ctx.params.hill_los_counts_on_hills_only:
        # TUS §7.2 (b) "2 or more hill level shattered forest or wreck hexes": a ground-level
        # hex between two hill-level units does not count
        codes = ln.codes
        found = tuple(0 if c == 1 and not codes[ln.base + i] & IS_HILL else c
                      for c, i in zip(found, ln.shape.between))
    if 2 in found:
        return ln.source.blocks(ln.base + ln.shape.between[found.index(2)], section, between_hill_units), 0, None
    counted = found.count(1)
    if counted >= 2:
        kind = "hill-level rough/wreck hexes" if between_hill_units else "rough/wreck hexes"
        return Sight(True, section, f"{counted} {kind} block"), counted, None
    return None, counted, ln.base + ln.shape.between[found.index(4)] if 4 in found else None


def _counting_side(shift: int, counted: int, on_hills_only: bool = False) -> Callable[[int, int, int | None, bool], bool | None]:
    """§7.3 for a hex beside a run: blocking terrain blocks; a Rough/Wreck hex blocks when it
    is the second such hex of the line (the other hex beside the run, or one passed through).
    ``on_hills_only``: between hill-level units only hill-level hexes count (TUS §7.2 b)."""
    def effect_of(code: int) -> int:
        effect = code >> shift & 3
        return 0 if effect == 1 and on_hills_only and not code & IS_HILL else effect

    def blocks(code: int, other: int, to_target: int | None, own_hill: bool) -> bool | None:
        if code & UNKNOWN:
            return None
        effect = effect_of(code)
        return effect == 2 or (effect == 1 and (counted >= 1 or (not other & UNKNOWN and effect_of(other) == 1)))
    return blocks


def _run(ctx: Ctx, ln: Line, blocks: Callable[[int, int, int | None, bool], bool | None],
         own_prefix: int) -> tuple[Sight | None, int | None]:
    """§7.3: the first hexside run between two hexes that both block, if any; a run whose
    answer depends on a fact not stated is returned as unknown."""
    codes = ln.codes
    unknown = None
    for k, (first, second, position) in enumerate(ln.runs):
        a, b = codes[first], codes[second]
        far = ln.run_to_target[k] or (None, None)
        own = position <= own_prefix
        placements = [(a, b)]
        if a & WRECK_BESIDE:
            placements = [(a | HAS_WRECKS | wreck_effect(a), b), (a, b | HAS_WRECKS | wreck_effect(b))]
        if (a | b) & OFF_BOARD:            # the board's edge: one hex beside the string at most
            continue
        results = set()
        for x, y in placements:
            bx, by = blocks(x, y, far[0], own), blocks(y, x, far[1], own)
            results.add(False if bx is False or by is False else True if bx and by else None)
        if results == {True}:
            return Sight(True, "7.3", f"the LOS runs along the hexside between {ln.name(first)} and "
                         f"{ln.name(second)}: two blocking hexes"), None
        if results != {False} and unknown is None:
            unknown = second if b & UNKNOWN else first
    return None, unknown


def _hill_to_ground(ctx: Ctx, ln: Line) -> tuple[Sight | None, int | None, int]:
    """§7.2: a hill-level attacker and a ground-level target."""
    crossed, adjacent = ln.crest()
    if crossed and not adjacent:
        if adjacent is None:
            raise NotStated("situation.crest_adjacent")
        return Sight(True, "7.2", "the LOS crosses a crest line not adjacent to either unit"), None, 0
    codes = ln.codes
    own = ln.distance is not None and bool(codes[ln.origin] & IS_HILL)   # traced: the attacker's own hill is known
    own_prefix = 0 if own else -1
    unknown = None
    for number, i in enumerate(ln.between):
        code = codes[i]
        if own and code & IS_HILL:
            own_prefix = number + 1      # the attacker's own hill, up to its crest (§7.2 crest lines)
            continue
        own = False
        if code & UNKNOWN:
            unknown = i if unknown is None else unknown
            continue
        if code & IS_HILL:
            what = "wooded hill" if code & IS_WOODED_HILL else "hill"
            return Sight(True, "7.2", f"a {what} hex lies between ({ln.name(i)})"), None, own_prefix
        if code & IS_WOODS:
            if need(ln.to_target[number], "situation.intervening.to_target") <= 1:
                return Sight(True, "7.2", f"target directly behind woods ({ln.name(i)})"), None, own_prefix
        elif code & IS_CITY:
            if ctx.params.hill_los_any_city_blocks:
                return Sight(True, "7.2", f"a city lies between a hill-level attacker and a ground target "
                             f"({ln.name(i)})"), None, own_prefix
            if need(ln.to_target[number], "situation.intervening.to_target") <= 2:
                return Sight(True, "7.2", f"target one or two hexes behind a city ({ln.name(i)})"), None, own_prefix
    return None, unknown, own_prefix


def _hill_to_ground_side(ctx: Ctx) -> Callable[[int, int, int | None, bool], bool | None]:
    any_city = ctx.params.hill_los_any_city_blocks

    def blocks(code: int, other: int, to_target: int | None, own_hill: bool) -> bool | None:
        if code & UNKNOWN:
            return None
        if code & IS_HILL:
            return not own_hill
        if code & IS_WOODS:
            return None if to_target is None else to_target <= 1
        if code & IS_CITY:
            return True if any_city else None if to_target is None else to_target <= 2
        return False
    return blocks


_CLEAR_GROUND = Sight(False, "7.1", "no blocking terrain")
_CLEAR_HILLS = Sight(False, "7.2", "hill to hill: crest lines ignored")
_CLEAR_BELOW = Sight(False, "7.2", "hill to ground: nothing hides the target")


def _terrain(ctx: Ctx, ln: Line, attacker_level: int, target_level: int) -> tuple[Sight, int | None]:
    """§7.1-§7.3 for two ground units: the answer and the first cell whose terrain is not stated."""
    run_unknown = None
    if attacker_level == 0 or target_level >= 1:
        shift, section = (0, "7.1") if attacker_level == 0 else (2, "7.2")
        found, counted, unknown = _counting(ctx, ln, shift, section, attacker_level != 0)
        if found is not None:
            return found, None
        if ln.shape.runs:
            ran, run_unknown = _run(ctx, ln, _counting_side(
                shift, counted, bool(shift) and ctx.params.hill_los_counts_on_hills_only), -1)
            if ran is not None:
                return ran, None
        return _CLEAR_GROUND if attacker_level == 0 else _CLEAR_HILLS, \
            unknown if unknown is not None else run_unknown
    found, unknown, own_prefix = _hill_to_ground(ctx, ln)
    if found is not None:
        return found, None
    if ln.shape.runs:
        ran, run_unknown = _run(ctx, ln, _hill_to_ground_side(ctx), own_prefix)
        if ran is not None:
            return ran, None
    return _CLEAR_BELOW, unknown if unknown is not None else run_unknown


def _helicopter(ctx: Ctx, ln: Line, height: int, over: str | None, target_level: int) -> tuple[Sight, int | None]:
    """The Helicopter LOS Table (§9.4), read from the helicopter at ``height``."""
    codes = ln.codes
    unknown = None
    for i in ln.between:
        if codes[i] & UNKNOWN:
            unknown = i if unknown is None else unknown
        elif codes[i] & IS_WOODED_HILL:
            return Sight(True, "9.4", f"a wooded hill lies between ({ln.name(i)}; Helicopter LOS Table)"), None
    wooded = _run(ctx, ln, lambda code, other, far, own: None if code & UNKNOWN else bool(code & IS_WOODED_HILL), -1)
    if wooded[0] is not None:
        return wooded[0], None
    if target_level >= 1:
        wrecks = sum(1 for i in ln.between if codes[i] & IS_HILL and codes[i] & HAS_WRECKS)
        if height == 1 and wrecks > 1:
            return Sight(True, "9.4", "more than one Wreck on a hill between (Helicopter LOS Table)"), None
        return Sight(False, "9.4", f"helicopter at level {height} sees the hill-level target"), unknown
    for number, i in enumerate(ln.between):
        code = codes[i]
        if code & IS_WOODS and need(ln.to_target[number], "situation.intervening.to_target") <= 1:
            return Sight(True, "9.4", f"target directly behind woods ({ln.name(i)}; Helicopter LOS Table)"), None
        if code & IS_CITY and need(ln.to_target[number], "situation.intervening.to_target") <= 2:
            return Sight(True, "9.4", f"target 1-2 hexes behind a city ({ln.name(i)}; Helicopter LOS Table)"), None
        if code & IS_HILL:
            if over in HILLS:
                raise NotStated("whether the hill between is the hill the helicopter is over")
            return Sight(True, "9.4", f"a hill lies between ({ln.name(i)}; Helicopter LOS Table)"), None
    ran, run_unknown = _run(ctx, ln, _helicopter_side(over), -1)
    if ran is not None:
        return ran, None
    return Sight(False, "9.4", f"helicopter at level {height}: nothing hides the ground target"), \
        unknown if unknown is not None else run_unknown


def _helicopter_side(over: str | None) -> Callable[[int, int, int | None, bool], bool | None]:
    def blocks(code: int, other: int, to_target: int | None, own_hill: bool) -> bool | None:
        if code & UNKNOWN:
            return None
        if code & IS_WOODED_HILL:
            return True
        if code & IS_HILL:
            return None if over in HILLS else True
        if code & IS_WOODS:
            return None if to_target is None else to_target <= 1
        if code & IS_CITY:
            return None if to_target is None else to_target <= 2
        return False
    return blocks


def _thermal(ctx: Ctx, unit: Unit) -> bool:
    """EG §8.2: the Advanced Imaging units see through Smoke."""
    return unit.name in ctx.params.thermal_units or "thermal" in unit.type.abilities


def _smoke(ctx: Ctx, ln: Line, attacker: Unit, target: Unit, from_attacker: bool) -> Sight | None:
    """§8.2 over the line: the first hex the Smoke screens, or a run beside it; ``None`` when
    nothing is screened, the units are adjacent or the attacker has thermal sights."""
    if not ln.smoky:
        return None
    codes = ln.codes
    found: tuple[str, int] | None = None
    for i in ln.between:
        if codes[i] & SCREENED:
            found = ("through", i)
            break
    into, out_of = (ln.target, ln.origin) if from_attacker else (ln.origin, ln.target)
    if found is None and codes[into] & SCREENED:
        found = ("into", into)
    if found is None and ctx.params.smoke_blocks_out_of and codes[out_of] & SCREENED:
        found = ("out of", out_of)
    text = None
    if found is not None:
        how, i = found
        source = ln.smoke_near(i)
        text = f"Smoke blocks the LOS {how} {ln.name(i) or 'a hex between'}" + \
            (f", next to the Smoke in {source}" if source else "")
    else:
        for first, second, _ in ln.runs:
            a, b = codes[first], codes[second]
            if (a | b) & HAS_SMOKE:
                text = (f"Smoke in {ln.name(first if a & HAS_SMOKE else second)} beside the hexside the LOS runs "
                        "along: the hexes it passes there are next to it")
                break
            if a & b & SCREENED:
                text = f"the LOS runs between {ln.name(first)} and {ln.name(second)}, both screened by Smoke"
                break
    if text is None or _thermal(ctx, attacker):
        return None
    if not ln.shape.between:                      # nothing between: are the units adjacent?
        adjacent = ln.distance <= 1 if ln.distance is not None else _stated_adjacent(ctx, attacker, target)
        if adjacent is None:
            raise NotStated(f"units.{target.key}.distance")
        if adjacent:
            return None
    return Sight(True, "8.2", text)


_SAME_HEX = Sight(False, "7.0", "same hex")
_ADJACENT = Sight(False, "7.0", "an attacker can always attack an adjacent unit")


def sight(ctx: Ctx, attacker: Unit, target: Unit) -> Sight:
    """The LOS from ``attacker`` to ``target``: the Helicopter LOS Table when one of them flies
    (read from the helicopter, as LOS is reciprocal), §7.1-§7.3 otherwise; then Smoke (§8.2).
    Adjacent units always see each other (§7.0); so do units in the same hex."""
    if attacker.hex is not None and attacker.hex == target.hex:
        return _SAME_HEX
    game = ctx.game
    hexes = game.hexes
    here, there = hexes.get(attacker.hex), hexes.get(target.hex)    # type: ignore[arg-type]
    flying = attacker.type.target_type == "helicopter" or target.type.target_type == "helicopter"
    mapped = here is not None and there is not None and here.at is not None and there.at is not None
    if mapped:
        dq, dr = there.at.q - here.at.q, there.at.r - here.at.r
        # 0 for the same place, 1 for the six neighbours, 3 or more beyond (no range needed).
        near: int | None = dq * dq + dq * dr + dr * dr
    else:
        near = _stated_range(ctx, attacker, target)
    if near is not None and near <= 1:
        return _ADJACENT if near else _SAME_HEX
    if mapped and not flying and not (game.facts.situation and _line_stated(game.facts)):
        # Two ground units on the map: the string traced on the board (most checks).
        view = map_view(game, ctx.rules.tec)
        ln = view.line(here.at, there.at, view.cells.get(here.id))    # type: ignore[union-attr]
        found, unknown = _terrain(ctx, ln, _level(ctx, attacker, here), _level(ctx, target, there))
        return found if found.blocked else _finish(ctx, ln, found, unknown, attacker, target, True)
    if flying:
        for flier, other in ((attacker, target), (target, attacker)):
            if flier.type.target_type == "helicopter" and other.type.target_type != "helicopter":
                ln = line(ctx, flier, other)
                over = ctx.game.hex(flier.hex).terrain if flier.hex else None
                found, unknown = _helicopter(ctx, ln, helicopter_level(ctx, flier), over, level_of(ctx, other))
                return _finish(ctx, ln, found, unknown, attacker, target, flier is attacker)
    ln = line(ctx, attacker, target)
    found, unknown = _terrain(ctx, ln, _level(ctx, attacker, here), _level(ctx, target, there))
    if found.blocked:
        return found
    return _finish(ctx, ln, found, unknown, attacker, target, True)


def _finish(ctx: Ctx, ln: Line, found: Sight, unknown: int | None, attacker: Unit, target: Unit,
            from_attacker: bool) -> Sight:
    """Terrain first, then Smoke; a clear answer that rests on a hex not stated is a gap."""
    if found.blocked:
        return found
    if ln.smoky:
        screened = _smoke(ctx, ln, attacker, target, from_attacker)
        if screened is not None:
            return screened
    if unknown is not None:
        raise NotStated(ln.unknown(unknown))
    return found


def _stated_range(ctx: Ctx, attacker: Unit, target: Unit) -> int | None:
    """The range a situation states between the two units (relations are stated from the
    action's reference unit), if any."""
    for unit in (target, attacker):
        relation = ctx.game.facts.relation(unit.key)
        if relation.distance is not None:
            return relation.distance
        if relation.adjacent:
            return 1
    return None


def _stated_adjacent(ctx: Ctx, attacker: Unit, target: Unit) -> bool | None:
    """Whether the situation states the two units adjacent, not adjacent, or neither."""
    distance = _stated_range(ctx, attacker, target)
    if distance is not None:
        return distance <= 1
    for unit in (target, attacker):
        if ctx.game.facts.relation(unit.key).adjacent is not None:
            return ctx.game.facts.relation(unit.key).adjacent
    return None


def _adjacent_range(ctx: Ctx, attacker: Unit, target: Unit) -> int | None:
    """The range when both units stand on the map, or is stated; else ``None``."""
    if attacker.hex is not None and attacker.hex == target.hex:
        return 0
    apart = situation.hexes_apart(ctx.game, attacker.hex, target.hex)
    return apart if apart is not None else _stated_range(ctx, attacker, target)


# -- levels ------------------------------------------------------------------------------------

def level_of(ctx: Ctx, unit: Unit) -> int:
    """Classic LOS level (§7): stated, else 1 on a hill or wooded hill, 0 elsewhere;
    helicopters per the Helicopter LOS Table."""
    return _level(ctx, unit, ctx.game.hexes.get(unit.hex) if unit.hex else None)


def _level(ctx: Ctx, unit: Unit, hex_state: HexState | None) -> int:
    """:func:`level_of` for a unit whose hex (``None``: not on the map) is at hand."""
    if unit.type.target_type == "helicopter":
        return helicopter_level(ctx, unit)
    if unit.level is not None:
        return unit.level
    if hex_state is not None and hex_state.level is not None:
        return hex_state.level
    if hex_state is None or hex_state.terrain is None:
        raise NotStated(f"units.{unit.key}.level")
    return 1 if hex_state.terrain in HILLS else 0


def helicopter_level(ctx: Ctx, unit: Unit) -> int:
    """§9.4 Helicopter LOS Table: one level above the terrain below."""
    if unit.level is not None:
        height = unit.level
    else:
        terrain = ctx.game.hex(unit.hex).terrain if unit.hex else None
        terrain = need(terrain, f"hexes.{unit.hex}.terrain")
        height = HELICOPTER_HEIGHT.get(terrain, 1)
    if ctx.action.choice == "pop_up" and unit.mode == "hovering":
        ctx.params.require("popup", "001 §9.2.1")
        height += 1
    return height


def los_height(ctx: Ctx) -> None:
    """The ``los_height`` procedure: the unit's LOS level."""
    unit = ctx.unit(ctx.action.actor)
    ctx.answer.unit(unit.key, level=level_of(ctx, unit))


# -- the procedure and its entry points --------------------------------------------------------

def unit_blocked(ctx: Ctx, attacker: Unit, target: Unit) -> tuple[bool, str]:
    """Is the LOS from ``attacker`` to ``target`` blocked, and why, the deciding section in
    brackets (the caller cites its own rule after it)? What fire and movement ask;
    :func:`sight` is the same answer with its parts apart."""
    found = sight(ctx, attacker, target)
    return found.blocked, f"{found.text} (§{found.section})"


def in_sight(ctx: Ctx, viewer: Unit, target: Unit) -> bool:
    """§7: is the line of sight from ``viewer`` to ``target`` clear? (The classic books'
    :meth:`referee.ruleset.Ruleset.in_sight`.)"""
    return not sight(ctx, viewer, target).blocked


def line_of_sight(ctx: Ctx) -> None:
    """§7: is the line of sight from the actor to the target blocked?"""
    attacker = ctx.unit(ctx.action.actor)
    target = ctx.unit(ctx.action.target if isinstance(ctx.action.target, str) else None, "target")
    found = sight(ctx, attacker, target)
    ctx.answer.set("blocked", found.blocked)
    ctx.answer.because(found.section, found.text)


def blocked(ctx: Ctx, attacker_level: int, target_level: int, intervening: list[Mapping[str, Any]],
            crest: tuple[bool | None, bool | None] = (None, None)) -> tuple[bool, str]:
    """§7.1/§7.2 over stated intervening hexes (in order from the attacker); ``crest`` is (a
    crest line is crossed, the attacker or target is adjacent to it). Returns (blocked, why)."""
    found, unknown = _terrain(ctx, fact_line(ctx.game, ctx.tec, intervening, (), crest, None, None), attacker_level, target_level)
    return found.blocked, f"{found.text} (§{found.section})"


def helicopter_blocked(ctx: Ctx, height: int, over: str | None, target_level: int,
                       intervening: list[Mapping[str, Any]]) -> tuple[bool, str]:
    """The Helicopter LOS Table (§9.4) over stated intervening hexes, read from the helicopter."""
    found, _ = _helicopter(ctx, fact_line(ctx.game, ctx.tec, intervening, (), (None, None), None, None), height, over, target_level)
    return found.blocked, f"{found.text} (§{found.section})"


def smoke_screen(ctx: Ctx, attacker: Unit, target: Unit, intervening: list[Mapping[str, Any]] | None = None,
                 *, thermal_sees: bool = True) -> str | None:
    """§8.2 alone: why Smoke screens the LOS from ``attacker`` to ``target``, or None;
    ``thermal_sees=False`` asks whether it would screen a unit without thermal sights
    (what a thermal unit fires through, EG §8.2)."""
    if (_adjacent_range(ctx, attacker, target) or 2) <= 1:
        return None
    viewer = attacker
    if not thermal_sees and _thermal(ctx, attacker):
        from dataclasses import replace
        viewer = replace(attacker, type=replace(attacker.type, name="", abilities=attacker.type.abilities - {"thermal"}))
    found = _smoke(ctx, line(ctx, attacker, target), viewer, target, True)
    return f"{found.text} (§{found.section})" if found else None
