"""Safe loading of a module's files: the buildFile XML, and board images and stored setups beside it.

Modules travel by e-mail and forum download, so the buildFile is parsed as
hostile input: lxml with entity resolution, DTD loading and network access all
off, and a size cap checked before parsing. VASSAL never writes a DOCTYPE, so any
document that declares one (the vehicle of entity bombs and external-entity
reads) is rejected outright with a :class:`~converter.errors.ModuleError`
rather than parsed with its declarations ignored.

:class:`ModuleArchive` reads the other entries a module view needs (board images,
stored setups) lazily and within the same limits.

The entry is ``buildFile.xml`` (VASSAL 3.5+) or the legacy ``buildFile``; the
root element is ``VASSAL.build.GameModule``, ``VASSAL.launch.BasicModule``
(3.2-3.4) or ``VASSAL.build.module.ModuleExtension`` (spec sections 1.1-1.3).
"""
from __future__ import annotations

import io
import os
import re
import unicodedata

from lxml import etree

from converter.errors import LimitExceeded, ModuleError
from converter.vassal.container import _read_entry, open_archive
from converter.vassal.limits import DEFAULT_LIMITS, Limits, check_xml_depth

MIB = 1 << 20
#: Largest buildFile accepted by default. The largest real one seen is 1.7 MB; a
#: caller reading a bigger module passes ``max_size`` explicitly.
DEFAULT_MAX_BUILDFILE_SIZE = 64 * MIB
#: Zip entry names of the buildFile, in the order they are tried.
BUILDFILE_ENTRIES = ("buildFile.xml", "buildFile")
MODULE_ROOTS = ("VASSAL.build.GameModule", "VASSAL.launch.BasicModule")
EXTENSION_ROOT = "VASSAL.build.module.ModuleExtension"
ROOTS = (*MODULE_ROOTS, EXTENSION_ROOT)

_PROLOG = re.compile(rb"(?:\xef\xbb\xbf)?(?:\s+|<\?.*?\?>|<!--.*?-->)*", re.S)


def _parser() -> etree.XMLParser:
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False,
                           huge_tree=False, collect_ids=False)


def parse_buildfile(data: bytes, *, file: str | None = None, entry: str | None = None,
                    max_size: int = DEFAULT_MAX_BUILDFILE_SIZE, limits: Limits = DEFAULT_LIMITS) -> etree._Element:
    """Parse buildFile bytes into an lxml element tree, refusing anything unsafe or not a module.

    Raises :class:`LimitExceeded` over ``max_size`` bytes or ``limits.max_xml_depth``
    levels of nesting, and :class:`ModuleError` for a
    DOCTYPE, malformed XML or a root element that is not a module or extension.
    """
    if len(data) > max_size:
        raise LimitExceeded(f"buildFile is {len(data)} bytes, over the {max_size}-byte cap", file=file,
                            entry=entry)
    prolog = _PROLOG.match(data)
    end = prolog.end() if prolog else 0
    if data[end:end + 9] == b"<!DOCTYPE" or b"<!ENTITY" in data[:end + 4096]:
        raise ModuleError("buildFile declares a DOCTYPE or entities, which VASSAL never writes; refused",
                          file=file, entry=entry, position=end)
    if not data.strip():
        raise ModuleError("buildFile is empty", file=file, entry=entry, position=0)
    try:
        root = etree.fromstring(data, _parser())
    except etree.XMLSyntaxError as error:
        line, column = getattr(error, "position", (0, 0)) or (0, 0)
        message = str(error.msg if hasattr(error, "msg") else error)
        raise ModuleError(f"malformed XML at line {line}, column {column}: {message}", file=file,
                          entry=entry) from None
    check_xml_depth(root, limits, file=file, entry=entry)
    if root.getroottree().docinfo.doctype:
        raise ModuleError("buildFile declares a DOCTYPE, which VASSAL never writes; refused", file=file,
                          entry=entry)
    if root.tag not in ROOTS:
        raise ModuleError(f"root element {root.tag!r} is not a VASSAL module or extension "
                          f"(expected one of {', '.join(ROOTS)})", file=file, entry=entry)
    return root


class ModuleArchive:
    """The zip a module came from, read lazily and within limits (images, stored setups)."""

    def __init__(self, source: str | os.PathLike[str] | bytes, file: str | None, limits: Limits) -> None:
        self.source = source
        self.file = file
        self.limits = limits
        with open_archive(source, file=file, limits=limits) as archive:
            self.names = [info.filename for info in archive.infolist()]

    def read(self, entry: str, max_size: int | None = None) -> bytes:
        limits = self.limits if max_size is None else Limits(max_entry_size=min(max_size, self.limits.max_entry_size))
        with open_archive(self.source, file=self.file, limits=self.limits) as archive:
            return _read_entry(archive, archive.getinfo(entry), self.file, limits)

    def image_entry(self, name: str) -> str | None:
        """Where VASSAL finds an image: ``images/<name>``, its NFD form, then ``images/<name>.gif``."""
        names = set(self.names)
        for candidate in ("images/" + name, "images/" + unicodedata.normalize("NFD", name),
                          "images/" + name + ".gif"):
            if candidate in names:
                return candidate
        return None


#: Largest board image read to learn its size (a bigger one counts as missing: size unknown).
IMAGE_READ_CAP = 256 * 1024 * 1024
_SVG_LENGTH = re.compile(r"\s*([0-9.]+)\s*(px)?\s*$")


def image_size(data: bytes) -> tuple[int, int] | None:
    """Pixel size of a raster image (Pillow reads only the header) or an SVG's width/height."""
    head = data[:512].lstrip()
    if head.startswith(b"<"):
        try:
            root = etree.fromstring(data, etree.XMLParser(resolve_entities=False, no_network=True,
                                                          load_dtd=False))
        except etree.XMLSyntaxError:
            return None
        sizes = [_SVG_LENGTH.match(root.get(key, "")) for key in ("width", "height")]
        if all(sizes):
            return tuple(int(float(m.group(1)) + 0.5) for m in sizes)  # type: ignore[union-attr,return-value]
        view = (root.get("viewBox") or "").replace(",", " ").split()
        return (int(float(view[2]) + 0.5), int(float(view[3]) + 0.5)) if len(view) == 4 else None
    from PIL import Image, UnidentifiedImageError
    try:
        with Image.open(io.BytesIO(data)) as image:
            return image.size
    except (UnidentifiedImageError, OSError, ValueError):
        return None
