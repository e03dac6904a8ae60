"""Findings and reports: what validate and resolve tell a player, as text or JSON.

A :class:`Finding` is one thing wrong (or not checkable) with a file: how bad it is,
a stable code, the piece it concerns (id, name, hex), the rule section or format
rule behind it, and the log step when it comes from a replay. A :class:`Report`
gathers the findings of one file in a stable order, so two runs over the same
input print the same text and the same JSON, byte for byte.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable

#: Severities, most serious first. ``unsupported`` is a rule the referee cannot answer:
#: reported as such, never counted as legal.
SEVERITIES = ("error", "warning", "unsupported", "info")
TITLES = {"error": "Errors", "warning": "Warnings", "unsupported": "Not supported", "info": "Notes"}
#: How one finding of each severity is counted in a summary ("1 error", "2 errors").
COUNT_NAMES = {"error": ("error", "errors"), "warning": ("warning", "warnings"),
               "unsupported": ("not supported", "not supported"), "info": ("note", "notes")}


@dataclass(frozen=True)
class Finding:
    """One finding: severity, code, message, and where (piece, name, hex, step, rule section)."""

    severity: str
    code: str
    message: str
    piece: str | None = None
    name: str | None = None
    hex: str | None = None
    section: str | None = None
    step: int | None = None

    def sort_key(self) -> tuple[Any, ...]:
        return (SEVERITIES.index(self.severity), self.step if self.step is not None else -1, self.code,
                self.piece or "", self.message)

    def line(self) -> str:
        """``step 12: 1234 Leopard C1 @ C5: message (§5.0)``."""
        where = []
        if self.step is not None:
            where.append(f"step {self.step}")
        who = " ".join(part for part in (self.piece, self.name) if part)
        if self.hex:
            who = f"{who} @ {self.hex}" if who else f"@ {self.hex}"
        if who:
            where.append(who)
        section = f" ({self.section})" if self.section else ""
        prefix = ": ".join(where)
        return f"{prefix}: {self.message}{section}" if prefix else f"{self.message}{section}"

    def to_dict(self) -> dict[str, Any]:
        return {key: value for key, value in asdict(self).items() if value is not None}


@dataclass
class Report:
    """The findings about one file, plus a few facts about it (kind, counts)."""

    file: str
    kind: str = "save"
    findings: list[Finding] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)

    def add(self, *findings: Finding) -> None:
        self.findings.extend(findings)

    def extend(self, findings: Iterable[Finding]) -> None:
        self.findings.extend(findings)

    @property
    def sorted(self) -> list[Finding]:
        return sorted(self.findings, key=Finding.sort_key)

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    @property
    def clean(self) -> bool:
        return not self.findings

    @property
    def exit_code(self) -> int:
        """0 clean, 1 findings (the CLI's EXIT_FINDINGS)."""
        return 0 if self.clean else 1

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
                lines.extend(f"  {f.line()}" for f in group)
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "kind": self.kind, "clean": self.clean,
                "counts": {s: self.count(s) for s in SEVERITIES},
                "facts": dict(sorted(self.facts.items())),
                "findings": [f.to_dict() for f in self.sorted]}

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False, sort_keys=False)


def _counted(count: int, severity: str) -> str:
    one, many = COUNT_NAMES[severity]
    return f"{count} {one if count == 1 else many}"


def unreadable(file: str, error: Exception) -> Report:
    """The report of a file that could not be read at all (exit code 2 in the CLI)."""
    report = Report(file, kind="unreadable")
    report.add(Finding("error", "unreadable", str(error)))
    return report


__all__ = ["Finding", "Report", "SEVERITIES", "unreadable"]
