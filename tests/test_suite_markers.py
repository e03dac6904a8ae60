"""The suite's markers say the truth: a test that runs Java lives in tests/interop/ (and so
is ``interop``, see conftest.py), and no test module outside it reaches for the engine."""
from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
JAVA = re.compile(r"tests\.interop\.engine|\brun_java\b|engine_classpath|subprocess\.run\(\[\"java")


def test_every_module_that_runs_java_lives_in_the_interop_folder() -> None:
    outside = sorted(str(path.relative_to(TESTS)) for path in TESTS.rglob("test_*.py")
                     if path != Path(__file__).resolve() and "interop" not in path.relative_to(TESTS).parts and JAVA.search(path.read_text("utf-8")))
    assert outside == []


def test_the_interop_folder_holds_the_java_harnesses() -> None:
    """Besides VASSAL's engine under Java, the interop folder holds the one test that drives
    a real browser (Debian's chromium) against ``wawkit serve``."""
    modules = sorted(p.name for p in (TESTS / "interop").glob("test_*.py"))
    java = ["test_codec_interop.py", "test_grid_interop.py", "test_hexes_interop.py",
            "test_javafmt_interop.py", "test_migrate_interop.py", "test_pieces_interop.py",
            "test_sequence_interop.py"]
    assert modules == sorted([*java, "test_web_browser.py"])
    assert all(JAVA.search((TESTS / "interop" / name).read_text("utf-8")) for name in java)
    assert "browser_paths" in (TESTS / "interop" / "test_web_browser.py").read_text("utf-8")
