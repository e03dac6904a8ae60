"""Grid numbering: turning a (column, row) pair into a location name and back.

VASSAL's ``RegularGridNumbering`` (shared by ``HexGridNumbering`` and
``SquareGridNumbering``) names a cell by its column and row, each written in
numeric or alphabetic style with an offset and leading zeros, joined by a
separator in column-first or row-first order, and finally substituted into a
``locationFormat`` message. The rules below reproduce VASSAL's quirks on purpose
(alphabetic names repeat one letter -- ``A``..``Z``, ``AA``, ``BB`` -- and
leading zeros are counted against powers of ten), because a name that differs
from what VASSAL prints in its chat log is a wrong name.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping

from converter.errors import GeometryError
from converter.vassal.sequence import split

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
GRID_LOCATION = "gridLocation"
ROW = "row"
COLUMN = "column"
_ALPHABETIC_MATCH = "-?(?:" + "|".join(f"{letter}+" for letter in ALPHABET) + ")"


def axis_name(value: int, kind: str, leading: int) -> str:
    """One coordinate written as ``RegularGridNumbering.getName(int, char, int)`` does."""
    sign = "-" if value < 0 else ""
    value = abs(value)
    if kind == "A":
        letters = []
        while True:
            letters.append(ALPHABET[value % 26])
            value -= 26
            if value < 0:
                return sign + "".join(letters)
    zeros = ""
    while leading > 0 and value < 10 ** leading:
        zeros += "0"
        leading -= 1
    return f"{sign}{zeros}{value}"


def parse_axis(name: str, kind: str) -> int:
    """The inverse of :func:`axis_name` (``RegularGridNumbering.parseName``)."""
    if kind == "A":
        negative = name.startswith("-")
        letters = name[1:] if negative else name
        value = 26 * (len(letters) - 1) + ALPHABET.index(letters[-1])
        return -value if negative else value
    return int(name)


def format_message(template: str, properties: Mapping[str, str | None]) -> str:
    """Substitute ``$name$`` properties the way VASSAL's FormattedString does.

    The template is split on ``$``; every second token that is followed by another
    token is a property name. A property without a value contributes nothing.
    """
    out = []
    for token, is_property in _message_parts(template):
        if not is_property:
            out.append(token)
        else:
            value = properties.get(token)
            if value is not None:
                out.append(value)
    return "".join(out)


@lru_cache(maxsize=256)
def _message_parts(template: str) -> tuple[tuple[str, bool], ...]:
    """The non-empty tokens of ``template`` and whether each names a property; kept per
    template, as a board's hexes are all named through one format."""
    parts = []
    is_property = True
    tokens = split(template, "$")
    for index, token in enumerate(tokens):
        is_property = not is_property
        if token:
            parts.append((token, is_property and index != len(tokens) - 1))
    return tuple(parts)


@dataclass(frozen=True)
class GridNumbering:
    """The attributes of a ``HexGridNumbering`` or ``SquareGridNumbering``, with VASSAL's defaults.

    ``stagger`` is only read by hex numbering ("odd columns numbered higher").
    Drawing attributes (``visible``, ``font_size``, ``color``, ``rotate_text``,
    ``h_draw_off``, ``v_draw_off``) are kept so that nothing is lost, but do not
    change names.
    """

    first: str = "H"
    sep: str = ""
    h_type: str = "N"
    h_leading: int = 1
    h_off: int = 1
    h_descend: bool = False
    v_type: str = "N"
    v_leading: int = 1
    v_off: int = 1
    v_descend: bool = False
    location_format: str = "$gridLocation$"
    visible: bool = False
    font_size: int = 9
    color: str = "0,0,0"
    rotate_text: int = 0
    h_draw_off: int = 0
    v_draw_off: int = 0
    stagger: bool = True

    def grid_location(self, column: int, row: int) -> str:
        """``getName(row, column)``: the two coordinate names joined in ``first`` order."""
        return self._joined(*self._axis_names(column, row))

    def _axis_names(self, column: int, row: int) -> tuple[str, str]:
        return (axis_name(column + self.h_off, self.h_type, self.h_leading),
                axis_name(row + self.v_off, self.v_type, self.v_leading))

    def _joined(self, col_name: str, row_name: str) -> str:
        return col_name + self.sep + row_name if self.first == "H" else row_name + self.sep + col_name

    def location_name(self, column: int, row: int) -> str:
        """The full location name of a numbered cell, through ``locationFormat``."""
        if self.location_format.startswith("{") and self.location_format.endswith("}"):
            raise GeometryError(f"location format {self.location_format!r} is a BeanShell expression, "
                                "which wawkit does not evaluate")
        col_name, row_name = self._axis_names(column, row)
        return format_message(self.location_format, {
            GRID_LOCATION: self._joined(col_name, row_name), ROW: row_name, COLUMN: col_name})

    def _example(self) -> str:
        """What a location name of this grid looks like, for a player who typed another."""
        try:
            return f"names look like {self.location_name(2, 3)!r}"
        except GeometryError:  # a BeanShell format: only the format itself can be shown
            return f"format {self.location_format!r}"

    def _pattern(self, kind: str, leading: int) -> str:
        return _ALPHABETIC_MATCH if kind == "A" else "-?[0-9]{%d,}" % (leading + 1)

    def parse(self, location: str) -> tuple[int, int]:
        """The numbered (column, row) a location name stands for (``getLocation`` before centring).

        Raises :class:`GeometryError` when the name does not fit this numbering.
        """
        regex = []
        groups: list[str] = []
        tokens = split(self.location_format, "$")
        is_property = True
        for index, token in enumerate(tokens):
            is_property = not is_property
            if not token:
                continue
            if not is_property or index == len(tokens) - 1:
                regex.append(re.escape(token))
            elif token == GRID_LOCATION:
                col = "(" + self._pattern(self.h_type, self.h_leading) + ")"
                row = "(" + self._pattern(self.v_type, self.v_leading) + ")"
                sep = re.escape(self.sep)
                if self.first == "H":
                    regex.append(col + sep + row)
                    groups += [COLUMN, ROW]
                else:
                    regex.append(row + sep + col)
                    groups += [ROW, COLUMN]
            elif token in (ROW, COLUMN):
                kind, leading = (self.v_type, self.v_leading) if token == ROW else (self.h_type, self.h_leading)
                regex.append("(" + self._pattern(kind, leading) + ")")
                groups.append(token)
        if COLUMN not in groups or ROW not in groups:
            raise GeometryError(f"location format {self.location_format!r} names no column and row")
        match = re.fullmatch("".join(regex), location)
        if match is None:
            raise GeometryError(f"{location!r} is not a location of this grid ({self._example()})")
        values = dict(zip(groups, match.groups()))
        column = parse_axis(values[COLUMN], self.h_type) - self.h_off
        row = parse_axis(values[ROW], self.v_type) - self.v_off
        return column, row


#: XML attribute name -> dataclass field name, for every numbering attribute.
NUMBERING_ATTRIBUTES: dict[str, str] = {
    "first": "first", "sep": "sep", "hType": "h_type", "hLeading": "h_leading", "hOff": "h_off",
    "hDescend": "h_descend", "vType": "v_type", "vLeading": "v_leading", "vOff": "v_off",
    "vDescend": "v_descend", "locationFormat": "location_format", "visible": "visible",
    "fontSize": "font_size", "color": "color", "rotateText": "rotate_text", "hDrawOff": "h_draw_off",
    "vDrawOff": "v_draw_off", "stagger": "stagger",
}
