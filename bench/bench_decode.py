"""How fast a save decodes, as a ratio to the floor measured in the same run.

The floor is the least any reader must do: unzip ``savedGame``, de-obfuscate it and
split the plaintext on ESC. Against it we time

* ``tree``: :class:`SavedGame` read (the lossless command tree and the piece index);
* ``typed``: the same, plus every piece decoded to its typed view (traits);
* ``write``: re-encoding the unchanged save and zipping it again.

for the largest save in the shared corpus and for a synthetic save of 20,000
pieces (two-piece stacks of units with a Layer, Markers and a BasicPiece with
persistent properties, as a 3.7 save writes them). Targets: ``typed`` within 3x
the floor; the 20,000-piece save decoded to typed pieces in under 1.5 s.

Run: ``.venv/bin/python bench/bench_decode.py`` (``--repeat N`` for more rounds).
"""
from __future__ import annotations

import argparse
import io
import sys
import time
import zipfile
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from converter.vassal.obfuscation import VCSK, Obfuscation, deobfuscate, obfuscate  # noqa: E402
from converter.vassal.save import SavedGame  # noqa: E402
from converter.vassal.sequence import join  # noqa: E402

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


def floor(data: bytes) -> int:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        payload = archive.read("savedGame")
    plain, _how = deobfuscate(payload)
    return len(plain.decode("utf-8", "surrogateescape").split("\x1b"))


def tree(data: bytes) -> int:
    return len(SavedGame.from_bytes(data).pieces)


def typed(data: bytes) -> int:
    """The save read and every piece decoded to its traits, as the readers that look at every
    piece do it (``SavedGame.decode_pieces``)."""
    game = SavedGame.from_bytes(data).decode_pieces()
    assert all(entry._piece is not None for entry in game.pieces.values())
    return len(game.pieces)


def write(data: bytes) -> int:
    game = SavedGame.from_bytes(data)
    return len(game.to_bytes())


def best_of(fn: Callable[[bytes], int], data: bytes, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn(data)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    largest = largest_corpus_save()
    cases = [(f"corpus: {largest.relative_to(CORPUS)}", largest.read_bytes()),
             ("synthetic: 20,000 pieces", synthetic_save(20_000))]
    print(f"{'save':<48} {'step':<6} {'seconds':>8} {'x floor':>8}")
    verdicts = []
    for label, data in cases:
        base = best_of(floor, data, args.repeat)
        print(f"{label:<48} {'floor':<6} {base:8.3f} {1.0:8.2f}")
        for name, fn in (("tree", tree), ("typed", typed), ("write", write)):
            seconds = best_of(fn, data, args.repeat)
            print(f"{'':<48} {name:<6} {seconds:8.3f} {seconds / base:8.2f}")
            if name == "typed":
                verdicts.append((label, seconds, seconds / base))
    print()
    for label, seconds, ratio in verdicts:
        parts = [f"{ratio:.2f}x floor (target <= 3.0x: {'met' if ratio <= 3.0 else 'NOT met'})"]
        if label.startswith("synthetic"):
            parts.append(f"{seconds:.3f} s (target < 1.5 s: {'met' if seconds < 1.5 else 'NOT met'})")
        print(f"{label}: typed decode " + "; ".join(parts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
