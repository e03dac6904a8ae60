"""A played game: two full turns on the sample module under each book, through the CLI.

The position is the sample save's units set for a meeting engagement around the D5
crossroads (``crossroads``: imported from samples/demo.vsav, units moved, an M1 Abrams
added, exported as a new save: the migrate job). Each step is ``wawkit resolve`` on the
previous step's save with the dice a player rolled in VASSAL (``--dice``); a step's save is
then validated (``wawkit validate``: clean) and the next step starts from it. A refused
step writes nothing and the game goes on from the same save. Every action kind is played:
move, fire with AP and HE, opportunity fire at a mover, move-and-fire, an assault whose
defender retreats (and a retreat into a hex the rules forbid), an overrun refused for want
of an Assault Factor, artillery on target, scattered and with smoke, rally, a command check,
and the Marker Removal Phase ending each turn.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from converter.cli import main
from converter.resolve import read_position

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
MODULE = SAMPLES / "waw-sample.vmod"
PROFILES = {"untold": (SAMPLES / "profile.yaml", ()),
            "eisenbach": (SAMPLES / "profile.yaml", ("--ruleset", "classic:eisenbach")),
            "waw85": (SAMPLES / "profile-waw85.yaml", ())}
#: Where each unit of the sample save stands in the played position.
CROSSROADS = {"bmp-1": "G5", "leopard-c1": "C5", "m113": "C6", "soviet-hq": "H5", "soviet-infantry": "E5",
              "t-64": "F6", "us-hq": "B6", "us-infantry": "D5"}


def cli(*args: object) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def start(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The crossroads position as a save of the sample module, made with import and export."""
    folder = tmp_path_factory.mktemp("crossroads")
    common = ("--module", MODULE, "--profile", SAMPLES / "profile.yaml")
    code, _ = cli("import", SAMPLES / "demo.vsav", *common, "-o", folder / "demo.yaml")
    assert code == 0
    scenario = yaml.safe_load((folder / "demo.yaml").read_text(encoding="utf-8"))
    for unit in scenario["units"]:
        unit["hex"] = CROSSROADS[unit["key"]]
        unit.pop("status", None)
    table = yaml.safe_load((SAMPLES / "units.yaml").read_text(encoding="utf-8"))["units"]
    # Units the save lacks, their types as import writes unit-table types: an Abrams, and a unit
    # of each HQ's Formation for the HQ to stand with (EG/TUS §1.3.3.1, WaW85 §7.2.2).
    for key, side, nation, formation, hex_id in (("m1-abrams", "NATO", "US", "2/11 ACR", "B5"),
                                                 ("tow-jeep", "NATO", "US", "2/11 ACR", "B6"),
                                                 ("btr-70", "Warsaw Pact", "Soviet", "79 GTD", "H5")):
        utype = {k: v for k, v in table[key].items() if k != "sources"}
        if "reduced" in utype:
            utype["reduced"] = {**{k: v for k, v in utype.items() if k != "reduced"}, **utype["reduced"],
                                "printed": True}
        scenario["unit_types"][key] = {**utype, "printed": True}
        scenario["units"].append({"key": key, "type": key, "side": side, "nation": nation,
                                  "formation": formation, "hex": hex_id, "strength": "full"})
    plain = json.loads(json.dumps(scenario))           # no shared nodes: wawkit refuses YAML aliases
    (folder / "crossroads.yaml").write_text(yaml.safe_dump(plain, sort_keys=False), encoding="utf-8")
    code, out = cli("export", folder / "crossroads.yaml", *common, "-o", folder / "crossroads.vsav")
    assert (code, out) == (0, f"11 units -> new save {folder / 'crossroads.vsav'}\n")
    return folder / "crossroads.vsav"


class Game:
    """One book's game: each step resolves on the save the last accepted step wrote."""

    def __init__(self, book: str, start: Path, folder: Path) -> None:
        self.profile, self.ruleset = PROFILES[book]
        self.save, self.folder, self.count = start, folder, 0

    def play(self, *actions: str, dice: str = "") -> tuple[int, list[str]]:
        """Resolve ``actions`` with ``dice``; the report's lines without the rolls and totals
        (each step's rolls are its given dice); an accepted step's save must validate clean."""
        self.count += 1
        out = self.folder / f"step{self.count}.vsav"
        args: list[object] = ["resolve", self.save, "--module", MODULE, "--profile", self.profile, *self.ruleset,
                              "-o", out]
        for action in actions:
            args += ["--action", action]
        if dice:
            args += ["--dice", dice]
        code, output = cli(*args)
        lines = [line for line in output.splitlines()
                 if not line.startswith(("  roll ", "  totals:", "wrote ", "note: "))]
        if code == 0:
            checked, report = cli("validate", out, "--module", MODULE, "--profile", self.profile, *self.ruleset)
            assert (checked, report) == (0, f"{out}: clean\n")
            self.save = out
        else:
            assert not out.exists()
        return code, lines

    def units(self) -> dict[str, tuple[str | None, str | None, bool, bool]]:
        """Each unit's (hex, strength, Disrupted, Ops Complete), read back from the last save."""
        game = read_position(self.save, MODULE, self.profile).game
        return {k: (u.hex if u.on_map else u.location, u.strength, u.status.disrupted, u.status.ops_complete)
                for k, u in sorted(game.units.items())}


# -- the games: (actions, dice, exit code, the report's result line or its first refusal) -----
# Read against the books when written: e.g. TUS §6.1 example's Leopard at To Hit 4-1 at point
# blank; §6.3 a defender taking more hits retreats one hex, F4 its only legal hex; §6.2 the
# M113 hit by Opportunity Fire stops and is Ops Complete; §8.0 a 6 strays to the hex the
# opponent designates, two missions per side; §6.4 an AFV without an Assault Factor cannot
# overrun; WaW85 §9.0 MP from the transcribed chart, §13.2.2 three retreat hexes.
UNTOLD = [
    (('fire leopard-c1 t-64 ap',), '4,4,5,1,1,2,3,6,6', 0, ['  result: Leopard C1 is Ops Complete; T-64 is Disrupted']),
    (('fire m113 soviet-infantry he',), '5,5', 1, ['  no line of sight to Soviet Infantry: Smoke blocks the LOS into E5, next to the Smoke in E4 (TUS §8.2)']),
    (('assault us-infantry soviet-infantry retreat=D4',), '4,1,1,1,1', 1, ['  D4 is not a hex the defenders may retreat into (legal: F4) (TUS §6.3)']),
    (('assault us-infantry soviet-infantry retreat=F4',), '4,1,1,1,1', 0, ['  result: US Infantry moves to E5; Soviet Infantry is Disrupted; Soviet Infantry moves to F4; Soviet Infantry is Ops Complete; US Infantry is Ops Complete']),
    (('move m113 D6', 'opfire bmp-1 m113 ap'), '5,5,1', 0, ['  result: M113 moves to D6; M113 is Ops Complete; M113 is moving', '  result: BMP-1 is Ops Complete; M113 is Disrupted; M113 is Reduced; M113 is no longer moving; M113 is Ops Complete; M113 is attacked by Opportunity Fire in this hex']),
    (('artillery us-hq G5 he fp=4 to_hit=5',), '3,5,5,1,1,2', 0, ['  result: NATO: 1 fire mission(s) used, 1 left; BMP-1 is Disrupted']),
    (('rally t-64',), '3,3', 0, ['  result: T-64 rallies']),
    (('command soviet-infantry',), '', 0, ['  result: no effect']),
    (('overrun t-64 us-infantry path=F5',), '', 1, ['  T-64 has no Assault Factor and cannot overrun (TUS §6.4)']),
    (('markers',), '', 0, ['  result: BMP-1 is no longer Ops Complete; Leopard C1 is no longer Ops Complete; M113 is no longer Ops Complete; Soviet Infantry is no longer Ops Complete; US Infantry is no longer Ops Complete; smoke_2 flipped to smoke_1 in E4']),
    (('fire t-64 leopard-c1 he',), '5,5,1,1,1', 0, ['  result: T-64 is Ops Complete; Leopard C1 is Disrupted; Leopard C1 is Reduced']),
    (('movefire m1-abrams t-64 ap path=C5',), '6,6,6,1,1,1,1,1,2,2', 0, ['  result: M1 Abrams moves to C5; M1 Abrams is Ops Complete; T-64 is Disrupted; T-64 is Reduced; T-64 is eliminated; Wrecks marker placed in F6']),
    (('rally t-64',), '3,3', 1, ['  T-64 is eliminated: it is out of play (TUS §6.1.7)']),
    (('artillery us-hq G5 he fp=4 to_hit=5 scatter=G4',), '6,5,5,5,1', 0, ['  result: NATO: 1 fire mission(s) used, 0 left']),
    (('artillery us-hq G5 smoke',), '', 1, ['  NATO: 0 fire mission(s) left, 1 called (TUS §8.0)']),
    (('artillery soviet-hq F5 smoke',), '2', 0, ['  result: Warsaw Pact: 1 fire mission(s) used, 1 left; Smoke 2 marker placed in F5']),
    (('rally m113',), '6,6', 0, ['  result: no effect']),
    (('move us-infantry F5',), '', 0, ['  result: US Infantry moves to F5; US Infantry is Ops Complete; US Infantry is moving']),
    (('markers',), '', 0, ['  result: M1 Abrams is no longer Ops Complete; US Infantry is no longer Ops Complete; Smoke 1 marker removed from E4; smoke_2 flipped to smoke_1 in F5']),
]
UNTOLD_END = {'bmp-1': ('G5', 'full', True, False),
 'btr-70': ('H5', 'full', False, False),
 'leopard-c1': ('C5', 'reduced', True, False),
 'm1-abrams': ('C5', 'full', False, False),
 'm113': ('D6', 'reduced', True, False),
 'soviet-hq': ('H5', 'full', False, False),
 'soviet-infantry': ('F4', 'full', True, False),
 't-64': ('eliminated', 'reduced', True, True),
 'tow-jeep': ('B6', 'full', False, False),
 'us-hq': ('B6', 'full', False, False),
 'us-infantry': ('F5', 'full', False, False)}
EISENBACH = [
    (('fire leopard-c1 t-64 ap',), '4,4,5,1,1,2,3,6,6', 0, ['  result: Leopard C1 is Ops Complete; T-64 is Disrupted']),
    (('fire m113 soviet-infantry he',), '5,5', 1, ['  no line of sight to Soviet Infantry: Smoke blocks the LOS into E5, next to the Smoke in E4 (EG §8.2)']),
    (('assault us-infantry soviet-infantry retreat=D4',), '4,1,1,1,1', 1, ['  D4 is not a hex the defenders may retreat into (legal: F4) (EG §6.3)']),
    (('assault us-infantry soviet-infantry retreat=F4',), '4,1,1,1,1', 0, ['  result: US Infantry moves to E5; Soviet Infantry is Disrupted; Soviet Infantry moves to F4; Soviet Infantry is Ops Complete; US Infantry is Ops Complete']),
    (('move m113 D6', 'opfire bmp-1 m113 ap'), '5,5,1', 0, ['  result: M113 moves to D6; M113 is Ops Complete; M113 is moving', '  result: BMP-1 is Ops Complete; M113 is Disrupted; M113 is Reduced; M113 is no longer moving; M113 is Ops Complete; M113 is attacked by Opportunity Fire in this hex']),
    (('artillery us-hq G5 he fp=4 to_hit=5',), '3,5,5,1,1,2', 0, ['  result: NATO: 1 fire mission(s) used, 1 left; BMP-1 is Disrupted']),
    (('rally t-64',), '3,3', 0, ['  result: T-64 rallies']),
    (('command soviet-infantry',), '', 0, ['  result: no effect']),
    (('overrun t-64 us-infantry path=F5',), '', 1, ['  T-64 has no Assault Factor and cannot overrun (EG §6.4)']),
    (('markers',), '', 0, ['  result: BMP-1 is no longer Ops Complete; Leopard C1 is no longer Ops Complete; M113 is no longer Ops Complete; Soviet Infantry is no longer Ops Complete; US Infantry is no longer Ops Complete; smoke_2 flipped to smoke_1 in E4']),
    (('fire t-64 leopard-c1 he',), '5,5,1,1,1', 0, ['  result: T-64 is Ops Complete; Leopard C1 is Disrupted; Leopard C1 is Reduced']),
    (('movefire m1-abrams t-64 ap path=C5',), '6,6,6,1,1,1,1,1,2,2', 0, ['  result: M1 Abrams moves to C5; M1 Abrams is Ops Complete; T-64 is Disrupted; T-64 is Reduced; T-64 is eliminated; Wrecks marker placed in F6']),
    (('rally t-64',), '3,3', 1, ['  T-64 is eliminated: it is out of play (EG §6.1.7)']),
    (('artillery us-hq G5 he fp=4 to_hit=5 scatter=G4',), '6,5,5,5,1', 0, ['  result: NATO: 1 fire mission(s) used, 0 left']),
    (('artillery us-hq G5 smoke',), '', 1, ['  NATO: 0 fire mission(s) left, 1 called (EG §8.0)']),
    (('artillery soviet-hq F5 smoke',), '2', 0, ['  result: Warsaw Pact: 1 fire mission(s) used, 1 left; Smoke 2 marker placed in F5']),
    (('rally m113',), '6,6', 0, ['  result: no effect']),
    (('move us-infantry F5',), '', 0, ['  result: US Infantry moves to F5; US Infantry is Ops Complete; US Infantry is moving']),
    (('markers',), '', 0, ['  result: M1 Abrams is no longer Ops Complete; US Infantry is no longer Ops Complete; Smoke 1 marker removed from E4; smoke_2 flipped to smoke_1 in F5']),
]
EISENBACH_END = {'bmp-1': ('G5', 'full', True, False),
 'btr-70': ('H5', 'full', False, False),
 'leopard-c1': ('C5', 'reduced', True, False),
 'm1-abrams': ('C5', 'full', False, False),
 'm113': ('D6', 'reduced', True, False),
 'soviet-hq': ('H5', 'full', False, False),
 'soviet-infantry': ('F4', 'full', True, False),
 't-64': ('eliminated', 'reduced', True, True),
 'tow-jeep': ('B6', 'full', False, False),
 'us-hq': ('B6', 'full', False, False),
 'us-infantry': ('F5', 'full', False, False)}
WAW85 = [
    (('fire leopard-c1 t-64 ap',), '4,4,5,1,1,2,3,6,6', 0, ['  result: Leopard C1 is Ops Complete; T-64 is Disrupted']),
    (('move m113 D6', 'opfire bmp-1 m113 ap'), '5,5,1', 0, ['  result: M113 moves to D6; M113 is Ops Complete; M113 is moving', '  result: BMP-1 is Ops Complete; M113 is Disrupted; M113 is Reduced; M113 is no longer moving; M113 is Ops Complete; M113 is attacked by Opportunity Fire in this hex']),
    (('assault us-infantry soviet-infantry retreat=D4',), '4,1,1,1,1', 1, ['  D4 is not a hex the defenders may retreat into (legal: E4, F4, F5) (WaW85 §13.2.2)']),
    (('assault us-infantry soviet-infantry retreat=F4',), '4,1,1,1,1', 0, ['  result: US Infantry moves to E5; Soviet Infantry is Disrupted; Soviet Infantry moves to F4; Soviet Infantry is Ops Complete; US Infantry is Ops Complete']),
    (('artillery us-hq G5 he fp=4 to_hit=5',), '3,5,5,1,1,2', 0, ['  result: BMP-1 is Disrupted; BMP-1 is Reduced']),
    (('rally t-64',), '5,6', 0, ['  result: no effect']),
    (('overrun t-64 us-infantry path=F5',), '', 1, ['  T-64 has no Assault Factor and cannot overrun (WaW85 §13.0)']),
    (('markers',), '', 0, ['  result: BMP-1 is no longer Ops Complete; Leopard C1 is no longer Ops Complete; M113 is no longer Ops Complete; Soviet Infantry is no longer Ops Complete; US Infantry is no longer Ops Complete; Smoke marker removed from E4; Smoke Thinning marker placed in E4']),
    (('fire t-64 leopard-c1 he',), '5,5,1,1,1', 1, ['  T-64 is Disrupted and cannot fire (WaW85 §10.0)']),
    (('movefire m1-abrams t-64 ap path=C5',), '6,6,6,1,1,1,1,1,2,2', 0, ['  result: M1 Abrams moves to C5; M1 Abrams is Ops Complete; T-64 is Reduced; T-64 is eliminated; Wrecks marker placed in F6']),
    (('artillery us-hq G5 he fp=4 to_hit=5 scatter=G4',), '6,5,5,5,1', 0, ['  result: no effect']),
    (('artillery soviet-hq F5 smoke',), '2', 0, ['  result: Smoke marker placed in F5']),
    (('move leopard-c1 D4 E4',), '', 0, ['  result: Leopard C1 moves to E4; Leopard C1 is Ops Complete; Leopard C1 is moving']),
    (('move m1-abrams C5 D5 E5 F5 G5',), '', 1, ['  M1 Abrams is Ops Complete: it has completed its Action (WaW85 §7.6)']),
    (('markers',), '', 0, ['  result: Leopard C1 is no longer Ops Complete; M1 Abrams is no longer Ops Complete; Smoke Thinning marker removed from E4; Smoke marker removed from F5; Smoke Thinning marker placed in F5']),
]
WAW85_END = {'bmp-1': ('G5', 'reduced', True, False),
 'btr-70': ('H5', 'full', False, False),
 'leopard-c1': ('E4', 'full', False, False),
 'm1-abrams': ('C5', 'full', False, False),
 'm113': ('D6', 'reduced', True, False),
 'soviet-hq': ('H5', 'full', False, False),
 'soviet-infantry': ('F4', 'full', True, False),
 't-64': ('eliminated', 'reduced', True, False),
 'tow-jeep': ('B6', 'full', False, False),
 'us-hq': ('B6', 'full', False, False),
 'us-infantry': ('E5', 'full', False, False)}

GAMES = {"untold": (UNTOLD, UNTOLD_END), "eisenbach": (EISENBACH, EISENBACH_END), "waw85": (WAW85, WAW85_END)}


@pytest.mark.parametrize("book", sorted(GAMES))
def test_two_turns_played_through_the_cli(book: str, start: Path, tmp_path: Path) -> None:
    steps, end = GAMES[book]
    game = Game(book, start, tmp_path)
    played = []
    for actions, dice, _, _ in steps:
        code, lines = game.play(*actions, dice=dice)
        key = [line for line in lines if line.startswith("  result: ")] if code == 0 else lines[1:2]
        played.append((actions, dice, code, key))
    assert played == steps
    assert game.units() == end


def test_every_action_kind_is_played_under_each_book() -> None:
    """move, fire AP and HE, opportunity fire, move-and-fire, assault with a retreat, overrun,
    artillery (on target, scattered, smoke), rally, command and the Marker Removal Phase."""
    verbs = {"move", "fire", "opfire", "movefire", "assault", "overrun", "artillery", "rally", "markers"}
    for book, (steps, _) in GAMES.items():
        played = {action.split()[0] for actions, _, _, _ in steps for action in actions}
        assert verbs <= played, book
        assert {"ap", "he"} <= {a.split()[-1] for actions, _, _, _ in steps for a in actions if a.startswith("fire ")}
        assert any("retreat" in a for actions, _, code, _ in steps if code == 0 for a in actions)
        assert any("scatter=" in a for actions, _, code, _ in steps if code == 0 for a in actions)
        assert any(a.endswith(" smoke") for actions, _, code, _ in steps if code == 0 for a in actions)
    assert any(a.startswith("command") for actions, _, code, _ in UNTOLD if code == 0 for a in actions)
