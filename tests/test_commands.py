"""The ESC command tree: VASSAL's decode rule, typed leaves, surgical re-encoding, bounds."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from converter.errors import EncodingError, LimitExceeded
from converter.vassal.commands import (AddPiece, Alert, BeginSave, BoardPicker, ChangePiece, Chat, Check,
                                       EndSave, GlobalProperty, LogStep, MovePiece, Node, OpaqueCommand,
                                       RemovePiece, SetupStack, Undo, parse)
from converter.vassal.limits import Limits
from converter.vassal.sequence import ESC, LEGACY

# The constructed save of spec section 3.4 (one line; <ESC>/<TAB> written out).
SPEC_SAVE = (
    "begin_save\x1b\x1b\\\x1b+/1700000000001/emb2;;0;;;0;;;0;;;;1;false;0;0;ger_inf.png,ger_inf_red.png;"
    ",+ (reduced);true;Step;;;false;;1;1;true;;;;;1.0;;true\tmark;Side,Formation\\\tPROP;Strength;"
    "true,0,10,false;Increase:68\\,130:I\\,1,Set:57344\\,0\\,SetStr:P\\,4;\\\\\tpiece;;;ger_inf.png;"
    "352 Inf/1\tGerman,352 ID\\\t6\\\\\tMain Map;337;419;17;1;UniqueID;1700000000001\\\x1b+/1700000000002/"
    "piece;;;disrupted.png;Disrupted/Main Map;337;419;42;1;UniqueID;1700000000002\\\x1b+/1700000000003/"
    "stack/Main Map;337;419;1700000000001;1700000000002;@@0\x1bMain MapBoardPicker\tMain\t0\t0\x1b"
    "GlobalProperty\t;Turn;1;Module\x1bend_save")


def kinds(text: str) -> list[str]:
    return [c.kind for c in parse(text).leaves()]


def test_spec_save_flattens_to_the_documented_leaves() -> None:
    tree = parse(SPEC_SAVE)
    leaves = list(tree.leaves())
    assert [type(c) for c in leaves] == [BeginSave, OpaqueCommand, OpaqueCommand, AddPiece, AddPiece, AddPiece,
                                         BoardPicker, GlobalProperty, EndSave]
    assert leaves[1].text == "" and leaves[2].text == ""  # version check, then the pieces NullCommand
    unit, marker, stack = leaves[3:6]
    assert unit.id == "1700000000001"
    assert unit.type_text.endswith("\\\\\tpiece;;;ger_inf.png;352 Inf")
    assert unit.state_text == "1\tGerman,352 ID\\\t6\\\\\tMain Map;337;419;17;1;UniqueID;1700000000001"
    assert marker.type_text == "piece;;;disrupted.png;Disrupted"
    assert stack.type_text == "stack"
    assert stack.state_text == "Main Map;337;419;1700000000001;1700000000002;@@0"
    picker, prop = leaves[6], leaves[7]
    assert (picker.map, picker.boards) == ("Main Map", [("Main", 0, 0)])
    assert (prop.name, prop.value, prop.container) == ("Turn", "1", "Module")
    assert tree.encode() == SPEC_SAVE


def test_tree_shape_follows_the_escape_levels() -> None:
    tree = parse(SPEC_SAVE)
    assert tree.children is not None
    assert [c.command.kind if c.command else "node" for c in tree.children] == [
        "begin_save", "opaque", "node", "boardpicker", "globalproperty", "end_save"]
    block = tree.children[2]
    assert block.children is not None
    assert [c.command.kind for c in block.children if c.command] == ["opaque", "add", "add", "add"]
    assert block.segments is not None and block.segments[1].startswith("+/1700000000001/emb2;")


def test_editing_one_state_changes_only_that_token() -> None:
    tree = parse(SPEC_SAVE)
    marker = [c for c in tree.leaves() if isinstance(c, AddPiece)][1]
    marker.state_text = "Main Map;400;500;42;1;UniqueID;1700000000002"
    assert tree.encode() == SPEC_SAVE.replace("Main Map;337;419;42;", "Main Map;400;500;42;")


def test_slashes_in_type_and_state_are_escaped() -> None:
    add = AddPiece.of("7", "piece;;;units/ger.png;352/1", "Main;1;2")
    assert add.encode() == "+/7/piece;;;units\\/ger.png;352\\/1/Main;1;2"
    again = parse(add.encode()).command
    assert isinstance(again, AddPiece) and again.type_text == "piece;;;units/ger.png;352/1"
    again.state_text = "Main;3/4;5"
    assert again.encode() == "+/7/piece;;;units\\/ger.png;352\\/1/Main;3\\/4;5"


def test_inserting_and_removing_nodes() -> None:
    tree = parse(SPEC_SAVE)
    block = tree.children[2]
    added = AddPiece.of("99", "piece;;;x.png;X", "Main Map;1;2;;0")
    block.insert(1, Node.leaf(added))
    text = tree.encode()
    assert "begin_save\x1b\x1b\\\x1b+/99/piece;;;x.png;X/Main Map;1;2;;0\\\x1b+/1700000000001/" in text
    assert parse(text).encode() == text
    block.remove(block.children[1])
    assert tree.encode() == SPEC_SAVE


def test_new_group_node_encodes_as_a_null_command() -> None:
    tree = parse("begin_save\x1b\x1bend_save")
    tree.insert(2, Node.group([Node(""), Node.leaf(AddPiece.of("1", "stack", "Main;0;0;@@0"))]))
    assert tree.encode() == "begin_save\x1b\x1b\\\x1b+/1/stack/Main;0;0;@@0\x1bend_save"
    assert kinds(tree.encode()) == ["begin_save", "opaque", "opaque", "add", "end_save"]


def test_tour_leaves_are_typed() -> None:
    text = ("begin_save\x1bCHECK\tVASSAL Tour\t1.3\\\x1bALERT\tversion\x1b\\\x1b+/5/stack/Main Map;1;2"
            "\x1bSETUP_STACK\t\x1bend_save\x1bCHAT<rk> - hi\x1bLOG\tM/1116883991883/Main Map/393/386/null/"
            "Main Map/337/419/null/rkinney's password\x1bLOG\t\\\x1bLOG\tD/7/new/old\x1bLOG\t-/8\x1bLOG\tUNDO\ttrue")
    tree = parse(text)
    leaves = list(tree.leaves())
    assert [type(c) for c in leaves] == [BeginSave, Check, Alert, OpaqueCommand, AddPiece, SetupStack, EndSave,
                                         Chat, LogStep, LogStep, LogStep, LogStep, LogStep]
    move = leaves[8].commands()[0]
    assert isinstance(move, MovePiece)
    assert (move.id, move.new_map, move.new_x, move.new_y, move.new_underneath) == (
        "1116883991883", "Main Map", 393, 386, None)
    assert (move.old_map, move.old_x, move.old_y, move.old_underneath, move.player) == (
        "Main Map", 337, 419, None, "rkinney's password")
    assert leaves[9].commands() == []  # the NullCommand wrapper of a compound step
    change = leaves[10].commands()[0]
    assert isinstance(change, ChangePiece) and (change.id, change.new_state, change.old_state) == ("7", "new", "old")
    remove = leaves[11].commands()[0]
    assert isinstance(remove, RemovePiece) and remove.id == "8"
    undo = leaves[12].commands()[0]
    assert isinstance(undo, Undo) and undo.starts
    assert leaves[7].message == "<rk> - hi"
    assert tree.encode() == text


def test_change_piece_without_old_state() -> None:
    change = parse("D/12/a;b").command
    assert isinstance(change, ChangePiece) and change.new_state == "a;b" and change.old_state is None


def test_a_quoted_segment_is_a_sub_command() -> None:
    # VASSAL decodes "'x'" as the one sub-command "x" (quotes stripped), not as a leaf.
    tree = parse("'CHATx'")
    assert tree.children is not None and tree.children[0].command.kind == "chat"
    assert tree.encode() == "'CHATx'"


def test_deep_nesting_is_a_typed_error_not_a_recursion_error() -> None:
    text = "'" * 20000 + "x" + "'" * 20000
    with pytest.raises(EncodingError, match=r"deep.vsav: entry savedGame: command 0: offset 0: "
                                            r"commands nested deeper than 200 levels"):
        parse(text, file="deep.vsav")


def test_deeply_escaped_esc_is_bounded() -> None:
    text = "a"
    for _ in range(60):
        text = "b" + ESC + text.replace(ESC, "\\" + ESC)
    assert parse(text).encode() == text
    with pytest.raises(EncodingError, match="nested deeper than 30 levels"):
        parse(text, limits=Limits(max_depth=30))


def test_command_count_is_capped() -> None:
    with pytest.raises(LimitExceeded, match="more than 10 commands"):
        parse("\x1b".join(["CHATx"] * 11), limits=Limits(max_commands=10), file="many")


def test_legacy_quoting_applies_to_edits_only() -> None:
    tree = parse("begin_save\x1b\\\x1b+/1/piece;;;a.png;A/null;0;0\x1bend_save", quoting=LEGACY)
    add = next(c for c in tree.leaves() if isinstance(c, AddPiece))
    add.state_text = "Main;1;1\\"
    assert add.encode() == "+/1/piece;;;a.png;A/'Main;1;1\\'"


leaf_text = st.text(alphabet="ab/;\t\\'+MD", max_size=8)


@st.composite
def command_strings(draw: st.DrawFn, depth: int = 0) -> str:
    """Random command strings built as VASSAL's encoder builds them."""
    from converter.vassal.sequence import join
    if depth >= 3 or draw(st.booleans()):
        return draw(leaf_text)
    parts = draw(st.lists(command_strings(depth + 1), min_size=1, max_size=4))
    return join(parts, ESC) or ""


@given(command_strings())
def test_any_encoded_tree_re_encodes_identically(text: str) -> None:
    assert parse(text).encode() == text


@given(st.text(alphabet="a\\\x1b'", max_size=30))
def test_any_string_at_all_round_trips(text: str) -> None:
    assert parse(text).encode() == text


def _shape(node: Node) -> tuple[object, ...]:
    """What a node decodes to: its text, its children's raw segments and shapes, its command."""
    text = node.text if node.text is not None else node._unescaped()
    if node.children is None:
        assert node.command is not None
        return (text, type(node.command).__name__, node.command.text)
    return (text, tuple(node.segments or ()), tuple(_shape(child) for child in node.children))


@given(st.one_of(command_strings(), st.text(alphabet="a\\\x1b'/+", max_size=40)))
def test_a_segment_cut_where_it_lies_parses_as_its_unescaped_text(text: str) -> None:
    # Long segments holding commands are cut into them inside the raw text (_Parser._cut);
    # with the threshold at 0 every such segment is, and the tree must be the same.
    from converter.vassal import commands
    whole = parse(text)
    saved = commands._CUT_MIN
    commands._CUT_MIN = 0
    try:
        cut = parse(text)
    finally:
        commands._CUT_MIN = saved
    assert _shape(cut) == _shape(whole)
    assert cut.encode() == text


def test_a_save_block_keeps_no_copy_of_its_text_and_still_edits() -> None:
    units = [f"+/{n}/piece;;;u.png;Unit {n}/Main Map;{n};5;;1" for n in range(400)]
    block = "\\\x1b".join(units)
    text = "\x1b".join(["begin_save", "", block, "GlobalProperty\t;Turn;1;Module", "end_save"])
    tree = parse(text)
    node = tree.children[2]
    assert node.text is None and len(node.children) == 400 and tree.segments[2] == block
    assert node.encode() == "\x1b".join(units)
    first = node.children[0].command
    first.state_text = "Main Map;99;5;;1"
    first.node.touch()
    assert tree.encode() == text.replace("+/0/piece;;;u.png;Unit 0/Main Map;0;5;;1",
                                         "+/0/piece;;;u.png;Unit 0/Main Map;99;5;;1")
    tree.remove(node)  # its text as read is made before its segment goes
    assert node.text == "\x1b".join(units)
    assert node.encode() == "\x1b".join(units).replace("Main Map;0;5;", "Main Map;99;5;")


def test_piece_command_prefixes_are_one_character_and_a_slash() -> None:
    # PieceCommand._split takes the fields as the '/'-pieces of the text after the first.
    from converter.vassal.commands import PieceCommand
    prefixes = [cls.prefix for cls in PieceCommand.__subclasses__()]
    assert sorted(prefixes) == ["+/", "D/", "M/"]
    assert AddPiece("+/7/piece;;;u.png;U/Main Map;1;2").texts() == ("piece;;;u.png;U", "Main Map;1;2")
