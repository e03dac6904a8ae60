"""wawkit resolve: check, resolve, write only what changed, refuse with the rule section."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from converter.actions_text import load_actions, parse
from converter.cli import main
from converter.resolve import (LabelledDice, ResolveError, dice_source, parse_dice, read_position,
                               resolve_actions, ruleset_named, run)
from referee.dice import GivenDice

SAMPLES = Path(__file__).resolve().parents[1] / "samples"
SAVE, MODULE, PROFILE = SAMPLES / "demo.vsav", SAMPLES / "waw-sample.vmod", SAMPLES / "profile.yaml"
COMMON = ["--module", str(MODULE), "--profile", str(PROFILE)]


@pytest.fixture(scope="module")
def position():
    return read_position(SAVE, MODULE, PROFILE)


def test_book_dice_from_the_actions_file_give_the_book_result(position) -> None:
    """001 §6.1: attack 4 1 5 4 -> 3 hits; save 1 3 4 4 6 -> 1 saved; Disrupted and Reduced."""
    spec = load_actions(SAMPLES / "actions.yaml")[0]
    assert spec.dice == {"attack": (4, 1, 5, 4), "save": (1, 3, 4, 4, 6)}
    outcome = resolve_actions(position.game, [spec], ruleset_named("classic"), None)
    answer = outcome.steps[0].answer
    assert answer.rolls == [("attack", [4, 1, 5, 4]), ("save", [1, 3, 4, 4, 6])]
    assert (answer.values["hits"], answer.values["saves"], answer.values["net_hits"]) == (3, 1, 2)
    assert (answer.values["defense_dice"], answer.values["db_dice"]) == (5, 2)
    assert outcome.results() == [{"unit": "t-64", "result": "disrupted_and_reduced"}]
    assert outcome.after.unit("t-64").strength == "reduced"


def test_given_dice_are_used_in_order(position) -> None:
    outcome = resolve_actions(position.game, [parse("fire leopard-c1 t-64 ap")], ruleset_named("classic"),
                              GivenDice([1, 1, 1, 2, 6, 6, 6, 6, 6]))
    answer = outcome.steps[0].answer
    assert answer.rolls == [("attack", [1, 1, 1, 2])]
    assert answer.values["hits"] == 0
    assert outcome.results() == [{"unit": "t-64", "result": "none"}]


def test_a_later_action_sees_the_earlier_result_and_is_refused(position) -> None:
    specs = [load_actions(SAMPLES / "actions.yaml")[0], parse("los leopard-c1 t-64"), parse("fire t-64 leopard-c1 ap")]
    outcome = resolve_actions(position.game, specs, ruleset_named("classic"), GivenDice([6] * 20))
    assert [s.spec.text for s in outcome.steps] == ["leopard-fires-at-t64", "los leopard-c1 t-64"]
    assert outcome.refused is not None
    assert (outcome.refused.index, outcome.refused.text) == (2, "fire t-64 leopard-c1 ap")
    assert ("TUS §6.1.7", "T-64 is Disrupted and cannot fire") in outcome.refused.reasons


def test_refused_action_writes_nothing_and_says_why(tmp_path: Path) -> None:
    out = tmp_path / "out.vsav"
    result = CliRunner().invoke(main, ["resolve", str(SAVE), *COMMON, "--action", "fire leopard-c1 t-64 ap",
                                       "--action", "fire t-64 leopard-c1 ap", "--dice", "4,1,5,4,1,3,4,4,6",
                                       "-o", str(out)])
    assert result.exit_code == 1
    assert "T-64 is Disrupted; T-64 is Reduced" in result.stdout
    assert "REFUSED: fire t-64 leopard-c1 ap" in result.stdout
    assert "T-64 is Disrupted and cannot fire (TUS §6.1.7)" in result.stdout
    assert "Nothing was written." in result.stdout
    assert list(tmp_path.iterdir()) == []


def test_ops_complete_unit_is_refused_with_its_section(tmp_path: Path) -> None:
    """The M113 in B8 is under an Ops Complete marker."""
    out = tmp_path / "out.vsav"
    result = CliRunner().invoke(main, ["resolve", str(SAVE), *COMMON, "--action", "move m113 C8",
                                                       "--seed", "3", "-o", str(out)])
    assert result.exit_code == 1
    assert "M113 is Ops Complete (TUS §4.4)" in result.stdout
    assert not out.exists()


def test_cli_resolve_writes_save_and_audit(tmp_path: Path) -> None:
    out = tmp_path / "r.vsav"
    result = CliRunner().invoke(main, ["resolve", str(SAVE), *COMMON, "--action", "fire leopard-c1 t-64 ap",
                                                       "--dice", "6,6,6,6,1,1,1,1,1", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "4 dice at 4+: 4 hit(s) (TUS §6.1)" in result.stdout
    assert "T-64 is eliminated" in result.stdout
    record = json.loads((tmp_path / "r.audit.json").read_text(encoding="utf-8"))
    assert record["dice"] == {"given": [6, 6, 6, 6, 1, 1, 1, 1, 1]}
    assert record["results"] == [{"unit": "t-64", "result": "eliminated"}]
    assert record["output"]["path"] == "r.vsav"
    assert set(record["inputs"]) == {"save", "module", "profile", "units", "terrain"}
    after = read_position(out, MODULE, PROFILE).game
    assert after.unit("t-64").location == "eliminated"
    assert CliRunner().invoke(main, ["verify", str(tmp_path / "r.audit.json")]).exit_code == 0


def test_existing_output_is_not_replaced_without_force(tmp_path: Path) -> None:
    out = tmp_path / "r.vsav"
    out.write_bytes(b"keep")
    args = ["resolve", str(SAVE), *COMMON, "--action", "fire leopard-c1 t-64 ap", "--seed", "10", "-o", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert out.read_bytes() == b"keep"
    assert CliRunner().invoke(main, [*args, "--force"]).exit_code == 0
    assert out.read_bytes()[:2] == b"PK"


def test_bad_dice_and_ambiguous_references_are_clear_errors(position) -> None:
    with pytest.raises(ResolveError, match="expected numbers separated by commas"):
        parse_dice("4,five")
    with pytest.raises(ResolveError, match="not both"):
        dice_source([1], 2)
    outcome = resolve_actions(position.game, [parse("fire B8 F6 ap")], ruleset_named("classic"), None)
    assert outcome.refused is not None
    assert "'B8' is ambiguous (m113 (M113), us-hq (US HQ), us-infantry (US Infantry))" in outcome.refused.reasons[0][1]


def test_missing_dice_for_a_roll_names_the_roll(position) -> None:
    with pytest.raises(ResolveError, match="no dice for roll 'save'"):
        resolve_actions(position.game, [parse("fire leopard-c1 t-64 ap")], ruleset_named("classic"),
                        LabelledDice({"attack": [6, 6, 6, 6]}, None))


def test_same_seed_same_bytes(position) -> None:
    first = run(read_position(SAVE, MODULE, PROFILE), [parse("fire leopard-c1 t-64 ap")], seed=11)
    second = run(read_position(SAVE, MODULE, PROFILE), [parse("fire leopard-c1 t-64 ap")], seed=11)
    assert first.save is not None and second.save is not None
    assert first.save.to_plaintext() == second.save.to_plaintext()
    assert first.record.rolls == second.record.rolls
    assert first.record.output == second.record.output


def test_an_action_the_referee_cannot_finish_is_not_applied(position, tmp_path: Path) -> None:
    outcome = resolve_actions(position.game, [parse("fire leopard-c1 t-64 ap")], ruleset_named("classic"), None)
    assert outcome.steps == [] and outcome.refused is not None
    assert outcome.refused.verdict == "cannot be resolved"
    assert ("", "hits, net_hits, units: not stated: dice.attack") in outcome.refused.reasons
    assert outcome.refused.reasons[-1] == ("", "no dice for it: give --dice or --seed (or dice in the actions file)")
    out = tmp_path / "r.vsav"
    result = CliRunner().invoke(main, ["resolve", str(SAVE), *COMMON, "--action", "assault leopard-c1 t-64",
                                       "--seed", "1", "-o", str(out)])
    assert result.exit_code == 1
    assert "REFUSED: assault leopard-c1 t-64" in result.stdout
    assert "  Leopard C1 has no Assault Factor and cannot assault (TUS §6.3)\n" in result.stdout
    assert not out.exists()
