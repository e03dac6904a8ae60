"""A saved game (or the starting position of a log) as an editable, lossless object.

:class:`SavedGame` is the command tree of a ``savedGame`` entry plus an index of
its pieces by id. A piece's typed view comes from :mod:`converter.vassal.pieces`
and is decoded only when asked for, so reading a 76,000-command save costs little
more than splitting it.

Edits (move, layer level, property, add, remove) change the piece's typed view,
then write its new state back into its own ``AddPiece`` command; only those
commands (and the Stack commands whose member lists change) are re-encoded, every
other byte of the plaintext stays as it was. Writing keeps the file's obfuscation
scheme and key unless told otherwise, goes through a temporary file, and never
replaces the input unless asked.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator

from converter.errors import EncodingError, WawkitError
from converter.vassal.commands import (AddPiece, BoardPicker, Command, EndSave, GlobalProperty, collector_paused,
                                       LogStep, Node, parse)
from converter.vassal.container import Container, read_container
from converter.vassal.limits import DEFAULT_LIMITS, Limits
from converter.vassal.obfuscation import Obfuscation
from converter.vassal.pieces import Piece, decode_piece, decode_texts
from converter.vassal.sequence import LEGACY, MODERN

if TYPE_CHECKING:
    from converter.vassal.grids.placement import PlacedBoard

STACK_TYPE = "stack"
DECK_PREFIX = "deck;"


class PieceNotFound(WawkitError, KeyError):
    """An edit or query named a piece id that the save does not hold."""

    def __str__(self) -> str:
        return self._render()


#: Pieces are decoded by :mod:`converter.vassal.pieces` (also imported as this name by the log reader).
_decode_piece = decode_piece


def inner_of(piece: "Piece", piece_id: str | None) -> Any:
    """``piece.inner``, refusing a chain that does not end in a BasicPiece, Stack or Deck.

    VASSAL always puts one of those last; a save where something else is last was
    damaged, and saying so beats failing later on a missing coordinate.
    """
    inner = piece.inner
    if not hasattr(inner, "map"):
        raise EncodingError(f"trait chain ends in {type(inner).__name__}, not a BasicPiece, Stack or Deck",
                            piece=piece_id)
    return inner


def _as_int(value: object) -> int:
    try:
        return int(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 0


@dataclass(slots=True)
class PieceEntry:
    """One ``AddPiece`` of the save: id, type and state text, and the typed view on demand."""

    command: AddPiece
    quoting: str = MODERN
    _piece: "Piece | None" = field(default=None, repr=False)
    #: The id as the index read it (an AddPiece's id is never edited).
    _id: str | None = field(default=None, repr=False)

    @property
    def id(self) -> str:
        return self._id if self._id is not None else self.command.id

    @property
    def type_text(self) -> str:
        return self.command.type_text

    @property
    def state_text(self) -> str:
        return self.command.state_text

    @property
    def is_stack(self) -> bool:
        return self.type_text == STACK_TYPE

    @property
    def is_deck(self) -> bool:
        return self.type_text.startswith(DECK_PREFIX)

    @property
    def piece(self) -> "Piece":
        """The typed piece (decoded on first use, then cached)."""
        if self._piece is None:
            type_text, state_text = self.command.texts()
            try:
                self._piece = decode_texts(type_text, state_text, self.id, self.quoting)
            except WawkitError as error:
                raise error.located(piece=self.id)
        return self._piece

    @property
    def inner(self) -> Any:
        """The BasicPiece, Stack or Deck at the end of the trait chain (map, x, y, members)."""
        return inner_of(self.piece, self.id)

    def commit(self) -> None:
        """Write the typed piece's state back into the AddPiece (only if it changed)."""
        if self._piece is None:
            return
        state = self._piece.state_text()
        if state != self.command.state_text:
            self.command.state_text = state


class SavedGame:
    """A save's command tree, its pieces by id, and the edits a referee needs."""

    def __init__(self, container: Container, *, limits: Limits = DEFAULT_LIMITS,
                 clock: Callable[[], int] | None = None) -> None:
        self.container = container
        self.limits = limits
        self.quoting = _quoting(container)
        self.pieces: dict[str, PieceEntry] = {}
        self._clock = clock or (lambda: int(time.time() * 1000))
        pieces, quoting = self.pieces, self.quoting
        # The tree and the index are long-lived objects only: the collector would scan
        # them over and over while they are made and find nothing (see collector_paused).
        with collector_paused():
            self.tree: Node = parse(container.text, limits=limits, quoting=quoting, file=container.path)
            for command in self._state_commands():
                if type(command) is AddPiece:
                    piece_id = command.id
                    if piece_id and piece_id != "null":
                        pieces[piece_id] = PieceEntry(command, quoting, None, piece_id)
        self._stack_of: dict[str, str] | None = None

    # -- reading -------------------------------------------------------------------------

    @classmethod
    def read(cls, path: str | os.PathLike[str], *, limits: Limits = DEFAULT_LIMITS) -> "SavedGame":
        return cls(read_container(path, limits=limits), limits=limits)

    @classmethod
    def from_bytes(cls, data: bytes, *, file: str | None = None, limits: Limits = DEFAULT_LIMITS) -> "SavedGame":
        return cls(read_container(data, file=file, limits=limits), limits=limits)

    @property
    def path(self) -> str | None:
        return self.container.path

    def commands(self) -> Iterator[Command]:
        """Every leaf command in file order (log steps included, not expanded)."""
        return self.tree.leaves()

    def _state_commands(self) -> list[Command]:
        """The leaves up to ``end_save``: the position itself, without the log that follows
        (depth first, in text order, as :meth:`Node.walk`; a list, made in one loop)."""
        found: list[Command] = []
        stack = [self.tree]
        while stack:
            node = stack.pop()
            command = node.command
            if command is not None:
                found.append(command)
                if type(command) is EndSave:
                    break
            elif node.children is not None:
                stack.extend(reversed(node.children))
        return found

    @property
    def log_steps(self) -> list[LogStep]:
        return [c for c in self.tree.leaves() if isinstance(c, LogStep)]

    @property
    def is_log(self) -> bool:
        return any(isinstance(c, LogStep) for c in self.tree.leaves())

    @property
    def board_pickers(self) -> list[BoardPicker]:
        return [c for c in self._state_commands() if isinstance(c, BoardPicker)]

    def board_layouts(self) -> dict[str, list["PlacedBoard"]]:
        """Each map's boards as the save lays them out (its BoardPicker commands), by map id.

        The map id is what pieces name their map by (the map's name, or ``MapN``).
        A malformed BoardPicker raises a typed GeometryError naming the command.
        """
        from converter.vassal.grids.placement import parse_board_picker
        layouts: dict[str, list[PlacedBoard]] = {}
        for command in self.board_pickers:
            map_id, layout = parse_board_picker(command.text)
            layouts[map_id] = layout
        return layouts

    @property
    def global_properties(self) -> dict[str, str]:
        """Global property values by name (``container:name`` when not module-wide)."""
        found: dict[str, str] = {}
        for command in self._state_commands():
            if isinstance(command, GlobalProperty):
                key = command.name if command.container in ("", "Module") else f"{command.container}:{command.name}"
                found[key] = command.value
        return found

    def entry(self, piece_id: str) -> PieceEntry:
        try:
            return self.pieces[piece_id]
        except KeyError:
            raise PieceNotFound("no such piece in the save", file=self.path, piece=piece_id) from None

    def piece(self, piece_id: str) -> "Piece":
        """The typed view of one piece (decoded on first use)."""
        return self.entry(piece_id).piece

    def decode_pieces(self) -> "SavedGame":
        """Decode every piece's trait chain now, as a reader that looks at every piece does
        first (a piece is otherwise decoded on first use). The collector is paused meanwhile:
        the pieces are long-lived and reachable from the save, so a collection would find
        nothing, yet the ones the decoding triggers scan every object of the save again (a
        fifth to a third of the decoding time, see bench/README.md). A piece that cannot be
        decoded is left for its own first use to report."""
        with collector_paused():
            for entry in self.pieces.values():
                if entry._piece is None:
                    type_text, state_text = entry.command.texts()
                    try:
                        entry._piece = decode_texts(type_text, state_text, entry.id, entry.quoting)
                    except WawkitError:
                        continue
        return self

    def pieces_named(self, name: str) -> list[str]:
        """Ids of the pieces whose displayed name (layer names applied) or basic name is ``name``."""
        self.decode_pieces()
        return [pid for pid, entry in self.pieces.items()
                if not (entry.is_stack or entry.is_deck) and name in (entry.piece.name, entry.piece.basic_name)]

    @property
    def stacks(self) -> dict[str, list[str]]:
        """Stack id -> member ids, bottom first."""
        return {pid: list(e.inner.members) for pid, e in self.pieces.items() if e.is_stack}

    @property
    def decks(self) -> dict[str, list[str]]:
        """Deck id -> card ids, bottom first (the last is drawn first)."""
        return {pid: list(e.inner.members) for pid, e in self.pieces.items() if e.is_deck}

    def stack_of(self, piece_id: str) -> str | None:
        """The id of the Stack or Deck holding ``piece_id``, if any."""
        if self._stack_of is None:
            self._stack_of = {}
            for pid, entry in self.pieces.items():
                if entry.is_stack or entry.is_deck:
                    for member in entry.inner.members:
                        self._stack_of[member] = pid
        return self._stack_of.get(piece_id)

    def position(self, piece_id: str) -> tuple[str | None, int, int]:
        """(map, x, y) of a piece; a piece in a stack or deck is where its holder is.

        VASSAL 2.x wrote ``null`` as the map of a piece inside a stack: only the
        Stack's state says where the pieces stand.
        """
        holder = self.stack_of(piece_id)
        if holder is not None:
            piece_id = holder
        inner = self.entry(piece_id).inner
        map_name = inner.map if inner.map not in (None, "", "null") else None
        return map_name, _as_int(inner.x), _as_int(inner.y)

    @property
    def maps(self) -> list[str]:
        """Names of the maps the save places boards or pieces on, sorted."""
        names = {c.map for c in self.board_pickers}
        self.decode_pieces()
        holders = {pid for pid, e in self.pieces.items() if e.is_stack or e.is_deck}
        for pid, entry in self.pieces.items():
            if pid in holders or self.stack_of(pid) is None:
                map_name = self.position(pid)[0]
                if map_name:
                    names.add(map_name)
        return sorted(names)

    # -- editing -------------------------------------------------------------------------

    def new_id(self) -> str:
        """A fresh piece id as VASSAL makes one: the clock in ms, incremented until unused."""
        candidate = self._clock()
        while str(candidate) in self.pieces:
            candidate += 1
        return str(candidate)

    def _set_position(self, piece_id: str, map_name: str | None, x: int, y: int) -> None:
        entry = self.entry(piece_id)
        inner = entry.inner
        inner.map = map_name if map_name is not None else "null"
        inner.x = x
        inner.y = y
        entry.commit()
        if entry.is_stack:
            for member in list(inner.members):
                if member in self.pieces:
                    self._set_position(member, map_name, x, y)

    def _set_members(self, holder_id: str, members: list[str]) -> None:
        entry = self.entry(holder_id)
        entry.inner.members = list(members)
        entry.commit()

    def _leave_stack(self, piece_id: str) -> None:
        holder = self.stack_of(piece_id)
        if holder is None:
            return
        members = [m for m in self.entry(holder).inner.members if m != piece_id]
        assert self._stack_of is not None
        del self._stack_of[piece_id]
        if not members and self.entry(holder).is_stack:
            self._remove_entry(holder)
        else:
            self._set_members(holder, members)

    def _join_stack(self, piece_id: str, holder_id: str, index: int | None) -> None:
        members = list(self.entry(holder_id).inner.members)
        members.insert(len(members) if index is None else index, piece_id)
        self._set_members(holder_id, members)
        self.stack_of(piece_id)
        assert self._stack_of is not None
        self._stack_of[piece_id] = holder_id

    def move(self, piece_id: str, map_name: str | None, x: int, y: int, *, join: str | None = None,
             index: int | None = None) -> None:
        """Move a piece (or a whole stack) to ``map_name`` at (x, y).

        ``join`` names a stack, or a piece whose stack the moved piece joins (a new
        stack is made when that piece stands alone); the moved piece goes on top,
        or at ``index`` (0 = bottom). Without ``join`` a stacked piece gets a new
        stack of its own, as VASSAL does when a piece is dropped on an empty spot;
        a piece that stood alone stays alone.
        """
        entry = self.entry(piece_id)
        if entry.is_stack:
            if join is not None:
                raise EncodingError("a whole stack cannot join another one; move its pieces", file=self.path,
                                    piece=piece_id)
            self._set_position(piece_id, map_name, x, y)
            return
        was_stacked = self.stack_of(piece_id) is not None
        self._leave_stack(piece_id)
        if join is not None:
            holder = join if self.entry(join).is_stack or self.entry(join).is_deck else self.stack_of(join)
            if holder is None:
                holder = self._new_stack(join)
            map_name, x, y = self.position(holder)
            self._join_stack(piece_id, holder, index)
            self._set_position(piece_id, map_name, x, y)
            self._ensure_order(holder)
            return
        self._set_position(piece_id, map_name, x, y)
        if was_stacked and map_name is not None:
            self._new_stack(piece_id)

    def _new_stack(self, piece_id: str) -> str:
        """Put a lone piece into a new stack of its own at its position; returns the stack id."""
        map_name, x, y = self.position(piece_id)
        stack_id = self.new_id()
        stack = _decode_piece(STACK_TYPE, None, quoting=self.quoting)
        stack.inner.map = map_name if map_name is not None else "null"
        stack.inner.x = x
        stack.inner.y = y
        stack.inner.members = [piece_id]
        if self.quoting == MODERN and "@@" in self.container.text:
            stack.inner.layer = -1
        self._insert_add(AddPiece.of(stack_id, STACK_TYPE, stack.state_text(), self.quoting), first=False)
        self.stack_of(piece_id)
        assert self._stack_of is not None
        self._stack_of[piece_id] = stack_id
        return stack_id

    def set_layer(self, piece_id: str, layer: str, level: int) -> None:
        """Set the level of the Layer (Embellishment) named ``layer`` on a piece."""
        entry = self.entry(piece_id)
        for embellishment in entry.piece.layers():
            if embellishment.name == layer:
                embellishment.set_level(level)
                entry.commit()
                return
        raise PieceNotFound(f"no layer named {layer!r}", file=self.path, piece=piece_id)

    def set_property(self, piece_id: str, key: str, value: str) -> None:
        """Set a Marker or Dynamic Property value on a piece."""
        entry = self.entry(piece_id)
        entry.piece.set_property(key, value)
        entry.commit()

    def set_global_property(self, name: str, value: str) -> None:
        """Set the saved value of a global property (module-wide or ``container:name``)."""
        for command in self._state_commands():
            if isinstance(command, GlobalProperty):
                key = command.name if command.container in ("", "Module") else f"{command.container}:{command.name}"
                if key == name:
                    command.value = value
                    return
        raise WawkitError(f"no global property {name!r} in the save", file=self.path)

    def add_piece(self, type_text: str, map_name: str | None, x: int, y: int, *, state_text: str | None = None,
                  join: str | None = None, index: int | None = None) -> str:
        """Add a piece whose type is copied from a definition; returns its new id."""
        piece_id = self.new_id()
        piece = _decode_piece(type_text, state_text, quoting=self.quoting, piece_id=piece_id)
        inner = inner_of(piece, piece_id)
        inner.map = map_name if map_name is not None else "null"
        inner.x = x
        inner.y = y
        if self._uses_unique_id():
            inner.properties["UniqueID"] = piece_id
        self._insert_add(AddPiece.of(piece_id, piece.type_text(), piece.state_text(), self.quoting), first=True)
        if join is not None:
            self.move(piece_id, map_name, x, y, join=join, index=index)
        return piece_id

    def remove_piece(self, piece_id: str) -> None:
        """Remove a piece; removing a stack or deck removes what it holds too."""
        entry = self.entry(piece_id)
        if entry.is_stack or entry.is_deck:
            for member in list(entry.inner.members):
                if member in self.pieces:
                    self._remove_entry(member)
            self._remove_entry(piece_id)
            return
        self._leave_stack(piece_id)
        self._remove_entry(piece_id)

    def _remove_entry(self, piece_id: str) -> None:
        entry = self.pieces.pop(piece_id)
        node = entry.command.node
        assert node is not None and node.parent is not None
        node.parent.remove(node)
        if self._stack_of is not None:
            self._stack_of = {k: v for k, v in self._stack_of.items() if k != piece_id and v != piece_id}

    def _uses_unique_id(self) -> bool:
        return "UniqueID" in self.container.text

    def _pieces_block(self) -> Node:
        """The node holding the AddPiece commands, created after the version check if absent."""
        for entry in self.pieces.values():
            node = entry.command.node
            if node is not None and node.parent is not None and node.parent is not self.tree:
                return node.parent
        block = Node.group([Node("", self.quoting)], self.quoting)
        assert self.tree.children is not None
        self.tree.insert(min(2, len(self.tree.children)), block)
        return block

    def _insert_add(self, command: AddPiece, *, first: bool) -> None:
        """Insert an AddPiece at the start (pieces) or end (new stacks) of the pieces block."""
        block = self._pieces_block()
        node = Node.leaf(command, self.quoting)
        assert block.children is not None
        if first:
            # After the block's own (empty) first field, which belongs to the NullCommand itself.
            lead = 1 if block.children and block.children[0].is_leaf and not block.children[0].text else 0
            block.insert(lead, node)
        else:
            block.append(node)
        self.pieces[command.id] = PieceEntry(command, self.quoting)

    def _ensure_order(self, holder_id: str) -> None:
        """Move a stack's AddPiece after its members' (VASSAL looks members up by id)."""
        order = {id(c): i for i, c in enumerate(self.tree.leaves())}
        holder = self.entry(holder_id).command
        last: AddPiece | None = None
        for member in self.entry(holder_id).inner.members:
            if member in self.pieces:
                command = self.pieces[member].command
                if last is None or order[id(command)] > order[id(last)]:
                    last = command
        if last is None or order[id(last)] < order[id(holder)]:
            return
        node, anchor = holder.node, last.node
        assert node is not None and node.parent is not None and anchor is not None and anchor.parent is not None
        node.parent.remove(node)
        parent = anchor.parent
        assert parent.children is not None
        parent.insert(next(i for i, c in enumerate(parent.children) if c is anchor) + 1, node)

    # -- writing -------------------------------------------------------------------------

    def to_text(self) -> str:
        """The plaintext command string: the original one where nothing was edited."""
        return self.tree.encode()

    def to_plaintext(self) -> bytes:
        return self.to_text().encode("utf-8", "surrogateescape")

    def to_bytes(self, obfuscation: Obfuscation | str | None = None) -> bytes:
        """The whole zip container (other entries unchanged)."""
        return self.container.to_bytes(self.to_plaintext(), obfuscation)

    def write(self, path: str | os.PathLike[str], *, overwrite: bool = False,
              obfuscation: Obfuscation | str | None = None, backup: bool = False) -> dict[Any, Any]:
        """Write atomically; refuses to replace an existing file (or the input) unless ``overwrite``.

        Written over the file it was read from, the file must still hold the bytes that
        were read (another writer's change is never lost) and keeps its permission bits;
        with ``backup``, the replaced file is kept as ``NAME.bak`` (or the next free
        ``NAME.bak.N``). Returns {target: backup} for a backup kept.
        """
        from converter.writes import write_atomic
        same = self.path is not None and os.path.exists(path) and os.path.samefile(path, self.path)
        return write_atomic(path, self.to_bytes(obfuscation), overwrite=overwrite, protect=self.path, backup=backup,
                            expect_sha256=self.container.sha256 if same else None)


def _quoting(container: Container) -> str:
    """The SequenceEncoder quoting rule of the VASSAL that wrote the file (3.4.0 changed it)."""
    meta = container.metadata.get("savedata") or container.metadata.get("moduledata")
    if meta is not None and meta.vassal_version:
        parts = meta.vassal_version.split(".")
        try:
            major, minor = int(parts[0]), int("".join(ch for ch in parts[1] if ch.isdigit()) or 0)
        except (ValueError, IndexError):
            return MODERN
        return LEGACY if (major, minor) < (3, 4) else MODERN
    # No metadata: a 2.x file or a predefined setup stored in a module. Only 3.5+ writes
    # the ``@@layer`` token in Stack states, so a setup carrying it is modern.
    return MODERN if b";@@" in container.plaintext else LEGACY


__all__ = ["SavedGame", "PieceEntry", "PieceNotFound"]
