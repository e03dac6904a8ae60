"""How fast exact combat odds are, against plain Fraction arithmetic in the same run.

The question: the full distribution of net hits when ``n`` attack dice hitting on 4+
meet ``n`` save dice saving on 5+ (each save cancels a hit), as exact fractions.

* ``fractions``: a direct implementation: binomial terms as ``Fraction`` products,
  then a double loop adding ``Fraction`` products into a dict; the baseline.
* ``odds``: :func:`referee.odds.difference` of two :func:`referee.odds.successes`,
  which keep integer weights over one common denominator, then ``items()`` to get
  every probability as a reduced ``Fraction``.
* ``sampling``: 100,000 seeded rolls of the same fire, for scale; not exact.

Target: 10 attack dice against 10 save dice in under 1 ms. Run:
``.venv/bin/python bench/bench_odds.py``.
"""
from __future__ import annotations

import sys
import time
from fractions import Fraction
from math import comb
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.dice import SeededDice  # noqa: E402
from referee.odds import at_least, difference, successes  # noqa: E402

HIT, SAVE = 4, 5


def with_fractions(attack: int, save: int) -> dict[int, Fraction]:
    p, s = Fraction(7 - HIT, 6), Fraction(7 - SAVE, 6)
    hits = {k: comb(attack, k) * p ** k * (1 - p) ** (attack - k) for k in range(attack + 1)}
    saves = {k: comb(save, k) * s ** k * (1 - s) ** (save - k) for k in range(save + 1)}
    net: dict[int, Fraction] = {}
    for h, ph in hits.items():
        for k, pk in saves.items():
            key = max(h - k, 0)
            net[key] = net.get(key, Fraction(0)) + ph * pk
    return net


def with_odds(attack: int, save: int) -> dict[int, Fraction]:
    return dict(difference(successes(attack, at_least(HIT)), successes(save, at_least(SAVE))).items())


def by_sampling(attack: int, save: int, rolls: int = 100_000) -> dict[int, float]:
    dice = SeededDice(1944)
    counts: dict[int, int] = {}
    for _ in range(rolls):
        hits = sum(value >= HIT for value in dice.roll(attack, "attack"))
        saves = sum(value >= SAVE for value in dice.roll(save, "save"))
        counts[max(hits - saves, 0)] = counts.get(max(hits - saves, 0), 0) + 1
    return {k: c / rolls for k, c in counts.items()}


def best_time(function: Callable[[], object], repeat: int) -> float:
    """Best of ``repeat`` rounds, each long enough to time reliably (seconds per call)."""
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < 0.05:
        function()
        calls += 1
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(calls):
            function()
        best = min(best, (time.perf_counter() - start) / calls)
    return best


def main() -> None:
    print(f"net hits: n attack dice at {HIT}+ against n save dice at {SAVE}+, full exact distribution\n")
    print(f"{'dice':>8}{'fractions ms':>14}{'odds ms':>10}{'speed-up':>10}")
    times: dict[int, float] = {}
    for n in (3, 5, 10, 20, 40):
        assert with_odds(n, n) == with_fractions(n, n)
        slow = best_time(lambda: with_fractions(n, n), 5)
        fast = times[n] = best_time(lambda: with_odds(n, n), 5)
        print(f"{n:>3} v {n:<3}{slow * 1e3:>14.3f}{fast * 1e3:>10.3f}{slow / fast:>9.1f}x")

    exact = with_odds(10, 10)
    start = time.perf_counter()
    sampled = by_sampling(10, 10)
    sampling = time.perf_counter() - start
    worst = max(abs(sampled.get(k, 0.0) - float(p)) for k, p in exact.items())
    fast = times[10]
    print(f"\n10 v 10 by 100,000 seeded rolls: {sampling * 1e3:,.0f} ms ({sampling / fast:,.0f}x the exact odds), "
          f"worst error {worst:.4f}")
    print(f"P(no net hit) = {exact[0]} = {float(exact[0]):.4f}; mean "
          f"{sum(k * p for k, p in exact.items())} net hits")
    print(f"target 10 v 10 under 1 ms: {'met' if fast < 1e-3 else 'NOT met'} ({fast * 1e3:.3f} ms)")


if __name__ == "__main__":
    main()
