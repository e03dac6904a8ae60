"""VASSAL's command strings as a lossless tree of typed commands.

A ``savedGame`` plaintext is one command string (spec section 3.3). A command with
sub-commands is a SequenceEncoder on ESC of its own encoding followed by each
sub-command's encoding, so every nesting level adds one backslash before the ESCs
inside it. :func:`parse` undoes this recursively, exactly as ``GameModule.decode``
does: split on unescaped ESC; a string that splits into just itself is a leaf;
otherwise every token is decoded in turn.

Every :class:`Node` keeps the raw text it came from. A node that nothing touched
re-encodes to that text; an edit marks the path from the edited leaf to the root
and only those nodes are re-encoded (siblings keep their raw segments). So an
unchanged tree gives back the identical plaintext, and an edit changes only the
tokens it touches.

Leaves are typed by their prefix (:func:`command_of`): the piece commands
(AddPiece ``+/``, RemovePiece ``-/``, ChangePiece ``D/``, MovePiece ``M/``), the
save brackets, BoardPicker, GlobalProperty, CHAT, LOG and UNDO of logs, the legacy
CHECK/ALERT header, SETUP_STACK; anything else stays an :class:`OpaqueCommand`.
"""
from __future__ import annotations

import gc
import re
from contextlib import contextmanager
from typing import Callable, ClassVar, Iterator

from converter.errors import EncodingError, LimitExceeded
from converter.vassal.limits import DEFAULT_LIMITS, Limits, check_memory
from converter.vassal.sequence import ESC, MODERN, TAB, Fields, escape, split_raw, unescape

PARAM = "/"


class Command:
    """A leaf command: its exact text plus a typed view of its fields.

    Subclasses read their fields from :attr:`fields` (raw-preserving) and write
    through it, so :meth:`encode` returns the original text until a field is set.
    """

    prefix: ClassVar[str] = ""
    kind: ClassVar[str] = "opaque"
    __slots__ = ("text", "fields", "node")

    def __init__(self, text: str) -> None:
        self.text = text
        self.fields: Fields | None = None
        self.node: Node | None = None

    def encode(self) -> str:
        """The command string; the original text when no field was changed."""
        return self.text if self.fields is None else self.prefix + self.fields.encode()

    def _set(self, index: int, value: str | None) -> None:
        assert self.fields is not None
        self.fields[index] = value
        self.touch()

    def touch(self) -> None:
        """Mark this command (and the nodes above it) as needing re-encoding."""
        if self.node is not None:
            self.node.touch()

    def describe(self) -> str:
        """A one-line readable summary, used by ``wawkit decode``."""
        return self.encode()

    def __repr__(self) -> str:
        text = self.encode()
        return f"{type(self).__name__}({text[:60]!r}{'...' if len(text) > 60 else ''})"


class OpaqueCommand(Command):
    """A command wawkit has no typed view of; it passes through untouched."""


class BeginSave(Command):
    kind = "begin_save"


class EndSave(Command):
    kind = "end_save"


class PieceCommand(Command):
    """The ``BasicCommandEncoder`` commands: a prefix then a ``'/'`` SequenceEncoder.

    The fields are split on first use: a save holds tens of thousands of AddPiece
    commands and most callers only need their ids. Their decoded values are kept
    until a field is set, so reading the type and the state unescapes each once.
    """

    __slots__ = ("quoting", "_values")

    def __init__(self, text: str, quoting: str = MODERN) -> None:
        # Command.__init__'s fields set here as well: a save makes one of these per piece.
        self.text = text
        self.fields: Fields | None = None
        self.node: Node | None = None
        self.quoting = quoting
        # A tuple of strings: the garbage collector stops tracking it after one pass.
        self._values: tuple[str, ...] | None = None

    def _fields(self) -> Fields:
        if self.fields is None:
            self.fields = Fields(self.text[len(self.prefix):], PARAM, self.quoting)
        return self.fields

    def _split(self) -> tuple[str, ...]:
        """The decoded fields, split once and kept until a field is set."""
        if self._values is None:
            text = self.text
            if self.fields is None and "\\" + PARAM not in text:
                # Without a backslash before any '/', every '/' separates fields (split_raw
                # would glue nothing) and unescaping only strips enclosing quotes, which
                # need a quote in the text. The prefix is a letter and the first '/', so the
                # fields are the text's '/'-pieces after the first (no copy of the body).
                parts = text.split(PARAM)
                del parts[0]
                self._values = tuple([unescape(raw, PARAM) for raw in parts] if "'" in text else parts)
            else:
                self._values = tuple(self._fields().values())
        return self._values

    def _value(self, index: int) -> str | None:
        """The decoded field ``index`` (``None`` when absent)."""
        values = self._values if self._values is not None else self._split()
        return values[index] if index < len(values) else None

    def _set(self, index: int, value: str | None) -> None:
        self._fields()
        self._values = None
        super()._set(index, value)

    @property
    def id(self) -> str:
        if self.fields is None:
            start = len(self.prefix)
            end = self.text.find(PARAM, start)
            token = self.text[start:] if end < 0 else self.text[start:end]
            if not token.endswith("\\") and not token.startswith("'"):
                return token
        return self._value(0) or ""


class AddPiece(PieceCommand):
    """``+/id/type/state``: create a piece (or Stack, Deck) with that type and state."""

    prefix = "+/"
    kind = "add"
    __slots__ = ()

    @classmethod
    def of(cls, piece_id: str, type_text: str, state_text: str, quoting: str = MODERN) -> "AddPiece":
        fields = Fields.of([piece_id, type_text, state_text], PARAM, quoting)
        return cls(cls.prefix + fields.encode(), quoting)

    @property
    def type_text(self) -> str:
        return self._value(1) or ""

    @property
    def state_text(self) -> str:
        return self._value(2) or ""

    def texts(self) -> tuple[str, str]:
        """(type, state) with one look-up of the fields: what decoding the piece reads."""
        values = self._values if self._values is not None else self._split()
        count = len(values)
        return values[1] if count > 1 else "", values[2] if count > 2 else ""

    @state_text.setter
    def state_text(self, value: str) -> None:
        self._set(2, value)

    def describe(self) -> str:
        return f"AddPiece id={self.id} type={self.type_text!r} state={self.state_text!r}"


class RemovePiece(Command):
    """``-/id``: remove a piece; the id is written raw, not escaped."""

    prefix = "-/"
    kind = "remove"
    __slots__ = ()

    @property
    def id(self) -> str:
        return self.text[len(self.prefix):]

    def describe(self) -> str:
        return f"RemovePiece id={self.id}"


class ChangePiece(PieceCommand):
    """``D/id/newState[/oldState]``: the new state comes *before* the old one."""

    prefix = "D/"
    kind = "change"
    __slots__ = ()

    @property
    def new_state(self) -> str:
        return self._value(1) or ""

    @property
    def old_state(self) -> str | None:
        return self._value(2)

    def describe(self) -> str:
        return f"ChangePiece id={self.id} new={self.new_state!r} old={self.old_state!r}"


def _none(value: str | None) -> str | None:
    return None if value in (None, "null") else value


def _int(value: str | None) -> int:
    try:
        return int(value or "0")
    except ValueError:
        return 0


class MovePiece(PieceCommand):
    """``M/``: id, new map/x/y/underneath, old map/x/y/underneath, player id (10 fields)."""

    prefix = "M/"
    kind = "move"
    __slots__ = ()

    def _field(self, index: int) -> str | None:
        return self._value(index)

    @property
    def new_map(self) -> str | None:
        return _none(self._field(1))

    @property
    def new_x(self) -> int:
        return _int(self._field(2))

    @property
    def new_y(self) -> int:
        return _int(self._field(3))

    @property
    def new_underneath(self) -> str | None:
        return _none(self._field(4))

    @property
    def old_map(self) -> str | None:
        return _none(self._field(5))

    @property
    def old_x(self) -> int:
        return _int(self._field(6))

    @property
    def old_y(self) -> int:
        return _int(self._field(7))

    @property
    def old_underneath(self) -> str | None:
        return _none(self._field(8))

    @property
    def player(self) -> str | None:
        return self._field(9)

    def describe(self) -> str:
        return (f"MovePiece id={self.id} {self.old_map}@({self.old_x},{self.old_y}) -> "
                f"{self.new_map}@({self.new_x},{self.new_y}) under={self.new_underneath}")


class TabCommand(Command):
    """A command whose text is a ``'\\t'`` SequenceEncoder (prefix included in field 0)."""

    __slots__ = ()

    def __init__(self, text: str, quoting: str = MODERN) -> None:
        super().__init__(text)
        self.fields = Fields(text, TAB, quoting)

    def encode(self) -> str:
        assert self.fields is not None
        return self.fields.encode()


class BoardPicker(TabCommand):
    """``<map>BoardPicker<TAB>board<TAB>col<TAB>row...``: the boards laid out on one map."""

    kind = "boardpicker"
    __slots__ = ()

    @property
    def map(self) -> str:
        assert self.fields is not None
        return self.fields[0][: -len("BoardPicker")]

    @property
    def boards(self) -> list[tuple[str, int, int]]:
        """(board name, column, row) per board; ``/rev`` marks a reversed board."""
        assert self.fields is not None
        values = self.fields.values()[1:]
        return [(values[i], _int(values[i + 1]), _int(values[i + 2]))
                for i in range(0, len(values) - 2, 3)]

    def describe(self) -> str:
        return f"BoardPicker map={self.map!r} boards={self.boards}"


class GlobalProperty(Command):
    """``GlobalProperty<TAB>;name;value;container``: a global property's saved value."""

    prefix = "GlobalProperty\t"
    kind = "globalproperty"
    __slots__ = ()

    def __init__(self, text: str, quoting: str = MODERN) -> None:
        super().__init__(text)
        # The whole text is a ';' SequenceEncoder whose first field is the literal prefix.
        self.fields = Fields(text, ";", quoting)

    def encode(self) -> str:
        assert self.fields is not None
        return self.fields.encode()

    @property
    def name(self) -> str:
        assert self.fields is not None
        return self.fields.get(1, "") or ""

    @property
    def value(self) -> str:
        assert self.fields is not None
        return self.fields.get(2, "") or ""

    @value.setter
    def value(self, value: str) -> None:
        self._set(2, value)

    @property
    def container(self) -> str:
        assert self.fields is not None
        return self.fields.get(3, "") or ""

    def describe(self) -> str:
        return f"GlobalProperty {self.name}={self.value!r} in {self.container!r}"


class Chat(Command):
    """``CHAT<text>``: a chat line or an automatic report."""

    prefix = "CHAT"
    kind = "chat"
    __slots__ = ()

    @property
    def message(self) -> str:
        return self.text[len(self.prefix):]

    def describe(self) -> str:
        return f"Chat {self.message!r}"


class LogStep(Command):
    """``LOG<TAB><encoded command>``: one step of a log; the payload is itself a tree."""

    prefix = "LOG\t"
    kind = "log"
    __slots__ = ("payload",)

    def __init__(self, text: str, payload: "Node") -> None:
        super().__init__(text)
        self.payload = payload

    def encode(self) -> str:
        if self.payload.dirty:
            return self.prefix + self.payload.encode()
        return self.text

    def commands(self) -> list[Command]:
        """The logged command's leaves, in order (empty NullCommands left out)."""
        return [c for c in self.payload.leaves() if c.text or c.fields is not None]

    def describe(self) -> str:
        inner = "; ".join(c.describe() for c in self.commands())
        return f"Log [{inner}]"


class Undo(Command):
    """``UNDO<TAB>true`` starts an undo block, ``UNDO<TAB>false`` ends it."""

    prefix = "UNDO\t"
    kind = "undo"
    __slots__ = ()

    @property
    def starts(self) -> bool:
        return self.text[len(self.prefix):] == "true"


class Check(Command):
    """Legacy 2.x version check ``CHECK<TAB>...`` (VASSAL ignores it on load)."""

    prefix = "CHECK\t"
    kind = "check"
    __slots__ = ()


class Alert(Command):
    """Legacy 2.x ``ALERT<TAB>message`` shown on a version mismatch."""

    prefix = "ALERT\t"
    kind = "alert"
    __slots__ = ()


class SetupStack(Command):
    """``SETUP_STACK<TAB>``: the at-start stacks were already applied."""

    prefix = "SETUP_STACK\t"
    kind = "setup_stack"
    __slots__ = ()


#: The piece commands by their two-character prefix (one dict look-up per leaf).
_BY_PREFIX: dict[str, Callable[[str, str], Command]] = {
    "+/": AddPiece,
    "D/": ChangePiece,
    "M/": MovePiece,
}
_SIMPLE: tuple[type[Command], ...] = (RemovePiece, Chat, Undo, Check, Alert, SetupStack)


class Node:
    """One command string: a leaf (:attr:`command`) or a list of sub-command nodes.

    :attr:`text` is this node's own text (one level unescaped relative to its
    parent); :attr:`segments` are the children's raw, still-escaped segments of it. A node
    whose commands were cut from its parent's segment where it lies keeps no text
    (``None``): :meth:`encode` makes it from that segment when asked.
    """

    __slots__ = ("text", "children", "segments", "command", "parent", "dirty", "quoting")

    def __init__(self, text: str | None, quoting: str = MODERN) -> None:
        self.text = text
        self.children: list[Node] | None = None
        self.segments: list[str | None] | None = None
        self.command: Command | None = None
        self.parent: Node | None = None
        self.dirty = False
        self.quoting = quoting

    @classmethod
    def leaf(cls, command: Command, quoting: str = MODERN) -> "Node":
        """A new leaf node for ``command`` (not yet attached to a tree)."""
        node = cls(command.encode(), quoting)
        node.command = command
        command.node = node
        node.dirty = True
        return node

    @classmethod
    def group(cls, children: list["Node"], quoting: str = MODERN) -> "Node":
        """A new NullCommand-like node holding ``children`` (its own first field empty)."""
        node = cls("", quoting)
        node.children = []
        node.segments = []
        node.dirty = True
        for child in children:
            node.append(child)
        return node

    @property
    def is_leaf(self) -> bool:
        return self.children is None

    def touch(self) -> None:
        """Mark this node and every node above it for re-encoding."""
        node: Node | None = self
        while node is not None:
            node.dirty = True
            node = node.parent

    def encode(self) -> str:
        """The command string: the original text unless something below was edited."""
        if not self.dirty:
            return self.text if self.text is not None else self._unescaped()
        if self.children is None:
            assert self.command is not None
            return self.command.encode()
        assert self.segments is not None
        parts = []
        for segment, child in zip(self.segments, self.children):
            if segment is not None and not child.dirty:
                parts.append(segment)
            else:
                parts.append(escape(child.encode(), ESC, self.quoting))
        return ESC.join(parts)

    def _unescaped(self) -> str:
        """The text of a node kept without one: its segment in the parent, unescaped."""
        parent = self.parent
        assert parent is not None and parent.children is not None and parent.segments is not None
        segment = parent.segments[next(i for i, c in enumerate(parent.children) if c is self)]
        assert segment is not None
        return unescape(segment, ESC)

    def insert(self, index: int, child: "Node") -> None:
        assert self.children is not None and self.segments is not None
        child.parent = self
        self.children.insert(index, child)
        self.segments.insert(index, None)
        self.touch()

    def append(self, child: "Node") -> None:
        assert self.children is not None
        self.insert(len(self.children), child)

    def remove(self, child: "Node") -> None:
        assert self.children is not None and self.segments is not None
        if child.text is None:  # its text lies in the segment about to go
            child.text = child._unescaped()
        index = next(i for i, c in enumerate(self.children) if c is child)
        del self.children[index]
        del self.segments[index]
        child.parent = None
        self.touch()

    def walk(self) -> Iterator["Node"]:
        """Every node, depth first, in text order."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            if node.children is not None:
                stack.extend(reversed(node.children))

    def leaves(self) -> Iterator[Command]:
        """The leaf commands in text order (the flattened command sequence)."""
        for node in self.walk():
            if node.command is not None:
                yield node.command

    def __repr__(self) -> str:
        if self.command is not None:
            return f"Node({self.command!r})"
        return f"Node({len(self.children or [])} children)"


def command_of(text: str, quoting: str, parse_payload: Callable[[str], Node]) -> Command:
    """The typed command for one leaf string, chosen by its prefix; ``parse_payload``
    decodes the commands a log step holds."""
    piece_command = _BY_PREFIX.get(text[:2])
    if piece_command is not None:
        return piece_command(text, quoting)
    if text.startswith(LogStep.prefix):
        return LogStep(text, parse_payload(text[len(LogStep.prefix):]))
    if text == "begin_save":
        return BeginSave(text)
    if text == "end_save":
        return EndSave(text)
    if text.startswith(GlobalProperty.prefix):
        return GlobalProperty(text, quoting)
    for cls in _SIMPLE:
        if text.startswith(cls.prefix):
            return cls(text)
    first = text.split(TAB, 1)[0]
    if first.endswith("BoardPicker") and len(first) > len("BoardPicker") and TAB in text:
        return BoardPicker(text, quoting)
    return OpaqueCommand(text)


#: A segment longer than this that holds commands is cut into them where it lies (``_Parser._cut``).
_CUT_MIN = 4096
#: The separators of a segment's commands, in the segment's raw text: a backslash-ESC pair
#: with no backslash before it (the pair first, so the search for it runs at C speed, then a
#: look back at the character before it).
_NESTED_SEPARATOR = re.compile(r"\\\x1b(?<!\\\\\x1b)")


class _Parser:
    """Recursive descent over ESC nesting with a depth bound and a leaf budget."""

    def __init__(self, limits: Limits, quoting: str, file: str | None) -> None:
        self.limits = limits
        self.quoting = quoting
        self.file = file
        self.leaves = 0
        self.position = 0

    def parse(self, text: str, depth: int) -> Node:
        self._check_depth(depth)
        node = Node(text, self.quoting)
        if ESC not in text and not (len(text) > 1 and text[0] == "'" and text[-1] == "'"):
            return self._leaf(node, depth)
        segments = split_raw(text, ESC)
        if len(segments) == 1 and unescape(segments[0], ESC) == text:
            return self._leaf(node, depth)
        return self._children(node, segments, depth)

    def _check_depth(self, depth: int) -> None:
        if depth > self.limits.max_depth:
            raise EncodingError(f"commands nested deeper than {self.limits.max_depth} levels",
                                file=self.file, entry="savedGame", position=self.position,
                                command=self.leaves)

    def _children(self, node: Node, segments: list[str], depth: int) -> Node:
        """``node`` with a child parsed from each of its raw segments."""
        node.segments = list(segments)
        children = []
        offset = self.position
        # A segment without ESC or enclosing quotes unescapes to itself and is a leaf:
        # it skips the recursive call (most of a save's commands are such leaves), and a
        # piece command's leaf is made here, as _leaf would make it.
        leaf_depth_ok = depth + 1 <= self.limits.max_depth
        quoting, by_prefix, longest = self.quoting, _BY_PREFIX, self.limits.max_string_length
        most = self.limits.max_commands
        for segment in segments:
            if depth == 0:
                self.position = offset
                offset += len(segment) + 1
            quoted = segment[:1] == "'" and segment[-1:] == "'" and len(segment) > 1
            if leaf_depth_ok and ESC not in segment and not quoted:
                piece_command = by_prefix.get(segment[:2])
                if piece_command is not None and self.leaves < most and len(segment) <= longest:
                    self.leaves += 1
                    child = Node(segment, quoting)
                    child.command = command = piece_command(segment, quoting)
                    command.node = child
                else:
                    child = self._leaf(Node(segment, quoting), depth + 1)  # its limits' errors, other commands
            elif len(segment) > _CUT_MIN and not quoted:
                child = self._cut(segment, depth + 1)
            else:
                child = self.parse(unescape(segment, ESC), depth + 1)
            child.parent = node
            children.append(child)
        node.children = children
        return node

    def _cut(self, raw: str, depth: int) -> Node:
        """The node of ``unescape(raw, ESC)`` (``raw`` a long segment not in quotes), its
        commands cut from ``raw`` itself: the separators of the unescaped text are the
        backslash-ESC pairs of ``raw`` with no backslash before them, and each command's
        segment is its piece of ``raw`` unescaped. The unescaped text, as long as ``raw`` (a
        save's whole position block), is never made; the node keeps no text of its own
        (:meth:`Node.encode` makes it from the parent's segment if it is ever asked for)."""
        pieces = _NESTED_SEPARATOR.split(raw)
        if len(pieces) == 1:
            return self.parse(unescape(raw, ESC), depth)
        self._check_depth(depth)
        node = Node(None, self.quoting)
        escaped = "\\" + ESC
        return self._children(node, [piece.replace(escaped, ESC) if ESC in piece else piece for piece in pieces],
                              depth)

    def _leaf(self, node: Node, depth: int) -> Node:
        if len(node.text) > self.limits.max_string_length:
            raise LimitExceeded(f"a command of {len(node.text)} characters, over the "
                                f"{self.limits.max_string_length}-character cap", file=self.file,
                                entry="savedGame", position=self.position, command=self.leaves)
        self.leaves += 1
        if self.leaves > self.limits.max_commands:
            raise LimitExceeded(f"more than {self.limits.max_commands} commands", file=self.file,
                                entry="savedGame", position=self.position)
        text = node.text
        piece_command = _BY_PREFIX.get(text[:2])     # most leaves: no closure for a log step's payload
        command = piece_command(text, self.quoting) if piece_command is not None else \
            command_of(text, self.quoting, lambda payload: self.parse(payload, depth + 1))
        command.node = node
        node.command = command
        return node


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector, restoring its previous state afterwards.

    A save's tree is tens of thousands of small linked objects (a node and a
    command per leaf, each pointing at the other). While they are being made, the
    collector would repeatedly scan all of them, yet none can be garbage: every
    one is reachable from the tree being built. Pausing it for the parse saves
    about a quarter of the parse time on large saves; it runs as usual afterwards.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def parse(text: str, *, limits: Limits = DEFAULT_LIMITS, quoting: str = MODERN,
          file: str | None = None) -> Node:
    """Decode a command string into its tree (spec section 3.3), within ``limits.max_memory``."""
    check_memory(text, limits, file=file)
    with collector_paused():
        return _Parser(limits, quoting, file).parse(text, 0)
