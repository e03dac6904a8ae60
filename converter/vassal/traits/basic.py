"""The innermost pieces of a trait chain: BasicPiece, Stack and Deck (spec section 2.4).

Their states carry the position (map id, x, y) that moves a piece when set, the
Stack and Deck member ids (bottom first) and the BasicPiece's persistent
properties, whose pairs VASSAL writes in ``java.util.HashMap`` iteration order.
"""
from __future__ import annotations

from typing import Iterator, MutableMapping

from converter.vassal.javafmt import java_hashmap_order
from converter.vassal.sequence import escape, java_parse_int, join, split, unescape
from converter.vassal.traits.base import STATE, Bool, Int, Str, StrList, Trait

UNIQUE_ID = "UniqueID"
NO_MAP = "null"
LAYER_MARK = "@@"


class Positioned(Trait):
    """A piece whose state starts ``map;x;y`` (BasicPiece, Stack, Deck)."""

    __slots__ = ()
    map = Str(0, NO_MAP, part=STATE)
    """The map's identifier, ``"null"`` when the piece is on no map (settable)."""

    @property
    def on_map(self) -> str | None:
        """The map's identifier, or ``None`` when the piece is on no map."""
        name = self.map
        return None if name in ("", NO_MAP) else name

    def _coordinate(self, index: int) -> int:
        fields = self.fields(STATE)
        if index >= len(fields) or fields[index] == "":
            return 0
        try:
            return java_parse_int(fields[index])
        except ValueError:
            raise self.error(f"state field {index + 1} is not an integer: {fields[index]!r}") from None

    @property
    def x(self) -> int:
        """Map pixel x (settable)."""
        return self._coordinate(1)

    @x.setter
    def x(self, value: int) -> None:
        self.set_field(1, str(int(value)), STATE)

    @property
    def y(self) -> int:
        """Map pixel y (settable)."""
        return self._coordinate(2)

    @y.setter
    def y(self, value: int) -> None:
        self.set_field(2, str(int(value)), STATE)

    def move(self, map_id: str | None, x: int, y: int) -> None:
        """Set map, x and y at once (``None`` = off every map)."""
        self.map = map_id if map_id is not None else NO_MAP
        self.x = x
        self.y = y


class PersistentProperties(MutableMapping[str, str]):
    """A BasicPiece's persistent properties, read from and written through its state.

    Changing a value rewrites only that value's field. Adding a key rewrites the
    pairs in the order a ``HashMap`` re-filled as VASSAL's ``setState`` does it
    (``UniqueID`` first, then the file's pairs, then the new key) iterates them;
    each unchanged pair keeps its exact text.
    """

    COUNT = 4

    def __init__(self, piece: "BasicPiece") -> None:
        self._piece = piece

    def _layout(self) -> tuple[list[tuple[str, str]], int]:
        """(raw key, raw value) pairs and the index of the first field after them."""
        fields = self._piece.fields(STATE)
        if len(fields) <= self.COUNT:
            return [], len(fields)
        try:
            count = max(java_parse_int(fields[self.COUNT]), 0)
        except ValueError:
            count = 0
        raw = fields.raw
        # Pairs beyond the text read as ("", ""), all one key in VASSAL's map: keep at most one.
        count = min(count, (len(raw) - self.COUNT) // 2 + 1)
        pairs = []
        for n in range(count):
            k = self.COUNT + 1 + 2 * n
            pairs.append((raw[k] if k < len(raw) else "", raw[k + 1] if k + 1 < len(raw) else ""))
        return pairs, min(len(raw), self.COUNT + 1 + 2 * count)

    def _decoded(self) -> list[tuple[str, str]]:
        delim = self._piece.fields(STATE).delim
        return [(unescape(k, delim), unescape(v, delim)) for k, v in self._layout()[0]]

    def __getitem__(self, key: str) -> str:
        for k, v in self._decoded():
            if k == key:
                return v
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter([k for k, _ in self._decoded()])

    def __len__(self) -> int:
        return len(self._layout()[0])

    def __setitem__(self, key: str, value: str) -> None:
        for n, (k, _) in enumerate(self._decoded()):
            if k == key:
                self._piece.set_field(self.COUNT + 2 + 2 * n, value, STATE)
                return
        fields = self._piece.fields(STATE)
        pairs, _ = self._layout()
        raw_of = {unescape(k, fields.delim): (k, v) for k, v in pairs}
        quoting = fields.quoting
        raw_of[key] = (escape(key, fields.delim, quoting), escape(value, fields.delim, quoting))
        keys = list(raw_of)
        insertion = ([UNIQUE_ID] if UNIQUE_ID in raw_of else []) + keys
        self._rewrite([raw_of[k] for k in java_hashmap_order(insertion)])

    def __delitem__(self, key: str) -> None:
        pairs = self._layout()[0]
        delim = self._piece.fields(STATE).delim
        kept = [(k, v) for k, v in pairs if unescape(k, delim) != key]
        if len(kept) == len(pairs):
            raise KeyError(key)
        self._rewrite(kept)

    def _rewrite(self, pairs: list[tuple[str, str]]) -> None:
        piece = self._piece
        fields = piece.fields(STATE)
        _, end = self._layout()
        tail = fields.raw[end:] if len(fields) > self.COUNT else []
        piece.set_field(self.COUNT - 1, piece.gpid, STATE)  # pads map;x;y;gpid when they are missing
        raw = fields.raw[:self.COUNT] + [str(len(pairs))]
        for k, v in pairs:
            raw += [k, v]
        fields.raw = raw + tail


class BasicPiece(Positioned):
    """``piece;``: the image and name of a counter, and its position and properties."""

    prefix = "piece;"
    kind = "BasicPiece"
    default_state = "null;0;0;;0"
    __slots__ = ()

    clone_key = Str(0)
    delete_key = Str(1)
    image = Str(2)
    """Image file name, relative to ``images/``."""
    name = Str(3)
    """``commonName``: the piece's BasicName."""

    gpid = Str(3, part=STATE)
    """The PieceSlot gpid the piece came from (``PieceId``); ``""`` in 2005 files."""

    @property
    def properties(self) -> PersistentProperties:
        """Persistent properties (``UniqueID``, ``OldX``...), a live mapping over the state."""
        return PersistentProperties(self)


class Stack(Positioned):
    """``stack``: the member ids of a stack (bottom first) and, since 3.5, its visual layer."""

    prefix = "stack"
    kind = "Stack"
    default_state = "null;0;0"
    __slots__ = ()
    FIRST_MEMBER = 3

    def _tail(self) -> list[str]:
        fields = self.fields(STATE)
        return fields.values()[self.FIRST_MEMBER:]

    @property
    def members(self) -> list[str]:
        """Ids of the pieces in the stack, bottom first (settable)."""
        return [t for t in self._tail() if not t.startswith(LAYER_MARK)]

    @members.setter
    def members(self, ids: list[str]) -> None:
        if list(ids) == self.members:
            return
        fields = self.fields(STATE)
        marks = [r for r in fields.raw[self.FIRST_MEMBER:] if r.startswith(LAYER_MARK)]
        self.set_field(self.FIRST_MEMBER - 1, str(self.y), STATE)  # pads map;x;y when missing
        fields.raw = (fields.raw[:self.FIRST_MEMBER] + [escape(i, fields.delim, fields.quoting) for i in ids]
                      + marks)

    @property
    def layer(self) -> int | None:
        """The ``@@<layer>`` visual layer index (3.5+), ``None`` when the state has none."""
        for token in self._tail():
            if token.startswith(LAYER_MARK):
                try:
                    return java_parse_int(token[len(LAYER_MARK):])
                except ValueError:
                    return -1
        return None

    @layer.setter
    def layer(self, value: int | None) -> None:
        if value == self.layer:
            return
        fields = self.fields(STATE)
        keep = [r for r in fields.raw[self.FIRST_MEMBER:] if not r.startswith(LAYER_MARK)]
        self.set_field(self.FIRST_MEMBER - 1, str(self.y), STATE)
        mark = [] if value is None else [LAYER_MARK + str(int(value))]
        fields.raw = fields.raw[:self.FIRST_MEMBER] + keep + mark


class Deck(Positioned):
    """``deck;``: a draw pile; its state is ``map;x;y;faceDown[;id,id...]``.

    The type has 49 fields since 3.6 (17 in 2005 files); missing ones read as
    ``Deck.mySetType``'s defaults.
    """

    prefix = "deck;"
    kind = "Deck"
    default_state = "null;0;0;false"
    __slots__ = ()

    draw_outline = Bool(0, True)
    outline_color = Str(1, "0,0,0")
    width = Int(2, 40)
    height = Int(3, 40)
    face_down_option = Str(4, "Always")
    shuffle_option = Str(5, "Always")
    allow_multiple_draw = Bool(6, True)
    allow_select_draw = Bool(7, True)
    reversible = Bool(8, True)
    reshuffle_command = Str(9)
    reshuffle_target = Str(10)
    reshuffle_message_format = Str(11)
    deck_name = Str(12, "deck")
    shuffle_message_format = Str(13)
    reverse_message_format = Str(14)
    face_down_message_format = Str(15)
    draw_face_up = Bool(16, False)
    persistable = Bool(17, False)
    shuffle_key = Str(18)
    reshuffle_key = Str(19)
    max_stack = Int(20, 10)
    count_expressions = StrList(21)
    expression_counting = Bool(22, False)
    global_commands = StrList(23)
    hotkey_on_empty = Bool(24, False)
    empty_key = Str(25)
    select_display_property = Str(26, "$BasicName$")
    select_sort_property = Str(27)
    restrict_option = Bool(28, False)
    restrict_expression = Str(29)
    shuffle_command = Str(30, "Shuffle")
    reverse_command = Str(31, "Reverse")
    reverse_key = Str(32)
    draw_multiple_message = Str(33, "Draw multiple cards")
    draw_specific_message = Str(34, "Draw specific cards")
    face_up_message = Str(35, "Face up")
    face_down_message = Str(36, "Face down")
    face_up_key = Str(37)
    face_up_message_format = Str(38)
    face_flip_key = Str(39)
    face_down_key = Str(40)
    save_message = Str(41, "Save Deck")
    save_key = Str(42)
    save_report = Str(43, "Deck Saved")
    load_message = Str(44, "Load Deck")
    load_key = Str(45)
    load_report = Str(46, "Deck Loaded")
    restrict_access = Bool(47, False)
    owners = StrList(48)

    face_down = Bool(3, False, part=STATE)
    MEMBERS = 4

    @property
    def members(self) -> list[str]:
        """Ids of the cards, bottom first; the last is the top card (settable)."""
        text = self.fields(STATE).get(self.MEMBERS, "") or ""
        return [] if text == "" else split(text, ",")

    @members.setter
    def members(self, ids: list[str]) -> None:
        if list(ids) == self.members:
            return
        fields = self.fields(STATE)
        if not ids:
            self.set_field(self.MEMBERS - 1, "true" if self.face_down else "false", STATE)
            fields.raw = fields.raw[:self.MEMBERS] + fields.raw[self.MEMBERS + 1:]
            return
        self.set_field(self.MEMBERS, join(list(ids), ",", fields.quoting) or "", STATE)


__all__ = ["BasicPiece", "Stack", "Deck", "PersistentProperties", "Positioned", "UNIQUE_ID", "NO_MAP"]
