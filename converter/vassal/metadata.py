"""The metadata XML entries of saves and modules: ``savedata``, ``moduledata``, ``extensiondata``.

A small typed record (spec section 1.10) read with a hardened parser: no DTD, no
entities, no network, no deep trees. A document that declares a DOCTYPE or an entity
is refused outright, since VASSAL never writes one and it is the usual vehicle of XML
attacks. The original bytes are kept so that an unchanged entry is written back
byte-identical.

The parser is the standard library's expat, not lxml: these documents are a few hundred
bytes, and every command that opens a save reads them, so loading lxml for them would
cost ``wawkit inspect`` a fifth of its start-up (``bench/bench_startup.py``). Expat is
told never to read a DTD or parameter entities, and any DOCTYPE or entity declaration it
meets stops the parse. A document in an encoding expat does not know (VASSAL writes
UTF-8; expat also reads UTF-16 and the single-byte encodings Python knows) is read by
lxml's hardened parser.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from xml.parsers import expat

from converter.errors import ContainerError, LimitExceeded, WawkitError
from converter.vassal.limits import DEFAULT_LIMITS, Limits

METADATA_ENTRIES = ("savedata", "moduledata", "extensiondata")


@dataclass
class MetaData:
    """What a metadata entry says, plus its exact bytes."""

    entry: str
    raw: bytes
    #: The module name (``moduledata``); ``None`` for ``savedata``.
    name: str | None = None
    #: The module version (for ``savedata``: the version in use when saved).
    version: str | None = None
    vassal_version: str | None = None
    #: ``dateSaved``: milliseconds since the epoch, as VASSAL writes it.
    date_saved: int | None = None
    description: str | None = None
    #: Translations of name and description by language code (``lang`` attribute).
    translations: dict[str, dict[str, str]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return {"entry": self.entry, "name": self.name, "version": self.version,
                "vassal_version": self.vassal_version, "date_saved": self.date_saved,
                "description": self.description}


class _Refused(Exception):
    """A DOCTYPE or entity declaration met by expat (the byte scan before it missed it)."""


class _Reader:
    """Expat handlers that keep what :func:`parse_metadata` reads: each child of the root
    element in order, with its tag, ``lang`` attribute and text up to its first sub-node
    (what lxml calls ``child.text``), and the depth reached."""

    def __init__(self, max_depth: int, file: str | None, entry: str) -> None:
        self.max_depth, self.file, self.entry = max_depth, file, entry
        self.depth = 0
        self.children: list[tuple[str, str | None, str]] = []
        self._child: tuple[str, str | None] | None = None
        self._text: list[str] = []
        self._text_open = False

    def start(self, tag: str, attributes: dict[str, str]) -> None:
        self.depth += 1
        if self.depth > self.max_depth:
            raise LimitExceeded(f"XML nested deeper than {self.max_depth} elements", file=self.file,
                                entry=self.entry)
        if self.depth == 2:
            self._child, self._text, self._text_open = (tag, attributes.get("lang")), [], True
        else:
            self._text_open = False

    def end(self, tag: str) -> None:
        if self.depth == 2 and self._child is not None:
            self.children.append((*self._child, "".join(self._text)))
            self._child = None
        self.depth -= 1
        self._text_open = False

    def text(self, data: str) -> None:
        if self._text_open and self.depth == 2:
            self._text.append(data)

    def other_node(self, *_: Any) -> None:
        """A comment or processing instruction ends the text of the element it is in."""
        self._text_open = False

    def refuse(self, *_: Any) -> None:
        raise _Refused()


def _children_by_expat(raw: bytes, reader: _Reader) -> bool:
    """Parse ``raw`` into ``reader``; ``False`` when expat does not know its encoding."""
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartElementHandler = reader.start
    parser.EndElementHandler = reader.end
    parser.CharacterDataHandler = reader.text
    parser.CommentHandler = reader.other_node
    parser.ProcessingInstructionHandler = reader.other_node
    parser.StartDoctypeDeclHandler = reader.refuse
    parser.EntityDeclHandler = reader.refuse
    parser.ExternalEntityRefHandler = reader.refuse
    try:
        parser.Parse(raw, True)
    except expat.ExpatError as error:
        raise ContainerError(f"metadata is not well-formed XML (line {error.lineno}): "
                             f"{expat.ErrorString(error.code)}", file=reader.file, entry=reader.entry) from None
    except WawkitError:
        raise
    except (LookupError, ValueError):  # pyexpat's codec look-up: unknown or multi-byte encoding
        return False
    return True


def _children_by_lxml(raw: bytes, reader: _Reader, limits: Limits) -> None:
    """The same with lxml's hardened parser, for an encoding expat does not read."""
    from lxml import etree

    from converter.vassal.limits import check_xml_depth
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False,
                             dtd_validation=False, remove_comments=False)
    try:
        root = etree.fromstring(raw, parser)
    except etree.XMLSyntaxError as error:
        line = getattr(error, "position", (None, None))[0]
        raise ContainerError(f"metadata is not well-formed XML (line {line}): {error.msg}",
                             file=reader.file, entry=reader.entry) from None
    check_xml_depth(root, limits, file=reader.file, entry=reader.entry)
    reader.children = [(child.tag, child.get("lang"), child.text or "") for child in root
                       if isinstance(child.tag, str)]


def parse_metadata(raw: bytes, entry: str, *, file: str | None = None,
                   limits: Limits = DEFAULT_LIMITS) -> MetaData:
    """Read one metadata entry; refuse DOCTYPEs, entities and oversize documents."""
    if len(raw) > limits.max_metadata_size:
        raise LimitExceeded(f"metadata is {len(raw)} bytes, over the {limits.max_metadata_size}-byte cap",
                            file=file, entry=entry)
    head = raw[:4096].upper()
    refused = ContainerError("metadata declares a DOCTYPE or entity, which VASSAL never writes",
                             file=file, entry=entry, position=max(head.find(b"<!DOCTYPE"), 0))
    if b"<!DOCTYPE" in head or b"<!ENTITY" in raw.upper():
        raise refused
    reader = _Reader(limits.max_xml_depth, file, entry)
    try:
        if not _children_by_expat(raw, reader):
            _children_by_lxml(raw, reader, limits)
    except _Refused:
        raise refused from None
    meta = MetaData(entry=entry, raw=raw)
    for tag, lang, raw_text in reader.children:
        text = raw_text.strip()
        if lang is not None:
            meta.translations.setdefault(tag, {})[lang] = text
            continue
        if tag == "name":
            meta.name = text
        elif tag == "version":
            meta.version = text
        elif tag == "VassalVersion":
            meta.vassal_version = text
        elif tag == "description":
            meta.description = text
        elif tag == "dateSaved":
            meta.date_saved = int(text) if text.isdigit() else None
    return meta
