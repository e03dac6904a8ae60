"""Every ``classic-`` rule case, run by the generic case runner under each book's flag.

A case the referee cannot answer is listed in KNOWN_GAPS with its reason; the test
fails if a listed case starts passing (so the list only shrinks) and if any case not
listed fails or gaps.
"""
from __future__ import annotations

import copy
from pathlib import Path

import pytest

from referee.cases import Outcome, load_cases, run_case, summary
from referee.rulesets import get_ruleset
from tests.case_support import assert_case_runs, assert_every_run_happened, outcomes_by_case

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CASE_FILE = SHARED / "cases" / "rule-cases.yaml"

#: case id -> the reasons its runs are gaps (every gap detail must name one of them).
KNOWN_GAPS: dict[str, tuple[str, ...]] = {
    "classic-eg-jeep-clear-infantry-he": ("not stated: units.A.he.range",),   # HE range/to-hit not given
    "classic-us-jeep-clear-infantry-he": ("not stated: units.A.he.range",),
    "classic-us-reduced-range-t80": ("not stated: units.A.ap.range",),        # printed range not given
    "classic-eg-reduced-range-t72": ("not stated: units.A.ap.range",),
    "classic-helicopter-moving-fire-12-hexes": ("not stated: units.A.he",),   # Flying-side HE not given
    "classic-eg-missile-depletion-examples": ("not stated: units.A.ap.to_hit", "not stated: units.A.aa.to_hit",
                                              "not stated: hex", "not stated: units.A.ap.range"),
    "classic-us-improved-position": ("not stated: units.T.distance",),      # concealment needs adjacency
    "classic-transport-loading-unloading": ("unsettled:",),                 # the books leave row 4 open
}


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return [c for c in load_cases(CASE_FILE) if c["id"].startswith("classic-")]


@pytest.fixture(scope="module")
def outcomes(cases: list[dict]) -> dict[str, list[Outcome]]:
    return outcomes_by_case(cases)


def _ids() -> list[str]:
    return [c["id"] for c in load_cases(CASE_FILE) if c["id"].startswith("classic-")]


def test_every_classic_case_runs_under_the_books_format_md_gives_it(
        cases: list[dict], outcomes: dict[str, list[Outcome]]) -> None:
    assert_every_run_happened(cases, outcomes)


@pytest.mark.parametrize("case_id", _ids())
def test_case(case_id: str, outcomes: dict[str, list[Outcome]]) -> None:
    runs = outcomes[case_id]
    assert_case_runs(case_id, runs, KNOWN_GAPS)


def test_known_gaps_are_classic_case_ids() -> None:
    assert set(KNOWN_GAPS) <= set(_ids())


def test_summary_counts(outcomes: dict[str, list[Outcome]]) -> None:
    flat = [o for runs in outcomes.values() for o in runs]
    assert summary(flat) == "298 passed, 0 failed, 14 gaps"


def test_conflicting_readings_run_under_their_own_book(outcomes: dict[str, list[Outcome]]) -> None:
    """Where the books disagree, each reading is run with its flag and both pass."""
    hill = {(o.row, o.flag): o.status for o in outcomes["classic-hill-los"]}
    assert hill[(3, "untold")] == "passed" and (3, "eisenbach") not in hill
    assert hill[(4, "eisenbach")] == "passed" and (4, "untold") not in hill
    assert hill[(0, "untold")] == hill[(0, "eisenbach")] == "passed"
    mines = {(o.row, o.flag): o.status for o in outcomes["classic-mines-fascam-parity-conflict"]}
    assert mines == {**{(i, "eisenbach"): "passed" for i in range(4)},
                     **{(i, "untold"): "passed" for i in range(4, 8)}}


def test_a_wrong_expectation_fails(cases: list[dict]) -> None:
    """The runner really compares: change one expected number and the case fails."""
    case = copy.deepcopy(next(c for c in cases if c["id"] == "classic-us-leopard-c1-vs-t64-concealed-woods"))
    case["expect"]["net_hits"] = 3
    [outcome] = list(run_case(case, get_ruleset))
    assert outcome.status == "failed"
    assert outcome.details == ["net_hits: expected 3, got 2"]


def test_a_wrong_unit_state_fails(cases: list[dict]) -> None:
    case = copy.deepcopy(next(c for c in cases if c["id"] == "classic-combat-results-sequence"))
    case["rows"] = [case["rows"][3]]
    case["rows"][0]["expect"]["units"]["T"]["status"]["disrupted"] = False
    statuses = [o.status for o in run_case(case, get_ruleset)]
    assert statuses == ["failed", "failed"]


def test_the_book_reading_the_engine_matches_is_named(cases: list[dict]) -> None:
    case = copy.deepcopy(next(c for c in cases if c["id"] == "classic-transport-loading-unloading"))
    row = case["rows"][4]
    row["unsettled"]["readings"] = [
        {"label": "legal", "expect": {"legal": True}},
        {"label": "illegal", "expect": {"legal": False}}]
    case["rows"] = [row]
    [outcome] = list(run_case(case, get_ruleset))
    assert outcome.status == "gap"
    assert outcome.details[0].endswith("(engine matches: legal)")
