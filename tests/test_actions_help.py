"""``wawkit actions``: every action kind the referee accepts, generated from its rulesets and the
short syntax, each example readable by the parser and bound to the sample position."""
from __future__ import annotations

import json
from pathlib import Path

import yaml
from click.testing import CliRunner

from converter.actions_help import catalogue, short_form, to_markdown, to_text
from converter.actions_text import VERBS, load_actions, parse
from converter.cli import main
from converter.scenario import read_scenario
from referee.actions import ACTIONS
from referee.rulesets import get_ruleset

ROOT = Path(__file__).resolve().parents[1]


def test_every_kind_of_every_ruleset_and_every_verb_is_listed() -> None:
    listed = {item.kind: item for item in catalogue()}
    for name, flag in (("classic", "untold"), ("classic", "eisenbach"), ("waw85", None)):
        assert set(get_ruleset(name, flag).procedures) <= set(listed)
    assert set(ACTIONS) <= set(listed)
    assert {v for item in listed.values() for v in item.verbs} == set(VERBS)
    fire = listed["direct_fire"]
    assert (fire.summary, fire.verbs, fire.short_form, fire.example) == (
        "Ranged combat by an actor on a target unit (classic §6.1).", ("fire", "df", "direct_fire"),
        "fire UNIT TARGET [ap|he|aa] [field=value ...]", "fire leopard-c1 t-64 ap")
    assert listed["move"].short_form == "move UNIT HEX... [field=value ...]"
    assert listed["stacking"].example == "stacking C7"
    assert listed["defense"].short_form is None and listed["defense"].example == "{kind: defense, unit: leopard-c1}"


def test_every_example_is_read_as_its_kind_and_binds_to_the_sample_position(tmp_path: Path) -> None:
    scenario = tmp_path / "demo.yaml"
    args = ["import", str(ROOT / "samples" / "demo.vsav"), "--module", str(ROOT / "samples" / "waw-sample.vmod"),
            "--profile", str(ROOT / "samples" / "profile.yaml"), "-o", str(scenario)]
    assert CliRunner().invoke(main, args).exit_code == 0
    game = read_scenario(scenario).game
    for item in catalogue():
        spec = parse(item.example) if item.short_form else load_actions([yaml.safe_load(item.example)])[0]
        assert spec.kind == item.kind, item.example
        assert spec.bind(game).kind == item.kind, item.example


def test_a_verb_the_syntax_gains_is_listed_with_its_form(monkeypatch) -> None:
    from converter import actions_text
    monkeypatch.setitem(actions_text.VERBS, "artillery", "indirect_fire")
    monkeypatch.setattr(actions_text, "SYNTAX", {"indirect_fire": "CALLER HEX [mission]"}, raising=False)
    item = next(i for i in catalogue() if i.kind == "indirect_fire")
    assert (item.verbs, item.short_form) == (("artillery", "indirect_fire"), "artillery CALLER HEX [mission]")
    assert short_form("rally", "rally") == "rally UNIT [TARGET] [field=value ...]"


def test_cli_lists_as_text_json_and_the_docs_page_is_up_to_date() -> None:
    text = CliRunner().invoke(main, ["actions"])
    assert text.exit_code == 0
    assert "\ndirect_fire: Ranged combat by an actor on a target unit (classic §6.1).\n" \
           "  short form: fire UNIT TARGET [ap|he|aa] [field=value ...]   (also: df, direct_fire)\n" \
           "  example:    fire leopard-c1 t-64 ap\n" in text.stdout
    listed = json.loads(CliRunner().invoke(main, ["actions", "--json"]).stdout)
    assert [item["kind"] for item in listed] == [item.kind for item in catalogue()]
    docs = (ROOT / "docs" / "actions.md").read_text(encoding="utf-8")
    assert docs == to_markdown(), "docs/actions.md is stale: run `wawkit actions --markdown > docs/actions.md`"
    assert CliRunner().invoke(main, ["actions", "--markdown"]).stdout == docs


def test_a_kind_lists_only_the_rulesets_that_judge_it() -> None:
    """A ruleset that only answers "not supported" for a kind (a WaW85 procedure the classic books
    do not have, a table printed only on a player aid card) is not listed as taking it."""
    kinds = {k.kind: k for k in catalogue()}
    assert kinds["minefield_breach"].rulesets == ("waw85",)
    assert kinds["overrun"].rulesets == ("classic:untold", "classic:eisenbach")
    assert kinds["direct_fire"].rulesets == ("classic:untold", "classic:eisenbach", "waw85")
    assert kinds["battlegen"].rulesets == ()
    assert kinds["battlegen"].summary == ("The Battle Generator's scenario size (WaW85 §17.1): its table is on PAC12, "
                                          "not in the rulebook text, so it answers \"not supported\".")
    assert all(k.summary != k.kind.replace("_", " ") for k in kinds.values())
    assert "  retreat     the hex the losers of an Assault retreat into, when they must (the player's choice)" \
        in to_text().splitlines()
