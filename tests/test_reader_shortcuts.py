"""The readers' fast paths give exactly what the general paths give.

Pieces that share one type text share its cached split but edit independently;
the cache stays within its bound; plain splits agree with the escape-aware ones;
the command parser leaves the garbage collector as it found it.
"""
from __future__ import annotations

import gc

import pytest

from converter.errors import EncodingError
from converter.vassal.commands import AddPiece, ChangePiece, MovePiece, parse
from converter.vassal.limits import Limits
from converter.vassal.pieces import _ChainCache, decode_piece
from converter.vassal.sequence import ESC, TAB, Fields, join, split_raw
from converter.vassal.traits import BasicPiece, Embellishment, Marker

LAYER = "emb2;Step;130;S;;130;;;130;;;;1;false;0;0;u1.png,u1_r.png;,+ (reduced);true;Step;;;false;;1;1;true;;;;;1.0;;true"
UNIT_TYPE = join([LAYER, join(["mark;Side,Formation", "piece;;;u1.png;Unit 1"], TAB) or ""], TAB) or ""
UNIT_STATE = join(["1", join(["German,352 ID", "Main Map;100;200;3;3"], TAB) or ""], TAB) or ""


def test_pieces_sharing_a_type_text_edit_independently() -> None:
    first = decode_piece(UNIT_TYPE, UNIT_STATE, piece_id="1")
    second = decode_piece(UNIT_TYPE, UNIT_STATE, piece_id="2")
    assert [type(t) for t in first.traits] == [Embellishment, Marker, BasicPiece]
    assert first.traits[0] is not second.traits[0]
    first.layer("Step").set_level(2)
    first.set_property("Side", "Soviet")
    first.traits[0].up_command = "Reduce"
    assert first.state_text() == "2\tSoviet,352 ID\\\tMain Map;100;200;3;3"
    assert first.type_text() == UNIT_TYPE.replace("emb2;Step;130;S;;", "emb2;Step;130;S;Reduce;")
    assert second.state_text() == UNIT_STATE
    assert second.type_text() == UNIT_TYPE
    third = decode_piece(UNIT_TYPE, UNIT_STATE)
    assert (third.type_text(), third.state_text()) == (UNIT_TYPE, UNIT_STATE)
    assert third.traits[0].up_command == ""


def test_a_definition_without_state_shares_the_type_split() -> None:
    with_state = decode_piece(UNIT_TYPE, UNIT_STATE)
    definition = decode_piece(UNIT_TYPE)
    assert definition.state_text() is None
    assert [t.type_text() for t in definition.traits] == [t.type_text() for t in with_state.traits]
    assert with_state.state_text() == UNIT_STATE


def test_chain_cache_keeps_within_its_bound() -> None:
    cache = _ChainCache(max_chars=480)  # types over 30 characters are not kept
    short = "mark;A\tpiece;;;a.png;A"          # 22 characters
    other = "mark;B\tpiece;;;b.png;B"
    assert cache.get(short) == (("mark;A", "piece;;;a.png;A"), (Marker, BasicPiece))
    assert cache.chars == 22 and list(cache.chains) == [short]
    assert cache.get(other)[1] is cache.get(short)[1]  # one tuple per distinct class sequence
    assert cache.chars == 44
    too_long = "mark;" + "x" * 20 + "\tpiece;;;;"     # 35 characters: split, not kept
    assert cache.get(too_long)[0] == ("mark;" + "x" * 20, "piece;;;;")
    assert too_long not in cache.chains
    for n in range(15):
        cache.get(f"mark;C\tpiece;;;c.png;{n:09d}")  # 30 characters each
    assert cache.chars == 30 * (15 - 14)  # 44 + 14 * 30 = 464; the 15th started it afresh
    assert cache.chars <= 480
    assert short not in cache.chains and other not in cache.chains  # started afresh when full
    assert cache.get(short) == (("mark;A", "piece;;;a.png;A"), (Marker, BasicPiece))


@pytest.mark.parametrize("text, delim, expected", [
    ("a/b/c", "/", ["a", "b", "c"]),
    ("a\\/b\\/c/d", "/", ["a\\/b\\/c", "d"]),
    ("a/b\\", "/", ["a", "b\\"]),
    ("a\\/", "/", ["a\\/"]),
    ("\\/\\//x", "/", ["\\/\\/", "x"]),
    ("", "/", [""]),
    ("x\\\x1by\x1bz", ESC, ["x\\\x1by", "z"]),
])
def test_split_raw_runs_of_escaped_delimiters(text: str, delim: str, expected: list[str]) -> None:
    assert split_raw(text, delim) == expected
    assert delim.join(expected) == text


def test_split_raw_of_a_long_run_is_one_segment() -> None:
    text = "\\/".join(["p"] * 100_000) + "/end"
    assert split_raw(text, "/") == ["\\/".join(["p"] * 100_000), "end"]


@pytest.mark.parametrize("text", [
    "+/17/piece;;;a.png;A/Main Map;1;2",
    "+/17/piece;;;a\\/b.png;A/Main Map;1;2",
    "+/'17'/'\\x'/state'",
    "+/17/type",
    "+/17",
    "D/17/new\\/state/old",
    "M/17/Main Map/10/20/null/Main Map/1/2/null/player",
])
def test_piece_command_values_match_fields(text: str) -> None:
    command = {"+/": AddPiece, "D/": ChangePiece, "M/": MovePiece}[text[:2]](text)
    expected = Fields(text[2:], "/").values()
    assert [command._value(i) for i in range(len(expected) + 1)] == expected + [None]
    assert command.id == expected[0]


def test_add_piece_edit_after_fast_read() -> None:
    command = AddPiece("+/17/piece;;;a.png;A/Main Map;1;2")
    assert (command.type_text, command.state_text) == ("piece;;;a.png;A", "Main Map;1;2")
    command.state_text = "Main Map;5/6;7"
    assert command.state_text == "Main Map;5/6;7"
    assert command.encode() == "+/17/piece;;;a.png;A/Main Map;5\\/6;7"


@pytest.mark.parametrize("enabled", [True, False])
def test_parse_leaves_the_collector_as_it_found_it(enabled: bool) -> None:
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        tree = parse("begin_save" + ESC + ESC.join(["", "+/1/stack/Main Map;1;1;@@0"]) + ESC + "end_save")
        assert [c.kind for c in tree.leaves()] == ["begin_save", "opaque", "add", "end_save"]
        assert gc.isenabled() is enabled
        deep = "x"
        for _ in range(5):
            deep = "a" + ESC + deep.replace(ESC, "\\" + ESC)
        with pytest.raises(EncodingError, match="nested deeper than 3 levels"):
            parse(deep, limits=Limits(max_depth=3))
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()
