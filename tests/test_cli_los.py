"""``wawkit los``: the referee's line of sight between two units or hexes of a scenario,
with the hexes the string crosses, the hexsides it runs along, and the rule that decides."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from converter.cli import main

SAMPLES = Path(__file__).resolve().parents[1] / "samples"


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("los") / "demo.yaml"
    result = CliRunner().invoke(main, ["import", str(SAMPLES / "demo.vsav"), "--module",
                                       str(SAMPLES / "waw-sample.vmod"), "--profile",
                                       str(SAMPLES / "profile.yaml"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    return str(out)


def los(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["los", *args])
    return result.exit_code, result.output


def test_the_rulebook_example_sees_its_target(scenario: str) -> None:
    code, out = los(scenario, "leopard-c1", "t-64")
    assert code == 0
    assert out.splitlines() == ["LOS B7 -> F6: clear",
                                "  crosses: C7 clear, D7 clear, D6 clear, E7 clear",
                                "  no blocking terrain (TUS §7.1)"]


def test_a_row_line_runs_along_hexsides_and_a_woods_hex_blocks(scenario: str) -> None:
    code, out = los(scenario, "B7", "H7")
    assert code == 0
    assert out.splitlines() == [
        "LOS B7 -> H7: BLOCKED",
        "  crosses: D7 clear, F7 woods",
        "  runs along the hexsides between: C7 clear | C8 clear, E7 clear | E8 rough, G7 clear | G8 clear",
        "  woods hex F7 blocks (TUS §7.1)"]


def test_json_answer(scenario: str) -> None:
    code, out = los(scenario, "E6", "F8", "--json")
    assert code == 0
    answer = json.loads(out)
    assert (answer["from"], answer["to"], answer["blocked"]) == ("E6", "F8", True)
    assert [h["hex"] for h in answer["intervening"]] == ["E7", "F7"]


def test_waw85_without_its_terrain_chart_says_what_is_missing(scenario: str) -> None:
    code, out = los(scenario, "leopard-c1", "t-64", "--ruleset", "waw85")
    assert code == 0
    assert out.splitlines()[0] == "LOS B7 -> F6: not known"
    assert out.splitlines()[1:] == ["  crosses: C7 clear, D7 clear, D6 clear, E7 clear",
                                    "  not stated: hexes.B7.unit_height (the WaW85 TEC: give the profile a tec_file)"]


def test_an_unknown_place_is_refused(scenario: str) -> None:
    code, out = los(scenario, "A1", "Z9")
    assert code == 2
    assert "'Z9' is neither a unit key nor a hex of the scenario" in out
