"""The Piece API on real pieces: chain structure, names, layers, properties, edits that
change only the text they touch, and prototype expansion."""
from __future__ import annotations

import zipfile

import pytest
from lxml import etree

from converter.errors import EncodingError, PieceError
from converter.vassal.commands import AddPiece
from converter.vassal.pieces import Piece, decode_piece
from converter.vassal.sequence import LEGACY, TAB, split
from converter.vassal.traits import BasicPiece, Embellishment, Marker
from tests.test_pieces_corpus import CORPUS, corpus

# tld-longest-day/scenarios/scenario_1.sav (VASSAL 2.9.8): a counter with a Disrupt marker command.
TLD_TYPE = ("placemark;Disrupt;68,0;VASSAL.build.module.PieceWindow:Pieces/VASSAL.build.widget.TabWidget/"
            "VASSAL.build.widget.ListWidget:Other/VASSAL.build.widget.PanelWidget:Markers/"
            "VASSAL.build.widget.PieceSlot:DISRUPT;null;2;2;true;;\tmarkmoved;/images/moved.gif;25;-25;Mark Moved;"
            "77,130\\\tdelete;Delete;68,130\\\\\temb2;Flip;2;F;;0;;;0;;;;1;false;0;0;2394.svg;;true;;;\\\\\\\t"
            "piece;;;0510.svg;184/84")
TLD_STATE = "\tfalse\\\t\\\\\t-1;\\\\\\\tnull;1977;576"
# vasl-saves-logs/examples/The Streets Of Stalingrad (Scenario C) (online).vsav (VASSAL 3.2.17).
VASL_TYPE = ("PROP;Owner;false,0,100,false;:77\\,650:P\\,$PlayerName$\tmark;DBCounterType\\\timmob;i;I\\\\\t"
             "mark;Hindrance\\\\\\\tpiece;;D;tables/turn_track08;8-Turn Track")
VASL_STATE = "taka\tglobal\\\t\\\\\ttrue\\\\\\\tMain Map;651;360;6143"


def tour_albatros() -> tuple[str, str]:
    """tour.log's Albatros C: 15 traits around its BasicPiece (15 TAB levels)."""
    for type_text, state_text in corpus()["vassal-tour/tour.log"][1]:
        if type_text.endswith("piece;;Z;AlbC.GIF;Albatros C") and state_text.endswith("Main Map;504;504"):
            return type_text, state_text
    raise AssertionError("Albatros C not found in tour.log")


def tour_module() -> tuple[dict[str, tuple[str, str]], list[tuple[str, str, str]]]:
    """tour.mod's prototype definitions (name -> type, state) and PieceSlots (name, type, state)."""
    with zipfile.ZipFile(CORPUS / "vassal-tour" / "tour.mod") as archive:
        root = etree.fromstring(archive.read("buildFile"))
    prototypes, slots = {}, []
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        if element.tag.endswith("PrototypeDefinition") or element.tag.endswith("PieceSlot"):
            command = AddPiece(element.text.strip())
            if element.tag.endswith("PrototypeDefinition"):
                prototypes[element.get("name")] = (command.type_text, command.state_text)
            else:
                slots.append((element.get("entryName"), command.type_text, command.state_text))
    return prototypes, slots


def test_tour_fifteen_level_chain() -> None:
    type_text, state_text = tour_albatros()
    piece = decode_piece(type_text, state_text)
    assert [t.kind for t in piece.traits] == (["ReportState"] * 3 + ["Labeler", "FreeRotator"]
                                              + ["Embellishment"] * 10 + ["BasicPiece"])
    assert len(piece.decorators) == 15
    assert isinstance(piece.inner, BasicPiece)
    assert [t.state_text() for t in piece.traits] == ["0", "-1", "0", "", "0"] + ["-1;"] * 10 + ["Main Map;504;504"]
    assert [layer.activate_command for layer in piece.layers()] == [
        "Tailing", "Being Tailed", "Nose Up", "Nose Down", "Escape", "Explosion", "On Fire", "Smoking", "Spin",
        "Glide"]
    assert piece.name == "Albatros C"
    assert (piece.inner.map, piece.inner.x, piece.inner.y, piece.inner.gpid) == ("Main Map", 504, 504, "")
    assert piece.type_text() == type_text and piece.state_text() == state_text


def test_tour_set_layer_changes_one_state_segment() -> None:
    type_text, state_text = tour_albatros()
    piece = decode_piece(type_text, state_text)
    piece.layers()[1].set_level(1)  # "Being Tailed" on
    new_state = piece.state_text()
    assert new_state == state_text.replace("\\\\\\\\\\\t-1;", "\\\\\\\\\\\t1;", 1)
    assert new_state.startswith("0\t-1\\\t0\\\\\t\\\\\\\t0\\\\\\\\\t-1;\\\\\\\\\\\t1;\\\\\\\\\\\\\t-1;")
    assert piece.type_text() == type_text
    again = decode_piece(type_text, new_state)
    assert [layer.level for layer in again.layers()] == [-1, 1] + [-1] * 8


def test_tld_piece_move_and_flip() -> None:
    piece = decode_piece(TLD_TYPE, TLD_STATE, piece_id="1168284655360")
    assert [t.kind for t in piece.traits] == ["PlaceMarker", "MovementMarkable", "Delete", "Embellishment",
                                              "BasicPiece"]
    assert piece.name == "184/84"
    assert piece.properties() == {"_Image": "", "_Name": "", "_Level": "-1", "_Active": "false",
                                  "BasicName": "184/84", "PieceName": "184/84"}
    piece.inner.move("Normandy", 100, 200)
    assert piece.state_text() == "\tfalse\\\t\\\\\t-1;\\\\\\\tNormandy;100;200"
    piece.layers()[0].set_level(1)
    assert piece.state_text() == "\tfalse\\\t\\\\\t1;\\\\\\\tNormandy;100;200"
    piece.find(type(piece.traits[1]))[0].moved = True
    assert piece.state_text() == "\ttrue\\\t\\\\\t1;\\\\\\\tNormandy;100;200"
    assert piece.type_text() == TLD_TYPE


def test_placeless_state_leaves_out_only_where_the_piece_lies() -> None:
    here = decode_piece(TLD_TYPE, TLD_STATE).placeless_state()
    moved = TLD_STATE.rsplit("\t", 1)[0] + "\tNormandy;100;200"
    assert decode_piece(TLD_TYPE, moved).placeless_state() == here == ("", "false", "", "-1;")
    flipped = decode_piece(TLD_TYPE, TLD_STATE)
    flipped.layers()[0].set_level(1)
    assert decode_piece(TLD_TYPE, flipped.state_text()).placeless_state() == ("", "false", "", "1;")
    with_property = TLD_STATE + ";gpid;UniqueID;7"        # the BasicPiece's fields after x and y are kept
    assert decode_piece(TLD_TYPE, with_property).placeless_state()[-3:] == ("gpid", "UniqueID", "7")
    assert decode_piece(TLD_TYPE).placeless_state() is None           # a definition has no state
    assert decode_piece("stack", "Normandy;1;2;a;b").placeless_state() is None
    edited = decode_piece(TLD_TYPE, TLD_STATE)
    edited.inner.move("Normandy", 1, 2)
    assert edited.placeless_state() is None                 # its texts are no longer the decoded ones


def test_tld_piece_type_edit_changes_one_trait() -> None:
    piece = decode_piece(TLD_TYPE, TLD_STATE)
    layer = piece.layers()[0]
    assert isinstance(layer, Embellishment)
    layer.level_names = ["+ (disrupted)"]
    assert piece.type_text() == TLD_TYPE.replace("2394.svg;;true", "2394.svg;+ (disrupted);true")
    assert piece.name == "184/84"
    layer.set_level(1)
    assert piece.name == "184/84 (disrupted)"


def test_vasl_legacy_set_property() -> None:
    piece = decode_piece(VASL_TYPE, VASL_STATE, quoting=LEGACY)
    assert piece.properties() == {"Hindrance": "true", "DBCounterType": "global", "Owner": "taka",
                                  "BasicName": "8-Turn Track", "PieceName": "8-Turn Track"}
    assert piece.inner.gpid == "6143"
    piece.set_property("Owner", "ivan")
    assert piece.state_text() == "ivan\tglobal\\\t\\\\\ttrue\\\\\\\tMain Map;651;360;6143"
    piece.set_property("Hindrance", "false")
    assert piece.state_text() == "ivan\tglobal\\\t\\\\\tfalse\\\\\\\tMain Map;651;360;6143"
    piece.set_property("Owner", "C:\\")
    assert piece.state_text() == "'C:\\'\tglobal\\\t\\\\\tfalse\\\\\\\tMain Map;651;360;6143"
    assert decode_piece(VASL_TYPE, piece.state_text()).properties()["Owner"] == "C:\\"
    with pytest.raises(PieceError, match="piece 7: no Marker or Dynamic Property holds 'Side'"):
        decode_piece(VASL_TYPE, VASL_STATE, piece_id="7").set_property("Side", "Axis")
    assert piece.type_text() == VASL_TYPE


def test_outer_marker_wins_for_a_repeated_key() -> None:
    piece = decode_piece("mark;Side\tmark;Side\\\tpiece;;;;", "Allied\tAxis\\\tnull;0;0")
    assert piece.properties()["Side"] == "Allied"
    piece.set_property("Side", "Neutral")
    assert piece.state_text() == "Neutral\tAxis\\\tnull;0;0"


def test_layer_lookup_by_name() -> None:
    piece = decode_piece("emb2;;2;;;2;;;2;;;;1;false;0;0;a.png,b.png;,+ (reduced);true;Step;;;false;;1;1;true"
                         "\tpiece;;;inf.png;352 Inf", "1\tnull;0;0")
    step = piece.layer("Step")
    assert step is not None and piece.layer("Disrupted") is None
    assert (step.level, step.active, step.image) == (1, True, "a.png")
    step.set_level(2)
    assert piece.name == "352 Inf (reduced)"
    assert piece.properties()["Step_Level"] == "2"
    assert piece.properties()["Step_Name"] == " (reduced)"
    assert piece.state_text() == "2\tnull;0;0"


def test_palette_definition_without_state() -> None:
    piece = decode_piece("mark;Side\tpiece;;;inf.png;Inf", None)
    assert piece.state_text() is None
    assert piece.traits[0].values == [""]
    piece.inner.move("Main Map", 5, 6)
    assert piece.state_text() == "\tMain Map;5;6;;0"
    piece.inner.properties["UniqueID"] = "1700000000001"
    assert piece.state_text() == "\tMain Map;5;6;;1;UniqueID;1700000000001"


def test_prototype_expansion_matches_tour_log() -> None:
    """Expanding tour.mod's palette pieces gives exactly the types tour.log holds for them."""
    prototypes, slots = tour_module()
    log_types = {t for t, _ in corpus()["vassal-tour/tour.log"][1]}
    types = {name: type_text for name, type_text, _ in slots}
    goblin = decode_piece(types["Goblin"], None)
    assert goblin.prototypes() == ["Army"]
    expanded = goblin.expand({name: t for name, (t, _) in prototypes.items()})
    assert expanded.type_text() in log_types
    assert [t.kind for t in expanded.traits][3:7] == ["Delete", "SubMenu", "Translate", "Translate"]
    assert expanded.prototypes() == []
    tiles = [decode_piece(types[n], None).expand({k: t for k, (t, _) in prototypes.items()}) for n in "235"]
    assert all(t.type_text() in log_types for t in tiles)
    assert tiles[0].type_text() == "mark;Layer\timmob;n\\\trotate;2;70,130;;Flip;\\\\\tpiece;;;Tile_Hallway_2.jpg;2"


def _module_definitions(relative: str) -> tuple[dict[str, tuple[str, str]], list[tuple[str, str]]]:
    """A buildFile's prototype definitions (name -> type, state) and slot pieces (type, state)."""
    root = etree.fromstring((CORPUS / relative).read_bytes(), etree.XMLParser(huge_tree=True))
    prototypes, slots = {}, []
    for element in root.iter():
        tag = element.tag.rsplit(".", 1)[-1] if isinstance(element.tag, str) else ""
        if tag in ("PrototypeDefinition", "PieceSlot", "CardSlot") and (element.text or "").strip():
            command = AddPiece(element.text.strip())
            if tag == "PrototypeDefinition":
                prototypes[element.get("name")] = (command.type_text, command.state_text)
            else:
                slots.append((command.type_text, command.state_text))
    return prototypes, slots


def test_expanded_palette_pieces_match_the_ragnarok_setup() -> None:
    """Ragnarok's palette pieces, expanded with its 17 prototypes, have exactly the trait chains of
    the pieces in its start save (31 of 34 identical texts; the other 3 differ in field values)."""
    prototypes, slots = _module_definitions("ragnarok-spi/buildFile.xml")
    assert len(prototypes) == 17 and len(slots) == 34
    expanded = {}
    for type_text, state_text in slots:
        piece = decode_piece(type_text, state_text)
        expanded[piece.inner.type_text()] = piece.expand(prototypes)
    save_types = {t for t, _ in corpus()["ragnarok-spi/ragnarok-start.vsav"][1]}
    assert sum(p.type_text() in save_types for p in expanded.values()) == 31
    matched = 0
    for type_text, state_text in corpus()["ragnarok-spi/ragnarok-start.vsav"][1]:
        piece = decode_piece(type_text, state_text)
        palette = expanded.get(piece.inner.type_text())
        if palette is not None:
            assert [t.kind for t in palette.traits] == [t.kind for t in piece.traits]
            matched += 1
    assert matched == 99


def test_prototype_expansion_takes_definition_states() -> None:
    prototypes, slots = tour_module()
    tile = next((t, s) for name, t, s in slots if name == "2")
    piece = decode_piece(*tile).expand(prototypes)
    assert piece.state_text() == "Tile\t\\\t0\\\\\tnull;211;191"
    assert piece.properties()["Layer"] == "Tile"


def test_expansion_is_recursive_cycle_safe_and_drops_comments() -> None:
    prototypes = {
        "Unit": "prototype;Base\tcmt;note\\\tmark;Kind\\\\\tpiece;;;;",
        "Base": "prototype;Unit\tmark;Side\\\tpiece;;;;",
    }
    piece = decode_piece("prototype;Unit\tpiece;;;a.png;A", "\tnull;1;2")
    expanded = piece.expand(prototypes)
    assert [t.type_text() for t in expanded.traits] == ["mark;Side", "mark;Kind", "piece;;;a.png;A"]
    assert expanded.state_text() == "\t\\\tnull;1;2"
    missing = decode_piece("prototype;Missing\tmark;Side\\\tpiece;;;;", None)
    assert missing.expand(prototypes).type_text() == "mark;Side\tpiece;;;;"
    assert missing.prototypes() == ["Missing"]


def test_parameterised_prototype() -> None:
    prototypes = {"Unit": "mark;Side,Type\tlabel;;;10;;0,0,0;t;0;c;0;b;c;$side$ $kind$ $other$\\\tpiece;;;;"}
    piece = decode_piece("prototype;Unit;side=German,kind=Inf\tpiece;;;a.png;A", None)
    expanded = piece.expand(prototypes)
    assert expanded.traits[1].name_format == "German Inf other"


def test_built_piece_encodes_afresh() -> None:
    piece = Piece([Marker("mark;Side", "German"), BasicPiece("piece;;;a.png;A", "null;0;0")])
    assert piece.type_text() == "mark;Side\tpiece;;;a.png;A"
    assert piece.state_text() == "German\tnull;0;0"


def test_bad_input_is_a_typed_error() -> None:
    with pytest.raises(EncodingError, match="piece 9"):
        decode_piece(None, "x", piece_id="9")  # type: ignore[arg-type]
    with pytest.raises(EncodingError, match="more TAB-separated segments than the type has traits \\(2\\)"):
        decode_piece("mark;Side\tpiece;;;;", "A\tnull;0;0\tx")


def test_state_segments_follow_spec_example() -> None:
    """Spec 2.3's constructed example: a Layer and a Marker around a BasicPiece."""
    type_text = ("emb2;Disrupt;130;D;;130;;;130;;;;1;false;0;0;disrupted.png;Disrupted;true;Disrupted;;;false;;1;1;"
                 "false;68,130;;;;1.0;;true\tmark;Side\\\tpiece;;;ger_inf.png;352 Inf Div")
    state_text = "-1\tGerman\\\tMain Map;450;312;17;1;UniqueID;1700000000123"
    piece = decode_piece(type_text, state_text)
    disrupted = piece.layer("Disrupted")
    assert disrupted is not None and not disrupted.active and disrupted.scale == 1.0
    assert piece.properties()["Side"] == "German"
    disrupted.set_active(True)
    piece.inner.x = 500
    piece.inner.properties["OldX"] = "450"
    assert piece.state_text() == "1\tGerman\\\tMain Map;500;312;17;2;UniqueID;1700000000123;OldX;450"
    assert piece.name == "Disrupted"
    assert split(piece.state_text(), TAB)[0] == "1"


def test_a_state_is_split_into_levels_only_when_first_read() -> None:
    # A state with fewer TABs than the type has levels cannot have too many levels: its split
    # waits, and what it gives when read is the split the decode would have made.
    type_text = "emb2;Step;130;S;;130;;;130;;;;1;false;0;0;u.png,u_r.png;,+ (reduced);true;Step;;;false;;1;1;true;;;;;1.0;;true" \
        "\tmark;Side\\\tpiece;;;u.png;Unit"
    state_text = "2\tGerman\\\tMain Map;10;20;;3"
    piece = decode_piece(type_text, state_text, piece_id="7")
    assert piece._states is None
    assert piece.state_text() == state_text
    assert [t.state_text() for t in piece.traits] == ["2", "German", "Main Map;10;20;;3"]
    assert piece._states == ("2", "German", "Main Map;10;20;;3")
    with pytest.raises(EncodingError, match="more TAB-separated segments than the type has traits \\(3\\)"):
        decode_piece(type_text, "2\tGerman\tx\ty", piece_id="8")
