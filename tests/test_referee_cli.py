"""``wawkit cases`` and ``wawkit odds`` from the command line."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from converter.cli import main
from referee.errors import NotSupported
from referee.rulesets import get_ruleset

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CASE_FILE = SHARED / "cases" / "rule-cases.yaml"
SCHEMA = SHARED / "cases" / "rule-case.schema.json"

LEOPARD = {
    "id": "classic-leopard", "ruleset": "classic", "variant": "untold", "kind": "direct_fire",
    "source": "001 §6.1", "origin": "book_example", "quote": "The Canadian rolls 4d6", "notes": "Book example.",
    "given": {
        "units": {"A": {"ap": {"fp": 4, "to_hit": 4}},
                  "T": {"target_type": "heavy_armor", "armor": 3, "save": 5, "hex": "t",
                        "strength": "full", "status": {"disrupted": False, "concealed": True}}},
        "hexes": [{"id": "t", "terrain": "woods", "terrain_db": 1}],
        "situation": {"range_band": "effective"},
        "dice": {"attack": [4, 1, 5, 4], "save": [1, 3, 4, 4, 6]},
        "query": {"action": "direct_fire", "unit": "A", "target": "T", "weapon": "ap"}},
    "expect": {"hits": 3, "net_hits": 2, "units": {"T": {"result": "disrupted_and_reduced"}}},
}


def _write(tmp_path: Path, cases: list[dict], with_schema: bool = True) -> Path:
    path = tmp_path / "rule-cases.yaml"
    path.write_text(yaml.safe_dump(cases), encoding="utf-8")
    if with_schema:
        shutil.copy(SCHEMA, tmp_path / "rule-case.schema.json")
    return path


@pytest.mark.slow
def test_cases_on_the_shared_file_classic_only() -> None:
    result = CliRunner().invoke(main, ["cases", str(CASE_FILE), "--ruleset", "classic"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[-1] == "298 passed, 0 failed, 14 gaps"
    assert lines[0] == "PASSED classic-us-leopard-c1-vs-t64-concealed-woods@untold"
    assert "GAP    classic-us-reduced-range-t80[0]@untold: to_hit: not stated: units.A.ap.range" in lines


def test_cases_one_book_and_json(tmp_path: Path) -> None:
    path = _write(tmp_path, [LEOPARD])
    result = CliRunner().invoke(main, ["cases", str(path), "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["summary"] == "1 passed, 0 failed, 0 gaps"
    assert doc["runs"] == [{"case": "classic-leopard", "row": None, "book": "untold",
                            "status": "passed", "details": []}]
    result = CliRunner().invoke(main, ["cases", str(path), "--book", "eisenbach"])
    assert result.exit_code == 2  # a filter that runs nothing is not a pass
    assert result.output.splitlines() == [f"wawkit: {path}: no case matches --book 'eisenbach'; nothing was run"]


def test_a_failing_case_prints_expected_and_actual_and_exits_1(tmp_path: Path) -> None:
    wrong = json.loads(json.dumps(LEOPARD))
    wrong["expect"]["net_hits"] = 1
    result = CliRunner().invoke(main, ["cases", str(_write(tmp_path, [wrong]))])
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        "FAILED classic-leopard@untold: net_hits: expected 1, got 2", "0 passed, 1 failed, 0 gaps"]


@pytest.mark.slow
def test_every_case_of_the_shared_file_gets_a_line_and_the_closing_count() -> None:
    result = CliRunner().invoke(main, ["cases", str(CASE_FILE), "--no-schema"])
    lines = result.output.splitlines()
    assert re.fullmatch(r"\d+ passed, \d+ failed, \d+ gaps", lines[-1])
    passed, failed, gaps = map(int, re.findall(r"\d+", lines[-1]))
    assert passed + failed + gaps == len(lines) - 1 >= 312
    assert all(re.match(r"(PASSED|FAILED|GAP   ) (classic|waw85)-", line) for line in lines[:-1])


def test_an_unknown_ruleset_is_not_supported() -> None:
    with pytest.raises(NotSupported, match="not supported: nosuch"):
        get_ruleset("nosuch")


def test_bad_files_are_one_line_and_exit_2(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("- id: [unclosed\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["cases", str(broken)])
    assert result.exit_code == 2
    assert result.output.startswith("wawkit: ") and "not valid YAML" in result.output
    assert len(result.output.strip().splitlines()) == 1
    invalid = json.loads(json.dumps(LEOPARD))
    invalid["given"]["query"]["action"] = "teleport"
    result = CliRunner().invoke(main, ["cases", str(_write(tmp_path, [invalid]))])
    assert result.exit_code == 2
    assert "case classic-leopard" in result.output and "'teleport' is not one of" in result.output
    not_a_list = tmp_path / "map.yaml"
    not_a_list.write_text("id: x\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["cases", str(not_a_list)])
    assert result.exit_code == 2 and "a case file is a YAML list of cases" in result.output
    result = CliRunner().invoke(main, ["cases", str(tmp_path / "missing.yaml")])
    assert result.exit_code == 2


def test_odds_from_numbers() -> None:
    result = CliRunner().invoke(main, ["odds", "--fp", "2", "--to-hit", "4", "--target-type", "troops"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        "attack 2 dice at 4+, defence 0 dice at 5+",
        "hits      0: 1/4 (25.0%), 1: 1/2 (50.0%), 2: 1/4 (25.0%)",
        "saves     0: 1 (100.0%)",
        "net hits  0: 1/4 (25.0%), 1: 1/2 (50.0%), 2: 1/4 (25.0%)",
        "results   none: 1/4 (25.0%), disrupted: 1/2 (50.0%), disrupted_and_reduced: 1/4 (25.0%)"]


@pytest.mark.slow
def test_odds_from_a_case() -> None:
    result = CliRunner().invoke(main, ["odds", "--cases", str(CASE_FILE), "--id",
                                       "classic-us-leopard-c1-vs-t64-concealed-woods"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == "attack 4 dice at 4+, defence 5 dice at 5+"
    assert result.output.splitlines()[-1].startswith("results   none: 29/54 (53.7%)")
    result = CliRunner().invoke(main, ["odds", "--cases", str(CASE_FILE), "--id", "classic-us-reduced-range-t80",
                                       "--row", "0"])
    assert result.exit_code == 2
    assert "cannot compute odds" in result.output


@pytest.mark.slow
def test_odds_of_an_assault_case() -> None:
    result = CliRunner().invoke(main, ["odds", "--cases", str(CASE_FILE), "--id",
                                       "classic-us-augmented-assault-firepower"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    # four dice at 4+, at most three hits count (001 §6.3.2)
    assert lines[0] == "hits on the defender  0: 1/16 (6.2%), 1: 1/4 (25.0%), 2: 3/8 (37.5%), 3: 5/16 (31.2%)"
    assert lines[1] == "hits on the attacker  0: 1 (100.0%)"
