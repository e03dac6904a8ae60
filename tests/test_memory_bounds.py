"""The memory docs/limits.md promises: a save at the edge of ``max_memory`` is read by every
reading command in under 500 MB (measured as the peak resident set of the command's own
process), and one a little over the edge is refused before its command tree is built."""
from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from converter.vassal.container import new_container, read_container
from converter.vassal.limits import DEFAULT_LIMITS, memory_estimate
from converter.vassal.save import SavedGame
from tests.hostile import SAVE, measured, one_line

pytestmark = pytest.mark.slow
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
PROMISED_MB = 500


def tiny(count: int) -> bytes:
    """The plaintext of ``count`` small BasicPieces (about 50 characters each)."""
    rng = random.Random(14)
    return b"begin_save" + b"".join(b"\x1b+/%d/piece;;;u.png;U%x/Main Map;%d;%d;;0"
                                    % (n, rng.getrandbits(16), n % 997, n % 991) for n in range(count)) \
        + b"\x1bend_save"


def waw_markers(count: int) -> bytes:
    """The sample save's plaintext with ``count`` more Smoke markers (real WaW pieces, 254 characters)."""
    container = read_container(SAVE)
    smoke = next(e for e in SavedGame(container).pieces.values() if e.piece.basic_name == "Smoke")
    command, piece_id = smoke.command.encode().encode(), smoke.id.encode()
    extra = b"".join(b"\x1b" + command.replace(piece_id, b"%d" % (9_000_000_000 + n), 1) for n in range(count))
    text = container.plaintext
    at = text.rindex(b"\x1b")
    return text[:at] + extra + text[at:]


def largest_twice(_count: int) -> bytes:
    """The largest corpus save's commands, and a copy of them with new piece ids: 31 M characters."""
    text = read_container(CORPUS / "paths-of-glory" / "Historical10-8.vsav").plaintext
    body = text[text.index(b"\x1b"):text.rindex(b"\x1b")]
    copy = re.sub(rb"\x1b\+/(\d+)/", lambda m: b"\x1b+/" + m.group(1) + b"9/", body)
    cut = copy.rindex(b"\x1b", 0, len(copy) // 4)  # a quarter more, ending between two commands
    return text[:text.rindex(b"\x1b")] + copy + copy[:cut] + text[text.rindex(b"\x1b"):]


def estimate(plain: bytes) -> int:
    return memory_estimate(len(plain), plain.count(b"\x1b") + 1)


@pytest.mark.parametrize("build, count", [(tiny, 110_000), (waw_markers, 65_000), (largest_twice, 0)])
def test_a_save_at_the_memory_edge_is_read_in_under_500_mb(tmp_path: Path, build, count: int) -> None:
    if build is largest_twice and not (CORPUS / "paths-of-glory").is_dir():
        pytest.fail("the corpus is missing: ../shared/corpus")
    plain = build(count)
    assert 0.9 * DEFAULT_LIMITS.max_memory < estimate(plain) <= DEFAULT_LIMITS.max_memory
    save = tmp_path / "edge.vsav"
    save.write_bytes(new_container(plain, "vcsk").to_bytes())
    for command in ("inspect", "decode", "pieces", "validate"):
        run = measured(command, save)
        assert run.code in (0, 1), (command, run.err)
        assert run.peak_mb < PROMISED_MB, (command, run.peak_mb)


def test_a_save_just_over_the_memory_edge_is_refused_cheaply(tmp_path: Path) -> None:
    plain = tiny(125_000)
    assert estimate(plain) > DEFAULT_LIMITS.max_memory
    save = tmp_path / "over.vsav"
    save.write_bytes(new_container(plain, "vcsk").to_bytes())
    run = measured("pieces", save)
    assert (run.code, one_line(run)) == (2, f"wawkit: {save}: entry savedGame: {len(plain)} characters in 125002 "
                                            f"commands would need about {estimate(plain) >> 20} MiB to decode, over "
                                            "the 400 MiB cap (max_memory)")
    assert run.peak_mb < 120
