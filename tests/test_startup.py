"""Start-up: a command imports only what it uses.

``wawkit --help`` lists every command without importing what is behind them, and
``wawkit inspect`` of a save reads it without the referee, the importer or the module
reader. Each case runs in a fresh interpreter and reports the modules it loaded (the
time it takes is measured by ``make bench``, never here).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parents[1] / "samples"

#: What ``--help`` must not load: the referee, every reader and writer, YAML, schemas, lxml, Pillow.
HEAVY = ("referee", "lxml", "yaml", "jsonschema", "PIL", "converter.importer", "converter.exporter",
         "converter.validate", "converter.profile", "converter.scenario", "converter.vassal.module",
         "converter.vassal.save", "converter.vassal.pieces", "converter.vassal.traits",
         "converter.vassal.container", "converter.vassal.grids")

RUN = """
import json, sys
from converter.cli import main
try:
    main({args!r}, prog_name="wawkit")
except SystemExit as done:
    code = done.code
print(json.dumps({{"code": code, "modules": sorted(sys.modules)}}), file=sys.stderr)
"""


def loaded(*args: str) -> tuple[int, set[str]]:
    done = subprocess.run([sys.executable, "-c", RUN.format(args=list(args))], capture_output=True, text=True,
                          timeout=120)
    report = json.loads(done.stderr.strip().splitlines()[-1])
    return report["code"], set(report["modules"])


def heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))


def test_help_lists_the_commands_without_what_is_behind_them() -> None:
    code, modules = loaded("--help")
    assert code == 0
    assert heavy(modules) == []
    assert {"converter.cli.codec", "converter.cli.jobs", "converter.cli.rules"} <= modules


def test_inspect_of_a_save_loads_only_the_save_reader() -> None:
    """The save reader and the trait families its pieces use (the demo's counters: layers,
    markers, prototypes; no action or appearance traits); its metadata is read with expat,
    not lxml, and nothing that writes files is loaded."""
    code, modules = loaded("inspect", str(SAMPLES / "demo.vsav"))
    assert code == 0
    assert heavy(modules) == ["converter.vassal.container", "converter.vassal.pieces", "converter.vassal.save",
                              "converter.vassal.traits", "converter.vassal.traits.base",
                              "converter.vassal.traits.basic", "converter.vassal.traits.chain",
                              "converter.vassal.traits.layers", "converter.vassal.traits.properties",
                              "converter.vassal.traits.prototypes"]
    assert not {"converter.cli.rules", "converter.cli.scenario", "converter.cli.jobs"} & modules
    assert not {"converter.writes", "tempfile"} & modules


@pytest.mark.parametrize("command", ["validate", "resolve", "cases", "los", "import", "render", "actions", "profile",
                                     "serve"])
def test_a_command_help_loads_only_its_own_module(command: str) -> None:
    code, modules = loaded(command, "--help")
    assert code == 0
    assert heavy(modules) == []


def test_the_trait_homes_name_every_trait_class() -> None:
    """``traits.HOMES`` (what lets a family load on first use) matches the classes themselves."""
    from converter.vassal.traits import HOMES, TRAIT_CLASSES, trait_class
    assert {cls.prefix: (cls.__module__.rsplit(".", 1)[1], cls.__name__) for cls in TRAIT_CLASSES} == HOMES
    assert len(HOMES) == 47
    assert trait_class("mark;Side").__name__ == "Marker" and trait_class("turr;x").__name__ == "UnknownTrait"


def test_the_command_homes_name_each_command_module() -> None:
    from converter.cli import COMMAND_HOMES, _register, main
    _register()
    assert {name: command.callback.__module__ for name, command in main.commands.items()
            if command.callback is not None and name != "terrain"} == \
        {name: home for name, home in COMMAND_HOMES.items() if name != "terrain"}
    assert set(main.commands) == set(COMMAND_HOMES)
