"""``wawkit inspect | decode | encode | pieces``: look inside saves and logs, and rebuild them.

``decode`` prints the plaintext command string with one command per line: every ESC
is shown as ``␛`` and followed by a line break, so each leaf starts a line and the
backslashes before a ``␛`` show how deep it is nested; line breaks inside commands
are shown as ``␤``/``␍``. ``encode`` accepts that readable form or the exact bytes
of ``decode --raw`` and writes a save container.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from converter.cli import main
from converter.errors import EncodingError
from converter.vassal.commands import Command
from converter.vassal.container import new_container, read_container, write_atomic
from converter.vassal.obfuscation import PLAIN, VCSK, VOBS, Obfuscation
from converter.vassal.save import SavedGame
from converter.vassal.sequence import ESC

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


def _echo_json(data: object) -> None:
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
    """Say what FILE is: kind, versions, obfuscation, counts and maps."""
    info = describe_save(file)
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
        command: Command | None = node.command
        if command is not None:
            rows.append({"index": len(rows), "depth": depth, "kind": command.kind, "text": command.text})
    return rows


@main.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--raw", is_flag=True, help="Write the exact plaintext bytes.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per command (index, depth, kind, text).")
def decode(file: Path, raw: bool, as_json: bool) -> None:
    """Print the plaintext command stream of FILE."""
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
    data = text.read_bytes()
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


def piece_rows(game: SavedGame) -> list[dict[str, Any]]:
    """One row per piece (stacks and decks left out): id, name, map, x, y, stack, layers."""
    rows = []
    for piece_id, entry in game.pieces.items():
        if entry.is_stack or entry.is_deck:
            continue
        piece = entry.piece
        map_name, x, y = game.position(piece_id)
        rows.append({"id": piece_id, "name": piece.name, "map": map_name, "x": x, "y": y,
                     "stack": game.stack_of(piece_id),
                     "layers": {layer.name: layer.level for layer in piece.layers()}})
    return rows


@main.command()
@click.argument("save", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def pieces(save: Path, as_json: bool) -> None:
    """List the pieces of SAVE: id, name, map, x, y, stack, layer levels."""
    rows = piece_rows(SavedGame.read(save))
    if as_json:
        _echo_json(rows)
        return
    click.echo("id\tname\tmap\tx\ty\tstack\tlayers")
    for row in rows:
        layers = ",".join(f"{k}={v}" for k, v in row["layers"].items())
        click.echo(f"{row['id']}\t{row['name']}\t{row['map'] or ''}\t{row['x']}\t{row['y']}\t"
                   f"{row['stack'] or ''}\t{layers}")
