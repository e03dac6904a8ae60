"""Test-wide settings and markers.

Property tests run derandomized, so a test run is reproducible: the same examples
every time, on every machine (CI included). Exploring new random inputs is the job of
``make fuzz``, not of ``make test``. They are not timed either (no deadline, no "too slow"
health check): speed is measured in benchmarks, and a machine shared with other test runs
must not fail a test that is right.

Markers are given by place, so they cannot drift from the truth: every test under
``tests/interop/`` runs VASSAL's classes (or the JDK) under Java and is ``interop``;
the modules that walk whole corpus files (or fuzz them) are listed in ``SLOW`` and all
their tests are ``slow``; elsewhere a test that takes seconds (a whole corpus log, 100,000
seeded rolls) carries ``@pytest.mark.slow`` itself. ``make test-fast`` leaves both out.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("wawkit", derandomize=True, database=None, print_blob=True, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("wawkit")

HERE = Path(__file__).resolve().parent
INTEROP = HERE / "interop"

#: Test modules that walk whole corpus files (every piece, every log step, every save):
#: each takes seconds, together most of the suite's time.
SLOW = frozenset({
    "test_corpus_roundtrip.py", "test_pieces_corpus.py", "test_log.py", "test_migrate.py",
    "test_traits_hypothesis.py", "test_atomic_write.py", "test_batch.py", "test_fuzz_readers.py",
    "test_crash_regressions.py",
})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        path = Path(str(item.path))
        if INTEROP in path.parents:
            item.add_marker(pytest.mark.interop)
        if path.name in SLOW:
            item.add_marker(pytest.mark.slow)
