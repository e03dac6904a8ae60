"""``wawkit actions``: every action kind the referee accepts, its fields, its short form and an example.

Nothing here is a copy of the rules: the kinds are the procedures of the referee's rulesets
(``get_ruleset(...).procedures``) and the action classes of :mod:`referee.actions`, each
described by its own docstring; the short forms are the verbs of
:mod:`converter.actions_text` and how it reads the words after them. An action the referee
gains, or a verb the short syntax gains, is listed without a change here.
"""
from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass
from typing import Any

from converter import actions_text
from referee.actions import ACTIONS, Action
from referee.rulesets import get_ruleset

#: The rulesets the listing asks, as ``--ruleset`` names them.
RULESETS = (("classic:untold", "classic", "untold"), ("classic:eisenbach", "classic", "eisenbach"),
            ("waw85", "waw85", None))
#: What the fields every action shares mean (a field without a note is listed by its type).
FIELD_NOTES = {
    "unit": "the acting unit (or a list of units acting together): a unit key, a counter name, or the hex holding it",
    "target": "the unit (key, name or hex) the action is aimed at; a hex for actions on a hex",
    "weapon": "ap, he or aa: which printed Firepower fires",
    "mission": "a fire mission or strike: {type: he|smoke|dpicm|..., fp, to_hit}",
    "spotter": "the unit that spots for indirect fire",
    "bonus_from": "units whose bonus the actor takes (a list of keys)",
    "supporting": "units supporting the action (a list of keys)",
    "hits": "hits given instead of rolled (a number, or {unit: hits})",
    "result": "a result given instead of rolled (disrupted, reduced, eliminated...)",
    "passed": "whether a check passed, given instead of rolled (true or false)",
    "cause": "what caused the action (a morale check's cause, a marker's origin)",
    "choice": "the player's choice where the rules give one (a hex, a unit, an option)",
    "count": "how many (markers, steps, missions)",
    "side": "the side acting",
    "path": "the hexes entered, in order",
    "retreat": "the hex the losers of an Assault retreat into, when they must (the player's choice)",
    "scatter": "the hex a fire mission lands in when it misses (the opponent's choice, classic §8.0)",
}
#: Placeholders of the short forms, and the values their examples use (the sample position).
EXAMPLE_WORDS = {"UNIT": "leopard-c1", "TARGET": "t-64", "HEX": "C7", "HEX...": "C7 D7", "CALLER": "us-hq",
                 "fp=N": "fp=4", "to_hit=N": "to_hit=5"}


@dataclass(frozen=True)
class ActionKind:
    """One action kind: what it is, who accepts it, how to write it."""

    kind: str
    summary: str
    rulesets: tuple[str, ...]
    verbs: tuple[str, ...]
    short_form: str | None
    example: str
    fields: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _first_line(doc: str | None) -> str:
    return inspect.cleandoc(doc).split("\n\n")[0].replace("\n", " ") if doc else ""


def short_form(kind: str, verb: str) -> str:
    """How :func:`converter.actions_text.parse` reads the words after ``verb`` for ``kind``."""
    syntax = getattr(actions_text, "SYNTAX", {})
    if kind in syntax:
        return f"{verb} {syntax[kind]}"
    if kind in actions_text.PATH_KINDS:
        form = f"{verb} UNIT HEX..."
    elif kind in actions_text.HEX_TARGET:
        form = f"{verb} HEX"
    elif kind in actions_text.TARGET_KINDS:
        form = f"{verb} UNIT TARGET" + (f" [{'|'.join(actions_text.WEAPONS)}]" if kind.endswith("fire") else "")
    else:
        form = f"{verb} UNIT [TARGET]"
    return form + OPTIONS


OPTIONS = " [field=value ...]"


def _example(form: str | None, kind: str) -> str:
    """The short form with the sample position's units and hexes; optional words left out but
    for a weapon (the first one)."""
    if form is None:
        return f"{{kind: {kind}, unit: {EXAMPLE_WORDS['UNIT']}}}"
    words = []
    for word in form.removesuffix(OPTIONS).split():
        if word.startswith("[") and word.endswith("]"):
            choices = word.strip("[]").split("|")
            if len(choices) > 1:
                words.append(choices[0])
            continue
        words.append(EXAMPLE_WORDS.get(word, word))
    return " ".join(words)


def catalogue() -> list[ActionKind]:
    """Every action kind some ruleset accepts (or the referee has a class for), sorted."""
    rulesets = [(name, get_ruleset(base, flag)) for name, base, flag in RULESETS]
    kinds = sorted(set(ACTIONS).union(*(r.procedures for _, r in rulesets)))
    base_fields = {f.name for f in dataclasses.fields(Action)} - {"kind"}
    found = []
    for kind in kinds:
        cls = ACTIONS.get(kind)
        # the procedure of a ruleset that judges it, else one that says why it is not supported
        procedure = next((r.procedures[kind] for _, r in rulesets if r.implements(kind)),
                         next((r.procedures[kind] for _, r in rulesets
                               if kind in r.procedures and r.procedures[kind].__doc__), None))
        summary = _first_line(cls.__doc__ if cls is not None else None) or _first_line(
            getattr(procedure, "__doc__", None)) or kind.replace("_", " ")
        verbs = tuple(v for v, k in actions_text.VERBS.items() if k == kind)
        form = short_form(kind, verbs[0]) if verbs else None
        own = tuple(f.name for f in dataclasses.fields(cls) if f.name not in base_fields | {"kind"}) if cls else ()
        found.append(ActionKind(kind, summary, tuple(n for n, r in rulesets if r.implements(kind)), verbs, form,
                                _example(form, kind), own))
    return found


def _field_lines() -> list[tuple[str, str]]:
    out = []
    for f in dataclasses.fields(Action):
        if f.name != "kind":
            out.append((f.name, FIELD_NOTES.get(f.name, str(f.type))))
    return out


def to_text() -> str:
    """The listing as ``wawkit actions`` prints it."""
    lines = ["Actions the referee accepts. Give one with resolve --action \"SHORT FORM\", or many in an actions",
             "file (YAML): a list of short forms, or of mappings {kind: KIND, unit: ..., field: value}.",
             "In a short form, UNIT and TARGET are unit keys, counter names or hexes holding the unit; HEX is a",
             "hex name; field=value sets any other field.", "",
             "Fields every action takes:"]
    width = max(len(name) for name, _ in _field_lines())
    lines += [f"  {name.ljust(width)}  {note}" for name, note in _field_lines()]
    for item in catalogue():
        lines += ["", f"{item.kind}: {item.summary}"]
        if item.short_form:
            also = f"   (also: {', '.join(item.verbs[1:])})" if len(item.verbs) > 1 else ""
            lines.append(f"  short form: {item.short_form}{also}")
        else:
            lines.append("  short form: none (a mapping in an actions file)")
        lines.append(f"  example:    {item.example}")
        if item.fields:
            lines.append(f"  its own fields: {', '.join(item.fields)}")
        lines.append(f"  rulesets:   {', '.join(item.rulesets) or 'none yet (not supported)'}")
    return "\n".join(lines) + "\n"


def to_markdown() -> str:
    """The listing as ``docs/actions.md`` holds it."""
    lines = ["# Actions the referee accepts", "",
             "Generated by `wawkit actions --markdown` from the referee's rulesets and the short syntax; "
             "do not edit by hand.", "",
             "Give an action with `wawkit resolve ... --action \"SHORT FORM\"`, or many in an actions file (YAML): "
             "a list of short forms, or of mappings `{kind: KIND, unit: ..., field: value}`. In a short form, "
             "UNIT and TARGET are unit keys, counter names or hexes holding the unit; HEX is a hex name; "
             "`field=value` sets any other field.", "", "## Fields every action takes", "",
             "| field | meaning |", "|---|---|"]
    lines += [f"| `{name}` | {note.replace('|', '&#124;')} |" for name, note in _field_lines()]
    lines += ["", "## Kinds", "", "| kind | what | short form | example | rulesets |", "|---|---|---|---|---|"]
    for item in catalogue():
        form = f"`{item.short_form}`" if item.short_form else "-"
        if len(item.verbs) > 1:
            form += f" (also {', '.join(f'`{v}`' for v in item.verbs[1:])})"
        own = f" Its own fields: {', '.join(item.fields)}." if item.fields else ""
        lines.append(f"| `{item.kind}` | {item.summary}{own} | {form.replace('|', '&#124;')} | "
                     f"`{item.example}` | {', '.join(item.rulesets) or 'not supported'} |")
    return "\n".join(lines) + "\n"


__all__ = ["ActionKind", "catalogue", "short_form", "to_markdown", "to_text"]
