"""Two-sided counters: a Reduced unit fights and moves with the values its reduced side prints."""
from __future__ import annotations

from dataclasses import replace

import pytest

from referee.actions import DirectFire, Move, make_action
from referee.cases import build_game
from referee.classic import classic
from referee.errors import NotStated
from referee.events import UnitReduced, UnitRestored, apply, apply_all, describe
from referee.hexes import Hex
from referee.model import AssaultValue, Game, HexState, Unit, UnitType, Weapon, need

LEOPARD = UnitType(name="Leopard C1", target_type="heavy_armor", steps=2, armor=3, save=5, mp=4,
                   ap=Weapon(fp=4, to_hit=4, range=5), he=Weapon(fp=2, to_hit=5, range=5),
                   abilities=frozenset({"moving_fire"}))
LEOPARD = replace(LEOPARD, reduced=LEOPARD.reduced_side(ap=Weapon(fp=2, to_hit=4, range=5), armor=2, save=6, mp=3))
T64 = UnitType(name="T-64", target_type="heavy_armor", armor=3, save=5, ap=Weapon(fp=4, to_hit=4, range=8))
INFANTRY = UnitType(name="infantry", target_type="troops", steps=2, mp=1, he=Weapon(fp=2, to_hit=5, range=3),
                    assault=AssaultValue(3, 4))
INFANTRY = replace(INFANTRY, reduced=INFANTRY.reduced_side(he=Weapon(fp=1, to_hit=5, range=3),
                                                           assault=AssaultValue(2, 5), mp=1))


def board(strength: str, **units: tuple[UnitType, int]) -> Game:
    """Clear hexes h0..h8 in a row; the NATO units at ``strength``, T-64s for the Pact."""
    hexes = {f"h{q}": HexState(f"h{q}", terrain="clear", at=Hex(q, 0)) for q in range(9)}
    placed = {key: Unit(key, utype, side="pact" if utype is T64 else "nato", hex=f"h{q}",
                        strength="full" if utype is T64 else strength)
              for key, (utype, q) in units.items()}
    return Game(units=placed, hexes=hexes)


def test_the_side_in_effect_follows_strength() -> None:
    unit = Unit("A", LEOPARD, strength="full")
    assert unit.current is LEOPARD
    reduced = replace(unit, strength="reduced")
    assert reduced.current is LEOPARD.reduced
    assert (reduced.current.ap, reduced.current.he, reduced.current.armor, reduced.current.save,
            reduced.current.mp) == (Weapon(2, 4, 5), None, 2, 6, 3)
    # the counter's own facts are the same on both sides
    assert (reduced.current.name, reduced.current.target_type, reduced.current.steps,
            reduced.current.abilities) == ("Leopard C1", "heavy_armor", 2, frozenset({"moving_fire"}))
    assert reduced.current.reduced is None
    assert Unit("A", LEOPARD).current is LEOPARD          # strength not stated: the type as given


def test_a_type_without_reduced_side_is_the_side_shown() -> None:
    """Rule cases state the values of the side a counter shows, with its strength."""
    shown = UnitType(name="T-64", ap=Weapon(fp=3, to_hit=4, range=8))
    assert Unit("T", shown, strength="reduced").current is shown
    assert shown.side("reduced") is shown and shown.side("full") is shown


def test_reduced_side_states_only_what_it_prints() -> None:
    blank = LEOPARD.reduced_side()
    assert (blank.ap, blank.he, blank.aa, blank.assault, blank.armor, blank.save, blank.mp) == (None,) * 7
    assert blank.name == "Leopard C1" and blank.cost is None and blank.reduced is None
    with pytest.raises(NotStated, match="units.A.armor"):
        need(Unit("A", replace(LEOPARD, reduced=blank), strength="reduced").current.armor, "units.A.armor")


def test_direct_fire_uses_the_firers_side_in_effect() -> None:
    ruleset = classic("untold")
    full = ruleset.check(board("full", A=(LEOPARD, 3), T=(T64, 7)), DirectFire(unit="A", target="T", weapon="ap"))
    reduced = ruleset.check(board("reduced", A=(LEOPARD, 3), T=(T64, 7)),
                            DirectFire(unit="A", target="T", weapon="ap"))
    assert (full.values["fp"], full.values["to_hit"]) == (4, 4)
    assert (reduced.values["fp"], reduced.values["to_hit"]) == (2, 4)


def test_a_reduced_side_without_the_weapon_cannot_fire_it() -> None:
    answer = classic("untold").check(board("reduced", A=(LEOPARD, 3), T=(T64, 4)),
                                     DirectFire(unit="A", target="T", weapon="he"))
    full = classic("untold").check(board("full", A=(LEOPARD, 3), T=(T64, 4)),
                                   DirectFire(unit="A", target="T", weapon="he"))
    assert full.values["fp"] == 2
    assert answer.legal is False


def test_defense_uses_the_targets_side_in_effect() -> None:
    ruleset = classic("untold")
    full = ruleset.check(board("full", A=(LEOPARD, 3), T=(T64, 7)), DirectFire(unit="T", target="A", weapon="ap"))
    reduced = ruleset.check(board("reduced", A=(LEOPARD, 3), T=(T64, 7)),
                            DirectFire(unit="T", target="A", weapon="ap"))
    assert (full.values["armor_dice"], full.values["save_number"]) == (3, 5)
    assert (reduced.values["armor_dice"], reduced.values["save_number"]) == (2, 6)


def test_unstated_reduced_values_are_not_stated_not_guessed() -> None:
    blank = replace(LEOPARD, reduced=LEOPARD.reduced_side())
    answer = classic("untold").check(board("reduced", A=(blank, 3), T=(T64, 7)),
                                     DirectFire(unit="A", target="T", weapon="ap"))
    assert answer.legal is None
    assert answer.gaps["fp"] == "not stated: units.A.ap"


def test_movement_factor_of_the_side_in_effect() -> None:
    path = ("h1", "h2", "h3", "h4")
    ruleset = classic("eisenbach")
    assert ruleset.check(board("full", A=(LEOPARD, 0)), Move(unit="A", path=path)).legal is True
    answer = ruleset.check(board("reduced", A=(LEOPARD, 0)), Move(unit="A", path=path))
    assert answer.legal is False
    assert "4 MP is more than the Movement Factor 3" in answer.narrative()


def test_assault_values_of_the_side_in_effect() -> None:
    ruleset = classic("eisenbach")
    full = ruleset.check(board("full", I=(INFANTRY, 0), T=(T64, 1)), make_action("assault", unit="I", target="h1"))
    reduced = ruleset.check(board("reduced", I=(INFANTRY, 0), T=(T64, 1)),
                            make_action("assault", unit="I", target="h1"))
    assert (full.values["fp"], full.values["to_hit"]) == (3, 3)
    assert (reduced.values["fp"], reduced.values["to_hit"]) == (2, 4)


def test_reduction_then_restoration_flips_the_values_in_effect() -> None:
    game = board("full", A=(LEOPARD, 3))
    reduced = apply(game, UnitReduced("A"))
    assert reduced.units["A"].current.ap == Weapon(2, 4, 5)
    restored = apply(reduced, UnitRestored("A"))
    assert restored.units["A"].strength == "full" and restored.units["A"].current is LEOPARD
    assert apply_all(game, [UnitReduced("A"), UnitRestored("A")]) == game
    assert describe(UnitRestored("A"), game) == "Leopard C1 is restored to full strength"


def test_a_case_unit_fights_with_the_values_it_states() -> None:
    """Rule cases give the side a counter shows; a reduced case unit's values are those values."""
    game = build_game({"units": {"A": {"name": "T-64", "strength": "reduced", "ap": {"fp": 3, "to_hit": 4}}}})
    unit = game.units["A"]
    assert unit.type.reduced is None
    assert (unit.strength, unit.current.ap.fp, unit.current.ap.to_hit) == ("reduced", 3, 4)


def test_waw85_direct_fire_uses_the_firers_side_in_effect() -> None:
    from referee.rulesets import get_ruleset
    ruleset = get_ruleset("waw85")
    full = ruleset.check(board("full", A=(LEOPARD, 3), T=(T64, 7)), DirectFire(unit="A", target="T", weapon="ap"))
    reduced = ruleset.check(board("reduced", A=(LEOPARD, 3), T=(T64, 7)),
                            DirectFire(unit="A", target="T", weapon="ap"))
    assert full.values["fp"] == 4
    assert reduced.values["fp"] == 2
