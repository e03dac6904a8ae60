"""Start-up: whole commands as a player runs them, in CPU time, against ``import zipfile``.

Each command is started as its own process (the installed ``wawkit`` script of this
environment, bytecode caching on as for any user, one warm-up run first) and its CPU time
(user + system, the operating system's accounting of the finished child) is read with
``resource.getrusage(RUSAGE_CHILDREN)``. A command and its baseline run in turn, A B A B,
and the ratio is taken pair by pair (the median counts), so a machine that speeds up or
slows down during the run moves both.

``wawkit --help`` and ``wawkit inspect`` of the 1 KB sample save, against
``python -c "import zipfile"`` run by the same interpreter. Target: at most 3x each.

Run: ``.venv/bin/python bench/bench_startup.py`` (``--runs N`` pairs per command).
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_SAVE = ROOT / "samples" / "demo.vsav"
STARTUP_TARGET = 3.0


def wawkit() -> list[str]:
    """The ``wawkit`` command of this environment (its console script, else the module)."""
    script = Path(sys.executable).parent / "wawkit"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from converter.cli import main; sys.exit(main())"]


def environment() -> dict[str, str]:
    """The environment a player has: bytecode is cached (a checkout may switch it off)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def cpu(command: list[str], env: dict[str, str]) -> float:
    """CPU seconds (user + system) of one run of ``command``; its output is discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=ROOT, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def paired(command: list[str], baseline: list[str], runs: int) -> tuple[float, float, float]:
    """(median CPU of ``command``, median CPU of ``baseline``, median of the pair ratios)."""
    env = environment()
    cpu(command, env)
    cpu(baseline, env)
    times, bases, ratios = [], [], []
    for _ in range(runs):
        a, b = cpu(command, env), cpu(baseline, env)
        times.append(a)
        bases.append(b)
        ratios.append(a / b if b > 0 else float("inf"))
    return statistics.median(times), statistics.median(bases), statistics.median(ratios)


def startup(runs: int = 9) -> list[tuple[str, float, float, float]]:
    """(case, command CPU, baseline CPU, ratio) for ``--help`` and ``inspect`` of the sample save."""
    zipfile_import = [sys.executable, "-c", "import zipfile"]
    size = SAMPLE_SAVE.stat().st_size
    return [(f"wawkit {label}", *paired(wawkit() + args, zipfile_import, runs))
            for label, args in (("--help", ["--help"]),
                                (f"inspect {SAMPLE_SAVE.name} ({size:,} bytes)", ["inspect", str(SAMPLE_SAVE)]))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="paired runs per command")
    args = parser.parse_args()
    print(f"{'command':<50} {'cpu s':>7} {'baseline s':>10} {'ratio':>7}  target")
    for case, took, base, ratio in startup(args.runs):
        print(f"{case:<50} {took:7.3f} {base:10.3f} {ratio:6.2f}x  <= {STARTUP_TARGET:g}x "
              f"{'met' if ratio <= STARTUP_TARGET else 'NOT met'} (vs python -c 'import zipfile')")
    return 0


if __name__ == "__main__":
    sys.exit(main())
