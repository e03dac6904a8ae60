"""The referee: the canonical game model and the World at War rules.

Pure domain code: it never imports :mod:`converter` and knows nothing of VASSAL,
pixels or files.

    >>> from referee import DirectFire, get_ruleset
    >>> ruleset = get_ruleset("classic", "untold")        # or "eisenbach"
    >>> verdict = ruleset.check(game, DirectFire(unit="A", target="T", weapon="ap"))
    >>> resolution = ruleset.resolve(game, action, SeededDice(7))
    >>> game = apply_all(game, resolution.events)

Modules: :mod:`referee.model` (Game, Unit, UnitType, HexState, Facts), :mod:`referee.events`,
:mod:`referee.actions`, :mod:`referee.verdict`, the shared mechanics (:mod:`referee.fire`,
:mod:`referee.damage`, :mod:`referee.assault`, :mod:`referee.los`, :mod:`referee.morale`,
:mod:`referee.movement`, :mod:`referee.artillery`, :mod:`referee.air`, :mod:`referee.phases`),
the rulesets (:mod:`referee.classic`), exact odds (:mod:`referee.combat_odds`) and the
rule-case runner (:mod:`referee.cases`).
"""
from __future__ import annotations

import importlib
from typing import Any

#: Public names and the module that defines each; imported on first use so that
#: ``import referee.hexes`` does not load every ruleset.
_EXPORTS = {
    **{name: "referee.actions" for name in (
        "ACTIONS", "Action", "ApplyDamage", "Artillery", "Assault", "CommandCheck", "DirectFire",
        "Load", "Mission", "ModeChange", "Move", "MoveAndFire", "OpportunityFire", "Overrun",
        "Rally", "Unload", "make_action")},
    **{name: "referee.errors" for name in ("NotStated", "NotSupported", "RefereeError")},
    "apply": "referee.events", "apply_all": "referee.events",
    **{name: "referee.model" for name in (
        "Facts", "Formation", "Game", "HexState", "Status", "Unit", "UnitType", "Weapon")},
    "get_ruleset": "referee.rulesets",
    **{name: "referee.verdict" for name in ("Answer", "Resolution", "Verdict")},
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'referee' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
