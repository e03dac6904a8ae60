"""``wawkit import``, ``wawkit export`` and ``wawkit terrain draft``: between VASSAL saves and scenario files.

``import`` reads a save through a module profile into a scenario (YAML, or JSON for a
``.json`` name), listing the pieces the profile does not recognise, and keeps where each
unit's piece lay and what its counter showed, so that ``export`` makes the same counters. ``export`` writes
a scenario as a new save of the module, or, with ``--onto SAVE``, writes the
scenario's changes onto that save, touching only the pieces that changed. Output is
written atomically and never replaces an existing file (or the input) without
``--force``.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from converter.cli import main
from converter.errors import ProfileError

if TYPE_CHECKING:
    from converter.importer import Imported
    from converter.profile import Profile
    from converter.terrain import TerrainMap
    from converter.unit_table import UnitTable
    from converter.vassal.module import Module
    from converter.vassal.save import SavedGame

# The importer, exporter and module reader are imported by each command when it runs, so
# that ``wawkit --help`` and the other commands start without them.

EXISTING = click.Path(exists=True, dir_okay=False)


def _inputs(profile_path: str, units: str | None, terrain: str | None
            ) -> tuple[Profile, UnitTable, TerrainMap | None]:
    from converter.importer import read_inputs
    read = read_inputs(profile_path, units, terrain)
    return read.profile, read.table, read.terrain


def _import(save_path: str, module: Module, profile: Profile, table: UnitTable,
            terrain: TerrainMap | None) -> tuple[SavedGame, Imported]:
    from converter.importer import import_save
    from converter.vassal.save import SavedGame
    save = SavedGame.read(save_path)
    return save, import_save(save, module, profile, table, terrain)


@main.command("import")
@click.argument("save", type=EXISTING)
@click.option("--module", "module_path", required=True, type=EXISTING, help="The module (.vmod or buildFile).")
@click.option("--profile", "profile_path", required=True, type=EXISTING, help="The module profile (YAML).")
@click.option("--terrain", type=EXISTING, help="Terrain map (default: the profile's terrain_file).")
@click.option("--units", type=EXISTING, help="Unit table, YAML or CSV (default: the profile's units_file).")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="Scenario file to write.")
@click.option("--force", is_flag=True, help="Replace the output file if it exists.")
def import_command(save: str, module_path: str, profile_path: str, terrain: str | None, units: str | None,
                   output: str, force: bool) -> None:
    """Read SAVE through a module profile into a scenario file."""
    from converter.exporter import scenario_of
    from converter.scenario import write_scenario
    from converter.vassal.container import check_target
    from converter.vassal.module import Module
    check_target(output, overwrite=force, inputs=(save, module_path, profile_path, units, terrain))
    profile, table, terrain_map = _inputs(profile_path, units, terrain)
    module = Module.read(module_path)
    read, imported = _import(save, module, profile, table, terrain_map)
    scenario = scenario_of(read, imported, module, profile, table, name=Path(save).stem, save_path=str(save))
    write_scenario(scenario, output, overwrite=force)
    click.echo(f"{len(imported.game.units)} units, {sum(len(v) for v in imported.unit_markers.values())} unit "
               f"markers, {sum(len(v) for v in imported.hex_markers.values())} hex markers -> {output}")
    for map_name, why in sorted(imported.unplaced.items()):
        click.echo(f"note: {why}: the pieces on map {map_name!r} are in a place (the map), not in hexes",
                   err=True)
    for piece in imported.unrecognised:
        click.echo(f"not recognised: piece {piece.piece} {piece.name!r} on {piece.map} {piece.location}: "
                   f"{piece.reason}", err=True)


@main.command("export")
@click.argument("scenario", type=EXISTING)
@click.option("--module", "module_path", required=True, type=EXISTING, help="The module (.vmod or buildFile).")
@click.option("--profile", "profile_path", required=True, type=EXISTING, help="The module profile (YAML).")
@click.option("--units", type=EXISTING, help="Unit table, YAML or CSV (default: the profile's units_file).")
@click.option("--terrain", type=EXISTING, help="Terrain map (default: the profile's terrain_file).")
@click.option("--onto", type=EXISTING, help="Write the scenario's changes onto this save instead of a new one.")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="Save file to write.")
@click.option("--force", is_flag=True, help="Replace the output file if it exists.")
def export_command(scenario: str, module_path: str, profile_path: str, units: str | None, terrain: str | None,
                   onto: str | None, output: str, force: bool) -> None:
    """Write SCENARIO as a VASSAL save of the module."""
    from converter.exporter import apply_events, events_between, export_scenario
    from converter.scenario import read_scenario
    from converter.vassal.container import check_target, write_atomic
    from converter.vassal.module import Module
    check_target(output, overwrite=force, inputs=(scenario, module_path, profile_path, units, terrain))
    profile, table, terrain_map = _inputs(profile_path, units, terrain)
    module = Module.read(module_path)
    wanted = read_scenario(scenario)
    if onto is None:
        notes: list[str] = []
        save = export_scenario(wanted, module, profile, table, notes)
        save.write(output, overwrite=force)
        click.echo(f"{len(wanted.game.units)} units -> new save {output}")
        for note in notes:
            click.echo(f"note: {note}", err=True)
        return
    save, imported = _import(onto, module, profile, table, terrain_map)
    for key, piece_id in wanted.pieces.items():
        if imported.pieces.get(key) != piece_id:
            raise ProfileError(f"unit {key!r} is piece {piece_id} in the scenario but "
                               f"{imported.pieces.get(key)} in the save; is it the save the scenario came from?",
                               file=onto, piece=piece_id)
    events = events_between(imported.game, wanted.game)
    apply_events(save, module, profile, imported, events)
    if Path(output).exists() and Path(output).resolve() == Path(onto).resolve() and not force:
        raise ProfileError("is the input save; refusing to overwrite it (use --force)", file=output)
    write_atomic(output, save.to_bytes(), overwrite=force)
    click.echo(f"{len(events)} change(s) written onto {onto} -> {output}")


@main.group()
def profile() -> None:
    """Module profiles: which pieces of a module are units, markers and places."""


@profile.command("init")
@click.argument("module_path", metavar="MODULE", type=EXISTING)
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="Profile to write (default: NAME.profile.yaml in this folder, NAME from the module's name).")
@click.option("--units", "units_path", type=click.Path(dir_okay=False),
              help="Unit table to write (default: beside the profile, .units.yaml for .yaml).")
@click.option("--force", is_flag=True, help="Replace the profile and unit table if they exist.")
def profile_init(module_path: str, output: str | None, units_path: str | None, force: bool) -> None:
    """Draft a profile of MODULE, and a unit table listing every unit type found.

    Each guess in the profile says why it was made (# why: ...); the unit table has what
    the module states (names, sides, nations, formations, steps) and waits for the factors.
    `wawkit import` reads the module's saves with the draft as it is.
    """
    import re

    from converter.profile_draft import write_draft
    from converter.vassal.module import Module
    module = Module.read(module_path)
    if output is None:
        output = (re.sub(r"[^a-z0-9]+", "-", module.name.lower()).strip("-") or "module") + ".profile.yaml"
    written = write_draft(module, output, units_path, overwrite=force)
    found = written.draft
    units = found.table_entries()
    groups = [g for g in found.groups if g.units]
    statuses = [*found.unit_markers, *found.status_layers, *found.status_properties]
    click.echo(f"drafted {written.profile} and {written.units} from {module.name!r} {module.version}:")
    click.echo(f"  main map {found.main_map.value!r}: {found.main_map.why}")
    click.echo(f"  {len(units)} unit type(s) in {len(groups)} group(s): "
               + ", ".join(f"{g.label} {len(g.slots)}" for g in groups[:4]) + (" ..." if len(groups) > 4 else ""))
    click.echo(f"  statuses: {', '.join(statuses) or 'none found'}"
               + (f"; not found: {', '.join(found.missing)}" if found.missing else ""))
    if found.hex_markers:
        click.echo(f"  hex markers: {', '.join(found.hex_markers)}")
    if found.holding:
        click.echo("  holding maps: " + ", ".join(f"{m} ({g.value})" for m, g in found.holding.items()))
    for note in found.notes:
        click.echo(f"  {note}")
    click.echo(f"next: check each '# why' in {written.profile}; fill in the factors in {written.units}")


@main.group()
def terrain() -> None:
    """Terrain maps of boards."""


@terrain.command("draft")
@click.argument("module_path", metavar="MODULE", type=EXISTING)
@click.option("--board", required=True, help="The board whose image is sampled.")
@click.option("--palette", required=True, type=EXISTING, help="Terrain colours (YAML).")
@click.option("--map", "map_name", help="The map the board is on (default: the first that has it).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the terrain map here (default: stdout).")
@click.option("--force", is_flag=True, help="Replace the output file if it exists.")
def terrain_draft(module_path: str, board: str, palette: str, map_name: str | None, output: str | None,
                  force: bool) -> None:
    """Propose a terrain map from the board image: the nearest palette colour at each hex."""
    import yaml

    from converter.schema import load_document
    from converter.terrain import draft, read_palette
    from converter.vassal.container import write_atomic
    from converter.vassal.module import Module
    colours = read_palette(palette)
    default = load_document(palette, "palette").get("default")
    from converter.vassal.grids.assigned import NOTE, unnumbered
    module = Module.read(module_path)
    proposal = draft(module, board, colours, map_name=map_name, default=default)
    assigned = unnumbered(module.map(proposal.terrain.map or "").board(board).grid)
    note = f"# Hex names: {NOTE}.\n" if assigned else ""
    text = "# Drafted from the board image by `wawkit terrain draft`; check it against the board.\n" + note + \
        yaml.safe_dump(proposal.terrain.to_document(), sort_keys=False, allow_unicode=True, width=110)
    if output is None:
        click.echo(text, nl=False)
    else:
        write_atomic(output, text.encode("utf-8"), overwrite=force)
    if assigned:
        click.echo(f"note: board {board!r}: {NOTE}", err=True)
    if proposal.unmatched:
        click.echo(f"no palette colour at the centre of {len(proposal.unmatched)} hex(es): "
                   + ", ".join(proposal.unmatched), err=True)


__all__ = ["export_command", "import_command", "profile", "profile_init", "terrain", "terrain_draft"]
