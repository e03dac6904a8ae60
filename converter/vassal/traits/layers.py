"""Embellishment ("Layer"): ``emb2;`` and the pre-2.0 ``emb;`` (spec section 2.5).

A layer shows one of n images. Its state is one signed integer: ``v > 0`` is
active at level v (1-based), ``v < 0`` inactive remembering level ``-v``. Version-0
layers (``Embellishment0``) store ``value;activationStatus``; only the value is
typed, the status text is kept. Step losses, flipped sides and status flags such
as Disrupted are usually layers, so the level is what a referee reads and writes.
"""
from __future__ import annotations

from typing import ClassVar, Mapping

from converter.vassal.sequence import java_parse_int, split
from converter.vassal.traits.base import STATE, Bool, Double, Int, Str, StrList, Trait


def level_name_applied(level_name: str, inner_name: str) -> str:
    """The piece name with a level name applied (``Embellishment.getName``).

    ``+x`` appends x, ``x+`` prepends x, a name without ``+`` replaces the piece
    name, and an empty level name leaves it unchanged.
    """
    if not level_name:
        return inner_name
    parts = split(level_name, "+")
    if len(parts) == 1:
        return parts[0]
    first, second = parts[0], parts[1]
    return inner_name + second if first == "" else first + inner_name


def strip_level_name(level_name: str) -> str:
    """``Embellishment.strip``: a level name without its ``+`` marker (the ``_Name`` property)."""
    if level_name.startswith("+"):
        return level_name[1:]
    if level_name.endswith("+"):
        return level_name[:-1]
    return level_name


class Layer(Trait):
    """What both layer formats share: levels, activation and the exposed properties."""

    __slots__ = ()
    kind = "Embellishment"
    name: str
    images: list[str]
    level_names: list[str]
    always_active: bool

    @property
    def level_count(self) -> int:
        return max(len(self.images), 1)

    def _default_level(self) -> int:
        return 1 if self.always_active else -1

    @property
    def level(self) -> int:
        """The signed state value: level when positive (active), minus the level when inactive."""
        fields = self.fields(STATE)
        if self.state_text() is None or len(fields) == 0:
            return self._default_level()
        try:
            value = java_parse_int(fields[0])
        except ValueError:
            value = -1
        n = self.level_count
        return min(max(-n, value), n)

    @property
    def active(self) -> bool:
        return self.level > 0

    @property
    def current_level(self) -> int:
        """The 1-based level shown (or remembered while inactive)."""
        return abs(self.level)

    def set_level(self, value: int) -> None:
        """Set the signed state value (``3`` = active at level 3, ``-2`` = inactive at level 2)."""
        n = self.level_count
        if value == 0 or abs(value) > n:
            raise self.error(f"layer {self.name!r} has levels 1..{n} (negative = inactive); got {value}")
        if self.state_text() is None:
            self.set_state(str(self._default_level()))
        self.set_field(0, str(int(value)), STATE)

    def set_active(self, active: bool) -> None:
        """Switch the layer on or off, keeping its level."""
        level = self.current_level or 1
        self.set_level(level if active else -level)

    def _level_item(self, items: list[str], level: int | None = None) -> str:
        value = self.level if level is None else level
        return items[value - 1] if 0 < value <= len(items) else ""

    @property
    def image(self) -> str:
        """The image of the active level, ``""`` when inactive (``<name>_Image``)."""
        return self._level_item(self.images)

    @property
    def level_name(self) -> str:
        """The raw name of the active level (with its ``+`` marker), ``""`` when inactive."""
        return self._level_item(self.level_names)

    def default_state_text(self) -> str:
        return str(self._default_level())

    def followed_level(self, properties: Mapping[str, str]) -> int | None:
        """The level VASSAL shows for a layer that follows a property; ``None`` when it does not."""
        return None

    def apply_name(self, inner_name: str, level: int | None = None) -> str:
        """The name with the shown level's name applied; ``level`` overrides the stored one."""
        return level_name_applied(self._level_item(self.level_names, level), inner_name)

    def exposed_properties(self, level: int | None = None) -> dict[str, str]:
        """``<name>_Level``, ``<name>_Active``, ``<name>_Name`` and ``<name>_Image``."""
        value = self.level if level is None else level
        return {
            self.name + "_Image": self._level_item(self.images, value),
            self.name + "_Name": strip_level_name(self._level_item(self.level_names, value)),
            self.name + "_Level": str(value),
            self.name + "_Active": "true" if value > 0 else "false",
        }


class Embellishment(Layer):
    """``emb2;``: the 33-field layer of VASSAL 2.x-3.8 (29 fields up to 3.4)."""

    prefix = "emb2;"
    __slots__ = ()
    VERSION_0 = 0

    activate_command = Str(0)
    activate_modifiers = Int(1, 130)
    activate_key = Str(2, "A")
    up_command = Str(3)
    up_modifiers = Int(4, 130)
    up_key = Str(5)
    down_command = Str(6)
    down_modifiers = Int(7, 130)
    down_key = Str(8)
    reset_command = Str(9)
    reset_key = Str(10)
    reset_level = Str(11, "1")
    draw_underneath_when_selected = Bool(12, False)
    x_offset = Int(13, 0)
    y_offset = Int(14, 0)
    images = StrList(15, 1)
    """One image per level (``imageName``); ``""`` = no image."""
    level_names = StrList(16, pad_to="images")
    """One name per level (``commonName``): ``+x`` suffix, ``x+`` prefix, else replacement."""
    loop_levels = Bool(17, True)
    name = Str(18)
    """The layer's name, the prefix of its ``_Level``/``_Active``/``_Name``/``_Image`` properties."""
    random_key = Str(19)
    random_text = Str(20)
    follow_property = Bool(21, False)
    property_name = Str(22)
    first_level_value = Int(23, 1)
    version = Int(24, 0)
    always_active = Bool(25, True)
    activate_keystroke = Str(26)
    increase_keystroke = Str(27)
    decrease_keystroke = Str(28)
    description = Str(29)
    scale = Double(30, 1.0)
    only_property_name = Str(31)
    only_property_state = Str(32, "true")

    @property
    def legacy_version(self) -> bool:
        """A version-0 layer (``Embellishment0``): state ``value;status``, activation by key."""
        return self.version == self.VERSION_0

    def followed_level(self, properties: Mapping[str, str]) -> int | None:
        """``checkPropertyLevel``: level = property value - first level value + 1, clamped to [1, n].

        Only a plain property name or a single ``$name$`` is evaluated; a BeanShell
        expression, or a property the piece itself does not define (a global or
        location property), gives ``None`` and the stored level stands.
        """
        if not self.follow_property or not self.property_name:
            return None
        expression = self.property_name
        if expression.startswith("$") and expression.endswith("$") and expression.count("$") == 2:
            expression = expression[1:-1]
        elif "$" in expression or expression.startswith("{"):
            return None
        if expression not in properties:
            return None
        text = properties[expression] or str(self.first_level_value)
        try:
            value = java_parse_int(text) - self.first_level_value + 1
        except ValueError:
            return None
        value = min(max(value, 1), self.level_count)
        return value if self.level > 0 else -value

    def _default_level(self) -> int:
        if self.legacy_version:
            return -1 if self.activate_key else 1
        return 1 if self.always_active else -1


class LegacyEmbellishment(Layer):
    """``emb;``: the original layer type, read as VASSAL's ``originalSetType`` does.

    Fields: activation list (key[;resetCommand;resetKey;resetLevel]), activate
    command (``_`` prefix = draw underneath), up key, up command, down key, down
    command, x offset, y offset, then one ``image,name`` pair per level.
    """

    prefix = "emb;"
    __slots__ = ()
    FIRST_LEVEL = 8
    name: ClassVar[str] = ""  # type: ignore[misc]

    activate_command = Str(1)
    up_key = Str(2)
    up_command = Str(3)
    down_key = Str(4)
    down_command = Str(5)
    x_offset = Int(6, 0)
    y_offset = Int(7, 0)

    @property
    def activate_key(self) -> str:
        return split(self.fields().get(0, "") or "", ";")[0].upper()

    @property
    def always_active(self) -> bool:  # type: ignore[override]
        return self.activate_key == ""

    def _levels(self) -> list[list[str]]:
        return [split(item, ",") for item in self.fields().values()[self.FIRST_LEVEL:]]

    @property
    def images(self) -> list[str]:  # type: ignore[override]
        return [level[0] for level in self._levels()]

    @property
    def level_names(self) -> list[str]:  # type: ignore[override]
        return [level[1] if len(level) > 1 else "" for level in self._levels()]


__all__ = ["Layer", "Embellishment", "LegacyEmbellishment", "level_name_applied", "strip_level_name"]
