"""A profile names the rules its module is judged by; a module of another game is judged by none."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from converter.cli import main
from converter.errors import ProfileError
from converter.profile import DEFAULT_RULES, Profile, Rules, read_profile
from converter.validate import Options, validate_path

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
TLD = ROOT.parent / "shared" / "corpus" / "tld-longest-day"
TLD_ARGS = ["--module", str(TLD / "buildFile"), "--profile", str(ROOT / "profiles" / "longest-day.yaml"),
            "--units", str(TLD / "faces.csv")]


def doc(**changes) -> dict:
    data = yaml.safe_load((SAMPLES / "profile.yaml").read_text(encoding="utf-8"))
    data.update(changes)
    return data


def test_rules_are_read_from_the_profile() -> None:
    assert read_profile(SAMPLES / "profile.yaml").rules == Rules("classic", "untold")
    assert read_profile(ROOT / "profiles" / "longest-day.yaml").rules is None
    without = doc()
    del without["rules"]
    assert Profile.from_document(without).rules == DEFAULT_RULES
    assert Profile.from_document(doc(rules={"ruleset": "waw85"})).ruleset_name() == "waw85"
    assert Profile.from_document(doc(rules={"ruleset": "classic", "book": "eisenbach"})).ruleset_name() == \
        "classic:eisenbach"
    assert Profile.from_document(doc(rules={"ruleset": "classic"})).ruleset_name("waw85") == "waw85"
    with pytest.raises(ProfileError) as caught:
        Profile.from_document(doc(rules={"ruleset": "waw85", "book": "untold"}), file="p.yaml")
    assert str(caught.value) == "p.yaml: rules.book: waw85 has no book to choose ('untold' is a classic book)"


def test_a_module_of_another_game_takes_no_ruleset() -> None:
    result = CliRunner().invoke(main, ["validate", str(TLD / "scenarios" / "scenario_3.sav"), *TLD_ARGS,
                                       "--ruleset", "classic"])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == (f"wawkit: {ROOT / 'profiles' / 'longest-day.yaml'}: the profile says module 'The "
                             "Longest Day' is judged by no rules (rules: none): --ruleset classic does not apply "
                             "to it\n")


def test_resolve_on_a_module_judged_by_no_rules_says_so_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "r.vsav"
    result = CliRunner().invoke(main, ["resolve", str(TLD / "scenarios" / "scenario_3.sav"), *TLD_ARGS,
                                       "--action", "los 30 LXXXIV", "-o", str(out)])
    assert result.exit_code == 2
    assert result.stderr == (f"wawkit: {ROOT / 'profiles' / 'longest-day.yaml'}: the profile says module 'The "
                             "Longest Day' is judged by no rules (rules: none): there is nothing the referee can "
                             "resolve\n")
    assert list(tmp_path.iterdir()) == []


def test_a_log_replay_reports_its_progress_step_by_step() -> None:
    steps: list[tuple[int, int]] = []
    report = validate_path(TLD / "logs" / "0606-1.log", Options(str(TLD / "buildFile")),
                           progress=lambda done, total: steps.append((done, total)))
    assert report.kind == "log" and report.facts["steps"] == 2213
    assert steps == [(done, 2213) for done in range(1, 2214)]
