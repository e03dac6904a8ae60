"""Typed VASSAL traits, one module per family, and the prefix registry.

VASSAL picks a trait class by the ID prefix of its type: the text up to and
including the first ``;``, or the whole text when it has none (``stack``).
:func:`trait_class` does the same; an ID wawkit does not type gives an
:class:`UnknownTrait`, which keeps its type and state text verbatim.
"""
from __future__ import annotations

from converter.vassal.sequence import MODERN
from converter.vassal.traits.actions import (ActionButton, Attachment, Clone, Delete, Deselect, GlobalHotKey,
                                             GlobalKeyCommand, MenuSeparator, MultiLocationCommand, PlaceMarker,
                                             PlaySound, Replace, ReportState, RestrictCommands, ReturnToDeck,
                                             SendToLocation, SubMenu, TranslatableMessage, Translate, TriggerAction)
from converter.vassal.traits.appearance import (AreaOfEffect, BorderOutline, Footprint, FreeRotator, Hideable,
                                                Immobilized, Labeler, LegacyNonRectangular, MovementMarkable,
                                                NonRectangular, Obscurable, Pivot, Restricted)
from converter.vassal.traits.base import Bool, Double, Int, StateValue, Str, StrList, Trait, UnknownTrait
from converter.vassal.traits.basic import BasicPiece, Deck, PersistentProperties, Stack
from converter.vassal.traits.layers import Embellishment, Layer, LegacyEmbellishment
from converter.vassal.traits.properties import (BasicName, CalculatedProperty, DynamicProperty, Marker,
                                                PropertySheet, SetGlobalProperty, SetPieceProperty)
from converter.vassal.traits.prototypes import Comment, UsePrototype

TRAIT_CLASSES: tuple[type[Trait], ...] = (
    BasicPiece, Stack, Deck,
    Embellishment, LegacyEmbellishment, Marker, DynamicProperty, CalculatedProperty, SetGlobalProperty,
    UsePrototype, Comment,
    Labeler, Obscurable, Hideable, Immobilized, FreeRotator, MovementMarkable,
    ReportState, TriggerAction, GlobalKeyCommand, SendToLocation, Delete, Clone, RestrictCommands,
    PlaceMarker, Replace, TranslatableMessage,
    BasicName, Restricted, Translate, ReturnToDeck, GlobalHotKey, SubMenu, Deselect, MenuSeparator, PlaySound,
    PropertySheet, AreaOfEffect, Pivot, NonRectangular, LegacyNonRectangular, ActionButton,
    Footprint, BorderOutline, MultiLocationCommand, Attachment, SetPieceProperty,
)

#: ID prefix -> trait class.
REGISTRY: dict[str, type[Trait]] = {cls.prefix: cls for cls in TRAIT_CLASSES}

#: The innermost pieces of a chain.
INNER_CLASSES: tuple[type[Trait], ...] = (BasicPiece, Stack, Deck)


def id_prefix(type_text: str) -> str:
    """The ID VASSAL dispatches on: up to and including the first ``;``, else the whole text."""
    cut = type_text.find(";")
    return type_text if cut < 0 else type_text[:cut + 1]


def trait_class(type_text: str) -> type[Trait]:
    """The class that types ``type_text`` (:class:`UnknownTrait` for an ID wawkit does not type)."""
    cut = type_text.find(";")
    return REGISTRY.get(type_text if cut < 0 else type_text[:cut + 1], UnknownTrait)


def decode_trait(type_text: str, state_text: str | None = None, *, quoting: str = MODERN,
                 piece_id: str | None = None) -> Trait:
    """One trait from its own type and state text (fields are parsed on first access)."""
    return trait_class(type_text)(type_text, state_text, quoting=quoting, piece_id=piece_id)


__all__ = [
    "Trait", "UnknownTrait", "StateValue", "Str", "Int", "Bool", "Double", "StrList",
    "BasicPiece", "Stack", "Deck", "PersistentProperties",
    "Layer", "Embellishment", "LegacyEmbellishment",
    "Marker", "DynamicProperty", "CalculatedProperty", "SetGlobalProperty", "UsePrototype", "Comment",
    "Labeler", "Obscurable", "Hideable", "Immobilized", "FreeRotator", "MovementMarkable",
    "ReportState", "TriggerAction", "GlobalKeyCommand", "SendToLocation", "Delete", "Clone", "RestrictCommands",
    "PlaceMarker", "Replace", "TranslatableMessage",
    "BasicName", "Restricted", "Translate", "ReturnToDeck", "GlobalHotKey", "SubMenu", "Deselect", "MenuSeparator",
    "PlaySound", "PropertySheet", "AreaOfEffect", "Pivot", "NonRectangular", "LegacyNonRectangular", "ActionButton",
    "Footprint", "BorderOutline", "MultiLocationCommand", "Attachment", "SetPieceProperty",
    "REGISTRY", "TRAIT_CLASSES", "INNER_CLASSES", "id_prefix", "trait_class", "decode_trait",
]
