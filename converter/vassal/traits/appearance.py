"""Traits that change how a piece looks, who may see or use it, and how it handles:
Labeler, Obscurable, Hideable, Restricted, FreeRotator, AreaOfEffect, Pivot,
NonRectangular, Footprint, BorderOutline, MovementMarkable and Immobilized (spec
section 2.5).

Their states carry rules-relevant facts: a label text, who masks or hides the
piece, its facing, whether it has moved.
"""
from __future__ import annotations

import re

from converter.vassal.sequence import java_parse_int, split
from converter.vassal.traits.base import STATE, Bool, Double, Int, StateValue, Str, StrList, Trait

NO_PLAYER = "null"
_JAVA_WHITESPACE = "".join(chr(c) for c in range(33))


def _int_or_zero(text: str) -> int:
    """``Decoder.nextInt(0)`` on one token."""
    try:
        return java_parse_int(text)
    except ValueError:
        return 0


class Labeler(StateValue):
    """``label;`` ("Text Label"): a text drawn on the piece; the state is the text."""

    prefix = "label;"
    kind = "Labeler"
    __slots__ = ()

    label_key = Str(0)
    menu_command = Str(1, "Change label")
    font_size = Int(2, 10)
    background_color = Str(3)
    foreground_color = Str(4, "0,0,0")
    vertical_position = Str(5, "t")
    vertical_offset = Int(6, 0)
    horizontal_position = Str(7, "c")
    horizontal_offset = Int(8, 0)
    vertical_justification = Str(9, "b")
    horizontal_justification = Str(10, "c")
    name_format = Str(11, "$pieceName$ ($label$)")
    font_family = Str(12, "Dialog")
    font_style = Int(13, 0)
    rotate_degrees = Int(14, 0)
    property_name = Str(15, "TextLabel")
    description = Str(16)
    always_use_format = Bool(17, False)

    @property
    def label(self) -> str:
        """The label text, trimmed as ``mySetState`` trims it."""
        return self.value.strip(_JAVA_WHITESPACE)

    @label.setter
    def label(self, text: str) -> None:
        self.value = text

    def apply_name(self, inner_name: str) -> str:
        """``$pieceName$``/``$label$`` of the name format filled in, when there is a label."""
        label = self.label
        if not label and not self.always_use_format:
            return inner_name
        values = {"pieceName": inner_name, "label": label}
        return re.sub(r"\$([^$]*)\$", lambda m: values.get(m.group(1), m.group(0)), self.name_format)

    def exposed_properties(self) -> dict[str, str]:
        return {self.property_name: self.label}


class Obscurable(Trait):
    """``obs;`` ("Mask"): hides the piece from other players; state ``obscuredBy;options``."""

    prefix = "obs;"
    kind = "Obscurable"
    default_state = "null;"
    __slots__ = ()

    key_command = Str(0)
    image = Str(1)
    hide_command = Str(2, "Mask")
    display_style = Str(3, "I")
    mask_name = Str(4, "?")
    access = Str(5)
    peek_command = Str(6, "Peek")
    description = Str(7)
    auto_peek_rollover = Bool(8, False)
    deal_key = Str(9)
    deal_expression = Str(10)

    options = Str(1, part=STATE)
    """``override|count|id|id...`` while masked, ``""`` otherwise."""

    @property
    def obscured_by(self) -> str | None:
        """The masking player's id (their password), or ``None`` when not masked."""
        fields = self.fields(STATE) if self.state_text() is not None else None
        token = fields.get(0, NO_PLAYER) if fields is not None else NO_PLAYER
        return None if token == NO_PLAYER else token

    @obscured_by.setter
    def obscured_by(self, player: str | None) -> None:
        if self.state_text() is None:
            self.set_state(self.default_state)
        self.set_field(0, NO_PLAYER if player is None else player, STATE)


class Hideable(StateValue):
    """``hide;`` ("Invisible"): the state is the hiding player's id or ``null``."""

    prefix = "hide;"
    kind = "Hideable"
    default_state = NO_PLAYER
    __slots__ = ()

    hide_key = Str(0)
    command = Str(1, "Invisible")
    background_color = Str(2)
    access = Str(3)
    transparency_text = Str(4, "0.3")
    description = Str(5)
    disable_auto_report_move = Bool(6, False)

    @property
    def transparency(self) -> float:
        """Opacity while hidden, clamped to [0, 1] as a Java float (read back as ``0.3``)."""
        try:
            value = float(self.transparency_text)
        except ValueError:
            value = 0.3
        return max(0.0, min(1.0, value))

    @property
    def hidden_by(self) -> str | None:
        value = self.state_text()
        return None if value in (None, NO_PLAYER) else value

    @hidden_by.setter
    def hidden_by(self, player: str | None) -> None:
        self.value = NO_PLAYER if player is None else player


class Restricted(StateValue):
    """``restrict;`` ("Restricted Access"): only the listed sides may use the piece; state = owner id."""

    prefix = "restrict;"
    kind = "Restricted"
    __slots__ = ()

    sides = StrList(0)
    restrict_by_player = Bool(1, False)
    restrict_movement = Bool(2, True)
    description = Str(3)

    @property
    def owning_player(self) -> str:
        return self.value


class FreeRotator(StateValue):
    """``rotate;`` ("Can Rotate"): the state is a facing index, or an angle for free rotation.

    With n fixed facings, facing i has the angle ``-i*360/n`` degrees.
    """

    prefix = "rotate;"
    kind = "FreeRotator"
    default_state = "0"
    __slots__ = ()

    facings = Int(0, 1)
    """``nFacings``; 1 means free rotation."""

    @property
    def free(self) -> bool:
        return self.facings == 1

    def _field(self, fixed: int, free: int) -> str:
        index = free if self.free else fixed
        return self.fields().get(index, "") or ""

    @property
    def rotate_cw_key(self) -> str:
        return "" if self.free else self._field(1, 1)

    @property
    def rotate_ccw_key(self) -> str:
        return "" if self.free else self._field(2, 2)

    @property
    def rotate_cw_text(self) -> str:
        return "" if self.free else self._field(3, 3)

    @property
    def rotate_ccw_text(self) -> str:
        return "" if self.free else self._field(4, 4)

    @property
    def name(self) -> str:
        """The rotation's name (property prefix), after the key/text fields."""
        return self._field(7, 5)

    @property
    def facing(self) -> int:
        """The facing index (fixed facings); unparsable or missing reads 0."""
        try:
            index = java_parse_int(self.value)
        except ValueError:
            return 0
        return min(max(index, 0), max(self.facings - 1, 0))

    @facing.setter
    def facing(self, index: int) -> None:
        self.value = str(int(index))

    @property
    def angle(self) -> float:
        """The angle in degrees: the stored angle (free rotation) or ``-facing*360/n``."""
        if self.free:
            try:
                return float(self.value)
            except ValueError:
                return 0.0
        return -self.facing * 360.0 / max(self.facings, 1)


class AreaOfEffect(StateValue):
    """``AreaOfEffect;``: a shaded radius around the piece; the state is ``true`` while shown."""

    prefix = "AreaOfEffect;"
    kind = "AreaOfEffect"
    __slots__ = ()

    color = Str(0, "128,128,128")
    transparency_percent = Int(1, 30)
    radius = Str(2, "1")
    always_active = Bool(3, True)
    activate_command = Str(4, "Show area")
    activate_key = Str(5)
    map_shader_name = Str(6)
    fixed_radius = Bool(7, True)
    radius_marker = Str(8)
    description = Str(9)
    name = Str(10)
    on_menu_text = Str(11)
    on_key = Str(12)
    off_menu_text = Str(13)
    off_key = Str(14)
    globally_visible = Bool(15, True)

    @property
    def shown(self) -> bool:
        return self.value == "true"


class Pivot(Trait):
    """``pivot;``: rotates the piece about a point by a fixed angle; no state."""

    prefix = "pivot;"
    kind = "Pivot"
    __slots__ = ()

    command = Str(0, "Pivot")
    key = Str(1)
    pivot_x = Int(2, 0)
    pivot_y = Int(3, 0)
    fixed_angle = Bool(4, True)
    angle = Double(5, 90.0)
    description = Str(6)
    command2 = Str(7)
    key2 = Str(8)
    angle2 = Double(9, 270.0)


class NonRectangular(Trait):
    """``nonRect2;`` (3.6+; legacy ``nonRect;``): the piece's outline as a path spec; no state.

    ``nonRect2;<scale>;<shape>``: the shape is the rest of the text, kept as it is.
    """

    prefix = "nonRect2;"
    kind = "NonRectangular"
    __slots__ = ()

    scale = Double(0, 1.0)

    @property
    def shape(self) -> str:
        body = self.type_text()[len(self.prefix):]
        cut = body.find(";")
        return "" if cut < 0 else body[cut + 1:]


class LegacyNonRectangular(Trait):
    """``nonRect;<shape>``: the pre-3.6 outline, the whole rest of the text being the shape."""

    prefix = "nonRect;"
    kind = "NonRectangular"
    __slots__ = ()

    @property
    def shape(self) -> str:
        return self.type_text()[len(self.prefix):]


class Footprint(Trait):
    """``footprint;`` ("Movement Trail"): draws the path a piece moved along.

    State: ``globalVisibility;startMapId;N;x,y;...;everInitialized;lastPointListSize``.
    """

    prefix = "footprint;"
    kind = "Footprint"
    __slots__ = ()

    trail_key = Str(0)
    menu_command = Str(1, "Movement Trail")
    initially_visible = Bool(2, False)
    globally_visible = Bool(3, False)
    circle_radius = Int(4, 10)
    fill_color = Str(5, "255,255,255")
    line_color = Str(6, "0,0,0")
    selected_transparency = Int(7, 100)
    unselected_transparency = Int(8, 50)
    edge_point_buffer = Int(9, 20)
    edge_display_buffer = Int(10, 30)
    line_width = Double(11, 1.0)
    trail_key_on = Str(12)
    trail_key_off = Str(13)
    trail_key_clear = Str(14)
    description = Str(15)
    ignore_same_location = Bool(16, False)

    start_map = Str(1, part=STATE)

    @property
    def points(self) -> list[tuple[int, int]]:
        """The trail's points, oldest first (``x,y``; empty entries skipped, unreadable numbers 0, as VASSAL reads them)."""
        fields = self.fields(STATE) if self.state_text() else None
        if fields is None or len(fields) < 3:
            return []
        try:
            count = max(java_parse_int(fields[2]), 0)
        except ValueError:
            count = 0
        points = []
        for index in range(3, min(3 + count, len(fields))):
            if fields[index]:
                xy = split(fields[index], ",") + [""]
                points.append((_int_or_zero(xy[0]), _int_or_zero(xy[1])))
        return points


class BorderOutline(Trait):
    """``border;`` (3.7): outlines the piece while a property is true; no state."""

    prefix = "border;"
    kind = "BorderOutline"
    __slots__ = ()

    property_name = Str(0)
    description = Str(1)
    thickness = Int(2, 2)
    color = Str(3, "255,0,0")
    property_name2 = Str(4)
    compare_mode = Str(5, "AND")


class MovementMarkable(StateValue):
    """``markmoved;`` ("Mark When Moved"): the state is ``true`` once the piece has moved."""

    prefix = "markmoved;"
    kind = "MovementMarkable"
    default_state = "false"
    __slots__ = ()

    moved_icon = Str(0)
    x_offset = Int(1, 0)
    y_offset = Int(2, 0)
    command = Str(3, "Toggle whether piece marked as moved")
    key = Str(4)
    description = Str(5)
    ignore_same_location = Bool(6, False)
    command_true = Str(7, "Mark piece as moved")
    key_true = Str(8)
    command_false = Str(9, "Mark piece as unmoved")
    key_false = Str(10)

    @property
    def moved(self) -> bool:
        return self.value == "true"

    @moved.setter
    def moved(self, flag: bool) -> None:
        self.value = "true" if flag else "false"


class Immobilized(Trait):
    """``immob;`` ("Does not stack"): selection, movement and stacking options.

    VASSAL writes this type by plain concatenation, not with a SequenceEncoder, so
    a changed field is written as it is (no escaping) while reading follows the
    Decoder, as ``mySetType`` does.
    """

    prefix = "immob;"
    kind = "Immobilized"
    __slots__ = ()

    selection = Str(0)
    """``n`` never, ``i`` shift, ``t`` ctrl, ``c`` alt; then ``g`` (ignore grid) and ``Z``/``A``/``B``."""
    movement = Str(1)
    """``V`` never, ``I`` only if selected, ``N`` normal."""
    stacking = Str(2, "R")
    """``L`` can stack, ``R`` never."""
    description = Str(3)

    @property
    def never_select(self) -> bool:
        return "n" in self.selection

    @property
    def ignore_grid(self) -> bool:
        return "g" in self.selection

    @property
    def never_move(self) -> bool:
        return "V" in self.movement

    @property
    def can_stack(self) -> bool:
        return "L" in self.stacking

    def set_field(self, index: int, text: str, part: str = "type") -> None:
        if part != "type":
            super().set_field(index, text, part)
            return
        fields = self.fields()
        if fields.get(index) == text:
            return
        while len(fields.raw) < index:
            fields.raw.append(self._defaults_type.get(len(fields.raw), ""))
        if index < len(fields.raw):
            fields.raw[index] = text
        else:
            fields.raw.append(text)


__all__ = ["Labeler", "Obscurable", "Hideable", "Restricted", "FreeRotator", "AreaOfEffect", "Pivot", "NonRectangular",
           "LegacyNonRectangular", "Footprint", "BorderOutline", "MovementMarkable", "Immobilized"]
