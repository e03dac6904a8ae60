"""Every command's ``--help`` says what it accepts and ends with its exit codes."""
from __future__ import annotations

import click
from click.testing import CliRunner

from converter.cli import EXIT_CODES, _register, main


def commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    _register()  # commands are loaded when first asked for: load them all to list them
    found = []
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            found += commands(command, (*prefix, name))
        else:
            found.append((*prefix, name))
    return found


def help_text(*args: str) -> str:
    result = CliRunner().invoke(main, [*args, "--help"], terminal_width=1000)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_every_command_says_its_exit_codes() -> None:
    found = commands(main)
    assert len(found) == 20 and ("serve",) in found and ("profile", "init") in found and ("terrain", "draft") in found
    last = {args: help_text(*args).rstrip().splitlines()[-1].strip() for args in found}
    own = {args: line for args, line in last.items() if line != EXIT_CODES}
    assert all("Exit codes: 0 " in line for line in own.values())
    assert sorted(own) == [("cases",), ("migrate",), ("resolve",), ("validate",), ("verify",)]
    assert own[("validate",)] == ("Exit codes: 0 clean or notes only; 1 findings (errors, warnings, rules not "
                                  "supported); 2 a file or input that cannot be read.")
    assert own[("verify",)] == ("Exit codes: 0 the replay gives the recorded result; 1 it differs; 2 an audit "
                                "record or a file it names that cannot be read.")
    assert last[("import",)] == "Exit codes: 0 done; 2 an input that cannot be read, or a wrong option."


def test_the_top_help_lists_every_exit_code() -> None:
    assert help_text().rstrip().splitlines()[-1].strip() == (
        "Exit codes of every command: 0 done (clean, or notes only); 1 findings (validate), an action refused "
        "(resolve), pieces left unmatched (migrate), a replay that differs (verify), a case failed (cases); 2 an "
        "input that cannot be read, or a wrong option. Each command's --help says its own.")


def test_a_wrong_option_exits_2() -> None:
    result = CliRunner().invoke(main, ["import", "--no-such-option"])
    assert result.exit_code == 2 and result.stderr.endswith("Error: No such option '--no-such-option'.\n")
