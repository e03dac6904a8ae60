"""The World At War 85 ruleset (Storming the Gap): a second table of procedures over the
shared mechanics.

Procedures that WaW85 words like the classic books come from the shared modules; the
rest are WaW85 procedures in this package. An action WaW85 has but the referee does not
implement answers "not supported: WaW85 §x.y", never a silent default.
"""
from __future__ import annotations

from referee import artillery as shared_artillery
from referee import assault as shared_assault
from referee import fire as shared_fire
from referee.errors import NotSupported
from referee.ruleset import Ctx, Params, Procedure, Ruleset, answers_not_supported
from referee.waw85.common import stated_hits as given_hits
from referee.waw85 import (air, artillery, assault, command, defence, fire, los, movement, phases,
                           results, transport, victory)

#: Procedures beyond the rule-case vocabulary, for callers that build actions themselves.
EXTRA_ACTIONS = frozenset({"refresh", "leader_transfer", "hq_deployment"})

#: WaW85 actions whose tables are on player aid cards, not in the rulebook text.
NOT_SUPPORTED: dict[str, str] = {
    "battlegen": "17.1",            # PAC12 Turn Length & Objectives Table
}
#: What each of them would do, as ``wawkit actions`` lists it.
NOT_SUPPORTED_WHAT: dict[str, str] = {
    "battlegen": "The Battle Generator's scenario size (WaW85 §17.1): its table is on PAC12, not in the rulebook "
                 "text, so it answers \"not supported\".",
}

#: Classic actions with no WaW85 counterpart by that name, and the WaW85 section instead.
NOT_WAW85: dict[str, str] = {
    "airstrike": "4.0", "overrun": "13.0", "conditional_morale": "7.2.4",
    "hq_replacement": "7.2.2", "sw_loss_check": "2.3.6",
}


def _not_supported(section: str, why: str) -> Procedure:
    def procedure(ctx: Ctx) -> None:
        raise NotSupported(f"WaW85 §{section}", f"{ctx.action.kind} {why}")
    return answers_not_supported(procedure)


PROCEDURES: dict[str, Procedure] = {
    "direct_fire": shared_fire.direct_fire,
    "opportunity_fire": shared_fire.opportunity_fire,
    "move_and_fire": shared_fire.move_and_fire,
    "defense": defence.defense,
    "concealment": defence.concealment,
    "apply_damage": results.apply_damage,
    "command_check": command.command_check,
    "rally": command.rally,
    "morale_check": command.morale_check,
    "night_targeting_check": command.night_targeting_check,
    "missile_ammo_check": command.missile_ammo_check,
    "missile_reload": command.missile_reload,
    "refresh": command.refresh,
    "leader_transfer": command.leader_transfer,
    "hq_deployment": command.hq_deployment,
    "operations_phase": phases.operations_phase,
    "ew_side_roll": phases.ew_side_roll,
    "event_roll": phases.event_roll,
    "event_side_roll": phases.event_side_roll,
    "marker_removal": phases.marker_removal,
    "fire_burn_out": phases.fire_burn_out,
    "bridge_collapse": phases.bridge_collapse,
    "fire_minefield": phases.fire_minefield,
    "fire_spread": phases.fire_spread,
    "rubble_check": phases.rubble_check,
    "place_marker": phases.place_marker,
    "assault": shared_assault.assault,
    "counterattack": shared_assault.counterattack,
    "retreat": shared_assault.retreat_action,
    "move": movement.move,
    "mode_change": movement.mode_change,
    "lift_off": movement.lift_off,
    "unload": movement.unload,
    "clear_rubble": movement.clear_rubble,
    "bonus_formation_entry": movement.bonus_formation_entry,
    "indirect_fire": shared_artillery.indirect_fire,
    "scatter": artillery.scatter,
    "scatter_direction": artillery.scatter_direction_table,
    "spotter_check": artillery.spotter_check,
    "strike_reduction": artillery.strike_reduction,
    "chemical_attack": artillery.chemical_attack,
    "minefield_attack": artillery.minefield_attack,
    "minefield_breach": artillery.minefield_breach,
    "minefield_depletion": artillery.minefield_depletion,
    "victory_points": victory.victory_points,
    "degree_of_victory": victory.degree_of_victory,
    "objective_value": victory.objective_value,
    "casualty_points": victory.casualty_points,
    "setup": victory.setup,
    "los": los.line_of_sight,
    "los_height": los.los_height,
    "aa_fire": shared_fire.aa_fire,
    "cas_attack": shared_fire.cas_attack,
    "cas_interception": air.cas_interception,
    "cas_ordnance": air.cas_ordnance,
    "parachute_drift": air.parachute_drift,
    "landing_check": air.landing_check,
    "stacking": transport.stacking,
    "load": transport.load,
}


PROCEDURES.update({kind: _not_supported(section, "is not implemented")
                   for kind, section in NOT_SUPPORTED.items()})
for _kind, _what in NOT_SUPPORTED_WHAT.items():
    PROCEDURES[_kind].__doc__ = _what
PROCEDURES.update({kind: _not_supported(section, "is not a WaW85 rule")
                   for kind, section in NOT_WAW85.items()})


def waw85_params() -> Params:
    """WaW85's shared-mechanics parameters: Soft Targets save on 5 (§1.9.7), armored DB
    capped at 2 (§10.6.14), an AP hit on a soft vehicle only Disrupts (§10.7.1). The
    WaW85 Terrain Effects Chart is not in the rulebook text, so its procedures take DB
    dice and heights as stated and never consult the classic chart loaded here."""
    return Params(ruleset="waw85", book="waw85", tec="classic", soft_save=5, hard_db_cap=2,
                  features=frozenset({"improved_positions"}), helicopters_use_improved_positions=False,
                  untargetable=frozenset({"hq", "leader"}), disrupted_adjacent_stays=True,
                  disrupted_stops_in_los=True, hq_needs_own_formation=False,
                  retreat_unit_by_unit=True)


class Waw85Ruleset(Ruleset):
    """World At War 85: the shared procedures with WaW85's parameters and overrides."""

    choose_weapon = staticmethod(fire.choose_weapon)
    fire_restrictions = staticmethod(fire.fire_restrictions)
    may_attack = staticmethod(fire.may_attack_target)
    fire_modifiers = staticmethod(fire.fire_modifiers)
    opportunity_checks = staticmethod(fire.opportunity_checks)
    opportunity_before_moving_fire = staticmethod(fire.opportunity_before_moving_fire)
    sight = staticmethod(fire.sight)
    in_sight = staticmethod(los.in_sight)
    bands = staticmethod(fire.bands)
    range_checks = staticmethod(fire.range_checks)

    band_to_hit = staticmethod(fire.band_to_hit)
    final_to_hit = staticmethod(fire.final_to_hit)
    final_fp = staticmethod(fire.final_fp)
    cas_numbers = staticmethod(fire.cas_numbers)
    on_legal_fire = staticmethod(fire.on_legal_fire)
    attack_cancelled = staticmethod(command.night_attack_cancelled)

    def stated_hits(self, ctx, target):
        return fire.fire_stated_hits(ctx)

    def rolls_defence(self, target, attack):
        return target.type.target_type != "aircraft"

    def fire_results(self, ctx, target, hits, attack):
        return results.fire_results(ctx, target.key, hits, attack.weapon_name, opportunity=False)

    aftermath = staticmethod(results.aftermath)
    armor_and_save = staticmethod(defence.armor_and_save)
    terrain_db = staticmethod(defence.defence_terrain)
    concealed = staticmethod(defence.concealed)
    extra_db = staticmethod(defence.extra_db)
    is_armored = staticmethod(defence.is_armored)

    def out_of_command(self, ctx, unit):
        """§7.2.5: units always In Command "are unaffected by a hex's Command status. An Out of
        Command marker has no effect on them, and they may move out of any such hex normally"."""
        return command.bound_by_out_of_command(ctx, unit)

    def cannot_assault(self, unit):
        """§13.0: Aircraft (CAS, Flying and Hovering Helicopters, §10.1) may not assault; a
        Landed Helicopter "is stationary in its hex" (§9.7.4), so it cannot enter the hex."""
        return unit.type.target_type == "aircraft" or (
            unit.type.target_type == "helicopter" and unit.mode in ("flying", "hovering", "landed"))

    assault_attackers = staticmethod(assault.assault_attackers)
    may_be_assaulted = staticmethod(assault.may_be_assaulted)
    above_the_assault = staticmethod(assault.above_the_assault)
    assault_entry = staticmethod(assault.assault_entry)
    may_fight = staticmethod(assault.may_fight)
    assault_numbers = staticmethod(assault.numbers)
    assault_stated_hits = staticmethod(given_hits)
    retreat_hexes = staticmethod(assault.retreat_hexes)
    retreat_check = staticmethod(assault.retreat_check)
    stated_retreat_hexes = staticmethod(assault.stated_retreat_hexes)
    fire_mission = staticmethod(artillery.fire_mission)
    accuracy = staticmethod(artillery.accuracy)
    strike = staticmethod(artillery.strike)

    def counterattack_values(self, unit):
        """§13.2: Landed and NOE Helicopters counterattack with their HE FP and To-Hit."""
        return assault.helicopter_counter(unit)

    SECTIONS = {
        "marker_removal": "2.3", "elimination": "10.7.1", "ranged_combat": "10.0", "fire_factor": "10.1", "fire_individually": "7.6", "fire_disrupted": "10.0", "fire_ops_complete": "10.0",
        "out_of_command": "7.2.3", "passenger_fire": "9.8", "movement": "9.0", "operations": "7.6",
        "assault": "13.0", "overrun": "13.0", "opportunity_fire": "10.11", "moving_fire": "11.0",
        "stacking": "9.2", "artillery": "14.0", "los": "10.2", "helicopters_as_targets": "10.6.1",
        "range_max": "10.3.4", "helicopter_same_hex": "9.7.1-9.7.3", "aircraft_same_hex": "4.1, 9.7.1", "fire_ops_complete_mark": "10.4", "range": "10.3", "band_point_blank": "10.6.4", "band_long": "10.6.5",
        "defensive_bonus": "10.6.8", "improved_positions": "16.1", "opportunity_fire_stop": "10.8.2",
        "fire_once": "7.6", "hq_not_target": "10.7.2", "helicopter_no_assault": "13.0",
        "assault_resolution": "13.2.1", "assault_ops_complete": "13.0", "assault_disrupted": "13.0",
        "assault_ops_complete_mark": "13.2.3", "retreat": "13.2.2", "odd_hit": "13.2.1",
        "disrupted_movement": "10.8.2", "hq_companions": "7.2.2",
        "adjacent_hexes": "9.0", "artillery_caller": "14.3",
    }


def ruleset(flag: str | None = None) -> Ruleset:
    """The WaW85 ruleset (it has one book, so ``flag`` is ignored)."""
    return Waw85Ruleset(waw85_params(), PROCEDURES)
