"""Logs (``.vlog``): the steps after the starting position, and their replay.

A log's ``savedGame`` is the position when logging began followed by one
``LOG<TAB><command>`` per logged command (spec section 3.7). VASSAL's Step button
executes them one at a time; :class:`Replay` does the same for the piece commands
(AddPiece, RemovePiece, ChangePiece, MovePiece) on its own copy of the position, so
a caller can ask where every piece stands after any step. Chat, undo markers and
other commands are carried in the steps but change no piece.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator

from converter.vassal.commands import (AddPiece, ChangePiece, Command, LogStep, MovePiece, RemovePiece,
                                       Undo)
from converter.vassal.save import DECK_PREFIX, STACK_TYPE, SavedGame, _decode_piece, inner_of
from converter.vassal.sequence import TAB, join, split

if TYPE_CHECKING:
    from converter.vassal.pieces import Piece


@dataclass(frozen=True)
class Step:
    """One logged step: its index (0-based, in file order) and its commands."""

    index: int
    log: LogStep

    @property
    def commands(self) -> list[Command]:
        return self.log.commands()

    @property
    def moves(self) -> list[MovePiece]:
        return [c for c in self.commands if isinstance(c, MovePiece)]

    @property
    def is_undo_marker(self) -> bool:
        return any(isinstance(c, Undo) for c in self.commands)


def steps(game: SavedGame) -> list[Step]:
    """The log steps of a save, in order (empty for a plain save)."""
    return [Step(i, log) for i, log in enumerate(game.log_steps)]


def _trait_states(state: str) -> list[str]:
    """A piece state split into one state per trait, outermost first (spec 2.3)."""
    levels = []
    rest: str | None = state
    while rest is not None:
        tokens = split(rest, TAB)
        levels.append(tokens[0])
        rest = tokens[1] if len(tokens) > 1 else None
    return levels


def _compose(levels: list[str]) -> str:
    text = levels[-1]
    for level in reversed(levels[:-1]):
        text = join([level, text], TAB) or ""
    return text


def merge_state(current: str, new: str, old: str | None) -> str:
    """ChangePiece's ``mergeState``: take each trait's new state where old and new differ."""
    if old is None:
        return new
    cur, new_levels, old_levels = _trait_states(current), _trait_states(new), _trait_states(old)
    if not len(cur) == len(new_levels) == len(old_levels):
        return new
    merged = [n if n != o else c for c, n, o in zip(cur, new_levels, old_levels)]
    return _compose(merged)


class Replay:
    """The position of a log, advanced one step at a time.

    Pieces are held as (type, state) text, exactly as the AddPiece commands carry
    them; positions and stack members are read through the Piece contract.
    """

    def __init__(self, game: SavedGame) -> None:
        self.game = game
        self.pieces: dict[str, tuple[str, str]] = {}
        #: member id -> the Stack or Deck holding it, kept in step with every holder's state.
        self._holder: dict[str, str] = {}
        self._members: dict[str, list[str]] = {}
        for pid, entry in game.pieces.items():
            self._set(pid, entry.type_text, entry.state_text)
        self.steps = steps(game)
        self.done = 0
        self._next_stack = 0

    def _set(self, piece_id: str, type_text: str, state_text: str) -> None:
        """Store a piece's texts; for a Stack or Deck also re-index its members."""
        self.pieces[piece_id] = (type_text, state_text)
        if type_text == STACK_TYPE or type_text.startswith(DECK_PREFIX):
            self._unindex(piece_id)
            members = list(_decode_piece(type_text, state_text).inner.members)
            self._members[piece_id] = members
            for member in members:
                previous = self._holder.get(member)
                if previous is not None and previous != piece_id and previous in self.pieces:
                    self._release(previous, member)
                self._holder[member] = piece_id

    def _release(self, holder_id: str, member: str) -> None:
        """A piece a new stack claims leaves the stack that held it (VASSAL's ``Stack.insertChild``
        takes a piece from its old parent): a client's own stack made for a dropped piece, then
        the stack the log adds for it, must not both hold it."""
        stack = _decode_piece(*self.pieces[holder_id])
        stack.inner.members = [m for m in stack.inner.members if m != member]
        if not stack.inner.members and self.pieces[holder_id][0] == STACK_TYPE:
            self._drop(holder_id)
            return
        self.pieces[holder_id] = (self.pieces[holder_id][0], stack.state_text() or "")
        self._members[holder_id] = list(stack.inner.members)

    def _unindex(self, holder_id: str) -> None:
        for member in self._members.pop(holder_id, []):
            if self._holder.get(member) == holder_id:
                del self._holder[member]

    def _drop(self, piece_id: str) -> None:
        self.pieces.pop(piece_id, None)
        self._unindex(piece_id)

    def __iter__(self) -> Iterator[Step]:
        while self.done < len(self.steps):
            step = self.steps[self.done]
            self.apply(step)
            yield step

    def apply(self, step: Step) -> None:
        """Execute one step's piece commands."""
        for command in step.commands:
            self.execute(command)
        self.done = step.index + 1

    def run(self, until: int | None = None) -> None:
        """Execute the steps up to (not including) index ``until``; all by default."""
        end = len(self.steps) if until is None else until
        while self.done < end:
            self.apply(self.steps[self.done])

    def execute(self, command: Command) -> None:
        if isinstance(command, AddPiece):
            self._set(command.id, command.type_text, command.state_text)
        elif isinstance(command, RemovePiece):
            self._leave_stack(command.id)
            self._drop(command.id)
        elif isinstance(command, ChangePiece):
            if command.id in self.pieces:
                type_text, state = self.pieces[command.id]
                self._set(command.id, type_text, merge_state(state, command.new_state, command.old_state))
        elif isinstance(command, MovePiece):
            self._move(command)

    # -- queries ---------------------------------------------------------------------------

    def piece(self, piece_id: str) -> "Piece":
        """The typed piece as it stands now (its chain checked to end in a BasicPiece/Stack/Deck)."""
        type_text, state = self.pieces[piece_id]
        piece = _decode_piece(type_text, state, quoting=self.game.quoting, piece_id=piece_id)
        inner_of(piece, piece_id)
        return piece

    def position(self, piece_id: str) -> tuple[str | None, int, int]:
        """(map, x, y); a stacked piece is where its stack is (2.x pieces carry a null map)."""
        holder = self.stack_of(piece_id)
        if holder is not None and self.pieces[holder][0] == STACK_TYPE:
            piece_id = holder
        inner = self.piece(piece_id).inner
        return (inner.map if inner.map not in (None, "", "null") else None), int(inner.x), int(inner.y)

    def members(self, holder_id: str) -> list[str]:
        """The ids a Stack or Deck lists, bottom first."""
        return list(self._members.get(holder_id, []))

    def stack_of(self, piece_id: str) -> str | None:
        """The Stack or Deck holding ``piece_id``, if any."""
        return self._holder.get(piece_id)

    # -- moves -----------------------------------------------------------------------------

    def _update(self, piece_id: str, piece: "Piece") -> None:
        self._set(piece_id, self.pieces[piece_id][0], piece.state_text())

    def _place(self, piece_id: str, map_name: str | None, x: int, y: int) -> None:
        piece = self.piece(piece_id)
        piece.inner.map = map_name if map_name is not None else "null"
        piece.inner.x = x
        piece.inner.y = y
        self._update(piece_id, piece)
        if self.pieces[piece_id][0] == STACK_TYPE:
            for member in piece.inner.members:
                if member in self.pieces:
                    self._place(member, map_name, x, y)

    def _leave_stack(self, piece_id: str) -> None:
        holder = self.stack_of(piece_id)
        if holder is None:
            return
        stack = self.piece(holder)
        stack.inner.members = [m for m in stack.inner.members if m != piece_id]
        if not stack.inner.members and self.pieces[holder][0] == STACK_TYPE:
            self._drop(holder)  # an emptied stack leaves the map
            return
        self._update(holder, stack)

    def _move(self, move: MovePiece) -> None:
        """MovePiece: leave the old stack, then merge above ``underneath`` or stand alone."""
        if move.id not in self.pieces:
            return
        is_stack = self.pieces[move.id][0] == STACK_TYPE
        if not is_stack:
            self._leave_stack(move.id)
        self._place(move.id, move.new_map, move.new_x, move.new_y)
        under = move.new_underneath
        if is_stack or move.new_map is None:
            return
        if under is not None and under in self.pieces:
            holder = under if self.pieces[under][0] == STACK_TYPE else self.stack_of(under)
            if holder is not None:
                stack = self.piece(holder)
                members = list(stack.inner.members)
                index = len(members) if holder == under else members.index(under) + 1
                members.insert(index, move.id)
                stack.inner.members = members
                self._update(holder, stack)
                return
        # Dropped on an empty spot: every client makes a new stack with a local id.
        self._next_stack += 1
        stack = _decode_piece(STACK_TYPE, None)
        stack.inner.map, stack.inner.x, stack.inner.y = move.new_map, move.new_x, move.new_y
        stack.inner.members = [move.id]
        self._set(f"replay-stack-{self._next_stack}", STACK_TYPE, stack.state_text())
