"""``inspect`` on modules as well as saves, and ``pieces --module`` naming each
piece's location with the save's own board layout."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from converter.cli import main

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"
TOUR = CORPUS / "vassal-tour"


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_inspect_dispatches_to_the_module_reader_for_a_vmod() -> None:
    code, out = run("inspect", str(REPO / "samples" / "waw-sample.vmod"), "--json")
    assert code == 0
    info = json.loads(out)
    assert info["kind"] == "module"
    assert info["name"] == "World at War Sample"
    assert [m["name"] for m in info["maps"]] == ["Main Map", "Destroyed", "Combat"]
    assert info["piece_slots"] == 22


def test_inspect_reads_a_bare_buildfile_as_a_module() -> None:
    code, out = run("inspect", str(CORPUS / "tld-longest-day" / "buildFile"))
    assert code == 0
    assert out.splitlines()[0] == "module 'The Longest Day' version 0.0 (VASSAL 2.9b2, bare buildFile)"


def test_inspect_still_reads_saves() -> None:
    code, out = run("inspect", str(TOUR / "tour.log"), "--json")
    assert code == 0
    assert json.loads(out)["kind"] == "log"


def test_pieces_with_module_names_hexes_decks_and_zones() -> None:
    code, out = run("pieces", str(TOUR / "tour.log"), "--module", str(TOUR / "tour.mod"), "--json")
    assert code == 0
    rows = {row["id"]: row for row in json.loads(out)}
    # Pieces inside a deck stand where the deck stands, and the deck's position names it.
    assert rows["1116882739943"]["map"] == "Force Pool"
    assert rows["1116882739943"]["location"] == "Cards"
    assert rows["1116882739940"]["location"] == "Ship Reserves"


def test_pieces_with_module_names_longest_day_hexes() -> None:
    save = CORPUS / "tld-longest-day" / "logs" / "0606-1.log"
    code, out = run("pieces", str(save), "--module", str(CORPUS / "tld-longest-day" / "buildFile"))
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "id\tname\tmap\tx\ty\tlocation\tstack\tlayers"
    york = next(line.split("\t") for line in lines if line.split("\t")[1] == "MKB YORK")
    assert york[2:6] == ["Normandy", "646", "352", "1206"]


def test_pieces_without_module_has_no_location_column() -> None:
    code, out = run("pieces", str(TOUR / "tour.log"))
    assert code == 0
    assert out.splitlines()[0] == "id\tname\tmap\tx\ty\tstack\tlayers"
