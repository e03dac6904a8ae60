"""Actions as data: what a player asks the referee to check or resolve.

One frozen dataclass per procedure, all sharing the fields of :class:`Action` (the
actor, the target, the weapon, the mission, bonuses, and outcomes given instead of
rolled). ``ACTIONS`` maps the procedure name (``direct_fire``, ``assault``...) to its
class so that a file of actions can be read without code per action.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Mapping

from referee.errors import RefereeError


@dataclass(frozen=True)
class Mission:
    """A fire mission or strike: type (he, smoke, dpicm, mlrs, fascam, chemical), FP, To-Hit."""

    type: str | None = None
    fp: int | None = None
    to_hit: int | None = None


@dataclass(frozen=True)
class Action:
    """Common fields. ``unit`` is the actor (a key or a stack of keys); ``target`` a unit key,
    a list of keys or a hex id; ``hits``/``result``/``passed`` give an outcome instead of dice."""

    kind: str = "action"
    unit: str | tuple[str, ...] | None = None
    target: str | tuple[str, ...] | None = None
    weapon: str | None = None
    mission: Mission | None = None
    spotter: str | None = None
    bonus_from: tuple[str, ...] | None = None
    supporting: tuple[str, ...] = ()
    hits: int | Mapping[str, int] | None = None
    result: str | None = None
    passed: bool | None = None
    cause: str | None = None
    choice: str | tuple[str, ...] | None = None
    count: int | None = None
    side: str | None = None
    path: tuple[str, ...] = ()
    retreat: str | None = None
    """The hex a defender retreats into when an Assault makes it retreat (EG/TUS §6.3,
    WaW85 §13.2.2), or one hex per retreating unit in stack order (``E4,F4``: a stack may
    split, each unit retreating on its own); without it the referee takes the only way the
    units may go or lists the hexes."""
    scatter: str | None = None
    """The hex a fire mission lands in when it misses (classic §8.0: the opponent chooses
    an adjacent hex)."""

    @property
    def actors(self) -> tuple[str, ...]:
        if self.unit is None:
            return ()
        return (self.unit,) if isinstance(self.unit, str) else tuple(self.unit)

    @property
    def actor(self) -> str | None:
        return self.actors[0] if self.actors else None


def _action(kind: str, doc: str) -> type[Action]:
    name = "".join(part.title() for part in kind.split("_"))
    cls = dataclass(frozen=True)(type(name, (Action,), {
        "__doc__": doc, "__annotations__": {"kind": "str"}, "kind": kind}))
    return cls


DirectFire = _action("direct_fire", "Ranged combat by an actor on a target unit (classic §6.1).")
OpportunityFire = _action("opportunity_fire", "Fire at a moving unit during its move (§6.2).")
MoveAndFire = _action("move_and_fire", "Moving Fire after spending status.mp_spent (§6.1.3).")
Defense = _action("defense", "The defensive roll of a target alone: DB, armor, save (§6.1).")
Concealment = _action("concealment", "Is the target concealed? (§6.1.5)")
ApplyDamage = _action("apply_damage", "Apply hits or a result and all knock-on effects (§6.1.7).")
LineOfSight = _action("los", "Line of sight from actor to target (§7).")
LosHeight = _action("los_height", "The LOS level of a unit (§7, Helicopter LOS Table).")
AaFire = _action("aa_fire", "Anti-aircraft fire at aircraft or helicopters (§9.5, §9.6).")
Airstrike = _action("airstrike", "An airstrike on a hex, with its status roll (001 §9.5).")
Artillery = _action("indirect_fire", "Fire mission or on-map artillery / mortar fire (§8).")
Assault = _action("assault", "Assault combat into the target's hex (§6.3).")
Overrun = _action("overrun", "Overrun of infantry in open or hill terrain (§6.4).")
Move = _action("move", "Movement into a hex along ``path`` or into ``target`` (§5).")
Load = _action("load", "A passenger loads into a transport (§5.2.1).")
Unload = _action("unload", "A passenger unloads from its transport (§5.2.2).")
ModeChange = _action("mode_change", "Helicopter mode change (§9.1).")
Stacking = _action("stacking", "Stacking limits in a hex (§1.4).")
CommandCheck = _action("command_check", "Command check of a unit or stack (§4.2).")
Rally = _action("rally", "Rally of a disrupted unit (§4.3).")
MoraleCheck = _action("morale_check", "A plain morale check (§1.6).")
ConditionalMorale = _action("conditional_morale", "Conditional morale (001 §1.6.1).")
MissileAmmoCheck = _action("missile_ammo_check", "Missile depletion after a shot (§6.1.4).")
MarkerRemoval = _action("marker_removal", "Marker Removal Phase on the whole map, or on one unit or hex (§3.2).")
MinefieldAttack = _action("minefield_attack", "A Mines marker attacks a unit (§8.3, 001 §12.2).")
ChemicalAttack = _action("chemical_attack", "Chemical strike morale check (§8.4).")
OperationsPhase = _action("operations_phase", "When the Operations Phase ends (§3.1).")
HqReplacement = _action("hq_replacement", "Replacement of an eliminated HQ (§1.3.3.3).")

ACTIONS: dict[str, type[Action]] = {cls.kind: cls for cls in (
    DirectFire, OpportunityFire, MoveAndFire, Defense, Concealment, ApplyDamage, LineOfSight,
    LosHeight, AaFire, Airstrike, Artillery, Assault, Overrun, Move, Load, Unload, ModeChange,
    Stacking, CommandCheck, Rally, MoraleCheck, ConditionalMorale, MissileAmmoCheck,
    MarkerRemoval, MinefieldAttack, ChemicalAttack, OperationsPhase, HqReplacement)}

_FIELDS = {f.name for f in fields(Action)} - {"kind"}


def make_action(kind: str, **values: Any) -> Action:
    """Build the action named ``kind``; a procedure without a class keeps its name."""
    unknown = set(values) - _FIELDS
    if unknown:
        raise RefereeError(f"{kind}: unknown action field(s) {sorted(unknown)}")
    cls = ACTIONS.get(kind)
    return cls(**values) if cls else Action(kind=kind, **values)
