"""``make bench``: every benchmark in one run, as one table of ratios against baselines.

Each row times a wawkit operation (the product's own code path, never a copy) and, in the
same run, the baseline it is judged against, both in CPU time, so the ratio holds on any
machine and other jobs sharing it count little:

* whole ``wawkit --help`` and ``wawkit inspect`` processes against ``python -c "import
  zipfile"`` -- ``bench_startup.py``;
* decoding a save against the decode floor (unzip, de-obfuscate, split on ESC), and how
  the time per piece grows from 1,500 to 150,000 pieces -- ``bench_decode.py``;
* reading a module against lxml's bare parse of the same bytes -- ``bench_buildfile.py``;
* the referee's line-of-sight checks against a naive sampled line, and its answers against
  the ones recorded before the integer walk -- ``bench_los.py``;
* exact combat odds against plain ``Fraction`` arithmetic and against sampling --
  ``bench_odds.py``;
* validating a real log with its replay against ``wawkit inspect`` of the same file --
  ``bench_validate.py``;

plus the peak memory (``tracemalloc``) of decoding the largest save of the corpus to
typed pieces. A ``bench_*.py`` this script has no row for is run as it is and listed
with its exit status, so a new benchmark is never silently skipped.

The table is printed and written to ``bench/RESULTS.md`` together with the figures of
the last ``make fuzz`` run (``fuzz/last-run.json``). ``--no-write`` only prints.
"""
from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import platform
import random
import subprocess
import sys
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Callable

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from lxml import etree  # noqa: E402

RESULTS = BENCH / "RESULTS.md"
FUZZ_REPORT = ROOT / "fuzz" / "last-run.json"


@dataclass
class Row:
    """One line of the table: what was timed, against what, and the target it answers."""

    bench: str
    case: str
    measured: str
    baseline: str
    ratio: float | None
    target: str
    met: bool | None

    @property
    def verdict(self) -> str:
        return "-" if self.met is None else ("met" if self.met else "NOT met")


def load(name: str) -> ModuleType:
    """Import ``bench/<name>.py`` as a module (the scripts are not a package)."""
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def best(action: Callable[[], object], repeat: int) -> float:
    """The least CPU time of ``repeat`` calls (seconds): other jobs on the machine do not count."""
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.process_time()
        action()
        times.append(time.process_time() - start)
    return min(times)


def best_interleaved(actions: list[Callable[[], object]], repeat: int) -> list[float]:
    """The least CPU time of each action over ``repeat`` rounds, each round running every
    action once in turn: a baseline and what is compared with it see the same load, where
    timing all repeats of one before the other lets a busy neighbour favour either."""
    times: list[list[float]] = [[] for _ in actions]
    for _ in range(repeat):
        for action, taken in zip(actions, times):
            gc.collect()
            start = time.process_time()
            action()
            taken.append(time.process_time() - start)
    return [min(taken) for taken in times]


def seconds(value: float) -> str:
    return f"{value * 1e3:.3f} ms" if value < 0.01 else f"{value:.3f} s"


def decode_rows(repeat: int) -> list[Row]:
    """The largest corpus save, then the issue's scaling: synthetic saves of 1,500 to 150,000
    pieces, CPU time from a cold type cache, each against its own floor (``bench_decode.py``)."""
    bench = load("bench_decode")
    largest = bench.largest_corpus_save()
    data = largest.read_bytes()
    floor = bench.best_of(bench.floor, data, repeat)
    baseline = f"floor {seconds(floor)}"
    rows = [Row("decode", f"{largest.name}: {label}", seconds(took), baseline, took / floor, "", None)
            for label, fn in (("command tree + piece index", bench.tree), ("typed pieces", bench.typed),
                              ("typed pieces, every trait object made", bench.every_trait),
                              ("re-encode + zip", bench.write))
            for took in [bench.best_of(fn, data, repeat)]]
    scaling = bench.scaling(repeat)
    for size in scaling:
        per_piece = size["typed"] / size["pieces"] * 1e6
        rows.append(Row("decode", f"synthetic {size['pieces']:,} pieces: typed pieces ({per_piece:.1f} us a piece)",
                        seconds(size["typed"]), f"floor {seconds(size['floor'])}", size["typed"] / size["floor"],
                        f"<= {bench.FLOOR_TARGET:g}x floor" if size is scaling[-1] else "",
                        size["typed"] / size["floor"] <= bench.FLOOR_TARGET if size is scaling[-1] else None))
    large = scaling[-1]
    rows.append(Row("decode", f"synthetic {large['pieces']:,} pieces: typed, every trait object made",
                    seconds(large["traits"]), f"floor {seconds(large['floor'])}", large["traits"] / large["floor"],
                    "", None))
    small = scaling[0]
    spread = (large["typed"] / large["pieces"]) / (small["typed"] / small["pieces"])
    rows.append(Row("decode", f"us a piece at {large['pieces']:,} against {small['pieces']:,} pieces",
                    f"{large['typed'] / large['pieces'] * 1e6:.1f} us", f"{small['typed'] / small['pieces'] * 1e6:.1f} us",
                    spread, f"<= {bench.SPREAD_TARGET:g}x", spread <= bench.SPREAD_TARGET))
    memory = large["typed_peak"] / large["floor_peak"]
    rows.append(Row("decode", f"synthetic {large['pieces']:,} pieces: typed peak memory (tracemalloc)",
                    f"{large['typed_peak'] / (1 << 20):,.0f} MB", f"floor {large['floor_peak'] / (1 << 20):,.0f} MB",
                    memory, f"<= {bench.MEMORY_TARGET:g}x floor's", memory <= bench.MEMORY_TARGET))
    return rows


def startup_rows(runs: int) -> list[Row]:
    """Whole ``wawkit`` processes in CPU time against ``python -c "import zipfile"`` (``bench_startup.py``)."""
    bench = load("bench_startup")
    return [Row("startup", case, seconds(took), f"import zipfile {seconds(base)}", ratio,
                f"<= {bench.STARTUP_TARGET:g}x", ratio <= bench.STARTUP_TARGET)
            for case, took, base, ratio in bench.startup(runs)]


def buildfile_rows(repeat: int) -> list[Row]:
    bench = load("bench_buildfile")
    largest = bench.largest_buildfile()
    source = largest.read_bytes()
    rows = []
    for label, data, five_mb in ((largest.relative_to(bench.CORPUS).as_posix(), source, False),
                                 ("synthetic 5 MB", bench.synthetic(source, 5 * 1024 * 1024), True)):
        bare, view, slots, traits = best_interleaved(
            [lambda: etree.fromstring(data), lambda: bench.Module.from_bytes(data).maps,
             lambda: bench.read_slots(data), lambda: bench.read_with_traits(data)], max(repeat, 7))
        size = f"{len(data) / 1e6:.1f} MB"
        baseline = f"lxml {seconds(bare)}"
        # The target is the whole read "including every PieceSlot's traits"; the
        # lighter steps are shown for where the time goes.
        for step, took in (("safe parse + maps, boards, grids", view), ("+ every PieceSlot's text", slots)):
            rows.append(Row("buildFile", f"{label} ({size}): {step}", seconds(took), baseline, took / bare,
                            "", None))
        rows.append(Row("buildFile", f"{label} ({size}): + every piece's traits", seconds(traits), baseline,
                        traits / bare, "<= 6x lxml", traits / bare <= 6.0))
        if five_mb:
            rows.append(Row("buildFile", f"{label} ({size}): + every piece's traits", seconds(traits), "-", None,
                            "< 1 s", traits < 1.0))
    return rows


def los_rows(sample_size: int) -> list[Row]:
    """The referee's own LOS function and procedure on a real position (``bench_los.py``)."""
    bench = load("bench_los")
    m = bench.measure(sample_size)
    naive = m["naive_rate"]
    rows = []
    for case, key, target in (("referee los.sight, all pairs within 20 hexes", "referee_rate", bench.TARGET),
                              ("referee los.sight, open board", "open_rate", bench.TARGET),
                              ("ruleset.check(los), 2,000 positions", "check_rate", None)):
        rate = m[key]
        rows.append(Row("LOS", case, f"{rate:,.0f} checks/s", f"naive line {naive:,.0f}/s", rate / naive,
                        f">= {target:,} checks/s" if target else "", rate >= target if target else None))
    same, recorded, fixed = m["recorded_same"], m["recorded_pairs"], m["recorded_fixed"]
    rows.append(Row("LOS", f"los.sight on the {recorded:,} recorded pairs: answers as before the rewrite",
                    f"{same:,} same", f"{recorded:,} recorded", None,
                    "same, but for rule fixes", same + fixed == recorded and m["recorded_unexplained"] == 0))
    return rows


def odds_rows(repeat: int) -> list[Row]:
    bench = load("bench_odds")
    assert bench.with_odds(10, 10) == bench.with_fractions(10, 10)
    fast = bench.best_time(lambda: bench.with_odds(10, 10), repeat)
    slow = bench.best_time(lambda: bench.with_fractions(10, 10), repeat)
    start = time.perf_counter()
    bench.by_sampling(10, 10)
    sampled = time.perf_counter() - start
    return [Row("odds", "10 v 10 dice, exact distribution", seconds(fast), f"Fractions {seconds(slow)}",
                fast / slow, "< 1 ms", fast < 1e-3),
            Row("odds", "10 v 10 dice, exact distribution", seconds(fast), f"100,000 rolls {seconds(sampled)}",
                fast / sampled, "", None)]


def validate_rows(repeat: int) -> list[Row]:
    bench = load("bench_validate")
    return [Row("validate", f"{name} with replay, {reading}", seconds(took), f"inspect {seconds(base)}", took / base,
                f"<= {bench.TARGET:.0f}x inspect", took / base <= bench.TARGET)
            for name, reading, took, base in bench.rows(repeat)]


def memory_row() -> Row:
    bench = load("bench_decode")
    largest = bench.largest_corpus_save()
    data = largest.read_bytes()
    gc.collect()
    tracemalloc.start()
    pieces = bench.typed(data)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    mb = peak / (1 << 20)
    return Row("memory", f"{largest.name}: {pieces:,} typed pieces (tracemalloc peak)", f"{mb:,.0f} MB",
               f"file {len(data) / (1 << 20):.1f} MB", mb / (len(data) / (1 << 20)), "< 500 MB", mb < 500)


#: Benchmarks with rows above; any other ``bench_*.py`` is run as a script.
ADAPTED = {"bench_decode", "bench_buildfile", "bench_los", "bench_odds", "bench_validate", "bench_startup"}


def other_rows() -> list[Row]:
    rows = []
    for path in sorted(BENCH.glob("bench_*.py")):
        if path.stem in ADAPTED:
            continue
        start = time.perf_counter()
        done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, cwd=ROOT,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        took = time.perf_counter() - start
        last = (done.stdout.strip().splitlines() or [""])[-1][:60]
        rows.append(Row(path.stem.removeprefix("bench_"), last or "(no output)", seconds(took), "-", None,
                        "exit 0", done.returncode == 0))
    return rows


def ratio(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}x" if value >= 0.01 else f"{value:.1e}x"


def gaps(rows: list[Row]) -> str:
    """One line per target not met: what was measured against what was asked."""
    missed = [r for r in rows if r.met is False]
    if not missed:
        return "Every target is met.\n"
    lines = [f"- {r.bench}, {r.case}: {r.measured}" + (f" = {ratio(r.ratio)} the baseline ({r.baseline})"
                                                        if r.ratio is not None else "") + f"; target {r.target}."
             for r in missed]
    return "Gaps (targets not met in this run):\n\n" + "\n".join(lines) + "\n"


def table(rows: list[Row]) -> str:
    """The rows as one Markdown table (readable as plain text too)."""
    head = ["bench", "case", "measured", "baseline (same run)", "ratio", "target", "verdict"]
    body = [[r.bench, r.case, r.measured, r.baseline, ratio(r.ratio), r.target or "-", r.verdict] for r in rows]
    widths = [max(len(line[i]) for line in [head, *body]) for i in range(len(head))]
    lines = ["| " + " | ".join(cell.ljust(w) for cell, w in zip(line, widths)) + " |" for line in [head, *body]]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def fuzz_section() -> str:
    """The figures of the last long fuzz run, if there was one."""
    if not FUZZ_REPORT.is_file():
        return "No `make fuzz` run recorded yet (fuzz/last-run.json is missing).\n"
    report = json.loads(FUZZ_REPORT.read_text(encoding="utf-8"))
    lines = [f"`make fuzz` finished {report['finished']}: {report['total_inputs']:,} inputs on "
             f"{report['workers']} workers in {report['seconds']:,.0f} s (seed {report['seed']}), "
             f"{report['total_crashes']} crashes (exceptions other than the typed errors, or inputs over "
             f"{report['timeout']:.0f} s{' of CPU' if report.get('clock') == 'cpu' else ''}), peak memory per worker {report['peak_rss_mb']:,.0f} MB (max RSS).", "",
             "| target | inputs | typed errors | crashes | slowest input |", "|---|---:|---:|---:|---:|"]
    for name in sorted(report["inputs"]):
        lines.append(f"| {name} | {report['inputs'][name]:,} | {report['typed_errors'].get(name, 0):,} | "
                     f"{report['crashes'].get(name, 0):,} | {report['slowest'][name]:.3f} s |")
    history = FUZZ_REPORT.with_name("history.jsonl")
    if history.is_file():
        lines += ["", "Every recorded run (crashes found are fixed, and their inputs replayed by the tests, "
                  "before the next run):", "", "| finished | seed | inputs | crashes by target | slowest input |",
                  "|---|---:|---:|---|---:|"]
        for line in history.read_text(encoding="utf-8").splitlines():
            run = json.loads(line)
            found = ", ".join(f"{k} {v}" for k, v in sorted(run["crashes"].items())) or "none"
            lines.append(f"| {run['finished']} | {run['seed']} | {run['total_inputs']:,} | {found} | "
                         f"{max(run['slowest'].values()):.3f} s |")
    return "\n".join(lines) + "\n"


def with_fuzz_section(text: str) -> str:
    """``text`` (bench/RESULTS.md) with its fuzzing section, the last one, replaced by the last run's."""
    head, marker, _ = text.rpartition("\n## Fuzzing\n")
    return f"{head if marker else text.rstrip()}\n## Fuzzing\n\n{fuzz_section()}"


def load_average() -> str:
    """The machine's 1-minute load average: how many jobs shared its CPUs (the ratios hold
    because each baseline runs in the same conditions; the seconds do not)."""
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "unknown"


def results(rows: list[Row], took: float, loads: tuple[str, str]) -> str:
    machine = (f"{platform.python_implementation()} {platform.python_version()}, {platform.system()} "
               f"{platform.machine()}, {os.cpu_count()} CPUs, load average {loads[0]} at the start and "
               f"{loads[1]} at the end")
    met = sum(1 for r in rows if r.met)
    judged = sum(1 for r in rows if r.met is not None)
    return (f"# Benchmark results\n\nThe last `make bench` ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
            f"{machine}; {took:.0f} s). Each ratio is against a baseline timed in the same run, so it holds "
            f"across machines; times are the best of several repeats. Targets met: {met} of {judged}.\n\n"
            f"{table(rows)}\n\n{gaps(rows)}\n## Fuzzing\n\n{fuzz_section()}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="Repeats per timing (the best counts).")
    parser.add_argument("--los-sample", type=int, default=20_000, help="Pairs timed for the slow LOS methods.")
    parser.add_argument("--startup-runs", type=int, default=9, help="Paired runs per start-up command.")
    parser.add_argument("--no-write", action="store_true", help="Print only; leave bench/RESULTS.md as it is.")
    parser.add_argument("--fuzz-only", action="store_true",
                        help="Only rewrite the fuzzing section of bench/RESULTS.md from fuzz/last-run.json "
                             "(after a `make fuzz`), keeping the timings of the last benchmark run.")
    args = parser.parse_args(argv)
    if args.fuzz_only:
        print(fuzz_section(), end="")
        if not args.no_write:
            RESULTS.write_text(with_fuzz_section(RESULTS.read_text(encoding="utf-8")), encoding="utf-8")
            print(f"\nwrote {RESULTS.relative_to(ROOT)}")
        return 0
    start, load_before = time.perf_counter(), load_average()
    rows = [*startup_rows(args.startup_runs), *decode_rows(args.repeat), *buildfile_rows(args.repeat),
            *los_rows(args.los_sample), *odds_rows(args.repeat), *validate_rows(args.repeat), memory_row(),
            *other_rows()]
    took = time.perf_counter() - start
    print(table(rows))
    print()
    print(gaps(rows), end="")
    if not args.no_write:
        RESULTS.write_text(results(rows, took, (load_before, load_average())), encoding="utf-8")
        print(f"\nwrote {RESULTS.relative_to(ROOT)}")
    return 0 if all(r.met is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
