"""Module profiles: how one VASSAL module's pieces map onto the canonical game model.

A profile (``schemas/profile.schema.json``) is data, not code: selectors say which
pieces are units (by prototype, property, name or image pattern) and which separate
marker pieces or layer levels mean Disrupted, Ops Complete, an ammo state, a Wreck or
Smoke; value rules say where a unit's table key, side, nation and formation come from;
``holding_maps`` says which maps hold units off the board (Destroyed, the cup).

This module reads profiles and applies selectors and value rules to pieces; the import
(:mod:`converter.importer`) and the export (:mod:`converter.exporter`) use it.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from converter.errors import ProfileError, WawkitError
from converter.schema import load_document, validate
from converter.vassal.module import Module
from converter.vassal.pieces import Piece, PrototypeText, decode_piece
from converter.vassal.traits.layers import Layer
from converter.vassal.traits.properties import Marker
from referee.model import Formation

#: Unit status fields a marker piece can stand for (boolean fields of referee.model.Status).
FLAG_MARKERS = ("disrupted", "ops_complete", "out_of_command", "moving", "fired", "wounded")


class SeenPiece(Piece):
    """A piece as a profile reads it: expanded through the module's prototypes, so that
    properties, layers and images a prototype defines are seen (a palette piece names its
    prototypes; VASSAL expands them when it places the piece), while :meth:`prototypes`
    still names the prototypes the piece uses (``match.prototype``) -- for a piece VASSAL
    saved, the prototypes whose traits it carries."""

    __slots__ = ("uses",)

    def __init__(self, piece: Piece, prototypes: Mapping[str, PrototypeText], uses: list[str] | None = None) -> None:
        expanded = piece.expand(prototypes) if piece.prototypes() else piece
        super().__init__(expanded.traits, quoting=expanded.quoting, piece_id=expanded.piece_id)
        self.uses = piece.prototypes() if uses is None else uses

    def prototypes(self) -> list[str]:
        return list(self.uses)


class Prototypes(dict):  # type: ignore[type-arg]
    """A module's prototypes as (type, state) by name (a prototype's Marker values live in its
    state), and the trait types each one expands to, to tell which prototypes a piece that VASSAL
    saved was made from: a saved piece carries its prototypes' traits, not their names."""

    def __init__(self, texts: Mapping[str, PrototypeText]) -> None:
        super().__init__(texts)
        self._signatures: dict[str, tuple[str, ...]] | None = None

    @property
    def signatures(self) -> dict[str, tuple[str, ...]]:
        """Prototype name -> the traits it expands to (outermost first): their type texts, and a
        Marker's values too (fixed in play: two prototypes may differ only by a Marker's value)."""
        if self._signatures is None:
            found = {}
            for name, text in self.items():
                type_text, state_text = text if isinstance(text, tuple) else (text, None)
                try:
                    piece = decode_piece(type_text, state_text).expand(self)
                except WawkitError:
                    continue
                traits = tuple(_signature(t) for t in piece.decorators)
                if traits:
                    found[name] = traits
            self._signatures = found
        return self._signatures

    def carried_by(self, piece: Piece) -> list[str]:
        """The prototypes whose traits a piece carries, in a row, as VASSAL expands them."""
        if not self:
            return []
        types = [_signature(t) for t in piece.decorators]
        joined = "\x00".join(types)
        return [name for name, traits in self.signatures.items()
                if len(traits) <= len(types) and "\x00".join(traits) in joined and _contiguous(types, traits)]


def _signature(trait: Any) -> str:
    return trait.type_text() + ("\x01" + (trait.state_text() or "") if isinstance(trait, Marker) else "")


def _contiguous(types: list[str], traits: tuple[str, ...]) -> bool:
    width = len(traits)
    return any(tuple(types[i:i + width]) == traits for i in range(len(types) - width + 1))


def prototype_texts(module: Module) -> Prototypes:
    """The module's prototypes as (type, state), knowing the traits each expands to."""
    return Prototypes({name: (definition.type_text, definition.state_text)
                       for name, definition in module.prototypes.items()})


def seen(piece: Piece, prototypes: Mapping[str, PrototypeText]) -> Piece:
    """``piece`` as profiles read it: expanded through its prototypes (a :class:`SeenPiece`), or,
    a piece VASSAL saved with its prototypes expanded, knowing which ones it carries."""
    if piece.prototypes():
        return SeenPiece(piece, prototypes)
    carried = prototypes.carried_by(piece) if isinstance(prototypes, Prototypes) else []
    return SeenPiece(piece, prototypes, carried) if carried else piece


def _regex(pattern: str, path: str, file: str | None) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as error:
        raise ProfileError(f"{path}: not a regular expression: {error}", file=file) from None


@dataclass(frozen=True)
class Selector:
    """Which pieces: every test given must hold (see the profile schema's ``selector``)."""

    path: str = field(compare=False)
    piece: str | None = None
    name: re.Pattern[str] | None = None
    image: re.Pattern[str] | None = None
    prototype: str | None = None
    properties: Mapping[str, str] = field(default_factory=dict)
    layer: str | None = None
    level: int | None = None
    layer_image: re.Pattern[str] | None = None

    @classmethod
    def of(cls, raw: Mapping[str, Any], path: str, file: str | None = None) -> "Selector":
        return cls(path, raw.get("piece"),
                   _regex(raw["name"], f"{path}.name", file) if "name" in raw else None,
                   _regex(raw["image"], f"{path}.image", file) if "image" in raw else None,
                   raw.get("prototype"), dict(raw.get("property") or {}), raw.get("layer"), raw.get("level"),
                   _regex(raw["layer_image"], f"{path}.layer_image", file) if "layer_image" in raw else None)

    @property
    def reads_name(self) -> bool:
        """Whether a test of this selector reads the piece's displayed name."""
        return self.piece is not None or self.name is not None

    def matches(self, piece: Piece, name: str | None = None) -> bool:
        """Whether the piece is one of these; ``name``: its displayed name, when the caller has
        it already (computing it applies every trait: a profile's many ignore rules ask again)."""
        if (self.piece is not None or self.name is not None) and name is None:
            name = piece.name
        if self.piece is not None and self.piece not in (piece.basic_name, name):
            return False
        if self.name is not None and not self.name.search(name or ""):
            return False
        if self.image is not None and image_match(self.image, piece) is None:
            return False
        if self.prototype is not None and self.prototype not in piece.prototypes():
            return False
        if self.properties:
            props = piece.properties()
            if any(props.get(k) != v for k, v in self.properties.items()):
                return False
        if self.layer is not None:
            layer = piece.layer(self.layer)
            if layer is None or (self.level is not None and not (layer.active and layer.current_level == self.level)):
                return False
        if self.layer_image is not None and not any(
                self.layer_image.search(image) for layer in piece.layers() for image in layer.images if image):
            return False
        return True

    @property
    def base(self) -> "Selector":
        """The selector without its layer level: the piece kind, whatever level it shows."""
        return Selector(self.path, self.piece, self.name, self.image, self.prototype, self.properties, self.layer,
                        None, self.layer_image)


def image_match(pattern: re.Pattern[str], piece: Piece) -> re.Match[str] | None:
    """The first match of ``pattern`` on the BasicPiece image, else on a shown layer image."""
    inner = piece.inner
    images = [getattr(inner, "image", "") or ""] + [layer.image for layer in piece.layers()]
    for image in images:
        found = pattern.search(image) if image else None
        if found:
            return found
    return None


@dataclass(frozen=True)
class ValueRule:
    """Where one attribute of a unit comes from (constant, property, pattern group, table)."""

    path: str
    raw: Mapping[str, Any]

    def read(self, piece: Piece, rule: "UnitRule", entry: Any = None) -> str | None:
        raw = self.raw
        if "value" in raw:
            value: str | None = raw["value"]
        elif "property" in raw:
            value = piece.properties().get(raw["property"])
        elif "image_group" in raw or "name_group" in raw:
            pattern = rule.match.image if "image_group" in raw else rule.match.name
            if pattern is None:
                raise ProfileError(f"{self.path}: the rule's match has no "
                                   f"{'image' if 'image_group' in raw else 'name'} pattern", piece=piece.piece_id)
            found = image_match(pattern, piece) if "image_group" in raw else pattern.search(piece.name)
            group = raw.get("image_group", raw.get("name_group"))
            try:
                value = found.group(group) if found else None
            except IndexError:
                raise ProfileError(f"{self.path}: the pattern has no group {group}", piece=piece.piece_id) from None
        elif entry is None:
            value = None
        else:
            value = entry.type.name if raw["table"] == "name" else getattr(entry, raw["table"])
        if value is not None and raw.get("number") and value.isdigit():
            value = str(int(value))
        if value is not None and "map" in raw:
            value = raw["map"].get(value, value)
        return value if value != "" else None


@dataclass(frozen=True)
class ReducedSide:
    """How a piece shows its reduced side: a named Layer at ``level``, or an active layer whose image matches."""

    path: str = field(compare=False)
    layer: str | None = None
    level: int | None = None
    image: re.Pattern[str] | None = None

    def _layer(self, piece: Piece) -> Layer:
        if self.layer is not None:
            found = piece.layer(self.layer)
            if found is None:
                raise ProfileError(f"{self.path}: the piece has no layer {self.layer!r}", piece=piece.piece_id)
            return found
        assert self.image is not None
        for found in piece.layers():
            if any(self.image.search(image) for image in found.images):
                return found
        raise ProfileError(f"{self.path}: no layer of the piece has an image matching {self.image.pattern!r}",
                           piece=piece.piece_id)

    def shown(self, piece: Piece) -> bool:
        layer = self._layer(piece)
        if self.layer is not None:
            return layer.active and layer.current_level == self.level
        return layer.active and bool(self.image.search(layer.image)) if self.image is not None else False

    def show(self, piece: Piece, reduced: bool) -> None:
        """Turn the piece to its reduced (or full) side; the full side is level 1, or the layer
        switched off when level 1 is the reduced side (a one-level Flip layer)."""
        layer = self._layer(piece)
        if self.layer is not None:
            layer.set_level(self.level if reduced else (-1 if self.level == 1 else 1))
            return
        assert self.image is not None
        index = next(i for i, image in enumerate(layer.images) if self.image.search(image)) + 1
        layer.set_level(index if reduced else -index)


@dataclass(frozen=True)
class StatusProperty:
    """A status shown by a Marker or Dynamic Property of the unit's own piece: on at ``value``, off at ``off``."""

    property: str
    value: str
    off: str = ""


@dataclass(frozen=True)
class UnitRule:
    index: int
    match: Selector
    type: ValueRule
    side: ValueRule | None
    nation: ValueRule | None
    formation: ValueRule | None
    reduced: ReducedSide | None
    table_where: Mapping[str, tuple[str, ...]]
    status_layers: Mapping[str, tuple[str, int]] = field(default_factory=dict)
    status_properties: Mapping[str, StatusProperty] = field(default_factory=dict)

    def accepts(self, entry: Any) -> bool:
        return all(getattr(entry, k, None) in values for k, values in self.table_where.items())


@dataclass(frozen=True)
class Rules:
    """The rules a module's positions are judged by: a ruleset and (classic) its book."""

    ruleset: str
    book: str | None = None

    @property
    def name(self) -> str:
        """As ``--ruleset`` spells it: ``classic:untold``, ``waw85``."""
        return f"{self.ruleset}:{self.book}" if self.book else self.ruleset


#: The rules of a profile that names none: the classic rules as The Untold Stories reads them.
DEFAULT_RULES = Rules("classic", "untold")


@dataclass
class Profile:
    """A module profile, read and checked. ``rules`` None: a module of another game, judged
    for soundness only (never by World at War's rules)."""

    name: str
    module: str
    main_map: str
    units: list[UnitRule]
    unit_markers: dict[str, Selector]          # status field (or ammo:<state>) -> selector
    hex_markers: dict[str, Selector]
    holding_maps: dict[str, str]
    ignore: list[Selector]
    eliminate_to: str | None
    unit_table: Mapping[str, Any] | None
    turn_property: str | None
    missions_properties: dict[str, str]
    file: str | None = None
    units_file: str | None = None
    terrain_file: str | None = None
    board_aliases: dict[str, tuple[str, int, int]] = field(default_factory=dict)
    rules: Rules | None = DEFAULT_RULES
    tec_file: str | None = None
    #: The Formation cards (name -> Formation) a position read through the profile states.
    formations: Mapping[str, Formation] = field(default_factory=dict)

    @classmethod
    def from_document(cls, data: Mapping[str, Any], *, file: str | None = None) -> "Profile":
        validate(data, "profile", file=file)
        rules = []
        for i, raw in enumerate(data["units"]):
            path = f"units[{i}]"

            def value(name: str) -> ValueRule | None:
                return ValueRule(f"{path}.{name}", raw[name]) if name in raw else None
            reduced = None
            if "reduced" in raw:
                side = raw["reduced"]
                reduced = ReducedSide(f"{path}.reduced", side.get("layer"), side.get("level"),
                                      _regex(side["image"], f"{path}.reduced.image", file) if "image" in side else None)
            rules.append(UnitRule(i, Selector.of(raw["match"], f"{path}.match", file), ValueRule(f"{path}.type", raw["type"]),
                                  value("side"), value("nation"), value("formation"), reduced,
                                  {k: tuple(v) for k, v in (raw.get("table_where") or {}).items()},
                                  {k: (v["layer"], v["level"]) for k, v in (raw.get("status_layers") or {}).items()},
                                  {k: StatusProperty(v["property"], v["value"], v.get("off", ""))
                                   for k, v in (raw.get("status_properties") or {}).items()}))
        markers: dict[str, Selector] = {}
        for name, raw in (data.get("unit_markers") or {}).items():
            if name == "ammo":
                for state, sel in raw.items():
                    markers[f"ammo:{state}"] = Selector.of(sel, f"unit_markers.ammo.{state}", file)
            else:
                markers[name] = Selector.of(raw, f"unit_markers.{name}", file)
        hex_markers = {name: Selector.of(raw, f"hex_markers.{name}", file)
                       for name, raw in (data.get("hex_markers") or {}).items()}
        ignore = [Selector.of(raw, f"ignore[{i}]", file) for i, raw in enumerate(data.get("ignore") or ())]
        eliminate_to = (data.get("eliminate") or {}).get("move_to")
        holding = dict(data.get("holding_maps") or {})
        if eliminate_to is not None and eliminate_to not in holding:
            raise ProfileError(f"eliminate.move_to: {eliminate_to!r} is not one of the holding_maps {sorted(holding)}",
                               file=file)
        return cls(data["profile"], data["module"], data["main_map"], rules, markers, hex_markers, holding, ignore,
                   eliminate_to, data.get("unit_table"), data.get("turn_property"),
                   dict(data.get("missions_properties") or {}), file,
                   _beside(file, data.get("units_file")), _beside(file, data.get("terrain_file")),
                   {name: (raw["board"], raw["x"], raw["y"]) for name, raw in (data.get("board_aliases") or {}).items()},
                   _rules(data.get("rules", "default"), file), _beside(file, data.get("tec_file")),
                   {name: Formation(name, raw.get("side"), raw.get("hq"), raw.get("morale"), bool(raw.get("conditional")),
                                    dict(raw.get("command_range") or {}), raw.get("markers", 1))
                    for name, raw in (data.get("formations") or {}).items()})

    def ruleset_name(self, override: str | None = None) -> str | None:
        """The ruleset positions are judged by, as ``--ruleset`` spells it (``override`` when
        given); None for a module of another game. Such a module takes no ``override``."""
        if self.rules is None:
            if override is not None:
                raise ProfileError(f"the profile says module {self.module!r} is judged by no rules (rules: none): "
                                   f"--ruleset {override} does not apply to it", file=self.file)
            return None
        return override or self.rules.name

    # -- classifying pieces -----------------------------------------------------------
    def unit_rule(self, piece: Piece, name: str | None = None) -> UnitRule | None:
        return next((rule for rule in self.units if rule.match.matches(piece, name)), None)

    def unit_marker(self, piece: Piece, name: str | None = None) -> str | None:
        return next((status for status, sel in self.unit_markers.items() if sel.matches(piece, name)), None)

    def hex_marker(self, piece: Piece, name: str | None = None) -> str | None:
        return next((marker for marker, sel in self.hex_markers.items() if sel.matches(piece, name)), None)

    def ignored(self, piece: Piece, name: str | None = None) -> bool:
        """Whether an ignore rule matches (``name``: the piece's displayed name, computed once if not given)."""
        name = piece.name if name is None and self.ignore else name
        return any(sel.matches(piece, name) for sel in self.ignore)

    def location_of_map(self, map_name: str | None) -> str:
        """The model's ``Unit.location`` for a unit on ``map_name``."""
        if map_name == self.main_map:
            return "map"
        if map_name in self.holding_maps:
            return self.holding_maps[map_name]
        return map_name or "offmap"

    def map_of_location(self, location: str) -> str | None:
        """The inverse of :meth:`location_of_map` (None: the unit has no piece there)."""
        if location == "map":
            return self.main_map
        for map_name, value in self.holding_maps.items():
            if value == location:
                return map_name
        return None


def _rules(raw: Any, file: str | None) -> Rules | None:
    """The profile's ``rules``: none, a ruleset (classic takes a book), or the default."""
    if raw == "default":
        return DEFAULT_RULES
    if raw == "none":
        return None
    ruleset, book = raw["ruleset"], raw.get("book")
    if ruleset == "classic":
        return Rules("classic", book or "untold")
    if book is not None:
        raise ProfileError(f"rules.book: {ruleset} has no book to choose ({book!r} is a classic book)", file=file)
    return Rules(ruleset)


def _beside(profile_file: str | None, name: str | None) -> str | None:
    """A file named in a profile, relative to the profile's own folder."""
    if name is None:
        return None
    return os.path.join(os.path.dirname(profile_file), name) if profile_file else name


def read_profile(path: str | os.PathLike[str]) -> Profile:
    return Profile.from_document(load_document(path, "profile"), file=str(path))


__all__ = ["DEFAULT_RULES", "FLAG_MARKERS", "Profile", "Prototypes", "Rules", "StatusProperty", "ReducedSide", "SeenPiece", "Selector", "UnitRule", "ValueRule", "image_match",
           "prototype_texts", "read_profile", "seen"]
