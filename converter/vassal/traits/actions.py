"""Command traits: what a piece can do when a key is pressed (spec section 2.5).

ReportState, TriggerAction, GlobalKeyCommand, SendToLocation, Delete, Clone,
RestrictCommands, PlaceMarker, Replace, TranslatableMessage, Translate,
ReturnToDeck, ActionButton, MultiLocationCommand, Attachment, GlobalHotKey,
SubMenu, Deselect, MenuSeparator and PlaySound. Except for
ReportState's cycle index and SendToLocation's way back, they have no state;
keystrokes stay in their encoded text form (``68,130``, ``57344,0,Flip``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from converter.vassal.sequence import java_parse_int
from converter.vassal.traits.base import STATE, Bool, Int, StateValue, Str, StrList, Trait

if TYPE_CHECKING:
    from converter.vassal.pieces import Piece


class ReportState(StateValue):
    """``report;`` ("Report Action"): chat reports on keys; the state is the cycle index."""

    prefix = "report;"
    kind = "ReportState"
    default_state = "-1"
    __slots__ = ()

    keys = StrList(0)
    report_format = Str(1, "$location$: $newPieceName$ *")
    cycle_down_keys = StrList(2)
    cycle_report_format = StrList(3)
    description = Str(4)
    no_suppress = Bool(5, False)

    @property
    def cycle_index(self) -> int:
        try:
            return java_parse_int(self.value)
        except ValueError:
            return -1


class TriggerAction(Trait):
    """``macro;``: fires action keys when a watch key is pressed and a property matches."""

    prefix = "macro;"
    kind = "TriggerAction"
    __slots__ = ()

    name = Str(0)
    command = Str(1, "Trigger")
    key = Str(2)
    property_match = Str(3)
    watch_keys = StrList(4)
    action_keys = StrList(5)
    loop = Bool(6, False)
    pre_loop_key = Str(7)
    post_loop_key = Str(8)
    loop_type = Str(9, "counted")
    while_expression = Str(10)
    until_expression = Str(11)
    loop_count = Str(12)
    index = Bool(13, False)
    index_property = Str(14)
    index_start = Str(15, "1")
    index_step = Str(16, "1")


class GlobalKeyCommand(Trait):
    """``globalkey;``: sends a key to the pieces that match a filter."""

    prefix = "globalkey;"
    kind = "GlobalKeyCommand"
    __slots__ = ()

    command_name = Str(0, "Global Command")
    key = Str(1)
    global_key = Str(2)
    properties_filter = Str(3)
    restrict_range = Bool(4, False)
    range = Int(5, 1)
    report_single = Bool(6, True)
    fixed_range = Bool(7, True)
    range_property = Str(8)
    description = Str(9)
    select_from_deck = Str(10, "-1")
    target = Str(11)
    """GlobalCommandTarget, a ``'|'``-encoded block (kept as text)."""
    suppress_sounds = Bool(12, False)
    parameters = Str(13)


class SendToLocation(Trait):
    """``sendto;``: moves the piece to a map location; state ``backMap;backX;backY``."""

    prefix = "sendto;"
    kind = "SendToLocation"
    __slots__ = ()

    command_name = Str(0)
    key = Str(1)
    map_id = Str(2)
    board_name = Str(3)
    x = Str(4, "0")
    y = Str(5, "0")
    back_command_name = Str(6)
    back_key = Str(7)
    x_index = Str(8, "0")
    y_index = Str(9, "0")
    x_offset = Str(10, "1")
    y_offset = Str(11, "1")
    description = Str(12)
    destination = Str(13, "L")
    """``L`` location, ``Z`` zone, ``R`` region, ``A`` counter, ``G`` grid location, ``C``/``N`` counters."""
    zone = Str(14)
    region = Str(15)
    property_filter = Str(16)
    grid_location = Str(17)

    back_map = Str(0, part=STATE)
    back_x = Str(1, part=STATE)
    back_y = Str(2, part=STATE)


class Delete(Trait):
    """``delete;``: a command that removes the piece."""

    prefix = "delete;"
    kind = "Delete"
    __slots__ = ()

    command_name = Str(0)
    key = Str(1)
    description = Str(2)


class Clone(Delete):
    """``clone;``: a command that duplicates the piece."""

    prefix = "clone;"
    kind = "Clone"
    __slots__ = ()


class RestrictCommands(Trait):
    """``hideCmd;``: hides or disables keys while a property expression matches."""

    prefix = "hideCmd;"
    kind = "RestrictCommands"
    __slots__ = ()

    name = Str(0)
    action = Str(1, "Hide")
    """``Hide`` or ``Disable``."""
    property_match = Str(2)
    watch_keys = StrList(3)


class PlaceMarker(Trait):
    """``placemark;``: places another piece (a marker) on this one's position.

    ``marker_type`` and ``marker_state`` are the placed piece's full encoded type
    and state; :meth:`marker` decodes them as a piece.
    """

    prefix = "placemark;"
    kind = "PlaceMarker"
    __slots__ = ()

    command = Str(0)
    key = Str(1)
    marker_type = Str(2)
    marker_state = Str(3, "null")
    x_offset = Str(4, "0")
    y_offset = Str(5, "0")
    match_rotation = Bool(6, False)
    after_burner_key = Str(7)
    description = Str(8)
    gpid = Str(9)
    """The PieceSlot this marker definition comes from."""
    placement = Int(10, 0)
    """0 top of stack, 1 bottom, 2 above this piece, 3 below."""
    above = Bool(11, False)
    copy_properties_by_name = Bool(12, False)
    parameters = Str(13)
    version = Int(14, 0)

    def marker(self) -> "Piece | None":
        """The placed piece, decoded from ``marker_type``/``marker_state`` (``None`` if there is none)."""
        from converter.vassal.pieces import decode_piece  # pieces imports this package
        if self.marker_type in ("", "null"):
            return None
        state = None if self.marker_state == "null" else self.marker_state
        return decode_piece(self.marker_type, state, quoting=self.quoting, piece_id=self.piece_id)


class Replace(PlaceMarker):
    """``replace;``: places a marker and deletes this piece (same fields as PlaceMarker)."""

    prefix = "replace;"
    kind = "Replace"
    __slots__ = ()


class TranslatableMessage(Trait):
    """``locmsg;`` (3.5.4+): a translatable message property; no state."""

    prefix = "locmsg;"
    kind = "TranslatableMessage"
    __slots__ = ()

    key = Str(0, "name")
    description = Str(1)
    message = Str(2)

    def exposed_properties(self) -> dict[str, str]:
        return {self.key: self.message}


class Translate(Trait):
    """``translate;`` ("Move Fixed Distance"): moves the piece by a fixed offset."""

    prefix = "translate;"
    kind = "Translate"
    __slots__ = ()

    command_name = Str(0, "Move Forward")
    key = Str(1)
    x_distance = Str(2, "0")
    y_distance = Str(3, "60")
    move_stack = Bool(4, False)
    x_index = Str(5, "0")
    y_index = Str(6, "0")
    x_offset = Str(7, "0")
    y_offset = Str(8, "0")
    description = Str(9)


class ReturnToDeck(Trait):
    """``return;``: sends the piece back into a deck (4 fields in legacy files, 8 from version 2)."""

    prefix = "return;"
    kind = "ReturnToDeck"
    __slots__ = ()

    return_command = Str(0)
    return_key = Str(1)
    deck_id = Str(2)
    select_deck_prompt = Str(3, "Select destination")
    description = Str(4)
    version = Int(5, 0)
    deck_select = Bool(6, True)
    deck_expression = Str(7)


class ActionButton(Trait):
    """``button;``: clicking an area of the piece sends a key; no state.

    From version 1 the area may be a polygon: a point count then x;y per point
    (kept as text after the typed fields).
    """

    prefix = "button;"
    kind = "ActionButton"
    __slots__ = ()

    key = Str(0)
    x = Int(1, 0)
    y = Int(2, 0)
    width = Int(3, 0)
    height = Int(4, 0)
    description = Str(5)
    launch_popup_menu = Bool(6, False)
    use_whole_shape = Bool(7, False)
    version = Int(8, 0)


class MultiLocationCommand(Trait):
    """``locCommand;`` (3.7): one menu command per matching location; no state."""

    prefix = "locCommand;"
    kind = "MultiLocationCommand"
    __slots__ = ()

    description = Str(0)
    location_type = Str(1, "locRegions")
    properties_filter = Str(2)
    menu_text = Str(3, "Do Something At $LocationOfCommand$")
    key = Str(4)
    current_map_only = Bool(5, True)
    menu_sort = Str(6)
    ascending = Bool(7, True)
    numeric = Bool(8, False)


class Attachment(Trait):
    """``attach;`` (3.7): links this piece to others; the state is ``N;id;id...``."""

    prefix = "attach;"
    kind = "Attachment"
    __slots__ = ()

    attach_name = Str(0)
    description = Str(1)
    attach_command_name = Str(2, "Attach to pieces")
    attach_key = Str(3)
    clear_all_command_name = Str(4, "Clear all attachments")
    clear_all_key = Str(5)
    properties_filter = Str(6)
    restrict_range = Bool(7, False)
    range = Int(8, 1)
    fixed_range = Bool(9, True)
    range_property = Str(10)
    select_from_deck = Str(11, "-1")
    target = Str(12)
    clear_matching_command_name = Str(13, "Clear matching attachments")
    clear_matching_key = Str(14)
    clear_matching_filter = Str(15)
    on_attach = Str(16, "nothing")
    on_detach = Str(17, "nothing")
    before_attach = Str(18, "clear")
    allow_self_attach = Bool(19, False)
    auto_attach = Bool(20, True)

    @property
    def attached(self) -> list[str]:
        """Ids of the attached pieces (the count field bounds the list, as in ``mySetState``)."""
        fields = self.fields(STATE) if self.state_text() else None
        if fields is None:
            return []
        try:
            count = max(java_parse_int(fields[0]), 0)
        except ValueError:
            return []
        return fields.values()[1:1 + count]


class GlobalHotKey(Trait):
    """``globalhotkey;``: fires a module-level hotkey."""

    prefix = "globalhotkey;"
    kind = "GlobalHotKey"
    __slots__ = ()

    command_name = Str(0)
    command_key = Str(1)
    global_hot_key = Str(2)
    description = Str(3)


class SubMenu(Trait):
    """``submenu;``: groups commands under a sub-menu."""

    prefix = "submenu;"
    kind = "SubMenu"
    __slots__ = ()

    menu_name = Str(0)
    commands = StrList(1)
    description = Str(2)


class Deselect(Trait):
    """``deselect;`` (3.5+): removes the piece from the selection."""

    prefix = "deselect;"
    kind = "Deselect"
    __slots__ = ()

    command_name = Str(0)
    key = Str(1)
    description = Str(2)
    unstack = Bool(3, False)
    deselect_type = Str(4, "D")


class MenuSeparator(Trait):
    """``menuSeparator;`` (3.4+): a line in the context menu."""

    prefix = "menuSeparator;"
    kind = "MenuSeparator"
    __slots__ = ()

    description = Str(0)
    key = Str(1)


class PlaySound(Trait):
    """``playSound;``: plays a sound clip."""

    prefix = "playSound;"
    kind = "PlaySound"
    __slots__ = ()

    sound_format = Str(0)
    menu_text = Str(1, "Play Sound")
    key = Str(2)
    send_to_others = Bool(3, False)
    description = Str(4)
    no_suppress = Bool(5, False)


__all__ = ["ReportState", "TriggerAction", "GlobalKeyCommand", "SendToLocation", "Delete", "Clone",
           "RestrictCommands", "PlaceMarker", "Replace", "TranslatableMessage", "Translate", "ReturnToDeck",
           "ActionButton", "MultiLocationCommand", "Attachment", "GlobalHotKey", "SubMenu", "Deselect",
           "MenuSeparator", "PlaySound"]
