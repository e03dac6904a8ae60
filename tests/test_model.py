"""The canonical model: frozen values that change only by applying events."""
from __future__ import annotations

import dataclasses
from types import MappingProxyType

import pytest

from referee.errors import NotStated
from referee.events import (MarkerFlipped, MarkerPlaced, MarkerRemoved, StatusChanged, UnitDisrupted,
                            UnitEliminated, UnitMoved, UnitPlaced, UnitRallied, UnitReduced, UnitRemoved,
                            apply, apply_all, describe, result_of)
from referee.model import Game, HexState, Status, Unit, UnitType, Weapon, need


def _game() -> Game:
    t64 = UnitType(name="T-64", target_type="heavy_armor", armor=3, save=5,
                   ap=Weapon(fp=4, to_hit=4, range=8))
    return Game(units={"T": Unit("T", t64, side="pact", hex="t", strength="full"),
                       "I": Unit("I", UnitType(name="infantry", target_type="troops"), hex="t")},
                hexes={"t": HexState("t", terrain="woods")})


def test_values_are_frozen() -> None:
    game = _game()
    with pytest.raises(dataclasses.FrozenInstanceError):
        game.units["T"].strength = "reduced"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        game.units["T"].status.disrupted = True  # type: ignore[misc]


def test_apply_returns_a_new_game_and_leaves_the_old_one() -> None:
    game = _game()
    after = apply_all(game, [UnitDisrupted("T"), UnitReduced("T"), MarkerPlaced("t", "wrecks")])
    assert after.units["T"].status.disrupted is True
    assert after.units["T"].strength == "reduced"
    assert after.hexes["t"].markers == frozenset({"wrecks"})
    assert game.units["T"].status.disrupted is False
    assert game.units["T"].strength == "full"
    assert game.hexes["t"].markers == frozenset()
    assert after.units["I"] is game.units["I"]          # untouched counters are shared


def test_each_event_changes_exactly_its_field() -> None:
    game = _game()
    assert apply(game, UnitEliminated("T")).units["T"].location == "eliminated"
    assert apply(game, UnitRemoved("T", "cup")).units["T"].location == "cup"
    assert apply(game, UnitMoved("T", "u")).units["T"].hex == "u"
    assert apply(game, StatusChanged("T", "ammo", "depleted_2")).units["T"].status.ammo == "depleted_2"
    placed = apply(apply(game, UnitEliminated("T")), UnitPlaced("T", "v", "reduced")).units["T"]
    assert (placed.location, placed.hex, placed.strength) == ("map", "v", "reduced")
    rallied = apply(apply(game, UnitDisrupted("T")), UnitRallied("T")).units["T"]
    assert rallied.status == Status()
    smoked = apply(apply(game, MarkerPlaced("t", "smoke_2")), MarkerFlipped("t", "smoke_2", "smoke_1"))
    assert smoked.hexes["t"].markers == frozenset({"smoke_1"})
    assert apply(smoked, MarkerRemoved("t", "smoke_1")).hexes["t"].markers == frozenset()


def test_markers_go_on_hexes_the_game_does_not_list_yet() -> None:
    after = apply(Game(), MarkerPlaced("x9", "mines"))
    assert after.hexes["x9"] == HexState("x9", markers=frozenset({"mines"}))


@pytest.mark.parametrize("events, result", [
    ([], "none"),
    ([UnitDisrupted("T")], "disrupted"),
    ([UnitReduced("T")], "reduced"),
    ([UnitDisrupted("T"), UnitReduced("T")], "disrupted_and_reduced"),
    ([UnitDisrupted("T"), UnitReduced("T"), UnitEliminated("T")], "eliminated"),
    ([UnitDisrupted("I")], "none"),
])
def test_result_of(events: list, result: str) -> None:
    assert result_of("T", events) == result


def test_unknown_unit_is_not_stated() -> None:
    with pytest.raises(NotStated, match="not stated: units.Z"):
        Game().unit("Z")
    with pytest.raises(NotStated, match="not stated: weapon.range"):
        need(None, "weapon.range")
    assert need(0, "anything") == 0


def test_stack_lists_counters_on_the_map_in_stack_order() -> None:
    game = apply(_game(), UnitEliminated("I"))
    assert [u.key for u in game.stack("t")] == ["T"]
    ordered = Game(units={"B": Unit("B", hex="h", stack_order=1), "A": Unit("A", hex="h", stack_order=2)})
    assert [u.key for u in ordered.stack("h")] == ["B", "A"]
    assert game.stack(None) == []


def test_attached_lists_the_units_attached_to_a_key_in_the_order_of_the_units() -> None:
    # §1.3.1 / 001 §1.3.6: a unit's Support Weapons and leader. A read-only Game (what events and
    # the importer make) answers from an index built once; a plain dict is read each time.
    sw = UnitType(name="MG", target_type="support_weapon")
    units = {"W2": Unit("W2", sw, hex="h", attached_to="I"), "I": Unit("I", hex="h"),
             "L": Unit("L", UnitType(name="Lt", target_type="leader"), hex="h", attached_to="I"),
             "W1": Unit("W1", sw, hex="g", attached_to="J")}
    plain = Game(units=units)
    read_only = apply(plain, UnitMoved("I", "h"))
    assert isinstance(read_only.units, MappingProxyType)
    for game in (plain, read_only):
        assert [u.key for u in game.attached("I")] == ["W2", "L"]
        assert [u.key for u in game.attached("J")] == ["W1"]
        assert game.attached("W2") == []
    read_only.attached("I").clear()                        # the caller's own list
    assert [u.key for u in read_only.attached("I")] == ["W2", "L"]
    moved = read_only.with_unit(dataclasses.replace(read_only.units["W1"], attached_to="I"))
    assert [u.key for u in moved.attached("I")] == ["W2", "L", "W1"]
    assert moved.attached("J") == []
    assert [u.key for u in read_only.attached("J")] == ["W1"]



def test_passengers_are_the_units_carried_on_the_map_in_the_order_of_the_units() -> None:
    # 001/002 §5.2, WaW85 §9.8: a read-only Game answers from an index built once and carried
    # over by with_unit; a plain dict is read each time.
    units = {"P2": Unit("P2", hex="h", carried_by="T"), "T": Unit("T", hex="h"),
             "P1": Unit("P1", hex="h", carried_by="T"), "Q": Unit("Q", hex="g", carried_by="U"),
             "X": Unit("X", hex=None, location="off_map", carried_by="T")}
    plain = Game(units=units)
    read_only = apply(plain, UnitMoved("T", "h"))
    assert isinstance(read_only.units, MappingProxyType)
    for game in (plain, read_only):
        assert [u.key for u in game.passengers("T")] == ["P2", "P1"]
        assert [u.key for u in game.passengers("U")] == ["Q"]
        assert game.passengers("P1") == []
    moved = apply(read_only, UnitMoved("P1", "k"))          # still carried, now in k
    assert [(u.key, u.hex) for u in moved.passengers("T")] == [("P2", "h"), ("P1", "k")]
    unloaded = moved.with_unit(dataclasses.replace(moved.units["P2"], carried_by=None))
    assert [u.key for u in unloaded.passengers("T")] == ["P1"]
    boarded = unloaded.with_unit(dataclasses.replace(unloaded.units["Q"], carried_by="T"))
    assert [u.key for u in boarded.passengers("T")] == ["P1", "Q"] and boarded.passengers("U") == []
    assert [u.key for u in read_only.passengers("T")] == ["P2", "P1"]

def test_describe_names_counters_by_their_printed_name() -> None:
    game = _game()
    assert describe(UnitReduced("T"), game) == "T-64 is Reduced"
    assert describe(MarkerPlaced("t", "wrecks"), game) == "Wrecks marker placed in t"
    assert describe(StatusChanged("T", "ops_complete", True), game) == "T-64 is Ops Complete"
    assert describe(StatusChanged("T", "ops_complete", False), game) == "T-64 is no longer Ops Complete"


def test_a_game_made_by_with_unit_stacks_its_hexes_as_a_fresh_game_does() -> None:
    """``with_unit`` (and ``with_hex``) carry the hex and attachment indexes of the Game it comes from over with the one unit
    replaced: every stack, after any run of moves, eliminations and returns, equals the
    stack a Game built afresh from the same units gives (and the earlier Game is untouched)."""
    import random
    rng = random.Random(7)
    hexes = ["A1", "A2", "B1", None]
    units = {f"u{i}": Unit(f"u{i}", UnitType(name=f"U{i}"), hex=rng.choice(hexes[:3]), stack_order=rng.choice([None, 1, 2]))
             for i in range(12)}
    game = Game(units=MappingProxyType(dict(units)))
    assert [u.key for u in game.stack("A1")] == [u.key for u in Game(units=MappingProxyType(dict(units))).stack("A1")]
    for _ in range(300):
        before = {h: [u.key for u in game.stack(h)] for h in hexes[:3]}
        key = rng.choice(sorted(units))
        holders = [u.key for u in game.attached("u0")], [u.key for u in game.attached("u1")]
        moved = Unit(key, UnitType(name=key.upper()), hex=rng.choice(hexes),
                     location=rng.choice(["map", "map", "eliminated"]), stack_order=rng.choice([None, 1, 2]),
                     attached_to=rng.choice([None, None, "u0", "u1"]), strength=rng.choice(["full", "reduced"]))
        after = game.with_unit(moved)
        if rng.random() < 0.2:
            after = after.with_hex(HexState("A1", terrain=rng.choice(["clear", "woods"])))
        fresh = Game(units=MappingProxyType(dict(after.units)), hexes=after.hexes)
        for h in hexes[:3]:
            assert after.stack(h) == fresh.stack(h)
            assert [u.key for u in game.stack(h)] == before[h]
        for holder in ("u0", "u1"):
            assert after.attached(holder) == fresh.attached(holder)
        assert ([u.key for u in game.attached("u0")], [u.key for u in game.attached("u1")]) == holders
        game = after


class _CountingUnits(dict):
    """A unit table that counts how often every unit is read (``values()``)."""

    reads = 0

    def values(self):  # type: ignore[override]
        type(self).reads += 1
        return super().values()


def _riding_units() -> dict[str, Unit]:
    # a Transport carrying a platoon with its SW and Leader, the Transport's own SW and an HQ
    # deployed to it, a second Passenger, an HQ deployed to the platoon, a counter off the map
    sw, leader, hq = (UnitType(name=n, target_type=t) for n, t in
                      (("MG", "support_weapon"), ("Lt", "leader"), ("HQ", "hq")))
    return {"H": Unit("H", hq, hex="h", attached_to="TR"), "L": Unit("L", leader, hex="h", attached_to="P"),
            "TR": Unit("TR", hex="h"), "W": Unit("W", sw, hex="h", attached_to="TR"),
            "S": Unit("S", sw, hex="h", attached_to="P"), "P": Unit("P", hex="h", carried_by="TR"),
            "Q": Unit("Q", hq, hex="h", attached_to="P"), "P2": Unit("P2", hex="h", carried_by="TR"),
            "X": Unit("X", sw, hex=None, location="eliminated", attached_to="TR")}


def test_riders_are_passengers_then_support_weapons_leaders_and_hqs_each_with_its_own() -> None:
    # WaW85 §9.2, §9.8.1; EG/TUS §5.2, §1.3.5, 001 §1.3.6: one mechanism for both rulesets.
    # Each rider is followed by its own riders; the counters stacked on one unit go SW, Leader,
    # HQ whatever the order of the units; off the map, nothing rides.
    plain = Game(units=_riding_units())
    read_only = apply(plain, UnitMoved("TR", "h"))
    for game in (plain, read_only):
        assert [u.key for u in game.riders("TR")] == ["P", "S", "L", "Q", "P2", "W", "H"]
        assert [u.key for u in game.riders("P")] == ["S", "L", "Q"]
        # EG/TUS §1.3.3.1: an HQ deployed with a unit moves only when moved with it
        assert [u.key for u in game.riders("TR", deployed_hqs=False)] == ["P", "S", "L", "P2", "W"]
        assert game.riders("W") == []
    aboard = read_only.with_unit(dataclasses.replace(read_only.units["H"], attached_to=None, carried_by="TR"))
    assert [u.key for u in aboard.riders("TR", deployed_hqs=False)] == ["P", "S", "L", "P2", "H", "W"]  # §5.2


def test_riders_read_the_indexes_not_every_unit() -> None:
    # a read-only Game builds its indexes by transport and by host once; riders then reads no unit
    units = _CountingUnits(_riding_units())
    game = Game(units=MappingProxyType(units))
    game.riders("TR")
    built = _CountingUnits.reads
    assert built <= 2                           # the two indexes, once each
    for key in ("TR", "P", "W", "H"):
        game.riders(key)
        game.riders(key, deployed_hqs=False)
    assert _CountingUnits.reads == built
