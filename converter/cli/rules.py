"""``wawkit cases``, ``wawkit odds`` and ``wawkit los``: the referee from the command line.

``cases`` runs a rule-case file (``rule-cases.yaml`` format) against the referee and
prints one line per case-run and the closing ``N passed, N failed, N gaps``; ``odds``
prints the exact distribution of hits, saves, net hits and results of an attack; ``los``
answers whether two units or hexes of a scenario see each other, and what blocks.
"""
from __future__ import annotations

import json
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import click

from converter.cli import EXIT_FINDINGS, main
from converter.errors import SchemaError, WawkitError

if TYPE_CHECKING:
    from referee.model import Game

# The referee is imported by each command when it runs, so that ``wawkit --help`` and the
# commands that do not referee start without it.

SCHEMA_NAME = "rule-case.schema.json"


def _validate(cases: list[dict[str, Any]], schema_path: Path, file: str) -> None:
    import jsonschema
    from converter.schema import parse_text, read_text
    schema = parse_text(read_text(schema_path), file=str(schema_path), fmt="json")
    from jsonschema.exceptions import best_match
    error = best_match(jsonschema.Draft202012Validator(schema).iter_errors(cases))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path)
        index = error.absolute_path[0] if error.absolute_path else None
        case_id = cases[index].get("id") if isinstance(index, int) and isinstance(cases[index], dict) else None
        raise SchemaError(f"at {where or 'top'}: {error.message[:200]}", file=file,
                          entry=f"case {case_id}" if case_id else None) from None


def _load(path: str, schema: str | None, no_schema: bool) -> list[dict[str, Any]]:
    from converter.schema import parse_text, read_text
    from referee.cases import check_cases
    from referee.errors import CaseError
    data = parse_text(read_text(path), file=path)  # bounded read, hardened loader
    try:
        cases = check_cases(data, path)
    except CaseError as error:
        raise SchemaError(str(error)) from None
    if not no_schema:
        schema_path = Path(schema) if schema else Path(path).with_name(SCHEMA_NAME)
        if schema or schema_path.exists():
            _validate(cases, schema_path, path)
    return cases


@main.command(epilog="Exit codes: 0 no case failed (gaps are not failures); 1 a case failed; 2 a file that "
                     "cannot be read or does not match the schema.")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--ruleset", "ruleset", type=click.Choice(["classic", "waw85"]),
              help="Run only the cases of this ruleset.")
@click.option("--book", type=click.Choice(["eisenbach", "untold"]),
              help="Classic: run only under this book's reading.")
@click.option("--id", "prefix", help="Run only cases whose id starts with this.")
@click.option("--schema", type=click.Path(dir_okay=False),
              help=f"Validate against this schema (default: {SCHEMA_NAME} beside FILE, if present).")
@click.option("--no-schema", is_flag=True, help="Do not validate the file first.")
@click.option("--json", "as_json", is_flag=True, help="One JSON document instead of text.")
def cases(file: str, ruleset: str | None, book: str | None, prefix: str | None,
          schema: str | None, no_schema: bool, as_json: bool) -> None:
    """Run the rule cases in FILE against the referee."""
    from referee.cases import run_cases, summary
    from referee.errors import CaseError
    from referee.rulesets import get_ruleset
    loaded = _load(file, schema, no_schema)
    try:
        outcomes = run_cases(loaded, get_ruleset, ruleset=ruleset, flag=book, prefix=prefix)
    except CaseError as error:
        raise SchemaError(str(error), file=file) from None
    if not outcomes:
        chosen = [f"{name} {value!r}" for name, value in (("--ruleset", ruleset), ("--book", book), ("--id", prefix))
                  if value]
        raise SchemaError(f"no case matches {', '.join(chosen) or 'any ruleset'}; nothing was run", file=file)
    if as_json:
        click.echo(json.dumps({
            "runs": [{"case": o.case, "row": o.row, "book": o.flag, "status": o.status,
                      "details": o.details} for o in outcomes],
            "summary": summary(outcomes)}, indent=1))
    else:
        for outcome in outcomes:
            click.echo(outcome.line())
        click.echo(summary(outcomes))
    if any(o.status == "failed" for o in outcomes):
        raise SystemExit(EXIT_FINDINGS)


def _case_odds(file: str, case_id: str, row: int | None, book: str) -> list[str]:
    from referee.cases import build_action, build_game, merge
    from referee.combat_odds import odds_for
    from referee.errors import RefereeError
    from referee.rulesets import get_ruleset
    loaded = _load(file, None, True)
    case = next((c for c in loaded if c["id"] == case_id), None)
    if case is None:
        raise SchemaError(f"no case {case_id!r}", file=file)
    given = case.get("given") or {}
    if row is not None:
        rows = case.get("rows") or []
        if not 0 <= row < len(rows):
            raise SchemaError(f"case {case_id} has no row {row}", file=file)
        given = merge(given, rows[row].get("given") or {})
    try:
        result = odds_for(get_ruleset(case["ruleset"], book), build_game(given),
                          build_action(given.get("query") or {}))
    except RefereeError as error:
        raise SchemaError(f"cannot compute odds: {error}", file=file, entry=f"case {case_id}") from None
    return result.lines()


@main.command()
@click.option("--fp", type=click.IntRange(0, 40), help="Attack dice.")
@click.option("--to-hit", type=click.IntRange(1, 6), help="To-hit number.")
@click.option("--defense-dice", type=click.IntRange(0, 40), default=0, show_default=True,
              help="Armor plus DB dice of the target.")
@click.option("--save", type=click.IntRange(1, 6), default=5, show_default=True, help="Save number.")
@click.option("--target-type", default="troops", show_default=True,
              type=click.Choice(["heavy_armor", "light_armor", "soft_vehicle", "troops", "helicopter"]))
@click.option("--strength", type=click.Choice(["full", "reduced"]), default="full", show_default=True)
@click.option("--disrupted", is_flag=True, help="The target is already Disrupted.")
@click.option("--weapon", type=click.Choice(["ap", "he", "aa"]), default=None)
@click.option("--improved-position", is_flag=True, help="The first hit is negated (001 §12.1).")
@click.option("--book", type=click.Choice(["eisenbach", "untold"]), default="untold", show_default=True)
@click.option("--cases", "case_file", type=click.Path(dir_okay=False),
              help="Take the attack from a rule-case file instead (with --id).")
@click.option("--id", "case_id", help="Case id in --cases.")
@click.option("--row", type=int, help="Row index of that case.")
def odds(fp: int | None, to_hit: int | None, defense_dice: int, save: int, target_type: str,
         strength: str, disrupted: bool, weapon: str | None, improved_position: bool, book: str,
         case_file: str | None, case_id: str | None, row: int | None) -> None:
    """Exact odds of a ranged attack (hits, saves, net hits, each result), or of the fire
    or assault a rule case describes."""
    if case_file:
        if not case_id:
            raise click.UsageError("--cases needs --id")
        for line in _case_odds(case_file, case_id, row, book):
            click.echo(line)
        return
    if case_id is not None or row is not None:
        raise click.UsageError("--id and --row choose a case of --cases FILE; give --cases too")
    if fp is None or to_hit is None:
        raise click.UsageError("give --fp and --to-hit (or --cases FILE --id ID)")
    from referee.combat_odds import RESULT_ORDER, net_hits_distribution, result_ladder
    from referee.model import Game, Status, Unit, UnitType
    from referee.rulesets import get_ruleset
    ruleset = get_ruleset("classic", book)
    target = Unit("T", UnitType(target_type=target_type), strength=strength,
                  status=Status(disrupted=disrupted))
    game = Game(units=MappingProxyType({"T": target}))
    hits, saves, net = net_hits_distribution(fp, to_hit, defense_dice, save, improved_position)
    ladder = result_ladder(ruleset, game, "T", weapon, fp)
    results = net.map(ladder.__getitem__)
    click.echo(f"attack {fp} dice at {to_hit}+, defence {defense_dice} dice at {save}+")
    for name, dist in (("hits", hits), ("saves", saves), ("net hits", net)):
        click.echo(f"{name:9} " + ", ".join(f"{k}: {p} ({float(p):.1%})" for k, p in dist.items()))
    click.echo("results   " + ", ".join(f"{k}: {results[k]} ({float(results[k]):.1%})"
                                        for k in RESULT_ORDER if results[k]))


# -- wawkit los ---------------------------------------------------------------------------------

def _observer(game: Game, where: str, key: str) -> tuple[Game, str]:
    """The unit standing for ``where``: a unit key as it is, or a hex id. An empty hex gets
    an infantry observer at ground level (no helicopter height, no hill of its own besides
    the hex's), so the answer is about the terrain between the two hexes."""
    from referee.model import Unit, UnitType
    if where in game.units:
        if not game.units[where].hex or not game.units[where].on_map:
            raise click.BadParameter(f"unit {where!r} is not on the map (it has no hex); give a unit on the map "
                                     "or a hex")
        return game, where
    if where not in game.hexes:
        raise click.BadParameter(f"{where!r} is neither a unit key nor a hex of the scenario")
    on_hex = sorted(u.key for u in game.units.values() if u.hex == where and u.on_map)
    if on_hex:
        return game, on_hex[0]
    return game.with_unit(Unit(key, UnitType(name=f"observer in {where}", target_type="troops"), hex=where)), key


def los_answer(game: Game, source: str, target: str, ruleset: str = "classic",
               book: str | None = None) -> dict[str, Any]:
    """The referee's LOS answer between two units or hexes: blocked or clear, every reason
    with its rule section, and the hexes the string crosses with their terrain."""
    from referee.actions import make_action
    from referee.los_geometry import trace_line
    from referee.rulesets import get_ruleset
    game, a = _observer(game, source, "observer-a")
    game, b = _observer(game, target, "observer-b")
    answer = get_ruleset(ruleset, book).check(game, make_action("los", unit=a, target=b))
    path: list[dict[str, Any]] = []
    sides: list[list[dict[str, Any]]] = []
    here, there = game.hex(game.unit(a).hex), game.hex(game.unit(b).hex)
    if here.at is not None and there.at is not None:
        by_position = {h.at: h for h in game.hexes.values() if h.at is not None}

        def described(cell: Any) -> dict[str, Any]:
            state = by_position.get(cell)
            return {"hex": state.id if state else None, "terrain": state.terrain if state else None,
                    "markers": sorted(state.markers) if state else []}
        trace = trace_line(here.at, there.at)
        path = [described(cell) for cell in trace.between]
        sides = [[described(run.first), described(run.second)] for run in trace.hexside_runs]
    return {"from": game.unit(a).hex, "to": game.unit(b).hex, "blocked": answer.values.get("blocked"),
            "reasons": [{"section": r.section, "text": r.text} for r in answer.reasons],
            "intervening": path, "along_hexsides": sides, "gaps": list(answer.gaps.values())}


@main.command()
@click.argument("scenario", type=click.Path(exists=True, dir_okay=False))
@click.argument("source", metavar="FROM")
@click.argument("target", metavar="TO")
@click.option("--ruleset", type=click.Choice(["classic", "waw85"]), default="classic", show_default=True)
@click.option("--book", type=click.Choice(["untold", "eisenbach"]), help="Classic: which book's reading.")
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")
def los(scenario: str, source: str, target: str, ruleset: str, book: str | None, as_json: bool) -> None:
    """Line of sight between two units or hexes of SCENARIO, and what blocks it.

    FROM and TO are unit keys or hex ids (an empty hex is looked at from ground level).
    """
    from converter.scenario import read_scenario
    from referee.errors import RefereeError
    game = read_scenario(scenario).game
    try:
        answer = los_answer(game, source, target, ruleset, book)
    except RefereeError as error:  # the scenario lacks what the referee needs: bad input, exit 2
        raise WawkitError(f"cannot trace LOS {source} -> {target}: {error}", file=scenario) from None
    if as_json:
        click.echo(json.dumps(answer, indent=2, ensure_ascii=False))
        return
    verdict = {True: "BLOCKED", False: "clear", None: "not known"}[answer["blocked"]]
    click.echo(f"LOS {answer['from']} -> {answer['to']}: {verdict}")
    crossed = ", ".join(f"{h['hex']} {h['terrain']}" + (f" ({', '.join(h['markers'])})" if h["markers"] else "")
                        for h in answer["intervening"])
    between = "nothing (same hex)" if answer["from"] == answer["to"] else "nothing (adjacent)"
    click.echo(f"  crosses: {crossed or between}")
    if answer["along_hexsides"]:
        runs = ", ".join(f"{first['hex']} {first['terrain']} | {second['hex']} {second['terrain']}"
                         for first, second in answer["along_hexsides"])
        click.echo(f"  runs along the hexsides between: {runs}")
    for reason in answer["reasons"]:
        cited = "§" in reason["text"]           # the text already names its section
        click.echo(f"  {reason['text']}" + ("" if cited else f" ({reason['section']})"))
    for gap in answer["gaps"]:
        click.echo(f"  {gap}")


# -- wawkit actions -----------------------------------------------------------------------------

@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print the listing as JSON.")
@click.option("--markdown", is_flag=True, help="Print the listing as Markdown (docs/actions.md).")
def actions(as_json: bool, markdown: bool) -> None:
    """Every action kind the referee accepts: its fields, its short form and an example.

    Generated from the referee's rulesets and the short action syntax, so it lists what
    `wawkit resolve --action` and actions files accept today.
    """
    from converter import actions_help
    if as_json:
        click.echo(json.dumps([item.to_dict() for item in actions_help.catalogue()], indent=1))
    elif markdown:
        click.echo(actions_help.to_markdown(), nl=False)
    else:
        click.echo(actions_help.to_text(), nl=False)
