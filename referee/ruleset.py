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
from referee.events import apply_all
from referee.model import Game, Unit
from referee.tec import Tec, load_tec
from referee.verdict import Answer


class Dice(Protocol):
    """What procedures need from a dice source (``referee.dice`` sources fit)."""

    def roll(self, n: int, label: str) -> list[int]: ...


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
    hill_los_any_city_blocks: bool = False        # 002 §7.2 last paragraph
    max_bonus_attack_dice: int | None = None      # 001 §1.3.6
    moving_fire: Mapping[str, tuple[int, int]] = field(default_factory=dict)   # level -> (to-hit, FP)
    moving_fire_units: Mapping[str, str] = field(default_factory=dict)      # counter name -> level
    thermal_units: frozenset[str] = frozenset()                             # 002 §8.2
    helicopter_moving_fire_hexes: int = 12        # §6.1.3.1
    road_bonus_units: frozenset[str] = frozenset()  # 001 §1.3.1.1 CDO MC
    no_transport_units: frozenset[str] = frozenset()
    #: 001 §6.1.7: a Disrupted unit retreating from an adjacent enemy may not come closer to
    #: any enemy in its LOS (True); 002 §6.1.7: it "may retreat away from the enemy until it
    #: leaves that unit's LOS", bound only by the enemies it retreats from until then (False).
    disrupted_retreat_any_enemy: bool = True
    #: §6.4: no hex is overrun twice by one AFV in the same "impulse" (001) / "turn" (002).
    overrun_repeat_scope: str = "impulse"
    #: §8.2: Smoke blocks LOS "out of, into and through" its hex and six neighbours (001) or
    #: only "into and through" them (002): may a unit in a neighbouring hex see out?
    smoke_blocks_out_of: bool = True
    #: §8.0: who calls fire missions: "the active Formation's HQ, recon unit, or leader" (001)
    #: or "An HQ" only (002); mortars take an HQ or recon spotter in both (§1.3.4.3).
    recon_calls_missions: bool = True

    def has(self, feature: str) -> bool:
        return feature in self.features

    def require(self, feature: str, section: str) -> None:
        """Refuse a rule the active book does not have (e.g. leaders in Eisenbach Gap)."""
        if feature not in self.features:
            raise NotSupported(section, f"{feature} is not a rule of {self.book or self.ruleset}")


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
        return kind in self.procedures

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
