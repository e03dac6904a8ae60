"""Reading a save and decoding all its pieces: the collector paused while long-lived objects
are made (and its state given back), every piece decoded by ``decode_pieces``, a broken piece
left for its own use to report, and the obfuscated payload not kept beside its plaintext."""
from __future__ import annotations

import gc
import io
import zipfile

import pytest

from converter.errors import EncodingError
from converter.vassal.container import read_container
from converter.vassal.pieces import clear_type_cache
from converter.vassal.save import SavedGame
from converter.vassal.sequence import join
from tests.test_save import make_save, unit_state, unit_type


def test_decode_pieces_decodes_every_piece_once() -> None:
    game = SavedGame.from_bytes(make_save(stacks=3, per_stack=2))
    assert [entry._piece for entry in game.pieces.values()] == [None] * 9
    assert game.decode_pieces() is game
    pieces = {pid: entry._piece for pid, entry in game.pieces.items()}
    assert all(piece is not None for piece in pieces.values())
    assert game.piece("1700000000000").name == "Unit 0"
    game.decode_pieces()
    assert {pid: entry._piece for pid, entry in game.pieces.items()} == pieces     # the same objects


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_given_back_as_it_was(enabled: bool) -> None:
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        SavedGame.from_bytes(make_save()).decode_pieces()
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_a_broken_piece_is_left_for_its_own_use_to_report() -> None:
    good = "+/" + (join(["1", unit_type(1), unit_state(1, 100, 200)], "/") or "")
    bad = "+/" + (join(["2", unit_type(2), unit_state(2, 100, 200) + "\tone level too many"], "/") or "")
    text = join(["begin_save", "", join(["", good, bad], "\x1b") or "", "end_save"], "\x1b") or ""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("savedGame", text.encode())
    game = SavedGame.from_bytes(buffer.getvalue()).decode_pieces()
    assert [pid for pid, entry in game.pieces.items() if entry._piece is None] == ["2"]
    assert game.piece("1").name == "Unit 1"
    with pytest.raises(EncodingError, match="^piece 2: state has more TAB-separated segments than the type has "
                                            "traits \\(3\\)"):
        game.piece("2")


def test_the_payload_is_not_kept_and_is_written_back_identical() -> None:
    data = make_save()
    container = read_container(data)
    assert container.entry("savedGame").data == b""
    with zipfile.ZipFile(io.BytesIO(data)) as original, zipfile.ZipFile(io.BytesIO(container.to_bytes())) as again:
        assert again.read("savedGame") == original.read("savedGame")


def test_a_cold_read_splits_every_type_again() -> None:
    from converter.vassal import pieces
    SavedGame.from_bytes(make_save()).decode_pieces()
    assert pieces._CHAINS.chains
    clear_type_cache()
    assert not pieces._CHAINS.chains and pieces._CHAINS.chars == 0
