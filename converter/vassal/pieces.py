"""A VASSAL game piece: its type/state trait chain decoded into typed traits.

A piece is a chain of traits around one innermost BasicPiece, Stack or Deck
(spec section 2.3). Its type is ``T1<TAB>escaped(T2<TAB>escaped(...B))``, outermost
first, and its state has one segment per trait in the same order. The chain is
split once; each trait parses its fields only when they are read.

Nothing is lost: every level keeps its raw text, so an unchanged piece gives back
the identical type and state, and an edit re-encodes only the trait it touches
(and the nesting that contains it)::

    piece = decode_piece(type_text, state_text)
    piece.layer("Step").set_level(2)
    piece.set_property("Side", "German")
    piece.inner.x += 10
    new_state = piece.state_text()
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator, Mapping, Sequence, Union

from converter.errors import EncodingError, PieceError
from converter.vassal.sequence import MODERN, TAB, split_raw
from converter.vassal import traits as families
from converter.vassal.traits import REGISTRY, Trait, UnknownTrait, decode_trait, trait_class
from converter.vassal.traits.base import make_traits
from converter.vassal.traits.chain import TooManyLevels, compose, plain_levels, split_fast, split_levels

if TYPE_CHECKING:
    from converter.vassal.traits.layers import Layer

# Trait classes are read as ``families.Layer``: a family module loads the first time it is
# needed (see :mod:`converter.vassal.traits`), so a reader that meets only Stacks never loads it.

#: A prototype definition: its type text, or (type text, state text).
PrototypeText = Union[str, "tuple[str, str | None]"]


class Piece:
    """A decoded piece: ``traits`` outermost first, ``inner`` the BasicPiece/Stack/Deck.

    A decoded piece holds its chain split into levels and each level's trait class; the
    trait objects themselves are made on the first read of :attr:`traits`. A reader that
    decodes every piece of a large save and then looks at a few of them (which most do)
    never pays for the rest, and the split levels are tuples of strings, which the garbage
    collector stops scanning, where trait objects are not (bench/README.md has the figures).
    """

    __slots__ = ("_traits", "_classes", "quoting", "piece_id", "_type", "_state", "_types", "_states")

    def __init__(self, traits: list[Trait], *, quoting: str = MODERN, piece_id: str | None = None) -> None:
        """A piece built from traits (no original text: everything is encoded afresh)."""
        if not traits:
            raise EncodingError("a piece needs at least one trait", piece=piece_id)
        self._traits: list[Trait] | None = traits
        self._classes: Classes = ()
        self.quoting = quoting
        self.piece_id = piece_id
        self._type: str | None = None
        self._state: str | None = None
        # The decoded per-level texts (a decoded piece shares its type's cached tuple).
        self._types: Sequence[str | None] = (None,) * len(traits)
        self._states: Sequence[str | None] | None = (None,) * len(traits)

    @property
    def traits(self) -> list[Trait]:
        """The traits, outermost first (made from the split chain on first read)."""
        traits = self._traits
        if traits is None:
            traits = self._traits = make_traits(self._classes, self._types, self._state_levels(), self.quoting,
                                                self.piece_id)
        return traits

    def _state_levels(self) -> Sequence[str | None]:
        """The state split into its levels, on first use (:func:`decode_piece` leaves a state
        that cannot have too many levels unsplit: most readers never look at most pieces' states)."""
        states = self._states
        if states is None:
            states = self._states = _split_state(self._state or "", len(self._types))
        return states

    # -- text -------------------------------------------------------------------
    def type_text(self) -> str:
        """The whole type string; identical to the decoded one until a type field is set."""
        if self._traits is None:  # no trait made yet, so none edited
            return self._type or ""
        values: list[str | None] = [t.type_text() for t in self.traits]
        if tuple(values) == tuple(self._types):
            return self._type or ""
        own_raw, rest_raw = ([], []) if self._type is None else split_levels(self._type)[1:]
        return compose(values, self._types, self._type, own_raw, rest_raw, self.quoting) or ""

    def state_text(self) -> str | None:
        """The whole state string; ``None`` for a definition decoded without state."""
        if self._traits is None:
            return self._state
        values = [t.state_text() for t in self.traits]
        if tuple(values) == tuple(self._state_levels()):
            return self._state
        # VASSAL needs one state per trait: traits without one get their default state
        # (all of them for a definition; those above the deepest present one for a short state).
        deepest = len(values) if self._state is None else max((i for i, v in enumerate(values) if v is not None),
                                                              default=-1)
        values = [t.default_state_text() if v is None and i < deepest else v
                  for i, (t, v) in enumerate(zip(self.traits, values))]
        own_raw, rest_raw = ([], []) if self._state is None else \
            split_levels(self._state, limit=len(self.traits), state=True)[1:]
        return compose(values, self._state_levels(), self._state, own_raw, rest_raw, self.quoting)

    def placeless_state(self) -> tuple[str | None, ...] | None:
        """The state's levels with the BasicPiece's map, x and y (its first three fields) left
        out: two pieces of one type whose placeless states are equal differ only in where they
        lie, so what a profile makes of one (unit, marker, its statuses) holds for the other.
        ``None`` for a piece with no state, one already edited, or an inner piece that is not a
        BasicPiece (a Stack, a Deck, an unknown type)."""
        if self._traits is not None or self._state is None or self._classes[-1] is not families.BasicPiece:
            return None
        states = self._state_levels()
        inner = states[-1]
        if inner is None:
            return None
        fields = split_raw(inner, ";")        # raw segments: equal raw texts decode alike
        return (*states[:-1], *fields[3:]) if len(fields) >= 3 else None

    # -- structure ----------------------------------------------------------------
    @property
    def inner(self) -> Trait:
        """The innermost piece: a BasicPiece, Stack or Deck (or an unknown basic type, kept verbatim)."""
        return self.traits[-1]

    @property
    def decorators(self) -> list[Trait]:
        """The traits around the inner piece, outermost first."""
        return self.traits[:-1]

    def __iter__(self) -> Iterator[Trait]:
        return iter(self.traits)

    def __len__(self) -> int:
        return len(self._types)

    def find(self, cls: type[Trait]) -> list[Trait]:
        """The traits of one class, outermost first."""
        return [t for t in self.traits if isinstance(t, cls)]

    def unknown_traits(self) -> list[UnknownTrait]:
        return [t for t in self.traits if isinstance(t, UnknownTrait)]

    @property
    def is_stack(self) -> bool:
        return isinstance(self.inner, families.Stack)

    @property
    def is_deck(self) -> bool:
        return isinstance(self.inner, families.Deck)

    # -- names and properties -----------------------------------------------------
    @property
    def basic_name(self) -> str:
        """The ``BasicName`` property: the outermost Basic Name trait's name, else the BasicPiece's name."""
        for trait in self.decorators:
            if isinstance(trait, families.BasicName):
                return trait.name
        inner = self.inner
        return inner.name if isinstance(inner, families.BasicPiece) else ""

    @property
    def name(self) -> str:
        """The name VASSAL displays (``PieceName``): the BasicName with every trait's change applied."""
        return self._name(self._shown_levels())

    def _name(self, levels: dict[int, int]) -> str:
        name = self.basic_name
        for trait in reversed(self.decorators):
            name = trait.apply_name(name, levels.get(id(trait))) if isinstance(trait, families.Layer) \
                else trait.apply_name(name)
        return name

    def _trait_properties(self, levels: dict[int, int]) -> dict[str, str]:
        props: dict[str, str] = {}
        for trait in reversed(self.decorators):
            if isinstance(trait, families.Layer):
                props.update(trait.exposed_properties(levels.get(id(trait))))
            else:
                props.update(trait.exposed_properties())
        return props

    def _shown_levels(self) -> dict[int, int]:
        """Levels of layers that follow a property, as VASSAL computes them (keyed by ``id(layer)``)."""
        following = [t for t in self.traits if isinstance(t, families.Embellishment) and t.follow_property]
        if not following:
            return {}
        props = self._trait_properties({})
        props["BasicName"] = self.basic_name
        levels = {}
        for layer in following:
            level = layer.followed_level(props)
            if level is not None:
                levels[id(layer)] = level
        return levels

    def shown_level(self, layer: "Layer") -> int:
        """The level VASSAL shows for ``layer``: its stored level, or the one its followed property gives."""
        return self._shown_levels().get(id(layer), layer.level)

    def layers(self) -> list["Layer"]:
        """The Layer (Embellishment) traits, outermost first."""
        return [t for t in self.traits if isinstance(t, families.Layer)]

    def layer(self, name: str) -> "Layer | None":
        """The outermost layer called ``name`` (the one whose properties VASSAL reports)."""
        for trait in self.traits:
            if isinstance(trait, families.Layer) and trait.name == name:
                return trait
        return None

    def properties(self) -> dict[str, str]:
        """Marker and DynamicProperty values, layer properties, ``BasicName`` and ``PieceName``.

        When two traits define one key, the outer one wins, as in ``getProperty``. A
        layer that follows a property reports the level VASSAL would show (:meth:`shown_level`).
        """
        levels = self._shown_levels()
        props = self._trait_properties(levels)
        props["BasicName"] = self.basic_name
        props["PieceName"] = self._name(levels)
        return props

    def set_property(self, key: str, value: str) -> None:
        """Set the value of a Marker or DynamicProperty key (the outermost trait holding it)."""
        for trait in self.traits:
            if isinstance(trait, families.Marker) and key in trait.keys:
                trait.set_value(key, value)
                return
            if isinstance(trait, families.DynamicProperty) and trait.key == key:
                trait.value = value
                return
        raise PieceError(f"no Marker or Dynamic Property holds {key!r}", piece=self.piece_id)

    # -- prototypes ---------------------------------------------------------------
    def prototypes(self) -> list[str]:
        """Names of the prototypes this piece uses, outermost first."""
        return [t.name for t in self.traits if isinstance(t, families.UsePrototype)]

    def expand(self, prototypes: Mapping[str, PrototypeText]) -> "Piece":
        """A new piece with each UsePrototype replaced by the named definition's traits.

        A definition is its type text (a chain ending in a blank ``piece;;;;``) or a
        (type, state) pair. Expansion is recursive. As in ``PieceCloner.clonePiece``, a
        prototype that is missing or that would include itself contributes nothing,
        and Comment traits are dropped; :meth:`prototypes` of the original piece still
        names every reference.
        """
        traits = _expanded(self.traits, prototypes, (), self.quoting, self.piece_id,
                           with_state=self.state_text() is not None)
        return Piece(traits, quoting=self.quoting, piece_id=self.piece_id)

    def copy(self) -> "Piece":
        """An independent piece decoded from the current text."""
        return decode_piece(self.type_text(), self.state_text(), piece_id=self.piece_id, quoting=self.quoting)

    def __repr__(self) -> str:
        kinds = ", ".join(t.kind if t.typed else repr(t.id_prefix) for t in self.traits)  # type: ignore[attr-defined]
        return f"<Piece {self.name!r} [{kinds}]>"


def _substitute(text: str, params: Mapping[str, str]) -> str:
    """FormattedString substitution of a parameterised prototype: ``$k$`` -> value or bare ``k``."""
    return re.sub(r"\$([^$]*)\$", lambda m: params.get(m.group(1), m.group(1)), text)


def _expanded(traits: Sequence[Trait], prototypes: Mapping[str, PrototypeText], active: tuple[str, ...],
              quoting: str, piece_id: str | None, with_state: bool) -> list[Trait]:
    out: list[Trait] = []
    for trait in traits:
        if isinstance(trait, families.Comment):
            continue
        if not isinstance(trait, families.UsePrototype):
            out.append(decode_trait(trait.type_text(), trait.state_text(), quoting=quoting, piece_id=piece_id))
            continue
        definition = prototypes.get(trait.name)
        if definition is None or trait.name in active:
            continue
        type_text, state_text = (definition, None) if isinstance(definition, str) else definition
        if trait.parameterised:
            params = trait.parameters
            type_text = _substitute(type_text, params)
            state_text = None if state_text is None else _substitute(state_text, params)
        inserted = decode_piece(type_text, state_text, quoting=quoting, piece_id=piece_id).traits[:-1]
        if not with_state:
            inserted = [decode_trait(t.type_text(), None, quoting=quoting, piece_id=piece_id) for t in inserted]
        out.extend(_expanded(inserted, prototypes, active + (trait.name,), quoting, piece_id, with_state))
    return out


#: A type chain: each level's own type text, outermost first.
Chain = tuple[str, ...]
#: The trait classes of a chain, level by level.
Classes = tuple[type[Trait], ...]


def _split_type(type_text: str) -> Chain:
    """The chain of one type text, split as VASSAL reads it."""
    types = None if type_text.startswith("'") else plain_levels(type_text)
    if types is None:  # an escaped TAB or a quoted level: the general paths
        types = tuple(split_fast(type_text) or split_levels(type_text)[0])
    return types


def _classes(chain: Chain) -> Classes:
    """The trait class of each level (``trait_class``, its registry read inline)."""
    registry = REGISTRY
    return tuple([registry.get(level[:level.find(";") + 1] or level) or trait_class(level) for level in chain])


def _split_state(state_text: str, count: int) -> tuple[str | None, ...]:
    """A state's segments for a type of ``count`` traits (``None`` for the missing ones)."""
    if count == 1:
        return (state_text,)
    found: Sequence[str] | None = None
    tabs = state_text.count(TAB)
    if tabs < count and state_text[:1] != "'":
        found = plain_levels(state_text, tabs)
    if found is None:  # more TABs than levels (escaped ones inside the innermost) or a quoted level
        found = tuple(split_fast(state_text, limit=count, state=True)
                      or split_levels(state_text, limit=count, state=True)[0])
    return found if len(found) == count else (*found, *(None,) * (count - len(found)))


class _ChainCache:
    """The chains of the type texts seen recently, bounded by the characters they hold.

    Many pieces share one type text (every counter of a kind in a save, every copy
    of a palette piece), so its split is done once. Sharing is safe because a chain
    is an immutable tuple of strings: each piece still gets its own trait objects,
    and a trait edits its own field list, never the shared text.

    The chains (tuples of strings) and their classes are kept apart, and each
    distinct sequence of classes is stored once: the garbage collector stops
    tracking a tuple of strings, so a large cache adds almost nothing to its
    scans. When the bound is reached the cache starts afresh, which keeps it
    simple and costs at most one more split per type.
    """

    __slots__ = ("max_chars", "chars", "chains", "classes", "class_runs")

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars
        self.chars = 0
        self.chains: dict[str, Chain] = {}
        self.classes: dict[str, Classes] = {}
        self.class_runs: dict[Classes, Classes] = {}

    def clear(self) -> None:
        """Forget every chain (the next decode of each type splits it afresh)."""
        self.__init__(self.max_chars)  # type: ignore[misc]

    def get(self, type_text: str) -> tuple[Chain, Classes]:
        chain = self.chains.get(type_text)
        if chain is not None:
            return chain, self.classes[type_text]
        return self.add(type_text)

    def add(self, type_text: str) -> tuple[Chain, Classes]:
        """Split a type text not in the cache, and keep it (unless it is too long)."""
        chain = _split_type(type_text)
        classes = _classes(chain)
        size = len(type_text)
        if size <= self.max_chars // 16:
            if self.chars + size > self.max_chars:
                self.chains, self.classes, self.class_runs = {}, {}, {}
                self.chars = 0
            classes = self.class_runs.setdefault(classes, classes)
            self.classes[type_text] = classes
            self.chains[type_text] = chain
            self.chars += size
        return chain, classes


#: About 8 M characters of type text (and as much again for the split levels).
_CHAINS = _ChainCache(8_000_000)


def clear_type_cache() -> None:
    """Forget the type texts seen so far: the next read decodes as a fresh process would
    (a benchmark's repeats, which would otherwise find every type already split)."""
    _CHAINS.clear()


def decode_piece(type_text: str, state_text: str | None = None, *, piece_id: str | None = None,
                 quoting: str = MODERN) -> Piece:
    """Decode a piece from its type and state (``None`` for palette/prototype definitions).

    ``quoting`` is the SequenceEncoder rule used for fields that get edited (LEGACY for
    files written by VASSAL 3.2-3.3). A state with more TAB segments than the type has
    traits raises :class:`EncodingError`; a shorter state is kept as it is.
    """
    if not isinstance(type_text, str) or not (state_text is None or isinstance(state_text, str)):
        raise EncodingError("piece type and state must be text", piece=piece_id)
    return decode_texts(type_text, state_text, piece_id, quoting)


def decode_texts(type_text: str, state_text: str | None, piece_id: str | None, quoting: str) -> Piece:
    """:func:`decode_piece` of texts known to be strings (or a ``None`` state): what a save's
    reader calls for each of its pieces, whose texts come out of its commands."""
    cache = _CHAINS
    types = cache.chains.get(type_text)  # the cache's hit, inline: most types are there already
    if types is None:
        types, classes = cache.add(type_text)
    else:
        classes = cache.classes[type_text]
    states: Sequence[str | None] | None
    if state_text is None:
        states = (None,) * len(types)
    elif state_text.count(TAB) < len(types):
        # Fewer TABs than the type has levels: the state cannot have too many levels, so its
        # split waits for the first read (Piece._state_levels); a large save's typed read then
        # makes no strings for the states nobody looks at.
        states = None
    else:
        try:
            # A tuple of strings (and Nones) is untracked by the garbage collector after one pass.
            states = _split_state(state_text, len(types))
        except TooManyLevels:
            raise EncodingError(f"state has more TAB-separated segments than the type has traits ({len(types)})",
                                piece=piece_id) from None
    piece = Piece.__new__(Piece)  # every field set here; skips __init__'s fresh-piece bookkeeping
    piece._traits, piece._classes, piece.quoting, piece.piece_id = None, classes, quoting, piece_id
    piece._type, piece._state = type_text, state_text
    piece._types, piece._states = types, states
    return piece


__all__ = ["Piece", "decode_piece", "decode_texts", "PrototypeText", "clear_type_cache"]
