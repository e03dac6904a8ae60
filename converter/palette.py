"""The module's counters as VASSAL places them: the PieceSlots of each unit-table entry, and
the piece a PieceSlot puts on the map.

A new save (``export``) makes each unit's counter from the PieceSlot of its unit-table entry
whose side, nation and formation are the unit's; an import keeps what a saved counter shows
beyond that fresh one (:mod:`converter.piece_state`). Both ask this module, so they agree on
which PieceSlot a unit comes from.
"""
from __future__ import annotations

import re

from converter.errors import ProfileError
from converter.profile import Profile, UnitRule, prototype_texts, seen
from converter.unit_table import TableEntry, UnitTable
from converter.vassal.module import Module, PieceSlot
from referee.model import Unit


def placed_texts(module: Module, slot: PieceSlot) -> tuple[str, str | None]:
    """A PieceSlot's piece as VASSAL places it from the palette: its prototypes expanded (a
    reduced side or status Layer a prototype defines is then on the piece itself)."""
    if not slot.piece().prototypes():
        return slot.type_text, slot.state_text
    piece = slot.piece().expand(prototype_texts(module))        # with the prototypes' Marker values
    return piece.type_text(), piece.state_text()


class Palette:
    """The module's unit PieceSlots (and CardSlots: counters a deck starts with) by unit-table
    key, as the profile reads them."""

    def __init__(self, module: Module, profile: Profile, table: UnitTable) -> None:
        self.by_key: dict[str, list[tuple[PieceSlot, UnitRule]]] = {}
        self.prototypes = prototype_texts(module)
        for slot in [*module.piece_slots, *module.card_slots]:
            piece = seen(slot.piece(), self.prototypes)
            rule = profile.unit_rule(piece)
            if rule is None:
                continue
            key = rule.type.read(piece, rule)
            entry = table.get(key) if key is not None else None
            if entry is not None and rule.accepts(entry):
                self.by_key.setdefault(entry.key, []).append((slot, rule))
        self.table = table

    def entry_of(self, unit: Unit) -> TableEntry:
        """The table entry of a unit: the one its key names (``t-64-2`` -> ``t-64``), else one printing its type."""
        base = re.sub(r"-[0-9]+$", "", unit.key)
        for key in (unit.key, base):
            entry = self.table.get(key)
            if entry is not None and entry.type == unit.type and key in self.by_key:
                return entry
        for entry in self.table.entries.values():
            if entry.type == unit.type and entry.key in self.by_key:
                return entry
        raise ProfileError(f"unit {unit.key!r}: no PieceSlot of the module prints its unit type {unit.type.name!r}")

    def slot_of(self, unit: Unit, entry: TableEntry, gpid: str | None = None) -> tuple[PieceSlot, UnitRule]:
        """The slot of ``entry`` with this ``gpid`` (the one a saved counter came from), else the
        one whose side, nation and formation are the unit's, else the first."""
        candidates = self.by_key[entry.key]
        for slot, rule in candidates:
            if gpid and slot.gpid == gpid:
                return slot, rule
        for slot, rule in candidates:
            piece = seen(slot.piece(), self.prototypes)
            read = {name: (getattr(rule, name).read(piece, rule, entry) if getattr(rule, name) else getattr(entry, name))
                    for name in ("side", "nation", "formation")}
            if read == {"side": unit.side, "nation": unit.nation, "formation": unit.formation}:
                return slot, rule
        return candidates[0]


__all__ = ["Palette", "placed_texts"]
