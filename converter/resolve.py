"""``wawkit resolve``: check and resolve actions on a save, write the corrected save and its audit.

The save is read through its module profile into a :class:`referee.model.Game`
(each unit linked to its piece id). Each action is checked first; the first one the
referee refuses stops the run and nothing is written: the refusal names the rule
section. Otherwise the action is resolved with explicit dice (given values, a seed,
or per-label values in the actions file) and its events change the Game, so later
actions see the results of earlier ones. At the end the events are written back onto
the original save -- only the pieces they touch change -- and an audit record lists
the inputs with their sha256, the dice, every roll and every event, so that
``wawkit verify`` can replay it to the identical result.
"""
from __future__ import annotations

import itertools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from converter.actions_text import (MAX_GIVEN_DICE, TUPLE_FIELDS, ActionSpec, ActionSyntaxError, check_dice,
                                    check_fields)
from converter.audit import AuditRecord, describe_input, event_record, plain, relative_to, rolls_of, sha256_bytes
from converter.errors import ProfileError, WawkitError
from converter.exporter import ResultNotWritable, apply_events
from converter.importer import Imported, read_inputs
from converter.profile import Profile
from converter.unit_table import UnitTable
from converter.vassal.container import read_container
from converter.vassal.module import Module
from converter.vassal.save import SavedGame
from converter.writes import Output, write_together
from referee.actions import Action, Mission
from referee.dice import DiceSource, GivenDice, SeededDice
from referee.errors import RefereeError
from referee.events import RESULT_EVENTS, Event, apply_all, describe, result_of
from referee.model import Game
from referee.ruleset import Ruleset
from referee.rulesets import get_ruleset
from referee.verdict import Answer

#: Answer values worth a line in the report, in this order.
REPORTED = ("los", "range_band", "to_hit", "fp", "hits", "defense_dice", "db_dice", "saves", "net_hits",
            "passed")


class ResolveError(WawkitError):
    """Dice or actions that cannot be used for a resolution (bad --dice, missing seed...)."""


# -- reading a position ---------------------------------------------------------------------

@dataclass
class Position:
    """A save read through a profile: the Game, unit key -> piece id, and the files it came from."""

    save: SavedGame
    module: Module
    game: Game
    piece_of: dict[str, str]
    profile: Profile
    imported: Imported
    inputs: dict[str, Path] = field(default_factory=dict)
    table: UnitTable | None = None

    def name(self, key: str) -> str:
        unit = self.game.units.get(key)
        return unit.name if unit else key

    def hex(self, key: str) -> str | None:
        unit = self.game.units.get(key)
        return unit.hex if unit else None


def read_position(save: str | os.PathLike[str] | SavedGame, module: str | os.PathLike[str] | Module,
                  profile: str | os.PathLike[str], *, units: str | os.PathLike[str] | None = None,
                  terrain: str | os.PathLike[str] | None = None) -> Position:
    """Read a save with its module and profile; the unit table and terrain are the ones the
    profile names unless ``units`` / ``terrain`` are given."""
    module_obj = module if isinstance(module, Module) else Module.read(module)
    save_obj = save if isinstance(save, SavedGame) else read_save(save)
    read = read_inputs(profile, units, terrain)
    imported = read.reader(module_obj).read(save_obj)
    if read.profile.main_map in imported.unplaced:        # no hexes: nothing could be refereed
        raise ProfileError(imported.unplaced[read.profile.main_map], file=module_obj.file)
    inputs: dict[str, Path] = {}
    if save_obj.path:
        inputs["save"] = Path(save_obj.path)
    if module_obj.file:
        inputs["module"] = Path(module_obj.file)
    inputs.update({role: Path(file) for role, file in read.files.items()})
    return Position(save_obj, module_obj, imported.game, dict(imported.pieces), read.profile, imported, inputs,
                    read.table)


def read_save(path: str | os.PathLike[str]) -> SavedGame:
    """A save whose new piece ids follow its highest id (not the clock), so that resolving
    the same inputs twice writes the same bytes and an audit can be replayed exactly."""
    container = read_container(path)
    probe = SavedGame(container)
    numbers = [int(pid) for pid in probe.pieces if pid.isdigit()]
    counter = itertools.count(max(numbers, default=0) + 1)
    return SavedGame(container, clock=lambda: next(counter))


def ruleset_named(name: str) -> Ruleset:
    """``classic`` (The Untold Stories book), ``classic:eisenbach``, or ``waw85``."""
    base, _, flag = name.partition(":")
    try:
        return get_ruleset(base, flag or None)
    except RefereeError as error:
        raise ResolveError(f"ruleset {name!r}: {error}") from None


# -- dice ---------------------------------------------------------------------------------

class LabelledDice(DiceSource):
    """Per-label values given with an action (``dice: {attack: [...], save: [...]}``) first,
    then the run's own source (given list or seed) for every other roll."""

    def __init__(self, pools: Mapping[str, Sequence[int]], fallback: DiceSource | None) -> None:
        super().__init__()
        self.pools = {label: list(values) for label, values in pools.items()}
        self.fallback = fallback

    def _draw(self, n: int, label: str, sides: int) -> list[int]:
        pool = self.pools.get(label)
        if pool is not None and len(pool) >= n:
            values, self.pools[label] = pool[:n], pool[n:]
            bad = [v for v in values if not (isinstance(v, int) and 1 <= v <= sides)]
            if bad:
                raise ResolveError(f"dice for {label!r}: {bad[0]!r} is not a face of a d{sides}")
            return values
        if self.fallback is None:
            raise ResolveError(f"no dice for roll {label!r}: give --dice or --seed")
        return self.fallback.roll(n, label, sides)


def dice_source(dice: Sequence[int] | None, seed: int | None) -> tuple[DiceSource | None, dict[str, Any]]:
    """The run's dice and how the audit records them."""
    if dice is not None and seed is not None:
        raise ResolveError("give --dice or --seed, not both")
    if dice is not None:
        return GivenDice(list(dice)), {"given": list(dice)}
    if seed is not None:
        return SeededDice(seed), {"seed": seed}
    return None, {}


def parse_dice(text: str) -> list[int]:
    """``4,5,6,3`` -> [4, 5, 6, 3]."""
    parts = [part for part in text.replace(" ", "").split(",") if part]
    if len(parts) > MAX_GIVEN_DICE:
        raise ResolveError(f"--dice gives {len(parts)} dice, over the {MAX_GIVEN_DICE} allowed")
    if not all(part.isascii() and part.isdigit() and len(part) <= 3 for part in parts):
        raise ResolveError(f"--dice {text[:60]!r}: expected numbers separated by commas")
    values = [int(part) for part in parts]
    if not values:
        raise ResolveError("--dice is empty")
    try:
        check_dice(values, "--dice")
    except ActionSyntaxError as error:
        raise ResolveError(error.message) from None
    return values


# -- resolving ------------------------------------------------------------------------------

@dataclass
class Step:
    """One action of the run: as written, as bound to units, and the referee's answer."""

    spec: ActionSpec
    action: Action
    answer: Answer


@dataclass
class Refusal:
    """Why an action was refused: the action, and the rules (with sections) that forbid it."""

    index: int
    text: str
    reasons: list[tuple[str, str]]
    verdict: str = "refused"

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.index, "text": self.text, "verdict": self.verdict,
                "reasons": [{"section": s, "text": t} for s, t in self.reasons]}

    def to_text(self) -> str:
        lines = [f"{self.verdict.upper()}: {self.text}"]
        lines += [f"  {text} ({section})" if section else f"  {text}" for section, text in self.reasons]
        lines.append("Nothing was written.")
        return "\n".join(lines)


@dataclass
class Outcome:
    """A whole run: the steps resolved, the events in order, the game after, or a refusal."""

    before: Game
    steps: list[Step] = field(default_factory=list)
    refused: Refusal | None = None

    @property
    def events(self) -> list[Event]:
        return [event for step in self.steps for event in step.answer.events]

    @property
    def after(self) -> Game:
        return apply_all(self.before, self.events)

    def results(self) -> list[dict[str, Any]]:
        """Each unit fired at or hit by the run and the result it suffered (case vocabulary:
        none, disrupted, reduced, disrupted_and_reduced, eliminated)."""
        targets = {t for step in self.steps for t in _targets(step.action)}
        hit = {e.unit for e in self.events if isinstance(e, RESULT_EVENTS)}
        return [{"unit": key, "result": result_of(key, self.events)} for key in sorted(targets | hit)]


#: Action kinds whose target suffers a combat result (a line of sight check has none).
COMBAT_KINDS = frozenset({"direct_fire", "opportunity_fire", "move_and_fire", "assault", "overrun", "indirect_fire",
                          "aa_fire", "airstrike"})


def _targets(action: Action) -> tuple[str, ...]:
    if action.kind not in COMBAT_KINDS or action.target is None:
        return ()
    return (action.target,) if isinstance(action.target, str) else tuple(action.target)


def _spec_text(spec: ActionSpec) -> str:
    return spec.text or spec.kind


def _refusal(index: int, spec: ActionSpec, answer: Answer) -> Refusal | None:
    """A refusal when the referee says illegal, or cannot answer the action at all."""
    if answer.legal is False:
        reasons = answer.refusals or answer.reasons
        return Refusal(index, _spec_text(spec), [(r.section, r.text) for r in reasons])
    if "*" in answer.gaps:
        return Refusal(index, _spec_text(spec), [("", answer.gaps["*"])])
    return None


def _unresolved(index: int, spec: ActionSpec, answer: Answer) -> Refusal | None:
    """A resolution the referee could not finish (a fact or the dice missing): nothing of it
    is applied, so a save never shows half an action."""
    if not answer.gaps:
        return None
    fields_by_why: dict[str, list[str]] = {}
    for name, why in sorted(answer.gaps.items()):
        fields_by_why.setdefault(why, []).append(name)   # one missing fact stops many fields: said once
    reasons = [("", f"{', '.join(names)}: {why}") for why, names in fields_by_why.items()]
    if any("dice." in why for why in answer.gaps.values()):
        reasons.append(("", "no dice for it: give --dice or --seed (or dice in the actions file)"))
    return Refusal(index, _spec_text(spec), reasons, "cannot be resolved")


def resolve_actions(game: Game, specs: Sequence[ActionSpec], ruleset: Ruleset, dice: DiceSource | None) -> Outcome:
    """Resolve each action in order on the game as the earlier ones left it. The referee
    checks an action's preconditions before its procedure and never rolls for a refused
    one, so one ``resolve`` call decides legality and outcome: the first refusal stops the
    run with nothing applied."""
    outcome = Outcome(game)
    current = game
    for index, spec in enumerate(specs):
        try:
            action = spec.bind(current)
        except ActionSyntaxError as error:
            outcome.refused = Refusal(index, _spec_text(spec), [("", error.message)])
            return outcome
        source = LabelledDice(spec.dice, dice) if spec.dice else dice
        try:
            answer = ruleset.resolve(current, action, source)
        except RefereeError as error:
            raise ResolveError(f"{_spec_text(spec)}: {error}") from None
        refusal = _refusal(index, spec, answer) or _unresolved(index, spec, answer)
        if refusal is not None:
            outcome.refused = refusal
            return outcome
        outcome.steps.append(Step(spec, action, answer))
        current = apply_all(current, answer.events)
    return outcome


# -- the report -----------------------------------------------------------------------------

def position_units(outcome: Outcome) -> set[str]:
    return set(outcome.before.units)


def report_text(outcome: Outcome, position_name: Callable[[str], str], hex_of: Callable[[str], str | None]) -> str:
    """The chat-ready report: each action, its rolls, the rule decisions, the results."""
    lines: list[str] = []
    game = outcome.before
    for step in outcome.steps:
        answer = step.answer
        actor = step.action.actor
        target = step.action.target if isinstance(step.action.target, str) else None

        def who(key: str | None, game: Game = game) -> str:
            if key is None:
                return "?"
            now = game.units.get(key)            # where the unit is when this action starts
            where = now.hex if now is not None and now.on_map and now.hex else hex_of(key)
            return f"{position_name(key)} ({where})" if where else position_name(key)
        weapon = f" {step.action.weapon.upper()}" if step.action.weapon else ""
        if step.action.mission is not None and step.action.mission.type:
            weapon = f" {step.action.mission.type.upper()}"
        caller = actor or step.action.spotter
        head = f"{step.action.kind.replace('_', ' ')}{weapon}" + (f": {who(caller)}" if caller else "")
        if actor is None and step.action.spotter:
            head += " calls"
        if target:
            head += f" -> {who(target) if target in position_units(outcome) else target}"
        lines.append(head)
        for label, values in answer.rolls:
            lines.append(f"  roll {label}: {' '.join(map(str, values))}")
        for reason in answer.reasons:
            lines.append(f"  {reason.text} ({reason.section})")
        totals = [f"{name.replace('_', ' ')} {answer.values[name]}" for name in REPORTED if name in answer.values]
        if totals:
            lines.append("  totals: " + ", ".join(totals))
        results = [describe(e, game) for e in answer.events]
        lines.append("  result: " + ("; ".join(results) if results else "no effect"))
        game = apply_all(game, answer.events)
    if outcome.refused is not None:
        lines.append(outcome.refused.to_text())
    return "\n".join(lines)


# -- the whole job ----------------------------------------------------------------------------

@dataclass
class Resolved:
    """What ``resolve`` produced: the outcome, the corrected save's bytes, the report, the audit."""

    outcome: Outcome
    report: str
    record: AuditRecord
    save: SavedGame | None
    unused_dice: tuple[int, ...] = ()
    """Given dice no roll asked for: a player who copied too many has likely misaligned the rest."""


def run(position: Position, specs: Sequence[ActionSpec], *, ruleset: str | None = None,
        dice: Sequence[int] | None = None, seed: int | None = None, audit_dir: str | os.PathLike[str] = ".",
        actions_input: str | os.PathLike[str] | None = None) -> Resolved:
    """Resolve ``specs`` on a position by the rules its profile names (or ``ruleset``); the
    save is edited in memory (written by the caller)."""
    ruleset = position.profile.ruleset_name(ruleset)
    if ruleset is None:
        raise ResolveError(f"the profile says module {position.profile.module!r} is judged by no rules (rules: none): "
                           "there is nothing the referee can resolve", file=position.profile.file)
    chosen = ruleset_named(ruleset)
    source, dice_record = dice_source(dice, seed)
    outcome = resolve_actions(position.game, specs, chosen, source)
    report = report_text(outcome, position.name, position.hex)
    read_as = {"save": position.save.container.sha256, "module": position.module.sha256()}  # hashed as read
    inputs = {role: describe_input(path, audit_dir, read_as.get(role)) for role, path in sorted(position.inputs.items())}
    if actions_input is not None:
        inputs["actions"] = describe_input(actions_input, audit_dir)
    record = AuditRecord(
        inputs=inputs, actions=[_spec_record(s) for s in specs], ruleset=ruleset, book=chosen.params.book,
        dice=dice_record, rolls=rolls_of(step.answer for step in outcome.steps),
        events=[event_record(e) for e in outcome.events], results=outcome.results(),
        refused=outcome.refused.to_dict() if outcome.refused else None, report=report)
    if outcome.refused is not None:
        return Resolved(outcome, report, record, None)
    try:
        apply_events(position.save, position.module, position.profile, position.imported, outcome.events)
    except ResultNotWritable as error:      # the module has nothing to show a result: write none of them
        report += f"\nCANNOT BE WRITTEN: {error.message}\nNothing was written."
        record.report = report
        return Resolved(outcome, report, record, None)
    record.output = {"plaintext_sha256": sha256_bytes(position.save.to_plaintext())}
    unused = source.remaining if isinstance(source, GivenDice) else ()
    return Resolved(outcome, report, record, position.save, unused)


def _spec_record(spec: ActionSpec) -> dict[str, Any]:
    return {"kind": spec.kind, "refs": list(spec.refs), "weapon": spec.weapon,
            "options": {k: plain(v) for k, v in spec.options.items()}, "text": spec.text,
            "dice": {k: list(v) for k, v in spec.dice.items()}}


def specs_from_record(record: AuditRecord) -> list[ActionSpec]:
    """The recorded actions, with their option values typed again (tuples, missions)."""
    specs = []
    for index, item in enumerate(record.actions):
        options = dict(item.get("options") or {})
        if isinstance(options.get("mission"), Mapping):
            try:
                options["mission"] = Mission(**options["mission"])
            except TypeError:
                raise ResolveError(f"actions[{index}].options.mission has fields a mission does not have") from None
        for name in TUPLE_FIELDS & set(options):
            options[name] = tuple(options[name])
        check_fields(options, item.get("dice") or {}, f"actions[{index}]")  # a record is untrusted input too
        specs.append(ActionSpec(item["kind"], tuple(item["refs"]), item.get("weapon"), options, item.get("text", ""),
                                {k: tuple(v) for k, v in (item.get("dice") or {}).items()}))
    return specs


def replay(record: AuditRecord, paths: Mapping[str, Path]) -> Resolved:
    """Resolve a recorded run again from its (checked) inputs; the result is compared by ``verify``."""
    if not {"save", "module", "profile"} <= set(paths):
        raise ResolveError("the audit record lacks its save, module or profile input")
    position = read_position(paths["save"], paths["module"], paths["profile"], units=paths.get("units"),
                             terrain=paths.get("terrain"))
    dice = record.dice.get("given")
    seed = record.dice.get("seed")
    return run(position, specs_from_record(record), ruleset=record.ruleset, dice=dice, seed=seed)


def replay_record(record: AuditRecord, paths: Mapping[str, Path]) -> AuditRecord:
    """The replayed run's record (see :func:`replay`)."""
    return replay(record, paths).record


# -- writing the result -------------------------------------------------------------------

def write_resolution(resolved: Resolved, output: str | os.PathLike[str], audit_file: str | os.PathLike[str], *,
                     overwrite: bool = False, in_place: bool = False) -> Path | None:
    """Write the corrected save and its audit record as one unit (both or neither), under the
    folder lock of :mod:`converter.writes`; the backup kept of an ``in_place`` save, if any.

    Written over the save it was read from, the save must still hold the bytes that were
    read: a save another player rewrote meanwhile is refused (their update is never lost),
    its permission bits are kept, and the original is kept as the next free ``NAME.bak[.N]``,
    which the record names as where its input save now is; an earlier record of the save
    is kept the same way, so two players resolving in turn lose neither record.
    """
    assert resolved.save is not None, "a refused resolution writes nothing"
    target, record_file = Path(output), Path(audit_file)
    source = resolved.save.path
    same = source is not None and target.exists() and os.path.samefile(target, source)
    if same and not (overwrite or in_place):
        raise ResolveError("is the input save; give --in-place to rewrite it", file=str(target))
    payload = resolved.save.to_bytes()
    record = resolved.record
    base = record_file.parent
    record.output = {"path": relative_to(target, base), "sha256": sha256_bytes(payload), **(record.output or {})}

    def audit_bytes(backups: Mapping[Path, Path]) -> bytes:
        kept = backups.get(target)
        if kept is not None and "save" in record.inputs:
            record.inputs["save"]["backup"] = relative_to(kept, base)
        return record.to_json().encode("utf-8")
    backups = write_together([
        Output(target, payload, overwrite=overwrite or in_place,
               expect_sha256=resolved.save.container.sha256 if same or in_place else None, backup=in_place),
        Output(record_file, audit_bytes, overwrite=True, backup=in_place)])
    return backups.get(target)


__all__ = ["Position", "read_position", "ruleset_named", "LabelledDice", "dice_source",
           "parse_dice", "resolve_actions", "Outcome", "Refusal", "Step", "report_text", "run", "Resolved",
           "replay", "replay_record", "write_resolution", "ResolveError"]
