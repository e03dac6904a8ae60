"""bench/run.py --fuzz-only: the fuzzing section of bench/RESULTS.md rewritten from the last
``make fuzz`` report, the benchmark's timings above it left as they were."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def bench_run(monkeypatch: pytest.MonkeyPatch):
    """bench/run.py as a module (bench/ is a folder of scripts, not a package)."""
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "bench" / "run.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_run", module)  # its dataclasses look their module up
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


REPORT = {"seed": 7, "workers": 2, "timeout": 2.0, "clock": "cpu", "finished": "2026-12-02 06:10 UTC",
          "inputs": {"save": 600, "actions_file": 400}, "typed_errors": {"save": 12}, "crashes": {},
          "slowest": {"save": 0.25, "actions_file": 0.0312}, "peak_rss_mb": 51.2, "seconds": 640.4,
          "total_inputs": 1000, "total_crashes": 0}


def test_fuzz_only_replaces_the_fuzzing_section_and_keeps_the_timings(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    run = bench_run(monkeypatch)
    (tmp_path / "last-run.json").write_text(json.dumps(REPORT), encoding="utf-8")
    (tmp_path / "history.jsonl").write_text(json.dumps(REPORT) + "\n", encoding="utf-8")
    results = tmp_path / "RESULTS.md"
    results.write_text("# Benchmarks\n\n| timing | 1.0 s |\n\n## Fuzzing\n\nan older run\n", encoding="utf-8")
    monkeypatch.setattr(run, "FUZZ_REPORT", tmp_path / "last-run.json")
    monkeypatch.setattr(run, "RESULTS", results)
    monkeypatch.setattr(run, "ROOT", tmp_path)
    assert run.main(["--fuzz-only"]) == 0
    assert results.read_text(encoding="utf-8").splitlines() == [
        "# Benchmarks", "", "| timing | 1.0 s |", "", "## Fuzzing", "",
        "`make fuzz` finished 2026-12-02 06:10 UTC: 1,000 inputs on 2 workers in 640 s (seed 7), 0 crashes "
        "(exceptions other than the typed errors, or inputs over 2 s of CPU), peak memory per worker 51 MB (max RSS).",
        "",
        "| target | inputs | typed errors | crashes | slowest input |", "|---|---:|---:|---:|---:|",
        "| actions_file | 400 | 0 | 0 | 0.031 s |", "| save | 600 | 12 | 0 | 0.250 s |",
        "", "Every recorded run (crashes found are fixed, and their inputs replayed by the tests, before the next run):",
        "", "| finished | seed | inputs | crashes by target | slowest input |", "|---|---:|---:|---|---:|",
        "| 2026-12-02 06:10 UTC | 7 | 1,000 | none | 0.250 s |"]
    again = results.read_text(encoding="utf-8")
    assert run.main(["--fuzz-only"]) == 0 and results.read_text(encoding="utf-8") == again  # run twice: the same
