"""Module reading speed against lxml's bare parse of the same bytes, measured in one run.

For the largest corpus buildFile and a synthetic 5 MB one (the corpus's PieceSlots
repeated), time (a) ``lxml.etree.fromstring`` alone, (b) ``Module.from_bytes``
(safe parse + typed view of maps, boards and grids), (c) (b) plus every PieceSlot
with its type and state text split out, and (d) (c) plus decoding every slot's piece
down to its traits with :mod:`converter.vassal.pieces`. Each is the least CPU time
(``time.process_time``) of several repeats. The target is within 6x of (a), and under
1 s for 5 MB.

Run: ``.venv/bin/python bench/bench_buildfile.py``
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

from lxml import etree

from converter.vassal.module import Module

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
TARGET_RATIO = 6.0
REPEATS = 5


def best_of(action: Callable[[], object], repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        start = time.process_time()
        action()
        times.append(time.process_time() - start)
    return min(times)


def largest_buildfile() -> Path:
    return max(CORPUS.glob("**/buildFile*"), key=lambda p: p.stat().st_size)


def synthetic(source: bytes, size: int) -> bytes:
    """A module of about ``size`` bytes: the source's PieceSlots repeated inside one PieceWindow."""
    root = etree.fromstring(source)
    slots = [etree.tostring(e) for e in root.iter("VASSAL.build.widget.PieceSlot")]
    head = (b'<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
            b'<VASSAL.build.GameModule name="Synthetic" version="1">\n'
            b'<VASSAL.build.module.PieceWindow name="Pieces"><VASSAL.build.widget.ListWidget entryName="All">\n')
    tail = b"</VASSAL.build.widget.ListWidget></VASSAL.build.module.PieceWindow>\n</VASSAL.build.GameModule>\n"
    body = []
    total = len(head) + len(tail)
    index = 0
    while total < size:
        slot = slots[index % len(slots)]
        body.append(slot + b"\n")
        total += len(slot) + 1
        index += 1
    return head + b"".join(body) + tail


def read_slots(data: bytes) -> int:
    module = Module.from_bytes(data)
    return sum(len(slot.type_text) for slot in module.piece_slots)


def read_with_traits(data: bytes) -> int:
    module = Module.from_bytes(data)
    return sum(len(slot.piece().traits) for slot in module.piece_slots)


def main() -> None:
    largest = largest_buildfile()
    cases = [(largest.relative_to(CORPUS).as_posix(), largest.read_bytes())]
    cases.append(("synthetic 5 MB", synthetic(cases[0][1], 5 * 1024 * 1024)))
    print(f"{'buildFile':<34} {'MB':>5} {'slots':>6} {'lxml s':>7} {'view s':>7} {'slots s':>7} "
          f"{'traits s':>8} {'view x':>6} {'slots x':>7} {'traits x':>8}")
    for label, data in cases:
        bare = best_of(lambda: etree.fromstring(data))
        view = best_of(lambda: Module.from_bytes(data).maps)
        texts = best_of(lambda: read_slots(data))
        full = best_of(lambda: read_with_traits(data))
        slots = len(Module.from_bytes(data).piece_slots)
        print(f"{label:<34} {len(data) / 1e6:5.2f} {slots:6d} {bare:7.3f} {view:7.3f} {texts:7.3f} {full:8.3f} "
              f"{view / bare:6.1f} {texts / bare:7.1f} {full / bare:8.1f}")
    print(f"target: within {TARGET_RATIO}x of lxml, and under 1.0 s for 5 MB "
          "(the traits column is dominated by converter.vassal.pieces.decode_piece)")


if __name__ == "__main__":
    main()
