"""A module that is not the sample: statuses without marker pieces, grids without numbering,
results a module cannot show, boards without images (issue: bring your own module)."""
from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from converter.cli import main
from converter.exporter import ResultNotWritable, apply_events
from converter.importer import import_save
from converter.profile import Profile
from converter.terrain import board_hexes
from converter.unit_table import read_unit_table
from converter.vassal.module import Module
from converter.vassal.save import SavedGame
from converter.vassal.sequence import join
from referee.events import UnitDisrupted, UnitRallied

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
MODULE, DEMO = SAMPLES / "waw-sample.vmod", SAMPLES / "demo.vsav"
T64, LEOPARD = "1767225600001", "1767225600000"


def sample_profile(**changes) -> dict:
    doc = yaml.safe_load((SAMPLES / "profile.yaml").read_text(encoding="utf-8"))
    doc["units_file"] = str(SAMPLES / "units.yaml")
    doc["terrain_file"] = str(SAMPLES / "terrain.yaml")
    doc.update(changes)
    return doc


def write_profile(tmp_path: Path, doc: dict) -> Path:
    path = tmp_path / "profile.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


# -- a result the module cannot show ---------------------------------------------------------

def test_resolve_says_which_result_it_cannot_write_and_writes_nothing(tmp_path: Path) -> None:
    doc = sample_profile()
    del doc["unit_markers"]["disrupted"]
    profile = write_profile(tmp_path, doc)
    out = tmp_path / "r.vsav"
    result = CliRunner().invoke(main, ["resolve", str(DEMO), "--module", str(MODULE), "--profile", str(profile),
                                       "--action", "fire leopard-c1 t-64 ap", "--seed", "10", "-o", str(out)])
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-3:] == [
        "  result: Leopard C1 is Ops Complete; T-64 is Disrupted; T-64 is Reduced",
        "CANNOT BE WRITTEN: cannot write 'T-64 is Disrupted' into the save: nothing in the profile shows "
        "Disrupted: no marker piece (unit_markers.disrupted), Layer level (units[0].status_layers) or Dynamic "
        "Property (units[0].status_properties)",
        "Nothing was written."]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["profile.yaml"]


# -- a status shown by a Dynamic Property --------------------------------------------------------

def with_property(save: SavedGame, piece_id: str, key: str, value: str) -> None:
    """Give a piece a Dynamic Property ``key`` (outermost) with ``value``, as a module could."""
    entry = save.entry(piece_id)
    entry.command._set(1, join([f"PROP;{key};false,0,0,false;", entry.type_text], "\t"))
    entry.command.state_text = join([value, entry.state_text], "\t") or ""
    entry._piece = None


def test_a_status_shown_by_a_dynamic_property_is_read_and_written() -> None:
    module = Module.read(MODULE)
    doc = sample_profile()
    del doc["unit_markers"]["disrupted"]
    doc["units"][0]["status_properties"] = {"disrupted": {"property": "Disrupted", "value": "true", "off": "false"}}
    profile = Profile.from_document(doc)
    table = read_unit_table(SAMPLES / "units.yaml")
    save = SavedGame.read(DEMO)
    with_property(save, T64, "Disrupted", "true")
    save = SavedGame.from_bytes(save.to_bytes())
    imported = import_save(save, module, profile, table)
    assert {k for k, u in imported.game.units.items() if u.status.disrupted} == {"t-64"}    # the others lack it
    before = save.entry(T64).state_text
    apply_events(save, module, profile, imported, [UnitRallied("t-64")])
    assert save.piece(T64).properties()["Disrupted"] == "false"
    assert save.entry(T64).state_text == before.replace("true", "false", 1)      # only the property changed
    again = import_save(SavedGame.from_bytes(save.to_bytes()), module, profile, table)
    assert not again.game.units["t-64"].status.disrupted
    assert len(save.pieces) == len(SavedGame.read(DEMO).pieces)                 # no marker piece was added
    apply_events(save, module, profile, again, [UnitDisrupted("t-64")])
    assert save.piece(T64).properties()["Disrupted"] == "true"
    with pytest.raises(ResultNotWritable) as caught:
        apply_events(save, module, profile, again, [UnitDisrupted("leopard-c1")])
    assert caught.value.message == ("cannot write 'Leopard C1 is Disrupted' into the save: the piece has no Marker "
                                    "or Dynamic Property 'Disrupted' to show the status")
    assert caught.value.piece == LEOPARD


# -- a hex grid without numbering ----------------------------------------------------------------

def unnumbered_module(tmp_path: Path) -> Path:
    """The sample module with its HexGridNumbering taken out: VASSAL names no hex on it."""
    out = tmp_path / "unnumbered.vmod"
    with zipfile.ZipFile(MODULE) as source, zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            if item.filename == "buildFile.xml":
                data = re.sub(rb"<VASSAL\.build\.module\.map\.boardPicker\.board\.mapgrid\.HexGridNumbering[^>]*/>",
                              b"", data)
            target.writestr(item, data)
    return out


def test_an_unnumbered_grid_gets_wawkits_names_and_says_so(tmp_path: Path) -> None:
    path = unnumbered_module(tmp_path)
    module = Module.read(path)
    assert module.map("Main Map").geometry().location_name(337, 419) is None          # VASSAL: no name
    named = module.map("Main Map").geometry(assign_names=True)
    # F6 of the numbered sample: column 6, row 6 + 1 (VASSAL's default numbering staggers odd columns)
    assert named.location_name(337, 419) == "0607"
    assert named.locate("0607") == Module.read(MODULE).map("Main Map").geometry().locate("F6") == (320, 392)
    cells = list(board_hexes(module, "Main Map", "Eisenbach Sample"))
    assert len(cells) == len(list(board_hexes(Module.read(MODULE), "Main Map", "Eisenbach Sample")))
    assert (cells[0].name, cells[-1].name) == ("0101", "1411")
    # Import names the units' hexes with wawkit's names, with map positions: LOS and moves work.
    doc = sample_profile()
    del doc["terrain_file"]                  # the sample terrain names VASSAL's hexes (A1...)
    profile = write_profile(tmp_path, doc)
    report = CliRunner().invoke(main, ["validate", str(DEMO), "--module", str(path), "--profile", str(profile)])
    assert report.exit_code == 0, report.output
    assert report.stdout.splitlines() == [
        f"{DEMO}: 1 note", "Notes (1):",
        "  map 'Main Map': the grid has no numbering, so VASSAL shows no names there; wawkit names its cells "
        "column then row, from 0101 at the grid's origin (VASSAL's default numbering)"]
    scenario = tmp_path / "demo.yaml"
    assert CliRunner().invoke(main, ["import", str(DEMO), "--module", str(path), "--profile", str(profile), "-o",
                                     str(scenario)]).exit_code == 0
    game = yaml.safe_load(scenario.read_text(encoding="utf-8"))
    hexes = {u["key"]: u["hex"] for u in game["units"]}
    assert (hexes["leopard-c1"], hexes["t-64"]) == ("0208", "0607")            # B7 and F6 when numbered
    los = CliRunner().invoke(main, ["los", str(scenario), "leopard-c1", "t-64"])
    assert los.exit_code == 0 and los.stdout.startswith("LOS 0208 -> 0607: ")


def test_terrain_draft_of_an_unnumbered_board_names_its_hexes_and_says_so(tmp_path: Path) -> None:
    path = unnumbered_module(tmp_path)
    out = tmp_path / "terrain.yaml"
    result = CliRunner().invoke(main, ["terrain", "draft", str(path), "--board", "Eisenbach Sample", "--palette",
                                       str(SAMPLES / "palette.yaml"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[0].startswith("note: board 'Eisenbach Sample': the grid has no numbering")
    text = out.read_text(encoding="utf-8")
    assert text.splitlines()[1].startswith("# Hex names: the grid has no numbering, so VASSAL shows no names there")
    drafted = yaml.safe_load(text)
    assert drafted["hexes"] and all(re.fullmatch(r"\d{4}", h) for hexes in drafted["hexes"].values() for h in hexes)
    assert "0607" in drafted["hexes"]["woods"]                  # the T-64's woods (F6 when numbered)


def test_inspect_module_says_which_grids_wawkit_names() -> None:
    result = CliRunner().invoke(main, ["inspect-module", str(ROOT.parent / "shared" / "corpus" / "dreadball" /
                                                             "buildFile")])
    assert result.stdout.splitlines()[2] == (
        "  board 'Metal Pitch' size unknown: hex grid dx=126.0 dy=144.0 origin=(77,109) sideways, unnumbered "
        "(VASSAL shows no names; wawkit names its cells 0101, 0102...)")


def test_locate_on_a_save_of_an_older_module_version_takes_the_profiles_board_aliases() -> None:
    tld = ROOT.parent / "shared" / "corpus" / "tld-longest-day"
    args = ["locate", str(tld / "buildFile"), "Normandy", "5459", "--save", str(tld / "scenarios" / "scenario_1.sav")]
    bare = CliRunner().invoke(main, args)
    assert bare.exit_code == 2
    assert bare.stderr == (f"wawkit: {tld / 'buildFile'}: map 'Normandy' has no board 'Board F' (boards: Normandy); "
                           "--profile with board_aliases places boards of older module versions\n")
    profile = ["--profile", str(ROOT / "profiles" / "longest-day.yaml")]
    named = CliRunner().invoke(main, [*args, *profile])
    assert (named.exit_code, named.stdout) == (0, "2087 129\n")     # in scenario 1's own pixels (Board F)
    back = CliRunner().invoke(main, [*args[:3], "2087", "129", *args[4:], *profile])
    assert (back.exit_code, back.stdout) == (0, "5459\n")
