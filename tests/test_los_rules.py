"""Classic LOS rules from the rulebook text: Smoke (EG/TUS §8.2) and strings along hexsides
(§7.3), on map positions and on case-style stated facts, each answer with its deciding rule.

TUS §8.2: "This marker blocks LOS, from any elevation, out of, into and through the hex, and
the six adjacent hexes, for all non-adjacent units except as noted on the Move Fire and
Imaging Table ... Any adjacent units can fire into a Smoke hex."
EG §8.2: "This marker blocks LOS at any elevation, into and through that hex and its six
neighboring hexes, for all units not adjacent to it, EXCEPT for the units listed in the
Advanced Imaging column of the Moving Fire Table".
TUS §7.3: "If the thread passes exactly down the side of a blocking hex, such as a City hex,
the fire is not blocked; but if the thread passes down the side of two blocking hexes (i.e.
splitting them), the LOS is blocked. Note that, for purposes of this rule, the second Rough
hex, or combination of Rough hexes and hexes containing Wrecks is considered blocking
terrain." (EG §7.3 says the same.)

Map positions use cube coordinates ("q,r"): the string from 0,0 to 6,0 passes 1,0 ... 5,0;
the string from 0,0 to 4,-2 runs along a hexside spine: between 1,-1 and 1,0, through 2,-1,
between 3,-2 and 3,-1, into 4,-2.
"""
from __future__ import annotations

from typing import Any

import pytest

from referee.actions import make_action
from referee.cases import build_action, build_game
from referee.classic import classic
from referee.hexes import Hex
from referee.model import Game, HexState, Unit, UnitType, Weapon

UNTOLD, EISENBACH = classic("untold"), classic("eisenbach")
BOOKS = pytest.mark.parametrize("ruleset", [UNTOLD, EISENBACH], ids=["TUS", "EG"])

INFANTRY = UnitType(name="MR", target_type="troops")
T72 = UnitType(name="T-72", target_type="heavy_armor", armor=4, save=6, ap=Weapon(fp=4, to_hit=5, range=8))
ABRAMS = UnitType(name="Abrams", target_type="heavy_armor", armor=4, save=5, ap=Weapon(fp=4, to_hit=4, range=8))


def board(attacker: str, target: str, *, terrain: dict[str, str] | None = None,
          markers: dict[str, set[str]] | None = None, utype: UnitType = INFANTRY,
          span: range = range(-1, 9)) -> Game:
    """Clear hexes q, r in ``span`` x -4..4, an attacker A (Pact) and a target T (NATO)."""
    hexes = {}
    for q in span:
        for r in range(-4, 5):
            name = f"{q},{r}"
            hexes[name] = HexState(name, terrain=(terrain or {}).get(name, "clear"), at=Hex(q, r),
                                   markers=frozenset((markers or {}).get(name, ())))
    return Game(units={"A": Unit("A", utype, side="pact", hex=attacker),
                       "T": Unit("T", INFANTRY, side="nato", hex=target)}, hexes=hexes)


def los(game: Game, ruleset=UNTOLD) -> tuple[bool, str, str]:
    """(blocked, the deciding rule as the book cites it, why)."""
    answer = ruleset.check(game, make_action("los", unit="A", target="T"))
    assert not answer.gaps, answer.gaps
    (reason,) = answer.reasons
    return answer.values["blocked"], reason.section, reason.text


def stated(given: dict[str, Any], ruleset=UNTOLD) -> tuple[bool | None, str, str]:
    """A case-style situation (FORMAT.md ``given``) asked ``los A T``."""
    given = {"query": {"action": "los", "unit": "A", "target": "T"}, **given}
    answer = ruleset.check(build_game(given), build_action(given["query"]))
    if answer.gaps:
        return None, "", answer.gaps["*"]
    (reason,) = answer.reasons
    return answer.values["blocked"], reason.section, reason.text


GROUND = {"A": {"level": 0}, "T": {"level": 0}}


# -- §8.2 Smoke on the map ---------------------------------------------------------------------

@BOOKS
def test_smoke_blocks_through_its_own_hex(ruleset) -> None:
    game = board("0,0", "6,0", markers={"3,0": {"smoke_2"}})
    assert los(game, ruleset) == (True, f"{ruleset.book.short} §8.2", "Smoke blocks the LOS through 2,0, next to the Smoke in 3,0")


@BOOKS
def test_smoke_blocks_through_a_hex_beside_it(ruleset) -> None:
    # 0,0 -> 6,0 passes 3,0 and 4,0, and the Smoke in 4,-1 is next to both
    game = board("0,0", "6,0", markers={"4,-1": {"smoke_1"}})
    assert los(game, ruleset) == (True, f"{ruleset.book.short} §8.2", "Smoke blocks the LOS through 3,0, next to the Smoke in 4,-1")


@BOOKS
def test_smoke_two_hexes_off_the_string_does_not_block(ruleset) -> None:
    game = board("0,0", "6,0", markers={"4,-2": {"smoke_2"}})
    assert los(game, ruleset) == (False, f"{ruleset.book.short} §7.1", "no blocking terrain")


@BOOKS
def test_smoke_blocks_into_its_hex_and_the_hexes_around_it(ruleset) -> None:
    into = board("0,0", "6,0", markers={"6,0": {"smoke_2"}})
    assert los(into, ruleset) == (True, f"{ruleset.book.short} §8.2", "Smoke blocks the LOS through 5,0, next to the Smoke in 6,0")
    beside = board("0,0", "6,-3", markers={"7,-3": {"smoke_2"}})     # the target hex is next to the Smoke
    assert los(beside, ruleset) == (True, f"{ruleset.book.short} §8.2", "Smoke blocks the LOS into 6,-3, next to the Smoke in 7,-3")


def test_seeing_out_of_the_screen_differs_by_book() -> None:
    """TUS: "out of, into and through"; EG: "into and through" only."""
    game = board("0,0", "6,0", markers={"-1,0": {"smoke_2"}})
    assert los(game, UNTOLD) == (True, "TUS §8.2", "Smoke blocks the LOS out of 0,0, next to the Smoke in -1,0")
    assert los(game, EISENBACH) == (False, "EG §7.1", "no blocking terrain")


@BOOKS
def test_adjacent_units_see_into_the_smoke(ruleset) -> None:
    game = board("2,0", "3,0", markers={"3,0": {"smoke_2"}})
    assert los(game, ruleset) == (False, f"{ruleset.book.short} §7.0", "an attacker can always attack an adjacent unit")


def test_thermal_sights_see_through_smoke_in_eisenbach_gap_only() -> None:
    game = board("0,0", "6,0", markers={"3,0": {"smoke_2"}}, utype=ABRAMS)
    assert los(game, EISENBACH) == (False, "EG §7.1", "no blocking terrain")
    assert los(game, UNTOLD) == (True, "TUS §8.2", "Smoke blocks the LOS through 2,0, next to the Smoke in 3,0")


@BOOKS
def test_smoke_beside_a_hexside_the_string_runs_along(ruleset) -> None:
    # 0,0 -> 4,-2 runs between 3,-2 and 3,-1: Smoke in 3,-2 is next to 2,-1, which the string passes
    game = board("0,0", "4,-2", markers={"3,-2": {"smoke_2"}})
    assert los(game, ruleset) == (True, f"{ruleset.book.short} §8.2", "Smoke blocks the LOS through 2,-1, next to the Smoke in 3,-2")
    # Smoke in 1,1 screens 1,0 beside the first run but no hex the string passes: along the screen's edge
    edge = board("0,0", "4,-2", markers={"1,1": {"smoke_2"}})
    assert los(edge, ruleset) == (False, f"{ruleset.book.short} §7.1", "no blocking terrain")


def test_from_a_smoke_hex_between_two_screened_hexes() -> None:
    """EG does not block "out of" the Smoke, but a string leaving the Smoke hex along a
    spine runs between two of its neighbours, both screened: blocked as between two
    blocking hexes (§7.3); TUS blocks it out of the hex first."""
    game = board("0,0", "4,-2", markers={"0,0": {"smoke_2"}})
    assert los(game, EISENBACH) == (True, "EG §8.2", "the LOS runs between 1,-1 and 1,0, both screened by Smoke")
    assert los(game, UNTOLD) == (True, "TUS §8.2", "Smoke blocks the LOS out of 0,0")


def test_direct_fire_is_refused_through_the_screen() -> None:
    game = board("0,0", "6,0", markers={"4,-1": {"smoke_2"}}, utype=T72)
    fire = UNTOLD.check(game, make_action("direct_fire", unit="A", target="T", weapon="ap"))
    assert fire.legal is False
    assert "no line of sight to MR: Smoke blocks the LOS through 3,0, next to the Smoke in 4,-1 (TUS §8.2)" in \
        [str(r) for r in fire.reasons]


# -- §8.2 Smoke stated as facts ------------------------------------------------------------------

@BOOKS
def test_stated_smoke_hex_between_blocks_by_8_2(ruleset) -> None:
    given = {"units": GROUND, "situation": {"intervening": [{"terrain": "clear", "markers": ["smoke_2"]}]}}
    assert stated(given, ruleset) == (True, f"{ruleset.book.short} §8.2", "Smoke blocks the LOS through a hex between")


@BOOKS
def test_stated_hex_between_next_to_smoke(ruleset) -> None:
    given = {"units": GROUND, "hexes": [{"id": "s", "markers": ["smoke_1"]}],
             "situation": {"intervening": [{"id": "b", "terrain": "clear", "adjacent_to": ["s"]}]}}
    assert stated(given, ruleset) == (True, f"{ruleset.book.short} §8.2", "Smoke blocks the LOS through b, next to the Smoke in s")
    # the same adjacency stated on the Smoke hex instead
    given = {"units": GROUND, "hexes": [{"id": "s", "markers": ["smoke_1"], "adjacent_to": ["b"]}, {"id": "b"}],
             "situation": {"intervening": [{"id": "b", "terrain": "clear"}]}}
    assert stated(given, ruleset) == (True, f"{ruleset.book.short} §8.2", "Smoke blocks the LOS through b, next to the Smoke in s")


@BOOKS
def test_stated_target_in_smoke(ruleset) -> None:
    far = {"units": {"A": {"level": 0}, "T": {"level": 0, "hex": "t", "adjacent": False}},
           "hexes": [{"id": "t", "terrain": "clear", "markers": ["smoke_2"]}], "situation": {"intervening": []}}
    assert stated(far, ruleset) == (True, f"{ruleset.book.short} §8.2", "Smoke blocks the LOS into t")
    near = {**far, "units": {"A": {"level": 0}, "T": {"level": 0, "hex": "t", "distance": 1}}}
    assert stated(near, ruleset) == (False, f"{ruleset.book.short} §7.0", "an attacker can always attack an adjacent unit")
    unknown = {**far, "units": {"A": {"level": 0}, "T": {"level": 0, "hex": "t"}}}
    assert stated(unknown, ruleset) == (None, "", "not stated: units.T.distance")


def test_stated_attacker_next_to_smoke_differs_by_book() -> None:
    given = {"units": {"A": {"level": 0, "hex": "a"}, "T": {"level": 0, "adjacent": False}},
             "hexes": [{"id": "a", "terrain": "clear", "adjacent_to": ["s"]}, {"id": "s", "markers": ["smoke_2"]}],
             "situation": {"intervening": [{"terrain": "clear"}]}}
    assert stated(given, UNTOLD) == (True, "TUS §8.2", "Smoke blocks the LOS out of a, next to the Smoke in s")
    assert stated(given, EISENBACH) == (False, "EG §7.1", "no blocking terrain")


@BOOKS
def test_stated_smoke_beside_a_hexside_run(ruleset) -> None:
    given = {"units": GROUND, "situation": {"intervening": [{"terrain": "clear"}],
                                            "along_hexsides": [{"terrain": ["clear", "clear"], "markers": ["smoke_2"]}]}}
    assert stated(given, ruleset) == (True, f"{ruleset.book.short} §8.2",
                                      "Smoke in a hex beside hexside 1 beside the hexside the LOS runs along: the hexes "
                                      "it passes there are next to it")


def test_stated_thermal_sights() -> None:
    given = {"units": {"A": {"level": 0, "name": "Abrams"}, "T": {"level": 0}},
             "situation": {"intervening": [{"terrain": "clear", "markers": ["smoke_2"]}]}}
    assert stated(given, EISENBACH) == (False, "EG §7.1", "no blocking terrain")
    assert stated(given, UNTOLD)[0] is True
    given["units"]["A"] = {"level": 0, "abilities": ["thermal"]}
    assert stated(given, UNTOLD) == (False, "TUS §7.1", "no blocking terrain")


@BOOKS
def test_stated_smoke_blocks_from_any_elevation(ruleset) -> None:
    hills = {"units": {"A": {"level": 1}, "T": {"level": 1}},
             "situation": {"intervening": [{"terrain": "clear", "markers": ["smoke_1"]}]}}
    assert stated(hills, ruleset) == (True, f"{ruleset.book.short} §8.2", "Smoke blocks the LOS through a hex between")
    down = {"units": {"A": {"level": 1}, "T": {"level": 0}},
            "situation": {"intervening": [{"terrain": "clear", "markers": ["smoke_1"]}]}}
    assert stated(down, ruleset)[:2] == (True, f"{ruleset.book.short} §8.2")


# -- §7.3 strings along hexsides on the map -------------------------------------------------------

@BOOKS
def test_along_the_side_of_one_blocking_hex_is_clear(ruleset) -> None:
    game = board("0,0", "4,-2", terrain={"1,-1": "city"})
    assert los(game, ruleset) == (False, f"{ruleset.book.short} §7.1", "no blocking terrain")


@BOOKS
def test_between_two_blocking_hexes_is_blocked(ruleset) -> None:
    game = board("0,0", "4,-2", terrain={"3,-2": "woods", "3,-1": "city"})
    assert los(game, ruleset) == (True, f"{ruleset.book.short} §7.3",
                                  "the LOS runs along the hexside between 3,-2 and 3,-1: two blocking hexes")


@BOOKS
def test_the_second_rough_hex_is_blocking_terrain(ruleset) -> None:
    cut = "the LOS runs along the hexside between 1,-1 and 1,0: two blocking hexes"
    assert los(board("0,0", "4,-2", terrain={"1,-1": "rough", "1,0": "rough"}), ruleset) == \
        (True, f"{ruleset.book.short} §7.3", cut)
    assert los(board("0,0", "4,-2", terrain={"1,-1": "rough"}, markers={"1,0": {"wrecks"}}), ruleset) == \
        (True, f"{ruleset.book.short} §7.3", cut)
    # a rough hex beside a woods hex is the first rough hex: only one blocking hex beside the string
    assert los(board("0,0", "4,-2", terrain={"1,-1": "rough", "1,0": "woods"}), ruleset) == \
        (False, f"{ruleset.book.short} §7.1", "no blocking terrain")
    # ... unless the string passes another rough hex: then it is the second
    assert los(board("0,0", "4,-2", terrain={"1,-1": "rough", "1,0": "woods", "2,-1": "rough"}), ruleset) == \
        (True, f"{ruleset.book.short} §7.3", cut)


def test_between_hill_level_units_the_hill_column_decides() -> None:
    """§7.2: between hill-level units only wooded hills (and two rough/wreck hexes) block."""
    hills = {"0,0": "hill", "4,-2": "hill"}
    woods = board("0,0", "4,-2", terrain={**hills, "3,-2": "woods", "3,-1": "woods"})
    assert los(woods) == (False, "TUS §7.2", "hill to hill: crest lines ignored")
    wooded = board("0,0", "4,-2", terrain={**hills, "3,-2": "wooded_hill", "3,-1": "wooded_hill"})
    assert los(wooded) == (True, "TUS §7.3", "the LOS runs along the hexside between 3,-2 and 3,-1: two blocking hexes")


def test_down_from_a_hill_woods_beside_the_string_block_only_right_before_the_target() -> None:
    """§7.2: a ground target "immediately behind (i.e. adjacent to) a woods hex"."""
    near = board("0,0", "4,-2", terrain={"0,0": "hill", "3,-2": "woods", "3,-1": "woods"})
    assert los(near) == (True, "TUS §7.3", "the LOS runs along the hexside between 3,-2 and 3,-1: two blocking hexes")
    far = board("0,0", "4,-2", terrain={"0,0": "hill", "1,-1": "woods", "1,0": "woods"})
    assert los(far) == (False, "TUS §7.2", "hill to ground: nothing hides the target")


@BOOKS
def test_at_the_board_edge_one_hex_beside_the_string(ruleset) -> None:
    # span 0..4: the run between 3,-2 and 3,-1 is inside; q -1 is off the board
    game = board("4,-2", "0,0", terrain={"3,-2": "woods"}, span=range(0, 5))
    assert los(game, ruleset) == (False, f"{ruleset.book.short} §7.1", "no blocking terrain")


def test_direct_fire_is_refused_between_two_blocking_hexes() -> None:
    game = board("0,0", "4,-2", terrain={"3,-2": "woods", "3,-1": "woods"}, utype=T72)
    fire = UNTOLD.check(game, make_action("direct_fire", unit="A", target="T", weapon="ap"))
    assert fire.legal is False
    assert "no line of sight to MR: the LOS runs along the hexside between 3,-2 and 3,-1: two blocking hexes (TUS §7.3)" \
        in [str(r) for r in fire.reasons]


# -- §7.3 stated as facts -------------------------------------------------------------------------

def sides(*pairs: list[str], **extra: Any) -> dict[str, Any]:
    return {"units": GROUND, "situation": {"intervening": [], **extra,
                                           "along_hexsides": [{"terrain": list(p)} for p in pairs]}}


@BOOKS
def test_stated_hexsides(ruleset) -> None:
    book = ruleset.book.short
    assert stated(sides(["woods", "city"]), ruleset) == (
        True, f"{book} §7.3", "the LOS runs along the hexside between the woods hex beside hexside 1 and "
                              "the city hex beside hexside 1: two blocking hexes")
    assert stated(sides(["woods", "clear"]), ruleset) == (False, f"{book} §7.1", "no blocking terrain")
    assert stated(sides(["rough", "rough"]), ruleset)[:2] == (True, f"{book} §7.3")
    assert stated(sides(["rough", "woods"]), ruleset) == (False, f"{book} §7.1", "no blocking terrain")
    assert stated(sides(["rough", "woods"], intervening=[{"terrain": "rough"}]), ruleset)[:2] == (True, f"{book} §7.3")
    assert stated(sides(["woods", "clear"], ["clear", "city"]), ruleset) == (False, f"{book} §7.1", "no blocking terrain")


@BOOKS
def test_stated_hexside_facts_that_do_not_settle_it(ruleset) -> None:
    # one side stated and blocking: the other side decides
    assert stated(sides(["woods"]), ruleset) == (
        None, "", "not stated: situation.along_hexsides: the terrain of the other hex beside hexside 1")
    # one side stated and clear: nothing to decide
    assert stated(sides(["clear"]), ruleset) == (False, f"{ruleset.book.short} §7.1", "no blocking terrain")
    # a Wreck beside a rough/clear run: which hex holds it decides
    given = {"units": GROUND, "situation": {"intervening": [],
                                            "along_hexsides": [{"terrain": ["rough", "clear"], "markers": ["wrecks"]}]}}
    assert stated(given, ruleset) == (
        None, "", "not stated: situation.along_hexsides: the terrain of the rough hex beside hexside 1")
    # ... but not beside a rough/rough one
    given["situation"]["along_hexsides"] = [{"terrain": ["rough", "rough"], "markers": ["wrecks"]}]
    assert stated(given, ruleset)[:2] == (True, f"{ruleset.book.short} §7.3")


# -- §7.2 crest lines on the map ------------------------------------------------------------------

def hill_board(attacker: str, target: str) -> Game:
    """A hill of the hexes within 2 of 0,0, its crest line drawn on every side facing off it."""
    game = board(attacker, target, span=range(-3, 9))
    hexes = dict(game.hexes)
    for name, state in game.hexes.items():
        if state.at.distance(Hex(0, 0)) <= 2:
            sides = {d: frozenset({"crest"}) for d, n in enumerate(state.at.neighbors()) if n.distance(Hex(0, 0)) > 2}
            hexes[name] = HexState(name, terrain="hill", at=state.at, hexsides=sides)
    return Game(units=game.units, hexes=hexes)


def test_a_crest_line_between_a_hill_and_a_ground_target() -> None:
    crossed = (True, "TUS §7.2", "the LOS crosses a crest line not adjacent to either unit")
    assert los(hill_board("0,0", "5,0")) == crossed
    # along a spine the string leaves the hill through a corner of 2,-1, between two crest sides
    assert los(hill_board("0,0", "6,-3")) == crossed
    # next to the crest line, the attacker may ignore it
    assert los(hill_board("2,0", "6,0")) == (False, "TUS §7.2", "hill to ground: nothing hides the target")


def test_the_situation_helpers_read_the_same_line() -> None:
    from referee import situation
    from referee.ruleset import Ctx
    from referee.verdict import Answer
    game = hill_board("0,0", "6,-3")
    ctx = Ctx(UNTOLD, game, make_action("los", unit="A", target="T"), None, Answer("los", UNTOLD.book))
    assert situation.crest(ctx, "A", "T") == (True, False)
    intervening, sides = situation.line(ctx, "A", "T")
    assert intervening == [{"id": "2,-1", "terrain": "hill", "markers": [], "to_target": 4, "own_hill": True},
                           {"id": "4,-2", "terrain": "clear", "markers": [], "to_target": 2}]
    assert sides == [{"terrain": ["hill", "hill"]}, {"terrain": ["clear", "clear"]}, {"terrain": ["clear", "clear"]}]


def test_a_board_spread_far_apart_gives_the_same_answers() -> None:
    """Hexes a thousand columns away from the rest: the board is indexed by a dictionary,
    in memory proportional to its hexes, and answers as the flat array does."""
    from referee.los_board import board_of
    near = board("0,0", "4,-2", terrain={"3,-2": "woods", "3,-1": "woods", "2,0": "rough"})
    far = Game(units=near.units, hexes={**near.hexes, "1000,1000": HexState("1000,1000", terrain="clear",
                                                                             at=Hex(1000, 1000))})
    assert board_of(near.hexes).dense and not board_of(far.hexes).dense
    assert len(board_of(far.hexes).states) == len(far.hexes) + 1
    for target in ("4,-2", "6,0", "5,-3", "0,4"):
        moved = {"T": Unit("T", INFANTRY, side="nato", hex=target)}
        assert los(Game(units={**near.units, **moved}, hexes=near.hexes)) == \
            los(Game(units={**far.units, **moved}, hexes=far.hexes))
    assert los(far) == (True, "TUS §7.3", "the LOS runs along the hexside between 3,-2 and 3,-1: two blocking hexes")


def test_hexes_apart_counts_on_the_map_and_knows_when_it_cannot() -> None:
    """The one count of hexes between two hexes every procedure uses (situation.hexes_apart):
    on the map; ``None`` for a hex without a map position, an unknown hex or none at all."""
    from referee.situation import hexes_apart
    game = board("0,0", "3,0")
    game.hexes["named"] = HexState("named", terrain="clear")
    assert [hexes_apart(game, "0,0", h) for h in ("0,0", "1,0", "3,0", "3,-3", "0,4")] == [0, 1, 3, 3, 4]
    assert [hexes_apart(game, "0,0", h) for h in ("named", "nowhere", None)] == [None, None, None]
