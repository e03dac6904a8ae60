"""How long ``wawkit validate`` takes to replay a real log, against ``wawkit inspect`` of the same file.

The question: a player validates The Longest Day's logs (0606-1.log: 2,213 steps;
0608-3.log: 3,486 steps) with the module's profile. Validation reads the save, the
module, the profile and the unit table, checks the starting position, then replays every
step in one pass. The baseline is ``inspect`` (what ``wawkit inspect`` computes: read,
de-obfuscate and parse the file, count its pieces, stacks and steps), timed in the same
run. Both run in this process, each from a cold cache (the module, profile and unit
table are read again for every validation, as one command does).

Two readings of each log: the shipped profile (``rules: none``: The Longest Day is not
World at War, so soundness only), and the same profile judged by the classic rules, to
time the referee's part (every unit move priced along its cheapest route, stacking and
markers of what each step changed).

Target: validate with replay at most 20x inspect. Run: ``.venv/bin/python bench/bench_validate.py``.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from converter import validate  # noqa: E402
from converter.cli.codec import describe_save  # noqa: E402
from converter.importer import read_inputs  # noqa: E402
from converter.profile import Rules  # noqa: E402
from converter.report import Report  # noqa: E402
from converter.resolve import ruleset_named  # noqa: E402
from converter.vassal.module import Module  # noqa: E402
from converter.vassal.save import SavedGame  # noqa: E402

TLD = ROOT.parent / "shared" / "corpus" / "tld-longest-day"
LOGS = (TLD / "logs" / "0606-1.log", TLD / "logs" / "0608-3.log")
PROFILE = ROOT / "profiles" / "longest-day.yaml"
TARGET = 20.0


def inspect(path: Path) -> dict[str, Any]:
    """What ``wawkit inspect FILE`` computes."""
    return describe_save(path)


def shipped(path: Path) -> Report:
    """``wawkit validate LOG --module buildFile --profile profiles/longest-day.yaml --units faces.csv``."""
    validate._MODULES.clear()
    validate._JUDGES.clear()
    return validate.validate_path(path, validate.Options(str(TLD / "buildFile"), str(PROFILE),
                                                         units=str(TLD / "faces.csv")))


def judged(path: Path) -> Report:
    """The same, with the profile's rules set to classic (The Untold Stories)."""
    module = Module.read(TLD / "buildFile")
    inputs = read_inputs(PROFILE, TLD / "faces.csv")
    inputs.profile.rules = Rules("classic", "untold")
    judge = validate.Judge(inputs.reader(module), ruleset_named("classic:untold"), "classic:untold")
    save = SavedGame.read(path)
    return validate.validate_save(save, module, file=str(path), board_aliases=inputs.profile.board_aliases,
                                  judge=judge)


def cpu(action: Callable[[], object], repeat: int) -> float:
    """The least CPU time of ``repeat`` calls (seconds): other jobs on the machine do not count."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        action()
        best = min(best, time.process_time() - start)
    return best


READINGS: tuple[tuple[str, Callable[[Path], Report]], ...] = (
    ("profile (rules: none)", shipped), ("judged by classic rules", judged))


def rows(repeat: int = 3) -> list[tuple[str, str, float, float]]:
    """(log, reading, validate seconds, inspect seconds) for each log and reading.

    Rounds interleave the baseline and the validations (each round: ``inspect`` three times,
    then each reading once), so a busy spell of another job on the machine falls on both
    sides of a ratio rather than on one; the least of each counts."""
    found = []
    for path in LOGS:
        base = float("inf")
        took = {reading: float("inf") for reading, _ in READINGS}
        for _ in range(max(2, repeat - 1)):
            base = min(base, cpu(lambda: inspect(path), 3))
            for reading, action in READINGS:
                took[reading] = min(took[reading], cpu(lambda: action(path), 1))
        found.extend((path.name, reading, took[reading], base) for reading, _ in READINGS)
    return found


def main() -> int:
    ok = True
    for name, reading, took, base in rows():
        ratio = took / base
        ok &= ratio <= TARGET
        print(f"{name} {reading}: validate {took:.2f} s, inspect {base:.3f} s = {ratio:.1f}x "
              f"({'met' if ratio <= TARGET else 'NOT met'}: <= {TARGET:.0f}x)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
