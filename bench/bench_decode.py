"""How fast a save decodes, as a ratio to the floor measured in the same run.

The floor is the least any reader must do: unzip ``savedGame``, de-obfuscate it and
split the plaintext on ESC. Against it we time, in CPU time,

* ``tree``: :class:`SavedGame` read (the lossless command tree and the piece index);
* ``typed``: the same, plus every piece decoded to its typed view (traits), as the readers
  that look at every piece do it (``SavedGame.decode_pieces``);
* ``traits``: ``typed``, then every piece's trait objects made (a piece makes them on the
  first read of ``piece.traits``, so ``typed`` alone leaves them to the reader);
* ``write``: re-encoding the unchanged save and zipping it again;

for the largest save in the shared corpus, and ``typed`` for synthetic saves of 1,500,
15,000 and 150,000 pieces (two-piece stacks of units with a Layer, Markers and a
BasicPiece with persistent properties, as a 3.7 save writes them; every unit its own type
text, so each is split afresh). Every repeat starts with the type cache cleared, as a
fresh process would. Memory is the peak traced by ``tracemalloc`` while the result is
held, against the floor's.

Targets (synthetic saves): microseconds per piece within 1.3x from 1,500 to 150,000
pieces; at most 6x the floor at 150,000; memory at most 2x the floor's.

Run: ``.venv/bin/python bench/bench_decode.py`` (``--repeat N`` for more rounds).
"""
from __future__ import annotations

import argparse
import gc
import io
import sys
import time
import tracemalloc
import zipfile
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from converter.vassal.commands import collector_paused  # noqa: E402
from converter.vassal.limits import GIB, Limits  # noqa: E402
from converter.vassal.obfuscation import VCSK, Obfuscation, deobfuscate, obfuscate  # noqa: E402
from converter.vassal.pieces import clear_type_cache  # noqa: E402
from converter.vassal.save import SavedGame  # noqa: E402
from converter.vassal.sequence import join  # noqa: E402

#: Pieces (AddPiece commands) of the synthetic saves: two units and their stack per three.
SIZES = (1_500, 15_000, 150_000)
SPREAD_TARGET, FLOOR_TARGET, MEMORY_TARGET = 1.3, 6.0, 2.0

#: The 150,000-piece save (31 M characters) is over the default ``max_memory`` estimate
#: (400 MiB); it is read as a caller with such saves would, with a larger cap.
LIMITS = Limits(max_memory=2 * GIB)

CORPUS = ROOT.parent / "shared" / "corpus"
SAVE_SUFFIXES = (".vsav", ".vlog", ".sav", ".log")


def largest_corpus_save() -> Path:
    saves = [p for p in CORPUS.rglob("*") if p.is_file() and p.suffix in SAVE_SUFFIXES]
    def plain_size(path: Path) -> int:
        with zipfile.ZipFile(path) as archive:
            return archive.getinfo("savedGame").file_size
    return max(saves, key=plain_size)


def synthetic_save(pieces: int) -> bytes:
    """A 3.7-shaped save with ``pieces`` units in two-piece stacks on one map."""
    adds = []
    base_id = 1_700_000_000_000
    for n in range(0, pieces, 2):
        x, y = 100 + (n % 200) * 10, 100 + (n // 200) * 10
        members = []
        for k in (n, n + 1):
            pid = str(base_id + k)
            members.append(pid)
            layer = ("emb2;Step;130;S;;130;;;130;;;;1;false;0;0;u%d.png,u%d_r.png;,+ (reduced);true;Step;;;false;;1;1;"
                     "true;;;;;1.0;;true" % (k, k))
            marker = "mark;Side,Formation"
            basic = f"piece;;;u{k}.png;Unit {k}"
            type_text = join([layer, join([marker, basic], "\t") or ""], "\t") or ""
            basic_state = f"Main Map;{x};{y};{k % 50};3;UniqueID;{pid};OldX;{x - 10};OldY;{y}"
            state_text = join(["1", join(["German,352 ID", basic_state], "\t") or ""], "\t") or ""
            adds.append("+/" + (join([pid, type_text, state_text], "/") or ""))
        stack_id = str(base_id + pieces + n)
        adds.append(f"+/{stack_id}/stack/Main Map;{x};{y};{';'.join(members)};@@0")
    block = join([""] + adds, "\x1b") or ""
    text = join(["begin_save", "", block, "Main MapBoardPicker\tMain\t0\t0", "GlobalProperty\t;Turn;1;Module",
                 "end_save"], "\x1b") or ""
    payload = obfuscate(text.encode("utf-8"), Obfuscation(VCSK, 0x5A))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("savedGame", payload)
    return buffer.getvalue()


def floor_commands(data: bytes) -> list[str]:
    """The floor: unzip, de-obfuscate, split on ESC (the commands, still escaped)."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        payload = archive.read("savedGame")
    plain, _how = deobfuscate(payload)
    return plain.decode("utf-8", "surrogateescape").split("\x1b")


def floor(data: bytes) -> int:
    return len(floor_commands(data))


def tree(data: bytes) -> int:
    return len(SavedGame.from_bytes(data, limits=LIMITS).pieces)


def typed(data: bytes) -> int:
    """The save read and every piece decoded to its traits, as the readers that look at every
    piece do it (``SavedGame.decode_pieces``)."""
    game = SavedGame.from_bytes(data, limits=LIMITS).decode_pieces()
    assert all(entry._piece is not None for entry in game.pieces.values())
    return len(game.pieces)


def every_trait(data: bytes) -> int:
    """``typed``, then every piece's trait objects made, as a reader that looks at every trait of
    every piece (an export, an audit) does."""
    game = typed_game(data)
    with collector_paused():
        return sum(len(entry.piece.traits) for entry in game.pieces.values())


def write(data: bytes) -> int:
    game = SavedGame.from_bytes(data, limits=LIMITS)
    return len(game.to_bytes())


def typed_game(data: bytes) -> SavedGame:
    return SavedGame.from_bytes(data, limits=LIMITS).decode_pieces()


def best_of(fn: Callable[[bytes], object], data: bytes, repeat: int) -> float:
    """The least CPU time of ``repeat`` calls, each from a cold type cache (seconds)."""
    best = float("inf")
    for _ in range(repeat):
        clear_type_cache()
        gc.collect()
        start = time.process_time()
        fn(data)
        best = min(best, time.process_time() - start)
    return best


def peak(fn: Callable[[bytes], object], data: bytes) -> int:
    """Bytes ``tracemalloc`` saw at the peak of ``fn(data)``, its result held until the end."""
    clear_type_cache()
    gc.collect()
    tracemalloc.start()
    try:
        kept = fn(data)                      # held while the peak is read
        found = tracemalloc.get_traced_memory()[1]
        del kept
        return found
    finally:
        tracemalloc.stop()


def scaling(repeat: int, sizes: tuple[int, ...] = SIZES) -> list[dict[str, float]]:
    """For each synthetic size: pieces, floor, typed and every-trait CPU seconds, and the memory peaks."""
    rows = []
    for pieces in sizes:
        data = synthetic_save(pieces * 2 // 3)
        rounds = max(1, repeat - 1) if pieces >= 100_000 else repeat
        rows.append({"pieces": pieces, "floor": best_of(floor, data, rounds), "typed": best_of(typed, data, rounds),
                     "traits": best_of(every_trait, data, rounds),
                     "floor_peak": peak(floor_commands, data), "typed_peak": peak(typed_game, data)})
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    largest = largest_corpus_save()
    data = largest.read_bytes()
    base = best_of(floor, data, args.repeat)
    print(f"corpus: {largest.relative_to(CORPUS)}: floor {base:.3f} s CPU")
    for name, fn in (("tree", tree), ("typed", typed), ("traits", every_trait), ("write", write)):
        took = best_of(fn, data, args.repeat)
        print(f"  {name:<6} {took:8.3f} s {took / base:6.2f}x floor")
    print(f"\n{'synthetic pieces':>16} {'floor s':>8} {'typed s':>8} {'x floor':>8} {'us/piece':>9} {'memory':>7}"
          f" {'traits s':>9} {'x floor':>8}")
    rows = scaling(args.repeat)
    for row in rows:
        print(f"{row['pieces']:>16,} {row['floor']:8.3f} {row['typed']:8.3f} {row['typed'] / row['floor']:8.2f} "
              f"{row['typed'] / row['pieces'] * 1e6:9.2f} {row['typed_peak'] / row['floor_peak']:6.2f}x"
              f" {row['traits']:9.3f} {row['traits'] / row['floor']:8.2f}")
    small, large = rows[0], rows[-1]
    spread = (large["typed"] / large["pieces"]) / (small["typed"] / small["pieces"])
    ratio, memory = large["typed"] / large["floor"], large["typed_peak"] / large["floor_peak"]
    for what, value, target in (("us per piece, largest / smallest", spread, SPREAD_TARGET),
                                ("typed / floor at the largest", ratio, FLOOR_TARGET),
                                ("memory / floor's at the largest", memory, MEMORY_TARGET)):
        print(f"{what}: {value:.2f}x (target <= {target:g}x: {'met' if value <= target else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
