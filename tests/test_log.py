"""Log steps of real logs: order, contents, and the coordinates of every move."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from converter.vassal.commands import MovePiece
from converter.vassal.log import Replay, merge_state, steps
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


def test_replay_moves_stacks_step_by_step() -> None:
    replay = Replay(SavedGame.read(TOUR))
    assert "1116883538766" not in replay.pieces  # the stack is added by a logged step
    replay.run(until=22)
    assert replay.position("1116883538766") == ("Main Map", 504, 504)
    replay.run(until=23)
    assert replay.done == 23
    assert replay.position("1116883538766") == ("Main Map", 552, 552)
    assert replay.members("1116883538766") == ["1116883538765"]
    assert replay.position("1116883538765") == ("Main Map", 552, 552)  # members move with their stack
    replay.run(until=38)
    assert replay.position("1116883538766") == ("Main Map", 600, 744)
    replay.run(until=59)
    assert replay.position("1116884475435") == ("Main Map", 449, 522)
    replay.run(until=74)
    assert replay.position("1116883991883") == ("Main Map", 506, 322)
    replay.run(until=147)
    assert replay.position("1116884066957") == ("Main Map", 562, 354)
    assert replay.position("1116884066956") == ("Main Map", 562, 354)
    replay.run()
    assert replay.done == 191
    # Each of these stacks lost its only piece to a RemovePiece later in the tour.
    assert not {"1116883538766", "1116884475435", "1116883991883", "1116884066957"} & set(replay.pieces)


def test_replay_single_piece_move_gets_a_stack_and_empties_the_old_one() -> None:
    replay = Replay(SavedGame.read(TOUR))
    replay.run()
    goblin = "1116885485425"
    assert replay.position(goblin) == ("Main Map", 161, 157)
    holder = replay.stack_of(goblin)
    assert holder is not None and replay.members(holder) == [goblin]
    stacks = [pid for pid, (type_text, _s) in replay.pieces.items() if type_text == "stack"]
    assert all(replay.members(pid) or pid.startswith("1116882739") for pid in stacks)


def test_replay_applies_adds_removes_and_changes_in_order() -> None:
    game = SavedGame.read(TOUR)
    replay = Replay(game)
    added = removed = 0
    for step in replay:
        for command in step.commands:
            if command.kind == "add":
                assert command.id in replay.pieces or any(
                    c.kind == "remove" and c.id == command.id for s in replay.steps[step.index:] for c in s.commands)
                added += 1
            elif command.kind == "remove":
                assert command.id not in replay.pieces
                removed += 1
    assert (added, removed) == (15, 4)
    logged = [c for s in replay.steps for c in s.commands]
    units = {pid for pid, e in game.pieces.items() if not (e.is_stack or e.is_deck)}
    units |= {c.id for c in logged if c.kind == "add" and c.type_text != "stack"}
    units -= {c.id for c in logged if c.kind == "remove"}
    assert {pid for pid, (t, _s) in replay.pieces.items() if t != "stack" and not t.startswith("deck;")} == units


def test_replay_of_a_2x_log_places_stacked_pieces_with_their_stacks() -> None:
    game = SavedGame.read(CORPUS / "tld-longest-day/logs/0606-1.log")
    replay = Replay(game)
    replay.run(until=200)
    stacks = [pid for pid, (t, _s) in replay.pieces.items() if t == "stack" and replay.members(pid)]
    assert stacks
    for holder in stacks[:50]:
        for member in replay.members(holder):
            if member in replay.pieces:
                assert replay.position(member) == replay.position(holder)


LOGS = [CORPUS / name for name in (
    "vassal-tour/tour.log", "tld-longest-day/logs/0606-1.log", "tld-longest-day/logs/0608-3.log",
    "zxvt-capture-territory/5x5_startup.vlog", "ccn-napoleonics/CCNv4 Tutorial.vlog",
    "vasl-saves-logs/fixtures/analyze-vlog/full.vlog")]


@pytest.mark.parametrize("path", LOGS, ids=[p.name for p in LOGS])
def test_every_corpus_log_replays_to_the_end(path: Path) -> None:
    replay = Replay(SavedGame.read(path))
    replay.run()
    assert replay.done == len(replay.steps) > 0
    for piece_id, holder in list(replay._holder.items())[:200]:
        if piece_id in replay.pieces and replay.pieces[holder][0] == "stack":
            assert replay.position(piece_id) == replay.position(holder)


def test_a_stack_the_log_adds_takes_its_pieces_from_the_stack_that_held_them() -> None:
    """0606-1.log step 11 drops II/508 alone (each client makes a stack of its own for it), step 12
    adds the stack the mover's client made: the piece is in that one only, as VASSAL's
    Stack.insertChild takes a piece from its old parent; step 14 moves it on."""
    replay = Replay(SavedGame.read(CORPUS / "tld-longest-day" / "logs" / "0606-1.log"))
    piece = "1168285239254"
    replay.run(12)
    local = replay.stack_of(piece)
    assert local is not None and local.startswith("replay-stack-")
    replay.run(13)
    assert replay.stack_of(piece) == "1168633839352"
    assert local not in replay.pieces                       # emptied, it left the map
    assert [h for h in replay.pieces if piece in replay.members(h)] == ["1168633839352"]
    replay.run(15)
    assert replay.position(piece) == ("Normandy", 1477, 1536)
    assert [h for h in replay.pieces if piece in replay.members(h)] == [replay.stack_of(piece)]
