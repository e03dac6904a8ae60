"""Every safety limit: an input exactly at the limit is read, one unit over it is refused
with a typed error naming the file and entry. Also: documents with a DOCTYPE or entities
are refused, and archive entry names never become paths on disk."""
from __future__ import annotations

import io
import os
import zipfile
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from converter.cli import main
from converter.errors import ContainerError, EncodingError, LimitExceeded, ModuleError, SchemaError
from converter.schema import load_document
from converter.vassal.buildfile import parse_buildfile
from converter.vassal.commands import parse
from converter.vassal.container import read_container
from converter.vassal.limits import DEFAULT_LIMITS, Limits
from converter.vassal.metadata import parse_metadata
from converter.vassal.module import Module
from converter.vassal.obfuscation import deobfuscate, obfuscate
from converter.vassal.save import SavedGame
from converter.vassal.sequence import ESC, join

MODULE_ROOT = "VASSAL.build.GameModule"


def zipped(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def nested(depth: int) -> str:
    """A command string whose deepest command sits ``depth`` ESC levels down."""
    text = "CHATdeepest"
    for level in range(depth):
        text = join([f"CHATlevel{level}", text], ESC)  # type: ignore[assignment]
    return text


def deep_xml(depth: int, root: str = MODULE_ROOT) -> bytes:
    """A document whose deepest element is ``depth`` elements down (the root is 1)."""
    inner = "<a/>" if depth > 1 else ""
    for _ in range(depth - 2):
        inner = f"<a>{inner}</a>"
    return f"<{root}>{inner}</{root}>".encode()


def test_defaults_are_documented_values() -> None:
    assert DEFAULT_LIMITS == Limits(max_entry_size=128 << 20, max_entries=100_000, max_depth=200,
                                    max_commands=1_000_000, max_metadata_size=4 << 20, max_total_size=256 << 20,
                                    max_xml_depth=100, max_string_length=16 << 20, max_compression_ratio=200,
                                    max_memory=400 << 20)
    readme = (Path(__file__).resolve().parents[1] / "docs" / "limits.md").read_text(encoding="utf-8")
    for name in ("max_entry_size", "max_entries", "max_total_size", "max_depth", "max_commands",
                 "max_string_length", "max_metadata_size", "max_xml_depth", "max_compression_ratio", "max_memory",
                 "max_buildfile_size", "MAX_DOCUMENT_SIZE", "MAX_DEPTH", "MAX_NODES", "MAX_INT_DIGITS",
                 "MAX_SIDE", "MAX_DECODE_PIXELS", "MAX_HITS", "MAX_DICE", "MAX_GIVEN_DICE"):
        assert f"`{name}`" in readme, name


# -- zip containers -------------------------------------------------------------------------

def test_entry_size_at_and_over_the_limit() -> None:
    data = zipped({"savedGame": b"CHAT" + b"x" * 996})
    assert len(read_container(data, limits=Limits(max_entry_size=1000)).plaintext) == 1000
    with pytest.raises(LimitExceeded, match=r"^big.vsav: entry savedGame: declares 1000 bytes uncompressed, "
                                            r"over the 999-byte cap$"):
        read_container(data, file="big.vsav", limits=Limits(max_entry_size=999))


def test_entry_count_at_and_over_the_limit() -> None:
    data = zipped({"savedGame": b"CHATx", **{f"images/{i}.png": b"" for i in range(9)}})
    assert len(read_container(data, limits=Limits(max_entries=10)).entries) == 10
    with pytest.raises(LimitExceeded, match=r"^many.vsav: has 10 zip entries, over the cap of 9$"):
        read_container(data, file="many.vsav", limits=Limits(max_entries=9))


def test_total_uncompressed_size_at_and_over_the_limit() -> None:
    data = zipped({"savedGame": b"CHAT" + b"y" * 596, "notes": b"", "extra": b"z" * 400})
    container = read_container(data, limits=Limits(max_total_size=1000))
    assert (len(container.plaintext), [len(e.data) for e in container.entries[1:]]) == (600, [0, 400])
    with pytest.raises(LimitExceeded, match=r"^sum.vsav: declares 1000 bytes uncompressed in all \(3 entries\), "
                                            r"over the 999-byte cap$"):
        read_container(data, file="sum.vsav", limits=Limits(max_total_size=999))


def test_many_entries_each_under_the_entry_cap_still_meet_the_total_cap() -> None:
    data = zipped({"savedGame": b"CHATx", **{f"e{i}": b"\0" * 100_000 for i in range(20)}})
    limits = Limits(max_entry_size=100_000, max_total_size=1_000_000)
    with pytest.raises(LimitExceeded, match=r"^bomb.vsav: declares 2000005 bytes uncompressed in all \(21 entries\), "
                                            r"over the 1000000-byte cap$"):
        read_container(data, file="bomb.vsav", limits=limits)


def test_compressed_savedgame_inflation_at_and_over_the_limit() -> None:
    plain = b"CHAT" + b"0" * 1996
    payload = b"!VCSZ" + (b"\x00" + zlib.compress(plain)).hex().encode()  # key 0: the bytes as they are
    assert deobfuscate(payload, limits=Limits(max_entry_size=2000))[0] == plain
    with pytest.raises(LimitExceeded, match=r"!VCSZ payload inflates past the 1999-byte cap"):
        deobfuscate(payload, file="z.vsav", limits=Limits(max_entry_size=1999))


# -- the command tree ------------------------------------------------------------------------

def test_nesting_depth_at_and_over_the_limit() -> None:
    text = nested(12)
    tree = parse(text, limits=Limits(max_depth=12))
    assert tree.encode() == text
    assert sum(1 for _ in tree.leaves()) == 13
    with pytest.raises(EncodingError, match=r"commands nested deeper than 11 levels"):
        parse(text, limits=Limits(max_depth=11), file="deep.vsav")


def test_command_count_at_and_over_the_limit() -> None:
    text = ESC.join(f"CHAT{i}" for i in range(50))
    assert len(list(parse(text, limits=Limits(max_commands=50)).leaves())) == 50
    with pytest.raises(LimitExceeded, match=r"^many: entry savedGame: offset \d+: more than 49 commands$"):
        parse(text, limits=Limits(max_commands=49), file="many")


def test_command_length_at_and_over_the_limit() -> None:
    long = "CHAT" + "w" * 4996
    text = ESC.join(["CHATshort", long, "CHATafter"])
    assert [len(c.encode()) for c in parse(text, limits=Limits(max_string_length=5000)).leaves()] == [9, 5000, 9]
    with pytest.raises(LimitExceeded, match=r"^long: entry savedGame: command 1: offset 10: a command of 5000 "
                                            r"characters, over the 4999-character cap$"):
        parse(text, limits=Limits(max_string_length=4999), file="long")


def test_save_reader_applies_its_limits_to_the_commands() -> None:
    data = zipped({"savedGame": obfuscate(ESC.join(["CHATa", "CHATb", "CHATc"]).encode(), "vcsk")})
    assert len(list(SavedGame.from_bytes(data, limits=Limits(max_commands=3)).commands())) == 3
    with pytest.raises(LimitExceeded, match="more than 2 commands"):
        SavedGame.from_bytes(data, file="three.vsav", limits=Limits(max_commands=2))


# -- XML -------------------------------------------------------------------------------------

def test_metadata_size_at_and_over_the_limit() -> None:
    raw = b"<data><name>" + b"n" * 477 + b"</name></data>"
    assert len(raw) == 503
    assert parse_metadata(raw, "moduledata", limits=Limits(max_metadata_size=503)).name == "n" * 477
    with pytest.raises(LimitExceeded, match=r"^s.vsav: entry moduledata: metadata is 503 bytes, over the "
                                            r"502-byte cap$"):
        parse_metadata(raw, "moduledata", file="s.vsav", limits=Limits(max_metadata_size=502))


def test_buildfile_size_at_and_over_the_limit() -> None:
    data = f'<{MODULE_ROOT} name="Tiny" version="1"/>'.encode()
    assert parse_buildfile(data, max_size=len(data)).get("name") == "Tiny"
    assert Module.from_bytes(data, max_buildfile_size=len(data)).name == "Tiny"
    with pytest.raises(LimitExceeded, match=rf"^tiny.xml: buildFile is {len(data)} bytes, over the "
                                            rf"{len(data) - 1}-byte cap$"):
        Module.from_bytes(data, file="tiny.xml", max_buildfile_size=len(data) - 1)


def test_buildfile_depth_at_and_over_the_limit() -> None:
    data = deep_xml(40)
    assert parse_buildfile(data, limits=Limits(max_xml_depth=40)).tag == MODULE_ROOT
    with pytest.raises(LimitExceeded, match=r"^deep.vmod: entry buildFile.xml: XML nested deeper than 39 elements$"):
        Module.from_bytes(zipped({"buildFile.xml": data}), file="deep.vmod", limits=Limits(max_xml_depth=39))


def test_default_xml_depth_refuses_what_libxml2_would_still_parse() -> None:
    parse_buildfile(deep_xml(100))
    with pytest.raises(LimitExceeded, match="XML nested deeper than 100 elements"):
        parse_buildfile(deep_xml(101))


def test_metadata_depth_at_and_over_the_limit() -> None:
    data = deep_xml(5, "data")
    assert parse_metadata(data, "savedata", limits=Limits(max_xml_depth=5)).entry == "savedata"
    with pytest.raises(LimitExceeded, match=r"^m.vsav: entry savedata: XML nested deeper than 4 elements$"):
        parse_metadata(data, "savedata", file="m.vsav", limits=Limits(max_xml_depth=4))


ENTITY_BOMB = (b'<?xml version="1.0"?>\n<!DOCTYPE m [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>\n'
               b'<VASSAL.build.GameModule name="&b;"/>')
EXTERNAL = (b'<!DOCTYPE m [<!ENTITY x SYSTEM "file:///etc/hostname">]>'
            b'<VASSAL.build.GameModule name="&x;"/>')


@pytest.mark.parametrize("data", [ENTITY_BOMB, EXTERNAL, b"<!DOCTYPE VASSAL.build.GameModule><VASSAL.build.GameModule/>"])
def test_buildfile_with_a_doctype_or_entities_is_refused(data: bytes) -> None:
    with pytest.raises(ModuleError, match=r"^evil.xml: offset \d+: buildFile declares a DOCTYPE or entities"):
        parse_buildfile(data, file="evil.xml")


def test_metadata_with_a_doctype_is_refused() -> None:
    with pytest.raises(ContainerError, match=r"^s.vsav: entry savedata: offset \d+: metadata declares a DOCTYPE"):
        parse_metadata(EXTERNAL.replace(b"VASSAL.build.GameModule", b"data"), "savedata", file="s.vsav")


def test_an_undeclared_entity_is_a_syntax_error_not_a_lookup() -> None:
    with pytest.raises(ModuleError, match=r"^e.xml: malformed XML at line 1, column \d+: Entity 'x' not defined"):
        parse_buildfile(b'<VASSAL.build.GameModule name="&x;"/>', file="e.xml")


# -- YAML documents --------------------------------------------------------------------------

def test_document_size_at_and_over_the_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "actions.yaml"
    path.write_text("actions:\n- fire C5 F8 ap\n", encoding="utf-8")
    monkeypatch.setattr("converter.schema.MAX_DOCUMENT_SIZE", 25)
    assert load_document(path, "actions") == {"actions": ["fire C5 F8 ap"]}
    monkeypatch.setattr("converter.schema.MAX_DOCUMENT_SIZE", 24)
    with pytest.raises(SchemaError, match=r"actions.yaml: is 25 bytes, over the 24-byte cap$"):
        load_document(path, "actions")


def test_yaml_alias_bomb_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "laughs.yaml"
    path.write_text('a: &a ["lol","lol"]\nb: &b [*a,*a,*a,*a]\nc: [*b,*b,*b,*b]\n', encoding="utf-8")
    with pytest.raises(SchemaError, match=r"laughs.yaml: offset 3: not valid YAML: anchors and aliases are not allowed \(line 1, column 4\)$"):
        load_document(path, "profile")


# -- archive paths never reach the disk ------------------------------------------------------

HOSTILE_NAMES = ["../evil", "/abs", "../../tmp/evil2", "images/../../evil3"]


def hostile_save() -> bytes:
    return zipped({"savedGame": obfuscate(b"CHAThello", "vcsk"), **{n: n.encode() for n in HOSTILE_NAMES}})


def listing(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_entry_names_with_paths_are_kept_as_names_and_never_extracted(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    save = work / "hostile.vsav"
    save.write_bytes(hostile_save())
    (work / "text.txt").write_bytes(b"CHATbye")
    monkeypatch.chdir(work)
    before = listing(tmp_path)
    container = read_container(save)
    assert [e.name for e in container.entries] == ["savedGame", *HOSTILE_NAMES]
    assert [e.data for e in container.entries[1:]] == [n.encode() for n in HOSTILE_NAMES]
    again = read_container(container.to_bytes())
    assert [e.name for e in again.entries] == ["savedGame", *HOSTILE_NAMES]
    Module.from_bytes(zipped({"buildFile.xml": f"<{MODULE_ROOT}/>".encode(), **{n: b"x" for n in HOSTILE_NAMES}}))
    result = CliRunner().invoke(main, ["decode", "--raw", str(save)])
    assert result.exit_code == 0 and result.stdout_bytes == b"CHAThello"
    result = CliRunner().invoke(main, ["encode", "text.txt", "-o", "copy.vsav", "--like", str(save)])
    assert result.exit_code == 0, result.output
    assert [e.name for e in read_container("copy.vsav").entries] == ["savedGame", *HOSTILE_NAMES]
    assert listing(tmp_path) == sorted(before + ["a/b/copy.vsav"])
    assert not os.path.exists("/abs") and not (tmp_path / "evil").exists() and not Path("/tmp/evil2").exists()


def test_board_hexes_at_and_over_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cap is checked against an upper bound of the board's cells before one is made: the
    sample board (808 x 688 pixels, hexes 56 x 64) has 18 x 14 = 252 at most, 154 of them named."""
    from converter import terrain
    from converter.errors import GeometryError
    module = Module.read(Path(__file__).resolve().parents[1] / "samples" / "waw-sample.vmod")
    monkeypatch.setattr(terrain, "MAX_BOARD_HEXES", 252)
    assert len(list(terrain.board_hexes(module, "Main Map", "Eisenbach Sample"))) == 154
    monkeypatch.setattr(terrain, "MAX_BOARD_HEXES", 251)
    with pytest.raises(GeometryError, match=r"waw-sample.vmod: board 'Eisenbach Sample' would have about 252 hexes "
                                            r"\(808 x 688 pixels in hexes of 56 x 64\), over the 251-hex cap for a "
                                            r"board; refused$"):
        list(terrain.board_hexes(module, "Main Map", "Eisenbach Sample"))


def test_actions_in_one_file_at_and_over_the_cap(tmp_path: Path) -> None:
    from converter.actions_text import MAX_ACTIONS, ActionSyntaxError, load_actions
    path = tmp_path / "actions.yaml"
    path.write_text("- los bmp-1 us-infantry\n" * MAX_ACTIONS, encoding="utf-8")
    assert [spec.kind for spec in load_actions(path)] == ["los"] * 10_000
    path.write_text("- los bmp-1 us-infantry\n" * (MAX_ACTIONS + 1), encoding="utf-8")
    with pytest.raises(ActionSyntaxError, match=rf"^{path}: lists 10001 actions, over the 10000 allowed$"):
        load_actions(path)
