"""Every save and log of the shared corpus decodes and re-encodes without losing a byte.

Also the home of the corpus helpers the other codec tests import: where the corpus
is, and which of its files (or of the entries of its modules) are saves or logs.
"""
from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from converter.vassal.commands import AddPiece, LogStep
from converter.vassal.container import read_container
from converter.vassal.save import SavedGame

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
SAVE_SUFFIXES = (".vsav", ".vlog", ".sav", ".log")
ARCHIVE_SUFFIXES = (".vmod", ".vmdx", ".mod")


def _is_save_zip(path: Path) -> bool:
    try:
        with zipfile.ZipFile(path) as archive:
            return "savedGame" in archive.namelist()
    except (zipfile.BadZipFile, OSError):
        return False


def corpus_saves() -> list[Path]:
    """Every save and log file: by suffix, plus extension-less zips holding ``savedGame``."""
    return [path for path in sorted(CORPUS.rglob("*")) if path.is_file() and (
        path.suffix.lower() in SAVE_SUFFIXES or (path.suffix == "" and _is_save_zip(path)))]


def embedded_saves() -> list[tuple[Path, str]]:
    """(module, entry) for every save stored inside a corpus module or extension."""
    found = []
    for path in sorted(CORPUS.rglob("*")):
        if path.is_file() and path.suffix.lower() in ARCHIVE_SUFFIXES:
            with zipfile.ZipFile(path) as archive:
                found.extend((path, name) for name in archive.namelist() if name.lower().endswith(SAVE_SUFFIXES))
    return found


SAVES = corpus_saves()


def _round_trip(data: bytes, name: str) -> SavedGame:
    game = SavedGame.from_bytes(data, file=name)
    original = game.container
    assert game.to_text() == original.text
    assert game.to_plaintext() == original.plaintext
    written = read_container(game.to_bytes(), file=name)
    assert written.plaintext == original.plaintext
    assert written.obfuscation == original.obfuscation
    assert [(e.name, e.data) for e in written.entries if e.name != "savedGame"] == \
        [(e.name, e.data) for e in original.entries if e.name != "savedGame"]
    assert [e.name for e in written.entries] == [e.name for e in original.entries]
    return game


def test_the_corpus_is_found() -> None:
    names = {p.relative_to(CORPUS).as_posix() for p in SAVES}
    assert len(SAVES) == 33
    assert {"vassal-tour/tour.log", "paths-of-glory/Historical10-8.vsav",
            "ccn-napoleonics/CCNv4 Tutorial.vlog", "tld-longest-day/logs/0606-1.log"} <= names


@pytest.mark.parametrize("path", SAVES, ids=[p.relative_to(CORPUS).as_posix() for p in SAVES])
def test_corpus_file_round_trips(path: Path) -> None:
    game = _round_trip(path.read_bytes(), str(path))
    kinds = [c.kind for c in game.commands()]
    assert kinds[0] == "begin_save" and kinds.count("end_save") == 1
    assert any(isinstance(c, AddPiece) for c in game.commands()) or any(
        isinstance(c, AddPiece) for step in game.log_steps for c in step.commands()) or "empty" in path.name
    if path.suffix in (".vlog", ".log"):
        assert any(isinstance(c, LogStep) for c in game.commands())


@pytest.mark.parametrize("module,entry", embedded_saves() or [pytest.param(None, None, id="none")])
def test_saves_inside_modules_round_trip(module: Path | None, entry: str | None) -> None:
    if module is None:
        # The corpus modules hold no predefined-setup saves today; the walk itself is what is tested.
        assert [m.name for m in CORPUS.rglob("*") if m.suffix in ARCHIVE_SUFFIXES] != []
        return
    with zipfile.ZipFile(module) as archive:
        _round_trip(archive.read(entry), f"{module}!{entry}")


def test_known_counts() -> None:
    """Counts the corpus README states, recomputed from the decoded tree."""
    tour = SavedGame.read(CORPUS / "vassal-tour" / "tour.log")
    assert len(tour.log_steps) == 191
    assert len(tour.pieces) == 17
    ccn = SavedGame.read(CORPUS / "ccn-napoleonics" / "CCNv4 Tutorial.vlog")
    assert len(ccn.log_steps) == 2236
    assert ccn.container.text.count("\x1b") == 45024
