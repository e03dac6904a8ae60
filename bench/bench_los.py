"""How many line-of-sight checks per second the referee makes, against a naive sampled line
timed in the same run.

A 40x30-hex board (flat hexes, VASSAL's default numbering) gets a seeded, clumpy terrain:
woods in clusters (blocking), scattered rough (two or more block). Every pair of hexes
within 20 hexes is a check of the classic ground-level rules (§7.1, §7.3, §8.2): the
referee's own LOS function, ``referee.los.sight(ctx, attacker, target)``, on a real
position (a ``Game`` of that board, two infantry units), the function that the ``los``
procedure, every fire check and every Disrupted move ask.

Timed in one run, as CPU time (``time.process_time``):

* ``naive``: the baseline. Sample the pixel line from centre to centre four times per
  hex of range, find the hex under each sample (``HexLayout.hex_at``) and look its terrain
  up: the floor a simple implementation reaches (it cannot see hexside runs and misjudges
  strings through corners).
* ``referee``: ``los.sight`` on every pair; then on an open board (no terrain at all);
* ``check``: ``ruleset.check(game, los action)``, the whole procedure with its answer and
  reasons, on a sample of 2,000 positions;
* ``shapes``: the exact trace of every cube vector within 20 hexes (``line_shape``), as a
  new process computes them on its first checks;
* ``recorded``: ``los.sight`` on the 2,000 sampled pairs of this board whose answers were
  recorded before the integer line walk (``tests/data/los_recorded.json``): every answer
  must be the same, but for those the rule fixes made with the walk decide
  (``tests/test_los_recorded.py`` lists them with their sections).

Targets: ``referee`` at least 100,000 checks per second on both boards; the recorded
answers unchanged but for the rule fixes. Run:
``.venv/bin/python bench/bench_los.py`` (``--sample N`` sets the pairs timed for naive).
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee import los  # noqa: E402
from referee.actions import make_action  # noqa: E402
from referee.hexes import Hex, HexLayout  # noqa: E402
from referee.los_geometry import line_shape  # noqa: E402
from referee.model import Game, HexState, Unit, UnitType  # noqa: E402
from referee.ruleset import Ctx  # noqa: E402
from referee.rulesets import get_ruleset  # noqa: E402
from referee.verdict import Answer  # noqa: E402

COLUMNS, ROWS, MAX_RANGE = 40, 30, 20
RECORDED = ROOT / "tests" / "data" / "los_recorded.json"
CLEAR, ROUGH, BLOCKING = 0, 1, 2
TERRAIN = {CLEAR: "clear", ROUGH: "rough", BLOCKING: "woods"}
LAYOUT = HexLayout.regular(64)
TARGET = 100_000
INFANTRY = UnitType(name="infantry", target_type="troops")


def make_board(seed: int) -> dict[Hex, int]:
    """Terrain by hex: clumps of woods, scattered rough, the rest clear."""
    rng = random.Random(seed)
    board = {Hex.from_offset(col, row, LAYOUT): CLEAR for col in range(COLUMNS) for row in range(ROWS)}
    hexes = list(board)
    for clumps, low, high in ((28, 3, 14), (8, 2, 6)):
        for _ in range(clumps):
            clump = [rng.choice(hexes)]
            for _ in range(rng.randint(low, high)):
                grown = rng.choice(rng.choice(clump).neighbors())
                if grown in board:
                    clump.append(grown)
            for hex_ in clump:
                board[hex_] = BLOCKING
    for hex_ in hexes:
        if board[hex_] == CLEAR and rng.random() < 0.07:
            board[hex_] = ROUGH
    return board


def pairs_within(board: dict[Hex, int]) -> list[tuple[Hex, Hex]]:
    hexes = sorted(board, key=lambda h: (h.q, h.r))
    return [(a, b) for i, a in enumerate(hexes) for b in hexes[i + 1:] if a.distance(b) <= MAX_RANGE]


def hex_id(hex_: Hex) -> str:
    col, row = hex_.to_offset(LAYOUT)
    return f"{col:02d}{row:02d}"


def naive_check(board: dict[Hex, int], a: Hex, b: Hex) -> bool:
    """Blocked if a sampled hex between is blocking, or two are rough (§7.1, no hexsides)."""
    (x0, y0), (x1, y1) = LAYOUT.center(a), LAYOUT.center(b)
    samples = 4 * a.distance(b)
    seen: list[Hex] = []
    for i in range(1, samples):
        t = i / samples
        hex_ = LAYOUT.hex_at(x0 + t * (x1 - x0), y0 + t * (y1 - y0))
        if hex_ not in (a, b) and hex_ not in seen:
            seen.append(hex_)
    kinds = [board.get(h, CLEAR) for h in seen]
    return BLOCKING in kinds or kinds.count(ROUGH) >= 2


class Position:
    """The board as the referee sees a game: hexes named CCRR with their terrain, and one
    unit in each hex for either end of a check (made once, so a check only asks)."""

    def __init__(self, board: dict[Hex, int], book: str = "untold") -> None:
        self.hexes = {hex_id(h): HexState(hex_id(h), terrain=TERRAIN[kind], at=h) for h, kind in board.items()}
        self.ruleset = get_ruleset("classic", book)
        self.action = make_action("los", unit="A", target="B")
        self.game = Game(units={}, hexes=self.hexes)
        self.ctx = Ctx(self.ruleset, self.game, self.action, None, Answer("los", self.ruleset.book))
        self.attackers = {h: Unit("A", INFANTRY, side="nato", hex=hex_id(h)) for h in board}
        self.targets = {h: Unit("B", INFANTRY, side="pact", hex=hex_id(h)) for h in board}

    def units(self, pairs: list[tuple[Hex, Hex]]) -> list[tuple[Unit, Unit]]:
        return [(self.attackers[a], self.targets[b]) for a, b in pairs]

    def games(self, pairs: list[tuple[Hex, Hex]]) -> list[Game]:
        return [replace(self.game, units={"A": self.attackers[a], "B": self.targets[b]}) for a, b in pairs]


def referee_checks(position: Position, units: list[tuple[Unit, Unit]]) -> list[bool]:
    """The referee's LOS function over prepared pairs of units."""
    ctx, sight = position.ctx, los.sight
    return [sight(ctx, a, b).blocked for a, b in units]


def check_procedure(position: Position, games: list[Game]) -> list[bool]:
    """The whole ``los`` procedure (``ruleset.check``) over prepared positions."""
    check, action = position.ruleset.check, position.action
    return [check(game, action).values["blocked"] for game in games]


def cpu(action: Callable[[], object]) -> tuple[float, object]:
    """CPU seconds of one call, and its result."""
    start = time.process_time()
    result = action()
    return time.process_time() - start, result


def shape_time() -> float:
    """CPU seconds to trace every cube vector within MAX_RANGE from an empty cache."""
    line_shape.cache_clear()
    took, _ = cpu(lambda: [line_shape(h.q, h.r) for h in Hex(0, 0).within(MAX_RANGE)])
    return took


def recorded_agreement(position: Position, board: dict[Hex, int]) -> dict[str, int]:
    """``los.sight`` on the recorded pairs of this board against the answers recorded before the
    integer line walk: how many are the same, how many the rule fixes changed as listed, and
    how many changed otherwise (none may)."""
    from tests.test_los_recorded import CHANGED
    data = json.loads(RECORDED.read_text(encoding="utf-8"))
    entry = data["sets"][0]
    codes = {".": CLEAR, "r": ROUGH, "w": BLOCKING}
    terrain = data["boards"][entry["board"]]["terrain"]
    assert all(codes[terrain[row][col]] == board[Hex.from_offset(col, row, LAYOUT)]
               for row in range(ROWS) for col in range(COLUMNS)), "the recording is not of this board"
    by_id = {hex_id(h): h for h in board}
    fixes = CHANGED[entry["board"], entry["book"], entry["attacker"]]
    same = fixed = unexplained = 0
    for answer in entry["answers"]:
        a, b, was, _section = answer.split()
        blocked = los.sight(position.ctx, position.attackers[by_id[a]], position.targets[by_id[b]]).blocked
        if blocked == (was == "1") and was != "?":
            same += 1
        elif f"{a} {b}" in fixes and fixes[f"{a} {b}"][0] == blocked:
            fixed += 1
        else:
            unexplained += 1
    return {"recorded_pairs": len(entry["answers"]), "recorded_same": same, "recorded_fixed": fixed,
            "recorded_unexplained": unexplained}


def measure(sample_size: int = 20_000, seed: int = 1944) -> dict[str, object]:
    """Every figure of the benchmark, in one run."""
    board = make_board(seed)
    pairs = pairs_within(board)
    sample = random.Random(seed).sample(pairs, min(sample_size, len(pairs)))
    shapes = shape_time()
    naive_time, naive = cpu(lambda: [naive_check(board, a, b) for a, b in sample])
    position = Position(board)
    units = position.units(pairs)
    referee_checks(position, units[:2000])                         # the board's codes, built once
    referee_time, refereed = cpu(lambda: referee_checks(position, units))
    open_position = Position({h: CLEAR for h in board})
    open_units = open_position.units(pairs)
    referee_checks(open_position, open_units[:2000])
    open_time, _ = cpu(lambda: referee_checks(open_position, open_units))
    games = position.games(sample[:2000])
    check_time, checked = cpu(lambda: check_procedure(position, games))
    index = {pair: i for i, pair in enumerate(pairs)}
    sampled = [refereed[index[pair]] for pair in sample]          # type: ignore[index]
    assert checked == sampled[:2000], "the los procedure and the referee's LOS function disagree"
    return {"pairs": len(pairs), "sample": len(sample), "naive_rate": len(sample) / naive_time,
            "referee_rate": len(pairs) / referee_time, "open_rate": len(pairs) / open_time,
            "check_rate": len(games) / check_time, "checks": len(games), "shapes": shapes,
            "vectors": len(list(Hex(0, 0).within(MAX_RANGE))),
            "blocked": sum(refereed), "naive_wrong": sum(n != s for n, s in zip(naive, sampled)),  # type: ignore[arg-type]
            "kinds": [list(board.values()).count(k) for k in (CLEAR, ROUGH, BLOCKING)],
            **recorded_agreement(position, board)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=20_000, help="pairs timed for the naive line")
    parser.add_argument("--seed", type=int, default=1944)
    args = parser.parse_args()
    m = measure(args.sample, args.seed)
    clear, rough, woods = m["kinds"]   # type: ignore[misc]
    print(f"board {COLUMNS}x{ROWS}: {clear} clear, {rough} rough, {woods} woods hexes; "
          f"{m['pairs']:,} pairs within {MAX_RANGE} hexes")
    print(f"traced {m['vectors']:,} line shapes from an empty cache in {m['shapes']:.3f} s CPU")
    naive = m["naive_rate"]
    print(f"\n{'method':<40}{'checks/s':>12}{'vs naive':>10}")
    for name, key in (("naive sampled line (baseline)", "naive_rate"), ("referee los.sight, all pairs", "referee_rate"),
                      ("referee los.sight, open board", "open_rate"), ("ruleset.check(los), 2,000 positions", "check_rate")):
        print(f"{name:<40}{m[key]:>12,.0f}{m[key] / naive:>9.1f}x")    # type: ignore[operator]
    print(f"\nblocked: {m['blocked']:,} of {m['pairs']:,} pairs; the naive line gets {m['naive_wrong']} of "
          f"{m['sample']:,} sampled pairs wrong (hexside runs, corners)")
    print(f"recorded answers: {m['recorded_same']:,} of {m['recorded_pairs']:,} the same, "
          f"{m['recorded_fixed']} changed by the rule fixes, {m['recorded_unexplained']} otherwise")
    worst = min(m["referee_rate"], m["open_rate"])     # type: ignore[type-var]
    print(f"target >= {TARGET:,} checks/s: {'met' if worst >= TARGET else 'NOT met'} ({worst:,.0f})")


if __name__ == "__main__":
    main()
