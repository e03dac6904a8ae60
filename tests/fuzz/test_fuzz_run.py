"""The long-run driver behind ``make fuzz``: counts, crash files and the JSON report."""
from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest

from fuzz import run as fuzz_run
from fuzz.targets import TARGETS


def test_a_short_run_reads_every_target_the_same_number_of_times(tmp_path: Path) -> None:
    report = tmp_path / "run.json"
    total = 10 * len(TARGETS)
    code = fuzz_run.main(["--inputs", str(total), "--workers", "1", "--seed", "3", "--memory-mb", "0",
                          "--report", str(report)])
    figures = json.loads(report.read_text(encoding="utf-8"))
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


def test_mutations_are_reproducible_from_the_seed() -> None:
    first = fuzz_run.Mutator(random.Random(7))
    second = fuzz_run.Mutator(random.Random(7))
    seed = b"+/123/piece;;;u.png;Unit/Main Map;10;20"
    assert [first.bytes(seed, b"other") for _ in range(50)] == [second.bytes(seed, b"other") for _ in range(50)]
