"""wawkit validate DIR/: a folder of saves on all cores, with stable JSON lines and a progress bar."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from converter.cli import main
from converter.validate import Options, saves_in, validate_folder
from converter.vassal.save import SavedGame

SAMPLES = Path(__file__).resolve().parents[1] / "samples"
MODULE, PROFILE = SAMPLES / "waw-sample.vmod", SAMPLES / "profile.yaml"


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    """Five files: three clean copies, one with a piece off the board, one that is not a save."""
    for name in ("c.vsav", "a.vsav", "e.vsav"):
        shutil.copy(SAMPLES / "demo.vsav", tmp_path / name)
    save = SavedGame.read(SAMPLES / "demo.vsav")
    hq = next(p for p, e in save.pieces.items() if not e.is_stack and e.piece.basic_name == "US HQ")
    save.move(hq, "Main Map", 9000, 9000)
    save.write(tmp_path / "b.vsav")
    (tmp_path / "d.vsav").write_bytes(b"PK\x03\x04 truncated")
    (tmp_path / "notes.txt").write_text("not a save", encoding="utf-8")
    return tmp_path


def test_folder_lists_saves_by_name(folder: Path) -> None:
    assert [p.name for p in saves_in(folder)] == ["a.vsav", "b.vsav", "c.vsav", "d.vsav", "e.vsav"]


def test_json_lines_are_stable_and_in_name_order(folder: Path) -> None:
    runner = CliRunner()
    args = ["validate", str(folder), "--module", str(MODULE), "--profile", str(PROFILE), "--json", "--workers", "3"]
    first, second = runner.invoke(main, args), runner.invoke(main, args)
    assert first.exit_code == second.exit_code == 2          # d.vsav cannot be read
    assert first.stdout == second.stdout
    *lines, summary = [json.loads(line) for line in first.stdout.splitlines()]
    assert summary == {"folder": str(folder), "kind": "summary", "files": 5, "passed": 3, "failed": 1,
                       "unreadable": 1, "counts": {"error": 0, "warning": 1, "unsupported": 0, "info": 0}}
    assert [Path(r["file"]).name for r in lines] == ["a.vsav", "b.vsav", "c.vsav", "d.vsav", "e.vsav"]
    assert [r["clean"] for r in lines] == [True, False, True, False, True]
    assert [r["kind"] for r in lines] == ["save", "save", "save", "unreadable", "save"]
    assert [f["code"] for f in lines[1]["findings"]] == ["off-board"]
    assert "validating" in first.stderr


def test_parallel_and_serial_runs_agree(folder: Path) -> None:
    options = Options(str(MODULE), str(PROFILE))
    seen: list[str] = []
    parallel = validate_folder(folder, options, workers=4, progress=lambda r: seen.append(Path(r.file).name))
    serial = validate_folder(folder, options, workers=1)
    assert [r.to_dict() for r in parallel] == [r.to_dict() for r in serial]
    assert sorted(seen) == ["a.vsav", "b.vsav", "c.vsav", "d.vsav", "e.vsav"]


def test_folder_of_clean_saves_exits_zero(tmp_path: Path) -> None:
    for name in ("one.vsav", "two.vsav"):
        shutil.copy(SAMPLES / "demo.vsav", tmp_path / name)
    result = CliRunner().invoke(main, ["validate", str(tmp_path), "--module", str(MODULE)])
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [f"{tmp_path / 'one.vsav'}: clean", f"{tmp_path / 'two.vsav'}: clean",
                                          f"{tmp_path}: 2 files: 2 passed, 0 with findings, 0 unreadable"]


def test_logs_are_found_by_content_and_subfolders_with_recursive(tmp_path: Path) -> None:
    """A VASSAL 2.x log often has no extension (The Longest Day's 0611-2): a folder run finds
    saves and logs by what they hold; --recursive walks subfolders; a module is not a save."""
    tour = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "vassal-tour"
    shutil.copy(tour / "tour.log", tmp_path / "0611-2")
    shutil.copy(tour / "tour.mod", tmp_path / "tour.zip")
    (tmp_path / "sub").mkdir()
    shutil.copy(SAMPLES / "demo.vsav", tmp_path / "sub" / "game.vsav")
    assert [p.name for p in saves_in(tmp_path)] == ["0611-2"]
    assert [p.relative_to(tmp_path).as_posix() for p in saves_in(tmp_path, recursive=True)] == ["0611-2",
                                                                                              "sub/game.vsav"]
    result = CliRunner().invoke(main, ["validate", str(tmp_path), "--recursive"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [f"{tmp_path / '0611-2'}: clean", f"{tmp_path / 'sub' / 'game.vsav'}: clean",
                                          f"{tmp_path}: 2 files: 2 passed, 0 with findings, 0 unreadable"]
