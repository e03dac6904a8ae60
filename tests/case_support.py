"""What the two rule-case test files share: running the cases once per module and
judging one case's runs against its ruleset's list of known gaps."""
from __future__ import annotations

from typing import Mapping

from referee.cases import Outcome, run_cases
from referee.rulesets import get_ruleset


def outcomes_by_case(cases: list[dict]) -> dict[str, list[Outcome]]:
    """Every run of every case (rows and book flags), grouped by case id."""
    by_case: dict[str, list[Outcome]] = {}
    for outcome in run_cases(cases, get_ruleset):
        by_case.setdefault(outcome.case, []).append(outcome)
    return by_case


def assert_case_runs(case_id: str, runs: list[Outcome], known_gaps: Mapping[str, tuple[str, ...]]) -> None:
    """No run fails; a case is a gap only where the list says so, for the reason it gives,
    and a listed case that starts passing fails the test, so the list only shrinks."""
    assert runs, "the case produced no run"
    failed = [o.line() for o in runs if o.status == "failed"]
    assert not failed
    gaps = [o for o in runs if o.status == "gap"]
    if case_id in known_gaps:
        assert gaps, f"{case_id} now passes: remove it from the known gaps"
        for gap in gaps:
            assert any(reason in detail for detail in gap.details for reason in known_gaps[case_id]), gap.line()
    else:
        assert not gaps, [g.line() for g in gaps]
