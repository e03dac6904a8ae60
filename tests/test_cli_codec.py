"""``wawkit inspect | decode | encode | pieces`` on real files and on bad input."""
from __future__ import annotations

import io
import json
import struct
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from converter.cli import main
from converter.cli.codec import ESC_SHOWN, from_readable, to_readable
from converter.vassal.container import read_container
from tests.test_corpus_roundtrip import CORPUS

TOUR = CORPUS / "vassal-tour" / "tour.log"
RAGNAROK = CORPUS / "ragnarok-spi" / "ragnarok-start.vsav"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def _zip(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_inspect_tour_log() -> None:
    code, out, _err = run("inspect", str(TOUR))
    assert code == 0
    lines = dict(line.split(": ", 1) for line in out.splitlines())
    assert lines["kind"] == "log"
    assert lines["obfuscation"] == "plain"
    assert lines["log_steps"] == "191"
    assert lines["plaintext_bytes"] == "28176"
    assert lines["maps"] == "Force Pool, Main Map"
    assert lines["module_metadata"] == "False"


def test_inspect_json_ragnarok() -> None:
    code, out, _err = run("inspect", "--json", str(RAGNAROK))
    assert code == 0
    info = json.loads(out)
    assert (info["kind"], info["module"], info["module_version"], info["vassal_version"], info["obfuscation"]) == (
        "save", "Ragnarok (SPI) 1981", "1.2 release (v3.7.9)", "3.7.9", "vcsk")
    assert info["entries"] == ["savedGame", "savedata", "moduledata"]
    assert info["log_steps"] == 0
    # 3.7.9 still wrote 26 stacks with no members (e.g. "Main Map;3169;574;@@1").
    assert (info["pieces"], info["stacks"], info["empty_stacks"], info["decks"]) == (99, 55, 26, 0)
    assert "Main Map" in info["maps"]


def test_decode_readable_shows_one_command_per_line() -> None:
    code, out, _err = run("decode", str(TOUR))
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "begin_save" + ESC_SHOWN
    assert lines[3] == "\\" + ESC_SHOWN
    assert lines[4].startswith("+/1116882739931/return;Send to Reserves")
    assert len(lines) == read_container(TOUR).plaintext.count(b"\x1b") + 1


def test_decode_json_rows() -> None:
    code, out, _err = run("decode", "--json", str(TOUR))
    rows = json.loads(out)
    assert code == 0
    assert rows[0] == {"index": 0, "depth": 1, "kind": "begin_save", "text": "begin_save"}
    assert sum(1 for r in rows if r["kind"] == "log") == 191


def test_decode_raw_then_encode_round_trips(tmp_path: Path) -> None:
    raw = CliRunner().invoke(main, ["decode", "--raw", str(RAGNAROK)]).stdout_bytes
    assert raw == read_container(RAGNAROK).plaintext
    source = tmp_path / "plain.txt"
    source.write_bytes(raw)
    code, out, _err = run("encode", str(source), "-o", str(tmp_path / "out.vsav"), "--like", str(RAGNAROK))
    assert code == 0 and out.startswith("wrote ")
    written = read_container(tmp_path / "out.vsav")
    assert written.plaintext == raw
    assert [e.name for e in written.entries] == ["savedGame", "savedata", "moduledata"]


@pytest.mark.parametrize("scheme", ["vcsk", "vobs", "plain"])
def test_readable_decode_then_encode_round_trips(scheme: str, tmp_path: Path) -> None:
    readable = CliRunner().invoke(main, ["decode", str(TOUR)]).stdout_bytes
    source = tmp_path / "tour.txt"
    source.write_bytes(readable)
    code, _out, err = run("encode", str(source), "-o", str(tmp_path / "tour.vlog"), "--obfuscation", scheme)
    assert code == 0, err
    written = read_container(tmp_path / "tour.vlog")
    assert written.plaintext == read_container(TOUR).plaintext
    assert written.obfuscation.scheme == scheme


def test_readable_form_is_exactly_reversible() -> None:
    text = "a\x1bb\\\x1bc\nd\re\t"
    assert from_readable(to_readable(text)) == text


def test_encode_refuses_to_overwrite(tmp_path: Path) -> None:
    source = tmp_path / "p.txt"
    source.write_bytes(b"begin_save\x1b\x1bend_save")
    target = tmp_path / "o.vsav"
    target.write_bytes(b"keep")
    code, _out, err = run("encode", str(source), "-o", str(target))
    assert code == 2 and "exists already" in err and target.read_bytes() == b"keep"


def test_pieces_table_and_json() -> None:
    code, out, _err = run("pieces", "--json", str(RAGNAROK))
    assert code == 0
    rows = json.loads(out)
    assert rows and all(set(r) == {"id", "name", "map", "x", "y", "stack", "layers"} for r in rows)
    code, out, _err = run("pieces", str(RAGNAROK))
    assert code == 0
    assert out.splitlines()[0] == "id\tname\tmap\tx\ty\tstack\tlayers"
    assert len(out.splitlines()) == len(rows) + 1


def _bad_files(tmp: Path) -> dict[str, Path]:
    files = {}

    def put(name: str, data: bytes) -> None:
        files[name] = tmp / name
        files[name].write_bytes(data)

    put("empty.vsav", b"")
    put("truncated.vsav", RAGNAROK.read_bytes()[:4000])
    put("magic.vsav", b"NOTAZIP" * 20)
    put("nosave.vsav", _zip({"moduledata": b"<data/>"}))
    put("odd.vsav", _zip({"savedGame": b"!VCSK00abc"}))
    put("nonhex.vsav", _zip({"savedGame": b"!VCSK00zz"}))
    bomb = _zip({"savedGame": b"\0" * 1000})
    put("bomb.vsav", bomb.replace(struct.pack("<I", 1000), struct.pack("<I", 0xFFFFFFF0)))
    put("deep.vsav", _zip({"savedGame": b"'" * 5000 + b"x" + b"'" * 5000}))
    return files


EXPECTED = {
    "empty.vsav": "offset 0: is empty",
    "truncated.vsav": "offset 0: is not a zip archive (or is truncated)",
    "magic.vsav": "offset 0: is not a zip archive",
    "nosave.vsav": "no savedGame entry",
    "odd.vsav": "entry savedGame: offset 9: odd number of hex digits",
    "nonhex.vsav": "entry savedGame: offset 7: byte 0x7a is not a hex digit",
    "bomb.vsav": "entry savedGame: declares 4294967280 bytes uncompressed",
    "deep.vsav": "entry savedGame: command 0: offset 0: commands nested deeper than 200 levels",
}


@pytest.mark.parametrize("command", ["inspect", "decode", "pieces"])
def test_bad_input_is_one_line_and_exit_2(command: str, tmp_path: Path) -> None:
    for name, path in _bad_files(tmp_path).items():
        if command == "decode" and name == "deep.vsav":
            continue  # decode prints the text; it does not build the command tree
        code, out, err = run(command, str(path))
        assert code == 2, (name, out, err)
        assert err.count("\n") == 1 and err.startswith(f"wawkit: {path}: "), (name, err)
        assert EXPECTED[name] in err, (name, err)
        assert "Traceback" not in err


def test_decode_json_of_deeply_nested_file_is_one_line(tmp_path: Path) -> None:
    path = _bad_files(tmp_path)["deep.vsav"]
    code, _out, err = run("decode", "--json", str(path))
    assert code == 2 and EXPECTED["deep.vsav"] in err and err.count("\n") == 1


def test_missing_file_is_one_line() -> None:
    code, _out, err = run("inspect", "/nonexistent/x.vsav")
    assert code == 2 and err.count("\n") == 1


def test_json_of_text_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin1.vsav"
    path.write_bytes(_zip({"savedGame": b"begin_save\x1bCHAT caf\xe9\x1bend_save"}))
    code, out, err = run("decode", "--json", str(path))
    assert code == 0, err
    assert json.loads(out)[1]["text"] == "CHAT caf\udce9"
    code, out, _err = run("decode", str(path))
    assert code == 0
    raw = CliRunner().invoke(main, ["decode", "--raw", str(path)]).stdout_bytes
    assert raw == b"begin_save\x1bCHAT caf\xe9\x1bend_save"


def test_a_module_is_not_a_save() -> None:
    module = CORPUS / "hexncounters-template" / "jzhex-n-counters-template-v12-379.vmod"
    code, _out, err = run("pieces", str(module))  # inspect learns modules elsewhere; pieces reads saves
    assert code == 2 and err == (f"wawkit: {module}: no savedGame entry: a VASSAL module or extension "
                                 "(has buildFile.xml), not a save or log; 'wawkit inspect-module' reads it\n")


@pytest.mark.slow
def test_inspect_counts_the_empty_stacks_some_modules_leave_behind() -> None:
    code, out, _err = run("inspect", "--json", str(CORPUS / "ccn-napoleonics" / "vsav" / "unsupported.vsav"))
    info = json.loads(out)
    assert code == 0
    assert (info["pieces"], info["stacks"], info["empty_stacks"], info["decks"]) == (3, 51264, 51264, 14)
    assert info["commands"] == 52039 and info["module_metadata"] is False
