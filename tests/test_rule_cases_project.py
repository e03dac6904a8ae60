"""The rule cases written from the rulebooks beyond the shared sample (``tests/rule_cases/``,
same format, see its README): each file validates against the shared schema, no run fails,
and the runs that are gaps are exactly those in ``known_gaps.yaml`` for the reason recorded
there (a rule the books leave unsettled, a table printed only on a player aid card), so a new
gap fails the test and a gap that starts passing must be struck from the list."""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from referee.cases import load_cases, run_cases
from referee.rulesets import get_ruleset

HERE = Path(__file__).resolve().parent / "rule_cases"
SCHEMA = Path(__file__).resolve().parents[1].parent / "shared" / "cases" / "rule-case.schema.json"
FILES = sorted(HERE.glob("*.yaml"))
FILES = [f for f in FILES if f.name != "known_gaps.yaml"]
KNOWN = yaml.safe_load((HERE / "known_gaps.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_rule_case_file(path: Path) -> None:
    cases = load_cases(path)
    jsonschema.validate(cases, json.loads(SCHEMA.read_text(encoding="utf-8")))
    outcomes = run_cases(cases, get_ruleset)
    assert [o.line() for o in outcomes if o.status == "failed"] == []
    gaps = {o.label: "; ".join(o.details) for o in outcomes if o.status == "gap"}
    expected = KNOWN.get(path.stem) or {}
    assert sorted(gaps) == sorted(expected)
    for label, reason in expected.items():
        assert gaps[label].startswith(reason), (label, gaps[label])
    assert len(outcomes) > len(gaps)


def test_the_case_ids_are_unique_and_apart_from_the_shared_file() -> None:
    shared = {c["id"] for c in load_cases(SCHEMA.parent / "rule-cases.yaml")}
    ids = [c["id"] for f in FILES for c in load_cases(f)]
    assert len(ids) == len(set(ids)) and not set(ids) & shared


def test_the_readme_counts_and_section_lists_match_the_case_files() -> None:
    """The Files table's counts and the "sections -> case ids" lists are made from the
    cases (``python -m tests.rule_cases_index`` rewrites them): a case added, moved or
    re-cited shows in the README or this fails."""
    from tests.rule_cases_index import README, build

    text = README.read_text(encoding="utf-8")
    assert build(text) == text, "run: .venv/bin/python -m tests.rule_cases_index"
