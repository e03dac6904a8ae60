"""``wawkit profile init``: a first profile for a module a player brings, drafted from the module.

A profile says which pieces are units, where their unit-table key, side, nation and
formation come from, which marker pieces, Layer levels or Dynamic Properties mean a
status, and which maps hold units off the board. A module says most of it, in its own
way; :func:`draft` reads the module and guesses:

* the main map: the map whose boards carry a hex grid (else a square grid, else the first);
* the units: the PieceSlots grouped by the prototypes they use (or, without prototypes,
  by their palette folder), a group being units unless its name or its pieces' names say
  markers, terrain, cards, dice, tracks...; each unit's table key is its BasicPiece name
  (what the PieceSlot calls the counter, whatever its layers show);
* side, nation and formation: a Marker or Dynamic Property named so on the unit pieces,
  else the palette folders they sit in (written into the unit table);
* the reduced side: a Layer named like Step, Flip, Reduced or Strength, or an unnamed
  Layer whose images all end the same way (``0198.b.svg``: a back face);
* statuses (Disrupted, Ops Complete, Out of Command, Fired, Moving, Wounded, ammo) and
  hex markers (Wreck, Smoke, Improved Position, Mines): marker pieces named like them,
  Layer levels of the unit pieces, or Dynamic Properties named like them;
* holding maps: every other map, the first named like Destroyed, Dead or Eliminated
  holding eliminated units.

Every guess is written with a ``# why:`` comment, and what was not found is said (a
status with nothing to show it cannot be written by ``resolve``). The unit table lists
every unit type found with the values the module states (name, side, nation,
formation, steps) for the player to fill in the factors. The draft is valid against the
schemas as written, and reads every save of the module as it is.
"""
from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

import yaml

from converter.errors import WawkitError
from converter.profile import Profile, prototype_texts, seen
from converter.unit_table import table_from_document
from converter.vassal.grids.assigned import NOTE as ASSIGNED_NOTE
from converter.vassal.grids.assigned import naming_grids, unnumbered
from converter.vassal.module import MapDef, Module, PieceSlot
from converter.vassal.pieces import Piece
from converter.vassal.traits.layers import Layer
from converter.vassal.traits.properties import DynamicProperty

#: Piece names that mean a status of the unit they sit on (profile ``unit_markers`` names).
STATUS_WORDS: dict[str, str] = {
    "disrupted": r"disrupt",
    "ops_complete": r"ops\W*comp|operations?\W*complete",
    "out_of_command": r"out\W*of\W*command|\booc\b",
    "fired": r"\bfired\b",
    "moving": r"\bmoving\b",
    "wounded": r"\bwounded\b",
}
#: Piece names that mean an ammo state (a one-sided marker: ``depleted_1``; two levels: 2 then 1).
AMMO_WORDS = r"\bammo\b|depleted"
#: Piece names that mean a hex marker (profile ``hex_markers`` names).
HEX_WORDS: dict[str, str] = {
    "wrecks": r"\bwreck",
    "smoke_2": r"\bsmoke\b",
    "improved_position": r"improved\W*pos|entrench|fox\W*hole|dug\W*in",
    "mines": r"\bmine(s|field)?\b",
}
#: Layer names (or level names) that show a counter's reduced side.
REDUCED_WORDS = r"\b(step|flip|flipped|reduced?|back|strength|damaged?)\b"
#: Group, folder and piece names of things that are not units.
NOT_UNITS = (r"\b(markers?|tokens?|terrain|cards?|dice|die|tracks?|turn|charts?|buttons?|labels?|notes?|victory|"
             r"objectives?|fort|fortifications?|buildings?|decks?|hidden|setup|scores?|trackers?|tables?|overlays?|"
             r"outline|scenario|rules?|info|status|weather|phase|admin|utility|tools?|hand|cup|pool|draw|randomi[sz]er|"
             r"hex\W*outline|prompt|panel|game)\b")
#: Property names that say a unit's side, nation or formation.
PROPERTY_ROLES: dict[str, str] = {
    "side": r"^(side|faction|player|team|allegiance|owner|belligerent)$",
    "nation": r"^(nation|nationality|country|army)$",
    "formation": r"^(formation|division|corps|brigade|regiment|parent|hq|command)$",
}
#: Map names of the box eliminated units go to.
ELIMINATED_MAP = r"destroy|eliminat|dead|casualt|graveyard|killed|losses"
#: Properties every piece has, or that layers expose: never a side or a status.
_OWN_PROPERTIES = re.compile(r"(^(BasicName|PieceName|LocationName|CurrentMap)$)|(_(Image|Name|Level|Active)$)")


@dataclass(frozen=True)
class Guess:
    """A value the draft proposes, and why."""

    value: Any
    why: str


@dataclass
class SlotView:
    """A PieceSlot as the draft reads it: the piece through its prototypes, and its palette
    folders; or a CardSlot, a piece a deck starts with (``deck``: the deck's name and the
    folders holding it on its map)."""

    slot: PieceSlot
    piece: Piece
    folders: tuple[str, ...]
    deck: str | None = None

    @property
    def name(self) -> str:
        return self.piece.basic_name

    @property
    def where(self) -> str:
        return "/".join(self.slot.path) or "(no palette)"

    def layer(self, name: str) -> Layer | None:
        return self.piece.layer(name)

    def properties(self) -> dict[str, str]:
        return {k: v for k, v in self.piece.properties().items() if not _OWN_PROPERTIES.search(k)}

    @property
    def immobile(self) -> bool:
        """A "Does not stack" trait that says the piece never moves (board furniture)."""
        return any(t.kind == "Immobilized" and getattr(t, "never_move", False) for t in self.piece.decorators)


@dataclass
class Group:
    """PieceSlots that use the same prototypes (or, without any, sit in the same palette folder)."""

    label: str
    slots: list[SlotView]
    says: str = ""                    # the name judged: the label, or a DrawPile's own name
    prototypes: tuple[str, ...] = ()  # of a DrawPile's group: judged too
    units: bool = False
    why: str = ""
    markers: bool = False             # every piece of the group is a status or hex marker


@dataclass
class Draft:
    """What :func:`draft` found; :meth:`profile_text` and :meth:`table_text` write it."""

    module: Module
    main_map: Guess
    groups: list[Group]
    unit_markers: dict[str, Guess]
    hex_markers: dict[str, Guess]
    status_layers: dict[str, Guess]
    status_properties: dict[str, Guess]
    values: dict[str, Guess]                       # side/nation/formation -> {property: X}
    folder_roles: dict[str, int]                   # side/nation/formation -> palette folder depth
    reduced: Guess | None
    holding: dict[str, Guess]
    eliminate_to: str | None
    missing: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def unit_slots(self) -> list[SlotView]:
        return [s for g in self.groups if g.units for s in g.slots]

    # -- the unit table ------------------------------------------------------------------
    def table_entries(self) -> dict[str, dict[str, Any]]:
        """Every unit type: the BasicPiece name, what the module says of it, the source."""
        entries: dict[str, dict[str, Any]] = {}
        for view in self.unit_slots:
            if view.name in entries or not view.name:
                continue
            entry: dict[str, Any] = {"name": view.name}
            for role, depth in self.folder_roles.items():
                if role not in self.values and depth < len(view.folders):
                    entry[role] = view.folders[depth]
            if self.reduced is not None and _shows_reduced(view, self.reduced.value):
                entry["steps"] = 2
            entry["sources"] = {"other": f"drafted by wawkit profile init from PieceSlot {view.where!r}: its factors "
                                         "are not filled in yet"}
            entries[view.name] = entry
        return entries

    def table_text(self) -> str:
        module = self.module
        lines = [f"# Unit table of {module.name!r} {module.version}, drafted by `wawkit profile init`.",
                 "# One entry per unit type found (the key is the counter's BasicPiece name). Fill in what",
                 "# each counter prints: target_type (heavy_armor, light_armor, soft_vehicle, troops, helicopter...),",
                 "# steps, ap/he/aa {fp, to_hit, range}, assault {fp, to_hit}, armor, save, mp, and under `reduced`",
                 "# what its reduced side prints; cite each value in `sources` (schemas/unit-table.schema.json).",
                 _dump({"table": module.name}).rstrip(), "units:"]
        entries = self.table_entries()
        if not entries:
            raise WawkitError("the module has no PieceSlot the draft could take for a unit", file=module.file)
        for key, entry in entries.items():
            lines.append(f"  {_key(key)}:")
            lines += ["    " + line for line in _dump(entry, None).rstrip().splitlines()]
        return "\n".join(lines) + "\n"

    # -- the profile ---------------------------------------------------------------------
    def unit_rules(self) -> list[tuple[str, dict[str, Any]]]:
        """The profile's unit rules with why: counters with the reduced layer (and the status
        layers) first, then every other piece; the unit table decides which are units."""
        base: dict[str, Any] = {"type": {"property": "BasicName"}}
        for role, guess in self.values.items():
            base[role] = guess.value
        rules = []
        needs = [self.reduced.value["layer"]] if self.reduced is not None and "layer" in self.reduced.value else []
        needs += [g.value["layer"] for g in self.status_layers.values() if g.value["layer"] not in needs]
        featured = dict(base)
        if self.reduced is not None:
            featured["reduced"] = self.reduced.value
        if self.status_layers:
            featured["status_layers"] = {k: g.value for k, g in self.status_layers.items()}
        if self.status_properties:
            base["status_properties"] = featured["status_properties"] = {
                k: g.value for k, g in self.status_properties.items()}
        if self.reduced is not None or self.status_layers:
            match: dict[str, Any] = {}
            if needs:
                match["layer"] = needs[0]
            elif self.reduced is not None and "image" in self.reduced.value:
                match["layer_image"] = self.reduced.value["image"]
            why = "counters that have " + (f"the Layer {needs[0]!r}" if needs else "a back-face layer")
            if len(needs) > 1:
                rules.append((f"{why} (and {', '.join(repr(n) for n in needs[1:])}: checked by the layers each "
                              "status reads)", {"match": match, **featured}))
            else:
                rules.append((why, {"match": match, **featured}))
        rules.append(("every other piece: the unit table lists which are units (a piece whose BasicPiece name is "
                      "not in it is not a unit)", {"match": {"name": "^"}, **base}))
        return rules

    def profile_text(self, units_file: str) -> str:
        module = self.module
        out = [f"# Module profile of {module.name!r} {module.version} ({os.path.basename(module.file or '')}), drafted",
               "# by `wawkit profile init`. Each guess says why it was made (# why: ...): check them against",
               "# the module. The unit table it names lists every unit type found, for you to fill in.",
               _dump({"profile": f"{module.name} (draft)", "module": module.name}).rstrip(),
               f"# why: {self.main_map.why}",
               _dump({"main_map": self.main_map.value}).rstrip()]
        out += [f"# {note}" for note in self.notes]
        out += ["# The rules its positions are judged by. A module of another game gets soundness checks only;",
                "# for a World at War module, once the unit table's factors are filled in, set",
                "#   rules: {ruleset: classic, book: untold}   (or book: eisenbach, or rules: {ruleset: waw85})",
                "rules: none", _dump({"units_file": units_file}).rstrip(), "units:"]
        groups = [g for g in self.groups if g.units]
        out.append("  # why: the unit table holds the PieceSlots of these groups:")
        out += [f"  #   {g.label} ({len(g.slots)} PieceSlots): {g.why}" for g in groups[:12]]
        if len(groups) > 12:
            out.append(f"  #   and {len(groups) - 12} more groups")
        for why, rule in self.unit_rules():
            out.append(f"  # {why}")
            out.append("  - " + _dump(rule, None).rstrip().replace("\n", "\n    "))
        out += self._markers_text()
        if self.holding:
            out.append("holding_maps:")
            for map_name, guess in self.holding.items():
                out.append(f"  # why: {guess.why}")
                out.append("  " + _dump({map_name: guess.value}).rstrip())
        if self.eliminate_to is not None:
            out.append(_dump({"eliminate": {"move_to": self.eliminate_to}}, None).rstrip())
        ignored = [g for g in self.groups if not g.units and not g.markers]
        if ignored:
            out.append("# Pieces that are not units (their BasicPiece names): not reported as unrecognised.")
            out.append("ignore:")
            for group in ignored:
                names = sorted({s.name for s in group.slots if s.name})
                if not names:
                    continue
                out.append(f"  # why: {group.label} ({len(group.slots)} PieceSlots): {group.why}")
                out.append("  - " + _dump({"name": _names_pattern(names)}, flow=True).rstrip())
        return "\n".join(out) + "\n"

    def _markers_text(self) -> list[str]:
        out: list[str] = []
        statuses = {**self.unit_markers}
        if statuses:
            out.append("unit_markers:")
            ammo = {k.split(":", 1)[1]: g for k, g in statuses.items() if k.startswith("ammo:")}
            for name, guess in statuses.items():
                if name.startswith("ammo:"):
                    continue
                out.append(f"  # why: {guess.why}")
                out.append("  " + _dump({name: guess.value}, None).rstrip())
            if ammo:
                out.append("  ammo:")
                for state, guess in ammo.items():
                    out.append(f"    # why: {guess.why}")
                    out.append("    " + _dump({state: guess.value}, None).rstrip())
        for name, guess in {**self.status_layers, **self.status_properties}.items():
            out.append(f"# {name}: {guess.why} (in the unit rules above)")
        if self.missing:
            out.append(f"# Not found in the module: {', '.join(self.missing)} -- no marker piece, Layer level or Dynamic")
            out.append("# Property is named like them. `resolve` cannot write such a result into a save (it says which")
            out.append("# and writes nothing) until the profile names what shows it: a marker piece here, a Layer level")
            out.append("# (status_layers) or a Dynamic Property value (status_properties) in the unit rules.")
        if self.hex_markers:
            out.append("hex_markers:")
            for name, guess in self.hex_markers.items():
                out.append(f"  # why: {guess.why}")
                out.append("  " + _dump({name: guess.value}, None).rstrip())
        return out


# -- writing YAML -------------------------------------------------------------------------------

def _dump(data: Any, flow: bool | None = False) -> str:
    """YAML of ``data``: block style, ``flow`` on one line, or (None) mappings of scalars on one line."""
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=10_000, default_flow_style=flow)


def _key(value: str) -> str:
    """A mapping key as YAML writes it (quoted when it has to be)."""
    return _dump({value: 0}).rsplit(":", 1)[0]


def _names_pattern(names: list[str]) -> str:
    """A regular expression matching exactly these piece names (the displayed name of a piece
    starts with its BasicPiece name unless a layer puts words before it)."""
    return "^(" + "|".join(re.escape(n) for n in names) + ")"


# -- reading the module ---------------------------------------------------------------------------

def _views(module: Module) -> list[SlotView]:
    """Every PieceSlot, then every CardSlot: the counters a deck starts with are units as much
    as the palette's (VASSAL Tour's "Airplane Reserves"), unless the deck says cards."""
    prototypes = prototype_texts(module)
    windows = {w.name for w in module.palette}
    found = []
    for slot, card in [*((s, False) for s in module.piece_slots), *((s, True) for s in module.card_slots)]:
        try:
            piece = seen(slot.piece(), prototypes)
        except WawkitError:
            continue
        path = slot.path
        if card:
            found.append(SlotView(slot, piece, (), "/".join(p for p in path[1:] if p) or slot.name))
            continue
        folders = tuple(p for p in (path[1:] if path and path[0] in windows else path) if p)
        found.append(SlotView(slot, piece, folders))
    return found


def _grid_kind(map_def: MapDef) -> tuple[int, str]:
    """How a map's grid ranks for the main map: hex over square over anything over nothing."""
    kinds = {g.kind for board in map_def.boards for g in naming_grids(board.grid)}
    if "hex" in kinds:
        return 3, "hex"
    if "square" in kinds:
        return 2, "square"
    return (1, "other") if any(b.grid is not None for b in map_def.boards) else (0, "none")


def _main_map(module: Module) -> Guess:
    maps = [m for m in module.maps if m.kind == "Map"] or list(module.maps)
    if not maps:
        return Guess("Main Map", "the module (an extension?) has no map of its own: 'Main Map' is VASSAL's default "
                                 "name for a module's main map; check it against the module this one extends")
    ranked = sorted(maps, key=lambda m: -_grid_kind(m)[0])
    best = ranked[0]
    rank, kind = _grid_kind(best)
    same = [m for m in maps if _grid_kind(m)[0] == rank]
    if kind in ("hex", "square"):
        why = (f"the only map with a {kind} grid" if len(same) == 1 else
               f"the first of {len(same)} maps with a {kind} grid ({', '.join(repr(m.name) for m in same)})")
    else:
        why = ("no map has a hex or square grid: the first map; units on it are in places, not hexes, and no "
               "board rule applies to them")
    return Guess(best.name, why)


def _groups(views: list[SlotView]) -> list[Group]:
    """PieceSlots by the prototypes they use, else by palette folder; CardSlots by deck."""
    by: dict[str, list[SlotView]] = {}
    for view in views:
        protos = view.piece.prototypes()
        label = ("prototype " + " + ".join(repr(p) for p in protos)) if protos else \
            ("palette folder " + repr(view.folders[0] if view.folders else view.where))
        if view.deck is not None:
            label = f"DrawPile {view.deck!r}" + (f" ({label})" if protos else "")
        by.setdefault(label, []).append(view)
    return [Group(label, slots, label) if slots[0].deck is None else
            Group(label, slots, slots[0].deck, tuple(slots[0].piece.prototypes())) for label, slots in by.items()]


def _words(text: str) -> str:
    """``text`` with its CamelCase and snake_case words apart ("CommandCardsOld" -> "Command Cards Old")."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])|_", " ", text)


def _matches(pattern: str, *texts: str) -> bool:
    return any(re.search(pattern, t, re.IGNORECASE) for t in texts if t)


def _not_units(text: str) -> bool:
    """Whether a group, folder, deck or piece name says it is no unit (its CamelCase words too)."""
    return _matches(NOT_UNITS, text, _words(text))


def _classify_groups(groups: list[Group], markers: set[int]) -> None:
    """Mark each group as units or not, with why."""
    for group in groups:
        slots = [s for s in group.slots if id(s) not in markers]
        names = [s.name for s in slots]
        if not slots:
            group.why = "marker pieces (see unit_markers and hex_markers)"
            group.markers = True
        elif _not_units(group.says) or any(_not_units(p) for p in group.prototypes):
            group.why = f"the name {group.label} says it holds no units"
        elif sum(_not_units(n) for n in names) > len(names) / 2:
            group.why = "most of its pieces are named like markers, cards, dice or tracks"
        elif all(s.immobile for s in slots):
            group.why = "its pieces never move (Does not stack: never move): board furniture"
        else:
            group.units = True
            group.why = "pieces players move, not named like markers"
    if not any(g.units for g in groups):
        for group in groups:
            if any(id(s) not in markers for s in group.slots):
                group.units = True
                group.why = "no group looked like units, so every piece that is not a marker is drafted as one"


def _markers(views: list[SlotView]) -> tuple[dict[str, Guess], dict[str, Guess], set[int]]:
    """Marker pieces named like statuses or hex markers (the first PieceSlot of each name wins)."""
    unit: dict[str, Guess] = {}
    hexes: dict[str, Guess] = {}
    used: set[int] = set()
    for view in views:
        name = view.name
        layers = [layer for layer in view.piece.layers() if layer.level_count >= 2]
        for status, pattern in STATUS_WORDS.items():
            if status not in unit and _matches(pattern, name):
                unit[status] = Guess({"piece": name}, f"PieceSlot {view.where!r} is named like {status}")
                used.add(id(view))
        if _matches(AMMO_WORDS, name) and not any(k.startswith("ammo:") for k in unit):
            if layers:
                layer = layers[0]
                for state, level in (("depleted_2", 1), ("depleted_1", 2)):
                    unit[f"ammo:{state}"] = Guess({"piece": name, "layer": layer.name or "", "level": level},
                                                  f"PieceSlot {view.where!r} is named like an ammo marker; level "
                                                  f"{level} of its Layer {layer.name!r} taken for {state} (check it)")
                if not layer.name:
                    for state in ("depleted_2", "depleted_1"):
                        unit.pop(f"ammo:{state}")
                    unit["ammo:depleted_1"] = Guess({"piece": name}, f"PieceSlot {view.where!r} is named like an "
                                                    "ammo marker (check which ammo state it means)")
            else:
                unit["ammo:depleted_1"] = Guess({"piece": name}, f"PieceSlot {view.where!r} is named like an ammo "
                                                "marker (check which ammo state it means)")
            used.add(id(view))
        for marker, pattern in HEX_WORDS.items():
            if marker in hexes or not _matches(pattern, name):
                continue
            used.add(id(view))
            named = [layer for layer in layers if layer.name]
            if marker == "smoke_2" and named:
                layer = named[0]
                hexes["smoke_2"] = Guess({"piece": name, "layer": layer.name, "level": 1},
                                         f"PieceSlot {view.where!r} is named like Smoke; level 1 of its Layer "
                                         f"{layer.name!r} taken for its first side (Smoke 2)")
                hexes["smoke_1"] = Guess({"piece": name, "layer": layer.name, "level": 2},
                                         "its level 2 taken for the side it turns to (Smoke 1)")
            else:
                hexes[marker] = Guess({"piece": name}, f"PieceSlot {view.where!r} is named like {marker}")
    return unit, hexes, used


def _common_suffix(texts: list[str]) -> str:
    if not texts:
        return ""
    first = texts[0]
    size = 0
    while size < len(first) and all(len(t) > size and t[-1 - size] == first[-1 - size] for t in texts):
        size += 1
    return first[len(first) - size:] if size else ""


def _reduced(units: list[SlotView]) -> Guess | None:
    """The Layer that shows the reduced side of most unit counters, if any."""
    named: Counter[tuple[str, int]] = Counter()
    unnamed: list[str] = []
    for view in units:
        for layer in view.piece.layers():
            words = [layer.name, *layer.level_names]
            if layer.name and _matches(REDUCED_WORDS, *words):
                named[(layer.name, 2 if layer.level_count >= 2 else 1)] += 1
            elif not layer.name and layer.images and layer.images[-1]:
                unnamed.append(layer.images[-1])
    if named:
        (name, level), count = named.most_common(1)[0]
        return Guess({"layer": name, "level": level},
                     f"{count} of {len(units)} unit counters have the Layer {name!r}, named like a reduced side; "
                     f"level {level} taken for the reduced side")
    suffix = _common_suffix(unnamed)
    bases = [getattr(v.piece.inner, "image", "") or "" for v in units]
    if len(unnamed) >= max(2, len(units) // 4) and len(suffix) >= 4 and _common_suffix(bases) != suffix:
        return Guess({"image": re.escape(suffix) + "$"},
                     f"{len(unnamed)} of {len(units)} unit counters have an unnamed Layer whose image ends "
                     f"{suffix!r} (a back face): shown, it is the reduced side")
    return None


def _shows_reduced(view: SlotView, reduced: Mapping[str, Any]) -> bool:
    if "layer" in reduced:
        return view.layer(reduced["layer"]) is not None
    pattern = re.compile(reduced["image"])
    return any(pattern.search(image) for layer in view.piece.layers() for image in layer.images if image)


def _status_layers(units: list[SlotView], markers: Mapping[str, Guess]) -> dict[str, Guess]:
    """Layer levels of the unit counters named like a status no marker piece shows."""
    found: dict[str, Guess] = {}
    for view in units:
        for layer in view.piece.layers():
            if not layer.name:
                continue
            for status, pattern in STATUS_WORDS.items():
                if status in markers or status in found:
                    continue
                names = layer.level_names
                level = next((i + 1 for i, n in enumerate(names) if _matches(pattern, n)), None)
                if level is None and _matches(pattern, layer.name):
                    level = 1
                if level is not None:
                    found[status] = Guess({"layer": layer.name, "level": level},
                                          f"level {level} of the unit counters' Layer {layer.name!r} is named like "
                                          f"{status}")
    return found


_ON = ("true", "yes", "1", "on")
_OFF = {"true": "false", "yes": "no", "1": "0", "on": "off"}


def _status_properties(units: list[SlotView], shown: Iterable[str]) -> dict[str, Guess]:
    """Dynamic Properties of the unit counters named like a status nothing else shows."""
    found: dict[str, Guess] = {}
    taken = set(shown)
    for view in units:
        for trait in view.piece.decorators:
            if not isinstance(trait, DynamicProperty) or not trait.key:
                continue
            for status, pattern in STATUS_WORDS.items():
                if status in taken or status in found or not _matches(pattern, trait.key):
                    continue
                value = (trait.state_text() or "").strip().lower()
                on = value if value in _ON else "true"
                off = _OFF.get(on, "false") if value in _ON else (value or "false")
                if off == on:
                    off = "false"
                found[status] = Guess({"property": trait.key, "value": on, "off": off},
                                      f"the unit counters' Dynamic Property {trait.key!r} is named like {status}: "
                                      f"{on!r} taken for on, {off!r} for off")
    return found


def _values(units: list[SlotView]) -> tuple[dict[str, Guess], dict[str, int], list[str]]:
    """Side, nation, formation: a property of the unit pieces named so, else a palette folder level."""
    values: dict[str, Guess] = {}
    notes: list[str] = []
    if not units:
        return values, {}, notes
    keys: Counter[str] = Counter()
    for view in units:
        keys.update(k for k, v in view.properties().items() if v)
    for role, pattern in PROPERTY_ROLES.items():
        key = next((k for k, n in keys.most_common() if re.search(pattern, k, re.IGNORECASE)
                    and n >= 0.8 * len(units)), None)
        if key is not None and key not in [g.value["property"] for g in values.values()]:
            seen_values = sorted({v.properties().get(key, "") for v in units} - {""})
            values[role] = Guess({"property": key}, f"{keys[key]} of {len(units)} unit counters have the property "
                                 f"{key!r} ({', '.join(seen_values[:6])}{', ...' if len(seen_values) > 6 else ''})")
    roles: dict[str, int] = {}
    depth_values = []
    depth = 0
    while True:
        here = {v.folders[depth] for v in units if depth < len(v.folders)}
        if not here:
            break
        depth_values.append((depth, here))
        depth += 1
    # A level of 2 or 3 folders reads as the sides, up to a dozen as nations, more as formations.
    for depth, here in depth_values:
        if len(here) < 2:
            continue
        role = "side" if len(here) <= 3 else "nation" if len(here) <= 12 else "formation"
        later = [r for r in ("side", "nation", "formation")[("side", "nation", "formation").index(role):]
                 if r not in values and r not in roles]
        if not later:
            continue
        roles[later[0]] = depth
        notes.append(f"{later[0]} of each unit type: palette folder level {depth + 1} "
                     f"({', '.join(sorted(here)[:5])}{', ...' if len(here) > 5 else ''}), written in the unit table")
    return values, roles, notes


def _holding(module: Module, main_map: str) -> tuple[dict[str, Guess], str | None]:
    found: dict[str, Guess] = {}
    taken: set[str] = set()
    eliminate_to = None
    for map_def in module.maps:
        if map_def.name == main_map:
            continue
        if eliminate_to is None and re.search(ELIMINATED_MAP, map_def.name, re.IGNORECASE):
            eliminate_to = map_def.name
            found[map_def.name] = Guess("eliminated", "named like the box of eliminated units (eliminate.move_to "
                                                      "below sends eliminated counters there)")
            taken.add("eliminated")
            continue
        slug = re.sub(r"[^a-z]+", "_", map_def.name.lower()).strip("_") or "held"
        if not slug[0].isalpha():
            slug = "map_" + slug
        value, n = slug, 1
        while value in taken:
            n += 1
            value = f"{slug}_{'i' * n}" if n <= 3 else f"{slug}_x"
        taken.add(value)
        kind = {"PlayerHand": "a player's hand", "PrivateMap": "a private window", "WidgetMap": "a display"}.get(
            map_def.kind, "a map")
        found[map_def.name] = Guess(value, f"{kind} beside the main map: a unit there is in a place, not a hex")
    return found, eliminate_to


def draft(module: Module) -> Draft:
    """Guess a profile of ``module`` (see the module docstring)."""
    views = _views(module)
    main = _main_map(module)
    unit_markers, hex_markers, marker_ids = _markers(views)
    groups = _groups(views)
    _classify_groups(groups, marker_ids)
    units = [s for g in groups if g.units for s in g.slots if id(s) not in marker_ids]
    reduced = _reduced(units)
    layers = _status_layers(units, unit_markers)
    properties = _status_properties(units, [*unit_markers, *layers])
    values, roles, notes = _values(units)
    holding, eliminate_to = _holding(module, main.value)
    shown = {*unit_markers, *layers, *properties}
    missing = [s for s in STATUS_WORDS if s not in shown]
    if not any(k.startswith("ammo:") for k in unit_markers):
        missing.append("ammo states")
    if main.value in {m.name for m in module.maps} and any(unnumbered(b.grid) for b in module.map(main.value).boards):
        notes.append(f"hex names on {main.value!r}: {ASSIGNED_NOTE}")
    for group in groups:
        group.slots = [s for s in group.slots if id(s) not in marker_ids] or group.slots
    return Draft(module, main, groups, unit_markers, hex_markers, layers, properties, values, roles, reduced,
                 holding, eliminate_to, missing, notes)


@dataclass(frozen=True)
class Written:
    """The files ``profile init`` wrote, and the draft behind them."""

    profile: str
    units: str
    draft: Draft


def write_draft(module: Module, profile_path: str | os.PathLike[str], units_path: str | os.PathLike[str] | None = None,
                *, overwrite: bool = False) -> Written:
    """Draft a profile of ``module`` and write it with its unit table (beside it by default),
    both checked against their schemas first and written atomically."""
    from converter.vassal.container import check_target, write_atomic
    profile_path = str(profile_path)
    if units_path is None:
        stem, _ = os.path.splitext(profile_path)
        units_path = f"{stem}.units.yaml"
    units_path = str(units_path)
    for target in (profile_path, units_path):
        check_target(target, overwrite=overwrite)
    found = draft(module)
    relative = os.path.relpath(units_path, os.path.dirname(os.path.abspath(profile_path)) or ".")
    profile_text, table_text = found.profile_text(relative), found.table_text()
    Profile.from_document(yaml.safe_load(profile_text), file=profile_path)        # the draft is valid as written
    table_from_document(yaml.safe_load(table_text), file=units_path)
    write_atomic(units_path, table_text.encode("utf-8"), overwrite=overwrite)
    write_atomic(profile_path, profile_text.encode("utf-8"), overwrite=overwrite)
    return Written(profile_path, units_path, found)


__all__ = ["Draft", "Group", "Guess", "Written", "draft", "write_draft"]
