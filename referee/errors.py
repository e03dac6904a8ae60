"""Typed errors of the referee.

The referee never imports the converter, so it has its own ``ValueError`` family.
Two of them are not failures but honest answers: a fact the rules need that the
situation does not state (:class:`NotStated`), and a rule the referee does not
implement yet (:class:`NotSupported`). Neither is ever replaced by a silent default.
"""
from __future__ import annotations


class RefereeError(ValueError):
    """Base of every error the referee raises."""


class NotStated(RefereeError):
    """A fact the procedure needs is neither given nor computable ("not stated: <field>")."""

    def __init__(self, field: str) -> None:
        self.field = field
        super().__init__(f"not stated: {field}")


class NotSupported(RefereeError):
    """A rule the referee does not implement ("not supported: §x.y")."""

    def __init__(self, section: str, what: str = "") -> None:
        self.section = section
        self.what = what
        super().__init__(f"not supported: {section}" + (f" ({what})" if what else ""))


class CaseError(RefereeError):
    """A rule-case file that cannot be read; names the file, the case id and the place."""

    def __init__(self, message: str, *, file: str | None = None, case: str | None = None,
                 position: str | None = None) -> None:
        self.file, self.case, self.position = file, case, position
        where = [w for w in (file, f"case {case}" if case else None, position) if w]
        super().__init__(f"{': '.join(where)}: {message}" if where else message)
