"""Zip containers of saves: reading, writing, and every kind of bad archive."""
from __future__ import annotations

import io
import struct
import zipfile
from pathlib import Path

import pytest

from converter.errors import ContainerError, LimitExceeded, ObfuscationError
from converter.vassal.container import new_container, read_container, write_atomic
from converter.vassal.limits import Limits
from converter.vassal.metadata import parse_metadata
from converter.vassal.obfuscation import VCSK, Obfuscation, obfuscate
from tests.test_corpus_roundtrip import CORPUS

RAGNAROK = CORPUS / "ragnarok-spi" / "ragnarok-start.vsav"
TOUR_LOG = CORPUS / "vassal-tour" / "tour.log"


def _zip(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_reads_entries_metadata_and_obfuscation() -> None:
    container = read_container(RAGNAROK)
    assert [e.name for e in container.entries] == ["savedGame", "savedata", "moduledata"]
    assert container.obfuscation.scheme == VCSK
    assert container.plaintext.startswith(b"begin_save\x1b")
    module = container.metadata["moduledata"]
    assert (module.name, module.version, module.vassal_version) == (
        "Ragnarok (SPI) 1981", "1.2 release (v3.7.9)", "3.7.9")
    save = container.metadata["savedata"]
    assert (save.name, save.vassal_version, save.date_saved) == (None, "3.7.9", 1711664163784)


def test_plain_2005_log_has_only_saved_game() -> None:
    container = read_container(TOUR_LOG)
    assert [e.name for e in container.entries] == ["savedGame"]
    assert container.obfuscation.scheme == "plain"
    assert len(container.plaintext) == 28176


def test_unchanged_write_keeps_every_entry_and_the_key() -> None:
    container = read_container(RAGNAROK)
    again = read_container(container.to_bytes())
    assert again.plaintext == container.plaintext
    assert again.obfuscation == container.obfuscation
    assert [(e.name, e.data) for e in again.entries[1:]] == [(e.name, e.data) for e in container.entries[1:]]
    with zipfile.ZipFile(RAGNAROK) as original, zipfile.ZipFile(io.BytesIO(container.to_bytes())) as written:
        assert written.read("savedGame") == original.read("savedGame")  # same key: same bytes


def test_new_container_holds_saved_game_only() -> None:
    container = new_container(b"begin_save\x1b\x1bend_save", Obfuscation(VCSK, 7))
    with zipfile.ZipFile(io.BytesIO(container.to_bytes())) as archive:
        assert archive.namelist() == ["savedGame"]
        assert archive.read("savedGame") == obfuscate(b"begin_save\x1b\x1bend_save", Obfuscation(VCSK, 7))


def test_empty_file_is_a_container_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty.vsav"
    empty.write_bytes(b"")
    with pytest.raises(ContainerError, match=r"empty.vsav: offset 0: is empty"):
        read_container(empty)


def test_truncated_zip_is_a_container_error(tmp_path: Path) -> None:
    cut = tmp_path / "cut.vsav"
    cut.write_bytes(RAGNAROK.read_bytes()[:3000])
    with pytest.raises(ContainerError, match=r"cut.vsav: offset 0: is not a zip archive \(or is truncated\)"):
        read_container(cut)


def test_wrong_magic_is_a_container_error() -> None:
    with pytest.raises(ContainerError, match=r"game.vsav: offset 0: is not a zip archive"):
        read_container(b"!VCSK00" + b"00" * 40, file="game.vsav")


def test_missing_saved_game_entry() -> None:
    data = _zip({"moduledata": b"<data/>", "savedata": b"<data/>"})
    with pytest.raises(ContainerError, match=r"^m.vsav: no savedGame entry \(entries: moduledata, savedata\)"):
        read_container(data, file="m.vsav")


def test_zip_bomb_is_refused_from_its_header() -> None:
    data = _zip({"savedGame": b"\0" * 2_000_000})
    with pytest.raises(LimitExceeded, match=r"bomb.vsav: entry savedGame: declares 2000000 bytes"):
        read_container(data, file="bomb.vsav", limits=Limits(max_entry_size=100_000))


def _lie_about_size(data: bytes, real: int, claimed: int) -> bytes:
    """Rewrite every header's uncompressed size of the one entry from ``real`` to ``claimed``."""
    return data.replace(struct.pack("<I", real), struct.pack("<I", claimed))


def test_zip_bomb_with_a_lying_header_stops_at_the_cap() -> None:
    real = 3_000_000
    data = _lie_about_size(_zip({"savedGame": b"\0" * real}), real, 1000)
    with pytest.raises(ContainerError) as caught:
        read_container(data, file="liar.vsav", limits=Limits(max_entry_size=100_000))
    assert caught.value.file == "liar.vsav" and caught.value.entry == "savedGame"


def test_too_many_entries() -> None:
    data = _zip({f"e{i}": b"" for i in range(30)} | {"savedGame": b""})
    with pytest.raises(LimitExceeded, match="has 31 zip entries, over the cap of 20"):
        read_container(data, file="many.vsav", limits=Limits(max_entries=20))


def test_bad_obfuscation_inside_a_zip_names_the_entry() -> None:
    data = _zip({"savedGame": b"!VCSK00abc"})
    with pytest.raises(ObfuscationError, match=r"odd.vsav: entry savedGame: offset 9"):
        read_container(data, file="odd.vsav")


def test_metadata_with_a_doctype_is_refused() -> None:
    xml = b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x "boom">]><data><name>&x;</name></data>'
    with pytest.raises(ContainerError, match=r"m.vsav: entry moduledata: offset 21: metadata declares a DOCTYPE or entity"):
        parse_metadata(xml, "moduledata", file="m.vsav")


def test_malformed_metadata_is_a_container_error() -> None:
    data = _zip({"savedGame": b"begin_save", "savedata": b"<data><version>1</data>"})
    with pytest.raises(ContainerError, match=r"s.vsav: entry savedata: metadata is not well-formed XML"):
        read_container(data, file="s.vsav")


def test_metadata_translations_are_kept_apart() -> None:
    meta = parse_metadata((CORPUS / "paths-of-glory" / "moduledata").read_bytes(), "moduledata")
    assert meta.name == "Paths of Glory"
    assert meta.version == "10.8"
    assert "es" in meta.translations.get("name", {}) or "es" in meta.translations.get("description", {})


def test_metadata_text_is_what_vassal_wrote_up_to_the_first_sub_node() -> None:
    """Each child's text up to its first sub-element, comment or processing instruction,
    CDATA and character references included, stripped; ``lang`` children are translations."""
    xml = (b'<?xml version="1.0" encoding="UTF-8" standalone="no"?>\r\n<data version="1">'
           b'<name> Tour <!-- kept out --> of Duty </name><version>1<b>x</b>2</version>'
           b'<description lang="fr">Le &amp; <![CDATA[<tour>]]></description><description>&#84;he tour</description>'
           b'<VassalVersion>3.7.9<?pi x?>.1</VassalVersion><dateSaved>17116</dateSaved></data>')
    meta = parse_metadata(xml, "moduledata")
    assert (meta.name, meta.version, meta.vassal_version, meta.date_saved) == ("Tour", "1", "3.7.9", 17116)
    assert meta.description == "The tour"
    assert meta.translations == {"description": {"fr": "Le & <tour>"}}


def test_metadata_in_another_encoding_is_read() -> None:
    single = '<?xml version="1.0" encoding="windows-1252"?><data><name>Café</name></data>'.encode("cp1252")
    assert parse_metadata(single, "savedata").name == "Café"
    double = '<?xml version="1.0" encoding="Shift_JIS"?><data><name>日本</name></data>'.encode("shift_jis")
    assert parse_metadata(double, "savedata").name == "日本"
    with pytest.raises(ContainerError, match=r"^s.vsav: entry savedata: metadata is not well-formed XML .*bogus"):
        parse_metadata(b'<?xml version="1.0" encoding="bogus"?><data/>', "savedata", file="s.vsav")


def test_metadata_doctype_past_the_first_4_kb_is_refused_by_the_parser() -> None:
    xml = b'<?xml version="1.0"?><!--' + b"x" * 5000 + b'--><!DOCTYPE data SYSTEM "http://x/d.dtd"><data/>'
    with pytest.raises(ContainerError, match=r"^s.vsav: entry savedata: offset 0: metadata declares a DOCTYPE"):
        parse_metadata(xml, "savedata", file="s.vsav")


def test_metadata_undefined_entity_is_a_syntax_error() -> None:
    with pytest.raises(ContainerError, match=r"^s.vsav: entry savedata: metadata is not well-formed XML \(line 2\): "
                                             r"undefined entity$"):
        parse_metadata(b"<data>\n<name>&x;</name></data>", "savedata", file="s.vsav")


def test_write_atomic_refuses_to_clobber(tmp_path: Path) -> None:
    target = tmp_path / "out.vsav"
    write_atomic(target, b"one")
    with pytest.raises(ContainerError, match="exists already"):
        write_atomic(target, b"two")
    assert target.read_bytes() == b"one"
    write_atomic(target, b"two", overwrite=True)
    assert target.read_bytes() == b"two"
    assert [p.name for p in tmp_path.iterdir()] == ["out.vsav"]  # no temporary file left behind
