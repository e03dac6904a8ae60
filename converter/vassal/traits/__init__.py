"""Typed VASSAL traits, one module per family, and the prefix registry.

VASSAL picks a trait class by the ID prefix of its type: the text up to and
including the first ``;``, or the whole text when it has none (``stack``).
:func:`trait_class` does the same; an ID wawkit does not type gives an
:class:`UnknownTrait`, which keeps its type and state text verbatim.
"""
from __future__ import annotations

import importlib
from typing import Any

from converter.vassal.sequence import MODERN
from converter.vassal.traits.base import Bool, Double, Int, StateValue, Str, StrList, Trait, UnknownTrait

#: Every typed trait, by its ID prefix: the family module that defines it and its class
#: name. A family is imported the first time one of its traits is met (or its class is
#: asked for), so a reader that meets only Stacks and BasicPieces (``wawkit inspect``)
#: never loads the other families. In VASSAL's ``BasicCommandEncoder`` order.
HOMES: dict[str, tuple[str, str]] = {
    'piece;': ("basic", "BasicPiece"),
    'stack': ("basic", "Stack"),
    'deck;': ("basic", "Deck"),
    'emb2;': ("layers", "Embellishment"),
    'emb;': ("layers", "LegacyEmbellishment"),
    'mark;': ("properties", "Marker"),
    'PROP;': ("properties", "DynamicProperty"),
    'calcProp;': ("properties", "CalculatedProperty"),
    'setprop;': ("properties", "SetGlobalProperty"),
    'prototype;': ("prototypes", "UsePrototype"),
    'cmt;': ("prototypes", "Comment"),
    'label;': ("appearance", "Labeler"),
    'obs;': ("appearance", "Obscurable"),
    'hide;': ("appearance", "Hideable"),
    'immob;': ("appearance", "Immobilized"),
    'rotate;': ("appearance", "FreeRotator"),
    'markmoved;': ("appearance", "MovementMarkable"),
    'report;': ("actions", "ReportState"),
    'macro;': ("actions", "TriggerAction"),
    'globalkey;': ("actions", "GlobalKeyCommand"),
    'sendto;': ("actions", "SendToLocation"),
    'delete;': ("actions", "Delete"),
    'clone;': ("actions", "Clone"),
    'hideCmd;': ("actions", "RestrictCommands"),
    'placemark;': ("actions", "PlaceMarker"),
    'replace;': ("actions", "Replace"),
    'locmsg;': ("actions", "TranslatableMessage"),
    'basicName;': ("properties", "BasicName"),
    'restrict;': ("appearance", "Restricted"),
    'translate;': ("actions", "Translate"),
    'return;': ("actions", "ReturnToDeck"),
    'globalhotkey;': ("actions", "GlobalHotKey"),
    'submenu;': ("actions", "SubMenu"),
    'deselect;': ("actions", "Deselect"),
    'menuSeparator;': ("actions", "MenuSeparator"),
    'playSound;': ("actions", "PlaySound"),
    'propertysheet;': ("properties", "PropertySheet"),
    'AreaOfEffect;': ("appearance", "AreaOfEffect"),
    'pivot;': ("appearance", "Pivot"),
    'nonRect2;': ("appearance", "NonRectangular"),
    'nonRect;': ("appearance", "LegacyNonRectangular"),
    'button;': ("actions", "ActionButton"),
    'footprint;': ("appearance", "Footprint"),
    'border;': ("appearance", "BorderOutline"),
    'locCommand;': ("actions", "MultiLocationCommand"),
    'attach;': ("actions", "Attachment"),
    'setpieceprop;': ("properties", "SetPieceProperty"),
}

#: ID prefix -> trait class, for the families loaded so far (see :func:`trait_class`).
REGISTRY: dict[str, type[Trait]] = {}
_BY_NAME: dict[str, tuple[str, str]] = {name: (module, prefix) for prefix, (module, name) in HOMES.items()}
_BY_NAME["PersistentProperties"] = ("basic", "")
_BY_NAME["Layer"] = ("layers", "")


def _family(module: str) -> Any:
    """Import one family module, register its traits and make its classes attributes here."""
    family = importlib.import_module(f"{__name__}.{module}")
    for prefix, (home, name) in HOMES.items():
        if home == module:
            REGISTRY[prefix] = getattr(family, name)
    globals().update({name: getattr(family, name) for name, (home, _) in _BY_NAME.items() if home == module})
    return family


def id_prefix(type_text: str) -> str:
    """The ID VASSAL dispatches on: up to and including the first ``;``, else the whole text."""
    cut = type_text.find(";")
    return type_text if cut < 0 else type_text[:cut + 1]


def trait_class(type_text: str) -> type[Trait]:
    """The class that types ``type_text`` (:class:`UnknownTrait` for an ID wawkit does not type)."""
    cut = type_text.find(";")
    prefix = type_text if cut < 0 else type_text[:cut + 1]
    found = REGISTRY.get(prefix)
    if found is None:
        home = HOMES.get(prefix)
        if home is None:
            return UnknownTrait
        found = getattr(_family(home[0]), home[1])
    return found


def decode_trait(type_text: str, state_text: str | None = None, *, quoting: str = MODERN,
                 piece_id: str | None = None) -> Trait:
    """One trait from its own type and state text (fields are parsed on first access)."""
    return trait_class(type_text)(type_text, state_text, quoting=quoting, piece_id=piece_id)


def __getattr__(name: str) -> Any:
    """The trait classes by name (``from converter.vassal.traits import Marker``), their
    family imported on first use; ``TRAIT_CLASSES`` and ``INNER_CLASSES`` load every family."""
    if name in _BY_NAME:
        return getattr(_family(_BY_NAME[name][0]), name)
    if name == "TRAIT_CLASSES":
        return tuple(getattr(_family(module), cls) for module, cls in HOMES.values())
    if name == "INNER_CLASSES":
        return tuple(getattr(_family("basic"), cls) for cls in ("BasicPiece", "Stack", "Deck"))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
