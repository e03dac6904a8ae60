"""wawkit validate: file soundness, position legality by the referee, log replay, exit codes.

Corpus saves that have a profile (the sample module, The Longest Day) validate clean
or with exactly the findings asserted here.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from converter.cli import main
from converter.report import Finding, Report
from converter.validate import Options, soundness, validate_path
from converter.vassal.container import write_atomic
from converter.vassal.module import Module
from converter.vassal.save import SavedGame
from converter.vassal.sequence import ESC

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
CORPUS = ROOT.parent / "shared" / "corpus"
TLD = CORPUS / "tld-longest-day"
SAVE, MODULE, PROFILE = SAMPLES / "demo.vsav", SAMPLES / "waw-sample.vmod", SAMPLES / "profile.yaml"
SAMPLE = Options(str(MODULE), str(PROFILE))


def _codes(report: Report) -> dict[tuple[str, str], int]:
    """Findings counted by severity and code. Notes on traits wawkit does not type yet are left
    out (their number falls as traits are typed); :func:`_check_unknown_traits` checks them."""
    return dict(sorted(Counter((f.severity, f.code) for f in report.findings if f.code != "unknown-trait").items()))


def _check_unknown_traits(report: Report, path: Path) -> None:
    """Each unknown-trait note names a piece that has exactly those untyped traits, and no piece
    with an untyped trait goes unmentioned."""
    save = SavedGame.read(path)
    expected = {pid: sorted({t.id_prefix for t in e.piece.unknown_traits()}) for pid, e in save.pieces.items()
                if not (e.is_stack or e.is_deck) and e.piece.unknown_traits()}
    noted = {f.piece: f.message for f in report.findings if f.code == "unknown-trait"}
    assert sorted(noted) == sorted(expected)
    for pid, prefixes in expected.items():
        assert noted[pid] == f"trait(s) {', '.join(prefixes)} not known to wawkit (kept as is)"


def _ids() -> dict[str, str]:
    save = SavedGame.read(SAVE)
    return {save.piece(p).basic_name: p for p, e in save.pieces.items() if not e.is_stack}


def _edited(tmp_path: Path, edit) -> Path:
    save = SavedGame.read(SAVE)
    edit(save)
    out = tmp_path / "edited.vsav"
    save.write(out)
    return out


# -- the sample ------------------------------------------------------------------------------

def test_sample_save_is_clean() -> None:
    report = validate_path(SAVE, SAMPLE)
    assert report.clean and report.exit_code == 0
    assert report.facts == {"pieces": 10, "stacks": 2, "units": 8, "rules": "classic:untold"}
    assert report.to_text() == f"{SAVE}: clean"


def test_overstacking_and_two_hqs_are_errors_with_sections(tmp_path: Path) -> None:
    ids = _ids()
    geometry = Module.read(MODULE).map("Main Map").geometry()

    def edit(save: SavedGame) -> None:
        save.move(ids["T-64"], "Main Map", *geometry.locate("H4"), join=ids["BMP-1"])
        save.move(ids["US HQ"], "Main Map", *geometry.locate("H4"), join=ids["Soviet HQ"])
    report = validate_path(_edited(tmp_path, edit), SAMPLE)
    errors = [f for f in report.sorted if f.severity == "error"]
    assert [(f.code, f.hex, f.section, f.message) for f in errors] == [
        ("stacking", "H4", "TUS §1.4", "3 combat units in H4, at most 2"),
        ("stacking", "H4", "TUS §1.3.3.1",
         "US HQ is alone in H4: an HQ on the map stands with a unit of its Formation (2/11 ACR)"),
        ("stacking", "H4", "TUS §1.3.3", "no more than one HQ in a hex")]
    names = ", ".join(sorted(("BMP-1", "Soviet HQ", "Soviet Infantry", "T-64", "US HQ")))
    assert [f.name for f in errors] == [names] * 3
    assert errors[0].piece == ", ".join(ids[n] for n in names.split(", "))
    assert report.exit_code == 1


def test_broken_stacks_and_duplicate_ids(tmp_path: Path) -> None:
    save = SavedGame.read(SAVE)
    stacks = save.stacks
    first, second = sorted(stacks)
    moved = stacks[first][0]
    entry = save.entry(second)
    entry.piece.inner.members = [*stacks[second], moved, "999"]
    entry.commit()
    text = save.to_text()
    leopard = _ids()["Leopard C1"]
    start = text.index(f"\\{ESC}+/{leopard}/")
    end = text.index(f"\\{ESC}", start + 2)
    text = text[:end] + text[start:end] + text[end:]
    out = tmp_path / "broken.vsav"
    write_atomic(out, save.container.to_bytes(text.encode("utf-8")))
    found = soundness(SavedGame.read(out), Module.read(MODULE))
    assert sorted((f.severity, f.code, f.piece) for f in found) == sorted([
        ("error", "duplicate-id", leopard), ("error", "member-doubled", moved), ("error", "member-missing", "999")])
    doubled = next(f for f in found if f.code == "member-doubled")
    assert doubled.message == f"listed also in {first} and stack {second}"


def test_pieces_off_the_boards_or_on_unknown_maps(tmp_path: Path) -> None:
    ids = _ids()

    def edit(save: SavedGame) -> None:
        save.move(ids["Soviet HQ"], "Main Map", 5000, 40)
        save.move(ids["US HQ"], "Atlantis", 10, 10)
    report = validate_path(_edited(tmp_path, edit), Options(str(MODULE)))
    assert [(f.severity, f.code, f.piece, f.message) for f in report.sorted] == [
        ("error", "unknown-map", None, "1 piece(s) or stack(s) on map 'Atlantis', which the module does not have"),
        ("warning", "off-board", ids["Soviet HQ"], "at (5000, 40) on map 'Main Map', off every board")]


def test_changed_definition_is_a_warning(tmp_path: Path) -> None:
    save = SavedGame.read(SAVE)
    text = save.to_text().replace("piece;;;t-64.png;T-64", "piece;;;t-64-old.png;T-64")
    out = tmp_path / "old.vsav"
    write_atomic(out, save.container.to_bytes(text.encode("utf-8")))
    report = validate_path(out, Options(str(MODULE)))
    assert [(f.code, f.name, f.message) for f in report.findings] == [
        ("definition-changed", "T-64", "differs from its PieceSlot (matched by gpid): the module changed since the "
         "save was made")]


def test_unsupported_rules_are_reported_not_legal() -> None:
    from converter.validate import legality
    from referee.model import Game, Unit, UnitType
    from referee.ruleset import Params, Ruleset
    game = Game(units={"a": Unit("a", UnitType(name="A"), hex="C3")})
    bare = Ruleset(Params(ruleset="none"), {})
    assert legality(game, bare) == [Finding("unsupported", "stacking",
                                            "*: not supported: stacking is not a procedure of none", name="A",
                                            hex="C3", unit="a")]


# -- logs ------------------------------------------------------------------------------------

def _log(tmp_path: Path, moves: list[tuple[str, str]]) -> Path:
    save = SavedGame.read(SAVE)
    geometry = Module.read(MODULE).map("Main Map").geometry()
    ids = _ids()
    steps = []
    for name, hex_name in moves:
        _map, x, y = save.position(ids[name])
        nx, ny = geometry.locate(hex_name)
        steps.append(f"LOG\tM/{ids[name]}/Main Map/{nx}/{ny}/null/Main Map/{x}/{y}/null/alice")
    steps.append("LOG\tCHAT<alice> done")
    out = tmp_path / "moves.vlog"
    write_atomic(out, save.container.to_bytes((save.to_text() + ESC + ESC.join(steps)).encode("utf-8")))
    return out


@pytest.mark.slow
def test_log_replay_flags_illegal_moves_with_their_step(tmp_path: Path) -> None:
    log = _log(tmp_path, [("Leopard C1", "H7"), ("M113", "C8"), ("T-64", "G5"), ("Soviet HQ", "J4"),
                          ("T-64", "H4")])
    report = validate_path(log, SAMPLE)
    assert report.kind == "log" and report.facts["steps"] == 6
    ids = _ids()
    found = [(f.step, f.severity, f.code, f.piece, f.section) for f in report.sorted]
    assert found == [
        (0, "error", "move", ids["Leopard C1"], "TUS §5.0"),
        (1, "error", "move", ids["M113"], "TUS §4.4"),
        (3, "error", "move", ids["Soviet HQ"], "TUS §1.3.3.1"),
        (4, "error", "move", ids["T-64"], "TUS §1.4")]
    first = report.sorted[0]
    assert first.message.startswith("B7 -> H7 (cheapest route ")
    assert first.message.endswith(": 7 MP is more than the Movement Factor 4")
    assert report.sorted[1].message.endswith("M113 is Ops Complete")
    # §1.3.3.1: the HQ was dragged on its own, not with a unit of its Formation
    assert report.sorted[2].message == ("H4 -> J4 (cheapest route I4 J4, 2 MP): Soviet HQ may move only "
                                        "accompanied by a unit of its Formation stacked with it")


def test_legal_moves_leave_a_clean_log(tmp_path: Path) -> None:
    report = validate_path(_log(tmp_path, [("Leopard C1", "C7"), ("T-64", "G5")]), SAMPLE)
    assert report.clean, report.to_text()


# -- The Longest Day (corpus, profiles/longest-day.yaml) ---------------------------------------

TLD_OPTIONS = Options(str(TLD / "buildFile"), str(ROOT / "profiles" / "longest-day.yaml"), None,
                      str(TLD / "faces.csv"), replay_log=False)

#: The Longest Day is not a World at War game (its profile says rules: none): soundness only.
TLD_EXPECTED = {
    "scenarios/scenario_1.sav": {("info", "board-alias"): 1, ("warning", "definition-changed"): 30},
    "scenarios/scenario_2.sav": {("info", "board-alias"): 1, ("warning", "definition-changed"): 8},
    "scenarios/scenario_3.sav": {("info", "board-alias"): 1, ("warning", "definition-changed"): 6},
    "scenarios/scenario_4.sav": {("error", "unknown-map"): 1, ("info", "board-alias"): 1,
                                 ("warning", "definition-changed"): 155, ("warning", "no-piece-slot"): 2},
    "scenarios/campaign.sav": {("error", "unknown-map"): 3, ("warning", "definition-changed"): 1462,
                               ("warning", "no-piece-slot"): 4},
    "logs/0606-1.log": {("error", "unknown-map"): 3, ("warning", "definition-changed"): 1462,
                        ("warning", "no-piece-slot"): 4},
    "logs/0608-3.log": {("error", "unknown-map"): 3, ("warning", "definition-changed"): 1452,
                        ("warning", "no-piece-slot"): 6},
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(TLD_EXPECTED))
def test_longest_day_saves_have_exactly_these_findings(name: str) -> None:
    report = validate_path(TLD / name, TLD_OPTIONS)
    assert _codes(report) == TLD_EXPECTED[name]
    assert report.facts["rules"] == "none"
    _check_unknown_traits(report, TLD / name)


#: Each log's replay, judged for soundness only: the steps that name a piece not in the position.
TLD_STEPS = {
    "logs/0606-1.log": [
        "step 1145: 1168786995021: moves a piece that is not in the position (VASSAL ignores the command)",
        "steps 1792, 1804: 2 times: removes a piece that is not in the position (VASSAL ignores the command): "
        "1168794375069"],
    "logs/0608-3.log": [
        "steps 2753, 3240, 3242: 3 times (2 pieces): moves a piece that is not in the position (VASSAL ignores the "
        "command): 1159134482343, 1170451933865"]}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(TLD_STEPS))
def test_longest_day_logs_get_soundness_findings_only_each_once(name: str) -> None:
    """The issue's complaint: 2,200 lines of World at War stacking applied to another game,
    holding boxes taken for hexes, duplicated lines. Now: soundness only, each finding once,
    a summary line first."""
    report = validate_path(TLD / name, replace(TLD_OPTIONS, replay_log=True))
    assert {code for _severity, code in _codes(report)} == {
        "unknown-map", "definition-changed", "no-piece-slot", "missing-piece"}
    assert len(report.findings) == len(set(report.findings))
    text = report.to_text().splitlines()
    assert [line.strip() for line in text if line.strip().startswith("step")] == TLD_STEPS[name]
    assert text[0] == f"{TLD / name}: " + ("3 errors, 1469 warnings" if name == "logs/0606-1.log"
                                           else "3 errors, 1461 warnings")
    assert len(text) == len(set(text)) == (10 if name == "logs/0606-1.log" else 9)
    assert text[6].startswith(f"  {TLD_EXPECTED[name][('warning', 'definition-changed')]} pieces: differs from its "
                              "PieceSlot (matched by name): the module changed since the save was made: ")


def test_longest_day_findings_say_where() -> None:
    report = validate_path(TLD / "scenarios" / "scenario_4.sav", TLD_OPTIONS)
    by_code = {f.code: f for f in report.sorted}
    assert by_code["unknown-map"].message == \
        "57 piece(s) or stack(s) on map 'German Remnants', which the module does not have"
    assert by_code["board-alias"].message == ("map 'Normandy' lays out board 'Board A', which the profile places "
                                              "on board 'Normandy' at (0, 0); placement not checked")
    missing = [(f.piece, f.name) for f in report.sorted if f.code == "no-piece-slot"]
    assert missing == [("1168647823919", "2/314/79"), ("1168647823939", "1/314/79")]
    assert not [f for f in report.findings if f.code in ("stacking", "move", "markers", "terrain")]


@pytest.mark.slow
def test_soundness_without_profile_on_other_corpus_saves() -> None:
    ragnarok = validate_path(CORPUS / "ragnarok-spi" / "ragnarok-start.vsav",
                             Options(str(CORPUS / "ragnarok-spi" / "buildFile.xml")))
    assert _codes(ragnarok) == {("warning", "off-board"): 3}
    _check_unknown_traits(ragnarok, CORPUS / "ragnarok-spi" / "ragnarok-start.vsav")
    tutorial = validate_path(CORPUS / "ccn-napoleonics" / "CCNv4 Tutorial.vlog",
                             Options(str(CORPUS / "ccn-napoleonics" / "buildFile.xml")))
    codes = _codes(tutorial)
    assert codes == {("info", "placement-unchecked"): 1, ("warning", "definition-changed"): 401,
                     ("warning", "module-name"): 1, ("warning", "module-version"): 1, ("warning", "off-board"): 32}
    # Cards put out of sight at (-500, -500) of the players' hands: 2 at the start, 30 by the log's steps,
    # each said once per message with the steps that did it.
    lines = [line for line in tutorial.to_text().splitlines() if "off every board" in line]
    assert lines == ["  1448033421642: at (-500, -500) on map 'Allies Hand', off every board",
                     "  1448033421644: at (-500, -500) on map 'French Hand', off every board",
                     "  steps 418, 419, 420, 421, 422 ...: 11 pieces: moved to (-500, -500) on map 'Allies Hand', off "
                     "every board: 1625257914497 Leadership, 1625257914201 Fire and Hold, 1625257913503 Forward, "
                     "1625257913601 Recon in Force, 1625257911830 Probe Center and 6 more",
                     "  steps 537, 538, 539, 540, 541 ...: 19 times (11 pieces): moved to (-500, -500) on map 'French "
                     "Hand', off every board: 1625257913210 Assault Right Flank, 1625257914743 Take Command Any "
                     "Section, 1625257914102 Counter-Attack, 1625257911389 Scout Center, 1625257911534 Scout Right "
                     "Flank and 6 more"]


# -- the command line -------------------------------------------------------------------------

def test_cli_exit_codes_and_json(tmp_path: Path) -> None:
    runner = CliRunner()
    clean = runner.invoke(main, ["validate", str(SAVE), "--module", str(MODULE), "--profile", str(PROFILE), "--json"])
    assert clean.exit_code == 0
    data = json.loads(clean.stdout)
    assert (data["clean"], data["kind"], data["findings"]) == (True, "save", [])
    ids = _ids()
    off = _edited(tmp_path, lambda save: save.move(ids["US HQ"], "Main Map", 9000, 9000))
    findings = runner.invoke(main, ["validate", str(off), "--module", str(MODULE)])
    assert findings.exit_code == 1
    assert findings.stdout.splitlines()[1:] == [
        "Warnings (1):", f"  {ids['US HQ']} US HQ: at (9000, 9000) on map 'Main Map', off every board"]
    garbage = tmp_path / "garbage.vsav"
    garbage.write_bytes(b"not a zip at all")
    unreadable = runner.invoke(main, ["validate", str(garbage), "--json"])
    assert unreadable.exit_code == 2
    assert json.loads(unreadable.stdout)["kind"] == "unreadable"


def test_a_route_the_map_cannot_price_is_not_supported() -> None:
    from converter.validate import _move_findings
    from referee.model import Game, HexState, Unit, UnitType
    from referee.rulesets import get_ruleset
    unit = Unit("a", UnitType(name="A", mp=4, target_type="heavy_armor"), hex="0101")
    game = Game(units={"a": unit}, hexes={"0101": HexState("0101"), "0102": HexState("0102")})
    [finding] = _move_findings(game, get_ruleset("classic"), unit, "0102", "77", 5)
    assert (finding.severity, finding.code, finding.step, finding.piece, finding.section) == (
        "unsupported", "move", 5, "77", "TUS §5.0")


def test_cli_no_replay_checks_only_the_starting_position(tmp_path: Path) -> None:
    log = _log(tmp_path, [("Leopard C1", "H7")])
    args = ["validate", str(log), "--module", str(MODULE), "--profile", str(PROFILE)]
    assert CliRunner().invoke(main, [*args, "--no-replay"]).exit_code == 0
    replayed = CliRunner().invoke(main, args)
    assert replayed.exit_code == 1
    assert "step 0: " in replayed.stdout and "(TUS §5.0)" in replayed.stdout


def test_markers_that_contradict_the_unit() -> None:
    from converter.validate import legality
    from referee.model import Game, Status, Unit, UnitType, Weapon
    from referee.rulesets import get_ruleset
    gun = Weapon(fp=4, to_hit=4, range=6, underlined=False)
    units = [Unit("one-step", UnitType(name="Jeep", steps=1), hex="A1", strength="reduced"),
             Unit("gun", UnitType(name="Tank", ap=gun), hex="A2", status=Status(ammo="depleted_2")),
             Unit("atgm", UnitType(name="ATGM", ap=Weapon(fp=4, underlined=True)), hex="A3",
                  status=Status(ammo="depleted_1")),
             Unit("unknown", UnitType(name="BMP", ap=Weapon(fp=2)), hex="A4", status=Status(ammo="depleted_2"))]
    found = legality(Game(units={u.key: u for u in units}), get_ruleset("classic"), {"gun": "17"})
    assert [(f.severity, f.name, f.piece, f.section, f.message) for f in found if f.code == "markers"] == [
        ("error", "Tank", "17", "TUS §6.1.4", "Ammo Depleted marker on a unit that fires no missiles"),
        ("error", "Jeep", None, None, "shows a reduced side, but the counter has one step"),
        ("unsupported", "BMP", None, "TUS §6.1.4",
         "Ammo Depleted marker: whether the unit fires missiles is not stated (underlined range)")]


def test_a_logged_move_of_a_disrupted_unit_is_judged_by_the_referee() -> None:
    """§6.1.7: the log validator no longer says "not supported" for Disrupted moves;
    the referee's Move check judges every hex of the cheapest route."""
    from converter.validate import _move_findings
    from tests.test_classic_map_positions import UNTOLD, board, disrupted, enemy

    closer = board(disrupted("A", "2,0"), enemy("E", "8,0"))
    found = _move_findings(closer, UNTOLD, closer.unit("A"), "3,0", "p1", 7)
    assert [(f.severity, f.section) for f in found if f.section == "TUS §6.1.7"] == [("error", "TUS §6.1.7")]
    assert not [f for f in found if f.severity == "unsupported"]
    away = board(disrupted("A", "4,0"), enemy("E", "8,0"))
    assert [f for f in _move_findings(away, UNTOLD, away.unit("A"), "3,0", "p1", 8)
            if f.severity in ("error", "unsupported")] == []


def test_findings_name_the_unit_key_of_their_piece(tmp_path: Path) -> None:
    """A page or a bot points at the counter by its unit key (the JSON's ``unit``), not VASSAL's piece id."""
    report = validate_path(_log(tmp_path, [("Leopard C1", "H7")]), SAMPLE)
    [move] = [f for f in report.findings if f.code == "move"]
    assert (move.step, move.piece, move.unit, move.section) == (0, _ids()["Leopard C1"], "leopard-c1", "TUS §5.0")
    assert move.to_dict()["unit"] == "leopard-c1"
