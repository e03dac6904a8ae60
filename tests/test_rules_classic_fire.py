"""Classic ranged fire rules from the rule text: reduced range (EG/TUS §6.1.2) and
helicopters attacking with their HE (EG/TUS §9.2)."""
from __future__ import annotations

import pytest

from referee.events import StatusChanged, UnitDisrupted
from tests.case_support import answer, reasons

BOOKS = pytest.mark.parametrize("book, short", [("eisenbach", "EG"), ("untold", "TUS")], ids=["EG", "TUS"])
T72 = {"name": "T-72", "side": "pact", "target_type": "heavy_armor", "ap": {"fp": 4, "to_hit": 5, "range": 7}}
TARGET = {"side": "nato", "target_type": "heavy_armor", "armor": 3, "save": 5, "hex": "t"}


def _fire(book: str, distance: int, firer: dict = T72):
    return answer("classic", book, {"units": {"A": firer, "T": {**TARGET, "distance": distance}},
                                    "hexes": [{"id": "t", "terrain": "clear"}],
                                    "query": {"action": "direct_fire", "unit": "A", "target": "T", "weapon": "ap"}})


@BOOKS
@pytest.mark.parametrize("distance, band, to_hit", [(3, "point_blank", 4), (4, "effective", 5), (8, "long", 6)])
def test_reduced_range_is_half_the_printed_range_dropping_fractions(book: str, short: str, distance: int, band: str,
                                                                    to_hit: int) -> None:
    """EG §6.1.2 ("For T-72 tanks firing AP Firepower at a range of 3 hexes or less, the Hit
    Number is reduced from 5 to 4") and TUS §6.1.2 ("half range (drop fractions) or less"):
    printed 7, so 1-3 at 4, 4-7 at 5, 8-14 at 6 (extended range, §6.1.1)."""
    result, _ = _fire(book, distance)
    assert (result.values["band"], result.values["to_hit"], result.values["max_range"]) == (band, to_hit, 14)
    assert (f"{short} §6.1.1, §6.1.2", f"range {distance} = {band.replace('_', ' ')}") in reasons(result)


@BOOKS
def test_an_underlined_range_has_no_reduced_range_bonus(book: str, short: str) -> None:
    """EG/TUS §6.1.2: only "Weapons that DO NOT have an underlined range factor are more
    accurate when firing at a reduced range"."""
    missile = {**T72, "ap": {**T72["ap"], "range_underlined": True}}
    result, _ = _fire(book, 2, missile)
    assert (result.values["band"], result.values["to_hit"], result.values["max_range"]) == ("effective", 5, 7)


@BOOKS
def test_a_hovering_hind_attacks_armor_with_its_he(book: str, short: str) -> None:
    """EG/TUS §9.2: "Helicopters use their HE firepower to attack any soft or hard target. For
    example, when a hovering Hind fires on an armored vehicle using its HE firepower, it rolls
    four dice and each hits if the roll is five or higher"; the target rolls its armor."""
    hind = {"name": "Hind", "side": "pact", "target_type": "helicopter", "mode": "hovering",
            "he": {"fp": 4, "to_hit": 5, "range": 6}, "armor": 2, "save": 5}
    result, after = answer("classic", book, {"units": {"A": hind, "T": {**TARGET, "distance": 4}},
                                             "hexes": [{"id": "t", "terrain": "clear"}],
                                             "query": {"action": "direct_fire", "unit": "A", "target": "T"}},
                           {"attack": [5, 6, 1, 2], "save": [6, 1, 2]})
    v = result.values
    assert (v["weapon"], v["fp"], v["to_hit"], v["hits"]) == ("he", 4, 5, 2)
    assert (v["armor_dice"], v["save_number"], v["saves"], v["net_hits"]) == (3, 5, 1, 1)
    assert reasons(result)[0] == (f"{short} §9.2", "helicopters attack soft and hard targets with their HE firepower")
    assert result.events == [StatusChanged("A", "ops_complete", True), UnitDisrupted("T")]
    assert after.units["T"].status.disrupted is True


@BOOKS
@pytest.mark.parametrize("mode, legal", [("hovering", False), ("flying", True)])
def test_only_a_flying_helicopter_fires_after_moving(book: str, short: str, mode: str, legal: bool) -> None:
    """EG/TUS §6.1.3.1: "Helicopters can only move when in flying mode": a Hovering Cobra
    said to have moved 4 hexes has not, and makes no Moving Fire; a Flying one may, with no
    modifier (the penalty is in its Flying-side values)."""
    cobra = {"name": "AH-1 Cobra", "side": "pact", "target_type": "helicopter", "mode": mode,
             "he": {"fp": 2, "to_hit": 5, "range": 4}, "status": {"mp_spent": 4}}
    result, _ = answer("classic", book, {"units": {"A": cobra, "T": {**TARGET, "distance": 3, "los": True}},
                                         "hexes": [{"id": "t", "terrain": "clear"}],
                                         "query": {"action": "move_and_fire", "unit": "A", "target": "T",
                                                   "weapon": "he"}})
    assert result.legal is legal
    if legal:
        assert (result.values["to_hit"], result.values["fp"]) == (5, 2)
    else:
        assert result.values["reason_rule"] == "6.1.3.1"
        assert [r.text for r in result.refusals] == ["AH-1 Cobra is hovering: helicopters can only move in Flying "
                                                     "mode, so only a Flying helicopter fires after moving"]


@pytest.mark.parametrize("name, to_hit, fp", [("Leopard II", 5, 3), ("Leopard 2", 5, 3), ("Leopard I", 5, 4),
                                              ("Leopard 1", 5, 4), ("Marder", None, None)])
def test_eg_moving_fire_knows_the_leopards_by_both_spellings(name: str, to_hit: int | None, fp: int | None) -> None:
    """EG §6.1.3 names "Leopard II, Leopard I" among "the only seven units in Eisenbach Gap
    Deluxe that can make Moving Fire"; the Moving Fire Table spells them Leopard 2 (L2: +1 to
    Hit, -1 Firepower) and Leopard 1 (L1: +1 to Hit). A unit not on the list makes none."""
    leopard = {"name": name, "side": "nato", "target_type": "heavy_armor", "mp": 6,
               "ap": {"fp": 4, "to_hit": 4, "range": 8}, "status": {"mp_spent": 2}}
    result, _ = answer("classic", "eisenbach", {"units": {"A": leopard, "T": {**TARGET, "side": "pact", "distance": 5,
                                                                              "los": True}},
                                                "hexes": [{"id": "t", "terrain": "clear"}],
                                                "query": {"action": "move_and_fire", "unit": "A", "target": "T",
                                                          "weapon": "ap"}})
    if to_hit is None:
        assert result.legal is False
        refusals = [(r.section, r.text) for r in result.refusals]
        assert ("EG §6.1.3", f"{name} is not eligible for Moving Fire") in refusals
    else:
        assert result.legal is True
        assert (result.values["to_hit"], result.values["fp"]) == (to_hit, fp)


@BOOKS
@pytest.mark.parametrize("band, legal, to_hit, reason", [
    ("long", False, None, ("§6.1.1", "a weapon with an underlined range cannot fire at extended range")),
    ("point_blank", True, 5, ("§6.1.2", "a weapon with an underlined range gets no reduced-range bonus")),
    ("effective", True, 5, None)])
def test_a_stated_band_an_underlined_range_lacks(book: str, short: str, band: str, legal: bool, to_hit: int | None,
                                                 reason: tuple[str, str] | None) -> None:
    """EG/TUS §6.1.1 "Weapons with an underlined range cannot fire at extended range" and
    §6.1.2 (no reduced-range bonus for them), when the band is stated and the range is not."""
    missile = {**T72, "ap": {"fp": 4, "to_hit": 5, "range_underlined": True}}
    result, _ = answer("classic", book, {"units": {"A": missile, "T": {**TARGET, "los": True}},
                                         "hexes": [{"id": "t", "terrain": "clear"}],
                                         "situation": {"range_band": band},
                                         "query": {"action": "direct_fire", "unit": "A", "target": "T",
                                                   "weapon": "ap"}})
    assert result.legal is legal
    if legal:
        assert result.values["to_hit"] == to_hit
    if reason is not None:
        section, text = reason
        assert (f"{short} {section}", text) in reasons(result) + [(r.section, r.text) for r in result.refusals]


@pytest.mark.parametrize("book, weapon, ammo", [("eisenbach", "he", "none"), ("untold", "he", "depleted_2"),
                                               ("eisenbach", "ap", "depleted_2"), ("untold", "ap", "depleted_2")])
def test_which_underlined_range_makes_a_missile_unit(book: str, weapon: str, ammo: str) -> None:
    """§6.1.4: EG "Missile-firing units are any units with an underlined AP or AA (9.3) range
    value on their counter"; TUS "any units with an underlined range factor that are not mortars
    (1.3.4.3) or on map artillery (8.6)". A shot of that underlined Firepower with no hits
    places Ammo Depleted 2 (TUS: any; EG: not an underlined HE)."""
    team = {"name": "team", "side": "nato", "target_type": "troops", "status": {"ammo": "none"},
            weapon: {"fp": 2, "to_hit": 4, "range": 5, "range_underlined": True}}
    result, after = answer("classic", book, {"units": {"A": team},
                                             "query": {"action": "missile_ammo_check", "unit": "A", "weapon": weapon,
                                                       "hits": 0}})
    assert after.units["A"].status.ammo == ammo
    assert (result.events == []) is (ammo == "none")


@BOOKS
@pytest.mark.parametrize("spent, concealed", [(0, True), (2, False)])
def test_a_unit_that_moved_this_activation_is_not_concealed(book: str, short: str, spent: int, concealed: bool) -> None:
    """EG §6.1.5 "b) it did not move" (TUS §5.0: a unit that moves is marked Ops Complete, (a)):
    infantry in Woods that spent MPs this activation is not concealed, even stopped."""
    target = {"side": "nato", "target_type": "troops", "hex": "t",
              "status": {"ops_complete": False, "moving": False, "mp_spent": spent}}
    result, _ = answer("classic", book, {"units": {"T": target}, "hexes": [{"id": "t", "terrain": "woods"}],
                                         "query": {"action": "concealment", "target": "T"}})
    assert result.values["concealed"] is concealed
    if not concealed:
        assert (f"{short} §6.1.5, §5.0", "T has moved this activation: not concealed") in reasons(result)


@BOOKS
def test_an_attack_with_no_range_stated_takes_no_range_modifier(book: str, short: str) -> None:
    """No distance, no band and no hexes to count one on: the T-72 fires at its printed To-Hit 5
    with its 4 dice and rolls them (the reason says no range was stated), as the books' examples
    are worded (EG/TUS §9.2 "rolls four dice and each hits if the roll is five or higher")."""
    result, _ = answer("classic", book, {"units": {"A": T72, "T": TARGET},
                                         "hexes": [{"id": "t", "terrain": "clear"}],
                                         "query": {"action": "direct_fire", "unit": "A", "target": "T", "weapon": "ap"}},
                       {"attack": [5, 4, 6, 1], "save": [5, 1, 1, 2]})
    v = result.values
    assert (v["legal"], v["to_hit"], v["fp"], v["hits"], v["saves"], v["net_hits"]) == (True, 5, 4, 2, 1, 1)
    assert "band" not in v and "range" not in v
    assert (f"{short} §6.1.1, §6.1.2", "no range stated: no range modifier applies to the To-Hit") in reasons(result)


@BOOKS
def test_the_fp_is_known_without_the_printed_to_hit_unless_a_modifier_could_pass_six(book: str, short: str) -> None:
    """§6.1.3 takes FP for To-Hit points past 6; a printed To-Hit is a number on a d6, so with no
    modifier raising it nothing is past 6 and an HQ's leadership simply adds (§1.3.3.2). Extended
    range's +1 (§6.1.1) could pass 6, so then the FP waits for the printed To-Hit."""
    firer = {"name": "tank", "side": "pact", "target_type": "heavy_armor", "ap": {"fp": 4}, "hex": "x"}
    hq = {"target_type": "hq", "side": "pact", "leadership": 1, "hex": "x"}
    position = {"units": {"H": hq, "A": firer, "T": TARGET}, "hexes": [{"id": "t", "terrain": "clear"}],
                "query": {"action": "direct_fire", "unit": "A", "target": "T", "weapon": "ap", "bonus_from": ["H"]}}
    result, _ = answer("classic", book, position)
    assert result.values["fp"] == 5
    assert "to_hit" not in result.values
    result, _ = answer("classic", book, {**position, "situation": {"range_band": "long"}})
    assert "fp" not in result.values
    assert any(gap.startswith("not stated: units.A.ap.to_hit") for gap in result.gaps.values())
@pytest.mark.parametrize("name, legal", [("Leopard II", True), ("Leopard 2", True), ("Abrams", True), ("T-72", False)])
def test_eg_advanced_imaging_knows_the_leopard_2_by_both_spellings(name: str, legal: bool) -> None:
    """EG §8.2: Smoke blocks LOS "EXCEPT for the units listed in the Advanced Imaging column of
    the Moving Fire Table ... — the American Abrams, Bradley, ITV, Milan, TOW, Leopard I, and
    Leopard II"; the table spells it "Leopard 2". A unit both lists name sees through the Smoke
    at +1 to hit (6 hexes of range 8: 4 + 1 = 5); the T-72 is in neither."""
    firer = {"name": name, "side": "nato", "level": 0, "ap": {"fp": 3, "to_hit": 4, "range": 8}}
    target = {**TARGET, "side": "pact", "level": 0, "distance": 6, "adjacent": False}
    result, _ = answer("classic", "eisenbach", {"units": {"A": firer, "T": target},
                                                "hexes": [{"id": "t", "terrain": "clear", "markers": []}],
                                                "situation": {"intervening": [{"terrain": "clear",
                                                                               "markers": ["smoke_2"]}]},
                                                "query": {"action": "direct_fire", "unit": "A", "target": "T",
                                                          "weapon": "ap"}})
    assert result.legal is legal
    if legal:
        assert result.values["to_hit"] == 5
        assert ("EG §8.2", "thermal sights through Smoke: to_hit +1") in reasons(result)
    else:
        assert [(r.section, r.text) for r in result.refusals] == [
            ("EG §8.2", "no line of sight to T: Smoke blocks the LOS through a hex between")]
