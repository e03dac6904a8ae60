"""``wawkit render``: a position as a PNG picture, for a forum post or a chat.

A :class:`Scene` is what gets drawn: an optional board image, hex outlines (drawn
when there is no image), unit counters at their hexes with their printed name and
state, lines of sight coloured by the referee's answer, and the results of the last
resolution marked on the units they hit. Scenes come from a position read through
a module (the board image of the module, hex centres from its grid) or from a bare
Game (a drawn hex map, hexes placed by their VASSAL-style names).
"""
from __future__ import annotations

import io
import math
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Iterable, Mapping

from PIL import Image, ImageDraw, ImageFont

from converter.actions_text import resolve_actor, resolve_target
from converter.audit import AuditRecord
from converter.errors import GeometryError, WawkitError
from converter.files import head
from converter.resolve import read_position, ruleset_named
from converter.scenario import read_scenario
from converter.vassal.container import write_atomic
from converter.vassal.module import Module
from converter.vassal.images import MAX_DECODE_PIXELS, decode_image
from referee.actions import make_action
from referee.model import Game, Unit

Point = tuple[float, float]

SIDE_COLOURS = {0: ((196, 214, 235), (40, 70, 120)), 1: ((236, 196, 188), (130, 40, 30)),
                2: ((214, 226, 190), (60, 90, 30))}
TERRAIN_FILL = {"clear": (226, 222, 186), "woods": (120, 160, 96), "forest": (120, 160, 96),
                "town": (176, 176, 176), "city": (160, 160, 160), "rough": (190, 168, 130),
                "hill": (204, 180, 128), "water": (140, 180, 220), "marsh": (170, 196, 170)}
LOS_COLOURS = {True: (20, 150, 40), False: (200, 30, 30), None: (230, 130, 0)}
RESULT_COLOUR = (210, 20, 20)
RESULT_TEXT = {"disrupted": "DISRUPTED", "reduced": "REDUCED", "disrupted_and_reduced": "DISRUPTED + REDUCED",
               "eliminated": "ELIMINATED", "none": "NO EFFECT"}
COUNTER = 54
#: How far each counter of a stack lies right of and below the one under it.
STACK_STEP = 14
_NAME = re.compile(r"^([A-Za-z]+)(\d+)$")


class RenderError(WawkitError):
    """A picture that cannot be drawn (no map, nothing to place, unwritable output)."""


@dataclass(frozen=True)
class Counter:
    """One unit as drawn: where, what it is called, its side index and its state tags."""

    key: str
    name: str
    at: Point
    side: int
    tags: tuple[str, ...] = ()
    reduced: bool = False


@dataclass(frozen=True)
class Sight:
    """A line of sight from one unit to another and whether the referee says it is clear."""

    start: Point
    end: Point
    clear: bool | None
    label: str


@dataclass
class Scene:
    """Everything one picture shows."""

    size: tuple[int, int]
    background: Image.Image | None = None
    hexes: list[tuple[str, list[Point], str | None]] = field(default_factory=list)
    counters: list[Counter] = field(default_factory=list)
    sights: list[Sight] = field(default_factory=list)
    results: dict[str, str] = field(default_factory=dict)
    title: str = ""
    notes: list[str] = field(default_factory=list)
    """What could not be drawn (a board image that cannot be read), for the command to say."""


@lru_cache(maxsize=None)
def _font(size: int) -> ImageFont.ImageFont:
    """DejaVu Sans where the system has it (it has the § of rule sections), else Pillow's own."""
    try:
        return ImageFont.truetype("DejaVuSans.ttf", size)
    except OSError:
        return ImageFont.load_default(size)


def _tags(unit: Unit) -> tuple[str, ...]:
    status = unit.status
    tags = [tag for on, tag in ((status.disrupted, "DISR"), (status.ops_complete, "OPS"),
                                (status.out_of_command, "OOC"), (status.fired, "FIRED")) if on]
    return tuple(tags)


def side_index(game: Game) -> Callable[[Unit], int]:
    """Sides numbered in sorted order, so each side has the same colour in every picture."""
    sides = sorted({u.side for u in game.units.values() if u.side})
    return lambda unit: sides.index(unit.side) % len(SIDE_COLOURS) if unit.side in sides else 2


def counters(game: Game, centre: Callable[[str], Point]) -> list[Counter]:
    """The units on the map as counters; stacked units fan out a little."""
    side = side_index(game)
    drawn: list[Counter] = []
    seen: dict[str, int] = {}
    for unit in sorted(game.units.values(), key=lambda u: (u.hex or "", u.stack_order or 99, u.key)):
        if not unit.on_map or unit.hex is None:
            continue
        x, y = centre(unit.hex)
        offset = seen.get(unit.hex, 0)
        seen[unit.hex] = offset + 1
        drawn.append(Counter(unit.key, unit.name, (x + STACK_STEP * offset, y + STACK_STEP * offset), side(unit),
                             _tags(unit),
                             unit.strength == "reduced"))
    return drawn


# -- drawing -------------------------------------------------------------------------------

def draw(scene: Scene) -> Image.Image:
    """The scene as an RGB image."""
    image = Image.new("RGB", scene.size, (244, 240, 226))
    if scene.background is not None:
        image.paste(scene.background.convert("RGB"), (0, 0))
    pen = ImageDraw.Draw(image)
    for name, corners, terrain in scene.hexes:
        pen.polygon(corners, fill=TERRAIN_FILL.get(terrain or "clear", (226, 222, 186)), outline=(90, 90, 90))
        cx = sum(p[0] for p in corners) / len(corners)
        top = min(p[1] for p in corners)
        pen.text((cx, top + 8), name, fill=(40, 40, 40), font=_font(10), anchor="mm")
    for sight in scene.sights:
        _draw_sight(pen, sight)
    spots = [c.at for c in scene.counters]
    for index, counter in enumerate(scene.counters):
        x, y = counter.at
        covered = any(0 < ox - x <= STACK_STEP and 0 < oy - y <= STACK_STEP for ox, oy in spots[index + 1:])
        _draw_counter(pen, counter, scene.results.get(counter.key), covered)
    if scene.title:
        _draw_title(pen, scene.title, scene.size)
    _draw_legend(pen, scene)
    return image


def _draw_legend(pen: ImageDraw.ImageDraw, scene: Scene) -> None:
    """A key in the lower left corner for the colours the picture uses (only those it uses)."""
    entries = [(LOS_COLOURS[clear], text) for clear, text in ((True, "LOS clear"), (False, "LOS blocked"),
                                                             (None, "LOS not known"))
               if any(s.clear is clear for s in scene.sights)]
    if scene.results:
        entries.append((RESULT_COLOUR, "result of the last resolution"))
    if not entries:
        return
    font = _font(12)
    width = max(pen.textlength(text, font=font) for _c, text in entries) + 40
    height = 18 * len(entries) + 8
    x0, y0 = 8, scene.size[1] - height - 8
    pen.rectangle((x0, y0, x0 + width, y0 + height), fill=(255, 255, 255), outline=(60, 60, 60))
    for index, (colour, text) in enumerate(entries):
        y = y0 + 13 + 18 * index
        pen.line((x0 + 6, y, x0 + 26, y), fill=colour, width=4)
        pen.text((x0 + 32, y), text, fill=(20, 20, 20), font=font, anchor="lm")


def _draw_sight(pen: ImageDraw.ImageDraw, sight: Sight) -> None:
    colour = LOS_COLOURS[sight.clear]
    if sight.clear is None:
        _dashed(pen, sight.start, sight.end, colour)
    else:
        pen.line([sight.start, sight.end], fill=colour, width=4)
    mx, my = (sight.start[0] + sight.end[0]) / 2, (sight.start[1] + sight.end[1]) / 2 - 14
    text = sight.label
    box = pen.textbbox((mx, my), text, font=_font(12), anchor="mm")
    pen.rectangle((box[0] - 3, box[1] - 2, box[2] + 3, box[3] + 2), fill=(255, 255, 255), outline=colour)
    pen.text((mx, my), text, fill=colour, font=_font(12), anchor="mm")


def _dashed(pen: ImageDraw.ImageDraw, start: Point, end: Point, colour: tuple[int, int, int]) -> None:
    length = math.dist(start, end)
    steps = max(1, int(length // 10))
    for i in range(0, steps, 2):
        a, b = i / steps, min(1.0, (i + 1) / steps)
        pen.line([(start[0] + (end[0] - start[0]) * a, start[1] + (end[1] - start[1]) * a),
                  (start[0] + (end[0] - start[0]) * b, start[1] + (end[1] - start[1]) * b)], fill=colour, width=4)


def _draw_counter(pen: ImageDraw.ImageDraw, counter: Counter, result: str | None, covered: bool = False) -> None:
    fill, ink = SIDE_COLOURS[counter.side]
    x, y = counter.at
    half = COUNTER / 2
    box = (x - half, y - half, x + half, y + half)
    pen.rectangle((box[0] + 2, box[1] + 2, box[2] + 2, box[3] + 2), fill=(60, 60, 60))
    pen.rectangle(box, fill=fill, outline=ink, width=2)
    if covered:      # another counter lies on this one: its name goes on the strip still visible
        pen.text((box[0] + 3, box[1] + 2), counter.name, fill=ink, font=_font(9))
    else:
        for index, line in enumerate(_wrap(pen, counter.name, COUNTER - 6)):
            pen.text((x, y - 6 + 13 * index), line, fill=ink, font=_font(12), anchor="mm")
    if counter.reduced:
        pen.rectangle((box[0] + 3, box[3] - 14, box[2] - 3, box[3] - 3), fill=ink)
        pen.text((x, box[3] - 8), "REDUCED", fill=fill, font=_font(9), anchor="mm")
    for index, tag in enumerate(counter.tags):
        tx, ty = x + half - 2, y - half + 2 + 13 * index
        tb = pen.textbbox((tx, ty), tag, font=_font(9), anchor="ra")
        pen.rectangle((tb[0] - 2, tb[1] - 1, tb[2] + 2, tb[3] + 1), fill=(235, 200, 40), outline=(60, 60, 60))
        pen.text((tx, ty), tag, fill=(0, 0, 0), font=_font(9), anchor="ra")
    if result is not None:
        pen.ellipse((x - half - 8, y - half - 8, x + half + 8, y + half + 8), outline=RESULT_COLOUR, width=4)
        text = RESULT_TEXT.get(result, result.upper())
        tb = pen.textbbox((x, y + half + 18), text, font=_font(13), anchor="mm")
        pen.rectangle((tb[0] - 4, tb[1] - 3, tb[2] + 4, tb[3] + 3), fill=RESULT_COLOUR)
        pen.text((x, y + half + 18), text, fill=(255, 255, 255), font=_font(13), anchor="mm")


def _wrap(pen: ImageDraw.ImageDraw, text: str, width: int) -> list[str]:
    """The counter's name on at most two lines that fit its width."""
    words = text.split()
    lines: list[str] = []
    for word in words:
        if lines and pen.textlength(f"{lines[-1]} {word}", font=_font(12)) <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines[:2]


def _draw_title(pen: ImageDraw.ImageDraw, title: str, size: tuple[int, int]) -> None:
    box = pen.textbbox((8, 6), title, font=_font(14))
    pen.rectangle((box[0] - 4, box[1] - 3, box[2] + 4, box[3] + 3), fill=(255, 255, 255), outline=(60, 60, 60))
    pen.text((8, 6), title, fill=(20, 20, 20), font=_font(14))


def png_bytes(scene: Scene) -> bytes:
    out = io.BytesIO()
    draw(scene).save(out, format="PNG", optimize=True)
    return out.getvalue()


def write_png(scene: Scene, path: str | os.PathLike[str]) -> None:
    """Write the picture atomically (a temporary file renamed into place)."""
    write_atomic(path, png_bytes(scene), overwrite=True)


# -- scenes from a module map ----------------------------------------------------------------

def board_image(module: Any, geometry: Any) -> tuple[Image.Image | None, tuple[int, int]]:
    """The map's boards pasted at their places, and the map's size; no image -> (None, size)."""
    placements = geometry.placement()
    sizes = [(p.x + p.board.size[0], p.y + p.board.size[1]) for p in placements if p.board.size]
    if not sizes:
        return None, (0, 0)
    size = (max(s[0] for s in sizes), max(s[1] for s in sizes))
    archive = getattr(module, "archive", None)
    notes = getattr(module, "notes", [])
    if size[0] * size[1] > MAX_DECODE_PIXELS:
        notes.append(f"the map is {size[0]} x {size[1]} pixels, over the {MAX_DECODE_PIXELS}-pixel cap for a "
                     "picture; drawn without its board images")
        return None, size
    canvas: Image.Image | None = None
    for placement in placements:
        if archive is None or not placement.board.image:
            continue
        entry = archive.image_entry(placement.board.image)
        if entry is None:
            continue
        try:
            picture = decode_image(archive.read(entry), file=archive.file, entry=entry)
        except WawkitError as error:  # drawn without this board's picture
            notes.append(f"board {placement.board.name!r}: {error.message}; drawn without its image")
            continue
        if placement.reversed:
            picture = picture.rotate(180)
        canvas = canvas or Image.new("RGB", size, (244, 240, 226))
        canvas.paste(picture, (placement.x, placement.y))
    return canvas, size


def scene_for_map(game: Game, module: Any, map_name: str, layout: Any = None, *, title: str = "") -> Scene:
    """Units of ``game`` on a module map: its board image, or drawn hexes where it has none."""
    geometry = module.map(map_name).geometry(layout)
    background, size = board_image(module, geometry)

    def centre(hex_id: str) -> Point:
        x, y = geometry.locate(hex_id)
        return float(x), float(y)
    notes = list(getattr(module, "notes", []))
    if background is not None:
        return Scene(size, background, title=title, counters=counters(game, _safe(centre)), notes=notes)
    # No board image: draw the hexes the game names, cropped to them.
    names = sorted({h for h in game.hexes} | {u.hex for u in game.units.values() if u.hex and u.on_map})
    raw = {name: _safe(centre)(name) for name in names}
    left = min((x for x, _ in raw.values()), default=0.0) - 60
    top = min((y for _, y in raw.values()), default=0.0) - 60

    def cropped(hex_id: str) -> Point:
        x, y = raw[hex_id]
        return x - left, y - top
    scene = Scene((0, 0), None, _hex_outlines(game, cropped), counters(game, cropped), title=title, notes=notes)
    scene.size = _fit(scene)
    return scene


def _safe(centre: Callable[[str], Point]) -> Callable[[str], Point]:
    def wrapped(hex_id: str) -> Point:
        try:
            return centre(hex_id)
        except GeometryError as error:
            raise RenderError(f"cannot place hex {hex_id!r}: {error.message}") from None
    return wrapped


def _hex_outlines(game: Game, centre: Callable[[str], Point]) -> list[tuple[str, list[Point], str | None]]:
    """Outlines of every hex the game names, sized from the spacing of their centres."""
    names = sorted({h for h in game.hexes} | {u.hex for u in game.units.values() if u.hex and u.on_map})
    points = {name: centre(name) for name in names}
    gaps = [math.dist(a, b) for i, a in enumerate(points.values()) for b in list(points.values())[i + 1:]]
    radius = (min(gaps) / math.sqrt(3)) if gaps else 32.0
    outlines = []
    for name, (x, y) in points.items():
        corners = [(x + radius * math.cos(math.pi / 3 * k), y + radius * math.sin(math.pi / 3 * k)) for k in range(6)]
        outlines.append((name, corners, game.hexes[name].terrain if name in game.hexes else None))
    return outlines


def _fit(scene: Scene) -> tuple[int, int]:
    xs = [p[0] for _, corners, _ in scene.hexes for p in corners] + [c.at[0] + COUNTER for c in scene.counters]
    ys = [p[1] for _, corners, _ in scene.hexes for p in corners] + [c.at[1] + COUNTER for c in scene.counters]
    return (int(max(xs, default=200) + 40), int(max(ys, default=200) + 40))


# -- scenes from a bare game (no module) ------------------------------------------------------

def offset_centre(name: str, radius: float = 36.0) -> Point:
    """Centre of a hex named like ``C5`` (column letters, row number) on a flat-topped map
    whose odd columns lie half a hex lower, as VASSAL numbers them by default."""
    match = _NAME.match(name)
    if match is None:
        raise RenderError(f"hex {name!r} is not a column-letter row-number name; give the module")
    letters, row = match.group(1).upper(), int(match.group(2)) - 1
    col = 0
    for letter in letters:
        col = col * 26 + (ord(letter) - ord("A") + 1)
    col -= 1
    width, height = radius * 1.5, radius * math.sqrt(3)
    return (radius + 20 + col * width, height / 2 + 40 + row * height + (height / 2 if col % 2 else 0.0))


def cube_centre(at: Any, radius: float = 36.0) -> Point:
    """Centre of a hex given by cube coordinates on a flat-topped map (VASSAL's default grid)."""
    return radius * 1.5 * at.q, radius * math.sqrt(3) * (at.r + at.q / 2)


def scene_for_game(game: Game, *, title: str = "") -> Scene:
    """A drawn hex map of the hexes the game names, units placed at their hexes: by the
    hexes' map positions when the game has them (true adjacency), else by their names."""
    names = {h for h in game.hexes} | {u.hex for u in game.units.values() if u.hex and u.on_map}
    placed = {n: game.hexes[n].at for n in names if n in game.hexes and game.hexes[n].at is not None}
    if placed and len(placed) == len(names):
        raw = {name: cube_centre(at) for name, at in placed.items()}
        left = min(x for x, _ in raw.values()) - 60
        top = min(y for _, y in raw.values()) - 60

        def centre(hex_id: str) -> Point:
            x, y = raw[hex_id]
            return x - left, y - top
    else:
        centre = _safe(offset_centre)
    scene = Scene((0, 0), None, _hex_outlines(game, centre), counters(game, centre), title=title)
    scene.size = _fit(scene)
    return scene


# -- annotations -------------------------------------------------------------------------------

def add_sight(scene: Scene, game: Game, ruleset: Any, actor: str, target: str) -> Sight:
    """Ask the referee for LOS between two units and draw the line in its colour."""
    answer = ruleset.check(game, make_action("los", unit=actor, target=target))
    blocked = answer.values.get("blocked")
    clear = (not blocked) if isinstance(blocked, bool) else None
    where = {c.key: c.at for c in scene.counters}
    if actor not in where or target not in where:
        raise RenderError(f"LOS {actor} -> {target}: both units must be on the map drawn")
    label = {True: "LOS clear", False: "LOS blocked", None: "LOS not known"}[clear]
    reason = next((r for r in answer.reasons if r.section), None)
    if clear is False and reason is not None:
        label = f"LOS blocked: {reason.text}"
    sight = Sight(where[actor], where[target], clear, label)
    scene.sights.append(sight)
    return sight


def mark_results(scene: Scene, results: Iterable[Mapping[str, str]]) -> None:
    """Mark the units a resolution hit (``[{unit, result}]`` as an audit record holds them)."""
    for item in results:
        scene.results[item["unit"]] = item["result"]


# -- the whole job ------------------------------------------------------------------------------

def _is_save(path: str | os.PathLike[str]) -> bool:
    """A save or log by its name, or any zip (VASSAL 2.x files have no fixed suffix)."""
    return os.path.splitext(str(path))[1].lower() in (".vsav", ".vlog", ".sav", ".log") or head(path, 2) == b"PK"


def picture(source: str | os.PathLike[str], output: str | os.PathLike[str], *, module: str | None = None,
            profile: str | None = None, units: str | None = None, map_name: str | None = None,
            sights: Iterable[tuple[str, str]] = (),
            audit: str | None = None, ruleset: str | None = None) -> Scene:
    """Draw a save (read through module + profile) or a scenario file, annotate it, write the PNG."""
    title = os.path.basename(str(source))
    rules = ruleset or "classic"
    if _is_save(source):
        if module is None or profile is None:
            raise RenderError("a save is drawn through its module and profile: give --module and --profile",
                              file=str(source))
        position = read_position(source, module, profile, units=units)
        game = position.game
        judged = position.profile.ruleset_name(ruleset) if sights else rules
        if judged is None:
            raise RenderError(f"--los asks the referee, but the profile says module {position.profile.module!r} "
                              "is judged by no rules (rules: none)", file=profile)
        rules = judged
        chosen_map = map_name or position.profile.main_map
        layout = position.save.board_layouts().get(chosen_map)
        if layout and any(placed.name in position.profile.board_aliases for placed in layout):
            layout = None      # boards of an older module: the import placed their hexes on today's board
        scene = scene_for_map(game, position.module, chosen_map, layout, title=title)
    else:
        game = read_scenario(source).game
        if module is not None:
            module_obj = Module.read(module)
            chosen_map = map_name or next((m.name for m in module_obj.maps if any(b.grid for b in m.boards)), None)
            if chosen_map is None:
                raise RenderError("the module has no map with a grid", file=module)
            scene = scene_for_map(game, module_obj, chosen_map, title=title)
        else:
            scene = scene_for_game(game, title=title)
    referee = ruleset_named(rules) if sights else None
    for first, second in sights:
        actor = resolve_actor(game, first, f"--los {first} {second}")
        add_sight(scene, game, referee, actor.key, resolve_target(game, actor, second, f"--los {first} {second}"))
    if audit is not None:
        results = AuditRecord.read(audit).results
        mark_results(scene, results)
        names = {u.key: u.name for u in game.units.values()}
        scene.title += "  |  last resolution: " + "; ".join(
            f"{names.get(r['unit'], r['unit'])} {RESULT_TEXT.get(r['result'], r['result']).lower()}" for r in results)
    write_png(scene, output)
    return scene


__all__ = ["picture", "Scene", "Counter", "Sight", "draw", "png_bytes", "write_png", "scene_for_map", "scene_for_game",
           "add_sight", "mark_results", "offset_centre", "RenderError"]
