"""Each typed trait on real examples from the corpus: exact field values, and edits that
change only the field they touch."""
from __future__ import annotations

import pytest

from converter.errors import EncodingError
from converter.vassal.sequence import LEGACY
from converter.vassal.traits import (AreaOfEffect, Attachment, BasicName, BasicPiece, BorderOutline,
                                     CalculatedProperty, Clone, Deck, Delete, DynamicProperty, Embellishment,
                                     Footprint, FreeRotator, GlobalKeyCommand, Hideable, Immobilized, Labeler,
                                     LegacyEmbellishment, Marker, MovementMarkable, MultiLocationCommand,
                                     NonRectangular, Obscurable, Pivot, PlaceMarker, PropertySheet, Replace,
                                     ReportState, Restricted, RestrictCommands, ReturnToDeck, SendToLocation,
                                     SetGlobalProperty, SetPieceProperty, Stack, TranslatableMessage, Translate,
                                     TriggerAction, UnknownTrait, UsePrototype, decode_trait)

# Real trait texts, each copied from the corpus file named beside it.
TOUR_BASIC = ("piece;;Z;AlbC.GIF;Albatros C", "null;35;56")  # vassal-tour/tour.mod
PBS_BASIC = ("piece;K;D;pbs_token.svg;Motion Attempt",
             "null;0;0;apb2:14404;3;ClickedX;0;ppScale;1.0;ClickedY;0")  # asl-pbs-extension
TLD_STACK = ("stack", "German Remnants;350;458;1168285057451")  # tld-longest-day/logs/0608-3.log
CCN_STACK = ("stack", "Main Map;1031;585;1701384070533;1701384070538;@@4")  # ccn A301 - Wertingen.vsav
TOUR_DECK = ("deck;true;0,0,0;139;90;Always;Always;false;true;false;Re-shuffle;;;Cards;;;;false",
             "Force Pool;658;94;true;1116882739943,1116882739944,1116882739945")  # vassal-tour/tour.log
TLD_FLIP = ("emb2;Flip;2;F;;0;;;0;;;;1;false;0;0;2394.svg;;true;;;", "-1;")  # tld scenario_1.sav
CCN_STRENGTH = ("emb2;;128;A;Take Hit;128;;Recover Hit;128;;;;1;false;15;21;str4.png,str3.png,str2.png,str1.png,"
                "str0.png;+ (Strength=4),+ (Strength=3),+ (Strength=2),+ (Strength=1),+ (Destroyed);false;"
                "StrengthLayer;;;true;{CurrentMap==\"\"?0:MaxStrength-Strength};0;1;true;;72,130;82,130;;1.0;;true",
                "1")  # ccn A301 - Wertingen.vsav
TOUR_TAILING = ("emb2;Tailing;2;T;Increase;2;];Decrease;2;[;;;0;false;0;0;Tailing;;true", "-1;")  # tour.log
TLD_MARKER = ("mark;showRange", "")  # tld-longest-day/scenarios/campaign.sav
ZXVT_MARKER = ("mark;Owner", "Red")
CCN_PROP = ("PROP;MarkerLevel;false,-2,6,false;:57389\\,0\\,MARKERCLEAR:P\\,0,:57361\\,0\\,setIsTarget:P\\,"
            "{cTarget};Marker Levels for layered combat markers", "0")  # ccn CCNv4 Tutorial.vlog
PBS_LABEL = "label;76,130;Label;10;255,255,255;0,0,0;t;0;c;0;b;c;$pieceName$ ($label$);Dialog;0;0;TextLabel;;false"
TOUR_LABEL = "label;65,130;Change Altitude;14;0,0,153;255,255,255;b;20;c;0;b;c;$pieceName$ ($label$)"
CCN_MASK = ("obs;70,130;marsh_back.png;Flip Card;GCardMask3b.png;Command Card;player:;Peek;;false;;", "null;")
VASL_HIP = ("hide;72,130;HIP;;player:;0.30000001192092896", "null")  # vasl Hill 621 (online).vsav
TLD_ROTATE = ("rotate;6;93,130;91,130;Rotate CW;Rotate CCW;;;", "4")  # tld logs/0606-1.log
TLD_MOVED = ("markmoved;/images/moved.gif;25;-25;Mark Moved;77,130", "false")  # tld
PBS_REPORT = ("report;70\\,130,82\\,130;$location$: $newPieceName$ *;;;;false", "-1")  # asl-pbs-extension
CCN_MACRO = "macro;Add Artillery - stacked commmand;Add to Attack;65,520;;;65\\,585;false;;;counted;;;;false;;1;1"
CCN_GKC = ("globalkey;;86,130;86,195;;true;0;false;true;;Pass Clear to Unit;0;"
           "COUNTER|true|CURLOC|||||0|0||true|Stack|1|GREATER")
CCN_SENDTO = ("sendto;;57430,0,chkPlaced;Main Map;Inland;0;0;;;0;0;0;0;Snap to grid in location;G;;;;$LocationName$",
              ";;")
CCN_HIDECMD = "hideCmd;Active Side Commands only;Hide;{Side!=gActiveSide};65\\,130,79\\,520,65\\,520"
TLD_PLACEMARK = ("placemark;Disrupt;68,0;VASSAL.build.module.PieceWindow:Pieces/VASSAL.build.widget.TabWidget/"
                 "VASSAL.build.widget.ListWidget:Other/VASSAL.build.widget.PanelWidget:Markers/"
                 "VASSAL.build.widget.PieceSlot:DISRUPT;null;2;2;true;;")
CCN_REPLACE = ("replace;Conscript;67,520;VASSAL.build.module.PieceWindow:Hidden Game Pieces/"
               "VASSAL.build.widget.PanelWidget:Army Pieces/VASSAL.build.widget.PieceSlot:French Line Infantry "
               "(Conscript);null;0;0;false;;Conscript;1907;1;false")
CCN_CALC = "calcProp;Stacked;{SumStack(\"Stack\")>1};Boolean"
CCN_SETPROP = ("setprop;gTargetClass;false,0,100,false;:57384\\,0\\,reportTarget:P\\,{Class};Target = LDR;"
               "Current Zone/Current Map/Module;")
POG_LOCMSG = ("locmsg;CardText;;German units may now attack spaces containing RU forts. (They may always besiege "
              "such spaces). May still be played for War Status after CP War Status is 4 or higher.")


def test_basic_piece_2005() -> None:
    piece = decode_trait(*TOUR_BASIC)
    assert isinstance(piece, BasicPiece)
    assert (piece.clone_key, piece.delete_key, piece.image, piece.name) == ("", "Z", "AlbC.GIF", "Albatros C")
    assert (piece.map, piece.on_map, piece.x, piece.y, piece.gpid) == ("null", None, 35, 56, "")
    assert dict(piece.properties) == {}


def test_basic_piece_persistent_properties() -> None:
    piece = decode_trait(*PBS_BASIC)
    assert piece.gpid == "apb2:14404"
    assert list(piece.properties.items()) == [("ClickedX", "0"), ("ppScale", "1.0"), ("ClickedY", "0")]
    piece.properties["ppScale"] = "2.0"
    assert piece.state_text() == "null;0;0;apb2:14404;3;ClickedX;0;ppScale;2.0;ClickedY;0"
    del piece.properties["ClickedX"]
    assert piece.state_text() == "null;0;0;apb2:14404;2;ppScale;2.0;ClickedY;0"
    with pytest.raises(KeyError):
        del piece.properties["OldX"]


def test_hostile_property_count_reads_what_the_text_holds() -> None:
    piece = decode_trait("piece;;;;", "null;0;0;;2147483647;a;1;b")
    assert dict(piece.properties) == {"a": "1", "b": "", "": ""}
    piece.properties["a"] = "2"
    assert piece.state_text() == "null;0;0;;2147483647;a;2;b"


def test_adding_properties_follows_java_hashmap_order() -> None:
    piece = decode_trait(*TOUR_BASIC)
    for key in ("UniqueID", "OldX", "OldY", "OldMap", "OldBoard", "OldZone", "OldLocationName", "OldDeckName",
                "ClickedX", "ClickedY"):
        piece.properties[key] = key.lower()
    assert list(piece.properties) == ["OldZone", "ClickedX", "UniqueID", "OldLocationName", "OldDeckName",
                                      "ClickedY", "OldX", "OldY", "OldBoard", "OldMap"]
    assert piece.state_text().startswith("null;35;56;;10;OldZone;oldzone;ClickedX;clickedx;UniqueID;uniqueid;")


def test_move_basic_piece_changes_only_position() -> None:
    piece = decode_trait(*PBS_BASIC)
    piece.move("Main Map", 450, -12)
    assert piece.state_text() == "Main Map;450;-12;apb2:14404;3;ClickedX;0;ppScale;1.0;ClickedY;0"
    assert piece.on_map == "Main Map"


def test_non_integer_coordinate_is_a_typed_error() -> None:
    piece = decode_trait("piece;;;a.png;A", "Main Map;12x;5", piece_id="1700000000001")
    assert piece.y == 5
    with pytest.raises(EncodingError, match="piece 1700000000001.*not an integer: '12x'"):
        piece.x


def test_stack_2005_and_layer() -> None:
    stack = decode_trait(*TLD_STACK)
    assert isinstance(stack, Stack)
    assert (stack.map, stack.x, stack.y, stack.members, stack.layer) == (
        "German Remnants", 350, 458, ["1168285057451"], None)
    modern = decode_trait(*CCN_STACK)
    assert modern.members == ["1701384070533", "1701384070538"]
    assert modern.layer == 4
    modern.members = ["1701384070538", "1701384070533", "99"]
    assert modern.state_text() == "Main Map;1031;585;1701384070538;1701384070533;99;@@4"
    modern.layer = -1
    assert modern.state_text() == "Main Map;1031;585;1701384070538;1701384070533;99;@@-1"


def test_new_stack_from_no_state() -> None:
    stack = decode_trait("stack", None)
    stack.map = "Main Map"
    stack.x, stack.y = 10, 20
    stack.members = ["a", "b"]
    stack.layer = -1
    assert stack.state_text() == "Main Map;10;20;a;b;@@-1"


def test_deck_2005() -> None:
    deck = decode_trait(*TOUR_DECK)
    assert isinstance(deck, Deck)
    assert len(deck.fields()) == 17
    assert (deck.deck_name, deck.width, deck.height, deck.face_down_option, deck.reversible) == (
        "Cards", 139, 90, "Always", False)
    assert (deck.map, deck.x, deck.y, deck.face_down) == ("Force Pool", 658, 94, True)
    assert deck.members == ["1116882739943", "1116882739944", "1116882739945"]
    deck.members = deck.members[:-1]
    assert deck.state_text() == "Force Pool;658;94;true;1116882739943,1116882739944"
    deck.members = []
    assert deck.state_text() == "Force Pool;658;94;true"


def test_version_0_layer_with_value_status_state() -> None:
    layer = decode_trait(*TLD_FLIP)
    assert isinstance(layer, Embellishment)
    assert (layer.activate_command, layer.activate_key, layer.version, layer.legacy_version) == ("Flip", "F", 0, True)
    assert (layer.images, layer.level_names, layer.name, layer.level, layer.active) == (
        ["2394.svg"], [""], "", -1, False)
    layer.set_level(1)
    assert layer.state_text() == "1;"
    assert layer.type_text() == TLD_FLIP[0]


def test_strength_layer_names_and_properties() -> None:
    layer = decode_trait(*CCN_STRENGTH)
    assert layer.name == "StrengthLayer"
    assert layer.level_names == ["+ (Strength=4)", "+ (Strength=3)", "+ (Strength=2)", "+ (Strength=1)",
                                 "+ (Destroyed)"]
    assert layer.images == ["str4.png", "str3.png", "str2.png", "str1.png", "str0.png"]
    assert (layer.always_active, layer.follow_property, layer.first_level_value, layer.scale) == (True, True, 0, 1.0)
    assert layer.property_name == '{CurrentMap==""?0:MaxStrength-Strength}'
    assert layer.apply_name("French Light Cavalry") == "French Light Cavalry (Strength=4)"
    layer.set_level(3)
    assert layer.state_text() == "3"
    assert layer.exposed_properties() == {"StrengthLayer_Image": "str2.png", "StrengthLayer_Name": " (Strength=2)",
                                          "StrengthLayer_Level": "3", "StrengthLayer_Active": "true"}
    with pytest.raises(EncodingError, match="levels 1..5"):
        layer.set_level(6)
    with pytest.raises(EncodingError):
        layer.set_level(0)


def test_layer_type_edit_rewrites_only_that_field() -> None:
    layer = decode_trait(*TOUR_TAILING)
    assert (layer.name, layer.images, layer.up_key, layer.down_key) == ("", ["Tailing"], "]", "[")
    assert len(layer.fields()) == 18
    layer.level_names = ["+ tailing"]
    assert layer.type_text() == "emb2;Tailing;2;T;Increase;2;];Decrease;2;[;;;0;false;0;0;Tailing;+ tailing;true"
    layer.name = "Tail"
    assert layer.type_text() == ("emb2;Tailing;2;T;Increase;2;];Decrease;2;[;;;0;false;0;0;Tailing;+ tailing;true;"
                                 "Tail")
    layer.description = "d"
    assert layer.type_text().endswith(";Tail;;;false;;1;0;true;;;;d")


def test_legacy_emb_type() -> None:
    layer = decode_trait("emb;D;Disrupt;;;;;0;0;disr.gif,Disrupted;,+ (moved)", "-1")
    assert isinstance(layer, LegacyEmbellishment)
    assert (layer.activate_key, layer.activate_command, layer.always_active) == ("D", "Disrupt", False)
    assert layer.images == ["disr.gif", ""]
    assert layer.level_names == ["Disrupted", "+ (moved)"]
    assert layer.level == -1
    layer.set_level(2)
    assert layer.apply_name("Tiger") == "Tiger (moved)"
    assert layer.state_text() == "2"


def test_marker_keys_and_values() -> None:
    marker = decode_trait(*TLD_MARKER)
    assert isinstance(marker, Marker)
    assert (marker.keys, marker.values) == (["showRange"], [""])
    marker.set_value("showRange", "true")
    assert marker.state_text() == "true"
    with pytest.raises(EncodingError, match="no key 'Range'"):
        marker.set_value("Range", "1")
    marker2 = decode_trait("mark;Side,Formation", "German,352 ID")
    marker2.set_value("Formation", "21 Pz, KG Luck")
    assert marker2.state_text() == "German,21 Pz\\, KG Luck"
    assert marker2.exposed_properties() == {"Side": "German", "Formation": "21 Pz, KG Luck"}


def test_dynamic_property() -> None:
    prop = decode_trait(*CCN_PROP)
    assert isinstance(prop, DynamicProperty)
    assert (prop.key, prop.value, prop.numeric, prop.minimum, prop.maximum, prop.wrap) == (
        "MarkerLevel", "0", False, -2, 6, False)
    assert prop.description == "Marker Levels for layered combat markers"
    prop.value = "5"
    assert (prop.state_text(), prop.type_text()) == ("5", CCN_PROP[0])


def test_labeler_18_and_17_fields() -> None:
    label = decode_trait(PBS_LABEL, " Moved ")
    assert isinstance(label, Labeler)
    assert (label.label_key, label.font_size, label.background_color, label.property_name, label.always_use_format) == (
        "76,130", 10, "255,255,255", "TextLabel", False)
    assert label.label == "Moved"
    assert label.apply_name("Tiger") == "Tiger (Moved)"
    assert label.exposed_properties() == {"TextLabel": "Moved"}
    tour = decode_trait(TOUR_LABEL, "")
    assert (tour.menu_command, tour.vertical_position, tour.vertical_offset, tour.font_family) == (
        "Change Altitude", "b", 20, "Dialog")
    assert tour.apply_name("Albatros C") == "Albatros C"


def test_obscurable() -> None:
    mask = decode_trait(*CCN_MASK)
    assert isinstance(mask, Obscurable)
    assert (mask.image, mask.hide_command, mask.display_style, mask.mask_name, mask.access) == (
        "marsh_back.png", "Flip Card", "GCardMask3b.png", "Command Card", "player:")
    assert mask.obscured_by is None
    mask.obscured_by = "secret"
    assert mask.state_text() == "secret;"


def test_hideable() -> None:
    hide = decode_trait(*VASL_HIP)
    assert isinstance(hide, Hideable)
    assert (hide.hide_key, hide.command, hide.access, hide.transparency) == ("72,130", "HIP", "player:",
                                                                            0.30000001192092896)
    assert hide.hidden_by is None
    hide.hidden_by = "player1"
    assert hide.state_text() == "player1"


def test_immobilized_raw_concatenation() -> None:
    immob = decode_trait("immob;i;I;R;", "")
    assert isinstance(immob, Immobilized)
    assert (immob.selection, immob.movement, immob.stacking, immob.can_stack) == ("i", "I", "R", False)
    tour = decode_trait("immob;n", "")
    assert (tour.never_select, tour.movement, tour.stacking) == (True, "", "R")
    immob.description = "a;b"
    assert immob.type_text() == "immob;i;I;R;a;b"


def test_free_rotator_fixed_facings() -> None:
    rotate = decode_trait(*TLD_ROTATE)
    assert isinstance(rotate, FreeRotator)
    assert (rotate.facings, rotate.free, rotate.rotate_cw_key, rotate.rotate_ccw_text) == (
        6, False, "93,130", "Rotate CCW")
    assert (rotate.facing, rotate.angle) == (4, -240.0)
    rotate.facing = 5
    assert rotate.state_text() == "5"


def test_movement_markable() -> None:
    moved = decode_trait(*TLD_MOVED)
    assert isinstance(moved, MovementMarkable)
    assert (moved.moved_icon, moved.x_offset, moved.y_offset, moved.key, moved.moved) == (
        "/images/moved.gif", 25, -25, "77,130", False)
    moved.moved = True
    assert moved.state_text() == "true"


def test_report_state() -> None:
    report = decode_trait(*PBS_REPORT)
    assert isinstance(report, ReportState)
    assert (report.keys, report.report_format, report.no_suppress, report.cycle_index) == (
        ["70,130", "82,130"], "$location$: $newPieceName$ *", False, -1)


def test_trigger_action() -> None:
    macro = decode_trait(CCN_MACRO, "")
    assert isinstance(macro, TriggerAction)
    assert (macro.name, macro.command, macro.key, macro.watch_keys, macro.action_keys) == (
        "Add Artillery - stacked commmand", "Add to Attack", "65,520", [], ["65,585"])
    assert (macro.loop, macro.loop_type, macro.index_start) == (False, "counted", "1")


def test_global_key_command_3_6_fields() -> None:
    gkc = decode_trait(CCN_GKC, "")
    assert isinstance(gkc, GlobalKeyCommand)
    assert len(gkc.fields()) == 12
    assert (gkc.key, gkc.global_key, gkc.restrict_range, gkc.range, gkc.description) == (
        "86,130", "86,195", True, 0, "Pass Clear to Unit")
    assert gkc.target == "COUNTER|true|CURLOC|||||0|0||true|Stack|1|GREATER"
    assert (gkc.suppress_sounds, gkc.parameters) == (False, "")


def test_send_to_location() -> None:
    sendto = decode_trait(*CCN_SENDTO)
    assert isinstance(sendto, SendToLocation)
    assert (sendto.map_id, sendto.board_name, sendto.destination, sendto.grid_location) == (
        "Main Map", "Inland", "G", "$LocationName$")
    assert (sendto.back_map, sendto.back_x, sendto.back_y) == ("", "", "")


def test_delete_and_clone() -> None:
    delete = decode_trait("delete;Delete;68,130", "")
    clone = decode_trait("clone;Clone;75,130;", "")
    assert isinstance(delete, Delete) and isinstance(clone, Clone)
    assert (delete.command_name, delete.key, delete.description) == ("Delete", "68,130", "")
    assert (clone.command_name, clone.key, len(clone.fields())) == ("Clone", "75,130", 3)


def test_restrict_commands() -> None:
    restrict = decode_trait(CCN_HIDECMD, "")
    assert isinstance(restrict, RestrictCommands)
    assert (restrict.name, restrict.action, restrict.property_match, restrict.watch_keys) == (
        "Active Side Commands only", "Hide", "{Side!=gActiveSide}", ["65,130", "79,520", "65,520"])


def test_place_marker_and_replace() -> None:
    place = decode_trait(TLD_PLACEMARK, "")
    assert isinstance(place, PlaceMarker)
    assert (place.command, place.key, place.marker_state, place.x_offset, place.match_rotation) == (
        "Disrupt", "68,0", "null", "2", True)
    assert place.marker_type.endswith("PieceSlot:DISRUPT")
    assert place.marker() is not None and place.marker().inner.kind == "Unknown"
    replace = decode_trait(CCN_REPLACE, "")
    assert isinstance(replace, Replace)
    assert (replace.description, replace.gpid, replace.placement, replace.above) == ("Conscript", "1907", 1, False)


def test_properties_traits() -> None:
    calc = decode_trait(CCN_CALC, "")
    assert isinstance(calc, CalculatedProperty)
    assert (calc.name, calc.expression, calc.description) == ("Stacked", '{SumStack("Stack")>1}', "Boolean")
    setprop = decode_trait(CCN_SETPROP, "")
    assert isinstance(setprop, SetGlobalProperty)
    assert (setprop.key, setprop.constraints, setprop.property_level, setprop.search_name) == (
        "gTargetClass", "false,0,100,false", "Current Zone/Current Map/Module", "")
    assert setprop.key_commands == ":57384\\,0\\,reportTarget:P\\,{Class}"
    message = decode_trait(POG_LOCMSG, "")
    assert isinstance(message, TranslatableMessage)
    assert (message.key, message.description) == ("CardText", "")
    assert message.message.startswith("German units may now attack")


def test_use_prototype_and_parameters() -> None:
    use = decode_trait("prototype;Disruptable", "")
    assert isinstance(use, UsePrototype)
    assert (use.name, use.parameters, use.parameterised) == ("Disruptable", {}, False)
    param = decode_trait("prototype;Unit;side=German,steps=2,bad", "")
    assert param.parameters == {"side": "German", "steps": "2"}


def test_unknown_trait_is_kept_verbatim() -> None:
    turret = "turr;Turret;CA;65,130"
    unknown = decode_trait(turret, "2")
    assert isinstance(unknown, UnknownTrait)
    assert unknown.id_prefix == "turr;"
    assert (unknown.type_text(), unknown.state_text()) == (turret, "2")
    assert decode_trait("no prefix at all", None).id_prefix == "no prefix at all"


def test_more_command_traits() -> None:
    translate = decode_trait("translate;Move;77,130;0;60;true;0;0;0;0", "")
    assert isinstance(translate, Translate)
    assert (translate.command_name, translate.y_distance, translate.move_stack, translate.description) == (
        "Move", "60", True, "")
    legacy_return = decode_trait("return;Return to Deck;82,130;Draw Pile;Select", "")
    assert isinstance(legacy_return, ReturnToDeck)
    assert (legacy_return.deck_id, legacy_return.version, legacy_return.deck_select) == ("Draw Pile", 0, True)
    restricted = decode_trait("restrict;Allied,Axis;false;true;", "player1")
    assert isinstance(restricted, Restricted)
    assert (restricted.sides, restricted.restrict_movement, restricted.owning_player) == (
        ["Allied", "Axis"], True, "player1")


def test_area_of_effect() -> None:
    aoe = decode_trait("AreaOfEffect;102,102,102;30;1;false;Show ZOC;90,195;;true;;ZOC;;;;;;true",
                       "false")  # ragnarok-start.vsav
    assert isinstance(aoe, AreaOfEffect)
    assert (aoe.color, aoe.transparency_percent, aoe.radius, aoe.always_active, aoe.activate_command) == (
        "102,102,102", 30, "1", False, "Show ZOC")
    assert (aoe.name, aoe.globally_visible, aoe.shown) == ("", True, False)


def test_property_sheet() -> None:
    sheet = decode_trait("propertysheet;2Goblin~5HP~1Equipment;Stats;S;0;;;", "12/12~")  # tour.mod
    assert isinstance(sheet, PropertySheet)
    assert (sheet.field_names, sheet.values, sheet.menu_name) == (["Goblin", "HP", "Equipment"],
                                                                  ["12/12", "", ""], "Stats")
    assert sheet.exposed_properties() == {"Goblin": "12/12", "HP": "", "Equipment": ""}
    ticks = decode_trait("propertysheet;0Name~5HP;Stats;;0;;;", "Hans~3/5")
    assert ticks.exposed_properties() == {"Name": "Hans", "HP": "3"}


def test_pivot_and_outline() -> None:
    pivot = decode_trait("pivot;Pivot Left;80,195;-25;48;true;-90.0", "")  # tour.mod
    assert isinstance(pivot, Pivot)
    assert (pivot.command, pivot.pivot_x, pivot.pivot_y, pivot.fixed_angle, pivot.angle, pivot.angle2) == (
        "Pivot Left", -25, 48, True, -90.0, 270.0)
    pivot.angle = 45.5
    assert pivot.type_text() == "pivot;Pivot Left;80,195;-25;48;true;45.5"
    outline = decode_trait("nonRect2;0.5;c,0,0,10;l,5,5", "")
    assert isinstance(outline, NonRectangular)
    assert (outline.scale, outline.shape) == (0.5, "c,0,0,10;l,5,5")
    legacy = decode_trait("nonRect;c,0,0,10", "")
    assert legacy.shape == "c,0,0,10"


def test_vassal_3_6_and_3_7_traits() -> None:
    trail = decode_trait("footprint;77,130;;true;false;6;255,51,0;255,102,102;100;40;0;0;2.0;57359,0,trailsON;;"
                         "57352,0,clrTrail;Matching Trail", "true;Map0;1;509,133;false")  # CCNv4 Tutorial.vlog
    assert isinstance(trail, Footprint)
    assert (trail.menu_command, trail.initially_visible, trail.circle_radius, trail.line_width, trail.description) == (
        "", True, 6, 2.0, "Matching Trail")
    assert (trail.start_map, trail.points, trail.ignore_same_location) == ("Map0", [(509, 133)], False)
    attach = decode_trait("attach;cp;mutual attachment to marker;Attach to pieces;;Clear all attachments;;;false;1;"
                          "true;;-1;COUNTER|false|MAP|||||0|0||false|||EQUALS||;Clear matching attachments;;;follow;"
                          "nothing;clear;false;false", "2;1700000000001;1700000000002")  # ccn buildFile.xml
    assert isinstance(attach, Attachment)
    assert (attach.attach_name, attach.on_attach, attach.auto_attach, attach.attached) == (
        "cp", "follow", False, ["1700000000001", "1700000000002"])
    locations = decode_trait("locCommand;Legal places;locRegions;{true};To $LocationOfCommand$;57890,0,SRtoLocation;"
                             "true", "")
    assert isinstance(locations, MultiLocationCommand)
    assert (locations.menu_text, locations.key, locations.current_map_only, locations.ascending) == (
        "To $LocationOfCommand$", "57890,0,SRtoLocation", True, True)
    setter = decode_trait("setpieceprop;tcSetting;false,0,100,false;:57679\\,0\\,placeDirect:P\\,1;Flag TC play;"
                          "COUNTER|true|CURATTACH|||||0|0||false|||EQUALS|ap|;;false;1;true;;0;false", "")
    assert isinstance(setter, SetPieceProperty)
    assert (setter.key, setter.description, setter.select_from_deck, setter.override_constraints) == (
        "tcSetting", "Flag TC play", "0", False)
    border = decode_trait("border;is_activated;Activated;4;0,255,255;;AND", "")  # fields-of-normandy-2
    assert isinstance(border, BorderOutline)
    assert (border.property_name, border.thickness, border.color, border.compare_mode) == (
        "is_activated", 4, "0,255,255", "AND")


def test_basic_name_trait_overrides_the_name() -> None:
    from converter.vassal.pieces import decode_piece
    piece = decode_piece("basicName;Panzer IV\tpiece;;;pz.png;Tank", "\tnull;0;0")
    assert isinstance(piece.traits[0], BasicName)
    assert (piece.basic_name, piece.name, piece.properties()["BasicName"]) == ("Panzer IV", "Panzer IV", "Panzer IV")


def test_legacy_quoting_for_edited_values() -> None:
    marker = decode_trait("mark;Path", "a", quoting=LEGACY)
    marker.set_value("Path", "C:\\")
    assert marker.state_text() == "'C:\\'"
    modern = decode_trait("mark;Path", "a")
    modern.set_value("Path", "\\x")
    assert modern.state_text() == "'\\x'"


def test_make_traits_gives_what_each_class_call_gives() -> None:
    """The bulk maker sets the same slots as ``cls(type, state, quoting, piece_id)``."""
    from converter.vassal.traits.base import make_traits
    classes, types, states = (Embellishment, Marker, BasicPiece), (TLD_FLIP[0], TLD_MARKER[0], TOUR_BASIC[0]), \
        (TLD_FLIP[1], None, TOUR_BASIC[1])
    made = make_traits(classes, types, states, LEGACY, "17")
    called = [cls(t, s, LEGACY, "17") for cls, t, s in zip(classes, types, states)]
    assert [type(t) for t in made] == [Embellishment, Marker, BasicPiece]
    assert [(t.type_text(), t.state_text(), t.quoting, t.piece_id) for t in made] == \
        [(t.type_text(), t.state_text(), t.quoting, t.piece_id) for t in called]
    assert (made[0].level, made[2].x, made[2].y) == (-1, 35, 56)
    made[0].set_level(1)
    assert (made[0].state_text(), called[0].state_text()) == ("1;", "-1;")


def test_a_trait_class_of_its_own_init_is_refused() -> None:
    """``make_traits`` builds traits without calling ``__init__``: a class that needs one would be half-made."""
    with pytest.raises(TypeError, match="keep Trait.__init__"):
        class Odd(Marker):  # noqa: F841 - the class statement itself is refused
            __slots__ = ()

            def __init__(self, type_text: str, state_text: str | None = None) -> None:
                super().__init__(type_text, state_text)
