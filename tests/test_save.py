"""SavedGame: the piece index of real saves, and edits that round-trip through write and read."""
from __future__ import annotations

import io
import itertools
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from converter.errors import ContainerError, WawkitError
from converter.vassal.container import read_container
from converter.vassal.obfuscation import VCSK, VOBS, Obfuscation, obfuscate
from converter.vassal.save import PieceNotFound, SavedGame
from converter.vassal.sequence import join
from tests.test_corpus_roundtrip import CORPUS

TOUR = CORPUS / "vassal-tour" / "tour.log"
RAGNAROK = CORPUS / "ragnarok-spi" / "ragnarok-start.vsav"
BASE = 1_700_000_000_000
LAYER = ("emb2;Step;130;S;;130;;;130;;;;1;false;0;0;u.png,u_r.png;,+ (reduced);true;Step;;;false;;1;1;"
         "true;;;;;1.0;;true")


def unit_type(n: int) -> str:
    return join([LAYER, join(["mark;Side", f"piece;;;u{n}.png;Unit {n}"], "\t") or ""], "\t") or ""


def unit_state(n: int, x: int, y: int) -> str:
    basic = f"Main Map;{x};{y};;1;UniqueID;{BASE + n}"
    return join(["1", join(["German", basic], "\t") or ""], "\t") or ""


def make_save(stacks: int = 3, per_stack: int = 2) -> bytes:
    """A 3.7-shaped save: ``stacks`` stacks of ``per_stack`` units on Main Map."""
    adds = []
    n = 0
    for s in range(stacks):
        x, y = 100 + 100 * s, 200
        members = []
        for _ in range(per_stack):
            adds.append("+/" + (join([str(BASE + n), unit_type(n), unit_state(n, x, y)], "/") or ""))
            members.append(str(BASE + n))
            n += 1
        adds.append(f"+/{BASE + 1000 + s}/stack/Main Map;{x};{y};{';'.join(members)};@@0")
    block = join([""] + adds, "\x1b") or ""
    text = join(["begin_save", "", block, "Main MapBoardPicker\tMain\t0\t0", "GlobalProperty\t;Turn;1;Module",
                 "end_save"], "\x1b") or ""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("savedGame", obfuscate(text.encode(), Obfuscation(VCSK, 0x33)))
    return buffer.getvalue()


def game_of(data: bytes) -> SavedGame:
    ticks = itertools.count(BASE + 5000)
    return SavedGame(read_container(data, file="made.vsav"), clock=lambda: next(ticks))


# -- reading real saves ----------------------------------------------------------------------

def test_tour_index_pieces_stacks_decks_maps() -> None:
    game = SavedGame.read(TOUR)
    assert len(game.pieces) == 17
    # The 2005 save still writes empty stacks (spec 3.4); the cards sit in three decks.
    assert game.stacks == {"1116882739946": [], "1116882739941": [], "1116882739935": []}
    assert game.decks == {
        "1116882739947": ["1116882739943", "1116882739944", "1116882739945"],
        "1116882739942": ["1116882739937", "1116882739938", "1116882739939", "1116882739940"],
        "1116882739936": ["1116882739931", "1116882739932", "1116882739933", "1116882739934"]}
    assert game.stack_of("1116882739944") == "1116882739947"
    assert game.maps == ["Force Pool", "Main Map"]
    assert [(b.map, b.boards) for b in game.board_pickers] == [("Main Map", [("plain", 0, 0)]),
                                                               ("Force Pool", [("Board 1", 0, 0)])]


def test_ragnarok_pieces_by_name_position_and_layers() -> None:
    game = SavedGame.read(RAGNAROK)
    assert game.maps == ["DeadPile", "Main Map", "deployment"]
    assert game.global_properties == {}
    odin = game.piece("1711658022991")
    assert odin.name == "en-odin"
    assert game.position("1711658022991") == ("Main Map", 3196, 190)
    assert game.stack_of("1711658022991") == "1711662791696"
    assert [(layer.name, layer.level) for layer in odin.layers()] == [("Flip", -1)]
    assert game.pieces_named("en-odin") == ["1711658022991"]
    stacked = next(pid for pid, e in game.pieces.items() if e.is_stack)
    members = game.stacks[stacked]
    assert members and all(game.stack_of(m) == stacked for m in members)
    assert all(game.position(m) == game.position(stacked) for m in members)


def test_unknown_piece_is_a_typed_error() -> None:
    game = SavedGame.read(RAGNAROK)
    with pytest.raises(PieceNotFound, match=r"ragnarok-start.vsav: piece nope: no such piece"):
        game.move("nope", "Main Map", 1, 1)


# -- edits -------------------------------------------------------------------------------------

def test_layer_edit_changes_only_that_token() -> None:
    game = game_of(make_save())
    before = game.to_text()
    game.set_layer(str(BASE), "Step", 2)
    after = game.to_text()
    assert after == before.replace(f"/1\tGerman\\\tMain Map;100;200;;1;UniqueID;{BASE}",
                                   f"/2\tGerman\\\tMain Map;100;200;;1;UniqueID;{BASE}")
    again = game_of(game.to_bytes())
    assert again.piece(str(BASE)).layer("Step").level == 2
    assert again.piece(str(BASE)).name == "Unit 0 (reduced)"
    assert again.pieces_named("Unit 0 (reduced)") == again.pieces_named("Unit 0") == [str(BASE)]


def test_property_edit() -> None:
    game = game_of(make_save())
    game.set_property(str(BASE + 1), "Side", "Soviet")
    again = game_of(game.to_bytes())
    assert again.piece(str(BASE + 1)).properties()["Side"] == "Soviet"
    assert again.piece(str(BASE)).properties()["Side"] == "German"


def test_move_out_of_a_stack_makes_a_new_stack_and_updates_both() -> None:
    game = game_of(make_save())
    game.move(str(BASE + 1), "Main Map", 500, 600)
    again = game_of(game.to_bytes())
    assert again.stacks[str(BASE + 1000)] == [str(BASE)]
    new_stack = again.stack_of(str(BASE + 1))
    assert new_stack == str(BASE + 5000)
    assert again.stacks[new_stack] == [str(BASE + 1)]
    assert again.position(str(BASE + 1)) == ("Main Map", 500, 600)
    assert again.position(new_stack) == ("Main Map", 500, 600)


def test_move_onto_a_stack_joins_it_and_keeps_members_before_the_stack() -> None:
    game = game_of(make_save())
    game.move(str(BASE + 4), None, 0, 0, join=str(BASE), index=0)
    text = game.to_text()
    assert text.index(f"+/{BASE + 4}/") < text.index(f"+/{BASE + 1000}/stack")
    again = game_of(game.to_bytes())
    assert again.stacks[str(BASE + 1000)] == [str(BASE + 4), str(BASE), str(BASE + 1)]
    assert again.position(str(BASE + 4)) == ("Main Map", 100, 200)
    assert again.stacks[str(BASE + 1002)] == [str(BASE + 5)]


def test_emptied_stack_is_removed() -> None:
    game = game_of(make_save(stacks=2, per_stack=1))
    game.move(str(BASE), None, 0, 0, join=str(BASE + 1))
    again = game_of(game.to_bytes())
    assert str(BASE + 1000) not in again.pieces
    assert again.stacks == {str(BASE + 1001): [str(BASE + 1), str(BASE)]}


def test_add_piece_gets_a_fresh_id_and_unique_id() -> None:
    game = game_of(make_save())
    ticks = iter([BASE, BASE + 1, BASE + 2, BASE + 7])  # the first ids are taken: increment past them
    game._clock = lambda: next(ticks)
    new = game.add_piece(unit_type(9), "Main Map", 300, 200, join=str(BASE + 4))
    assert new == str(BASE + 6)
    again = game_of(game.to_bytes())
    assert again.stacks[str(BASE + 1002)] == [str(BASE + 4), str(BASE + 5), new]
    assert again.piece(new).inner.properties["UniqueID"] == new
    assert again.position(new) == ("Main Map", 300, 200)


def test_remove_piece_and_stack() -> None:
    game = game_of(make_save())
    game.remove_piece(str(BASE))
    game.remove_piece(str(BASE + 1002))
    again = game_of(game.to_bytes())
    assert sorted(again.pieces) == sorted([str(BASE + 1), str(BASE + 2), str(BASE + 3), str(BASE + 1000),
                                           str(BASE + 1001)])
    assert again.stacks[str(BASE + 1000)] == [str(BASE + 1)]


def test_global_property_edit() -> None:
    game = game_of(make_save())
    game.set_global_property("Turn", "2")
    assert game_of(game.to_bytes()).global_properties == {"Turn": "2"}
    with pytest.raises(WawkitError, match="no global property 'Phase'"):
        game.set_global_property("Phase", "x")


def test_write_keeps_scheme_and_refuses_to_clobber(tmp_path: Path) -> None:
    source = tmp_path / "in.vsav"
    source.write_bytes(make_save())
    game = SavedGame.read(source)
    with pytest.raises(ContainerError, match="exists already"):
        game.write(source)
    game.set_layer(str(BASE), "Step", 2)
    target = tmp_path / "out.vsav"
    game.write(target)
    assert read_container(target).obfuscation == Obfuscation(VCSK, 0x33)
    game.write(tmp_path / "vobs.vsav", obfuscation=VOBS)
    assert read_container(tmp_path / "vobs.vsav").obfuscation.scheme == VOBS
    game.write(source, overwrite=True)
    assert SavedGame.read(source).piece(str(BASE)).layer("Step").level == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.vsav", "out.vsav", "vobs.vsav"]


# -- random edits ------------------------------------------------------------------------------

UNITS = [str(BASE + n) for n in range(6)]
edits = st.lists(st.one_of(
    st.tuples(st.just("move"), st.sampled_from(UNITS), st.integers(0, 900), st.integers(0, 900)),
    st.tuples(st.just("join"), st.sampled_from(UNITS), st.sampled_from(UNITS)),
    st.tuples(st.just("layer"), st.sampled_from(UNITS), st.sampled_from([1, 2])),
    st.tuples(st.just("prop"), st.sampled_from(UNITS), st.sampled_from(["Soviet", "US", "a;b\\c"])),
    st.tuples(st.just("add"), st.sampled_from(UNITS)),
    st.tuples(st.just("remove"), st.sampled_from(UNITS)),
), max_size=8)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits)
def test_random_edits_round_trip(operations: list[tuple]) -> None:
    data = make_save()
    original = game_of(data)
    game = game_of(data)
    touched: set[str] = set()
    expected_layer: dict[str, int] = {}
    expected_side: dict[str, str] = {}
    for op in operations:
        kind, pid = op[0], op[1]
        if pid not in game.pieces:
            continue
        holder = game.stack_of(pid)
        touched |= {pid, holder or ""}
        if kind == "move":
            game.move(pid, "Main Map", op[2], op[3])
        elif kind == "join":
            if op[2] not in game.pieces or op[2] == pid:
                continue
            touched |= {op[2], game.stack_of(op[2]) or ""}
            game.move(pid, None, 0, 0, join=op[2])
        elif kind == "layer":
            game.set_layer(pid, "Step", op[2])
            expected_layer[pid] = op[2]
        elif kind == "prop":
            game.set_property(pid, "Side", op[2])
            expected_side[pid] = op[2]
        elif kind == "add":
            new = game.add_piece(unit_type(7), None, 0, 0, join=pid, state_text=unit_state(7, 0, 0))
            touched.add(new)
        elif kind == "remove":
            game.remove_piece(pid)
    again = game_of(game.to_bytes())
    assert sorted(again.pieces) == sorted(game.pieces)
    assert again.stacks == game.stacks
    for pid, entry in again.pieces.items():
        if entry.is_stack:
            assert entry.piece.inner.members, "no empty stacks are written"
            continue
        assert again.position(pid) == game.position(pid)
        holder = again.stack_of(pid)
        if holder is not None:
            assert again.position(pid) == again.position(holder)
        assert again.piece(pid).layer("Step").level == expected_layer.get(pid, 1)
        assert again.piece(pid).properties()["Side"] == expected_side.get(pid, "German")
    for pid in set(original.pieces) - touched:
        if pid in again.pieces:
            assert again.pieces[pid].command.text == original.pieces[pid].command.text
    text = again.to_text()
    for holder, members in again.stacks.items():
        assert all(text.index(f"+/{m}/") < text.index(f"+/{holder}/") for m in members)


def test_bytes_that_are_not_utf8_survive_an_edit() -> None:
    plain = read_container(make_save()).plaintext
    plain = plain.replace(b"GlobalProperty\t;Turn;1;Module", b"GlobalProperty\t;Turn;1;Module\x1bCHAT caf\xe9 \xff")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("savedGame", obfuscate(plain, Obfuscation(VCSK, 9)))
    game = game_of(buffer.getvalue())
    assert game.to_plaintext() == plain
    game.set_layer(str(BASE), "Step", 2)
    written = read_container(game.to_bytes()).plaintext
    assert b"\x1bCHAT caf\xe9 \xff\x1bend_save" in written
    assert written == plain.replace(b"/1\tGerman\\\tMain Map;100;200;;1;UniqueID;1700000000000",
                                    b"/2\tGerman\\\tMain Map;100;200;;1;UniqueID;1700000000000")


def test_quoting_rule_follows_the_vassal_that_wrote_the_file() -> None:
    from converter.vassal.sequence import LEGACY, MODERN
    assert SavedGame.read(CORPUS / "vasl-saves-logs/fixtures/analyze-vsav/ffs.vsav").quoting == MODERN  # 3.4.7
    assert SavedGame.read(CORPUS / "vasl-saves-logs/fixtures/update-vsav/latw.vsav").quoting == LEGACY  # 3.2.17
    assert SavedGame.read(CORPUS / "tld-longest-day/scenarios/campaign.sav").quoting == LEGACY  # 2.9, no metadata
    assert SavedGame.read(CORPUS / "paths-of-glory/Historical10-8.vsav").quoting == MODERN  # 3.7 setup, no metadata


def test_stacked_pieces_of_2x_saves_are_where_their_stack_is() -> None:
    game = SavedGame.read(CORPUS / "tld-longest-day/scenarios/scenario_1.sav")
    assert game.piece("1168284786468").inner.map in (None, "", "null")  # 2.x: the map lives in the Stack
    assert game.stack_of("1168284786468") == "1165089226799"
    assert game.position("1168284786468") == ("Normandy", 1977, 576)
    assert game.piece("1168284786468").name == "184/84"


def test_joining_a_stack_in_a_real_save_touches_three_commands_only() -> None:
    game = SavedGame.read(RAGNAROK)
    before = {pid: e.command.encode() for pid, e in game.pieces.items()}
    odin, frost = "1711658022991", "1711664130650"
    old_stack, new_stack = game.stack_of(odin), game.stack_of(frost)
    game.move(odin, None, 0, 0, join=frost)
    again = SavedGame.from_bytes(game.to_bytes())
    changed = {pid for pid, e in again.pieces.items() if before[pid] != e.command.encode()}
    assert changed == {odin, old_stack, new_stack}
    assert again.position(odin) == ("deployment", 358, 395)
    assert again.stacks[new_stack][-2:] == ["1711664131843", odin]
    assert odin not in again.stacks[old_stack]
    # "Main Map;3196;190" became "deployment;358;395"; the moved id left one list for another.
    assert len(again.to_text()) == len(game.container.text) + 1


SMALL_LOG = CORPUS / "zxvt-capture-territory" / "5x5_startup.vlog"
noise = st.lists(st.tuples(st.integers(0, 10**6), st.sampled_from(list(b"\x1b\t/;\\'+-DM0aZ\xff"))),
                 min_size=1, max_size=6)


def _everything(data: bytes) -> None:
    """Read, index, list and replay: what the CLI does with a file."""
    from converter.cli.codec import piece_rows
    from converter.vassal.log import Replay
    game = SavedGame.from_bytes(data, file="fuzz.vlog")
    # whatever reads writes back unchanged, and every piece listed lies on a map the save names
    assert game.to_text() == game.container.text
    rows = piece_rows(game)
    assert {row["map"] for row in rows} - {None} <= set(game.maps)
    assert [row["id"] for row in rows] == [pid for pid, e in game.pieces.items() if not (e.is_stack or e.is_deck)]
    Replay(game).run()


@settings(max_examples=60, deadline=None)
@given(noise)
def test_damaged_plaintext_gives_a_typed_error_or_a_result(changes: list[tuple[int, int]]) -> None:
    plain = bytearray(read_container(SMALL_LOG).plaintext)
    for position, byte in changes:
        plain[position % len(plain)] = byte
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("savedGame", bytes(plain))
    try:
        _everything(buffer.getvalue())
    except WawkitError:
        pass


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), min_size=1, max_size=4))
def test_damaged_zip_gives_a_typed_error_or_a_result(changes: list[tuple[int, int]]) -> None:
    data = bytearray(SMALL_LOG.read_bytes())
    for position, byte in changes:
        data[position % len(data)] = byte
    try:
        _everything(bytes(data))
    except WawkitError:
        pass


def test_chain_without_a_basic_piece_is_a_typed_error() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("savedGame", b"begin_save\x1b\x1b\\\x1b+/77/mark;Side/German\x1bend_save")
    game = SavedGame.from_bytes(buffer.getvalue(), file="broken.vsav")
    from converter.errors import EncodingError
    with pytest.raises(EncodingError, match=r"piece 77: trait chain ends in Marker, not a BasicPiece"):
        game.position("77")
