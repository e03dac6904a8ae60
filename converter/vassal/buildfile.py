"""Safe loading of a module's buildFile XML.

Modules travel by e-mail and forum download, so the buildFile is parsed as
hostile input: lxml with entity resolution, DTD loading and network access all
off, and a size cap checked before parsing. VASSAL never writes a DOCTYPE, so any
document that declares one (the vehicle of entity bombs and external-entity
reads) is rejected outright with a :class:`~converter.errors.ModuleError`
rather than parsed with its declarations ignored.

The entry is ``buildFile.xml`` (VASSAL 3.5+) or the legacy ``buildFile``; the
root element is ``VASSAL.build.GameModule``, ``VASSAL.launch.BasicModule``
(3.2-3.4) or ``VASSAL.build.module.ModuleExtension`` (spec sections 1.1-1.3).
"""
from __future__ import annotations

import re

from lxml import etree

from converter.errors import LimitExceeded, ModuleError

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
                    max_size: int = DEFAULT_MAX_BUILDFILE_SIZE) -> etree._Element:
    """Parse buildFile bytes into an lxml element tree, refusing anything unsafe or not a module.

    Raises :class:`LimitExceeded` over ``max_size`` bytes and :class:`ModuleError` for a
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
    if root.getroottree().docinfo.doctype:
        raise ModuleError("buildFile declares a DOCTYPE, which VASSAL never writes; refused", file=file,
                          entry=entry)
    if root.tag not in ROOTS:
        raise ModuleError(f"root element {root.tag!r} is not a VASSAL module or extension "
                          f"(expected one of {', '.join(ROOTS)})", file=file, entry=entry)
    return root
