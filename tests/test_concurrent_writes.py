"""Two players at once: writes are locked, checked against the bytes read, keep the file's
permission bits and every earlier backup, and write the save and its audit record as one
unit; ``verify`` checks everything the record vouches for, ``--in-place`` records included."""
from __future__ import annotations

import hashlib
import json
import os
import resource
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from converter import writes
from converter.audit import verify
from converter.cli import main
from converter.errors import ContainerError
from converter.resolve import read_position, run, write_resolution
from converter.actions_text import parse
from converter.vassal.save import SavedGame
from tests.hostile import SAVE, WITH_PROFILE, child_env, zipped

FIRE = ["--action", "fire leopard-c1 t-64 ap", "--dice", "4,1,5,4,1,3,4,4,6"]   # T-64 Disrupted and Reduced
MOVE = ["--action", "move bmp-1 G5"]                                            # BMP-1 from H4 to G5
_WAWKIT = "import sys; from converter.cli import main; sys.argv[0] = 'wawkit'; main()"


def wawkit(*args: str | Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", _WAWKIT, *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=child_env())


def piece(save: Path, name: str) -> tuple[int, int, str]:
    """x, y and layer levels of the piece called ``name`` in ``save``."""
    game = SavedGame.read(save)
    for entry in game.pieces.values():
        if not (entry.is_stack or entry.is_deck) and entry.piece.basic_name == name:
            x, y = game.position(entry.id)[1:]
            return x, y, ",".join(f"{layer.name}={layer.level}" for layer in entry.piece.layers())
    raise AssertionError(f"no piece {name!r}")


def cli(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


# -- two resolves on one save ---------------------------------------------------------------------

@pytest.mark.slow
def test_two_in_place_resolves_at_once_never_lose_an_update(tmp_path: Path) -> None:
    original = SAVE.read_bytes()
    before_bmp, before_t64 = piece(SAVE, "BMP-1"), piece(SAVE, "T-64")
    outcomes = []
    for round_ in range(20):
        folder = tmp_path / f"round{round_}"
        folder.mkdir()
        game = folder / "game.vsav"
        game.write_bytes(original)
        fire = wawkit("resolve", game, *WITH_PROFILE, *FIRE, "--in-place")
        move = wawkit("resolve", game, *WITH_PROFILE, *MOVE, "--in-place")
        (fire_out, fire_err), (move_out, move_err) = fire.communicate(timeout=120), move.communicate(timeout=120)
        codes = (fire.returncode, move.returncode)
        assert codes in ((0, 0), (0, 2), (2, 0)), (codes, fire_err, move_err)
        for code, out, err in ((fire.returncode, fire_out, fire_err), (move.returncode, move_out, move_err)):
            if code == 2:  # the loser says why, in one line, wrote nothing and reports no result
                assert err.count("\n") == 1 and err.startswith(f"wawkit: {game}: changed while this command worked "
                                                               "on it (sha256 now "), err
                assert out == "", out
            else:
                assert "  result: " in out, out
        # Every update a command reported is in the save: none was lost.
        bmp, t64 = piece(game, "BMP-1"), piece(game, "T-64")
        assert (bmp != before_bmp) == (move.returncode == 0), (round_, codes, bmp)
        assert (t64[2] == "Step=2") == (fire.returncode == 0), (round_, codes, t64)
        # One backup per update, the first the original save; none overwritten.
        backups = sorted(p.name for p in folder.iterdir() if p.name.startswith("game.vsav.bak"))
        assert backups == ["game.vsav.bak", "game.vsav.bak.2"][:codes.count(0)]
        assert (folder / "game.vsav.bak").read_bytes() == original
        assert verify(folder / "game.audit.json").identical
        outcomes.append(codes)
    assert all(codes.count(0) >= 1 for codes in outcomes)
    assert any(2 in codes for codes in outcomes)  # started together, they raced (here: every round)


def test_of_two_writers_that_read_one_save_the_second_is_refused(tmp_path: Path) -> None:
    game = tmp_path / "game.vsav"
    game.write_bytes(SAVE.read_bytes())
    first = run(read_position(game, *WITH_PROFILE[1::2]), [parse("fire leopard-c1 t-64 ap")],
                dice=[4, 1, 5, 4, 1, 3, 4, 4, 6], audit_dir=tmp_path)
    second = run(read_position(game, *WITH_PROFILE[1::2]), [parse("move bmp-1 G5")], audit_dir=tmp_path)
    assert write_resolution(first, game, tmp_path / "game.audit.json", in_place=True) == tmp_path / "game.vsav.bak"
    after_first = game.read_bytes()
    record = (tmp_path / "game.audit.json").read_bytes()
    with pytest.raises(ContainerError, match=rf"^{game}: changed while this command worked on it \(sha256 now "
                                             rf"{hashlib.sha256(after_first).hexdigest()[:12]}\.\.\., read as "
                                             rf"{hashlib.sha256(SAVE.read_bytes()).hexdigest()[:12]}\.\.\.\): another "
                                             r"player or program wrote it; nothing was written, run the command "
                                             r"again on the new file$"):
        write_resolution(second, game, tmp_path / "game.audit.json", in_place=True)
    assert game.read_bytes() == after_first and (tmp_path / "game.audit.json").read_bytes() == record
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.audit.json", "game.vsav", "game.vsav.bak"]


def test_a_save_replaced_while_it_is_resolved_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = tmp_path / "game.vsav"
    game.write_bytes(SAVE.read_bytes())
    other = zipped([("savedGame", b"begin_save\x1bend_save")])
    import converter.resolve as resolve_module
    real_run = resolve_module.run

    def replace_then_run(*args, **kwargs):  # another program saves the game while the referee works
        game.write_bytes(other)
        return real_run(*args, **kwargs)
    monkeypatch.setattr(resolve_module, "run", replace_then_run)
    code, out, err = cli("resolve", game, *WITH_PROFILE, *FIRE, "--in-place")
    assert (code, out) == (2, "")   # no report of a result that was not written
    assert err.startswith(f"wawkit: {game}: changed while this command worked on it (sha256 now "
                          f"{hashlib.sha256(other).hexdigest()[:12]}...")
    assert game.read_bytes() == other
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.vsav"]


def test_a_save_removed_while_it_is_resolved_in_place_is_not_recreated(tmp_path: Path) -> None:
    game = tmp_path / "game.vsav"
    game.write_bytes(SAVE.read_bytes())
    resolved = run(read_position(game, *WITH_PROFILE[1::2]), [parse("move bmp-1 G5")], audit_dir=tmp_path)
    game.rename(tmp_path / "moved.vsav")  # the other player moved the game away meanwhile
    with pytest.raises(ContainerError, match=rf"^{game}: was removed while this command worked on it; nothing was "
                                             r"written$"):
        write_resolution(resolved, game, tmp_path / "game.audit.json", in_place=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["moved.vsav"]


def test_two_outputs_of_one_name_at_once_write_one_and_refuse_the_other(tmp_path: Path) -> None:
    target = tmp_path / "new.vsav"
    runs = [wawkit("resolve", SAVE, *WITH_PROFILE, *FIRE, "-o", target) for _ in range(2)]
    results = [(p.wait(timeout=120), p.stderr.read()) for p in runs]
    codes = sorted(code for code, _ in results)
    assert codes == [0, 2], results
    refused = next(err for code, err in results if code == 2)
    assert refused == f"wawkit: {target}: exists already; refusing to overwrite it (--force replaces it)\n"
    assert verify(tmp_path / "new.audit.json").identical


# -- permissions, backups, one unit ---------------------------------------------------------------

@pytest.mark.parametrize("mode", [0o644, 0o640, 0o600])
def test_in_place_keeps_the_permission_bits(tmp_path: Path, mode: int) -> None:
    game = tmp_path / "game.vsav"
    game.write_bytes(SAVE.read_bytes())
    game.chmod(mode)
    assert cli("resolve", game, *WITH_PROFILE, *FIRE, "--in-place")[0] == 0
    assert stat.S_IMODE(game.stat().st_mode) == mode
    assert stat.S_IMODE((tmp_path / "game.vsav.bak").stat().st_mode) == mode


def test_a_new_output_gets_the_usual_permissions(tmp_path: Path) -> None:
    mask = os.umask(0o027)
    try:
        assert cli("resolve", SAVE, *WITH_PROFILE, *FIRE, "-o", tmp_path / "r.vsav")[0] == 0
    finally:
        os.umask(mask)
    assert stat.S_IMODE((tmp_path / "r.vsav").stat().st_mode) == 0o640
    assert stat.S_IMODE((tmp_path / "r.audit.json").stat().st_mode) == 0o640


def test_a_second_in_place_keeps_the_first_backup(tmp_path: Path) -> None:
    game = tmp_path / "game.vsav"
    game.write_bytes(SAVE.read_bytes())
    code, _, err = cli("resolve", game, *WITH_PROFILE, *FIRE, "--in-place")
    assert (code, err) == (0, f"wrote {game} and {tmp_path / 'game.audit.json'} (the original kept as "
                              f"{tmp_path / 'game.vsav.bak'})\n")
    after_fire = game.read_bytes()
    first_record = (tmp_path / "game.audit.json").read_bytes()
    code, _, err = cli("resolve", game, *WITH_PROFILE, *MOVE, "--in-place")
    assert (code, err) == (0, f"wrote {game} and {tmp_path / 'game.audit.json'} (the original kept as "
                              f"{tmp_path / 'game.vsav.bak.2'})\n")
    assert (tmp_path / "game.vsav.bak").read_bytes() == SAVE.read_bytes()
    assert (tmp_path / "game.vsav.bak.2").read_bytes() == after_fire
    assert (tmp_path / "game.audit.json.bak").read_bytes() == first_record
    record = json.loads((tmp_path / "game.audit.json").read_text(encoding="utf-8"))
    assert record["inputs"]["save"] == {"path": "game.vsav", "backup": "game.vsav.bak.2",
                                        "sha256": hashlib.sha256(after_fire).hexdigest()}
    assert verify(tmp_path / "game.audit.json").identical


@pytest.mark.parametrize("cap, failed", [(2000, "y.audit.json"),  # the save (1.4 kB) fits, its record (2.7 kB) not
                                          (1000, "y.vsav")])         # neither fits: the save, written first, fails
def test_with_the_disk_full_neither_the_save_nor_its_record_is_written(tmp_path: Path, cap: int, failed: str) -> None:
    output = tmp_path / "y.vsav"

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (cap, cap))
    done = subprocess.run([sys.executable, "-c", _WAWKIT, "resolve", str(SAVE), *WITH_PROFILE, *FIRE, "-o",
                           str(output)], capture_output=True, text=True, env=child_env(), preexec_fn=limit,
                          timeout=120)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"wawkit: {tmp_path / failed}: cannot write: File too large; nothing was written\n"
    assert list(tmp_path.iterdir()) == []


def test_a_failed_rename_of_the_record_puts_the_save_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = tmp_path / "game.vsav"
    game.write_bytes(SAVE.read_bytes())
    real = writes.os.replace
    calls = []

    def second_fails(source: str, target: object) -> None:
        calls.append(target)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real(source, target)
    monkeypatch.setattr(writes.os, "replace", second_fails)
    code, _, err = cli("resolve", game, *WITH_PROFILE, *FIRE, "--in-place")
    assert (code, err) == (2, f"wawkit: {tmp_path / 'game.audit.json'}: cannot write: No space left on device; "
                              "nothing was written\n")
    assert game.read_bytes() == SAVE.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.vsav"]


# -- verify vouches for everything the record says --------------------------------------------------

@pytest.fixture
def in_place(tmp_path: Path) -> Path:
    game = tmp_path / "game.vsav"
    game.write_bytes(SAVE.read_bytes())
    assert cli("resolve", game, *WITH_PROFILE, *FIRE, "--in-place")[0] == 0
    return tmp_path / "game.audit.json"


def test_an_in_place_record_verifies_from_its_backup(in_place: Path) -> None:
    record = json.loads(in_place.read_text(encoding="utf-8"))
    assert record["inputs"]["save"] == {"path": "game.vsav", "backup": "game.vsav.bak",
                                        "sha256": hashlib.sha256(SAVE.read_bytes()).hexdigest()}
    assert record["output"]["path"] == "game.vsav"
    assert record["output"]["sha256"] == hashlib.sha256((in_place.parent / "game.vsav").read_bytes()).hexdigest()
    code, out, _ = cli("verify", in_place)
    assert (code, out) == (0, f"{in_place}: verified, identical rolls, events and output\n")


def test_an_in_place_record_without_its_backup_says_where_it_looked(in_place: Path) -> None:
    (in_place.parent / "game.vsav.bak").unlink()
    code, _, err = cli("verify", in_place)
    now = hashlib.sha256((in_place.parent / "game.vsav").read_bytes()).hexdigest()
    assert (code, err) == (2, f"wawkit: {in_place}: input save 'game.vsav' (or its backup 'game.vsav.bak') changed: "
                              f"sha256 {now[:12]}..., recorded "
                              f"{hashlib.sha256(SAVE.read_bytes()).hexdigest()[:12]}...\n")


def _tamper(record: Path, change) -> list[str]:
    data = json.loads(record.read_text(encoding="utf-8"))
    change(data)
    record.write_text(json.dumps(data), encoding="utf-8")
    result = verify(record)
    assert CliRunner().invoke(main, ["verify", str(record)]).exit_code == 1
    return result.differences


def test_a_forged_report_is_not_verified(in_place: Path) -> None:
    def forge(data: dict) -> None:
        data["report"] = data["report"].replace("T-64 is Reduced", "T-64 is eliminated")
    assert _tamper(in_place, forge) == ["report differs: line 12: recorded '  result: Leopard C1 is Ops Complete; "
                                        "T-64 is Disrupted; T-64 is eliminated', replayed '  result: Leopard C1 is "
                                        "Ops Complete; T-64 is Disrupted; T-64 is Reduced'"]


def test_a_zeroed_output_hash_is_not_verified(in_place: Path) -> None:
    written = hashlib.sha256((in_place.parent / "game.vsav").read_bytes()).hexdigest()

    def zero(data: dict) -> None:
        data["output"]["sha256"] = "0" * 64
    assert _tamper(in_place, zero) == [f"output 'game.vsav' was changed after it was written (sha256 {written[:12]}..., "
                                       "recorded 000000000000...)"]


def test_an_entry_added_to_the_output_is_not_verified_even_with_a_matching_hash(in_place: Path) -> None:
    output = in_place.parent / "game.vsav"
    with zipfile.ZipFile(output, "a") as archive:
        archive.writestr("extra", b"smuggled")
    now = hashlib.sha256(output.read_bytes()).hexdigest()

    def rehash(data: dict) -> None:  # the forger updates the record's hash too
        data["output"]["sha256"] = now
    differences = _tamper(in_place, rehash)
    assert differences == ["output 'game.vsav' holds entries ['savedGame', 'savedata', 'extra'], not "
                           "those of the replayed save ['savedGame', 'savedata'] with their bytes"]


def test_verify_still_replays_a_record_of_an_output_written_elsewhere(tmp_path: Path) -> None:
    shutil.copy(SAVE, tmp_path / "in.vsav")
    assert cli("resolve", tmp_path / "in.vsav", *WITH_PROFILE, *FIRE, "-o", tmp_path / "out.vsav")[0] == 0
    record = json.loads((tmp_path / "out.audit.json").read_text(encoding="utf-8"))
    assert "backup" not in record["inputs"]["save"]
    assert verify(tmp_path / "out.audit.json").identical
