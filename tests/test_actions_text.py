"""The short action syntax and the YAML actions file."""
from __future__ import annotations

from pathlib import Path

import pytest

from converter.actions_text import ActionSpec, ActionSyntaxError, load_actions, parse
from referee.actions import Mission
from referee.model import Game, Unit, UnitType

SAMPLES = Path(__file__).resolve().parents[1] / "samples"


def _game() -> Game:
    units = [Unit("leopard-c1", UnitType(name="Leopard C1"), side="NATO", hex="C7"),
             Unit("t-64", UnitType(name="T-64"), side="Warsaw Pact", hex="F6"),
             Unit("us-infantry", UnitType(name="US Infantry"), side="NATO", hex="B8"),
             Unit("m113", UnitType(name="M113"), side="NATO", hex="B8"),
             Unit("bmp-1", UnitType(name="BMP-1"), side="Warsaw Pact", hex="H4"),
             Unit("soviet-infantry", UnitType(name="Soviet Infantry"), side="Warsaw Pact", hex="H4")]
    return Game(units={u.key: u for u in units})


def test_fire_by_hexes() -> None:
    spec = parse("fire C7 F6 ap")
    assert spec == ActionSpec("direct_fire", ("C7", "F6"), "ap", {}, "fire C7 F6 ap")
    action = spec.bind(_game())
    assert (action.kind, action.unit, action.target, action.weapon) == ("direct_fire", "leopard-c1", "t-64", "ap")


def test_names_keys_and_options() -> None:
    action = parse('opfire "Leopard C1" t-64 HE hits=2').bind(_game())
    assert (action.kind, action.unit, action.target, action.weapon, action.hits) == (
        "opportunity_fire", "leopard-c1", "t-64", "he", 2)
    assert parse("rally C7 passed=TRUE").bind(_game()).passed is True
    arty = parse("fire C7 F6 mission=smoke supporting=us-infantry,m113").bind(_game())
    assert arty.mission == Mission(type="smoke")
    assert arty.supporting == ("us-infantry", "m113")


def test_move_takes_a_path_and_assault_a_target_hex() -> None:
    move = parse("move C7 D7 E7").bind(_game())
    assert (move.kind, move.unit, move.path) == ("move", "leopard-c1", ("D7", "E7"))
    assault = parse("assault F6 C7").bind(_game())
    assert (assault.kind, assault.unit, assault.target) == ("assault", "t-64", "leopard-c1")
    assert parse("stacking B8").bind(_game()).target == "B8"


def test_a_move_takes_its_path_as_a_field_too_but_only_once() -> None:
    """``path=`` is what ``wawkit actions`` lists for the kinds with a route (an overrun's), so a
    move takes it as well; the hexes after the unit and a ``path=`` together are refused."""
    move = parse("move C7 path=D7,E7").bind(_game())
    assert (move.kind, move.unit, move.path) == ("move", "leopard-c1", ("D7", "E7"))
    with pytest.raises(ActionSyntaxError, match=r"give the hexes entered once"):
        parse("move C7 D7 path=D7,E7").bind(_game())


def test_a_path_through_a_hex_the_map_lacks_is_refused_by_name() -> None:
    """A position read from a save has every hex of its board: a move, overrun or Move & Fire
    path naming another one is a typo, refused before the referee prices anything."""
    from dataclasses import replace
    from referee.model import HexState
    game = replace(_game(), hexes={h: HexState(h) for h in ("C7", "D7", "E7", "F6")})
    assert parse("move C7 D7 E7").bind(game).path == ("D7", "E7")
    with pytest.raises(ActionSyntaxError, match=r"^'move C7 D7 Z99': 'Z99' is not a hex of the map$"):
        parse("move C7 D7 Z99").bind(game)
    with pytest.raises(ActionSyntaxError, match=r"^'overrun C7 F6 path=Q1,D7,R2': 'Q1', 'R2' are not hexes of the map$"):
        parse("overrun C7 F6 path=Q1,D7,R2").bind(game)
    assert parse("move C7 Z99").bind(_game()).path == ("Z99",)     # no hexes stated: the referee judges


def test_target_hex_picks_the_only_enemy() -> None:
    game = _game()
    with pytest.raises(ActionSyntaxError, match=r"'H4' is ambiguous \(bmp-1 \(BMP-1\), soviet-infantry"):
        parse("fire C7 H4 ap").bind(game)
    assert parse("fire C7 bmp-1 ap").bind(game).target == "bmp-1"


@pytest.mark.parametrize("text, message", [
    ("", "empty action"),
    ("shoot C7 F6", "unknown verb 'shoot'"),
    ("fire C7 F6 hits=two", "hits must be a whole number, not 'two'"),
    ('fire "C7 F6', "No closing quotation"),
    ("fire Z99 F6", "no unit at or named 'Z99'"),
    ("fire C7 F6 G7", "unexpected 'G7'"),
    ("move C7", "a move needs at least one hex"),
    ("fire C7 F6 colour=red", "unknown action field"),
    ("rally C7 passed=maybe", "passed must be true or false, not 'maybe'"),
])
def test_bad_actions_are_refused_with_the_reason(text: str, message: str) -> None:
    with pytest.raises(ActionSyntaxError, match=message):
        parse(text).bind(_game())


def test_actions_file_with_mappings_and_strings(tmp_path: Path) -> None:
    first = load_actions(SAMPLES / "actions.yaml")[0]
    assert (first.kind, first.refs, first.weapon, first.text) == (
        "direct_fire", ("leopard-c1", "t-64"), "ap", "leopard-fires-at-t64")
    assert first.dice == {"attack": (4, 1, 5, 4), "save": (1, 3, 4, 4, 6)}
    listed = tmp_path / "listed.yaml"
    listed.write_text("- {action: los, unit: a, target: b, note: n, source: s}\n"
                      "- {kind: direct_fire, unit: b, target: a, weapon: he, id: back}\n", encoding="utf-8")
    assert [(s.kind, s.refs, s.weapon, s.text) for s in load_actions(listed)] == [
        ("los", ("a", "b"), None, "los a b"), ("direct_fire", ("b", "a"), "he", "back")]
    mixed = tmp_path / "mixed.yaml"
    mixed.write_text("- fire C7 F6 ap\n- {kind: move, unit: leopard-c1, path: [D7, E7]}\n", encoding="utf-8")
    first, second = load_actions(mixed)
    assert first.text == "fire C7 F6 ap"
    assert second.bind(_game()).path == ("D7", "E7")


@pytest.mark.parametrize("content, message", [
    ("[]\n", "expected a non-empty list"),
    ("- 42\n", r"actions\[0\]: expected a string or a mapping, not int"),
    ("- {unit: a}\n", r"actions\[0\]: an action needs a 'kind'"),
    ("- {kind: direct_fire, dice: {attack: 4}}\n", r"/actions.yaml: actions\[0\]: dice.attack must be a list of dice, not 4$"),
    ("- {kind: direct_fire, dice: [4, 4]}\n", r"actions\[0\]: dice must map a roll label to a list of dice, not a list$"),
    ("- {kind: direct_fire, dice: {attack: [4, 4.5]}}\n", r"actions\[0\]: dice.attack: die 2 is 4.5, not a whole number$"),
    ("- fire C7\n- bogus\n", r"actions\[1\]: .*unknown verb 'bogus'"),
    ("a: [\n", "not valid YAML"),
    ("- {kind: direct_fire, unit: [a, b]}\n", "unit must be one unit key, hex or name"),
    ("- {kind: move, unit: a, path: C7}\n", "path must be a list of hexes"),
    ("- {kind: direct_fire, unit: a, hits: two}\n", r"actions\[0\]: hits must be a whole number, not 'two'$"),
    ("- {kind: direct_fire, unit: a, hits: true}\n", r"actions\[0\]: hits must be a whole number, not true$"),
    ("- {kind: direct_fire, unit: a, hits: 2001-02-30}\n", r"hits must be a whole number, not '2001-02-30'$"),
    ("- {kind: rally, unit: a, passed: 1}\n", r"actions\[0\]: passed must be true or false, not 1$"),
    ("- {kind: assault, unit: a, choice: {x: 1}}\n", r"actions\[0\]: choice must be text or a list, not a mapping$"),
    ("- {kind: indirect_fire, unit: a, mission: {type: he, fp: big}}\n", "mission.fp is not a mission field"),
    ("- {kind: direct_fire, unit: a, supporting: [1, 2]}\n", "supporting must list unit keys"),
])
def test_bad_actions_files_name_the_item(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "actions.yaml"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ActionSyntaxError, match=message):
        load_actions(path)
