"""Typed errors of the converter layer.

Every error is a ``ValueError`` subclass (as python-chess does it) that says *what*
went wrong and *where*: the file, the zip entry, the command index, the piece id or
the character offset. The CLI prints ``str(error)`` as one line and exits non-zero.
"""
from __future__ import annotations


class WawkitError(ValueError):
    """Base of every error wawkit raises on bad input."""

    def __init__(self, message: str, *, file: str | None = None, entry: str | None = None,
                 position: int | None = None, command: int | None = None,
                 piece: str | None = None) -> None:
        self.message = message
        self.file = file
        self.entry = entry
        self.position = position
        self.command = command
        self.piece = piece
        super().__init__(self._render())

    def _render(self) -> str:
        where = []
        if self.file is not None:
            where.append(str(self.file))
        if self.entry is not None:
            where.append(f"entry {self.entry}")
        if self.command is not None:
            where.append(f"command {self.command}")
        if self.piece is not None:
            where.append(f"piece {self.piece}")
        if self.position is not None:
            where.append(f"offset {self.position}")
        return f"{': '.join(where)}: {self.message}" if where else self.message

    def located(self, **where: object) -> "WawkitError":
        """Return this error with more location filled in (keeps what is already known)."""
        for key, value in where.items():
            if getattr(self, key, None) is None and value is not None:
                setattr(self, key, value)
        self.args = (self._render(),)
        return self

    def __str__(self) -> str:
        return self._render()


class EncodingError(WawkitError):
    """A SequenceEncoder string, trait or command that cannot be decoded."""


class ContainerError(WawkitError):
    """A zip container (save, log, module) that is missing, truncated or over a limit."""


class ObfuscationError(WawkitError):
    """A ``!VCSK``/``VOBS``/``!VCSZ`` payload that cannot be de-obfuscated."""


class LimitExceeded(ContainerError):
    """Input larger than a configured safety limit (zip bombs, huge XML, endless nesting)."""


class ModuleError(WawkitError):
    """A module buildFile that cannot be read, or a component missing an attribute."""


class PieceError(WawkitError, KeyError):
    """A piece edit or query naming a property, layer or trait the piece does not have."""

    def __str__(self) -> str:
        return self._render()


class GeometryError(WawkitError):
    """A pixel or location name that no board or grid of the map covers."""


class ProfileError(WawkitError):
    """A module profile that does not match the module or save it is applied to."""


class SchemaError(WawkitError):
    """A YAML/JSON document that does not validate; ``path`` names the place inside it."""

    def __init__(self, message: str, *, path: str = "", **where: object) -> None:
        self.path = path
        super().__init__(f"{path}: {message}" if path else message, **where)  # type: ignore[arg-type]
