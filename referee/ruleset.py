"""The shared frame of a ruleset: parameters, the procedure context, check and resolve.

A ruleset is a table of procedures (one function per action kind, from the shared
mechanics modules) plus :class:`Params`: every difference between rulesets or between
the two classic books is a parameter here or a small override in the table, never a
copied procedure.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol

from referee.actions import Action
from referee.books import book as book_named, citation
from referee.errors import NotStated, NotSupported, RefereeError
from referee.events import UnitMoved, apply_all, move_with_riders
from referee.model import Game, Unit, need
from referee.tec import Tec, load_tec
from referee.verdict import Answer


class Dice(Protocol):
    """What procedures need from a dice source (``referee.dice`` sources fit)."""

    def roll(self, n: int, label: str) -> list[int]: ...


def answers_not_supported(procedure: Procedure) -> Procedure:
    """Mark ``procedure`` as one that only answers "not supported" (a rule of another book, a
    table printed only on a player aid card), so listings do not offer it as implemented."""
    procedure.not_supported = True       # type: ignore[attr-defined]
    return procedure


@dataclass(frozen=True)
class Params:
    """Everything that differs between rulesets and books, by name."""

    ruleset: str
    book: str | None = None
    tec: str = "classic"
    features: frozenset[str] = frozenset()
    hard_db_cap: int = 2                          # §6.1.6
    soft_save: int = 5                            # §6.1
    unarmored_ap_hit_reduces: bool = False        # 001 §1.3.3.2
    mines_disrupt_on: str = "even"                # 002 §8.3 even / 001 §12.2 odd
    #: 001 §12.2: mines attack "any unit that enters (or helicopter that lands in)" a hex; 002
    #: §8.3 "All units entering that hex" names no exception (classic-eg-mines-and-a-flying-helicopter).
    mines_spare_flying_helicopters: bool = False
    hill_los_any_city_blocks: bool = False        # 002 §7.2 last paragraph
    #: TUS §7.2 (b): between hill-level units only "hill level shattered forest or wreck hexes"
    #: count; EG §7.2 (b) "two or more rough-terrain hexes or Wreck hexes" names no level.
    hill_los_counts_on_hills_only: bool = False
    #: §9.3: the non-AA Firepower that may not fire at a Flying helicopter when its range is
    #: underlined: TUS "Non-anti-aircraft units with an underlined range" (any), EG "cannot
    #: attack Flying helicopters with AP Firepower" (AP only).
    flying_helicopter_underlined_bars: frozenset[str] = frozenset({"ap", "he"})
    max_bonus_attack_dice: int | None = None      # 001 §1.3.6
    moving_fire: Mapping[str, tuple[int, int]] = field(default_factory=dict)   # level -> (to-hit, FP)
    moving_fire_units: Mapping[str, str] = field(default_factory=dict)      # counter name -> level
    thermal_units: frozenset[str] = frozenset()                             # 002 §8.2
    helicopter_moving_fire_hexes: int = 12        # §6.1.3.1
    #: Helicopters that may fire after moving, by words of their counter names; None = every
    #: helicopter (TUS §6.1.3.1). EG §6.1.3 / §9.2: only the Hind and the Cobra.
    moving_fire_helicopters: frozenset[str] | None = None
    road_bonus_units: frozenset[str] = frozenset()  # 001 §1.3.1.1 CDO MC
    no_transport_units: frozenset[str] = frozenset()
    #: Support Weapons removed once fired (TUS §1.3.5.2 the KASTET).
    single_shot_units: frozenset[str] = frozenset()
    #: Gun-launched ATGMs, by SW name (upper case): fired only by a tank not moving, in Good
    #: Order and not Ops Complete, and removed when they score no hit (TUS §1.3.5.1 the Songster).
    gun_launched_atgms: frozenset[str] = frozenset()
    #: Support Weapons only some counters may use, by SW name (upper case) -> the holders'
    #: names (TUS §1.3.4.2 "The Kastet SW may only be used by the T-12 ATG, and the Heat-FS
    #: support weapon can only be used by the 2S1"; §1.3.5.1 the Songster of the T-80 and T-64).
    support_weapon_users: Mapping[str, frozenset[str]] = field(default_factory=dict)
    #: 001 §6.1.7: a Disrupted unit retreating from an adjacent enemy may not come closer to
    #: any enemy in its LOS (True); 002 §6.1.7: it "may retreat away from the enemy until it
    #: leaves that unit's LOS", bound only by the enemies it retreats from until then (False).
    disrupted_retreat_any_enemy: bool = True
    #: Firepower whose underlined range makes a classic unit missile-firing (§6.1.4): TUS "any
    #: units with an underlined range factor that are not mortars (1.3.4.3) or on map artillery
    #: (8.6)"; EG "any units with an underlined AP or AA (9.3) range value on their counter".
    missile_range_weapons: frozenset[str] = frozenset({"ap", "he", "aa"})
    #: WaW85 §10.8.2: a Disrupted unit adjacent to an enemy "must remain where it is" (True);
    #: the classic §6.1.7 lets it retreat away (False).
    disrupted_adjacent_stays: bool = False
    #: WaW85 §10.8.2: "If not currently in an enemy unit's LOS, it must stop immediately upon
    #: entering a hex in LOS of an enemy unit"; the classic §6.1.7 has no such stop.
    disrupted_stops_in_los: bool = False
    #: Who an HQ on the map must stand with: "a unit or units of its formation" (EG/TUS
    #: §1.3.3.1, True) or "a friendly unit" (WaW85 §7.2.2, False).
    hq_needs_own_formation: bool = True
    #: Does an HQ deployed to a unit go wherever the unit goes (:meth:`Game.riders`)? WaW85
    #: §9.2: HQs "are stacked immediately on top of the unit to which they are deployed"
    #: (True); EG/TUS §1.3.3.1: HQs "may only move when accompanied by a unit or units of
    #: its formation" and "can move normally with the units with which they are stacked":
    #: one goes only when it is moved with them (False).
    deployed_hq_rides: bool = True
    #: §6.4: no hex is overrun twice by one AFV in the same "impulse" (001) / "turn" (002).
    overrun_repeat_scope: str = "impulse"
    #: §8.2: Smoke blocks LOS "out of, into and through" its hex and six neighbours (001) or
    #: only "into and through" them (002): may a unit in a neighbouring hex see out?
    smoke_blocks_out_of: bool = True
    #: §8.0: who calls fire missions: "the active Formation's HQ, recon unit, or leader" (001)
    #: or "An HQ" only (002); mortars take an HQ or recon spotter in both (§1.3.4.3).
    recon_calls_missions: bool = True
    #: WaW85 §13.2.2 "A retreating unit ... A unit unable to retreat is eliminated": each unit of
    #: a defending stack retreats on its own (True); EG/TUS §6.3 speak of "the defender" only,
    #: so a stack that no hex takes whole but whose units one by one could go is not judged (False).
    retreat_unit_by_unit: bool = False
    #: TUS §12.1 names no exception; WaW85 §16.1: "Helicopters in any mode may not benefit".
    helicopters_use_improved_positions: bool = True
    #: Unit types that cannot be attacked directly: HQs (EG/TUS §1.3.3.2), and Leaders too
    #: in WaW85 (§10.7.2).
    untargetable: frozenset[str] = frozenset({"hq"})
    #: Unit types a Disrupted result never sticks to: "HQs cannot be disrupted" (EG/TUS §1.3.3.2).
    undisruptable: frozenset[str] = frozenset()
    #: TUS §6.3: "Each side can stack up to the stacking limit" in an Assault; EG §6.3 lets
    #: each side exceed it (None).
    assault_side_limit: int | None = None
    #: Fire missions only one side, or one nation, may call: Chemical the Warsaw Pact (001 §8.4,
    #: 002 §8.4 "Only the Soviets"), FASCAM only the Americans (002 §8.3; 001 §8.3 names no side).
    mission_sides: Mapping[str, str] = field(default_factory=dict)
    mission_nations: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def has(self, feature: str) -> bool:
        return feature in self.features

    def require(self, feature: str, section: str) -> None:
        """Refuse a rule the active book does not have (e.g. leaders in Eisenbach Gap),
        citing the book that has it (``"001 §1.3.6"`` -> ``TUS §1.3.6``)."""
        if feature not in self.features:
            raise NotSupported(citation(book_named(self.book), section),
                               f"{feature} is not a rule of {self.book or self.ruleset}")


@dataclass
class Ctx:
    """One procedure run: the ruleset, the position, the action, the dice, the answer."""

    rules: "Ruleset"
    game: Game
    action: Action
    dice: Any
    answer: Answer

    @property
    def params(self) -> Params:
        return self.rules.params

    @property
    def tec(self) -> Tec:
        return self.rules.tec

    def probe(self, game: Game | None = None) -> "Ctx":
        """The same run on another position and without dice: for a question a procedure
        asks on the way (would this hex be in the enemy's LOS?), never rolling."""
        return Ctx(self.rules, game if game is not None else self.game, self.action, None, self.answer)

    def unit(self, key: str | None, what: str = "unit") -> Unit:
        if key is None:
            raise NotStated(f"query.{what}")
        return self.game.unit(key)

    def given_hits(self, target: str | None) -> int | None:
        """``query.hits`` as the hits scored on ``target`` (an int, or that unit's entry)."""
        hits = self.action.hits
        if hits is None or isinstance(hits, int):
            return hits
        if target is None or target not in hits:
            raise NotStated(f"query.hits.{target}")
        return int(hits[target])

    def roll(self, n: int, label: str) -> list[int]:
        """Roll ``n`` d6 for ``label`` and record them; no dice source -> not stated."""
        if n == 0:
            return []
        if self.dice is None:
            raise NotStated(f"dice.{label}")
        values = list(self.dice.roll(n, label))
        self.answer.rolls.append((label, values))
        return values

    def has_dice(self, label: str) -> bool:
        """Whether the dice source has dice for ``label``: a rule case lists only the rolls
        that are part of it; every other source rolls whatever is asked."""
        if self.dice is None:
            return False
        lacks = getattr(self.dice, "lacks", None)
        return not (lacks is not None and lacks(label))

    def check_2d6(self, target: int, modifier: int, section: str, what: str = "morale check",
                  label: str = "2d6") -> bool:
        """The one success roll on two dice of every book: 2d6 plus ``modifier`` at or under
        ``target`` passes (EG/TUS §1.6 Morale; WaW85 §7.2.4 Morale/Training). Records the
        modified roll, the number rolled against and whether it passed."""
        roll = self.roll_2d6(label)
        total = roll + modifier
        passed = total <= target
        self.answer.set("modified_roll", total)
        self.answer.set("target_number", target)
        self.answer.because(section, f"{what} 2d6 = {roll}{modifier:+d} = {total} vs {target}: "
                            + ("passed" if passed else "failed"))
        return passed

    def roll_2d6(self, label: str = "2d6") -> int:
        """A 2d6 total (a source may give totals directly, as rule cases do)."""
        if self.dice is None:
            raise NotStated(f"dice.{label}")
        if hasattr(self.dice, "roll_total"):
            total = int(self.dice.roll_total(2, label))
            self.answer.rolls.append((label, [total]))
            return total
        return sum(self.roll(2, label))

    def stage(self, fields: str | tuple[str, ...], step: Callable[[], Any]) -> Any:
        """Run one step; if a fact is missing, the listed result fields become gaps."""
        try:
            return step()
        except (NotStated, NotSupported) as missing:
            self.answer.gap(fields, str(missing))
            return None

    def emit(self, *events: Any) -> None:
        self.answer.events.extend(events)

    def riders(self, key: str) -> list[Unit]:
        """The counters that go wherever ``key`` goes (:meth:`Game.riders`), an HQ deployed with
        it among them as this book says (:attr:`Params.deployed_hq_rides`)."""
        return self.game.riders(key, deployed_hqs=self.params.deployed_hq_rides)

    def moves(self, key: str, hex_id: str | None) -> list[UnitMoved]:
        """``key`` moving to ``hex_id`` with its riders (:func:`referee.events.move_with_riders`)."""
        return move_with_riders(self.game, key, hex_id, deployed_hqs=self.params.deployed_hq_rides)

    @property
    def after(self) -> Game:
        """The game with this answer's events applied so far."""
        return apply_all(self.game, self.answer.events)


Procedure = Callable[[Ctx], None]


class Ruleset:
    """One rulebook's referee: the shared procedures, read with this book's parameters and
    the hooks its subclass overrides (as a chess variant overrides a few methods of one
    board). ``check`` answers without dice; ``resolve`` rolls."""

    def __init__(self, params: Params, procedures: Mapping[str, Procedure]) -> None:
        self.params = params
        self.procedures = dict(procedures)
        self.tec = load_tec(params.tec)
        self.book = book_named(params.book)

    @property
    def name(self) -> str:
        return self.params.book or self.params.ruleset

    def supports(self, kind: str) -> bool:
        """Does this ruleset take actions of ``kind`` (perhaps only to answer "not supported")?"""
        return kind in self.procedures

    def implements(self, kind: str) -> bool:
        """Does this ruleset judge ``kind`` by a rule of its book (not only answer "not supported")?"""
        return kind in self.procedures and not getattr(self.procedures[kind], "not_supported", False)

    def cite(self, section: str) -> str:
        """``section`` as this ruleset's book cites it (``"6.3"`` -> ``"EG §6.3"``)."""
        return citation(self.book, section)

    #: Rule topics the shared procedures cite, and where this book states each one.
    SECTIONS: Mapping[str, str] = {}

    def section(self, topic: str) -> str:
        """The section of this ruleset's book that states ``topic`` (``"assault"`` -> ``"6.3"``)."""
        try:
            return self.SECTIONS[topic]
        except KeyError:
            raise RefereeError(f"{self.name} names no section for the rule {topic!r}") from None

    # -- hooks: the steps of the shared procedures that a book words its own way --------
    # Each subclass gives every hook; see referee.fire and referee.defence for where each
    # is called. They are methods so that a book overrides a step, never a procedure.

    def choose_weapon(self, ctx: Ctx, actor: Unit, target: Unit | None, kind: str) -> str | None:
        """The Firepower the attack uses (``ap``, ``he``, ``aa``)."""
        raise NotSupported(self.name, "choosing a Firepower")

    def fire_restrictions(self, ctx: Ctx, actor: Unit, attack: Any) -> None:
        """What stops this firer besides the shared status rules (helicopter modes...)."""

    def may_attack(self, ctx: Ctx, actor: Unit, target: Unit, attack: Any) -> None:
        """May this Firepower attack that target at all."""

    def fire_modifiers(self, ctx: Ctx, actor: Unit, target: Unit | None, attack: Any) -> None:
        """The modifiers to To-Hit and FP before the range band."""

    def sight(self, ctx: Ctx, actor: Unit, target: Unit, attack: Any) -> None:
        """Refuse the attack when the line of sight is blocked."""

    def in_sight(self, ctx: Ctx, viewer: Unit, target: Unit) -> bool:
        """Is the line of sight from ``viewer`` to ``target`` clear (the book's LOS procedure,
        on the map where ``ctx.game`` has the hexes)? What a Disrupted move asks."""
        raise NotSupported(self.name, "line of sight between units")

    def bands(self, ctx: Ctx, actor: Unit, target: Unit | None, attack: Any) -> Any:
        """The range bands of the Firepower against the target (a :class:`referee.ranges.Bands`)."""
        raise NotSupported(self.name, "range bands")

    def range_checks(self, ctx: Ctx, attack: Any, distance: int) -> None:
        """Rules on the distance beyond the bands (a minimum range, the night limit)."""

    def band_not_stated(self, ctx: Ctx, target: Unit | None) -> str | None:
        """Neither the range nor the band is stated, nor can it be counted on a map: ``None``,
        the attack judged with no range modifier (``referee.fire.numbers_without_band``). A fact a position
        leaves out is one its question does not turn on (the rule cases' convention, FORMAT.md):
        a book's example of a Hind firing "four dice, each hits on five or higher" is a shot at
        a range that changes nothing. A range that does matter is stated, and then judged."""
        return None

    def band_to_hit(self, ctx: Ctx, attack: Any, band: str, *, quiet: bool = False) -> int:
        """The To-Hit change of the band."""
        raise NotSupported(self.name, "range band modifiers")

    def final_to_hit(self, ctx: Ctx, attack: Any, band_mod: int, *, explain: bool) -> int:
        raise NotSupported(self.name, "the final To-Hit")

    def final_fp(self, ctx: Ctx, attack: Any, band_mod: int) -> int:
        raise NotSupported(self.name, "the final FP")

    def cas_numbers(self, ctx: Ctx, attack: Any) -> None:
        raise NotSupported(self.name, "Close Air Support attacks")

    def after_fire_checks(self, ctx: Ctx, actor: Unit, attack: Any) -> None:
        """Anything decided once the attack's numbers are known (a Hallowed Ground reroll)."""

    def on_legal_fire(self, ctx: Ctx, actor: Unit, attack: Any) -> None:
        """What a legal attack settles before the dice (Support Weapons that fire with it)."""

    def attack_cancelled(self, ctx: Ctx, actor: Unit, attack: Any) -> bool:
        """Whether a legal attack is cancelled before its dice (WaW85 §16.6.1: a failed Night
        Targeting Check)."""
        return False

    def opportunity_checks(self, ctx: Ctx) -> None:
        """What Opportunity Fire needs beyond Direct Fire."""

    def opportunity_before_moving_fire(self, ctx: Ctx) -> None:
        """Whether Opportunity Fire at a mover comes before its fire after moving, and the
        ``order`` of the two (EG/TUS §6.2 "Opportunity Fire occurs before Moving Fire")."""

    def after_attack_roll(self, ctx: Ctx, actor: Unit, attack: Any, hits: int) -> None:
        """What the attack dice decide for the firer (missile depletion)."""

    def stated_hits(self, ctx: Ctx, target: Unit) -> int:
        """``query.hits`` as the hits scored on ``target``."""
        hits = ctx.given_hits(target.key)
        return need(hits, "query.hits")

    def rolls_defence(self, target: Unit, attack: Any) -> bool:
        """Whether the target rolls a defence against this attack."""
        return True

    def fire_results(self, ctx: Ctx, target: Unit, hits: int, attack: Any) -> list[str]:
        """Apply the net hits and their knock-ons; returns the units the attack hit."""
        raise NotSupported(self.name, "combat results")

    def aftermath(self, ctx: Ctx, attacked: list[str]) -> None:
        """Every knock-on of one attack (Wrecks, passengers, HQs and leaders...)."""
        raise NotSupported(self.name, "the aftermath of an attack")

    def armor_and_save(self, ctx: Ctx, target: Unit, shot: Any) -> tuple[int, int]:
        raise NotSupported(self.name, "armor and save")

    def terrain_db(self, ctx: Ctx, target: Unit, shot: Any) -> tuple[int, str]:
        raise NotSupported(self.name, "the terrain's Defensive Bonus")

    def concealed(self, ctx: Ctx, target: Unit, shot: Any) -> bool:
        raise NotSupported(self.name, "concealment")

    def extra_db(self, ctx: Ctx, target: Unit, shot: Any) -> list[tuple[int, str]]:
        """Defensive Bonus dice beyond terrain and concealment, each with why."""
        return []

    def assault_attackers(self, ctx: Ctx, attackers: list[Unit]) -> list[Unit]:
        """The units that enter the assaulted hex (WaW85: Passengers unloading into it)."""
        return attackers

    def assault_entry(self, ctx: Ctx, attackers: list[Unit], hex_id: str | None) -> list[Unit]:
        """The attackers that enter the assaulted hex and fight (WaW85: those its Minefield
        does not turn back, §16.2)."""
        return attackers

    def assault_defenders(self, ctx: Ctx, named: list[Unit]) -> list[Unit]:
        """The defenders of an Assault or Overrun on the units ``named`` (classic: every unit
        of their hex, EG/TUS §6.3 "units occupying the hex are called the defenders")."""
        return named

    def may_be_assaulted(self, ctx: Ctx, defender: Unit) -> None:
        """Refuse an Assault on a unit that cannot be assaulted (a flying helicopter)."""

    def above_the_assault(self, ctx: Ctx, unit: Unit) -> str | None:
        """Why a unit in the assaulted hex is out of the Assault's reach (a helicopter flying
        above the ground units), or ``None``: such a unit is no defender of the hex."""
        return None

    def may_fight(self, ctx: Ctx, unit: Unit, foes: list[Unit], *, attacking: bool) -> bool:
        raise NotSupported(self.name, "who may fight in an Assault")

    def assault_numbers(self, ctx: Ctx, unit: Unit, foes: list[Unit], hex_id: str | None, *,
                        attacking: bool) -> Any:
        raise NotSupported(self.name, "Assault dice")

    def assault_stated_hits(self, ctx: Ctx) -> Any:
        return ctx.action.hits

    def retreat_hexes(self, ctx: Ctx, defenders: list[Unit], attackers: list[Unit], came_from: Any) -> list[str]:
        raise NotSupported(self.name, "retreat hexes")

    def retreat_check(self, ctx: Ctx) -> None:
        raise NotSupported(self.name, "retreats")

    def stated_retreat_hexes(self, ctx: Ctx, units: list[Unit]) -> list[str] | None:
        """The hexes whose stated retreat facts (``away_from_attacker``, ``enemy_units``,
        ``friendly_units``) let ``units`` retreat into them together, when no map says;
        ``None`` when this book does not read them or no hex states them."""
        return None

    def assault_entry_cost(self, ctx: Ctx, unit: Unit, hex_id: str) -> int | None:
        """The MP an attacker pays to enter the assaulted hex, if this book prices it here."""
        return None

    def out_of_command(self, ctx: Ctx, unit: Unit) -> bool:
        """Whether an Out of Command marker stops the unit's Actions (a book may exempt units)."""
        return bool(unit.status.out_of_command)

    def cannot_assault(self, unit: Unit) -> bool:
        """Whether the unit may never make an Assault (a helicopter, an aircraft)."""
        return unit.type.target_type in ("helicopter", "aircraft")

    def counterattack_values(self, unit: Unit) -> Any:
        """The values a unit without an Assault Factor counterattacks with, if any."""
        return None

    def fire_mission(self, ctx: Ctx) -> Any:
        """Who fires and calls an indirect fire mission, the mission and its numbers (a
        :class:`referee.artillery.Strike`), or None when it cannot go ahead."""
        raise NotSupported(self.name, "indirect fire")

    def accuracy(self, ctx: Ctx, strike: Any) -> str | None:
        """Where the mission lands after the book's accuracy roll (None: cancelled)."""
        raise NotSupported(self.name, "the accuracy roll")

    def strike(self, ctx: Ctx, strike: Any, hex_id: str) -> None:
        """The mission's effect in the hex it landed in."""
        raise NotSupported(self.name, "the effect of a fire mission")

    def is_armored(self, unit: Unit) -> bool:
        """Whether the unit's Defensive Bonus is capped (an armored target)."""
        raise NotSupported(self.name, "armored targets")

    def check(self, game: Game, action: Action) -> Answer:
        """Legality, modifiers and everything that needs no dice (the events listed are
        the ones that follow whatever the dice say, e.g. Ops Complete on the firer)."""
        return self.resolve(game, action, None)

    def resolve(self, game: Game, action: Action, dice: Any) -> Answer:
        """The preconditions of the action (:mod:`referee.preconditions`), then its
        procedure: every roll, the events and the results. An action the preconditions
        refuse is still worked out (what it would roll) but never rolls a die. Missing
        facts become gaps, never guesses."""
        from referee import preconditions
        answer = Answer(action.kind, self.book)
        procedure = self.procedures.get(action.kind)
        if procedure is None:
            answer.gap("*", f"not supported: {action.kind} is not a procedure of {self.name}")
            return answer
        ctx = Ctx(self, game, action, dice, answer)
        try:
            preconditions.check(ctx)
            if answer.legal is False:
                ctx.dice = None
            procedure(ctx)
        except (NotStated, NotSupported) as missing:
            answer.gap("*", str(missing))
        return answer
