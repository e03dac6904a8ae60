"""Findings and reports: what validate and resolve tell a player, as text or JSON.

A :class:`Finding` is one thing wrong (or not checkable) with a file: how bad it is,
a stable code, the piece it concerns (id, name, hex, and the unit key the profile read it
as), the rule section or format rule behind it, and the log step when it comes from a replay. A :class:`Report`
gathers the findings of one file in a stable order, so two runs over the same
input print the same text and the same JSON, byte for byte.

A player reads a report, so each finding is told once: the same finding added twice is
kept once, and in the text the findings that say the same thing about many pieces (a
thousand counters whose PieceSlot changed) are one line naming how many and the first
few, grouped by log step. The JSON keeps every finding. Notes (``info``) alone leave a
file passed: the exit code is 0 clean or notes only, 1 findings, 2 unreadable.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Sequence

#: Severities, most serious first. ``unsupported`` is a rule the referee cannot answer:
#: reported as such, never counted as legal.
SEVERITIES = ("error", "warning", "unsupported", "info")
TITLES = {"error": "Errors", "warning": "Warnings", "unsupported": "Not supported", "info": "Notes"}
#: How one finding of each severity is counted in a summary ("1 error", "2 errors").
COUNT_NAMES = {"error": ("error", "errors"), "warning": ("warning", "warnings"),
               "unsupported": ("not supported", "not supported"), "info": ("note", "notes")}
#: Severities that fail a file (exit code 1); notes alone do not.
FAILING = ("error", "warning", "unsupported")
#: Pieces named on the line of a group of findings that say the same thing; the JSON names all.
GROUP_NAMED = 5


@dataclass(frozen=True)
class Finding:
    """One finding: severity, code, message, and where (piece, name, hex, step, rule section).

    ``unit`` is the unit key (several: comma-separated, as ``piece``) a piece was read as,
    so a page or a bot can point at the counter without knowing VASSAL's piece ids."""

    severity: str
    code: str
    message: str
    piece: str | None = None
    name: str | None = None
    hex: str | None = None
    section: str | None = None
    step: int | None = None
    unit: str | None = None

    def sort_key(self) -> tuple[Any, ...]:
        return (SEVERITIES.index(self.severity), self.step if self.step is not None else -1, self.code,
                self.piece or "", self.message)

    def who(self) -> str:
        """``1234 Leopard C1 @ C5``: the piece, its name and its hex, as far as known."""
        who = " ".join(part for part in (self.piece, self.name) if part)
        if self.hex:
            who = f"{who} @ {self.hex}" if who else f"@ {self.hex}"
        return who

    def line(self) -> str:
        """``step 12: 1234 Leopard C1 @ C5: message (§5.0)``."""
        where = []
        if self.step is not None:
            where.append(f"step {self.step}")
        if self.who():
            where.append(self.who())
        section = f" ({self.section})" if self.section else ""
        prefix = ": ".join(where)
        return f"{prefix}: {self.message}{section}" if prefix else f"{self.message}{section}"

    @property
    def group(self) -> tuple[Any, ...]:
        """Findings with the same group say the same thing about different pieces (at any log step)."""
        return (self.severity, self.code, self.message, self.section)


    def to_dict(self) -> dict[str, Any]:
        return {key: value for key, value in asdict(self).items() if value is not None}


def group_lines(findings: Sequence[Finding]) -> list[str]:
    """Text lines for sorted findings: one per finding, or one per group of findings that say
    the same thing about several pieces (``3 pieces: message: A (1), B (2), C (3)``)."""
    groups: dict[tuple[Any, ...], list[Finding]] = {}
    for finding in findings:
        groups.setdefault(finding.group, []).append(finding)
    lines = []
    for members in groups.values():
        first = members[0]
        if len(members) == 1:
            lines.append(first.line())
            continue
        steps = sorted({f.step for f in members if f.step is not None})
        step = ""
        if steps:
            shown = ", ".join(map(str, steps[:GROUP_NAMED])) + (" ..." if len(steps) > GROUP_NAMED else "")
            step = f"step{'s' if len(steps) > 1 else ''} {shown}: "
            if any(f.step is None for f in members):
                step = f"start and {step}"
        section = f" ({first.section})" if first.section else ""
        names = list(dict.fromkeys(f.who() for f in members if f.who()))
        named = ", ".join(names[:GROUP_NAMED])
        more = f" and {len(names) - GROUP_NAMED} more" if len(names) > GROUP_NAMED else ""
        count = f"{len(members)} pieces"
        if len(names) != len(members) or any("," in (f.piece or "") for f in members):
            count = f"{len(members)} times" + (f" ({len(names)} pieces)" if len(names) > 1 else "")
        lines.append(f"{step}{count}: {first.message}{section}" + (f": {named}{more}" if named else ""))
    return lines


@dataclass
class Report:
    """The findings about one file, plus a few facts about it (kind, counts)."""

    file: str
    kind: str = "save"
    findings: list[Finding] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)
    _known: set[Finding] = field(default_factory=set, repr=False, compare=False)

    def add(self, *findings: Finding) -> None:
        self.extend(findings)

    def extend(self, findings: Iterable[Finding]) -> None:
        """Add findings; one already in the report is not added again."""
        known = self._known
        if len(known) != len(self.findings):        # findings were given to the constructor
            known.clear()
            known.update(self.findings)
        for finding in findings:
            if finding not in known:
                known.add(finding)
                self.findings.append(finding)

    @property
    def sorted(self) -> list[Finding]:
        return sorted(self.findings, key=Finding.sort_key)

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    @property
    def clean(self) -> bool:
        return not self.findings

    @property
    def passed(self) -> bool:
        """No finding but notes: nothing wrong, nothing left unchecked."""
        return not any(f.severity in FAILING for f in self.findings)

    @property
    def exit_code(self) -> int:
        """0 clean or notes only, 1 findings (the CLI's EXIT_FINDINGS)."""
        return 0 if self.passed else 1

    def summary(self) -> str:
        if self.clean:
            return f"{self.file}: clean"
        counts = ", ".join(_counted(self.count(s), s) for s in SEVERITIES if self.count(s))
        return f"{self.file}: {counts}"

    def to_text(self) -> str:
        """The report grouped by severity, most serious first; one line for a file that could not be read."""
        if self.kind == "unreadable" and len(self.findings) == 1:
            message = self.findings[0].message
            own = f"{self.file}: "
            return f"{own}unreadable: {message[len(own):] if message.startswith(own) else message}"
        lines = [self.summary()]
        for severity in SEVERITIES:
            group = [f for f in self.sorted if f.severity == severity]
            if group:
                lines.append(f"{TITLES[severity]} ({len(group)}):")
                lines.extend(f"  {line}" for line in group_lines(group))
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "kind": self.kind, "clean": self.clean, "passed": self.passed,
                "counts": {s: self.count(s) for s in SEVERITIES},
                "facts": dict(sorted(self.facts.items())),
                "findings": [f.to_dict() for f in self.sorted]}

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False, sort_keys=False)


def _counted(count: int, severity: str) -> str:
    one, many = COUNT_NAMES[severity]
    return f"{count} {one if count == 1 else many}"


@dataclass(frozen=True)
class FolderSummary:
    """The closing line of a folder run: files read, how many passed, failed or were unreadable."""

    folder: str
    reports: Sequence[Report]

    def counts(self) -> dict[str, int]:
        return {s: sum(r.count(s) for r in self.reports if r.kind != "unreadable") for s in SEVERITIES}

    @property
    def unreadable(self) -> int:
        return sum(1 for r in self.reports if r.kind == "unreadable")

    @property
    def failed(self) -> int:
        return sum(1 for r in self.reports if r.kind != "unreadable" and not r.passed)

    def to_text(self) -> str:
        files = len(self.reports)
        passed = files - self.failed - self.unreadable
        counts = ", ".join(_counted(n, s) for s, n in self.counts().items() if n)
        return (f"{self.folder}: {files} file{'s' if files != 1 else ''}: {passed} passed, {self.failed} with findings, "
                f"{self.unreadable} unreadable" + (f" ({counts})" if counts else ""))

    def to_dict(self) -> dict[str, Any]:
        return {"folder": self.folder, "kind": "summary", "files": len(self.reports),
                "passed": len(self.reports) - self.failed - self.unreadable, "failed": self.failed,
                "unreadable": self.unreadable, "counts": self.counts()}


def unreadable(file: str, error: Exception) -> Report:
    """The report of a file that could not be read at all (exit code 2 in the CLI)."""
    report = Report(file, kind="unreadable")
    report.add(Finding("error", "unreadable", str(error)))
    return report


__all__ = ["FAILING", "Finding", "FolderSummary", "Report", "SEVERITIES", "group_lines", "unreadable"]
