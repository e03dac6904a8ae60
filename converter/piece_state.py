"""What a unit's counter shows beyond what its profile reads, kept so that a new save shows
the same counter.

A scenario states a unit's hex, strength and statuses; its counter in the save shows more:
the level of every Layer (how many blocks a Commands & Colors unit has left, a VASL counter's
broken side, a 2007 Longest Day counter turned to its back), Text Labels (a leader's name),
Dynamic Property values, where a Return to Location trait sends it. ``export`` makes each
unit's counter afresh from its PieceSlot, which shows none of that.

The state is carried from the saved counter onto a fresh one as VASSAL's "Refresh counters"
does (:func:`carry_traits`, which ``migrate`` uses too): a trait takes the state of the old
trait with the same type text, else of the old trait of the same kind and name (a Layer, a
Dynamic Property, a Text Label...). :func:`counter_states` records, at import, what that gives
that the fresh counter does not show, by trait name (its kind and name, the n-th trait of one
name numbered: ``Labeler #2``); :func:`restored` puts it on the counter ``export`` makes, then
the profile's own values (strength, statuses, side...) are written over it, so the scenario
has the last word. A trait the new counter lacks, or a Layer level it does not have, is left out.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Mapping

from converter.errors import ProfileError, WawkitError
from converter.palette import Palette, placed_texts
from converter.profile import Profile
from converter.unit_table import UnitTable
from converter.vassal.module import Module
from converter.vassal.pieces import Piece, decode_piece
from converter.vassal.save import SavedGame
from converter.vassal.sequence import java_parse_int, split
from converter.vassal.traits import Trait
from converter.vassal.traits.layers import Layer
from converter.vassal.traits.properties import DynamicProperty, Marker
from referee.model import Unit

#: Trait kinds whose state is carried when the new trait has the same name (not the same type).
NAMED_STATE = ("Embellishment", "DynamicProperty", "Labeler", "Obscurable", "Hideable", "FreeRotator")


def _name(trait: Any) -> str:
    """A trait's own name or property key ("" when it has none)."""
    for attribute in ("name", "key"):
        value = getattr(trait, attribute, None) if trait.typed else None
        if isinstance(value, str) and value:
            return value
    return ""


def carry_traits(old: Piece, new: Piece) -> None:
    """Give the traits of ``new`` the state of the traits of ``old``.

    A new trait takes the state of the old trait with the same type text; failing that (the
    module changed the trait), of the old trait of the same kind and name (a Layer keeps its
    level, a Dynamic Property its value); an unnamed Layer or Label takes the state of the old
    unnamed one in the same place among its kind. The BasicPiece is not touched.
    """
    by_type = {(t.kind, t.type_text()): t for t in old.decorators}
    by_name = {(t.kind, _name(t)): t for t in old.decorators if t.kind in NAMED_STATE and _name(t)}
    unnamed: dict[str, list[Any]] = {}
    for trait in old.decorators:
        if trait.kind in NAMED_STATE and not _name(trait):
            unnamed.setdefault(trait.kind, []).append(trait)
    seen: dict[str, int] = {}
    for trait in new.decorators:
        match = by_type.get((trait.kind, trait.type_text()))
        if trait.kind in NAMED_STATE:
            if _name(trait):
                match = match or by_name.get((trait.kind, _name(trait)))
            else:
                index = seen[trait.kind] = seen.get(trait.kind, -1) + 1
                candidates = unnamed.get(trait.kind, [])
                match = match or (candidates[index] if index < len(candidates) else None)
        if match is not None and match.state_text() is not None:
            trait.set_state(match.state_text())


def trait_names(piece: Piece) -> list[str]:
    """The name of each trait around the piece's BasicPiece, outermost first: its kind and
    its own name (a Layer's name, a Dynamic Property's key, a Marker's keys), ``#n`` for the
    n-th trait of one name."""
    names: list[str] = []
    seen: Counter[str] = Counter()
    for trait in piece.decorators:
        kind = trait.kind if trait.typed else trait.id_prefix.rstrip(";")
        if isinstance(trait, Layer):
            own = trait.name
        elif isinstance(trait, DynamicProperty):
            own = trait.key
        elif isinstance(trait, Marker):
            own = ",".join(trait.keys)
        else:
            own = ""
        base = f"{kind} {own}" if own else kind
        seen[base] += 1
        names.append(base if seen[base] == 1 else f"{base} #{seen[base]}")
    return names


def _state(trait: Trait) -> str:
    text = trait.state_text()
    return trait.default_state_text() if text is None else text


def shown_states(saved: Piece, fresh: Piece) -> dict[str, str]:
    """What ``saved`` shows that ``fresh`` (a counter of the same PieceSlot, as VASSAL places
    it) does not: the state :func:`carry_traits` gives each trait of ``fresh``, where it differs."""
    carried = fresh.copy()
    carry_traits(saved, carried)
    return {name: _state(after) for name, before, after in zip(trait_names(fresh), fresh.decorators,
                                                                carried.decorators)
            if _state(after) != _state(before)}


def _fits(layer: Layer, state: str) -> bool:
    """Whether a Layer state's level (its first field, negative when inactive) is one the layer has."""
    try:
        value = java_parse_int(split(state, ";")[0] if state else "")
    except (ValueError, IndexError):
        return False
    return value != 0 and abs(value) <= layer.level_count


def restore(fresh: Piece, states: Mapping[str, str]) -> list[str]:
    """Give the traits of ``fresh`` the states :func:`shown_states` recorded; returns the names
    of the traits set. A Layer level the fresh counter's layer lacks is not set."""
    done = []
    for name, trait in zip(trait_names(fresh), fresh.decorators):
        state = states.get(name)
        if state is None or (isinstance(trait, Layer) and not _fits(trait, state)):
            continue
        trait.set_state(state)
        done.append(name)
    return done


@dataclass(frozen=True)
class CounterState:
    """What a unit's counter showed beyond a fresh counter of its PieceSlot: the counter's
    BasicPiece name (the states are for that counter only), the state of each trait that
    differed, and the gpid of the PieceSlot it came from when ``export`` would not take that
    one by itself (another PieceSlot of the same unit-table entry)."""

    piece: str
    traits: Mapping[str, str] = field(default_factory=dict)
    slot: str | None = None


def counter_states(save: SavedGame, pieces: Mapping[str, str], units: Mapping[str, Unit], module: Module,
                   profile: Profile, table: UnitTable) -> dict[str, CounterState]:
    """For each unit (key -> its piece id in ``save``) whose counter shows more than the one
    ``export`` would make for it, what it shows (see the module docstring). A unit no PieceSlot
    prints is left out: ``export`` cannot make it either."""
    palette = Palette(module, profile, table)
    fresh_of: dict[int, Piece] = {}
    found: dict[str, CounterState] = {}
    for key, piece_id in pieces.items():
        unit, saved = units[key], save.piece(piece_id)
        try:
            entry = palette.entry_of(unit)
            slot, _ = palette.slot_of(unit, entry)
        except ProfileError:
            continue
        own, _ = palette.slot_of(unit, entry, getattr(saved.inner, "gpid", "") or None)
        try:
            fresh = fresh_of.get(id(own))
            if fresh is None:
                fresh = fresh_of[id(own)] = decode_piece(*placed_texts(module, own))
        except WawkitError:
            continue
        states = shown_states(saved, fresh)
        if states or own is not slot:
            found[key] = CounterState(fresh.basic_name, states, own.gpid if own is not slot else None)
    return found


def restored(type_text: str, state_text: str | None, kept: CounterState | None) -> str | None:
    """The state text of a fresh counter with ``kept`` put on it (unchanged without it, or when
    ``kept`` is of another counter)."""
    if kept is None or not kept.traits:
        return state_text
    piece = decode_piece(type_text, state_text)
    if piece.basic_name != kept.piece or not restore(piece, kept.traits):
        return state_text
    return piece.state_text()


__all__ = ["NAMED_STATE", "CounterState", "carry_traits", "counter_states", "restore", "restored", "shown_states",
           "trait_names"]
