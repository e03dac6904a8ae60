"""Find a ruleset by name: ``classic`` (with a book flag) or a later ruleset module."""
from __future__ import annotations

import importlib

from referee.errors import NotSupported, RefereeError
from referee.ruleset import Ruleset


def get_ruleset(name: str, flag: str | None = None) -> Ruleset:
    """``get_ruleset("classic", "untold")``; other rulesets are modules ``referee.<name>``
    exposing ``ruleset(flag)``."""
    if name == "classic":
        from referee.classic import classic
        return classic(flag or "untold")
    try:
        module = importlib.import_module(f"referee.{name}")
    except ModuleNotFoundError:
        raise NotSupported(name, "ruleset not implemented") from None
    factory = getattr(module, "ruleset", None)
    if factory is None:
        raise RefereeError(f"referee.{name} has no ruleset(flag) factory")
    return factory(flag)
