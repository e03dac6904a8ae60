"""The command line as a player or a module maker meets it: real corpus files and bad input.

Each test pins the exact line and exit code a user sees (0 clean, 1 findings, 2 bad input),
so a message that once confused a user cannot quietly come back.
"""
from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from converter.cli import main

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
SAMPLES = Path(__file__).resolve().parents[1] / "samples"
ZXVT = CORPUS / "zxvt-capture-territory"


def run(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def test_summary_counts_one_finding_in_the_singular() -> None:
    code, out, _err = run("validate", ZXVT / "5x5_startup.vlog", "--module", ZXVT / "buildFile")
    assert code == 1
    assert out.splitlines() == [f"{ZXVT / '5x5_startup.vlog'}: 1 warning",
                                "Warnings (1):",
                                "  saved with module version '0.2.0', checking against '0.3.0'"]


def test_validate_folder_without_saves_says_so(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a save")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "game.vsav").write_bytes(b"")
    code, out, err = run("validate", tmp_path)
    assert code == 2
    assert out == ""
    assert err.splitlines()[-1] == (f"wawkit: {tmp_path}: no saves or logs (.vsav, .sav, .vlog, .log) in this "
                                    "folder; subfolders are not searched, give each one")


def test_validate_profile_without_module_is_refused() -> None:
    code, _out, err = run("validate", SAMPLES / "demo.vsav", "--profile", SAMPLES / "profile.yaml")
    assert code == 2
    assert err.splitlines()[-1] == ("Error: --profile and --units need --module: "
                                    "the profile names the module's maps and pieces")
