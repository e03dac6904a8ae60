"""What the rule-case tests share: running the cases once per module, judging one case's
runs against its ruleset's list of known gaps, and resolving one case-style situation
(the tests written from the rule text, ``tests/test_rules_*.py``)."""
from __future__ import annotations

from typing import Mapping

from referee.cases import CaseDice, Outcome, build_action, build_game, run_cases
from referee.events import apply_all
from referee.model import Game
from referee.rulesets import get_ruleset
from referee.verdict import Answer


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


def expected_runs(case: dict) -> list[tuple[int | None, str | None]]:
    """The (row, book flag) runs FORMAT.md gives a case, read from the case itself: one per
    row (or the case alone), under the row's or the case's variant, else under both classic
    books; WaW85 has one book."""
    rows = case.get("rows")
    runs: list[tuple[int | None, str | None]] = []
    for index, row in enumerate(rows) if rows else [(None, case)]:
        variant = row.get("variant") or case.get("variant")
        flags = [variant] if variant else ([None] if case["ruleset"] == "waw85" else ["eisenbach", "untold"])
        runs.extend((index, flag) for flag in flags)
    return runs


def assert_every_run_happened(cases: list[dict], outcomes: Mapping[str, list[Outcome]]) -> None:
    """Every case of the file ran, each exactly in the runs FORMAT.md gives it: a case the
    runner skipped, ran twice or ran under the wrong book fails here."""
    assert sorted(outcomes) == sorted(c["id"] for c in cases)
    for case in cases:
        assert [(o.row, o.flag) for o in outcomes[case["id"]]] == expected_runs(case), case["id"]


def answer(ruleset: str, flag: str | None, given: dict, dice: dict | None = None) -> tuple[Answer, Game]:
    """Resolve a case-style situation (``given`` with its ``query``) under one book, with the
    dice a rule case would list: the answer and the position after its events."""
    game = build_game(given)
    result = get_ruleset(ruleset, flag).resolve(game, build_action(given["query"]), CaseDice(dice))
    return result, apply_all(game, result.events)


def reasons(result: Answer) -> list[tuple[str, str]]:
    """The answer's reasons as (citation, text) pairs, in order."""
    return [(r.section, r.text) for r in result.reasons]
