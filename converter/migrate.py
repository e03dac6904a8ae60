"""``wawkit migrate``: move a save onto another version of its module.

Each piece of the position is re-created from the new module's PieceSlot, matched by
gpid first and by piece name second, as VASSAL's "Refresh counters" does: the new
definition (prototypes expanded, as VASSAL stores pieces) replaces the old type, and
the old state is carried trait by trait -- position and properties of the
BasicPiece, the level of each Layer, the value of each Marker or Dynamic Property
that still exists -- so the counter stays where it was, on the same side, with the
same values. Pieces with no matching slot are left exactly as they were and
reported. Stacks, decks, log steps and every other command are untouched; the
``moduledata`` entry is rewritten to name the new module.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from converter.errors import ContainerError, WawkitError
from converter.piece_state import carry_traits
from converter.validate import match_slot, slot_index
from converter.vassal.container import check_target
from converter.vassal.module import Module, PieceSlot
from converter.vassal.pieces import Piece, decode_piece
from converter.vassal.save import SavedGame

class MigrateError(WawkitError):
    """A save that cannot be moved to the new module."""


@dataclass
class Migration:
    """What a migration did: pieces matched by gpid or name, and those left as they were."""

    by_gpid: list[str] = field(default_factory=list)
    by_name: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    unmatched: list[tuple[str, str, str]] = field(default_factory=list)   # id, name, why
    module_from: str = ""
    module_to: str = ""
    refused: str | None = None
    """Why the migrated save was not written (too few pieces matched), or None."""

    @property
    def matched(self) -> int:
        return len(self.by_gpid) + len(self.by_name)

    @property
    def total(self) -> int:
        return self.matched + len(self.unmatched)

    def to_text(self) -> str:
        lines = [f"migrated {self.module_from} -> {self.module_to}: {self.total} pieces, "
                 f"{len(self.by_gpid)} matched by gpid, {len(self.by_name)} by name "
                 f"({len(self.unchanged)} already identical), {len(self.unmatched)} not matched"]
        lines += [f"  not matched: {pid} {name!r}: {why}" for pid, name, why in self.unmatched]
        if self.refused:
            lines.append(f"REFUSED: {self.refused}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {"from": self.module_from, "to": self.module_to, "pieces": self.total,
                "matched_by_gpid": len(self.by_gpid), "matched_by_name": len(self.by_name),
                "unchanged": len(self.unchanged),
                "unmatched": [{"piece": p, "name": n, "why": w} for p, n, w in self.unmatched],
                "written": self.refused is None, "refused": self.refused}


def carry_state(old: Piece, new: Piece, gpid: str) -> None:
    """Give ``new`` the state of ``old``: each trait's (:func:`converter.piece_state.carry_traits`),
    and the BasicPiece's own (map, position, properties), with the new slot's gpid."""
    carry_traits(old, new)
    new.inner.set_state(old.inner.state_text())
    if gpid:
        new.inner.gpid = gpid


def migrated_piece(old: Piece, slot: PieceSlot, module: Module, quoting: str) -> Piece:
    """The piece as the new module's slot makes it, carrying the old piece's state.

    VASSAL stores pieces with their prototypes expanded; a piece that still names its
    prototypes (as files written by other tools may) keeps them by name.
    """
    fresh = slot.piece() if old.prototypes() else module.expand(slot.piece())
    new = decode_piece(fresh.type_text(), fresh.state_text(), quoting=quoting)
    carry_state(old, new, slot.gpid)
    return new


def _replace(save: SavedGame, piece_id: str, piece: Piece) -> None:
    """Write a new type and state into a piece's own AddPiece command (nothing else changes)."""
    entry = save.entry(piece_id)
    command = entry.command
    command._set(1, piece.type_text())
    command.state_text = piece.state_text() or ""
    entry._piece = None


def migrate(save: SavedGame, module: Module) -> Migration:
    """Re-create every piece of the position from ``module``; edits ``save`` in place."""
    report = Migration(module_from=_saved_module(save), module_to=f"{module.name} {module.version}")
    by_gpid, by_name = slot_index(module)
    for piece_id, entry in list(save.pieces.items()):
        if entry.is_stack or entry.is_deck:
            continue
        old = entry.piece
        slot, how = match_slot(old, by_gpid, by_name)
        if slot is None:
            why = "several PieceSlots share this name" if how == "ambiguous" else "no PieceSlot with its gpid or name"
            report.unmatched.append((piece_id, old.name, why))
            continue
        try:
            new = migrated_piece(old, slot, module, save.quoting)
        except WawkitError as error:
            report.unmatched.append((piece_id, old.name, f"slot {slot.name!r} unreadable: {error.message}"))
            continue
        (report.by_gpid if how == "gpid" else report.by_name).append(piece_id)
        if new.type_text() == old.type_text() and new.state_text() == old.state_text():
            report.unchanged.append(piece_id)
            continue
        _replace(save, piece_id, new)
    _rename_module(save, module)
    return report


def _saved_module(save: SavedGame) -> str:
    meta = save.container.metadata.get("moduledata")
    saved = save.container.metadata.get("savedata")
    name = (meta.name if meta is not None else None) or (saved.name if saved is not None else None)
    version = (meta.version if meta is not None else None) or (saved.version if saved is not None else None)
    return f"{name} {version}" if name else "(module not named in the save)"


def _rename_module(save: SavedGame, module: Module) -> None:
    """Point the ``moduledata`` and ``savedata`` entries (when present) at the new module."""
    for name in ("moduledata", "savedata"):
        entry = save.container.entry(name)
        if entry is None:
            continue
        text = entry.data.decode("utf-8", "surrogateescape")
        for tag, value in (("name", module.name), ("version", module.version)):
            text = re.sub(rf"<{tag}>[^<]*</{tag}>", lambda _m, t=tag, v=value: f"<{t}>{escape(v)}</{t}>", text,
                          count=1)
        entry.data = text.encode("utf-8", "surrogateescape")


#: Below this share of pieces matched by a PieceSlot, ``migrate`` writes nothing unless asked:
#: a save that few pieces of match is most likely a save of another module.
MIN_MATCHED = 0.5


def migrate_file(source: str | os.PathLike[str], module_path: str | os.PathLike[str],
                 output: str | os.PathLike[str], *, overwrite: bool = False, min_matched: float = MIN_MATCHED,
                 allow_unmatched: bool = False) -> Migration:
    """Read, migrate and write atomically; ``overwrite`` replaces an older output, never the input.

    When fewer than ``min_matched`` of the pieces match a PieceSlot of the new module, nothing is
    written (``Migration.refused`` says why) unless ``allow_unmatched``."""
    if Path(output).resolve() == Path(source).resolve():
        raise ContainerError("is the save being migrated; write the migrated save to another file", file=str(output))
    check_target(output, overwrite=overwrite)
    save = SavedGame.read(source)
    module = Module.read(module_path)
    report = migrate(save, module)
    if report.total and report.matched / report.total < min_matched and not allow_unmatched:
        report.refused = (f"only {report.matched} of {report.total} pieces ({report.matched / report.total:.0%}) match "
                          f"a PieceSlot of {module.name!r}, fewer than {min_matched:.0%}: is it the save's module? "
                          f"Nothing was written (--allow-unmatched writes it anyway)")
        return report
    save.write(output, overwrite=overwrite)
    return report


__all__ = ["MIN_MATCHED", "Migration", "MigrateError", "migrate", "migrate_file", "carry_state", "migrated_piece"]
