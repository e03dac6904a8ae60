"""The classic World at War ruleset (Eisenbach Gap, The Untold Stories).

The two books share one system; their differences are :class:`~referee.ruleset.Params`
values chosen by the book flag, and the Untold Stories additions (leaders, conditional
morale, airstrikes...) are features the Eisenbach Gap flag does not switch on.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

import yaml

from referee import artillery as shared_artillery
from referee import assault, damage, fire, los
from referee.classic import air, artillery, close_combat, movement, phases
from referee.classic import command as morale
from referee.classic import ranged as classic_fire
from referee.errors import NotSupported, RefereeError
from referee.ruleset import Params, Procedure, Ruleset, answers_not_supported
from referee.tec import DATA

BOOKS = ("eisenbach", "untold")

UNTOLD_FEATURES = frozenset({
    "leaders", "conditional_morale", "jamming", "augmented_assault", "improved_positions",
    "mlrs", "on_map_artillery", "airstrikes", "air_cover", "popup", "towed_transport",
    "tank_support_weapons", "bridge_units", "battlefield_chaos", "amphibious"})

PROCEDURES: dict[str, Procedure] = {
    "direct_fire": fire.direct_fire,
    "opportunity_fire": fire.opportunity_fire,
    "move_and_fire": fire.move_and_fire,
    "defense": classic_fire.defense,
    "concealment": fire.concealment,
    "missile_ammo_check": classic_fire.missile_ammo_check,
    "apply_damage": damage.apply_damage,
    "los": los.line_of_sight,
    "los_height": los.los_height,
    "assault": assault.assault,
    "overrun": close_combat.overrun,
    "retreat": assault.retreat_action,
    "counterattack": assault.counterattack,
    "place_marker": artillery.place_marker,
    "indirect_fire": shared_artillery.indirect_fire,
    "minefield_attack": artillery.minefield_attack,
    "chemical_attack": morale.chemical_attack,
    "morale_check": morale.morale_check,
    "conditional_morale": morale.conditional_morale,
    "command_check": morale.command_check,
    "rally": morale.rally,
    "move": movement.move,
    "load": movement.load,
    "unload": movement.unload,
    "stacking": movement.stacking,
    "airstrike": air.airstrike,
    "aa_fire": air.aa_fire,
    "marker_removal": phases.marker_removal,
    "operations_phase": phases.operations_phase,
    "hq_replacement": phases.hq_replacement,
    "mode_change": air.mode_change,
    "scatter": artillery.scatter,
    "sw_loss_check": phases.sw_loss_check,
    "event_roll": phases.chaos_roll,
}


#: Procedures of the WaW85 vocabulary that the classic rules do not have.
NOT_CLASSIC = ("cas_attack", "cas_interception", "cas_ordnance", "spotter_check", "strike_reduction",
               "scatter_direction", "parachute_drift", "landing_check", "night_targeting_check",
               "missile_reload", "fire_burn_out", "bridge_collapse", "fire_minefield", "fire_spread",
               "rubble_check", "clear_rubble", "minefield_breach", "minefield_depletion",
               "ew_side_roll", "event_side_roll", "lift_off", "setup", "battlegen",
               "bonus_formation_entry", "victory_points", "casualty_points", "objective_value",
               "degree_of_victory")


@answers_not_supported
def _not_classic(ctx: Any) -> None:
    raise NotSupported("classic", f"{ctx.action.kind} is a WaW85 procedure with no classic rule")


PROCEDURES.update({kind: _not_classic for kind in NOT_CLASSIC})


@lru_cache(maxsize=None)
def moving_fire_table() -> dict[str, Any]:
    """``referee/data/classic_moving_fire.yaml``: levels, units by book, thermal sights."""
    return yaml.safe_load((DATA / "classic_moving_fire.yaml").read_text(encoding="utf-8"))


def _moving_fire(book: str) -> dict[str, Any]:
    table = moving_fire_table()
    return {"moving_fire": {k: (v["to_hit"], v["fp"]) for k, v in table["levels"].items()},
            "moving_fire_units": dict((table.get("units") or {}).get(book) or {}),
            "thermal_units": frozenset((table.get("thermal") or {}).get(book) or ())}


#: How a case or a profile may name the Americans (002 §8.3 FASCAM).
US_NAMES = frozenset({"us", "usa", "u.s.", "american", "americans", "united states"})
#: 002 §6.1.3 "The Abrams, Bradley, T-72, Leopard II, Leopard I, Cobra, and Hind are the only seven
#: units ... that can make Moving Fire"; §9.2 "The Soviet Hind and the American Cobra may fire after
#: moving up to 12 hexes" (words of the counter name).
EG_MOVING_FIRE_HELICOPTERS = frozenset({"hind", "mi-24", "cobra", "ah-1"})
#: ... and the Soviets (002 §8.4 Chemical).
SOVIET_NAMES = frozenset({"sov", "soviet", "soviets", "ussr", "soviet union", "russian", "russians"})


def classic_params(book: str) -> Params:
    """Parameters of one classic book: ``eisenbach`` (002) or ``untold`` (001)."""
    if book == "eisenbach":
        return Params(ruleset="classic", book="eisenbach", undisruptable=frozenset({"hq"}), deployed_hq_rides=False,
                      mines_disrupt_on="even",
                      hill_los_any_city_blocks=True, unarmored_ap_hit_reduces=False,
                      disrupted_retreat_any_enemy=False, overrun_repeat_scope="turn",
                      smoke_blocks_out_of=False, mission_sides={"chemical": "pact", "fascam": "nato"},
                      mission_nations={"fascam": US_NAMES, "chemical": SOVIET_NAMES},
                      moving_fire_helicopters=EG_MOVING_FIRE_HELICOPTERS,
                      flying_helicopter_underlined_bars=frozenset({"ap"}),
                      missile_range_weapons=frozenset({"ap", "aa"}),
                      **_moving_fire("eisenbach"))
    if book == "untold":
        return Params(ruleset="classic", book="untold", undisruptable=frozenset({"hq"}), deployed_hq_rides=False,
                      features=UNTOLD_FEATURES,
                      mines_disrupt_on="odd", mines_spare_flying_helicopters=True, hill_los_any_city_blocks=False, hill_los_counts_on_hills_only=True,
                      unarmored_ap_hit_reduces=True, max_bonus_attack_dice=2, assault_side_limit=2,
                      road_bonus_units=frozenset({"CDO MC"}), single_shot_units=frozenset({"KASTET"}),
                      gun_launched_atgms=frozenset({"SONGSTER"}),
                      support_weapon_users={"KASTET": frozenset({"T-12"}), "HEAT-FS": frozenset({"2S1"}),
                                            "SONGSTER": frozenset({"T-80", "T-64"})},
                      no_transport_units=frozenset({"CDO MC"}), mission_sides={"chemical": "pact"},
                      **_moving_fire("untold"))
    raise RefereeError(f"unknown classic book {book!r} (expected one of {', '.join(BOOKS)})")


class ClassicRuleset(Ruleset):
    """Eisenbach Gap or The Untold Stories: the shared procedures read by one classic book."""

    choose_weapon = staticmethod(classic_fire.choose_weapon)
    fire_restrictions = staticmethod(classic_fire.fire_restrictions)
    may_attack = staticmethod(classic_fire.may_attack)
    fire_modifiers = staticmethod(classic_fire.fire_modifiers)
    sight = staticmethod(classic_fire.sight)
    in_sight = staticmethod(los.in_sight)
    bands = staticmethod(classic_fire.bands)
    band_to_hit = staticmethod(classic_fire.band_to_hit)
    final_to_hit = staticmethod(classic_fire.final_to_hit)
    final_fp = staticmethod(classic_fire.final_fp)
    after_fire_checks = staticmethod(classic_fire.after_fire_checks)
    opportunity_checks = staticmethod(classic_fire.opportunity_checks)
    opportunity_before_moving_fire = staticmethod(classic_fire.opportunity_before_moving_fire)
    after_attack_roll = staticmethod(classic_fire.after_attack_roll)
    fire_results = staticmethod(classic_fire.fire_results)
    aftermath = staticmethod(damage.aftermath)
    on_legal_fire = staticmethod(classic_fire.on_legal_fire)
    armor_and_save = staticmethod(classic_fire.armor_and_save)
    terrain_db = staticmethod(classic_fire.defence_terrain)
    concealed = staticmethod(classic_fire.concealed)
    is_armored = staticmethod(classic_fire.is_hard)

    def assault_attackers(self, ctx, attackers):
        return attackers

    def assault_entry_cost(self, ctx, unit, hex_id):
        """The TEC cost of entering the assaulted hex (a stated cost wins)."""
        stated = ctx.game.hex(hex_id).mp_cost
        if stated is not None or ctx.game.hex(hex_id).terrain is None:
            return stated
        return ctx.stage((), lambda: movement.entry_cost(ctx.probe(), unit, hex_id, unit.hex))

    def may_be_assaulted(self, ctx, defender):
        pass

    assault_defenders = staticmethod(close_combat.hex_defenders)
    may_fight = staticmethod(close_combat.may_fight)
    assault_numbers = staticmethod(close_combat.assault_numbers)

    def assault_stated_hits(self, ctx):
        return ctx.action.hits

    retreat_hexes = staticmethod(close_combat.retreat_hexes)
    retreat_check = staticmethod(close_combat.retreat_check)
    fire_mission = staticmethod(artillery.fire_mission)
    accuracy = staticmethod(artillery.accuracy)
    strike = staticmethod(artillery.strike)

    SECTIONS = {
        "marker_removal": "3.2", "elimination": "6.1.7", "ranged_combat": "6.1", "fire_factor": "6.1", "fire_individually": "6.1", "fire_disrupted": "6.1.7", "fire_ops_complete": "6.1",
        "out_of_command": "4.2", "passenger_fire": "5.2.3", "movement": "5.0", "operations": "4.4",
        "assault": "6.3", "overrun": "6.4", "opportunity_fire": "6.2", "moving_fire": "6.1.3",
        "stacking": "1.4", "artillery": "8.0", "los": "7.0", "helicopters_as_targets": "9.3",
        "range_max": "6.1.1", "helicopter_same_hex": "9.1", "fire_ops_complete_mark": "6.1", "range": "6.1.1, 6.1.2", "band_point_blank": "6.1.1, 6.1.2",
        "band_long": "6.1.1, 6.1.2", "defensive_bonus": "6.1.5, 6.1.6", "improved_positions": "001 §12.1",
        "opportunity_fire_stop": "6.2, 5.0", "fire_once": "6.1", "hq_not_target": "1.3.3.2",
        "helicopter_no_assault": "9.1", "assault_resolution": "6.3", "assault_ops_complete": "4.4",
        "assault_disrupted": "6.1.7", "assault_ops_complete_mark": "6.3", "retreat": "6.3", "odd_hit": "6.3",
        "disrupted_movement": "6.1.7", "hq_companions": "1.3.3.1",
        "adjacent_hexes": "5.1", "artillery_caller": "8.0",
    }


def classic(book: str = "untold") -> Ruleset:
    """The classic ruleset read by one book."""
    return ClassicRuleset(classic_params(book), PROCEDURES)
