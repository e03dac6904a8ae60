"""The three jobs on the command line: ``validate``, ``resolve`` (+ ``verify``), ``render``, ``migrate``.

Exit codes are the group's: 0 clean (or done), 1 findings (or a refused action),
2 unreadable input. Reports go to stdout; progress and notes to stderr. Each command
imports its job module when it runs, so ``wawkit --help`` stays quick.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from converter.cli import EXIT_BAD_INPUT, EXIT_FINDINGS, EXIT_OK, main
from converter.errors import WawkitError

def _exit(code: int) -> None:
    click.get_current_context().exit(code)


EXISTING = click.Path(exists=True, dir_okay=False)
RULESETS = click.Choice(["classic", "classic:untold", "classic:eisenbach", "waw85"])


# -- validate ---------------------------------------------------------------------------------

#: Steps from which a log's replay shows a progress bar (on a terminal, never with --json).
PROGRESS_STEPS = 200


@main.command(epilog="Exit codes: 0 clean or notes only; 1 findings (errors, warnings, rules not supported); "
                     "2 a file or input that cannot be read.")
@click.argument("path", type=click.Path(exists=True))
@click.option("--module", "module_path", type=EXISTING, help="The module (.vmod or buildFile) the save belongs to.")
@click.option("--profile", "profile_path", type=EXISTING,
              help="Module profile: also read units and judge legality by the rules the profile names.")
@click.option("--units", type=EXISTING, help="Unit table (default: the profile's units_file).")
@click.option("--terrain", type=EXISTING, help="Terrain map (default: the profile's terrain_file).")
@click.option("--ruleset", default=None, type=RULESETS,
              help="Judge by these rules instead of the ones the profile names (not for a profile with rules: none).")
@click.option("--json", "as_json", is_flag=True, help="JSON (for a folder: one line per file, then a summary line).")
@click.option("--workers", type=int, default=None, help="Processes for a folder (default: all cores).")
@click.option("--recursive", "-r", is_flag=True, help="For a folder: also the saves and logs of its subfolders.")
@click.option("--no-replay", is_flag=True, help="For logs: check the starting position only, not every step.")
def validate(path: str, module_path: str | None, profile_path: str | None, units: str | None, terrain: str | None,
             ruleset: str | None, as_json: bool, workers: int | None, recursive: bool, no_replay: bool) -> None:
    """Check a save, a log, or a folder of them: soundness, and with --profile the position and
    every logged step as the referee judges them. Saves and logs are recognised by their content."""
    from converter.validate import Options, saves_in, validate_folder
    given = [name for name, value in (("--units", units), ("--terrain", terrain), ("--ruleset", ruleset)) if value]
    if profile_path and not module_path:
        raise click.UsageError("--profile needs --module: the profile names the module's maps and pieces")
    if given and not profile_path:
        raise click.UsageError(f"{' and '.join(given)} need{'s' if len(given) == 1 else ''} --profile (and "
                               "--module): units are read through the module's profile")
    if profile_path and ruleset:
        from converter.profile import read_profile
        from converter.validate import rules_of
        rules_of(read_profile(profile_path), ruleset)      # refused before any file is read
    options = Options(module_path, profile_path, ruleset, units, replay_log=not no_replay, terrain=terrain)
    if os.path.isdir(path):
        from converter.report import FolderSummary
        paths = saves_in(path, recursive=recursive)
        if not paths:
            where = "this folder or its subfolders" if recursive else "this folder (subfolders: --recursive)"
            raise WawkitError(f"no saves or logs in {where}", file=path)
        with click.progressbar(length=len(paths), label="validating", file=sys.stderr) as bar:
            reports = validate_folder(path, options, workers=workers, progress=lambda _r: bar.update(1),
                                      recursive=recursive)
        summary = FolderSummary(path, reports)
        for report in reports:
            click.echo(report.to_json(indent=None) if as_json else report.to_text())
        click.echo(json.dumps(summary.to_dict(), ensure_ascii=False) if as_json else summary.to_text())
    else:
        reports = [_validate_one(path, options, as_json)]
        click.echo(reports[0].to_json() if as_json else reports[0].to_text())
    if any(r.kind == "unreadable" for r in reports):
        _exit(EXIT_BAD_INPUT)
    _exit(max(r.exit_code for r in reports))


def _validate_one(path: str, options: object, as_json: bool) -> object:
    """One file, with a progress bar over a long log's replay when stderr is a terminal."""
    from converter.validate import validate_path
    if as_json or not sys.stderr.isatty():
        return validate_path(path, options)  # type: ignore[arg-type]
    bar = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if bar is None and total >= PROGRESS_STEPS:
            bar = click.progressbar(length=total, label="replaying the log", file=sys.stderr)
            bar.__enter__()
        if bar is not None:
            bar.update(done - bar.pos)
    try:
        return validate_path(path, options, progress)  # type: ignore[arg-type]
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)


# -- resolve, verify -------------------------------------------------------------------------

@main.command(epilog="Every action kind, its fields and short form: wawkit actions. Exit codes: 0 resolved and "
                     "written; 1 an action refused, or a result the profile cannot write (nothing is written); "
                     "2 an input that cannot be read.")
@click.argument("save", type=EXISTING)
@click.option("--module", "module_path", required=True, type=EXISTING, help="The module (.vmod or buildFile).")
@click.option("--profile", "profile_path", required=True, type=EXISTING, help="The module profile (YAML).")
@click.option("--units", type=EXISTING, help="Unit table (default: the profile's units_file).")
@click.option("--terrain", type=EXISTING, help="Terrain map (default: the profile's terrain_file).")
@click.option("--action", "actions", multiple=True, help='A short action, e.g. "fire C7 F6 ap" (repeatable).')
@click.option("--actions", "actions_file", type=EXISTING, help="An actions file (YAML).")
@click.option("--dice", help="Dice to use in order, e.g. 4,5,6,3.")
@click.option("--seed", type=int, help="Seed for rolled dice (reported in the audit).")
@click.option("--ruleset", default=None, type=RULESETS, help="Instead of the rules the profile names.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Corrected save to write.")
@click.option("--in-place", is_flag=True, help="Write the corrected save over SAVE, keeping the original as "
              "SAVE.bak (or the next free SAVE.bak.N); refused if SAVE changed meanwhile.")
@click.option("--audit", "audit_path", type=click.Path(dir_okay=False),
              help="Audit record to write (default: OUTPUT with .audit.json).")
@click.option("--force", is_flag=True, help="Replace OUTPUT if it exists.")
def resolve(save: str, module_path: str, profile_path: str, units: str | None, terrain: str | None,
            actions: tuple[str, ...], actions_file: str | None,
            dice: str | None, seed: int | None, ruleset: str | None, output: str | None, in_place: bool,
            audit_path: str | None, force: bool) -> None:
    """Check and resolve actions on SAVE; write the corrected save, the report and an audit record."""
    from converter.actions_text import load_actions, parse
    from converter.resolve import ResolveError, parse_dice, read_position, run
    if bool(actions) == bool(actions_file):
        raise ResolveError("give --action (one or more) or --actions FILE, not both and not neither")
    if (output is None) == (not in_place):
        raise ResolveError("give -o OUTPUT or --in-place, not both and not neither")
    output = save if in_place else str(output)
    from converter.vassal.container import check_target
    check_target(output, overwrite=force or in_place)  # before any die is rolled
    specs = [parse(text) for text in actions] if actions else load_actions(actions_file)  # type: ignore[arg-type]
    audit_file = Path(audit_path or _audit_name(output))
    check_target(audit_file, overwrite=True)  # the record goes with the save: both are written or neither
    position = read_position(save, module_path, profile_path, units=units, terrain=terrain)
    resolved = run(position, specs, ruleset=ruleset, dice=parse_dice(dice) if dice else None, seed=seed,
                   audit_dir=audit_file.parent, actions_input=actions_file)
    if resolved.save is None:
        click.echo(resolved.report)
        _exit(EXIT_FINDINGS)
    from converter.resolve import write_resolution
    kept = write_resolution(resolved, output, audit_file, overwrite=force, in_place=in_place)
    # The report only once the save holds what it says: a write refused (another player's
    # resolve won, the disk is full) leaves no result for a player to paste into the chat.
    click.echo(resolved.report)
    click.echo(f"wrote {output} and {audit_file}" + (f" (the original kept as {kept})" if kept else ""), err=True)
    if resolved.unused_dice:
        unused = ",".join(str(d) for d in resolved.unused_dice)
        click.echo(f"note: {len(resolved.unused_dice)} given dice were not used ({unused}); "
                   "check that the dice match the rolls above", err=True)


def _audit_name(output: str) -> str:
    stem, _ = os.path.splitext(output)
    return stem + ".audit.json"


@main.command(epilog="Exit codes: 0 the replay gives the recorded result; 1 it differs; 2 an audit record or a "
                     "file it names that cannot be read.")
@click.argument("audit", type=EXISTING)
def verify(audit: str) -> None:
    """Replay an audit record and check the result is identical."""
    from converter.audit import verify as run_verify
    result = run_verify(audit)
    click.echo(result.to_text())
    _exit(EXIT_OK if result.identical else EXIT_FINDINGS)


# -- render ----------------------------------------------------------------------------------

@main.command()
@click.argument("source", type=EXISTING)
@click.option("--module", "module_path", type=EXISTING, help="The module (for a save, or to draw on its board).")
@click.option("--profile", "profile_path", type=EXISTING, help="The module profile (for a save).")
@click.option("--units", type=EXISTING, help="Unit table (default: the profile's units_file).")
@click.option("--map", "map_name", help="Map to draw (default: the profile's main map).")
@click.option("--los", nargs=2, multiple=True, help="Draw the line of sight between two units (keys or hexes).")
@click.option("--last-resolution", "audit", type=EXISTING, help="Mark the results of this audit record.")
@click.option("--ruleset", default=None, type=RULESETS,
              help="Rules for --los (default: the profile's; classic without a profile).")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="PNG file to write.")
@click.option("--force", is_flag=True, help="Replace OUTPUT if it exists.")
def render(source: str, module_path: str | None, profile_path: str | None, units: str | None, map_name: str | None,
           los: tuple[tuple[str, str], ...], audit: str | None, ruleset: str | None, output: str, force: bool) -> None:
    """Draw a save (with --module and --profile) or a scenario file as a PNG picture."""
    from converter.render import picture
    from converter.vassal.container import check_target
    check_target(output, overwrite=force, inputs=(source, module_path, profile_path, units, audit))
    scene = picture(source, output, module=module_path, profile=profile_path, units=units, map_name=map_name,
                    sights=list(los), audit=audit, ruleset=ruleset)
    for note in scene.notes:
        click.echo(f"note: {note}", err=True)
    click.echo(f"wrote {output}", err=True)


# -- migrate ---------------------------------------------------------------------------------

@main.command(epilog="Exit codes: 0 every piece matched; 1 some pieces left as they were, or nothing written "
                     "because too few matched; 2 an input that cannot be read.")
@click.argument("save", type=EXISTING)
@click.option("--to-module", "module_path", required=True, type=EXISTING, help="The new module (.vmod or buildFile).")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="Migrated save to write.")
@click.option("--force", is_flag=True, help="Replace OUTPUT if it exists.")
@click.option("--min-match", type=click.IntRange(0, 100), default=50, show_default=True,
              help="Write nothing when fewer than this percent of the pieces match a PieceSlot.")
@click.option("--allow-unmatched", is_flag=True, help="Write the migrated save however few pieces match.")
@click.option("--json", "as_json", is_flag=True, help="Report as JSON.")
def migrate(save: str, module_path: str, output: str, force: bool, min_match: int, allow_unmatched: bool,
            as_json: bool) -> None:
    """Re-create every piece of SAVE from the new module's PieceSlots (by gpid, then name)."""
    from converter.migrate import migrate_file
    report = migrate_file(save, module_path, output, overwrite=force, min_matched=min_match / 100,
                          allow_unmatched=allow_unmatched)
    click.echo(json.dumps(report.to_dict(), indent=2) if as_json else report.to_text())
    _exit(EXIT_FINDINGS if report.unmatched or report.refused else EXIT_OK)


__all__ = ["validate", "resolve", "verify", "render", "migrate"]
