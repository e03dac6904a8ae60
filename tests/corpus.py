"""Where the shared corpus of real VASSAL files lives, and which of them are saves or logs."""
from __future__ import annotations

import zipfile
from pathlib import Path

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
    found = []
    for path in sorted(CORPUS.rglob("*")):
        if not path.is_file():
            continue
        if path.suffix.lower() in SAVE_SUFFIXES or (path.suffix == "" and _is_save_zip(path)):
            found.append(path)
    return found


def embedded_saves() -> list[tuple[Path, str]]:
    """(module, entry) for every save stored inside a corpus module or extension."""
    found = []
    for path in sorted(CORPUS.rglob("*")):
        if path.is_file() and path.suffix.lower() in ARCHIVE_SUFFIXES:
            with zipfile.ZipFile(path) as archive:
                found.extend((path, name) for name in archive.namelist()
                             if name.lower().endswith(SAVE_SUFFIXES))
    return found
