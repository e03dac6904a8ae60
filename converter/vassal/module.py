"""A typed, read-only view of a VASSAL module (.vmod), extension (.vmdx) or bare buildFile.

The buildFile is a tree of Java component classes. This view names the parts a
referee needs -- maps with their boards and grids, the piece palette down to each
PieceSlot, prototypes, predefined setups, dice buttons, global properties -- and
keeps the lxml tree itself, so every element the view does not type (plugins,
custom grids, newer components) stays available untouched and is listed in
:attr:`Module.unknown_components` instead of causing an error.

Pieces are decoded lazily: a PieceSlot holds its ``+/null/<type>/<state>`` text and
hands it to :func:`converter.vassal.pieces.decode_piece` only when asked, so a
module with thousands of slots opens in the time lxml needs to parse it.
"""
from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any, Iterable, Iterator

from converter.errors import ContainerError, GeometryError, ModuleError, WawkitError
from converter.files import head, read_bounded
from converter.vassal.buildfile import (BUILDFILE_ENTRIES, DEFAULT_MAX_BUILDFILE_SIZE, EXTENSION_ROOT,
                                        ModuleArchive, parse_buildfile)
from converter.vassal.grids import grid_from_element
from converter.vassal.grids.attributes import java_int, where
from converter.vassal.grids.placement import Board, Deck, MapGeometry, PlacedBoard, as_layout
from converter.vassal.grids.zoned import Grid
from converter.vassal.images import HEADER_BYTES, image_size
from converter.vassal.limits import DEFAULT_LIMITS, Limits
from converter.vassal.pieces import Piece, decode_piece
from converter.vassal.sequence import split, split_raw, unescape

V = "VASSAL.build."
MAP_TAGS = (V + "module.Map", V + "module.PrivateMap", V + "module.PlayerHand", V + "widget.WidgetMap")
BOARD_PICKER = V + "module.map.BoardPicker"
BOARD = V + "module.map.boardPicker.Board"
PIECE_WINDOW = V + "module.PieceWindow"
DRAW_PILE = V + "module.map.DrawPile"
SETUP_STACK = V + "module.map.SetupStack"
PIECE_SLOT = V + "widget.PieceSlot"
CARD_SLOT = V + "widget.CardSlot"
WIDGETS = {V + "widget.TabWidget": "tab", V + "widget.PanelWidget": "panel", V + "widget.ListWidget": "list",
           V + "widget.BoxWidget": "box"}
PROTOTYPE = V + "module.PrototypeDefinition"
PREDEFINED_SETUP = V + "module.PredefinedSetup"
DICE_BUTTONS = (V + "module.DiceButton", V + "module.SpecialDiceButton")
GLOBAL_PROPERTY = V + "module.properties.GlobalProperty"
EXTENSION_ELEMENT = V + "module.ExtensionElement"
ZONE = V + "module.map.boardPicker.board.mapgrid.Zone"



def _bool(value: str | None, default: bool = False) -> bool:
    return default if value is None else value.lower() == "true"


def _text(element: Any) -> str:
    """``Builder.getText``: the element's own text nodes joined and trimmed."""
    if len(element) == 0:
        return (element.text or "").strip()
    return "".join(element.xpath("text()")).strip()


#: The decimal texts of 0-4095 and their values: ``java_int`` of a PieceSlot's width or height
#: without the checks a longer or signed text needs.
_SMALL_INTS = {str(number): number for number in range(4096)}

_new = object.__new__


def _add_piece_parts(text: str) -> tuple[str, str]:
    """(type, state) of ``+/null/<type>/<state>`` as stored in PieceSlot and PrototypeDefinition text.

    The fields are cut as :func:`split` cuts them, but only the prefix, the type and the
    state (fields 0, 2 and 3) are unescaped: a palette text is long, and the other fields
    are never read (a fifth and later ones are ignored, as VASSAL does).
    """
    # Without a backslash before any "/", every "/" separates (split_raw would glue nothing),
    # and a field is its own value unless it is quoted.
    escaped = "\\/" in text
    parts = split_raw(text, "/") if escaped else text.split("/")
    if len(parts) < 3 or (parts[0] != "+" and unescape(parts[0], "/") != "+"):
        raise ModuleError(f"piece text {text[:60]!r} is not an AddPiece command ('+/id/type/state')")
    type_raw = parts[2]
    state_raw = parts[3] if len(parts) > 3 else ""
    if type_raw[:1] == "'" or (escaped and "/" in type_raw):
        type_raw = unescape(type_raw, "/")
    if state_raw[:1] == "'" or (escaped and "/" in state_raw):
        state_raw = unescape(state_raw, "/")
    return type_raw, state_raw


@dataclass(slots=True)
class PieceDefinition:
    """Common part of PieceSlots and PrototypeDefinitions: the encoded piece, decoded on demand."""

    text: str
    element: Any = field(repr=False, compare=False)
    file: str | None = field(default=None, repr=False, compare=False)
    _split: tuple[str, str] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def _parts(self) -> tuple[str, str]:
        """(type, state), split on first use (a plain attribute: cheaper than ``cached_property``)."""
        if self._split is None:
            try:
                self._split = _add_piece_parts(self.text)
            except ModuleError as error:
                raise ModuleError(f"{where(self.element)}: {error.message}", file=self.file) from None
        return self._split

    @property
    def type_text(self) -> str:
        return self._parts[0]

    @property
    def state_text(self) -> str:
        return self._parts[1]

    def piece(self) -> Piece:
        """The decoded piece (its traits, outermost first)."""
        try:
            type_text, state_text = self._split or self._parts
            return decode_piece(type_text, state_text)
        except WawkitError as error:
            raise error.located(file=self.file, piece=getattr(self, "gpid", None) or getattr(self, "name", None))


@dataclass(slots=True)
class PieceSlot(PieceDefinition):
    """A ``PieceSlot`` (or ``CardSlot``): one piece of the palette, a deck or an at-start stack.

    The sizes are read (and checked) with the slot; its name and gpid are read from the
    element when asked: a large module has thousands of slots, and most readers want only
    their pieces.
    """

    width: int = 0
    height: int = 0

    @property
    def entry_name(self) -> str | None:
        """The ``entryName`` attribute (``None`` when the slot has none)."""
        return self.element.get("entryName")

    @property
    def gpid(self) -> str:
        """The ``gpid`` attribute: the id VASSAL gives every piece made from this slot."""
        return self.element.get("gpid", "")

    @property
    def name(self) -> str:
        return self.element.get("entryName") or ""

    @property
    def path(self) -> tuple[str, ...]:
        """Names of the components holding this slot, outermost first (window, tabs, panels...)."""
        ancestors = list(self.element.iterancestors())[:-1]
        return tuple(_configure_name(a) for a in reversed(ancestors))


@dataclass(slots=True)
class PrototypeDefinition(PieceDefinition):
    """A ``PrototypeDefinition``: traits shared by the pieces that use ``prototype;<name>``."""

    name: str = ""
    description: str = ""


@dataclass
class PaletteNode:
    """A PieceWindow or one of its widgets (tab, panel, list, box) with its children in order."""

    kind: str
    name: str
    children: list["PaletteNode | PieceSlot"] = field(default_factory=list)

    def slots(self) -> Iterator[PieceSlot]:
        for child in self.children:
            if isinstance(child, PieceSlot):
                yield child
            else:
                yield from child.slots()


@dataclass(frozen=True)
class PredefinedSetup:
    """A ``PredefinedSetup`` menu entry; ``entry`` is the zip entry of its stored save, if any."""

    name: str
    entry: str | None
    use_file: bool
    is_menu: bool
    stored: bool
    description: str = ""


@dataclass(frozen=True)
class DiceButton:
    """A ``DiceButton``/``SpecialDiceButton``: what it rolls and how it reports."""

    name: str
    n_dice: int
    n_sides: int
    plus: int
    add_to_total: int
    report_format: str
    attributes: dict[str, str] = field(compare=False)


@dataclass(frozen=True)
class GlobalPropertyDef:
    """A ``GlobalProperty`` and the container id its values are kept under (Module, map, map:zone)."""

    name: str
    initial_value: str
    container: str
    description: str = ""
    is_numeric: bool = False
    min: str = ""
    max: str = ""
    wrap: bool = False


@dataclass
class AtStartStack:
    """A ``SetupStack``: pieces a new game starts with, at a grid location or at x, y of a board."""

    name: str
    owning_board: str | None
    use_grid_location: bool
    location: str
    x: int
    y: int
    slots: list[PieceSlot] = field(default_factory=list)


@dataclass
class MapDef:
    """A ``Map`` (or PrivateMap, PlayerHand, WidgetMap): its boards and default layout."""

    name: str
    id: str
    kind: str
    edge: tuple[int, int]
    boards: list[Board]
    default_layout: list[PlacedBoard]
    element: Any = field(repr=False)
    decks: list[Deck] = field(default_factory=list)
    at_start_stacks: list[AtStartStack] = field(default_factory=list)

    def board(self, name: str) -> Board:
        for board in self.boards:
            if board.name == name:
                return board
        raise GeometryError(f"map {self.name!r} has no board {name!r}")

    def geometry(self, layout: Iterable[PlacedBoard | tuple[str, bool, int, int]] | None = None, *,
                 assign_names: bool = False) -> MapGeometry:
        """Boards placed as in ``layout`` (from a save), else the map's default layout.

        ``assign_names`` names the cells of grids without numbering as wawkit does
        (:mod:`converter.vassal.grids.assigned`); by default names are VASSAL's own."""
        chosen = self.default_layout if layout is None else as_layout(layout)
        boards = self.boards
        if assign_names:
            from converter.vassal.grids.assigned import with_assigned_names
            boards = [replace(board, grid=with_assigned_names(board.grid)) for board in boards]
        return MapGeometry(self.name, boards, chosen, self.edge, self.decks)

    def at_start_position(self, stack: AtStartStack,
                          layout: Iterable[PlacedBoard | tuple[str, bool, int, int]] | None = None) -> tuple[int, int]:
        """Map pixel where an at-start stack's pieces start: its grid location on its board, or
        its x, y on its board (mirrored on a reversed board), or x, y past the map edge."""
        geometry = self.geometry(layout)
        if stack.use_grid_location and stack.location:
            return geometry.locate(stack.location, board=stack.owning_board)
        owner = next((p for p in geometry.placements if p.board.name == stack.owning_board), None)
        if owner is None:
            return stack.x + self.edge[0], stack.y + self.edge[1]
        return owner.to_map(stack.x, stack.y)


@dataclass(frozen=True)
class UnknownComponent:
    """An element the reader does not type, kept in the tree: its class and where it sits."""

    tag: str
    path: str
    line: int | None


def _configure_name(element: Any) -> str:
    for key in ("mapName", "name", "entryName"):
        if element.get(key) is not None:
            return element.get(key)
    return ""


class Module:
    """A module, extension or bare buildFile: the lxml tree plus typed views of its parts."""

    def __init__(self, root: Any, *, file: str | None = None, entry: str | None = None,
                 archive: ModuleArchive | None = None) -> None:
        self.root = root
        self.file = file
        self.entry = entry
        self.archive = archive
        self.unresolved_extension_elements: list[str] = []
        self.notes: list[str] = []
        """What could not be read but leaves the module usable (a board image whose size is unknown)."""
        self.image_problems: dict[str, str] = {}
        """Board name -> why its image gave no size."""
        self._sha256: str | None = None

    def sha256(self) -> str | None:
        """sha256 of the file the module was read from (the bytes it was read from), if known."""
        if self.archive is not None:
            return self.archive.sha256()
        return self._sha256

    # -- reading -----------------------------------------------------------------
    @classmethod
    def read(cls, path: str | os.PathLike[str], *, max_buildfile_size: int = DEFAULT_MAX_BUILDFILE_SIZE,
             limits: Limits = DEFAULT_LIMITS) -> "Module":
        """Read a .vmod/.vmdx (zip) or a bare buildFile / buildFile.xml."""
        if not head(path, 2).startswith(b"PK"):  # a bare buildFile (or not a module at all)
            snapshot = read_bounded(path, max_buildfile_size, error=ModuleError)
            module = cls(parse_buildfile(snapshot.data, file=str(path), max_size=max_buildfile_size, limits=limits),
                         file=str(path))
            module._sha256 = snapshot.sha256
            return module
        return cls._from_archive(ModuleArchive(path, str(path), limits), max_buildfile_size)

    @classmethod
    def from_bytes(cls, data: bytes, *, file: str | None = None,
                   max_buildfile_size: int = DEFAULT_MAX_BUILDFILE_SIZE, limits: Limits = DEFAULT_LIMITS) -> "Module":
        if data[:4] == b"PK\x03\x04":
            return cls._from_archive(ModuleArchive(data, file, limits), max_buildfile_size)
        return cls(parse_buildfile(data, file=file, max_size=max_buildfile_size, limits=limits), file=file)

    @classmethod
    def _from_archive(cls, archive: ModuleArchive, max_size: int) -> "Module":
        entry = next((name for name in BUILDFILE_ENTRIES if name in archive.names), None)
        if entry is None:
            kind = " (has savedGame: a save or log; 'wawkit inspect' reads it)" if "savedGame" in archive.names else ""
            raise ContainerError(f"no buildFile.xml or buildFile entry; not a VASSAL module{kind}", file=archive.file)
        data = archive.read(entry, max_size=max_size)
        return cls(parse_buildfile(data, file=archive.file, entry=entry, max_size=max_size, limits=archive.limits),
                   file=archive.file, entry=entry, archive=archive)

    # -- identity ------------------------------------------------------------------
    @property
    def is_extension(self) -> bool:
        return self.root.tag == EXTENSION_ROOT

    @property
    def name(self) -> str:
        return self.root.get("name") or (self.file and Path(self.file).stem) or ""

    @property
    def version(self) -> str:
        return self.root.get("version", "")

    @property
    def vassal_version(self) -> str:
        return self.root.get("VassalVersion") or self.root.get("vassalVersion") or ""

    @property
    def description(self) -> str:
        return self.root.get("description", "")

    # -- maps and boards -------------------------------------------------------------
    @cached_property
    def maps(self) -> list[MapDef]:
        found = []
        for index, element in enumerate(e for e in self.root.iter() if e.tag in MAP_TAGS):
            found.append(self._map(element, index))
        return found

    def map(self, name: str) -> MapDef:
        """A map by its name or by its ``MapN`` id, as ``Map.getMapById`` matches either."""
        for index, candidate in enumerate(self.maps):
            if name in (candidate.name, candidate.id, f"Map{index}"):
                return candidate
        known = ", ".join(m.name or m.id for m in self.maps) or "none"
        raise GeometryError(f"no map {name!r} in module {self.name!r} (maps: {known})", file=self.file)

    def _edge(self, element: Any) -> tuple[int, int]:
        if element.get("edgeWidth") is None and element.get("edge"):
            parts = element.get("edge").split(",")
            return (java_int(parts[0], "edge", element, self.file),
                    java_int(parts[-1], "edge", element, self.file))
        return (java_int(element.get("edgeWidth", "0"), "edgeWidth", element, self.file),
                java_int(element.get("edgeHeight", "0"), "edgeHeight", element, self.file))

    def _map(self, element: Any, index: int) -> MapDef:
        name = element.get("mapName", "")
        boards: list[Board] = []
        picker = next((c for c in element if c.tag == BOARD_PICKER), None)
        setup_text = None
        if picker is not None:
            for child in picker:
                if child.tag == BOARD:
                    boards.append(self._board(child))
                elif child.tag == "setup":
                    setup_text = _text(child)
        layout: list[PlacedBoard] = []
        if setup_text:
            from converter.vassal.grids.placement import parse_board_picker
            try:
                layout = parse_board_picker(setup_text)[1]
            except GeometryError as error:
                raise ModuleError(f"{where(picker)}: setup {error.message}", file=self.file) from None
        elif len(boards) == 1 and not boards[0].reversible:
            layout = [PlacedBoard(boards[0].name)]  # BoardPicker.getDefaultSetup
        decks = [Deck(d.get("name", ""), java_int(d.get("x", "0"), "x", d, self.file),
                      java_int(d.get("y", "0"), "y", d, self.file), d.get("owningBoard") or None)
                 for d in element.iter(DRAW_PILE)]
        stacks = [AtStartStack(s.get("name", ""), s.get("owningBoard") or None, _bool(s.get("useGridLocation")),
                               s.get("location", ""), java_int(s.get("x", "0"), "x", s, self.file),
                               java_int(s.get("y", "0"), "y", s, self.file),
                               [self._slot(c) for c in s if c.tag == PIECE_SLOT])
                  for s in element.iter(SETUP_STACK)]
        return MapDef(name, name or f"Map{index}", element.tag.rsplit(".", 1)[-1], self._edge(element), boards,
                      layout, element, decks, stacks)

    def _board(self, element: Any) -> Board:
        image = element.get("image") or None
        size = None
        if image and self.archive is not None:
            entry = self.archive.image_entry(image)
            if entry is not None:
                try:
                    size = image_size(self.archive.read_head(entry, HEADER_BYTES), file=self.file, entry=entry)
                except WawkitError as error:  # the module stays usable; only this board's size is unknown
                    self.image_problems[element.get("name", "")] = f"{entry}: {error.message}"
                    self.notes.append(f"board {element.get('name', '')!r}: {entry}: {error.message}; "
                                      "its size is unknown")
        elif not image and element.get("width") and element.get("height"):
            size = (java_int(element.get("width"), "width", element, self.file),
                    java_int(element.get("height"), "height", element, self.file))
        grid_element = next((c for c in element if isinstance(c.tag, str) and c.tag.endswith("Grid")), None)
        grid = None if grid_element is None else grid_from_element(grid_element, self.file)
        return Board(element.get("name", ""), image, _bool(element.get("reversible")), size, grid,
                     element.get("color"))

    def grids(self) -> Iterator[tuple[MapDef, Board, Grid]]:
        """Every (map, board, grid) whose grid wawkit can name locations with."""
        for map_def in self.maps:
            for board in map_def.boards:
                if board.grid is not None:
                    yield map_def, board, board.grid

    # -- pieces ------------------------------------------------------------------------
    def _slot(self, element: Any) -> PieceSlot:
        get, file = element.get, self.file
        width_text, height_text = get("width", "0"), get("height", "0")
        # A palette's sizes are a few small numbers, looked up; anything else is checked in full.
        width = _SMALL_INTS.get(width_text)
        if width is None:
            width = java_int(width_text, "width", element, file)
        height = _SMALL_INTS.get(height_text)
        if height is None:
            height = java_int(height_text, "height", element, file)
        # The dataclass's own __init__ sets just these fields; a large module has thousands of
        # slots, and a class call with a Python __init__ costs as much again as the stores.
        slot = _new(PieceSlot)
        slot.text = (element.text or "").strip() if len(element) == 0 else _text(element)  # _text's common case
        slot.element, slot.file, slot.width, slot.height, slot._split = element, file, width, height, None
        return slot

    def _slots(self, tag: str) -> list[PieceSlot]:
        slot = self._slot
        return [slot(element) for element in self.root.iter(tag)]

    @cached_property
    def piece_slots(self) -> list[PieceSlot]:
        """Every PieceSlot of the module in document order (palette and at-start stacks)."""
        return self._slots(PIECE_SLOT)

    @cached_property
    def card_slots(self) -> list[PieceSlot]:
        """Every CardSlot (the initial cards of decks), in document order."""
        return self._slots(CARD_SLOT)

    @cached_property
    def palette(self) -> list[PaletteNode]:
        """The PieceWindows, each a tree of widgets down to its PieceSlots."""
        def build(element: Any, kind: str) -> PaletteNode:
            node = PaletteNode(kind, _configure_name(element))
            for child in element:
                if child.tag in (PIECE_SLOT, CARD_SLOT):
                    node.children.append(self._slot(child))
                elif child.tag in WIDGETS:
                    node.children.append(build(child, WIDGETS[child.tag]))
            return node
        return [build(e, "window") for e in self.root.iter(PIECE_WINDOW)]

    @cached_property
    def prototypes(self) -> dict[str, PrototypeDefinition]:
        """PrototypeDefinitions by name (a later definition of the same name wins, as in VASSAL)."""
        found = {}
        for element in self.root.iter(PROTOTYPE):
            name = element.get("name", "")
            found[name] = PrototypeDefinition(_text(element), element, self.file, name=name,
                                              description=element.get("description", ""))
        return found

    def prototype_types(self) -> dict[str, str]:
        """Prototype name -> the type text of its definition, for ``Piece.expand``."""
        return {name: definition.type_text for name, definition in self.prototypes.items()}

    def expand(self, piece: Piece) -> Piece:
        """A piece with every UsePrototype trait replaced by the prototype's traits."""
        return piece.expand(self.prototype_types())

    # -- setups, dice, properties ------------------------------------------------------
    @cached_property
    def setups(self) -> list[PredefinedSetup]:
        names = set(self.archive.names) if self.archive is not None else set()
        found = []
        for element in self.root.iter(PREDEFINED_SETUP):
            entry = element.get("file") or None
            use_file = _bool(element.get("useFile"), True)
            found.append(PredefinedSetup(element.get("name", ""), entry, use_file, _bool(element.get("isMenu")),
                                         entry is not None and entry in names, element.get("description", "")))
        return found

    def stored_saves(self) -> list[tuple[str, str]]:
        """(setup name, zip entry) of every predefined setup whose save is stored in the module."""
        return [(s.name, s.entry) for s in self.setups if s.stored and s.entry is not None and not s.is_menu]

    def read_setup(self, name: str) -> bytes:
        """The bytes of a stored predefined setup save (a zip holding ``savedGame``)."""
        for setup_name, entry in self.stored_saves():
            if setup_name == name and self.archive is not None:
                return self.archive.read(entry)
        raise ModuleError(f"no stored predefined setup {name!r}", file=self.file)

    @cached_property
    def dice(self) -> list[DiceButton]:
        found = []
        for element in self.root.iter(*DICE_BUTTONS):
            attrib = dict(element.attrib)

            def number(key: str, default: str) -> int:
                return java_int(attrib.get(key) or default, key, element, self.file)
            found.append(DiceButton(attrib.get("name", ""), number("nDice", "2"), number("nSides", "6"),
                                    number("plus", "0"), number("addToTotal", "0"),
                                    attrib.get("reportFormat", "** $name$ = $result$ *** &lt;$PlayerName$&gt;"),
                                    attrib))
        return found

    @cached_property
    def global_properties(self) -> list[GlobalPropertyDef]:
        found = []
        for element in self.root.iter(GLOBAL_PROPERTY):
            container = "Module"
            for ancestor in element.iterancestors():
                if ancestor.tag == ZONE:
                    owner = next((a for a in ancestor.iterancestors() if a.tag in MAP_TAGS), None)
                    container = f"{owner.get('mapName', '') if owner is not None else ''}:{ancestor.get('name', '')}"
                    break
                if ancestor.tag in MAP_TAGS:
                    container = ancestor.get("mapName", "")
                    break
            attrib = element.attrib
            found.append(GlobalPropertyDef(attrib.get("name", ""), attrib.get("initialValue", ""), container,
                                           attrib.get("description", ""), _bool(attrib.get("isNumeric")),
                                           attrib.get("min", ""), attrib.get("max", ""), _bool(attrib.get("wrap"))))
        return found

    # -- unknown components ------------------------------------------------------------
    @cached_property
    def unknown_components(self) -> list[UnknownComponent]:
        """Component classes from outside VASSAL (module plugins, custom grids), kept in the tree as they are."""
        found = []
        for element in self.root.iter():
            tag = element.tag
            if not isinstance(tag, str) or "." not in tag or tag.startswith("VASSAL."):
                continue
            path = "/".join(a.tag.rsplit(".", 1)[-1] for a in reversed(list(element.iterancestors())))
            found.append(UnknownComponent(tag, path, element.sourceline))
        return found

    def grid_counts(self) -> dict[str, int]:
        """How many grids of each kind the boards hold, zone and background grids included."""
        counts: dict[str, int] = {}

        def visit(grid: Any) -> None:
            if grid is None:
                return
            counts[grid.kind] = counts.get(grid.kind, 0) + 1
            if grid.kind == "zoned":
                visit(grid.background)
                for zone in grid.zones:
                    visit(zone.grid)
        for map_def in self.maps:
            for board in map_def.boards:
                visit(board.grid)
        return counts

    # -- extensions --------------------------------------------------------------------
    def merge(self, extension: "Module") -> "Module":
        """A new Module: this module with every ExtensionElement of ``extension`` grafted at its target.

        Targets that do not resolve are listed in ``unresolved_extension_elements``
        (VASSAL reports them and carries on).
        """
        if not extension.is_extension:
            raise ModuleError(f"{extension.name!r} is not an extension (root {extension.root.tag})",
                              file=extension.file)
        root = copy.deepcopy(self.root)
        merged = Module(root, file=self.file, entry=self.entry, archive=self.archive)
        for element in extension.root.iter(EXTENSION_ELEMENT):
            target = element.get("target", "")
            parent = _resolve_target(root, target)
            if parent is None:
                merged.unresolved_extension_elements.append(target)
                continue
            for child in element:
                if isinstance(child.tag, str):
                    parent.append(copy.deepcopy(child))
        return merged


def _resolve_target(root: Any, target: str) -> Any | None:
    """Follow a ComponentPathBuilder path (``Class:name/Class:name``) from the module root."""
    node = root
    for segment in split(target, "/") if target else []:
        parts = split(segment, ":")
        tag, name = parts[0], (parts[1] if len(parts) > 1 else "")
        node = next((c for c in node if c.tag == tag and (not name or _configure_name(c) == name)), None)
        if node is None:
            return None
    return node


def read_module(path: str | os.PathLike[str], *, extensions: Iterable[str | os.PathLike[str]] = (),
                max_buildfile_size: int = DEFAULT_MAX_BUILDFILE_SIZE) -> Module:
    """Read a module and merge the given extensions onto it, in order."""
    module = Module.read(path, max_buildfile_size=max_buildfile_size)
    for extension in extensions:
        module = module.merge(Module.read(extension, max_buildfile_size=max_buildfile_size))
    return module


def location_of(module: Module, map_name: str, x: int, y: int,
                board_layout: Iterable[PlacedBoard | tuple[str, bool, int, int]] | None = None) -> str:
    """The location name VASSAL reports for pixel (x, y) of a map ("offboard" off every named grid).

    ``board_layout`` is the map's layout from a save -- (board name, reversed, col, row)
    per board -- or None for the map's default layout.
    """
    name = module.map(map_name).geometry(board_layout).location_name(x, y)
    return OFFBOARD if name is None else name


#: What VASSAL's chat reports for a point on no board or on a board without numbering.
OFFBOARD = "offboard"
