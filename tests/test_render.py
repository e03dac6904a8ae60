"""wawkit render: the position on the module's board (or a drawn hex map), LOS lines coloured by
the referee's answer, and the results of the last resolution marked."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from converter.actions_text import ActionSyntaxError
from converter.cli import main
from converter.render import (COUNTER, LOS_COLOURS, RESULT_COLOUR, TERRAIN_FILL, Counter, RenderError, Scene, Sight,
                              around_units, closest_gap, draw, header_height, offset_centre, picture, scene_for_game,
                              text_layout)
from referee.model import Game, HexState, Unit, UnitType

SAMPLES = Path(__file__).resolve().parents[1] / "samples"
SAVE, MODULE, PROFILE = SAMPLES / "demo.vsav", SAMPLES / "waw-sample.vmod", SAMPLES / "profile.yaml"
COMMON = {"module": str(MODULE), "profile": str(PROFILE)}


def _along(start: tuple[float, float], end: tuple[float, float], t: float, dy: int = 0) -> tuple[int, int]:
    return round(start[0] + (end[0] - start[0]) * t), round(start[1] + (end[1] - start[1]) * t) + dy


def test_save_is_drawn_on_the_board_image_with_its_units(tmp_path: Path) -> None:
    out = tmp_path / "pos.png"
    scene = picture(SAVE, out, **COMMON)
    image = Image.open(out)
    assert scene.size == (808, 688)                 # the board image; the title is in a band above it
    assert image.size == (808, 688 + header_height(scene)) and image.format == "PNG"
    assert sorted(c.name for c in scene.counters) == ["BMP-1", "Leopard C1", "M113", "Soviet HQ", "Soviet Infantry",
                                                      "T-64", "US HQ", "US Infantry"]
    m113 = next(c for c in scene.counters if c.name == "M113")
    assert m113.tags == ("OPS",)


def test_los_lines_take_the_referees_colour(tmp_path: Path) -> None:
    out = tmp_path / "los.png"
    scene = picture(SAVE, out, sights=[("leopard-c1", "t-64"), ("us-hq", "soviet-hq")], **COMMON)
    clear, blocked = scene.sights
    assert (clear.clear, clear.label) == (True, "LOS clear")
    assert blocked.clear is False and blocked.label.startswith("LOS blocked: ")
    image = Image.open(out).convert("RGB")
    head = header_height(scene)
    assert image.getpixel(_along(clear.start, clear.end, 0.3, head)) == LOS_COLOURS[True]
    assert image.getpixel(_along(blocked.start, blocked.end, 0.3, head)) == LOS_COLOURS[False]


def test_last_resolution_is_marked(tmp_path: Path) -> None:
    resolved = tmp_path / "r.vsav"
    result = CliRunner().invoke(main, ["resolve", str(SAVE), "--module", str(MODULE), "--profile", str(PROFILE),
                                       "--action", "fire leopard-c1 t-64 ap", "--dice", "6,6,6,6,1,1,1,1,1",
                                       "-o", str(resolved)])
    assert result.exit_code == 0, result.output
    out = tmp_path / "after.png"
    cli = CliRunner().invoke(main, ["render", str(resolved), "--module", str(MODULE), "--profile", str(PROFILE),
                                    "--last-resolution", str(tmp_path / "r.audit.json"), "-o", str(out)])
    assert cli.exit_code == 0, cli.output
    scene = picture(resolved, tmp_path / "again.png", audit=str(tmp_path / "r.audit.json"), **COMMON)
    assert scene.results == {"t-64": "eliminated"}
    assert "T-64" not in [c.name for c in scene.counters]          # on the Destroyed map now
    assert scene.title.endswith("last resolution: T-64 eliminated")
    assert out.read_bytes() == (tmp_path / "again.png").read_bytes()


def test_result_ring_is_drawn_round_the_target(tmp_path: Path) -> None:
    record = tmp_path / "a.audit.json"
    record.write_text(json.dumps({"format": "wawkit-audit/1", "inputs": {}, "actions": [], "ruleset": "classic",
                                  "book": "untold", "dice": {}, "results": [{"unit": "t-64", "result": "disrupted"}]}),
                      encoding="utf-8")
    out = tmp_path / "ring.png"
    scene = picture(SAVE, out, audit=str(record), **COMMON)
    t64 = next(c for c in scene.counters if c.key == "t-64")
    x, y = t64.at
    image = Image.open(out).convert("RGB")
    assert image.getpixel((round(x + COUNTER / 2 + 6), round(y) + header_height(scene))) == RESULT_COLOUR


def test_a_game_without_module_is_drawn_on_a_hex_map() -> None:
    game = Game(units={"a": Unit("a", UnitType(name="Alpha"), side="Blue", hex="B2"),
                       "b": Unit("b", UnitType(name="Bravo"), side="Red", hex="D3", strength="reduced")},
                hexes={"C2": HexState("C2", terrain="woods"), "B2": HexState("B2"), "D3": HexState("D3")})
    scene = scene_for_game(game, title="sketch")
    assert [name for name, _c, _t in scene.hexes] == ["B2", "C2", "D3"]
    image = draw(scene)
    cx, cy = offset_centre("C2")
    assert image.getpixel((round(cx), round(cy) + 12 + header_height(scene))) == TERRAIN_FILL["woods"]
    assert [c.reduced for c in scene.counters] == [False, True]


def test_scenario_file_renders_without_module(tmp_path: Path) -> None:
    scenario = tmp_path / "s.yaml"
    cli = CliRunner().invoke(main, ["import", str(SAVE), "--module", str(MODULE), "--profile", str(PROFILE),
                                    "-o", str(scenario)])
    assert cli.exit_code == 0, cli.output
    plain = picture(scenario, tmp_path / "plain.png")
    on_board = picture(scenario, tmp_path / "board.png", module=str(MODULE))
    assert len(plain.counters) == len(on_board.counters) == 8
    assert on_board.size == (808, 688)


def test_bad_requests_are_typed_errors(tmp_path: Path) -> None:
    with pytest.raises(RenderError, match="give --module and --profile"):
        picture(SAVE, tmp_path / "x.png")
    with pytest.raises(ActionSyntaxError, match="no unit at or named 'Z9'"):
        picture(SAVE, tmp_path / "x.png", sights=[("Z9", "t-64")], **COMMON)
    with pytest.raises(RenderError, match="not a column-letter row-number name"):
        offset_centre("0407x")
    assert not (tmp_path / "x.png").exists()


def test_hexes_with_map_positions_are_drawn_where_they_lie() -> None:
    from referee.hexes import Hex
    game = Game(units={"a": Unit("a", UnitType(name="A"), hex="X"), "b": Unit("b", UnitType(name="B"), hex="Y")},
                hexes={"X": HexState("X", at=Hex(0, 0)), "Y": HexState("Y", at=Hex(1, 0)),
                       "Z": HexState("Z", at=Hex(0, 1))})
    scene = scene_for_game(game)
    centres = {name: (sum(p[0] for p in c) / 6, sum(p[1] for p in c) / 6) for name, c, _t in scene.hexes}
    assert round(centres["Y"][0] - centres["X"][0], 6) == 54.0              # 1.5 radii east
    assert round(centres["Y"][1] - centres["X"][1], 6) == round(36 * 3 ** 0.5 / 2, 6)
    assert round(centres["Z"][1] - centres["X"][1], 6) == round(36 * 3 ** 0.5, 6)
    assert [c.at for c in scene.counters] == [centres["X"], centres["Y"]]


def test_module_without_board_images_gets_a_cropped_drawn_map(tmp_path: Path) -> None:
    """The Longest Day's buildFile comes without images, and its 2007 saves lay out boards of an
    older module version (the profile's board aliases place them on today's Normandy board)."""
    tld = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "tld-longest-day"
    scene = picture(tld / "scenarios" / "scenario_2.sav", tmp_path / "tld.png", module=str(tld / "buildFile"),
                    profile=str(Path(__file__).resolve().parents[1] / "profiles" / "longest-day.yaml"),
                    units=str(tld / "faces.csv"))
    assert scene.background is None
    assert len(scene.counters) == 12
    assert min(p[0] for _n, corners, _t in scene.hexes for p in corners) > -COUNTER
    assert Image.open(tmp_path / "tld.png").size == (scene.size[0], scene.size[1] + header_height(scene))
    assert scene.note == "board drawn from the module's grid: the module has no image of it"
    names = {name for name, _c, _t in scene.hexes}
    assert {"6059", "6964"} <= names and len(names) > 400      # every cell around the units, named
    centre = {name: (sum(p[0] for p in c) / 6, sum(p[1] for p in c) / 6) for name, c, _t in scene.hexes}
    unit_hexes = {c.name: c.at for c in scene.counters}
    assert all(min(abs(at[0] - x) + abs(at[1] - y) for x, y in centre.values()) < 2 for at in unit_hexes.values()
               if at not in [c.at for c in scene.counters if c.at != at])


def test_a_zoned_board_without_images_draws_its_cells_and_its_boxes(tmp_path: Path) -> None:
    """Ragnarok's main map is a ZonedGrid whose hex cells live in a zone, with boxes (the
    Endurance track) beside them; a draft profile reads its start position."""
    from converter.profile_draft import write_draft
    from converter.vassal.module import Module
    corpus = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "ragnarok-spi"
    written = write_draft(Module.read(corpus / "buildFile.xml"), tmp_path / "ragnarok.yaml")
    scene = picture(corpus / "ragnarok-start.vsav", tmp_path / "r.png", module=str(corpus / "buildFile.xml"),
                    profile=written.profile)
    assert len(scene.hexes) > 300
    assert len(scene.counters) == 13                  # the other 84 units are on the deployment map
    names = {name for name, _c, _t in scene.hexes}
    assert {"Endurance 001", "Endurance 020", "1701"} <= names      # the track's boxes are cells of a zone's grid
    assert [name for name, _p in scene.boxes] == ["warrior"]         # a zone named for itself: a box
    assert scene.outlines == []                       # the board's size is not known: no outline to draw


def test_badges_never_hide_a_name_and_labels_stay_inside_the_picture() -> None:
    counters = [Counter("a", "Leopard C1 Battalion HQ", (30, 30), 0, ("DISR", "OPS", "OOC")),
                Counter("b", "T-64", (44, 44), 1, ("DISR",)), Counter("c", "BMP-1", (58, 58), 1, ("FIRED", "OPS")),
                Counter("d", "M113", (200, 150), 0, ("OPS",))]
    scene = Scene((320, 200), counters=counters, title="a title long enough to be wrapped over two lines or more",
                  sights=[Sight((58, 58), (300, 190), True, "LOS clear"),
                          Sight((200, 150), (318, 10), False, "LOS blocked: a city hex between them blocks (TUS §7.1)")],
                  results={"b": "disrupted", "d": "eliminated"})
    plan = text_layout(scene)
    names = list(plan.name_boxes.values())
    badges = [box for boxes in plan.badges.values() for box, _tag in boxes]
    assert len(badges) == 7 and [tag for _box, tag in plan.badges[0]] == ["DISR", "OPS", "OOC"]
    others = badges + [box for box, _t in plan.results.values()] + [box for box, _t in plan.labels]
    assert not [(n, o) for n in names for o in others if n[0] < o[2] and o[0] < n[2] and n[1] < o[3] and o[1] < n[3]]
    for box in others:
        assert box[0] >= 0 and box[1] >= 0 and box[2] <= 320 and box[3] <= 200, box
    assert plan.labels[1][1] == "LOS blocked: a city hex between them\nblocks (TUS §7.1)"
    assert plan.names[0] == [((6.0, 5.0), "Leopard…", 9, "la")]     # covered: cut to the visible strip
    image = draw(scene)
    assert image.size == (320, header_height(scene) + 200 + 18 * 3 + 12)      # title above, key below


@given(st.lists(st.tuples(st.integers(-500, 500), st.integers(-500, 500)), max_size=60))
def test_the_closest_gap_is_the_smallest_distance_of_any_two_points(points: list[tuple[int, int]]) -> None:
    centres = [(x * 0.5, y * 0.25) for x, y in points]
    pairs = [math.dist(a, b) for i, a in enumerate(centres) for b in centres[i + 1:]]
    assert closest_gap(centres) == (min(pairs) if pairs else None)


def test_the_closest_gap_of_a_board_is_its_hex_spacing() -> None:
    # the centres of a 150 x 150 hex board (VASSAL's default grid: dx 56, dy 64; odd columns half a hex lower)
    centres = [(56.0 * col, 64.0 * row + (32.0 if col % 2 else 0.0)) for col in range(150) for row in range(150)]
    assert closest_gap(centres) == 64.0          # dy; the diagonal neighbour lies sqrt(56² + 32²) = 64.5 away
    assert closest_gap([(1.0, 1.0)]) is None and closest_gap([(3.0, 4.0), (3.0, 4.0)]) == 0.0


def _board_game(columns: int, rows: int, units: dict[str, str]) -> Game:
    """A game on a board of ``columns`` x ``rows`` hexes named like C5, at their cube coordinates."""
    from referee.hexes import Hex

    def name(col: int, row: int) -> str:
        return f"{chr(ord('A') + col % 26) * (col // 26 + 1)}{row + 1}"
    hexes = {name(c, r): HexState(name(c, r), at=Hex(c, r - (c - (c & 1)) // 2)) for c in range(columns)
             for r in range(rows)}
    return Game(units={key: Unit(key, UnitType(name=key), side="Blue", hex=where) for key, where in units.items()},
                hexes=hexes)


def test_around_units_keeps_the_block_of_columns_and_rows_round_the_units() -> None:
    game = _board_game(20, 20, {"a": "D5", "b": "F3"})   # columns 3..5, rows 2..4 (0-based)
    assert around_units(game, sorted(game.hexes)) == sorted(f"{c}{r}" for c in "BCDEFGH" for r in range(1, 8))
    empty = Game(units={}, hexes=game.hexes)
    assert around_units(empty, ["A1", "B2"]) == ["A1", "B2"]    # nothing to draw around


def test_a_bare_game_too_large_for_a_picture_is_drawn_round_its_units() -> None:
    game = _board_game(200, 200, {"a": "J10", "b": "K12"})   # 40,000 hexes: about 10,900 x 12,500 pixels
    scene = scene_for_game(game)
    assert scene.notes == ["the drawn map would be about 10906 x 12599 pixels, over the 32000000-pixel cap for a "
                           "picture; drawn around its units only"]
    assert sorted(name for name, _c, _t in scene.hexes) == sorted(f"{c}{r}" for c in "HIJKLM" for r in range(8, 15))
    assert scene.size == (406, 536)     # six columns and seven rows of 36-pixel hexes, and the margins
