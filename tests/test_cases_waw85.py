"""Every ``waw85-`` rule case, run by the generic case runner with the WaW85 ruleset.

A case the referee cannot answer is listed in KNOWN_GAPS with its reason; the test fails
if a listed case starts passing (so the list only shrinks), if a case not listed gaps,
and if any run gives a wrong answer.
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
    'waw85-battlegen-objectives-minus-casualties': ('unsettled:',),
}


def _ids() -> list[str]:
    return [c["id"] for c in load_cases(CASE_FILE) if c["id"].startswith("waw85-")]


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return [c for c in load_cases(CASE_FILE) if c["id"].startswith("waw85-")]


@pytest.fixture(scope="module")
def outcomes(cases: list[dict]) -> dict[str, list[Outcome]]:
    return outcomes_by_case(cases)


def test_every_waw85_case_runs_under_the_books_format_md_gives_it(
        cases: list[dict], outcomes: dict[str, list[Outcome]]) -> None:
    assert_every_run_happened(cases, outcomes)


@pytest.mark.parametrize("case_id", _ids())
def test_case(case_id: str, outcomes: dict[str, list[Outcome]]) -> None:
    runs = outcomes[case_id]
    assert all(o.flag is None for o in runs)
    assert_case_runs(case_id, runs, KNOWN_GAPS)


def test_known_gaps_are_waw85_case_ids() -> None:
    assert set(KNOWN_GAPS) <= set(_ids())


def test_summary_counts(outcomes: dict[str, list[Outcome]]) -> None:
    flat = [o for runs in outcomes.values() for o in runs]
    assert summary(flat) == "296 passed, 0 failed, 1 gap"


def test_a_wrong_expectation_fails(cases: list[dict]) -> None:
    """The runner really compares: change one expected number and the case fails."""
    case = copy.deepcopy(next(c for c in cases if c["id"] == "waw85-direct-fire-full-resolution-heavy-armor"))
    case["expect"]["net_hits"] = 3
    [outcome] = list(run_case(case, get_ruleset))
    assert outcome.status == "failed"
    assert outcome.details == ["net_hits: expected 3, got 2"]


def test_unimplemented_actions_name_their_section() -> None:
    """§6.1 says which table a Battlefield Event roll sends to (a 7: the Friction Table), but
    the tables themselves are on a player aid card, not in the rulebook text."""
    case = {"id": "waw85-event-roll", "ruleset": "waw85",
            "given": {"dice": {"2d6": [7]}, "query": {"action": "event_roll"}},
            "expect": {"outcome": "battlefield_friction", "value": 7}}
    [outcome] = list(run_case(case, get_ruleset))
    assert outcome.status == "gap"
    assert outcome.details == ["value: not supported: WaW85 §6.1 (the Battlefield Event and Friction Tables are on "
                               "PAC04, not in the rulebook text)"]
