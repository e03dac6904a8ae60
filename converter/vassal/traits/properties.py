"""Traits that hold named piece properties: Marker, DynamicProperty, BasicName,
PropertySheet, CalculatedProperty, SetGlobalProperty, SetPieceProperty (spec
section 2.5).

Marker values (side, formation, unit type) and DynamicProperty values (strength,
status) are the properties a module profile maps onto the rules.
"""
from __future__ import annotations

from converter.vassal.sequence import split
from converter.vassal.traits.base import STATE, Bool, Int, Str, StateValue, Trait


class Marker(Trait):
    """``mark;``: fixed property keys in the type, their values in the state (both ``','`` lists)."""

    prefix = "mark;"
    kind = "Marker"
    delimiter = ","
    state_delimiter = ","
    __slots__ = ()

    @property
    def keys(self) -> list[str]:
        return self.fields().values()

    @property
    def values(self) -> list[str]:
        """One value per key (``""`` where the state has none)."""
        state = self.fields(STATE).values() if self.state_text() is not None else []
        keys = self.keys
        return (state + [""] * len(keys))[:len(keys)]

    def exposed_properties(self) -> dict[str, str]:
        return dict(zip(self.keys, self.values))

    def set_value(self, key: str, value: str) -> None:
        """Set the value of ``key``; only that value's text changes."""
        try:
            index = self.keys.index(key)
        except ValueError:
            raise self.error(f"no key {key!r}; keys are {self.keys}") from None
        if self.state_text() is None:
            self.set_state("")
        self.set_field(index, value, STATE)


class DynamicProperty(StateValue):
    """``PROP;``: a named property the piece can change in play; its state is the value."""

    prefix = "PROP;"
    kind = "DynamicProperty"
    __slots__ = ()

    key = Str(0)
    constraints = Str(1)
    """``numeric,min,max,wrap`` as one ``','``-encoded field."""
    key_commands = Str(2)
    """The menu commands, each ``menuText:keyStroke:propertyChanger`` (kept as text)."""
    description = Str(3)

    def _constraint(self, index: int, default: str) -> str:
        parts = split(self.constraints, ",") if self.constraints else []
        return parts[index] if index < len(parts) else default

    @property
    def numeric(self) -> bool:
        return self._constraint(0, "false") == "true"

    @property
    def minimum(self) -> int:
        try:
            return int(self._constraint(1, "0"))
        except ValueError:
            return 0

    @property
    def maximum(self) -> int:
        try:
            return int(self._constraint(2, "100"))
        except ValueError:
            return 100

    @property
    def wrap(self) -> bool:
        return self._constraint(3, "false") == "true"

    def exposed_properties(self) -> dict[str, str]:
        return {self.key: self.value}


class BasicName(Trait):
    """``basicName;`` (3.6+): overrides the BasicPiece's name as the ``BasicName`` property."""

    prefix = "basicName;"
    kind = "BasicName"
    __slots__ = ()

    name = Str(0)


class PropertySheet(Trait):
    """``propertysheet;``: a form of named fields; the state holds one value per field (``'~'`` list).

    The definition is a ``'~'`` list of entries, each a type digit (0 text, 1 text area,
    2 label, 3-6 tick marks, 7 spinner) followed by the field name. Newlines in
    values are stored as ``|``; tick marks as ``value/max``.
    """

    prefix = "propertysheet;"
    kind = "PropertySheet"
    state_delimiter = "~"
    __slots__ = ()

    definition = Str(0)
    menu_name = Str(1)
    launch_key = Str(2)
    commit_style = Int(3, 0)
    red = Str(4)
    green = Str(5)
    blue = Str(6)
    launch_keystroke = Str(7)
    description = Str(8)

    TICK_TYPES = "3456"

    def _entries(self) -> list[str]:
        return [entry for entry in split(self.definition, "~") if entry]

    @property
    def field_names(self) -> list[str]:
        return [entry[1:] for entry in self._entries()]

    @property
    def values(self) -> list[str]:
        """The state's values, one per field in definition order (``""`` where it has none)."""
        state = self.fields(STATE).values() if self.state_text() else []
        count = len(self._entries())
        return (state + [""] * count)[:count]

    def exposed_properties(self) -> dict[str, str]:
        """Each field's value as a property; tick-mark fields give the part before ``/``."""
        props = {}
        for entry, value in zip(self._entries(), self.values):
            cut = value.find("/")
            props[entry[1:]] = value[:cut] if entry[0] in self.TICK_TYPES and cut > 0 else value
        return props


class CalculatedProperty(Trait):
    """``calcProp;``: a property computed from a BeanShell expression; no state."""

    prefix = "calcProp;"
    kind = "CalculatedProperty"
    __slots__ = ()

    name = Str(0)
    expression = Str(1)
    description = Str(2)


class SetGlobalProperty(Trait):
    """``setprop;``: commands that change a global property; no state."""

    prefix = "setprop;"
    kind = "SetGlobalProperty"
    __slots__ = ()

    key = Str(0)
    constraints = Str(1)
    key_commands = Str(2)
    description = Str(3)
    property_level = Str(4)
    search_name = Str(5)


class SetPieceProperty(Trait):
    """``setpieceprop;`` (3.7): commands that set a Dynamic Property on other pieces; no state."""

    prefix = "setpieceprop;"
    kind = "SetPieceProperty"
    __slots__ = ()

    key = Str(0, "name")
    constraints = Str(1)
    key_commands = Str(2)
    description = Str(3)
    target = Str(4)
    properties_filter = Str(5)
    restrict_range = Bool(6, False)
    range = Int(7, 1)
    fixed_range = Bool(8, True)
    range_property = Str(9)
    select_from_deck = Str(10, "-1")
    override_constraints = Bool(11, False)


__all__ = ["Marker", "DynamicProperty", "BasicName", "PropertySheet", "CalculatedProperty", "SetGlobalProperty",
           "SetPieceProperty"]
