"""Safe loading of a module's files: the buildFile XML, and board images and stored setups beside it.

Modules travel by e-mail and forum download, so the buildFile is parsed as
hostile input: lxml with entity resolution, DTD loading and network access all
off, and a size cap checked before parsing. VASSAL never writes a DOCTYPE, so any
document that declares one (the vehicle of entity bombs and external-entity
reads) is rejected outright with a :class:`~converter.errors.ModuleError`
rather than parsed with its declarations ignored.

:class:`ModuleArchive` reads the other entries a module view needs (board images,
stored setups) lazily and within the same limits; :mod:`converter.vassal.images`
reads their sizes and pixels.

The entry is ``buildFile.xml`` (VASSAL 3.5+) or the legacy ``buildFile``; the
root element is ``VASSAL.build.GameModule``, ``VASSAL.launch.BasicModule``
(3.2-3.4) or ``VASSAL.build.module.ModuleExtension`` (spec sections 1.1-1.3).
"""
from __future__ import annotations

import hashlib
import io
import lzma
import os
import re
import unicodedata
import zipfile
import zlib
from dataclasses import replace
from typing import Any

from lxml import etree

from converter.errors import ContainerError, LimitExceeded, ModuleError
from converter.vassal.container import _read_entry, check_header, check_lzma_dictionary, open_archive
from converter.vassal.limits import DEFAULT_LIMITS, Limits, check_xml_depth

MIB = 1 << 20
#: Largest buildFile accepted by default. The largest real one seen is 1.7 MB; lxml's tree
#: takes about seven times the XML (a 32 MiB buildFile: 240 MB), so a caller reading a
#: bigger module passes ``max_size`` explicitly.
DEFAULT_MAX_BUILDFILE_SIZE = 32 * MIB
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
    """The zip a module came from, read lazily and within limits (images, stored setups).

    Each read opens the file again (a module's images can be hundreds of megabytes, so
    the archive is never read whole), checks that it is still the file first opened
    (same device, inode, size and modification time: a module replaced midway would mix
    two modules), and counts what it inflates against ``limits.max_total_size``.
    """

    def __init__(self, source: str | os.PathLike[str] | bytes, file: str | None, limits: Limits) -> None:
        self.source = source
        self.file = file
        self.limits = limits
        self.inflated = 0
        self._identity: tuple[int, ...] | None = None
        self._sha256: str | None = None
        with open_archive(source, file=file, limits=limits) as archive:
            self.names = [info.filename for info in archive.infolist()]
            if not isinstance(source, bytes):
                self._identity = _identity(archive.fp)

    def _open(self) -> zipfile.ZipFile:
        archive = open_archive(self.source, file=self.file, limits=self.limits)
        if self._identity is not None and _identity(archive.fp) != self._identity:
            archive.close()
            raise ContainerError("changed on disk while it was being read; run the command again", file=self.file)
        return archive

    def read(self, entry: str, max_size: int | None = None) -> bytes:
        """One entry's bytes, within the limits (and ``max_size``, if smaller)."""
        limits = self.limits if max_size is None else replace(self.limits, max_entry_size=min(
            max_size, self.limits.max_entry_size))
        with self._open() as archive:
            data = _read_entry(archive, archive.getinfo(entry), self.file, limits)
        self._count(len(data), entry)
        return data

    def read_head(self, entry: str, size: int) -> bytes:
        """The first ``size`` bytes of an entry (an image's header), inflating no more than that."""
        with self._open() as archive:
            info = archive.getinfo(entry)
            check_header(info, self.file, self.limits)
            try:
                check_lzma_dictionary(archive, info, self.file, self.limits)
                with archive.open(info) as stream:
                    data = stream.read(size)
            except (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, NotImplementedError, RuntimeError,
                    ValueError, OverflowError, OSError) as error:
                raise ContainerError(f"cannot inflate entry: {error}", file=self.file, entry=entry,
                                     position=info.header_offset) from None
        self._count(len(data), entry)
        return data

    def _count(self, size: int, entry: str) -> None:
        self.inflated += size
        if self.inflated > self.limits.max_total_size:
            raise LimitExceeded(f"inflates past the {self.limits.max_total_size}-byte cap in all", file=self.file,
                                entry=entry)

    def sha256(self) -> str:
        """sha256 of the module's file as first opened (an audit names the module by it)."""
        if self._sha256 is None:
            if isinstance(self.source, bytes):
                self._sha256 = hashlib.sha256(self.source).hexdigest()
            else:
                with self._open() as archive:
                    digest = hashlib.sha256()
                    archive.fp.seek(0)
                    for block in iter(lambda: archive.fp.read(1 << 20), b""):
                        digest.update(block)
                self._sha256 = digest.hexdigest()
        return self._sha256

    def image_entry(self, name: str) -> str | None:
        """Where VASSAL finds an image: ``images/<name>``, its NFD form, then ``images/<name>.gif``."""
        names = set(self.names)
        for candidate in ("images/" + name, "images/" + unicodedata.normalize("NFD", name),
                          "images/" + name + ".gif"):
            if candidate in names:
                return candidate
        return None


def _identity(handle: Any) -> tuple[int, ...] | None:
    try:
        info = os.fstat(handle.fileno())
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns
