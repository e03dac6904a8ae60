"""Safe buildFile loading: real roots accepted, hostile or broken XML refused with typed errors."""
from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from converter.errors import ContainerError, LimitExceeded, ModuleError, WawkitError
from converter.vassal.buildfile import parse_buildfile
from converter.vassal.module import Module

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
GAME_MODULE = b'<?xml version="1.0" encoding="UTF-8"?>\n<VASSAL.build.GameModule name="T" version="1"/>'


def _zip(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


@pytest.mark.parametrize("root", ["VASSAL.build.GameModule", "VASSAL.launch.BasicModule",
                                  "VASSAL.build.module.ModuleExtension"])
def test_every_module_root_is_accepted(root: str) -> None:
    element = parse_buildfile(f'<{root} name="N"><child/></{root}>'.encode())
    assert element.tag == root
    assert element.get("name") == "N"
    assert [c.tag for c in element] == ["child"]


def test_other_roots_are_refused() -> None:
    with pytest.raises(ModuleError, match="root element 'html' is not a VASSAL module"):
        parse_buildfile(b"<html/>", file="x.vmod", entry="buildFile.xml")


def test_malformed_xml_names_file_entry_and_line() -> None:
    with pytest.raises(ModuleError) as caught:
        parse_buildfile(b'<VASSAL.build.GameModule>\n  <a>\n</VASSAL.build.GameModule>', file="m.vmod",
                        entry="buildFile.xml")
    message = str(caught.value)
    assert message.startswith("m.vmod: entry buildFile.xml: malformed XML at line 3")
    assert caught.value.file == "m.vmod"
    assert caught.value.entry == "buildFile.xml"


def test_entity_bomb_is_refused_before_parsing() -> None:
    bomb = (b'<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n'
            + b"".join(b' <!ENTITY lol%d "%s">\n' % (i, b"&lol%d;" % (i - 1) * 10 if i > 1 else b"&lol;" * 10)
                       for i in range(1, 10))
            + b']>\n<VASSAL.build.GameModule name="&lol9;"/>')
    with pytest.raises(ModuleError, match="DOCTYPE or entities") as caught:
        parse_buildfile(bomb, file="bomb.vmod")
    assert caught.value.position == bomb.index(b"<!DOCTYPE")


def test_external_entity_and_bare_doctype_are_refused() -> None:
    xxe = b'<!DOCTYPE m [<!ENTITY x SYSTEM "file:///etc/passwd">]><VASSAL.build.GameModule name="&x;"/>'
    with pytest.raises(ModuleError, match="DOCTYPE"):
        parse_buildfile(xxe)
    commented = b'<?xml version="1.0"?><!-- hi --><!DOCTYPE VASSAL.build.GameModule><VASSAL.build.GameModule/>'
    with pytest.raises(ModuleError, match="DOCTYPE"):
        parse_buildfile(commented)


def test_size_limit_is_configurable() -> None:
    with pytest.raises(LimitExceeded, match="over the 40-byte cap"):
        parse_buildfile(GAME_MODULE, max_size=40)
    assert parse_buildfile(GAME_MODULE, max_size=len(GAME_MODULE)).get("name") == "T"
    archive = _zip({"buildFile.xml": GAME_MODULE})
    with pytest.raises(LimitExceeded):
        Module.from_bytes(archive, file="small.vmod", max_buildfile_size=40)


def test_empty_buildfile_is_a_module_error() -> None:
    with pytest.raises(ModuleError, match="empty"):
        parse_buildfile(b"  \n")


def test_zip_without_buildfile_is_a_container_error() -> None:
    with pytest.raises(ContainerError, match="no buildFile.xml or buildFile entry"):
        Module.from_bytes(_zip({"moduledata": b"<data/>"}), file="empty.vmod")


def test_buildfile_xml_is_preferred_over_legacy_entry() -> None:
    legacy = GAME_MODULE.replace(b'name="T"', b'name="old"')
    module = Module.from_bytes(_zip({"buildFile": legacy, "buildFile.xml": GAME_MODULE}), file="both.vmod")
    assert (module.name, module.entry) == ("T", "buildFile.xml")
    module = Module.from_bytes(_zip({"buildFile": legacy}), file="old.vmod")
    assert (module.name, module.entry) == ("old", "buildFile")


def test_corpus_buildfiles_parse() -> None:
    roots = {path.relative_to(CORPUS).as_posix(): Module.read(path).root.tag
             for path in sorted(CORPUS.glob("**/buildFile*"))}
    assert roots == {
        "asl-pbs-extension/buildFile.xml": "VASSAL.build.module.ModuleExtension",
        "ccn-napoleonics/buildFile.xml": "VASSAL.build.GameModule",
        "dreadball/buildFile": "VASSAL.launch.BasicModule",
        "fields-of-normandy-2/buildFile.xml": "VASSAL.build.GameModule",
        "hexncounters-template/template-src/buildFile.xml": "VASSAL.build.GameModule",
        "paths-of-glory/buildFile.xml": "VASSAL.build.GameModule",
        "ragnarok-spi/buildFile.xml": "VASSAL.build.GameModule",
        "tld-longest-day/buildFile": "VASSAL.build.GameModule",
        "zxvt-capture-territory/buildFile": "VASSAL.launch.BasicModule",
    }


def test_image_size_reads_raster_headers_and_svg_dimensions() -> None:
    from PIL import Image

    from converter.vassal.images import ImageError, image_size
    png = io.BytesIO()
    Image.new("RGB", (123, 45)).save(png, "PNG")
    assert image_size(png.getvalue()) == (123, 45)
    assert image_size(b'<svg xmlns="http://www.w3.org/2000/svg" width="640px" height="480"/>') == (640, 480)
    assert image_size(b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300.4 200.6"/>') == (300, 201)
    assert image_size(b'<svg xmlns="http://www.w3.org/2000/svg" width="50%" height="10cm"/>') is None
    with pytest.raises(ImageError, match=r"^b.png: entry images/b.png: image cannot be identified: "
                                         r"UnidentifiedImageError: cannot identify image file"):
        image_size(b"not an image", file="b.png", entry="images/b.png")
    assert image_size(b"<svg") is None  # a root element stating no size
    with pytest.raises(ImageError, match=r"^SVG image cannot be parsed: attributes construct error"):
        image_size(b'<svg width="10" height="20"')
    for width, height, shown in (("inf", "10", "inf x 10"), ("-Infinity", "3px", "-inf x 3"), ("NaN", "nan", "nan x nan"),
                                 ("1e999", "1", "inf x 1")):
        svg = f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}"/>'.encode()
        with pytest.raises(ImageError, match=rf"^m.vmod: entry images/b.svg: SVG width x height {shown} is not a "
                                             r"finite size$"):
            image_size(svg, file="m.vmod", entry="images/b.svg")


TOUR_BUILDFILE = zipfile.ZipFile(CORPUS / "vassal-tour" / "tour.mod").read("buildFile")


@settings(max_examples=150, deadline=None)
@given(cut=st.integers(0, len(TOUR_BUILDFILE)), junk=st.binary(max_size=12))
def test_truncated_or_corrupted_buildfile_fails_typed(cut: int, junk: bytes) -> None:
    data = TOUR_BUILDFILE[:cut] + junk
    try:
        module = Module.from_bytes(data, file="cut.vmod")
        module.maps, module.piece_slots, module.prototypes, module.setups, module.dice
    except WawkitError as error:
        assert error.file == "cut.vmod"


@settings(max_examples=100, deadline=None)
@given(data=st.binary(max_size=200))
def test_arbitrary_bytes_fail_typed(data: bytes) -> None:
    try:
        Module.from_bytes(data, file="junk")
    except WawkitError as error:
        assert error.file == "junk"


@pytest.mark.parametrize("keep", [10, 1000, 400_000, 840_000])
def test_truncated_module_zip_is_a_container_error(keep: int) -> None:
    data = (CORPUS / "vassal-tour" / "tour.mod").read_bytes()[:keep]
    with pytest.raises(ContainerError) as caught:
        Module.from_bytes(data, file="short.vmod")
    assert caught.value.file == "short.vmod"
