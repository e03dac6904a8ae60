"""The referee's LOS answers on 6,500 sampled pairs, against the answers recorded before the
integer line walk (``tests/data/los_recorded.json``: two seeded 40x30 boards, the 2,000 pairs
of the LOS benchmark's board and 4,500 on a board with hills, crest lines, woods, cities,
rough, shattered forest, Wrecks and Smoke; ground units under both books and a flying
helicopter).

The line walk changed no answer. The rule fixes made with it changed 25, each listed below
with the rule that decides it now:

* §7.3 "the second Rough hex, or combination of Rough hexes and hexes containing Wrecks is
  considered blocking terrain": a string between two rough/wreck hexes, or between a
  blocking hex and a second rough/wreck hex, is blocked (the old code counted only hexes
  the TEC says block by themselves);
* §7.3 between hill-level units and from a hill down (§7.2) or from a helicopter (§9.4):
  the hexes beside the string block as they would if it passed through them, so two woods
  hexes not directly in front of a ground target no longer block a unit looking down (the
  old code judged every hexside by the ground-level column);
* §8.2 with §7.3: a string from a Smoke hex that runs between two of its neighbours runs
  between two hexes the Smoke screens.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import pytest

from referee.actions import make_action
from referee.hexes import Hex, HexLayout
from referee.model import Game, HexState, Unit, UnitType
from referee.rulesets import get_ruleset

RECORDED = Path(__file__).parent / "data" / "los_recorded.json"
LAYOUT = HexLayout.regular(64)
TERRAIN = {".": "clear", "r": "rough", "w": "woods", "c": "city", "u": "city_ruins", "h": "hill",
           "H": "wooded_hill", "s": "shattered_forest"}
TROOPS = UnitType(name="infantry", target_type="troops")
HELICOPTER = UnitType(name="Apache", target_type="helicopter")

#: The recorded answers the fixes changed: (set, "FROM TO") -> (blocked now, deciding section).
CHANGED = {
    ("bench", "untold", "troops"): {
        "0310 1710": (True, "7.3"),     # between two rough hexes (1409, 1410)
    },
    ("rich", "untold", "troops"): {
        "1713 2913": (True, "7.3"),     # passes rough 1913; then between hill 2812 and shattered forest 2813
        "3407 3900": (True, "7.3"),     # passes rough 3506; then between rough 3406 and city ruins 3507
        "0307 0916": (True, "7.3"),     # between two rough hexes
        "2414 2617": (True, "7.3"),     # between two rough hexes
        "2110 2405": (True, "7.3"),     # between a Wreck hex and shattered forest
        "2009 2209": (True, "7.3"),     # between a Wreck hex and rough
        "1421 3021": (False, "7.2"),    # hill to hill: two hill hexes beside the string do not block
        "1318 1613": (False, "7.2"),    # down from a hill: the hexes beside are the attacker's own hill
        "1319 2719": (False, "7.2"),    # down from a hill: two woods four hexes before the target
        "2823 3229": (False, "7.2"),    # down from a hill: blocking-level terrain that does not hide the target
    },
    ("rich", "eisenbach", "helicopter"): {
        "3217 3611": (True, "8.2"),     # from the Smoke hex 3217, between two of its neighbours
        "0317 0809": (False, "9.4"),    # two cities beside the string, 3 and 4 hexes before the target
        "1924 2416": (False, "9.4"),
        "2510 3525": (False, "9.4"),
    },
}
CHANGED["rich", "eisenbach", "troops"] = CHANGED["rich", "untold", "troops"]


@lru_cache(maxsize=None)
def recorded() -> dict:
    return json.loads(RECORDED.read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def board(name: str) -> dict[str, HexState]:
    data = recorded()["boards"][name]
    hexes = {}
    for row, line in enumerate(data["terrain"]):
        for col, code in enumerate(line):
            hex_id = f"{col:02d}{row:02d}"
            hexes[hex_id] = HexState(hex_id, terrain=TERRAIN[code], at=Hex.from_offset(col, row, LAYOUT),
                                     markers=frozenset(data["markers"].get(hex_id, ())),
                                     hexsides={d: frozenset({"crest"}) for d in data["crest"].get(hex_id, ())})
    return hexes


def answers_now(entry: dict) -> list[tuple[bool | None, str]]:
    hexes = board(entry["board"])
    ruleset = get_ruleset("classic", entry["book"])
    attacker = HELICOPTER if entry["attacker"] == "helicopter" else TROOPS
    action = make_action("los", unit="A", target="B")
    found = []
    for answer in entry["answers"]:
        a, b = answer.split()[:2]
        game = Game(units={"A": Unit("A", attacker, side="nato", hex=a, mode="flying"),
                           "B": Unit("B", TROOPS, side="pact", hex=b)}, hexes=hexes)
        verdict = ruleset.check(game, action)
        section = verdict.reasons[0].section.split("§")[-1] if verdict.reasons else "?"
        found.append((verdict.values.get("blocked"), section))
    return found


@pytest.mark.parametrize("index", range(4), ids=["bench-untold", "rich-untold", "rich-eisenbach", "rich-helicopter"])
def test_the_same_answers_as_recorded_but_for_the_rule_fixes(index: int) -> None:
    entry = recorded()["sets"][index]
    key = (entry["board"], entry["book"], entry["attacker"])
    changed = {}
    for answer, (blocked, section) in zip(entry["answers"], answers_now(entry)):
        a, b, was, _ = answer.split()
        before = None if was == "?" else was == "1"
        if blocked != before:
            changed[f"{a} {b}"] = (blocked, section)
    assert changed == CHANGED[key]


def test_the_recording_is_the_benchmark_sample() -> None:
    """2,000 pairs within 20 hexes (adjacent ones too) of the benchmark's 40x30 board, 1,482 of them
    blocked then."""
    entry = recorded()["sets"][0]
    assert len(entry["answers"]) == 2000 and entry["board"] == "bench"
    assert sum(answer.split()[2] == "1" for answer in entry["answers"]) == 1482
    hexes = board("bench")
    for answer in entry["answers"]:
        a, b = answer.split()[:2]
        assert 1 <= hexes[a].at.distance(hexes[b].at) <= 20
