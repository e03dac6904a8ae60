"""A log stepped through on the page: the position after each step, and that step's findings.

Nothing here judges or replays on its own. The findings are those of the validation report
(:func:`converter.validate.validate_save`, the one-pass replay ``wawkit validate LOG`` runs),
grouped by the step that raised them; the position after a step is the same replay of the
log (:class:`converter.importer.LogPosition`) advanced to it. Going forward applies only the
steps in between; going back starts the replay again, unless the step was seen lately (the
positions of the last :data:`RECENT` steps shown are kept: a Game is never changed in place).
"""
from __future__ import annotations

from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from typing import Any

from converter.importer import LogPosition, read_inputs
from converter.report import Finding, Report
from converter.validate import Judge, rules_of, validate_save
from converter.vassal.commands import Chat, MovePiece
from converter.vassal.log import Step
from converter.vassal.module import Module
from converter.vassal.save import SavedGame
from referee.model import Game

#: Positions of the steps shown lately, kept so that stepping back is immediate.
RECENT = 32


def validation(save: SavedGame, module_path: str, profile_path: str, units: str | None, terrain: str | None,
               file: str) -> tuple[Report, Module, Judge]:
    """The report ``wawkit validate`` gives for ``save`` (shown as ``file``), with the module
    and judge it was read with. Read for this request, not through the CLI's caches by path:
    a session's files go when it ends, and so must what was read from them."""
    module = Module.read(module_path)
    inputs = read_inputs(profile_path, units, terrain)
    judge = Judge(inputs.reader(module), rules_of(inputs.profile), inputs.profile.ruleset_name(None) or "none")
    return validate_save(save, module, file=file, board_aliases=inputs.profile.board_aliases, judge=judge), module, judge


@dataclass(frozen=True)
class StepPosition:
    """The position after one step: its Game, the units the step changed, added or removed."""

    step: int
    game: Game
    changed: tuple[str, ...]


@dataclass
class LogSteps:
    """One log of a session, read for stepping (see the module docstring)."""

    save: SavedGame
    module: Module
    report: Report
    replay: LogPosition
    judge: Judge
    at: int = -1
    recent: "OrderedDict[int, StepPosition]" = field(default_factory=OrderedDict)

    @classmethod
    def of(cls, save: SavedGame, module_path: str, profile_path: str, units: str | None, terrain: str | None,
           file: str) -> "LogSteps":
        """Validate the log ``save`` (shown as ``file``) with its module and profile, and start its replay."""
        report, module, judge = validation(save, module_path, profile_path, units, terrain, file)
        return cls(save, module, report, judge.reader.log(save), judge)

    @property
    def count(self) -> int:
        return len(self.replay.steps)

    def findings(self, step: int | None) -> list[Finding]:
        """The findings raised at ``step`` (None: those of the log's start position), in report order."""
        return [f for f in self.report.sorted if f.step == step]

    def position(self, step: int) -> StepPosition:
        """The position after step ``step`` (0-based, as findings number steps)."""
        if step in self.recent:
            self.recent.move_to_end(step)
            return self.recent[step]
        if step <= self.at:                    # behind the replay: start it again
            self.replay, self.at = self.judge.reader.log(self.save), -1
        change = None
        for index in range(self.at + 1, step + 1):
            change = self.replay.apply(self.replay.steps[index])
        self.at = step
        assert change is not None
        shown = StepPosition(step, self.replay.game, tuple(sorted(change.changed | change.added | change.removed)))
        self.recent[step] = shown
        while len(self.recent) > RECENT:
            self.recent.popitem(last=False)
        return shown

    def summary(self, step: Step, findings: int | None = None) -> dict[str, Any]:
        """What a step holds, as a player sees it in VASSAL: its chat lines, how many pieces it
        moves, and how many findings it raised."""
        commands = step.commands
        if findings is None:
            findings = sum(1 for f in self.report.findings if f.step == step.index)
        return {"step": step.index, "chat": [c.message for c in commands if isinstance(c, Chat)],
                "moves": sum(1 for c in commands if isinstance(c, MovePiece)), "commands": len(commands),
                "findings": findings}

    def listing(self) -> dict[str, Any]:
        """Every step's summary, and the findings of the start position."""
        per_step = Counter(f.step for f in self.report.findings)
        return {"file": self.report.file, "count": self.count, "rules": self.judge.rules,
                "counts": {s: self.report.count(s) for s in ("error", "warning", "unsupported", "info")},
                "start": [f.to_dict() for f in self.findings(None)],
                "steps": [self.summary(s, per_step[s.index]) for s in self.replay.steps]}


__all__ = ["LogSteps", "StepPosition", "RECENT", "validation"]
