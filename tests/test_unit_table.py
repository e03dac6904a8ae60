"""Unit tables: both printed sides of a counter, from YAML tables and from a module's CSV counter list."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from converter.errors import SchemaError
from converter.profile import read_profile
from converter.unit_table import read_unit_table, table_from_csv, table_from_document
from referee.model import AssaultValue, UnitType, Weapon

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
TLD = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "tld-longest-day"


def entry(**values) -> dict:
    return {"table": "t", "units": {"u": {"name": "U", "sources": {"other": "sample data"}, **values}}}


def test_reduced_side_values_and_the_counters_own_facts() -> None:
    table = table_from_document(entry(target_type="troops", steps=2, abilities=["recon"], cost=7,
                                      he={"fp": 3, "to_hit": 4, "range": 3}, assault={"fp": 3, "to_hit": 4},
                                      mp=1, reduced={"he": {"fp": 2, "to_hit": 4, "range": 3}, "mp": 1}))
    utype = table.get("u").type
    assert utype.reduced == UnitType(name="U", target_type="troops", steps=2, abilities=frozenset({"recon"}),
                                     cost=7, he=Weapon(2, 4, 3), mp=1, printed=True)
    assert utype.reduced.lacks("assault")                 # the reduced side prints no Assault Factor
    assert utype.printed and not utype.lacks("assault") and utype.lacks("ap")
    assert utype.side("reduced") is utype.reduced and utype.side("full") is utype


def test_two_steps_without_a_reduced_section_have_no_stated_reduced_values() -> None:
    utype = table_from_document(entry(steps=2, ap={"fp": 4, "to_hit": 4, "range": 6}, armor=3)).get("u").type
    assert utype.reduced == UnitType(name="U", steps=2)      # not stated, so not known to lack anything
    assert not utype.reduced.lacks("ap") and utype.lacks("he")
    one_step = table_from_document(entry(steps=1, ap={"fp": 4, "to_hit": 4, "range": 6})).get("u").type
    assert one_step.reduced is None
    unstated = table_from_document(entry(ap={"fp": 4})).get("u").type
    assert unstated.reduced is None


@pytest.mark.parametrize("reduced, message", [
    ({"name": "other"}, "Additional properties are not allowed ('name' was unexpected)"),
    ({"save": 9}, "9 is greater than the maximum of 7"),
    ({"ap": {"fp": -1}}, "-1 is less than the minimum of 0"),
])
def test_a_bad_reduced_section_is_a_schema_error(reduced: dict, message: str) -> None:
    with pytest.raises(SchemaError) as caught:
        table_from_document(entry(steps=2, reduced=reduced), file="units.yaml")
    assert message in str(caught.value)
    assert "units.u.reduced" in str(caught.value) and "units.yaml" in str(caught.value)


def _sample_units():
    spec = importlib.util.spec_from_file_location("waw_sample_build_units", SAMPLES / "build.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.UNITS


def test_sample_table_reduced_sides_match_the_counters_drawn() -> None:
    """Each back drawn by samples/build.py ("FP-To Hit Armor") is a weapon of the reduced side; armor is kept."""
    table = read_unit_table(SAMPLES / "units.yaml")
    checked = 0
    for slot in _sample_units():
        utype = table.get(slot.key).type
        if slot.back.startswith("HQ"):
            assert utype.reduced is None and utype.steps == 1
            continue
        values, armor = slot.back.split(" ")
        fp, to_hit = (int(v) for v in values.split("-"))
        reduced = utype.reduced
        printed = [w for w in (reduced.ap, reduced.he, reduced.aa) if w is not None]
        assert any((w.fp, w.to_hit) == (fp, to_hit) for w in printed), slot.key
        assert armor == slot.front.split(" ")[1] and reduced.armor == utype.armor, slot.key   # armor is not lost
        assert reduced != utype.side("full"), slot.key
        checked += 1
    assert checked == 13
    leopard = table.get("leopard-c1").type
    assert (leopard.ap, leopard.reduced.ap) == (Weapon(4, 4, 6, colour="black"), Weapon(2, 4, 6, colour="black"))
    assert table.get("us-infantry").type.reduced.assault == AssaultValue(3, 4)


def test_longest_day_back_faces_from_faces_csv() -> None:
    profile = read_profile(ROOT / "profiles" / "longest-day.yaml")
    table = read_unit_table(TLD / "faces.csv", profile.unit_table)
    with_back = [e for e in table.entries.values() if e.type.reduced is not None]
    assert len(with_back) == 988                          # rows with a back-face image (bid)
    recce = table.get("3")                                # 10ss recce: 5-5-8-3 front, 2-3-8-3 back, bid 2071
    assert (recce.type.mp, recce.type.reduced.mp, recce.type.reduced.name) == (8, 8, recce.type.name)
    assert (recce.factors["o"], recce.factors["o#2"]) == (5, 2)
    assert table.get("0").type.reduced is None            # I/101: one face, strength not stated


def test_csv_reduced_columns_must_exist() -> None:
    spec = {"key": "fid", "name": ["name"], "reduced": {"when": "bid", "mp": "m2"}}
    with pytest.raises(SchemaError, match=r"no column\(s\) \['bid', 'm2'\]"):
        table_from_csv("fid,name\n1,A\n", spec, file="faces.csv")
    table = table_from_csv("fid,name,m,bid,m2\n1,A,4,,\n2,B,4,9,2\n3,C,4,9,x\n",
                           {**spec, "mp": "m"}, file="faces.csv")
    assert [table.get(k).type.reduced for k in "123"] == [None, UnitType(name="B", mp=2), UnitType(name="C")]
