"""UsePrototype (``prototype;``): a reference to a module's PrototypeDefinition.

Palette pieces and prototype definitions carry these; saves normally hold the
expanded traits instead (``PieceCloner`` expands them when a piece is created).
"""
from __future__ import annotations

from converter.vassal.sequence import split
from converter.vassal.traits.base import Str, Trait


class UsePrototype(Trait):
    """``prototype;<name>[;k=v,k=v...]``; no state."""

    prefix = "prototype;"
    kind = "UsePrototype"
    __slots__ = ()

    name = Str(0)
    """The PrototypeDefinition's name."""

    @property
    def parameters(self) -> dict[str, str]:
        """The ``k=v`` parameters of a parameterised prototype (pairs without ``=`` are ignored)."""
        text = self.fields().get(1)
        if text is None:
            return {}
        params: dict[str, str] = {}
        for item in split(text, ","):
            pair = split(item, "=")
            if len(pair) >= 2:
                params[pair[0]] = pair[1]
        return params

    @property
    def parameterised(self) -> bool:
        return len(self.fields()) > 1


class Comment(Trait):
    """``cmt;`` (3.7): a designer's comment; VASSAL drops it when it expands prototypes."""

    prefix = "cmt;"
    kind = "Comment"
    __slots__ = ()

    comment = Str(0)


__all__ = ["UsePrototype", "Comment"]
