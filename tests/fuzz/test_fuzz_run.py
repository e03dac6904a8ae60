"""The long-run driver behind ``make fuzz``: counts, crash files and the JSON report."""
from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest

from fuzz import run as fuzz_run
from fuzz.targets import CRASHES, TARGETS


def _saved_crashes() -> list[str]:
    return sorted(str(p.relative_to(CRASHES)) for p in CRASHES.rglob("*"))


def test_a_short_run_reads_every_target_the_same_number_of_times(tmp_path: Path) -> None:
    report = tmp_path / "run.json"
    total = 10 * len(TARGETS)
    kept = _saved_crashes()
    code = fuzz_run.main(["--inputs", str(total), "--workers", "1", "--seed", "3", "--memory-mb", "0",
                          "--report", str(report), "--crashes", str(tmp_path / "crashes")])
    figures = json.loads(report.read_text(encoding="utf-8"))
    # a test run writes nothing into the repository: no crash file beside the regression inputs
    assert _saved_crashes() == kept
    assert not (tmp_path / "crashes").exists(), sorted(map(str, (tmp_path / "crashes").rglob("*.txt")))
    assert code == 0
    assert figures["total_inputs"] == total and figures["total_crashes"] == 0
    assert figures["inputs"] == {name: 10 for name in TARGETS}
    assert figures["seed"] == 3 and figures["workers"] == 1
    assert all(0 <= seconds < 2.0 for seconds in figures["slowest"].values())
    history = (tmp_path / "history.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in history] == [figures]


def test_an_untyped_exception_and_a_timeout_are_saved_as_crashes(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(data: bytes) -> None:
        raise KeyError("not a typed error")

    def endless(data: bytes) -> None:
        while True:        # a reader stuck in a loop: its CPU time runs out
            pass

    def blocked(data: bytes) -> None:
        time.sleep(5)      # a reader waiting on something: its wall time runs out

    monkeypatch.setitem(TARGETS, "broken", broken)
    monkeypatch.setitem(TARGETS, "endless", endless)
    monkeypatch.setitem(TARGETS, "blocked", blocked)
    monkeypatch.setattr(fuzz_run, "seeds", lambda: {"broken": [b"abc"], "endless": [b"xyz"], "blocked": [b"z"]})
    monkeypatch.setattr(fuzz_run, "CRASHES", tmp_path)
    figures = fuzz_run.work(0, 6, ["broken", "endless", "blocked"], 1, 0.02, 0, False)
    assert figures.inputs == {"broken": 2, "endless": 2, "blocked": 2}
    assert figures.crashes == {"broken": 2, "endless": 2, "blocked": 2}
    assert sorted(p.parent.name for p in tmp_path.glob("*/*.bin")) == ["blocked", "broken", "endless"]  # one per kind
    reports = {p.parent.name: p.read_text(encoding="utf-8") for p in tmp_path.glob("*/*.txt")}
    assert reports["broken"].startswith("broken:KeyError@test_fuzz_run.py:")
    assert reports["endless"].startswith("endless:Timeout@")
    assert reports["blocked"].startswith("blocked:Timeout@")


def test_waiting_for_a_cpu_is_not_blocking(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a loaded machine an input may wait far longer for a core than it runs: only the time it
    spent neither running nor waiting for a CPU counts against the wall-clock limit."""
    def crowded(data: bytes) -> None:
        time.sleep(0.5)    # as long as the machine keeps it waiting: 25 times the CPU limit, 1.7 times the wall's

    monkeypatch.setitem(TARGETS, "crowded", crowded)
    monkeypatch.setattr(fuzz_run, "seeds", lambda: {"crowded": [b"c"]})
    monkeypatch.setattr(fuzz_run, "_busy", time.perf_counter)  # every moment spent running or on a run queue
    figures = fuzz_run.work(0, 2, ["crowded"], 1, 0.02, 0, False, tmp_path)
    assert (figures.inputs, figures.crashes) == ({"crowded": 2}, {})
    assert list(tmp_path.iterdir()) == []


def test_the_run_queue_delay_is_read_from_the_kernel() -> None:
    ran, waited = (int(v) for v in fuzz_run.SCHEDSTAT.read_text().split()[:2])
    before = fuzz_run._busy()
    sum(range(2_000_000))
    assert before >= (ran + waited) / 1e9 and fuzz_run._busy() > before


def test_mutations_are_reproducible_from_the_seed() -> None:
    first = fuzz_run.Mutator(random.Random(7))
    second = fuzz_run.Mutator(random.Random(7))
    seed = b"+/123/piece;;;u.png;Unit/Main Map;10;20"
    assert [first.bytes(seed, b"other") for _ in range(50)] == [second.bytes(seed, b"other") for _ in range(50)]
