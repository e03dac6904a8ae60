"""The ``wawkit`` command line.

Each topic lives in its own module beside this one and registers its commands on
:data:`main`; this file only builds the group and turns typed errors into one
readable line and a non-zero exit code (never a traceback).

Start-up: running a command imports only the module that defines it (and that module
imports what the command reads only when it runs), so ``wawkit inspect game.vsav`` never
loads the referee, the importer or the module reader; ``wawkit --help`` imports every
command module to list them, and nothing behind them.
"""
from __future__ import annotations

import importlib
import sys

import click

from converter.errors import WawkitError

#: Modules that add commands to the group, imported in this order.
COMMAND_MODULES: tuple[str, ...] = (
    "converter.cli.codec",
    "converter.cli.rules",
    "converter.cli.module",
    "converter.cli.scenario",
    "converter.cli.jobs",
    "converter.cli.serve",
)

#: The module that defines each command, so that running one imports only that module.
#: A command missing here still runs (every module is then imported to find it).
COMMAND_HOMES: dict[str, str] = {
    "inspect": "converter.cli.codec", "decode": "converter.cli.codec", "encode": "converter.cli.codec",
    "pieces": "converter.cli.codec",
    "cases": "converter.cli.rules", "odds": "converter.cli.rules", "los": "converter.cli.rules",
    "actions": "converter.cli.rules", "profile": "converter.cli.scenario", "serve": "converter.cli.serve",
    "inspect-module": "converter.cli.module", "locate": "converter.cli.module",
    "import": "converter.cli.scenario", "export": "converter.cli.scenario", "terrain": "converter.cli.scenario",
    "validate": "converter.cli.jobs", "resolve": "converter.cli.jobs", "verify": "converter.cli.jobs",
    "render": "converter.cli.jobs", "migrate": "converter.cli.jobs",
}

#: Exit codes shared by every command.
EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_BAD_INPUT = 2

#: What ``--help`` says of the exit codes of a command that has no findings to report.
EXIT_CODES = "Exit codes: 0 done; 2 an input that cannot be read, or a wrong option."


class WawkitCommand(click.Command):
    """A command whose ``--help`` ends with its exit codes (:data:`EXIT_CODES` unless it says its own)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs["epilog"] = kwargs.get("epilog") or EXIT_CODES
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]


class WawkitGroup(click.Group):
    """A click group whose commands report bad input as one line and exit 2, say their exit
    codes in ``--help``, and whose command modules are imported when a command is asked for."""

    command_class = WawkitCommand
    group_class = type

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            home = COMMAND_HOMES.get(cmd_name)
            if home is not None:
                _import(home)
            if cmd_name not in self.commands:
                _register()
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        _register()
        return super().list_commands(ctx)

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except WawkitError as error:
            click.echo(f"wawkit: {error}", err=True)
            ctx.exit(EXIT_BAD_INPUT)
        except BrokenPipeError:  # the reader went away (``wawkit pieces ... | head``)
            sys.stderr.close()
            ctx.exit(EXIT_OK)
        except OSError as error:
            name = getattr(error, "filename", None)
            where = f"{name}: " if name else ""
            click.echo(f"wawkit: {where}{error.strerror or error}", err=True)
            ctx.exit(EXIT_BAD_INPUT)


@click.group(cls=WawkitGroup, context_settings={"help_option_names": ["-h", "--help"]},
             epilog="Exit codes of every command: 0 done (clean, or notes only); 1 findings (validate), an action "
                    "refused (resolve), pieces left unmatched (migrate), a replay that differs (verify), a case "
                    "failed (cases); 2 an input that cannot be read, or a wrong option. Each command's --help says "
                    "its own.")
@click.version_option(package_name="wawkit")
def main() -> None:
    """wawkit: validate, referee and migrate World at War games on VASSAL."""


def _import(name: str) -> None:
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as error:  # a topic still being written
        if error.name != name:
            raise


def _register() -> None:
    """Import every command module (each registers its commands on :data:`main`)."""
    for name in COMMAND_MODULES:
        _import(name)

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
