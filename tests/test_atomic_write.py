"""Writes are atomic: a writer that fails or is killed midway leaves the input and the
target as they were and no partial file; ``resolve --in-place`` keeps a backup."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from converter.cli import main
from converter.errors import ContainerError
from converter import writes
from converter.vassal.container import read_container, write_atomic
from converter.vassal.save import SavedGame

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
SAVE, MODULE, PROFILE = SAMPLES / "demo.vsav", SAMPLES / "waw-sample.vmod", SAMPLES / "profile.yaml"
RESOLVE = ["--module", str(MODULE), "--profile", str(PROFILE), "--action", "fire leopard-c1 t-64 ap",
           "--dice", "4,1,5,4,1,3,4,4,6"]


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (hidden ones included) with its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_write_that_fails_midway_leaves_the_target_and_no_temporary_file(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "game.vsav"
    target.write_bytes(b"old save")

    def fail_after_half(stream, data: bytes, mode: int) -> None:
        stream.write(data[:len(data) // 2])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(writes, "_write_synced", fail_after_half)
    with pytest.raises(ContainerError, match=rf"^{target}: cannot write: No space left on device; nothing was "
                                             r"written$"):
        write_atomic(target, b"new save " * 1000, overwrite=True)
    assert snapshot(tmp_path) == {"game.vsav": b"old save"}


def test_a_rename_that_fails_leaves_the_target_and_no_temporary_file(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "game.vsav"
    target.write_bytes(b"old save")

    def refuse(source: str, destination: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(writes.os, "replace", refuse)
    with pytest.raises(ContainerError, match=rf"^{target}: cannot write: Permission denied; nothing was written$"):
        write_atomic(target, b"new save", overwrite=True)
    assert snapshot(tmp_path) == {"game.vsav": b"old save"}


def test_write_refuses_an_existing_target_and_the_input(tmp_path: Path) -> None:
    target = tmp_path / "game.vsav"
    target.write_bytes(SAVE.read_bytes())
    with pytest.raises(ContainerError, match=r"game.vsav: exists already; refusing to overwrite it"):
        write_atomic(target, b"x")
    game = SavedGame.read(target)
    with pytest.raises(ContainerError, match=r"game.vsav: exists already"):
        game.write(target)
    assert target.read_bytes() == SAVE.read_bytes()


def test_backup_keeps_the_replaced_file(tmp_path: Path) -> None:
    target = tmp_path / "game.vsav"
    target.write_bytes(b"first")
    write_atomic(target, b"second", overwrite=True, backup=True)
    assert snapshot(tmp_path) == {"game.vsav": b"second", "game.vsav.bak": b"first"}
    write_atomic(target, b"third", overwrite=True, backup=True)
    write_atomic(target, b"fourth", overwrite=True, backup=True)
    assert snapshot(tmp_path) == {"game.vsav": b"fourth", "game.vsav.bak": b"first", "game.vsav.bak.2": b"second",
                                  "game.vsav.bak.3": b"third"}


# -- killed writers ----------------------------------------------------------------------------

#: Runs ``wawkit encode`` with os.fsync made to announce itself and hang: the save's bytes
#: are all written to the temporary file but not yet renamed when the parent kills it.
HANG_AT_SYNC = """
import os, sys, time
def hang(fd):
    print("writing", flush=True)
    time.sleep(120)
os.fsync = hang
from converter.cli import main
main(sys.argv[1:])
"""


def large_plaintext(pieces: int) -> bytes:
    """A plaintext of ``pieces`` AddPiece commands (about 150 bytes each)."""
    commands = [f"+/{1000 + n}/piece;;;unit{n}.png;Unit {n}/null\\t{n * 10}\\t{n * 7}\\tnull\\t0".encode()
                for n in range(pieces)]
    return b"begin_save\x1b" + b"\x1b".join(commands) + b"\x1bend_save"


def child_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def test_cli_killed_while_writing_a_large_save_leaves_input_and_target_intact(tmp_path: Path) -> None:
    text = tmp_path / "position.txt"
    text.write_bytes(large_plaintext(60_000))
    target = tmp_path / "game.vsav"
    target.write_bytes(SAVE.read_bytes())
    before = snapshot(tmp_path)
    writer = subprocess.Popen([sys.executable, "-c", HANG_AT_SYNC, "encode", str(text), "-o", str(target), "--force"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=child_env(), cwd=tmp_path)
    try:
        assert writer.stdout is not None
        assert writer.stdout.readline() == b"writing\n"
        # the new bytes are written but not yet in place: the target is still the old save
        assert read_container(target).plaintext == read_container(SAVE).plaintext
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=30)
    assert writer.returncode == -signal.SIGKILL
    assert snapshot(tmp_path) == before


#: Writes a 64 MB file over ``target`` in a loop, so a kill lands at a random moment of a write.
REWRITE = """
import sys
from converter.vassal.container import write_atomic
print("ready", flush=True)
for round in range(1000):
    write_atomic(sys.argv[1], bytes([65 + round % 2]) * (64 << 20), overwrite=True)
"""


@pytest.mark.parametrize("delay", [0.05, 0.2, 0.45])
def test_a_kill_at_any_moment_leaves_a_complete_old_or_new_file(tmp_path: Path, delay: float) -> None:
    target = tmp_path / "big.bin"
    target.write_bytes(b"B" * (64 << 20))
    writer = subprocess.Popen([sys.executable, "-c", REWRITE, str(target)], stdout=subprocess.PIPE,
                              env=child_env(), cwd=tmp_path)
    assert writer.stdout is not None and writer.stdout.readline() == b"ready\n"
    time.sleep(delay)
    writer.send_signal(signal.SIGKILL)
    writer.wait(timeout=30)
    files = snapshot(tmp_path)
    data = files.pop("big.bin")
    whole = data in (b"A" * (64 << 20), b"B" * (64 << 20))   # a flag, so a failure prints no 64 MB diff
    assert whole
    # The target is always a whole old or new file. A kill in the instant between naming
    # the finished temporary file and the rename, or while a system without unnamed files
    # writes the named fallback, can leave one hidden ``.big.bin.*.part`` beside it: never
    # under the target's name, and never more than one.
    assert all(name.startswith(".big.bin.") and name.endswith(".part") for name in files), sorted(files)
    assert len(files) <= 1


# -- resolve --in-place -------------------------------------------------------------------------

def test_resolve_in_place_keeps_a_backup_and_writes_what_output_would(tmp_path: Path) -> None:
    game = tmp_path / "game.vsav"
    game.write_bytes(SAVE.read_bytes())
    result = CliRunner().invoke(main, ["resolve", str(game), *RESOLVE, "--in-place"])
    assert result.exit_code == 0, result.output
    elsewhere = tmp_path / "other" / "out.vsav"
    elsewhere.parent.mkdir()
    result = CliRunner().invoke(main, ["resolve", str(SAVE), *RESOLVE, "-o", str(elsewhere)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "game.vsav.bak").read_bytes() == SAVE.read_bytes()
    assert read_container(game).plaintext == read_container(elsewhere).plaintext != read_container(SAVE).plaintext
    assert sorted(snapshot(tmp_path)) == ["game.audit.json", "game.vsav", "game.vsav.bak", "other/out.audit.json",
                                          "other/out.vsav"]


@pytest.mark.parametrize("extra", [[], ["--in-place", "-o", "x.vsav"]])
def test_resolve_wants_exactly_one_of_output_and_in_place(tmp_path: Path, extra: list[str]) -> None:
    result = CliRunner().invoke(main, ["resolve", str(SAVE), *RESOLVE, *extra])
    assert result.exit_code == 2
    assert "give -o OUTPUT or --in-place, not both and not neither" in result.output
    assert list(tmp_path.iterdir()) == []
