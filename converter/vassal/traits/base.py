"""The trait base class and typed field descriptors.

A trait (VASSAL ``Decorator``) is one level of a piece's type/state chain. Its
type is ``<prefix><fields>`` and its state is one string. Both are kept as raw
text; a :class:`~converter.vassal.sequence.Fields` view is built on first access,
so decoding a save costs one split of the chain per piece until a trait is read.

Typed attributes are declared with descriptors (:class:`Str`, :class:`Int`,
:class:`Bool`, :class:`Double`, :class:`StrList`) naming the field index and
VASSAL's default for a missing field. Reading mirrors VASSAL's lenient
``SequenceEncoder.Decoder`` readers; setting a value re-encodes that one field.
A missing trailing field reads as its default and is not written back unless
it (or a later field) is set; then the gap is filled with the defaults' text.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar, Generic, Sequence, TypeVar

from converter.errors import EncodingError
from converter.vassal.javafmt import java_double
from converter.vassal.sequence import MODERN, Fields, java_bool, java_parse_int, join, split

T = TypeVar("T")

TYPE = "type"
STATE = "state"


class FieldSpec(ABC, Generic[T]):
    """One typed field of a trait's type (or state) field list."""

    def __init__(self, index: int, default: T, *, part: str = TYPE) -> None:
        self.index = index
        self.default = default
        self.part = part
        self.attr = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.attr = name
        defaults = dict(owner.__dict__.get("_defaults_" + self.part, {}))
        for base in owner.__mro__[1:]:
            for index, text in getattr(base, "_defaults_" + self.part, {}).items():
                defaults.setdefault(index, text)
        defaults[self.index] = self.encode(self.default)
        setattr(owner, "_defaults_" + self.part, defaults)

    @abstractmethod
    def decode(self, text: str) -> T:
        """The typed value of one field's decoded text."""

    @abstractmethod
    def encode(self, value: T) -> str:
        """The text VASSAL writes for ``value`` (before SequenceEncoder escaping)."""

    def __get__(self, trait: "Trait | None", owner: type) -> Any:
        if trait is None:
            return self
        fields = trait.fields(self.part)
        if self.index >= len(fields):
            return self.default
        return self.decode(fields[self.index])

    def __set__(self, trait: "Trait", value: T) -> None:
        text = self.encode(value)
        if self.index >= len(trait.fields(self.part)) and text == self.encode(self.default):
            return  # a missing field already reads as its default: nothing to write
        trait.set_field(self.index, text, self.part)


class Str(FieldSpec[str]):
    """``nextToken(default)``: the decoded text."""

    def __init__(self, index: int, default: str = "", *, part: str = TYPE) -> None:
        super().__init__(index, default, part=part)

    def decode(self, text: str) -> str:
        return text

    def encode(self, value: str) -> str:
        return value or ""


class Int(FieldSpec[int]):
    """``nextInt(default)``: unparsable text reads as the default, as in VASSAL."""

    def decode(self, text: str) -> int:
        try:
            return java_parse_int(text)
        except ValueError:
            return self.default

    def encode(self, value: int) -> str:
        return str(int(value))


class Bool(FieldSpec[bool]):
    """``nextBoolean(default)``: present text is true only when it is exactly ``true``."""

    def decode(self, text: str) -> bool:
        return text == "true"

    def encode(self, value: bool) -> str:
        return java_bool(bool(value))


class Double(FieldSpec[float]):
    """``nextDouble(default)``, written back with Java's ``Double.toString``."""

    def decode(self, text: str) -> float:
        try:
            return float(text.strip())
        except ValueError:
            return self.default

    def encode(self, value: float) -> str:
        return java_double(float(value))


class StrList(FieldSpec[list]):
    """``nextStringArray(min)``: a ``','``-encoded list (StringArrayConfigurer), padded with ``""``.

    ``pad_to`` names another list attribute whose length is the minimum, as
    Embellishment reads one level name per image.
    """

    def __init__(self, index: int, min_length: int = 0, *, part: str = TYPE, pad_to: str | None = None) -> None:
        self.min_length = min_length
        self.pad_to = pad_to
        super().__init__(index, [""] * min_length, part=part)

    def decode(self, text: str) -> list[str]:
        items = [] if text == "" else split(text, ",")
        return items + [""] * (self.min_length - len(items))

    def encode(self, value: list) -> str:
        return join([v or "" for v in value], ",") or ""

    def __get__(self, trait: "Trait | None", owner: type) -> Any:
        value = super().__get__(trait, owner)
        if trait is None:
            return value
        items = list(value)
        if self.pad_to is not None:
            items += [""] * (len(getattr(trait, self.pad_to)) - len(items))
        return items


#: A trait's (quoting, piece id).
Context = tuple[str, "str | None"]
_DEFAULT_CONTEXT: Context = (MODERN, None)


def context(quoting: str, piece_id: str | None) -> Context:
    """The (quoting, piece id) pair of a piece's traits; the common one is shared by all."""
    return _DEFAULT_CONTEXT if quoting == MODERN and piece_id is None else (quoting, piece_id)


class Trait:
    """One level of a piece: its exact type and state text plus typed access.

    ``prefix`` is the VASSAL ID (``emb2;``, ``mark;``); ``delimiter`` separates the
    type fields after it and ``state_delimiter`` the state fields (``None`` when
    the state is one opaque value). ``kind`` names the trait as VASSAL's editor does.
    """

    prefix: ClassVar[str] = ""
    kind: ClassVar[str] = "Trait"
    delimiter: ClassVar[str] = ";"
    state_delimiter: ClassVar[str | None] = ";"
    default_state: ClassVar[str] = ""
    typed: ClassVar[bool] = True
    _defaults_type: ClassVar[dict[int, str]] = {}
    _defaults_state: ClassVar[dict[int, str]] = {}

    # ``_context`` is (quoting, piece id), shared by the traits of one piece; ``_fields`` is
    # None until a field is read, then [type Fields or None, state Fields or None]. Four slots,
    # not six: a large module or save makes tens of thousands of traits at once.
    __slots__ = ("_type", "_state", "_context", "_fields")

    def __init__(self, type_text: str, state_text: str | None = None, quoting: str = MODERN,
                 piece_id: str | None = None) -> None:
        self._type = type_text
        self._state = state_text
        self._context: Context = context(quoting, piece_id)
        self._fields: list[Fields | None] | None = None

    def __init_subclass__(cls, **kwargs: object) -> None:
        # :func:`make_traits` sets these slots itself: a trait class must not need more.
        super().__init_subclass__(**kwargs)
        if "__init__" in cls.__dict__:
            raise TypeError(f"{cls.__name__}: trait classes keep Trait.__init__ (make_traits builds them without it)")

    @property
    def quoting(self) -> str:
        """The SequenceEncoder rule for fields that get edited (the piece's file's)."""
        return self._context[0]

    @property
    def piece_id(self) -> str | None:
        """The id of the piece this trait belongs to, for error messages."""
        return self._context[1]

    # -- raw text -------------------------------------------------------------
    def type_text(self) -> str:
        """The trait's own type string; identical to the input until a type field is set."""
        fields = self._fields
        if fields is None or fields[0] is None:
            return self._type
        return self.prefix + fields[0].encode()

    def state_text(self) -> str | None:
        """The trait's own state string (``None`` for a definition without state)."""
        state_fields = None if self._fields is None else self._fields[1]
        if state_fields is None or (self._state is None and not state_fields.raw):
            return self._state
        return state_fields.encode()

    def fields(self, part: str = TYPE) -> Fields:
        """The raw-preserving field list of the type (after the prefix) or of the state."""
        fields = self._fields
        if fields is None:
            fields = self._fields = [None, None]
        if part == TYPE:
            found = fields[0]
            if found is None:
                found = fields[0] = Fields(self._type[len(self.prefix):], self.delimiter, self.quoting)
            return found
        found = fields[1]
        if found is None:
            if self.state_delimiter is None:
                raise self.error("its state is a single value, not a field list")
            found = fields[1] = Fields(self._state, self.state_delimiter, self.quoting)
        return found

    def set_field(self, index: int, text: str, part: str = TYPE) -> None:
        """Set one decoded field; fields missing before it are filled with their defaults."""
        fields = self.fields(part)
        if part == STATE and self._state is None and not fields.raw and self.default_state:
            fields.raw = Fields(self.default_state, fields.delim, fields.quoting).raw  # as VASSAL would write it
        defaults = self._defaults_type if part == TYPE else self._defaults_state
        if index >= len(fields) and fields.get(index) != text:
            while len(fields) < index:
                fields.append(defaults.get(len(fields), ""))
        fields[index] = text

    def set_state(self, text: str | None) -> None:
        """Replace the whole state string."""
        if self._fields is not None:
            self._fields[1] = None
        self._state = text

    def default_state_text(self) -> str:
        """The state VASSAL writes for this trait right after its type is set."""
        return self.default_state

    def apply_name(self, inner_name: str) -> str:
        """The piece name as this trait changes it (``getName``); most traits leave it as it is."""
        return inner_name

    def exposed_properties(self) -> dict[str, str]:
        """The piece properties this trait defines (``getProperty`` keys it answers)."""
        return {}

    def error(self, message: str) -> EncodingError:
        return EncodingError(f"{self.kind} trait {self.prefix!r}: {message}", piece=self.piece_id)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.type_text()!r}, {self.state_text()!r})"



_new = object.__new__


def make_traits(classes: Sequence[type[Trait]], types: Sequence[str], states: Sequence[str | None],
                quoting: str = MODERN, piece_id: str | None = None) -> list[Trait]:
    """One trait per level of a decoded chain: what ``cls(type, state, quoting, piece_id)`` makes.

    A piece's traits are made in bulk (every PieceSlot of a module, every piece of a save
    that is read), and a class call with a Python ``__init__`` costs about twice the
    object itself in CPython; this sets the same slots directly. No trait class defines
    its own ``__init__`` (:meth:`Trait.__init_subclass__` refuses one), so the two agree.
    """
    shared = context(quoting, piece_id)
    made: list[Trait] = []
    append = made.append
    for cls, type_text, state_text in zip(classes, types, states):
        trait = _new(cls)
        trait._type = type_text
        trait._state = state_text
        trait._context = shared
        trait._fields = None
        append(trait)
    return made

class UnknownTrait(Trait):
    """A trait wawkit does not type: its type and state text are kept verbatim."""

    kind = "Unknown"
    typed = False
    __slots__ = ()

    @property
    def id_prefix(self) -> str:
        """The ID VASSAL dispatches on: the text up to and including the first ``;``."""
        cut = self._type.find(";")
        return self._type if cut < 0 else self._type[:cut + 1]


class StateValue(Trait):
    """A trait whose state is one opaque value (a label text, a rotation, ``true``/``false``)."""

    state_delimiter = None
    __slots__ = ()

    @property
    def value(self) -> str:
        return self.state_text() or ""

    @value.setter
    def value(self, text: str) -> None:
        if text != self.state_text():
            self.set_state(text)


__all__ = ["Trait", "UnknownTrait", "make_traits", "StateValue", "FieldSpec", "Str", "Int", "Bool", "Double", "StrList",
           "TYPE", "STATE"]
