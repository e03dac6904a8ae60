"""``wawkit render``: a position as a PNG picture, for a forum post or a chat.

A :class:`Scene` is what gets drawn: an optional board image, hex outlines (drawn
when there is no image), unit counters at their hexes with their printed name and
state, lines of sight coloured by the referee's answer, and the results of the last
resolution marked on the units they hit. Scenes come from a position read through
a module (the board image of the module, hex centres from its grid) or from a bare
Game (a drawn hex map, hexes placed by their VASSAL-style names).
"""
from __future__ import annotations

import bisect
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
from converter.drawn_board import draw_board
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
#: On a board drawn from the module's grid, cells are drawn at least this many pixels across.
DRAWN_CELL = 96
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
    boxes: list[tuple[str, list[Point]]] = field(default_factory=list)
    """Holding boxes drawn on a board (zones named for themselves), when the board is drawn."""
    outlines: list[tuple[str, list[Point]]] = field(default_factory=list)
    """Board outlines, when the board is drawn from the module's geometry."""
    note: str = ""
    """Said under the title: how the board was drawn."""
    notes: list[str] = field(default_factory=list)
    """What could not be drawn (a board image that cannot be read), for the command to say."""
    labels: dict[str, Point] = field(default_factory=dict)
    """Centres of the hexes the position names, for a drawing that names them on a board image (SVG)."""


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


def counters(game: Game, centre: Callable[[str], Point],
             placed: Mapping[str, Point] | None = None) -> list[Counter]:
    """The units on the map as counters, and those of ``placed`` (units in a box drawn on the
    map, at their point); stacked units fan out a little."""
    side = side_index(game)
    drawn: list[Counter] = []
    seen: dict[Any, int] = {}
    placed = placed or {}
    for unit in sorted(game.units.values(), key=lambda u: (u.hex or u.location, u.stack_order or 99, u.key)):
        if unit.on_map and unit.hex is not None:
            spot: Any = unit.hex
            x, y = centre(unit.hex)
        elif unit.key in placed:
            x, y = spot = placed[unit.key]
        else:
            continue
        offset = seen.get(spot, 0)
        seen[spot] = offset + 1
        drawn.append(Counter(unit.key, unit.name, (x + STACK_STEP * offset, y + STACK_STEP * offset), side(unit),
                             _tags(unit),
                             unit.strength == "reduced"))
    return drawn


# -- drawing -------------------------------------------------------------------------------

Box = tuple[float, float, float, float]
TAG_FONT, NAME_FONT, STRIP_FONT = 9, 12, 9
#: Ink of hex and box names, and of board outlines, on a board drawn from the module's grid.
GRID_INK, BOX_FILL = (90, 90, 90), (236, 232, 214)


def _measure() -> ImageDraw.ImageDraw:
    return ImageDraw.Draw(Image.new("RGB", (1, 1)))


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _inside(box: Box, size: tuple[int, int]) -> bool:
    return box[0] >= 0 and box[1] >= 0 and box[2] <= size[0] and box[3] <= size[1]


def _clamped(box: Box, size: tuple[int, int], margin: float = 2) -> Box:
    """``box`` moved (not shrunk) to lie inside the picture, as far as it fits."""
    width, height = box[2] - box[0], box[3] - box[1]
    left = min(max(box[0], margin), max(margin, size[0] - margin - width))
    top = min(max(box[1], margin), max(margin, size[1] - margin - height))
    return (left, top, left + width, top + height)


@dataclass
class Layout:
    """Where each piece of text goes, decided before drawing so that none hides another:
    the name of each counter (centred, or on the strip a covering counter leaves), the status
    badges of each counter (beside it where they cover no name and stay in the picture), and
    the label of each line of sight (inside the picture)."""

    names: dict[int, list[tuple[Point, str, int, str]]] = field(default_factory=dict)   # counter -> (xy, text, size, anchor)
    name_boxes: dict[int, Box] = field(default_factory=dict)
    badges: dict[int, list[tuple[Box, str]]] = field(default_factory=dict)
    results: dict[int, tuple[Box, str]] = field(default_factory=dict)
    labels: list[tuple[Box, str]] = field(default_factory=list)


def _covered(scene: Scene, index: int) -> bool:
    x, y = scene.counters[index].at
    return any(0 < ox - x <= STACK_STEP and 0 < oy - y <= STACK_STEP for ox, oy in
               (c.at for c in scene.counters[index + 1:]))


def text_layout(scene: Scene) -> Layout:
    """The :class:`Layout` of a scene (what :func:`draw` draws; tests check its boxes)."""
    pen = _measure()
    plan = Layout()
    half = COUNTER / 2
    for index, counter in enumerate(scene.counters):
        x, y = counter.at
        if _covered(scene, index):      # another counter lies on this one: its name goes on the strip still visible
            spot = (x - half + 3, y - half + 2)
            name = _cut(pen, counter.name, COUNTER - 6, STRIP_FONT)
            plan.names[index] = [(spot, name, STRIP_FONT, "la")]
            box = pen.textbbox(spot, name, font=_font(STRIP_FONT), anchor="la")
        else:
            lines, font_size = _fitted(pen, counter.name, COUNTER - 6)
            plan.names[index] = [((x, y - 6 + 13 * i), line, font_size, "mm") for i, line in enumerate(lines)]
            boxes = [pen.textbbox(xy, text, font=_font(font_size), anchor="mm") for xy, text, _s, _a in
                     plan.names[index]] or [(x, y, x, y)]
            box = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes),
                   max(b[3] for b in boxes))
        plan.name_boxes[index] = box
    taken = list(plan.name_boxes.values())
    for index, counter in enumerate(scene.counters):
        if counter.tags:
            plan.badges[index] = _place_badges(pen, scene, counter, taken)
            taken += [box for box, _tag in plan.badges[index]]
    for index, counter in enumerate(scene.counters):
        result = scene.results.get(counter.key)
        if result is not None:
            box = _place_result(pen, scene, counter, RESULT_TEXT.get(result, result.upper()), taken)
            plan.results[index] = (box, RESULT_TEXT.get(result, result.upper()))
            taken.append(box)
    for sight in scene.sights:
        box = _place_label(pen, scene, sight, taken)
        label = "\n".join(_title_lines(pen, sight.label, LABEL_WIDTH(scene), 12))
        plan.labels.append((box, label))
        taken.append(box)
    return plan


def _place_result(pen: ImageDraw.ImageDraw, scene: Scene, counter: Counter, text: str, taken: list[Box]) -> Box:
    """The result of the last resolution under the counter's ring, else above it, else beside it."""
    half = COUNTER / 2 + 8
    x, y = counter.at
    size = pen.textbbox((0, 0), text, font=_font(13), anchor="la")
    width, height = size[2] - size[0] + 8, size[3] - size[1] + 6
    spots = [(x - width / 2, y + half + 4), (x - width / 2, y - half - 4 - height), (x + half + 4, y - height / 2),
             (x - half - 4 - width, y - height / 2)]
    boxes = [_clamped((left, top, left + width, top + height), scene.size) for left, top in spots]
    return next((b for b in boxes if not any(_overlaps(b, t) for t in taken)), boxes[0])


def LABEL_WIDTH(scene: Scene) -> float:  # noqa: N802 (a width, read like a constant)
    """How wide a line's label may be before it wraps: 240 pixels, or the picture less a margin."""
    return max(min(240.0, scene.size[0] - 12.0), 40.0)


#: Where along a line of sight its label is tried, in order (the middle first).
LABEL_SPOTS = (0.5, 0.38, 0.62, 0.28, 0.72, 0.2, 0.8)


def _place_label(pen: ImageDraw.ImageDraw, scene: Scene, sight: Sight, taken: list[Box]) -> Box:
    """A line's label just above a point of the line, inside the picture, hiding no name, badge
    or other label where one of the spots allows."""
    label = "\n".join(_title_lines(pen, sight.label, LABEL_WIDTH(scene), 12))
    boxes = []
    for shift in (-14, 14):                 # above the line, then below it
        for t in LABEL_SPOTS:
            x = sight.start[0] + (sight.end[0] - sight.start[0]) * t
            y = sight.start[1] + (sight.end[1] - sight.start[1]) * t + shift
            text = pen.multiline_textbbox((x, y), label, font=_font(12), anchor="mm", align="center")
            box = _clamped((text[0] - 3, text[1] - 2, text[2] + 3, text[3] + 2), scene.size)
            if not any(_overlaps(box, other) for other in taken):
                return box
            boxes.append(box)
    return min(boxes, key=lambda box: sum(_overlap_area(box, other) for other in taken))   # the least hidden


def _overlap_area(a: Box, b: Box) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def _place_badges(pen: ImageDraw.ImageDraw, scene: Scene, counter: Counter, taken: list[Box]) -> list[tuple[Box, str]]:
    """Status badges in a column beside the counter: right of it, else left, else below, else
    above; the first place where they hide no counter's name and stay in the picture."""
    half = COUNTER / 2
    x, y = counter.at
    sizes = [pen.textbbox((0, 0), tag, font=_font(TAG_FONT), anchor="la") for tag in counter.tags]
    widths = [b[2] - b[0] + 4 for b in sizes]
    height = max(b[3] - b[1] for b in sizes) + 3
    column = max(widths)
    starts = [(x + half + 6, y - half), (x - half - 6 - column, y - half), (x - half, y + half + 6),
              (x - half, y - half - 6 - height * len(counter.tags))]
    best: list[tuple[Box, str]] | None = None
    for left, top in starts:
        boxes = [((left, top + height * i, left + widths[i], top + height * (i + 1) - 1), tag)
                 for i, tag in enumerate(counter.tags)]
        if all(_inside(b, scene.size) and not any(_overlaps(b, t) for t in taken) for b, _tag in boxes):
            return boxes
        best = best or boxes
    assert best is not None
    return [(_clamped(b, scene.size), tag) for b, tag in best]


def draw(scene: Scene) -> Image.Image:
    """The scene as an RGB image: a header with the title (and how the board was drawn), the
    board with its counters, lines and labels, and a footer with the key of the colours used.
    Header and footer lie outside the board, so they never hide a counter; a point (x, y) of
    the scene is at (x, y + :func:`header_height`) in the image. A scene over
    :data:`MAX_DECODE_PIXELS` is refused before a pixel is allocated (a drawn map's size
    follows the hexes of a file from a stranger)."""
    check_size(scene.size)
    board = _draw_board(scene)
    measure = _measure()
    header = _header_lines(measure, scene)
    legend = _legend_entries(scene)
    head = header_height(scene)
    foot = 18 * len(legend) + 12 if legend else 0
    image = Image.new("RGB", (scene.size[0], head + scene.size[1] + foot), (255, 255, 255))
    image.paste(board, (0, head))
    pen = ImageDraw.Draw(image)
    y = 6
    for text, size in header:
        pen.text((8, y), text, fill=(20, 20, 20), font=_font(size))
        y += size + 5
    if head:
        pen.line((0, head - 1, scene.size[0], head - 1), fill=(60, 60, 60))
    top = head + scene.size[1]
    if legend:
        pen.line((0, top, scene.size[0], top), fill=(60, 60, 60))
    for index, (colour, text) in enumerate(legend):
        y = top + 14 + 18 * index
        pen.line((8, y, 28, y), fill=colour, width=4)
        pen.text((34, y), text, fill=(20, 20, 20), font=_font(12), anchor="lm")
    return image


def check_size(size: tuple[int, int], *, file: str | None = None) -> None:
    """Refuse a picture over :data:`MAX_DECODE_PIXELS` pixels, the cap for the pixels of one picture."""
    width, height = size
    if width * height > MAX_DECODE_PIXELS:
        raise RenderError(f"the picture would be {width} x {height} pixels, over the {MAX_DECODE_PIXELS}-pixel "
                          "cap for a picture; nothing drawn", file=file)


def header_height(scene: Scene) -> int:
    """The height of the band above the board that holds the title and the note."""
    lines = _header_lines(_measure(), scene)
    return sum(size + 5 for _text, size in lines) + 8 if lines else 0


def _header_lines(pen: ImageDraw.ImageDraw, scene: Scene) -> list[tuple[str, int]]:
    width = max(scene.size[0] - 16, 40)
    lines = [(line, 14) for line in _title_lines(pen, scene.title, width, 14)] if scene.title else []
    lines += [(line, 11) for line in _title_lines(pen, scene.note, width, 11)] if scene.note else []
    return lines


def _legend_entries(scene: Scene) -> list[tuple[tuple[int, int, int], str]]:
    """The colours the picture uses, for the key (only those it uses)."""
    entries = [(LOS_COLOURS[clear], text) for clear, text in ((True, "LOS clear"), (False, "LOS blocked"),
                                                             (None, "LOS not known"))
               if any(s.clear is clear for s in scene.sights)]
    if scene.results:
        entries.append((RESULT_COLOUR, "result of the last resolution"))
    return entries


def _draw_board(scene: Scene) -> Image.Image:
    background = scene.background
    if background is not None and background.mode == "RGB" and background.size == scene.size:
        image = background.copy()   # the board fills the picture: one copy, not a blank canvas and a paste
    else:
        image = Image.new("RGB", scene.size, (244, 240, 226))
        if background is not None:
            image.paste(background.convert("RGB"), (0, 0))
    pen = ImageDraw.Draw(image)
    for _name, outline in scene.outlines:
        pen.polygon(outline, outline=(40, 40, 40), width=3)
    for name, polygon in scene.boxes:
        pen.polygon(polygon, fill=BOX_FILL, outline=GRID_INK, width=2)
        top = min(p[1] for p in polygon)
        cx = sum(p[0] for p in polygon) / len(polygon)
        pen.text((cx, top + 4), name, fill=(40, 40, 40), font=_font(11), anchor="ma")
    for name, corners, terrain in scene.hexes:
        pen.polygon(corners, fill=TERRAIN_FILL.get(terrain or "clear", (226, 222, 186)), outline=GRID_INK)
        cx = sum(p[0] for p in corners) / len(corners)
        top = min(p[1] for p in corners)
        pen.text((cx, top + 8), name, fill=(40, 40, 40), font=_font(10), anchor="mm")
    plan = text_layout(scene)
    for sight in scene.sights:
        _draw_line(pen, sight)
    for index, counter in enumerate(scene.counters):
        _draw_counter(pen, counter, scene.results.get(counter.key), plan.names[index])
    for box, text in plan.results.values():
        pen.rectangle(box, fill=RESULT_COLOUR)
        pen.text(((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), text, fill=(255, 255, 255), font=_font(13),
                 anchor="mm")
    for boxes in plan.badges.values():
        for box, tag in boxes:
            pen.rectangle(box, fill=(235, 200, 40), outline=(60, 60, 60))
            pen.text((box[0] + 2, box[1] + 1), tag, fill=(0, 0, 0), font=_font(TAG_FONT), anchor="la")
    for (box, text), sight in zip(plan.labels, scene.sights):
        colour = LOS_COLOURS[sight.clear]
        pen.rectangle(box, fill=(255, 255, 255), outline=colour)
        pen.multiline_text(((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), text, fill=colour, font=_font(12),
                           anchor="mm", align="center")
    return image


def _draw_line(pen: ImageDraw.ImageDraw, sight: Sight) -> None:
    colour = LOS_COLOURS[sight.clear]
    if sight.clear is None:
        _dashed(pen, sight.start, sight.end, colour)
    else:
        pen.line([sight.start, sight.end], fill=colour, width=4)


def _dashed(pen: ImageDraw.ImageDraw, start: Point, end: Point, colour: tuple[int, int, int]) -> None:
    length = math.dist(start, end)
    steps = max(1, int(length // 10))
    for i in range(0, steps, 2):
        a, b = i / steps, min(1.0, (i + 1) / steps)
        pen.line([(start[0] + (end[0] - start[0]) * a, start[1] + (end[1] - start[1]) * a),
                  (start[0] + (end[0] - start[0]) * b, start[1] + (end[1] - start[1]) * b)], fill=colour, width=4)


def _draw_counter(pen: ImageDraw.ImageDraw, counter: Counter, result: str | None,
                  names: list[tuple[Point, str, int, str]]) -> None:
    fill, ink = SIDE_COLOURS[counter.side]
    x, y = counter.at
    half = COUNTER / 2
    box = (x - half, y - half, x + half, y + half)
    pen.rectangle((box[0] + 2, box[1] + 2, box[2] + 2, box[3] + 2), fill=(60, 60, 60))
    pen.rectangle(box, fill=fill, outline=ink, width=2)
    for xy, text, font_size, anchor in names:
        pen.text(xy, text, fill=ink, font=_font(font_size), anchor=anchor)
    if counter.reduced:
        pen.rectangle((box[0] + 3, box[3] - 14, box[2] - 3, box[3] - 3), fill=ink)
        pen.text((x, box[3] - 8), "REDUCED", fill=fill, font=_font(9), anchor="mm")
    if result is not None:
        pen.ellipse((x - half - 8, y - half - 8, x + half + 8, y + half + 8), outline=RESULT_COLOUR, width=4)


def _wrap(pen: ImageDraw.ImageDraw, text: str, width: int, size: int = NAME_FONT) -> list[str]:
    """The counter's name on at most two lines that fit its width (a long name is cut with an ellipsis)."""
    words = text.split()
    lines: list[str] = []
    for word in words:
        if lines and pen.textlength(f"{lines[-1]} {word}", font=_font(size)) <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    if len(lines) > 2:
        lines = [lines[0], " ".join(lines[1:])]
    return [_cut(pen, line, width, size) for line in lines]


def _cut(pen: ImageDraw.ImageDraw, line: str, width: int, size: int) -> str:
    if pen.textlength(line, font=_font(size)) <= width:
        return line
    while line and pen.textlength(line + "…", font=_font(size)) > width:
        line = line[:-1]
    return line + "…"


def _fitted(pen: ImageDraw.ImageDraw, text: str, width: int) -> tuple[list[str], int]:
    """The name's lines in the largest font (12 down to 8) at which no word is cut, else at 8."""
    for size in (NAME_FONT, 11, 10, 9, 8):
        lines = _wrap(pen, text, width, size)
        if not any(line.endswith("…") for line in lines):
            return lines, size
    return _wrap(pen, text, width, 8), 8


def _title_lines(pen: ImageDraw.ImageDraw, text: str, width: float, size: int = 14) -> list[str]:
    """Text broken into lines no wider than ``width`` at font ``size``."""
    lines: list[str] = []
    for word in text.split(" "):
        if lines and pen.textlength(f"{lines[-1]} {word}", font=_font(size)) <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines


def png_bytes(scene: Scene) -> bytes:
    out = io.BytesIO()
    draw(scene).save(out, format="PNG", optimize=True)
    return out.getvalue()


def write_png(scene: Scene, path: str | os.PathLike[str]) -> None:
    """Write the picture atomically (a temporary file renamed into place)."""
    write_atomic(path, png_bytes(scene), overwrite=True)


# -- the same scene as SVG (for a web page) ------------------------------------------------------

def _rgb(colour: tuple[int, int, int]) -> str:
    return "#%02x%02x%02x" % colour


def svg_text(scene: Scene) -> str:
    """The scene as an SVG document: the board image (as an embedded PNG), hexes with their
    names, counters with their name and state tags. Each counter is a ``<g class="counter">``
    with ``data-unit`` and ``data-state``, each hex a ``<g class="hex">`` with ``data-hex``, so
    a page can tell which one was clicked; every text is XML-escaped."""
    from xml.sax.saxutils import escape, quoteattr
    width, height = scene.size
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
             f'height="{height}" font-family="DejaVu Sans, sans-serif">']
    if scene.background is not None:
        import base64
        data = io.BytesIO()
        scene.background.convert("RGB").save(data, format="PNG")
        parts.append(f'<image x="0" y="0" width="{scene.background.width}" height="{scene.background.height}" '
                     f'href="data:image/png;base64,{base64.b64encode(data.getvalue()).decode("ascii")}"/>')
    for name, corners, terrain in scene.hexes:
        points = " ".join(f"{x:.1f},{y:.1f}" for x, y in corners)
        cx = sum(p[0] for p in corners) / len(corners)
        top = min(p[1] for p in corners)
        fill = _rgb(TERRAIN_FILL.get(terrain or "clear", (226, 222, 186)))
        parts.append(f'<g class="hex" data-hex={quoteattr(name)}><title>{escape(name)} {escape(terrain or "")}</title>'
                     f'<polygon points="{points}" fill="{fill}" stroke="#5a5a5a"/>'
                     f'<text x="{cx:.1f}" y="{top + 12:.1f}" font-size="10" text-anchor="middle">{escape(name)}</text>'
                     '</g>')
    for name, (x, y) in sorted(scene.labels.items()):      # the board image prints the names; this makes them clickable
        parts.append(f'<g class="hex" data-hex={quoteattr(name)}><circle cx="{x:.1f}" cy="{y:.1f}" r="30" '
                     f'fill="#ffffff" fill-opacity="0.01" stroke="none"><title>{escape(name)}</title></circle></g>')
    for sight in scene.sights:
        (x1, y1), (x2, y2) = sight.start, sight.end
        dash = ' stroke-dasharray="10 10"' if sight.clear is None else ""
        parts.append(f'<line class="sight" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                     f'stroke="{_rgb(LOS_COLOURS[sight.clear])}" stroke-width="4"{dash}>'
                     f'<title>{escape(sight.label)}</title></line>')
    half = COUNTER / 2
    for counter in scene.counters:
        fill, ink = (_rgb(c) for c in SIDE_COLOURS[counter.side])
        x, y = counter.at
        state = " ".join(counter.tags + (("REDUCED",) if counter.reduced else ()))
        parts.append(f'<g class="counter" data-unit={quoteattr(counter.key)} data-state={quoteattr(state)}>'
                     f'<title>{escape(counter.name)} ({escape(counter.key)}) {escape(state)}</title>'
                     f'<rect x="{x - half + 2:.1f}" y="{y - half + 2:.1f}" width="{COUNTER}" height="{COUNTER}" '
                     f'fill="#3c3c3c"/><rect class="face" x="{x - half:.1f}" y="{y - half:.1f}" width="{COUNTER}" '
                     f'height="{COUNTER}" fill="{fill}" stroke="{ink}" stroke-width="2"/>'
                     f'<text x="{x:.1f}" y="{y - 4:.1f}" font-size="10" text-anchor="middle" fill="{ink}">'
                     f'{escape(counter.name[:12])}</text>')
        if counter.reduced:
            parts.append(f'<rect x="{x - half + 3:.1f}" y="{y + half - 14:.1f}" width="{COUNTER - 6}" height="11" '
                         f'fill="{ink}"/><text x="{x:.1f}" y="{y + half - 5:.1f}" font-size="8" '
                         f'text-anchor="middle" fill="{fill}">REDUCED</text>')
        for index, tag in enumerate(counter.tags):
            ty = y - half + 2 + 12 * index
            parts.append(f'<rect x="{x + half - 30:.1f}" y="{ty:.1f}" width="28" height="11" fill="#ebc828" '
                         f'stroke="#3c3c3c"/><text x="{x + half - 16:.1f}" y="{ty + 9:.1f}" font-size="8" '
                         f'text-anchor="middle">{escape(tag)}</text>')
        result = scene.results.get(counter.key)
        if result is not None:
            parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{half + 10:.1f}" fill="none" '
                         f'stroke="{_rgb(RESULT_COLOUR)}" stroke-width="4"/><text x="{x:.1f}" '
                         f'y="{y + half + 22:.1f}" font-size="12" text-anchor="middle" '
                         f'fill="{_rgb(RESULT_COLOUR)}">{escape(RESULT_TEXT.get(result, result.upper()))}</text>')
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


# -- scenes from a module map ----------------------------------------------------------------

def board_image(module: Any, geometry: Any, notes: list[str]) -> tuple[Image.Image | None, tuple[int, int]]:
    """The map's boards pasted at their places, and the map's size; no image -> (None, size).

    A map over :data:`MAX_DECODE_PIXELS` gets no image: its pixels would cost more memory
    than a picture may take. A board image that cannot be decoded is left out, with a note."""
    placements = geometry.placement()
    sizes = [(p.x + p.board.size[0], p.y + p.board.size[1]) for p in placements if p.board.size]
    if not sizes:
        return None, (0, 0)
    size = (max(s[0] for s in sizes), max(s[1] for s in sizes))
    archive = getattr(module, "archive", None)
    if size[0] * size[1] > MAX_DECODE_PIXELS:
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
        if canvas is None and picture.size == size and (placement.x, placement.y) == (0, 0):
            canvas = picture    # one board filling the map: its pixels are the canvas, not copied
            continue
        canvas = canvas or Image.new("RGB", size, (244, 240, 226))
        canvas.paste(picture, (placement.x, placement.y))
        del picture
    return canvas, size


def scene_for_map(game: Game, module: Any, map_name: str, layout: Any = None, *, title: str = "",
                  positions: Mapping[str, tuple[str | None, int, int]] | None = None,
                  shift: tuple[int, int] = (0, 0)) -> Scene:
    """Units of ``game`` on a module map: on its board image, or on the board drawn from the
    module's geometry (grid cells with their names, boxes, board outlines) where the module
    has no image, and the scene says so. A unit in a box drawn on the map (a place, not a
    hex) is drawn where ``positions`` (from the save) has it, shifted by ``shift`` (an
    aliased board's offset)."""
    geometry = module.map(map_name).geometry(layout, assign_names=True)
    notes = list(getattr(module, "notes", []))
    background, size = board_image(module, geometry, notes)
    if size[0] * size[1] > MAX_DECODE_PIXELS:      # draw_board draws a board this large around its units
        notes.append(f"the map is {size[0]} x {size[1]} pixels, over the {MAX_DECODE_PIXELS}-pixel cap for a "
                     "picture; drawn without its board images, around its units only")

    def centre(hex_id: str) -> Point:
        x, y = geometry.locate(hex_id)
        return float(x), float(y)
    boxed = {key: (float(x + shift[0]), float(y + shift[1])) for key, (where, x, y) in (positions or {}).items()
             if where == map_name and key in game.units and not game.units[key].on_map}
    if background is not None:
        named = sorted({h for h in game.hexes} | {u.hex for u in game.units.values() if u.hex and u.on_map})
        return Scene(size, background, title=title, counters=counters(game, _safe(centre), boxed), notes=notes,
                     labels={name: _safe(centre)(name) for name in named})
    points = [_safe(centre)(u.hex) for u in game.units.values() if u.on_map and u.hex] + list(boxed.values())
    drawn = draw_board(geometry, points)
    scale = max(1.0, DRAWN_CELL / drawn.cell_size)
    left, top = drawn.area[0] - 20 / scale, drawn.area[1] - 20 / scale

    def place(point: Point) -> Point:
        return (point[0] - left) * scale, (point[1] - top) * scale
    terrain = {name: state.terrain for name, state in game.hexes.items()}
    scene = Scene((0, 0), None, [(name, [place(p) for p in corners], terrain.get(name))
                                 for name, corners in drawn.cells],
                  counters(game, lambda hex_id: place(_safe(centre)(hex_id)),
                           {key: place(point) for key, point in boxed.items()}), title=title,
                  boxes=[(name, [place(p) for p in polygon]) for name, polygon in drawn.boxes],
                  outlines=[(name, [place(p) for p in outline]) for name, outline in drawn.outlines], notes=notes)
    why = "its image is over the picture cap" if size[0] * size[1] > MAX_DECODE_PIXELS else \
        "the module has no image of it"
    scene.note = f"board drawn from the module's grid: {why}" + \
        ("; hex names are wawkit's (the grid has no numbering: VASSAL shows none)" if drawn.assigned else "")
    scene.size = (int((drawn.area[2] - left) * scale + 20), int((drawn.area[3] - top) * scale + 20))
    return scene


def _safe(centre: Callable[[str], Point]) -> Callable[[str], Point]:
    def wrapped(hex_id: str) -> Point:
        try:
            return centre(hex_id)
        except GeometryError as error:
            raise RenderError(f"cannot place hex {hex_id!r}: {error.message}") from None
    return wrapped


def named_hexes(game: Game) -> list[str]:
    """The hexes a drawn map shows: every hex the game holds and every hex a unit on the map is in."""
    return sorted({h for h in game.hexes} | {u.hex for u in game.units.values() if u.hex and u.on_map})


#: Hexes of margin round the units when only the part of a map around them is drawn.
MARGIN_HEXES = 2


def around_units(game: Game, names: list[str]) -> list[str]:
    """Of ``names``, the hexes of the smallest block of the board's columns and rows that holds
    every unit on the map, widened by :data:`MARGIN_HEXES` on each side, and the units' own
    hexes: what a picture of a map too large to draw whole shows. Columns and rows are the
    grid's own (the offset cell of each hex's cube coordinates), so the block is a rectangle
    of the map; a hex without a map position is kept only when a unit is in it. Without a
    unit on a hex of known position there is nothing to draw around: ``names`` whole."""
    def cell(name: str) -> tuple[int, int] | None:
        state = game.hexes.get(name)
        at = state.at if state is not None else None
        return None if at is None else (at.q, at.r + (at.q - (at.q & 1)) // 2)
    occupied = {u.hex for u in game.units.values() if u.hex and u.on_map}
    spots = [spot for spot in map(cell, occupied) if spot is not None]
    if not spots:
        return names    # nothing to draw around: the whole map (which draw() refuses when too large)
    low = [min(spot[axis] for spot in spots) - MARGIN_HEXES for axis in (0, 1)]
    high = [max(spot[axis] for spot in spots) + MARGIN_HEXES for axis in (0, 1)]

    def inside(name: str) -> bool:
        spot = cell(name)
        return spot is not None and low[0] <= spot[0] <= high[0] and low[1] <= spot[1] <= high[1]
    return [name for name in names if name in occupied or inside(name)]


def _hex_outlines(game: Game, centre: Callable[[str], Point],
                  names: list[str] | None = None) -> list[tuple[str, list[Point], str | None]]:
    """Outlines of the hexes ``names`` (default: every hex the game names), sized from the
    closest spacing of their centres."""
    points = {name: centre(name) for name in (named_hexes(game) if names is None else names)}
    gap = closest_gap(list(points.values()))
    radius = (gap / math.sqrt(3)) if gap is not None else 32.0
    outlines = []
    for name, (x, y) in points.items():
        corners = [(x + radius * math.cos(math.pi / 3 * k), y + radius * math.sin(math.pi / 3 * k)) for k in range(6)]
        outlines.append((name, corners, game.hexes[name].terrain if name in game.hexes else None))
    return outlines


def closest_gap(points: list[Point]) -> float | None:
    """The smallest distance between two of ``points`` (None for fewer than two).

    A sweep along x that keeps, ordered by y, the points less than the best gap so far
    behind the sweep: each point is compared only with the few of them within that gap
    above or below it, so a board of 20,000 hexes costs milliseconds, not every pair."""
    best = math.inf
    ordered = sorted(points)
    window: list[tuple[float, float]] = []     # (y, x) of the points near the sweep line, sorted
    behind = 0
    for x, y in ordered:
        while ordered[behind][0] < x - best:
            gone_x, gone_y = ordered[behind]
            del window[bisect.bisect_left(window, (gone_y, gone_x))]
            behind += 1
        low = bisect.bisect_left(window, (y - best, -math.inf))
        high = bisect.bisect_right(window, (y + best, math.inf))
        for near_y, near_x in window[low:high]:
            best = min(best, math.dist((x, y), (near_x, near_y)))
        bisect.insort(window, (y, x))
    return best if best < math.inf else None


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
    hexes' map positions when the game has them (true adjacency), else by their names.
    A map too large for a picture is drawn around its units only (:func:`around_units`)."""
    names = named_hexes(game)
    placed = {n: game.hexes[n].at for n in names if n in game.hexes and game.hexes[n].at is not None}
    notes: list[str] = []
    if placed and len(placed) == len(names):
        raw = {name: cube_centre(at) for name, at in placed.items()}
        width, height = (int(max(axis) - min(axis)) + 160 for axis in zip(*raw.values()))
        if width * height > MAX_DECODE_PIXELS:
            names = around_units(game, names)
            raw = {name: raw[name] for name in names}
            notes.append(f"the drawn map would be about {width} x {height} pixels, over the {MAX_DECODE_PIXELS}-pixel "
                         "cap for a picture; drawn around its units only")
        left = min(x for x, _ in raw.values()) - 60
        top = min(y for _, y in raw.values()) - 60

        def centre(hex_id: str) -> Point:
            x, y = raw[hex_id]
            return x - left, y - top
    else:
        centre = _safe(offset_centre)
    scene = Scene((0, 0), None, _hex_outlines(game, centre, names), counters(game, centre), title=title, notes=notes)
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
        shift = (0, 0)
        if layout and len(layout) == 1 and layout[0].name in position.profile.board_aliases:
            _board, *offset = position.profile.board_aliases[layout[0].name]
            shift = (offset[0], offset[1])
            layout = None      # a board of an older module: the import placed its hexes on today's board
        scene = scene_for_map(game, position.module, chosen_map, layout, title=title,
                              positions=position.imported.positions, shift=shift)
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
    check_size(scene.size, file=str(source))
    write_png(scene, output)
    return scene


__all__ = ["picture", "svg_text", "Scene", "Counter", "Sight", "Layout", "draw", "text_layout", "png_bytes", "write_png",
           "scene_for_map", "scene_for_game",
           "add_sight", "mark_results", "offset_centre", "RenderError"]
