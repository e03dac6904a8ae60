"""The metadata XML entries of saves and modules: ``savedata``, ``moduledata``, ``extensiondata``.

A small typed record (spec section 1.10) read with a hardened lxml parser: no DTD, no
entities, no network, no huge trees. A document that declares a DOCTYPE or an entity
is refused outright, since VASSAL never writes one and it is the usual vehicle of XML
attacks. The original bytes are kept so that an unchanged entry is written back
byte-identical.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

from converter.errors import ContainerError, LimitExceeded
from converter.vassal.limits import DEFAULT_LIMITS, Limits, check_xml_depth

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


def _parser() -> etree.XMLParser:
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False,
                           dtd_validation=False, remove_comments=False)


def parse_metadata(raw: bytes, entry: str, *, file: str | None = None,
                   limits: Limits = DEFAULT_LIMITS) -> MetaData:
    """Read one metadata entry; refuse DOCTYPEs, entities and oversize documents."""
    if len(raw) > limits.max_metadata_size:
        raise LimitExceeded(f"metadata is {len(raw)} bytes, over the {limits.max_metadata_size}-byte cap",
                            file=file, entry=entry)
    head = raw[:4096].upper()
    if b"<!DOCTYPE" in head or b"<!ENTITY" in raw.upper():
        raise ContainerError("metadata declares a DOCTYPE or entity, which VASSAL never writes",
                             file=file, entry=entry, position=max(head.find(b"<!DOCTYPE"), 0))
    try:
        root = etree.fromstring(raw, _parser())
    except etree.XMLSyntaxError as error:
        line = getattr(error, "position", (None, None))[0]
        raise ContainerError(f"metadata is not well-formed XML (line {line}): {error.msg}",
                             file=file, entry=entry) from None
    check_xml_depth(root, limits, file=file, entry=entry)
    meta = MetaData(entry=entry, raw=raw)
    for child in root:
        if not isinstance(child.tag, str):
            continue
        text = (child.text or "").strip()
        lang = child.get("lang")
        if lang is not None:
            meta.translations.setdefault(child.tag, {})[lang] = text
            continue
        if child.tag == "name":
            meta.name = text
        elif child.tag == "version":
            meta.version = text
        elif child.tag == "VassalVersion":
            meta.vassal_version = text
        elif child.tag == "description":
            meta.description = text
        elif child.tag == "dateSaved":
            meta.date_saved = int(text) if text.isdigit() else None
    return meta
