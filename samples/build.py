"""Build the sample module ``samples/waw-sample.vmod`` from ``samples/terrain.yaml``.

The sample is shaped like the World at War VASSAL module: a hex main map with
letter-number hex names, side maps named Destroyed and Combat, units whose reduced
side is a Layer (``emb2``) level, and markers (Disrupted, Ops Complete, Wreck,
Smoke...) as separate pieces. Everything is drawn here with Pillow, so the module is
the project's own and can be rebuilt byte for byte::

    .venv/bin/python samples/build.py

The output is deterministic: fixed zip timestamps, fixed image bytes.
"""
from __future__ import annotations

import io
import math
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import yaml
from lxml import etree
from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

from converter.vassal.sequence import join  # noqa: E402

MODULE_NAME = "World at War Sample"
MODULE_VERSION = "1.0"
VASSAL_VERSION = "3.7.9"
OUTPUT = ROOT / "waw-sample.vmod"

# HexGrid of the main board (VASSAL sideways=false: vertical columns, odd columns
# half a hex lower). dx is not sqrt(3)/2*dy on purpose: real boards are rarely regular.
COLUMNS, ROWS = 14, 10
DX, DY, X0, Y0 = 56.0, 64.0, 40, 40
BOARD_W = int(X0 + (COLUMNS - 1) * DX + 40)
BOARD_H = int(Y0 + (ROWS - 1) * DY + DY / 2 + 40)
COUNTER = 48
FIXED_TIME = (2026, 1, 1, 0, 0, 0)

TERRAIN_COLOURS = {
    "clear": (222, 220, 170), "woods": (74, 128, 62), "city": (150, 150, 150),
    "rough": (176, 150, 110), "hill": (196, 168, 104),
}
SIDE_COLOURS = {"NATO": ((150, 182, 214), (205, 222, 238)),
                "Warsaw Pact": ((214, 150, 140), (238, 208, 200))}


@dataclass(frozen=True)
class UnitSlot:
    """One unit counter in the palette: both sides drawn, a Step layer to flip it."""

    key: str          # the unit table's key, also the Marker "UnitType" value
    name: str         # BasicPiece name, as on the counter
    side: str
    nation: str
    formation: str
    symbol: str       # armor, mech, infantry, recon, hq, helicopter
    front: str        # values printed on the full-strength side
    back: str         # values printed on the reduced side


UNITS = [
    UnitSlot("leopard-c1", "Leopard C1", "NATO", "Canada", "4 CMBG", "armor", "4-4 3", "2-4 3"),
    UnitSlot("m1-abrams", "M1 Abrams", "NATO", "US", "2/11 ACR", "armor", "6-4 4", "3-4 4"),
    UnitSlot("m113", "M113", "NATO", "US", "2/11 ACR", "mech", "1-5 1", "1-6 1"),
    UnitSlot("us-infantry", "US Infantry", "NATO", "US", "2/11 ACR", "infantry", "3-4 0", "2-4 0"),
    UnitSlot("tow-jeep", "TOW Jeep", "NATO", "US", "2/11 ACR", "recon", "4-4 0", "2-4 0"),
    UnitSlot("us-hq", "US HQ", "NATO", "US", "2/11 ACR", "hq", "HQ 1", "HQ 0"),
    UnitSlot("ah-1-cobra", "AH-1 Cobra", "NATO", "US", "2/11 ACR", "helicopter", "4-4 1", "2-4 1"),
    UnitSlot("t-64", "T-64", "Warsaw Pact", "Soviet", "79 GTD", "armor", "5-4 3", "3-4 3"),
    UnitSlot("t-72", "T-72", "Warsaw Pact", "Soviet", "79 GTD", "armor", "5-4 3", "3-4 3"),
    UnitSlot("t-80", "T-80", "Warsaw Pact", "Soviet", "79 GTD", "armor", "6-4 4", "3-4 4"),
    UnitSlot("bmp-1", "BMP-1", "Warsaw Pact", "Soviet", "79 GTD", "mech", "2-5 1", "1-5 1"),
    UnitSlot("btr-70", "BTR-70", "Warsaw Pact", "Soviet", "79 GTD", "mech", "1-5 1", "1-6 1"),
    UnitSlot("soviet-infantry", "Soviet Infantry", "Warsaw Pact", "Soviet", "79 GTD", "infantry", "2-4 0",
             "1-4 0"),
    UnitSlot("soviet-hq", "Soviet HQ", "Warsaw Pact", "Soviet", "79 GTD", "hq", "HQ 1", "HQ 0"),
    UnitSlot("mi-24-hind", "Mi-24 Hind", "Warsaw Pact", "Soviet", "79 GTD", "helicopter", "4-4 1", "2-4 1"),
]

# Markers: (name, image levels). A two-level marker (Smoke 2 -> Smoke 1) flips with a layer.
MARKERS = [
    ("Disrupted", ["disrupted"]),
    ("Ops Complete", ["ops-complete"]),
    ("Out of Command", ["ooc"]),
    ("Wreck", ["wreck"]),
    ("Smoke", ["smoke-2", "smoke-1"]),
    ("Ammo Depleted", ["ammo-depleted-2", "ammo-depleted-1"]),
    ("Improved Position", ["improved-position"]),
]
MARKER_STYLE = {
    "disrupted": ((230, 200, 40), "DISR"), "ops-complete": ((120, 120, 120), "OPS\nDONE"),
    "ooc": ((240, 150, 40), "OOC"), "wreck": ((70, 70, 70), "WRECK"),
    "smoke-2": ((235, 235, 235), "SMOKE\n2"), "smoke-1": ((205, 205, 205), "SMOKE\n1"),
    "ammo-depleted-2": ((200, 80, 80), "AMMO\n2"), "ammo-depleted-1": ((230, 130, 130), "AMMO\n1"),
    "improved-position": ((160, 120, 60), "IP"),
}


# --- geometry ----------------------------------------------------------------------

def hex_name(col: int, row: int) -> str:
    """VASSAL's name for raw (col, row): hType=A hOff=0, vType=N vOff=1, stagger=false."""
    return chr(ord("A") + col) + str(row + 1)


def hex_centre(col: int, row: int) -> tuple[float, float]:
    """HexGrid.getHexCenter for sideways=false: odd columns half a hex lower."""
    return X0 + col * DX, Y0 + row * DY + (DY / 2 if col % 2 else 0.0)


def hex_corners(col: int, row: int) -> list[tuple[float, float]]:
    """Flat-topped corners, east first, clockwise; width 4/3*dx, height dy."""
    cx, cy = hex_centre(col, row)
    r = DX * 2 / 3
    return [(cx + r, cy), (cx + r / 2, cy + DY / 2), (cx - r / 2, cy + DY / 2),
            (cx - r, cy), (cx - r / 2, cy - DY / 2), (cx + r / 2, cy - DY / 2)]


def parse_name(name: str) -> tuple[int, int]:
    return ord(name[0]) - ord("A"), int(name[1:]) - 1


def shared_side(a: str, b: str) -> tuple[tuple[float, float], tuple[float, float]]:
    """The two corners two adjacent hexes share."""
    ca = hex_corners(*parse_name(a))
    cb = hex_corners(*parse_name(b))
    common = [p for p in ca if any(math.dist(p, q) < 1e-6 for q in cb)]
    if len(common) != 2:
        raise ValueError(f"{a} and {b} are not adjacent")
    return common[0], common[1]


# --- images ------------------------------------------------------------------------

def _font(size: int) -> ImageFont.ImageFont:
    return ImageFont.load_default(size)


def png_bytes(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def draw_board(terrain: dict) -> bytes:
    """The main board: terrain colours, roads, streams, hex outlines and names."""
    kind_of = {name: kind for kind, names in terrain["hexes"].items() for name in names}
    image = Image.new("RGB", (BOARD_W, BOARD_H), (240, 236, 214))
    draw = ImageDraw.Draw(image)
    for col in range(COLUMNS):
        for row in range(ROWS):
            name = hex_name(col, row)
            draw.polygon(hex_corners(col, row), fill=TERRAIN_COLOURS[kind_of.get(name, terrain["default"])],
                         outline=(60, 60, 60))
    for road in terrain.get("roads", []):
        points = [hex_centre(*parse_name(n)) for n in road]
        draw.line(points, fill=(120, 70, 30), width=5)
    for side in terrain.get("hexsides", []):
        a, b = side["between"]
        p, q = shared_side(a, b)
        draw.line([p, q], fill=(40, 90, 200), width=6)
        if side.get("bridge"):
            mx, my = (p[0] + q[0]) / 2, (p[1] + q[1]) / 2
            draw.rectangle([mx - 7, my - 7, mx + 7, my + 7], fill=(90, 60, 40))
    for level, names in (terrain.get("elevation") or {}).items():
        for name in names:
            cx, cy = hex_centre(*parse_name(name))
            draw.text((cx + 12, cy + 10), f"L{level}", fill=(90, 60, 20), font=_font(10))
    for col in range(COLUMNS):
        for row in range(ROWS):
            cx, cy = hex_centre(col, row)
            draw.text((cx, cy - DY / 2 + 9), hex_name(col, row), fill=(30, 30, 30), font=_font(10), anchor="mm")
    return png_bytes(image)


def draw_symbol(draw: ImageDraw.ImageDraw, symbol: str) -> None:
    """A small NATO unit symbol in the upper half of the counter."""
    box = (10, 6, 38, 24)
    draw.rectangle(box, outline=(0, 0, 0), width=2)
    x0, y0, x1, y1 = box
    if symbol in ("armor", "mech"):
        draw.ellipse((x0 + 5, y0 + 4, x1 - 5, y1 - 4), outline=(0, 0, 0), width=2)
    if symbol in ("infantry", "mech"):
        draw.line((x0, y0, x1, y1), fill=(0, 0, 0), width=2)
        draw.line((x0, y1, x1, y0), fill=(0, 0, 0), width=2)
    if symbol == "recon":
        draw.line((x0, y1, x1, y0), fill=(0, 0, 0), width=2)
    if symbol == "hq":
        draw.line((x0, y1, x0, y1 + 12), fill=(0, 0, 0), width=2)
    if symbol == "helicopter":
        draw.polygon([(x0 + 4, y0 + 4), (x1 - 4, y1 - 4), (x1 - 4, y0 + 4), (x0 + 4, y1 - 4)], outline=(0, 0, 0))


def draw_counter(unit: UnitSlot, reduced: bool) -> bytes:
    full, light = SIDE_COLOURS[unit.side]
    image = Image.new("RGB", (COUNTER, COUNTER), light if reduced else full)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, COUNTER - 1, COUNTER - 1), outline=(0, 0, 0))
    draw_symbol(draw, unit.symbol)
    if reduced:
        draw.line((2, 2, COUNTER - 3, 2), fill=(200, 0, 0), width=3)
    draw.text((COUNTER / 2, 31), unit.name[:10], fill=(0, 0, 0), font=_font(8), anchor="mm")
    draw.text((COUNTER / 2, 41), unit.back if reduced else unit.front, fill=(0, 0, 0), font=_font(9), anchor="mm")
    return png_bytes(image)


def draw_marker(image_id: str) -> bytes:
    colour, label = MARKER_STYLE[image_id]
    image = Image.new("RGB", (COUNTER, COUNTER), colour)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, COUNTER - 1, COUNTER - 1), outline=(0, 0, 0))
    ink = (255, 255, 255) if sum(colour) < 300 else (0, 0, 0)
    draw.multiline_text((COUNTER / 2, COUNTER / 2), label, fill=ink, font=_font(10), anchor="mm", align="center")
    return png_bytes(image)


# --- piece definitions (VASSAL trait text) ---------------------------------------------

def chain(*traits: str) -> str:
    """A decorator chain, outermost first, nested with TAB as Decorator.getType does."""
    text = traits[-1]
    for trait in reversed(traits[:-1]):
        text = join([trait, text], "\t")
    return text


def layer_type(name: str, images: list[str], level_names: list[str], description: str) -> str:
    """An always-active Embellishment (Layer) that cycles its levels with Ctrl+F."""
    fields = ["", "130", "", "Flip", "130", "F", "", "130", "", "", "", "1", "false", "0", "0",
              join(images, ","), join(level_names, ","), "true", name, "", "", "false", "", "1", "1", "true",
              "", "70,130", "", description, "1.0", "", "true"]
    return "emb2;" + join(fields, ";")


def add_piece_text(type_text: str, state_text: str) -> str:
    """PieceSlot/PrototypeDefinition element text: an AddPiece with a null id."""
    return "+/" + join(["null", type_text, state_text], "/")


def unit_slot_text(unit: UnitSlot, gpid: int) -> str:
    images = [f"{unit.key}.png", f"{unit.key}-reduced.png"]
    type_text = chain(
        "prototype;WaW Unit",
        layer_type("Step", images, ["", "+ (reduced)"], "Full / reduced side"),
        "mark;Side,Nation,Formation,UnitType",
        f"piece;;;{images[0]};{unit.name}",
    )
    state_text = chain("", "1", join([unit.side, unit.nation, unit.formation, unit.key], ","),
                       f"null;0;0;{gpid};0")
    return add_piece_text(type_text, state_text)


def marker_slot_text(name: str, images: list[str], gpid: int) -> str:
    files = [f"{i}.png" for i in images]
    traits = ["prototype;WaW Marker"]
    states = [""]
    if len(files) > 1:
        level_names = [f"{name} {len(files) - i}" for i in range(len(files))]
        traits.append(layer_type("Level", files, level_names, f"{name} level"))
        states.append("1")
    traits += ["mark;Marker", f"piece;;;{files[0]};{name}"]
    states += [name, f"null;0;0;{gpid};0"]
    return add_piece_text(chain(*traits), chain(*states))


PROTOTYPES = {
    "WaW Unit": (chain("delete;Delete;68,130;", "markmoved;moved.png;20;-20;Mark Moved;77,130;;false;;;;",
                       "piece;;;;"),
                 chain("", "false", "null;0;0;;0")),
    "WaW Marker": (chain("delete;Delete;68,130;", "piece;;;;"), chain("", "null;0;0;;0")),
}


# --- buildFile ---------------------------------------------------------------------------

def element(parent: etree._Element | None, tag: str, text: str | None = None, **attrs: str) -> etree._Element:
    """A buildFile element with attributes in sorted order, as VASSAL's writer emits them."""
    node = etree.Element(tag) if parent is None else etree.SubElement(parent, tag)
    for key in sorted(attrs):
        node.set(key, attrs[key])
    if text is not None:
        node.text = text
    return node


def map_element(root: etree._Element, name: str, board: dict[str, str], grid: bool) -> None:
    m = element(root, "VASSAL.build.module.Map", allowMultiple="false", backgroundcolor="255,255,255",
                buttonName=name, edgeHeight="0", edgeWidth="0", mapName=name, markMoved="Never",
                moveToFormat="$pieceName$ moves $previousLocation$ -> $location$ *",
                moveWithinFormat="$pieceName$ moves $previousLocation$ -> $location$ *",
                createFormat="$pieceName$ created in $location$", launch="false" if grid else "true")
    picker = element(m, "VASSAL.build.module.map.BoardPicker", addColumnText="Add column", addRowText="Add row",
                     boardPrompt="Select board", slotHeight="125", slotScale="0.2", slotWidth="350",
                     title="Choose Boards")
    b = element(picker, "VASSAL.build.module.map.boardPicker.Board", **board)
    if grid:
        g = element(b, "VASSAL.build.module.map.boardPicker.board.HexGrid", color="0,0,0", cornersLegal="false",
                    dotsVisible="false", dx=repr(DX), dy=repr(DY), edgesLegal="false", sideways="false",
                    snapTo="true", visible="false", x0=str(X0), y0=str(Y0))
        element(g, "VASSAL.build.module.map.boardPicker.board.mapgrid.HexGridNumbering", color="0,0,0",
                first="H", fontSize="9", hDescend="false", hDrawOff="0", hLeading="0", hOff="0", hType="A",
                locationFormat="$gridLocation$", rotateText="0", sep="", stagger="false", vDescend="false",
                vDrawOff="0", vLeading="0", vOff="1", vType="N", visible="false")
    element(m, "VASSAL.build.module.map.StackMetrics", bottom="40,0", disabled="false", down="37,0", exSepX="6",
            exSepY="18", top="38,0", unexSepX="3", unexSepY="5", up="39,0")
    for plumbing in ("ForwardToKeyBuffer", "Scroller", "ForwardToChatter", "MenuDisplayer", "MapCenterer",
                     "StackExpander", "PieceMover", "KeyBufferer", "SelectionHighlighters"):
        element(m, f"VASSAL.build.module.map.{plumbing}")


def build_file() -> bytes:
    root = element(None, "VASSAL.build.GameModule", ModuleOther1="", ModuleOther2="",
                   VassalVersion=VASSAL_VERSION, description="A World at War shaped sample module for wawkit",
                   name=MODULE_NAME, nextPieceSlotId=str(100 + len(UNITS) + len(MARKERS)), version=MODULE_VERSION)
    element(root, "VASSAL.build.module.BasicCommandEncoder")
    element(root, "VASSAL.build.module.Documentation")
    roster = element(root, "VASSAL.build.module.PlayerRoster", buttonKeyStroke="", buttonText="Retire",
                     buttonToolTip="Switch sides")
    for side in SIDE_COLOURS:
        element(roster, "entry", side)
    element(root, "VASSAL.build.module.GlobalOptions", autoReport="Always", centerOnMove="Always",
            nonOwnerUnmaskable="Never", playerIdFormat="$PlayerName$", promptString="Opponents can unmask pieces")
    element(root, "VASSAL.build.module.Chatter")
    element(root, "VASSAL.build.module.KeyNamer")
    map_element(root, "Main Map", {"image": "board.png", "name": "Eisenbach Sample", "reversible": "false"}, True)
    map_element(root, "Destroyed", {"color": "255,255,255", "height": "400", "name": "Destroyed",
                                    "reversible": "false", "width": "600"}, False)
    map_element(root, "Combat", {"color": "230,230,230", "height": "300", "name": "Combat",
                                 "reversible": "false", "width": "400"}, False)
    window = element(root, "VASSAL.build.module.PieceWindow", defaultWidth="0", hidden="false", hotkey="67,130",
                     name="Counters", scale="1.0", text="Counters", tooltip="Units and markers")
    tabs = element(window, "VASSAL.build.widget.TabWidget", entryName="Counters")
    gpid = 100
    for side in SIDE_COLOURS:
        panel = element(tabs, "VASSAL.build.widget.PanelWidget", entryName=side, fixed="false", nColumns="8",
                        scale="1.0", vert="false")
        for unit in (u for u in UNITS if u.side == side):
            gpid += 1
            element(panel, "VASSAL.build.widget.PieceSlot", unit_slot_text(unit, gpid), entryName=unit.name,
                    gpid=str(gpid), height=str(COUNTER), width=str(COUNTER))
    panel = element(tabs, "VASSAL.build.widget.PanelWidget", entryName="Markers", fixed="false", nColumns="8",
                    scale="1.0", vert="false")
    for name, images in MARKERS:
        gpid += 1
        element(panel, "VASSAL.build.widget.PieceSlot", marker_slot_text(name, images, gpid), entryName=name,
                gpid=str(gpid), height=str(COUNTER), width=str(COUNTER))
    prototypes = element(root, "VASSAL.build.module.PrototypesContainer")
    for name, (type_text, state_text) in PROTOTYPES.items():
        element(prototypes, "VASSAL.build.module.PrototypeDefinition", add_piece_text(type_text, state_text),
                description="", name=name)
    element(root, "VASSAL.build.module.DiceButton", addToTotal="0", canDisable="false", hotkey="", icon="",
            keepCount="1", keepDice="false", keepOption=">", lockAdd="false", lockDice="false",
            lockPlus="false", lockSides="false", nDice="1", nSides="6", name="1d6", plus="0", prompt="false",
            propertyGate="", reportFormat="** $name$ = $result$ *** <$PlayerName$>", reportTotal="false",
            sortDice="false", text="1d6", tooltip="Roll 1d6")
    globals_ = element(root, "VASSAL.build.module.properties.GlobalProperties")
    for name, value in (("Turn", "1"), ("ArtilleryMissionsNATO", "2"), ("ArtilleryMissionsWP", "2")):
        element(globals_, "VASSAL.build.module.properties.GlobalProperty", description="", initialValue=value,
                isNumeric="true", max="99", min="0", name=name, wrap="false")
    element(root, "VASSAL.build.module.properties.GlobalTranslatableMessages")
    element(root, "VASSAL.i18n.Language")
    etree.indent(root, space="    ")
    body = etree.tostring(root, encoding="UTF-8", xml_declaration=False).decode("utf-8")
    return ('<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n' + body + "\n").encode("utf-8")


def module_data() -> bytes:
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
        '<data version="1">\n'
        f"  <version>{MODULE_VERSION}</version>\n"
        "  <extra1/>\n  <extra2/>\n"
        f"  <VassalVersion>{VASSAL_VERSION}</VassalVersion>\n"
        "  <dateSaved>1767225600000</dateSaved>\n"
        "  <description>A World at War shaped sample module for wawkit</description>\n"
        f"  <name>{MODULE_NAME}</name>\n"
        "</data>\n"
    ).encode("utf-8")


def entries(terrain: dict) -> dict[str, bytes]:
    files = {"buildFile.xml": build_file(), "moduledata": module_data(), "images/board.png": draw_board(terrain)}
    for unit in UNITS:
        files[f"images/{unit.key}.png"] = draw_counter(unit, reduced=False)
        files[f"images/{unit.key}-reduced.png"] = draw_counter(unit, reduced=True)
    for _, images in MARKERS:
        for image_id in images:
            files[f"images/{image_id}.png"] = draw_marker(image_id)
    moved = Image.new("RGBA", (12, 12), (0, 0, 0, 0))
    ImageDraw.Draw(moved).ellipse((0, 0, 11, 11), fill=(250, 250, 0, 255), outline=(0, 0, 0, 255))
    files["images/moved.png"] = png_bytes(moved)
    return files


def write_module(path: Path = OUTPUT) -> Path:
    terrain = yaml.safe_load((ROOT / "terrain.yaml").read_text(encoding="utf-8"))
    partial = path.with_suffix(".part")
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries(terrain).items():
            info = zipfile.ZipInfo(name, date_time=FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    partial.replace(path)
    return path


if __name__ == "__main__":
    print(write_module())
