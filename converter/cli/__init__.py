"""The ``wawkit`` command line.

Each topic lives in its own module beside this one and registers its commands on
:data:`main`; this file only builds the group and turns typed errors into one
readable line and a non-zero exit code (never a traceback).
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

#: Exit codes shared by every command.
EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_BAD_INPUT = 2


class WawkitGroup(click.Group):
    """A click group whose commands report bad input as one line and exit 2."""

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


@click.group(cls=WawkitGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="wawkit")
def main() -> None:
    """wawkit: validate, referee and migrate World at War games on VASSAL."""


def _register() -> None:
    for name in COMMAND_MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as error:  # a topic still being written
            if error.name != name:
                raise


_register()

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
