"""Location names reproduced from real VASSAL files: every name VASSAL printed in
tour.log's chat, and a hex for every piece on The Longest Day's main map."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from converter.errors import GeometryError
from converter.vassal.commands import AddPiece, BoardPicker, ChangePiece, Chat, MovePiece, RemovePiece
from converter.vassal.grids.placement import PlacedBoard, parse_board_picker
from converter.vassal.module import Module, location_of
from converter.vassal.save import SavedGame

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
TOUR = CORPUS / "vassal-tour"
TLD = CORPUS / "tld-longest-day"

_MOVE = re.compile(r"moves (.+) -> (.+) \*")
_LOCATION = [re.compile(p) for p in (r"created in (.+)$", r"deleted from (.+?) \* ?$", r"^\* (\S+): ",
                                     r" in (\S+)$")]


def _tour_observations() -> list[tuple[str, str, str]]:
    """(what, name VASSAL printed, name wawkit computes) for every location in tour.log's chat."""
    module = Module.read(TOUR / "tour.mod")
    game = SavedGame.read(TOUR / "tour.log")
    layouts = dict(parse_board_picker(bp.encode()) for bp in game.board_pickers)
    where: dict[str, tuple[str, int, int]] = {}
    holder: dict[str, str] = {}
    last: str | None = None
    last_move: tuple[str, str] | None = None
    found = []

    def name_at(map_name: str, x: int, y: int) -> str:
        return location_of(module, map_name, x, y, layouts[map_name])

    for step in game.log_steps:
        for command in step.commands():
            if isinstance(command, BoardPicker):
                map_id, layout = parse_board_picker(command.encode())
                layouts[map_id] = layout
            elif isinstance(command, AddPiece):
                fields = command.state_text.split(";")
                if command.type_text == "stack":
                    where[command.id] = (fields[0], int(fields[1]), int(fields[2]))
                    for member in fields[3:]:
                        holder[member] = command.id
                elif "Main Map" in command.state_text:
                    tail = command.state_text.rsplit("\t", 1)[-1].split(";")
                    where[command.id] = (tail[0].lstrip("\\"), int(tail[1]), int(tail[2]))
                last = command.id
            elif isinstance(command, MovePiece):
                old = name_at(command.old_map, command.old_x, command.old_y)
                where[command.id] = (command.new_map, command.new_x, command.new_y)
                last_move = (old, name_at(command.new_map, command.new_x, command.new_y))
                last = command.id
            elif isinstance(command, (ChangePiece, RemovePiece)):
                last = command.id
            elif isinstance(command, Chat) and not command.message.startswith("<"):
                move = _MOVE.search(command.message)
                if move:
                    assert last_move is not None
                    found.append((command.message, move.group(1), last_move[0]))
                    found.append((command.message, move.group(2), last_move[1]))
                    continue
                for pattern in _LOCATION:
                    match = pattern.search(command.message)
                    if match:
                        assert last is not None
                        map_name, x, y = where[holder.get(last, last)]
                        found.append((command.message, match.group(1), name_at(map_name, x, y)))
                        break
    return found


def test_every_location_in_tour_log_chat_is_reproduced() -> None:
    observations = _tour_observations()
    assert [(said, ours) for _, said, ours in observations if said != ours] == []
    printed = {said for _, said, _ in observations}
    # hex (SL board), square with descending rows, zones, regions, and a fixed-format square grid
    assert {"G7", "H6", "I6", "J5", "P3", "O4", "N4", "M5", "L4", "K4", "J4", "I5", "K6"} <= printed
    assert {"0,0", "1,-1", "2,-2", "2,-3", "2,-4", "2,-5"} <= printed
    assert {"Japanese Islands", "Japan", "Okinawa", "Turn 7 Returns", "dungeon"} <= printed
    assert len(observations) == 57


def test_tour_hex_worked_example() -> None:
    module = Module.read(TOUR / "tour.mod")
    layout = [("SL", False, 0, 0)]
    assert location_of(module, "Main Map", 337, 419, layout) == "G7"
    assert location_of(module, "Main Map", 393, 386, layout) == "H6"
    geometry = module.map("Main Map").geometry(layout)
    assert geometry.locate("G7") == (337, 419)
    assert geometry.locate("H6") == (393, 386)
    assert geometry.locate("K6") == (562, 354)


def test_reversed_board_mirrors_the_point() -> None:
    module = Module.read(TOUR / "tour.mod")
    forward = module.map("Main Map").geometry([("SL", False, 0, 0)])
    backward = module.map("Main Map").geometry([PlacedBoard("SL", True, 0, 0)])
    width, height = module.map("Main Map").board("SL").size  # 1799 x 645
    assert (width, height) == (1799, 645)
    assert backward.location_name(width - 337, height - 419) == "G7"
    assert backward.locate("G7") == (width - 337, height - 419)
    assert forward.location_name(width - 337, height - 419) != "G7"


def test_multi_board_layout_offsets_by_board_sizes_and_edges() -> None:
    module = Module.read(TOUR / "tour.mod")
    main = module.map("Main Map")
    geometry = main.geometry([("plain", False, 0, 0), ("SL", False, 1, 0), ("Empty", False, 0, 1)])
    assert [(p.board.name, p.x, p.y) for p in geometry.placements] == [
        ("plain", 0, 0), ("SL", 1008, 0), ("Empty", 0, 1008)]
    assert geometry.location_name(1008 + 337, 419) == "G7"
    assert geometry.location_name(504, 504) == "0,0"
    assert geometry.location_name(200, 1008 + 125) == "dungeon"
    assert geometry.location_name(1008 + 1799, 10) is None  # past the SL board: offboard
    assert location_of(module, "Main Map", 1008 + 1799, 10, [("plain", False, 0, 0), ("SL", False, 1, 0)]) \
        == "offboard"
    assert geometry.locate("G7", board="SL") == (1008 + 337, 419)


def test_unknown_board_in_layout_is_a_geometry_error() -> None:
    module = Module.read(TOUR / "tour.mod")
    with pytest.raises(GeometryError, match="no board 'Nowhere'"):
        location_of(module, "Main Map", 1, 1, [("Nowhere", False, 0, 0)])
    with pytest.raises(GeometryError, match="no map 'Atlantis'"):
        location_of(module, "Atlantis", 1, 1)


def test_parse_board_picker_command() -> None:
    assert parse_board_picker("Main MapBoardPicker\tSL/rev\t1\t0\tplain\t0\t0") == (
        "Main Map", [PlacedBoard("SL", True, 1, 0), PlacedBoard("plain", False, 0, 0)])
    with pytest.raises(GeometryError, match="not two integers"):
        parse_board_picker("MapBoardPicker\tSL\tx\t0")
    with pytest.raises(GeometryError, match="not a BoardPicker"):
        parse_board_picker("CHAT hello")


def _normandy_names(game: SavedGame, module: Module) -> list[tuple[str, str | None, tuple[int, int]]]:
    layouts = dict(parse_board_picker(bp.encode()) for bp in game.board_pickers)
    geometry = module.map("Normandy").geometry(layouts["Normandy"])
    named = []
    for piece_id in game.pieces:
        if game.stack_of(piece_id) is not None:
            continue
        map_name, x, y = game.position(piece_id)
        if map_name == "Normandy":
            named.append((piece_id, geometry.location_name(x, y), (x, y)))
    return named


@pytest.mark.parametrize("save, pieces, in_zones", [("scenarios/campaign.sav", 414, 14),
                                                    ("logs/0606-1.log", 411, 14), ("logs/0608-3.log", 961, 6)])
def test_every_piece_on_the_normandy_map_gets_a_hex_that_exists(save: str, pieces: int, in_zones: int) -> None:
    module = Module.read(TLD / "buildFile")
    geometry = module.map("Normandy").geometry()
    hexgrid = geometry.placements[0].board.grid.background
    zones = {zone.name for zone in geometry.placements[0].board.grid.zones}
    named = _normandy_names(SavedGame.read(TLD / save), module)
    assert len(named) == pieces
    assert sum(1 for _, name, _ in named if name in zones) == in_zones
    for piece_id, name, point in named:
        assert name is not None, piece_id
        if name in zones:
            continue
        assert re.fullmatch(r"\d{4}", name), (piece_id, name)
        # Every piece sits where VASSAL snapped it: exactly where wawkit places a piece in that hex.
        assert geometry.locate(name) == point, (piece_id, name)
        column, row = hexgrid.numbering.parse(name)
        assert 0 <= column <= 100 and 0 <= row <= 80


@pytest.mark.parametrize("save, board", [("scenario_1.sav", "Board F"), ("scenario_2.sav", "Board G"),
                                         ("scenario_3.sav", "Board ABCF"), ("scenario_4.sav", "Board A")])
def test_scenarios_made_with_an_older_board_set_are_reported(save: str, board: str) -> None:
    # These four saves lay out boards of an earlier module version; this buildFile only has "Normandy".
    module = Module.read(TLD / "buildFile")
    game = SavedGame.read(TLD / "scenarios" / save)
    with pytest.raises(GeometryError, match=f"no board '{board}'"):
        _normandy_names(game, module)


def test_a_point_on_a_deck_is_named_after_the_deck() -> None:
    module = Module.read(CORPUS / "ccn-napoleonics" / "buildFile.xml")
    main_map = module.map("Main Map")
    deck = main_map.decks[0]
    assert (deck.name, deck.x, deck.y, deck.owning_board) == ("Draw Deck", 85, 433, "Side Board")
    geometry = main_map.geometry([("Side Board", False, 0, 0)])
    assert geometry.location_name(85, 433) == "Draw Deck"
    assert geometry.location_name(86, 433) != "Draw Deck"


def test_zone_names_locate_inside_their_polygons() -> None:
    module = Module.read(TOUR / "tour.mod")
    geometry = module.map("Main Map").geometry([("VIP", False, 0, 0)])
    for name in ("Japanese Islands", "Aleutian Islands", "North Pacific", "Japan", "Turn 7 Returns"):
        assert geometry.location_name(*geometry.locate(name)) == name


def test_at_start_stacks_sit_where_their_grid_location_is() -> None:
    module = Module.read(CORPUS / "paths-of-glory" / "buildFile.xml")
    named, elsewhere, by_xy = 0, [], 0
    for map_def in module.maps:
        for stack in map_def.at_start_stacks:
            layout = [(stack.owning_board or map_def.boards[0].name, False, 0, 0)]
            point = map_def.at_start_position(stack, layout)
            if not stack.use_grid_location:
                assert point == (stack.x, stack.y)
                by_xy += 1
                continue
            name = map_def.geometry(layout).location_name(*point)
            if name == stack.location:
                named += 1
            else:
                elsewhere.append((stack.name, stack.location, point, name))
    assert (named, by_xy) == (431, 238)
    # This region's origin lies inside the zone "Naples", and zones name a point before the background grid.
    assert elsewhere == [("AP Action 6 (d)", "Action_AP_6", (1838, 2745), "Naples")]


@pytest.mark.parametrize("log, moves", [("0606-1.log", 556), ("0608-3.log", 476)])
def test_every_logged_move_on_normandy_lands_on_the_centre_of_its_hex(log: str, moves: int) -> None:
    module = Module.read(TLD / "buildFile")
    geometry = module.map("Normandy").geometry()
    landed = [(m.new_x, m.new_y) for step in SavedGame.read(TLD / "logs" / log).log_steps
              for m in step.commands() if isinstance(m, MovePiece) and m.new_map == "Normandy"]
    assert len(landed) == moves
    assert [p for p in landed if geometry.locate(geometry.location_name(*p)) != p] == []
