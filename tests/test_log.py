"""Log steps of real logs: order, contents, and the coordinates of every move."""
from __future__ import annotations

from collections import Counter

from converter.vassal.commands import MovePiece
from converter.vassal.log import merge_state, steps
from converter.vassal.save import SavedGame
from tests.test_corpus_roundtrip import CORPUS

TOUR = CORPUS / "vassal-tour" / "tour.log"


def test_tour_has_191_steps_in_file_order() -> None:
    tour = steps(SavedGame.read(TOUR))
    assert [s.index for s in tour] == list(range(191))
    assert tour[0].commands[0].message.startswith("<rk> - To run through this tour again")
    kinds = Counter(c.kind for s in tour for c in s.commands)
    assert kinds == Counter({"chat": 90, "change": 43, "move": 32, "add": 15, "remove": 4, "boardpicker": 3})
    assert sum(1 for s in tour if not s.commands) == 4  # NullCommand wrappers of compound steps


def test_tour_moves_have_old_and_new_coordinates() -> None:
    moves = [(s.index, m) for s in steps(SavedGame.read(TOUR)) for m in s.moves]
    assert len(moves) == 32
    index, first = moves[0]
    assert index == 22
    assert (first.id, first.old_map, first.old_x, first.old_y, first.new_map, first.new_x, first.new_y) == (
        "1116883538766", "Main Map", 504, 504, "Main Map", 552, 552)
    index, plane = moves[10]
    assert index == 69
    assert (plane.id, plane.old_x, plane.old_y, plane.new_x, plane.new_y, plane.new_underneath, plane.player) == (
        "1116883991883", 337, 419, 393, 386, None, "rkinney's password")
    index, last = moves[-1]
    assert index == 185
    assert (last.id, last.old_x, last.old_y, last.new_x, last.new_y) == ("1116885485425", 184, 230, 161, 157)
    for _index, move in moves:
        assert move.old_map == move.new_map == "Main Map"
    # Each move starts where the previous move of the same piece ended.
    where: dict[str, tuple[int, int]] = {}
    for _index, move in moves:
        if move.id in where:
            assert where[move.id] == (move.old_x, move.old_y)
        where[move.id] = (move.new_x, move.new_y)


def test_big_logs_step_counts() -> None:
    for name, count in [("tld-longest-day/logs/0606-1.log", 2213), ("tld-longest-day/logs/0608-3.log", 3486),
                        ("zxvt-capture-territory/5x5_startup.vlog", 14)]:
        game = SavedGame.read(CORPUS / name)
        assert len(steps(game)) == count, name
        assert all(isinstance(m, MovePiece) for s in steps(game) for m in s.moves)


def test_change_merges_only_traits_that_changed() -> None:
    current = "A\tB\\\tmap;1;2"
    old = "A\tX\\\tmap;1;2"
    new = "A\tY\\\tmap;9;9"
    # The first trait did not change between old and new: it keeps its current value;
    # the second and the BasicPiece changed: they take the new values.
    assert merge_state("Z\tB\\\tmap;1;2", new, old) == "Z\tY\\\tmap;9;9"
    assert merge_state(current, new, None) == new
    assert merge_state(current, "only", old) == "only"  # shapes differ: the whole new state
