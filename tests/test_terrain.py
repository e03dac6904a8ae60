"""Terrain maps: reading, hex features, the board's hexes, and a draft that reproduces the sample board."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from converter.cli import main
from converter.errors import SchemaError
from converter.terrain import TerrainMap, board_hexes, draft, hex_states, nearest_terrain, read_palette, read_terrain
from converter.vassal.module import Module
from referee.hexes import Hex

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
MODULE = SAMPLES / "waw-sample.vmod"
BOARD = "Eisenbach Sample"
#: Cells whose centre lies on the board image but outside the drawn 14 x 10 hexes.
EDGE_CELLS = ["A11", "B0", "C11", "D0", "E11", "F0", "G11", "H0", "I11", "J0", "K11", "L0", "M11", "N0"]


@pytest.fixture(scope="module")
def module() -> Module:
    return Module.read(MODULE)


def test_sample_terrain_reads() -> None:
    terrain = read_terrain(SAMPLES / "terrain.yaml")
    assert terrain.board == BOARD and terrain.default == "clear"
    assert terrain.terrain("F6") == "woods"
    assert terrain.terrain("H4") == "city"
    assert terrain.terrain("A1") == "clear"
    assert len(terrain.hexes) == 24
    assert terrain.elevation["K5"] == 1


def test_features_of_roads_streams_bridges_and_levels() -> None:
    terrain = read_terrain(SAMPLES / "terrain.yaml")
    assert terrain.features("E6") == frozenset({"stream:E7"})
    assert terrain.features("E5") == frozenset({"road", "road:D5", "road:F5"})
    assert terrain.features("A5") == frozenset({"road", "road:B5"})      # a road's first hex
    assert terrain.features("E7") == frozenset({"stream:E6"})
    assert terrain.features("H8") == frozenset({"road", "road:H7", "road:H9", "stream:H9", "bridge:H9", "stream:I8"})
    assert terrain.features("H4") == frozenset({"road", "road:G5", "road:I4"})   # H5 is on the other road
    assert terrain.features("K5") == frozenset({"level_1"})
    assert terrain.features("A1") == frozenset()


def test_document_round_trip() -> None:
    terrain = read_terrain(SAMPLES / "terrain.yaml")
    again = TerrainMap.from_document(terrain.to_document())
    assert again == terrain


def test_a_hex_with_two_terrains_is_refused() -> None:
    doc = {"board": "B", "default": "clear", "hexes": {"woods": ["A1", "A2"], "city": ["A3", "A2"]}}
    with pytest.raises(SchemaError) as caught:
        TerrainMap.from_document(doc, file="t.yaml")
    assert caught.value.path == "hexes.city[1]"
    assert "A2 is both woods and city" in str(caught.value)


def test_board_hexes_names_points_and_cube_coordinates(module: Module) -> None:
    cells = {c.name: c for c in board_hexes(module, "Main Map", BOARD)}
    assert len(cells) == 140 + len(EDGE_CELLS)
    assert (cells["A1"].x, cells["A1"].y, cells["A1"].at) == (40, 40, Hex(0, 0))
    assert (cells["F6"].x, cells["F6"].y, cells["F6"].at) == (320, 392, Hex(5, 3))
    assert cells["C7"].at.distance(cells["F6"].at) == 3


def test_hex_states_carry_terrain_features_and_position(module: Module) -> None:
    terrain = read_terrain(SAMPLES / "terrain.yaml")
    states = hex_states(terrain, board_hexes(module, "Main Map", BOARD))
    assert states["F6"].terrain == "woods" and states["F6"].at == Hex(5, 3)
    assert states["H9"].features == frozenset({"road", "road:H8", "road:H10", "stream:H8", "bridge:H8"})
    bare = hex_states(None, board_hexes(module, "Main Map", BOARD))
    assert bare["F6"].terrain is None and bare["F6"].at == Hex(5, 3)


def test_nearest_terrain_and_tolerance() -> None:
    palette = read_palette(SAMPLES / "palette.yaml")
    assert nearest_terrain((74, 128, 62), palette) == "woods"
    assert nearest_terrain((190, 165, 106), palette) == "hill"
    assert nearest_terrain((120, 70, 30), palette) is None          # road brown: nothing near
    assert nearest_terrain((240, 236, 214), palette) is None        # board background


def test_palette_accepts_hex_strings_and_lists(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("colours:\n  woods: '#4a803e'\n  clear: [[222, 220, 170], [230, 230, 180]]\n", encoding="utf-8")
    assert read_palette(path) == {"woods": [(74, 128, 62)], "clear": [(222, 220, 170), (230, 230, 180)]}


def test_draft_reproduces_the_sample_board_exactly(module: Module) -> None:
    proposal = draft(module, BOARD, read_palette(SAMPLES / "palette.yaml"))
    expected = read_terrain(SAMPLES / "terrain.yaml")
    assert proposal.terrain.default == "clear"
    assert proposal.terrain.hexes == expected.hexes
    assert proposal.unmatched == EDGE_CELLS
    named = {c.name for c in board_hexes(module, "Main Map", BOARD)} - set(EDGE_CELLS)
    assert len(named) == 140
    assert all(proposal.terrain.terrain(n) == expected.terrain(n) for n in named)


def test_cli_terrain_draft(tmp_path: Path) -> None:
    out = tmp_path / "draft.yaml"
    result = CliRunner().invoke(main, ["terrain", "draft", str(MODULE), "--board", BOARD,
                                       "--palette", str(SAMPLES / "palette.yaml"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    drafted = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert drafted["hexes"]["city"] == ["H4", "H5", "I4"]
    assert TerrainMap.from_document(drafted).hexes == read_terrain(SAMPLES / "terrain.yaml").hexes
    again = CliRunner().invoke(main, ["terrain", "draft", str(MODULE), "--board", BOARD,
                                      "--palette", str(SAMPLES / "palette.yaml"), "-o", str(out)])
    assert again.exit_code == 2
    assert "refusing to overwrite" in again.output


def test_cli_terrain_draft_unknown_board() -> None:
    result = CliRunner().invoke(main, ["terrain", "draft", str(MODULE), "--board", "Nowhere",
                                       "--palette", str(SAMPLES / "palette.yaml")])
    assert result.exit_code == 2
    assert "no map of the module has a board 'Nowhere'" in result.output
