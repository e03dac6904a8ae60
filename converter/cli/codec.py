"""``wawkit inspect | decode | encode | pieces``: look inside saves and logs, and rebuild them.

``decode`` prints the plaintext command string with one command per line: every ESC
is shown as ``␛`` and followed by a line break, so each leaf starts a line and the
backslashes before a ``␛`` show how deep it is nested; line breaks inside commands
are shown as ``␤``/``␍``. ``encode`` accepts that readable form or the exact bytes
of ``decode --raw`` and writes a save container.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable

from typing import TYPE_CHECKING

import click

from converter.cli import main
from converter.errors import EncodingError, GeometryError, WawkitError
from converter.vassal.obfuscation import PLAIN, VCSK, VOBS
from converter.vassal.sequence import ESC

if TYPE_CHECKING:
    from converter.vassal.grids.placement import MapGeometry
    from converter.vassal.module import Module
    from converter.vassal.save import SavedGame

# The save and module readers are imported by each command when it runs, so that
# ``wawkit --help`` starts without them and ``inspect`` of a save without the module reader.

ESC_SHOWN = "\u241b"  # ␛
LF_SHOWN = "\u2424"   # ␤
CR_SHOWN = "\u240d"   # ␍
_SHOWN = (ESC_SHOWN, LF_SHOWN, CR_SHOWN)


def to_readable(text: str, *, file: str | None = None) -> str:
    """The plaintext with one command per line (reversible by :func:`from_readable`)."""
    for symbol in _SHOWN:
        if symbol in text:
            raise EncodingError(f"the plaintext contains {symbol!r} itself; use decode --raw", file=file,
                                position=text.index(symbol))
    readable = text.replace("\r", CR_SHOWN).replace("\n", LF_SHOWN).replace(ESC, ESC_SHOWN + "\n")
    return readable + "\n"


def from_readable(readable: str) -> str:
    """Undo :func:`to_readable` exactly."""
    if readable.endswith("\n"):
        readable = readable[:-1]
    return (readable.replace(ESC_SHOWN + "\n", ESC).replace(ESC_SHOWN, ESC)
            .replace(LF_SHOWN, "\n").replace(CR_SHOWN, "\r"))


def describe_save(path: str | Path) -> dict[str, Any]:
    """What ``inspect`` shows for a save or log (a module branch can sit beside it)."""
    from converter.vassal.save import SavedGame
    game = SavedGame.read(path)
    container = game.container
    save_meta = container.metadata.get("savedata")
    module_meta = container.metadata.get("moduledata")
    holders = [e for e in game.pieces.values() if e.is_stack or e.is_deck]
    return {
        "file": str(path),
        "kind": "log" if game.is_log else "save",
        "entries": [e.name for e in container.entries],
        "module": module_meta.name if module_meta else None,
        "module_version": (save_meta.version if save_meta and save_meta.version else
                           module_meta.version if module_meta else None),
        "vassal_version": (save_meta.vassal_version if save_meta else
                           module_meta.vassal_version if module_meta else None),
        "module_metadata": module_meta is not None,
        "obfuscation": container.obfuscation.scheme,
        "plaintext_bytes": len(container.plaintext),
        "commands": sum(1 for _ in game.commands()),
        "pieces": len(game.pieces) - len(holders),
        "stacks": sum(1 for e in holders if e.is_stack),
        "empty_stacks": sum(1 for e in holders if e.is_stack and not e.inner.members),
        "decks": sum(1 for e in holders if e.is_deck),
        "log_steps": len(game.log_steps),
        "maps": game.maps,
    }


def is_module_file(path: Path) -> bool:
    """A module, extension or bare buildFile rather than a save: a zip holding a
    buildFile and no savedGame, or an XML file."""
    from converter.files import head
    from converter.vassal.container import open_archive
    start = head(path, 64)  # a regular file's first bytes; b"" for a device or a pipe (never blocks)
    if start.lstrip().startswith(b"<"):
        return True
    if not start.startswith(b"PK"):
        return False
    try:
        with open_archive(path) as archive:
            names = set(archive.namelist())
    except WawkitError:
        return False
    return "savedGame" not in names and bool(names & {"buildFile", "buildFile.xml"})


def _echo_json(data: object) -> None:
    import json
    text = json.dumps(data, indent=2, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # bytes that were not UTF-8 are kept as surrogates: escape them
        text = json.dumps(data, indent=2)
    click.echo(text)


@main.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def inspect(file: Path, as_json: bool) -> None:
    """Say what FILE is: kind, versions, obfuscation, counts and maps (saves and logs),
    or maps, boards, grids and palette (modules, extensions, buildFiles)."""
    if is_module_file(file):
        from converter.cli.module import describe_module, print_module
        info = describe_module(file)
        if as_json:
            _echo_json(info)
        else:
            print_module(info)
        return
    try:
        info = describe_save(file)
    except WawkitError as error:  # a piece that cannot be decoded: name the file it is in
        raise error.located(file=str(file)) from None
    if as_json:
        _echo_json(info)
        return
    for key, value in info.items():
        shown = ", ".join(value) if isinstance(value, list) else value
        click.echo(f"{key}: {shown}")


def _leaf_rows(game: SavedGame) -> list[dict[str, Any]]:
    rows = []
    depth_of: dict[int, int] = {id(game.tree): 0}
    for node in game.tree.walk():
        depth = depth_of[id(node)]
        for child in node.children or []:
            depth_of[id(child)] = depth + 1
        command = node.command
        if command is not None:
            rows.append({"index": len(rows), "depth": depth, "kind": command.kind, "text": command.text})
    return rows


@main.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--raw", is_flag=True, help="Write the exact plaintext bytes.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per command (index, depth, kind, text).")
def decode(file: Path, raw: bool, as_json: bool) -> None:
    """Print the plaintext command stream of FILE."""
    from converter.vassal.container import read_container
    from converter.vassal.save import SavedGame
    if raw:
        container = read_container(file)
        sys.stdout.buffer.write(container.plaintext)
        sys.stdout.buffer.flush()
        return
    if as_json:
        _echo_json(_leaf_rows(SavedGame.read(file)))
        return
    container = read_container(file)
    readable = to_readable(container.text, file=str(file))
    sys.stdout.buffer.write(readable.encode("utf-8", "surrogateescape"))
    sys.stdout.buffer.flush()


@main.command()
@click.argument("text", type=click.Path(dir_okay=False, path_type=Path))
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The save to write.")
@click.option("--obfuscation", type=click.Choice([VCSK, VOBS, PLAIN]), default=VCSK, show_default=True)
@click.option("--like", type=click.Path(dir_okay=False, path_type=Path),
              help="Copy the other zip entries (savedata, moduledata) from this save.")
@click.option("--force", is_flag=True, help="Replace OUTPUT if it exists.")
@click.option("--json", "as_json", is_flag=True, help="Report what was written as JSON.")
def encode(text: Path, output: Path, obfuscation: str, like: Path | None, force: bool, as_json: bool) -> None:
    """Write a save from TEXT, the output of ``decode`` (readable) or ``decode --raw``."""
    from converter.files import read_bounded
    from converter.vassal.container import check_target, new_container, read_container, write_atomic
    from converter.vassal.limits import DEFAULT_LIMITS
    from converter.vassal.obfuscation import Obfuscation
    from converter.vassal.save import SavedGame
    check_target(output, overwrite=force, inputs=(text,))  # --like SAVE may be rewritten in place
    data = read_bounded(text, DEFAULT_LIMITS.max_entry_size).data  # a regular file, within the entry cap
    if b"\x1b" in data or ESC_SHOWN.encode() not in data:
        plaintext = data
    else:
        plaintext = from_readable(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
    container = read_container(like) if like is not None else new_container(plaintext)
    payload = container.to_bytes(plaintext, Obfuscation(obfuscation))
    SavedGame.from_bytes(payload, file=str(output))  # refuse to write what cannot be read back
    write_atomic(output, payload, overwrite=force)
    report = {"file": str(output), "obfuscation": obfuscation, "plaintext_bytes": len(plaintext)}
    if as_json:
        _echo_json(report)
    else:
        click.echo(f"wrote {output} ({len(plaintext)} plaintext bytes, {obfuscation})")


def location_namer(game: SavedGame, module: Module) -> Callable[[str | None, int, int], str | None]:
    """A function naming (map, x, y) as VASSAL would, with the save's own board layout.

    Maps the module does not have, and points its grids cannot name, give None.
    """
    layouts = game.board_layouts()
    geometries: dict[str, MapGeometry | None] = {}

    def name(map_id: str | None, x: int, y: int) -> str | None:
        if map_id is None:
            return None
        if map_id not in geometries:
            try:
                geometries[map_id] = module.map(map_id).geometry(layouts.get(map_id) or None)
            except GeometryError:
                geometries[map_id] = None
        geometry = geometries[map_id]
        if geometry is None:
            return None
        try:
            return geometry.location_name(x, y)
        except GeometryError:
            return None

    return name


def piece_rows(game: SavedGame, module: Module | None = None) -> list[dict[str, Any]]:
    """One row per piece (stacks and decks left out): id, name, map, x, y, stack, layers,
    and the location name when the module is given."""
    namer = location_namer(game, module) if module is not None else None
    rows = []
    for piece_id, entry in game.pieces.items():
        if entry.is_stack or entry.is_deck:
            continue
        piece = entry.piece
        map_name, x, y = game.position(piece_id)
        row: dict[str, Any] = {"id": piece_id, "name": piece.name, "map": map_name, "x": x, "y": y}
        if namer is not None:
            row["location"] = namer(map_name, x, y)
        row["stack"] = game.stack_of(piece_id)
        row["layers"] = {layer.name: layer.level for layer in piece.layers()}
        rows.append(row)
    return rows


@main.command()
@click.argument("save", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--module", "module_path", type=click.Path(dir_okay=False, path_type=Path),
              help="The module, to add each piece's location name (e.g. G7).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def pieces(save: Path, module_path: Path | None, as_json: bool) -> None:
    """List the pieces of SAVE: id, name, map, x, y, [location,] stack, layer levels."""
    from converter.vassal.module import Module
    from converter.vassal.save import SavedGame
    module = Module.read(module_path) if module_path is not None else None
    try:
        rows = piece_rows(SavedGame.read(save), module)
    except WawkitError as error:  # a piece that cannot be decoded: name the file it is in
        raise error.located(file=str(save)) from None
    if as_json:
        _echo_json(rows)
        return
    columns = ["id", "name", "map", "x", "y", *(["location"] if module else []), "stack", "layers"]
    click.echo("\t".join(columns))
    for row in rows:
        cells = {**row, "layers": ",".join(f"{k}={v}" for k, v in row["layers"].items())}
        click.echo("\t".join("" if cells[c] is None else str(cells[c]) for c in columns))
