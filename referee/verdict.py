"""What the referee answers: reasons with rule sections, modifiers, rolls, events.

A procedure fills one :class:`Answer`. ``values`` holds the results a player asks for
(``to_hit``, ``hits``, ``legal`` ...); a result the procedure could not reach is in
``gaps`` with the reason ("not stated: distance"), never filled with a guess. The same
object serves as the :class:`Verdict` of ``check`` and the :class:`Resolution` of
``resolve``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee.books import Book, citation, first_section
from referee.events import Event


@dataclass(frozen=True)
class Reason:
    """One rule decision: the section and the numbers behind it."""

    section: str
    text: str

    def __str__(self) -> str:
        return f"{self.text} ({self.section})"


@dataclass(frozen=True)
class Modifier:
    """A modifier that applies: what it changes (to_hit, fp, roll, mp, cost), by how much, why."""

    applies_to: str
    value: int
    why: str
    section: str


@dataclass
class Answer:
    """Everything one procedure decided. ``legal`` is ``None`` until a rule says so."""

    action: str
    book: Book | None = None
    """The rulebook whose sections the reasons cite (see :func:`referee.books.citation`)."""
    values: dict[str, Any] = field(default_factory=dict)
    unit_values: dict[str, dict[str, Any]] = field(default_factory=dict)
    gaps: dict[str, str] = field(default_factory=dict)
    reasons: list[Reason] = field(default_factory=list)
    refusals: list[Reason] = field(default_factory=list)
    """The reasons that forbid the action (each also in ``reasons``, in order)."""
    modifiers: list[Modifier] = field(default_factory=list)
    rolls: list[tuple[str, list[int]]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

    @property
    def legal(self) -> bool | None:
        return self.values.get("legal")

    def cite(self, section: str) -> str:
        """``section`` as this answer's book cites it (``"6.3"`` -> ``"EG §6.3"``)."""
        return citation(self.book, section)

    def because(self, section: str, text: str) -> None:
        self.reasons.append(Reason(self.cite(section), text))

    def illegal(self, section: str, text: str) -> None:
        """Record a rule that forbids the action: ``legal`` becomes False, and the first
        forbidding rule's section is the answer's ``reason_rule``."""
        if self.values.get("legal") is not False:
            rule = first_section(self.cite(section))
            if rule is not None:
                self.values["reason_rule"] = rule
        self.values["legal"] = False
        reason = Reason(self.cite(section), text)
        if reason in self.refusals:           # a rule two checks both apply is named once
            return
        self.reasons.append(reason)
        self.refusals.append(reason)

    def modify(self, applies_to: str, value: int, why: str, section: str, *, explain: bool = True) -> None:
        """Record a modifier; ``explain=False`` when a reason already shows the arithmetic."""
        self.modifiers.append(Modifier(applies_to, value, why, self.cite(section)))
        if explain:
            self.because(section, f"{why}: {applies_to} {value:+d}")

    def set(self, name: str, value: Any) -> None:
        self.values[name] = value

    def unit(self, key: str, **values: Any) -> None:
        self.unit_values.setdefault(key, {}).update(values)

    def gap(self, names: str | tuple[str, ...], reason: str) -> None:
        for name in (names,) if isinstance(names, str) else names:
            if name not in self.values:
                self.gaps.setdefault(name, reason)

    def modifier_totals(self) -> dict[str, int]:
        totals: dict[str, int] = {}
        for m in self.modifiers:
            totals[m.applies_to] = totals.get(m.applies_to, 0) + m.value
        return totals

    def narrative(self, game: Any = None) -> str:
        """Lines a player can paste into the game chat: rolls, decisions, results, events."""
        from referee.events import describe
        lines = [f"[{self.action}]"]
        for label, values in self.rolls:
            lines.append(f"  roll {label}: {' '.join(map(str, values))}")
        for reason in self.reasons:
            lines.append(f"  {reason}")
        for name in ("legal", "hits", "saves", "net_hits", "passed"):
            if name in self.values:
                lines.append(f"  {name.replace('_', ' ')}: {self.values[name]}")
        if game is not None:
            lines.extend(f"  -> {describe(event, game)}" for event in self.events)
        return "\n".join(lines)


#: ``check`` answers a Verdict, ``resolve`` a Resolution; both are Answers.
Verdict = Answer
Resolution = Answer
