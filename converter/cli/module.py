"""``wawkit inspect-module`` and ``wawkit locate``: what a module holds, and where things are on its maps.

``locate MODULE MAP X Y`` names a map pixel as VASSAL's chat would; ``locate MODULE
MAP NAME`` gives the pixel a piece placed in that location snaps to. The board
layout is the map's default unless ``--save`` (read it from a save's BoardPicker
command) or ``--layout BOARD[:COL:ROW[:rev]]`` (repeatable) says otherwise.
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from converter.cli import main
from converter.errors import GeometryError

if TYPE_CHECKING:
    from converter.vassal.grids.placement import PlacedBoard
    from converter.vassal.module import Module

__all__ = ["describe_module", "describe_grid", "print_module"]

# The module reader (lxml, the grids) is imported by each function when it runs, so that
# ``wawkit --help`` and the commands that read no module start without it.


def describe_grid(grid: Any) -> dict[str, Any] | None:
    """A grid's kind, every attribute and its numbering (defaults filled in), as plain data."""
    from converter.vassal.grids import GridNumbering
    if grid is None:
        return None
    out: dict[str, Any] = {"kind": grid.kind}
    if grid.kind == "zoned":
        out["background"] = describe_grid(grid.background)
        out["zones"] = [{"name": z.name, "location_format": z.location_format, "use_parent_grid": z.use_parent_grid,
                         "points": len(z.polygon), "grid": describe_grid(z.grid)} for z in grid.zones]
        return out
    if grid.kind == "region":
        out.update(snap_to=grid.snap_to, regions=[{"name": r.name, "x": r.x, "y": r.y} for r in grid.regions])
        return out
    for field in dataclasses.fields(grid):
        value = getattr(grid, field.name)
        if isinstance(value, GridNumbering):
            numbering = dataclasses.asdict(value)
            if grid.kind != "hex":
                numbering.pop("stagger")
            out["numbering"] = numbering
        elif value is None:
            out[field.name] = None
        else:
            out[field.name] = value
    return out


def describe_module(path: str | Path) -> dict[str, Any]:
    """Everything ``inspect-module`` shows, JSON-able."""
    from converter.vassal.module import Module
    module = Module.read(path)
    return {
        "file": str(path),
        "entry": module.entry,
        "kind": "extension" if module.is_extension else "module",
        "name": module.name,
        "version": module.version,
        "vassal_version": module.vassal_version,
        "maps": [{
            "name": m.name, "id": m.id, "kind": m.kind, "edge": list(m.edge),
            "default_layout": [dataclasses.asdict(p) for p in m.default_layout],
            "decks": [dataclasses.asdict(d) for d in m.decks],
            "at_start_stacks": len(m.at_start_stacks),
            "boards": [{"name": b.name, "image": b.image, "size": list(b.size) if b.size else None,
                        "reversible": b.reversible, "grid": describe_grid(b.grid)} for b in m.boards],
        } for m in module.maps],
        "grid_counts": module.grid_counts(),
        "piece_windows": [{"name": w.name, "piece_slots": sum(1 for _ in w.slots())} for w in module.palette],
        "piece_slots": len(module.piece_slots),
        "card_slots": len(module.card_slots),
        "prototypes": len(module.prototypes),
        "setups": [dataclasses.asdict(s) for s in module.setups],
        "dice": [{"name": d.name, "dice": d.n_dice, "sides": d.n_sides, "plus": d.plus} for d in module.dice],
        "global_properties": len(module.global_properties),
        "unknown_components": [dataclasses.asdict(u) for u in module.unknown_components],
        "notes": list(module.notes),
    }


def _grid_line(grid: dict[str, Any] | None) -> str:
    if grid is None:
        return "no grid"
    if grid["kind"] == "zoned":
        inner = _grid_line(grid["background"]) if grid["background"] else "no background grid"
        return f"zoned grid, {len(grid['zones'])} zones over {inner}"
    if grid["kind"] == "region":
        return f"region grid, {len(grid['regions'])} regions"
    numbering = grid.get("numbering")
    text = f"{grid['kind']} grid dx={grid['dx']} dy={grid['dy']} origin=({grid['x0']},{grid['y0']})"
    if grid["kind"] == "hex" and grid["sideways"]:
        text += " sideways"
    if numbering is None:      # wawkit names its cells for terrain, LOS and moves (grids/assigned.py)
        return text + ", unnumbered (VASSAL shows no names; wawkit names its cells 0101, 0102...)"
    flags = [f"first={numbering['first']}", f"sep={numbering['sep']!r}",
             f"h={numbering['h_type']}{numbering['h_off']:+d}{' desc' if numbering['h_descend'] else ''}",
             f"v={numbering['v_type']}{numbering['v_off']:+d}{' desc' if numbering['v_descend'] else ''}"]
    if grid["kind"] == "hex":
        flags.append(f"stagger={'yes' if numbering['stagger'] else 'no'}")
    if numbering["location_format"] != "$gridLocation$":
        flags.append(f"format={numbering['location_format']!r}")
    return text + ", numbered " + " ".join(flags)


@main.command("inspect-module")
@click.argument("module", type=click.Path(exists=True, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the description as JSON.")
def inspect_module(module: str, as_json: bool) -> None:
    """Show a module's maps, boards, grids with their numbering, and palette and prototype counts."""
    info = describe_module(module)
    if as_json:
        click.echo(json.dumps(info, indent=2, ensure_ascii=False))
        return
    print_module(info)


def print_module(info: dict[str, Any]) -> None:
    """The text form of :func:`describe_module` (``inspect`` and ``inspect-module``)."""
    click.echo(f"{info['kind']} {info['name']!r} version {info['version'] or '-'} "
               f"(VASSAL {info['vassal_version'] or '?'}, {info['entry'] or 'bare buildFile'})")
    for map_info in info["maps"]:
        click.echo(f"map {map_info['name'] or map_info['id']!r} ({map_info['kind']}, edge {map_info['edge'][0]}x"
                   f"{map_info['edge'][1]}), {len(map_info['boards'])} board(s)")
        for board in map_info["boards"]:
            size = "x".join(map(str, board["size"])) if board["size"] else "size unknown"
            click.echo(f"  board {board['name']!r} {size}{' reversible' if board['reversible'] else ''}: "
                       f"{_grid_line(board['grid'])}")
    windows = ", ".join(f"{w['name']!r} {w['piece_slots']}" for w in info["piece_windows"]) or "none"
    click.echo(f"piece slots {info['piece_slots']} (windows: {windows}), card slots {info['card_slots']}, "
               f"prototypes {info['prototypes']}")
    click.echo(f"predefined setups {len(info['setups'])}, dice buttons {len(info['dice'])}, "
               f"global properties {info['global_properties']}, unknown components "
               f"{len(info['unknown_components'])}")
    for note in info.get("notes", []):
        click.echo(f"note: {note}")


def _layout(module: Module, map_name: str, save: str | None, layout: tuple[str, ...]) -> list[PlacedBoard] | None:
    from converter.vassal.grids.placement import PlacedBoard, parse_board_picker
    if layout:
        placed = []
        for spec in layout:
            parts = spec.split(":")
            reversed_ = len(parts) > 3 and parts[3] == "rev"
            try:
                column, row = (int(parts[1]), int(parts[2])) if len(parts) >= 3 else (0, 0)
            except ValueError:
                raise click.BadParameter(f"{spec!r}: expected BOARD[:COL:ROW[:rev]]", param_hint="--layout") from None
            placed.append(PlacedBoard(parts[0], reversed_, column, row))
        return placed
    if save is not None:
        from converter.vassal.save import SavedGame
        wanted = module.map(map_name)
        for picker in SavedGame.read(save).board_pickers:
            map_id, placed = parse_board_picker(picker.encode())
            if map_id in (wanted.name, wanted.id):
                return placed
    return None


@main.command()
@click.argument("module", type=click.Path(exists=True, dir_okay=False))
@click.argument("map_name", metavar="MAP")
@click.argument("where", nargs=-1, required=True, metavar="X Y | NAME")
@click.option("--board", help="Board to look the name up on, when several boards carry it.")
@click.option("--save", type=click.Path(exists=True, dir_okay=False), help="Take the board layout from this save.")
@click.option("--layout", multiple=True, metavar="BOARD[:COL:ROW[:rev]]", help="Board layout, one per board.")
@click.option("--profile", "profile_path", type=click.Path(exists=True, dir_okay=False),
              help="With --save: the module profile whose board_aliases place boards of older module versions.")
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")
def locate(module: str, map_name: str, where: tuple[str, ...], board: str | None, save: str | None,
           layout: tuple[str, ...], profile_path: str | None, as_json: bool) -> None:
    """Name the location of map pixel X Y, or give the pixel of location NAME."""
    from converter.vassal.module import Module, location_of
    loaded = Module.read(module)
    if profile_path is not None:
        if save is None:
            raise click.UsageError("--profile needs --save: its board_aliases place the boards a save lays out")
        _locate_through_profile(loaded, map_name, where, board, save, profile_path, as_json)
        return
    try:  # a location or board the module lacks is named with the module file
        placed = _layout(loaded, map_name, save, layout)
        if len(where) == 2 and all(w.lstrip("-").isdigit() for w in where):
            x, y = int(where[0]), int(where[1])
            name = location_of(loaded, map_name, x, y, placed)
            answer: dict[str, Any] = {"map": map_name, "x": x, "y": y, "location": name}
            text = name
        else:
            name = " ".join(where)
            x, y = loaded.map(map_name).geometry(placed).locate(name, board)
            answer = {"map": map_name, "location": name, "x": x, "y": y}
            text = f"{x} {y}"
    except GeometryError as error:
        hint = "; --profile with board_aliases places boards of older module versions" \
            if save is not None and "has no board" in error.message else ""
        raise GeometryError(error.message + hint, file=module) from None
    click.echo(json.dumps(answer, ensure_ascii=False) if as_json else text)


def _locate_through_profile(module: Module, map_name: str, where: tuple[str, ...], board: str | None, save: str,
                            profile_path: str, as_json: bool) -> None:
    """``locate`` in a save's own pixels, its boards placed as the profile's board_aliases say."""
    from converter.importer import name_point, point_name, save_frames
    from converter.profile import read_profile
    from converter.vassal.save import SavedGame
    frames = save_frames(SavedGame.read(save), read_profile(profile_path))
    if len(where) == 2 and all(w.lstrip("-").isdigit() for w in where):
        x, y = int(where[0]), int(where[1])
        name, _at = point_name(module, map_name, x, y, frames)
        answer: dict[str, Any] = {"map": map_name, "x": x, "y": y, "location": name or "offboard"}
        text = name or "offboard"
    else:
        name = " ".join(where)
        try:
            x, y = name_point(module, map_name, name, frames)
        except GeometryError as error:
            raise error.located(file=module.file) from None
        answer = {"map": map_name, "location": name, "x": x, "y": y}
        text = f"{x} {y}"
    click.echo(json.dumps(answer, ensure_ascii=False) if as_json else text)



