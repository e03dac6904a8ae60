"""The typed module view over every corpus module, extensions merged onto modules, stored
setups, boards without images, and the inspect-module / locate commands."""
from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from converter.cli import main
from converter.cli.module import describe_module
from converter.errors import GeometryError, ModuleError
from converter.vassal.module import Module, read_module
from converter.vassal.save import SavedGame

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
TOUR = CORPUS / "vassal-tour" / "tour.mod"

#: maps, grids by kind (nested zone/background grids included) and PieceSlots, as the corpus README lists them.
EXPECTED = {
    "asl-pbs-extension/buildFile.xml": (4, {"region": 3, "square": 1}, 82),
    "ccn-napoleonics/buildFile.xml": (6, {"hex": 1, "region": 16, "square": 4, "zoned": 2}, 447),
    "dreadball/buildFile": (3, {"hex": 6}, 65),
    "fields-of-normandy-2/buildFile.xml": (1, {}, 35),
    "hexncounters-template/jzhex-n-counters-template-v12-379.vmod": (4, {"hex": 1, "square": 1, "zoned": 1}, 10),
    "hexncounters-template/template-src/buildFile.xml": (4, {"hex": 1, "square": 1, "zoned": 1}, 10),
    "paths-of-glory/buildFile.xml": (8, {"region": 44, "zoned": 6}, 782),
    "ragnarok-spi/buildFile.xml": (3, {"hex": 1, "square": 2, "zoned": 1}, 34),
    "tld-longest-day/buildFile": (10, {"hex": 1, "square": 9, "zoned": 3}, 2070),
    "vasl-saves-logs/vmdx/BFP_v403.vmdx": (0, {}, 533),
    "vassal-tour/tour.mod": (2, {"hex": 1, "region": 1, "square": 4, "zoned": 1}, 10),
    "zxvt-capture-territory/buildFile": (1, {"square": 1}, 7),
}


@pytest.mark.parametrize("relative", sorted(EXPECTED))
def test_corpus_module_counts(relative: str) -> None:
    module = Module.read(CORPUS / relative)
    maps, grids, slots = EXPECTED[relative]
    assert (len(module.maps), module.grid_counts(), len(module.piece_slots)) == (maps, grids, slots)


def test_tour_maps_boards_and_grids() -> None:
    module = Module.read(TOUR)
    assert (module.name, module.version, module.vassal_version, module.entry) == ("VASSAL Tour", "1.3", "2.0b6",
                                                                                 "buildFile")
    main_map = module.map("Main Map")
    assert module.map("Map0") is main_map  # the UniqueIdManager id matches too
    assert [(b.name, b.size, b.reversible, b.grid.kind) for b in main_map.boards] == [
        ("plain", (1008, 1008), False, "square"), ("VIP", (2673, 663), False, "zoned"),
        ("SL", (1799, 645), True, "hex"), ("Empty", (1200, 500), False, "square")]
    assert main_map.edge == (0, 0) and main_map.default_layout == []
    force_pool = module.map("Force Pool")
    assert [(b.name, b.image, b.size, b.grid) for b in force_pool.boards] == [
        ("Board 1", "tourForces.gif", (750, 200), None)]
    assert [(p.name, p.column, p.row) for p in force_pool.default_layout] == [("Board 1", 0, 0)]
    with pytest.raises(GeometryError, match="no map 'Nowhere'.*Main Map, Force Pool"):
        module.map("Nowhere")


def test_tour_palette_prototypes_and_dice() -> None:
    module = Module.read(TOUR)
    assert [(w.kind, w.name, [c.kind for c in w.children], sum(1 for _ in w.slots())) for w in module.palette] == [
        ("window", "Counters", ["panel"], 4), ("window", "Hidden", ["tab"], 6)]
    assert [s.name for s in module.palette[0].slots()] == ["Albatros C", "1ME", "Jagd Pz Tiger", "Goblin"]
    assert list(module.prototypes) == ["Tile", "Army"]
    tile = module.prototypes["Tile"]
    assert tile.type_text == "mark;Layer\timmob;n\\\trotate;2;70,130;;Flip;\\\\\tpiece;;;;"
    assert tile.state_text == "Tile\t\\\t0\\\\\tnull;0;0"
    goblin = next(s for s in module.piece_slots if s.name == "Goblin")
    piece = goblin.piece()
    assert piece.name == "Goblin" and piece.prototypes() == ["Army"]
    expanded = module.expand(piece)
    assert expanded.prototypes() == [] and len(expanded) == 12
    assert [(d.name, d.n_dice, d.n_sides, d.plus, d.add_to_total) for d in module.dice] == [
        ("Graphical dice", 2, 6, 0, 0)]
    assert module.unknown_components == []


def test_setups_properties_and_unknown_components() -> None:
    tld = Module.read(CORPUS / "tld-longest-day" / "buildFile")
    assert [(s.name, s.entry, s.is_menu) for s in tld.setups][-1] == ("Campaign Game", "campaign.sav", False)
    assert len(tld.setups) == 7 and tld.stored_saves() == []  # a bare buildFile stores nothing
    ccn = Module.read(CORPUS / "ccn-napoleonics" / "buildFile.xml")
    assert len(ccn.global_properties) == 659
    assert (ccn.global_properties[1].name, ccn.global_properties[1].initial_value) == ("scenarioNameURL",
                                                                                        "+Not+Loaded")
    assert {g.container for g in ccn.global_properties} == {
        "Allies Hand", "Dice Tray", "French Hand", "HiddenDeckStorage", "Main Map", "Module", "Special Window"}
    pbs = Module.read(CORPUS / "asl-pbs-extension" / "buildFile.xml")
    assert pbs.is_extension
    assert [(u.tag, u.path, u.line) for u in pbs.unknown_components] == [
        ("VASL.build.module.ASLPBSChecker", "ModuleExtension/ExtensionElement", 238)]


def _tour_with(extra_xml: bytes, extra_entries: dict[str, bytes] | None = None) -> bytes:
    """tour.mod with ``extra_xml`` added at the end of its buildFile (and extra zip entries)."""
    out = io.BytesIO()
    with zipfile.ZipFile(TOUR) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == "buildFile":
                data = data.replace(b"</VASSAL.build.GameModule>", extra_xml + b"</VASSAL.build.GameModule>")
            target.writestr(info, data)
        for name, data in (extra_entries or {}).items():
            target.writestr(name, data)
    return out.getvalue()


def test_stored_predefined_setup_is_listed_and_readable() -> None:
    save = io.BytesIO()
    with zipfile.ZipFile(save, "w") as archive:
        archive.writestr("savedGame", "begin_save\x1b\x1bend_save")
    setup = b'<VASSAL.build.module.PredefinedSetup name="Start" file="start.vsav" useFile="true" isMenu="false"/>'
    module = Module.from_bytes(_tour_with(setup, {"start.vsav": save.getvalue()}), file="tour+setup.vmod")
    assert module.stored_saves() == [("Start", "start.vsav")]
    game = SavedGame.from_bytes(module.read_setup("Start"), file="start.vsav")
    assert game.container.text == "begin_save\x1b\x1bend_save"
    with pytest.raises(ModuleError, match="no stored predefined setup 'Later'"):
        module.read_setup("Later")


def test_extension_is_merged_onto_its_module(tmp_path: Path) -> None:
    slot = ('<VASSAL.build.widget.PieceSlot entryName="Scout" gpid="ext:1" height="0" width="0">'
            '+/null/piece;;;scout.png;Scout/null;0;0</VASSAL.build.widget.PieceSlot>')
    extension = (
        '<VASSAL.build.module.ModuleExtension module="VASSAL Tour" version="0.1" extensionId="ext">'
        '<VASSAL.build.module.ExtensionElement target="VASSAL.build.module.PieceWindow:Counters/'
        f'VASSAL.build.widget.PanelWidget">{slot}</VASSAL.build.module.ExtensionElement>'
        '<VASSAL.build.module.ExtensionElement target="VASSAL.build.module.Map:Lost Map">'
        '<VASSAL.build.module.map.Zoomer/></VASSAL.build.module.ExtensionElement>'
        '</VASSAL.build.module.ModuleExtension>')
    path = tmp_path / "scouts.vmdx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("buildFile.xml", extension)
    merged = read_module(TOUR, extensions=[path])
    assert [s.name for s in merged.palette[0].slots()] == ["Albatros C", "1ME", "Jagd Pz Tiger", "Goblin", "Scout"]
    assert [(s.name, s.gpid, s.path) for s in merged.piece_slots if s.name == "Scout"] == [
        ("Scout", "ext:1", ("Counters", ""))]
    assert merged.unresolved_extension_elements == ["VASSAL.build.module.Map:Lost Map"]
    assert len(Module.read(TOUR).piece_slots) == 10  # the module itself is unchanged
    with pytest.raises(ModuleError, match="is not an extension"):
        Module.read(TOUR).merge(Module.read(TOUR))


def test_board_whose_image_is_missing_has_unknown_size() -> None:
    boards = (b'<VASSAL.build.module.Map mapName="M" edgeWidth="10" edgeHeight="20">'
              b'<VASSAL.build.module.map.BoardPicker>'
              b'<VASSAL.build.module.map.boardPicker.Board image="gone.png" name="Gone" reversible="true">'
              b'<VASSAL.build.module.map.boardPicker.board.SquareGrid x0="0" y0="0" dx="10.0" dy="10.0">'
              b'<VASSAL.build.module.map.boardPicker.board.mapgrid.SquareGridNumbering/>'
              b'</VASSAL.build.module.map.boardPicker.board.SquareGrid></VASSAL.build.module.map.boardPicker.Board>'
              b'<VASSAL.build.module.map.boardPicker.Board name="Plain" width="100" height="50"/>'
              b'</VASSAL.build.module.map.BoardPicker></VASSAL.build.module.Map>')
    module = Module.from_bytes(_tour_with(boards), file="gone.vmod")
    map_def = module.map("M")
    assert [(b.name, b.size) for b in map_def.boards] == [("Gone", None), ("Plain", (100, 50))]
    alone = map_def.geometry([("Gone", False, 0, 0)])
    assert alone.location_name(10 + 55, 20 + 33) == "0704"  # unbounded: still named, offset by the edges
    assert alone.location_name(5, 5) is None
    with pytest.raises(GeometryError, match="whose size is unknown"):
        map_def.geometry([("Gone", False, 0, 0), ("Plain", False, 1, 0)])
    with pytest.raises(GeometryError, match="reversed but its size is unknown"):
        map_def.geometry([("Gone", True, 0, 0)]).location_name(15, 25)
    assert map_def.geometry([("Plain", False, 0, 0), ("Gone", False, 1, 0)]).location_name(112, 22) == "0101"  # Gone starts at x = 10 + 100


def test_bad_piece_slot_text_is_a_module_error() -> None:
    module = Module.from_bytes(_tour_with(b'<VASSAL.build.module.PieceWindow name="W">'
                                          b'<VASSAL.build.widget.PieceSlot entryName="Bad" gpid="9">'
                                          b'not a command</VASSAL.build.widget.PieceSlot>'
                                          b'</VASSAL.build.module.PieceWindow>'), file="bad.vmod")
    bad = module.piece_slots[-1]
    with pytest.raises(ModuleError, match=r"PieceSlot \(line \d+\): piece text 'not a command'") as caught:
        bad.piece()
    assert caught.value.file == "bad.vmod"


# -- command line ---------------------------------------------------------------------
def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_inspect_module_text_and_json() -> None:
    code, out, _ = _run("inspect-module", str(TOUR))
    assert code == 0
    assert out.splitlines()[0] == "module 'VASSAL Tour' version 1.3 (VASSAL 2.0b6, buildFile)"
    assert ("  board 'SL' 1799x645 reversible: hex grid dx=56.25 dy=64.5 origin=(0,32), numbered first=H sep='' "
            "h=A+0 v=N+1 stagger=no") in out.splitlines()
    assert "piece slots 10 (windows: 'Counters' 4, 'Hidden' 6), card slots 11, prototypes 2" in out
    code, out, _ = _run("inspect-module", str(TOUR), "--json")
    assert code == 0
    info = json.loads(out)
    assert info == json.loads(json.dumps(describe_module(TOUR)))
    sl = info["maps"][0]["boards"][2]
    assert sl["grid"]["numbering"] == {
        "first": "H", "sep": "", "h_type": "A", "h_leading": 1, "h_off": 0, "h_descend": False, "v_type": "N",
        "v_leading": 0, "v_off": 1, "v_descend": False, "location_format": "$gridLocation$", "visible": False,
        "font_size": 9, "color": "0,0,0", "rotate_text": 0, "h_draw_off": 0, "v_draw_off": 0, "stagger": False}
    assert (info["piece_slots"], info["prototypes"], info["grid_counts"]) == (
        10, 2, {"square": 4, "zoned": 1, "region": 1, "hex": 1})


def test_locate_both_ways() -> None:
    assert _run("locate", str(TOUR), "Main Map", "337", "419", "--layout", "SL")[:2] == (0, "G7\n")
    assert _run("locate", str(TOUR), "Main Map", "G7", "--layout", "SL")[:2] == (0, "337 419\n")
    code, out, _ = _run("locate", str(TOUR), "Main Map", "Japan", "--layout", "VIP", "--json")
    assert (code, json.loads(out)) == (0, {"map": "Main Map", "location": "Japan", "x": 1341, "y": 452})
    assert _run("locate", str(TOUR), "Main Map", "2000", "10", "--layout", "SL")[:2] == (0, "offboard\n")
    assert _run("locate", str(TOUR), "Main Map", "G7", "--layout", "plain:0:0", "--layout", "SL:1:0",
                "--board", "SL")[:2] == (0, "1345 419\n")
    tld = CORPUS / "tld-longest-day"
    assert _run("locate", str(tld / "buildFile"), "Normandy", "2000", "1000", "--save",
                str(tld / "scenarios" / "campaign.sav"))[:2] == (0, "3616\n")


def test_locate_bad_input_is_one_line_and_exit_2() -> None:
    code, _, err = _run("locate", str(TOUR), "Main Map", "Z99", "--layout", "SL")
    assert code == 2
    assert err == f"wawkit: {TOUR}: no location 'Z99' on map 'Main Map' (SL: 'Z99' lies outside the board)\n"
    code, _, err = _run("inspect-module", str(CORPUS / "README.md"))
    assert code == 2 and "malformed XML" in err


@pytest.mark.parametrize(("width", "height", "expected"), [
    ("35", "4095", (35, 4095)), ("0035", "4096", (35, 4096)), ("+7", "-3", (7, -3)), ("2147483647", "0", (2147483647, 0)),
])
def test_a_piece_slot_size_is_read_as_java_reads_an_int(width: str, height: str, expected: tuple[int, int]) -> None:
    """Small sizes come from a table, the rest through the full ``Integer.valueOf`` check: same values."""
    xml = (f'<VASSAL.build.GameModule name="M"><VASSAL.build.widget.PieceSlot entryName="A" gpid="1" '
           f'width="{width}" height="{height}">+/null/piece;;;a.png;A/\t-1</VASSAL.build.widget.PieceSlot>'
           f'</VASSAL.build.GameModule>').encode()
    slot = Module.from_bytes(xml).piece_slots[0]
    assert (slot.width, slot.height) == expected


@pytest.mark.parametrize("width", ["", " 35", "35px", "2147483648", "٣"])
def test_a_piece_slot_size_that_is_not_a_java_int_is_refused(width: str) -> None:
    xml = (f'<VASSAL.build.GameModule name="M"><VASSAL.build.widget.PieceSlot entryName="A" gpid="1" '
           f'width="{width}" height="1">+/null/piece;;;a.png;A/\t-1</VASSAL.build.widget.PieceSlot>'
           f'</VASSAL.build.GameModule>').encode()
    with pytest.raises(ModuleError, match="width"):
        Module.from_bytes(xml, file="m.xml").piece_slots
