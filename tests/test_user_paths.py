"""The command line as a player or a module maker meets it: real corpus files and bad input.

Each test pins the exact line and exit code a user sees (0 clean, 1 findings, 2 bad input),
so a message that once confused a user cannot quietly come back.
"""
from __future__ import annotations

import pytest

from pathlib import Path

from click.testing import CliRunner

from converter.cli import main

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
SAMPLES = Path(__file__).resolve().parents[1] / "samples"
ZXVT = CORPUS / "zxvt-capture-territory"


def run(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def test_summary_counts_one_finding_in_the_singular() -> None:
    code, out, _err = run("validate", ZXVT / "5x5_startup.vlog", "--module", ZXVT / "buildFile")
    assert code == 1
    assert out.splitlines() == [f"{ZXVT / '5x5_startup.vlog'}: 1 warning",
                                "Warnings (1):",
                                "  saved with module version '0.2.0', checking against '0.3.0'"]


def test_validate_folder_without_saves_says_so(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a save")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "game.vsav").write_bytes(b"")
    code, out, err = run("validate", tmp_path)
    assert code == 2
    assert out == ""
    assert err.splitlines()[-1] == f"wawkit: {tmp_path}: no saves or logs in this folder (subfolders: --recursive)"


def test_validate_profile_without_module_is_refused() -> None:
    code, _out, err = run("validate", SAMPLES / "demo.vsav", "--profile", SAMPLES / "profile.yaml")
    assert code == 2
    assert err.splitlines()[-1] == "Error: --profile needs --module: the profile names the module's maps and pieces"
    code, _out, err = run("validate", SAMPLES / "demo.vsav", "--ruleset", "waw85")
    assert code == 2
    assert err.splitlines()[-1] == "Error: --ruleset needs --profile (and --module): units are read through the " \
                                   "module's profile"


DEMO = ["--module", SAMPLES / "waw-sample.vmod", "--profile", SAMPLES / "profile.yaml"]
FIRE = ["--action", "fire leopard-c1 t-64 ap", "--seed", "10"]


def test_resolve_refuses_an_existing_output_before_rolling(tmp_path: Path) -> None:
    target = tmp_path / "r.vsav"
    target.write_bytes(b"keep")
    code, out, err = run("resolve", SAMPLES / "demo.vsav", *DEMO, *FIRE, "-o", target)
    assert code == 2
    assert out == ""  # no report of a fire that was never written
    assert err == f"wawkit: {target}: exists already; refusing to overwrite it (--force replaces it)\n"
    assert target.read_bytes() == b"keep"
    assert not (tmp_path / "r.audit.json").exists()


def test_output_in_a_missing_folder_names_the_folder(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "r.vsav"
    code, out, err = run("resolve", SAMPLES / "demo.vsav", *DEMO, *FIRE, "-o", target)
    assert (code, out) == (2, "")
    assert err == f"wawkit: {target}: folder {target.parent} does not exist; create it first\n"
    code, _out, err = run("encode", SAMPLES / "profile.yaml", "-o", target)
    assert code == 2
    assert err == f"wawkit: {target}: folder {target.parent} does not exist; create it first\n"
    assert list(tmp_path.iterdir()) == []


def test_migrate_replaces_an_older_output_only_with_force(tmp_path: Path) -> None:
    target = tmp_path / "m.vsav"
    target.write_bytes(b"old")
    args = ["migrate", SAMPLES / "demo.vsav", "--to-module", SAMPLES / "waw-sample.vmod", "-o", target]
    code, _out, err = run(*args)
    assert (code, target.read_bytes()) == (2, b"old")
    assert err == f"wawkit: {target}: exists already; refusing to overwrite it (--force replaces it)\n"
    code, out, _err = run(*args, "--force")
    assert code == 0
    assert out == ("migrated World at War Sample 1.0 -> World at War Sample 1.0: 10 pieces, 10 matched by gpid, "
                   "0 by name (10 already identical), 0 not matched\n")
    assert target.read_bytes()[:2] == b"PK"


def test_migrate_never_replaces_its_input(tmp_path: Path) -> None:
    save = tmp_path / "game.vsav"
    save.write_bytes((SAMPLES / "demo.vsav").read_bytes())
    code, _out, err = run("migrate", save, "--to-module", SAMPLES / "waw-sample.vmod", "-o", save, "--force")
    assert code == 2
    assert err == f"wawkit: {save}: is the save being migrated; write the migrated save to another file\n"
    assert save.read_bytes() == (SAMPLES / "demo.vsav").read_bytes()


def test_a_save_given_where_a_scenario_belongs_says_what_it_is() -> None:
    save = SAMPLES / "demo.vsav"
    hint = (f"wawkit: {save}: is a zip archive (a VASSAL save or module), not a YAML or JSON file; "
            "'wawkit import' turns a save into a scenario file\n")
    code, out, err = run("los", save, "leopard-c1", "t-64")
    assert (code, out, err) == (2, "", hint)
    code, out, err = run("export", save, *DEMO, "-o", "unused.vsav")
    assert (code, out, err) == (2, "", hint)


def test_a_save_given_as_an_audit_record_says_what_it_is() -> None:
    save = SAMPLES / "demo.vsav"
    code, _out, err = run("verify", save)
    assert code == 2
    assert err == f"wawkit: {save}: is a zip archive (a VASSAL save or module), not an audit record (.audit.json)\n"


CASES = Path(__file__).resolve().parents[1].parent / "shared" / "cases" / "rule-cases.yaml"


@pytest.mark.slow
def test_cases_that_match_no_case_are_bad_input_not_a_pass() -> None:
    code, out, err = run("cases", CASES, "--ruleset", "waw85", "--id", "no-such-case")
    assert (code, out) == (2, "")
    assert err == f"wawkit: {CASES}: no case matches --ruleset 'waw85', --id 'no-such-case'; nothing was run\n"


@pytest.mark.slow
def test_cases_summary_counts_one_gap_in_the_singular() -> None:
    code, out, _err = run("cases", CASES, "--ruleset", "waw85", "--book", "untold")
    assert code == 0
    assert out.splitlines()[-1] == "296 passed, 0 failed, 1 gap"


def test_locate_a_name_off_the_board_says_so_and_names_the_module() -> None:
    module = SAMPLES / "waw-sample.vmod"
    code, out, err = run("locate", module, "Main Map", "ZZ99")
    assert (code, out) == (2, "")
    assert err == (f"wawkit: {module}: no location 'ZZ99' on map 'Main Map' "
                   "(Eisenbach Sample: 'ZZ99' lies outside the board)\n")
    code, _out, err = run("locate", module, "Combat", "C5")
    assert code == 2
    assert err == f"wawkit: {module}: no location 'C5' on map 'Combat' (no board of the map has a grid)\n"


def test_a_module_given_for_a_save_and_the_reverse_say_which_command_reads_it() -> None:
    module = SAMPLES / "waw-sample.vmod"
    code, out, err = run("pieces", module)
    assert (code, out) == (2, "")
    assert err == (f"wawkit: {module}: no savedGame entry: a VASSAL module or extension (has buildFile.xml), "
                   "not a save or log; 'wawkit inspect-module' reads it\n")
    save = SAMPLES / "demo.vsav"
    code, out, err = run("inspect-module", save)
    assert (code, out) == (2, "")
    assert err == (f"wawkit: {save}: no buildFile.xml or buildFile entry; not a VASSAL module "
                   "(has savedGame: a save or log; 'wawkit inspect' reads it)\n")


def test_render_keeps_an_existing_picture_unless_forced(tmp_path: Path) -> None:
    target = tmp_path / "p.png"
    target.write_bytes(b"keep")
    args = ["render", SAMPLES / "demo.vsav", *DEMO, "-o", target]
    code, _out, err = run(*args)
    assert (code, target.read_bytes()) == (2, b"keep")
    assert err == f"wawkit: {target}: exists already; refusing to overwrite it (--force replaces it)\n"
    code, _out, err = run(*args, "--force")
    assert (code, err) == (0, f"wrote {target}\n")
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_an_action_without_its_target_is_refused_with_what_to_add(tmp_path: Path) -> None:
    target = tmp_path / "r.vsav"
    code, out, _err = run("resolve", SAMPLES / "demo.vsav", *DEMO, "--action", "fire leopard-c1", "--seed", "1",
                          "-o", target)
    assert code == 1
    assert out.splitlines() == [
        "REFUSED: fire leopard-c1",
        "  'fire leopard-c1': names no target; give the unit (key, counter name or hex) after 'leopard-c1'",
        "Nothing was written."]
    assert not target.exists()


def test_validate_an_unreadable_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    empty = tmp_path / "game.vsav"
    empty.write_bytes(b"")
    code, out, _err = run("validate", empty)
    assert (code, out) == (2, f"{empty}: unreadable: offset 0: is empty\n")
    module = tmp_path / "other.vmod"
    module.write_bytes(b"not a zip")
    code, out, _err = run("validate", SAMPLES / "demo.vsav", "--module", module)
    assert code == 2
    assert out == f"{SAMPLES / 'demo.vsav'}: unreadable: {module}: malformed XML at line 1, column 1: " \
                  "Start tag expected, '<' not found, line 1, column 1\n"


@pytest.mark.slow
def test_a_save_of_another_module_names_the_missing_board_once(tmp_path: Path) -> None:
    save = CORPUS / "ccn-napoleonics" / "vsav" / "A301 - Wertingen.vsav"
    code, out, err = run("resolve", save, *DEMO, *FIRE, "-o", tmp_path / "r.vsav")
    assert (code, out) == (2, "")
    assert err == (f"wawkit: {SAMPLES / 'waw-sample.vmod'}: map 'Main Map' has no board 'Inland' "
                   "(boards: Eisenbach Sample) (a board of an older module version? see board_aliases in the profile)\n")


def test_resolve_with_an_audit_in_a_missing_folder_writes_nothing(tmp_path: Path) -> None:
    audit = tmp_path / "missing" / "a.audit.json"
    code, out, err = run("resolve", SAMPLES / "demo.vsav", *DEMO, *FIRE, "--audit", audit, "-o", tmp_path / "r.vsav")
    assert (code, out) == (2, "")
    assert err == f"wawkit: {audit}: folder {audit.parent} does not exist; create it first\n"
    assert list(tmp_path.iterdir()) == []


def test_odds_case_id_without_a_case_file_is_refused() -> None:
    code, out, err = run("odds", "--fp", "4", "--to-hit", "4", "--id", "classic-leopard")
    assert (code, out) == (2, "")
    assert err.splitlines()[-1] == "Error: --id and --row choose a case of --cases FILE; give --cases too"


def test_a_name_that_is_no_location_shows_what_names_look_like() -> None:
    module = CORPUS / "tld-longest-day" / "buildFile"
    code, _out, err = run("locate", module, "Normandy", "xx")
    assert code == 2
    assert err == (f"wawkit: {module}: no location 'xx' on map 'Normandy' "
                   "(Normandy: 'xx' is not a location of this grid (names look like '0204'))\n")


def test_resolve_names_given_dice_no_roll_used(tmp_path: Path) -> None:
    target = tmp_path / "r.vsav"
    code, out, err = run("resolve", SAMPLES / "demo.vsav", *DEMO, "--action", "fire leopard-c1 t-64 ap",
                         "--dice", "4,1,5,4,1,3,4,4,6,6,5", "-o", target)
    assert code == 0
    assert out.splitlines()[1:3] == ["  roll attack: 4 1 5 4", "  roll save: 1 3 4 4 6"]
    assert err.splitlines() == [f"wrote {target} and {tmp_path / 'r.audit.json'}",
                                "note: 2 given dice were not used (6,5); check that the dice match the rolls above"]
    code, _out, err = run("resolve", SAMPLES / "demo.vsav", *DEMO, "--action", "fire leopard-c1 t-64 ap",
                          "--dice", "4,1,5,4,1,3,4,4,6", "-o", tmp_path / "exact.vsav")
    assert code == 0 and "note:" not in err


def _scenario(tmp_path: Path) -> Path:
    scenario = tmp_path / "demo.yaml"
    code, _out, _err = run("import", SAMPLES / "demo.vsav", *DEMO, "-o", scenario)
    assert code == 0
    return scenario


def test_los_from_a_unit_off_the_map_is_bad_input_with_what_to_give(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path)
    text = scenario.read_text()
    placed = "- key: leopard-c1\n  type: leopard-c1\n  side: NATO\n  nation: Canada\n  formation: 4 CMBG\n  hex: B7\n"
    assert placed in text
    scenario.write_text(text.replace(placed, placed.replace("  hex: B7\n", "")))
    code, out, err = run("los", scenario, "leopard-c1", "t-64")
    assert (code, out) == (2, "")
    assert err.splitlines()[-1] == ("Error: Invalid value: unit 'leopard-c1' is not on the map (it has no hex); "
                                    "give a unit on the map or a hex")


def test_los_within_one_hex_says_same_hex(tmp_path: Path) -> None:
    code, out, _err = run("los", _scenario(tmp_path), "B7", "B7")
    assert code == 0
    assert out.splitlines()[:2] == ["LOS B7 -> B7: clear", "  crosses: nothing (same hex)"]


def test_import_and_export_never_write_over_their_input_even_with_force(tmp_path: Path) -> None:
    save = tmp_path / "game.vsav"
    save.write_bytes((SAMPLES / "demo.vsav").read_bytes())
    code, out, err = run("import", save, *DEMO, "-o", save, "--force")
    assert (code, out) == (2, "")
    assert err == f"wawkit: {save}: is an input of this command; write to another file\n"
    assert save.read_bytes() == (SAMPLES / "demo.vsav").read_bytes()
    scenario = _scenario(tmp_path)
    before = scenario.read_bytes()
    code, _out, err = run("export", scenario, *DEMO, "-o", scenario, "--force")
    assert code == 2
    assert err == f"wawkit: {scenario}: is an input of this command; write to another file\n"
    assert scenario.read_bytes() == before


def test_render_and_encode_never_write_over_their_input_even_with_force(tmp_path: Path) -> None:
    save = tmp_path / "game.vsav"
    save.write_bytes((SAMPLES / "demo.vsav").read_bytes())
    code, _out, err = run("render", save, *DEMO, "-o", save, "--force")
    assert code == 2
    assert err == f"wawkit: {save}: is an input of this command; write to another file\n"
    assert save.read_bytes() == (SAMPLES / "demo.vsav").read_bytes()
    text = tmp_path / "game.txt"
    text.write_bytes(b"plain")
    code, _out, err = run("encode", text, "-o", text, "--force")
    assert code == 2
    assert err == f"wawkit: {text}: is an input of this command; write to another file\n"
    assert text.read_bytes() == b"plain"
