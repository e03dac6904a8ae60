"""Exact odds of a fire attack or an assault, from the same numbers the referee checks.

``fire_odds`` asks the ruleset's ``check`` for the attack (FP, to-hit) and the target's
defence (defence dice, save number), then combines exact binomial distributions
(:mod:`referee.odds`): hits, saves, net hits, and each combat result on the target,
where the result of ``n`` net hits comes from the very ladder ``resolve`` applies.
"""
from __future__ import annotations

from dataclasses import dataclass

from referee import damage
from referee.actions import Action, make_action
from referee.errors import NotStated, RefereeError
from referee.events import result_of
from referee.model import Game
from referee.odds import Distribution, at_least, successes
from referee.ruleset import Ctx, Ruleset
from referee.verdict import Answer

RESULT_ORDER = ("none", "disrupted", "reduced", "disrupted_and_reduced", "eliminated")


@dataclass(frozen=True)
class FireOdds:
    """Exact distributions of one attack: hits, saves, net hits and the result."""

    fp: int
    to_hit: int
    defense_dice: int
    save_number: int
    hits: Distribution
    saves: Distribution
    net_hits: Distribution
    results: Distribution
    first_hit_negated: bool = False

    def lines(self) -> list[str]:
        def row(dist: Distribution) -> str:
            return ", ".join(f"{k}: {p} ({float(p):.1%})" for k, p in dist.items())
        return [f"attack {self.fp} dice at {self.to_hit}+, defence {self.defense_dice} dice at {self.save_number}+",
                f"hits      {row(self.hits)}",
                f"saves     {row(self.saves)}",
                f"net hits  {row(self.net_hits)}",
                "results   " + ", ".join(f"{k}: {self.results[k]} ({float(self.results[k]):.1%})"
                                        for k in RESULT_ORDER if self.results[k])]


def result_ladder(ruleset: Ruleset, game: Game, target: str, weapon: str | None,
                  most: int) -> dict[int, str]:
    """The result of 0..most net hits on ``target``, by the shared damage procedure."""
    ladder = {}
    for n in range(most + 1):
        ctx = Ctx(ruleset, game, make_action("apply_damage", target=target, hits=n, weapon=weapon),
                  None, Answer("apply_damage", ruleset.book))
        damage.take_hits(ctx, target, n, weapon=weapon)
        ladder[n] = result_of(target, ctx.answer.events)
    return ladder


def net_hits_distribution(fp: int, to_hit: int, defense_dice: int, save_number: int,
                          negate_first: bool = False) -> tuple[Distribution, Distribution, Distribution]:
    """(hits, saves, net hits): saves are rolled only when a hit remains (§6.1)."""
    hits = successes(fp, at_least(to_hit))
    save_dist = successes(defense_dice, at_least(save_number))
    after_ip = hits.map(lambda h: max(h - 1, 0)) if negate_first else hits
    net = after_ip.combine(save_dist, lambda h, s: max(h - s, 0))
    saves_marginal = after_ip.combine(save_dist, lambda h, s: s if h else 0)
    return hits, saves_marginal, net


def fire_odds(ruleset: Ruleset, game: Game, action: Action) -> FireOdds:
    """Exact odds of a legal direct fire ``action``; missing numbers raise NotStated."""
    verdict = ruleset.check(game, action)
    if verdict.legal is False:
        raise RefereeError("the attack is not legal: " + "; ".join(map(str, verdict.reasons)))
    values = verdict.values
    for name in ("fp", "to_hit", "defense_dice", "save_number"):
        if name not in values:
            raise NotStated(verdict.gaps.get(name, name).replace("not stated: ", ""))
    target = action.target if isinstance(action.target, str) else None
    if target is None:
        raise NotStated("query.target")
    hex_id = game.unit(target).hex
    negate = bool(hex_id and "improved_position" in game.hex(hex_id).markers
                  and ruleset.params.has("improved_positions"))
    hits, saves, net = net_hits_distribution(values["fp"], values["to_hit"], values["defense_dice"],
                                             values["save_number"], negate)
    ladder = result_ladder(ruleset, game, target, values.get("weapon"), values["fp"])
    return FireOdds(values["fp"], values["to_hit"], values["defense_dice"], values["save_number"],
                    hits, saves, net, net.map(ladder.__getitem__), negate)


@dataclass(frozen=True)
class AssaultOdds:
    """Exact hits on each side of an assault and who holds the hex (§6.3); with one unit
    a side, that unit's results too."""

    on_defender: Distribution
    on_attacker: Distribution
    outcome: Distribution        # attacker_holds / defender_retreats / attacker_retreats
    defender_results: Distribution | None = None
    attacker_results: Distribution | None = None

    def lines(self) -> list[str]:
        def row(dist: Distribution) -> str:
            return ", ".join(f"{k}: {p} ({float(p):.1%})" for k, p in dist.items())
        lines = [f"hits on the defender  {row(self.on_defender)}",
                 f"hits on the attacker  {row(self.on_attacker)}",
                 f"outcome               {row(self.outcome)}"]
        if self.defender_results is not None:
            lines.append(f"defender results      {row(self.defender_results)}")
        if self.attacker_results is not None:
            lines.append(f"attacker results      {row(self.attacker_results)}")
        return lines


def assault_odds_for(ruleset: Ruleset, game: Game, action: Action) -> AssaultOdds:
    """Exact odds of a one-unit assault on one defender, from the referee's own numbers."""
    verdict = ruleset.check(game, action)
    if verdict.legal is False:
        raise RefereeError("the assault is not legal: " + "; ".join(map(str, verdict.reasons)))
    for name in ("fp", "to_hit"):
        if name not in verdict.values:
            raise NotStated(verdict.gaps.get(name, name).replace("not stated: ", ""))
    defender = action.target if isinstance(action.target, str) else None
    if defender is None or defender not in game.units or not action.actor:
        raise NotStated("one attacking and one defending unit")
    counter = verdict.unit_values.get(defender, {})
    fp, to_hit = counter.get("fp", 0), counter.get("to_hit", 6)
    hex_id = game.unit(defender).hex
    negate = bool(hex_id and "improved_position" in game.hex(hex_id).markers
                  and ruleset.params.has("improved_positions"))
    d_ladder = result_ladder(ruleset, game, defender, None, verdict.values["fp"])
    a_ladder = result_ladder(ruleset, game, action.actor, None, fp)
    base = assault_odds(verdict.values["fp"], verdict.values["to_hit"], fp, to_hit,
                        defender_steps_left=_steps_left(d_ladder), negate_first=negate,
                        max_hits=verdict.values.get("max_hits"))
    return AssaultOdds(base.on_defender, base.on_attacker, base.outcome,
                       base.on_defender.map(d_ladder.__getitem__),
                       base.on_attacker.map(a_ladder.__getitem__))


def _steps_left(ladder: dict[int, str]) -> int:
    """Hits that eliminate the unit (one more than the most it survives)."""
    for hits, result in sorted(ladder.items()):
        if result == "eliminated":
            return hits
    return max(ladder) + 1


def odds_for(ruleset: Ruleset, game: Game, action: Action) -> FireOdds | AssaultOdds:
    """Exact odds of a fire or assault action."""
    if action.kind == "assault":
        return assault_odds_for(ruleset, game, action)
    if action.kind in ("direct_fire", "opportunity_fire", "move_and_fire"):
        return fire_odds(ruleset, game, action)
    raise RefereeError(f"no exact odds for {action.kind} (fire and assault only)")


def assault_odds(attacker_dice: int, attacker_to_hit: int, defender_dice: int, defender_to_hit: int,
                 defender_steps_left: int, negate_first: bool = False,
                 max_hits: int | None = None) -> AssaultOdds:
    """Both sides roll at once (§6.3); the defender is gone after ``defender_steps_left`` hits."""
    on_defender = successes(attacker_dice, at_least(attacker_to_hit))
    if max_hits is not None:
        on_defender = on_defender.map(lambda h: min(h, max_hits))
    if negate_first:
        on_defender = on_defender.map(lambda h: max(h - 1, 0))
    on_attacker = successes(defender_dice, at_least(defender_to_hit))

    def outcome(d: int, a: int) -> str:
        if d >= defender_steps_left:
            return "attacker_holds"
        return "defender_retreats" if d > a else "attacker_retreats"
    return AssaultOdds(on_defender, on_attacker, on_defender.combine(on_attacker, outcome))
