"""Inputs that once broke a reader, replayed on every test run.

``make fuzz`` saves each failing input as ``fuzz/crashes/<target>/<sha1>.bin`` (with its
traceback beside it); every one of them must now end normally or with a typed error,
within the time limit. The tests below also pin each fix with a small hand-written case.
"""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from converter.actions_text import ActionSyntaxError, load_actions
from converter.errors import SchemaError
from converter.schema import load_document, parse_text
from converter.scenario import loads
from converter.vassal.pieces import decode_piece
from fuzz.targets import ALLOWED, TARGETS, crash_files, prepare

SAVED = crash_files()


def test_every_saved_crash_input_now_ends_with_a_typed_error_or_success() -> None:
    assert {path.parent.name for path in SAVED} >= {"actions", "profile", "traits", "container", "action_fields"}
    prepare()
    for path in SAVED:
        began = time.process_time()   # CPU time, as the fuzzer's limit: a shared machine's load is not the reader's
        try:
            TARGETS[path.parent.name](path.read_bytes())
        except ALLOWED:
            pass
        assert time.process_time() - began < 2.0, path


DEEP_YAML = "key: " + "[" * 5000 + "]" * 5000 + "\n"


@pytest.mark.parametrize("fmt,text", [("yaml", DEEP_YAML), ("yaml", "{a: " * 3000), ("json", "[" * 100_000)])
def test_deeply_nested_document_is_a_schema_error(fmt: str, text: str) -> None:
    """PyYAML and json recurse once per level; a hostile file used to end in RecursionError."""
    with pytest.raises(SchemaError, match=r"^deep\.\w+: nested too deeply to read$"):
        parse_text(text, file=f"deep.{fmt}", fmt=fmt)


def test_deeply_nested_profile_file_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "profile.yaml"
    path.write_text(DEEP_YAML, encoding="utf-8")
    with pytest.raises(SchemaError, match=r"profile.yaml: nested too deeply to read$"):
        load_document(path, "profile")
    with pytest.raises(SchemaError, match=r"^s.yaml: nested too deeply to read$"):
        loads(DEEP_YAML, file="s.yaml")


def test_deeply_nested_actions_file_is_an_action_syntax_error(tmp_path: Path) -> None:
    path = tmp_path / "actions.yaml"
    path.write_text("- " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    with pytest.raises(ActionSyntaxError, match=r"actions.yaml: nested too deeply to read$"):
        load_actions(path)


def test_a_piece_with_six_hundred_layers_reads_quickly() -> None:
    type_text = "\t".join(["emb2;Step;;;;;;;;;;;1;false;0;0;a.png;;true;Step;;;false;;1;1;true;;;;;1.0;;true"] * 600
                          + ["piece;;;u.png;Unit"])
    began = time.perf_counter()
    piece = decode_piece(type_text, None)
    properties = piece.properties()
    assert len(piece.layers()) == 600 and properties["BasicName"] == "Unit"
    assert time.perf_counter() - began < 2.0


def test_corrupt_lzma_entry_is_a_container_error() -> None:
    """A zip entry stored with LZMA whose properties are invalid raised lzma.LZMAError."""
    import io
    import zipfile

    from converter.errors import ContainerError
    from converter.vassal.container import read_container

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_LZMA) as archive:
        archive.writestr("savedGame", b"CHAThello" * 100)
    data = bytearray(buffer.getvalue())
    properties = 30 + len("savedGame") + 4  # local header, name, then LZMA version and properties size
    data[properties] = 0xFF  # lc/lp/pb byte out of range
    with pytest.raises(ContainerError, match=r"^lzma.vsav: entry savedGame: offset 0: cannot inflate entry: "):
        read_container(bytes(data), file="lzma.vsav")
