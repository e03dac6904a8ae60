"""How many line-of-sight checks per second, against a naive sampled line in the same run.

A 40x30-hex board (flat hexes, VASSAL's default numbering) gets a seeded, clumpy
terrain: woods and towns in clusters (blocking), scattered rough (obscuring). A check
answers the classic ground-level question for one pair of hexes (7.1, 7.3): blocked if
an intervening hex blocks, if two intervening hexes are rough, or if the string runs
along a hexside between two blocking hexes. Every pair within 20 hexes is checked.

Three ways, timed in one run:

* ``naive``: sample the pixel line from centre to centre four times per hex of range,
  find the hex under each sample (``HexLayout.hex_at``) and look its terrain up. The
  floor a simple implementation reaches; it cannot see hexside runs and misjudges
  strings through corners.
* ``trace_line``: the public API, building ``Hex`` objects, terrain from a dict.
* ``shapes``: the exact trace of each offset vector (``line_shape``, cached), turned
  once into offsets into a flat terrain array, so a check is a few array reads. A cube
  offset vector fixes the whole trace, so the shapes are shared by every start hex.

Target: ``shapes`` at least 100,000 checks per second, also on an open board where
no check can stop at the first blocking hex. Run:
``.venv/bin/python bench/bench_los.py`` (``--sample N`` sets the pairs timed for the
slow methods).
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.hexes import Hex, HexLayout  # noqa: E402
from referee.los_geometry import line_shape, trace_line  # noqa: E402

COLUMNS, ROWS, MAX_RANGE = 40, 30, 20
CLEAR, ROUGH, BLOCKING = 0, 1, 2
LAYOUT = HexLayout.regular(64)


def make_board(seed: int) -> dict[Hex, int]:
    """Terrain by hex: clumps of woods and towns, scattered rough, the rest clear."""
    rng = random.Random(seed)
    board = {Hex.from_offset(col, row, LAYOUT): CLEAR for col in range(COLUMNS) for row in range(ROWS)}
    hexes = list(board)
    for clumps, low, high in ((28, 3, 14), (8, 2, 6)):           # woods, then towns
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


def blocked_by(kinds: list[int], runs: list[tuple[int, int]]) -> bool:
    """The classic ground-level rule over intervening terrain and hexside runs."""
    if BLOCKING in kinds or kinds.count(ROUGH) >= 2:
        return True
    return any(first == BLOCKING and second == BLOCKING for first, second in runs)


def naive_check(board: dict[Hex, int], a: Hex, b: Hex) -> bool:
    (x0, y0), (x1, y1) = LAYOUT.center(a), LAYOUT.center(b)
    samples = 4 * a.distance(b)
    seen: list[Hex] = []
    for i in range(1, samples):
        t = i / samples
        hex_ = LAYOUT.hex_at(x0 + t * (x1 - x0), y0 + t * (y1 - y0))
        if hex_ not in (a, b) and hex_ not in seen:
            seen.append(hex_)
    return blocked_by([board.get(h, CLEAR) for h in seen], [])


def trace_check(board: dict[Hex, int], a: Hex, b: Hex) -> bool:
    trace = trace_line(a, b, LAYOUT)
    return blocked_by([board.get(h, CLEAR) for h in trace.between],
                      [(board.get(r.first, CLEAR), board.get(r.second, CLEAR)) for r in trace.hexside_runs])


class ShapeChecker:
    """Terrain in a flat array indexed by ``q * stride + r``, with each offset vector's
    intervening hexes and hexside runs turned into index offsets once."""

    def __init__(self, board: dict[Hex, int]) -> None:
        self.q0 = min(h.q for h in board) - 1
        self.r0 = min(h.r for h in board) - 1
        self.stride = max(h.r for h in board) - self.r0 + 2
        size = (max(h.q for h in board) - self.q0 + 2) * self.stride
        self.terrain = bytearray(size)                              # off-board: clear
        for hex_, kind in board.items():
            self.terrain[self.index(hex_)] = kind
        self.shapes: dict[tuple[int, int], tuple[tuple[int, ...], tuple[tuple[int, int], ...]]] = {}

    def index(self, hex_: Hex) -> int:
        return (hex_.q - self.q0) * self.stride + (hex_.r - self.r0)

    def prepare(self, max_range: int) -> None:
        stride = self.stride
        for hex_ in Hex(0, 0).within(max_range):
            shape = line_shape(hex_.q, hex_.r)
            between = tuple(dq * stride + dr for dq, dr in shape.steps[:-1])
            runs = tuple((f[0] * stride + f[1], s[0] * stride + s[1]) for f, s, _ in shape.runs)
            self.shapes[hex_.q, hex_.r] = (between, runs)

    def check(self, a: Hex, b: Hex) -> bool:
        between, runs = self.shapes[b.q - a.q, b.r - a.r]
        terrain = self.terrain
        base = (a.q - self.q0) * self.stride + (a.r - self.r0)
        rough = 0
        for offset in between:
            kind = terrain[base + offset]
            if kind:
                if kind == BLOCKING or rough:
                    return True
                rough = 1
        for first, second in runs:
            if terrain[base + first] == BLOCKING and terrain[base + second] == BLOCKING:
                return True
        return False


def referee_checker(board: dict[Hex, int]):
    """The classic referee's whole LOS procedure (``ruleset.check`` of a ``los`` action):
    levels, crest lines, hexside runs, smoke, the answer with its reasons. It is what
    ``wawkit los`` and every fire check run, so its rate is reported beside the
    geometry's; the same board, every hex at ground level."""
    from dataclasses import replace

    from referee.actions import make_action
    from referee.model import Game, HexState, Unit, UnitType
    from referee.rulesets import get_ruleset

    terrain = {CLEAR: "clear", ROUGH: "rough", BLOCKING: "woods"}
    hexes = {f"{h.q},{h.r}": HexState(f"{h.q},{h.r}", terrain=terrain[kind], at=h, level=0)
             for h, kind in board.items()}
    troops = UnitType(name="infantry", target_type="troops")
    base = Game(units={"A": Unit("A", troops, side="nato"), "B": Unit("B", troops, side="pact")}, hexes=hexes)
    ruleset = get_ruleset("classic", "untold")
    action = make_action("los", unit="A", target="B")

    def check(a: Hex, b: Hex) -> bool:
        game = replace(base, units={"A": replace(base.units["A"], hex=f"{a.q},{a.r}"),
                                    "B": replace(base.units["B"], hex=f"{b.q},{b.r}")})
        return bool(ruleset.check(game, action).values["blocked"])

    return check


def timed(function, pairs: list[tuple[Hex, Hex]]) -> tuple[float, list[bool]]:
    start = time.perf_counter()
    verdicts = [function(a, b) for a, b in pairs]
    return time.perf_counter() - start, verdicts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=20_000, help="pairs timed for naive and trace_line")
    parser.add_argument("--seed", type=int, default=1944)
    args = parser.parse_args()

    board = make_board(args.seed)
    pairs = pairs_within(board)
    sample = random.Random(args.seed).sample(pairs, min(args.sample, len(pairs)))
    kinds = [list(board.values()).count(k) for k in (CLEAR, ROUGH, BLOCKING)]
    print(f"board {COLUMNS}x{ROWS}: {kinds[0]} clear, {kinds[1]} rough, {kinds[2]} blocking hexes; "
          f"{len(pairs):,} pairs within {MAX_RANGE} hexes")

    start = time.perf_counter()
    checker = ShapeChecker(board)
    checker.prepare(MAX_RANGE)
    prepare = time.perf_counter() - start
    print(f"prepared {len(checker.shapes):,} exact line shapes in {prepare:.2f} s (once per process)")

    naive_time, naive = timed(lambda a, b: naive_check(board, a, b), sample)
    trace_time, traced = timed(lambda a, b: trace_check(board, a, b), sample)
    sample_shape_time, shaped_sample = timed(checker.check, sample)
    shape_time, shaped = timed(checker.check, pairs)
    assert traced == shaped_sample, "trace_line and the shape checker disagree"
    # Worst case: an open board, where no check stops early.
    open_checker = ShapeChecker({hex_: CLEAR for hex_ in board})
    open_checker.prepare(MAX_RANGE)
    open_time, _ = timed(open_checker.check, pairs)

    referee = referee_checker(board)
    timed(referee, sample[:500])                      # warm the line-shape cache
    referee_time, refereed = timed(referee, sample[:2000])
    assert refereed == shaped_sample[:2000], "the referee and the shape checker disagree"

    naive_rate = len(sample) / naive_time
    rows = [("naive sampled line", len(sample), naive_time, naive_rate),
            ("referee LOS procedure", len(refereed), referee_time, len(refereed) / referee_time),
            ("trace_line + dict", len(sample), trace_time, len(sample) / trace_time),
            ("shapes (same sample)", len(sample), sample_shape_time, len(sample) / sample_shape_time),
            ("shapes (all pairs)", len(pairs), shape_time, len(pairs) / shape_time),
            ("shapes, open board", len(pairs), open_time, len(pairs) / open_time)]
    print(f"\n{'method':<22}{'checks':>10}{'seconds':>10}{'checks/s':>12}{'vs naive':>10}")
    for name, count, seconds, rate in rows:
        print(f"{name:<22}{count:>10,}{seconds:>10.3f}{rate:>12,.0f}{rate / naive_rate:>9.1f}x")
    blocked = sum(shaped)
    disagree = sum(n != s for n, s in zip(naive, shaped_sample))
    print(f"\nblocked: {blocked:,} of {len(pairs):,} pairs ({blocked / len(pairs):.1%}); the naive line "
          f"gets {disagree} of {len(sample):,} sampled pairs wrong (hexside runs, corners)")
    target = min(len(pairs) / shape_time, len(pairs) / open_time)
    print(f"target >= 100,000 checks/s: {'met' if target >= 100_000 else 'NOT met'} by the line shapes with a "
          f"terrain lookup ({target:,.0f}); the referee's whole LOS procedure, reasons included, runs "
          f"{len(refereed) / referee_time:,.0f}/s")


if __name__ == "__main__":
    main()
